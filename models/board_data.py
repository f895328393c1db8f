"""Datasets for the checker and cube models, cut from the simulator's labelled frames.

    nice -n 15 python models/board_data.py build DATA_DIR... --out data-gen/board-train [--copies 2]
        [--exclude-styles walnut-wood,navy-leather] [--limit N]
    nice -n 15 python models/board_data.py build-faces DATA_DIR... --out data-gen/board-train [--copies 4]
    nice -n 15 python models/board_data.py eval DATA_DIR... [--styles walnut-wood,navy-leather] [--json]
    nice -n 15 python models/board_data.py calibrate-trays DATA_DIR...   # vision.checkers.TRAY_TALL_*

``build`` writes ``OUT-checkers.npz`` (per frame copy the 28 strips of ``vision.checkers`` and
their light/dark counts) and ``OUT-cube.npz`` (the 5 windows of ``vision.cube``, whether the cube
is in each and its face). Each frame is cut once with the true corners (``board.corners8_px``)
and ``--copies - 1`` more times with the corners moved by a few pixels, as a calibration by hand
would place them. The profile uses the default board dimensions, as a user's profile would: the
8 corners carry each board's real proportions.

``eval`` runs the whole board reader (``vision.board_reader.BoardReader``) on held-out frames
with profiles from their true corners and prints the figures of issue 5 (per-point error, whole
boards right, cube value and zone).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from calibration.profile import CalibrationProfile  # noqa: E402
from vision.checkers import MAX_COUNT, N_STRIPS, STRIP_NAMES, cut_strips, strip_transforms  # noqa: E402
from vision.cube import (  # noqa: E402
    FACE_CROP,
    FACES,
    WINDOWS,
    crop_face,
    cut_windows,
    local_point_width_px,
    window_transforms,
)
from vision.geometry import image_to_board  # noqa: E402

JITTER_PX = 2.0
"""Standard deviation of the corner noise of the extra copies (pixels)."""


def label_files(dirs: list[Path], styles: set[str] | None = None, exclude: set[str] | None = None,
                limit: int | None = None, start: int = 0) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Labelled frames (``DIR/frames/*.json`` with their image) of the given folders, filtered by
    style; ``start`` skips that many label files of each folder (sorted), to add new frames only."""
    n = 0
    for d in dirs:
        frames = d / "frames" if (d / "frames").is_dir() else d
        for js in sorted(frames.glob("*.json"))[start:]:
            lab = json.loads(js.read_text(encoding="utf-8"))
            style = str(lab.get("look", {}).get("style", ""))
            if styles is not None and style not in styles:
                continue
            if exclude is not None and style in exclude:
                continue
            img = js.with_name(str(lab.get("image", js.stem + ".jpg")).split("/")[-1])
            if not img.is_file():
                continue
            yield img, lab
            n += 1
            if limit is not None and n >= limit:
                return


def profile_for(lab: dict[str, Any], rng: np.random.Generator | None = None) -> CalibrationProfile:
    """A profile from a label's 8 true corners (moved by ``JITTER_PX`` noise when ``rng`` is given)."""
    corners = np.asarray(lab["board"]["corners8_px"], dtype=np.float64)
    w, h = int(lab["camera"]["width"]), int(lab["camera"]["height"])
    if rng is not None:
        corners = corners + rng.normal(0.0, JITTER_PX, corners.shape)
    corners[:, 0] = np.clip(corners[:, 0], 0, w - 1)
    corners[:, 1] = np.clip(corners[:, 1], 0, h - 1)
    return CalibrationProfile.from_corners(corners, (w, h))


def strip_counts(lab: dict[str, Any]) -> npt.NDArray[np.int64]:
    """``28 x 2`` true (light, dark) counts per strip in ``STRIP_NAMES`` order."""
    out = np.zeros((N_STRIPS, 2), dtype=np.int64)
    ts = lab["table_state"]
    for entry in ts["points"]:
        i = int(entry["point"]) - 1
        out[i] = (int(entry["light"]), int(entry["dark"]))
    for obj in lab["objects"]:
        if obj.get("kind") != "checker" or obj.get("place") not in ("bar", "off"):
            continue
        far = float(obj["position_cm"][1]) >= 0
        name = f"{obj['place']}-{'far' if far else 'near'}"
        out[STRIP_NAMES.index(name), 0 if obj["colour"] == "light" else 1] += 1
    return np.asarray(np.minimum(out, MAX_COUNT), dtype=np.int64)


def cube_targets(lab: dict[str, Any], profile: CalibrationProfile,
                 transforms: dict[str, npt.NDArray[np.float64]] | None = None
                 ) -> tuple[npt.NDArray[np.uint8], int, npt.NDArray[np.float32]]:
    """Per window 1 if the cube is in it, the face index in ``FACES`` (-1 when absent), and per
    window where the cube's image centre falls in window pixels (-1 when not in that window;
    needs ``transforms``, the windows' maps from ``vision.cube.window_transforms``)."""
    present = np.zeros(len(WINDOWS), dtype=np.uint8)
    pos = np.full((len(WINDOWS), 2), -1.0, dtype=np.float32)
    cube = lab["table_state"].get("cube")
    if not cube:
        return present, -1, pos
    zone, value = str(cube["zone"]), int(cube["value"])
    obj = next((o for o in lab["objects"] if o.get("kind") == "cube"), None)
    if zone == "board":
        if obj is None:
            return present, -1, pos
        x = float(image_to_board(profile, [obj["center_px"]])[0, 0])
        present[WINDOWS.index("board-right" if x >= 0 else "board-left")] = 1
    else:
        present[WINDOWS.index(zone)] = 1
    if obj is not None and transforms is not None:
        k = int(np.argmax(present))
        inv = np.linalg.inv(transforms[WINDOWS[k]])
        uv = cv2.perspectiveTransform(np.array([[obj["center_px"]]], dtype=np.float64), inv).reshape(2)
        pos[k] = uv
    return present, FACES.index(value) if value in FACES else -1, pos


def build(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(args.seed)
    styles_out = set(args.exclude_styles.split(",")) if args.exclude_styles else None
    strips_l, counts_l, frame_l = [], [], []
    win_centre, win_wide, pres_l, face_l, pos_l = [], [], [], [], []
    t0 = time.time()
    n = 0
    want_cube = args.what in ("all", "cube")
    want_checkers = args.what in ("all", "checkers")
    for img_path, lab in label_files(args.dirs, exclude=styles_out, limit=args.limit, start=args.start):
        if args.no_hands and lab.get("look", {}).get("hands"):
            continue  # a hand hides checkers its label still counts (the tracker reads frames without hands)
        raw = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if raw is None:
            print(f"skipping {img_path}: not readable", file=sys.stderr)
            continue
        image = np.asarray(raw, dtype=np.uint8)
        counts = strip_counts(lab)
        for copy in range(args.copies):
            prof = profile_for(lab, rng if copy > 0 or args.jitter_all else None)
            frame_l.append(n)
            if want_checkers:
                strips_l.append(cut_strips(image, strip_transforms(prof)))
                counts_l.append(counts)
            if not want_cube:
                continue
            wtf = window_transforms(prof)
            wins = cut_windows(image, wtf)
            pres, face, pos = cube_targets(lab, prof, wtf)
            win_centre.append(wins["centre"])
            win_wide.append(np.stack([wins[w] for w in WINDOWS[1:]]))
            pres_l.append(pres)
            face_l.append(face)
            pos_l.append(pos)
        n += 1
        if n % 50 == 0:
            print(f"{n} frames, {time.time() - t0:.0f} s", file=sys.stderr)
    if n == 0:
        print("no labelled frames found in " + ", ".join(map(str, args.dirs)) +
              "; make some with 'gammonwatch sim frames --n N --out DIR'", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = []
    if want_checkers:
        np.savez(str(out) + "-checkers.npz", strips=np.stack(strips_l), counts=np.stack(counts_l),
                 frame=np.array(frame_l))
        written.append(f"{out}-checkers.npz")
    if want_cube:
        np.savez(str(out) + "-cube.npz", centre=np.stack(win_centre), wide=np.stack(win_wide),
                 present=np.stack(pres_l), face=np.array(face_l), frame=np.array(frame_l), pos=np.stack(pos_l))
        written.append(f"{out}-cube.npz")
    print(f"{n} frames x {args.copies} copies -> {', '.join(written)} ({time.time() - t0:.0f} s)")
    return 0


def build_faces(args: argparse.Namespace) -> int:
    """Face-reader crops (``vision.cube.crop_face``) around every visible cube, centre moved by a
    little noise as the presence map's peak would place it."""
    rng = np.random.default_rng(args.seed)
    styles_out = set(args.exclude_styles.split(",")) if args.exclude_styles else None
    crops, faces, frames = [], [], []
    n = 0
    for img_path, lab in label_files(args.dirs, exclude=styles_out, limit=args.limit):
        cube = lab["table_state"].get("cube")
        obj = next((o for o in lab["objects"] if o.get("kind") == "cube"), None)
        if not cube or obj is None or not obj.get("fully_in_frame") or float(obj.get("visible_frac", 0)) < 0.3:
            continue
        if int(cube["value"]) not in FACES:
            continue
        raw = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if raw is None:
            continue
        image = np.asarray(raw, dtype=np.uint8)
        for copy in range(args.copies):
            prof = profile_for(lab, rng if copy > 0 else None)
            cx, cy = (float(v) for v in obj["center_px"])
            if copy > 0:
                pw = local_point_width_px(prof, (cx, cy))
                cx, cy = cx + rng.normal(0, 0.08 * pw), cy + rng.normal(0, 0.08 * pw)
            crops.append(crop_face(image, prof, (cx, cy), args.size))
            faces.append(FACES.index(int(cube["value"])))
            frames.append(n)
        n += 1
    if n == 0:
        print("no visible cubes found in " + ", ".join(map(str, args.dirs)), file=sys.stderr)
        return 2
    np.savez(str(args.out) + "-cubeface.npz", crops=np.stack(crops), face=np.array(faces), frame=np.array(frames))
    print(f"{n} frames with a visible cube x {args.copies} copies -> {args.out}-cubeface.npz")
    return 0


def calibrate_presence(args: argparse.Namespace) -> int:
    """The per-window presence biases (``vision.cube.PRESENCE_BIAS``) that read value and zone best
    on training frames (best single bias first, then coordinate ascent window by window)."""
    from vision.board_reader import BoardReader
    from vision.cube import cube_observation

    styles_out = set(args.exclude_styles.split(",")) if args.exclude_styles else None
    from vision.cube import DEFAULT_FACE_MODEL

    reader = BoardReader(presence_bias=0.0, cube_model=args.cube_model,
                         cube_face_model=args.cube_face_model or DEFAULT_FACE_MODEL)
    assert reader.cube is not None
    logits, faces, truth, truth_values = [], [], [], []
    for img_path, lab in label_files(args.dirs, exclude=styles_out, limit=args.limit, start=args.start):
        raw = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if raw is None:
            continue
        prof = profile_for(lab)
        res = reader.cube.read_full(np.asarray(raw, dtype=np.uint8), prof, window_transforms(prof))
        p = np.clip(np.array([res.presence[n] for n in WINDOWS]), 1e-6, 1 - 1e-6)
        logits.append(np.log(p / (1 - p)))
        faces.append(res.faces)
        cube = lab["table_state"].get("cube")
        truth.append(str(cube["zone"]) if cube else "absent")
        truth_values.append(int(cube["value"]) if cube else None)
    values = [int(lab_v) if lab_v is not None else None for lab_v in truth_values]
    prior = not args.no_zone_prior

    def score(bias: dict[str, float]) -> tuple[float, float]:
        both = zone_ok = 0
        for lg, fc, tz, tv in zip(logits, faces, truth, values, strict=True):
            pres = {n: float(1 / (1 + np.exp(-(lg[i] + bias[n])))) for i, n in enumerate(WINDOWS)}
            obs = cube_observation(pres, fc, prior)
            zone_ok += int(obs.zone == tz)
            both += int(obs.zone == tz and (tv is None or obs.value == tv))
        return both / max(1, len(truth)), zone_ok / max(1, len(truth))

    grid = [round(float(b), 2) for b in np.arange(-1.0, 4.01, 0.25)]
    one = max(grid, key=lambda b: score({n: b for n in WINDOWS})[0])
    bias = {n: one for n in WINDOWS}
    print(f"one bias for all windows: {one:+.2f}, value and zone right {score(bias)[0]:.4f}")
    for _ in range(2):  # coordinate ascent, window by window
        for n in WINDOWS:
            def key(b: float, n: str = n) -> tuple[float, float]:
                return score({**bias, n: b})[0], -abs(b - bias[n])

            bias[n] = max(grid, key=key)
    both, zone = score(bias)
    print(f"per-window biases on {len(truth)} frames: {json.dumps(bias)} (value and zone right {both:.4f}, "
          f"zone right {zone:.4f})")
    return 0


def tray_share_nll(p: npt.NDArray[np.float64], truth: npt.NDArray[np.int64], start: int, share: float) -> float:
    """Mean negative log-likelihood of the true counts ``truth`` (``N``) under tray distributions ``p``
    (``N x 16``) with ``share`` of their probability from ``start`` checkers up spread evenly."""
    from vision.checkers import spread_tall

    q = spread_tall(p, start=start, share=share)
    return float(-np.log(np.clip(q[np.arange(len(truth)), truth], 1e-9, None)).mean())


def fit_tray_share(p: npt.NDArray[np.float64], truth: npt.NDArray[np.int64],
                   starts: tuple[int, ...] = (3, 4, 5, 6, 7)) -> tuple[int, float, float]:
    """The (start, share) of :func:`vision.checkers.spread_tall` whose tray distributions give the true
    counts the lowest negative log-likelihood (shares 0..1 in steps of 0.05), with that value."""
    best = (starts[0], 0.0, tray_share_nll(p, truth, starts[0], 0.0))
    for start in starts:
        for share in np.round(np.arange(0.0, 1.0001, 0.05), 2):
            nll = tray_share_nll(p, truth, start, float(share))
            if nll < best[2] - 1e-12:
                best = (start, float(share), nll)
    return best


def calibrate_trays(args: argparse.Namespace) -> int:
    """Choose ``vision.checkers.TRAY_TALL_FROM`` and ``TRAY_TALL_SHARE`` on labelled frames without a
    hand (the tray strips' true counts against the network's flip-averaged distributions)."""
    from vision.checkers import DEFAULT_MODEL, KIND_OF, TRAY_TALL_FROM, TRAY_TALL_SHARE, CheckerCounter

    counter = CheckerCounter(args.checker_model or DEFAULT_MODEL, tray_tall_share=0.0)
    trays = np.array([KIND_OF[n] == "tray" for n in STRIP_NAMES])
    styles_out = set(args.exclude_styles.split(",")) if args.exclude_styles else None
    ps, ts = [], []
    frames = 0
    for img_path, lab in label_files(args.dirs, exclude=styles_out, limit=args.limit):
        if lab.get("look", {}).get("hands"):
            continue
        raw = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if raw is None:
            print(f"skipping {img_path}: not readable", file=sys.stderr)
            continue
        sc = counter.count_strips(cut_strips(np.asarray(raw, dtype=np.uint8), strip_transforms(profile_for(lab))))
        truth = strip_counts(lab)
        ps += [sc.light_p[trays], sc.dark_p[trays]]
        ts += [truth[trays, 0], truth[trays, 1]]
        frames += 1
    if not frames:
        print("no labelled frames without a hand found in " + ", ".join(map(str, args.dirs)), file=sys.stderr)
        return 2
    p, t = np.concatenate(ps), np.concatenate(ts)
    start, share, nll = fit_tray_share(p, t)
    tall = t >= start
    print(f"{frames} frames, {len(t)} tray strips ({int(tall.sum())} holding {start} or more)")
    print(f"as read: NLL {tray_share_nll(p, t, start, 0.0):.4f} (those holding {start}+: "
          f"{tray_share_nll(p[tall], t[tall], start, 0.0):.3f}), right {float((p.argmax(1) == t).mean()):.4f} "
          f"({float((p[tall].argmax(1) == t[tall]).mean()):.3f})")
    print(f"best: TRAY_TALL_FROM = {start}, TRAY_TALL_SHARE = {share:.2f}: NLL {nll:.4f} (those holding {start}+: "
          f"{tray_share_nll(p[tall], t[tall], start, share):.3f})")
    print(f"committed: TRAY_TALL_FROM = {TRAY_TALL_FROM}, TRAY_TALL_SHARE = {TRAY_TALL_SHARE:.2f}: NLL "
          f"{tray_share_nll(p, t, TRAY_TALL_FROM, TRAY_TALL_SHARE):.4f}")
    return 0


def evaluate(args: argparse.Namespace) -> int:
    from vision.board_reader import BoardReader

    styles = set(args.styles.split(",")) if args.styles else None
    from vision.cube import DEFAULT_FACE_MODEL

    face_model = None if args.no_face_model else (args.cube_face_model or DEFAULT_FACE_MODEL)
    reader = BoardReader(checker_model=args.checker_model, cube_model=args.cube_model,
                         flip_average=not args.no_flip, cube_face_model=face_model,
                         check_totals=not args.raw_counts, cube_zone_prior=not args.no_zone_prior,
                         **({} if args.presence_bias is None else {"presence_bias": args.presence_bias}),
                         **({} if args.tray_tall_share is None else {"tray_tall_share": args.tray_tall_share}))
    n = 0
    point_wrong = 0
    raw_point_wrong = 0
    colour_wrong = 0
    bar_wrong = off_wrong = 0
    boards_right = 0
    abs_err = 0
    cube_value_right = cube_zone_right = cube_both = 0
    cube_present = cube_value_present_right = 0
    zone_confusion: dict[str, dict[str, int]] = {}
    err_by_true: dict[int, list[int]] = {}
    times = []
    no_hands = [0, 0, 0]  # frames, points wrong, boards right
    for img_path, lab in label_files(args.dirs, styles=styles, limit=args.limit):
        raw = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if raw is None:
            print(f"skipping {img_path}: not readable", file=sys.stderr)
            continue
        image = np.asarray(raw, dtype=np.uint8)
        prof = profile_for(lab)
        t0 = time.perf_counter()
        reading = reader.read(image, prof)
        times.append(time.perf_counter() - t0)
        truth = strip_counts(lab)
        pred = reading.strip_counts()
        raw_bad = np.any(reading.raw_strip_counts()[:24] != truth[:24], axis=1)
        raw_point_wrong += int(raw_bad.sum())
        pts_bad = np.any(pred[:24] != truth[:24], axis=1)
        point_wrong += int(pts_bad.sum())
        colour_wrong += int((pred[:24] != truth[:24]).sum())
        abs_err += int(np.abs(pred[:24] - truth[:24]).sum())
        ts = lab["table_state"]
        bar_t = (int(ts["bar"]["light"]), int(ts["bar"]["dark"]))
        off_t = (int(ts["off"]["light"]), int(ts["off"]["dark"]))
        bar_ok = reading.bar_counts() == bar_t
        off_ok = reading.off_counts() == off_t
        bar_wrong += int(not bar_ok)
        off_wrong += int(not off_ok)
        boards_right += int((not pts_bad.any()) and bar_ok and off_ok)
        if not lab.get("look", {}).get("hands"):
            no_hands[0] += 1
            no_hands[1] += int(pts_bad.sum())
            no_hands[2] += int((not pts_bad.any()) and bar_ok and off_ok)
        for t, p in zip(truth[:24].ravel(), pred[:24].ravel(), strict=True):
            err_by_true.setdefault(int(t), [0, 0])
            err_by_true[int(t)][0] += 1
            err_by_true[int(t)][1] += int(t != p)
        cube = ts.get("cube")
        tz, tv = (str(cube["zone"]), int(cube["value"])) if cube else ("absent", None)
        obs = reading.cube
        pz = obs.zone if obs is not None else "absent"
        zone_confusion.setdefault(tz, {}).setdefault(pz, 0)
        zone_confusion[tz][pz] += 1
        zone_ok = pz == tz
        value_ok = tv is None or (obs is not None and obs.value == tv)
        cube_zone_right += int(zone_ok)
        cube_value_right += int(value_ok)
        cube_both += int(zone_ok and value_ok)
        if tv is not None:
            cube_present += 1
            cube_value_present_right += int(value_ok)
        n += 1
    if n == 0:
        print("no labelled frames found", file=sys.stderr)
        return 2
    res = {
        "frames": n,
        "point_error_rate": point_wrong / (24 * n),
        "point_error_rate_raw": raw_point_wrong / (24 * n),
        "point_colour_error_rate": colour_wrong / (48 * n),
        "mean_abs_count_error_per_point": abs_err / (24 * n),
        "bar_wrong_rate": bar_wrong / n,
        "off_wrong_rate": off_wrong / n,
        "boards_exactly_right": boards_right / n,
        "frames_without_hands": no_hands[0],
        "point_error_rate_without_hands": no_hands[1] / max(1, 24 * no_hands[0]),
        "boards_exactly_right_without_hands": no_hands[2] / max(1, no_hands[0]),
        "cube_zone_right": cube_zone_right / n,
        "cube_value_right_when_present": cube_value_present_right / max(cube_present, 1),
        "cube_value_and_zone_right": cube_both / n,
        "cube_zone_confusion": zone_confusion,
        "error_rate_by_true_count": {k: round(v[1] / v[0], 4) for k, v in sorted(err_by_true.items())},
        "latency_ms_median": 1000 * float(np.median(times)),
    }
    if args.json:
        print(json.dumps(res, indent=1))
    else:
        for k, v in res.items():
            print(f"{k}: {v if not isinstance(v, float) else round(v, 4)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="cut strips and cube windows from labelled frames")
    b.add_argument("dirs", nargs="+", type=Path)
    b.add_argument("--out", required=True)
    b.add_argument("--copies", type=int, default=2)
    b.add_argument("--exclude-styles", default="")
    b.add_argument("--limit", type=int)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--start", type=int, default=0, help="skip this many frames of each folder (add new ones only)")
    b.add_argument("--jitter-all", action="store_true", help="move the corners of every copy, the first too")
    b.add_argument("--no-hands", action="store_true", help="leave out frames with a hand over the table")
    b.add_argument("--what", choices=("all", "checkers", "cube"), default="all",
                   help="cut checker strips, cube windows or both")
    f = sub.add_parser("build-faces", help="cube face crops from labelled frames")
    f.add_argument("dirs", nargs="+", type=Path)
    f.add_argument("--out", required=True)
    f.add_argument("--copies", type=int, default=4)
    f.add_argument("--size", type=int, default=FACE_CROP, help="crop side, pixels (the face model's input)")
    f.add_argument("--exclude-styles", default="")
    f.add_argument("--limit", type=int)
    f.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("calibrate-presence", help="choose vision.cube.PRESENCE_BIAS on training frames")
    c.add_argument("dirs", nargs="+", type=Path)
    c.add_argument("--exclude-styles", default="walnut-wood,navy-leather")
    c.add_argument("--limit", type=int, default=200)
    c.add_argument("--start", type=int, default=0, help="skip this many frames of each folder (e.g. those trained on)")
    c.add_argument("--cube-model", type=Path, help="window model (default models/cube_reader.onnx)")
    c.add_argument("--cube-face-model", type=Path, help="face model (default models/cube_face.onnx)")
    c.add_argument("--no-zone-prior", action="store_true", help="cube face without the zone's face frequencies")
    t = sub.add_parser("calibrate-trays", help="choose vision.checkers.TRAY_TALL_FROM and TRAY_TALL_SHARE")
    t.add_argument("dirs", nargs="+", type=Path)
    t.add_argument("--exclude-styles", default="walnut-wood,navy-leather")
    t.add_argument("--limit", type=int)
    t.add_argument("--checker-model", type=Path)
    e = sub.add_parser("eval", help="the board reader's figures on held-out frames")
    e.add_argument("dirs", nargs="+", type=Path)
    e.add_argument("--styles", default="")
    e.add_argument("--limit", type=int)
    e.add_argument("--checker-model", type=Path)
    e.add_argument("--cube-model", type=Path)
    e.add_argument("--cube-face-model", type=Path, help="default models/cube_face.onnx")
    e.add_argument("--no-face-model", action="store_true", help="read the face from the window model's maps")
    e.add_argument("--json", action="store_true")
    e.add_argument("--no-flip", action="store_true", help="checker strips once, not also mirrored")
    e.add_argument("--raw-counts", action="store_true", help="no 15-per-colour check (decision 0460)")
    e.add_argument("--no-zone-prior", action="store_true", help="cube face without the zone's face frequencies")
    e.add_argument("--presence-bias", type=float, help="default vision.cube.PRESENCE_BIAS")
    e.add_argument("--tray-tall-share", type=float, help="default vision.checkers.TRAY_TALL_SHARE")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        return build(args)
    if args.cmd == "calibrate-presence":
        return calibrate_presence(args)
    if args.cmd == "calibrate-trays":
        return calibrate_trays(args)
    return build_faces(args) if args.cmd == "build-faces" else evaluate(args)


if __name__ == "__main__":
    raise SystemExit(main())
