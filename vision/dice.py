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

import cv2
import numpy as np
import numpy.typing as npt

from vision.images import network_input
from vision.onnx import load_session

CROP_SIZE = 48
"""Side of the square network input, pixels."""
CROP_MARGIN = 0.15
"""Fraction of the box side added on every side before cropping."""

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODELS_DIR / "die_reader.onnx"
REBUILD_HINT = "rebuild it with: pip install -e '.[train]' && python models/train_die_reader.py"

FloatArray = npt.NDArray[np.float32]


def crop_die(image: npt.NDArray[np.uint8], box_xyxy: Sequence[float]) -> npt.NDArray[np.uint8]:
    """Cut the square crop around a die's box (pixels ``x0, y0, x1, y1``), resized to CROP_SIZE."""
    x0, y0, x1, y1 = (float(v) for v in box_xyxy)
    if not (x1 > x0 and y1 > y0):
        raise ValueError(f"die box {list(box_xyxy)} is empty: need x1 > x0 and y1 > y0")
    side = max(x1 - x0, y1 - y0) * (1.0 + 2.0 * CROP_MARGIN)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    # An affine map from the square to the crop: sub-pixel exact and handles borders by replication.
    scale = CROP_SIZE / side
    m = np.array(
        [[scale, 0.0, CROP_SIZE / 2.0 - scale * cx], [0.0, scale, CROP_SIZE / 2.0 - scale * cy]],
        dtype=np.float64,
    )
    interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    crop = cv2.warpAffine(image, m, (CROP_SIZE, CROP_SIZE), flags=interp, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(crop, dtype=np.uint8)


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


class DieReader:
    """The die-value classifier (ONNX Runtime, CPU).

    >>> reader = DieReader()                       # doctest: +SKIP
    >>> reader.read(image, [(10, 10, 50, 50)]).value  # doctest: +SKIP
    array([5])
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        path = Path(model_path)
        self._session = load_session(path, what="die reader model", rebuild_hint=REBUILD_HINT, threads=threads)
        self._input = self._session.get_inputs()[0].name
        self.model_path = path

    def read_crops(self, crops: Sequence[npt.NDArray[np.uint8]] | npt.NDArray[np.uint8]) -> DieReadings:
        """Classify crops already cut with :func:`crop_die`."""
        if len(crops) == 0:
            empty = np.zeros((0, 6), dtype=np.float32)
            return DieReadings(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32), empty)
        logits = np.asarray(self._session.run(None, {self._input: to_tensor(crops)})[0], dtype=np.float32)
        probs = softmax(logits)
        idx = probs.argmax(axis=1)
        return DieReadings(
            value=(idx + 1).astype(np.int64),
            confidence=probs[np.arange(len(idx)), idx],
            probabilities=probs,
        )

    def read(self, image: npt.NDArray[np.uint8], boxes_xyxy: Sequence[Sequence[float]]) -> DieReadings:
        """Read each die of ``image`` given its pixel box ``x0, y0, x1, y1``."""
        return self.read_crops([crop_die(image, box) for box in boxes_xyxy])
