"""The classical dice detector and pip counter on clean drawn dice (their easy case)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detections import box_iou
from vision.dice import crop_die
from vision.dice_detect import detect_dice
from vision.pips import count_pips

PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def draw_die(img: np.ndarray, x: int, y: int, side: int, value: int, face=(235, 235, 235), pip=(20, 20, 20)) -> tuple:
    cv2.rectangle(img, (x, y), (x + side - 1, y + side - 1), face, -1)
    for px, py in PIPS[value]:
        c = (int(x + side / 2 + px * side * 0.27), int(y + side / 2 + py * side * 0.27))
        cv2.circle(img, c, max(2, int(side * 0.09)), pip, -1, cv2.LINE_AA)
    return (x, y, x + side, y + side)


@pytest.mark.parametrize("value", range(1, 7))
def test_pip_counter_counts_a_clean_top_view(value: int) -> None:
    img = np.full((200, 200, 3), (60, 120, 60), np.uint8)
    box = draw_die(img, 60, 60, 64, value)
    assert count_pips(crop_die(img, box)) == value


def test_detector_finds_separate_and_touching_dice_on_a_plain_background() -> None:
    img = np.full((480, 640, 3), (70, 130, 70), np.uint8)
    img += np.random.default_rng(0).integers(0, 6, img.shape, dtype=np.uint8)  # fixed felt noise
    truth = [draw_die(img, 50, 60, 40, 3), draw_die(img, 300, 200, 40, 5, face=(30, 30, 200), pip=(255, 255, 255)),
             draw_die(img, 500, 380, 40, 6), draw_die(img, 150, 300, 40, 2), draw_die(img, 191, 300, 40, 4)]
    dets = detect_dice(img, die_px=(25, 60))
    iou = box_iou(np.array(truth, float), dets.xyxy)
    assert (iou.max(axis=1) >= 0.5).all()
    assert len(dets) <= len(truth) + 1


def test_detector_rejects_a_non_colour_image() -> None:
    with pytest.raises(ValueError, match="colour image"):
        detect_dice(np.zeros((10, 10), np.uint8))
