"""The physical table in pybullet (centimetres, seconds, kilograms).

Speed comes from maximal-coordinate bodies and sleeping checkers (SIMULATOR-NOTES.md): about
10,000 steps/s. ``restoreState`` does not work with maximal-coordinate bodies, so snapshots are
our own poses and velocities (:meth:`World.snapshot` / :meth:`World.restore`).

Die faces: local +z shows 1, -z 6, +x 2, -x 5, +y 3, -y 4 (opposite faces add to 7).
Cube faces: +z 64, -z 2, +x 4, -x 32, +y 8, -y 16.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb

from sim.layout import TableLayout
from sim.table import TableSpec

GRAVITY = -981.0
DT = 1.0 / 480.0
# local axis (index, sign) -> value
_DIE_AXES = [((2, 1), 1), ((2, -1), 6), ((0, 1), 2), ((0, -1), 5), ((1, 1), 3), ((1, -1), 4)]
_CUBE_AXES = [((2, 1), 64), ((2, -1), 2), ((0, 1), 4), ((0, -1), 32), ((1, 1), 8), ((1, -1), 16)]


Snapshot = dict[int, tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]]]


def quat_matrix(q: tuple[float, ...] | list[float]) -> np.ndarray:
    return np.array(pb.getMatrixFromQuaternion(q)).reshape(3, 3)


def face_up(q: tuple[float, ...] | list[float], axes: list[tuple[tuple[int, int], int]] = _DIE_AXES) -> int:
    """Value on the face whose outward normal points most upwards."""
    m = quat_matrix(q)
    best, val = -2.0, 0
    for (i, s), v in axes:
        up = s * m[2, i]
        if up > best:
            best, val = up, v
    return val


def cube_face_up(q: tuple[float, ...] | list[float]) -> int:
    return face_up(q, _CUBE_AXES)


def quat_for_top(value: int, yaw: float) -> tuple[float, ...]:
    """Orientation that shows ``value`` on top, rotated by ``yaw`` about z."""
    rot = {1: (0.0, 0.0), 6: (math.pi, 0.0), 2: (0.0, -math.pi / 2), 5: (0.0, math.pi / 2),
           3: (math.pi / 2, 0.0), 4: (-math.pi / 2, 0.0)}[value]
    q0 = pb.getQuaternionFromEuler([rot[0], rot[1], 0.0])
    qz = pb.getQuaternionFromEuler([0.0, 0.0, yaw])
    return tuple(pb.multiplyTransforms([0, 0, 0], qz, [0, 0, 0], q0)[1])


def cube_quat_for_top(value: int, yaw: float) -> tuple[float, ...]:
    die_val = {64: 1, 2: 6, 4: 2, 32: 5, 8: 3, 16: 4}[value]
    return quat_for_top(die_val, yaw)


@dataclass
class Body:
    uid: int
    kind: str  # surface, rail, bar, tray, table, checker, die, cube, hand
    name: str
    colour: int = -1  # checkers and dice: 0 light, 1 dark
    place: str = ""  # checkers: 'p7', 'bar', 'off'
    layer: int = 0


@dataclass
class World:
    """One physical scene. Create with :meth:`build`; bodies are listed in ``bodies``."""

    spec: TableSpec
    client: int
    bodies: dict[int, Body] = field(default_factory=dict)
    dice: list[int] = field(default_factory=list)
    cube: int | None = None
    cube_on_bar_y: float | None = None
    """Where along the bar a centred cube lies (None when it is elsewhere): the bar's checkers go beside it."""
    checkers: list[int] = field(default_factory=list)
    hand: int | None = None
    time: float = 0.0

    # ------------------------------------------------------------------ building
    @classmethod
    def build(cls, spec: TableSpec, layout: TableLayout, *, client: int | None = None,
              die_friction: float = 0.3, die_restitution: float = 0.5,
              dice_colours: tuple[int, ...] = (0, 0), cube_zone: str = "centre", cube_value: int = 64,
              rng: np.random.Generator | None = None) -> World:
        rng = rng or np.random.default_rng(0)
        if client is None:
            client = pb.connect(pb.DIRECT)
        pb.resetSimulation(physicsClientId=client)
        pb.setGravity(0, 0, GRAVITY, physicsClientId=client)
        pb.setPhysicsEngineParameter(fixedTimeStep=DT, numSolverIterations=30, contactBreakingThreshold=0.02,
                                     deterministicOverlappingPairs=1, physicsClientId=client)
        w = cls(spec=spec, client=client)
        w._build_board()
        cpos = spec.cube_pose(cube_zone, rng)
        cube_yaw = float(rng.uniform(-0.3, 0.3)) if cpos is not None else 0.0
        w.cube_on_bar_y = on_bar = cpos[1] if cpos is not None and cube_zone == "centre" else None
        for i, (n_light, n_dark) in enumerate(layout.points):
            # both colours only at the moment of a hit: the later colour takes the next slots
            slots = spec.checker_slots(i + 1, n_light + n_dark)
            for k, pos in enumerate(slots):
                w._add_checker(0 if k < n_light else 1, pos, f"p{i + 1}", k)
        for c in range(2):
            for k, pos in enumerate(spec.bar_slots(c, layout.bar[c], on_bar)):
                w._add_checker(c, pos, "bar", k)
            for k, pos in enumerate(spec.off_slots(c, layout.off[c])):
                w._add_checker(c, pos, "off", k)
        for k in range(len(dice_colours)):  # two dice, or four (two per player)
            w._add_die(k, dice_colours[k], die_friction, die_restitution)
        if cpos is not None:
            w._add_cube(cpos, cube_value, cube_yaw)
        return w

    def _box(self, kind: str, name: str, centre: tuple[float, float, float], half: tuple[float, float, float],
             friction: float = 1.0) -> int:
        c = self.client
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=c)
        uid = pb.createMultiBody(0, shape, -1, centre, useMaximalCoordinates=True, physicsClientId=c)
        pb.changeDynamics(uid, -1, lateralFriction=friction, restitution=0.5, physicsClientId=c)
        self.bodies[uid] = Body(uid, kind, name)
        return uid

    def _build_board(self) -> None:
        s = self.spec
        x0, x1 = s.x_min, s.x_max
        cx, w = (x0 + x1) / 2, (x1 - x0)
        q = s.play_d / 2
        # the table top: large, under the board
        self._box("table", "table", (cx, 0, -s.base - 5), (120, 120, 5))
        # playing surface (whole board footprint; regions decide what is playing area)
        self._box("surface", "surface", (cx, 0, -s.base / 2), (w / 2, s.depth / 2, s.base / 2))
        h = s.rail_h / 2
        self._box("rail", "rail_near", (cx, -q - s.rail / 2, h), (w / 2, s.rail / 2, h))
        self._box("rail", "rail_far", (cx, q + s.rail / 2, h), (w / 2, s.rail / 2, h))
        self._box("rail", "rail_left", (x0 + s.rail / 2, 0, h), (s.rail / 2, q, h))
        self._box("rail", "rail_right", (x1 - s.rail / 2, 0, h), (s.rail / 2, q, h))
        xi = s.bar / 2 + s.half_w + s.rail / 2
        self._box("rail", "rail_inner", (xi, 0, h), (s.rail / 2, q, h))
        self._box("bar", "bar", (0, 0, h), (s.bar / 2, q, h))
        tx0, tx1, _, _ = s.tray_rect()
        self._box("rail", "tray_divider", ((tx0 + tx1) / 2, 0, h / 2), ((tx1 - tx0) / 2, 0.3, h / 2))
        if s.trays == 2:
            self._box("rail", "rail_inner_left", (-xi, 0, h), (s.rail / 2, q, h))
            tx0, tx1, _, _ = s.tray_rect("left")
            self._box("rail", "tray_divider_left", ((tx0 + tx1) / 2, 0, h / 2), ((tx1 - tx0) / 2, 0.3, h / 2))

    def _add_checker(self, colour: int, pos: tuple[float, float, float], place: str, layer: int) -> int:
        c, s = self.client, self.spec
        shape = pb.createCollisionShape(pb.GEOM_CYLINDER, radius=s.checker_d / 2, height=s.checker_h,
                                        physicsClientId=c)
        uid = pb.createMultiBody(0.012 * (s.checker_d / 3.9) ** 2, shape, -1, pos, useMaximalCoordinates=True,
                                 physicsClientId=c)
        pb.changeDynamics(uid, -1, lateralFriction=0.9, restitution=0.3, linearDamping=0.04, angularDamping=0.04,
                          activationState=pb.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=c)
        pb.changeDynamics(uid, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=c)
        self.bodies[uid] = Body(uid, "checker", f"checker_{'ld'[colour]}{len(self.checkers)}", colour, place, layer)
        self.checkers.append(uid)
        return uid

    def _add_die(self, k: int, colour: int, friction: float, restitution: float) -> int:
        c, s = self.client, self.spec
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[s.die / 2] * 3, physicsClientId=c)
        # parked at rest on the table, far outside the view, until thrown or placed
        uid = pb.createMultiBody(0.0053 * (s.die / 1.6) ** 3, shape, -1, (100.0 + 5 * k, 100.0, -s.base + s.die / 2),
                                 useMaximalCoordinates=True, physicsClientId=c)
        pb.changeDynamics(uid, -1, lateralFriction=friction, restitution=restitution, rollingFriction=0.0,
                          linearDamping=0.02, angularDamping=0.02,
                          activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING, physicsClientId=c)
        self.bodies[uid] = Body(uid, "die", f"die{k}", colour)
        self.dice.append(uid)
        return uid

    def _add_cube(self, pos: tuple[float, float, float], value: int, yaw: float) -> int:
        c, s = self.client, self.spec
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[s.cube / 2] * 3, physicsClientId=c)
        uid = pb.createMultiBody(0.012, shape, -1, pos, cube_quat_for_top(value, yaw), useMaximalCoordinates=True,
                                 physicsClientId=c)
        pb.changeDynamics(uid, -1, lateralFriction=0.5, activationState=pb.ACTIVATION_STATE_ENABLE_SLEEPING,
                          physicsClientId=c)
        self.bodies[uid] = Body(uid, "cube", "cube")
        self.cube = uid
        return uid

    # ------------------------------------------------------------------ state
    def pose(self, uid: int) -> tuple[np.ndarray, tuple[float, ...]]:
        p, q = pb.getBasePositionAndOrientation(uid, physicsClientId=self.client)
        return np.array(p), tuple(q)

    def set_pose(self, uid: int, pos: tuple[float, float, float] | np.ndarray, quat: tuple[float, ...],
                 lin: tuple[float, float, float] = (0, 0, 0), ang: tuple[float, float, float] = (0, 0, 0)) -> None:
        pb.resetBasePositionAndOrientation(uid, list(map(float, pos)), quat, physicsClientId=self.client)
        pb.resetBaseVelocity(uid, lin, ang, physicsClientId=self.client)

    def dynamic(self) -> list[int]:
        out = self.checkers + self.dice
        if self.cube is not None:
            out.append(self.cube)
        return out

    def snapshot(self) -> Snapshot:
        snap: Snapshot = {}
        for uid in self.dynamic():
            p, q = pb.getBasePositionAndOrientation(uid, physicsClientId=self.client)
            v, a = pb.getBaseVelocity(uid, physicsClientId=self.client)
            snap[uid] = (tuple(p), tuple(q), tuple(v), tuple(a))
        return snap

    def restore(self, snap: Snapshot) -> None:
        for uid, (p, q, v, a) in snap.items():
            pb.resetBasePositionAndOrientation(uid, p, q, physicsClientId=self.client)
            pb.resetBaseVelocity(uid, v, a, physicsClientId=self.client)
        self.sleep_resting()
        pb.performCollisionDetection(physicsClientId=self.client)

    def sleep_resting(self) -> None:
        """Put checkers and the cube that are not moving to sleep (they wake on contact)."""
        for uid in self.checkers + ([self.cube] if self.cube is not None else []):
            v, a = pb.getBaseVelocity(uid, physicsClientId=self.client)
            if np.linalg.norm(v) < 0.5 and np.linalg.norm(a) < 0.5:
                pb.changeDynamics(uid, -1, activationState=pb.ACTIVATION_STATE_SLEEP, physicsClientId=self.client)

    def step(self, n: int = 1) -> None:
        for _ in range(n):
            pb.stepSimulation(physicsClientId=self.client)
        self.time += n * DT

    def settle(self, max_time: float = 4.0, rest_time: float = 0.3, lin_tol: float = 0.3,
               ang_tol: float = 0.3) -> bool:
        """Step until every die (and the cube) has been still for ``rest_time``; False on timeout."""
        still = 0
        need = int(rest_time / DT)
        watch = self.dice + ([self.cube] if self.cube is not None else [])
        for _ in range(int(max_time / DT) // 8):
            self.step(8)
            moving = False
            for uid in watch:
                v, a = pb.getBaseVelocity(uid, physicsClientId=self.client)
                if np.linalg.norm(v) > lin_tol or np.linalg.norm(a) > ang_tol:
                    moving = True
                    break
            still = 0 if moving else still + 8
            if still >= need:
                return True
        return False

    # ------------------------------------------------------------------ actions
    def throw(self, die_ids: list[int], half: str, rng: np.random.Generator) -> None:
        """Release ``die_ids`` from a cup above the roller's side, aimed into ``half``.

        Light rolls into the right half from the near side, dark into the left half from the far
        side; a throw aimed at the other half models a roll to the wrong side.
        """
        s = self.spec
        x0, x1, y0, y1 = s.half_rect(half)
        side = -1.0 if half == "right" else 1.0  # roller's side
        cup_x = float(rng.uniform(x0 + 2, x1 - 2))
        cup_y = side * (s.play_d / 2 - rng.uniform(0.0, 4.0))
        cup_z = float(rng.uniform(5.0, 10.0))
        target_x = float(rng.uniform(x0 + 3, x1 - 3))
        target_y = float(rng.uniform(y0 + 4, y1 - 4))
        for k, uid in enumerate(die_ids):
            pos = (cup_x + rng.normal(0, 0.8) + 2.0 * k, cup_y + rng.normal(0, 0.8), cup_z + rng.normal(0, 0.5))
            dist = math.hypot(target_x - pos[0], target_y - pos[1])
            t_fall = math.sqrt(2 * pos[2] / -GRAVITY)
            speed = dist / max(t_fall, 0.05) * rng.uniform(0.45, 0.75)
            dirx, diry = (target_x - pos[0]) / max(dist, 1e-6), (target_y - pos[1]) / max(dist, 1e-6)
            lin = (dirx * speed, diry * speed, float(rng.uniform(-60, 10)))
            ang = tuple(float(v) for v in rng.normal(0, 25, 3))
            q = tuple(pb.getQuaternionFromEuler(list(rng.uniform(-math.pi, math.pi, 3))))
            self.set_pose(uid, pos, q, lin, ang)  # type: ignore[arg-type]

    def aabb(self, uid: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = pb.getAABB(uid, physicsClientId=self.client)
        return np.array(lo), np.array(hi)

    def contacts(self, uid: int) -> list[tuple[int, np.ndarray, np.ndarray, float]]:
        """Contacts of ``uid``: (other body, point on uid, normal pointing into uid, distance)."""
        out = []
        for c in pb.getContactPoints(bodyA=uid, physicsClientId=self.client):
            other = c[2]
            # contactNormalOnB points from B towards A
            out.append((other, np.array(c[5]), np.array(c[7]), float(c[8])))
        return out

    def near(self, uid: int, distance: float = 0.03) -> list[tuple[int, np.ndarray, np.ndarray, float]]:
        """Closest points within ``distance`` (works right after a reset, unlike contacts)."""
        out = []
        for other in self.bodies:
            if other == uid:
                continue
            for c in pb.getClosestPoints(uid, other, distance, physicsClientId=self.client):
                out.append((other, np.array(c[5]), np.array(c[7]), float(c[8])))
        return out

    def checker_top(self, uid: int) -> float:
        p, q = self.pose(uid)
        m = quat_matrix(q)
        # top of a (possibly tilted) cylinder: centre + half height along its axis + radius * sin(tilt)
        axis = m[:, 2]
        tilt_sin = math.sqrt(max(0.0, 1 - axis[2] ** 2))
        return float(p[2] + abs(axis[2]) * self.spec.checker_h / 2 + tilt_sin * self.spec.checker_d / 2)

    def stack_of(self, uid: int) -> list[int]:
        """All checkers on the same point (or bar/off place) as checker ``uid``."""
        place = self.bodies[uid].place
        return [c for c in self.checkers if self.bodies[c].place == place]

    def disconnect(self) -> None:
        pb.disconnect(physicsClientId=self.client)


def die_corners(spec: TableSpec, pos: np.ndarray, quat: tuple[float, ...], size: float | None = None) -> np.ndarray:
    """8 x 3 world coordinates of a die's (or cube's) corners."""
    s = (size or spec.die) / 2
    m = quat_matrix(quat)
    local = np.array([[x, y, z] for x in (-s, s) for y in (-s, s) for z in (-s, s)])
    return local @ m.T + pos


def tilt_deg(quat: tuple[float, ...]) -> float:
    """Angle between the world vertical and the die's most vertical axis."""
    m = quat_matrix(quat)
    return float(math.degrees(math.acos(min(1.0, float(np.max(np.abs(m[2, :])))))))


class HandProxy:
    """A kinematic hand (a flat box, mass 0, moved by pose resets) that lifts and places checkers and
    dice: it moves over the object, carries it along an arc (the object follows the hand rigidly),
    lowers it at the target and lets go; physics then settles the object."""

    def __init__(self, world: World, size: tuple[float, float, float] = (8.0, 9.0, 2.0)) -> None:
        self.world = world
        c = world.client
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=[v / 2 for v in size], physicsClientId=c)
        self.uid = pb.createMultiBody(0, shape, -1, (0.0, -80.0, 30.0), useMaximalCoordinates=True, physicsClientId=c)
        self.half_h = size[2] / 2
        world.bodies[self.uid] = Body(self.uid, "hand", "hand")
        world.hand = self.uid
        # the hand does not collide with what it carries
        self.carrying: int | None = None

    @property
    def position(self) -> np.ndarray:
        return self.world.pose(self.uid)[0]

    def _move(self, target: np.ndarray, seconds: float, lift: float = 0.0) -> None:
        start = self.position.copy()
        n = max(1, int(seconds / DT))
        held = self.carrying
        offset = None
        if held is not None:
            hp, hq = self.world.pose(held)
            offset = hp - start
            held_q = hq
        for i in range(1, n + 1):
            s = i / n
            p = start + (target - start) * s
            p[2] += lift * math.sin(math.pi * s)
            pb.resetBasePositionAndOrientation(self.uid, p.tolist(), (0, 0, 0, 1), physicsClientId=self.world.client)
            if held is not None and offset is not None:
                pb.resetBasePositionAndOrientation(held, (p + offset).tolist(), held_q, physicsClientId=self.world.client)
                pb.resetBaseVelocity(held, (0, 0, 0), (0, 0, 0), physicsClientId=self.world.client)
            self.world.step(1)

    def carry(self, obj: int, target: tuple[float, float, float], seconds: float = 0.8) -> None:
        """Lift ``obj`` and put it down with its centre at ``target`` (the target's z is the resting
        height of its centre), then withdraw and let it settle."""
        c = self.world.client
        p, _q = self.world.pose(obj)
        top = self.world.aabb(obj)[1][2]
        for other in self.world.bodies:
            if other != self.uid:
                pb.setCollisionFilterPair(self.uid, other, -1, -1, 0, physicsClientId=c)
        self._move(np.array([p[0], p[1], top + self.half_h + 3.0]), seconds * 0.3)
        self._move(np.array([p[0], p[1], top + self.half_h]), seconds * 0.1)
        self.carrying = obj
        dz = top - p[2]
        goal = np.array([target[0], target[1], target[2] + dz + self.half_h + 0.02])
        self._move(goal, seconds * 0.5, lift=4.0)
        self.carrying = None
        pb.changeDynamics(obj, -1, activationState=pb.ACTIVATION_STATE_WAKE_UP, physicsClientId=c)
        self._move(goal + np.array([0.0, -10.0, 15.0]), seconds * 0.1)
        self.world.settle(max_time=2.0)
