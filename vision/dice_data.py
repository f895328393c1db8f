"""Labelled dice photos: a folder of ``NAME.jpg`` + ``NAME.json`` (layout of ``shared/data/real-dice``).

``NAME.json`` holds ``{"image": "NAME.jpg", "width": W, "height": H, "dice": [{"value": 1-6,
"box_xyxy_norm": [x0, y0, x1, y1]}, ...]}`` with box corners as fractions of the image size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from vision.errors import LabelError

LAYOUT_HINT = (
    'expected {"image": "NAME.jpg", "width": W, "height": H, '
    '"dice": [{"value": 1-6, "box_xyxy_norm": [x0, y0, x1, y1]}]}'
)


@dataclass(frozen=True)
class LabelledDie:
    value: int
    """Top-face value, 1..6."""
    box_xyxy_norm: tuple[float, float, float, float]
    """Box corners as fractions of the image width and height."""

    def box_px(self, width: int, height: int) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.box_xyxy_norm
        return (x0 * width, y0 * height, x1 * width, y1 * height)


@dataclass(frozen=True)
class LabelledPhoto:
    name: str
    """File stem shared by the image and its label file."""
    image_path: Path
    dice: tuple[LabelledDie, ...]


def read_label(label_path: Path) -> LabelledPhoto:
    """Parse and validate one ``NAME.json``; errors name the file, the entry and the expected layout."""
    try:
        data = json.loads(label_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{label_path}: not readable JSON ({exc}); {LAYOUT_HINT}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("dice"), list):
        raise LabelError(f"{label_path}: no 'dice' list; {LAYOUT_HINT}")
    image_name = data.get("image", label_path.stem + ".jpg")
    if not isinstance(image_name, str):
        raise LabelError(f"{label_path}: 'image' must be a file name; {LAYOUT_HINT}")
    image_path = label_path.parent / image_name
    if not image_path.is_file():
        raise LabelError(f"{label_path}: its image {image_path.name} is not in {label_path.parent}")
    dice: list[LabelledDie] = []
    for i, entry in enumerate(data["dice"]):
        where = f"{label_path}: dice[{i}]"
        if not isinstance(entry, dict):
            raise LabelError(f"{where} is not an object; {LAYOUT_HINT}")
        value, box = entry.get("value"), entry.get("box_xyxy_norm")
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
            raise LabelError(f"{where}: 'value' must be an integer 1-6, got {value!r}")
        if (
            not isinstance(box, list)
            or len(box) != 4
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in box)
        ):
            raise LabelError(f"{where}: 'box_xyxy_norm' must be 4 numbers [x0, y0, x1, y1], got {box!r}")
        x0, y0, x1, y1 = (float(v) for v in box)
        if not (-0.01 <= x0 < x1 <= 1.01 and -0.01 <= y0 < y1 <= 1.01):
            raise LabelError(
                f"{where}: box {box} is not inside the image as fractions 0..1 with x0 < x1 and y0 < y1"
            )
        dice.append(LabelledDie(value, (x0, y0, x1, y1)))
    return LabelledPhoto(label_path.stem, image_path, tuple(dice))


def read_folder(folder: str | Path) -> list[LabelledPhoto]:
    """All labelled photos of a folder, sorted by name. Raises :class:`LabelError` if there are none."""
    root = Path(folder)
    if not root.is_dir():
        raise LabelError(f"{root}: not a folder; give a folder of NAME.jpg photos with NAME.json labels")
    labels = sorted(root.glob("*.json"))
    if not labels:
        raise LabelError(f"{root}: no NAME.json label files; {LAYOUT_HINT}")
    return [read_label(p) for p in labels]
