"""The calibration profile: one versioned JSON file per camera set-up.

```
{"format": "gammonwatch-calibration", "version": 1,
 "image_size": [1280, 720],
 "board": {"dimensions_cm": {...BoardDimensions...},
           "corners_px": [[x, y], ...],          # 4 or 8, issue-5 order
           "homographies": {"right": 3x3, "left": 3x3},   # board plane (cm) -> image px
           "method": "manual" | "auto"},
 "intrinsics": null | {"camera_matrix", "dist_coeffs", "image_size", "rms_px", ...},
 "pose": null | {"rvec": [3], "tvec": [3], "reprojection_px": float,
                 "camera_height_cm": float, "elevation_deg": float},
 "orientation": {"light_home": "near-right"},
 "source": {"image": "frame.png"}}
```

``orientation.light_home`` names the quadrant of the light player's home board (points 1-6 of his
own numbering); the dark home board is the quadrant across the board on the same left/right side.
:func:`own_to_physical` maps a player's own point number to the physical numbering of issue 5.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import (
    F64,
    HALVES,
    BoardDimensions,
    Half,
    as_corner_array,
    board_to_image,
    check_corners,
    corners_to_list,
    half_homographies,
)
from calibration.errors import CalibrationError, ProfileError
from calibration.intrinsics import Intrinsics

FORMAT = "gammonwatch-calibration"
VERSION = 1
Quadrant = Literal["near-right", "near-left", "far-left", "far-right"]
QUADRANTS: tuple[Quadrant, ...] = ("near-right", "near-left", "far-left", "far-right")
ACROSS: dict[Quadrant, Quadrant] = {
    "near-right": "far-right", "far-right": "near-right", "near-left": "far-left", "far-left": "near-left",
}
FIX = "recreate it with 'gammonwatch calibrate board IMAGE --out FILE'"


def own_to_physical(home: Quadrant, point: int) -> int:
    """Physical point (issue 5 numbering) of ``point`` (1..24) in the own numbering of the player
    whose home board is ``home``.

    >>> own_to_physical("near-right", 6), own_to_physical("far-right", 6), own_to_physical("far-left", 1)
    (6, 19, 13)
    """
    if not 1 <= point <= 24:
        raise ValueError(f"no point {point}; points are 1..24")
    if home == "near-right":
        return point
    if home == "far-right":
        return 25 - point
    if home == "far-left":
        return (point + 11) % 24 + 1
    return 13 - point if point <= 12 else 37 - point


@dataclass(frozen=True)
class Orientation:
    light_home: Quadrant = "near-right"

    @property
    def dark_home(self) -> Quadrant:
        return ACROSS[self.light_home]

    def home(self, colour: Literal["light", "dark"]) -> Quadrant:
        return self.light_home if colour == "light" else self.dark_home

    def to_json(self) -> dict[str, object]:
        return {"light_home": self.light_home, "dark_home": self.dark_home}


@dataclass(frozen=True)
class Pose:
    """Board -> camera: ``x_cam = R(rvec) x_board + tvec`` (cm)."""

    rvec: F64
    tvec: F64
    reprojection_px: float

    @property
    def camera_centre(self) -> F64:
        r, _ = cv2.Rodrigues(self.rvec)
        return np.asarray(-r.T @ self.tvec.reshape(3), dtype=np.float64)

    @property
    def elevation_deg(self) -> float:
        """Angle between the board plane and the line from the board centre to the camera."""
        c = self.camera_centre
        return math.degrees(math.atan2(float(c[2]), float(np.hypot(c[0], c[1]))))

    def to_json(self) -> dict[str, object]:
        return {
            "rvec": [float(v) for v in self.rvec.ravel()],
            "tvec": [float(v) for v in self.tvec.ravel()],
            "reprojection_px": round(self.reprojection_px, 4),
            "camera_height_cm": round(float(self.camera_centre[2]), 3),
            "elevation_deg": round(self.elevation_deg, 3),
        }


def solve_pose(dims: BoardDimensions, corners: F64, intrinsics: Intrinsics) -> Pose:
    """Camera pose from the 4 or 8 corners and the intrinsics (``cv2.solvePnP``)."""
    obj = dims.corners(8 if len(corners) == 8 else 4)
    ok, rvec, tvec = cv2.solvePnP(obj, corners.astype(np.float64), intrinsics.camera_matrix, intrinsics.dist_coeffs,
                                  flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise CalibrationError("the camera pose could not be solved from these corners and intrinsics")
    ok, rvec, tvec = cv2.solvePnP(obj, corners.astype(np.float64), intrinsics.camera_matrix, intrinsics.dist_coeffs,
                                  rvec, tvec, useExtrinsicGuess=True, flags=cv2.SOLVEPNP_ITERATIVE)
    proj, _ = cv2.projectPoints(obj, rvec, tvec, intrinsics.camera_matrix, intrinsics.dist_coeffs)
    err = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - corners) ** 2, axis=1))))
    return Pose(np.asarray(rvec, dtype=np.float64).ravel(), np.asarray(tvec, dtype=np.float64).ravel(), err)


@dataclass(frozen=True)
class CalibrationProfile:
    image_size: tuple[int, int]
    corners: F64
    """4 or 8 image corners (pixels) in the issue-5 order."""
    dims: BoardDimensions = field(default_factory=BoardDimensions)
    intrinsics: Intrinsics | None = None
    pose: Pose | None = None
    orientation: Orientation = field(default_factory=Orientation)
    method: str = "manual"
    source_image: str | None = None

    @classmethod
    def from_corners(cls, corners: npt.ArrayLike, image_size: tuple[int, int], *,
                     dims: BoardDimensions | None = None, intrinsics: Intrinsics | None = None,
                     orientation: Orientation | None = None, method: str = "manual",
                     source_image: str | None = None) -> CalibrationProfile:
        """Validate the corners, and solve the pose when intrinsics are given."""
        c = as_corner_array(np.asarray(corners, dtype=np.float64).tolist())
        check_corners(c, image_size)
        d = dims or BoardDimensions()
        if intrinsics is not None:
            intrinsics = intrinsics.scaled_to(image_size)
        pose = solve_pose(d, c, intrinsics) if intrinsics is not None else None
        return cls(image_size, c, d, intrinsics, pose, orientation or Orientation(), method, source_image)

    @property
    def homographies(self) -> dict[Half, F64]:
        return half_homographies(self.dims, self.corners)

    def project(self, xyz: npt.ArrayLike) -> F64:
        """Image pixels of board-frame points ``N x 3`` (cm).

        With a pose (intrinsics given) this is the exact projection, heights included (checkers in
        tall stacks, the bar top); without, points are projected with the homography of the half
        they lie over and their height is ignored.
        """
        pts = np.asarray(xyz, dtype=np.float64).reshape(-1, 3)
        if self.pose is not None and self.intrinsics is not None:
            proj, _ = cv2.projectPoints(pts, self.pose.rvec, self.pose.tvec, self.intrinsics.camera_matrix,
                                        self.intrinsics.dist_coeffs)
            return np.asarray(proj.reshape(-1, 2), dtype=np.float64)
        hs = self.homographies
        out = np.empty((len(pts), 2), dtype=np.float64)
        right = pts[:, 0] >= 0
        for half, mask in (("right", right), ("left", ~right)):
            if mask.any():
                out[mask] = board_to_image(hs[half], pts[mask, :2])  # type: ignore[index]
        return out

    def with_orientation(self, light_home: Quadrant) -> CalibrationProfile:
        return replace(self, orientation=Orientation(light_home))

    # ---- JSON --------------------------------------------------------------
    def to_json(self) -> dict[str, object]:
        hs = self.homographies
        return {
            "format": FORMAT,
            "version": VERSION,
            "image_size": list(self.image_size),
            "board": {
                "dimensions_cm": self.dims.to_json(),
                "corners_px": corners_to_list(self.corners),
                "homographies": {h: [[float(v) for v in row] for row in hs[h]] for h in HALVES},
                "method": self.method,
            },
            "intrinsics": None if self.intrinsics is None else self.intrinsics.to_json(),
            "pose": None if self.pose is None else self.pose.to_json(),
            "orientation": self.orientation.to_json(),
            "source": {"image": self.source_image},
        }

    def save(self, path: str | Path) -> None:
        """Write atomically (temporary file, then rename), so a failure never leaves half a profile."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def from_json(cls, data: object, where: str = "profile") -> CalibrationProfile:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProfileError(f"{where}: not a gammonwatch calibration profile (no \"format\": \"{FORMAT}\"); {FIX}")
        version = data.get("version")
        if version != VERSION:
            raise ProfileError(f"{where}: profile version {version!r}, this program reads version {VERSION}; {FIX}")
        try:
            w, h = (int(v) for v in data["image_size"])
            board = data["board"]
            corners = as_corner_array(board["corners_px"])
            dims = BoardDimensions(**board.get("dimensions_cm", {}))
            light_home = data.get("orientation", {}).get("light_home", "near-right")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProfileError(f"{where}: malformed profile ({exc}); {FIX}") from exc
        if light_home not in QUADRANTS:
            raise ProfileError(f"{where}: orientation.light_home must be one of {', '.join(QUADRANTS)}, got {light_home!r}")
        intr = data.get("intrinsics")
        intrinsics = Intrinsics.from_json(intr, where) if intr is not None else None
        try:
            return cls.from_corners(corners, (w, h), dims=dims, intrinsics=intrinsics,
                                    orientation=Orientation(light_home), method=str(board.get("method", "manual")),
                                    source_image=(data.get("source") or {}).get("image"))
        except CalibrationError as exc:
            raise ProfileError(f"{where}: {exc}; {FIX}") from exc

    @classmethod
    def load(cls, path: str | Path) -> CalibrationProfile:
        p = Path(path)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ProfileError(f"{p}: no such calibration profile; create one with 'gammonwatch calibrate board'") from exc
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ProfileError(f"{p}: not readable JSON ({exc}); {FIX}") from exc
        return cls.from_json(data, str(p))


READABLE_DIE_PX = 15.0
"""Smallest top-face side (pixels) at which the die reader reads values reliably: session 10's
full-match renders read the far dice well at 15.7-17.2 px and misread a fifth of the rolls at
13.3 px (docs/server.md). A guide from five cameras, not a measured curve."""


def smallest_die_px(profile: CalibrationProfile, die_cm: float = 1.75) -> float:
    """The side (pixels) of a die's top face lying flat at the playing surface's farthest corners,
    where the camera sees dice smallest (the board plane's homographies; the face's height ignored)."""
    q = profile.dims.play_depth / 2
    sides = []
    for half, hmat in profile.homographies.items():
        x0, x1, _, _ = profile.dims.half_rect(half)
        for x in (x0 + die_cm, x1 - 2 * die_cm):
            for y in (-q + die_cm, q - 2 * die_cm):
                sq = np.array([[x, y], [x + die_cm, y], [x + die_cm, y + die_cm], [x, y + die_cm]])
                uv = board_to_image(hmat, sq)
                area = 0.5 * abs(float(np.sum(uv[:, 0] * np.roll(uv[:, 1], -1) - np.roll(uv[:, 0], -1) * uv[:, 1])))
                sides.append(float(np.sqrt(area)))
    return min(sides)


def die_size_warning(profile: CalibrationProfile, die_cm: float = 1.75) -> str | None:
    """A warning for whoever sets the camera up when the farthest dice will look too small to read."""
    px = smallest_die_px(profile, die_cm)
    if px >= READABLE_DIE_PX:
        return None
    return (f"warning: a {die_cm:g} cm die at the far corners of the board will be {px:.1f} px wide in this camera's "
            f"image; dice values are read reliably from about {READABLE_DIE_PX:g} px: move the camera closer, zoom "
            "in or use a higher resolution, then calibrate again")

