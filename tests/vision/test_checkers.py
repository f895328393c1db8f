"""Checker strips: geometry through the calibration profile, the network input, count arithmetic,
and the model's failure modes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.board import BoardDimensions, board_to_image
from calibration.profile import CalibrationProfile
from vision.checkers import (
    BAR_PRIOR,
    COUNTS,
    KIND_OF,
    MIN_TOTAL_P,
    N_STRIPS,
    STRIP_H,
    STRIP_NAMES,
    STRIP_W,
    TRAY_TALL_FROM,
    TRAY_TALL_SHARE,
    CheckerCounter,
    add_counts,
    check_total,
    cut_strips,
    hidden_strips,
    region_homographies,
    spread_tall,
    strip_cover,
    strip_transforms,
    strips,
    to_tensor,
    weigh_bar,
)
from vision.errors import ModelMissingError
from vision.geometry import point_centre_x, point_rect


def _profile(board_view, count: int = 8) -> CalibrationProfile:
    return CalibrationProfile.from_corners(board_view.true_corners(count), (1280, 720))


def _to_image(m: np.ndarray, uv: tuple[float, float]) -> np.ndarray:
    return cv2.perspectiveTransform(np.array([[uv]], dtype=np.float64), m).reshape(2)


def test_there_are_28_strips_in_order() -> None:
    assert N_STRIPS == 28
    assert STRIP_NAMES[:3] == ("p1", "p2", "p3") and STRIP_NAMES[23] == "p24"
    assert STRIP_NAMES[24:] == ("bar-near", "bar-far", "off-near", "off-far")


@pytest.mark.parametrize("point", [1, 6, 7, 12, 13, 18, 19, 24])
def test_a_point_strip_is_centred_on_its_point_with_the_rail_at_the_top(board_view, point: int) -> None:
    prof = _profile(board_view)
    dims = prof.dims
    m = strip_transforms(prof)[point - 1]
    side = -1 if point <= 12 else 1
    x = point_centre_x(dims, point)
    # the top edge of the strip lies beyond the rail, on the point's centre line
    top = _to_image(m, (STRIP_W / 2, 0))
    rail = board_to_image(board_view.h, [[x, side * dims.play_depth / 2]])[0]
    centre_line = board_to_image(board_view.h, [[x, 0.0]])[0]
    # top, rail and middle line are on one image line, in that order
    d1 = np.linalg.norm(top - centre_line)
    d2 = np.linalg.norm(rail - centre_line)
    assert d1 > d2 > 0
    direction = (rail - centre_line) / d2
    assert np.linalg.norm((top - centre_line) - direction * d1) < 1.0
    # the strip is two point widths wide: its top corners sit one point width either side
    left = board_to_image(board_view.h, [[x - dims.point_width, 0.0]])[0]
    right = board_to_image(board_view.h, [[x + dims.point_width, 0.0]])[0]
    mid_y = STRIP_H * (1.0 / (1.0 + 0.30 + 0.15)) * (1.0 + 0.30)  # where the middle line falls in the strip
    lo = _to_image(m, (0, mid_y))
    hi = _to_image(m, (STRIP_W, mid_y))
    assert min(np.linalg.norm(lo - left) + np.linalg.norm(hi - right),
               np.linalg.norm(lo - right) + np.linalg.norm(hi - left)) < 2.0


def test_far_strips_are_turned_not_mirrored(board_view) -> None:
    prof = _profile(board_view)
    tf = strip_transforms(prof)
    for i in (0, 12):  # p1 near, p13 far
        m = tf[i]
        a, b, c = _to_image(m, (0, 0)), _to_image(m, (STRIP_W, 0)), _to_image(m, (0, STRIP_H))
        cross = (b - a)[0] * (c - a)[1] - (b - a)[1] * (c - a)[0]
        assert cross > 0, f"strip {STRIP_NAMES[i]} is mirrored"


def test_with_eight_corners_the_bar_lies_between_the_halves_inner_corners(board_view) -> None:
    dims = BoardDimensions(bar_width=6.0)  # the profile believes in a wider bar than the board has
    corners = board_view.true_corners(8)
    prof = CalibrationProfile.from_corners(corners, (1280, 720), dims=dims)
    h = region_homographies(prof)["bar"]
    b, q = dims.bar_width / 2, dims.play_depth / 2
    got = board_to_image(h, [[b, -q], [-b, -q], [-b, q], [b, q]])
    want = corners[[1, 4, 7, 2]]
    assert np.abs(got - want).max() < 1e-3  # float32 inside OpenCV


def test_strips_of_a_drawn_checker_show_it_only_on_its_point(board_view) -> None:
    prof = _profile(board_view)
    img = np.full((720, 1280, 3), 90, np.uint8)
    dims = prof.dims
    x, y = point_centre_x(dims, 5), -dims.play_depth / 2 + dims.checker_diameter / 2
    c = board_to_image(board_view.h, [[x, y]])[0]
    cv2.circle(img, (int(c[0]), int(c[1])), 12, (250, 250, 250), -1)
    cut = cut_strips(img, strip_transforms(prof))
    assert cut.shape == (N_STRIPS, STRIP_H, STRIP_W, 3)
    bright = (cut.max(axis=3) > 200).reshape(N_STRIPS, -1).sum(axis=1)
    assert bright[4] > 20  # p5
    # it stands on the centre line of p5's strip, near the top (the rail end); the neighbours'
    # strips (two point widths wide) see it at their side edge; points further away see nothing
    mask = cut[4].max(axis=2) > 200
    rows, cols = np.nonzero(mask)
    assert abs(cols.mean() - (STRIP_W - 1) / 2) < 2 and rows.mean() < STRIP_H / 3
    for n in (3, 5):
        ncols = np.nonzero(cut[n].max(axis=2) > 200)[1]
        assert abs(ncols.mean() - (STRIP_W - 1) / 2) > STRIP_W / 4
    assert bright[[i for i in range(24) if i not in (3, 4, 5)]].max() == 0


def test_network_input_is_standardised_per_frame_and_channel() -> None:
    rng = np.random.default_rng(1)
    s = rng.integers(0, 256, (N_STRIPS, STRIP_H, STRIP_W, 3), dtype=np.uint8)
    s[0] = 255  # one bright strip stays brighter than the rest (not standardised per strip)
    x = to_tensor(s)
    assert x.shape == (N_STRIPS, 3, STRIP_H, STRIP_W)
    assert np.allclose(x.mean(axis=(0, 2, 3)), 0, atol=1e-3)
    assert x[0].mean() > x[1:].mean() + 1.0


def test_strip_corners_cover_bar_and_trays(board_view) -> None:
    prof = _profile(board_view)
    names = [s.name for s in strips(prof)]
    assert names == list(STRIP_NAMES)
    tray = strips(prof)[STRIP_NAMES.index("off-near")]
    assert tray.corners_cm[:, 0].min() > prof.dims.half_width  # beyond the right half (tray_side right)


def test_adding_count_distributions() -> None:
    a = np.zeros(16)
    a[[1, 2]] = 0.5
    b = np.zeros(16)
    b[3] = 1.0
    s = add_counts(a, b)
    assert np.isclose(s.sum(), 1.0)
    assert np.isclose(s[4], 0.5) and np.isclose(s[5], 0.5)
    big = np.zeros(16)
    big[10] = 1.0
    assert np.isclose(add_counts(big, big)[15], 1.0)  # 20 folds onto the last count


def test_a_missing_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"train_checkers\.py"):
        CheckerCounter(tmp_path / "nope.onnx")


def test_a_corrupt_model_says_how_to_rebuild_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx graph")
    with pytest.raises(ModelMissingError, match=r"cannot be loaded.*train_checkers\.py"):
        CheckerCounter(bad)


def _brute_force(p: np.ndarray, total: int) -> tuple[np.ndarray, np.ndarray]:
    """Conditioned marginals and joint best counts by listing every assignment (small cases only)."""
    import itertools

    marg = np.zeros_like(p)
    best, best_v = None, -1.0
    for c in itertools.product(range(p.shape[1]), repeat=len(p)):
        if sum(c) != total:
            continue
        v = float(np.prod([p[i, k] for i, k in enumerate(c)]))
        for i, k in enumerate(c):
            marg[i, k] += v
        if v > best_v:
            best, best_v = np.array(c), v
    assert best is not None
    return marg / marg.sum(axis=1, keepdims=True), best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_total_check_matches_listing_every_assignment(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(COUNTS, 0.4), size=4)
    res = check_total(p, total=15, min_total_p=0.0)
    marg, best = _brute_force(p, 15)
    assert res.applied
    np.testing.assert_allclose(res.marginals, marg, atol=1e-9)
    assert res.best.tolist() == best.tolist() and int(res.best.sum()) == 15


def test_the_total_check_repairs_one_misread_stack() -> None:
    # 28 strips: the truth is 5, 5, 5 on three strips, the rest empty; strip 1 reads 4 (5 second)
    p = np.full((N_STRIPS, COUNTS), 1e-4)
    p[:, 0] = 1.0
    p[0], p[2] = np.full(COUNTS, 1e-4), np.full(COUNTS, 1e-4)
    p[0, 5] = p[2, 5] = 1.0
    p[1] = 1e-4
    p[1, 4], p[1, 5] = 0.6, 0.4
    p /= p.sum(axis=1, keepdims=True)
    res = check_total(p)
    assert res.applied
    assert p[1].argmax() == 4 and res.best[1] == 5 and res.marginals[1].argmax() == 5
    assert res.best.sum() == 15


def test_the_total_check_stands_aside_when_fifteen_is_implausible() -> None:
    # every strip surely empty: 15 checkers cannot be there (a hand holds them), keep the raw reading
    p = np.full((N_STRIPS, COUNTS), 1e-9)
    p[:, 0] = 1.0
    res = check_total(p)
    assert not res.applied and res.total_p < MIN_TOTAL_P
    assert res.best.tolist() == [0] * N_STRIPS
    np.testing.assert_allclose(res.marginals, p / p.sum(axis=1, keepdims=True))


def test_spreading_a_tray_s_tall_counts_keeps_the_totals_and_the_counts_below() -> None:
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(COUNTS, 0.3), size=5)
    q = spread_tall(p, start=6, share=0.4)
    np.testing.assert_allclose(q[:, :6], p[:, :6])
    np.testing.assert_allclose(q[:, 6:].sum(axis=1), p[:, 6:].sum(axis=1))
    np.testing.assert_allclose(q.sum(axis=1), 1.0)
    assert np.all(q[:, 6:].max(axis=1) <= p[:, 6:].max(axis=1) + 1e-12)  # flatter, never sharper
    np.testing.assert_allclose(spread_tall(p, start=6, share=0.0), p)
    flat = spread_tall(p, start=6, share=1.0)[:, 6:]
    np.testing.assert_allclose(flat, flat[:, :1].repeat(COUNTS - 6, axis=1))
    with pytest.raises(ValueError, match="share"):
        spread_tall(p, share=1.5)
    with pytest.raises(ValueError, match="tray_tall_share"):
        CheckerCounter(tray_tall_share=-0.1)


def test_a_tall_tray_read_short_is_made_whole_by_the_total_once_its_tall_counts_are_spread() -> None:
    # light: 4 sure checkers on point 1, 11 borne off in the near tray, which the network reads as 9
    # and all but rules out 11 (what the simulator's trays show: 6+ read right a third of the time)
    trays = [i for i, n in enumerate(STRIP_NAMES) if KIND_OF[n] == "tray"]
    near = STRIP_NAMES.index("off-near")
    p = np.full((N_STRIPS, COUNTS), 1e-9)
    p[:, 0] = 1.0
    p[0] = 1e-9
    p[0, 4] = 1.0
    p[near] = 1e-9
    p[near, 9], p[near, 8], p[near, 10] = 0.97, 0.02, 0.01
    p /= p.sum(axis=1, keepdims=True)
    as_read = check_total(p)
    assert not as_read.applied and as_read.best[near] == 9  # 15 implausible: the raw reading stands
    q = p.copy()
    q[trays] = spread_tall(p[trays])
    spread = check_total(q)
    assert spread.applied and spread.best[near] == 11 and spread.best[0] == 4 and spread.best.sum() == 15
    assert TRAY_TALL_FROM <= 9 and TRAY_TALL_SHARE > 0


def test_the_bar_prior_puts_two_dim_lone_checkers_back_on_their_points_not_on_the_bar() -> None:
    # seed 352, frame 1413 (decision 0732): dark has 13 checkers read for sure, two lone dark red
    # checkers on red points by the near rail are barely seen (P(1) 0.26 and 0.10) and the far bar
    # strip has a little stray mass (P(1) 0.09, P(2) 0.08): as read, the check put both on the bar
    p = np.full((N_STRIPS, COUNTS), 1e-6)
    p[:, 0] = 1.0
    p[5] = 1e-6
    p[5, 13] = 1.0                     # 13 sure on point 6
    p[11, :3] = 0.688, 0.258, 0.008    # point 12
    p[1, :3] = 0.86, 0.103, 0.003      # point 2
    far = STRIP_NAMES.index("bar-far")
    p[far, :3] = 0.795, 0.093, 0.08
    p /= p.sum(axis=1, keepdims=True)
    as_read = check_total(p)
    assert as_read.best[far] == 2 and as_read.best[11] == 0 and as_read.best[1] == 0
    weighed = weigh_bar(p)
    np.testing.assert_allclose(weighed.sum(axis=1), 1.0)
    np.testing.assert_allclose(weighed[:24], p[:24])  # points and trays untouched
    res = check_total(weighed)
    assert res.best[far] == 0 and res.best[11] == 1 and res.best[1] == 1 and res.best.sum() == 15
    # a checker the bar strip clearly shows stays there
    q = p.copy()
    q[far, :3] = 0.05, 0.9, 0.05
    q[1, :3] = 0.99, 0.005, 0.005
    q /= q.sum(axis=1, keepdims=True)
    assert check_total(weigh_bar(q)).best[far] == 1
    assert BAR_PRIOR[0] == 1.0 and np.all(BAR_PRIOR[1:3] < 1.0)


def _hand_over(prof: CalibrationProfile, board_view, rect_cm: tuple[float, float, float, float], scale: float) -> np.ndarray:
    """A hand mask (0/255, at ``scale`` of the frame) covering a board rectangle x0, x1, y0, y1 (cm)."""
    x0, x1, y0, y1 = rect_cm
    quad = board_to_image(board_view.h, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) * scale
    mask = np.zeros((round(720 * scale), round(1280 * scale)), np.uint8)
    cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 255)
    return mask


def test_a_hand_over_a_point_hides_it_and_only_where_its_checkers_lie(board_view) -> None:
    prof = _profile(board_view)
    dims, scale = prof.dims, 0.125
    tf = strip_transforms(prof)
    x0, x1, y0, y1 = point_rect(dims, 6)  # near side: y0 is the rail
    d = dims.checker_diameter
    counts = np.zeros((N_STRIPS, 2), np.int64)
    counts[5] = (3, 0)
    # a palm over the rail end of p6 (its three checkers) and over the bar's near half
    bar = dims.bar_width / 2
    mask = _hand_over(prof, board_view, (x0 + 0.2, x1 - 0.2, y0, y0 + 2 * d), scale)
    cover = strip_cover(mask, scale, tf)
    assert cover.shape[0] == N_STRIPS and cover.max() <= 1.0
    assert {STRIP_NAMES[i] for i in hidden_strips(cover, counts, dims)} == {"p6"}
    # with a hand over the bar's near half too: the bar, and p7 on the bar's other side, whose first
    # place the bar hand's widened edge reaches (seed 320: a tapping palm's edge read as a checker there)
    mask |= _hand_over(prof, board_view, (-bar, bar, y0, y0 + 15), scale)
    hidden = {STRIP_NAMES[i] for i in hidden_strips(strip_cover(mask, scale, tf), counts, dims)}
    assert hidden == {"p6", "p7", "bar-near"}
    # the same palm half a centimetre over its neighbours' edges (p5, the bar): the mask is widened by
    # HAND_MARGIN (a hand's edge differs less from the table than its middle: seed 320's thumb over
    # point 17), so p5 and the bar's near half are hidden too; p4 (a point away) and p7 (across the
    # bar) are not
    wide = _hand_over(prof, board_view, (x0 - 0.5, x1 + 0.5, y0, y0 + 2 * d), scale)
    hidden = {STRIP_NAMES[i] for i in hidden_strips(strip_cover(wide, scale, tf), counts, dims)}
    assert hidden == {"p5", "p6", "bar-near"}
    # near miss: the same hand over the tip of p6 (towards the middle line) hides three checkers
    # at the rail only if the stack reaches it
    tip = _hand_over(prof, board_view, (x0 - 0.5, x1 + 0.5, y0 + 4.5 * d, y1), scale)
    assert "p6" not in {STRIP_NAMES[i] for i in hidden_strips(strip_cover(tip, scale, tf), counts, dims)}
    counts[5] = (5, 0)
    assert "p6" in {STRIP_NAMES[i] for i in hidden_strips(strip_cover(tip, scale, tf), counts, dims)}
    # no hand, nothing hidden
    assert hidden_strips(strip_cover(np.zeros_like(mask), scale, tf), counts, dims) == ()


def test_a_palm_over_a_stack_read_short_hides_it_by_the_counts_known_there(board_view) -> None:
    """Seed 304: a far arm tapping the bar laid its palm over the second checker of a two-stack next
    to the bar; the stack read 0, only the (uncovered) first place was looked at, and the point was
    taken as seen empty. The counts last settled there name the places to look at as well."""
    prof = _profile(board_view)
    dims, scale = prof.dims, 0.125
    tf = strip_transforms(prof)
    x0, x1, y0, y1 = point_rect(dims, 6)
    d = dims.checker_diameter
    read = np.zeros((N_STRIPS, 2), np.int64)  # the frame reads p6 empty
    palm = strip_cover(_hand_over(prof, board_view, (x0 - 0.5, x1 + 0.5, y0 + 1.1 * d, y0 + 2 * d), scale), scale, tf)
    assert "p6" not in {STRIP_NAMES[i] for i in hidden_strips(palm, read, dims)}
    known = np.zeros((24, 2), np.int64)
    known[5] = (0, 2)
    assert "p6" in {STRIP_NAMES[i] for i in hidden_strips(palm, read, dims, known)}
    known[5] = (0, 1)  # near miss: one checker known there, its place and the next one's (covered)
    assert "p6" in {STRIP_NAMES[i] for i in hidden_strips(palm, read, dims, known)}
    known[5] = (0, 0)
    assert "p6" not in {STRIP_NAMES[i] for i in hidden_strips(palm, read, dims, known)}


def test_a_hand_over_part_of_a_stack_s_width_hides_it(board_view) -> None:
    """Seed 304: a palm over the left side of a five-stack (its places 0.29-0.49 covered) read 7 for 5."""
    prof = _profile(board_view)
    dims, scale = prof.dims, 0.125
    tf = strip_transforms(prof)
    x0, x1, y0, y1 = point_rect(dims, 6)
    d = dims.checker_diameter
    counts = np.zeros((N_STRIPS, 2), np.int64)
    counts[5] = (0, 5)
    half = strip_cover(_hand_over(prof, board_view, (x0 - 0.5, x0 + 0.36 * (x1 - x0), y0, y0 + 5 * d), scale), scale, tf)
    assert "p6" in {STRIP_NAMES[i] for i in hidden_strips(half, counts, dims)}
    # the hand's edge only reaching the stack hides it too (the mask is widened by HAND_MARGIN: a
    # hand's edge reads as a checker); near miss: the hand stopping a tenth of a point short of it
    edge = strip_cover(_hand_over(prof, board_view, (x0 - 0.5, x0, y0, y0 + 5 * d), scale), scale, tf)
    assert "p6" in {STRIP_NAMES[i] for i in hidden_strips(edge, counts, dims)}
    short = strip_cover(_hand_over(prof, board_view, (x0 - 0.5, x0 - 0.1 * (x1 - x0), y0, y0 + 5 * d), scale), scale, tf)
    assert "p6" not in {STRIP_NAMES[i] for i in hidden_strips(short, counts, dims)}
