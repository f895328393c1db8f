"""The Welsh turn flow for the referee: table states in, Welsh alerts out (DIGEST C.4-C.23, C.26).

``Referee(setup, get_profile("welsh"))`` builds a :class:`WelshReferee` (the profile's ``machine``
hook).  It keeps the standard referee's plumbing (table-state parsing, the physical board map,
alerts with citations, checker counts, the transcript) and replaces the turn machine, because the
Welsh flow differs from the standard one at every step: no opening roll (odds and evens, then mugs
away), two dice per player, acey-deucey re-throws, single-die and nominated throws, the third
identical throw thrown again, unilateral raises without take or pass, extra turns (triangles, the
first check-out's bonus throw and bonus extras), washes, Three On The Roof, concession offers,
25-game matches, time-outs and breaks.

Every rule decision is made by :class:`rules.welsh.game.WelshGame` and
:class:`rules.welsh.match.WelshMatch`; this module only reads the table and feeds them:

* a **throw** starts when a player's dice leave the cup (or roll again) and is judged when they have
  been at rest for ``settle_s``: cocked dice (W39) are thrown again, a single die is the full-spread
  option (R11), dice put down for a nomination must show the nominated throw (R21);
* a **turn ends** when the mover lifts his dice (R24(iii)) or presses the clock; the board is then
  judged by position against the engine's legal results (ARCHITECTURE principle 2), and an illegal
  result is named by :func:`rules.welsh.movegen.diagnose` (C.26 codes).  A thrown 1-2 whose dice are
  lifted before any man moved waits: thrown again it is an acey-deucey re-throw (R13), otherwise
  the turn is judged at the next throw;
* an illegal play may be corrected until the **next throw** (W40): then the board is judged again and
  a legal result is accepted, an illegal one stands (the game goes on from it);
* the **doubling die** is raised when its face goes above the game's value (or, at 64, when it is
  handed across); the raiser is the hand on it, else the player whose end it left;
* spoken acts come as ``announce`` records: ``odds_evens``, ``nominate``, ``raise``,
  ``concede_offer``, ``concede_answer``, ``break``, ``scheduled_start``, ``time_out``; monitor decisions: ``acknowledge``,
  ``let_stand``, ``require_correction``, ``set_position``, ``award_penalty``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from rules.match import CubeState, MatchRules, MatchState, Player
from rules.matfile import EntryKind
from rules.referee.alerts import Severity
from rules.referee.board import diff_play
from rules.referee.machine import PendingIllegal, Phase, Referee
from rules.referee.profiles import Deadline, Profile, get_profile
from rules.referee.setup import DiceMode, MatchSetup
from rules.referee.tablestate import (
    Colour,
    CubeZone,
    Die,
    DieReason,
    DieState,
    HandOver,
    PhysicalBoard,
    Seat,
    TableState,
)
from rules.welsh.alerts import CODES, WelshEvent, WelshRuleError
from rules.welsh.game import Ending, WelshGame
from rules.welsh.geometry import MEN, OFF, ROOF
from rules.welsh.match import WelshMatch, odds_evens_chooser
from rules.welsh.movegen import Play, Throw, diagnose
from rules.welsh.options import WelshOptions
from rules.welsh.position import InvalidPositionError, Side, WelshPosition
from rules.welsh.profile import to_standard

_OFF_TABLE = (DieState.IN_CUP, DieState.LIFTED)
_FLAT = (DieReason.FLAT_BOARD, DieReason.WRONG_SIDE)  # W39: flat anywhere; Welsh has no side rule
_ENDINGS = {
    Ending.CHECKOUT: "checks out all fifteen men",
    Ending.BOXES_OUT: "checks out all four men with 6-6 (Boxes Out)",
    Ending.THREE_ON_ROOF: "wins: three men on the opponent's roof",
    Ending.CONCESSION: "wins by an accepted concession",
    Ending.RECTANGLE: "forms a rectangle and wins the match",
    Ending.TIMED_OUT: "wins the match: the opponent's clock ran out",
}
_MULTIPLIER_NAMES = {1: "single game", 3: "gammon", 6: "backgammon"}
BREAK_S = 600.0
"""(D): a break lasts 10 minutes; lateness counts from its end (W38)."""


@dataclass
class _Illegal:
    """An illegal play waiting for correction until the next throw (W40)."""

    mover: int
    code: str
    alert_id: int
    observed: WelshPosition | None


class WelshReferee(Referee):
    """The referee for ``--rules welsh``; see the module docstring."""

    def __init__(self, setup: MatchSetup | None = None, profile: Profile | None = None) -> None:
        profile = profile or get_profile("welsh")
        options = profile.variant if isinstance(profile.variant, WelshOptions) else WelshOptions()
        self.options = options
        setup = (setup or MatchSetup(dice_mode=DiceMode.FOUR)).with_(length=options.match_length, crawford=None,
                                                                    crawford_done=False)
        self.wmatch = WelshMatch(options, scores=[setup.score[0], setup.score[1]])
        self.game: WelshGame | None = None
        self._game_seen = 0
        self._match_seen = 0
        self._breaks_seen = 0
        self._starter: int | None = None
        self._start_clocks: tuple[float, float] | None = None
        self._state: TableState | None = None
        self._last_settled: TableState | None = None
        self._thrower: int | None = None
        self._judged: tuple[int, ...] | None = None
        self._ended = False
        self._deferred = False
        self._wrong: _Illegal | None = None
        self._cube_seen: tuple[int, CubeZone] | None = None
        self._cube_hand: int | None = None
        self._cube_void = False
        self._last_mover: int | None = None
        self._followup = False
        self._end_t: float | None = None
        self._clock_flagged = False
        self._ready_by: tuple[float, str] | None = None
        """When play was due to resume ((D): the scheduled start, or the end of a break) and which."""
        self._reported_result = False
        super().__init__(setup, profile)
        self.match = MatchState(rules=MatchRules(length=options.match_length, crawford=False), score=setup.score)

    # ================================================================== plumbing
    def feed(self, s: TableState) -> list[Any]:
        self._state = s
        if s.settled and not any(h.over is HandOver.CHECKERS for h in s.hands):
            self._last_settled = s
        return super().feed(s)

    def _match_desc(self) -> str:
        return f"Welsh match to {self.options.match_length} games"

    def _player(self, act: dict[str, Any], key: str = "player") -> int:
        try:
            return self.setup.player_of(Colour(act[key]))
        except KeyError:
            raise ValueError(f"the {act.get('act')!r} act needs {key!r}: light or dark") from None

    def _sides(self, s: TableState) -> tuple[Side, Side]:
        """The men each player has on the table, in his race coordinates (roof = bar)."""
        out = []
        for p in (0, 1):
            colour = self.setup.colour_of(p)
            counts = s.counts(colour)
            idx = self.map.phys_index[p]
            side = [0] * 26
            for r in range(1, 25):
                side[r] = counts[idx[25 - r]]
            side[ROOF] = s.bar[0 if colour is Colour.LIGHT else 1]
            side[OFF] = MEN - sum(side)
            out.append(tuple(side))
        return out[0], out[1]

    def _mine(self, s: TableState, player: int) -> list[tuple[int, Die]]:
        """The player's dice on the table (rolling or at rest); dice of no known owner are the thrower's."""
        out = []
        for i, d in enumerate(s.dice):
            if d.state in _OFF_TABLE:
                continue
            owner = self._dice_owner(d)
            if (owner if owner is not None else self.turn) == player:
                out.append((i, d))
        return out

    def _throw_started(self, s: TableState, prev: TableState, player: int) -> bool:
        now = self._mine(s, player)
        before = self._mine(prev, player)
        rolling = any(d.state is DieState.ROLLING for _, d in now) and not any(d.state is DieState.ROLLING for _, d in before)
        return rolling or (bool(now) and not before)

    def _sync_mirror(self) -> None:
        """The standard match state the server and snapshot read, kept equal to the Welsh one."""
        g = self.game
        cube = CubeState() if g is None else CubeState(g.cube, None if g.cube_owner is None else Player(g.cube_owner))
        winner = None if self.wmatch.winner is None else Player(self.wmatch.winner)
        self.match = replace(self.match, cube=cube, score=(self.wmatch.scores[0], self.wmatch.scores[1]), winner=winner)

    def _flush(self, frame: int | None) -> None:
        """Alerts for what the engine reported since the last call (game, then match events)."""
        g = self.game
        if g is not None:
            while self._game_seen < len(g.events):
                self._event(g.events[self._game_seen], frame)
                self._game_seen += 1
            if g.over and not self._reported_result:
                self._reported_result = True
                self._result(frame)
        while self._match_seen < len(self.wmatch.events):
            self._event(self.wmatch.events[self._match_seen], frame)
            self._match_seen += 1
        while self._breaks_seen < len(self.wmatch.breaks):
            after, reason = self.wmatch.breaks[self._breaks_seen]
            self._breaks_seen += 1
            self._emit("WEL_BREAK_TRIGGER", None, f"A 10-minute break is due between games: {reason}.", frame=frame,
                       details={"reason": reason, "after_game": after})
        self._sync_mirror()
        if self.wmatch.over:
            self.phase = Phase.MATCH_OVER
        elif g is not None and g.over:
            self.phase = Phase.GAME_OVER

    def _event(self, e: WelshEvent, frame: int | None) -> None:
        title = CODES[e.code][1]
        text = title[0].upper() + title[1:] + (f" ({e.detail})" if e.detail else "") + "."
        if e.code == "WEL_AUTO_RAISE" and self.game is not None:
            text = f"First dance of the game: the doubling die goes up to {self.game.cube} (turn it where it lies)."
        if e.player is not None:
            text = f"{self._name(e.player)}: {text}"
        self._emit(e.code, e.player, text, frame=frame, details={"detail": e.detail} if e.detail else None)

    def _refuse(self, err: WelshRuleError, player: int | None, frame: int | None) -> None:
        who = f"{self._name(player)}: " if player is not None else ""
        self._emit(err.code, player, who + str(err), frame=frame, severity=Severity.VIOL)

    # ================================================================== games
    def _game_start(self, frame: int | None) -> None:
        super()._game_start(frame)
        self.game = None
        self._game_seen = 0
        self._reported_result = False
        self._thrower = None
        self._judged = None
        self._ended = self._deferred = False
        self._wrong = None
        self._cube_void = False
        self._last_mover = None
        self._start_clocks = self._clocks_now()
        self._starter = None if self.wmatch.over else self.wmatch.next_starter()
        if self._starter is not None:
            self._create_game(self._starter, frame)

    def _clocks_now(self) -> tuple[float, float] | None:
        """Seconds left per player on the clock, if it reports them (for Ten For Two, R12b)."""
        s = self._state
        clock = s.clock if s is not None and s.clock is not None else self._last_clock
        if clock is None or clock.reserve_near_s is None or clock.reserve_far_s is None:
            return None
        by_seat = {Seat.NEAR: clock.reserve_near_s, Seat.FAR: clock.reserve_far_s}
        return by_seat[self._seat(0)], by_seat[self._seat(1)]

    def _create_game(self, starter: int, frame: int | None) -> WelshGame:
        # judged when the game is due to start (W34): at the reset, or at the first state of the stream
        clocks = self._start_clocks if self._start_clocks is not None else self._clocks_now()
        g = self.wmatch.new_game(starter, clocks=clocks)
        self.game = g
        self._game_seen = 0
        self.starter = starter
        self.turn = starter
        self.position = to_standard(g.position, starter)
        self.phase = Phase.PRE_ROLL
        self._flush(frame)
        return g

    def _ensure_game(self, player: int, frame: int | None) -> WelshGame | None:
        """The current game; before the first act of a game whose starter is open (odds and evens
        decided off camera, R7), ``player`` is taken to be the starter."""
        if self.game is not None:
            return self.game
        if self.phase is not Phase.SETUP or self.wmatch.over:
            return None
        return self._create_game(self._starter if self._starter is not None else player, frame)

    def _result(self, frame: int | None) -> None:
        g = self.game
        assert g is not None and g.result is not None
        r = g.result
        score = f"Score {self.wmatch.scores[0]}-{self.wmatch.scores[1]}."
        if r.is_wash:
            how = "snakes" if r.ending is Ending.WASH_SNAKES else "sticks"
            message = f"Wash by {how}: one game to each player, whatever the doubling die shows. {score}"
        elif r.winner is not None:
            games = r.games[r.winner]
            kind = _MULTIPLIER_NAMES.get(r.multiplier, f"x{r.multiplier}")
            value = f" ({games} game{'s' if games != 1 else ''}: die {r.cube} x {r.multiplier}, {kind})" if r.ending in (
                Ending.CHECKOUT, Ending.BOXES_OUT) else (f" ({games} game{'s' if games != 1 else ''})" if games else "")
            message = f"{self._name(r.winner)} {_ENDINGS[r.ending]}{value}. {score}"
            if games:
                self._log(EntryKind.WIN, r.winner, value=games, and_match=self.wmatch.over)
        else:
            message = f"The game ended ({r.ending.value}). {score}"
        self._emit("GAME_RESULT", r.winner, message, frame=frame, details={
            "ending": r.ending.value, "games": list(r.games), "cube": r.cube, "multiplier": r.multiplier,
            "score": list(self.wmatch.scores)})
        if not self.wmatch.over:
            self.match = replace(self.match, game=self.match.game + 1)

    # ================================================================== per-state checks
    def _correction_checks(self, s: TableState) -> None:
        """Corrections are judged at the next throw (W40), not here."""

    def _reset_checks(self, s: TableState) -> None:
        if self.phase is Phase.GAME_OVER and s.settled and not s.hands and PhysicalBoard.from_state(s) == self._start_board:
            self._game_start(s.frame)

    def _dice_and_signals(self, s: TableState, prev: TableState | None) -> None:
        if prev is None or self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            return
        order = [self.turn, 1 - self.turn]
        for p in order:
            if self._throw_started(s, prev, p):
                self._on_throw(s, p)
                if self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
                    return
        if self.phase is Phase.ROLLING:
            self._settle(s)
        elif self.phase is Phase.MOVING:
            self._moving(s, prev)

    # ------------------------------------------------------------------ throws
    def _on_throw(self, s: TableState, p: int) -> None:
        frame = s.frame
        if self.phase is Phase.SETUP:
            if self._starter is not None and p != self._starter:
                self._emit("WEL_OUT_OF_TURN", p, f"{self._name(p)} threw, but {self._name(self._starter)} starts this game.",
                           frame=frame)
                return
            if self._ensure_game(p, frame) is None:
                return
        g = self.game
        if g is None:
            return
        if self.phase is Phase.MOVING:
            if p == self.turn:
                if self._may_rethrow():
                    g.rethrow_acey_deucey()
                    self._emit("WEL_ACEY_DEUCEY_RETHROW", p, f"{self._name(p)} throws the 1-2 again.", frame=frame)
                    self._begin_throw(p)
                    return
                if not self._ended:
                    self._emit("WEL_RETHROW_NOT_ALLOWED", p,
                               f"{self._name(p)} threw again: only a thrown 1-2 may be re-thrown, before any man moves. "
                               "The first throw stands.", frame=frame)
                    return
            self._close_turn(frame)
            if self._phase() is not Phase.PRE_ROLL:
                return
        if self._phase() is Phase.ROLLING:
            if p == self._thrower:
                self._judged = None  # the same dice thrown again before they were judged
            return
        if self.phase is Phase.PRE_ROLL:
            if p != self.turn:
                why = "he has another turn" if self._last_mover == self.turn else "it is his throw"
                self._emit("WEL_OUT_OF_TURN", p, f"{self._name(p)} threw out of turn: {self._name(self.turn)} throws, {why}.",
                           frame=frame)
                return
            self._clock_at_throw(s)
            self._penalty_check(frame)
            self._begin_throw(p)

    def _phase(self) -> Phase:
        """The phase now (a method call, so that type narrowing does not outlive state changes)."""
        return self.phase

    def _begin_throw(self, p: int) -> None:
        self.phase = Phase.ROLLING
        self._thrower = p
        self._judged = None
        self.attempted = True
        self.dice = None
        self._ended = self._deferred = False

    def _may_rethrow(self) -> bool:
        g = self.game
        board = self._last_settled
        return (g is not None and g.may_rethrow_acey_deucey() and board is not None
                and self._sides(board) == g.position.men)

    def _cocked(self, d: Die) -> DieReason | None:
        reason = d.reason
        if reason is None and d.valid is False:
            reason = DieReason.COCKED
        if reason is None or reason in _FLAT:
            return None
        if reason is DieReason.OFF_BOARD and not self.options.dice_on_board_required:
            return None  # W39: flat anywhere on the table
        return reason

    def _settle(self, s: TableState) -> None:
        p = self._thrower
        g = self.game
        if p is None or g is None:
            return
        mine = self._mine(s, p)
        if not mine or any(d.state is not DieState.AT_REST for _, d in mine):
            return
        if min(self._rest_time(s, i, d) for i, d in mine) < self.profile.settle_s:
            return
        values = tuple(d.value or 1 for _, d in mine)
        if values == self._judged:
            return
        self._judged = values
        frame = s.frame
        cocked = [(i, d, r) for i, d in mine if (r := self._cocked(d)) is not None]
        if cocked:
            for i, _d, reason in cocked:
                self._emit("WEL_COCKED_DICE", p, f"{self._name(p)}'s die {i + 1} is {reason.value.replace('_', ' ')}: "
                           "both dice are thrown again.", frame=frame, details={"die": i, "reason": reason.value})
            self.phase = Phase.PRE_ROLL
            return
        single = len(values) == 1
        try:
            outcome = g.throw(values, single_die=single)
        except WelshRuleError as err:
            self._refuse(err, p, frame)
            if err.code != "WEL_NOMINATED_THROW_MISMATCH":
                self.phase = Phase.PRE_ROLL  # throw again (two dice)
            return
        shown = "-".join(map(str, values))
        if any(d.confidence < self.profile.confidence for _, d in mine):
            self._emit("ROLL_VALUE_UNREADABLE", p, f"The throw looks like {shown} but is not clear. Please confirm.",
                       frame=frame, details={"dice": list(values)})
        kind = "nominated throw" if g.throw_nominated else ("single die" if single else "throw")
        self._emit("ROLL_VALID", p, f"{self._name(p)}: {kind} {shown}.", frame=frame,
                   details={"dice": list(values), "nominated": g.throw_nominated, "single_die": single})
        self.valid_rolls += 1
        self.dice = (values[0], values[1]) if len(values) == 2 else None
        self.roll_frame = frame
        self._flush(frame)
        if outcome == "rethrow":
            self.phase = Phase.PRE_ROLL
        elif outcome == "over":
            self._game_over_now(frame)
        else:
            self.phase = Phase.MOVING
            self.roll_pos = self.position
            self._ended = self._deferred = False

    # ------------------------------------------------------------------ moving and the end of a turn
    def _moving(self, s: TableState, prev: TableState) -> None:
        g = self.game
        assert g is not None
        m = self.turn
        frame = s.frame
        lifted = bool(self._mine(prev, m)) and not self._mine(s, m)
        before_clock = self._clock_before
        pressed = (s.clock is not None and before_clock is not None and before_clock.running is self._seat(m)
                   and s.clock.running is self._seat(m).other)
        if self._ended:
            if self._deferred and pressed:
                self._deferred = False
                self._close_turn(frame)  # the clock confirms that the 1-2 is played as it lies
            return
        if lifted or pressed:
            self._emit("END_OF_TURN", m, f"{self._name(m)} ended his turn.", frame=frame)
            self._ended = True
            if self._may_rethrow():
                self._deferred = True  # R13: the 1-2 may still be thrown again
                return
            self._judge(self._last_settled or s, frame)
            return
        # a game-ending play is judged at once (Three On The Roof mid-turn, R14; the last man off)
        board = self._last_settled
        if board is s:
            sides = self._sides(s)
            if sides[1 - m][ROOF] >= 3 or sides[m][OFF] == MEN:
                self._ended = True
                self._judge(s, frame)

    def _close_turn(self, frame: int | None) -> None:
        """The next throw has started: the mover's turn is over whatever he signalled (W40)."""
        board = self._last_settled or self._state
        assert board is not None
        if self._wrong is None:
            self._judge(board, frame)
            if self._wrong is None:
                return
        self._resolve_illegal(board, frame)

    def _target(self, s: TableState) -> tuple[tuple[Side, Side], WelshPosition | None]:
        sides = self._sides(s)
        try:
            return sides, WelshPosition(sides)
        except InvalidPositionError:
            return sides, None

    def _find(self, s: TableState) -> tuple[tuple[Side, Side], WelshPosition | None, Play | None]:
        """The observed men, as a position if valid, and the legal play reaching it.  With count
        distributions (vision) the most likely legal result is taken unless the table most likely
        shows something no legal play reaches (the standard referee's posterior test)."""
        g = self.game
        assert g is not None
        sides, target = self._target(s)
        play = g.find_play(target) if target is not None else None
        if play is not None or s.is_plain:
            return sides, target, play
        plays = g.legal_plays()
        scored = [(self.map.to_physical(to_standard(pl.result, 1 - g.turn)).log_likelihood(s), k) for k, pl in enumerate(plays)]
        if not scored:
            return sides, target, None
        best_ll, best = max(scored)
        seen_ll = PhysicalBoard.from_state(s).log_likelihood(s)
        m = max(best_ll, seen_ll)
        legal_mass = sum(math.exp(ll - m) for ll, _ in scored)
        p_illegal = math.exp(seen_ll - m) / (math.exp(seen_ll - m) + legal_mass)
        if p_illegal < self.profile.confidence:
            if p_illegal >= 1.0 - self.profile.confidence:
                self._emit("MOVE_UNCONFIRMED", g.turn, f"The play by {self._name(g.turn)} is not clear enough to judge; "
                           f"taken as {plays[best].notation() or 'no move'}. Please confirm the position.",
                           frame=s.frame, details={"p_illegal": round(p_illegal, 4)})
            return sides, plays[best].result, plays[best]
        return sides, target, None

    def _judge(self, s: TableState, frame: int | None) -> None:
        g = self.game
        assert g is not None and g.throw_value is not None
        sides, target, play = self._find(s)
        if play is not None:
            self._take(play, frame)
            return
        mover = g.turn
        throw = g.throw_value
        codes = diagnose(g.position, mover, throw, target if target is not None else sides, self.options, g.rovers)
        code = codes[0]
        alternatives = [pl.notation() for pl in g.legal_plays()[:8]]
        shown = "-".join(map(str, throw))
        titles = "; ".join(CODES[c][1] for c in codes)
        deadline = f"before {self._name(1 - mover)}'s next throw"
        restore = self.map.to_physical(to_standard(g.position, mover))
        alert = self._emit(code, mover, f"Illegal play by {self._name(mover)} with {shown}: {titles}. "
                           f"Put the men back and play legally, {deadline}.", frame=frame,
                           evidence=tuple(f for f in (self.roll_frame, frame) if f is not None), deadline=deadline,
                           severity=Severity.VIOL, details={
                               "dice": list(throw), "sub_codes": codes, "legal_alternatives": alternatives,
                               "legal_count": len(g.legal_plays()),
                               "restore": {"points": [{"point": i + 1, "light": restore.light[i], "dark": restore.dark[i]}
                                                      for i in range(24) if restore.light[i] or restore.dark[i]],
                                           "bar": {"light": restore.bar[0], "dark": restore.bar[1]},
                                           "off": {"light": restore.off[0], "dark": restore.off[1]}}})
        aid = alert.id if alert is not None else 0
        self._wrong = _Illegal(mover, code, aid, target)
        dice2 = (throw[0], throw[-1])
        self.pending = PendingIllegal(mover, dice2, to_standard(g.position, mover), None, Deadline.OPPONENT_VALID_ROLL,
                                      aid, code, (frame,) if frame is not None else ())
        self._ended = True

    def _resolve_illegal(self, s: TableState, frame: int | None) -> None:
        ill = self._wrong
        g = self.game
        assert ill is not None and g is not None
        _sides, target, play = self._find(s)
        if play is not None:
            self._emit("CORRECTION_COMPLETE", ill.mover, f"{self._name(ill.mover)}'s play was corrected to a legal one.",
                       frame=frame, details={"alert": ill.alert_id})
            self._take(play, frame)
            return
        if target is None:
            self._emit(ill.code, ill.mover, "The men on the table are not a Welsh position (R8, R10): the game cannot go on "
                       "until they are put right.", frame=frame, severity=Severity.VIOL)
            return
        self._emit("ILLEGAL_MOVE_STANDS", ill.mover, f"The illegal play by {self._name(ill.mover)} stands: it was not "
                   "corrected before the next throw (W40).", frame=frame, details={"alert": ill.alert_id})
        before = g.position
        throw = g.throw_value
        assert throw is not None
        g.let_stand(target)
        self._after_turn(ill.mover, throw, before, "", frame)

    def _take(self, play: Play, frame: int | None) -> None:
        g = self.game
        assert g is not None and g.throw_value is not None
        mover = g.turn
        before = g.position
        throw = g.throw_value
        g.apply_play(play)
        self._after_turn(mover, throw, before, play.notation() if play.steps else "", frame)

    def _after_turn(self, mover: int, throw: Throw, before: WelshPosition, written: str, frame: int | None) -> None:
        g = self.game
        assert g is not None
        after = g.position
        shown = "-".join(map(str, throw))
        if len(throw) == 2:
            std_before = to_standard(before, mover)
            self._log(EntryKind.ROLL, mover, dice=(throw[0], throw[1]),
                      play=diff_play(std_before, to_standard(after, mover).boards(), mover))
        if after != before:
            self._emit("MOVE", mover, f"{self._name(mover)} played {shown}: {written or 'as the table shows'}.", frame=frame,
                       details={"dice": list(throw), "play": written})
        else:
            self._emit("NO_MOVE", mover, f"{self._name(mover)} cannot move with {shown}.", frame=frame,
                       details={"dice": list(throw)})
        self._wrong = None
        self.pending = None
        self._ended = self._deferred = False
        self._flush(frame)
        if g.over:
            self._game_over_now(frame)
            return
        self.turn = g.turn
        self.position = to_standard(after, g.turn)
        self.phase = Phase.PRE_ROLL
        self.dice = None
        self.attempted = False
        self._last_mover = mover
        self._followup = g.turn == mover
        self._end_t = self._now
        self._clock_flagged = False

    def _game_over_now(self, frame: int | None) -> None:
        self._flush(frame)
        if self.game is not None:
            self.position = to_standard(self.game.position, self.turn)

    # ------------------------------------------------------------------ the doubling die
    def _cube_checks(self, s: TableState, prev: TableState | None) -> None:
        cube = s.cube
        if cube is None or self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            return
        hands = [h for h in s.hands if h.over is HandOver.CUBE]
        if hands:
            self._cube_hand = self._player_at(hands[0].side)
            return
        seen = (cube.value, cube.zone)
        last = self._cube_seen
        self._cube_seen = seen
        hint, self._cube_hand = self._cube_hand, None
        if last is None or seen == last:
            return
        if self.phase is Phase.MOVING and self._deferred and cube.value > last[0]:
            # a lifted 1-2 (R13) was played as it lies: the die is turned for the dance's automatic raise
            self._deferred = False
            self._close_turn(s.frame)
        if self.game is not None:
            value = self.game.cube
        else:
            start = self._start_clocks if self._start_clocks is not None else self._clocks_now()
            value = self.wmatch.start_cube(start)
        if self._cube_void:
            if cube.value <= value:
                self._cube_void = False
            return
        # at 64 no face is higher: a raise shows as the die handed across (a hand seen on it)
        at_max = (value >= self.options.cube_max and hint is not None and cube.zone is not last[1]
                  and cube.zone in (CubeZone.NEAR, CubeZone.FAR))
        if cube.value <= value and not at_max:
            return  # turned to the game's value (the automatic raise, Ten For Two) or moved without a raise
        if hint is not None:
            raiser = hint
        elif cube.zone in (CubeZone.NEAR, CubeZone.FAR):
            raiser = 1 - self._player_at(Seat(cube.zone.value))
        else:
            raiser = self.turn
        if self.game is None:
            if self._ensure_game(raiser, s.frame) is None:
                return
            assert self.game is not None
            if cube.value <= self.game.cube:
                return  # Ten For Two: the game starts at 2
        self._raise(raiser, s.frame, cube.value)

    def _raise(self, p: int, frame: int | None, shown: int | None) -> None:
        g = self._ensure_game(p, frame)
        if g is None:
            raise ValueError("no game in progress: the doubling die is raised during a game")
        why = g.can_raise(p) if self.phase is Phase.PRE_ROLL else "WEL_DOUBLE_NOT_BEFORE_THROW"
        if why is not None:
            reason = {
                "WEL_DOUBLE_NOT_BEFORE_THROW": "only the player about to throw may raise it",
                "WEL_DOUBLE_WITHOUT_RIGHT": f"the right to raise it is {self._name(1 - p)}'s",
                "WEL_DOUBLE_DURING_TRIANGLE": "a triangle stands, so it cannot go up in any way",
                "WEL_CUBE_ABOVE_64": f"it is at {self.options.cube_max} already",
            }[why]
            self._emit(why, p, f"{self._name(p)} raised the doubling die, but {reason}. The raise is void: "
                       f"put it back at {g.cube}.", frame=frame, severity=Severity.VIOL)
            self._cube_void = True
            return
        g.raise_cube(p)
        face = "" if shown in (None, g.cube) else f" (the die shows {shown}: turn it to {g.cube})"
        self._emit("WEL_RAISE", p, f"{self._name(p)} raises: the game is worth {g.cube}{face}. "
                   f"{self._name(1 - p)} has the right to raise next.", frame=frame, details={"value": g.cube})
        self._flush(frame)

    # ------------------------------------------------------------------ clock
    def _clock_checks(self, s: TableState) -> None:
        clock = s.clock
        if clock is None or clock.paused or self.phase is Phase.MATCH_OVER:
            return
        for seat, left in ((Seat.NEAR, clock.reserve_near_s), (Seat.FAR, clock.reserve_far_s)):
            if left is not None and left <= 0:
                self._time_out(self._player_at(seat), s.frame)
                return
        lm = self._last_mover
        if lm is None or self.phase not in (Phase.PRE_ROLL, Phase.ROLLING, Phase.MOVING) or self._clock_flagged:
            return
        before = self._clock_before
        pressed_by = None
        if before is not None and before.running is not None and clock.running is not before.running:
            pressed_by = self._player_at(before.running)
        if self._followup and self.turn == lm and pressed_by == lm:
            self._clock_flagged = True
            self._emit("WEL_CLOCK_STOPPED_WITH_FOLLOWUP", lm, f"{self._name(lm)} stopped his clock but has another turn: "
                       "his clock keeps running (R24(iii), W45).", frame=s.frame)
        elif (not self._followup and self.turn != lm and clock.running is self._seat(lm) and self._end_t is not None
              and s.t - self._end_t >= self.CLOCK_GRACE_S):
            self._clock_not_stopped(lm, s.frame)

    def _clock_not_stopped(self, lm: int, frame: int | None) -> None:
        self._clock_flagged = True
        self._emit("WEL_CLOCK_NOT_STOPPED_END_TURN", lm, f"{self._name(lm)}'s turn is over but his clock is still running: "
                   "he should stop it (R24(iii)).", frame=frame)

    def _clock_at_throw(self, s: TableState) -> None:
        lm = self._last_mover
        if (s.clock is not None and not s.clock.paused and lm is not None and not self._followup and self.turn != lm
                and not self._clock_flagged and s.clock.running is self._seat(lm)):
            self._clock_not_stopped(lm, s.frame)

    def _time_out(self, p: int, frame: int | None) -> None:
        if self.wmatch.over:
            return
        running = self.game is not None and not self.game.over
        self.wmatch.time_out(p)
        if not running:
            self._emit("WEL_TIMED_OUT", p, f"{self._name(p)}'s clock ran out between games: he loses the match (R12a).",
                       frame=frame)
        self._flush(frame)

    # ------------------------------------------------------------------ breaks and penalties ((D))
    def _penalty_check(self, frame: int | None) -> None:
        g = self.game
        if self._ready_by is None or g is None or g.turns_played or self._now is None:
            return
        due, what = self._ready_by
        late = self._now - due
        self._ready_by = None
        if late > 600:
            games = 1 + int((late - 600) // 60)
            self._emit("WEL_PENALTY_GAME_DUE", None,
                       f"Play began {late / 60:.1f} minutes after {what}: {games} penalty game"
                       f"{'s' if games != 1 else ''} may be awarded to the player who was ready (the official decides, W38).",
                       frame=frame, details={"late_s": round(late, 1), "games": games, "from": what})

    # ================================================================== spoken acts and decisions
    def announce(self, act: dict[str, Any]) -> list[Any]:
        start = len(self.alerts)
        kind = act.get("act")
        frame = act.get("frame")
        if kind in ("resign", "claim", "forfeit"):
            raise ValueError("Welsh backgammon has no resignation: a game is given up only by an R18 concession offer "
                             "(announce concede_offer in the window, W12)")
        if self.phase is Phase.MATCH_OVER:
            raise ValueError(f"the match is over: no {kind!r} act")
        if kind == "odds_evens":
            self._odds_evens(act, frame)
        elif kind == "nominate":
            dice = act.get("dice")
            if not (isinstance(dice, list) and len(dice) == 2 and all(type(v) is int and 1 <= v <= 6 for v in dice)):
                raise ValueError("a nomination names two dice, e.g. \"dice\": [5, 4]")
            self._nominate(self._player(act), self._player(act, "for"), (dice[0], dice[1]), frame)
        elif kind == "raise":
            self._raise(self._player(act), frame, None)
        elif kind in ("concede_offer", "concede_answer"):
            self._concession(kind, act, frame)
        elif kind == "break":
            if self._now is not None:
                self._ready_by = (self._now + BREAK_S, "the end of the break")
        elif kind == "scheduled_start":
            t = act.get("t", self._now)
            if not isinstance(t, (int, float)):
                raise ValueError("scheduled_start needs \"t\": the scheduled start in the stream's seconds")
            self._ready_by = (float(t), "the scheduled start")
        elif kind == "time_out":
            self._time_out(self._player(act), frame)
        else:
            raise ValueError(f"unknown announcement {kind!r}; the Welsh referee understands odds_evens, nominate, raise, "
                             "concede_offer, concede_answer, break, scheduled_start and time_out")
        return self.alerts[start:]

    def _odds_evens(self, act: dict[str, Any], frame: int | None) -> None:
        if self.game is not None or self.phase is not Phase.SETUP:
            raise ValueError("odds and evens decide who starts only before a game's first throw")
        if self._starter is not None:
            raise ValueError(f"{self._name(self._starter)} starts this game (mugs away, R7): no odds and evens")
        shaker = self._player(act, "shaker")
        first = self._player(act, "first")
        chooser = odds_evens_chooser(shaker, int(act.get("sum", 0)), act.get("call", ""))
        self._starter = first
        self._emit("WEL_ODDS_EVENS", chooser, f"Odds and evens: {self._name(chooser)} chooses, and "
                   f"{self._name(first)} starts.", frame=frame, details={"chooser": self.setup.colour_of(chooser).value})

    def _nominate(self, by: int, for_player: int, throw: Throw, frame: int | None) -> None:
        g = self._ensure_game(by, frame) if for_player == by else self.game
        if g is None:
            self._emit("WEL_NOMINATE_INVALID_TIMING", by, f"{self._name(by)} nominated before the game began.", frame=frame,
                       severity=Severity.VIOL)
            return
        if not g.nominations.used[by]:
            own_turn = by == self.turn and g.turn == by
            if for_player == by and not (own_turn and self.phase is Phase.PRE_ROLL):
                self._emit("WEL_NOMINATE_INVALID_TIMING", by, f"{self._name(by)} nominated for himself, but a nomination for "
                           "oneself is made after one's turn starts, while the dice are still in the cup (R24(iv)).",
                           frame=frame, severity=Severity.VIOL)
                return
            if for_player != by and not (own_turn and not self._ended and self.phase in (Phase.PRE_ROLL, Phase.ROLLING,
                                                                                        Phase.MOVING)):
                self._emit("WEL_NOMINATE_INVALID_TIMING", by, f"{self._name(by)} nominated for the opponent, but that is "
                           "announced before the end of one's own turn, before the dice are lifted (R24(iv)).",
                           frame=frame, severity=Severity.VIOL)
                return
        try:
            g.nominate(by, for_player, throw)
        except WelshRuleError as err:
            self._refuse(err, by, frame)
            return
        self._flush(frame)

    def _concession(self, kind: str, act: dict[str, Any], frame: int | None) -> None:
        g = self.game
        p = self._player(act)
        if g is None or g.over:
            self._emit("WEL_CONCESSION_OFFER_INVALID", p, f"{self._name(p)}: there is no game in progress to concede.",
                       frame=frame, severity=Severity.VIOL)
            return
        try:
            if kind == "concede_offer":
                games = act.get("games")
                if type(games) is not int:
                    raise ValueError("a concession offer names the games offered, e.g. \"games\": 2")
                g.offer_concession(p, games, with_payment=bool(act.get("payment", False)))
            else:
                accept = act.get("accept")
                if type(accept) is not bool:
                    raise ValueError("a concession answer says \"accept\": true or false")
                if g.offer is not None and p != 1 - g.offer[0]:
                    raise WelshRuleError("WEL_CONCESSION_OFFER_INVALID", "the offer is answered by the other player")
                g.answer_concession(accept)
        except WelshRuleError as err:
            self._refuse(err, p, frame)
            return
        self._flush(frame)
        if g.over:
            self._game_over_now(frame)

    def decide(self, decision: dict[str, Any]) -> list[Any]:
        """Monitor decisions: ``acknowledge``, ``let_stand`` (an illegal play stands now),
        ``require_correction`` (the mover corrects before the next throw), ``set_position`` (board and
        turn: the game goes on from it), ``set_cube`` (value, owner = who may raise next),
        ``award_penalty`` (player, games: (D), W38)."""
        start = len(self.alerts)
        action = decision.get("action")
        frame = decision.get("frame")
        if action in ("acknowledge", "require_correction"):
            pass
        elif action == "let_stand":
            if self._wrong is not None and self._wrong.observed is not None and self.game is not None:
                ill = self._wrong
                before = self.game.position
                throw = self.game.throw_value
                assert throw is not None and ill.observed is not None
                self.game.let_stand(ill.observed)
                self._emit("ILLEGAL_MOVE_STANDS", ill.mover, f"The illegal play by {self._name(ill.mover)} stands: "
                           "the monitor let it stand.", frame=frame, details={"alert": ill.alert_id})
                self._after_turn(ill.mover, throw, before, "", frame)
        elif action == "set_position":
            self._set_position(decision, frame)
        elif action == "set_cube":
            g = self.game
            if g is None or g.over:
                raise ValueError("set_cube: no game in progress")
            value = decision.get("value")
            if value not in (1, 2, 4, 8, 16, 32, 64):
                raise ValueError("set_cube needs \"value\": 1, 2, 4, ... 64 (R3, R6)")
            owner = decision.get("owner")
            g.cube = value
            g.cube_owner = None if owner is None else self.setup.player_of(Colour(owner))
            self._cube_void = False
            self._sync_mirror()
        elif action == "award_penalty":
            p = self._player(decision)
            games = decision.get("games")
            if type(games) is not int or games < 1:
                raise ValueError("award_penalty needs \"games\": a positive number")
            self.wmatch.award_penalty(p, games)
            self._flush(frame)
        else:
            raise ValueError(f"unknown monitor action {action!r} for Welsh; use acknowledge, let_stand, "
                             "require_correction, set_position, set_cube or award_penalty")
        self._emit("MONITOR_DECISION", None, f"Monitor: {action}", frame=frame,
                   details={k: v for k, v in decision.items() if k != "type"})
        return self.alerts[start:]

    def _set_position(self, decision: dict[str, Any], frame: int | None) -> None:
        if self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            raise ValueError("the game is over: set up the board for the next game instead")
        board = decision["board"]
        phys = PhysicalBoard(tuple(board["light"]), tuple(board["dark"]), tuple(board.get("bar", (0, 0))),
                             tuple(board.get("off", (0, 0))))
        turn = self.setup.player_of(Colour(decision.get("turn", self.setup.colour_of(self.turn).value)))
        probe = TableState(frame or 0, self._now or 0.0, phys.points(), phys.bar, phys.off)
        try:
            position = WelshPosition(self._sides(probe))
        except InvalidPositionError as exc:
            raise ValueError(f"set_position: {exc}") from None
        g = self._ensure_game(turn, frame)
        if g is None:
            raise ValueError("no game in progress")
        g.set_position(position, turn)
        self.turn = turn
        self.position = to_standard(position, turn)
        self.phase = Phase.PRE_ROLL
        self.dice = None
        self.pending = None
        self._wrong = None
        self._ended = self._deferred = False
        self._thrower = None
        self._last_mover = None
        self._turns.clear()
        self._flush(frame)

    # ------------------------------------------------------------------ state for the server
    def snapshot(self) -> dict[str, Any]:
        out = super().snapshot()
        g = self.game
        out["welsh"] = {
            "scores": list(self.wmatch.scores),
            "match_length": self.options.match_length,
            "cube": None if g is None else g.cube,
            "cube_right": None if g is None or g.cube_owner is None else self.setup.colour_of(g.cube_owner).value,
            "throw": None if g is None or g.throw_value is None else list(g.throw_value),
            "nominate_cards_used": [self.setup.colour_of(p).value for p in (0, 1) if self.wmatch.nominations.used[p]],
            "triangle": None if g is None else [self.setup.colour_of(p).value for p in (0, 1) if g.triangle[p]],
            "concession_window": None if g is None or g.concession_window is None
            else self.setup.colour_of(g.concession_window[0]).value,
        }
        return out
