"""Detections: parallel arrays with mask indexing, merging and IoU."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import DIE, Detections, box_iou


def make() -> Detections:
    return Detections(np.array([[0, 0, 10, 10], [5, 5, 15, 15], [20, 20, 30, 40]], float),
                      np.array([0.9, 0.3, 0.7]), np.array([0, 0, 1]), data={"value": np.array([5, 2, 0])})


def test_mask_indexing_keeps_arrays_parallel() -> None:
    d = make()
    kept = d[d.confidence > 0.5]
    assert len(kept) == 2
    assert kept.data["value"].tolist() == [5, 0]
    assert kept.class_id.tolist() == [0, 1]
    assert d[1].xyxy.tolist() == [[5, 5, 15, 15]]


def test_mismatched_lengths_are_rejected() -> None:
    with pytest.raises(ValueError, match="confidence has 1 entries for 2 boxes"):
        Detections(np.zeros((2, 4)), np.zeros(1), np.zeros(2))


def test_merge_and_centres() -> None:
    d = Detections.merge([make(), Detections.from_boxes([[0, 0, 2, 4]], DIE, value=[3]), Detections.empty()])
    assert len(d) == 4 and d.data["value"].tolist() == [5, 2, 0, 3]
    assert d.centers[-1].tolist() == [1.0, 2.0]
    assert d.area[-1] == 8.0


def test_iou() -> None:
    iou = box_iou(np.array([[0, 0, 10, 10]]), np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]]))
    assert iou[0].tolist() == pytest.approx([1.0, 50 / 150, 0.0])
