"""One calibrated camera frame -> everything the referee needs: the one composite of recognition.

``gammonwatch recognize``, ``gammonwatch eval vision`` and the live pipeline (``serve --source``,
``demo``) all read frames through :class:`FrameRecognizer`, so they see the same thing::

    from calibration.profile import CalibrationProfile
    from vision.recognizer import FrameRecognizer

    rec = FrameRecognizer(CalibrationProfile.load("profile.json"))
    boxes = rec.locate_dice(image, settled=False)  # one look: cheap enough for every moving frame
    result = rec.recognize(image)             # board + dice values + validity (settled frames)
    result.to_json()                          # the issue-5 JSON of `gammonwatch recognize --json`
    result.observation(frame_id, t)           # vision.observation.TableObservation for the tracker
    result.timings_ms                         # {"board": .., "dice_locate": .., "dice_read": .., "validity": ..}

The parts are the committed models: :class:`vision.board_reader.BoardReader` (checkers, cube),
the dice locator, :class:`vision.dice.DieReader` (values; the calibrated-frame model ``models/die_reader_calibrated.onnx``) and
:class:`vision.dice_validity.DieValidityClassifier` (validity, reason, half).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.board import board_to_image, signed_area
from calibration.profile import CalibrationProfile
from vision.board_reader import BoardReader, BoardReading
from vision.cube import CUBE_SURE, CubeWindows, centred_on
from vision.dice import SETTLED_ZOOMS, DieReader, DieReaders, up_directions
from vision.dice_locator import SETTLED_SCALES, SURE_SCORE, DiceLocator, LocatedDice, look_labels, merge_looks
from vision.dice_validity import (
    DEFAULT_DIE_CM,
    VALID_CLASSES,
    CameraCache,
    DieValidity,
    DieValidityClassifier,
    die_board_xy,
    die_board_xy_from_top,
    doubt_hidden,
    hidden_fraction,
    with_readers_doubt,
)
from vision.die_box import DieBoxRefiner
from vision.errors import VisionError
from vision.images import colour_frame
from vision.observation import DieObservation, TableObservation

U8 = npt.NDArray[np.uint8]
Box = tuple[float, float, float, float]

NEAR_BOARD_CM = 15.0
"""How far beyond the playing surface (cm, in the board plane) a located die is still reported."""
DICE_PER_THROW = 2
"""A settled frame gets its closer look unless the first finds this many dice plainly."""
ROI_PAD_PX = 40
"""Pixels added around the near-board region a settled frame's dice are looked for in (a die's box
is centred on the die; a large die near the camera is about 60 px wide)."""


LOOK_SHIFT_PX = 4
"""The second look (:meth:`FrameRecognizer.look_again`) looks again with its window this many pixels
up and to the left: half a cell of the locator's grid at the frame's size (its stride, 4, at input
scale 0.5), where a die can score on one side of the threshold or the other."""
CLOSE_SCALE = 1.5
"""The frame size (relative) :meth:`FrameRecognizer.look_closer` looks at one box in: each die of two
touching ones shows its own peak there more often than at the settled sizes (on 600 held-out frames,
5 of 34 boxes holding two dice's centres came apart, the right two, while 20 of 1,005 one-die boxes
showed two peaks: the pipeline looks closer only at a box too large for one die)."""


def box_holds(box: Sequence[float], xy: Sequence[float]) -> bool:
    """Whether the point ``xy`` lies inside the box ``x0, y0, x1, y1`` (edges included)."""
    return box[0] <= xy[0] <= box[2] and box[1] <= xy[1] <= box[3]


def _grid_windows(region: Sequence[float], w: int, h: int) -> list[tuple[int, int, int, int]]:
    """The windows a second look searches ``region`` (``x0, y0, x1, y1``, frame pixels) in: as given and
    moved :data:`LOOK_SHIFT_PX` up and to the left (the locator's grid at two phases), clipped to the
    ``w x h`` frame; a window under 16 px a side is left out."""
    out = []
    for shift in (0, LOOK_SHIFT_PX):
        roi = (max(0, int(region[0]) - shift), max(0, int(region[1]) - shift), min(w, int(region[2])), min(h, int(region[3])))
        if roi[2] - roi[0] >= 16 and roi[3] - roi[1] >= 16:
            out.append(roi)
    return out


def die_px_range(profile: CalibrationProfile, die_cm: float = DEFAULT_DIE_CM) -> tuple[float, float]:
    """Smallest and largest die side (pixels) to expect on the surface: a die's top face projected
    at the far and near edge of both halves, with room for seeing its sides."""
    sides = []
    q = profile.dims.play_depth / 2
    for half, hmat in profile.homographies.items():
        x0, x1, _, _ = profile.dims.half_rect(half)
        for x in (x0 + die_cm, x1 - die_cm):
            for y in (-q + die_cm, q - die_cm):
                sq = np.array([[x, y], [x + die_cm, y], [x + die_cm, y + die_cm], [x, y + die_cm]])
                uv = board_to_image(hmat, sq)
                sides.append(float(np.sqrt(abs(signed_area(uv)))))
    return max(6.0, 0.7 * min(sides)), 1.8 * max(sides)


@dataclass(frozen=True)
class Recognition:
    """What one frame shows (physical numbering, issue 5)."""

    board: BoardReading | None
    dice: tuple[DieObservation, ...]
    verdicts: tuple[DieValidity, ...] = ()
    """The validity classifier's verdict for each die (same order as :attr:`dice`)."""
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The object ``gammonwatch recognize --json`` prints (issue 5 layout)."""
        if self.board is None:
            raise VisionError("this recognition has no board reading (recognize(..., board=False))")
        data = self.board.to_json()
        dice = []
        for d, v in zip(self.dice, self.verdicts, strict=True):
            dice.append({"value": d.value, "valid": v.reason in VALID_CLASSES, "reason": v.reason, "half": v.half,
                         "center_px": [round(d.center_px[0], 1), round(d.center_px[1], 1)],
                         "confidence": round(d.confidence * v.confidence, 4)})
        cube = data.get("cube") or {"value": 1, "zone": "absent", "confidence": 0.0}
        return {"points": data["points"], "bar": data["bar"], "off": data["off"], "dice": dice, "cube": cube}

    def observation(self, frame_id: int = 0, timestamp: float = 0.0,
                    profile: CalibrationProfile | None = None) -> TableObservation:
        if self.board is None:
            raise VisionError("this recognition has no board reading (recognize(..., board=False))")
        return self.board.observation(dice=self.dice, frame_id=frame_id, timestamp=timestamp, profile=profile)


class FrameRecognizer:
    """Board reader + dice locator + die reader + validity for one calibrated camera.

    Missing models raise :class:`vision.errors.ModelMissingError` naming the file and how to rebuild it.
    """

    def __init__(self, profile: CalibrationProfile, *, board: BoardReader | None = None,
                 die_reader: DieReader | DieReaders | None = None, validity: DieValidityClassifier | None = None,
                 locator: DiceLocator | None = None, refiner: DieBoxRefiner | None = None, threads: int = 1) -> None:
        self.profile = profile
        self.board_reader = board or BoardReader(threads=threads)
        self.die_reader = die_reader or DieReaders.calibrated(threads=threads)
        self.validity = validity or DieValidityClassifier(threads=threads)
        self.locator = locator or DiceLocator(threads=threads)
        self.refiner = refiner or DieBoxRefiner(threads=threads)
        self._roi: tuple[int, int, int, int] | None = None
        self._with_camera = CameraCache()

    def _check(self, image: U8) -> U8:
        return colour_frame(image, self.profile.image_size)

    def locate_dice(self, image: U8, settled: bool = True, arrived: Callable[[Box], bool] | None = None) -> list[Box]:
        """Pixel boxes ``x0, y0, x1, y1`` of the dice on and near the board (the trained locator,
        :class:`vision.dice_locator.DiceLocator`; boxes in the simulator's label convention), highest
        score first. Dice off the playing surface are kept when they lie within
        :data:`NEAR_BOARD_CM` of it (validity then calls them ``off_board``). A settled frame gets the
        locator's looks at every scale; ``settled=False`` (a moving frame, for the tracker) one look.
        ``arrived``: whether a box can be a die at all (the live pipeline: it differs from the table as
        last seen quiet); a box it refuses does not count as a die found plainly."""
        arr = self._check(image)
        if settled:
            roi = self._near_board_roi()
            found = self.locator.locate(arr, roi=roi, enough=DICE_PER_THROW)
            plain = [s >= SURE_SCORE and (arrived is None or arrived(b)) for b, s in zip(found.as_list(), found.scores, strict=True)]
            if sum(plain) < DICE_PER_THROW:
                # not both dice plainly: the frame again at the other phase of the network's grid, half a
                # cell away (seed 322: a 3 at rest on the navy felt, 25 px, scored 0.29-0.31 at both
                # sizes and 0.57 with the frame four pixels further; never found, its roll taken as unseen;
                # session 22, seed 322: a 6 touching its 4, 0.56 there, missed while a checker's rim that
                # was no die arrived scored 0.60 at the first look and made two plain "dice")
                # Only dice the first look missed are added: a die both looks find keeps the first look's
                # box (the two phases place it a few pixels apart, and a box that jumps between settled
                # frames restarts the die's rest: seed 320's cocked die, its verdict due at 2 s, was
                # taken up first)
                # A die only this look finds must be plain at it (SURE_SCORE): at the locator's own
                # threshold the second look also finds what the first rightly passed over (the demo's
                # table between games: a white point's tip by a checker, 0.48 there and 0.41 at the
                # first look, became a die at rest and the next roll's cocked die was never followed)
                shifted = (roi[0] + LOOK_SHIFT_PX, roi[1] + LOOK_SHIFT_PX, roi[2], roi[3])
                again = self.locator.locate(arr, roi=shifted, threshold=SURE_SCORE)
                merged, scores = merge_looks(np.concatenate([found.boxes, again.boxes]).reshape(-1, 4),
                                             np.concatenate([found.scores + 1.0, again.scores]), self.locator.max_dice,
                                             look_labels([found.boxes, again.boxes]))
                found = LocatedDice(merged, np.where(scores > 1.0, scores - 1.0, scores))
        else:
            found = self.locator.locate(arr, scales=(1.0,))
        x_max, y_max = self._near_board_extent()
        out: list[Box] = []
        for b in found.as_list():
            x, y = die_board_xy(self.profile, b)
            if abs(x) <= x_max and abs(y) <= y_max:
                out.append(b)
        return out

    def look_again(self, image: U8, centre: tuple[float, float], radius: float, threshold: float) -> list[Box]:
        """Boxes of dice within ``radius`` pixels of ``centre`` that score at least ``threshold`` (below
        the locator's own), highest score first: a second look where a followed die was not found, at
        the sizes a settled frame is looked at (seed 307: white dice on walnut scored 0.11-0.19 at the
        frame's size in such a window and 0.24-0.37 at x1.25)."""
        arr = self._check(image)
        h, w = arr.shape[:2]
        boxes: list[npt.NDArray[np.float64]] = []
        scores: list[npt.NDArray[np.float64]] = []
        # the window at two phases of the network's grid, half a cell apart (session 11, seed 322: a
        # die plainly at rest by the bar scored 0.3 in a window starting at (522, 265) and under 0.2
        # in one a pixel up and to the left; the pipeline asked with the die's last centre, 601.99,
        # 344.83, and never found it)
        for roi in _grid_windows((centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius), w, h):
            found = self.locator.locate(arr, scales=SETTLED_SCALES, roi=roi, threshold=threshold)
            near = [math.dist(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), centre) <= radius for b in found.as_list()]
            boxes.append(found.boxes[near])
            scores.append(found.scores[near])
        if not boxes:
            return []
        merged, _ = merge_looks(np.concatenate(boxes).reshape(-1, 4), np.concatenate(scores), self.locator.max_dice,
                                look_labels(boxes))
        return [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in merged]

    def look_closer(self, image: U8, box: Box, threshold: float) -> list[list[Box]]:
        """What the locator finds inside ``box`` looking at the frame :data:`CLOSE_SCALE` times its size
        around it (a box's side each way), scoring at least ``threshold``: for each of two windows half
        a cell of its grid apart (as :meth:`look_again`), the boxes whose centres lie inside ``box``,
        highest score first. Two dice touching that the settled looks took for one (seed 358: a 5 and a
        3 corner to corner, 19 px apart, one box 36 x 39 px at both settled sizes) show two peaks
        there (0.57 and 0.47), in one window or both."""
        arr = self._check(image)
        h, w = arr.shape[:2]
        m = max(box[2] - box[0], box[3] - box[1])
        out: list[list[Box]] = []
        for roi in _grid_windows((box[0] - m, box[1] - m, box[2] + m + 1, box[3] + m + 1), w, h):
            found = self.locator.locate(arr, scales=(CLOSE_SCALE,), roi=roi, threshold=threshold)
            out.append([b for b in found.as_list() if box_holds(box, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2))])
        return out

    def _near_board_extent(self) -> tuple[float, float]:
        """Half width and half depth (cm, board frame) of the region a located die is reported in: the
        playing surface and :data:`NEAR_BOARD_CM` around it."""
        dims = self.profile.dims
        return dims.bar_width / 2 + dims.half_width + NEAR_BOARD_CM, dims.play_depth / 2 + NEAR_BOARD_CM

    def _near_board_roi(self) -> tuple[int, int, int, int]:
        """The image region where a die kept by :meth:`locate_dice` can lie: the playing surface and
        :data:`NEAR_BOARD_CM` around it, from the board up to 5 cm above it, plus a die's box around
        (what the looks of a settled frame are spent on)."""
        if self._roi is None:
            x_max, y_max = self._near_board_extent()
            pts = [(sx * x_max, sy * y_max, z) for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, 5.0)]
            uv = self.profile.project(np.array(pts, dtype=np.float64))
            w, h = self.profile.image_size
            pad = ROI_PAD_PX
            self._roi = (max(0, int(uv[:, 0].min() - pad)), max(0, int(uv[:, 1].min() - pad)),
                         min(w, int(uv[:, 0].max() + pad) + 1), min(h, int(uv[:, 1].max() + pad) + 1))
        return self._roi

    def read_dice(self, image: U8, boxes: Sequence[Box], point_counts: Sequence[int] | None = None,
                  rolled_half: str | None = None,
                  timings: dict[str, float] | None = None) -> tuple[list[DieObservation], list[DieValidity]]:
        """Value, validity, reason and half of each die given its box, and the validity verdicts."""
        arr = self._check(image)
        if not boxes:
            return [], []
        t0 = time.perf_counter()
        # the values from the boxes refined (decision 0716: the locator can box a die low, on its front
        # face, or short); validity from both boxes, averaged (it was trained on the locator's: from the
        # refined box alone seed 314 lost three turns); the tracker and the observation keep the locator's
        refined = self.refiner.refine(arr, boxes, up_directions(self.profile, boxes))
        values = self.die_reader.read(arr, refined, ups=up_directions(self.profile, refined), zooms=SETTLED_ZOOMS,
                                      profile=self.profile)
        t1 = time.perf_counter()
        verdicts = self.validity.judge(arr, self.profile, boxes, point_counts=point_counts, rolled_half=rolled_half)
        again = self.validity.judge(arr, self.profile, refined, point_counts=point_counts, rolled_half=rolled_half)
        verdicts = [self.validity.combine(v, w, rolled_half) for v, w in zip(verdicts, again, strict=True)]
        t2 = time.perf_counter()
        if timings is not None:
            timings["dice_read"] = (t1 - t0) * 1e3
            timings["validity"] = (t2 - t1) * 1e3
        # the "half" is the side of the bar: a die off the playing surface keeps the side it lies on
        verdicts = [v if v.half is not None else
                    replace(v, half="right" if die_board_xy(self.profile, b)[0] >= 0 else "left")
                    for b, v in zip(boxes, verdicts, strict=True)]
        # a weakly valid die the readers cannot read is judged invalid (decision 0725), unless the rails or
        # the bar hide part of it: then the rail explains the readers' doubt, not the pose (decision 0742)
        camera = self._with_camera(self.profile)
        hidden = [hidden_fraction(camera, die_board_xy_from_top(camera, b)) for b in boxes]
        verdicts = [with_readers_doubt(v, values.probabilities[i], hidden=hidden[i]) for i, v in enumerate(verdicts)]
        # a die the rails or the bar partly hide is read with doubt (decision 0736); after the readers'
        # doubt above, which is about dice in full view that show no one face
        out = []
        for i, (b, v) in enumerate(zip(boxes, verdicts, strict=True)):
            valid_p = v.valid_p if v.reason in VALID_CLASSES else min(v.valid_p, 0.49)
            value_p = doubt_hidden(values.probabilities[i], hidden[i])
            out.append(DieObservation(value_p,
                                      ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), (b[0], b[1], b[2], b[3]), v.half, "at_rest",
                                      valid_p, v.reason))
        return out, verdicts

    def read_board(self, image: U8, hand_mask: U8 | None = None, mask_scale: float = 1.0,
                   known: Sequence[tuple[int, int]] | None = None, dice: Sequence[Box] | None = None) -> BoardReading:
        """The board part of recognition; ``hand_mask``, ``known``, ``dice``: see :meth:`BoardReader.read`."""
        return self.board_reader.read(self._check(image), self.profile, hand_mask, mask_scale, known, dice)

    def recognize(self, image: U8, *, rolled_half: str | None = None, board: bool = True,
                  dice: bool = True) -> Recognition:
        """Read one BGR frame (as ``cv2.imread`` gives)."""
        arr = self._check(image)
        timings: dict[str, float] = {}
        reading = None
        counts: list[int] | None = None
        boxes: list[Box] = []
        if dice:
            t0 = time.perf_counter()
            boxes = self.locate_dice(arr)
            timings["dice_locate"] = (time.perf_counter() - t0) * 1e3
        if board:
            t0 = time.perf_counter()
            reading = self.board_reader.read(arr, self.profile, dice=boxes)
            timings["board"] = (time.perf_counter() - t0) * 1e3
            counts = [a + b for a, b in reading.point_counts()]
        found: list[DieObservation] = []
        verdicts: list[DieValidity] = []
        if dice:
            if reading is not None:
                boxes = not_the_cube(boxes, reading.cube_windows)
            found, verdicts = self.read_dice(arr, boxes, counts, rolled_half, timings)
        return Recognition(reading, tuple(found), tuple(verdicts), timings)


def not_the_cube(boxes: Sequence[Box], windows: CubeWindows | None) -> list[Box]:
    """The dice boxes without the one the dice locator put on the cube: a box centred on the point where
    the cube reader read the cube's face (:data:`CUBE_CENTRED`; a die leaning on the cube is off
    centre), when the cube is surely at the bar or by a rail (seed 502:
    16 of the 57 dice found where none lay in 150 quiet frames were the cube). A cube on the playing
    surface is left alone there (the cube reader takes a die for the cube there now and then, and a
    die dropped is a roll lost). One frame only: the live pipeline also drops what does not move
    (decision 0706)."""
    if windows is None or windows.centre_px is None or not windows.presence:
        return list(boxes)
    best = windows.likeliest
    if best.startswith("board") or windows.presence[best] < CUBE_SURE:
        return list(boxes)
    return [b for b in boxes if not centred_on(b, windows.centre_px)]


__all__ = ["FrameRecognizer", "Recognition", "die_px_range", "not_the_cube", "VALID_CLASSES"]
