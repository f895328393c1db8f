"""Die states: decided by physics (with RG19 4.1.4.3's own test), measured again from the pose alone,
and forced by construction.

Reasons (the vocabulary of issue 5): ``flat_board``, ``on_checker`` (valid under RG19 4.1.4.3),
``cocked`` (balanced on an edge or corner), ``leaning`` (supported by a vertical surface: rail,
bar, checker side, the other die, the cube), ``in_gap`` (below the tops of all the checkers it rests
on, or touching a checker's top edge and the playing surface), ``off_board`` (not on the playing
surface: rail, bar, tray, table), ``wrong_side`` (other half of the bar than rolled, RG19
4.1.4.3 box), ``on_die`` (resting on the other die).

When several apply, the first in ``PRIORITY`` is reported.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pybullet as pb

from sim.physics import World, die_corners, face_up, quat_for_top, quat_matrix, tilt_deg

REASONS = ("flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "wrong_side", "on_die")
VALID_REASONS = ("flat_board", "on_checker")
PRIORITY = ("off_board", "wrong_side", "on_die", "in_gap", "leaning", "cocked", "on_checker", "flat_board")
ERASE_TIME = 0.5  # s (SIMULATOR-NOTES: 0.15 s misses slow topples)
DROP_CM = 0.005  # 50 micrometres
TILT_DEG = 3.0
TOL_CM = 0.03  # 0.3 mm: "below the top" tolerance


@dataclass
class DieLabel:
    value: int
    reason: str
    valid: bool
    half: str | None  # where it lies ('left' / 'right' / None when off the playing surface)
    rolled_half: str
    tilt_deg: float
    base_z: float  # lowest point above the playing surface, cm
    supports: list[str] = field(default_factory=list)  # what carries it: surface, checker, rail, die...
    leaning_on: list[str] = field(default_factory=list)  # vertical supports found by the erase test
    erase_drop_um: dict[str, float] = field(default_factory=dict)  # drop in the erase test per body group

    def to_json(self) -> dict[str, object]:
        d = asdict(self)
        d["tilt_deg"] = round(self.tilt_deg, 2)
        d["base_z"] = round(self.base_z, 4)
        d["erase_drop_um"] = {k: round(v, 1) for k, v in self.erase_drop_um.items()}
        return d


def _run(world: World, seconds: float, die: int) -> float:
    world.step(int(seconds * 480))
    return float(world.pose(die)[0][2])


def erase_test(world: World, die: int, group: list[int], control_z: float | None = None) -> tuple[float, float]:
    """RG19 4.1.4.3 literally: erase ``group`` for ``die`` only, simulate 0.5 s, compare the die's
    height with a control run from the same snapshot. Returns (drop_cm, control_z)."""
    snap = world.snapshot()
    t0 = world.time
    if control_z is None:
        control_z = _run(world, ERASE_TIME, die)
        world.restore(snap)
    for b in group:
        pb.setCollisionFilterPair(die, b, -1, -1, 0, physicsClientId=world.client)
    z = _run(world, ERASE_TIME, die)
    for b in group:
        pb.setCollisionFilterPair(die, b, -1, -1, 1, physicsClientId=world.client)
    world.restore(snap)
    world.time = t0
    return control_z - z, control_z


def physics_label(world: World, die: int, rolled_half: str, *, run_erase: bool = True) -> DieLabel:
    """The die's state as physics decides it (the scene must be at rest)."""
    spec = world.spec
    pos, q = world.pose(die)
    corners = die_corners(spec, pos, q)
    base_z = float(corners[:, 2].min())
    half = spec.half_of(float(pos[0]), float(pos[1]))
    value = face_up(q)
    tilt = tilt_deg(q)
    pb.performCollisionDetection(physicsClientId=world.client)
    contacts = [c for c in world.contacts(die) if c[3] < 0.02]
    other_die = [d for d in world.dice if d != die]

    horiz: dict[int, list[np.ndarray]] = {}
    vert: set[int] = set()
    for other, _pt, n, _d in contacts:
        kind = world.bodies[other].kind if other in world.bodies else "?"
        if kind == "cube":
            vert.add(other)  # anything carried by the cube counts as leaning on it (erase test decides)
            continue
        if n[2] >= 0.5:
            horiz.setdefault(other, []).append(n)
        elif abs(n[2]) < 0.5:
            vert.add(other)
    kinds_h = {world.bodies[b].kind for b in horiz}
    supports = sorted(kinds_h)
    reasons: set[str] = set()
    if half is None or kinds_h & {"rail", "bar", "table"} or base_z < -0.2:
        reasons.add("off_board")
    elif half != rolled_half:
        reasons.add("wrong_side")
    if any(b in other_die for b in horiz):
        reasons.add("on_die")
    chk_h = [b for b in horiz if world.bodies[b].kind == "checker"]
    on_surface = "surface" in kinds_h
    if chk_h:
        min_top = min(world.checker_top(b) for b in chk_h)
        if on_surface or base_z < min_top - TOL_CM:
            reasons.add("in_gap")
    elif not on_surface:
        # wedged: carried only by side faces of checkers, below their tops
        chk_v = [b for b in vert if world.bodies[b].kind == "checker"]
        if chk_v and base_z < min(world.checker_top(b) for b in chk_v) - TOL_CM:
            reasons.add("in_gap")

    leaning_on: list[str] = []
    drops: dict[str, float] = {}
    if run_erase and vert and not reasons & {"off_board"}:
        groups: dict[str, list[int]] = {}
        for b in sorted(vert):
            body = world.bodies[b]
            if body.kind == "checker":
                groups.setdefault(f"checkers:{body.place}", []).extend(world.stack_of(b))
            else:
                groups.setdefault(f"{body.kind}:{body.name}", []).append(b)
        control: float | None = None
        for name, group in groups.items():
            drop, control = erase_test(world, die, sorted(set(group)), control)
            drops[name] = drop * 1e4
            if drop > DROP_CM:
                leaning_on.append(name.split(":")[0].rstrip("s"))
        if leaning_on:
            reasons.add("leaning")

    if tilt > TILT_DEG and len(horiz) == 1 and not leaning_on:
        # one support body and tilted relative to it: balanced on an edge or a corner
        sup = next(iter(horiz))
        rel = tilt
        if world.bodies[sup].kind == "checker":
            axis = quat_matrix(world.pose(sup)[1])[:, 2]
            m = quat_matrix(q)
            rel = math.degrees(math.acos(min(1.0, float(np.max(np.abs(m.T @ axis))))))
        if rel > TILT_DEG:
            reasons.add("cocked")
    if chk_h:
        reasons.add("on_checker")
    reasons.add("flat_board")
    reason = next(r for r in PRIORITY if r in reasons)
    return DieLabel(value=value, reason=reason, valid=reason in VALID_REASONS, half=half, rolled_half=rolled_half,
                    tilt_deg=tilt, base_z=base_z, supports=supports, leaning_on=sorted(set(leaning_on)),
                    erase_drop_um=drops)


# --------------------------------------------------------------------------- second, independent measure
def _dist_point_box(p: np.ndarray, centre: np.ndarray, m: np.ndarray, half: float) -> np.ndarray:
    """Distance of points ``p`` (N x 3) to a cube of half-size ``half`` at ``centre`` with rotation ``m``."""
    local = (np.atleast_2d(p) - centre) @ m
    d = np.maximum(np.abs(local) - half, 0.0)
    return np.asarray(np.linalg.norm(d, axis=1))


def _edge_points(corners: np.ndarray, k: int = 7) -> np.ndarray:
    """Points along the 12 edges of a box given its 8 corners (ordered as in die_corners)."""
    pts = []
    for i in range(8):
        for j in range(i + 1, 8):
            if bin(i ^ j).count("1") == 1:
                for t in np.linspace(0, 1, k):
                    pts.append(corners[i] * (1 - t) + corners[j] * t)
    return np.array(pts)


GEO_TOL = 0.05  # cm: a gap below this counts as touching


def geometric_label(world: World, die: int, rolled_half: str) -> str:
    """The die's reason from its pose alone, against the board plane, rails, bar, checker tops and
    the other die: tilt, base height and distances only; no contact data, no simulation (the
    independent check on :func:`physics_label`)."""
    spec = world.spec
    pos, q = world.pose(die)
    m = quat_matrix(q)
    corners = die_corners(spec, pos, q)
    edges = _edge_points(corners)
    base_z = float(corners[:, 2].min())
    tilt = tilt_deg(q)
    half = spec.half_of(float(pos[0]), float(pos[1]))
    s = spec.die
    if half is None or base_z < -0.2:
        return "off_board"
    if half != rolled_half:
        return "wrong_side"
    for d in world.dice:
        if d == die:
            continue
        p2, q2 = world.pose(d)
        top2 = float(die_corners(spec, p2, q2)[:, 2].max())
        if np.linalg.norm(pos[:2] - p2[:2]) < s * 1.1 and abs(base_z - top2) < 0.15 and pos[2] > p2[2] + s * 0.5:
            return "on_die"
    r = spec.checker_d / 2
    ang = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    top_support: list[float] = []  # checker tops the die sits on (flat contact or rim)
    side_touch: list[float] = []  # checkers whose side face the die touches below their top
    for c in world.checkers:
        if world.bodies[c].place in ("bar", "off"):
            continue
        cp, cq = world.pose(c)
        if np.linalg.norm(cp[:2] - pos[:2]) > r + s:
            continue
        top = world.checker_top(c)
        bottom = cp[2] - spec.checker_h / 2
        rim = np.stack([cp[0] + r * np.cos(ang), cp[1] + r * np.sin(ang), np.full_like(ang, top)], axis=1)
        rim_d = float(_dist_point_box(rim, pos, m, s / 2).min())
        low_pts = edges[edges[:, 2] < top - 0.08]
        radial = np.linalg.norm(low_pts[:, :2] - cp[:2], axis=1) if len(low_pts) else np.array([])
        side = bool(np.any((np.abs(radial - r) < GEO_TOL) & (low_pts[:, 2] > bottom))) if len(low_pts) else False
        bottom_pts = edges[edges[:, 2] < base_z + 0.02]
        on_top = bool(np.any((np.linalg.norm(bottom_pts[:, :2] - cp[:2], axis=1) < r)
                             & (np.abs(bottom_pts[:, 2] - top) < GEO_TOL)))
        if on_top or (rim_d < GEO_TOL and not side):
            top_support.append(top)
        elif side:
            side_touch.append(top)
    on_board = base_z < GEO_TOL
    if top_support and (on_board or base_z < min(top_support) - TOL_CM):
        return "in_gap"
    if not top_support and not on_board and side_touch and base_z < min(side_touch) - TOL_CM:
        return "in_gap"
    if tilt > TILT_DEG:
        near_vertical = bool(side_touch)
        for h in ("left", "right"):
            x0, x1, y0, y1 = spec.half_rect(h)
            inside = (edges[:, 0] > x0 - GEO_TOL) & (edges[:, 0] < x1 + GEO_TOL) & \
                     (edges[:, 1] > y0 - GEO_TOL) & (edges[:, 1] < y1 + GEO_TOL) & (edges[:, 2] < spec.rail_h)
            wall = np.minimum.reduce([np.abs(edges[:, 0] - x0), np.abs(edges[:, 0] - x1),
                                      np.abs(edges[:, 1] - y0), np.abs(edges[:, 1] - y1)])
            if np.any(inside & (wall < GEO_TOL) & (edges[:, 2] > base_z + 0.05)):
                near_vertical = True
        for d in [x for x in world.dice if x != die] + ([world.cube] if world.cube is not None else []):
            p2, q2 = world.pose(d)
            size = spec.die if d in world.dice else spec.cube
            if float(_dist_point_box(edges, p2, quat_matrix(q2), size / 2).min()) < GEO_TOL:
                near_vertical = True
        if near_vertical:
            return "leaning"
        if len(top_support) >= 2 and max(top_support) - min(top_support) > 0.1:
            return "on_checker"  # straddling checkers of different heights (RG19 4.1.4.3)
        return "cocked"
    return "on_checker" if top_support else "flat_board"


# --------------------------------------------------------------------------- construction of rare states
TARGETS = ("throw", "flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "wrong_side", "on_die",
           "flat_against")
"""What a scene's first die is put into (``throw``: left where the throw put it). ``flat_against``
aims at ``flat_board`` with the die touching a vertical surface (:func:`_place_against`)."""
TARGET_REASON = {"throw": None, "flat_against": "flat_board"}
"""The physics reason a construction aims at, where it is not the target's own name."""


def _free_spot(world: World, half: str, rng: np.random.Generator, clearance: float) -> tuple[float, float]:
    spec = world.spec
    x0, x1, y0, y1 = spec.half_rect(half)
    pts = [world.pose(c)[0] for c in world.checkers]
    best = ((x0 + x1) / 2, 0.0)
    for _ in range(60):
        x, y = float(rng.uniform(x0 + clearance, x1 - clearance)), float(rng.uniform(y0 + clearance, y1 - clearance))
        if all(math.hypot(x - p[0], y - p[1]) > spec.checker_d / 2 + clearance for p in pts):
            return x, y
        best = (x, y)
    return best


def _tilted_quat(value: int, yaw: float, axis_angle: float, tilt: float) -> tuple[float, ...]:
    """Die with ``value`` roughly up, rotated about a horizontal axis at ``axis_angle`` by ``tilt``."""
    q0 = quat_for_top(value, yaw)
    axis = [math.cos(axis_angle), math.sin(axis_angle), 0.0]
    qt = pb.getQuaternionFromAxisAngle(axis, tilt)
    return tuple(pb.multiplyTransforms([0, 0, 0], qt, [0, 0, 0], q0)[1])


def _lowest_offset(world: World, quat: tuple[float, ...]) -> float:
    """Height of the die centre above its lowest corner for an orientation."""
    c = die_corners(world.spec, np.zeros(3), quat)
    return float(-c[:, 2].min())


def _stacks_in(world: World, half: str, min_n: int = 1) -> list[list[int]]:
    spec = world.spec
    pts = range(1, 7) if half == "right" else range(7, 13)
    pts2 = range(19, 25) if half == "right" else range(13, 19)
    out = []
    for p in list(pts) + list(pts2):
        stack = [c for c in world.checkers if world.bodies[c].place == f"p{p}"]
        if len(stack) >= min_n:
            out.append(stack)
    del spec
    return out


def place_die(world: World, die: int, target: str, rolled_half: str, rng: np.random.Generator,
              value: int | None = None) -> None:
    """Put ``die`` where ``target`` is likely; physics (settle + label) has the last word."""
    spec = world.spec
    s = spec.die
    drawn = int(rng.integers(1, 7))
    value = drawn if value is None else value
    yaw = float(rng.uniform(-math.pi, math.pi))
    other = next(d for d in world.dice if d != die)
    other_half = "left" if rolled_half == "right" else "right"
    drop = 0.02

    def flat_at(x: float, y: float, z0: float) -> None:
        world.set_pose(die, (x, y, z0 + s / 2 + drop), quat_for_top(value, yaw))

    if target == "flat_board":
        flat_at(*_free_spot(world, rolled_half, rng, s), 0.0)
    elif target == "wrong_side":
        flat_at(*_free_spot(world, other_half, rng, s), 0.0)
    elif target == "on_checker":
        stacks = _stacks_in(world, rolled_half) or _stacks_in(world, other_half)
        if not stacks:
            flat_at(*_free_spot(world, rolled_half, rng, s), 0.0)
        else:
            stack = stacks[int(rng.integers(len(stacks)))]
            top = max(stack, key=lambda c: world.pose(c)[0][2])
            cp = world.pose(top)[0]
            off = rng.uniform(-1, 1, 2) * (spec.checker_d / 2 - s * 0.55)
            flat_at(cp[0] + off[0], cp[1] + off[1], world.checker_top(top))
    elif target == "on_die":
        p2, q2 = world.pose(other)
        top2 = float(die_corners(spec, p2, q2)[:, 2].max())
        off = rng.uniform(-0.25, 0.25, 2) * s
        flat_at(p2[0] + off[0], p2[1] + off[1], top2)
    elif target == "off_board":
        where = str(rng.choice(["rail", "bar", "tray", "table"]))
        if where == "bar":
            flat_at(0.0, float(rng.uniform(-spec.play_d / 2 + 2, spec.play_d / 2 - 2)), spec.rail_h)
        elif where == "rail":
            x0, x1, _, _ = spec.half_rect(rolled_half)
            side = float(rng.choice([-1, 1]))
            flat_at(float(rng.uniform(x0 + 1, x1 - 1)), side * (spec.play_d / 2 + spec.rail / 2), spec.rail_h)
        elif where == "tray":
            tx0, tx1, ty0, ty1 = spec.tray_rect()
            flat_at((tx0 + tx1) / 2, float(rng.uniform(-3, -1.5) if rng.random() < 0.5 else rng.uniform(1.5, 3)), 0.0)
        else:
            side = float(rng.choice([-1, 1]))
            flat_at(float(rng.uniform(-10, 10)), side * (spec.depth / 2 + 3 + rng.uniform(0, 4)), -spec.base)
    elif target == "cocked":
        # balanced on an edge (45 deg) or a corner (54.7 deg), on the board or on a checker top
        corner = rng.random() < 0.35
        if corner:
            q0 = quat_for_top(value, 0.0)
            qa = pb.getQuaternionFromAxisAngle([1, -1, 0], math.atan(math.sqrt(2)))
            qz = pb.getQuaternionFromEuler([0, 0, yaw])
            q = tuple(pb.multiplyTransforms([0, 0, 0], qz, [0, 0, 0],
                                            pb.multiplyTransforms([0, 0, 0], qa, [0, 0, 0], q0)[1])[1])
        else:
            q = _tilted_quat(value, yaw, yaw, math.radians(45.0))
        h = _lowest_offset(world, q)
        stacks = _stacks_in(world, rolled_half)
        if stacks and rng.random() < 0.4:
            stack = stacks[int(rng.integers(len(stacks)))]
            top = max(stack, key=lambda c: world.pose(c)[0][2])
            cp = world.pose(top)[0]
            world.set_pose(die, (cp[0], cp[1], world.checker_top(top) + h + 0.001), q)
        else:
            x, y = _free_spot(world, rolled_half, rng, s * 1.2)
            world.set_pose(die, (x, y, h + 0.001), q)
    elif target == "leaning":
        _place_leaning(world, die, other, value, rolled_half, rng)
    elif target == "flat_against":
        # flat on the board touching (or nearly) a rail, the bar, a stack or the other die: valid
        # under RG19 4.1.4.3 (nothing holds it up), the look-alike of `leaning`
        _place_against(world, die, other, value, rolled_half, rng, 0.0, (0.0, 0.3))
    elif target == "in_gap":
        _place_in_gap(world, die, value, rolled_half, rng)
    else:
        raise ValueError(f"unknown die target {target!r}; use one of {', '.join(TARGETS)}")


def _clear_of_checkers(world: World, xy: np.ndarray, radius: float, ignore: list[int] | None = None) -> bool:
    ign = set(ignore or [])
    r = world.spec.checker_d / 2
    for c in world.checkers:
        if c in ign or world.bodies[c].place in ("bar", "off"):
            continue
        if np.linalg.norm(world.pose(c)[0][:2] - xy) < r + radius:
            return False
    return True


def _wall(world: World, other: int, half: str, rng: np.random.Generator, choice: str,
          stacks: list[list[int]]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A vertical surface in ``half`` a die can touch: ``(normal, wall_pt, ignore)``, the wall's
    outward normal (towards the die), a point on it, and the checkers of the stack it belongs to.
    ``choice``: ``rail``, ``bar``, ``stack`` (a stack of ``stacks``) or ``die`` (the other die, put
    flat at a free spot first)."""
    spec = world.spec
    s = spec.die
    x0, x1, y0, y1 = spec.half_rect(half)
    ignore: list[int] = []
    if choice == "stack" and not stacks:
        choice = "rail"
    if choice == "die":
        x, y = _free_spot(world, half, rng, 3 * s)
        world.set_pose(other, (x, y, s / 2 + 0.005), quat_for_top(int(rng.integers(1, 7)), 0.0))
        ang = float(rng.choice([0.0, math.pi / 2, math.pi, -math.pi / 2]))
        normal = np.array([math.cos(ang), math.sin(ang)])
        wall_pt = np.array([x, y]) + normal * s / 2
    elif choice == "stack":
        st = stacks[int(rng.integers(len(stacks)))]
        ignore = st
        cp = world.pose(st[int(rng.integers(len(st)))])[0]
        ang = float(rng.uniform(-math.pi, math.pi))
        normal = np.array([math.cos(ang), math.sin(ang)])
        wall_pt = cp[:2] + normal * spec.checker_d / 2
    elif choice == "bar":
        xb = x0 if half == "right" else x1
        normal = np.array([1.0 if half == "right" else -1.0, 0.0])
        wall_pt = np.array([xb, float(rng.uniform(y0 + 2, y1 - 2))])
    else:
        side = float(rng.choice([-1, 1]))
        normal = np.array([0.0, -side])
        wall_pt = np.array([float(rng.uniform(x0 + 1.5, x1 - 1.5)), side * spec.play_d / 2])
    return normal, wall_pt, ignore


def _place_against(world: World, die: int, other: int, value: int, half: str, rng: np.random.Generator,
                   tilt: float, gap_cm: tuple[float, float]) -> None:
    """The die against a vertical surface (:func:`_wall`): tilted by ``tilt`` about the wall's
    horizontal axis, its outermost point ``gap_cm`` (uniform range) from the wall; tries several
    spots clear of other checkers. A flat die (``tilt`` 0) turns to a random yaw half the time
    (a corner towards the wall) and lies square to the wall otherwise."""
    spec = world.spec
    s = spec.die
    stacks = _stacks_in(world, half, 2)
    first = str(rng.choice(["rail", "bar", "stack", "die"]))
    centre = np.zeros(2)
    q: tuple[float, ...] = (0.0, 0.0, 0.0, 1.0)
    h = s / 2
    for attempt in range(24):
        choice = first if attempt < 12 else str(rng.choice(["rail", "bar"]))
        normal, wall_pt, ignore = _wall(world, other, half, rng, choice, stacks)
        ang_n = math.atan2(normal[1], normal[0])
        if tilt == 0.0 and rng.random() < 0.5:
            q = quat_for_top(value, float(rng.uniform(-math.pi, math.pi)))
        else:
            q = _tilted_quat(value, ang_n, ang_n + math.pi / 2, tilt)
        corners0 = die_corners(spec, np.zeros(3), q)
        h = float(-corners0[:, 2].min())
        reach = float(np.max(corners0[:, :2] @ -normal))
        gap = gap_cm[0] if gap_cm[1] <= gap_cm[0] else float(rng.uniform(*gap_cm))
        centre = wall_pt + normal * (reach + gap)
        if spec.half_of(float(centre[0]), float(centre[1])) == half and \
                _clear_of_checkers(world, centre, s * 0.75, ignore):
            break
    world.set_pose(die, (centre[0], centre[1], h + 0.005), q)


def _place_leaning(world: World, die: int, other: int, value: int, half: str, rng: np.random.Generator) -> None:
    """Lower edge on the board, the raised side against a rail, the bar, a stack of >= 2 or the
    other die."""
    # statics: a leaning die survives if friction >= (cot(tilt) - 1) / 2 (SIMULATOR-NOTES)
    tilt = math.radians(float(rng.uniform(31.0, 44.0)))
    _place_against(world, die, other, value, half, rng, tilt, (0.005, 0.005))


def _place_in_gap(world: World, die: int, value: int, half: str, rng: np.random.Generator) -> None:
    """Edge on the board with a face on a checker's rim, or dropped between two stacks."""
    spec = world.spec
    s = spec.die
    stacks = _stacks_in(world, half, 1)
    if not stacks:
        stacks = _stacks_in(world, "left" if half == "right" else "right", 1)
    if not stacks:
        x, y = _free_spot(world, half, rng, s)
        world.set_pose(die, (x, y, s), quat_for_top(value, 0.0))
        return
    st = stacks[int(rng.integers(len(stacks)))]
    if rng.random() < 0.5 and len(st) >= 2:
        # between two neighbouring checkers of the first layer, a little lower than their tops
        a, b = sorted(st, key=lambda c: world.pose(c)[0][1])[:2]
        pa, pb_ = world.pose(a)[0], world.pose(b)[0]
        mid = (pa + pb_) / 2
        side = float(rng.choice([-1, 1]))
        c = mid + np.array([side * spec.checker_d * 0.45, 0, 0])
        q = _tilted_quat(value, float(rng.uniform(-0.4, 0.4)), 0.0, math.radians(float(rng.uniform(0, 20))))
        world.set_pose(die, (c[0], c[1], spec.checker_h + s / 2 + 0.05), q)
        return
    top = max(st, key=lambda c: world.pose(c)[0][2])
    cp = world.pose(top)[0]
    ang = float(rng.uniform(-math.pi, math.pi))
    normal = np.array([math.cos(ang), math.sin(ang)])
    # lower edge on the board at distance d from the rim, bottom face rising onto the rim
    tilt = math.radians(float(rng.uniform(35.0, 44.0)))
    top_z = world.checker_top(top)
    d = top_z / math.tan(tilt) + 0.02
    rim = cp[:2] + normal * spec.checker_d / 2
    ang_n = math.atan2(normal[1], normal[0])
    q = _tilted_quat(value, ang_n, ang_n + math.pi / 2, tilt)
    corners0 = die_corners(spec, np.zeros(3), q)
    h = float(-corners0[:, 2].min())
    # horizontal offset of the centre from the lowest edge, towards the rim
    low = corners0[corners0[:, 2] < corners0[:, 2].min() + 1e-6]
    edge_xy = low[:, :2].mean(axis=0)
    centre = rim + normal * d - edge_xy
    world.set_pose(die, (centre[0], centre[1], h + 0.005), q)
