"""Camera model (OpenCV convention) and camera effects.

The renderer draws an ideal pinhole image on a slightly larger canvas; :func:`distort` warps it to
the lens with ``cv2.remap`` (maps cached per lens); ground-truth 2D points come from
``cv2.projectPoints`` with the same K and distortion, so labels and pixels agree.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from sim.table import TableSpec

WIDTH, HEIGHT = 1280, 720


@dataclass(frozen=True)
class Camera:
    K: np.ndarray  # 3 x 3
    dist: np.ndarray  # k1, k2, p1, p2, k3
    R: np.ndarray  # world -> camera rotation (OpenCV: x right, y down, z forward)
    t: np.ndarray  # world -> camera translation (cm)
    width: int = WIDTH
    height: int = HEIGHT
    elevation_deg: float = 90.0
    azimuth_deg: float = 0.0

    @property
    def position(self) -> np.ndarray:
        return np.asarray(-self.R.T @ self.t)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """N x 3 world points (cm) -> N x 2 distorted pixel coordinates."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        rvec, _ = cv2.Rodrigues(self.R)
        img, _ = cv2.projectPoints(pts, rvec, self.t.astype(np.float64), self.K, self.dist)
        return np.asarray(img.reshape(-1, 2))

    def depth(self, pts: np.ndarray) -> np.ndarray:
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        return np.asarray((pts @ self.R.T + self.t)[:, 2])

    def lens_key(self) -> tuple[float, ...]:
        return tuple(np.round(np.concatenate([self.K.ravel(), self.dist.ravel()]), 6).tolist())

    def to_json(self) -> dict[str, object]:
        rvec, _ = cv2.Rodrigues(self.R)
        return {
            "width": self.width, "height": self.height,
            "K": np.round(self.K, 4).tolist(), "dist": np.round(self.dist, 6).tolist(),
            "R": np.round(self.R, 6).tolist(), "t_cm": np.round(self.t, 4).tolist(),
            "rvec": np.round(rvec.ravel(), 6).tolist(), "position_cm": np.round(self.position, 3).tolist(),
            "elevation_deg": round(self.elevation_deg, 2), "azimuth_deg": round(self.azimuth_deg, 2),
            "convention": "OpenCV: x_cam = R @ x_world + t; world in cm, origin at the bar centre on the "
                          "playing surface, x right and y far as seen from the near seat, z up",
        }


def look_at(eye: np.ndarray, target: np.ndarray, heading: np.ndarray, roll: float = 0.0) -> np.ndarray:
    """World -> camera rotation looking from ``eye`` at ``target``; ``heading`` is the horizontal
    direction that should point up in the image."""
    z = target - eye
    z = z / np.linalg.norm(z)
    x = np.cross(heading, [0.0, 0.0, 1.0])
    x = x - z * np.dot(x, z)
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    if roll:
        c, s = math.cos(roll), math.sin(roll)
        x, y = c * x + s * y, -s * x + c * y
    return np.stack([x, y, z])


def sample_camera(spec: TableSpec, rng: np.random.Generator, elevation: float | None = None,
                  azimuth: float | None = None, fill: float | None = None) -> Camera:
    """Elevation 35..90 deg, seen from the near or far side (or slightly around), board filling
    70-95% of the frame; focal length, principal point and distortion randomised."""
    el = math.radians(elevation if elevation is not None else float(rng.uniform(35.0, 90.0)))
    if azimuth is None:
        az = float(rng.choice([0.0, 180.0])) + float(rng.normal(0, 12))
    else:
        az = azimuth
    heading = np.array([math.sin(math.radians(az)), math.cos(math.radians(az)), 0.0])
    hfov = math.radians(float(rng.uniform(48.0, 68.0)))
    f = WIDTH / 2 / math.tan(hfov / 2)
    fx = f * float(rng.uniform(0.96, 1.04))
    fy = fx * float(rng.uniform(0.997, 1.003))
    cx = WIDTH / 2 + float(rng.uniform(-8, 8))
    cy = HEIGHT / 2 + float(rng.uniform(-8, 8))
    K = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1.0]])
    k1 = float(rng.uniform(-0.25, 0.02))
    dist = np.array([k1, float(rng.uniform(-0.02, 0.06)) * (abs(k1) > 0.1), float(rng.normal(0, 0.0008)),
                     float(rng.normal(0, 0.0008)), 0.0])
    target = np.array([(spec.x_min + spec.x_max) / 2 + float(rng.normal(0, 1.0)), float(rng.normal(0, 1.0)), 0.0])
    roll = math.radians(float(rng.normal(0, 3)))
    fill = float(rng.uniform(0.72, 0.95)) if fill is None else fill
    outline = np.array([[x, y, z] for x in (spec.x_min, spec.x_max) for y in (-spec.depth / 2, spec.depth / 2)
                        for z in (0.0, spec.rail_h)])

    def view_from(d: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Eye at distance ``d``: its position, rotation, the outline in camera coordinates and pixels."""
        eye = target + d * (-math.cos(el) * heading + np.array([0, 0, math.sin(el)]))
        R = look_at(eye, target, heading, roll)
        cam = outline @ R.T - R @ eye
        return eye, R, cam, fx * cam[:, 0] / cam[:, 2] + cx, fy * cam[:, 1] / cam[:, 2] + cy

    d = 80.0
    for _ in range(8):
        _, _, _, u, v = view_from(d)
        ext = max((u.max() - u.min()) / WIDTH, (v.max() - v.min()) / HEIGHT)
        d *= ext / fill
    eye, R, cam, u, v = view_from(d)
    # re-centre the board in the frame by moving the target
    du, dv = (u.max() + u.min()) / 2 - cx, (v.max() + v.min()) / 2 - cy
    zc = float(np.mean(cam[:, 2]))
    shift = R.T @ np.array([du * zc / fx, dv * zc / fy, 0.0])
    eye = eye + shift
    t = -R @ eye
    return Camera(K=K, dist=dist, R=R, t=t, elevation_deg=math.degrees(el), azimuth_deg=az % 360)


# ------------------------------------------------------------------------- lens distortion
_MAPS: OrderedDict[tuple[float, ...], tuple[np.ndarray, np.ndarray, int, int, int, int]] = OrderedDict()


def canvas_for(cam: Camera) -> tuple[np.ndarray, np.ndarray, int, int, int, int]:
    """(map_x, map_y, canvas_w, canvas_h, pad_x, pad_y): the pinhole canvas that covers the lens."""
    key = cam.lens_key()
    if key in _MAPS:
        _MAPS.move_to_end(key)
        return _MAPS[key]
    w, h = cam.width, cam.height
    if not np.any(cam.dist):
        out: tuple[np.ndarray, np.ndarray, int, int, int, int] = (
            np.empty(0, np.float32), np.empty(0, np.float32), w, h, 0, 0)
    else:
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-4)
        border = np.concatenate([
            np.stack([np.linspace(0, w - 1, 64), np.zeros(64)], 1), np.stack([np.linspace(0, w - 1, 64), np.full(64, h - 1)], 1),
            np.stack([np.zeros(36), np.linspace(0, h - 1, 36)], 1), np.stack([np.full(36, w - 1), np.linspace(0, h - 1, 36)], 1)])
        und = cv2.undistortPoints(border.reshape(-1, 1, 2).astype(np.float64), cam.K, cam.dist, P=cam.K,
                                  criteria=crit).reshape(-1, 2)
        pad_x = int(math.ceil(max(0.0, -und[:, 0].min(), und[:, 0].max() - (w - 1)))) + 2
        pad_y = int(math.ceil(max(0.0, -und[:, 1].min(), und[:, 1].max() - (h - 1)))) + 2
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
        Kc = cam.K.copy()
        Kc[0, 2] += pad_x
        Kc[1, 2] += pad_y
        m = cv2.undistortPoints(pts, cam.K, cam.dist, P=Kc, criteria=crit).reshape(h, w, 2).astype(np.float32)
        out = (m[:, :, 0].copy(), m[:, :, 1].copy(), w + 2 * pad_x, h + 2 * pad_y, pad_x, pad_y)
    _MAPS[key] = out
    if len(_MAPS) > 24:
        _MAPS.popitem(last=False)
    return out


def distort(canvas: np.ndarray, cam: Camera) -> np.ndarray:
    map_x, map_y, cw, ch, px, py = canvas_for(cam)
    if map_x.size == 0:
        return canvas
    return cv2.remap(canvas, map_x, map_y, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


# ------------------------------------------------------------------------- effects
def motion_kernel(length: int, angle_deg: float) -> np.ndarray:
    """A straight motion blur's kernel: ``length`` pixels at ``angle_deg``, summing to 1."""
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), angle_deg, 1.0)
    k = np.asarray(cv2.warpAffine(k, rot, (length, length)), dtype=np.float32)
    k /= max(float(k.sum()), 1e-6)
    return k


def effects(img: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict[str, object]]:
    """White balance, vignetting, motion blur or defocus, shot/read noise (uint8 RGB in and out)."""
    info: dict[str, object] = {}
    x = img.astype(np.float32) / 255.0
    lin = x ** 2.2
    gains = np.clip(rng.normal(1.0, 0.06, 3), 0.8, 1.2).astype(np.float32)
    lin *= gains[None, None, :]
    info["wb_gains"] = np.round(gains, 3).tolist()
    v = float(rng.uniform(0.0, 0.4))
    h, w = img.shape[:2]
    yy, xx = np.ogrid[0:h, 0:w]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    lin *= (1 - v * r2).astype(np.float32)[:, :, None]
    info["vignetting"] = round(v, 3)
    expo = float(rng.uniform(0.75, 1.25))
    lin *= expo
    info["exposure"] = round(expo, 3)
    shot, read = float(rng.uniform(0.0005, 0.004)), float(rng.uniform(0.00005, 0.0005))
    lin = lin + rng.normal(0, 1, lin.shape).astype(np.float32) * np.sqrt(shot * np.clip(lin, 0, None) + read)
    info["noise"] = {"shot": round(shot, 5), "read": round(read, 6)}
    out = np.clip(np.clip(lin, 0, 1) ** (1 / 2.2) * 255 + 0.5, 0, 255).astype(np.uint8)
    u = rng.random()
    if u < 0.2:
        length = int(rng.integers(3, 10))
        ang = float(rng.uniform(0, 180))
        out = cv2.filter2D(out, -1, motion_kernel(length, ang))
        info["blur"] = {"motion_px": length, "angle_deg": round(ang, 1)}
    elif u < 0.4:
        sigma = float(rng.uniform(0.5, 1.4))
        out = cv2.GaussianBlur(out, (0, 0), sigma)
        info["blur"] = {"defocus_sigma_px": round(sigma, 2)}
    return out, info


def encode_jpeg(img_rgb: np.ndarray, quality: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return bytes(buf.tobytes())
