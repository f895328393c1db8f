"""Welsh checking out, throws, the doubling die, game endings and turn order (DIGEST C.4, C.5,
C.13-C.17, C.19-C.22; R3-R7, R11-R14, R16-R19, R21, R22)."""

from __future__ import annotations

import pytest

from rules.welsh.alerts import WelshRuleError
from rules.welsh.game import Ending, Nominations, WelshGame, loss_multiplier
from rules.welsh.geometry import parse_label
from rules.welsh.movegen import Play, legal_plays
from rules.welsh.options import WelshOptions
from rules.welsh.position import WelshPosition


def pos(red: str, black: str) -> WelshPosition:
    return WelshPosition.from_labels(red=red, black=black)


def game(red: str, black: str, first: int = 0, **kw: object) -> WelshGame:
    return WelshGame(first, position=pos(red, black), **kw)  # type: ignore[arg-type]


def play_where(g: WelshGame, pred) -> Play:  # type: ignore[no-untyped-def]
    for pl in g.legal_plays():
        if pred(pl):
            g.apply_play(pl)
            return pl
    raise AssertionError(f"no legal play matches; plays: {[str(p) for p in g.legal_plays()]}")


def any_play(g: WelshGame) -> Play:
    return play_where(g, lambda pl: True)


FAR_BLACK = "H6:5 H5:5 H4:5"  # Black all in his Home (Red's B4-B6), out of Red's way


# ---- C.13 checking out, Six Must, Boxes Out (R18, R19) -----------------------------------------

def test_c13_check_out_only_when_all_men_are_home_R18():
    p = pos("B1 H2:6 H3:6 H4:2", FAR_BLACK)
    assert all(pl.checked_out == 0 for pl in legal_plays(p, 0, (2, 3)))
    # a man may come home with one value and another check out with the next (mid-turn)
    q = pos("N1 H2:6 H3:6 H4:2", FAR_BLACK)
    assert any(pl.checked_out for pl in legal_plays(q, 0, (1, 2)))


def test_c13_exact_values_only_a_bust_must_be_played_inside_R18_W20():
    p = pos("H6:5 H3:5 H2:5", FAR_BLACK)
    plays = legal_plays(p, 0, (5, 4))
    assert plays and all(pl.checked_out == 0 and pl.dice_used == 2 for pl in plays)
    # doubles twice over: 3-3 takes four men off the 3-spike
    q = pos("H3:4 H1:2", FAR_BLACK)
    assert any(pl.checked_out == 4 for pl in legal_plays(q, 0, (3, 3)))


def test_c13_six_must_R18_W21():
    p = pos("N1 H6:4 H2:5 H1:5", FAR_BLACK)
    six = legal_plays(p, 0, (6, 1))
    assert six and all(pl.checked_out >= 1 for pl in six)
    # without a 6 in the throw, a play that checks nothing out stays legal
    assert any(pl.checked_out == 0 for pl in legal_plays(p, 0, (5, 1)))


def test_c13_boxes_out_R19_W25():
    g = game("H6 H5 H4 H3", FAR_BLACK)
    g.throw((6, 6))
    (only,) = g.legal_plays()
    assert only.ending == "boxes_out" and only.checked_out == 4
    g.apply_play(only)
    assert g.result is not None and g.result.ending is Ending.BOXES_OUT
    assert g.result.games == (3, 0)  # Black has none off and all at home: a gammon (x3, R4)


# ---- C.14 bonus throws (R18) --------------------------------------------------------------------

def test_c14_first_check_out_earns_a_bonus_throw_and_doubles_a_bonus_extra_R18():
    g = game("H1:5 H2:5 H3:5", "N2:5 F6:5 N3:5")
    g.throw((1, 1))
    play_where(g, lambda pl: pl.checked_out > 0)
    assert g.turn == 0 and g.bonus_turn
    assert [e.code for e in g.events][-1] == "WEL_FIRST_CHECKOUT_BONUS"
    g.throw((2, 2))
    any_play(g)
    assert g.turn == 0 and [e.code for e in g.events][-1] == "WEL_BONUS_EXTRA"
    g.throw((3, 1))
    any_play(g)
    assert g.turn == 1 and not g.bonus_turn


# ---- C.15 triangles and rectangles (R17) -----------------------------------------------------------

def test_c15_triangle_gives_extra_turns_and_freezes_the_cube_R17a():
    g = game("H6:4 H5:3 H4:2 N1 N3 B1:4", FAR_BLACK)
    g.throw((4, 2))
    play_where(g, lambda pl: pl.result.has_triangle(0))
    assert g.turn == 0 and g.triangle[0]
    assert g.can_raise(0) == "WEL_DOUBLE_DURING_TRIANGLE"
    assert "WEL_TRIANGLE_FORMED" in [e.code for e in g.events]
    assert pos("H6:4 H5:3 H4:2 H3", "B1").triangles(0) == [(19, 20, 21, 22)]
    assert pos("H4 H3:2 H2:3 H1:4", "F1").has_triangle(0)  # either direction


def test_c15_rectangle_wins_the_match_R17b():
    from rules.welsh.match import WelshMatch

    m = WelshMatch()
    m.new_game(0)
    assert m.game is not None
    m.game.position = pos("B1:4 B2:3 B3:3 B4:3 B5:2", "N2:5 F6:5 N3:5")
    m.game._start_turn()
    m.game.throw((3, 1))
    play_where(m.game, lambda pl: pl.result.has_rectangle(0))
    assert m.over and m.winner == 0 and m.ending is Ending.RECTANGLE
    assert m.settlement().set_payment == 750  # R23 a)


# ---- C.5 throws (R7, R11, R13) ------------------------------------------------------------------------

def test_c5_no_third_identical_throw_in_a_row_unordered_R7_W14():
    g = WelshGame(0)
    for throw in ((5, 4), (6, 1), (4, 5), (6, 2)):
        assert g.throw(throw) == "play"
        any_play(g)
    assert g.throw((5, 4)) == "rethrow"
    assert g.throw((6, 3)) == "play"


def test_c5_acey_deucey_may_be_thrown_again_R13_W15():
    g = WelshGame(0)
    g.throw((2, 1))
    assert g.may_rethrow_acey_deucey()
    g.rethrow_acey_deucey()
    g.throw((1, 2))
    g.rethrow_acey_deucey()  # each new 1-2 gives the option again
    g.throw((6, 4))
    assert not g.may_rethrow_acey_deucey()
    with pytest.raises(WelshRuleError):
        g.rethrow_acey_deucey()


def test_c5_single_die_only_with_a_full_spread_R11_W11():
    g = game("F1 F2 F3 F4 F5 F6 B1:5 B2:4", "F1:2 H6:5 H5:5 H4:3")
    g.throw((3,), single_die=True)
    assert g.single_die
    h = WelshGame(0)
    with pytest.raises(WelshRuleError) as err:
        h.throw((3,), single_die=True)
    assert err.value.code == "WEL_SINGLE_DIE_NOT_ALLOWED"


# ---- C.7 and C.16: dances and the doubling die (R3, R12b, R16) ------------------------------------------

def test_c7_c16_first_dance_raises_the_die_once_without_changing_the_right_R16_W17():
    closed = "H6:2 H5:2 H4:2 H3:2 H2:2 H1:2 B1:3"  # every Back spike of Red covered
    g = game("roof H6:5 H5:5 H4:4", closed)
    g.throw((6, 5))
    (dance,) = g.legal_plays()
    g.apply_play(dance)
    assert g.cube == 2 and g.cube_owner is None
    assert [e.code for e in g.events][-2:] == ["WEL_DANCE", "WEL_AUTO_RAISE"]
    g.throw((1, 1))  # Black keeps every Back spike of Red covered
    play_where(g, lambda pl: all(pl.result.at(1, r) >= 2 for r in range(19, 25)))
    g.throw((4, 2))
    g.apply_play(g.legal_plays()[0])
    assert g.cube == 2  # only the first dance of the game raises


def test_c16_raises_pass_the_right_across_and_stop_at_64_R3_R6():
    g = WelshGame(0)
    g.raise_cube(0)
    assert (g.cube, g.cube_owner) == (2, 1)
    g.throw((6, 4))
    with pytest.raises(WelshRuleError) as err:
        g.raise_cube(0)
    assert err.value.code == "WEL_DOUBLE_NOT_BEFORE_THROW"
    any_play(g)
    assert g.can_raise(1) is None
    g.throw((3, 1))
    any_play(g)
    assert g.can_raise(0) == "WEL_DOUBLE_WITHOUT_RIGHT"  # the right passed to Black
    g.throw((5, 3))
    any_play(g)
    g.raise_cube(1)
    assert (g.cube, g.cube_owner) == (4, 0)
    top = WelshGame(0, cube=64)
    assert top.can_raise(0) == "WEL_CUBE_ABOVE_64"


# ---- C.17 turn order ------------------------------------------------------------------------------------

def test_c17_turns_alternate_and_a_play_must_be_legal():
    g = WelshGame(1)
    g.throw((3, 1))
    with pytest.raises(WelshRuleError) as err:
        g.play(WelshPosition.start())
    assert err.value.code == "WEL_ILLEGAL_PLAY"
    any_play(g)
    assert g.turn == 0
    with pytest.raises(WelshRuleError):
        g.legal_plays()  # Red has not thrown yet


# ---- C.19 scoring (R4, R5, R14) ---------------------------------------------------------------------------

def test_c19_gammon_x3_backgammon_x6_and_the_two_backgammon_tests_R4_R5_W31_W32():
    opts = WelshOptions()
    std = WelshOptions(backgammon_test="standard")
    assert loss_multiplier(pos("H6", "B1 off:14"), 1, opts) == 1
    assert loss_multiplier(pos("H6", "H6:5 H5:5 H4:5"), 1, opts) == 3
    assert loss_multiplier(pos("H6", "N2 H6:5 H5:5 H4:4"), 1, opts) == 6
    assert loss_multiplier(pos("H6", "N2 H6:5 H5:5 H4:4"), 1, std) == 3
    assert loss_multiplier(pos("H6", "B2 H6:5 H5:5 H4:4"), 1, std) == 6
    assert loss_multiplier(pos("H6", "roof H6:5 H5:5 H4:4"), 1, std) == 6


def test_c19_three_on_the_roof_scores_the_die_value_only_R14():
    g = game("B1:2 H6:5 H5:5 H4:3", "roof:2 H3 N2:5 F6:5 B2:2", cube=4)
    g.throw((2, 6))
    play_where(g, lambda pl: pl.ending == "three_on_roof")
    assert g.result is not None
    assert (g.result.ending, g.result.winner, g.result.games) == (Ending.THREE_ON_ROOF, 0, (4, 0))


# ---- C.22 washes (R22) ------------------------------------------------------------------------------------

def test_c22_wash_by_sticks_scores_one_each_whatever_the_die_R22i():
    g = game("N1 H6:5 H5:4 H4:5", "B1:2 F6:5 N2:2 H6:6", cube=8)
    g.throw((1, 3))
    play_where(g, lambda pl: pl.result.at(0, parse_label("H6")) == 6)
    assert g.result is not None and g.result.ending is Ending.WASH_STICKS and g.result.games == (1, 1)


def test_c22_wash_by_snakes_and_not_after_ones_own_1_1_R22ii_W47():
    g = WelshGame(0)
    g.throw((1, 1))
    any_play(g)
    assert g.throw((1, 1)) == "over"
    assert g.result is not None and g.result.ending is Ending.WASH_SNAKES and g.result.games == (1, 1)
    h = WelshGame(0)
    h.last_counted = (0, (1, 1))  # Red's own 1-1 (say on a bonus turn) just before
    assert h.throw((1, 1)) == "play"


# ---- C.20 concession offers (R18) ----------------------------------------------------------------------------

def test_c20_concession_window_offer_limits_and_the_five_pound_rule_R18_W23_W24():
    g = game("H1:2", "N2:5 F6:5 B2:5", first=1, scores=(23, 0))
    g.throw((6, 4))
    any_play(g)
    assert g.concession_window == (1, 0)  # Black may offer; Red holds the one-throw win
    assert g.exposure(1) == 6  # none off and men outside Home: a backgammon
    with pytest.raises(WelshRuleError):
        g.offer_concession(1, 6)
    g.offer_concession(1, 1, with_payment=True)  # Red would reach exactly 24, with the £5
    assert g.offer_mandatory()
    with pytest.raises(WelshRuleError) as err:
        g.answer_concession(False)
    assert err.value.code == "WEL_CONCESSION_MANDATORY"
    g.answer_concession(True)
    assert g.result is not None and g.result.ending is Ending.CONCESSION and g.result.games == (1, 0)


def test_c20_window_closes_at_the_holders_next_throw_W23():
    g = game("H1:2", "N2:5 F6:5 B2:5", first=1)
    g.throw((6, 4))
    any_play(g)
    assert g.concession_window is not None
    g.throw((3, 5))
    assert g.concession_window is None
    with pytest.raises(WelshRuleError):
        g.offer_concession(1, 1)


# ---- C.21 nominates (R21, R24 iv) --------------------------------------------------------------------------

def test_c21_nominate_once_per_match_with_timing_R21_R24iv():
    cards = Nominations()
    g = WelshGame(0, nominations=cards)
    g.throw((6, 4))
    with pytest.raises(WelshRuleError) as err:
        g.nominate(0, 0, (5, 4))  # for oneself: only while the dice are still in the cup
    assert err.value.code == "WEL_NOMINATE_INVALID_TIMING"
    with pytest.raises(WelshRuleError):
        g.nominate(1, 0, (5, 4))  # not during the opponent's turn
    g.nominate(0, 1, (5, 4))  # for the opponent, before the end of one's own turn
    any_play(g)
    with pytest.raises(WelshRuleError) as err:
        g.throw((6, 6))
    assert err.value.code == "WEL_NOMINATED_THROW_MISMATCH"
    assert g.throw((4, 5)) == "play"
    any_play(g)
    with pytest.raises(WelshRuleError) as err:
        g.nominate(0, 0, (3, 3))
    assert err.value.code == "WEL_NOMINATE_ALREADY_USED"


def test_c21_no_match_winning_nomination_for_oneself_R21_W28():
    g = game("H1", "N2:5 F6:5 B2:5", scores=(24, 10))
    with pytest.raises(WelshRuleError) as err:
        g.nominate(0, 0, (1, 1))
    assert err.value.code == "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN"
    with pytest.raises(WelshRuleError):
        g.nominate(0, 0, (2, 3))  # Last Man Roving: 2 back to H3, then 3 off (R20)
    g.nominate(0, 0, (2, 4))  # 2-4 cannot take the man on H1 off (exact values, R18)
    assert g.throw((4, 2)) == "play"
    # nominating a winning throw for the opponent is not forbidden
    h = game("N2:5 F6:5 B2:5", "H1", first=0, scores=(10, 24))
    h.throw((6, 4))
    h.nominate(0, 1, (1, 1))


def test_c21_a_nominated_throw_is_exempt_from_the_three_identical_rule_W14():
    g = WelshGame(0)
    for throw in ((5, 4), (6, 1), (5, 4), (6, 2)):
        g.throw(throw)
        any_play(g)
    g.nominate(0, 0, (5, 4))
    assert g.throw((5, 4)) == "play"


def test_c17_triangle_and_first_check_out_in_one_turn_give_one_extra_turn_then_the_triangle_goes_on():
    g = game("H6:4 H4 H3:2 H2:3 H1:5", "N2:5 F6:5 N3:5")
    g.throw((6, 1))
    play_where(g, lambda pl: pl.checked_out == 2)  # H6 off and H1 off: H4-H1 is now 1-2-3-4
    assert g.triangle[0] and g.bonus_turn and g.turn == 0
    g.throw((6, 1))  # the bonus throw, not a double
    play_where(g, lambda pl: pl.result.has_triangle(0))  # H6 off, H6/H5
    assert g.turn == 0 and not g.bonus_turn and g.triangle[0]  # the triangle continues
