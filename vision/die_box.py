"""Refining a located die's box before its value is read (decision 0716).

The dice locator (:mod:`vision.dice_locator`) places a box from a heatmap cell and a regression on
the whole frame; on oblique views it can put the box of a die showing few pips on top low, on its
front face (seeds 320 and 322: a 23-27 px die showing 1 boxed 9-10 px low, read as the 4 or 3 of
the face in front). A small network looks again at a wider crop around the box, turned so that the
world's vertical points up as the readers' crops are, and says where the die's box really is:

- input: :func:`vision.dice.crop_die` of the box with :data:`REFINE_MARGIN` (the crop is twice the
  box's side), turned by the die's up direction;
- output: the offset of the true box centre along the crop's x and down axes, in box sides, and the
  log ratios of the true box's width and height to the box's (:func:`encode` / :func:`apply`).

The readers read the refined box; the validity judge looks at both boxes (its pose probabilities
averaged: it was trained on the locator's); the tracker and the observation keep the locator's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.dice import crop_axes, crop_die, to_tensor
from vision.onnx import MODELS_DIR, load_session

F64 = npt.NDArray[np.float64]

DEFAULT_MODEL = MODELS_DIR / "die_box.onnx"
REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/train_die_box.py "
                "(commands in models/die_box.md)")
REFINE_MARGIN = 0.5
"""Margin (box sides) around the box in the refiner's crop: the crop is twice the box's side."""
MAX_SHIFT = 0.6
"""Largest centre move the refiner may make, in box sides (a larger one is clipped)."""
PASSES = 2
"""Times :meth:`DieBoxRefiner.refine` looks again at the box it made (the second look from a box near
the die's centre, as most of its training boxes are: seven runs' dice at rest read 96.2% of the
time from the locator's boxes, 97.1% after one look, 97.3% after two; session 17)."""
MAX_LOG_SCALE = 0.4
"""Largest change of the box's width or height the refiner may make (log ratio, about x1.5)."""


def _axes(up: Sequence[float] | None) -> tuple[F64, F64]:
    """The crop's x axis and down axis in the image (:func:`vision.dice.crop_axes`; upright: the image's)."""
    return crop_axes(up) or (np.array([1.0, 0.0]), np.array([0.0, 1.0]))


def encode(box: Sequence[float], truth: Sequence[float], up: Sequence[float] | None) -> F64:
    """The refiner's target for ``box`` whose die's true box is ``truth``: ``(dx, dy, log w, log h)``."""
    x0, y0, x1, y1 = (float(v) for v in box)
    t0, s0, t1, s1 = (float(v) for v in truth)
    side = max(x1 - x0, y1 - y0)
    d = np.array([(t0 + t1 - x0 - x1) / 2, (s0 + s1 - y0 - y1) / 2])
    ex, down = _axes(up)
    return np.array([d @ ex / side, d @ down / side, np.log((t1 - t0) / (x1 - x0)), np.log((s1 - s0) / (y1 - y0))])


def apply(box: Sequence[float], out: Sequence[float], up: Sequence[float] | None) -> tuple[float, float, float, float]:
    """The box ``out`` (:func:`encode`'s four numbers, clipped to :data:`MAX_SHIFT` and
    :data:`MAX_LOG_SCALE`) makes of ``box``."""
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0)
    dx, dy = (float(np.clip(v, -MAX_SHIFT, MAX_SHIFT)) for v in out[:2])
    lw, lh = (float(np.clip(v, -MAX_LOG_SCALE, MAX_LOG_SCALE)) for v in out[2:4])
    ex, down = _axes(up)
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) + side * (dx * ex + dy * down)
    hw, hh = (x1 - x0) / 2 * np.exp(lw), (y1 - y0) / 2 * np.exp(lh)
    return float(c[0] - hw), float(c[1] - hh), float(c[0] + hw), float(c[1] + hh)


def refine_crop(image: npt.NDArray[np.uint8], box: Sequence[float], up: Sequence[float] | None) -> npt.NDArray[np.uint8]:
    """The refiner's input for one box (shared with the training script)."""
    return crop_die(image, box, up=up, margin=REFINE_MARGIN)


class DieBoxRefiner:
    """The box refiner (ONNX Runtime, CPU): :meth:`refine` returns better boxes for the die readers."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1) -> None:
        self._session = load_session(model_path, what="die box refiner model", rebuild_hint=REBUILD_HINT, threads=threads)
        self._input = self._session.get_inputs()[0].name
        self.model_path = Path(model_path)

    def predict(self, crops: Sequence[npt.NDArray[np.uint8]] | npt.NDArray[np.uint8]) -> F64:
        """The raw four numbers per crop (``N x 4``; mirrored crops averaged: a mirror flips ``dx``)."""
        if len(crops) == 0:
            return np.zeros((0, 4), dtype=np.float64)
        x = to_tensor(crops)
        x = np.concatenate([x, x[:, :, :, ::-1]])
        out = np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(x)})[0], dtype=np.float64)
        n = len(out) // 2
        mirrored = out[n:].copy()
        mirrored[:, 0] = -mirrored[:, 0]
        return (out[:n] + mirrored) / 2

    def refine(self, image: npt.NDArray[np.uint8], boxes_xyxy: Sequence[Sequence[float]],
               ups: Sequence[Sequence[float]] | npt.NDArray[np.float64] | None = None,
               passes: int = PASSES) -> list[tuple[float, float, float, float]]:
        """Each box moved and resized to where the refiner sees its die, ``passes`` times (``ups``: as
        for the readers; the up direction of the locator's box is kept: it changes little over a
        fraction of a die)."""
        if ups is not None and len(ups) != len(boxes_xyxy):
            raise ValueError(f"{len(ups)} up directions for {len(boxes_xyxy)} dice boxes: give one per box")
        upl = [None if ups is None else ups[i] for i in range(len(boxes_xyxy))]
        boxes = [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in boxes_xyxy]
        for _ in range(passes):
            out = self.predict([refine_crop(image, b, u) for b, u in zip(boxes, upl, strict=True)])
            boxes = [apply(b, o, u) for b, o, u in zip(boxes, out, upl, strict=True)]
        return boxes
