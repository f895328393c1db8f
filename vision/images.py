"""Reading images with errors that say what to do."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import ImageReadError

Image = npt.NDArray[np.uint8]
"""An OpenCV image: ``H x W x 3`` BGR, ``uint8``."""


def read_image(path: str | Path) -> Image:
    """Read a colour image (BGR) or raise :class:`ImageReadError` naming the file and the fix."""
    p = Path(path)
    if not p.exists():
        raise ImageReadError(f"{p}: no such file; check the path of the image")
    if p.is_dir():
        raise ImageReadError(f"{p}: is a folder, not an image file; give the path of one image")
    data = np.fromfile(str(p), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageReadError(
            f"{p}: not a readable image ({data.size} bytes); give a JPEG or PNG photo or frame"
        )
    return np.asarray(image, dtype=np.uint8)
