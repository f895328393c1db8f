"""Is a die at rest valid, and if not, why: geometric cues plus a small learned classifier.

RG19 4.1.4.3 (DIGEST A1) judges a die at rest by three tests: supported by a vertical surface
(``leaning``), balanced on an edge or corner (``cocked``), sunk below the tops of all the checkers
it rests on (``in_gap``); and it must rest within the playing area (``off_board``), on the half where
it was rolled (``wrong_side``), not on the other die (``on_die``). Vision reports the *physical*
reason (the vocabulary of issue 5, :data:`vision.observation.DIE_REASONS`); whether ``on_checker``
is valid depends on the rule set and is the referee's business (RG19 valid, US09/STD invalid, WB23
only in dice-on-checkers mode; DIGEST A1.10).

How (docs/dice-validity.md, decisions 0700 and 0540):

1. :func:`die_features` turns the die's image box and the calibrated camera into pose cues in board
   centimetres: where the die stands (its box centre cast onto the board at the height of a flat
   die's centre, and at the height of a die lying on one checker), its distances to the rails, the
   bar and the edges of the playing surface, its image footprint against the projected footprint of
   a flat die of known size at that place, its closeness to the checker stacks expected from the
   point counts, and to the other dice.
2. :func:`rectified_crop` resamples the board around the die, seen from straight above at the
   height of a flat die's top face, the camera towards the crop's lower edge: a flat die's top face
   is then a square of fixed size at a fixed place whatever the camera, and a tilted, sunk or raised
   die looks different (decision 0540). Without intrinsics, :func:`assumed_camera` solves a pinhole
   camera from the board corners alone (heights less exact, lens distortion ignored).
3. :class:`DieValidityClassifier` (ONNX, trained by ``models/train_die_validity.py`` on simulator
   frames) combines both into probabilities over :data:`POSE_CLASSES`.
4. :func:`decide` applies the reason priority of decision 0300: ``off_board`` first, then
   ``wrong_side`` (only when the half the dice were rolled into is known: the referee knows who is
   on roll), then valid when P(flat_board) + P(on_checker) reaches the model's threshold (chosen for
   at most 1% false alarms), else the most likely invalid pose class.
5. :func:`with_readers_doubt`, once the die readers have looked (``FrameRecognizer.read_dice``): a
   die called valid with ``valid_p`` under :data:`DOUBT_VALID_P` whose value the readers give less
   than :data:`DOUBT_VALUE_P` takes its most likely invalid pose class (decision 0725).

``valid_p`` is the probability that the die is validly at rest under USBGF 2019 (flat on the board
or on checkers; the referee re-rules ``on_checker`` for other rule sets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import BoardDimensions
from calibration.profile import CalibrationProfile
from vision.errors import ModelMissingError, VisionError
from vision.geometry import checker_slots
from vision.images import colour_frame, network_input
from vision.onnx import MODELS_DIR, load_session

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

POSE_CLASSES: tuple[str, ...] = ("flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "on_die")
"""What the classifier tells apart: the reasons a single frame can show (``wrong_side`` needs the roller)."""
VALID_CLASSES = frozenset({"flat_board", "on_checker"})
"""Reasons that are valid under USBGF 2019 (RG19 4.1.4.3)."""

DEFAULT_DIE_CM = 1.75
"""Edge of a precision die when the profile does not say (tournament dice are 5/8"-3/4", 1.6-1.9 cm)."""
CROP_SIZE = 64
"""Side of the classifier's context crop, pixels."""
CROP_CONTEXT = 2.6
"""Crop side as a multiple of the die box's longer side."""
YAWS_DEG = (0.0, 15.0, 30.0, 45.0)
"""Yaws of the flat-die footprint the observed box is compared with."""

FEATURE_NAMES: tuple[str, ...] = (
    "x_half",            # |x| position inside its half, as a fraction of the half's width (0 bar .. 1 outer rail)
    "side",              # +1 right of the bar, -1 left
    "inside_cm",         # signed distance to the edge of the playing surface (positive inside), flat-die hypothesis
    "inside_hi_cm",      # the same on the raised (on a checker) hypothesis
    "bar_cm",            # distance to the bar's edge
    "outer_cm",          # distance to the outer rail
    "nearfar_cm",        # distance to the near or far rail, whichever is closer
    "w_ratio",           # observed box width / flat-die box width (mean over yaws)
    "h_ratio",           # observed box height / flat-die box height
    "area_ratio",        # observed box area / flat-die box area
    "aspect_dev",        # observed aspect / flat aspect - 1
    "die_px",            # flat-die box side in pixels / 40
    "elev",              # camera elevation / 90 deg (1 without a pose)
    "chk_near",          # distance to the nearest expected checker centre / checker radius (capped at 4)
    "chk_near_hi",       # the same for the raised hypothesis
    "chk_n",             # number of expected checkers within radius + die half-diagonal (capped, / 4)
    "chk_top",           # top height of those checkers / checker height (layers)
    "chk_rim",           # |distance to nearest checker centre - radius| / die edge, capped at 3
    "pt_count",          # checkers on the point under the die / 5
    "die_near",          # distance to the nearest other die / die edge (capped at 6)
    "die_iou",           # largest box IoU with another die
    "die_dy",            # vertical offset of the nearest other die's box centre / die box height (capped)
    "n_dice",            # dice seen / 4
)
N_FEATURES = len(FEATURE_NAMES)

DEFAULT_MODEL = MODELS_DIR / "die_validity.onnx"
REBUILD_HINT = "rebuild it with: pip install -e '.[train]' && python models/train_die_validity.py (see models/die_validity.md)"


# ------------------------------------------------------------------------------------------ geometry
def _backproject(profile: CalibrationProfile, uv: F64, z: float) -> F64:
    """Board-frame ``(x, y)`` where the camera ray through pixels ``uv`` (N x 2) meets the plane at height ``z``.

    Exact with a pose; without one the halves' homographies (plane z = 0) are used and ``z`` is ignored."""
    pts = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    if profile.pose is None or profile.intrinsics is None:
        from vision.geometry import image_to_board

        return image_to_board(profile, pts)
    rmat, _ = cv2.Rodrigues(profile.pose.rvec)
    norm = cv2.undistortPoints(pts.reshape(-1, 1, 2), profile.intrinsics.camera_matrix,
                               profile.intrinsics.dist_coeffs).reshape(-1, 2)
    rays = np.column_stack([norm, np.ones(len(norm))]) @ rmat  # world directions (R^T d, row form)
    centre = profile.pose.camera_centre
    dz = rays[:, 2]
    dz = np.where(np.abs(dz) < 1e-9, -1e-9, dz)
    lam = (z - centre[2]) / dz
    return np.asarray(centre[:2] + lam[:, None] * rays[:, :2], dtype=np.float64)


def flat_die_boxes(profile: CalibrationProfile, xy: tuple[float, float], size: float, z0: float) -> F64:
    """Image boxes ``len(YAWS_DEG) x 4`` of a die lying flat at ``xy`` with its base at height ``z0``."""
    h = size / 2
    base = np.array([[sx * h, sy * h, z] for sx in (-1, 1) for sy in (-1, 1) for z in (z0, z0 + size)])
    pts = []
    for yaw in YAWS_DEG:
        c, s = np.cos(np.radians(yaw)), np.sin(np.radians(yaw))
        rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        pts.append(base @ rot.T + np.array([xy[0], xy[1], 0.0]))
    uv = profile.project(np.vstack(pts)).reshape(len(YAWS_DEG), 8, 2)
    return np.column_stack([uv[:, :, 0].min(1), uv[:, :, 1].min(1), uv[:, :, 0].max(1), uv[:, :, 1].max(1)])


def _surface_distances(dims: BoardDimensions, x: float, y: float) -> tuple[float, float, float, float]:
    """(signed distance to the playing surface's edge, to the bar's edge, to the outer rail, to the near/far rail)."""
    b, w, q = dims.bar_width / 2, dims.half_width, dims.play_depth / 2
    ax = abs(x)
    bar = ax - b
    outer = b + w - ax
    nearfar = q - abs(y)
    inside = min(bar, outer, nearfar)
    if inside < 0:  # outside: Euclidean distance to the half's rectangle, negative
        dx = max(b - ax, 0.0, ax - (b + w))
        dy = max(abs(y) - q, 0.0)
        inside = -float(np.hypot(dx, dy))
    return inside, bar, outer, nearfar


def _box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


def checker_centres(dims: BoardDimensions, counts: Sequence[int] | None) -> F64:
    """Expected checker centres ``N x 3`` (cm) from total counts per physical point 1..24 (light + dark)."""
    if counts is None:
        return np.zeros((0, 3))
    if len(counts) != 24:
        raise VisionError(f"checker counts must have 24 entries (physical points 1..24), got {len(counts)}")
    parts = [checker_slots(dims, p + 1, int(n)) for p, n in enumerate(counts) if int(n) > 0]
    return np.vstack(parts) if parts else np.zeros((0, 3))


def die_features(profile: CalibrationProfile, box_xyxy: Sequence[float], other_boxes: Sequence[Sequence[float]] = (),
                 point_counts: Sequence[int] | None = None, die_cm: float = DEFAULT_DIE_CM,
                 centres: F64 | None = None) -> F32:
    """The pose cues of one die (:data:`FEATURE_NAMES`), from its image box and the calibrated camera.

    ``other_boxes`` are the other dice's boxes in the same frame, ``point_counts`` the checkers (both
    colours) on physical points 1..24 (from the board reader), ``die_cm`` the dice's edge.
    ``centres`` may pass :func:`checker_centres` precomputed for several dice of one frame."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0):
        raise VisionError(f"die box {list(box_xyxy)} is empty: need x1 > x0 and y1 > y0")
    if die_cm <= 0:
        raise VisionError(f"die size must be positive (cm), got {die_cm}")
    dims = profile.dims
    s = die_cm
    hch = dims.checker_height
    uv = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
    lo = _backproject(profile, uv, s / 2)[0]
    hi = _backproject(profile, uv, hch + s / 2)[0]
    x, y = float(lo[0]), float(lo[1])
    inside, bar, outer, nearfar = _surface_distances(dims, x, y)
    inside_hi = _surface_distances(dims, float(hi[0]), float(hi[1]))[0]
    boxes = flat_die_boxes(profile, (x, y), s, 0.0)
    fw = float(np.mean(boxes[:, 2] - boxes[:, 0]))
    fh = float(np.mean(boxes[:, 3] - boxes[:, 1]))
    ow, oh = x1 - x0, y1 - y0
    w_ratio, h_ratio = ow / max(fw, 1e-3), oh / max(fh, 1e-3)
    aspect_dev = (ow / oh) / max(fw / max(fh, 1e-3), 1e-3) - 1.0
    elev = profile.pose.elevation_deg / 90.0 if profile.pose is not None else 1.0

    ctr = checker_centres(dims, point_counts) if centres is None else centres
    r = dims.checker_diameter / 2
    if len(ctr):
        d_lo = np.hypot(ctr[:, 0] - x, ctr[:, 1] - y)
        d_hi = np.hypot(ctr[:, 0] - hi[0], ctr[:, 1] - hi[1])
        near = float(d_lo.min())
        near_hi = float(d_hi.min())
        close = d_lo < r + s * 0.71
        n_close = int(close.sum())
        top = float((ctr[close, 2].max() + hch / 2) / hch) if n_close else 0.0
        rim = float(np.abs(np.minimum(d_lo, d_hi) - r).min() / s)
    else:
        near = near_hi = 4.0 * r
        n_close, top, rim = 0, 0.0, 3.0
    pt_count = 0
    if point_counts is not None and inside > -s:
        from vision.geometry import classify_board_xy

        region, _, point = classify_board_xy(dims, [[x, y]])[0]
        if region == "point" and point is not None:
            pt_count = int(point_counts[point - 1])

    die_near, die_iou, die_dy = 6.0, 0.0, 0.0
    for ob in other_boxes:
        bx0, by0, bx1, by1 = (float(v) for v in ob)
        if (bx0, by0, bx1, by1) == (x0, y0, x1, y1):
            continue
        oxy = _backproject(profile, np.array([[(bx0 + bx1) / 2, (by0 + by1) / 2]]), s / 2)[0]
        dist = float(np.hypot(oxy[0] - x, oxy[1] - y)) / s
        if dist < die_near:
            die_near = dist
            die_dy = float(np.clip(((by0 + by1) / 2 - (y0 + y1) / 2) / oh, -3, 3))
        die_iou = max(die_iou, _box_iou((x0, y0, x1, y1), (bx0, by0, bx1, by1)))
    half_w = dims.half_width
    feats = [
        float(np.clip((abs(x) - dims.bar_width / 2) / half_w, -0.5, 1.5)),
        1.0 if x >= 0 else -1.0,
        float(np.clip(inside, -10, 10)) / s,
        float(np.clip(inside_hi, -10, 10)) / s,
        float(np.clip(bar, -10, 10)) / s,
        float(np.clip(outer, -10, 10)) / s,
        float(np.clip(nearfar, -10, 10)) / s,
        w_ratio, h_ratio, w_ratio * h_ratio, float(np.clip(aspect_dev, -2, 2)),
        fw / 40.0, elev,
        min(near / r, 4.0), min(near_hi / r, 4.0), min(n_close, 8) / 4.0, min(top, 6.0), min(rim, 3.0),
        min(pt_count, 15) / 5.0,
        min(die_near, 6.0), die_iou, die_dy,
        min(len(other_boxes) + 1, 4) / 4.0,
    ]
    return np.asarray(feats, dtype=np.float32)


def die_board_xy(profile: CalibrationProfile, box_xyxy: Sequence[float], die_cm: float = DEFAULT_DIE_CM) -> tuple[float, float]:
    """Board position (cm) of a die lying flat, from its image box."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    xy = _backproject(profile, np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]), die_cm / 2)[0]
    return float(xy[0]), float(xy[1])


def die_board_xy_from_top(profile: CalibrationProfile, box_xyxy: Sequence[float], die_cm: float = DEFAULT_DIE_CM) -> tuple[float, float]:
    """Board position (cm) of a die lying flat from the top edge of its image box alone: the far edge
    of its top face (``die_cm`` up), half a side further from the camera than its centre. Unlike the
    box centre (:func:`die_board_xy`), this holds when a rail in front of the die hides its lower part
    (the box then covers only what shows above the rail). ``profile`` needs a camera."""
    x0, y0, x1, _ = (float(v) for v in box_xyxy)
    far = _backproject(profile, np.array([[(x0 + x1) / 2, y0]]), die_cm)[0]
    if profile.pose is None:
        return float(far[0]), float(far[1])
    toward = np.asarray(profile.pose.camera_centre, dtype=np.float64)[:2] - far
    n = float(np.hypot(toward[0], toward[1]))
    xy = far + (toward / n) * die_cm / 2 if n > 1e-9 else far
    return float(xy[0]), float(xy[1])


HIDDEN_FACE = 0.2
"""Share of a die's top face that the rails and the bar hide from the camera (:func:`hidden_fraction`)
above which its value, as read, is not trusted alone (decision 0736)."""
HIDDEN_MIX = 0.8
"""Weight of the uniform distribution mixed into the value probabilities of such a die: the reading of
a strip of a face is left a tie-breaker. Fused over the looks by the tracker (``value_looks`` 2),
0.8 leaves each other face about 9%, which the referee weighs against the play (seed 358's 6 read 3:
recorded 6-3 with a question to the monitor; 0.6 left 3% and the play was still accused)."""


def hidden_fraction(profile: CalibrationProfile, xy: tuple[float, float], die_cm: float = DEFAULT_DIE_CM,
                    samples: int = 7) -> float:
    """Share of the top face of a die lying flat at ``xy`` (cm) that the camera cannot see past the
    rails and the bar (``rail_height`` above the surface): sample points of the face whose ray to the
    camera centre crosses a rail's inner face, or either face of the bar, below its top. ``profile``
    needs a camera (:class:`CameraCache`). Seed 358 (walnut wood, 48 degrees): a 6 and a 4 by the near
    rail showed one row of pips above it, read 3 and 2 with certainty (placed from their boxes,
    :func:`die_board_xy_from_top`: 0.29 of the face hidden each; no other of its 210 dice at rest
    but a third by that rail reaches :data:`HIDDEN_FACE`)."""
    if profile.pose is None:
        return 0.0
    c = np.asarray(profile.pose.camera_centre, dtype=np.float64)
    d = profile.dims
    q, b, w, h = d.play_depth / 2, d.bar_width / 2, d.half_width, d.rail_height
    s = (np.arange(samples) + 0.5) / samples - 0.5
    pts = np.array([[xy[0] + u * die_cm, xy[1] + v * die_cm, die_cm] for u in s for v in s])
    hidden = np.zeros(len(pts), dtype=bool)
    # (axis the wall is normal to, its position, its extent along the other axis)
    walls = [(1, -q, (-b - w, b + w)), (1, q, (-b - w, b + w)), (0, -b - w, (-q, q)), (0, b + w, (-q, q)),
             (0, -b, (-q, q)), (0, b, (-q, q))]
    for ax, at, (lo, hi) in walls:
        run = pts[:, ax] - c[ax]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (at - c[ax]) / run
        cross = c[None, :] + t[:, None] * (pts - c[None, :])
        other = cross[:, 1 - ax]
        hidden |= (t > 0) & (t < 1) & (cross[:, 2] < h) & (other >= lo) & (other <= hi)
    return float(hidden.mean())


def doubt_hidden(value_p: npt.ArrayLike, hidden: float, at_least: float = HIDDEN_FACE, mix: float = HIDDEN_MIX) -> F64:
    """The value probabilities of a die whose top face is partly hidden (``hidden``, :func:`hidden_fraction`):
    mixed with the uniform (weight ``mix``) from ``at_least`` on, else as they are. The readers were
    trained on dice in full view; what shows above a rail (a row of pips) can be several faces, and the
    referee then weighs the play against every roll left likely (decision 0736).

    >>> [round(float(v), 3) for v in doubt_hidden([0, 0, 1, 0, 0, 0], 0.3)]
    [0.133, 0.133, 0.333, 0.133, 0.133, 0.133]
    >>> [round(float(v), 3) for v in doubt_hidden([0, 0, 1, 0, 0, 0], 0.1)]
    [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    """
    q = np.asarray(value_p, dtype=np.float64).reshape(-1)
    if hidden < at_least:
        return q
    return np.asarray((1.0 - mix) * q + mix / len(q), dtype=np.float64)


def half_of(profile: CalibrationProfile, xy: tuple[float, float]) -> Literal["left", "right"] | None:
    """The half of the playing surface under ``xy`` (cm), or None off the surface."""
    inside = _surface_distances(profile.dims, xy[0], xy[1])[0]
    if inside < 0:
        return None
    return "right" if xy[0] >= 0 else "left"


ASSUMED_F_RANGE = (0.4, 3.0)
"""Plausible focal lengths (multiples of the image width) for :func:`assumed_camera`; outside, 0.9 is used."""


def assumed_camera(profile: CalibrationProfile) -> CalibrationProfile:
    """A profile with an *assumed* pinhole camera when the given one has no intrinsics (no pose).

    The focal length is estimated from the board's 8 (or 4) corners and real sizes alone (one view of
    a known plane; principal point at the image centre, square pixels, no lens distortion), and the
    pose solved with it. What is lost against real intrinsics: lens distortion is ignored and the
    focal length is only as good as one plane's perspective allows (poor when the camera looks
    straight down, then 0.9 image widths is assumed), so heights (a die on checkers or on the other
    die, the top of a tilted die) are less exact. Returned unchanged when it has a pose."""
    if profile.pose is not None and profile.intrinsics is not None:
        return profile
    from calibration.intrinsics import Intrinsics
    from calibration.profile import solve_pose

    w, h = profile.image_size
    corners = np.asarray(profile.corners, dtype=np.float64)
    obj = profile.dims.corners(8 if len(corners) == 8 else 4).astype(np.float32)
    k0 = np.array([[0.9 * w, 0.0, w / 2], [0.0, 0.9 * w, h / 2], [0.0, 0.0, 1.0]])
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
             | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    f = 0.9 * w
    try:
        _, k, _, _, _ = cv2.calibrateCamera([obj], [corners.astype(np.float32).reshape(-1, 1, 2)], (w, h), k0.copy(),
                                            np.zeros(5), flags=flags)
        if ASSUMED_F_RANGE[0] * w <= float(k[0, 0]) <= ASSUMED_F_RANGE[1] * w:
            f = float(k[0, 0])
    except cv2.error:
        pass
    intr = Intrinsics(np.array([[f, 0.0, w / 2], [0.0, f, h / 2], [0.0, 0.0, 1.0]]), np.zeros(5), (w, h))
    try:
        pose = solve_pose(profile.dims, corners, intr)
    except Exception:  # noqa: BLE001 - a degenerate view: keep the homographies
        return profile
    from dataclasses import replace

    return replace(profile, intrinsics=intr, pose=pose)


class CameraCache:
    """A profile with a camera for the dice's crops: the profile itself when it has a pose, else its
    :func:`assumed_camera`, solved once and remembered for the last profile seen (the live pipeline
    keeps one profile; ``eval vision`` changes it per frame)."""

    def __init__(self) -> None:
        self._last: tuple[bytes, CalibrationProfile] | None = None

    def __call__(self, profile: CalibrationProfile) -> CalibrationProfile:
        if profile.pose is not None and profile.intrinsics is not None:
            return profile
        key = repr((profile.image_size, np.asarray(profile.corners, dtype=np.float64).tolist(), profile.dims)).encode()
        if self._last is None or self._last[0] != key:
            self._last = (key, assumed_camera(profile))
        return self._last[1]


# ------------------------------------------------------------------------------------------ crops
def context_crop(image: U8, box_xyxy: Sequence[float], context: float = CROP_CONTEXT) -> U8:
    """A ``CROP_SIZE`` square around the die, ``context`` times its box's longer side, border replicated."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0):
        raise VisionError(f"die box {list(box_xyxy)} is empty: need x1 > x0 and y1 > y0")
    if not 1.0 <= context <= 8.0:
        raise VisionError(f"crop context must be 1..8 times the die box, got {context}")
    side = max(x1 - x0, y1 - y0) * context
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    scale = CROP_SIZE / side
    m = np.array([[scale, 0.0, CROP_SIZE / 2 - scale * cx], [0.0, scale, CROP_SIZE / 2 - scale * cy]])
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return np.asarray(cv2.warpAffine(image, m, (CROP_SIZE, CROP_SIZE), flags=interp,
                                     borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


RECT_SIZE = 64
"""Side of the board-plane rectified crop, pixels."""
RECT_SPAN = 4.0
"""Rectified crop side in die edges (the die's top face fills a quarter of it)."""
RECT_SHIFT = 0.35
"""Crop centre moved towards the camera by this many die edges (the camera-facing side faces show there)."""


def camera_direction(profile: CalibrationProfile, xy: tuple[float, float]) -> F64:
    """Unit vector on the board from ``xy`` towards the point under the camera (the near seat's
    direction ``(0, -1)`` without a pose, or when the camera is straight above the die)."""
    if profile.pose is None or profile.intrinsics is None:
        return np.array([0.0, -1.0])
    c = profile.pose.camera_centre
    d = np.array([float(c[0]) - xy[0], float(c[1]) - xy[1]])
    n = float(np.hypot(d[0], d[1]))
    if n < 1e-6 * max(1.0, abs(float(c[2]))):
        return np.array([0.0, -1.0])
    return d / n


def rectified_crop(image: U8, profile: CalibrationProfile, box_xyxy: Sequence[float],
                   die_cm: float = DEFAULT_DIE_CM, size: int = RECT_SIZE, span: float = RECT_SPAN,
                   shift: float = RECT_SHIFT) -> U8:
    """The board around the die seen from straight above, at the height of a flat die's top face.

    The die's box centre is cast onto the board (flat-die hypothesis); the plane ``z = die_cm`` around
    that place, ``span`` (:data:`RECT_SPAN`) die edges wide and moved ``shift`` (:data:`RECT_SHIFT`)
    die edges towards the camera, is resampled into a ``size`` square whose lower edge faces the
    camera. A die lying flat then shows its top face as an upright-sized square of ``size / span``
    pixels, ``shift`` of its sides above the centre, whatever the camera, with its camera-facing sides
    below it; a die on an edge or corner, leaning, sunk in a gap or raised on checkers or on the
    other die shows a different outline at another place and scale (decision 0540).
    Without intrinsics (no pose) the halves' homographies are used: the plane is the board
    surface, heights are ignored, and the crop's lower edge faces the near seat."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0):
        raise VisionError(f"die box {list(box_xyxy)} is empty: need x1 > x0 and y1 > y0")
    if die_cm <= 0:
        raise VisionError(f"die size must be positive (cm), got {die_cm}")
    xy = _backproject(profile, np.array([[(x0 + x1) / 2, (y0 + y1) / 2]]), die_cm / 2)[0]
    u = camera_direction(profile, (float(xy[0]), float(xy[1])))
    v = np.array([-u[1], u[0]])
    step = span * die_cm / size
    centre = xy + shift * die_cm * u
    # the camera's mapping is smooth over a few centimetres: project a coarse grid of pixel centres
    # and interpolate it bilinearly (under 0.05 px from projecting every pixel; 15x faster)
    coarse = np.linspace(0.0, size - 1.0, RECT_GRID)
    offs = (coarse + 0.5 - size / 2) * step
    rows, cols = np.meshgrid(offs, offs, indexing="ij")
    world = centre[None, None, :] + cols[..., None] * v[None, None, :] + rows[..., None] * u[None, None, :]
    pts = np.concatenate([world.reshape(-1, 2), np.full((RECT_GRID * RECT_GRID, 1), die_cm)], axis=1)
    uv = profile.project(pts).reshape(RECT_GRID, RECT_GRID, 2)
    interp = _interp_matrix(size, RECT_GRID)
    mx = (interp @ uv[..., 0] @ interp.T).astype(np.float32)
    my = (interp @ uv[..., 1] @ interp.T).astype(np.float32)
    return np.asarray(cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


RECT_GRID = 9
"""Coarse grid (per side) projected through the camera for :func:`rectified_crop`."""

TOP_SPAN = 2.0
"""Side of :func:`top_face_crop` in die edges (the top face fills half of it)."""
DIE_CM_RANGE = (1.2, 2.4)
"""Die edges (cm) :func:`die_size_cm` may find; outside, the nearest is taken."""


def die_size_cm(profile: CalibrationProfile, box_xyxy: Sequence[float], nominal_cm: float = DEFAULT_DIE_CM) -> float:
    """A die's edge (cm) from its image box: ``nominal_cm`` scaled by the box's longer side over the
    mean box of a flat ``nominal_cm`` die at the same place (dice come from 1.3 to 1.9 cm)."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    xy = die_board_xy(profile, box_xyxy, nominal_cm)
    ref = flat_die_boxes(profile, xy, nominal_cm, 0.0)
    ref_side = float(np.mean(np.maximum(ref[:, 2] - ref[:, 0], ref[:, 3] - ref[:, 1])))
    if not ref_side > 0:
        return nominal_cm
    return float(np.clip(nominal_cm * max(x1 - x0, y1 - y0) / ref_side, *DIE_CM_RANGE))


def top_face_crop(image: U8, profile: CalibrationProfile, box_xyxy: Sequence[float], size: int, zoom: float = 1.0) -> U8:
    """The die's top face seen from straight above, centred, for the die reader: the plane of a flat
    die's top face (its edge from :func:`die_size_cm`) resampled :data:`TOP_SPAN` die edges wide, the
    lower edge facing the camera. A flat die shows its top face as a square half the crop wide at the
    centre whatever the camera; the side faces the camera sees fall below it, stretched (decision
    0711). ``profile`` needs a camera (:func:`assumed_camera` without intrinsics); ``zoom`` widens the
    span about the same centre (a second look for a die whose box the locator placed off centre)."""
    return rectified_crop(image, profile, box_xyxy, die_size_cm(profile, box_xyxy), size, TOP_SPAN * zoom, 0.0)


def _interp_matrix(size: int, grid: int) -> F64:
    """``size x grid`` linear interpolation weights from ``grid`` evenly spaced samples of 0..size-1 to every index."""
    pos = np.arange(size, dtype=np.float64) * (grid - 1) / (size - 1)
    lo = np.minimum(np.floor(pos).astype(int), grid - 2)
    frac = pos - lo
    m = np.zeros((size, grid))
    m[np.arange(size), lo] = 1.0 - frac
    m[np.arange(size), lo + 1] = frac
    return m


def crops_to_tensor(crops: Sequence[U8] | U8) -> F32:
    """BGR crops ``N x S x S x 3`` -> network input ``N x 3 x S x S``, RGB, standardised per crop."""
    batch = np.asarray(crops, dtype=np.float32)
    if batch.ndim == 3:
        batch = batch[None]
    if batch.ndim != 4 or batch.shape[1] != batch.shape[2] or batch.shape[3] != 3:
        raise VisionError(f"validity crops must be square colour crops N x S x S x 3, got {batch.shape}")
    return network_input(batch, axes=(1, 2, 3))


# ------------------------------------------------------------------------------------------ decision
@dataclass(frozen=True)
class DieValidity:
    """Validity of one die at rest."""

    reason: str
    """One of :data:`vision.observation.DIE_REASONS`."""
    valid_p: float
    """P(valid under USBGF 2019): P(flat_board) + P(on_checker), zero when off the board or on the wrong side."""
    pose_p: F32
    """Probabilities over :data:`POSE_CLASSES`."""
    half: Literal["left", "right"] | None
    board_xy: tuple[float, float]
    reach: float | None = None
    """:func:`support_reach`: the nearest vertical surface, in die edges (None: not measured)."""

    @property
    def valid(self) -> bool:
        return self.valid_p >= 0.5

    @property
    def confidence(self) -> float:
        """Probability of the reported reason (1 for the geometric ``wrong_side``)."""
        if self.reason == "wrong_side":
            return 1.0
        return float(self.pose_p[POSE_CLASSES.index(self.reason)])


LEAN_REACH = 1.1
"""A die whose nearest vertical surface (:func:`support_reach`) is farther than this, in die edges, is
not called ``leaning`` (decision 0739): nothing is there to lean on, so the next likeliest invalid pose
is its reason. Leaning dice measured up to 1.01 on held-out renders and 1.11 on the training styles',
seed 359's cocked die at 1.20."""


def support_reach(features: npt.ArrayLike) -> float:
    """Distance from a die to the nearest vertical surface it could lean on, in die edges, from its
    :func:`die_features`: the rails and the bar (the edge of the playing surface; on the raised
    hypothesis too when checkers are under or beside the die), the side of the nearest expected
    checker, the nearest other die (centre distance less one edge)."""
    f = np.asarray(features, dtype=np.float64).reshape(-1)
    if f.shape != (N_FEATURES,):
        raise VisionError(f"die features must have {N_FEATURES} entries, got {f.shape}")
    at = FEATURE_NAMES.index
    walls = float(f[at("inside_cm")])
    if f[at("chk_n")] > 0:
        walls = min(walls, float(f[at("inside_hi_cm")]))
    return min(walls, float(f[at("chk_rim")]), float(f[at("die_near")]) - 1.0)


def _likeliest_invalid(p: npt.NDArray[np.float64], reach: float | None) -> str:
    """The most likely invalid pose class; not ``leaning`` when nothing is within :data:`LEAN_REACH`."""
    invalid = [i for i in range(len(POSE_CLASSES)) if POSE_CLASSES[i] not in VALID_CLASSES
               and not (POSE_CLASSES[i] == "leaning" and reach is not None and reach > LEAN_REACH)]
    return POSE_CLASSES[max(invalid, key=lambda i: p[i])]


def decide(pose_p: npt.ArrayLike, half: Literal["left", "right"] | None, rolled_half: str | None = None,
           valid_threshold: float = 0.5, reach: float | None = None) -> tuple[str, float]:
    """Reason and valid_p from the pose probabilities, by the priority of decision 0300:
    ``off_board``, ``wrong_side`` (when ``rolled_half`` is known), then the most likely pose class.

    A die judged invalid with ``valid_p`` just under the threshold keeps its most likely *invalid*
    reason; ``valid_threshold`` trades catches for false alarms (docs/dice-validity.md). ``reach``
    (:func:`support_reach`), when known, rules ``leaning`` out beyond :data:`LEAN_REACH` (decision
    0739); it changes the reason only, never whether the die is valid."""
    p = np.asarray(pose_p, dtype=np.float64).reshape(-1)
    if p.shape != (len(POSE_CLASSES),):
        raise VisionError(f"pose probabilities must have {len(POSE_CLASSES)} entries, got {p.shape}")
    valid_p = float(p[0] + p[1])
    off = POSE_CLASSES.index("off_board")
    if p[off] >= 0.5:
        return "off_board", 0.0
    if rolled_half is not None and half is not None and half != rolled_half:
        return "wrong_side", 0.0
    if valid_p >= valid_threshold:
        return ("flat_board" if p[0] >= p[1] else "on_checker"), valid_p
    return _likeliest_invalid(p, reach), valid_p


DOUBT_VALID_P = 0.3
"""A die the validity model calls valid with P(valid) under this ..."""
DOUBT_VALUE_P = 0.6
"""... and whose value the die readers give less than this probability is judged invalid (decision 0725)."""


def with_readers_doubt(verdict: DieValidity, value_p: npt.ArrayLike,
                       valid_p_below: float = DOUBT_VALID_P, value_p_below: float = DOUBT_VALUE_P,
                       hidden: float = 0.0) -> DieValidity:
    """The verdict once the die readers have looked (decision 0725): a die that shows no one face on top
    (cocked on an edge, leaning, sunk in a gap: RG19 4.1.4.3) leaves the readers in doubt, so a die the
    validity model calls valid only weakly (``valid_p`` under ``valid_p_below``) and whose likeliest
    value has less than ``value_p_below`` takes its most likely *invalid* pose class. Verdicts already
    invalid, or valid with confidence, or read without doubt are returned as they are, and so is the
    verdict of a die the rails or the bar partly hide (``hidden``, :func:`hidden_fraction`, from
    :data:`HIDDEN_FACE`): the rail, not the die's pose, keeps its face from the readers, whose doubt
    then says nothing about the pose (decision 0742; the model's verdict stands).

    >>> v = DieValidity("flat_board", 0.03, np.array([0.03, 0, 0.95, 0, 0.01, 0, 0.01], np.float32), "right", (10.0, 0.0))
    >>> with_readers_doubt(v, [0.5, 0.2, 0.1, 0.1, 0.05, 0.05]).reason
    'cocked'
    >>> with_readers_doubt(v, [0.99, 0.01, 0, 0, 0, 0]).reason
    'flat_board'
    """
    q = np.asarray(value_p, dtype=np.float64).reshape(-1)
    if q.shape != (6,):
        raise VisionError(f"die value probabilities must have 6 entries, got {q.shape}")
    if (verdict.reason not in VALID_CLASSES or verdict.valid_p >= valid_p_below or float(q.max()) >= value_p_below
            or hidden >= HIDDEN_FACE):
        return verdict
    p = np.asarray(verdict.pose_p, dtype=np.float64)
    return replace(verdict, reason=_likeliest_invalid(p, verdict.reach))


class DieValidityClassifier:
    """The learned part: context crop + pose cues -> probabilities over :data:`POSE_CLASSES` (ONNX Runtime).

    >>> clf = DieValidityClassifier()                                   # doctest: +SKIP
    >>> v = clf.judge(image, profile, boxes, point_counts=counts, rolled_half="right")  # doctest: +SKIP
    >>> v[0].reason, v[0].valid_p                                       # doctest: +SKIP
    ('leaning', 0.003)
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1, valid_threshold: float | None = None) -> None:
        path = Path(model_path)
        self._session = load_session(path, what="die validity model", rebuild_hint=REBUILD_HINT, threads=threads)
        names = [i.name for i in self._session.get_inputs()]
        if names != ["crop", "features"]:
            raise ModelMissingError(f"die validity model {path} has inputs {names}, expected ['crop', 'features']; {REBUILD_HINT}")
        meta = self._session.get_modelmeta().custom_metadata_map
        self.valid_threshold = float(valid_threshold if valid_threshold is not None else meta.get("valid_threshold", 0.5))
        self.crop_context = float(meta.get("crop_context", CROP_CONTEXT))
        """The crop context the model was trained with (model metadata; default :data:`CROP_CONTEXT`)."""
        self.crop_kind = str(meta.get("crop_kind", "context"))
        """``rectified`` (:func:`rectified_crop`, decision 0540) or ``context`` (:func:`context_crop`, older models)."""
        if self.crop_kind not in ("rectified", "context"):
            raise ModelMissingError(f"die validity model {path} wants crops of kind {self.crop_kind!r}, unknown here; {REBUILD_HINT}")
        if self.crop_kind == "rectified" and (int(meta.get("rect_size", RECT_SIZE)) != RECT_SIZE
                                              or float(meta.get("rect_span", RECT_SPAN)) != RECT_SPAN
                                              or float(meta.get("rect_shift", RECT_SHIFT)) != RECT_SHIFT):
            raise ModelMissingError(f"die validity model {path} was trained on rectified crops of another geometry "
                                    f"({meta.get('rect_size')} px, {meta.get('rect_span')} die edges); {REBUILD_HINT}")
        self.model_path = path
        self._with_camera = CameraCache()

    def crops(self, image: U8, profile: CalibrationProfile, boxes_xyxy: Sequence[Sequence[float]],
              die_cm: float = DEFAULT_DIE_CM) -> U8:
        """The model's input crops for these dice (the kind it was trained on)."""
        if self.crop_kind == "rectified":
            return np.stack([rectified_crop(image, profile, b, die_cm) for b in boxes_xyxy])
        return np.stack([context_crop(image, b, self.crop_context) for b in boxes_xyxy])

    def predict(self, crops: Sequence[U8] | U8, features: F32) -> F32:
        """``N x len(POSE_CLASSES)`` probabilities for crops cut by :meth:`crops` and their features."""
        feats = np.asarray(features, dtype=np.float32).reshape(-1, N_FEATURES)
        if len(feats) == 0:
            return np.zeros((0, len(POSE_CLASSES)), dtype=np.float32)
        logits = np.asarray(self._session.run(None, {"crop": crops_to_tensor(crops), "features": feats})[0], dtype=np.float32)
        z = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)

    def combine(self, first: DieValidity, second: DieValidity, rolled_half: str | None = None) -> DieValidity:
        """One verdict from two looks at the same die (the pose probabilities averaged); the place and
        half are the first look's."""
        p = np.asarray((first.pose_p + second.pose_p) / 2, dtype=np.float32)
        reaches = [r for r in (first.reach, second.reach) if r is not None]
        reach = min(reaches) if reaches else None  # a surface within reach of either look may be leant on
        reason, valid_p = decide(p, first.half, rolled_half, self.valid_threshold, reach)
        return DieValidity(reason, valid_p, p, first.half, first.board_xy, reach)

    def judge(self, image: U8, profile: CalibrationProfile, boxes_xyxy: Sequence[Sequence[float]],
              point_counts: Sequence[int] | None = None, rolled_half: str | None = None,
              die_cm: float = DEFAULT_DIE_CM) -> list[DieValidity]:
        """Judge every die of one frame (all dice's boxes in ``boxes_xyxy``), e.g. once the tracker says they rest."""
        arr = colour_frame(image)
        if rolled_half not in (None, "left", "right"):
            raise VisionError(f"rolled_half must be 'left', 'right' or None, got {rolled_half!r}")
        if not len(boxes_xyxy):
            return []
        profile = self._with_camera(profile)
        centres = checker_centres(profile.dims, point_counts)
        feats = np.stack([die_features(profile, b, boxes_xyxy, point_counts, die_cm, centres) for b in boxes_xyxy])
        crops = self.crops(arr, profile, boxes_xyxy, die_cm)
        probs = self.predict(crops, feats)
        out = []
        for b, p, f in zip(boxes_xyxy, probs, feats, strict=True):
            xy = die_board_xy(profile, b, die_cm)
            half = half_of(profile, xy)
            reach = support_reach(f)
            reason, valid_p = decide(p, half, rolled_half, self.valid_threshold, reach)
            out.append(DieValidity(reason, valid_p, p, half, xy, reach))
        return out
