"""Motion for scripted-match videos: physical throws and the hand proxy's path.

A throw is a pybullet trajectory: the dice leave the roller's hand above his side of the board,
fly into his right-hand half, tumble and come to rest; the poses are sampled once per video frame.
The transcript fixes the values the dice must show. A die's collision shape is a cube, so turning
its *pip layout* by one of the cube's 24 rotations does not change the physics: after the throw we
pick the rotation that puts the transcript's value on the face physics left on top, and render the
whole trajectory with it (``value_fix``). The die's position, bounces and final tilt are physics'.

The hand proxy (``sim.meshes.hand_mesh``: palm, fingers, forearm) is moved kinematically: it comes
from the player's seat edge, goes to what it acts on (a checker's slot, the dice, the cube, the
clock), lifts and carries checkers and dice, and goes back to the seat edge.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb
import trimesh

from sim.physics import _DIE_AXES, DT, GRAVITY, World, face_up, quat_matrix
from sim.table import TableSpec

Pose = tuple[np.ndarray, tuple[float, ...]]

# the 24 proper rotations of a cube, as (matrix, quaternion xyzw)
_ROTATIONS: list[tuple[np.ndarray, tuple[float, ...]]] = []
for _e in itertools.product((0.0, 0.5, 1.0, 1.5), repeat=3):
    _q = tuple(pb.getQuaternionFromEuler([a * math.pi for a in _e]))
    _m = np.round(quat_matrix(_q))
    if not any(np.array_equal(_m, m) for m, _ in _ROTATIONS):
        _ROTATIONS.append((_m, _q))
assert len(_ROTATIONS) == 24

_AXIS = {v: np.eye(3)[i] * s for (i, s), v in _DIE_AXES}

HAND_TIP_BELOW_PALM = 2.2  # cm from the palm centre down to what the fingers hold
HAND_BACK = 10.0  # cm from the finger tips back to the palm centre (towards the player): what it holds shows


def value_fix(value_up: int, wanted: int) -> tuple[float, ...]:
    """Die-local rotation F (quaternion) such that a die whose physical orientation shows
    ``value_up`` shows ``wanted`` when its pip layout is turned by F (render with ``compose(q, F)``)."""
    want_axis, up_axis = _AXIS[wanted], _AXIS[value_up]
    for m, q in _ROTATIONS:
        if np.allclose(m @ want_axis, up_axis):
            return q
    raise AssertionError("no cube rotation maps one face axis to another")  # pragma: no cover


def compose(q: tuple[float, ...], f: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(pb.multiplyTransforms([0, 0, 0], q, [0, 0, 0], f)[1])


def roller_side(half: str) -> float:
    """-1 for the near seat (whose right-hand half is the world's right), +1 for the far seat."""
    return -1.0 if half == "right" else 1.0


def release_point(spec: TableSpec, half: str, rng: np.random.Generator) -> np.ndarray:
    """Where the roller's hand lets the dice go: above his own edge of his right-hand half."""
    x0, x1, _y0, _y1 = spec.half_rect(half)
    s = roller_side(half)
    return np.array([float(rng.uniform(x0 + 3, x1 - 3)), s * (spec.play_d / 2 - float(rng.uniform(1.0, 3.5))),
                     float(rng.uniform(5.0, 8.0))])


@dataclass
class Throw:
    frames: list[list[Pose]]
    """Per video frame, each die's (position, quaternion); the last frame is at rest."""
    settled: bool
    rest_index: int
    """First frame index at which every die is still."""


def throw_dice(world: World, dice: list[int], halves: list[str], rng: np.random.Generator, fps: float,
               release: np.ndarray | None = None, max_time: float = 4.0) -> Throw:
    """Throw ``dice`` (die k into ``halves[k]``, from that roller's side) and simulate until they
    rest, sampling poses at ``fps``."""
    spec = world.spec
    for k, uid in enumerate(dice):
        half = halves[k]
        x0, x1, y0, y1 = spec.half_rect(half)
        r = release if release is not None and len(set(halves)) == 1 else release_point(spec, half, rng)
        pos = (float(r[0] + rng.normal(0, 0.5) + (2.0 * k - 1.0) * spec.die * 0.9),
               float(r[1] + rng.normal(0, 0.5)), float(r[2] + rng.normal(0, 0.3)))
        tx = float(rng.uniform(x0 + 3, x1 - 3))
        ty = float(rng.uniform(y0 + 4, y1 - 4)) * 0.6
        dist = math.hypot(tx - pos[0], ty - pos[1])
        t_fall = math.sqrt(2 * pos[2] / -GRAVITY)
        speed = dist / max(t_fall, 0.05) * float(rng.uniform(0.45, 0.7))
        dirx, diry = (tx - pos[0]) / max(dist, 1e-6), (ty - pos[1]) / max(dist, 1e-6)
        lin = (dirx * speed, diry * speed, float(rng.uniform(-40, 10)))
        ang = tuple(float(v) for v in rng.normal(0, 25, 3))
        q = tuple(pb.getQuaternionFromEuler(list(rng.uniform(-math.pi, math.pi, 3))))
        world.set_pose(uid, pos, q, lin, ang)  # type: ignore[arg-type]
    per_frame = max(1, round(1.0 / (fps * DT)))
    frames: list[list[Pose]] = [[world.pose(u) for u in dice]]
    still_steps = 0
    rest_index = -1
    for _ in range(int(max_time * fps)):
        for _s in range(per_frame // 4):
            world.step(4)
            moving = any(np.linalg.norm(pb.getBaseVelocity(u, physicsClientId=world.client)[0]) > 0.3 or
                         np.linalg.norm(pb.getBaseVelocity(u, physicsClientId=world.client)[1]) > 0.3 for u in dice)
            still_steps = 0 if moving else still_steps + 4
        world.step(per_frame % 4)
        frames.append([world.pose(u) for u in dice])
        if still_steps * DT >= 0.25:
            if rest_index < 0:
                rest_index = len(frames) - 1
            if still_steps * DT >= 0.4:
                return Throw(frames, True, rest_index)
    return Throw(frames, False, rest_index if rest_index >= 0 else len(frames) - 1)


def face_up_of(pose: Pose) -> int:
    return face_up(pose[1])


# ------------------------------------------------------------------ the hand's path
def hand_matrix(side: str, tip: np.ndarray, palm_z: float) -> np.ndarray:
    """4 x 4 pose of the hand mesh with its finger tips over ``tip`` (x, y) and the palm at ``palm_z``."""
    yaw = 0.0 if side == "near" else math.pi
    m = np.asarray(trimesh.transformations.rotation_matrix(yaw, [0, 0, 1]))
    back = np.array([math.sin(yaw), -math.cos(yaw)]) * HAND_BACK
    m[:3, 3] = [tip[0] + back[0], tip[1] + back[1], palm_z]
    return m


def seat_edge(spec: TableSpec, side: str, x: float) -> np.ndarray:
    """Where a hand comes from and goes back to: beyond the rail in front of that seat."""
    s = -1.0 if side == "near" else 1.0
    return np.array([float(np.clip(x, spec.x_min, spec.x_max)), s * (spec.depth / 2 + 16.0), 9.0])


@dataclass
class HandPath:
    """A hand's finger-tip point over one segment of video: keyframes (time, x, y, palm z) and what it
    carries (body ids with their offsets from the finger tips) between two times."""

    side: str
    keys: list[tuple[float, np.ndarray]] = field(default_factory=list)
    carry: list[tuple[float, float, list[int]]] = field(default_factory=list)

    def at(self, tau: float) -> np.ndarray:
        if not self.keys:
            raise ValueError("empty hand path")
        if tau <= self.keys[0][0]:
            return self.keys[0][1].copy()
        for (t0, p0), (t1, p1) in itertools.pairwise(self.keys):
            if t0 <= tau <= t1:
                s = 0.0 if t1 <= t0 else (tau - t0) / (t1 - t0)
                s = s * s * (3 - 2 * s)  # ease in and out
                p = p0 + (p1 - p0) * s
                # an arc over the board when the hand travels
                dist = float(np.hypot(*(p1 - p0)[:2]))
                p[2] += min(4.0, dist * 0.15) * math.sin(math.pi * s)
                return p
        return self.keys[-1][1].copy()

    def moving(self, tau: float) -> bool:
        for (t0, p0), (t1, p1) in itertools.pairwise(self.keys):
            if t0 <= tau < t1 and not np.allclose(p0, p1):
                return True
        return False

    def end(self) -> np.ndarray:
        return self.keys[-1][1].copy()

    def carried(self, tau: float) -> list[int]:
        return [u for t0, t1, ids in self.carry if t0 <= tau < t1 for u in ids]
