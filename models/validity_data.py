"""Die-validity dataset: context crops + pose cues per die, cut from the simulator's labelled frames.

    nice -n 15 python models/validity_data.py DATA_DIR... --out data-gen/validity-train.npz [--copies 2]
        [--exclude-styles walnut-wood,navy-leather] [--styles ...] [--seed 0]

Each labelled die (``objects`` of kind ``die`` with a box, at least 30% visible) gives one sample
per copy: the context crop (``vision.dice_validity.context_crop``) and the features
(``vision.dice_validity.die_features``) computed as at run time, from

- a calibration profile made from the frame's 8 board corners moved by a few pixels (as a user
  clicks them), the camera's intrinsics and the board's real sizes (``table_cm``), pose solved
  from those corners (``calibration.profile.solve_pose``), as ``gammonwatch calibrate board
  --intrinsics`` would;
- the die's box with each edge moved by a pixel or two (a detector's box is not exact);
- the total checkers per point from the frame's table state (what the board reader reports).

With ``--located`` the last copy of each frame takes the boxes the trained dice locator finds in it
(``FrameRecognizer.locate_dice`` as a settled frame is looked at), each labelled die matched to the
nearest found box within 0.8 of its side as ``gammonwatch eval vision`` matches them; a labelled die
the locator misses keeps a jittered box. The classifier then learns the boxes it is given at run
time (a box placed low or cut short), not only boxes jittered about the label; the features' other
dice are then the boxes found, as at run time (session 29: before, they also had the dice the locator
missed, so a die on the other die was told by the lower die's box, which the run time, finding the
stack as one box, never has). Neither die of a stack sees the other's box in any copy, and in the
jittered copies each other die is left out now and then (``DROP_OTHER_P``).

Targets: the index in ``POSE_CLASSES`` of the physics label (docs/sim.md, decision 0300); the die
under the other die is ``on_die`` (its roll is void, A1.5). A
``wrong_side`` die shows no pose reason in its label; its pose class is recovered from ``physical``
(flat on the surface, or on checkers), else it is kept with target -1 (evaluated, not trained on).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from calibration.board import BoardDimensions  # noqa: E402
from calibration.intrinsics import Intrinsics  # noqa: E402
from calibration.profile import CalibrationProfile, solve_pose  # noqa: E402
from vision.dice_validity import (  # noqa: E402
    CROP_CONTEXT,
    DEFAULT_DIE_CM,
    POSE_CLASSES,
    assumed_camera,
    checker_centres,
    context_crop,
    die_features,
    rectified_crop,
)
from vision.eval_cli import under_other_die  # noqa: E402
from vision.observation import DIE_REASONS  # noqa: E402

CORNER_JITTER_PX = 1.5
BOX_JITTER_PX = 2.0
"""Spread (sd, pixels) of each box edge in the jittered copies: a learned locator's boxes are not exact."""
MIN_VISIBLE = 0.3
DROP_OTHER_P = 0.3
"""In the jittered copies each other die's box is left out of a die's features with this probability
(the locator misses dice, and boxes a die on the other die as one)."""


def label_files(dirs: list[Path], styles: set[str] | None, exclude: set[str] | None) -> Iterator[tuple[Path, dict[str, Any]]]:
    for d in dirs:
        frames = d / "frames" if (d / "frames").is_dir() else d
        for js in sorted(frames.glob("*.json")):
            try:
                lab = json.loads(js.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue  # a frame being written
            style = str(lab.get("look", {}).get("style", ""))
            if (styles is not None and style not in styles) or (exclude is not None and style in exclude):
                continue
            img = js.with_name(str(lab.get("image", js.stem + ".jpg")).split("/")[-1])
            if img.is_file():
                yield img, lab


def dims_for(lab: dict[str, Any]) -> BoardDimensions:
    """The board's real sizes from a label (what a user would type into the profile)."""
    return BoardDimensions.from_sim_table(lab["table_cm"])


def profile_for(lab: dict[str, Any], rng: np.random.Generator | None, intrinsics: bool = True) -> CalibrationProfile:
    """Calibrated profile (intrinsics + pose from 8 clicked corners) for a labelled frame; with
    ``intrinsics=False`` the camera is the one ``vision.dice_validity.assumed_camera`` solves from
    the corners alone (what the run time does for a profile made without ``--intrinsics``)."""
    cam = lab["camera"]
    w, h = int(cam["width"]), int(cam["height"])
    dims = dims_for(lab)
    corners = np.asarray(lab["board"]["corners8_px"], dtype=np.float64)
    if rng is not None:
        corners = corners + rng.normal(0.0, CORNER_JITTER_PX, corners.shape)
    intr = Intrinsics(np.asarray(cam["K"], dtype=np.float64), np.asarray(cam["dist"], dtype=np.float64), (w, h))
    if not intrinsics:
        return assumed_camera(CalibrationProfile((w, h), corners, dims))
    pose = solve_pose(dims, corners, intr)
    return CalibrationProfile((w, h), corners, dims, intr, pose)


def pose_target(obj: dict[str, Any], reason: str) -> int:
    """The pose class a die with this reason (its label's, or ``on_die`` under the other die) is trained on."""
    if reason in POSE_CLASSES:
        return POSE_CLASSES.index(reason)
    phys = obj.get("physical", {})
    supports = set(phys.get("supports", []))
    if float(phys.get("tilt_deg", 90.0)) < 3.0 and not phys.get("leaning_on"):
        if supports == {"surface"}:
            return POSE_CLASSES.index("flat_board")
        if supports == {"checker"}:
            return POSE_CLASSES.index("on_checker")
    return -1


AUX_NAMES = ("tilt", "base_z", "top_dx", "top_dy", "on_surface", "on_checker", "on_rail_bar", "on_die", "leaning_on")
"""Auxiliary training targets per die (physics labels; training only): tilt / 45 deg, base height / 1 cm,
the top face's centre from the die's centre / box side (x, y), the support kinds, and whether the RG19
erase test found a vertical support."""


def aux_targets(obj: dict[str, Any], box: list[float]) -> list[float]:
    phys = obj.get("physical", {})
    supports = set(phys.get("supports", []))
    side = max(box[2] - box[0], box[3] - box[1], 1.0)
    c = obj.get("center_px") or [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]
    top = obj.get("top_center_px") or c
    return [min(float(phys.get("tilt_deg", 0.0)) / 45.0, 2.0), float(np.clip(float(phys.get("base_z", 0.0)), -3.0, 3.0)),
            float(np.clip((top[0] - c[0]) / side, -1, 1)), float(np.clip((top[1] - c[1]) / side, -1, 1)),
            float("surface" in supports), float("checker" in supports), float(bool(supports & {"rail", "bar"})),
            float("die" in supports), float(bool(phys.get("leaning_on")))]


def point_totals(lab: dict[str, Any]) -> list[int]:
    pts = sorted(lab["table_state"]["points"], key=lambda p: int(p["point"]))
    return [int(p["light"]) + int(p["dark"]) for p in pts]


def located_boxes(locate: Any, image: npt.NDArray[np.uint8], lab: dict[str, Any],
                  dice: list[dict[str, Any]]) -> tuple[list[list[float] | None], list[list[float]]]:
    """The located box matched to each labelled die (None: missed) and every box found.

    ``locate(image, profile) -> boxes`` runs the locator on the frame with a profile made from its
    exact corners; pairs are matched nearest first, within 0.8 of the labelled box's side (10 px at
    least), as ``vision.eval_cli.match_dice`` does."""
    found = [list(map(float, b)) for b in locate(image, profile_for(lab, None))]
    cand = []
    for i, o in enumerate(dice):
        b = o["box_xyxy"]
        radius = max(10.0, 0.8 * max(b[2] - b[0], b[3] - b[1]))
        for j, f in enumerate(found):
            d = float(np.hypot((f[0] + f[2] - b[0] - b[2]) / 2, (f[1] + f[3] - b[1] - b[3]) / 2))
            if d <= radius:
                cand.append((d, i, j))
    out: list[list[float] | None] = [None] * len(dice)
    used: set[int] = set()
    for _, i, j in sorted(cand):
        if out[i] is None and j not in used:
            out[i] = found[j]
            used.add(j)
    return out, found


def samples(img_path: Path, lab: dict[str, Any], copies: int, rng: np.random.Generator,
            context: float = CROP_CONTEXT, box_jitter: float = BOX_JITTER_PX, intrinsics: bool = True,
            locate: Any = None, true_size: bool = False) -> Iterator[dict[str, Any]]:
    """One sample per labelled die and copy; copy 0 has the exact corners and box when ``copies > 1``;
    with ``locate`` (see :func:`located_boxes`) the last copy has the located boxes."""
    dice = [o for o in lab["objects"] if o.get("kind") == "die" and o.get("box_xyxy") is not None
            and float(o.get("visible_frac", 1.0)) >= MIN_VISIBLE]
    if not dice:
        return
    image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
    if image is None:
        return
    counts = point_totals(lab)
    # the run time knows the dice's edge only as the nominal DEFAULT_DIE_CM (the profile has no die
    # size), so by default the samples are cut as it cuts them, whatever the die's true size
    die_cm = float(lab["table_cm"]["die"]) if true_size else DEFAULT_DIE_CM
    located: list[list[float] | None] = []
    found: list[list[float]] = []
    # a die the other die rests on (``vision.eval_cli.under_other_die``) lies flat and its label is valid,
    # but the camera sees the lower half of one stack and the roll is void (DIGEST A1.5): it is trained
    # and scored as ``on_die`` (``gammonwatch eval vision`` counts these dice apart)
    under = [under_other_die(o, lab["objects"]) for o in dice]
    reasons = ["on_die" if u else str(o["reason"]) for o, u in zip(dice, under, strict=True)]
    stacked = any(under)
    if locate is not None:
        located, found = located_boxes(locate, np.asarray(image, dtype=np.uint8), lab, dice)
    for copy in range(copies):
        try:
            profile = profile_for(lab, rng if copy > 0 or copies == 1 else None, intrinsics)
        except Exception:  # noqa: BLE001 - a degenerate view; skip the frame
            return
        centres = checker_centres(profile.dims, counts)
        boxes = []
        for o in dice:
            b = np.asarray(o["box_xyxy"], dtype=np.float64)
            if copy > 0 or copies == 1:
                b = b + rng.normal(0.0, box_jitter, 4)
            if b[2] - b[0] < 3 or b[3] - b[1] < 3:
                b = np.asarray(o["box_xyxy"], dtype=np.float64)
            boxes.append(b.tolist())
        from_locator = [False] * len(dice)
        if locate is not None and copy == copies - 1:
            boxes = [lb if lb is not None else b for lb, b in zip(located, boxes, strict=True)]
            from_locator = [lb is not None for lb in located]
            # the features see the boxes the locator found (a false one too), as at run time, and not the
            # dice it missed: a die on the other die is found as one box, and its features must not
            # learn from a lower die the run time never sees
            others_of = [found if by else [*found, b] for b, by in zip(boxes, from_locator, strict=True)]
        elif stacked:
            # one die on the other: the locator finds the stack as one box, so neither die's features
            # see the other (else they learn on_die from a second box the run time does not have)
            others_of = [[b] for b in boxes]
        elif copy > 0 or copies == 1:
            # a jittered copy loses each other die now and then, as a locator misses or merges dice
            keep = rng.random(len(dice)) >= DROP_OTHER_P
            others_of = [[ob for k, ob in enumerate(boxes) if k == i or keep[k]] for i in range(len(dice))]
        else:
            others_of = [boxes] * len(dice)
        for o, reason, b, by_locator, others in zip(dice, reasons, boxes, from_locator, others_of, strict=True):
            if b[2] - b[0] < 3 or b[3] - b[1] < 3:
                continue
            ident = lab.get("id", {}) if isinstance(lab.get("id"), dict) else {}
            size = die_cm * float(rng.uniform(0.97, 1.03)) if true_size else die_cm
            yield {
                "rect": rectified_crop(np.asarray(image, dtype=np.uint8), profile, b, size),
                "tilt": float(o["physical"].get("tilt_deg", 0.0)),
                "visible": float(o.get("visible_frac", 1.0)),
                "scene": f"{img_path.parent.parent.name}/{ident.get('seed', -1)}/{ident.get('scene', img_path.stem)}",
                "aux": aux_targets(o, b),
                "crop": context_crop(np.asarray(image, dtype=np.uint8), b, context),
                "feat": die_features(profile, b, others, counts, size, centres),
                "y": pose_target(o, reason),
                "reason": DIE_REASONS.index(reason),
                "half": {"left": 0, "right": 1}.get(str(o["physical"].get("half")), -1),
                "rolled": {"left": 0, "right": 1}.get(str(lab["scene"]["rolled_half"]), -1),
                "style": str(lab["look"]["style"]),
                "frame": f"{img_path.parent.parent.name}/{img_path.stem}",
                "seed": int(lab.get("id", {}).get("seed", -1)) if isinstance(lab.get("id"), dict) else -1,
                "copy": copy,
                "located": by_locator,
            }


def recognizer_locate() -> Any:
    """``locate(image, profile)``: the run time's dice boxes of a settled frame (models loaded once)."""
    from vision.recognizer import FrameRecognizer

    shared: dict[str, Any] = {}

    def locate(image: npt.NDArray[np.uint8], profile: CalibrationProfile) -> list[tuple[float, float, float, float]]:
        if not shared:
            first = FrameRecognizer(profile)
            shared.update(board=first.board_reader, die_reader=first.die_reader, validity=first.validity, locator=first.locator,
                          refiner=first.refiner)
        return FrameRecognizer(profile, **shared).locate_dice(image, settled=True)

    return locate


def build(dirs: list[Path], out: Path, copies: int, styles: set[str] | None, exclude: set[str] | None, seed: int,
          context: float = CROP_CONTEXT, box_jitter: float = BOX_JITTER_PX, intrinsics: bool = True,
          located: bool = False, true_size: bool = False) -> int:
    rng = np.random.default_rng(seed)
    locate = recognizer_locate() if located else None
    rows: list[dict[str, Any]] = []
    frames = 0
    for img, lab in label_files(dirs, styles, exclude):
        frames += 1
        rows.extend(samples(img, lab, copies, rng, context, box_jitter, intrinsics, locate, true_size))
    if not rows:
        print(f"validity_data: no labelled dice found in {', '.join(map(str, dirs))}", file=sys.stderr)
        return 1

    def col(key: str, dtype: npt.DTypeLike) -> npt.NDArray[Any]:
        return np.asarray([r[key] for r in rows], dtype=dtype)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.npz")
    np.savez_compressed(tmp, crops=np.stack([r["crop"] for r in rows]), rects=np.stack([r["rect"] for r in rows]),
                        tilt=col("tilt", np.float32), visible=col("visible", np.float32), scene=col("scene", str), feats=np.stack([r["feat"] for r in rows]),
                        y=col("y", np.int64), reason=col("reason", np.int64), half=col("half", np.int64),
                        rolled=col("rolled", np.int64), style=col("style", str), frame=col("frame", str),
                        copy=col("copy", np.int64), located=col("located", np.bool_), context=np.float64(context), aux=np.asarray([r["aux"] for r in rows], dtype=np.float32))
    tmp.replace(out)
    reasons = np.bincount(col("reason", np.int64)[col("copy", np.int64) == 0], minlength=len(DIE_REASONS))
    print(f"{out}: {len(rows)} samples from {frames} frames ({copies} cop{'y' if copies == 1 else 'ies'}); "
          + ", ".join(f"{r} {n}" for r, n in zip(DIE_REASONS, reasons, strict=True)))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--styles", default=None)
    ap.add_argument("--exclude-styles", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--context", type=float, default=CROP_CONTEXT, help="crop side / die box side")
    ap.add_argument("--no-intrinsics", action="store_true", help="profiles without the camera's intrinsics (assumed camera)")
    ap.add_argument("--box-jitter", type=float, default=BOX_JITTER_PX, help="sd of each box edge in jittered copies, px")
    ap.add_argument("--located", action="store_true", help="the last copy takes the dice locator's boxes (see the module's doc)")
    ap.add_argument("--true-die-size", action="store_true",
                    help="cut each die at its labelled edge (default: the nominal edge the run time assumes)")
    a = ap.parse_args(argv)
    styles = set(a.styles.split(",")) if a.styles else None
    exclude = set(a.exclude_styles.split(",")) if a.exclude_styles else None
    cv2.setNumThreads(1)
    return build(a.dirs, a.out, a.copies, styles, exclude, a.seed, a.context, a.box_jitter, not a.no_intrinsics, a.located, a.true_die_size)


if __name__ == "__main__":
    sys.exit(main())
