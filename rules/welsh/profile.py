"""The ``welsh`` referee profile (DIGEST C.26): plugs the Welsh engine into ``rules.referee``.

Importing this module registers the profile with :func:`rules.referee.profiles.register_profile`
and adds the Welsh alert codes (family ``WELSH``) to the referee's alert catalogue, so
``get_profile("welsh")`` and ``gammonwatch referee --rules welsh`` work once it is imported.

The referee works on standard :class:`rules.position.Position` values; a Welsh position maps onto
one exactly: race coordinate ``r`` is standard point ``25 - r``, the roof is the bar, checked out
is borne off (the starting layouts coincide, C.3).  The profile's ``legal_results`` hook runs the
Welsh move generator on that mapping.

What the standard turn machine does not know about Welsh (extra turns from triangles and bonus
throws, acey-deucey re-throws, nominated and single-die throws, unilateral raises, washes) is
handled by :class:`rules.welsh.game.WelshGame`; see docs/welsh.md for the state of the
integration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from rules.match import DeadCubeRule
from rules.position import Position
from rules.referee.alerts import CATALOGUE, AlertSpec, Severity
from rules.referee.profiles import Deadline, DoubleAct, FastRoll, Profile, get_profile, register_profile
from rules.welsh.alerts import CODES
from rules.welsh.movegen import legal_plays
from rules.welsh.options import PRESETS, WelshOptions, with_changes
from rules.welsh.position import WelshPosition

FAMILY = "WELSH"

#: how each Welsh code is graded (DIGEST A.0 severities); codes not listed are EVENTs
_VIOLATIONS = {
    "WEL_SINGLE_DIE_NOT_ALLOWED", "WEL_ROOF_ENTRY_FIRST", "WEL_ILLEGAL_SETTLE", "WEL_HIT_THEN_MOVED",
    "WEL_SKINNY_SEVEN_BAR_CROSS", "WEL_STREAM_NOT_EXACT", "WEL_TWO_FULL_SPIKES", "WEL_BACKWARD_NOT_ROVER",
    "WEL_BACKWARD_ON_DOUBLES", "WEL_CHECKOUT_NOT_ALL_HOME", "WEL_CHECKOUT_BUST", "WEL_SIX_MUST_VIOLATED",
    "WEL_FORWARD_MOVE_WAIVED", "WEL_ILLEGAL_PLAY", "WEL_DOUBLE_WITHOUT_RIGHT", "WEL_DOUBLE_DURING_TRIANGLE",
    "WEL_CUBE_ABOVE_64", "WEL_DOUBLE_NOT_BEFORE_THROW", "WEL_NOMINATE_INVALID_TIMING",
    "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN", "WEL_NOMINATE_ALREADY_USED", "WEL_NOMINATED_THROW_MISMATCH",
    "WEL_OUT_OF_TURN", "WEL_RETHROW_NOT_ALLOWED", "WEL_CONCESSION_OFFER_INVALID",
}
_WARNINGS = {"WEL_COCKED_DICE", "WEL_CLOCK_NOT_STOPPED_END_TURN", "WEL_CLOCK_STOPPED_WITH_FOLLOWUP",
             "WEL_PENALTY_GAME_DUE"}


def severity_of(code: str) -> Severity:
    if code in _VIOLATIONS:
        return Severity.VIOL
    if code in _WARNINGS:
        return Severity.WARN
    return Severity.EVENT


def to_standard(position: WelshPosition, turn: int) -> Position:
    """The standard Position with the same men: point ``25 - r``, roof = bar, off = borne off."""
    boards = []
    for side in position.men:
        b = [0] * 26
        b[0] = side[25]
        b[25] = side[0]
        for r in range(1, 25):
            b[25 - r] = side[r]
        boards.append(b)
    return Position.from_boards(boards, turn=turn)


def from_standard(position: Position) -> WelshPosition:
    """The inverse of :func:`to_standard`; raises InvalidPositionError for a non-Welsh position
    (e.g. seven men on a point)."""
    sides = []
    for b in position.boards():
        side = [0] * 26
        side[25] = b[0]
        side[0] = b[25]
        for p in range(1, 25):
            side[25 - p] = b[p]
        sides.append(tuple(side))
    return WelshPosition((sides[0], sides[1]))


def _throw_of(dice: Any) -> tuple[int, ...]:
    if hasattr(dice, "first") and hasattr(dice, "second"):
        return (int(dice.first), int(dice.second))
    if isinstance(dice, Sequence):
        return tuple(int(v) for v in dice)
    raise TypeError(f"dice {dice!r}: give a rules.dice.Dice or a sequence of 1-2 values")


def legal_results_hook(options: WelshOptions) -> Callable[[Position, Any], list[Position]]:
    """The profile hook ``(position, dice) -> positions``: the Welsh legal results with the
    opponent on turn (as the standard engine's ``LegalPlays.positions``)."""

    def legal_results(position: Position, dice: Any) -> list[Position]:
        mover = position.turn
        welsh = from_standard(position)
        return [to_standard(p.result, 1 - mover) for p in legal_plays(welsh, mover, _throw_of(dice), options)]

    return legal_results


def play_notation(before: Position, after: Position, dice: Any, options: WelshOptions | None = None) -> str:
    """The Welsh notation (e.g. ``F6/N2(6+4)``) of the legal play from ``before`` to ``after``,
    or "" when ``after`` is not a legal result (for the referee's MOVE event; see docs/welsh.md)."""
    mover = before.turn
    target = from_standard(after)
    for p in legal_plays(from_standard(before), mover, _throw_of(dice), options or WelshOptions()):
        if p.result == target:
            return p.notation()
    return ""


def welsh_profile(preset: str = "welsh", **options: Any) -> Profile:
    """``get_profile("welsh", preset=..., hit_and_stop=False, ...)``: options are
    :class:`WelshOptions` fields; the standard profiles' options (moves_policy, jacoby, ...) are
    ignored, since the Welsh text has no such rules."""
    if preset not in PRESETS:
        raise ValueError(f"unknown Welsh preset {preset!r}; known: {', '.join(sorted(PRESETS))}")
    fields = set(WelshOptions.__dataclass_fields__)
    welsh_opts = with_changes(PRESETS[preset], **{k: v for k, v in options.items() if k in fields})
    from rules.welsh.referee import WelshReferee  # the machine imports this module
    # start from the standard money-play profile so that fields the referee adds later get a
    # neutral value, then set every field Welsh has a reading for
    base = get_profile("money", jacoby=False, beavers=False, automatic_doubles=0)
    welsh_fields: dict[str, Any] = dict(
        name="welsh",
        family=FAMILY,
        title="Welsh backgammon (doc 001, DIGEST part C)",
        dice_on_checkers=False,  # W39: flat on the table; a die on a checker is cocked
        flat_required=True,  # R7
        illegal_move_condonable=False,  # W40 default: correction before the opponent's next throw
        illegal_move_deadline=Deadline.OPPONENT_VALID_ROLL,
        impossible_move_class=False,
        impossible_positions=False,
        setup_deadline=Deadline.NONE,  # W40: the text has no rule on setup errors
        fast_roll=FastRoll.STAND_OR_REROLL,
        fast_grab_rule=False,
        off_turn_die_touch=False,
        lift_before_rest_rule=False,
        double_act=DoubleAct.MOVE,  # R3, R24(vii): the raise is shown with the die; no take or pass
        take_on_surface=False,  # W12: there is no take; the other player takes the die to his end
        dead_cube=DeadCubeRule.NONE,  # C.16: no dead-cube rule
        crawford=False,  # C.16: no Crawford rule
        jacoby=False,
        beavers=False,
        automatic_doubles=0,
        moves_policy="legal",
        legal_results=legal_results_hook(welsh_opts),
        play_notation=lambda before, after, dice: play_notation(before, after, dice, welsh_opts),
        machine=WelshReferee,  # the Welsh turn flow (rules/welsh/referee.py)
        variant=welsh_opts,
    )
    known = set(Profile.__dataclass_fields__)
    return replace(base, **{k: v for k, v in welsh_fields.items() if k in known})


#: the referee's generic alerts that also apply to Welsh, with the Welsh rule they rest on
WELSH_CITES_FOR_REFEREE_CODES: dict[str, tuple[str, ...]] = {
    "ROLL_VALID": ("Welsh R7",),
    "REROLL_REQUIRED": ("Welsh R7",),
    "ROLL_INVALID_COCKED": ("Welsh R7",),
    "ROLL_INVALID_OFF_SURFACE": ("Welsh R7", "DIGEST W39"),
    "ROLL_INVALID_DIE_ON_DIE": ("Welsh R7",),
    "ROLL_INVALID_DIE_ON_CHECKER": ("Welsh R7", "DIGEST W39"),
    "ROLL_VALUE_UNREADABLE": ("Welsh R7",),
    "ILLEGAL_MOVE": ("Welsh R7-R20", "DIGEST W40"),
    "END_OF_TURN": ("Welsh R24(iii)",),
    "MATCH_WON": ("Welsh R1",),
    "CHECKER_COUNT_MISMATCH": ("Welsh R1",),
    "MATCH_START": ("Welsh R1",),
    "GAME_START": ("Welsh R7",),
    "MOVE": ("Welsh R7-R20",),
    "NO_MOVE": ("Welsh R7",),
    "GAME_RESULT": ("Welsh R4", "Welsh R5", "Welsh R6", "Welsh R14", "Welsh R22"),
    "ILLEGAL_MOVE_STANDS": ("DIGEST W40",),
    "CORRECTION_COMPLETE": ("DIGEST W40",),
    "MONITOR_DECISION": ("Welsh (A)", "DIGEST W40"),
    "MOVE_UNCONFIRMED": ("Welsh (B)", "DIGEST W40"),
}


def register() -> None:
    """Register the profile, the WEL_* alert specs and WELSH citations for the referee's generic
    alerts that apply to Welsh (idempotent; additive: other families are untouched)."""
    register_profile("welsh", welsh_profile)
    for code, (rule, title) in CODES.items():
        if code not in CATALOGUE:
            CATALOGUE[code] = AlertSpec(code, severity_of(code), title, {FAMILY: (rule,)}, digest="C.26")
    for code, cites in WELSH_CITES_FOR_REFEREE_CODES.items():
        spec = CATALOGUE.get(code)
        if spec is not None and FAMILY not in spec.cites:
            CATALOGUE[code] = replace(spec, cites={**spec.cites, FAMILY: cites})


register()
