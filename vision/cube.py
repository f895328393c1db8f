"""Finding the doubling cube and reading its face with a small fully convolutional ONNX model.

The cube can only be in a few places (issue 5 zones): on the bar (``centre``), on the table in
front of the near or the far player's side of the board (``near``, ``far``), on the playing
surface (``board``; in practice near the middle line, where a take is set down), or ``absent``.
Each place is cut out of the frame as a rectified top-down *window* through the profile's
homographies (:func:`cube_windows`); far-side windows are turned 180 degrees so the board is always
at the top. The model (``models/cube_reader.onnx``, trained by ``models/train_cube.py``) is fully
convolutional: per window it returns the probability that the cube is in it (the maximum over a
presence map) and the face showing (2..64), pooled where the presence map peaks. A centred cube
shows 64, which the table-state schema reads as "centred at 1".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import F64, homography_for
from calibration.profile import CalibrationProfile
from vision.checkers import region_homographies
from vision.images import network_input
from vision.observation import CUBE_FACES, CUBE_ZONES, CubeObservation
from vision.onnx import MODELS_DIR, load_session
from vision.unchanged import KeptReadings

PX_PER_POINT = 56.0
"""Window resolution: pixels per point width."""
WIDE_W, WIDE_H = 336, 144
"""Size of the near, far and board windows (pixels)."""
CENTRE_W, CENTRE_H = 144, 264
"""Size of the centre (bar) window: 2.4 point widths across the bar, 4.4 along it (a centred cube
sits up to about 6 cm from the middle line in the simulator's frames)."""
CENTRE_HALF_LENGTH = 2.2
"""Half the centre window's length along the bar, in point widths."""
WINDOWS = ("centre", "near", "far", "board-right", "board-left")
WINDOW_ZONE = {"centre": "centre", "near": "near", "far": "far", "board-right": "board", "board-left": "board"}
FACES = (2, 4, 8, 16, 32, 64)
"""Faces the model reads (the face showing; 64 in the centre means the cube is at 1)."""

FACE_CROP = 64
"""Side of the face reader's square crop (pixels) for a new face model; a committed model's own input
size is used to read with it (:class:`CubeReader`). 64 keeps the frame's own resolution where a point
is up to 64 pixels wide (1280x720 frames: 45-60); the session-1..16 model read 40-pixel crops."""
FACE_CROP_POINTS = 1.0
"""The face crop spans this many point widths of the board around the cube's centre."""
FACE_TURNS = 2
"""The face crop is read turned by 0 .. FACE_TURNS - 1 quarter turns and the logits averaged (the model
is trained on crops turned at random). Session 13's 40-pixel model, held-out seed 502, 236 crops:
90.3% of faces with one look, 93.2% with four. Session 27's 64-pixel model, the 778 cube crops of
seed 502: 98.07% with one, 98.33% with two, 98.20% with four (two: half the time of four)."""
MAP_STRIDE = 8
"""Window pixels per presence-map cell."""
PRESENCE_BIAS: dict[str, float] = {"centre": 1.0, "near": 0.75, "far": 0.5, "board-right": -0.75, "board-left": -1.0}
"""Added per window to the window model's presence logits before the sigmoid (windows of other
sizes and places see more or fewer look-alikes); chosen on frames the models did not learn from
with ``python models/board_data.py calibrate-presence`` (session 27, with the 64-pixel face model:
the 600 frames of data-gen/val-cal, seed 535, value and zone right 89.0% there, 87.8% with one bias
for all windows; before, chosen on 250 frames of data-gen/validity-train2 with the session-2 models:
centre 0.5, near -0.75, far 0, board -0.75)."""

CUBE_SURE = 0.95
"""Cube presence in a rail or bar window above which a die box centred on the cube's face is the cube.
The cube reader takes a die by the bar or a rail for the cube now and then, less surely: chosen on
the calibration render (seed 535, training styles; dice lost at presence 0.61, 0.80, 0.94; 27 of its
45 cubes-as-dice above 0.95)."""
CUBE_CENTRED = 0.35
"""A die box is centred on the cube's face when its centre is this share of its longer side from it
(:func:`centred_on`)."""


DEFAULT_MODEL = MODELS_DIR / "cube_reader.onnx"
DEFAULT_FACE_MODEL = MODELS_DIR / "cube_face.onnx"
REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/board_data.py cube "
                "DATA_DIR... && python models/train_cube.py (see models/cube.md)")

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


def _rect(x0: float, x1: float, y0: float, y1: float, turn: bool) -> F64:
    """Corners top-left, top-right, bottom-right, bottom-left of a window; with ``turn`` the window
    is seen from the far side (turned 180 degrees) so the board is at its top."""
    if not turn:
        return np.array([[x0, y1], [x1, y1], [x1, y0], [x0, y0]], dtype=np.float64)
    return np.array([[x1, y0], [x0, y0], [x0, y1], [x1, y1]], dtype=np.float64)


def window_corners(profile: CalibrationProfile) -> dict[str, tuple[F64, str]]:
    """Board-plane corners (cm) of every window and the homography it uses."""
    d = profile.dims
    pw, q, b = d.point_width, d.play_depth / 2, d.bar_width / 2
    out: dict[str, tuple[F64, str]] = {}
    out["centre"] = (_rect(-1.2 * pw, 1.2 * pw, -CENTRE_HALF_LENGTH * pw, CENTRE_HALF_LENGTH * pw, False), "bar")
    out["near"] = (_rect(-3 * pw, 3 * pw, -q - 2.4 * pw, -q + 0.17 * pw, False), "whole")
    out["far"] = (_rect(-3 * pw, 3 * pw, q - 0.17 * pw, q + 2.4 * pw, True), "whole")
    out["board-right"] = (_rect(b + 3 * pw - 3 * pw * 1.03, b + 3 * pw + 3 * pw * 1.03, -1.3 * pw, 1.3 * pw, False),
                          "right")
    out["board-left"] = (_rect(-b - 3 * pw - 3 * pw * 1.03, -b - 3 * pw + 3 * pw * 1.03, -1.3 * pw, 1.3 * pw, False),
                         "left")
    return out


def window_transforms(profile: CalibrationProfile) -> dict[str, F64]:
    """Per window, the 3x3 map window pixels -> image pixels (for ``cv2.WARP_INVERSE_MAP``)."""
    hs = dict(region_homographies(profile))
    c = profile.corners
    outer = np.array([c[0], c[5], c[6], c[3]]) if len(c) == 8 else c
    hs["whole"] = homography_for(profile.dims, outer, None)
    out = {}
    for name, (corners, which) in window_corners(profile).items():
        w, h = (CENTRE_W, CENTRE_H) if name == "centre" else (WIDE_W, WIDE_H)
        img = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), hs[which]).reshape(-1, 2).astype(np.float32)
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
        out[name] = np.asarray(cv2.getPerspectiveTransform(dst, img), dtype=np.float64)
    return out


def cut_windows(image: U8, transforms: dict[str, F64]) -> dict[str, U8]:
    """The BGR windows of a frame (border pixels replicated)."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"need a colour image (H x W x 3), got shape {image.shape}")
    out = {}
    for name in WINDOWS:
        w, h = (CENTRE_W, CENTRE_H) if name == "centre" else (WIDE_W, WIDE_H)
        out[name] = np.asarray(cv2.warpPerspective(image, transforms[name], (w, h),
                                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                                   borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)
    return out


def local_point_width_px(profile: CalibrationProfile, centre_px: tuple[float, float]) -> float:
    """How many image pixels one point width of the board spans around an image position."""
    from vision.geometry import image_to_board

    xy = image_to_board(profile, [centre_px])[0]
    pw = profile.dims.point_width
    h = profile.homographies["right" if xy[0] >= 0 else "left"]
    pts = cv2.perspectiveTransform(np.array([[[xy[0] - pw / 2, xy[1]]], [[xy[0] + pw / 2, xy[1]]],
                                             [[xy[0], xy[1] - pw / 2]], [[xy[0], xy[1] + pw / 2]]]), h)
    pts = pts.reshape(4, 2)
    return max(float(np.linalg.norm(pts[1] - pts[0])), float(np.linalg.norm(pts[3] - pts[2])), 1.0)


def crop_face(image: U8, profile: CalibrationProfile, centre_px: tuple[float, float], size: int = FACE_CROP) -> U8:
    """A ``size`` square of the frame around the cube's image centre, FACE_CROP_POINTS point
    widths across (the same crop for training, from the label's centre, and for reading, from
    the presence map's peak)."""
    side = FACE_CROP_POINTS * local_point_width_px(profile, centre_px)
    scale = size / side
    cx, cy = centre_px
    m = np.array([[scale, 0.0, size / 2 - scale * cx], [0.0, scale, size / 2 - scale * cy]])
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    return np.asarray(cv2.warpAffine(image, m, (size, size), flags=interp,
                                     borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


def to_tensor(windows: U8) -> F32:
    """``N x 3 x H x W`` float32: RGB standardised per window and channel."""
    return network_input(windows, axes=(1, 2))


def sigmoid(x: F32) -> F32:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float32)


ZONE_FACE_COUNTS = {
    "centre": (0, 0, 12, 12, 0, 897),
    "near": (84, 93, 94, 120, 69, 3),
    "far": (63, 75, 120, 111, 72, 0),
    "board": (21, 36, 3, 42, 30, 0),
}
"""How often each face (``FACES`` order) shows in each zone in the training frames (board-train
and validity-train, 1,957 cubes; the styles held out excluded). A centred cube shows 64 (the cube
at 1), an owned one almost never does: the face reading is weighed with these (plus one each)."""
FACE_TRAIN_COUNTS = (2871, 2973, 2712, 2763, 2805, 13773)
"""The faces of the face model's training crops (``FACES`` order): its outputs carry this base rate,
which the zone prior replaces (session 27's 27,897 crops; the session-16 model's: 588, 732, 764, 992,
620, 3324)."""


def face_prior(zone: str) -> npt.NDArray[np.float64]:
    """P(face | zone) / P(face in the face model's training crops), for weighing a face reading."""
    prior = np.asarray(ZONE_FACE_COUNTS[zone], dtype=np.float64) + 1.0
    base = np.asarray(FACE_TRAIN_COUNTS, dtype=np.float64) + 1.0
    return np.asarray((prior / prior.sum()) / (base / base.sum()), dtype=np.float64)


def cube_observation(presence: dict[str, float], faces: dict[str, npt.NDArray[np.float64]],
                     zone_prior: bool = True) -> CubeObservation:
    """Combine the windows' presence probabilities and face distributions into zone and value
    probabilities (one cube at most: exactly one window holds it, or none). With ``zone_prior``
    each window's face distribution is weighed by how often each face shows in its zone
    (:data:`ZONE_FACE_COUNTS`): a centred cube needs strong evidence to read other than 64."""
    if zone_prior:
        faces = {n: _weigh(f, face_prior(WINDOW_ZONE[n])) for n, f in faces.items()}
    names = list(WINDOWS)
    p = np.clip(np.array([presence[n] for n in names], dtype=np.float64), 1e-6, 1 - 1e-6)
    odds = p / (1 - p)
    # P(only window i) ~ odds_i; P(none) ~ 1
    weights = np.append(odds, 1.0)
    weights /= weights.sum()
    zone_p = np.zeros(len(CUBE_ZONES))
    for i, n in enumerate(names):
        zone_p[CUBE_ZONES.index(WINDOW_ZONE[n])] += weights[i]
    zone_p[CUBE_ZONES.index("absent")] += weights[-1]
    value = np.zeros(len(CUBE_FACES))
    for i, n in enumerate(names):
        for k, face in enumerate(FACES):
            value[CUBE_FACES.index(face)] += weights[i] * faces[n][k]
    value += weights[-1] / len(FACES) * np.isin(np.array(CUBE_FACES), FACES)
    value = np.maximum(value, 1e-9)
    return CubeObservation(value / value.sum(), zone_p / zone_p.sum())


def _weigh(p: npt.NDArray[np.float64], w: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    q = np.asarray(p, dtype=np.float64) * w
    return np.asarray(q / max(float(q.sum()), 1e-300), dtype=np.float64)


@dataclass(frozen=True)
class CubeWindows:
    presence: dict[str, float]
    faces: dict[str, npt.NDArray[np.float64]]
    peaks: dict[str, tuple[float, float]] | None = None
    """Per window, where its presence map peaks (window pixels), when the model gives the map."""
    zone_prior: bool = True
    centre_px: tuple[float, float] | None = None
    """Where the face model read the cube (image pixels): the likeliest window's peak, None without
    the face model or the map."""

    @property
    def likeliest(self) -> str:
        """The window most likely to hold the cube (the one whose face is read and whose peak is
        :attr:`centre_px`)."""
        return max(self.presence, key=self.presence.__getitem__)

    def observation(self) -> CubeObservation:
        return cube_observation(self.presence, self.faces, self.zone_prior)


HAND_NEAR_FACE = 0.5
"""A hand within this many point widths of where the face was read (the cube is about half a point
wide) hides or holds the cube: its face is not read (:func:`face_under_hand`)."""


def face_under_hand(windows: CubeWindows, profile: CalibrationProfile, hand_mask: U8, mask_scale: float) -> CubeWindows:
    """``windows`` with the likeliest window's face unknown (uniform) when a hand in ``hand_mask``
    (0/255 at ``mask_scale`` of the frame's size, as the live pipeline's hand cue keeps it) comes within
    :data:`HAND_NEAR_FACE` point widths of where the face was read. A finger on the top face or a cube
    held at an angle shows a side face's digits: the demo's first double (session 27), the offered
    cube under the doubler's fingers read 64 with the 64-pixel face model, 0.94 sure, three frames
    running, and the double was alerted as offered at the wrong level. Presence is kept: the cube is
    there, its value is what the hand hides (decision 0705)."""
    if windows.centre_px is None or not np.any(hand_mask):
        return windows
    u, v = windows.centre_px
    r = HAND_NEAR_FACE * local_point_width_px(profile, (u, v)) * mask_scale
    h, w = hand_mask.shape[:2]
    cu, cv_ = u * mask_scale, v * mask_scale
    x0, x1 = max(0, int(cu - r)), min(w, int(np.ceil(cu + r)) + 1)
    y0, y1 = max(0, int(cv_ - r)), min(h, int(np.ceil(cv_ + r)) + 1)
    if x1 <= x0 or y1 <= y0:
        return windows
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = (xx - cu) ** 2 + (yy - cv_) ** 2 <= r * r
    if not np.any(hand_mask[y0:y1, x0:x1][disc] > 0):
        return windows
    faces = dict(windows.faces)
    faces[windows.likeliest] = np.full(len(FACES), 1.0 / len(FACES))
    return CubeWindows(windows.presence, faces, windows.peaks, windows.zone_prior, windows.centre_px)


def _softmax(z: F32) -> npt.NDArray[np.float64]:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return np.asarray(e / e.sum(axis=-1, keepdims=True), dtype=np.float64)


def centred_on(box: Sequence[float], point_px: tuple[float, float]) -> bool:
    """Whether the die box ``x0, y0, x1, y1`` is centred on ``point_px`` (:data:`CUBE_CENTRED`)."""
    return math.hypot((box[0] + box[2]) / 2 - point_px[0], (box[1] + box[3]) / 2 - point_px[1]) <= \
        CUBE_CENTRED * max(box[2] - box[0], box[3] - box[1])


def peak_px(windows: CubeWindows, name: str, transforms: dict[str, F64]) -> tuple[float, float] | None:
    """Where window ``name``'s presence map peaks, in image pixels (None without the map)."""
    if windows.peaks is None or name not in windows.peaks:
        return None
    u, v = windows.peaks[name]
    p = cv2.perspectiveTransform(np.array([[[u, v]]], dtype=np.float64), transforms[name]).reshape(2)
    return float(p[0]), float(p[1])


def dice_on_the_board(windows: CubeWindows, transforms: dict[str, F64], dice: Sequence[Sequence[float]]) -> CubeWindows:
    """``windows`` without the playing-surface windows whose cube is a die: while a bar or rail window
    surely holds the cube (:data:`CUBE_SURE`; there is one cube), a board window that is likelier still
    and whose presence peaks on a located die box (:func:`centred_on`) has found that die (presence 0).
    Seed 352 (held out, navy-leather, 55 degrees), frame 117: a 4 at rest on the board read as the cube
    (presence 0.997, face 64) beside the centred cube (0.987); the cube "moved" to the board after the
    roll, a void double (decision 0730). A cube really offered on the board has left the bar: the bar
    window does not hold it then, and a die box on it changes nothing."""
    if windows.peaks is None or not dice:
        return windows
    presence = dict(windows.presence)
    elsewhere = max((p for n, p in presence.items() if not n.startswith("board")), default=0.0)
    if elsewhere < CUBE_SURE:
        return windows
    while True:
        best = max(presence, key=presence.__getitem__)
        if not best.startswith("board"):  # (a bar or rail window holds at least CUBE_SURE: the loop ends)
            break
        at = peak_px(windows, best, transforms)
        if at is None or not any(centred_on(b, at) for b in dice):
            break
        presence[best] = 0.0
    if presence == windows.presence:
        return windows
    return CubeWindows(presence, windows.faces, windows.peaks, windows.zone_prior, windows.centre_px)


class CubeReader:
    """The cube models (ONNX Runtime, CPU): presence per window, and the face showing, read by the
    face model from a crop around the presence map's peak (``face_model=None``: from the window
    model's own face maps)."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1,
                 face_model: str | Path | None = DEFAULT_FACE_MODEL,
                 presence_bias: float | dict[str, float] | None = None, zone_prior: bool = True) -> None:
        """``presence_bias``: one number for every window or one per window (default
        :data:`PRESENCE_BIAS`)."""
        bias = PRESENCE_BIAS if presence_bias is None else presence_bias
        self.presence_bias = bias if isinstance(bias, dict) else {n: float(bias) for n in WINDOWS}
        missing = [n for n in WINDOWS if n not in self.presence_bias]
        if missing:
            raise ValueError(f"presence_bias needs a value for the windows {', '.join(missing)}")
        self.zone_prior = zone_prior
        self._session: Any = load_session(model_path, what="cube model", rebuild_hint=REBUILD_HINT, threads=threads)
        self._face: Any = None if face_model is None else load_session(face_model, what="cube face model", rebuild_hint=REBUILD_HINT, threads=threads)
        self._has_map = len(self._session.get_outputs()) >= 3
        self.face_crop = FACE_CROP
        """Side of the crops the face model reads: its input's, when the model fixes it."""
        if self._face is not None:
            side = self._face.get_inputs()[0].shape[-1]
            if isinstance(side, int) and side > 0:
                self.face_crop = side
        self.model_path = Path(model_path)
        self.kept: KeptReadings | None = None
        """When set (:meth:`vision.board_reader.BoardReader.keep_unchanged`; off by default in the live
        pipeline), a window, or the face crop, whose pixels are as when last read keeps that reading
        (:mod:`vision.unchanged`)."""

    def read_windows(self, windows: dict[str, U8]) -> CubeWindows:
        presence: dict[str, float] = {}
        faces: dict[str, npt.NDArray[np.float64]] = {}
        peaks: dict[str, tuple[float, float]] = {}
        kept = self.kept
        wide = [n for n in WINDOWS if n != "centre"]
        for group in (["centre"], wide):
            todo = [n for n in group if kept is None or kept.changed(n, windows[n])]
            if todo:
                batch = np.stack([windows[n] for n in todo])
                out = self._session.run(None, {"windows": to_tensor(batch)})
                bias = np.array([self.presence_bias[n] for n in todo], dtype=np.float32)
                pr = sigmoid(np.asarray(out[0], dtype=np.float32).reshape(-1) + bias)
                fz = _softmax(np.asarray(out[1], dtype=np.float32))
                for i, n in enumerate(todo):
                    presence[n] = float(pr[i])
                    faces[n] = fz[i]
                    if self._has_map:
                        pmap = np.asarray(out[2], dtype=np.float32)[i, 0]
                        r, c = np.unravel_index(int(np.argmax(pmap)), pmap.shape)
                        peaks[n] = ((c + 0.5) * MAP_STRIDE, (r + 0.5) * MAP_STRIDE)
                    if kept is not None:
                        kept.keep(n, windows[n], (presence[n], faces[n], peaks.get(n)))
            for n in group:
                if n not in todo:
                    presence[n], faces[n], peak = kept.output(n)  # type: ignore[union-attr]
                    if peak is not None:
                        peaks[n] = peak
        # (in the windows' order, whichever were read: the likeliest window is the first of the highest)
        presence = {n: presence[n] for n in WINDOWS}
        return CubeWindows(presence, faces, peaks if self._has_map else None, self.zone_prior)

    def read_face(self, crop: U8) -> npt.NDArray[np.float64]:
        """P(face) over :data:`FACES` for a :func:`crop_face` crop of side :attr:`face_crop`, read in
        :data:`FACE_TURNS` quarter turns (the model is trained on crops turned at random), logits averaged."""
        if self._face is None:
            raise ValueError("this cube reader has no face model (face_model=None)")
        if crop.shape != (self.face_crop, self.face_crop, 3):
            raise ValueError(f"the face model reads {self.face_crop} x {self.face_crop} colour crops, got {crop.shape}")
        if self.kept is not None and not self.kept.changed("face", crop):
            kept: npt.NDArray[np.float64] = self.kept.output("face")
            return kept
        turns = to_tensor(np.stack([np.rot90(crop, k) for k in range(FACE_TURNS)]))
        (logits,) = self._face.run(None, {"crops": turns})
        probs: npt.NDArray[np.float64] = _softmax(np.asarray(logits, dtype=np.float32).mean(axis=0, keepdims=True))[0]
        if self.kept is not None:
            self.kept.keep("face", crop, probs)
        return probs

    def read(self, image: U8, profile: CalibrationProfile, transforms: dict[str, F64] | None = None) -> CubeObservation:
        """The cube's zone and value probabilities in a frame seen through ``profile``."""
        tf = transforms if transforms is not None else window_transforms(profile)
        return self.read_full(image, profile, tf).observation()

    def read_full(self, image: U8, profile: CalibrationProfile, transforms: dict[str, F64],
                  dice: Sequence[Sequence[float]] | None = None) -> CubeWindows:
        """Windows, presence, and the face of the likeliest window read by the face model. ``dice``: the
        located dice boxes (image pixels), when known: a board window whose cube is one of them is
        dropped first (:func:`dice_on_the_board`)."""
        res = self.read_windows(cut_windows(image, transforms))
        if dice:
            res = dice_on_the_board(res, transforms, dice)
        if self._face is None or res.peaks is None:
            return res
        best = res.likeliest
        at = peak_px(res, best, transforms)
        h, w = image.shape[:2]
        if at is None or not (0 <= at[0] < w and 0 <= at[1] < h):
            return res
        crop = crop_face(image, profile, at, self.face_crop)
        faces = dict(res.faces)
        faces[best] = self.read_face(crop)
        return CubeWindows(res.presence, faces, res.peaks, self.zone_prior, at)
