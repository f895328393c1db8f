"""Locating dice in a camera frame with a small trained heatmap network (CenterNet-style, ONNX).

The frame is scaled by :data:`INPUT_SCALE` (1280x720 -> 640x360) and padded to a multiple of
:data:`PAD_TO`; a fully convolutional network outputs, on a grid of :data:`STRIDE` input pixels
(8 frame pixels), five maps: the die-centre heatmap (logit), the sub-cell offset of the centre
(x, y) and the log of the box size (w, h) in cells. Peaks of the heatmap (3x3 local maxima over
:attr:`DiceLocator.threshold`) become boxes.

A settled frame is looked at twice, at the frame's size and enlarged by 1.25
(:data:`SETTLED_SCALES`), and the boxes of both looks are merged: the small network misses some dice
at one size that it finds at the other (held-out recall 0.890 -> 0.934, models/dice_locator.md).
Moving frames, where only the tracker needs the boxes, get the single look (``scales=(1.0,)``).

The boxes follow the simulator's label convention (``box_xyxy``: the axis-aligned box of the
die's eight projected corners, clipped to the image), which the validity classifier is trained
on. The network is trained on simulator frames (``models/train_dice_locator.py``; card
``models/dice_locator.md``); it looks at the whole frame, so it also finds dice off the playing
surface, on checkers, leaning and cocked. Preprocessing and target encoding are shared with the
training script so both see the same pixels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import ModelMissingError
from vision.images import colour_frame
from vision.onnx import MODELS_DIR, load_session

INPUT_SCALE = 0.5
"""Frame -> network input scale."""
STRIDE = 4
"""Output cell size in network-input pixels."""
PAD_TO = 8
"""The network input's sides are padded to a multiple of this."""
MEAN, STD = 0.5, 0.25
"""Input normalisation: ``(pixel / 255 - MEAN) / STD``, BGR channel order (with the model's input
contrast: ``contrast * (pixel / 255 - MEAN) / STD``)."""
CONTRAST_KEY = "input_contrast"
"""ONNX metadata key: the contrast about mid-grey the model's input is given at run time (default 1, the
training's own; chosen on frames the model was not trained on by ``models/calibrate_locator_contrast.py``,
decision 0740)."""

SETTLED_SCALES = (1.0, 1.25)
"""The frame sizes (relative) a settled frame is looked at; boxes of all looks are merged."""
SURE_SCORE = 0.5
"""A box scoring this much is a die found plainly (see ``DiceLocator.locate(enough=...)``)."""
MERGE_FRAC = 0.6
"""Boxes of different looks whose centres lie within this share of the stronger box's side are one die."""

DEFAULT_MODEL = MODELS_DIR / "dice_locator.onnx"
REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/train_dice_locator.py "
                "(see models/dice_locator.md)")

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Box = tuple[float, float, float, float]


def input_contrast(meta: Mapping[str, str], path: str | Path) -> float:
    """The model's input contrast from its ONNX metadata (:data:`CONTRAST_KEY`; 1 when absent). A value
    that is no number in 0.2-2 -> :class:`ModelMissingError` naming the model and how to mend it."""
    text = meta.get(CONTRAST_KEY, "1")
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.2 <= value <= 2.0:  # (nan fails too)
        raise ModelMissingError(f"{path}: metadata {CONTRAST_KEY}={text!r} is not a number in 0.2-2; set it again with "
                                f"python models/calibrate_locator_contrast.py FRAMES --write, or {REBUILD_HINT}")
    return value


def input_size(width: int, height: int, scale: float = INPUT_SCALE) -> tuple[int, int, int, int]:
    """(scaled width, scaled height, padded width, padded height) of the network input."""
    sw, sh = int(round(width * scale)), int(round(height * scale))
    return sw, sh, -(-sw // PAD_TO) * PAD_TO, -(-sh // PAD_TO) * PAD_TO


def prepare(image: U8, scale: float = INPUT_SCALE, contrast: float = 1.0) -> F32:
    """BGR frame ``H x W x 3`` -> network input ``1 x 3 x H' x W'`` (scaled, padded, normalised;
    ``contrast``: about mid-grey, see :data:`CONTRAST_KEY`)."""
    arr = colour_frame(image)
    h, w = arr.shape[:2]
    sw, sh, pw, ph = input_size(w, h, scale)
    small = np.asarray(cv2.resize(arr, (sw, sh), interpolation=cv2.INTER_AREA), dtype=np.uint8) if (sw, sh) != (w, h) else arr
    return normalise(small, pw, ph, contrast)


def normalise(small: U8, pw: int | None = None, ph: int | None = None, contrast: float = 1.0) -> F32:
    """Scaled BGR image -> ``1 x 3 x ph x pw`` float32 (zero padding right and bottom after normalising)."""
    sh, sw = small.shape[:2]
    pw = sw if pw is None else pw
    ph = sh if ph is None else ph
    out = np.zeros((1, 3, ph, pw), dtype=np.float32)
    out[0, :, :sh, :sw] = ((small.astype(np.float32) * (1.0 / 255.0) - MEAN) * (contrast / STD)).transpose(2, 0, 1)
    return out


def encode_targets(boxes_xyxy: Sequence[Sequence[float]], ignore_xyxy: Sequence[Sequence[float]],
                   grid_w: int, grid_h: int, cell_px: float) -> tuple[F32, F32, F32, F32]:
    """Training targets on a ``grid_h x grid_w`` output grid for boxes given in pixels of the
    network input scaled so that one cell is ``cell_px`` of those pixels.

    Returns (heatmap ``H x W`` Gaussian peaks, weight ``H x W`` (0 around ignored dice),
    regression ``4 x H x W`` (offset x, offset y, log w, log h in cells), regression mask ``H x W``).
    """
    heat = np.zeros((grid_h, grid_w), dtype=np.float32)
    weight = np.ones((grid_h, grid_w), dtype=np.float32)
    reg = np.zeros((4, grid_h, grid_w), dtype=np.float32)
    mask = np.zeros((grid_h, grid_w), dtype=np.float32)
    ys, xs = np.mgrid[0:grid_h, 0:grid_w].astype(np.float32)
    for b in ignore_xyxy:
        x0, y0, x1, y1 = (float(v) / cell_px for v in b)
        weight[max(0, int(np.floor(y0)) - 1): int(np.ceil(y1)) + 1, max(0, int(np.floor(x0)) - 1): int(np.ceil(x1)) + 1] = 0.0
    for b in boxes_xyxy:
        x0, y0, x1, y1 = (float(v) / cell_px for v in b)
        w, h = max(x1 - x0, 1e-3), max(y1 - y0, 1e-3)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        ix, iy = int(np.floor(cx)), int(np.floor(cy))
        if not (0 <= ix < grid_w and 0 <= iy < grid_h):
            continue
        sigma = 0.5 + 0.12 * max(w, h)
        g = np.exp(-((xs - (ix + 0.5)) ** 2 + (ys - (iy + 0.5)) ** 2) / (2 * sigma**2))
        heat = np.maximum(heat, g)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (cx - ix, cy - iy, np.log(w), np.log(h))
        mask[iy, ix] = 1.0
    return heat, weight, reg, mask


def decode(heat_logits: F32, reg: F32, threshold: float, cell_px: float,
           max_dice: int = 8) -> tuple[F64, F64]:
    """Boxes (``N x 4`` in the pixels of which a cell is ``cell_px``) and scores from one output.

    ``heat_logits`` is ``H x W``; ``reg`` is ``4 x H x W``. Peaks are 3x3 local maxima."""
    heat = 1.0 / (1.0 + np.exp(-heat_logits.astype(np.float32)))
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    iy, ix = np.nonzero(peaks)
    scores = heat[iy, ix].astype(np.float64)
    order = np.argsort(-scores)[:max_dice]
    iy, ix, scores = iy[order], ix[order], scores[order]
    cx = (ix + reg[0, iy, ix]) * cell_px
    cy = (iy + reg[1, iy, ix]) * cell_px
    w = np.exp(np.clip(reg[2, iy, ix], -3, 4)) * cell_px
    h = np.exp(np.clip(reg[3, iy, ix], -3, 4)) * cell_px
    boxes = np.column_stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]).astype(np.float64)
    return boxes.reshape(-1, 4), scores


@dataclass(frozen=True)
class LocatedDice:
    """Dice found in one frame: boxes (frame pixels ``x0, y0, x1, y1``, clipped) and heatmap scores."""

    boxes: F64
    scores: F64

    def __len__(self) -> int:
        return int(self.boxes.shape[0])

    def as_list(self) -> list[Box]:
        return [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in self.boxes]


class DiceLocator:
    """The trained dice locator (ONNX Runtime, CPU). Missing model -> :class:`ModelMissingError`.

    >>> loc = DiceLocator()                  # doctest: +SKIP
    >>> loc.locate(frame).as_list()          # doctest: +SKIP
    [(812.1, 388.0, 838.4, 414.9), (760.2, 402.7, 786.0, 430.1)]
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1, threshold: float = 0.35,
                 max_dice: int = 8, scales: Sequence[float] = SETTLED_SCALES) -> None:
        path = Path(model_path)
        self._session = load_session(path, what="dice locator model", rebuild_hint=REBUILD_HINT, threads=threads)
        self._input = self._session.get_inputs()[0].name
        self.model_path = path
        self.threshold = threshold
        self.max_dice = max_dice
        self.scales = tuple(scales)
        self.contrast = input_contrast(self._session.get_modelmeta().custom_metadata_map, path)

    def heatmaps(self, image: U8, scale: float = 1.0) -> tuple[F32, F32]:
        """The raw outputs for one frame looked at ``scale`` times its size: heat logits ``H x W`` and
        regression ``4 x H x W``."""
        out = np.asarray(self._session.run(None, {self._input: prepare(image, INPUT_SCALE * scale, self.contrast)})[0], dtype=np.float32)
        return out[0, 0], out[0, 1:5]

    def locate(self, image: U8, scales: Sequence[float] | None = None,
               roi: tuple[int, int, int, int] | None = None, enough: int | None = None,
               threshold: float | None = None) -> LocatedDice:
        """Boxes of the dice in a BGR frame, highest score first, from one look per scale (default
        :attr:`scales`) merged. ``roi`` (pixels ``x0, y0, x1, y1``): look only there (the board and
        its surroundings; boxes are still in frame pixels). ``enough``: no further look once this
        many boxes score at least :data:`SURE_SCORE` (the dice of a throw found plainly).
        ``threshold``: the least score kept (default :attr:`threshold`)."""
        looks = self.scales if scales is None else tuple(scales)
        if not looks:
            raise ValueError("the dice locator needs at least one scale to look at")
        ox = oy = 0
        if roi is not None:
            h0, w0 = image.shape[:2]
            ox, oy = max(0, int(roi[0])), max(0, int(roi[1]))
            x1, y1 = min(w0, int(roi[2])), min(h0, int(roi[3]))
            if x1 - ox < 16 or y1 - oy < 16:
                raise ValueError(f"region to look at {roi} leaves less than 16 x 16 pixels of the {w0}x{h0} frame")
            image = image[oy:y1, ox:x1]
        all_boxes, all_scores = [], []
        sure = 0
        for sc in looks:
            heat, reg = self.heatmaps(image, sc)
            b, s = decode(heat, reg, self.threshold if threshold is None else threshold, STRIDE / (INPUT_SCALE * sc), self.max_dice)
            all_boxes.append(b)
            all_scores.append(s)
            sure += int((s >= SURE_SCORE).sum())
            if enough is not None and sure >= enough:
                break
        boxes, scores = np.concatenate(all_boxes), np.concatenate(all_scores)
        if len(looks) > 1 and len(boxes):
            boxes, scores = merge_looks(boxes, scores, self.max_dice, look_labels(all_boxes))
        h, w = image.shape[:2]
        if len(boxes):
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
            keep = (boxes[:, 2] - boxes[:, 0] >= 2) & (boxes[:, 3] - boxes[:, 1] >= 2)
            boxes, scores = boxes[keep], scores[keep]
            boxes = boxes + np.array([ox, oy, ox, oy], dtype=np.float64)
        return LocatedDice(boxes, scores)


def look_labels(looks: Sequence[npt.ArrayLike]) -> npt.NDArray[np.int64]:
    """For boxes concatenated from ``looks`` (one array of boxes per look), the look of each box: the
    ``looks`` argument of :func:`merge_looks`."""
    return np.concatenate([np.full(len(np.asarray(b)), k, dtype=np.int64) for k, b in enumerate(looks)])


def merge_looks(boxes: F64, scores: F64, max_dice: int, looks: npt.ArrayLike | None = None) -> tuple[F64, F64]:
    """One box per die from several looks: strongest first, a box whose centre lies within
    :data:`MERGE_FRAC` of a kept box's side of that box's centre is the same die, when it comes
    from another look (``looks``: the look of each box; default: every box its own). Two boxes of
    one look are two peaks of one heatmap, each the centre of a die: dice touching (seed 355: a 6
    and a 3 corner to corner, centres 17 px apart in boxes of 31) stay two."""
    order = np.argsort(-scores, kind="stable")
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    look = np.arange(len(boxes)) if looks is None else np.asarray(looks)
    kept: list[int] = []
    for i in order:
        if any(look[i] != look[k] and float(np.hypot(*(centres[i] - centres[k]))) < max(6.0, MERGE_FRAC * float(sides[k]))
               for k in kept):
            continue
        kept.append(int(i))
        if len(kept) >= max_dice:
            break
    return boxes[kept].reshape(-1, 4), scores[kept]


__all__ = ["DiceLocator", "LocatedDice", "prepare", "normalise", "encode_targets", "decode", "input_size", "merge_looks", "look_labels",
           "INPUT_SCALE", "STRIDE", "DEFAULT_MODEL", "SETTLED_SCALES"]
