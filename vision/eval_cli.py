"""``gammonwatch eval``: accuracy reports for the vision models.

    gammonwatch eval dice DIR [--model models/die_reader.onnx] [--reader model|pips] [--errors] [--detect]
    gammonwatch eval vision DATASET [DATASET...] [--limit N] [--styles a,b] [--json FILE] [--quiet]

``dice``: for a folder of photos with ``NAME.json`` labels (layout of ``shared/data/real-dice``:
``dice`` with ``value`` and ``box_xyxy_norm``), read each labelled die from its box and print the
accuracy; the last line is ``accuracy: 0.973 (n=1487)``. ``--reader pips`` uses the classical pip
counter instead of the model; ``--detect`` also reports the classical dice detector's recall and
precision against the labelled boxes (IoU >= 0.5).

``vision``: for folders of labelled simulator frames (``DATASET/frames/NNNNNN.jpg`` + ``.json``,
docs/sim.md), run the whole recognizer (:class:`vision.recognizer.FrameRecognizer`) on every frame
with a profile from the label's 8 board corners (plus the label camera's intrinsics) and print
issue 5's report: checker counts per point and whole boards, die values (the locator's dice
matched to the labelled dice by centre; the locator's recall and precision), validity (invalid
caught, valid called invalid, the reasons' confusion matrix), the cube's value and zone, and the
time per frame (``--json FILE`` writes the figures). Frames are read as the live pipeline reads
them; the validity model is told which half the dice were rolled into (the label's
``physical.rolled_half``, which the referee knows in a game) unless ``--no-rolled-half``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.board import BoardDimensions
from calibration.errors import CalibrationError
from calibration.intrinsics import Intrinsics
from calibration.profile import CalibrationProfile
from vision.dice import DEFAULT_MODEL, DieReader, crop_die
from vision.dice_data import read_folder
from vision.dice_validity import VALID_CLASSES
from vision.errors import VisionError
from vision.images import read_image
from vision.observation import CUBE_ZONES, DIE_REASONS
from vision.recognizer import FrameRecognizer, Recognition

IOU_MATCH = 0.5


def eval_dice(folder: Path, model: Path, reader_kind: str = "model", show_errors: bool = False,
              detect: bool = False) -> tuple[int, int]:
    """(correct, total) over every labelled die of the folder; prints per-value figures."""
    photos = read_folder(folder)  # check the labels before loading the model
    reader = DieReader(model) if reader_kind == "model" else None
    truth: list[int] = []
    pred: list[int] = []
    found = labelled = detected = 0
    for photo in photos:
        image = read_image(photo.image_path)
        h, w = image.shape[:2]
        crops = np.stack([crop_die(image, die.box_px(w, h)) for die in photo.dice]) if photo.dice else None
        if crops is None:
            values = np.zeros(0, dtype=np.int64)
            conf = np.zeros(0)
        elif reader is not None:
            readings = reader.read_crops(crops)
            values, conf = readings.value, readings.confidence.astype(np.float64)
        else:
            from vision.pips import count_pips_batch

            values, conf = count_pips_batch(crops), np.ones(len(crops))
        for k, die in enumerate(photo.dice):
            truth.append(die.value)
            pred.append(int(values[k]))
            if show_errors and values[k] != die.value:
                print(f"{photo.name} die {k}: labelled {die.value}, read {values[k]} (p={conf[k]:.2f})")
        if detect:
            from vision.detections import box_iou
            from vision.dice_detect import detect_dice

            dets = detect_dice(image)
            gt = np.array([die.box_px(w, h) for die in photo.dice]).reshape(-1, 4)
            labelled += len(gt)
            detected += len(dets)
            if len(dets) and len(gt):
                found += int((box_iou(gt, dets.xyxy).max(axis=1) >= IOU_MATCH).sum())
    t, p = np.array(truth, dtype=np.int64), np.array(pred, dtype=np.int64)
    print(f"photos: {len(photos)}, dice: {len(t)}, reader: {model if reader is not None else 'classical pip counter'}")
    for v in range(1, 7):
        sel = t == v
        if sel.any():
            print(f"  value {v}: {int((p[sel] == v).sum())}/{int(sel.sum())} = {float((p[sel] == v).mean()):.3f}")
    if detect:
        print(f"detector (classical, IoU >= {IOU_MATCH}): recall {found / max(labelled, 1):.3f} ({found}/{labelled}), "
              f"precision {found / max(detected, 1):.3f} ({found}/{detected})")
    return int((t == p).sum()), len(t)

# ---------------------------------------------------------------------------------------------
# eval vision: issue 5's report on labelled simulator frames


@dataclass(frozen=True)
class TruthDie:
    """One labelled die at rest."""

    value: int
    valid: bool
    reason: str
    center_px: tuple[float, float]
    side_px: float
    """Larger side of its labelled box (pixels): the matching radius scales with it."""
    visible: float | None = None
    """Share of the die in view (not hidden by checkers, hands, the rail), None when the label does not say."""
    shows_value: bool | None = None
    """Its top face shows its value (:func:`die_shows_value`), None when the label does not say."""
    under_die: bool = False
    """The other die rests on it (:func:`under_other_die`): its own label is valid, its roll is void (A1.5).
    Counted apart from the valid and the invalid dice."""


@dataclass(frozen=True)
class SimFrame:
    """What a simulator label says about its frame (docs/sim.md), checked."""

    label_path: Path
    image_path: Path
    size: tuple[int, int]
    corners: npt.NDArray[np.float64]
    intrinsics: Intrinsics | None
    points: tuple[tuple[int, int], ...]
    bar: tuple[int, int]
    off: tuple[int, int]
    dice: tuple[TruthDie, ...]
    cube_zone: str
    cube_value: int | None
    rolled_half: str | None
    style: str
    hands: bool = False
    """A hand is over the table in this frame (the tracker reads the board only without hands)."""
    dims: BoardDimensions | None = None
    """The board's sizes (``table_cm``), as a user measures them for the profile; None: the defaults."""
    cube_visible: float | None = None
    """Share of the cube in view (a cube by the near or far rail is often mostly behind it), None when
    the cube is absent or the label does not say."""


UNDER_DIE_ROW = "under_die"
"""The confusion matrix's row for the dice under the other die (:func:`under_other_die`), whatever their label."""

SHOWS_VALUE_TILT_DEG = 30.0
"""A die tilted more than this from flat has no one face on top: the label's value (the face nearest
the vertical) is a guess between two faces, and the rules make it a cocked roll anyway (RG19 4.1.4.3)."""


def under_other_die(obj: dict[str, Any], objects: Sequence[dict[str, Any]]) -> bool:
    """Whether the other die of a simulator label rests on this one (``objects`` entries of kind "die"):
    a die whose supports name a die, centred within 1.2 die edges of this one. The die underneath lies
    flat and its own label is valid, but the roll is void (DIGEST A1.5: one die resting on the other;
    RG19 4.1.4.3), and from the camera it is the lower half of one stack."""
    pose = obj.get("pose")
    if not isinstance(pose, dict) or "position_cm" not in pose:
        return False
    x, y = (float(v) for v in pose["position_cm"][:2])
    reach = 1.2 * float(obj.get("size_cm", 1.6))
    for other in objects:
        if other is obj or other.get("kind") != "die" or "die" not in other.get("physical", {}).get("supports", []):
            continue
        opos = other.get("pose", {}).get("position_cm")
        if opos is not None and np.hypot(float(opos[0]) - x, float(opos[1]) - y) < reach:
            return True
    return False


def die_shows_value(obj: dict[str, Any], objects: Sequence[dict[str, Any]]) -> bool | None:
    """Whether a simulator label's die (an ``objects`` entry of kind "die") shows its value on top: tilted
    at most :data:`SHOWS_VALUE_TILT_DEG` from flat and not under the other die (:func:`under_other_die`:
    a die resting on it hides its top face, whatever the camera). None when the label has no physical pose."""
    phys = obj.get("physical")
    if not isinstance(phys, dict) or "tilt_deg" not in phys:
        return None
    if float(phys["tilt_deg"]) > SHOWS_VALUE_TILT_DEG:
        return False
    return not under_other_die(obj, objects)


def _count_pair(obj: Any, where: str) -> tuple[int, int]:
    if not isinstance(obj, dict) or not all(isinstance(obj.get(c), int) for c in ("light", "dark")):
        raise ValueError(f"{where} needs integer 'light' and 'dark' counts, got {obj!r}")
    return int(obj["light"]), int(obj["dark"])


def parse_sim_label(path: Path) -> SimFrame:
    """Read and check one simulator label; a bad one raises :class:`VisionError` naming the file."""
    try:
        lab = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VisionError(f"{path}: not a readable JSON label ({exc}); regenerate the frame with "
                          "'gammonwatch sim frames' or remove the file and its image") from exc
    try:
        if not isinstance(lab, dict):
            raise ValueError("the label is not a JSON object")
        cam = lab["camera"]
        size = (int(cam["width"]), int(cam["height"]))
        corners = np.asarray(lab["board"]["corners8_px"], dtype=np.float64)
        if corners.shape != (8, 2) or not np.all(np.isfinite(corners)):
            raise ValueError(f"board.corners8_px must be 8 finite [x, y] pairs, got shape {corners.shape}")
        intr = None
        if "K" in cam:
            k = np.asarray(cam["K"], dtype=np.float64)
            dist = np.asarray(cam.get("dist", [0.0] * 5), dtype=np.float64)
            if k.shape != (3, 3):
                raise ValueError(f"camera.K must be 3 x 3, got shape {k.shape}")
            intr = Intrinsics(k, dist, size)
        ts = lab["table_state"]
        pts = ts["points"]
        if not isinstance(pts, list) or len(pts) != 24:
            raise ValueError(f"table_state.points must list the 24 points, got {type(pts).__name__} "
                             f"of {len(pts) if isinstance(pts, list) else '?'}")
        points: list[tuple[int, int]] = [(0, 0)] * 24
        for e in pts:
            n = int(e["point"])
            if not 1 <= n <= 24:
                raise ValueError(f"table_state.points has point {n} (1..24 expected)")
            points[n - 1] = _count_pair(e, f"table_state.points[{n}]")
        bar = _count_pair(ts["bar"], "table_state.bar")
        off = _count_pair(ts["off"], "table_state.off")
        boxes = {int(o["id"]): o for o in lab.get("objects", []) if o.get("kind") == "die"}
        dice = []
        rolled = None
        for d in ts.get("dice", []):
            if d.get("state", "at_rest") != "at_rest":
                continue
            cx, cy = (float(v) for v in d["center_px"])
            if not (0 <= cx < size[0] and 0 <= cy < size[1]):
                continue
            obj = boxes.get(int(d.get("id", -1)), {})
            box = obj.get("box_xyxy")
            side = max(box[2] - box[0], box[3] - box[1]) if box else 20.0
            rolled = rolled or obj.get("physical", {}).get("rolled_half")
            reason = str(d["reason"])
            if reason not in DIE_REASONS:
                raise ValueError(f"die reason {reason!r} is not one of {', '.join(DIE_REASONS)}")
            vis = obj.get("visible_frac")
            dice.append(TruthDie(int(d["value"]), bool(d["valid"]), reason, (cx, cy), float(side),
                                 None if vis is None else float(vis),
                                 die_shows_value(obj, lab.get("objects", [])),
                                 under_other_die(obj, lab.get("objects", []))))
        cube = ts.get("cube")
        zone, value = ("absent", None) if not cube else (str(cube["zone"]), int(cube["value"]))
        if zone not in CUBE_ZONES:
            raise ValueError(f"cube zone {zone!r} is not one of {', '.join(CUBE_ZONES)}")
        cube_vis = next((o.get("visible_frac") for o in lab.get("objects", []) if o.get("kind") == "cube"), None)
        image = path.with_name(str(lab.get("image", path.stem + ".jpg")).split("/")[-1])
        style = str(lab.get("look", {}).get("style", ""))
        hands = bool(lab.get("look", {}).get("hands"))
        dims = BoardDimensions.from_sim_table(lab["table_cm"]) if "table_cm" in lab else None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise VisionError(f"{path}: not a simulator frame label ({what}); see docs/sim.md for the layout, "
                          "or regenerate the frame with 'gammonwatch sim frames'") from exc
    return SimFrame(path, image, size, corners, intr, tuple(points), bar, off, tuple(dice), zone, value,
                    rolled if rolled in ("left", "right") else None, style, hands, dims,
                    None if cube_vis is None or value is None else float(cube_vis))


def sim_label_files(datasets: Sequence[Path]) -> list[Path]:
    """The label files of the dataset folders (``DATASET/frames/*.json`` or ``DATASET/*.json``), sorted per folder."""
    out: list[Path] = []
    for d in datasets:
        if not d.is_dir():
            raise VisionError(f"{d}: not a folder; give a folder of simulator frames "
                              "(made by 'gammonwatch sim frames --out DIR')")
        frames = d / "frames" if (d / "frames").is_dir() else d
        found = sorted(p for p in frames.glob("*.json") if p.stem.isdigit())
        if not found:
            raise VisionError(f"{d}: no labelled frames (NNNNNN.json) in {frames}; make some with "
                              "'gammonwatch sim frames --n N --out DIR'")
        out.extend(found)
    return out


def match_dice(truth: Sequence[TruthDie], centres: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """Pairs (truth index, found index) matched by centre: nearest pairs first, each within 0.8 of the
    labelled die's box side (at least 10 px)."""
    cand = []
    for i, t in enumerate(truth):
        radius = max(10.0, 0.8 * t.side_px)
        for j, c in enumerate(centres):
            dist = float(np.hypot(c[0] - t.center_px[0], c[1] - t.center_px[1]))
            if dist <= radius:
                cand.append((dist, i, j))
    used_t: set[int] = set()
    used_f: set[int] = set()
    pairs = []
    for _, i, j in sorted(cand):
        if i not in used_t and j not in used_f:
            used_t.add(i)
            used_f.add(j)
            pairs.append((i, j))
    return pairs


IN_VIEW = 0.75
"""A die or cube with at least this share of it in view counts as in view (the report's second figures:
what a frame can show; the tracker carries the cube and the dice through the frames that hide them)."""


def in_view(share: float | None) -> bool:
    """A label's visible share says the object is in view (:data:`IN_VIEW`); unknown is not."""
    return share is not None and share >= IN_VIEW


@dataclass
class VisionTally:
    """Running counts behind the report."""

    frames: int = 0
    points_wrong: int = 0
    points_wrong_raw: int = 0
    boards_right: int = 0
    boards_right_raw: int = 0
    bar_wrong: int = 0
    off_wrong: int = 0
    by_count: dict[int, list[int]] = field(default_factory=dict)
    dice_labelled: int = 0
    dice_found: int = 0
    dice_matched: int = 0
    values_right: int = 0
    in_view_matched: int = 0
    in_view_values_right: int = 0
    showing_matched: int = 0
    showing_values_right: int = 0
    recall_by_reason: dict[str, list[int]] = field(default_factory=dict)
    invalid_total: int = 0
    invalid_caught: int = 0
    valid_total: int = 0
    valid_called_invalid: int = 0
    under_total: int = 0
    under_called_invalid: int = 0
    reasons: dict[str, dict[str, int]] = field(default_factory=dict)
    cube_right: int = 0
    cube_zone_right: int = 0
    cube_present: int = 0
    cube_value_right: int = 0
    cube_zones: dict[str, dict[str, int]] = field(default_factory=dict)
    quiet_frames: int = 0
    """Frames without a hand over the table (what the tracker reads), and their figures."""
    quiet_points_wrong: int = 0
    quiet_boards_right: int = 0
    quiet_cube_right: int = 0
    quiet_cube_in_view: int = 0
    """Of the quiet frames, those whose cube is absent or in view (:data:`IN_VIEW`), and their figure."""
    quiet_cube_in_view_right: int = 0
    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    part_ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, truth: SimFrame, rec: Recognition, raw_points: Sequence[tuple[int, int]] | None) -> None:
        assert rec.board is not None
        self.frames += 1
        board = rec.board
        pred = board.point_counts()
        bad = [pred[i] != truth.points[i] for i in range(24)]
        self.points_wrong += sum(bad)
        bar_ok = board.bar_counts() == truth.bar
        off_ok = board.off_counts() == truth.off
        self.bar_wrong += int(not bar_ok)
        self.off_wrong += int(not off_ok)
        self.boards_right += int(not any(bad) and bar_ok and off_ok)
        raw = raw_points if raw_points is not None else pred
        raw_bad = sum(raw[i] != truth.points[i] for i in range(24))
        self.points_wrong_raw += raw_bad
        self.boards_right_raw += int(raw_bad == 0 and bar_ok and off_ok)
        for i in range(24):
            k = max(truth.points[i])
            self.by_count.setdefault(k, [0, 0])
            self.by_count[k][0] += 1
            self.by_count[k][1] += int(bad[i])
        # dice
        centres = [d.center_px for d in rec.dice]
        pairs = match_dice(truth.dice, centres)
        self.dice_labelled += len(truth.dice)
        self.dice_found += len(rec.dice)
        self.dice_matched += len(pairs)
        matched_t = {i for i, _ in pairs}
        for i, t in enumerate(truth.dice):
            r = self.recall_by_reason.setdefault(t.reason, [0, 0])
            r[0] += 1
            r[1] += int(i in matched_t)
        for i, j in pairs:
            t, verdict = truth.dice[i], rec.verdicts[j]
            right = int(rec.dice[j].value == t.value)
            self.values_right += right
            if in_view(t.visible):
                self.in_view_matched += 1
                self.in_view_values_right += right
            if t.shows_value:
                self.showing_matched += 1
                self.showing_values_right += right
            called_valid = verdict.reason in VALID_CLASSES
            if t.under_die:
                self.under_total += 1
                self.under_called_invalid += int(not called_valid)
            elif t.valid:
                self.valid_total += 1
                self.valid_called_invalid += int(not called_valid)
            else:
                self.invalid_total += 1
                self.invalid_caught += int(not called_valid)
            row = self.reasons.setdefault(UNDER_DIE_ROW if t.under_die else t.reason, {})
            row[verdict.reason] = row.get(verdict.reason, 0) + 1
        # cube
        cube = board.cube
        pz = cube.zone if cube is not None else "absent"
        pv = cube.value if cube is not None else None
        zone_ok = pz == truth.cube_zone
        value_ok = truth.cube_value is None or pv == truth.cube_value
        self.cube_zone_right += int(zone_ok)
        self.cube_right += int(zone_ok and value_ok)
        if truth.cube_value is not None:
            self.cube_present += 1
            self.cube_value_right += int(value_ok)
        row = self.cube_zones.setdefault(truth.cube_zone, {})
        row[pz] = row.get(pz, 0) + 1
        if not truth.hands:
            self.quiet_frames += 1
            self.quiet_points_wrong += sum(bad)
            self.quiet_boards_right += int(not any(bad) and bar_ok and off_ok)
            self.quiet_cube_right += int(zone_ok and value_ok)
            if truth.cube_value is None or in_view(truth.cube_visible):
                self.quiet_cube_in_view += 1
                self.quiet_cube_in_view_right += int(zone_ok and value_ok)

    def figures(self) -> dict[str, Any]:
        n = max(self.frames, 1)

        def rate(a: int, b: int) -> float | None:
            return round(a / b, 5) if b else None

        def med(v: list[float]) -> float | None:
            return round(float(np.median(v)), 1) if v else None

        return {
            "frames": self.frames,
            "checkers": {
                "point_error_rate": rate(self.points_wrong, 24 * self.frames),
                "point_error_rate_raw": rate(self.points_wrong_raw, 24 * self.frames),
                "boards_exactly_right": rate(self.boards_right, self.frames),
                "boards_exactly_right_raw": rate(self.boards_right_raw, self.frames),
                "bar_wrong_rate": rate(self.bar_wrong, self.frames),
                "off_wrong_rate": rate(self.off_wrong, self.frames),
                "point_error_rate_by_true_count": {str(k): rate(v[1], v[0]) for k, v in sorted(self.by_count.items())},
                "points_by_true_count": {str(k): v[0] for k, v in sorted(self.by_count.items())},
                "frames_without_hands": self.quiet_frames,
                "point_error_rate_without_hands": rate(self.quiet_points_wrong, 24 * self.quiet_frames),
                "boards_exactly_right_without_hands": rate(self.quiet_boards_right, self.quiet_frames),
            },
            "dice": {
                "labelled": self.dice_labelled,
                "found": self.dice_found,
                "matched": self.dice_matched,
                "locator_recall": rate(self.dice_matched, self.dice_labelled),
                "locator_precision": rate(self.dice_matched, self.dice_found),
                "locator_recall_by_reason": {k: rate(v[1], v[0]) for k, v in sorted(self.recall_by_reason.items())},
                "value_accuracy": rate(self.values_right, self.dice_matched),
                "in_view_matched": self.in_view_matched,
                "value_accuracy_in_view": rate(self.in_view_values_right, self.in_view_matched),
                "showing_value_matched": self.showing_matched,
                "value_accuracy_showing_value": rate(self.showing_values_right, self.showing_matched),
                "invalid_dice": self.invalid_total,
                "invalid_caught": rate(self.invalid_caught, self.invalid_total),
                "valid_dice": self.valid_total,
                "valid_called_invalid": rate(self.valid_called_invalid, self.valid_total),
                "under_other_die": self.under_total,
                "under_other_die_called_invalid": rate(self.under_called_invalid, self.under_total),
                "reason_confusion": self.reasons,
            },
            "cube": {
                "value_and_zone_right": rate(self.cube_right, self.frames),
                "zone_right": rate(self.cube_zone_right, self.frames),
                "value_right_when_present": rate(self.cube_value_right, self.cube_present),
                "value_and_zone_right_without_hands": rate(self.quiet_cube_right, self.quiet_frames),
                "frames_without_hands_cube_in_view": self.quiet_cube_in_view,
                "value_and_zone_right_without_hands_in_view": rate(self.quiet_cube_in_view_right, self.quiet_cube_in_view),
                "zone_confusion": self.cube_zones,
            },
            "time": {
                "ms_per_frame_median": med(self.ms),
                "ms_per_frame_mean": round(float(np.mean(self.ms)), 1) if self.ms else None,
                "cpu_ms_per_frame_median": med(self.cpu_ms),
                "part_ms_median": {k: med(v) for k, v in sorted(self.part_ms.items())},
            },
            "_n": n,
        }


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.2f}%"


def _matrix(rows: dict[str, dict[str, int]], order: Sequence[str]) -> list[str]:
    cols = [c for c in order if any(c in r for r in rows.values())] or list(order)
    names = [r for r in order if r in rows]
    w = max([len(c) for c in cols] + [6])
    out = ["  " + " " * 13 + "".join(f"{c:>{w + 1}}" for c in cols)]
    for r in names:
        out.append(f"  {r:<13}" + "".join(f"{rows[r].get(c, 0) or '.':>{w + 1}}" for c in cols))
    return out


def report_lines(fig: dict[str, Any], sources: Sequence[Path]) -> list[str]:
    """The text report of ``gammonwatch eval vision``."""
    c, d, q, t = fig["checkers"], fig["dice"], fig["cube"], fig["time"]
    lines = [f"frames: {fig['frames']} ({', '.join(str(s) for s in sources)})",
             "checkers (issue 5 targets: per-point error <= 0.2%, boards exactly right >= 97%)",
             f"  per-point count error: {_pct(c['point_error_rate'])} "
             f"(raw, before the 15-per-colour check: {_pct(c['point_error_rate_raw'])})",
             f"  boards exactly right:  {_pct(c['boards_exactly_right'])} (raw {_pct(c['boards_exactly_right_raw'])})",
             f"  bar wrong: {_pct(c['bar_wrong_rate'])} of frames, trays wrong: {_pct(c['off_wrong_rate'])}",
             f"  the {c['frames_without_hands']} frames without a hand over the table (what the tracker reads): "
             f"per-point error {_pct(c['point_error_rate_without_hands'])}, "
             f"boards exactly right {_pct(c['boards_exactly_right_without_hands'])}",
             "  per-point error by the taller colour's true count: " + ", ".join(
                 f"{k}: {_pct(v)} (n={c['points_by_true_count'][k]})"
                 for k, v in c["point_error_rate_by_true_count"].items()),
             "dice (targets: value >= 99.5%, invalid caught >= 98%, valid called invalid <= 1%)",
             f"  locator: recall {_pct(d['locator_recall'])} ({d['matched']}/{d['labelled']} labelled dice), "
             f"precision {_pct(d['locator_precision'])} ({d['matched']}/{d['found']} found)",
             "  recall by true reason: " + ", ".join(f"{k} {_pct(v)}" for k, v in d["locator_recall_by_reason"].items()),
             f"  die value right: {_pct(d['value_accuracy'])} of {d['matched']} matched dice "
             f"({_pct(d['value_accuracy_in_view'])} of the {d['in_view_matched']} at least {IN_VIEW:.0%} in view; "
             f"{_pct(d['value_accuracy_showing_value'])} of the {d['showing_value_matched']} showing their value: "
             f"within {SHOWS_VALUE_TILT_DEG:.0f} degrees of flat, not under the other die)",
             f"  invalid dice caught: {_pct(d['invalid_caught'])} of {d['invalid_dice']}; "
             f"valid dice called invalid: {_pct(d['valid_called_invalid'])} of {d['valid_dice']}",
             f"  dice under the other die (flat, but their roll is void by A1.5; in neither figure above, "
             f"row {UNDER_DIE_ROW} below): {d['under_other_die']}, called invalid {_pct(d['under_other_die_called_invalid'])}",
             "  reasons (rows: label, columns: read; matched dice):"]
    lines += _matrix(d["reason_confusion"], (*DIE_REASONS, UNDER_DIE_ROW))
    lines += ["cube (target: value and zone right >= 99%)",
              f"  value and zone right: {_pct(q['value_and_zone_right'])} (zone {_pct(q['zone_right'])}, "
              f"value when present {_pct(q['value_right_when_present'])})",
              f"  without a hand over the table: {_pct(q['value_and_zone_right_without_hands'])}; of those with the "
              f"cube at least {IN_VIEW:.0%} in view or absent: {_pct(q['value_and_zone_right_without_hands_in_view'])} "
              f"(n={q['frames_without_hands_cube_in_view']})",
              "  zones (rows: label, columns: read):"]
    lines += _matrix(q["zone_confusion"], CUBE_ZONES)
    parts = ", ".join(f"{k} {v}" for k, v in t["part_ms_median"].items())
    lines.append(f"time: {t['ms_per_frame_median']} ms per frame (median wall clock; mean {t['ms_per_frame_mean']}, "
                 f"CPU {t['cpu_ms_per_frame_median']} ms; parts: {parts})")
    return lines


_SHARED_PARTS = {"board": "board_reader", "die_reader": "die_reader", "validity": "validity", "locator": "locator",
                 "refiner": "refiner"}
"""FrameRecognizer's keyword arguments for its models, and the attributes holding them."""


def labelled_frames(datasets: Sequence[Path], *, limit: int | None = None, styles: set[str] | None = None) -> list[SimFrame]:
    """The labelled frames of the dataset folders (every label checked before a long run), of ``styles`` only."""
    frames = []
    for p in sim_label_files(datasets):
        f = parse_sim_label(p)
        if styles and f.style not in styles:
            continue
        frames.append(f)
        if limit is not None and len(frames) >= limit:
            break
    if not frames:
        raise VisionError(f"no frames of the styles {', '.join(sorted(styles or []))} in "
                          + ", ".join(str(d) for d in datasets))
    return frames


def recognized(frames: Sequence[SimFrame], *, rolled_half: bool = True,
               validity: Any = None) -> Iterator[tuple[SimFrame, Recognition, float, float]]:
    """:class:`FrameRecognizer` on each frame, with the calibration a user would make of its camera
    (corners, intrinsics, board sizes); yields the frame, the recognition and its wall-clock and CPU
    milliseconds. The models are loaded once (``validity``: another validity classifier)."""
    shared: dict[str, Any] = {} if validity is None else {"validity": validity}
    for k, f in enumerate(frames):
        image = read_image(f.image_path)
        try:
            profile = CalibrationProfile.from_corners(f.corners, f.size, dims=f.dims, intrinsics=f.intrinsics)
        except CalibrationError as exc:
            raise VisionError(f"{f.label_path}: its board corners do not make a profile ({exc})") from exc
        rec = FrameRecognizer(profile, **shared)
        if k == 0:  # the models are loaded once; later frames (other cameras) share them
            params = inspect.signature(FrameRecognizer).parameters
            shared = {arg: getattr(rec, attr) for arg, attr in _SHARED_PARTS.items()
                      if arg in params and hasattr(rec, attr)}
        w0, c0 = time.perf_counter(), time.process_time()
        result = rec.recognize(image, rolled_half=f.rolled_half if rolled_half else None)
        yield f, result, (time.perf_counter() - w0) * 1e3, (time.process_time() - c0) * 1e3


def evaluate_vision(datasets: Sequence[Path], *, limit: int | None = None, styles: set[str] | None = None,
                    rolled_half: bool = True, progress: bool = False) -> dict[str, Any]:
    """Run :class:`FrameRecognizer` on the labelled frames and return the figures (``--json`` layout)."""
    frames = labelled_frames(datasets, limit=limit, styles=styles)
    tally = VisionTally()
    for k, (f, result, ms, cpu_ms) in enumerate(recognized(frames, rolled_half=rolled_half)):
        tally.ms.append(ms)
        tally.cpu_ms.append(cpu_ms)
        for part, part_ms in result.timings_ms.items():
            tally.part_ms.setdefault(part, []).append(part_ms)
        tally.add(f, result, result.board.raw_point_counts() if result.board is not None else None)
        if progress and (k + 1) % 50 == 0:
            print(f"eval vision: {k + 1}/{len(frames)} frames", file=sys.stderr)
    fig = tally.figures()
    fig.pop("_n")
    return fig


def run_cli(datasets: Sequence[Path], *, limit: int | None, styles: str, json_out: Path | None, quiet: bool,
            rolled_half: bool) -> int:
    style_set = {s.strip() for s in styles.split(",") if s.strip()} or None
    try:
        fig = evaluate_vision(datasets, limit=limit, styles=style_set, rolled_half=rolled_half, progress=not quiet)
    except VisionError as exc:
        print(f"gammonwatch eval vision: {exc}", file=sys.stderr)
        return 2
    for line in report_lines(fig, datasets):
        print(line)
    if json_out is not None:
        try:
            json_out.parent.mkdir(parents=True, exist_ok=True)
            json_out.write_text(json.dumps(fig, indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            print(f"gammonwatch eval vision: cannot write {json_out} ({exc}); give a writable --json path",
                  file=sys.stderr)
            return 2
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="gammonwatch eval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("dice", help="die-value accuracy on labelled dice photos")
    p.add_argument("folder", type=Path, help="folder of NAME.jpg photos with NAME.json labels")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="die reader ONNX model")
    p.add_argument("--reader", choices=("model", "pips"), default="model",
                   help="model (default) or the classical pip counter")
    p.add_argument("--errors", action="store_true", help="list each misread die")
    p.add_argument("--detect", action="store_true", help="also report the dice detector's recall")
    v = sub.add_parser("vision", help="issue 5's accuracy report on labelled simulator frames")
    v.add_argument("datasets", nargs="+", type=Path, metavar="DATASET",
                   help="folder of labelled simulator frames (DATASET/frames/*.json or DATASET/*.json)")
    v.add_argument("--limit", type=int, help="at most this many frames in all")
    v.add_argument("--styles", default="", help="only frames of these board styles (comma-separated)")
    v.add_argument("--json", type=Path, dest="json_out", metavar="FILE", help="also write the figures to FILE")
    v.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    v.add_argument("--no-rolled-half", action="store_true",
                   help="do not tell the validity model which half the dice were rolled into (no wrong_side)")
    args = ap.parse_args(argv)
    if args.what == "vision":
        return run_cli(args.datasets, limit=args.limit, styles=args.styles, json_out=args.json_out,
                       quiet=args.quiet, rolled_half=not args.no_rolled_half)
    try:
        correct, total = eval_dice(args.folder, args.model, args.reader, args.errors, args.detect)
    except VisionError as exc:
        print(f"gammonwatch eval {args.what}: {exc}", file=sys.stderr)
        return 2
    if total == 0:
        print(f"gammonwatch eval dice: {args.folder}: the labels list no dice", file=sys.stderr)
        return 2
    print(f"accuracy: {correct / total:.3f} (n={total})")
    return 0
