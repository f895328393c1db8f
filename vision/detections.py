"""Detections: one dataclass of parallel numpy arrays (after roboflow/supervision).

Adapters from model outputs are classmethods, so no model library leaks into the core; indexing
with an int, a slice, an index array or a boolean mask returns another :class:`Detections`.

>>> d = Detections(np.array([[0, 0, 10, 10], [5, 5, 20, 20]], float), np.array([0.9, 0.4]), np.array([1, 2]))
>>> len(d[d.confidence > 0.5])
1
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

# class ids used across vision (detector outputs map to these)
CLASS_NAMES: tuple[str, ...] = ("die", "light_checker", "dark_checker", "cube", "hand")
DIE, LIGHT_CHECKER, DARK_CHECKER, CUBE, HAND = range(len(CLASS_NAMES))


@dataclass
class Detections:
    xyxy: F64
    """``N x 4`` boxes, pixels ``x0, y0, x1, y1``."""
    confidence: F64
    """``N`` scores in ``[0, 1]``."""
    class_id: I64
    """``N`` class ids (see :data:`CLASS_NAMES`)."""
    tracker_id: I64 | None = None
    """``N`` track ids, set by a tracker (``-1`` = not tracked)."""
    data: dict[str, npt.NDArray[Any]] = field(default_factory=dict)
    """Extra per-detection arrays of length ``N`` (e.g. ``"value"`` for dice)."""

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4)
        n = len(self.xyxy)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        if self.tracker_id is not None:
            self.tracker_id = np.asarray(self.tracker_id, dtype=np.int64).reshape(-1)
        for name, arr in (("confidence", self.confidence), ("class_id", self.class_id),
                          ("tracker_id", self.tracker_id), *self.data.items()):
            if arr is not None and len(arr) != n:
                raise ValueError(f"Detections.{name} has {len(arr)} entries for {n} boxes")

    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0, dtype=np.int64))

    @classmethod
    def from_boxes(cls, boxes_xyxy: npt.ArrayLike, class_id: int, confidence: npt.ArrayLike | None = None,
                   **data: npt.ArrayLike) -> Detections:
        """Boxes of one class (e.g. labelled dice), confidence 1 unless given."""
        xyxy = np.asarray(boxes_xyxy, dtype=np.float64).reshape(-1, 4)
        conf = np.ones(len(xyxy)) if confidence is None else np.asarray(confidence, dtype=np.float64)
        return cls(xyxy, conf, np.full(len(xyxy), class_id, dtype=np.int64),
                   data={k: np.asarray(v) for k, v in data.items()})

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        tracked = all(p.tracker_id is not None for p in parts)
        return cls(
            np.vstack([p.xyxy for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.class_id for p in parts]),
            np.concatenate([p.tracker_id for p in parts if p.tracker_id is not None]) if tracked else None,
            {k: np.concatenate([p.data[k] for p in parts]) for k in keys},
        )

    def __len__(self) -> int:
        return int(self.xyxy.shape[0])

    def __getitem__(self, index: int | slice | npt.NDArray[Any] | list[int]) -> Detections:
        if isinstance(index, int | np.integer):
            index = [int(index)]
        return Detections(
            self.xyxy[index],
            self.confidence[index],
            self.class_id[index],
            None if self.tracker_id is None else self.tracker_id[index],
            {k: v[index] for k, v in self.data.items()},
        )

    def __iter__(self) -> Iterator[Detections]:
        for i in range(len(self)):
            yield self[i]

    @property
    def centers(self) -> F64:
        """``N x 2`` box centres."""
        return np.column_stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2])

    @property
    def area(self) -> F64:
        return np.asarray((self.xyxy[:, 2] - self.xyxy[:, 0]) * (self.xyxy[:, 3] - self.xyxy[:, 1]), dtype=np.float64)

    def with_data(self, **data: npt.ArrayLike) -> Detections:
        merged: Mapping[str, npt.NDArray[Any]] = {**self.data, **{k: np.asarray(v) for k, v in data.items()}}
        return Detections(self.xyxy, self.confidence, self.class_id, self.tracker_id, dict(merged))


def box_iou(a: F64, b: F64) -> F64:
    """Pairwise IoU ``len(a) x len(b)`` of two box arrays (pixels, xyxy)."""
    a = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    b = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    x0 = np.maximum(a[:, None, 0], b[None, :, 0])
    y0 = np.maximum(a[:, None, 1], b[None, :, 1])
    x1 = np.minimum(a[:, None, 2], b[None, :, 2])
    y1 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x1 - x0, 0, None) * np.clip(y1 - y0, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.asarray(np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0), dtype=np.float64)
