"""One Welsh game: throws, plays, the doubling die and what happens at the end of each turn.

The game is a small state machine (DIGEST C.17):

* ``BEFORE_THROW``: the player on turn may raise the doubling die (C.16) or nominate (C.21), then
  throws (:meth:`WelshGame.throw`).  The throw goes through the C.5 pipeline: the nominated value,
  the three-identical-throws rule (R7), snakes (R22 ii), Boxes Out (R19).
* ``MOVING``: the player may re-throw a 1-2 (R13), nominate for his opponent (R21), then plays
  (:meth:`WelshGame.play`).  End-of-turn processing follows C.17.4: rectangle, candlesticks,
  dance and the automatic raise, triangle, bonus throw, concession occasion, next player.
* ``OVER``: :attr:`WelshGame.result` says how it ended.

Everything significant is reported as a :class:`~rules.welsh.alerts.WelshEvent` in
:attr:`WelshGame.events`; illegal actions raise :class:`~rules.welsh.alerts.WelshRuleError`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rules.welsh.alerts import WelshEvent, WelshRuleError
from rules.welsh.geometry import MEN, OFF, ROOF
from rules.welsh.movegen import Play, Throw, check_throw, is_doubles, legal_plays
from rules.welsh.options import WelshOptions
from rules.welsh.position import WelshPosition

#: the 21 distinct two-dice throws
ALL_THROWS: tuple[Throw, ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


class Phase(enum.Enum):
    BEFORE_THROW = "before_throw"
    MOVING = "moving"
    OVER = "over"


class Ending(enum.Enum):
    """How a game (or the match, for the last two) ended (C.19, C.22, C.23)."""

    CHECKOUT = "checkout"
    BOXES_OUT = "boxes_out"
    THREE_ON_ROOF = "three_on_roof"
    WASH_STICKS = "wash_sticks"
    WASH_SNAKES = "wash_snakes"
    CONCESSION = "concession"
    RECTANGLE = "rectangle"
    TIMED_OUT = "timed_out"


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one game: who won and the games each player scores."""

    ending: Ending
    winner: int | None
    games: tuple[int, int]
    cube: int
    multiplier: int = 1
    last_throw: Throw | None = None

    @property
    def is_wash(self) -> bool:
        return self.ending in (Ending.WASH_STICKS, Ending.WASH_SNAKES)

    @property
    def backgammon(self) -> bool:
        return self.multiplier >= 6 and self.ending in (Ending.CHECKOUT, Ending.BOXES_OUT)

    @property
    def ends_match(self) -> bool:
        return self.ending in (Ending.RECTANGLE, Ending.TIMED_OUT)


@dataclass
class Nominations:
    """The two nominate cards of a match (R21): used or not, and what is pending for whom."""

    used: list[bool] = field(default_factory=lambda: [False, False])
    pending: dict[int, Throw] = field(default_factory=dict)


def loss_multiplier(position: WelshPosition, loser: int, options: WelshOptions) -> int:
    """1, gammon (x3, R4) or backgammon (x6, R5; W31 chooses the test) for ``loser`` now."""
    side = position.men[loser]
    if side[OFF] > 0:
        return 1
    if options.backgammon_test == "welsh":
        behind = side[ROOF] > 0 or sum(side[1:19]) > 0
    else:
        behind = side[ROOF] > 0 or sum(side[1:7]) > 0
    return options.backgammon_multiplier if behind else options.gammon_multiplier


def one_throw_win(position: WelshPosition, player: int, options: WelshOptions) -> bool:
    """Some two-dice throw lets ``player`` check out every remaining man in one turn (C.20)."""
    side = position.men[player]
    left = MEN - side[OFF]
    if left == 0 or left > 4 or side[ROOF]:
        return False
    for t in ALL_THROWS:
        for p in legal_plays(position, player, t, options):
            if p.result.checked_out(player) == MEN:
                return True
    return False


class WelshGame:
    """A Welsh game in progress.  Create games through :class:`rules.welsh.match.WelshMatch`,
    or directly for tests: ``WelshGame(first_player=0)``."""

    def __init__(
        self,
        first_player: int,
        options: WelshOptions | None = None,
        position: WelshPosition | None = None,
        cube: int = 1,
        scores: tuple[int, int] = (0, 0),
        nominations: Nominations | None = None,
        on_end: Callable[[GameResult], None] | None = None,
    ) -> None:
        if first_player not in (0, 1):
            raise ValueError(f"first_player must be 0 (Red) or 1 (Black), got {first_player!r}")
        self.options = options or WelshOptions()
        self.position = position or WelshPosition.start()
        self.turn = first_player
        self.phase = Phase.BEFORE_THROW
        self.cube = cube
        self.cube_owner: int | None = None
        """who may raise next; None: the die is centred and either player may (R24 vii)."""
        self.scores = scores
        self.nominations = nominations if nominations is not None else Nominations()
        self.on_end = on_end
        self.events: list[WelshEvent] = []
        self.result: GameResult | None = None
        self.throw_value: Throw | None = None
        self.throw_nominated = False
        self.single_die = False
        self.history: tuple[list[Throw], list[Throw]] = ([], [])
        self.last_counted: tuple[int, Throw] | None = None
        self.first_dance_done = False
        self.first_checkout_done = False
        self.bonus_turn = False
        self.triangle: list[bool] = [False, False]
        self.spreads: tuple[set[int], set[int]] = (set(), set())
        self.concession_occasion_used = False
        self.concession_window: tuple[int, int] | None = None
        """(offerer, threat holder) while the R18 window is open."""
        self.offer: tuple[int, int, bool] | None = None
        self.acey_rethrows = 0
        self.turns_played = 0
        self._plays: list[Play] | None = None
        self._rovers: tuple[int, ...] = ()
        self._start_turn()

    # ---- helpers ------------------------------------------------------------------------------
    def _event(self, code: str, player: int | None, detail: str = "") -> None:
        self.events.append(WelshEvent(code, player, detail))

    def _need(self, phase: Phase, what: str) -> None:
        if self.phase is Phase.OVER:
            raise WelshRuleError("WEL_OUT_OF_TURN", f"{what}: the game is over ({self.result})")
        if self.phase is not phase:
            raise WelshRuleError("WEL_OUT_OF_TURN", f"{what} is not possible now (phase {self.phase.value})")

    def _start_turn(self) -> None:
        self._rovers = tuple(self.position.rovers(self.turn))
        for r in self._rovers:
            self._event("WEL_ROVER_ACTIVE", self.turn, f"race coordinate {r}")
        self.acey_rethrows = 0

    @property
    def over(self) -> bool:
        """The game has ended (:attr:`result` says how)."""
        return self.phase is Phase.OVER

    @property
    def triangle_standing(self) -> bool:
        return self.triangle[0] or self.triangle[1]

    @property
    def rovers(self) -> tuple[int, ...]:
        """Race coordinates of the activated rovers of the player on turn (C.12.1)."""
        return self._rovers

    # ---- the doubling die (C.16) ------------------------------------------------------------------
    def can_raise(self, player: int) -> str | None:
        """None if ``player`` may raise the doubling die now, else the alert code saying why not."""
        if self.phase is not Phase.BEFORE_THROW or player != self.turn or self.acey_rethrows:
            return "WEL_DOUBLE_NOT_BEFORE_THROW"
        if self.cube_owner is not None and self.cube_owner != player:
            return "WEL_DOUBLE_WITHOUT_RIGHT"
        if self.triangle_standing:
            return "WEL_DOUBLE_DURING_TRIANGLE"
        if self.cube >= self.options.cube_max:
            return "WEL_CUBE_ABOVE_64"
        return None

    def raise_cube(self, player: int) -> None:
        """R3: the game is worth twice as much at once (no take or pass, W12); the right passes."""
        why = self.can_raise(player)
        if why:
            raise WelshRuleError(why, f"{('Red', 'Black')[player]} may not raise the doubling die now")
        self.cube *= 2
        self.cube_owner = 1 - player

    # ---- nominations (C.21) -------------------------------------------------------------------
    def nominate(self, by: int, for_player: int, throw: Sequence[int]) -> None:
        """R21: ``by`` sets the next throw of ``for_player`` (once per match, R24 iv timing)."""
        t = check_throw(throw)
        if len(t) != 2:
            raise WelshRuleError("WEL_NOMINATE", "a nominated throw is two dice, e.g. (5, 4)")
        if self.nominations.used[by]:
            raise WelshRuleError("WEL_NOMINATE_ALREADY_USED", "this player has already used his nominate")
        if self.phase is Phase.OVER or by != self.turn:
            raise WelshRuleError("WEL_NOMINATE_INVALID_TIMING", "a nomination is announced during one's own turn")
        if for_player in self.nominations.pending:
            raise WelshRuleError("WEL_NOMINATE_INVALID_TIMING", "that player's next throw is already nominated")
        if for_player == by:
            if self.phase is not Phase.BEFORE_THROW or self.acey_rethrows:
                raise WelshRuleError(
                    "WEL_NOMINATE_INVALID_TIMING",
                    "a nomination for oneself is made after the turn starts, while the dice are in the cup",
                )
            if self.nomination_wins_match(by, t):
                raise WelshRuleError(
                    "WEL_NOMINATE_MATCH_WINNING_FORBIDDEN", f"{t} could win the match for the nominator"
                )
        self.nominations.used[by] = True
        self.nominations.pending[for_player] = t
        self._event("WEL_NOMINATE", by, f"{t[0]}-{t[1]} for {('Red', 'Black')[for_player]}")

    def nomination_wins_match(self, player: int, t: Throw) -> bool:
        """W28: some legal play of ``t`` ends the game with ``player`` at the match length or more,
        or forms a rectangle (counting the doubling die, gammons, Boxes Out and washes)."""
        need = self.options.match_length - self.scores[player]
        if t == (1, 1) and self.last_counted is not None and self.last_counted == (1 - player, (1, 1)):
            return 1 >= need  # snakes wash, +1 each
        for p in legal_plays(self.position, player, t, self.options, self._rovers):
            if p.ending in ("checkout", "boxes_out"):
                if self.cube * loss_multiplier(p.result, 1 - player, self.options) >= need:
                    return True
            elif p.ending == "three_on_roof":
                if self.cube >= need:
                    return True
            else:
                if p.result.has_rectangle(player):
                    return True
                if p.result.full_spikes(player) and p.result.full_spikes(1 - player) and 1 >= need:
                    return True
        return False

    # ---- throwing (C.5) -----------------------------------------------------------------------
    def throw(self, dice: Sequence[int], single_die: bool = False) -> str:
        """The player on turn throws; returns "play", "rethrow" (R7 third identical) or "over".

        With a pending nomination the dice must equal the nominated throw (R21: they are set).
        ``single_die`` is the full-spread option (R11), chosen before throwing.
        """
        self._need(Phase.BEFORE_THROW, "throwing")
        t = check_throw(dice)
        p = self.turn
        nominated = self.nominations.pending.get(p)
        if single_die or len(t) == 1:
            if len(t) != 1 or nominated is not None:
                raise WelshRuleError(
                    "WEL_SINGLE_DIE_NOT_ALLOWED", "a single-die throw is one die, and not when a throw is nominated (W29)"
                )
            if not self.position.full_spreads(p):
                raise WelshRuleError("WEL_SINGLE_DIE_NOT_ALLOWED", "no full spread stands for the thrower")
        if nominated is not None:
            if tuple(sorted(t)) != tuple(sorted(nominated)):
                raise WelshRuleError("WEL_NOMINATED_THROW_MISMATCH", f"the nominated throw is {nominated}, got {t}")
            del self.nominations.pending[p]
        self.single_die = len(t) == 1
        self.throw_nominated = nominated is not None
        if nominated is None and self._third_identical(p, t):
            self._event("WEL_THIRD_IDENTICAL_THROW_REROLL", p, f"{t}")
            return "rethrow"
        self.throw_value = t
        self.phase = Phase.MOVING
        self._plays = None
        if self.concession_window is not None and self.concession_window[1] == p:
            self.concession_window = None  # the offer had to come before this throw (W23)
            self.offer = None
        # snakes (R22 ii, W47)
        if t == (1, 1) and self.last_counted == (1 - p, (1, 1)):
            self._event("WEL_WASH_SNAKES", p)
            self._end(GameResult(Ending.WASH_SNAKES, None, (1, 1), self.cube, 1, t))
            return "over"
        if sorted(t) == [1, 2] and not self.throw_nominated:
            self._event("WEL_ACEY_DEUCEY_OPTION", p)
        return "play"

    def _key(self, t: Throw) -> Throw:
        return tuple(sorted(t)) if self.options.three_identical_unordered else t

    def _third_identical(self, p: int, t: Throw) -> bool:
        h = self.history[p]
        k = self._key(t)
        return len(h) >= 2 and self._key(h[-1]) == k and self._key(h[-2]) == k

    def may_rethrow_acey_deucey(self) -> bool:
        t = self.throw_value
        limit = self.options.acey_deucey_max_rethrows
        return (
            self.phase is Phase.MOVING
            and t is not None
            and sorted(t) == [1, 2]
            and not self.throw_nominated
            and (limit is None or self.acey_rethrows < limit)
        )

    def rethrow_acey_deucey(self) -> None:
        """R13: throw both dice again instead of playing the 1-2 (before any man moves)."""
        if not self.may_rethrow_acey_deucey():
            raise WelshRuleError("WEL_RETHROW_NOT_ALLOWED", "only a thrown (not nominated) 1-2 may be re-thrown")
        self.acey_rethrows += 1
        self.phase = Phase.BEFORE_THROW
        self.throw_value = None
        self._plays = None

    # ---- playing (C.6-C.13) -------------------------------------------------------------------
    def legal_plays(self) -> list[Play]:
        self._need(Phase.MOVING, "listing plays")
        if self._plays is None:
            assert self.throw_value is not None
            self._plays = legal_plays(self.position, self.turn, self.throw_value, self.options, self._rovers)
        return self._plays

    def find_play(self, result: WelshPosition) -> Play | None:
        """The legal play leading to ``result`` (positions decide, not paths: ARCHITECTURE 2)."""
        for p in self.legal_plays():
            if p.result == result:
                return p
        return None

    def play(self, play: Play | WelshPosition) -> None:
        """Make a play (or reach a result position) and run the end-of-turn processing."""
        self._need(Phase.MOVING, "playing")
        target = play.result if isinstance(play, Play) else play
        chosen = self.find_play(target)
        if chosen is None:
            raise WelshRuleError("WEL_ILLEGAL_PLAY", "that position is not a legal result of the throw")
        self.apply_play(chosen)

    def let_stand(self, result: WelshPosition) -> None:
        """W40: an illegal play not corrected in time stands; the game goes on from ``result`` with
        the usual end-of-turn processing (no rule checks on how it was reached)."""
        self._need(Phase.MOVING, "letting a play stand")
        assert self.throw_value is not None
        p = self.turn
        before = self.position
        ending = "checkout" if result.checked_out(p) == MEN else ("three_on_roof" if result.on_roof(1 - p) >= 3 else None)
        hits = max(0, result.on_roof(1 - p) - before.on_roof(1 - p))
        checked = max(0, result.checked_out(p) - before.checked_out(p))
        self.apply_play(Play(p, self.throw_value, (), result, 0, False, hits, checked, ending))

    def set_position(self, position: WelshPosition, turn: int) -> None:
        """A monitor decision: the game goes on from ``position`` with ``turn`` about to throw.
        Triangle and full-spread states are taken from the position; rovers are re-activated."""
        if self.phase is Phase.OVER:
            raise WelshRuleError("WEL_OUT_OF_TURN", "the game is over")
        if turn not in (0, 1):
            raise ValueError(f"turn must be 0 (Red) or 1 (Black), got {turn!r}")
        self.position = position
        self.turn = turn
        self.phase = Phase.BEFORE_THROW
        self.throw_value = None
        self._plays = None
        self.triangle = [position.has_triangle(0), position.has_triangle(1)]
        for q in (0, 1):
            self.spreads[q].clear()
            self.spreads[q].update(position.full_spreads(q))
        self._start_turn()

    def apply_play(self, chosen: Play) -> None:
        """Make a play known to be legal (from :meth:`legal_plays` or a sampler); no check."""
        p = self.turn
        t = chosen.throw
        before = self.position
        self.position = chosen.result
        self.turns_played += 1
        if not self.throw_nominated:
            self.history[p].append(t)
        self.last_counted = (p, t)
        self.phase = Phase.BEFORE_THROW
        self.throw_value = None
        self._plays = None
        was_bonus = self.bonus_turn
        self.bonus_turn = False
        # game-ending plays
        if chosen.ending == "boxes_out":
            self._event("WEL_BOXES_OUT", p)
            self._win(p, Ending.BOXES_OUT, t)
            return
        if chosen.ending == "checkout":
            self._event("WEL_GAME_WON", p)
            self._win(p, Ending.CHECKOUT, t)
            return
        if chosen.ending == "three_on_roof":
            self._event("WEL_THREE_ON_ROOF", 1 - p)
            self._end(GameResult(Ending.THREE_ON_ROOF, p, _pair(p, self.cube), self.cube, 1, t))
            return
        pos = self.position
        # a. rectangle (R17b): the match is won
        if pos.has_rectangle(p):
            self._event("WEL_RECTANGLE", p)
            self._end(GameResult(Ending.RECTANGLE, p, (0, 0), self.cube, 1, t))
            return
        # b. candlesticks (R22 i)
        if pos.full_spikes(0) and pos.full_spikes(1):
            self._event("WEL_WASH_STICKS", p)
            self._end(GameResult(Ending.WASH_STICKS, None, (1, 1), self.cube, 1, t))
            return
        # e (early). the triangle state: it freezes the die, so it matters for the dance raise
        had_triangle = self.triangle[p]
        self.triangle[p] = pos.has_triangle(p)
        if self.triangle[1 - p] and not pos.has_triangle(1 - p):
            self.triangle[1 - p] = False  # broken by a hit
        # c. dance (R16) and the automatic raise
        if chosen.dance:
            self._event("WEL_DANCE", p)
            if not self.first_dance_done:
                if self.triangle_standing:
                    if self.options.first_dance_raise_used_up_by_triangle:
                        self.first_dance_done = True
                else:
                    self.first_dance_done = True
                    if self.cube < self.options.cube_max:
                        self.cube *= 2
                        self._event("WEL_AUTO_RAISE", p, f"doubling die to {self.cube}")
        # d. full spreads
        for q in range(2):
            now = set(pos.full_spreads(q))
            for new in sorted(now - self.spreads[q]):
                self._event("WEL_FULL_SPREAD_FORMED", q, f"quarter {new}")
            self.spreads[q].clear()
            self.spreads[q].update(now)
        # first check-out of the game (R18)
        bonus_now = False
        if chosen.checked_out and not self.first_checkout_done and before.checked_out(1 - p) == 0:
            self.first_checkout_done = True
            bonus_now = True
            self._event("WEL_FIRST_CHECKOUT_BONUS", p)
        elif was_bonus and is_doubles(t):
            bonus_now = True
            self._event("WEL_BONUS_EXTRA", p)
        if self.triangle[p] and not had_triangle:
            self._event("WEL_TRIANGLE_FORMED", p)
        if had_triangle and not self.triangle[p]:
            self._event("WEL_TRIANGLE_BROKEN", p)
        # g. the concession occasion (C.20)
        self._check_concession_occasion()
        # e/f. who plays next
        nxt = 1 - p
        if bonus_now:
            nxt = p
            self.bonus_turn = True
        elif self.triangle[p]:
            nxt = p
            if self.options.triangle_safeguard and not self._can_move_with_any_throw(p):
                self._event("WEL_TRIANGLE_SUSPENDED", p)
                nxt = 1 - p
        self.turn = nxt
        self._start_turn()

    def _can_move_with_any_throw(self, p: int) -> bool:
        rov = tuple(self.position.rovers(p))
        return any(
            any(pl.steps for pl in legal_plays(self.position, p, t, self.options, rov)) for t in ALL_THROWS
        )

    # ---- concession offers (C.20) -------------------------------------------------------------
    def _check_concession_occasion(self) -> None:
        if self.concession_occasion_used:
            return
        has = [one_throw_win(self.position, q, self.options) for q in (0, 1)]
        if has[0] != has[1]:
            holder = 0 if has[0] else 1
            self.concession_occasion_used = True
            self.concession_window = (1 - holder, holder)
            self._event("WEL_CONCESSION_WINDOW_OPEN", 1 - holder, "the opponent has a one-throw win")

    def exposure(self, player: int) -> int:
        """What ``player`` would lose now if the opponent won: die value x multiplier (W23)."""
        return self.cube * loss_multiplier(self.position, player, self.options)

    def offer_concession(self, by: int, games: int, with_payment: bool = False) -> None:
        """R18: offer to concede for ``games`` (1 <= games < exposure); ``with_payment`` is the £5."""
        if self.concession_window is None or self.concession_window[0] != by:
            raise WelshRuleError("WEL_CONCESSION_OFFER_INVALID", "no concession window is open for this player")
        if not 1 <= games < self.exposure(by):
            raise WelshRuleError(
                "WEL_CONCESSION_OFFER_INVALID",
                f"an offer is at least 1 and less than the current exposure {self.exposure(by)} games",
            )
        self.offer = (by, games, with_payment)
        self._event("WEL_CONCESSION_OFFER", by, f"{games} games" + (" with the £5 payment" if with_payment else ""))
        if self.offer_mandatory():
            self._event("WEL_CONCESSION_MANDATORY", 1 - by)

    def offer_mandatory(self) -> bool:
        """The £5 rule: accepting takes the opponent to exactly 24 and the £5 came with it."""
        if self.offer is None:
            return False
        by, games, paid = self.offer
        return paid and self.scores[1 - by] + games == 24

    def answer_concession(self, accept: bool) -> None:
        if self.offer is None:
            raise WelshRuleError("WEL_CONCESSION_OFFER_INVALID", "there is no offer to answer")
        by, games, _paid = self.offer
        if not accept and self.offer_mandatory():
            raise WelshRuleError("WEL_CONCESSION_MANDATORY", "this offer must be accepted (R18 £5 rule)")
        self.offer = None
        self.concession_window = None
        if not accept:
            self._event("WEL_CONCESSION_REJECTED", 1 - by, f"{games} games")
        if accept:
            self._event("WEL_CONCEDED", by, f"{games} games")
            self._end(GameResult(Ending.CONCESSION, 1 - by, _pair(1 - by, games), self.cube, 1, None))

    # ---- endings ------------------------------------------------------------------------------
    def time_out(self, player: int) -> None:
        """R12a: ``player``'s clock ran out: he loses the match."""
        if self.phase is Phase.OVER:
            raise WelshRuleError("WEL_TIMED_OUT", "the game is already over")
        self._event("WEL_TIMED_OUT", player)
        self._end(GameResult(Ending.TIMED_OUT, 1 - player, (0, 0), self.cube, 1, None))

    def _win(self, p: int, ending: Ending, t: Throw) -> None:
        m = loss_multiplier(self.position, 1 - p, self.options)
        self._end(GameResult(ending, p, _pair(p, self.cube * m), self.cube, m, t))

    def _end(self, result: GameResult) -> None:
        self.result = result
        self.phase = Phase.OVER
        self.concession_window = None
        if self.on_end is not None:
            self.on_end(result)


def _pair(player: int, games: int) -> tuple[int, int]:
    return (games, 0) if player == 0 else (0, games)
