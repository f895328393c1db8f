"""Cheap synthetic dice for training the die reader: OpenCV drawing, a perspective camera, colours.

Each sample is a small scene: a textured background, a soft shadow, a cube whose faces carry pips
(opposite faces sum to 7), tilted a little, seen by a pinhole camera from roughly above and off to
the side (so side faces show, as in real top-down photos), then blur, noise, colour cast, JPEG.
Sometimes a neighbouring die intrudes into the crop. The label is the value on the face whose
normal points up (world +z), i.e. the top face.

Only numpy and OpenCV; deterministic given the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import cv2
import numpy as np

# pip centres on a unit face [-1, 1]^2, in units of the pip offset
PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

TEX = 96  # face texture side, pixels

# cube faces: (normal, u axis, v axis); a face's corners are n + (+-u) + (+-v), half side 1
FACES = [
    (np.array([0, 0, 1.0]), np.array([1.0, 0, 0]), np.array([0, 1.0, 0])),
    (np.array([0, 0, -1.0]), np.array([1.0, 0, 0]), np.array([0, -1.0, 0])),
    (np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), np.array([0, 0, 1.0])),
    (np.array([-1.0, 0, 0]), np.array([0, -1.0, 0]), np.array([0, 0, 1.0])),
    (np.array([0, 1.0, 0]), np.array([-1.0, 0, 0]), np.array([0, 0, 1.0])),
    (np.array([0, -1.0, 0]), np.array([1.0, 0, 0]), np.array([0, 0, 1.0])),
]


def _rand_colour(rng: np.random.Generator) -> np.ndarray:
    kind = rng.random()
    if kind < 0.3:  # white / ivory / black / grey
        g = rng.choice([rng.uniform(200, 255), rng.uniform(10, 60), rng.uniform(90, 170)])
        c = np.array([g, g, g]) + rng.uniform(-15, 15, 3)
    else:  # saturated colour
        hsv = np.uint8([[[rng.integers(0, 180), rng.integers(120, 256), rng.integers(60, 256)]]])
        c = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(float)
    return np.clip(c, 0, 255)


def _lab(c: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[np.clip(c, 0, 255)]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)


def _colour_contrasting(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    """Pips that differ from the face in colour, not necessarily in brightness (red pips on a
    smoky dark die, yellow on green)."""
    for _ in range(30):
        c = _rand_colour(rng) if rng.random() < 0.7 else np.full(3, rng.uniform(0, 255))
        if np.linalg.norm(_lab(c) - _lab(face)) > 45:
            return np.clip(c, 0, 255)
    return _contrasting(rng, face)


def _contrasting(rng: np.random.Generator, face: np.ndarray) -> np.ndarray:
    lum = float(face @ np.array([0.114, 0.587, 0.299]))
    for _ in range(20):
        if rng.random() < 0.7:
            g = rng.uniform(0, 50) if lum > 110 else rng.uniform(200, 255)
            c = np.array([g, g, g]) + rng.uniform(-10, 10, 3)
        else:
            c = _rand_colour(rng)
        if abs(float(c @ np.array([0.114, 0.587, 0.299])) - lum) > 70:
            return np.clip(c, 0, 255)
    return np.array([0.0, 0, 0]) if lum > 110 else np.array([255.0, 255, 255])


def face_texture(rng: np.random.Generator, value: int, face: np.ndarray, pip: np.ndarray,
                 offset: float, radius: float, marble: float) -> np.ndarray:
    tex = np.empty((TEX, TEX, 3), np.float32)
    tex[:] = face
    if marble > 0:  # marbled / swirled plastic
        noise = cv2.GaussianBlur(rng.normal(0, 1, (TEX, TEX)).astype(np.float32), (0, 0), rng.uniform(3, 9))
        noise /= max(float(np.abs(noise).max()), 1e-6)
        other = _rand_colour(rng)
        w = np.clip(noise * marble + 0.0, 0, 1)[..., None]
        tex = tex * (1 - w) + other.astype(np.float32) * w
    rot = rng.integers(0, 4)
    h = TEX / 2
    for px, py in PIPS[value]:
        for _ in range(rot):
            px, py = -py, px
        cx, cy = h + px * offset * h, h + py * offset * h
        cv2.circle(tex, (int(round(cx * 4)), int(round(cy * 4))), int(round(radius * h * 4)),
                   pip.tolist(), -1, cv2.LINE_AA, shift=2)
    # darken the rounded edge of the face a little
    edge = np.ones((TEX, TEX), np.float32)
    b = max(2, int(TEX * rng.uniform(0.02, 0.08)))
    cv2.rectangle(edge, (b, b), (TEX - 1 - b, TEX - 1 - b), 0.0, -1)
    edge = cv2.GaussianBlur(edge, (0, 0), b / 1.5)
    tex *= (1 - 0.35 * edge)[..., None]
    return tex


def _background(rng: np.random.Generator, size: int) -> np.ndarray:
    base = _rand_colour(rng) if rng.random() < 0.6 else np.full(3, rng.uniform(120, 230))
    bg = np.empty((size, size, 3), np.float32)
    bg[:] = base
    # texture: felt / wood / speckle
    k = rng.random()
    if k < 0.4:
        n = rng.normal(0, rng.uniform(3, 15), (size, size, 1)).astype(np.float32)
        bg += n
    elif k < 0.7:
        n = cv2.GaussianBlur(rng.normal(0, 1, (size, size)).astype(np.float32), (0, 0), rng.uniform(1, 6))
        n = cv2.resize(n[: size // 4], (size, size))  # streaks
        bg += (n * rng.uniform(5, 30))[..., None]
    # a random straight edge (point triangle, rail, tray wall)
    if rng.random() < 0.4:
        p1 = rng.uniform(0, size, 2)
        ang = rng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)]) * size * 2
        c = _rand_colour(rng)
        poly = np.array([p1 - d, p1 + d, p1 + d + np.array([-d[1], d[0]]), p1 - d + np.array([-d[1], d[0]])])
        cv2.fillPoly(bg, [poly.astype(np.int32)], c.tolist())
    return bg


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    r, _ = cv2.Rodrigues((axis / np.linalg.norm(axis) * angle).reshape(3, 1))
    return np.asarray(r)


def _die_values(rng: np.random.Generator, top: int) -> list[int]:
    a = int(rng.choice([v for v in range(1, 7) if v not in (top, 7 - top)]))
    b = int(rng.choice([v for v in range(1, 7) if v not in (top, 7 - top, a, 7 - a)]))
    return [top, 7 - top, a, 7 - a, b, 7 - b]


def _draw_die(rng: np.random.Generator, img: np.ndarray, top: int, center_px: np.ndarray, side_px: float,
              look: dict[str, object]) -> np.ndarray:
    """Draw one die onto ``img`` (float32, in place); return its pixel box x0, y0, x1, y1."""
    size = img.shape[0]
    values = _die_values(rng, top)
    yaw = _rotation(np.array([0, 0, 1.0]), rng.uniform(0, 2 * np.pi))
    tilt_deg = rng.choice([rng.uniform(0, 4), rng.uniform(0, 15), rng.uniform(0, 28)], p=[0.5, 0.35, 0.15])
    tilt = _rotation(np.array([*rng.normal(0, 1, 2), 0.0]), np.radians(tilt_deg))
    rot = tilt @ yaw
    # camera: looks straight down (-z), die seen off-axis by up to ~35 degrees
    f = rng.uniform(400, 1400)
    dist = f * 2.0 / side_px  # cube side 2 units -> side_px pixels
    off_deg = rng.choice([rng.uniform(0, 10), rng.uniform(0, 35)])
    off_dir = rng.uniform(0, 2 * np.pi)
    lateral = np.tan(np.radians(off_deg)) * dist
    t_cam = np.array([lateral * np.cos(off_dir), lateral * np.sin(off_dir), dist])  # die centre in camera
    light = np.array([*rng.normal(0, 0.6, 2), 1.0])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.35, 0.7)

    def project(p: np.ndarray) -> np.ndarray:
        # world z up; camera z axis points down into the scene: cam = (x, -y, -z) + t
        q = np.array([p[0], -p[1], -p[2]]) + t_cam
        return np.array([f * q[0] / q[2], f * q[1] / q[2]])

    centre_proj = project(np.zeros(3))
    shift = center_px - centre_proj
    face_col = look["face"]
    pip_col = look["pip"]
    faces = []
    for (n, u, v), val in zip(FACES, values, strict=True):
        n_w, u_w, v_w = rot @ n, rot @ u, rot @ v
        centre_w = n_w
        cam_pos_w = np.array([-t_cam[0], t_cam[1], t_cam[2]])  # camera in die frame (inverse of project)
        if float(n_w @ (cam_pos_w - centre_w)) <= 0:
            continue
        corners = [centre_w - u_w - v_w, centre_w + u_w - v_w, centre_w + u_w + v_w, centre_w - u_w + v_w]
        pts = np.array([project(c) for c in corners]) + shift
        depth = float(np.linalg.norm(cam_pos_w - centre_w))
        shade = ambient + (1 - ambient) * max(0.0, float(n_w @ light))
        faces.append((depth, val, pts, shade))
    faces.sort(key=lambda x: -x[0])
    all_pts = []
    for _, val, pts, shade in faces:
        tex = face_texture(rng, val, face_col, pip_col, look["offset"], look["radius"], look["marble"])  # type: ignore[arg-type]
        src = np.float32([[0, 0], [TEX - 1, 0], [TEX - 1, TEX - 1], [0, TEX - 1]])
        h = cv2.getPerspectiveTransform(src, pts.astype(np.float32))
        warped = cv2.warpPerspective(tex * shade, h, (size, size), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.ones((TEX, TEX), np.float32), h, (size, size), flags=cv2.INTER_LINEAR)
        img *= (1 - mask)[..., None]
        img += warped * mask[..., None]
        all_pts.append(pts)
    p = np.concatenate(all_pts)
    return np.array([p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()])


def _look(rng: np.random.Generator, colour_pips: bool = False) -> dict[str, object]:
    face = _rand_colour(rng)
    if colour_pips and rng.random() < 0.25:  # smoky dark dice, as many real ones are
        face = np.full(3, rng.uniform(25, 90)) + rng.uniform(-15, 15, 3)
    return {
        "face": face,
        "pip": _colour_contrasting(rng, face) if colour_pips and rng.random() < 0.5 else _contrasting(rng, face),
        "offset": rng.uniform(0.45, 0.62),
        "radius": rng.uniform(0.12, 0.2),
        "marble": rng.uniform(0.3, 1.0) if rng.random() < 0.2 else 0.0,
    }


def render_sample(rng: np.random.Generator, value: int, colour_pips: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """One scene with a die showing ``value`` on top: (BGR uint8 image, pixel box of that die).

    ``colour_pips``: also pips that differ from the face by hue only, and smoky dark dice."""
    size = 192
    img = _background(rng, size)
    side = rng.uniform(55, 75)
    centre = np.array([size / 2, size / 2]) + rng.uniform(-6, 6, 2)
    # neighbouring dice (drawn first, may be partly hidden by the main die's crop margin)
    for _ in range(rng.choice([0, 0, 1, 2])):
        ang = rng.uniform(0, 2 * np.pi)
        d = side * rng.uniform(1.1, 1.6)
        _draw_die(rng, img, int(rng.integers(1, 7)), centre + d * np.array([np.cos(ang), np.sin(ang)]),
                  side * rng.uniform(0.85, 1.15), _look(rng))
    # soft shadow
    shadow = np.zeros((size, size), np.float32)
    sdir = rng.normal(0, 1, 2)
    sc = centre + sdir / max(np.linalg.norm(sdir), 1e-6) * side * rng.uniform(0.05, 0.3)
    cv2.circle(shadow, tuple(int(v) for v in sc), int(side * 0.65), 1.0, -1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), side * 0.15)
    img *= (1 - rng.uniform(0.2, 0.6) * shadow)[..., None]
    box = _draw_die(rng, img, value, centre, side, _look(rng, colour_pips))
    # global light: gradient + colour cast + gamma
    gx = np.linspace(-1, 1, size, dtype=np.float32)
    grad = 1 + rng.uniform(-0.25, 0.25) * gx[None, :] + rng.uniform(-0.25, 0.25) * gx[:, None]
    img *= grad[..., None]
    img *= rng.uniform(0.8, 1.2, 3).astype(np.float32) * rng.uniform(0.6, 1.3)
    img = np.clip(img, 0, 255)
    img = 255 * (img / 255) ** rng.uniform(0.7, 1.4)
    # resolution: die from ~20 to ~70 px wide, like real photos and 720p frames
    target = rng.uniform(18, 70)
    scale = target / (box[2] - box[0])
    out = int(round(size * scale))
    img = cv2.resize(img, (out, out), interpolation=cv2.INTER_AREA)
    box = box * scale
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.15:  # motion blur
        k = int(rng.integers(3, 6))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        m = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, m, (k, k))
        img = cv2.filter2D(img, -1, kern / max(float(kern.sum()), 1e-6))
    img += rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    img8 = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
    img8 = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    # box as a labeller would draw it: slightly loose or tight
    w, h = box[2] - box[0], box[3] - box[1]
    jitter = rng.normal(0, 0.06, 4) * np.array([w, h, w, h])
    return img8, box + jitter
