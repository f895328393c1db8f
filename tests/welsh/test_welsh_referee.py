"""``--rules welsh`` as a real referee: every Welsh alert code (DIGEST C.26) raised from table states,
each beside a near miss that does not raise it (rules R1-R24 as renumbered in DIGEST C.0).

Each scenario is a small readable position laid out on a simulated table (rules.welsh.script), fed
state by state to ``Referee(setup, get_profile("welsh"))``.  ``RAISED[code]`` builds a scenario
that must raise ``code``; ``NEAR_MISS[code]`` builds the closest one that must not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from welsh_scenario import BLACK, RED, WelshScenario

from rules.referee.alerts import CATALOGUE
from rules.referee.profiles import load_variants
from rules.welsh.alerts import CODES

START = "B1:2 F6:5 N2:3 H6:5"
FAR_BLACK = "H6:5 H5:5 H4:5"  # Black in his Home (Red's B4-B6), out of Red's way
HOME_COVER = "B1:5 B2:5 B3:5"  # covers Red's H1-H3
TRIANGLE_ON_ROOF = ("roof H6:4 H5:3 H4:2 H3 H1:4", "H6:2 H5:2 H4:2 H3:2 H2:2 H1:2 N1:3")
ROOF_BLOCKED = ("roof H6:5 H5:5 H4:4", "H6:2 H5:2 H4:2 H3:2 H2:2 H1:2 N1:3")  # Black covers Red's Back

Build = Callable[[], WelshScenario]

# ---- move legality (C.6-C.13): before, throw, the observed result ------------------------------------
ILLEGAL_PLAYS: dict[str, tuple[tuple[str, str], tuple[int, int], tuple[str, str]]] = {
    "WEL_ROOF_ENTRY_FIRST": (("roof H6:5 H5:5 H4:4", "H6:2 H5:2 N2:5 F6:5 B3"), (6, 5),
                             ("roof H6:4 H5:5 H4:4 H1", "H6:2 H5:2 N2:5 F6:5 B3")),
    "WEL_HIT_THEN_MOVED": (("B1:2 H6:5 H5:5 H4:3", "H3 N2:5 F6:5 B2:4"), (2, 3),
                           ("B1 B6 H6:5 H5:5 H4:3", "roof N2:5 F6:5 B2:4")),
    "WEL_SKINNY_SEVEN_BAR_CROSS": (("B5:2 F5:2 N1:2 H6:5 H5:2 H4:2", HOME_COVER), (5, 2),
                                   ("B5:2 F5 N5 N1 H6:5 H5:3 H4:2", HOME_COVER)),
    "WEL_STREAM_NOT_EXACT": ((START, START), (3, 1), ("B1:2 F6:4 N3 N2:3 H6:5", START)),
    "WEL_TWO_FULL_SPIKES": (("B1:2 B3:6 B5:5 H6:2", HOME_COVER), (4, 3), ("B3:6 B4 B5:6 H6:2", HOME_COVER)),
    "WEL_BACKWARD_NOT_ROVER": (("N3:2 H6:5 H5:5 H4:3", HOME_COVER), (2, 1), ("N4 N1 H6:5 H5:5 H4:3", HOME_COVER)),
    "WEL_BACKWARD_ON_DOUBLES": (("B3 H6:5 H5:5 H4:4", HOME_COVER), (2, 2), ("B3 H6:3 H5:5 H4:6", HOME_COVER)),
    "WEL_CHECKOUT_NOT_ALL_HOME": (("B1 H2:6 H3:6 H4:2", FAR_BLACK), (2, 3), ("B1 H2:5 H3:5 H4:2", FAR_BLACK)),
    "WEL_CHECKOUT_BUST": (("H6:5 H3:5 H2:5", FAR_BLACK), (5, 4), ("H6:5 H3:4 H2:4", FAR_BLACK)),
    "WEL_SIX_MUST_VIOLATED": (("N1 H6:4 H2:5 H1:5", FAR_BLACK), (6, 1), ("H6:3 H5 H2:5 H1:6", FAR_BLACK)),
    "WEL_FORWARD_MOVE_WAIVED": ((START, START), (6, 4), ("B1:2 F6:5 N2:3 H6:4 H2", START)),
    "WEL_ILLEGAL_SETTLE": ((START, START), (6, 5), ("B1 F6:5 N2:3 H6:5 H1", START)),  # onto Black's B1
    "WEL_ILLEGAL_PLAY": ((START, START), (2, 1), ("B1:2 F6:5 N2:3 H5:5", START)),
}


def _illegal(code: str, legal: bool) -> WelshScenario:
    (red, black), throw, (red_after, black_after) = ILLEGAL_PLAYS[code]
    w = WelshScenario()
    w.start(red, black)
    w.throw(RED, *throw)
    if legal:
        w.play(RED)
    else:
        w.move(RED, red_after, black_after)
    w.lift(RED)
    return w


# ---- small builders ------------------------------------------------------------------------------------
def cocked() -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, 6, 4, reasons=("cocked", "flat_board"))
    return w


def flat_off_the_board() -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, 6, 4, reasons=("off_board", "flat_board"))  # W39: flat anywhere on the table is valid
    return w


def third_identical(third: tuple[int, int]) -> WelshScenario:
    w = WelshScenario()
    w.turn(RED, 5, 4)
    w.turn(BLACK, 6, 5)
    w.turn(RED, 4, 5)  # W14: 4-5 is the same throw as 5-4
    w.turn(BLACK, 6, 5)
    w.throw(RED, *third)
    return w


def acey_deucey(first: tuple[int, int]) -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, *first)
    w.lift(RED)  # no man moved
    w.throw(RED, 6, 4)
    return w


def rethrow_after_moving() -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, 1, 2)
    w.play(RED)
    w.feed(w.table.throw(RED, (6, 4), from_table=True))  # rolled again after a man moved (W15)
    return w


def single_die(spread: bool) -> WelshScenario:
    w = WelshScenario()
    if spread:
        w.start("F1 F2 F3 F4 F5 F6 H6:5 H5:4", FAR_BLACK)  # a full spread on Red's Far-Outer board
    w.throw(RED, 4)
    return w


def full_spread(form: bool) -> WelshScenario:
    w = WelshScenario()
    w.start("B5 F1 F2 F3 F4 F5 H6:5 H5:4", "H3:5 H2:5 H1:5")
    w.throw(RED, 4, 3)
    w.play(RED, where=lambda pl: bool(pl.result.full_spreads(RED)) == form)
    w.lift(RED)
    return w


def rover(alone: bool) -> WelshScenario:
    w = WelshScenario()
    w.start("B3 H6:5 H5:5 H4:4" if alone else "B3:2 H6:5 H5:5 H4:3", HOME_COVER)
    return w


def nominate_for_self(dice: tuple[int, int]) -> WelshScenario:
    w = WelshScenario()
    w.announce("nominate", player=RED, **{"for": RED}, dice=[5, 4])
    w.throw(RED, *dice, set_dice=True)
    return w


def nominate_timing(late: bool) -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, 6, 4)
    if late:
        w.announce("nominate", player=RED, **{"for": RED}, dice=[5, 4])  # the dice are out of the cup
    else:
        w.announce("nominate", player=RED, **{"for": BLACK}, dice=[1, 1])  # for the opponent: before lifting
    return w


def nominate_twice(second_by: int) -> WelshScenario:
    w = WelshScenario()
    w.announce("nominate", player=RED, **{"for": RED}, dice=[5, 4])
    w.throw(RED, 5, 4, set_dice=True)
    w.play(RED)
    w.lift(RED)
    w.announce("nominate", player=second_by, **{"for": second_by}, dice=[6, 5])
    return w


def nominate_winning(dice: tuple[int, int]) -> WelshScenario:
    w = WelshScenario(score=(24, 0))
    w.start("H2", FAR_BLACK)
    w.announce("nominate", player=RED, **{"for": RED}, dice=list(dice))
    return w


def out_of_turn(thrower: int) -> WelshScenario:
    w = WelshScenario()
    w.announce("odds_evens", shaker=RED, call="odds", sum=8, first=BLACK)  # wrong call: the shaker (Red) chose
    w.throw(thrower, 6, 4)
    return w


def raise_(by: int, *, before_throw: bool = True) -> WelshScenario:
    w = WelshScenario()
    if not before_throw:
        w.throw(RED, 6, 4)
    w.raise_cube(by, 2)
    return w


def raise_without_right(by: int) -> WelshScenario:
    w = WelshScenario()
    w.raise_cube(RED, 2)  # the right passes to Black (R3)
    w.turn(RED, 6, 4)
    w.turn(BLACK, 6, 4)
    if by == RED:
        w.raise_cube(RED, 4)
    else:
        w.turn(RED, 5, 3)
        w.raise_cube(BLACK, 4)
    return w


def raise_at(value: int) -> WelshScenario:
    w = WelshScenario()
    w.throw(RED, 6, 4)
    w.play(RED)
    w.lift(RED)
    w.decide(action="set_cube", value=value, owner="light")  # Red has the right to raise next
    w.table.cube = {"value": value, "zone": "near"}
    w.snap()
    w.turn(BLACK, 6, 4)
    w.raise_cube(RED, min(2 * value, 64))  # at 64 the die is handed across showing 64
    return w


def triangle(raise_it: bool = False, black_throws: bool = False, press: bool = False) -> WelshScenario:
    w = WelshScenario(clock=press)
    w.table.clock = "near" if press else None
    w.start("H6:4 H5:3 H4:2 N1 N3 B1:4", FAR_BLACK)
    w.throw(RED, 4, 2)
    w.play(RED, where=lambda pl: pl.result.has_triangle(RED))
    w.lift(RED)
    if press:
        w.press(RED)
    if raise_it:
        w.raise_cube(RED, 2)
    if black_throws:
        w.throw(BLACK, 6, 5)
    return w


def triangle_broken(broken: bool) -> WelshScenario:
    w = triangle()
    w.throw(RED, 3, 1)
    w.play(RED, where=lambda pl: pl.result.has_triangle(RED) != broken)
    w.lift(RED)
    return w


def no_triangle_raise() -> WelshScenario:
    w = WelshScenario()
    w.start("H6:4 H5:3 H4:2 N1 N3 B1:4", FAR_BLACK)
    w.raise_cube(RED, 2)
    return w


def suspended(**options: object) -> WelshScenario:
    w = WelshScenario(**options)
    w.start(*TRIANGLE_ON_ROOF)
    w.throw(RED, 6, 5)
    w.lift(RED)  # a dance: nothing can enter
    return w


def dances(count: int) -> WelshScenario:
    w = WelshScenario()
    w.start(*ROOF_BLOCKED)
    w.throw(RED, 6, 5)
    w.lift(RED)
    w.feed(w.table.turn_cube(2))  # the players turn the die for the automatic raise
    if count == 2:
        w.turn(BLACK, 6, 5)
        w.throw(RED, 4, 3)
        w.lift(RED)
    return w


def entering() -> WelshScenario:
    w = WelshScenario()
    w.start("roof H6:5 H5:5 H4:4", "H6:2 H5:2 H4:2 H3:2 H2:2 N1:5")  # Red's B1 is open
    w.throw(RED, 1, 3)
    w.play(RED)
    w.lift(RED)
    return w


def three_on_roof(black_roof: int, score: tuple[int, int] = (0, 0)) -> WelshScenario:
    w = WelshScenario(score=score)
    w.start("B1:2 H6:5 H5:4 H4:4", f"roof:{black_roof} H3 H6:4 H5:4 H4:{6 - black_roof}")
    w.throw(RED, 2, 1)
    w.play(RED, where=lambda pl: pl.hits > 0)
    w.lift(RED)
    return w


def sticks(form: bool) -> WelshScenario:
    w = WelshScenario()
    w.start("N4 H6:5 H5:5 H4:4", "H6:6 H5:5 H4:4")
    w.throw(RED, 3, 1)
    w.play(RED, where=lambda pl: bool(pl.result.full_spikes(RED)) == form)
    w.lift(RED)
    return w


def snakes(first: tuple[int, int], score: tuple[int, int] = (0, 0)) -> WelshScenario:
    w = WelshScenario(score=score)
    w.turn(RED, *first)
    w.throw(BLACK, 1, 1)
    return w


def boxes_out(men: str) -> WelshScenario:
    w = WelshScenario()
    w.start(men, FAR_BLACK)
    w.throw(RED, 6, 6)
    w.play(RED)
    w.lift(RED)
    return w


def check_out_last(black: str) -> WelshScenario:
    w = WelshScenario()
    w.start("H1", black)
    w.throw(RED, 2, 1)
    w.play(RED, where=lambda pl: pl.result.checked_out(RED) == 15)
    w.lift(RED)
    return w


def one_throw_win(black: str, score: tuple[int, int] = (0, 0)) -> WelshScenario:
    w = WelshScenario(score=score)
    w.start("N1 H1:2", black)
    w.throw(RED, 6, 5)
    w.play(RED)  # the larger die: N1/H1, leaving H1:3, a one-throw win with 1-1 (R18)
    w.lift(RED)
    return w


def concede(games: int, accept: bool, payment: bool = False, score: tuple[int, int] = (0, 0),
            by: int = BLACK) -> WelshScenario:
    w = one_throw_win(FAR_BLACK, score)
    w.announce("concede_offer", player=by, games=games, payment=payment)
    w.announce("concede_answer", player=RED, accept=accept)
    return w


def rectangle(form: bool) -> WelshScenario:
    w = WelshScenario()
    w.start("N2 H6:3 H5:3 H4:3 H3:3 H2:2", FAR_BLACK)
    w.throw(RED, 4, 2)
    w.play(RED, where=lambda pl: pl.result.has_rectangle(RED) == form)
    w.lift(RED)
    return w


def timed_out(left: float) -> WelshScenario:
    w = WelshScenario(clock=True, reserves=(100.0, 100.0))
    w.table.clock = "near"
    w.snap()
    w.table.reserves = (left, 90.0)
    w.snap()
    return w


def match_game(score: tuple[int, int]) -> WelshScenario:
    w = WelshScenario(score=score)
    w.throw(RED, 6, 4)  # the game starts with its first throw (odds and evens off camera)
    return w


def ten_for_two(reserves: tuple[float, float]) -> WelshScenario:
    w = WelshScenario(clock=True, reserves=reserves)
    w.table.clock = "near"
    w.snap()
    w.throw(RED, 6, 4)
    return w


def first_checkout(then: int) -> WelshScenario:
    w = WelshScenario()
    w.start("H1:5 H2:5 H3:5", "N2:5 F6:5 N3:5")
    w.throw(RED, 1, 1)
    w.play(RED, where=lambda pl: pl.checked_out > 0)
    w.lift(RED)
    w.throw(then, 2, 2)
    return w


def bonus_extra(double: bool) -> WelshScenario:
    w = first_checkout(RED)
    if not double:
        w = WelshScenario()
        w.start("H1:5 H2:5 H3:5", "N2:5 F6:5 N3:5")
        w.turn(RED, 1, 1, where=lambda pl: pl.checked_out > 0)
        w.throw(RED, 2, 3)
    w.play(RED)
    w.lift(RED)
    return w


def clock_not_stopped(press: bool) -> WelshScenario:
    w = WelshScenario(clock=True)
    w.table.clock = "near"
    w.turn(RED, 6, 4)
    if press:
        w.press(RED)
    w.throw(BLACK, 5, 3)
    return w


def penalty(minutes_late: float) -> WelshScenario:
    w = snakes((1, 1))
    w.announce("break")
    w.snap(600.0 + 60.0 * minutes_late)
    w.feed(w.table.reset())
    w.throw(RED, 6, 4)
    return w


RAISED: dict[str, Build] = {
    **{code: (lambda c=code: _illegal(c, legal=False)) for code in ILLEGAL_PLAYS},  # type: ignore[misc]
    "WEL_COCKED_DICE": cocked,
    "WEL_THIRD_IDENTICAL_THROW_REROLL": lambda: third_identical((5, 4)),
    "WEL_ACEY_DEUCEY_OPTION": lambda: acey_deucey((1, 2)),
    "WEL_ACEY_DEUCEY_RETHROW": lambda: acey_deucey((2, 1)),
    "WEL_RETHROW_NOT_ALLOWED": rethrow_after_moving,
    "WEL_SINGLE_DIE_NOT_ALLOWED": lambda: single_die(spread=False),
    "WEL_RAISE": lambda: raise_(RED),
    "WEL_DOUBLE_WITHOUT_RIGHT": lambda: raise_without_right(RED),
    "WEL_DOUBLE_DURING_TRIANGLE": lambda: triangle(raise_it=True),
    "WEL_CUBE_ABOVE_64": lambda: raise_at(64),
    "WEL_DOUBLE_NOT_BEFORE_THROW": lambda: raise_(RED, before_throw=False),
    "WEL_AUTO_RAISE": lambda: dances(1),
    "WEL_THREE_ON_ROOF": lambda: three_on_roof(2),
    "WEL_WASH_STICKS": lambda: sticks(form=True),
    "WEL_WASH_SNAKES": lambda: snakes((1, 1)),
    "WEL_BOXES_OUT": lambda: boxes_out("H6:2 H5 H1"),
    "WEL_GAME_WON": lambda: check_out_last(FAR_BLACK),
    "WEL_CONCEDED": lambda: concede(2, accept=True),
    "WEL_RECTANGLE": lambda: rectangle(form=True),
    "WEL_TIMED_OUT": lambda: timed_out(0.0),
    "WEL_MATCH_WON": lambda: three_on_roof(2, score=(24, 0)),
    "WEL_DANCE": lambda: dances(1),
    "WEL_TRIANGLE_FORMED": triangle,
    "WEL_TRIANGLE_BROKEN": lambda: triangle_broken(broken=True),
    "WEL_TRIANGLE_SUSPENDED": suspended,
    "WEL_FULL_SPREAD_FORMED": lambda: full_spread(form=True),
    "WEL_ROVER_ACTIVE": lambda: rover(alone=True),
    "WEL_FIRST_CHECKOUT_BONUS": lambda: first_checkout(RED),
    "WEL_BONUS_EXTRA": lambda: bonus_extra(double=True),
    "WEL_CONCESSION_WINDOW_OPEN": lambda: one_throw_win(FAR_BLACK),
    "WEL_CONCESSION_OFFER": lambda: concede(2, accept=False),
    "WEL_CONCESSION_REJECTED": lambda: concede(2, accept=False),
    "WEL_CONCESSION_OFFER_INVALID": lambda: concede(3, accept=False),  # not below the exposure (3: a gammon)
    "WEL_CONCESSION_MANDATORY": lambda: concede(2, accept=False, payment=True, score=(22, 0)),
    "WEL_NOMINATE": lambda: nominate_for_self((5, 4)),
    "WEL_NOMINATE_INVALID_TIMING": lambda: nominate_timing(late=True),
    "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN": lambda: nominate_winning((2, 1)),
    "WEL_NOMINATE_ALREADY_USED": lambda: nominate_twice(RED),
    "WEL_NOMINATED_THROW_MISMATCH": lambda: nominate_for_self((5, 3)),
    "WEL_ODDS_EVENS": lambda: out_of_turn(BLACK),
    "WEL_TEN_FOR_TWO": lambda: ten_for_two((500.0, 550.0)),
    "WEL_CLOCK_NOT_STOPPED_END_TURN": lambda: clock_not_stopped(press=False),
    "WEL_CLOCK_STOPPED_WITH_FOLLOWUP": lambda: triangle(press=True),
    "WEL_BREAK_TRIGGER": lambda: snakes((1, 1), score=(5, 0)),
    "WEL_PENALTY_GAME_DUE": lambda: penalty(11.5),
    "WEL_MATCH_GAME": lambda: match_game((19, 0)),
    "WEL_OUT_OF_TURN": lambda: out_of_turn(RED),
}

NEAR_MISS: dict[str, Build] = {
    **{code: (lambda c=code: _illegal(c, legal=True)) for code in ILLEGAL_PLAYS},  # type: ignore[misc]
    "WEL_COCKED_DICE": flat_off_the_board,
    "WEL_THIRD_IDENTICAL_THROW_REROLL": lambda: third_identical((5, 3)),
    "WEL_ACEY_DEUCEY_OPTION": lambda: acey_deucey((2, 3)),
    "WEL_ACEY_DEUCEY_RETHROW": lambda: acey_deucey((2, 3)),
    "WEL_RETHROW_NOT_ALLOWED": lambda: acey_deucey((1, 2)),
    "WEL_SINGLE_DIE_NOT_ALLOWED": lambda: single_die(spread=True),
    "WEL_RAISE": lambda: raise_(RED, before_throw=False),
    "WEL_DOUBLE_WITHOUT_RIGHT": lambda: raise_without_right(BLACK),
    "WEL_DOUBLE_DURING_TRIANGLE": no_triangle_raise,
    "WEL_CUBE_ABOVE_64": lambda: raise_at(32),
    "WEL_DOUBLE_NOT_BEFORE_THROW": lambda: raise_(RED),
    "WEL_AUTO_RAISE": lambda: entering(),
    "WEL_THREE_ON_ROOF": lambda: three_on_roof(1),
    "WEL_WASH_STICKS": lambda: sticks(form=False),
    "WEL_WASH_SNAKES": lambda: snakes((2, 2)),
    "WEL_BOXES_OUT": lambda: boxes_out("H6:2 H5 H2 H1"),
    "WEL_GAME_WON": lambda: one_throw_win(FAR_BLACK),
    "WEL_CONCEDED": lambda: concede(2, accept=False),
    "WEL_RECTANGLE": lambda: rectangle(form=False),
    "WEL_TIMED_OUT": lambda: timed_out(1.0),
    "WEL_MATCH_WON": lambda: three_on_roof(2, score=(23, 0)),
    "WEL_DANCE": entering,
    "WEL_TRIANGLE_FORMED": no_triangle_raise,
    "WEL_TRIANGLE_BROKEN": lambda: triangle_broken(broken=False),
    "WEL_TRIANGLE_SUSPENDED": lambda: suspended(triangle_safeguard=False),
    "WEL_FULL_SPREAD_FORMED": lambda: full_spread(form=False),
    "WEL_ROVER_ACTIVE": lambda: rover(alone=False),
    "WEL_FIRST_CHECKOUT_BONUS": lambda: one_throw_win(FAR_BLACK),
    "WEL_BONUS_EXTRA": lambda: bonus_extra(double=False),
    "WEL_CONCESSION_WINDOW_OPEN": lambda: one_throw_win("H1:2"),  # both have a one-throw win (W23)
    "WEL_CONCESSION_OFFER": lambda: one_throw_win(FAR_BLACK),
    "WEL_CONCESSION_REJECTED": lambda: concede(2, accept=True),
    "WEL_CONCESSION_OFFER_INVALID": lambda: concede(2, accept=False),
    "WEL_CONCESSION_MANDATORY": lambda: concede(1, accept=False, payment=True, score=(22, 0)),
    "WEL_NOMINATE": lambda: nominate_timing(late=True),
    "WEL_NOMINATE_INVALID_TIMING": lambda: nominate_timing(late=False),
    "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN": lambda: nominate_winning((6, 6)),
    "WEL_NOMINATE_ALREADY_USED": lambda: nominate_twice(BLACK),
    "WEL_NOMINATED_THROW_MISMATCH": lambda: nominate_for_self((5, 4)),
    "WEL_ODDS_EVENS": cocked,
    "WEL_TEN_FOR_TWO": lambda: ten_for_two((500.0, 700.0)),
    "WEL_CLOCK_NOT_STOPPED_END_TURN": lambda: clock_not_stopped(press=True),
    "WEL_CLOCK_STOPPED_WITH_FOLLOWUP": lambda: clock_not_stopped(press=True),
    "WEL_BREAK_TRIGGER": lambda: snakes((1, 1), score=(4, 0)),
    "WEL_PENALTY_GAME_DUE": lambda: penalty(5.0),
    "WEL_MATCH_GAME": lambda: match_game((18, 0)),
    "WEL_OUT_OF_TURN": lambda: out_of_turn(BLACK),
}


def test_every_welsh_code_has_a_scenario_and_a_near_miss_C26():
    assert set(RAISED) == set(CODES) == set(NEAR_MISS)
    load_variants()
    assert all(CATALOGUE[c].applies("WELSH") for c in CODES)


@pytest.mark.parametrize("code", sorted(RAISED))
def test_the_code_is_raised_from_table_states(code: str) -> None:
    w = RAISED[code]()
    assert code in w.all_codes(), (code, w.all_codes())
    alert = w.last(code)
    assert alert.rules and alert.rules[0].startswith("Welsh"), alert.rules  # the rule it cites
    if alert.severity.is_alert:
        assert code in w.codes()


@pytest.mark.parametrize("code", sorted(NEAR_MISS))
def test_the_near_miss_does_not_raise_it(code: str) -> None:
    w = NEAR_MISS[code]()
    assert code not in w.all_codes(), (code, w.all_codes())
