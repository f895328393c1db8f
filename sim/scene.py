"""One physical scene: sample the table, place the checkers, throw (and maybe construct) the dice,
settle, and label every die by physics.

Everything is drawn from one ``numpy`` generator seeded by ``(seed, scene_index)``, so a scene is
the same whichever worker makes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from sim.dicestate import TARGET_REASON, TARGETS, DieLabel, geometric_label, physics_label, place_die
from sim.layout import TableLayout
from sim.physics import World, cube_face_up
from sim.table import TableSpec

DEFAULT_MIX: dict[str, float] = {
    "throw": 0.40, "flat_board": 0.06, "on_checker": 0.10, "cocked": 0.06, "leaning": 0.12,
    "in_gap": 0.10, "off_board": 0.06, "wrong_side": 0.05, "on_die": 0.05,
}
CUBE_ZONES = {"centre": 0.4, "near": 0.2, "far": 0.2, "board": 0.05, "absent": 0.15}
CUBE_VALUES = (2, 4, 8, 16, 32, 64)


def parse_weights(text: str, valid: Sequence[str], *, what: str, kind: str, option: str,
                  form: str) -> dict[str, float]:
    """``"a=1,b=3"`` -> weights normalised to 1 over names from ``valid``; a bad item raises a
    ValueError that names it (``what``: "state mix"; ``kind``: "die state"; ``option``: the flag;
    ``form``: an example of an item)."""
    out: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, val = (x.strip() for x in part.partition("="))
        if not sep:
            raise ValueError(f"{what} item {part!r} needs the form {form}")
        if name not in valid:
            raise ValueError(f"unknown {kind} {name!r} in {option}; valid: {', '.join(valid)}")
        try:
            w = float(val)
        except ValueError:
            raise ValueError(f"{what} weight for {name!r} is not a number: {val!r}") from None
        if w < 0:
            raise ValueError(f"{what} weight for {name!r} is negative: {w}")
        out[name] = w
    total = sum(out.values())
    if total <= 0:
        raise ValueError(f"{what} weights add up to 0; give at least one positive weight")
    return {k: v / total for k, v in out.items()}


def parse_mix(text: str | None) -> dict[str, float]:
    """``"throw=0.5,leaning=0.2,..."`` -> normalised weights; names from :data:`TARGETS`."""
    if not text:
        return dict(DEFAULT_MIX)
    return parse_weights(text, TARGETS, what="state mix", kind="die state", option="--state-mix",
                         form="NAME=WEIGHT, e.g. leaning=0.2")


LAYOUT_KINDS = {"game": TableLayout.from_random_game, "spread": TableLayout.random, "tall": TableLayout.tall}
"""How a scene's checkers may stand: after a random legal game, a free mid-game spread, few tall stacks."""


def parse_layouts(text: str | None) -> dict[str, float] | None:
    """``"game=1,tall=2"`` -> normalised weights over :data:`LAYOUT_KINDS`; None for the default."""
    if not text:
        return None
    return parse_weights(text, list(LAYOUT_KINDS), what="layout", kind="layout kind", option="--layouts",
                         form="KIND=WEIGHT, e.g. tall=0.5")


def draw(rng: np.random.Generator, weights: dict[str, float]) -> str:
    """One name of ``weights`` drawn with its weight (they add up to 1)."""
    names = list(weights)
    return str(rng.choice(names, p=np.array([weights[n] for n in names])))


def scene_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(index), 0x5EED]))


@dataclass
class Scene:
    world: World
    layout: TableLayout
    roller: str  # 'light' or 'dark'
    rolled_half: str
    target: str
    dice_labels: list[DieLabel] = field(default_factory=list)
    cube_zone: str = "absent"
    cube_value: int = 64
    settled: bool = True
    params: dict[str, object] = field(default_factory=dict)


def make_scene(rng: np.random.Generator, *, mix: dict[str, float] | None = None, layout: TableLayout | None = None,
               spec: TableSpec | None = None, client: int | None = None, target: str | None = None,
               run_erase: bool = True, attempts: int = 3, layouts: dict[str, float] | None = None) -> Scene:
    """One physical scene. ``layouts`` (kind -> weight, kinds from :data:`LAYOUT_KINDS`) chooses how
    the checkers stand; without it, half from a random game and half from a free spread."""
    mix = mix or DEFAULT_MIX
    spec = spec or TableSpec.sample(rng)
    if layout is None and layouts:
        layout = LAYOUT_KINDS[draw(rng, layouts)](rng)
    if layout is None:
        # half the scenes from a random legal game of the rules engine, half from a free spread
        layout = TableLayout.from_random_game(rng) if rng.random() < 0.5 else TableLayout.random(rng)
    roller = "light" if rng.random() < 0.5 else "dark"
    rolled_half = "right" if roller == "light" else "left"
    friction = float(rng.uniform(0.1, 0.45))
    restitution = float(rng.uniform(0.4, 0.6))
    zone = draw(rng, CUBE_ZONES)
    cube_value = 64 if zone == "centre" else int(rng.choice(CUBE_VALUES[:-1]))
    shared = bool(rng.random() < 0.5)
    colour = 0 if roller == "light" else 1
    dice_colours = (colour, colour) if not shared else (2, 2)
    world = World.build(spec, layout, client=client, die_friction=friction, die_restitution=restitution,
                        dice_colours=dice_colours, cube_zone=zone, cube_value=cube_value, rng=rng)
    if target is None:
        target = draw(rng, mix)
    world.throw(world.dice, rolled_half, rng)
    settled = world.settle()
    attempts_used = 0
    if target != "throw":
        # a construction only aims; up to `attempts` tries from the same thrown scene until physics
        # agrees, and the label is physics' in any case
        snap = world.snapshot()
        for attempt in range(max(1, attempts)):
            if attempt:
                world.restore(snap)
            attempts_used = attempt + 1
            place_die(world, world.dice[0], target, rolled_half, rng)
            ok = world.settle()
            world.sleep_resting()
            if physics_label(world, world.dice[0], rolled_half, run_erase=run_erase).reason == \
                    TARGET_REASON.get(target, target):
                break
        settled = ok and settled
    world.sleep_resting()
    scene = Scene(world=world, layout=layout, roller=roller, rolled_half=rolled_half, target=target,
                  cube_zone=zone, settled=settled,
                  params={"friction": round(friction, 4), "restitution": round(restitution, 4),
                          "dice_shared": shared, "construction_attempts": attempts_used})
    scene.dice_labels = [physics_label(world, d, rolled_half, run_erase=run_erase) for d in world.dice]
    if world.cube is not None:
        scene.cube_value = cube_face_up(world.pose(world.cube)[1])
        scene.cube_zone = _cube_zone(world)
    return scene


def _cube_zone(world: World) -> str:
    assert world.cube is not None
    p = world.pose(world.cube)[0]
    spec = world.spec
    if spec.half_of(float(p[0]), float(p[1])) is not None:
        return "board"
    if abs(p[0]) < spec.bar / 2 + 0.5 and p[2] > spec.rail_h:
        return "centre"
    return "near" if p[1] < 0 else "far"


def agreement_run(n_dice: int, seed: int, mix: dict[str, float] | None = None) -> dict[str, object]:
    """Label ``n_dice`` dice by physics and by the geometric measure; the confusion and agreement."""
    import pybullet as pb

    client = pb.connect(pb.DIRECT)
    confusion: dict[str, dict[str, int]] = {}
    agree = total = 0
    values: dict[int, int] = {}
    i = 0
    while total < n_dice:
        sc = make_scene(scene_rng(seed, i), mix=mix, client=client)
        i += 1
        for d, lab in zip(sc.world.dice, sc.dice_labels, strict=True):
            g = geometric_label(sc.world, d, sc.rolled_half)
            confusion.setdefault(lab.reason, {}).setdefault(g, 0)
            confusion[lab.reason][g] += 1
            agree += int(g == lab.reason)
            values[lab.value] = values.get(lab.value, 0) + 1
            total += 1
    pb.disconnect(client)
    valid_agree = sum(n for p, row in confusion.items() for g, n in row.items()
                      if (p in ("flat_board", "on_checker")) == (g in ("flat_board", "on_checker")))
    return {"dice": total, "scenes": i, "agreement": agree / total, "validity_agreement": valid_agree / total,
            "confusion": confusion, "values": dict(sorted(values.items()))}

