"""Render meshes and textures: rounded-cube dice with a pip sheet, the doubling cube, bevelled
checkers, the textured board surface, rails, and hand proxies.

Textures go through trimesh's ``PBRMaterial`` (a pyrender texture made straight from a PIL image
renders plain grey; SIMULATOR-NOTES.md).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import trimesh
from PIL import Image, ImageDraw, ImageFont

from sim.styles import RGB, Style
from sim.table import TableSpec

# die face value -> atlas cell (col, row) in a 3 x 2 sheet; face -> local axis as in sim.physics
_FACES = [  # (value, normal axis, sign)
    (1, 2, 1), (6, 2, -1), (2, 0, 1), (5, 0, -1), (3, 1, 1), (4, 1, -1)]
_PIPS = {
    1: [(0.5, 0.5)], 2: [(0.27, 0.27), (0.73, 0.73)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.27, 0.24), (0.73, 0.24), (0.27, 0.5), (0.73, 0.5), (0.27, 0.76), (0.73, 0.76)],
}
_CUBE = {1: 64, 6: 2, 2: 4, 5: 32, 3: 8, 4: 16}  # die axis value -> cube face


def _material(image: Image.Image, roughness: float = 0.6, metallic: float = 0.0,
              alpha: float = 1.0) -> trimesh.visual.material.PBRMaterial:
    kw: dict[str, object] = {}
    if alpha < 1.0:
        kw = {"alphaMode": "BLEND", "baseColorFactor": [1.0, 1.0, 1.0, alpha]}
    return trimesh.visual.material.PBRMaterial(baseColorTexture=image, roughnessFactor=roughness,
                                               metallicFactor=metallic, **kw)


@functools.lru_cache(maxsize=64)
def die_atlas(colour: RGB, pips: RGB, cube: bool = False, cell: int = 128) -> Image.Image:
    img = Image.new("RGB", (3 * cell, 2 * cell), colour)
    d = ImageDraw.Draw(img)
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont | None = None
    if cube:
        try:
            font = ImageFont.truetype("DejaVuSans-Bold.ttf", int(cell * 0.46))
        except OSError:
            font = ImageFont.load_default()
    for value, _, _ in _FACES:
        k = value - 1
        cx, cy = (k % 3) * cell, (k // 3) * cell
        if cube:
            text = str(_CUBE[value])
            assert font is not None
            box = d.textbbox((0, 0), text, font=font)
            w, h = box[2] - box[0], box[3] - box[1]
            d.text((cx + (cell - w) / 2 - box[0], cy + (cell - h) / 2 - box[1]), text, fill=pips, font=font)
        else:
            r = cell * 0.085
            for u, v in _PIPS[value]:
                d.ellipse([cx + u * cell - r, cy + v * cell - r, cx + u * cell + r, cy + v * cell + r], fill=pips)
    return img


def rounded_cube(size: float, radius: float, atlas: Image.Image, n: int = 6, roughness: float = 0.4,
                 alpha: float = 1.0) -> trimesh.Trimesh:
    """A cube with rounded edges; each face an n x n grid textured from its atlas cell."""
    s = size / 2
    inner = s - radius
    verts: list[np.ndarray] = []
    faces: list[list[int]] = []
    uvs: list[tuple[float, float]] = []
    g = np.linspace(-1, 1, n + 1)
    for value, axis, sign in _FACES:
        k = value - 1
        col, row = k % 3, k // 3
        a1, a2 = [i for i in range(3) if i != axis]
        base = len(verts)
        for u in g:
            for v in g:
                p = np.zeros(3)
                p[axis] = sign * s
                p[a1] = u * s
                p[a2] = v * s
                clamped = np.clip(p, -inner, inner)
                dvec = p - clamped
                nrm = np.linalg.norm(dvec)
                q = clamped + (dvec / nrm * radius if nrm > 1e-9 else 0)
                verts.append(q)
                # orient texture so it reads upright from +a2 direction; flip for handedness
                handed = sign * (-1 if axis == 1 else 1)  # is (a1, a2, normal) right-handed?
                uu = (u + 1) / 2 if handed > 0 else 1 - (u + 1) / 2
                vv = (v + 1) / 2
                uvs.append(((col + uu) / 3, 1 - (row + 1 - vv) / 2))
        for i in range(n):
            for j in range(n):
                a = base + i * (n + 1) + j
                b, c, d = a + n + 1, a + 1, a + n + 2
                tri = [[a, b, d], [a, d, c]]
                # outward winding
                pa, pb_, pd = verts[a], verts[b], verts[d]
                if np.dot(np.cross(pb_ - pa, pd - pa), np.eye(3)[axis] * sign) < 0:
                    tri = [[a, d, b], [a, c, d]]
                faces.extend(tri)
    mesh = trimesh.Trimesh(np.array(verts), np.array(faces), process=False)
    mesh.visual = trimesh.visual.TextureVisuals(uv=np.array(uvs), material=_material(atlas, roughness, alpha=alpha))
    return mesh


@functools.lru_cache(maxsize=32)
def checker_mesh(diameter: float, height: float, colour: RGB, sections: int = 48) -> trimesh.Trimesh:
    """A bevelled checker with a shallow ring on the top face (a plain cylinder looks like a ball)."""
    r, h = diameter / 2, height / 2
    b = min(0.12, height * 0.15)
    profile = [(0.0, -h), (r - b, -h), (r, -h + b), (r, h - b), (r - b, h), (r * 0.78, h), (r * 0.76, h - 0.03),
               (r * 0.70, h - 0.03), (r * 0.68, h), (0.0, h)]
    mesh = trimesh.creation.revolve(np.array(profile), sections=sections)
    mesh = trimesh.graph.smooth_shade(mesh, angle=math.radians(40))
    rgba = np.array([*colour, 255], dtype=np.uint8)
    mesh.visual = trimesh.visual.ColorVisuals(mesh, vertex_colors=np.tile(rgba, (len(mesh.vertices), 1)))
    return mesh


def _noise(shape: tuple[int, int], rng: np.random.Generator, scale: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, shape[0] // scale), max(2, shape[1] // scale))).astype(np.float32)
    img = Image.fromarray(small).resize((shape[1], shape[0]), Image.Resampling.BICUBIC)
    return np.asarray(img, dtype=np.float32)


def material_texture(colour: RGB, material: str, shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """H x W x 3 float array in 0..255: felt (fine noise), wood (grain), leather (mottling)."""
    base = np.array(colour, dtype=np.float32)[None, None, :]
    h, w = shape
    if material == "felt":
        f = 1 + 0.05 * rng.normal(0, 1, (h, w)).astype(np.float32) + 0.03 * _noise(shape, rng, 16)
    elif material == "wood":
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        warp = _noise(shape, rng, 64) * 12
        grain = np.sin((yy + warp) / max(2.0, h / 90) + 0.3 * _noise(shape, rng, 8))
        f = 1 + 0.09 * grain + 0.04 * _noise(shape, rng, 4)
        del xx
    else:
        f = 1 + 0.06 * _noise(shape, rng, 3) + 0.05 * _noise(shape, rng, 24)
    return np.clip(base * f[:, :, None], 0, 255)


def board_texture(spec: TableSpec, style: Style, rng: np.random.Generator, px_per_cm: float = 16.0) -> Image.Image:
    """The playing surface (whole board footprint, z = 0) with the 24 points, as a texture image."""
    w = int((spec.x_max - spec.x_min) * px_per_cm)
    h = int(spec.depth * px_per_cm)
    arr = material_texture(style.surface, style.material, (h, w), rng)
    img = Image.fromarray(arr.astype(np.uint8))
    d = ImageDraw.Draw(img)

    def to_px(x: float, y: float) -> tuple[float, float]:
        return ((x - spec.x_min) * px_per_cm, (spec.depth / 2 - y) * px_per_cm)

    for p in range(1, 25):
        tri = spec.point_triangle(p)
        colour = style.point_a if p % 2 else style.point_b
        d.polygon([to_px(*v) for v in tri], fill=colour)
    # tray floor a little darker
    for end in ("right", "left")[: spec.trays]:
        tx0, tx1, ty0, ty1 = spec.tray_rect(end)
        d.rectangle([to_px(tx0, ty1), to_px(tx1, ty0)], fill=tuple(int(c * 0.8) for c in style.surface))
    if style.material != "wood":
        # the points are printed/stitched on: a faint texture over them too
        over = material_texture((128, 128, 128), style.material, (h, w), rng) / 128.0
        img = Image.fromarray(np.clip(np.asarray(img, dtype=np.float32) * over, 0, 255).astype(np.uint8))
    return img


def textured_quad(x0: float, x1: float, y0: float, y1: float, z: float, image: Image.Image,
                  roughness: float) -> trimesh.Trimesh:
    v = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]])
    f = np.array([[0, 1, 2], [0, 2, 3]])
    m = trimesh.Trimesh(v, f, process=False)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=float)
    m.visual = trimesh.visual.TextureVisuals(uv=uv, material=_material(image, roughness))
    return m


def textured_box(extents: tuple[float, float, float], image: Image.Image, roughness: float) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=extents)
    box = box.unwrap() if False else box  # noqa: SIM108 (kept simple: planar uv below)
    v = box.vertices
    span = np.ptp(v, axis=0) + 1e-9
    uv = np.stack([(v[:, 0] - v[:, 0].min()) / span[0] * 0.7 + (v[:, 2] - v[:, 2].min()) / span[2] * 0.3,
                   (v[:, 1] - v[:, 1].min()) / span[1]], axis=1)
    box.visual = trimesh.visual.TextureVisuals(uv=uv, material=_material(image, roughness))
    return box


def hand_mesh(rng: np.random.Generator, skin: RGB) -> trimesh.Trimesh:
    """A hand proxy: palm, four fingers, a thumb and a forearm along -y (towards the player)."""
    parts = []
    palm = trimesh.creation.icosphere(subdivisions=2, radius=1.0)
    palm.apply_scale([4.2, 4.8, 1.4])
    parts.append(palm)
    spread = rng.uniform(0.0, 0.25)
    for k in range(4):
        x = -2.7 + k * 1.8
        length = [6.0, 7.0, 6.6, 5.2][k] * rng.uniform(0.85, 1.1)
        f = trimesh.creation.capsule(height=length, radius=0.8, count=[10, 10])
        rot = trimesh.transformations.rotation_matrix(math.pi / 2 + rng.uniform(-0.15, 0.35), [1, 0, 0])
        rot2 = trimesh.transformations.rotation_matrix((k - 1.5) * spread, [0, 0, 1])
        f.apply_transform(rot)
        f.apply_translation([0, length / 2, -0.2])
        f.apply_transform(rot2)
        f.apply_translation([x, 3.8, 0])
        parts.append(f)
    th = trimesh.creation.capsule(height=4.5, radius=0.95, count=[10, 10])
    th.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [0, 1, 0]))
    th.apply_transform(trimesh.transformations.rotation_matrix(-0.7, [0, 0, 1]))
    th.apply_translation([4.6, 1.5, -0.3])
    parts.append(th)
    arm = trimesh.creation.capsule(height=30.0, radius=3.0, count=[12, 12])
    arm.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))
    arm.apply_translation([0, -19.0, 0.5])
    parts.append(arm)
    mesh = trimesh.Trimesh(*_concat(parts), process=False)
    rgba = np.array([*skin, 255], dtype=np.uint8)
    mesh.visual = trimesh.visual.ColorVisuals(mesh, vertex_colors=np.tile(rgba, (len(mesh.vertices), 1)))
    return mesh


def _concat(parts: list[trimesh.Trimesh]) -> tuple[np.ndarray, np.ndarray]:
    verts, faces, off = [], [], 0
    for p in parts:
        verts.append(np.asarray(p.vertices))
        faces.append(np.asarray(p.faces) + off)
        off += len(p.vertices)
    return np.vstack(verts), np.vstack(faces)
