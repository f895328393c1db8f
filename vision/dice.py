"""Reading a die's top-face value from an image crop with a small ONNX classifier.

The crop convention is shared with the training script (``models/train_die_reader.py`` imports
:func:`crop_die` and :func:`to_tensor`), so training and inference see identical pixels:

1. the die's axis-aligned box (pixels) is made square around its centre, enlarged by
   :data:`CROP_MARGIN`, and cut out with a replicated border where it leaves the image;
2. the square is resized to :data:`CROP_SIZE` x :data:`CROP_SIZE`, converted BGR -> RGB,
   scaled to ``[0, 1]`` and standardised per crop (mean 0, unit standard deviation per image),
   which removes most of the white balance and exposure differences between cameras.

The model outputs 6 logits for the values 1..6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile
from vision.dice_validity import TOP_SPAN, CameraCache, top_face_crop
from vision.errors import ModelMissingError
from vision.images import network_input
from vision.onnx import MODELS_DIR, load_session

CROP_SIZE = 48
"""Side of the square network input, pixels."""
CROP_MARGIN = 0.15
"""Fraction of the box side added on every side before cropping."""

DEFAULT_MODEL = MODELS_DIR / "die_reader.onnx"
REBUILD_HINT = "rebuild it with: pip install -e '.[train]' && python models/train_die_reader.py"
CALIBRATED_MODEL = MODELS_DIR / "die_reader_calibrated.onnx"
"""The reader for calibrated frames: trained on crops turned to the vertical (``read(..., ups=...)``)."""
CALIBRATED_REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/train_die_reader.py "
                           "--out models/die_reader_calibrated.onnx (commands in models/die_reader.md)")

TOP_MODEL = MODELS_DIR / "die_reader_top.onnx"
"""The reader of top-face crops (``vision.dice_validity.top_face_crop``; decision 0711)."""
TOP_REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/train_die_reader.py --crop top "
                    "--out models/die_reader_top.onnx (commands in models/die_reader.md)")

FloatArray = npt.NDArray[np.float32]


def crop_axes(up: Sequence[float] | None) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """The image directions of a turned crop's x axis and down axis (:func:`crop_die` with ``up``);
    None for an upright crop (``up`` None or of no length)."""
    if up is None:
        return None
    ux, uy = float(up[0]), float(up[1])
    n = float(np.hypot(ux, uy))
    if n <= 1e-9:
        return None
    return np.array([-uy / n, ux / n]), np.array([-ux / n, -uy / n])


def crop_die(image: npt.NDArray[np.uint8], box_xyxy: Sequence[float],
             up: Sequence[float] | None = None, margin: float = CROP_MARGIN) -> npt.NDArray[np.uint8]:
    """Cut the square crop around a die's box (pixels ``x0, y0, x1, y1``), resized to CROP_SIZE.

    ``up``: an image direction (dx, dy) that should point up in the crop, e.g. the projection of the
    world's vertical at the die (:func:`up_directions`); the crop is then rotated about the box
    centre so that the die's top face lies above its visible sides. ``None``: an upright crop.
    ``margin``: box sides added on every side (the readers' :data:`CROP_MARGIN` by default)."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0):
        raise ValueError(f"die box {list(box_xyxy)} is empty: need x1 > x0 and y1 > y0")
    side = max(x1 - x0, y1 - y0) * (1.0 + 2.0 * margin)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    axes = crop_axes(up)
    if axes is not None:
        a = side / CROP_SIZE
        (ex, ey), (dx, dy) = axes  # the crop's x axis and y axis (down) in the image
        inv = np.array([[a * ex, a * dx, cx - a * CROP_SIZE / 2 * (ex + dx)],
                        [a * ey, a * dy, cy - a * CROP_SIZE / 2 * (ey + dy)]], dtype=np.float64)
        rot = cv2.warpAffine(image, inv, (CROP_SIZE, CROP_SIZE), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(rot, dtype=np.uint8)
    # An affine map from the square to the crop: sub-pixel exact and handles borders by replication.
    scale = CROP_SIZE / side
    m = np.array(
        [[scale, 0.0, CROP_SIZE / 2.0 - scale * cx], [0.0, scale, CROP_SIZE / 2.0 - scale * cy]],
        dtype=np.float64,
    )
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, m, (CROP_SIZE, CROP_SIZE), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(crop, dtype=np.uint8)


ASSUMED_FOCAL = 0.9
"""Focal length (times the image width) assumed when the profile has no intrinsics."""


def camera_from_homography(hmat: npt.ArrayLike, image_size: tuple[int, int],
                           focal: float = ASSUMED_FOCAL) -> npt.NDArray[np.float64]:
    """A 3 x 4 projection matrix (board cm -> pixels) consistent with a board-plane homography.

    The principal point is taken at the image centre, the pixels square and the focal length
    ``focal`` x the image width. Estimating the focal length from the homography itself (Zhang's
    orthogonality constraints) was tried and is ill-conditioned for steep views (on simulator frames
    the vertical's direction was off by 42 degrees at the 90th percentile for 65-80 degree
    elevations, against 19 with the fixed prior). Only the direction of the vertical is used."""
    h = np.asarray(hmat, dtype=np.float64).reshape(3, 3)
    w_img, h_img = image_size
    f = focal * w_img
    k = np.array([[f, 0.0, w_img / 2.0], [0.0, f, h_img / 2.0], [0.0, 0.0, 1.0]])
    m = np.linalg.inv(k) @ h
    lam = 1.0 / np.linalg.norm(m[:, 0])
    if m[2, 2] * lam < 0:  # the board must lie in front of the camera
        lam = -lam
    r1, r2, t = m[:, 0] * lam, m[:, 1] * lam, m[:, 2] * lam
    r2 = r2 / np.linalg.norm(r2)
    r3 = np.cross(r1, r2)
    rmat = np.column_stack([r1, r2, r3])
    if (-(rmat.T @ t))[2] < 0:  # the camera must be above the board (z up)
        rmat[:, 2] = -r3
    return np.asarray(k @ np.column_stack([rmat, t]), dtype=np.float64)


def up_directions(profile: CalibrationProfile, boxes_xyxy: Sequence[Sequence[float]],
                  die_cm: float = 1.6) -> npt.NDArray[np.float64]:
    """Unit image directions ``N x 2`` of the world's vertical at each die (its box centre).

    With the profile's pose (intrinsics given) the projection is exact; without, a camera is
    estimated from each half's homography (:func:`camera_from_homography`)."""
    from calibration.board import image_to_board

    boxes = np.asarray(boxes_xyxy, dtype=np.float64).reshape(-1, 4)
    if len(boxes) == 0:
        return np.zeros((0, 2), dtype=np.float64)
    centres = np.column_stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2])
    hs = profile.homographies
    out = np.zeros((len(boxes), 2), dtype=np.float64)
    for i, c in enumerate(centres):
        xy = image_to_board(hs["right"], c[None])[0]
        half: Literal["right", "left"] = "right" if xy[0] >= 0 else "left"
        if half == "left":
            xy = image_to_board(hs["left"], c[None])[0]
        pts = np.array([[xy[0], xy[1], 0.0], [xy[0], xy[1], die_cm]])
        if profile.pose is not None and profile.intrinsics is not None:
            uv = profile.project(pts)
        else:
            p = camera_from_homography(hs[half], profile.image_size)
            hom = np.column_stack([pts, np.ones(2)]) @ p.T
            uv = hom[:, :2] / hom[:, 2:3]
        d = uv[1] - uv[0]
        n = float(np.hypot(d[0], d[1]))
        out[i] = d / n if n > 1e-9 else (0.0, -1.0)
    return out


def to_tensor(crops: Sequence[npt.NDArray[np.uint8]] | npt.NDArray[np.uint8]) -> FloatArray:
    """Stack BGR crops (``N x S x S x 3``) into the network input ``N x 3 x S x S`` float32."""
    batch = np.asarray(crops, dtype=np.float32)
    if batch.ndim == 3:
        batch = batch[None]
    if batch.shape[1:] != (CROP_SIZE, CROP_SIZE, 3):
        raise ValueError(f"die crops must be {CROP_SIZE}x{CROP_SIZE}x3, got {batch.shape[1:]}")
    return network_input(batch, axes=(1, 2, 3))


def softmax(logits: FloatArray) -> FloatArray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), dtype=np.float32)


SETTLED_ZOOMS = (1.0, 1.2)
"""The box sizes (relative) a die at rest in a settled frame is read from (:meth:`DieReader.read`):
on the five session-5 renders, dice at rest read right per frame 97.3% -> 98.7% and rests 144 -> 146
of 147 (models/die_reader.md)."""


@dataclass(frozen=True)
class DieReadings:
    """Values read from a batch of crops: parallel arrays, one entry per crop."""

    value: npt.NDArray[np.int64]
    """Most likely top-face value, 1..6."""
    confidence: FloatArray
    """Probability of ``value``."""
    probabilities: FloatArray
    """``N x 6``: probability of each value 1..6."""

    def __len__(self) -> int:
        return int(self.value.shape[0])

    @classmethod
    def from_probabilities(cls, probs: FloatArray) -> DieReadings:
        """The readings of an ``N x 6`` array of value probabilities."""
        idx = probs.argmax(axis=1)
        return cls(value=(idx + 1).astype(np.int64), confidence=probs[np.arange(len(idx)), idx], probabilities=probs)


class DieReader:
    """The die-value classifier (ONNX Runtime, CPU).

    >>> reader = DieReader()                       # doctest: +SKIP
    >>> reader.read(image, [(10, 10, 50, 50)]).value  # doctest: +SKIP
    array([5])
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1, mirror: bool = True) -> None:
        """``mirror``: also read each crop mirrored left-right and average the probabilities (a mirror
        keeps the value and, for crops turned to the vertical, the up direction; +2 to +3 points on
        held-out simulator dice for twice the network time, see models/die_reader.md)."""
        self.mirror = mirror
        path = Path(model_path)
        hint = {CALIBRATED_MODEL.name: CALIBRATED_REBUILD_HINT, TOP_MODEL.name: TOP_REBUILD_HINT}.get(path.name, REBUILD_HINT)
        self._session = load_session(path, what="die reader model", rebuild_hint=hint, threads=threads)
        self._input = self._session.get_inputs()[0].name
        self.model_path = path
        meta = self._session.get_modelmeta().custom_metadata_map
        self.crop_kind = str(meta.get("crop_kind", "up"))
        """The crops the model was trained on: "up" (:func:`crop_die`, turned by ``ups`` when given) or
        "top" (``vision.dice_validity.top_face_crop``: needs the calibration profile; decision 0711)."""
        if self.crop_kind not in ("up", "top"):
            raise ModelMissingError(f"die reader model {path} wants crops of kind {self.crop_kind!r}, unknown here; {hint}")
        if self.crop_kind == "top" and float(meta.get("top_span", TOP_SPAN)) != TOP_SPAN:
            raise ModelMissingError(f"die reader model {path} was trained on top-face crops {meta.get('top_span')} die edges "
                                    f"wide, not {TOP_SPAN}; {hint}")
        self._with_camera = CameraCache()

    def read_crops(self, crops: Sequence[npt.NDArray[np.uint8]] | npt.NDArray[np.uint8]) -> DieReadings:
        """Classify crops already cut with :func:`crop_die`."""
        if len(crops) == 0:
            return DieReadings.from_probabilities(np.zeros((0, 6), dtype=np.float32))
        x = to_tensor(crops)
        if self.mirror:
            x = np.concatenate([x, x[:, :, :, ::-1]])
        logits = np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(x)})[0], dtype=np.float32)
        probs = softmax(logits)
        if self.mirror:
            n = len(probs) // 2
            probs = np.asarray((probs[:n] + probs[n:]) / 2, dtype=np.float32)
        return DieReadings.from_probabilities(probs)

    def read(self, image: npt.NDArray[np.uint8], boxes_xyxy: Sequence[Sequence[float]],
             ups: Sequence[Sequence[float]] | npt.NDArray[np.float64] | None = None,
             zooms: Sequence[float] = (1.0,), profile: CalibrationProfile | None = None) -> DieReadings:
        """Read each die of ``image`` given its pixel box ``x0, y0, x1, y1``.

        ``profile``: the calibration, needed by a reader of top-face crops (``crop_kind`` "top"), which
        then ignores ``ups``.

        ``ups``: for a calibrated camera, the image direction of the world's vertical at each die
        (:func:`up_directions`); the crops are then turned so that it points up, as in training.
        ``None`` (photos without calibration): upright crops.
        ``zooms``: each die is also read from its box enlarged by these factors about its centre and
        the looks combined (geometric mean of the probabilities; :data:`SETTLED_ZOOMS` for settled
        frames: a box the locator placed low cuts the top face off, the wider look keeps it)."""
        if ups is not None and len(ups) != len(boxes_xyxy):
            raise ValueError(f"{len(ups)} up directions for {len(boxes_xyxy)} dice boxes: give one per box")
        if not zooms:
            raise ValueError("the die reader needs at least one zoom to look at")
        crops = []
        if self.crop_kind == "top":
            if profile is None:
                raise ValueError(f"the die reader {self.model_path.name} reads the dice's top faces: give the calibration profile")
            cam = self._with_camera(profile)
            crops = [top_face_crop(image, cam, box, CROP_SIZE, zoom=z) for z in zooms for box in boxes_xyxy]
        else:
            for z in zooms:
                for k, box in enumerate(boxes_xyxy):
                    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                    hw, hh = (box[2] - box[0]) / 2 * z, (box[3] - box[1]) / 2 * z
                    b = (cx - hw, cy - hh, cx + hw, cy + hh)
                    crops.append(crop_die(image, b) if ups is None else crop_die(image, b, up=ups[k]))
        looks = self.read_crops(crops)
        if len(zooms) == 1:
            return looks
        n = len(boxes_xyxy)
        logp = np.log(np.maximum(looks.probabilities.reshape(len(zooms), n, 6), 1e-9)).mean(axis=0)
        return DieReadings.from_probabilities(softmax(logp.astype(np.float32)))


class DieReaders:
    """Several die readers, each looking its own way (crops turned to the vertical, the top face seen
    from above), read as one: the normalised geometric mean of their probabilities (decision 0711).
    Same :meth:`read` as :class:`DieReader`; each reader takes the arguments it needs."""

    def __init__(self, readers: Sequence[DieReader]) -> None:
        if not readers:
            raise ValueError("DieReaders needs at least one die reader")
        self.readers = list(readers)

    @classmethod
    def calibrated(cls, threads: int = 1) -> DieReaders:
        """The readers of calibrated frames: :data:`CALIBRATED_MODEL` and :data:`TOP_MODEL`."""
        return cls([DieReader(CALIBRATED_MODEL, threads=threads), DieReader(TOP_MODEL, threads=threads)])

    def read(self, image: npt.NDArray[np.uint8], boxes_xyxy: Sequence[Sequence[float]],
             ups: Sequence[Sequence[float]] | npt.NDArray[np.float64] | None = None,
             zooms: Sequence[float] = (1.0,), profile: CalibrationProfile | None = None) -> DieReadings:
        looks = [r.read(image, boxes_xyxy, ups=ups, zooms=zooms, profile=profile) for r in self.readers]
        if len(looks) == 1 or len(boxes_xyxy) == 0:
            return looks[0]
        logp = np.mean([np.log(np.maximum(lk.probabilities, 1e-9)) for lk in looks], axis=0)
        return DieReadings.from_probabilities(softmax(logp.astype(np.float32)))
