"""Finding the playing surface's 8 corners with a small trained keypoint network (ONNX).

The classical detector (:mod:`calibration.detect`) looks for the board's outline among edge
contours; on simulator frames (hands across the board, rails of the table's colour, cameras from
either side) it found the 8 corners within 15 px in under a fifth of the frames (docs/vision.md).
This network looks at the whole frame instead and puts one heatmap per corner (decision 0728):

- the frame is scaled so that its longer side is :data:`INPUT_LONG` pixels, normalised and padded
  to a multiple of :data:`PAD_TO` (:func:`prepare`, shared with ``models/train_board_corners.py``);
- the network (an encoder-decoder with a whole-frame context branch, trained on simulator frames
  with their ``board.corners8_px`` labels) returns three heatmaps at :data:`STRIDE` input pixels per
  cell (:data:`CHANNELS`): the four corners at the board's ends, the four at the bar, and the
  bear-off tray. Kinds a small window can tell apart: which corner is which is not, since a board
  seen from the far seat looks like one seen from the near seat turned round;
- each heatmap's modes (:func:`peaks`) are its points, the softmax-weighted mean of the cells
  around each peak;
- :func:`assign` puts the 8 corners in the issue-5 order (the right half's near-right, near-left,
  far-left, far-right, then the left half's): the inner corners pair across the bar, the halves lie
  on either side of it, the right half is the tray's ("right" as seen from the near seat), and a
  camera above the board shows each half's corners turning one way only.

A board with trays at both ends (or none) leaves the near side unknown: it is then taken to be
the lower one in the image, as the classical detector does.

    from calibration.corner_model import CornerModel
    found = CornerModel().find(image_bgr)      # CornerFinding
    found.corners                             # 8 x 2 pixels, issue-5 order
    found.confidence                          # 8 values, about 0..1
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import F64, check_quad
from calibration.errors import CornerError

INPUT_LONG = 384
"""The frame's longer side in the network's input, pixels."""
PAD_TO = 32
"""The input's sides are padded to a multiple of this (the encoder halves them five times)."""
STRIDE = 4
"""Input pixels per heatmap cell."""
MEAN, STD = 0.5, 0.25
"""Input normalisation: ``(pixel / 255 - MEAN) / STD``, BGR order."""
N_CORNERS = 8
CHANNELS = ("outer", "inner", "tray")
"""The heatmaps: the 4 corners at the board's ends, the 4 at the bar, the bear-off tray's centre."""
PEAK_RADIUS = 2
"""Cells on each side of a heatmap's peak that a point is averaged over (a 5 x 5 window)."""
SUPPRESS_RADIUS = 3
"""Cells cleared around a found mode before the next is looked for."""
MIN_CONFIDENCE = 0.3
"""A corner whose mode holds less than this share of its due (a quarter of its heatmap) is not
believed (:func:`calibration.detect.find_board_corners` then falls back on the classical detector)."""
TRAY_MIN = 0.3
"""A tray mode holding less than this is no tray (a board with trays at both ends, or none)."""

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "board_corners.onnx"
REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/train_board_corners.py "
                "(see models/board_corners.md), or give the corners by hand with --corners X1,Y1,...")

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

def input_geometry(width: int, height: int) -> tuple[float, int, int, int, int]:
    """(scale, scaled width, scaled height, padded width, padded height) of the network input."""
    if width <= 0 or height <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    scale = INPUT_LONG / max(width, height)
    sw, sh = max(1, round(width * scale)), max(1, round(height * scale))
    return scale, sw, sh, -(-sw // PAD_TO) * PAD_TO, -(-sh // PAD_TO) * PAD_TO


def normalise(small: U8, pw: int, ph: int) -> F32:
    """A scaled BGR image -> ``1 x 3 x ph x pw`` float32, zero-padded right and bottom after normalising."""
    sh, sw = small.shape[:2]
    x = np.zeros((1, 3, ph, pw), dtype=np.float32)
    x[0, :, :sh, :sw] = (np.asarray(small, dtype=np.float32).transpose(2, 0, 1) / 255.0 - MEAN) / STD
    return x


def prepare(image: U8) -> tuple[F32, float]:
    """A BGR frame -> (network input, scale from frame pixels to input pixels)."""
    h, w = image.shape[:2]
    scale, sw, sh, pw, ph = input_geometry(w, h)
    small = np.asarray(cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return normalise(small, pw, ph), scale


def to_cells(xy_input: npt.ArrayLike) -> F64:
    """Input-pixel coordinates (pixel centres at integers) -> heatmap cell coordinates (cell centres at integers)."""
    return np.asarray((np.asarray(xy_input, dtype=np.float64) + 0.5) / STRIDE - 0.5, dtype=np.float64)


def from_cells(uv: npt.ArrayLike) -> F64:
    """The inverse of :func:`to_cells`."""
    return np.asarray((np.asarray(uv, dtype=np.float64) + 0.5) * STRIDE - 0.5, dtype=np.float64)


def peaks(logits: npt.ArrayLike, count: int) -> tuple[F64, F64]:
    """The ``count`` strongest modes of one heatmap (logits ``H x W``): (points ``count x 2`` in cell
    coordinates, masses ``count``).

    The heatmap is a softmax over its cells; each mode is the probability-weighted mean of the
    :data:`PEAK_RADIUS` window around the highest cell left, and its mass the probability there
    (``count`` equal modes hold ``1 / count`` each); the window is then cleared, with a margin of
    :data:`SUPPRESS_RADIUS` cells, before the next is looked for."""
    z = np.asarray(logits, dtype=np.float64)
    h, w = z.shape
    p = np.exp(z - z.max())
    p /= p.sum()
    left = p.copy()
    out = np.zeros((count, 2))
    mass = np.zeros(count)
    r, s = PEAK_RADIUS, SUPPRESS_RADIUS
    for k in range(count):
        i, j = np.unravel_index(int(np.argmax(left)), (h, w))
        i0, i1, j0, j1 = max(0, i - r), min(h, i + r + 1), max(0, j - r), min(w, j + r + 1)
        win = p[i0:i1, j0:j1]
        m = float(win.sum())
        ys, xs = np.mgrid[i0:i1, j0:j1]
        out[k] = (float((win * xs).sum()) / m, float((win * ys).sum()) / m)
        mass[k] = m
        left[max(0, i - s):i + s + 1, max(0, j - s):j + s + 1] = 0.0
    return out, mass


def _half_loop(first: F64, second: F64, outer_first: bool) -> F64 | None:
    """The one loop of a half's two outer and two inner corners in the issue-5 order that a camera
    can show (:func:`calibration.board.check_quad`: convex, turning the unmirrored way): outer,
    inner, inner, outer for the right half (``outer_first``), inner, outer, outer, inner for the
    left half; None when there is none."""
    a, b = (first, second) if outer_first else (second, first)  # a: the kind that comes first
    for i0 in range(2):
        for j0 in range(2):
            loop = np.array([a[i0], b[j0], b[1 - j0], a[1 - i0]])
            try:
                check_quad(loop, "a half's corners")
            except CornerError:
                continue
            return loop
    return None


def assign(outer: F64, inner: F64, tray: F64 | None) -> F64:
    """The 8 corners in the issue-5 order from the 4 outer corners (at the board's ends), the 4 inner
    ones (at the bar) and, when seen, the bear-off tray (the right end as seen from the near seat).

    The inner corners pair up across the bar (the closest pairing); the line through the pairs'
    midpoints splits the board into its halves; the half on the tray's side is the right half. Each
    half's corners then go round in the one order a camera above the board can show them
    (:func:`calibration.board.check_quad`). Without a tray the near side is taken to be the lower one in the image
    (the camera on the near seat's side). Raises ``ValueError`` when the points do not make a board."""
    pairings = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
    best = min(pairings, key=lambda pr: sum(float(np.linalg.norm(inner[i] - inner[j])) for i, j in pr))
    mids = [(inner[i] + inner[j]) / 2 for i, j in best]
    d = mids[1] - mids[0]
    if float(np.hypot(*d)) < 1e-6:
        raise ValueError("the inner corners do not span the bar")
    n = np.array([-d[1], d[0]])

    def side(pt: F64) -> float:
        return float(np.dot(pt - mids[0], n))

    s_in = np.array([side(q) for q in inner])
    s_out = np.array([side(q) for q in outer])
    if (s_in > 0).sum() != 2 or (s_out > 0).sum() != 2:
        raise ValueError("the corners do not fall two and two on each side of the bar")
    options = []
    for right_sign in (1.0, -1.0):
        r_in, l_in = inner[s_in * right_sign > 0], inner[s_in * right_sign < 0]
        r_out, l_out = outer[s_out * right_sign > 0], outer[s_out * right_sign < 0]
        right = _half_loop(r_out, r_in, outer_first=True)
        left = _half_loop(l_out, l_in, outer_first=False)
        if right is not None and left is not None:
            options.append((right_sign, np.vstack([right, left])))
    if not options:
        raise ValueError("the corners do not make two quadrilaterals")
    if tray is not None:
        want = 1.0 if side(tray) > 0 else -1.0
        for sign, corners in options:
            if sign == want:
                return corners
    # no tray (or none consistent with it): the near side lower in the image
    def near_low(c: F64) -> float:
        near = c[[0, 1, 4, 5], 1].mean()
        far = c[[2, 3, 6, 7], 1].mean()
        return float(near - far)

    return max(options, key=lambda o: near_low(o[1]))[1]


@dataclass(frozen=True)
class CornerFinding:
    corners: F64
    """``8 x 2`` frame pixels, issue-5 order (the right half's four, then the left half's)."""
    confidence: F64
    """Per corner, the share of its due (a quarter of its heatmap) its mode holds (about 0..1)."""
    tray_px: tuple[float, float] | None
    """Where the bear-off tray was seen (frame pixels), None when not (the near side was then
    taken to be the lower one)."""


class CornerModel:
    """The trained corner network (ONNX Runtime, CPU). A missing model raises
    :class:`vision.errors.ModelMissingError` naming the file and how to rebuild it."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        from vision.onnx import load_session

        self.model_path = Path(model_path)
        self._session = load_session(self.model_path, what="board corner model", rebuild_hint=REBUILD_HINT,
                                     threads=threads)

    def heatmaps(self, image: U8) -> tuple[F32, float]:
        """The 8 heatmap logits of a BGR frame and the frame-to-input scale."""
        x, scale = prepare(image)
        out = np.asarray(self._session.run(None, {"image": x})[0], dtype=np.float32)
        return out[0], scale

    def find(self, image: U8) -> CornerFinding:
        """The 8 corners of the playing surface in a BGR frame, with their confidences; ``ValueError``
        when the network's points do not make a board."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"need a colour image (H x W x 3), got shape {image.shape}")
        logits, scale = self.heatmaps(image)

        def to_frame(uv: F64) -> F64:
            return np.asarray((from_cells(uv) + 0.5) / scale - 0.5, dtype=np.float64)

        outer, m_out = peaks(logits[0], 4)
        inner, m_in = peaks(logits[1], 4)
        tray, m_tray = peaks(logits[2], 1)
        tray_px = to_frame(tray)[0] if m_tray[0] >= TRAY_MIN else None
        pts = to_frame(np.vstack([outer, inner]))
        corners = assign(pts[:4], pts[4:], tray_px)
        # each corner's confidence: the mass of the mode it came from (assign only reorders the points)
        conf = np.zeros(N_CORNERS)
        masses = np.concatenate([m_out, m_in]) * 4.0
        for k, c in enumerate(corners):
            conf[k] = masses[int(np.argmin(np.linalg.norm(pts - c, axis=1)))]
        return CornerFinding(corners, conf, None if tray_px is None else (float(tray_px[0]), float(tray_px[1])))


__all__ = ["CHANNELS", "CornerFinding", "CornerModel", "assign", "from_cells", "input_geometry", "normalise",
           "peaks", "prepare", "to_cells"]
