"""Die states decided by physics for constructed placements (RG19 4.1.4.3), and the geometric cross-check."""

from __future__ import annotations

import math

import numpy as np
import pytest

pb = pytest.importorskip("pybullet")

from sim.dicestate import geometric_label, physics_label  # noqa: E402
from sim.layout import TableLayout  # noqa: E402
from sim.physics import World, die_corners, quat_for_top  # noqa: E402
from sim.table import TableSpec  # noqa: E402

SPEC = TableSpec()  # 60 x 45 cm, 16 mm dice, 36 mm x 9 mm checkers


@pytest.fixture(scope="module")
def client():
    c = pb.connect(pb.DIRECT)
    yield c
    pb.disconnect(c)


def world_with(client: int, counts: dict[int, int] | None = None, friction: float = 0.4) -> World:
    signed = [0] * 24
    for p, n in (counts or {}).items():
        signed[p - 1] = n
    w = World.build(SPEC, TableLayout.from_counts(signed), client=client, die_friction=friction,
                    cube_zone="absent", rng=np.random.default_rng(0))
    # the second die lies flat out of the way in the right half unless a test moves it
    w.set_pose(w.dice[1], (15.0, 10.0, SPEC.die / 2 + 0.001), quat_for_top(3, 0.2))
    return w


def settle_and_label(w: World, half: str = "right") -> tuple[str, str, object]:
    assert w.settle(max_time=3.0)
    w.sleep_resting()
    lab = physics_label(w, w.dice[0], half)
    return lab.reason, geometric_label(w, w.dice[0], half), lab


def tilted(value: int, normal_angle: float, tilt_deg: float) -> tuple[float, ...]:
    q0 = quat_for_top(value, normal_angle)
    qt = pb.getQuaternionFromAxisAngle([math.cos(normal_angle + math.pi / 2), math.sin(normal_angle + math.pi / 2), 0],
                                       math.radians(tilt_deg))
    return tuple(pb.multiplyTransforms([0, 0, 0], qt, [0, 0, 0], q0)[1])


def test_flat_die_on_the_board_is_valid(client):
    w = world_with(client)
    w.set_pose(w.dice[0], (8.0, 0.0, SPEC.die / 2 + 0.02), quat_for_top(5, 0.4))
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("flat_board", "flat_board")
    assert lab.valid and lab.value == 5 and lab.half == "right"


def test_die_flat_on_a_checker_is_on_checker_and_valid_under_rg19(client):
    w = world_with(client, {3: 1})
    x = SPEC.point_centre_x(3)
    y = SPEC.checker_slots(3, 1)[0][1]
    w.set_pose(w.dice[0], (x, y, SPEC.checker_h + SPEC.die / 2 + 0.02), quat_for_top(2, 0.0))
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("on_checker", "on_checker")
    assert lab.valid and lab.base_z > SPEC.checker_h - 0.01


def test_die_on_the_rail_is_off_board(client):
    w = world_with(client)
    w.set_pose(w.dice[0], (10.0, -(SPEC.play_d / 2 + SPEC.rail / 2), SPEC.rail_h + SPEC.die / 2 + 0.02),
               quat_for_top(4, 0.0))
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("off_board", "off_board")
    assert not lab.valid and lab.half is None


def test_die_in_the_other_half_is_wrong_side(client):
    w = world_with(client)
    w.set_pose(w.dice[0], (-10.0, 2.0, SPEC.die / 2 + 0.02), quat_for_top(6, 0.0))
    phys, geo, _ = settle_and_label(w, half="right")
    assert (phys, geo) == ("wrong_side", "wrong_side")


def test_die_resting_on_the_other_die_is_on_die(client):
    w = world_with(client)
    w.set_pose(w.dice[0], (15.1, 10.1, SPEC.die * 1.5 + 0.02), quat_for_top(1, 0.1))
    phys, geo, _ = settle_and_label(w)
    assert (phys, geo) == ("on_die", "on_die")


def test_die_leaning_on_the_rail_is_supported_by_the_erase_test(client):
    # bottom face rising onto the far rail at 40 deg: statics say it stays (friction 0.4)
    w = world_with(client)
    q = tilted(2, -math.pi / 2, 40.0)  # normal from the far rail into the board is -y
    c = die_corners(SPEC, np.zeros(3), q)
    reach = float(np.max(c[:, 1]))
    y = SPEC.play_d / 2 - reach - 0.005
    w.set_pose(w.dice[0], (10.0, y, -c[:, 2].min() + 0.005), q)
    phys, geo, lab = settle_and_label(w)
    assert phys == "leaning" and geo == "leaning"
    assert lab.leaning_on == ["rail"]
    assert lab.erase_drop_um["rail:rail_far"] > 50.0  # RG19 4.1.4.3: drops when the rail is erased


def test_flat_die_touching_the_rail_is_not_supported(client):
    # a die flat on the board with one face against the rail: erasing the rail changes nothing
    w = world_with(client)
    w.set_pose(w.dice[0], (10.0, SPEC.play_d / 2 - SPEC.die / 2 - 0.001, SPEC.die / 2 + 0.001), quat_for_top(3, 0.0))
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("flat_board", "flat_board")
    assert lab.leaning_on == []


def _gap_to_walls(w: World, die: int) -> float:
    """Smallest gap (cm) between the die's footprint and a vertical surface in its half: the near or
    far rail, the bar, a checker's side or the other die's box."""
    pos, q = w.pose(die)
    foot = die_corners(SPEC, pos, q)[:, :2]
    x0, x1, _, _ = SPEC.half_rect("right")
    gaps = [SPEC.play_d / 2 - float(np.abs(foot[:, 1]).max()), float(foot[:, 0].min()) - x0]
    for c in w.checkers:
        cp = w.pose(c)[0]
        if w.bodies[c].place.startswith("p"):
            gaps.append(float(np.linalg.norm(foot - cp[:2], axis=1).min()) - SPEC.checker_d / 2)
    other = die_corners(SPEC, *w.pose(next(d for d in w.dice if d != die)))[:, :2]
    gaps.append(float(max(other[:, 0].min() - foot[:, 0].max(), foot[:, 0].min() - other[:, 0].max(),
                          other[:, 1].min() - foot[:, 1].max(), foot[:, 1].min() - other[:, 1].max())))
    return min(gaps)


def test_a_flat_die_placed_against_a_wall_touches_it_and_stays_valid(client):
    # the look-alike of `leaning` for the validity model's training (session 41): flat on the board,
    # within 3 mm of a rail, the bar, a stack or the other die; nothing holds it up (RG19 4.1.4.3)
    from sim.dicestate import place_die
    from sim.scene import scene_rng

    for i in range(6):
        w = world_with(client, {1: 3, 4: 2, 6: 5, 8: 3})
        place_die(w, w.dice[0], "flat_against", "right", scene_rng(41, i))
        phys, _, lab = settle_and_label(w)
        assert phys == "flat_board" and lab.leaning_on == [], (i, phys, lab.leaning_on)
        assert -0.05 < _gap_to_walls(w, w.dice[0]) < 0.35, (i, _gap_to_walls(w, w.dice[0]))


def test_edge_on_board_face_on_checker_rim_is_in_gap(client):
    # RG19 4.1.4.3: a die touching both the top edge of a checker and the playing surface
    w = world_with(client, {4: 1})
    x, y, _ = SPEC.checker_slots(4, 1)[0]
    normal = np.array([0.0, 1.0])  # from the checker towards the middle of the board
    tilt = 40.0
    q = tilted(5, math.pi / 2, tilt)
    c = die_corners(SPEC, np.zeros(3), q)
    low = c[c[:, 2] < c[:, 2].min() + 1e-6]
    d = SPEC.checker_h / math.tan(math.radians(tilt)) + 0.02
    edge = np.array([x, y]) + normal * (SPEC.checker_d / 2 + d)
    centre = edge - low[:, :2].mean(axis=0)
    w.set_pose(w.dice[0], (centre[0], centre[1], -c[:, 2].min() + 0.005), q)
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("in_gap", "in_gap")
    assert "checker" in lab.supports and "surface" in lab.supports


def test_die_balanced_on_an_edge_is_cocked(client):
    w = world_with(client)
    q = tilted(4, 0.3, 45.0)
    c = die_corners(SPEC, np.zeros(3), q)
    w.set_pose(w.dice[0], (9.0, -3.0, -c[:, 2].min() + 0.0005), q)
    phys, geo, lab = settle_and_label(w)
    assert (phys, geo) == ("cocked", "cocked")
    assert 40 < lab.tilt_deg < 50


def test_rolled_dice_land_in_the_aimed_half_mostly(client):
    from sim.scene import scene_rng

    halves = []
    for i in range(12):
        w = world_with(client)
        rng = scene_rng(3, i)
        w.throw(w.dice, "left", rng)
        w.settle()
        halves += [physics_label(w, d, "left", run_erase=False).half for d in w.dice]
    assert halves.count("left") >= 18  # a throw aimed at the left half lands there almost always


def test_hand_proxy_moves_a_checker_to_another_point(client):
    from sim.physics import HandProxy

    w = world_with(client, {6: 2})
    hand = HandProxy(w)
    top = max((c for c in w.checkers if w.bodies[c].place == "p6"), key=lambda c: w.pose(c)[0][2])
    x, y, z = SPEC.checker_slots(5, 1)[0]
    hand.carry(top, (x, y, z))
    p = w.pose(top)[0]
    assert abs(p[0] - x) < 0.3 and abs(p[1] - y) < 0.3 and abs(p[2] - z) < 0.1


def test_hand_proxy_lifts_a_die_and_places_it_flat(client):
    from sim.physics import HandProxy

    w = world_with(client)
    w.set_pose(w.dice[0], (8.0, 0.0, SPEC.die / 2 + 0.01), quat_for_top(4, 0.0))
    w.settle()
    HandProxy(w).carry(w.dice[0], (-12.0, 3.0, SPEC.die / 2))
    lab = physics_label(w, w.dice[0], "left")
    assert lab.reason == "flat_board" and lab.value == 4 and lab.half == "left"


def test_a_hit_in_progress_puts_both_colours_on_one_point(client):
    pts = [(0, 0)] * 24
    pts[2] = (1, 1)  # light has just landed on dark's blot on point 3
    lay = TableLayout(points=tuple(pts), off=(14, 14), mixed_ok=True)
    w = World.build(SPEC, lay, client=client, cube_zone="absent", rng=np.random.default_rng(0))
    on3 = [c for c in w.checkers if w.bodies[c].place == "p3"]
    assert sorted(w.bodies[c].colour for c in on3) == [0, 1]
    a, b = (w.pose(c)[0] for c in on3)
    assert np.linalg.norm(a[:2] - b[:2]) > SPEC.checker_d * 0.99  # side by side, not inside each other
    with pytest.raises(ValueError, match="both colours"):
        TableLayout(points=tuple(pts), off=(14, 14))
