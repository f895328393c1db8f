"""The readings of the Welsh text that are real choices, as options (DIGEST C.27).

Each field's default is the DIGEST's proposed reading; the docstring names the ambiguity (W-number)
it settles.  A rule set is a :class:`WelshOptions` value; named presets live in :data:`PRESETS`
and are found by name with :func:`options_by_name` (as python-chess finds variants by name).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Literal

BackgammonTest = Literal["welsh", "standard"]
WashStarter = Literal["odds_evens", "other_player"]
TieRule = Literal["extra_game", "first_listed"]
NilTrigger = Literal["score_zero", "no_games_won"]


@dataclass(frozen=True)
class WelshOptions:
    """Options of the Welsh rules engine; the defaults are the DIGEST C.27 readings."""

    hit_and_stop: bool = True
    """W7 (R9): a man that hits stops for the rest of the turn.  False: the narrow reading, where
    only a combined move cannot hit part-way and a hitter may move on with another value."""

    cross_then_continue: bool = True
    """W6 / R15 (decision 0600): a combined move may cross the stream with part of its dice (exactly
    the Far-Outer spike number) and carry on with the rest without settling, as the text's opening
    6-4 requires.  False: the DIGEST C.8 transition, where crossing needs the whole step's value."""

    skinny_seven_each_die: bool = True
    """W8 (R9): on 5-2 neither the 5, the 2 nor the combined 7 may take a man over the central bar.
    False: only the combined 7 is barred."""

    enter_above_six: bool = False
    """W4 (R16): False: a combined value above 6 cannot bring a man in from the roof."""

    rover_backward_single_die: bool = True
    """R20 / R11: True: a rover may move backward on a single-die throw (it is not a doubles throw)."""

    six_must_before_maximise: bool = True
    """W21 (R18): Six Must is applied before the play-as-many-dice rule ("in all events").
    False: maximise first, then Six Must among the maximal plays."""

    boxes_out_automatic: bool = True
    """W25 (R19): 6-6 with exactly four men left, all in Home, checks them all out at once."""

    backgammon_test: BackgammonTest = "welsh"
    """W31 (R5): "welsh": backgammon when the gammoned loser has any man on the roof or outside his
    own Home board.  "standard": on the roof or in the winner's Home board."""

    gammon_multiplier: int = 3
    """W32 (R4): a gammon counts three times."""

    backgammon_multiplier: int = 6
    """W32 (R5, R6): a backgammon counts six times."""

    cube_max: int = 64
    """R3, R6: the doubling die's highest face."""

    first_dance_raise_used_up_by_triangle: bool = True
    """W17 (R16, R17a): a first dance while a triangle stands uses up the automatic raise.
    False: the raise waits for the next dance with no triangle standing."""

    triangle_safeguard: bool = True
    """W18 (R17a): if the triangle holder could play none of the 21 throws, the opponent plays."""

    three_identical_unordered: bool = True
    """W14 (R7): 5-4 and 4-5 are the same throw outcome.  False: ordered comparison."""

    acey_deucey_max_rethrows: int | None = None
    """W15 (R13): how many times one turn may re-throw a 1-2 (None: no limit)."""

    wash_starter: WashStarter = "odds_evens"
    """W30 (R7, R22): after a wash, who starts is decided by odds and evens again.
    "other_player": the player who did not start the washed game starts."""

    match_length: int = 25
    """R1: games needed to win the match."""

    both_reach_rule: TieRule = "extra_game"
    """W33: if one game takes both players to the match length, the higher score wins; if equal,
    "extra_game" plays one more game.  ("first_listed" is only for tests of the alternative.)"""

    nil_trigger: NilTrigger = "score_zero"
    """W35 (R23): the £25 "match to nil" payment is due when the loser's games-score is 0.
    "no_games_won": when he won no game outright (washes and penalties not counted)."""

    ten_for_two_seconds: int = 600
    """R12b, W34: both clocks strictly under this many seconds (and above zero) start a game at 2."""

    clock_seconds: int = 70 * 60
    """R12a: each player's playing time for the match."""

    dice_on_board_required: bool = False
    """W39 (R7): False: a die flat anywhere on the table is valid (a die reported ``off_board`` but
    flat counts).  True: the organiser requires the dice to land on the board."""

    def describe(self) -> dict[str, object]:
        """The options as a plain dict (for logs and the referee profile)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: named rule sets (python-chess style "found by name")
PRESETS: dict[str, WelshOptions] = {
    "welsh": WelshOptions(),
    "welsh-narrow-hit": WelshOptions(hit_and_stop=False),
    "welsh-standard-backgammon": WelshOptions(backgammon_test="standard"),
}


def options_by_name(name: str) -> WelshOptions:
    """The preset called ``name``; a clear error lists the known names."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise ValueError(f"unknown Welsh rule set {name!r}; known: {known}") from None


def with_changes(base: WelshOptions, **changes: object) -> WelshOptions:
    """A copy of ``base`` with some options changed; unknown names are an error."""
    names = {f.name for f in fields(base)}
    bad = sorted(set(changes) - names)
    if bad:
        raise ValueError(f"unknown Welsh option(s) {bad}; known: {sorted(names)}")
    return replace(base, **changes)  # type: ignore[arg-type]
