"""Camera intrinsics from photos of a ChArUco board (OpenCV's ``cv2.aruco.CharucoDetector``).

Print the board (``gammonwatch calibrate charuco OUT.png``), photograph it 10-20 times from
different angles and distances filling much of the frame, then
``gammonwatch calibrate intrinsics IMAGES... --out camera.json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationError

F64 = npt.NDArray[np.float64]
MIN_CORNERS_PER_VIEW = 6
MIN_VIEWS = 3


@dataclass(frozen=True)
class CharucoSpec:
    """The printed ChArUco board: squares across x down, square and marker sides, dictionary."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 40.0
    marker_mm: float = 30.0
    dictionary: str = "DICT_5X5_100"

    def __post_init__(self) -> None:
        if self.squares_x < 3 or self.squares_y < 3:
            raise CalibrationError(f"a ChArUco board needs at least 3x3 squares, got {self.squares_x}x{self.squares_y}")
        if not 0 < self.marker_mm < self.square_mm:
            raise CalibrationError(
                f"ChArUco marker side ({self.marker_mm} mm) must be positive and smaller than the square "
                f"side ({self.square_mm} mm)"
            )
        if not hasattr(cv2.aruco, self.dictionary):
            raise CalibrationError(f"unknown ArUco dictionary {self.dictionary!r}; use e.g. DICT_5X5_100")

    def board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(
            (self.squares_x, self.squares_y), self.square_mm, self.marker_mm, dictionary
        )

    def image(self, pixels_per_square: int = 100, margin: int = 40) -> npt.NDArray[np.uint8]:
        """A printable image of the board (grey levels)."""
        size = (self.squares_x * pixels_per_square + 2 * margin, self.squares_y * pixels_per_square + 2 * margin)
        return np.asarray(self.board().generateImage(size, marginSize=margin), dtype=np.uint8)

    def to_json(self) -> dict[str, object]:
        return {"squares_x": self.squares_x, "squares_y": self.squares_y, "square_mm": self.square_mm,
                "marker_mm": self.marker_mm, "dictionary": self.dictionary}


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole camera matrix and OpenCV distortion coefficients for one image size."""

    camera_matrix: F64
    dist_coeffs: F64
    image_size: tuple[int, int]
    """(width, height) the calibration was made at."""
    rms_px: float = float("nan")
    """RMS reprojection error of the calibration, pixels."""
    views_used: int = 0
    charuco: dict[str, object] = field(default_factory=dict)

    def scaled_to(self, image_size: tuple[int, int]) -> Intrinsics:
        """The same camera at another resolution with the same aspect (e.g. 1920x1080 -> 1280x720)."""
        w0, h0 = self.image_size
        w1, h1 = image_size
        if (w0, h0) == (w1, h1):
            return self
        if abs(w1 / w0 - h1 / h0) > 0.01:
            raise CalibrationError(
                f"intrinsics were calibrated at {w0}x{h0}; an image of {w1}x{h1} has another aspect ratio. "
                "Calibrate the camera at the resolution you record with"
            )
        s = w1 / w0
        k = self.camera_matrix.copy()
        k[:2] *= s
        return Intrinsics(k, self.dist_coeffs.copy(), (w1, h1), self.rms_px, self.views_used, dict(self.charuco))

    def to_json(self) -> dict[str, object]:
        return {
            "camera_matrix": [[float(v) for v in row] for row in self.camera_matrix],
            "dist_coeffs": [float(v) for v in self.dist_coeffs.ravel()],
            "image_size": list(self.image_size),
            "rms_px": None if not np.isfinite(self.rms_px) else round(float(self.rms_px), 4),
            "views_used": self.views_used,
            "charuco": self.charuco,
        }

    @classmethod
    def from_json(cls, data: object, where: str) -> Intrinsics:
        if not isinstance(data, dict):
            raise CalibrationError(f"{where}: intrinsics must be an object with camera_matrix, dist_coeffs, image_size")
        try:
            k = np.array(data["camera_matrix"], dtype=np.float64)
            d = np.array(data["dist_coeffs"], dtype=np.float64).ravel()
            w, h = (int(v) for v in data["image_size"])
            rms = data.get("rms_px")
            rms_f = float("nan") if rms is None else float(rms)
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                f"{where}: intrinsics need camera_matrix (3x3), dist_coeffs (list) and image_size [w, h] ({exc}); "
                "recreate them with 'gammonwatch calibrate intrinsics'"
            ) from exc
        if k.shape != (3, 3) or d.size not in (4, 5, 8, 12, 14) or w <= 0 or h <= 0 or k[0, 0] <= 0 or k[1, 1] <= 0:
            raise CalibrationError(
                f"{where}: intrinsics malformed (camera_matrix must be 3x3 with positive focal lengths, "
                "4/5/8/12/14 distortion coefficients); recreate them with 'gammonwatch calibrate intrinsics'"
            )
        charuco = data.get("charuco") or {}
        return cls(k, d, (w, h), rms_f, int(data.get("views_used", 0)), dict(charuco) if isinstance(charuco, dict) else {})


def detect_charuco(image: npt.NDArray[np.uint8], spec: CharucoSpec) -> tuple[F64, F64] | None:
    """Object points (mm, z = 0) and image points of the ChArUco corners seen in one image."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if corners is None or ids is None or len(corners) < MIN_CORNERS_PER_VIEW:
        return None
    obj, img = board.matchImagePoints(list(corners), ids)
    return np.asarray(obj, dtype=np.float64).reshape(-1, 3), np.asarray(img, dtype=np.float64).reshape(-1, 2)


def calibrate(images: Sequence[tuple[str, npt.NDArray[np.uint8]]], spec: CharucoSpec) -> tuple[Intrinsics, list[str]]:
    """Calibrate from named images; returns the intrinsics and the names of views that were skipped."""
    obj_points: list[npt.NDArray[np.float32]] = []
    img_points: list[npt.NDArray[np.float32]] = []
    skipped: list[str] = []
    size: tuple[int, int] | None = None
    for name, image in images:
        h, w = image.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(
                f"{name}: {w}x{h}, but the first image is {size[0]}x{size[1]}; calibrate with images of one size"
            )
        found = detect_charuco(image, spec)
        if found is None:
            skipped.append(name)
            continue
        obj_points.append(found[0].astype(np.float32))
        img_points.append(found[1].astype(np.float32))
    if size is None or len(obj_points) < MIN_VIEWS:
        raise CalibrationError(
            f"ChArUco board ({spec.squares_x}x{spec.squares_y} squares, {spec.dictionary}) found in "
            f"{len(obj_points)} of {len(images)} images; need at least {MIN_VIEWS}. Check --squares, "
            "--square-mm, --marker-mm and --dictionary match the printed board, and photograph it from "
            "several angles, sharp and well lit"
        )
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_points, img_points, size, None, None)
    return Intrinsics(np.asarray(k, dtype=np.float64), np.asarray(dist, dtype=np.float64).ravel(), size,
                      float(rms), len(obj_points), spec.to_json()), skipped


def load_intrinsics(path: str | Path) -> Intrinsics:
    """Read intrinsics from a file written by ``calibrate intrinsics`` (or a profile containing them)."""
    import json

    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CalibrationError(f"{p}: no such intrinsics file; create it with 'gammonwatch calibrate intrinsics'") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(
            f"{p}: not a readable JSON intrinsics file ({exc}); recreate it with 'gammonwatch calibrate intrinsics'"
        ) from exc
    if isinstance(data, dict) and isinstance(data.get("intrinsics"), dict):
        data = data["intrinsics"]
    return Intrinsics.from_json(data, str(p))
