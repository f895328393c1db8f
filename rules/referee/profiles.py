"""Rule-set profiles: data plus small hooks, not forks (ARCHITECTURE principle 5; DIGEST part B).

``get_profile("wbgf-2023", moves_policy="responsible", dice_on_checkers=True)`` returns a frozen
:class:`Profile`. Each field says which rule of DIGEST part B it encodes. Variants (the Welsh engineer's
``welsh``) plug in with :func:`register_profile` and may supply their own move generator as a hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rules.match import DeadCubeRule, MatchRules
from rules.referee.setup import DiceMode, EndSignal


class Deadline(StrEnum):
    """When an illegal checker move can no longer be corrected (DIGEST B3, B4, B9)."""

    OPPONENT_VALID_ROLL = "opponent_valid_roll"  # RG19 4.2.3.1(a), WB23 LM
    OPPONENT_ROLL_OR_CUBE = "opponent_roll_or_cube"  # US09 4.8, STD Irregularities-2 (acts condone)
    OFFENDER_NEXT_VALID_ROLL = "offender_next_valid_roll"  # RG19 4.2.3.1(b) impossible-move class
    FIFTH_VALID_ROLL = "fifth_valid_roll"  # RG19 4.2.1
    FIFTH_ROLL = "fifth_roll"  # US09 4.7
    STARTER_SECOND_TURN = "starter_second_turn"  # WB23 4.2(iv)
    NONE = "none"


class FastRoll(StrEnum):
    """Remedy for a premature roll (DIGEST B23)."""

    STAND_OR_REROLL = "stand_or_reroll"  # RG19 4.1.8.1, WB23 4.1(v)(a), US09 4.6
    VOID = "void"  # STD Irregularities-3 (waived when forced or no contact)


class DoubleAct(StrEnum):
    """What counts as a double (DIGEST B28)."""

    TOUCH = "touch"  # RG19 4.4.4.2: touching the cube when doubling is legal
    POINT_OR_TOUCH = "point_or_touch"  # WB23 4.4(ii): pointing at, touching or picking up
    MOVE = "move"  # US09 5.4 / STD: the cube moved toward the opponent


@dataclass(frozen=True)
class Profile:
    name: str
    family: str
    """Rule document whose sections alerts cite: RG19, WB23, US09, STD (or a variant's)."""
    title: str
    dice_on_checkers: bool
    """A die flat on checkers is valid (B13): RG19 yes, WB23 only if declared, US09/STD no."""
    flat_required: bool
    """Dice must lie flat (B12); RG19 uses its three tests instead."""
    illegal_move_condonable: bool
    """The opponent may let an illegal checker move stand (B2): WB23-RM, US09, STD."""
    illegal_move_deadline: Deadline
    impossible_move_class: bool
    """RG19 4.2.3.1(b): the longer window for dice-independent illegalities (B4)."""
    impossible_positions: bool
    """RG19 4.2.3.1(c): impossible positions corrected with no time limit (B5)."""
    setup_deadline: Deadline
    """When a starting-position error can no longer be corrected (B9)."""
    fast_roll: FastRoll
    fast_grab_rule: bool
    """RG19 4.1.8.2 / WB23 4.1(v)(b): a premature grab of the shared dice is an infraction (B24)."""
    off_turn_die_touch: bool
    """US09 4.3 / WB23 4.1(ii): touching live dice during the opponent's turn (B22, B48)."""
    lift_before_rest_rule: bool
    """RG19 4.1.8.4: lifting a die before both dice are at rest (B26)."""
    double_act: DoubleAct
    take_on_surface: bool
    """A take may be set down on the taker's side *within the limits of the board* (WB23 4.4(iii));
    under RG19 4.4.5.2 only a cube set down outside the playing field decides (B30)."""
    dead_cube: DeadCubeRule
    crawford: bool
    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: int = 0
    left_side_permission: bool = False
    """WB23 4.1(iv): the opponent has allowed rolling to the left of the bar (B11)."""
    moves_policy: str = "legal"
    settle_s: float = 2.0
    """Dice at rest this long count as at rest (RG19 4.1.4.3; Interp. in the others, DIGEST A1.3)."""
    confidence: float = 0.95
    """Posterior below which a judgement becomes a 'please confirm' WARN instead of an accusation."""
    cube_min_confidence: float = 0.6
    """A cube read with less confidence than this is taken as not seen (it keeps its last confident
    place and face, as under a hand): a cube action or a wrong level is never inferred from a doubtful
    reading."""
    illegal_play_prior: float = 0.01
    """Prior probability that a turn's play is illegal, weighed against a misread die when the dice
    were not read with certainty: a roll under which the play is legal wins over the roll read, under
    which it is not, when the reader gave it more than ``illegal_play_prior`` times the read roll's
    probability (DIGEST A1.15)."""
    likelier_roll: float = 0.85
    """When neither the dice nor the play make the roll clear (posterior under ``confidence``), a roll
    under which the play is legal is recorded over the roll read, under which it is not, when its
    posterior is at least this (the monitor is asked either way); below it the roll read stands and
    the play is judged with it. An illegal play is most often the legal play of another roll (a die
    misread by the player), so it is excused only by a clearly likelier roll: in seven end-to-end
    matches the true legal rolls so chosen had 0.70-0.95, an injected illegal play 0.80 (decision 0714)."""
    legal_results: Callable[..., Any] | None = None
    """Hook: a variant's move generator ``(position, dice) -> list[Position]``; None = the standard engine."""
    start_position: Callable[[], Any] | None = None
    """Hook: a variant's starting position ``() -> Position``; None = the standard set-up (STD Set Up)."""
    play_notation: Callable[..., str] | None = None
    """Hook: a variant's notation ``(before, after, dice) -> str`` of a legal play, for the MOVE event;
    None = the standard engine's notation."""
    machine: type | None = None
    """Hook: the :class:`rules.referee.machine.Referee` subclass that follows a variant's own turn flow
    (``Referee(setup, profile)`` builds one of these); None = the standard turn machine."""
    variant: Any = None
    """The variant's own rule options (e.g. :class:`rules.welsh.options.WelshOptions`), for its machine."""

    def default_end_signal(self, dice_mode: DiceMode, clock: bool) -> EndSignal:
        """The end-of-turn signal by equipment (DIGEST B21)."""
        if clock:
            return EndSignal.CLOCK
        if dice_mode is DiceMode.FOUR:
            return EndSignal.LIFT_DICE
        return EndSignal.BAR_TAP if self.family == "RG19" else EndSignal.LIFT_DICE

    def match_rules(self, length: int) -> MatchRules:
        if length == 0:
            return MatchRules.money_play(jacoby=self.jacoby, beavers=self.beavers, automatic_doubles=self.automatic_doubles)
        return MatchRules(length=length, crawford=self.crawford, dead_cube=self.dead_cube)

    def die_reason_valid(self, reason: str) -> bool:
        """Is a die at rest with this physical reason a valid die under this profile (A1, B12-B14)?"""
        if reason == "flat_board":
            return True
        if reason == "on_checker":
            return self.dice_on_checkers
        return False


def _usbgf_2019(**_: Any) -> Profile:
    return Profile(
        name="usbgf-2019", family="RG19", title="USBGF Tournament Rules, Ruling Guide 2019",
        dice_on_checkers=True, flat_required=False, illegal_move_condonable=False,
        illegal_move_deadline=Deadline.OPPONENT_VALID_ROLL, impossible_move_class=True, impossible_positions=True,
        setup_deadline=Deadline.FIFTH_VALID_ROLL, fast_roll=FastRoll.STAND_OR_REROLL, fast_grab_rule=True,
        off_turn_die_touch=False, lift_before_rest_rule=True, double_act=DoubleAct.TOUCH, take_on_surface=False,
        dead_cube=DeadCubeRule.RG19, crawford=True,
    )


def _wbgf_2023(moves_policy: str = "legal", dice_on_checkers: bool = False, left_side_permission: bool = False, **_: Any) -> Profile:
    if moves_policy not in ("legal", "responsible"):
        raise ValueError(f"--moves-policy must be legal or responsible (WB23 1.1); got {moves_policy!r}")
    responsible = moves_policy == "responsible"
    return Profile(
        name="wbgf-2023", family="WB23", title=f"WBGF/ANZBGF Tournament Rules 2023 ({moves_policy.title()} Moves)",
        dice_on_checkers=dice_on_checkers, flat_required=True, illegal_move_condonable=responsible,
        illegal_move_deadline=Deadline.OPPONENT_VALID_ROLL, impossible_move_class=False, impossible_positions=False,
        setup_deadline=Deadline.STARTER_SECOND_TURN, fast_roll=FastRoll.STAND_OR_REROLL, fast_grab_rule=True,
        off_turn_die_touch=True, lift_before_rest_rule=False, double_act=DoubleAct.POINT_OR_TOUCH, take_on_surface=True,
        dead_cube=DeadCubeRule.RG19, crawford=True, left_side_permission=left_side_permission, moves_policy=moves_policy,
    )


def _usbgf_2009(**_: Any) -> Profile:
    return Profile(
        name="usbgf-2009", family="US09", title="U.S. Backgammon Tournament Rules and Procedures 2009",
        dice_on_checkers=False, flat_required=True, illegal_move_condonable=True,
        illegal_move_deadline=Deadline.OPPONENT_ROLL_OR_CUBE, impossible_move_class=False, impossible_positions=False,
        setup_deadline=Deadline.FIFTH_ROLL, fast_roll=FastRoll.STAND_OR_REROLL, fast_grab_rule=False,
        off_turn_die_touch=True, lift_before_rest_rule=False, double_act=DoubleAct.MOVE, take_on_surface=False,
        dead_cube=DeadCubeRule.US09, crawford=True,
    )


def _money(jacoby: bool = True, beavers: bool = True, automatic_doubles: int = 1, **_: Any) -> Profile:
    return Profile(
        name="money", family="STD", title="Standard rules, money play (optional rules on)",
        dice_on_checkers=False, flat_required=True, illegal_move_condonable=True,
        illegal_move_deadline=Deadline.OPPONENT_ROLL_OR_CUBE, impossible_move_class=False, impossible_positions=False,
        setup_deadline=Deadline.NONE, fast_roll=FastRoll.VOID, fast_grab_rule=False,
        off_turn_die_touch=False, lift_before_rest_rule=False, double_act=DoubleAct.MOVE, take_on_surface=False,
        dead_cube=DeadCubeRule.NONE, crawford=False, jacoby=jacoby, beavers=beavers, automatic_doubles=automatic_doubles,
    )


_REGISTRY: dict[str, Callable[..., Profile]] = {
    "usbgf-2019": _usbgf_2019,
    "wbgf-2023": _wbgf_2023,
    "usbgf-2009": _usbgf_2009,
    "money": _money,
}


#: variants whose module registers their profile (and alert codes) when imported; loaded on first use
#: so that ``rules.referee`` does not import them at start-up and cannot import them in a cycle
_VARIANT_MODULES: tuple[str, ...] = ("rules.welsh.profile",)


def load_variants() -> None:
    """Import the variant profiles (idempotent): afterwards the registry and the alert catalogue
    are complete, whatever was imported before."""
    import importlib

    for module in _VARIANT_MODULES:
        importlib.import_module(module)


def register_profile(name: str, factory: Callable[..., Profile]) -> None:
    """Add a rule set (e.g. ``welsh``); ``factory(**options)`` returns its :class:`Profile`."""
    _REGISTRY[name] = factory


def profile_names() -> list[str]:
    load_variants()
    return sorted(_REGISTRY)


def get_profile(name: str = "usbgf-2019", **options: Any) -> Profile:
    """The profile called ``name`` with its options; raises ValueError naming the known rule sets."""
    if name not in _REGISTRY:
        load_variants()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown rule set {name!r}; choose one of: {', '.join(profile_names())}") from None
    return factory(**options)


def with_options(profile: Profile, **changes: Any) -> Profile:
    return replace(profile, **changes)
