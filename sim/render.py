"""pyrender (EGL on Mesa llvmpipe) rendering of a physical scene.

Set ``PYOPENGL_PLATFORM=egl`` (and ``LP_NUM_THREADS=1`` per worker) before importing this module;
:func:`ensure_egl` does it when the caller has not.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sim.camera import Camera, canvas_for
from sim.meshes import (
    board_texture,
    checker_mesh,
    die_atlas,
    hand_mesh,
    material_texture,
    rounded_cube,
    textured_box,
    textured_quad,
)
from sim.physics import World, quat_matrix
from sim.styles import RGB, Style


def ensure_egl() -> None:
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    os.environ.setdefault("LP_NUM_THREADS", "1")


ensure_egl()
if not hasattr(np, "infty"):  # pyrender 0.1.45 still uses np.infty, removed in NumPy 2
    np.infty = np.inf  # type: ignore[attr-defined]
import pyrender  # noqa: E402
import trimesh  # noqa: E402
from PIL import Image  # noqa: E402

TRANSLUCENT = [(200, 20, 30), (20, 120, 60), (30, 60, 190), (230, 200, 40), (240, 240, 240), (120, 40, 160)]
TABLE = [(120, 84, 52), (92, 62, 40), (150, 112, 74), (70, 70, 72), (110, 110, 105), (200, 196, 186),
         (40, 44, 52), (60, 72, 60), (130, 40, 36), (180, 160, 130)]
SKIN = [(224, 172, 140), (198, 140, 106), (160, 110, 80), (110, 74, 52), (236, 200, 176)]


@dataclass
class Hand:
    side: str  # 'near' or 'far': where the arm comes from
    pose: np.ndarray  # 4 x 4 world pose
    mesh: trimesh.Trimesh
    over: str = "board"

    def points(self, n: int = 400) -> np.ndarray:
        v = np.asarray(self.mesh.vertices)
        idx = np.linspace(0, len(v) - 1, min(n, len(v))).astype(int)
        return np.asarray(v[idx] @ self.pose[:3, :3].T + self.pose[:3, 3])


@dataclass
class SceneLook:
    """Appearance choices for one physical scene (shared by its camera views)."""

    style: Style
    translucent: bool
    dice_rgb: list[RGB]
    pip_rgb: list[RGB]
    table_rgb: RGB
    hands: list[Hand] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"style": self.style.name, "translucent_dice": self.translucent,
                "dice_rgb": [list(c) for c in self.dice_rgb], "hands": [h.side for h in self.hands]}


def _pips_for(rgb: RGB) -> RGB:
    return (20, 20, 20) if sum(rgb) > 380 else (245, 245, 245)


def sample_look(world: World, style: Style, rng: np.random.Generator, dice_colours: tuple[int, int],
                hands: int | None = None, translucent_share: float = 0.3) -> SceneLook:
    translucent = bool(rng.random() < translucent_share)
    dice_rgb: list[RGB] = []
    if translucent:
        if dice_colours[0] == 2:
            c = TRANSLUCENT[int(rng.integers(len(TRANSLUCENT)))]
            dice_rgb = [c, c]
        else:
            dice_rgb = [TRANSLUCENT[(4 if k == 0 else 0)] for k in dice_colours]
    else:
        for k in dice_colours:
            dice_rgb.append(style.dice_shared if k == 2 else (style.dice_light if k == 0 else style.dice_dark))
    pip_rgb = [(245, 245, 245) if translucent and sum(c) < 600 else _pips_for(c) for c in dice_rgb]
    base = TABLE[int(rng.integers(len(TABLE)))]
    tr, tg, tb = (int(np.clip(c * rng.uniform(0.85, 1.15), 0, 255)) for c in base)
    look = SceneLook(style, translucent, dice_rgb, pip_rgb, (tr, tg, tb))
    n_hands = int(rng.choice([0, 0, 1, 1, 2])) if hands is None else hands
    for _ in range(n_hands):
        look.hands.append(_sample_hand(world, rng))
    return look


def _sample_hand(world: World, rng: np.random.Generator) -> Hand:
    spec = world.spec
    side = "near" if rng.random() < 0.5 else "far"
    x = float(rng.uniform(spec.x_min + 5, spec.x_max - 5))
    y = float(rng.uniform(-spec.depth / 2 + 3, spec.depth / 2 - 3))
    z = float(rng.uniform(3.5, 14.0))
    yaw = float(rng.normal(0, 0.4)) + (0.0 if side == "near" else math.pi)
    pose = trimesh.transformations.rotation_matrix(yaw, [0, 0, 1])
    tilt = trimesh.transformations.rotation_matrix(float(rng.uniform(-0.3, 0.1)), [1, 0, 0])
    pose = pose @ tilt
    pose[:3, 3] = [x, y, z]
    skin = SKIN[int(rng.integers(len(SKIN)))]
    over = "board" if spec.half_of(x, y) is not None else "tray"
    return Hand(side, pose, hand_mesh(rng, skin), over)


class Renderer:
    """One per worker process: keeps the offscreen contexts (one per canvas size)."""

    def __init__(self) -> None:
        self._r: pyrender.OffscreenRenderer | None = None

    def _renderer(self, w: int, h: int) -> pyrender.OffscreenRenderer:
        # one GL context per process (meshes stay bound to it); the viewport follows the canvas
        if self._r is None:
            self._r = pyrender.OffscreenRenderer(w, h)
        self._r.viewport_width, self._r.viewport_height = w, h
        return self._r

    def build(self, world: World, look: SceneLook, rng: np.random.Generator) -> pyrender.Scene:
        scene = self.build_static(world, look, rng)
        self.add_dynamic(scene, world, look)
        return scene

    def build_static(self, world: World, look: SceneLook, rng: np.random.Generator) -> pyrender.Scene:
        """Table, board body, playing surface, rails and bar (what never moves)."""
        spec, style = world.spec, look.style
        scene = pyrender.Scene(bg_color=[0.3, 0.3, 0.3, 1.0], ambient_light=[0.0, 0.0, 0.0])
        tex = Image.fromarray(material_texture(look.table_rgb, str(rng.choice(["wood", "felt"])),
                                               (256, 256), rng).astype(np.uint8))
        scene.add(pyrender.Mesh.from_trimesh(textured_quad(spec.x_min - 25, spec.x_max + 25, -spec.depth / 2 - 22,
                                                           spec.depth / 2 + 22, -spec.base - 0.01, tex, 0.7)))
        rail_tex = Image.fromarray(material_texture(style.rail, style.rail_material, (128, 512), rng).astype(np.uint8))
        rough = 0.45 if style.rail_material == "wood" else 0.6
        w = spec.x_max - spec.x_min
        cx = (spec.x_min + spec.x_max) / 2
        self._box(scene, (w, spec.depth, spec.base), (cx, 0, -spec.base / 2 - 0.003), rail_tex, rough)
        board = board_texture(spec, style, rng)
        scene.add(pyrender.Mesh.from_trimesh(
            textured_quad(spec.x_min, spec.x_max, -spec.depth / 2, spec.depth / 2, 0.0, board, style.roughness)))
        for uid, body in world.bodies.items():
            if body.kind in ("rail", "bar"):
                lo, hi = world.aabb(uid)
                ext = hi - lo
                self._box(scene, (ext[0], ext[1], ext[2]), tuple((lo + hi) / 2), rail_tex, rough)
        return scene

    def add_dynamic(self, scene: pyrender.Scene, world: World, look: SceneLook,
                    cache: dict[tuple[object, ...], pyrender.Mesh] | None = None) -> list[pyrender.Node]:
        """Checkers, dice, cube and hands at their current poses; returns the nodes added. Meshes are
        reused from ``cache`` when given (a video keeps them across states)."""
        spec = world.spec
        cache = {} if cache is None else cache

        def mesh(key: tuple[object, ...], make: Callable[[], trimesh.Trimesh]) -> pyrender.Mesh:
            if key not in cache:
                cache[key] = pyrender.Mesh.from_trimesh(make())
            return cache[key]

        d, h = round(spec.checker_d, 4), round(spec.checker_h, 4)
        colours = (look.style.checker_light, look.style.checker_dark)
        checker_meshes = [mesh(("checker", d, h, c), functools.partial(checker_mesh, d, h, c)) for c in colours]
        nodes = [scene.add(checker_meshes[world.bodies[uid].colour], pose=self._pose(world, uid))
                 for uid in world.checkers]
        alpha = 0.72 if look.translucent else 1.0
        radius = spec.die * (0.06 if look.translucent else 0.1)
        rough = 0.25 if look.translucent else 0.45
        for k, uid in enumerate(world.dice):
            atlas = die_atlas(look.dice_rgb[k], look.pip_rgb[k])
            key = ("die", spec.die, look.dice_rgb[k], look.pip_rgb[k], look.translucent)
            m = mesh(key, functools.partial(rounded_cube, spec.die, radius, atlas, roughness=rough, alpha=alpha))
            nodes.append(scene.add(m, pose=self._pose(world, uid)))
        if world.cube is not None:
            atlas = die_atlas((240, 236, 226), (20, 20, 20), cube=True)
            m = mesh(("cube", spec.cube), functools.partial(rounded_cube, spec.cube, spec.cube * 0.08, atlas,
                                                             roughness=0.5))
            nodes.append(scene.add(m, pose=self._pose(world, world.cube)))
        for hand in look.hands:
            if ("hand", id(hand.mesh)) not in cache:
                cache[("hand", id(hand.mesh))] = pyrender.Mesh.from_trimesh(hand.mesh)
            nodes.append(scene.add(cache[("hand", id(hand.mesh))], pose=hand.pose))
        return nodes

    @staticmethod
    def _box(scene: pyrender.Scene, ext: tuple[float, float, float], centre: tuple[float, ...],
             tex: Image.Image, rough: float) -> None:
        pose = np.eye(4)
        pose[:3, 3] = centre
        scene.add(pyrender.Mesh.from_trimesh(textured_box(ext, tex, rough)), pose=pose)

    @staticmethod
    def _pose(world: World, uid: int) -> np.ndarray:
        p, q = world.pose(uid)
        m = np.eye(4)
        m[:3, :3] = quat_matrix(q)
        m[:3, 3] = p
        return m

    def render(self, scene: pyrender.Scene, cam: Camera, rng: np.random.Generator,
               shadows: bool = True) -> tuple[np.ndarray, np.ndarray, dict[str, object]]:
        """Pinhole canvas (RGB uint8) and linear depth for ``cam``, with randomised lights."""
        _mx, _my, cw, ch, px, py = canvas_for(cam)
        K = cam.K
        camera = pyrender.IntrinsicsCamera(K[0, 0], K[1, 1], K[0, 2] + px, K[1, 2] + py, znear=5.0, zfar=2000.0)
        pose = np.eye(4)
        pose[:3, :3] = cam.R.T @ np.diag([1.0, -1.0, -1.0])
        pose[:3, 3] = cam.position
        nodes = [scene.add(camera, pose=pose)]
        # lights: a key light (sun-like, with shadows) and a fill
        el = math.radians(float(rng.uniform(40, 85)))
        az = float(rng.uniform(0, 2 * math.pi))
        d = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        warm = float(rng.uniform(-0.08, 0.08))
        key_int = float(rng.uniform(2.5, 5.0))
        nodes.append(scene.add(pyrender.DirectionalLight(color=[1 + warm, 1.0, 1 - warm], intensity=key_int),
                               pose=_light_pose(d)))
        d2 = np.array([-d[0], -d[1], 1.5])
        fill = float(rng.uniform(0.6, 1.8))
        nodes.append(scene.add(pyrender.DirectionalLight(color=[1, 1, 1], intensity=fill),
                               pose=_light_pose(d2 / np.linalg.norm(d2))))
        scene.ambient_light = np.full(3, float(rng.uniform(0.15, 0.4)))
        flags = pyrender.RenderFlags.SHADOWS_DIRECTIONAL if shadows else pyrender.RenderFlags.NONE
        try:
            color, depth = self._renderer(cw, ch).render(scene, flags=flags)
        finally:
            for n in nodes:
                scene.remove_node(n)
        info = {"key_light_dir": np.round(d, 3).tolist(), "key_intensity": round(key_int, 3),
                "fill_intensity": round(fill, 3), "shadows": shadows}
        return np.ascontiguousarray(color[:, :, :3]), depth, info

    def close(self) -> None:
        if self._r is not None:
            self._r.delete()
            self._r = None


def _light_pose(direction_to_light: np.ndarray) -> np.ndarray:
    """Pose of a directional light shining along -direction_to_light (pyrender lights point -z)."""
    z = direction_to_light / np.linalg.norm(direction_to_light)
    x = np.cross([0.0, 1.0, 0.0], z)
    if np.linalg.norm(x) < 1e-6:
        x = np.array([1.0, 0.0, 0.0])
    x = x / np.linalg.norm(x)
    y = np.cross(z, x)
    m = np.eye(4)
    m[:3, :3] = np.stack([x, y, z], axis=1)
    return m
