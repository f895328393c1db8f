"""The trained dice locator (ONNX) on held-out simulator frames, its target coding, and its failure modes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from vision.dice_locator import (
    DEFAULT_MODEL,
    STRIDE,
    SURE_SCORE,
    DiceLocator,
    decode,
    encode_targets,
    input_size,
    merge_looks,
    prepare,
)
from vision.errors import ModelMissingError, VisionError

ROOT = Path(__file__).resolve().parents[2]
SIM = ROOT / "tests" / "data" / "sim-sample"
FRAMES = sorted(SIM.glob("*.json"))

needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason=f"{DEFAULT_MODEL} not built yet")


def as_trained(model_path: Path) -> DiceLocator:
    """The locator given its input at the contrast it was trained at (1), not its metadata's (decision 0740)."""
    loc = DiceLocator(model_path)
    loc.contrast = 1.0
    return loc


def label_dice(path: Path) -> list[dict]:
    lab = json.loads(path.read_text())
    return [o for o in lab["objects"] if o["kind"] == "die" and o["box_xyxy"] is not None]


def test_a_missing_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"train_dice_locator\.py"):
        DiceLocator(tmp_path / "nope.onnx")


def test_a_corrupt_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx graph")
    with pytest.raises(ModelMissingError, match="cannot be loaded"):
        DiceLocator(bad)


def test_input_is_scaled_padded_and_checked() -> None:
    assert input_size(1280, 720) == (640, 360, 640, 360)
    assert input_size(1000, 701) == (500, 350, 504, 352)
    x = prepare(np.full((701, 1000, 3), 255, np.uint8))
    assert x.shape == (1, 3, 352, 504) and x.dtype == np.float32
    assert np.allclose(x[0, :, :350, :500], (1.0 - 0.5) / 0.25) and np.all(x[0, :, 350:, :] == 0)
    with pytest.raises(VisionError, match="8-bit colour image"):
        prepare(np.zeros((720, 1280), np.uint8))


def test_targets_decode_back_to_the_boxes() -> None:
    """A perfect network output (the encoded targets as probabilities) decodes to the same boxes."""
    boxes = [[40.3, 50.2, 52.9, 63.7], [120.0, 30.0, 141.5, 49.0], [10.0, 200.0, 18.0, 207.5]]
    heat, weight, reg, mask = encode_targets(boxes, [[200.0, 200.0, 220.0, 220.0]], 64, 64, STRIDE)
    assert mask.sum() == 3 and heat.max() == 1.0
    assert weight[52:54, 52:54].sum() == 0 and weight[0, 0] == 1  # zero loss weight around the ignored die
    logits = np.log(np.clip(heat, 1e-6, 1 - 1e-6) / (1 - np.clip(heat, 1e-6, 1 - 1e-6))).astype(np.float32)
    got, scores = decode(logits, reg, 0.5, STRIDE)
    assert len(got) == 3 and np.all(scores > 0.99)
    order = np.argsort(got[:, 0])
    want = np.array(boxes)[np.argsort(np.array(boxes)[:, 0])]
    assert np.abs(got[order] - want).max() < 1e-3


@pytest.fixture(scope="module")
def locator() -> DiceLocator:
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"{DEFAULT_MODEL} not built yet")
    return DiceLocator()


@needs_model
@pytest.mark.parametrize("scales,floor_found,most_false", [((1.0,), 7, 2), ((1.0, 1.25), 7, 3)])
def test_finds_the_dice_of_held_out_frames(locator: DiceLocator, scales, floor_found, most_false) -> None:
    """Frames of board-test (seed and board styles never trained on; a flat, an off-board, a leaning,
    an on-checker and an on-die die among the eight). A die counts as found when a box centre lies
    within 6 px of its label's and the box side is within 40% of the label's. The floors are this
    model's measured results on these frames: one look (moving frames) 7 of 8 found with 2 other
    boxes, the two looks of a settled frame 7 with 3 (the session-2 model found 5 with 1 other box);
    on the whole held-out set see models/dice_locator.md."""
    found = false_pos = total = 0
    for label in FRAMES:
        image = cv2.imread(str(label.with_suffix(".jpg")))
        got = locator.locate(image, scales=scales)
        truth = np.array([d["box_xyxy"] for d in label_dice(label)])
        total += len(truth)
        used: set[int] = set()
        for t in truth:
            if not len(got):
                break
            d = np.hypot(*((got.boxes[:, :2] + got.boxes[:, 2:]) / 2 - (t[:2] + t[2:]) / 2).T)
            j = int(np.argmin(d))
            size_ratio = (got.boxes[j, 2:] - got.boxes[j, :2]) / (t[2:] - t[:2])
            if j not in used and d[j] <= 6.0 and np.all(np.abs(size_ratio - 1) <= 0.4):
                used.add(j)
                found += 1
        false_pos += len(got) - len(used)
    assert total == 8
    assert found >= floor_found, f"{found} of 8 dice found"
    assert false_pos <= most_false, f"{false_pos} boxes that are no die"


@needs_model
def test_an_empty_table_has_no_dice(locator: DiceLocator) -> None:
    """The sample frame with its dice painted over by the surrounding felt: nothing is found there."""
    path = SIM / "000006.json"
    image = cv2.imread(str(path.with_suffix(".jpg")))
    mask = np.zeros(image.shape[:2], np.uint8)
    for d in label_dice(path):
        x0, y0, x1, y1 = (int(round(v)) for v in d["box_xyxy"])
        mask[y0 - 4 : y1 + 4, x0 - 4 : x1 + 4] = 255
    clean = cv2.inpaint(image, mask, 9, cv2.INPAINT_TELEA)
    assert len(locator.locate(clean)) == 0


@needs_model
def test_the_recognizer_reports_located_dice_near_the_board() -> None:
    from vision.recognizer import FrameRecognizer

    path = SIM / "000000.json"
    lab = json.loads(path.read_text())
    profile = CalibrationProfile.from_corners(lab["board"]["corners4_px"], (1280, 720))
    rec = FrameRecognizer(profile)
    image = cv2.imread(str(path.with_suffix(".jpg")))
    boxes = rec.locate_dice(image)
    # one die flat in the right half, one lying off the board next to it: both reported (and at
    # most one other box, which the live pipeline's rules must then refuse, decision 0653)
    centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes])
    want = [((d["box_xyxy"][0] + d["box_xyxy"][2]) / 2, (d["box_xyxy"][1] + d["box_xyxy"][3]) / 2)
            for d in label_dice(path)]
    assert len(want) == 2 and 2 <= len(boxes) <= 3
    for w in want:
        assert np.hypot(*(centres - np.array(w)).T).min() <= 4.0, f"no box at the die at {w}"


def test_looks_at_two_scales_merge_into_one_box_per_die() -> None:
    """The two looks of a settled frame find the same die twice: one box, the stronger; two dice
    side by side (centres more than 0.6 of a side apart) stay two."""
    boxes = np.array([[100, 100, 130, 130], [102, 101, 131, 129], [140, 100, 170, 130], [400, 50, 420, 70]], dtype=float)
    scores = np.array([0.5, 0.7, 0.4, 0.9])
    kept, s = merge_looks(boxes, scores, max_dice=8)
    assert s.tolist() == [0.9, 0.7, 0.4]
    assert kept[1].tolist() == [102, 101, 131, 129]
    kept, s = merge_looks(boxes, scores, max_dice=2)
    assert len(kept) == 2


def test_two_peaks_of_one_look_are_two_dice_however_close() -> None:
    """Seed 355: a 6 and a 3 at rest corner to corner, found by the frame-size look as two peaks
    (0.55 and 0.45), centres 17 px apart in boxes of 31, were merged as one die with the enlarged
    look's boxes: the roll was never seen at rest and the monitor was asked for it. Peaks of one
    heatmap stay two; a box of another look on either is that die again. Near miss: without the
    looks given, every box is its own look and the close pair is merged as before."""
    boxes = np.array([[400, 270, 429, 301], [399, 255, 424, 282], [398, 268, 428, 301], [401, 258, 420, 278]], dtype=float)
    scores = np.array([0.555, 0.454, 0.247, 0.217])
    kept, s = merge_looks(boxes, scores, max_dice=8, looks=[0, 0, 1, 1])
    assert s.tolist() == [0.555, 0.454]
    kept, s = merge_looks(boxes, scores, max_dice=8)
    assert s.tolist() == [0.555]


@needs_model
def test_a_locator_without_a_scale_to_look_at_is_refused(locator: DiceLocator) -> None:
    with pytest.raises(ValueError, match="at least one scale"):
        locator.locate(np.zeros((720, 1280, 3), np.uint8), scales=())


@needs_model
def test_a_region_to_look_in_gives_frame_boxes_and_enough_dice_stop_the_looking(locator: DiceLocator) -> None:
    """``roi``: the boxes of a look restricted to a region are in frame pixels, on the dice the whole
    frame shows; a region too small is refused. ``enough``: the closer look is skipped once the
    first finds that many dice scoring at least SURE_SCORE (the settled frame's fast path), and taken
    when it does not."""
    path = SIM / "000000.json"
    image = cv2.imread(str(path.with_suffix(".jpg")))
    dice = [d["box_xyxy"] for d in label_dice(path)]
    x0 = int(min(b[0] for b in dice)) - 120
    y0 = int(min(b[1] for b in dice)) - 120
    x1 = int(max(b[2] for b in dice)) + 120
    y1 = int(max(b[3] for b in dice)) + 120
    inside = locator.locate(image, scales=(1.0,), roi=(x0, y0, x1, y1))
    for b in dice:
        c = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])
        got = (inside.boxes[:, :2] + inside.boxes[:, 2:]) / 2
        assert np.hypot(*(got - c).T).min() <= 6.0
    assert np.all(inside.boxes[:, 0] >= x0 - 1) and np.all(inside.boxes[:, 2] <= x1 + 1)
    with pytest.raises(ValueError, match="less than 16 x 16"):
        locator.locate(image, roi=(100, 100, 110, 400))
    one = locator.locate(image, scales=(1.0,))
    sure = int((one.scores >= SURE_SCORE).sum())
    stopped = locator.locate(image, scales=(1.0, 1.25), enough=sure)
    assert np.array_equal(stopped.boxes, one.boxes)
    both = locator.locate(image, scales=(1.0, 1.25))
    assert np.array_equal(locator.locate(image, scales=(1.0, 1.25), enough=sure + 1).boxes, both.boxes)


@needs_model
def test_the_second_look_finds_a_white_die_on_walnut_the_frame_size_look_misses() -> None:
    """Seed 307 (held out): two white dice at rest on the walnut board scored under the locator's
    threshold; the pipeline's second look, a window around each followed die, found them only at
    x1.25 (at the frame's size one scored 0.11 there, under the second look's 0.2), so the roll went
    unseen. The crop (400 x 320 of the 1280 x 720 frame) keeps the window's pixels as they were."""
    from vision.recognizer import FrameRecognizer

    image = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "white-dice-on-walnut.jpg"))
    assert image is not None and image.shape[:2] == (320, 400)
    rec = FrameRecognizer(CalibrationProfile.from_corners([[10, 10], [390, 10], [390, 310], [10, 310]], (400, 320)))
    for centre in ((149.0, 167.0), (245.0, 269.0)):  # where the tracker followed them
        found = rec.look_again(image, centre, 80.0, 0.2)
        assert found, f"no die found around {centre}"
        b = found[0]
        assert np.hypot((b[0] + b[2]) / 2 - centre[0], (b[1] + b[3]) / 2 - centre[1]) <= 10.0
    # the frame-size look alone, given the contrast the model was trained at, misses the first one (what
    # the second look did before); at the model's own input contrast (decision 0740) it scores 0.21
    x, y = 149, 167
    alone = as_trained(rec.locator.model_path).locate(image, scales=(1.0,), roi=(x - 80, y - 80, x + 80, y + 80), threshold=0.2)
    assert len(alone) == 0
    assert len(rec.locator.locate(image, scales=(1.0,), roi=(x - 80, y - 80, x + 80, y + 80), threshold=0.2)) == 1


@needs_model
def test_two_touching_dice_found_as_one_come_apart_on_a_closer_look() -> None:
    """Seed 358 (held out, walnut wood, 48 degrees), frame 770 of its video render: light's 5 and 3 at
    rest corner to corner, centres 19 px apart. The settled looks find one box around both (the 3 was
    read, the 5 never followed: the roll went unseen). Looked at 1.5 times the frame's size around that
    box, in one of the two windows of the grid, each die shows its own peak. Near miss: the box of a
    die lying apart shows one peak. The crop (x 720-1120, y 170-490, JPEG 95) keeps the dice's surroundings."""
    from vision.recognizer import FrameRecognizer

    image = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "touching-dice-seed358.jpg"))
    assert image is not None and image.shape[:2] == (320, 400)
    rec = FrameRecognizer(CalibrationProfile.from_corners([[10, 10], [390, 10], [390, 310], [10, 310]], (400, 320)))
    five, three = np.array([189.7, 163.8]), np.array([203.2, 150.3])  # the simulator's centres
    boxes = rec.locate_dice(image)
    assert len(boxes) == 1
    one = boxes[0]
    assert all(one[0] <= c[0] <= one[2] and one[1] <= c[1] <= one[3] for c in (five, three))
    windows = rec.look_closer(image, one, 0.2)
    pairs = [w[:2] for w in windows if len(w) >= 2]
    assert pairs, f"no window shows two dice: {windows}"
    centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in pairs[0]])
    for c in (five, three):
        assert float(np.hypot(*(centres - c).T).min()) <= 6.0
    # near miss: the boxes of two white dice apart on walnut (seed 307's crop) hold one peak each
    apart = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "white-dice-on-walnut.jpg"))
    for centre in ((149.0, 167.0), (245.0, 269.0)):
        single = rec.look_again(apart, centre, 80.0, 0.2)[0]
        assert all(len(w) <= 1 for w in rec.look_closer(apart, single, 0.2))


@needs_model
def test_the_second_look_tries_a_second_phase_of_the_grid() -> None:
    """Session 11, seed 322 (held out, navy-leather, 48 degrees): dark's second die lay at rest by
    the bar, plainly in view, where the tracker had last seen it moving (601.99, 344.83). The second
    look's window from there found nothing near it (a false box at 0.202 near the window's edge);
    the same window a pixel up and to the left scores the die above 0.3. The track stayed
    'rolling' and the roll went unseen. The second look now also looks half a grid cell (4 px) up
    and to the left. The crop (200 x 200 of the 1280 x 720 frame, PNG) keeps the window's pixels;
    near miss: the one window alone still misses the die."""
    from vision.recognizer import FrameRecognizer

    image = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "die-by-the-bar-navy.png"))
    assert image is not None and image.shape[:2] == (200, 200)
    rec = FrameRecognizer(CalibrationProfile.from_corners([[5, 5], [195, 5], [195, 195], [5, 195]], (200, 200)))
    x, y = 601.99 - 500, 344.83 - 245  # the track's last centre, in the crop
    die = (100.0, 98.0)  # the die's centre in the crop (truth: 601.8, 343.7 in the frame)

    def near_die(boxes: list[tuple[float, float, float, float]]) -> bool:
        return any(np.hypot((b[0] + b[2]) / 2 - die[0], (b[1] + b[3]) / 2 - die[1]) <= 10.0 for b in boxes)

    assert near_die(rec.look_again(image, (x, y), 80.0, 0.2))
    # near miss at the contrast the model was trained at (its own input contrast, decision 0740, finds
    # the die in the one window at 0.21)
    alone = as_trained(rec.locator.model_path).locate(image, scales=(1.0, 1.25), roi=(int(x - 80), int(y - 80), int(x + 80), int(y + 80)), threshold=0.2)
    assert not near_die(alone.as_list())


@needs_model
def test_a_settled_frame_is_looked_at_a_second_phase_of_the_grid_when_a_die_is_not_plain() -> None:
    """Session 12, seed 322 (held out, navy-leather, 48 degrees), frame 8425: a 3 at rest on the felt,
    25 px, plainly in view, scored 0.29-0.31 at both sizes of the settled look and 0.57 with the frame
    four pixels further; it was never found, and its roll was taken as unseen from the play. A settled
    frame that does not show both dice plainly is looked at again half a grid cell away. The crop
    (160 x 160 of the 1280 x 720 frame at (464, 256), a multiple of the grid's 8 px, PNG) keeps the
    pixels and the phase; near miss: the settled look alone still misses the die."""
    from vision.recognizer import FrameRecognizer

    image = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "die-three-navy.png"))
    assert image is not None and image.shape[:2] == (160, 160)
    rec = FrameRecognizer(CalibrationProfile.from_corners([[5, 5], [155, 5], [155, 155], [5, 155]], (160, 160)))
    die = (542.7 - 464, 334.0 - 256)  # the truth's centre, in the crop

    def near_die(boxes: list[tuple[float, float, float, float]]) -> bool:
        return any(np.hypot((b[0] + b[2]) / 2 - die[0], (b[1] + b[3]) / 2 - die[1]) <= 10.0 for b in boxes)

    assert near_die(rec.locate_dice(image))
    assert not near_die(rec.locator.locate(image, roi=(0, 0, 160, 160)).as_list())


@needs_model
def test_the_second_grid_phase_adds_dice_and_keeps_the_first_looks_boxes(monkeypatch) -> None:
    """Seed 320 (session 12): the two phases placed a cocked die's box 5 px apart; the better-scoring
    phase's box won in one settled frame and not in the next, the die "moved" and its rest started
    again, and its verdict came after it was taken up. A die the first look found keeps that box
    (whatever the second phase scores it); the second phase adds only dice the first look missed,
    and only those it finds plainly (the demo between games: a point's tip by a checker scored 0.48 at
    the second phase and became a phantom die at rest). Near misses: the same box at 0.45 is not
    added; a first look that finds both dice plainly is not followed by a second."""
    from vision.dice_locator import LocatedDice
    from vision.recognizer import FrameRecognizer

    rec = FrameRecognizer(CalibrationProfile.from_corners([[5, 5], [395, 5], [395, 295], [5, 295]], (400, 300)))
    image = np.full((300, 400, 3), 90, np.uint8)
    a, a_shifted, b = (100.0, 100.0, 130.0, 130.0), (104.0, 103.0, 134.0, 133.0), (250.0, 150.0, 280.0, 180.0)
    calls: list[tuple[int, int, int, int] | None] = []

    def locate(arr, scales=None, roi=None, enough=None, threshold=None):  # type: ignore[no-untyped-def]
        calls.append(roi)
        first = roi is None or roi[0] % 8 == 0
        if first:
            return LocatedDice(np.array([a]), np.array(first_score))
        keep = np.array([0.6, b_score]) >= (0.35 if threshold is None else threshold)
        return LocatedDice(np.array([a_shifted, b])[keep], np.array([0.6, b_score])[keep])

    first_score, b_score = [0.4], 0.55
    monkeypatch.setattr(rec.locator, "locate", locate)
    got = rec.locate_dice(image)
    assert len(calls) == 2 and a in got and b in got and a_shifted not in got
    calls.clear()
    b_score = 0.45
    got = rec.locate_dice(image)
    assert len(calls) == 2 and got == [a]
    calls.clear()

    def plain(arr, scales=None, roi=None, enough=None, threshold=None):  # type: ignore[no-untyped-def]
        calls.append(roi)
        return LocatedDice(np.array([a, b]), np.array([0.9, 0.8]))

    monkeypatch.setattr(rec.locator, "locate", plain)
    assert rec.locate_dice(image) == [a, b] and len(calls) == 1


def test_a_plain_box_that_cannot_be_a_die_does_not_spare_the_second_look() -> None:
    """Session 22, seed 322 (held out), frame 10930: a 6 touching its 4 scored 0.56 at the second
    phase of the locator's grid, under 0.35 at the first; a checker's rim by the far rail scored 0.60
    there. Two boxes at least SURE_SCORE made the frame's two dice "plain", the second look was not
    taken, and the 6 was never followed (the roll taken from the play, the monitor asked). The live
    pipeline says which boxes can be dice (``arrived``: they differ from the table as last seen quiet);
    one it refuses does not count as plain. Near miss: without ``arrived`` the two plain boxes stand."""
    from vision.dice_locator import LocatedDice
    from vision.recognizer import LOOK_SHIFT_PX, FrameRecognizer

    rim, four, six = (891.0, 157.0, 907.0, 174.0), (811.0, 397.0, 840.0, 429.0), (817.0, 374.0, 845.0, 406.0)

    class TwoPhases:
        """The first look (the near-board window) finds the rim and the 4; the window half a grid
        cell further finds the 6 as well."""
        max_dice = 8

        def __init__(self) -> None:
            self.first: tuple[int, int] | None = None

        def locate(self, image, roi=None, enough=None, threshold=None, scales=None):  # noqa: ANN001, ANN201
            if self.first is None:
                self.first = (roi[0], roi[1])
                return LocatedDice(np.array([rim, four]), np.array([0.60, 0.57]))
            assert (roi[0], roi[1]) == (self.first[0] + LOOK_SHIFT_PX, self.first[1] + LOOK_SHIFT_PX)
            return LocatedDice(np.array([six, four]), np.array([0.56, 0.50]))

    profile = CalibrationProfile.from_corners([[80, 40], [1200, 40], [1200, 680], [80, 680]], (1280, 720))
    image = np.zeros((720, 1280, 3), np.uint8)
    plain = FrameRecognizer(profile, locator=TwoPhases()).locate_dice(image)
    assert plain == [rim, four]
    seen = FrameRecognizer(profile, locator=TwoPhases()).locate_dice(image, arrived=lambda b: b != rim)
    assert seen == [rim, four, six]


def test_the_input_contrast_scales_the_input_about_mid_grey_and_a_bad_value_is_refused() -> None:
    """Decision 0740: the model's metadata gives the contrast its input is given at run time (1 when
    absent, as trained); a value that is no number in 0.2-2 stops with the model named and the fix."""
    from vision.dice_locator import input_contrast, normalise

    img = np.random.default_rng(3).integers(0, 256, (40, 64, 3), dtype=np.uint8)
    assert np.allclose(normalise(img, contrast=0.8), 0.8 * normalise(img), atol=1e-6)
    assert np.allclose(normalise(np.full((8, 8, 3), 255, np.uint8), contrast=0.8), 0.8 * (1.0 - 0.5) / 0.25)
    assert input_contrast({}, "m.onnx") == 1.0
    assert input_contrast({"input_contrast": "0.8"}, "m.onnx") == 0.8
    for bad in ("abc", "5", "nan", "0"):
        with pytest.raises(ModelMissingError, match=r"m\.onnx.*input_contrast.*calibrate_locator_contrast\.py"):
            input_contrast({"input_contrast": bad}, "m.onnx")


def test_the_contrast_chosen_keeps_recall_and_takes_the_best_precision() -> None:
    """models/calibrate_locator_contrast.py: among the contrasts whose recall is at most 0.005 under the
    recall as trained (contrast 1), the best precision (session 39's figures on 1,600 frames of the
    training styles the model never saw: 0.8; 0.7 loses 1.1 points of recall); near miss: with no
    loss allowed, 1 (0.9 loses 0.04 points)."""
    import sys

    sys.path.insert(0, str(ROOT / "models"))
    from calibrate_locator_contrast import choose

    measured = {1.0: (0.9516, 0.6177), 0.9: (0.9512, 0.6559), 0.8: (0.9475, 0.6841), 0.7: (0.9402, 0.7026)}
    assert choose(measured, 0.005) == 0.8
    assert choose(measured, 0.0) == 1.0
    with pytest.raises(ValueError, match="include 1"):
        choose({0.9: (0.9, 0.7)}, 0.005)


@needs_model
def test_a_white_one_on_walnut_is_found_at_the_models_input_contrast(locator: DiceLocator) -> None:
    """Seed 362 (held out, walnut wood, 55 degrees), frame 689 of its video render: a white 1 lying flat
    mid-board in plain view (387, 385 in the frame) scored 0.26 by one look of the committed model, and
    its 3 (436, 515) 0.74. The crop (x 200-600, y 250-570, JPEG 95) keeps the dice's surroundings. At
    the contrast the model's metadata gives (decision 0740) one look finds both; near miss: at the
    contrast it was trained at, only the 3."""
    image = cv2.imread(str(Path(__file__).parents[1] / "data" / "vision" / "white-one-on-walnut-seed362.jpg"))
    assert image is not None and image.shape[:2] == (320, 400)
    one, three = np.array([187.0, 135.0]), np.array([236.0, 265.0])

    def found(loc: DiceLocator) -> list[bool]:
        got = loc.locate(image, scales=(1.0,))
        centres = (got.boxes[:, :2] + got.boxes[:, 2:]) / 2
        return [bool(len(centres)) and float(np.hypot(*(centres - c).T).min()) <= 8.0 for c in (one, three)]

    assert locator.contrast < 1.0
    assert found(locator) == [True, True]
    assert found(as_trained(locator.model_path)) == [False, True]
