"""The referee: a turn state machine over a stream of table states (DIGEST A3.1).

``Referee(setup, profile)`` consumes :class:`TableState` snapshots (``feed``), spoken acts and monitor
decisions (``announce`` / ``decide``) and returns the :class:`Alert` objects each one raises. It never
sees pixels: checkers are judged by scoring the engine's distinct legal results of the roll against
the observation (ARCHITECTURE principles 1-2), and only at the end-of-turn signal, because there is no
touch-move (RG19 4.2.2.3).

Phases: SETUP (board being set, cube centred) -> OPENING (one die each; ties again) -> MOVING (the
starter plays both numbers) -> end signal -> PRE_ROLL (cube window) -> [CUBE_PENDING -> take/pass] ->
ROLLING (attempt started, dice settling >= 2 s) -> valid: MOVING / invalid: reroll -> ... ->
GAME_OVER (bear-off, pass or resignation; board reset) -> SETUP of the next game | MATCH_OVER.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from rules.match import CubeState, MatchError, MatchState, Player, ResultKind, Termination
from rules.matfile import EntryKind, MatEntry, MatGame, MatMatch
from rules.movegen import LegalPlays
from rules.play import Play
from rules.position import Position
from rules.referee.alerts import CATALOGUE, Alert, Severity
from rules.referee.board import BoardMap, diff_play
from rules.referee.profiles import Deadline, DoubleAct, FastRoll, Profile, get_profile
from rules.referee.setup import DiceMode, EndSignal, MatchSetup
from rules.referee.tablestate import (
    Clock,
    Colour,
    Cube,
    CubeZone,
    Die,
    DieReason,
    DieState,
    Half,
    HandOver,
    PhysicalBoard,
    Seat,
    TableState,
)
from rules.scoring import claim_is_valid, game_winner, result_kind


class Phase(StrEnum):
    SETUP = "setup"
    OPENING = "opening"
    PRE_ROLL = "pre_roll"
    ROLLING = "rolling"
    MOVING = "moving"
    CUBE_PENDING = "cube_pending"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"


_INVALID_CODE = {
    DieReason.WRONG_SIDE: "ROLL_INVALID_WRONG_SIDE",
    DieReason.OFF_BOARD: "ROLL_INVALID_OFF_SURFACE",
    DieReason.COCKED: "ROLL_INVALID_COCKED",
    DieReason.LEANING: "ROLL_INVALID_VERTICAL_SUPPORT",
    DieReason.IN_GAP: "ROLL_INVALID_SUNK_BETWEEN_CHECKERS",
    DieReason.ON_DIE: "ROLL_INVALID_DIE_ON_DIE",
    DieReason.ON_CHECKER: "ROLL_INVALID_DIE_ON_CHECKER",
}
_KIND_NAMES = {ResultKind.SINGLE: "single game", ResultKind.GAMMON: "gammon", ResultKind.BACKGAMMON: "backgammon"}
_OFF_TABLE = (DieState.IN_CUP, DieState.LIFTED)
HIDDEN_P = 0.2
"""A point whose likeliest count has less probability than this is hidden (a hand over it: the
observer's uniform distribution)."""
SURE_FACE_P = 0.9
"""A die read with less probability than this on its likeliest face does not show that a roll thrown
again differs from the one judged (:meth:`Referee._thrown_again`)."""
_ROLL_FLOOR = 1e-3
"""Rolls the reader gives less probability than this are not weighed against the play."""


def _weighed(rolls: dict[tuple[int, int], float]) -> dict[tuple[int, int], float]:
    """The rolls weighed against the play: those given at least :data:`_ROLL_FLOOR`."""
    return {r: p for r, p in rolls.items() if p >= _ROLL_FLOOR}

ENTERED_SURE = 0.95
"""How sure the bar's reading must be that a mover who started on the bar has entered what he must,
before his hand at the bar is the end-of-turn tap rather than a reach for the next checker."""
BAR_CLEAR = 0.9
"""How sure a reading of the bar (with no hand over it) must be of its count to show a hit checker
put there (:meth:`Referee._carrying_hit`)."""
TAP_DWELL_S = 0.45
"""A hand is reported at the bar once its tip has stayed there a while (the live pipeline: 0.3 s,
``server.pipeline.HandCue.bar_hold_s``, so that a checker carried across is no tap; 0.2 s for a hand
that came straight onto the bar, decision 0726): the table as the hand reached the bar is the one this
long before the report (the dwell and a frame or so)."""
REST_RESTART_MARGIN_S = 0.05
"""A die's reported rest shorter than the time between two states by more than this began in between
(rest times are rounded to the millisecond, state times to 0.1 ms): :func:`_rested_anew_in`."""
BARE_TAP_WAIT_S = 1.0
"""A bar tap before the roll is judged (a pass without rolling) once the hand has left the bar and
this long has passed with no cube action and no roll: a hand going for the cube looks the same."""


def _fewer_probability(now: Sequence[float], before: Sequence[float]) -> float:
    """P(a count drawn from ``now`` is less than one drawn from ``before``), the two independent."""
    below = 0.0
    total = 0.0
    for k, pb in enumerate(before):
        total += pb * below  # P(now < k) times P(before = k)
        if k < len(now):
            below += now[k]
    return total


def _on_table(s: TableState) -> bool:
    """Some die is rolling or at rest on the table."""
    return any(d.state in (DieState.ROLLING, DieState.AT_REST) for d in s.dice)


def _appeared_at_rest_in(s: TableState, prev: TableState | None, half: Half) -> bool:
    """Dice first seen at rest, all in ``half``, with none rolling or at rest on the table before: a
    throw whose rolling the camera did not see."""
    return (prev is not None and _on_table(s) and not _on_table(prev)
            and not any(d.state is DieState.ROLLING for d in s.dice)
            and all(d.half is half for d in s.dice if d.state is DieState.AT_REST))


def _moved_to_rest_in(s: TableState, prev: TableState | None, half: Half) -> bool:
    """Both dice at rest in ``half``, where before one was off the table (lifted) and the other at
    rest in the other half: a throw the camera saw only in part (the demo's table, session 11: one
    die of the last roll was seen taken, the other never seen to move until both lay in the
    roller's half)."""
    return (prev is not None and len(s.dice) == 2
            and all(d.state is DieState.AT_REST and d.half is half for d in s.dice)
            and any(d.state not in (DieState.AT_REST, DieState.ROLLING) for d in prev.dice)
            and any(d.state is DieState.AT_REST and d.half is not None and d.half is not half for d in prev.dice))


def _jumped_to_rest_in(s: TableState, prev: TableState | None, half: Half) -> bool:
    """Both dice at rest in ``half`` where just before both lay at rest in the other half: taken and
    thrown again with neither seen lifted nor rolling (session 12, seed 313's injected premature roll:
    dark's far hand took light's 6-6 and threw 3-2 while the tracker held its states for a checker map
    being confirmed; the dice went from at rest in one half to at rest in the other). A die knocked
    by a hand stays in its half; both dice crossing the bar at rest is a throw."""
    return (prev is not None and len(s.dice) == 2 and len(prev.dice) == 2
            and all(d.state is DieState.AT_REST and d.half is half for d in s.dice)
            and all(d.state is DieState.AT_REST and d.half is not None and d.half is not half for d in prev.dice))


def _rested_anew_in(s: TableState, prev: TableState | None, half: Half) -> bool:
    """Both dice at rest in ``half``, each either not at rest before or at rest for less time than
    has passed since ``prev``: its rest began again in between, so it was taken and thrown with the
    states that would have shown it held back (session 37, seed 360: after dark's cocked roll was
    called, his hand took one die and then the other, the tracker followed both lifted, rolling and
    landing, but its states were held for a checker map being confirmed; the referee saw one die at
    rest all along, its rest 3.8 s before and 0.2 s after, never judged the rethrow and took the turn
    from the play with a question). Needs the tracker's rest times; a die not known to have moved
    (no ``rest_s``, or resting since before ``prev``) is no rethrow."""
    if prev is None or len(s.dice) != 2 or not all(d.state is DieState.AT_REST and d.half is half for d in s.dice):
        return False
    before = {d.id: d for d in prev.dice if d.id is not None}
    gap = s.t - prev.t
    for d in s.dice:
        p = before.get(d.id) if d.id is not None else None
        if p is not None and p.state is DieState.AT_REST and (d.rest_s is None or d.rest_s >= gap - REST_RESTART_MARGIN_S):
            return False
    return True


def _rolling_ids(s: TableState) -> set[int]:
    """Ids of the dice reported rolling in ``s``."""
    return {d.id for d in s.dice if d.state is DieState.ROLLING and d.id is not None}


def _steps_on_the_way(before: Position, plays: LegalPlays) -> Iterator[tuple[list[list[int]], tuple[int, int]]]:
    """Each legal play's steps in any order the board allows: the boards (both players', the mover's
    numbering for his) after every step but the last, with the step that follows (the boards are
    changed in place as the steps go on: use them before the next)."""
    mover = int(before.turn)
    orders = {order for play in plays for order in itertools.permutations((st.src, st.dst) for st in play.steps)}
    for order in orders:
        boards = [list(before.board(Player(0))), list(before.board(Player(1)))]
        me, opp = boards[mover], boards[1 - mover]
        for (src, dst), nxt in zip(order[:-1], order[1:], strict=True):
            if me[src] <= 0 or (dst and opp[25 - dst] >= 2):
                break
            me[src] -= 1
            me[dst] += 1
            if dst and opp[25 - dst] == 1:
                opp[25 - dst] -= 1
                opp[25] += 1
            yield boards, nxt


def _crosses_bar(src: int, dst: int) -> bool:
    """A checker step (the mover's numbering, 25 the bar, 0 off) from one side of the bar to the other
    (it runs between points 6 and 7, and 18 and 19)."""
    return 0 < dst <= 6 < src <= 24 or 0 < dst <= 18 < src <= 24


def _face_p(d: Die) -> list[float]:
    """A die's probabilities of the faces 1..6: the reader's, or ``confidence`` on the value read."""
    if d.value_p is not None:
        total = sum(d.value_p)
        return [v / total for v in d.value_p]
    value = d.value or 1
    rest = (1.0 - d.confidence) / 5.0
    return [d.confidence if k == value else rest for k in range(1, 7)]


def _roll_distribution(dice: list[Die], opening: bool = False) -> dict[tuple[int, int], float]:
    """Probability of each roll (higher die first) from two dice read independently. An opening roll
    is no double (a tie is rolled again) and keeps which die is higher (that decides who starts)."""
    if len(dice) != 2:
        return {}
    first_higher = (dice[0].value or 1) > (dice[1].value or 1)
    return _rolls_from_faces(_face_p(dice[0]), _face_p(dice[1]), first_higher if opening else None)


def _roll_prior(seen: list[Die], doubles: bool = True) -> dict[tuple[int, int], float]:
    """Each roll's probability from the dice seen (the first two; a die not at rest with a value, or
    not seen, counts each face alike); ``doubles=False`` (an opening roll): doubles left out."""
    uniform = [1.0 / 6] * 6
    faces = [_face_p(d) if d.state is DieState.AT_REST and d.value is not None else uniform for d in seen[:2]]
    faces += [uniform] * (2 - len(faces))
    prior = _rolls_from_faces(faces[0], faces[1])
    if doubles:
        return prior
    total = sum(p for r, p in prior.items() if r[0] != r[1])
    return {r: p / total for r, p in prior.items() if r[0] != r[1]} if total > 0 else {}


def _rolls_from_faces(p0: list[float], p1: list[float], first_higher: bool | None = None) -> dict[tuple[int, int], float]:
    """Probability of each roll (higher die first) from two dice's face probabilities; with
    ``first_higher`` (an opening roll) no doubles and only rolls where the first die is the higher."""
    out: dict[tuple[int, int], float] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            if first_higher is not None and (a == b or (a > b) != first_higher):
                continue
            key = (max(a, b), min(a, b))
            out[key] = out.get(key, 0.0) + p0[a - 1] * p1[b - 1]
    total = sum(out.values())
    return {k: v / total for k, v in out.items()} if total > 0 else {}


@dataclass
class PendingIllegal:
    """An illegal move waiting for correction (RG19 4.2.3.1)."""

    offender: int
    dice: tuple[int, int]
    restore: Position
    """The position after the roll, before the move: what a correction restores (RG19 4.2.3.2)."""
    observed: Position | None
    deadline: Deadline
    alert_id: int
    code: str
    evidence: tuple[int, ...]


@dataclass
class _Turn:
    """A completed turn, kept so the monitor can take it back (``undo_turn``, RG19 4.2.3)."""

    mover: int
    dice: tuple[int, int]
    restore: Position
    """The position after the roll, before the move: what ``undo_turn`` restores."""
    entry: MatEntry
    """Its transcript line (the object itself: undo is refused once later lines follow it)."""


@dataclass(frozen=True)
class _Doubt:
    """A turn accepted with doubt (roll or play unclear, or the roll not seen): the rolls it could have
    been (with the dice's probabilities) and the result accepted, to be looked at again on a clearer
    view of the board."""

    mover: int
    before: Position
    rolls: dict[tuple[int, int], float]
    accepted: Position
    turn: _Turn
    unconfirmed: tuple[str, int | None, tuple[int, ...], dict[str, Any]] | None = None
    """``MOVE_UNCONFIRMED`` held back (message, frame, evidence, details): raised only if the clearer
    view does not settle the move."""
    quiet: TableState | None = None
    """The latest view since, with no hand over the table and every checker accounted for: what the
    clearer view is when the opponent's roll itself is seen with a hand over the board."""


@dataclass
class _GameLog:
    number: int
    score: tuple[int, int]
    entries: list[MatEntry] = field(default_factory=list)


class Referee:
    """Follows one match. See the module docstring; ``snapshot()`` is the state a server renders.

    A profile with a ``machine`` hook (a variant with its own turn flow, e.g. ``welsh``) makes
    ``Referee(setup, profile)`` build that subclass instead, so every caller gets the right machine."""

    def __new__(cls, setup: MatchSetup | None = None, profile: Profile | None = None) -> Referee:
        machine = getattr(profile, "machine", None)
        if cls is Referee and machine is not None and issubclass(machine, Referee):
            built: Referee = super().__new__(machine)
            return built
        return super().__new__(cls)

    def __init__(self, setup: MatchSetup | None = None, profile: Profile | None = None) -> None:
        self.setup = setup or MatchSetup()
        self.profile = profile or get_profile()
        self.map = BoardMap(self.setup)
        self.end_signal = self.setup.end_signal or self.profile.default_end_signal(self.setup.dice_mode, self.setup.clock)
        match = MatchState.new(self.profile.match_rules(self.setup.length), self.setup.score)
        if self.setup.crawford is not None:
            match = match.with_crawford(self.setup.crawford, self.setup.crawford_done)
        self.match = match
        self.alerts: list[Alert] = []
        self._next_id = 1
        self.position = self._start_position()
        self.phase = Phase.SETUP
        self.turn = 0
        self.dice: tuple[int, int] | None = None
        self.roll_p: dict[tuple[int, int], float] = {}  # the reader's probability of each roll (higher die first)
        self.roll_pos: Position | None = None
        self.roll_frame: int | None = None
        self.valid_rolls = 0
        self.attempted = False  # an attempt to roll was made this turn (closes the cube window, RG19 4.4.2)
        self.pending: PendingIllegal | None = None
        self.setup_error: int | None = None  # alert id of an open starting-position error
        self.fast_rolls: dict[int, int] = {0: 0, 1: 0}
        self.fast_grabs: dict[int, int] = {0: 0, 1: 0}
        self.lift_warnings: dict[int, int] = {0: 0, 1: 0}
        self.games: list[_GameLog] = [_GameLog(self.match.game, self.match.score)]
        self._turns: list[_Turn] = []  # completed turns of the current game, oldest first
        self.starter: int | None = None
        self.cube_void = False  # a void cube action: wait for the cube to go back
        self._bare_tap: tuple[int, float] | None = None
        """A bar tap before any roll (frame, time), judged a pass without rolling only once the hand
        has left and :data:`BARE_TAP_WAIT_S` has passed without a cube action or a roll."""
        self._taken_up = False
        """The mover took both dice up and threw them after his roll, before moving (see :meth:`_thrown_again`)."""
        self._held_tap: int | None = None
        """The frame a hand of the mover came to the bar while he may still have been entering
        (:meth:`_entering`): a tap if it leaves from there and the table then shows the play complete."""
        self._off_back_once: set[str] = set()
        """Colours whose borne-off checker was seen back on the surface in one quiet view (judged at
        the next)."""
        self._quiet_before: TableState | None = None
        """The last state with no hand over the table (borne-off checkers back on the surface are
        judged between such states)."""
        self._held_hit: tuple[int, TableState] | None = None
        """While a tap is held back because the mover's hand came to the bar carrying a checker he hit:
        the opponent's bar count before the hand came and the state as it came (:meth:`_carrying_hit`)."""
        self._held_mid: int | None = None
        """The frame of a tap held back because the play was unfinished with a checker to take over the
        bar (:meth:`_mid_play`); a held tap is of that kind while ``_held_tap`` is this frame."""
        self._held_own: TableState | None = None
        """The state as the mover's hand came to the bar with a checker of his own read in it
        (:meth:`_holding_own`); a held tap is of that kind while ``_held_tap`` is its frame."""
        self.bound_double = False
        self._prev: TableState | None = None
        self._latched: set[str] = set()
        self._touched_turn: set[str] = set()
        self._rest_since: dict[int, float] = {}
        self._judged_roll = False
        self._partials: tuple[tuple[Position, tuple[int, int]], set[Position], set[Position], set[Position]] | None = None
        """The last walk through a roll's legal plays (its arguments, then the partial, the complete and
        the unfinished positions of :meth:`_partial_results` and :meth:`_unfinished`)."""
        self._hits: tuple[tuple[Position, frozenset[tuple[int, int]]], bool] | None = None
        """Whether the roll being played can hit at all (:meth:`_hit_possible`), cached for the turn."""
        self._bar_clear: tuple[int | None, tuple[list[int], list[int]]] = (None, ([], []))
        """The roll (its frame) and, per colour, the bar counts read clearly while it is played (:meth:`_note_bar`)."""
        self._bar_seen: deque[tuple[float, tuple[int, int], frozenset[Seat]]] = deque()
        """The bar counts (light, dark) and the seats with a hand over the table of the states of the last
        :data:`TAP_DWELL_S` and the one before them (:meth:`_placed_in_dwell`)."""
        self._invalid_opening: tuple[int, list[tuple[int, Die]]] | None = None
        """The opening roll judged invalid, not yet rethrown: its starter (the higher die's) and dice
        (:meth:`_opening_played`)."""
        self._start_cube_unchecked = False
        """The game has started and its cube is yet to be looked at (when the opening roll has rested)."""
        self._thrown_after_game = False
        """Dice were thrown after the last game ended, before the board was seen set up again."""
        self._dice_hand_t = -math.inf
        """When a hand was last seen over the dice."""
        self._attempt_t = -math.inf
        """When the roll attempt being judged began (its dice first seen rolling or at rest)."""
        self._thrown_ids: set[int] = set()
        """Ids of the dice seen rolling since the roll attempt began (those a lift before rest can concern)."""
        self._before_throw: TableState | None = None
        """The state just before the dice last began to roll (what the table showed before the throw)."""
        self._doubt: _Doubt | None = None
        """The last turn, when it was accepted with doubt: revisited at the opponent's valid roll."""
        self._start_board = self.map.to_physical(self._start_position())
        self.states_seen = 0
        self._now: float | None = None
        self._last_cube: Cube | None = None
        self._wrong_clock_since: float | None = None
        self._last_clock: Clock | None = None
        self._cube_before: Cube | None = None
        self._board_cube: tuple[TableState, TableState, Cube] | None = None
        """A cube read on the board under a hand, with its state before and the cube before it: an offer
        once seen clearly (:meth:`_offer_clear`)."""
        self._clock_before: Clock | None = None
        self.rejected = 0
        self._emit("MATCH_START", None, f"{self._match_desc()}; rules {self.profile.title}", frame=None)
        self._game_start(None)

    # ================================================================== public API
    def feed(self, s: TableState) -> list[Alert]:
        """Process one table state; returns the alerts it raised (also kept in ``self.alerts``)."""
        start = len(self.alerts)
        self.states_seen += 1
        self._now = s.t
        if s.cube is not None and s.cube.confidence < self.profile.cube_min_confidence:
            s = replace(s, cube=None)  # a doubtful cube is not seen (Profile.cube_min_confidence)
        prev = self._prev
        # the cube and the clock keep their last seen value while a hand hides them
        self._cube_before, self._clock_before = self._last_cube, self._last_clock
        self._update_rest(s)
        self._note_bar(s)
        if self._doubt is not None and s.settled and not s.hands:
            self._doubt = replace(self._doubt, quiet=s)
            if self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
                self._confirm_at_game_end(s)
        if any(h.over is HandOver.DICE for h in s.hands):
            self._dice_hand_t = s.t
        if self.phase is not Phase.MATCH_OVER:
            self._static_checks(s, prev)
            self._cube_checks(s, prev)
            self._dice_and_signals(s, prev)
            self._clock_checks(s)
            if self.pending is not None:
                self._correction_checks(s)
            self._reset_checks(s)
        self._prev = s
        self._bar_seen.append((s.t, s.bar, frozenset(h.side for h in s.hands)))
        while len(self._bar_seen) > 1 and self._bar_seen[1][0] <= s.t - TAP_DWELL_S:
            self._bar_seen.popleft()
        if s.cube is not None:
            self._last_cube = s.cube
        if s.clock is not None:
            self._last_clock = s.clock
        return self.alerts[start:]

    def reject(self, frame: int | None, field_: str, reason: str) -> list[Alert]:
        """Record a table state that broke the schema; the referee's state is unchanged."""
        self.rejected += 1
        start = len(self.alerts)
        self._emit("INPUT_REJECTED", None, f"Table state {frame if frame is not None else '?'} ignored: {field_}: {reason}",
                   frame=frame, details={"field": field_, "reason": reason})
        return self.alerts[start:]

    def announce(self, act: dict[str, Any]) -> list[Alert]:
        """A spoken act entered by an operator or a microphone (DIGEST A.0 principle 4): ``resign``."""
        start = len(self.alerts)
        kind = act.get("act")
        if kind in ("resign", "claim", "forfeit") and self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            raise ValueError(f"no game in progress to {kind} (the {'match' if self.phase is Phase.MATCH_OVER else 'game'} is over)")
        if kind == "resign":
            colour = Colour(act["player"])
            loser = self.setup.player_of(colour)
            value = {"single": ResultKind.SINGLE, "gammon": ResultKind.GAMMON, "backgammon": ResultKind.BACKGAMMON}[act.get("kind", "single")]
            if self.phase in (Phase.MOVING,) and self.turn == loser and self.dice is not None:
                self._log(EntryKind.ROLL, loser, dice=self.dice, play=None)
            self._emit("RESIGNATION", loser, f"{self._name(loser)} resigns a {_KIND_NAMES[value]}", frame=act.get("frame"))
            self._end_game(1 - loser, value, Termination.RESIGN, act.get("frame"))
        elif kind == "claim":
            self._claim(act)
        elif kind == "forfeit":
            # the match is conceded or forfeited (e.g. time expiry, RG19 4.3.4; withdrawal): the opponent wins it
            loser = self.setup.player_of(Colour(act["player"]))
            winner = 1 - loser
            frame = act.get("frame")
            if self.match.money or self.match.winner is not None:
                raise ValueError("a forfeit ends a match; there is no match to forfeit here")
            if self.phase is Phase.MOVING and self.turn == loser and self.dice is not None:
                self._log(EntryKind.ROLL, loser, dice=self.dice, play=None)
            needed = self.match.away(Player(winner))
            score = list(self.match.score)
            score[winner] += needed
            self.match = replace(self.match, score=(score[0], score[1]), winner=Player(winner))
            self._log(EntryKind.WIN, winner, value=needed, and_match=True)
            self._emit("MATCH_WON", winner, f"{self._name(loser)} forfeits the match: {self._name(winner)} wins "
                       f"{self.match.score[0]}-{self.match.score[1]}.", frame=frame, details={"forfeit": True})
            self.phase = Phase.MATCH_OVER
        else:
            raise ValueError(f"unknown announcement {kind!r}; the referee understands 'resign', 'claim' and 'forfeit'")
        return self.alerts[start:]

    def _claim(self, act: dict[str, Any]) -> None:
        """RG19 4.5.2: a claim is valid if the claimant gets the result (or better) rolling 1-2 every turn
        against 6-6 (DIGEST A8.6); the engine's ``claim_is_valid`` decides. An accepted valid claim ends the game."""
        claimant = self.setup.player_of(Colour(act["player"]))
        kind = {"single": ResultKind.SINGLE, "gammon": ResultKind.GAMMON, "backgammon": ResultKind.BACKGAMMON}[act.get("kind", "single")]
        frame = act.get("frame")
        roll = self.dice if self.phase is Phase.MOVING and self.turn == claimant else None
        position = (self.roll_pos or self.position) if roll is not None else self.position
        try:
            valid = claim_is_valid(position, claimant, kind, claimant_roll=roll)
            why = "it passes the test of rolling 1-2 against 6-6" if valid else "it fails the test of rolling 1-2 against 6-6"
        except MatchError as exc:
            valid, why = False, str(exc)
        code = "CLAIM_VALID" if valid else "CLAIM_INVALID"
        self._emit(code, claimant, f"{self._name(claimant)} claims a {_KIND_NAMES[kind]}: {why}.", frame=frame,
                   details={"kind": kind.name.lower(), "valid": valid})
        if act.get("accepted") and (valid or self.profile.family != "RG19"):
            self._end_game(claimant, kind, Termination.CLAIM, frame)

    def decide(self, decision: dict[str, Any]) -> list[Alert]:
        """A monitor decision (acknowledge, let_stand, require_correction, rollback, undo_turn, set_position,
        set_cube, set_score, reroll); the referee carries on consistently from it.

        ``undo_turn`` takes back the last completed turn of the current game: its transcript line goes and
        the position and dice return to what they were right after that turn's roll, so the same player
        replays the move with the same dice (RG19 4.2.3.2; a roll made since is discarded). It raises
        ``ValueError`` when there is no such turn, or when a cube action or the game's end follows it.
        ``set_score`` takes the score before the current game and recomputes the Crawford flags from it
        (RG19 4.4.7); ``crawford: true|false`` overrides whether the current game is the Crawford game."""
        start = len(self.alerts)
        action = decision.get("action")
        frame = decision.get("frame")
        note = f"Monitor: {action}"
        if action == "acknowledge":
            pass
        elif action == "let_stand":
            if self.pending is not None:
                self._illegal_stands(frame, "the monitor let it stand")
        elif action in ("require_correction", "rollback"):
            if self.pending is not None:
                self._rollback_to_pending(frame)
            elif self.roll_pos is not None and self.dice is not None:
                self.position = self.roll_pos
                self.phase = Phase.MOVING
        elif action == "undo_turn":
            self._undo_turn(frame)
        elif action == "set_position":
            board = decision["board"]
            phys = PhysicalBoard(tuple(board["light"]), tuple(board["dark"]), tuple(board.get("bar", (0, 0))), tuple(board.get("off", (0, 0))))
            turn = self.setup.player_of(Colour(decision.get("turn", self.setup.colour_of(self.turn).value)))
            self.position = self.map.to_position(phys, turn, self.position.out_of_play)
            self.turn = turn
            self.pending = None
            self.phase = Phase.PRE_ROLL
            self.dice = None
            self.attempted = False
            self._turns.clear()  # the turns played before a set position cannot be taken back onto it
        elif action == "set_cube":
            owner = decision.get("owner")
            self.match = replace(self.match, cube=CubeState(int(decision["value"]), None if owner is None else Player(self.setup.player_of(Colour(owner)))))
        elif action == "set_score":
            sc = decision["score"]
            self.match = self._corrected_score((int(sc[0]), int(sc[1])), decision.get("crawford"))
        elif action == "reroll":
            if self.phase in (Phase.MOVING,) and self.dice is not None:
                self._take_back_roll()
        else:
            raise ValueError(
                f"unknown monitor action {action!r}; use acknowledge, let_stand, require_correction, rollback, "
                "undo_turn, set_position, set_cube, set_score or reroll"
            )
        self._emit("MONITOR_DECISION", None, note, frame=frame, details={k: v for k, v in decision.items() if k != "type"})
        return self.alerts[start:]

    # ------------------------------------------------------------------ state for the server
    def snapshot(self) -> dict[str, Any]:
        pos = self.position
        phys = self.map.to_physical(pos)
        cube = self.match.cube
        colour = self.setup.colour_of
        return {
            "phase": self.phase.value,
            "rules": self.profile.name,
            "game": self.match.game,
            "turn": colour(self.turn).value,
            "dice": list(self.dice) if self.dice else None,
            "position": {
                "points": [{"point": i + 1, "light": phys.light[i], "dark": phys.dark[i]} for i in range(24)],
                "bar": {"light": phys.bar[0], "dark": phys.bar[1]},
                "off": {"light": phys.off[0], "dark": phys.off[1]},
                "position_id": pos.position_id(),
            },
            "pips": {colour(0).value: pos.pip_count(0), colour(1).value: pos.pip_count(1)},
            "cube": {
                "value": cube.value,
                "owner": None if cube.owner is None else colour(cube.owner).value,
                "offered_by": None if cube.offered_by is None else colour(cube.offered_by).value,
            },
            "match": {
                "length": self.match.length,
                "score": {colour(0).value: self.match.score[0], colour(1).value: self.match.score[1]},
                "players": {colour(0).value: self.setup.players[0], colour(1).value: self.setup.players[1]},
                "crawford": self.match.crawford,
                "post_crawford": self.match.post_crawford,
                "winner": None if self.match.winner is None else colour(self.match.winner).value,
            },
            "pending_correction": None
            if self.pending is None
            else {"code": self.pending.code, "offender": colour(self.pending.offender).value, "alert": self.pending.alert_id,
                  "deadline": self.pending.deadline.value},
            "transcript": [
                {"game": g.number, "score": list(g.score), "entries": [_entry_json(e, self.setup) for e in g.entries]}
                for g in self.games
            ],
            "alerts": len(self.alerts),
        }

    def transcript(self) -> MatMatch:
        """The match so far as a ``.mat`` record (rules.matfile writes it)."""
        games = tuple(MatGame(g.number, 0, g.score, tuple(g.entries)) for g in self.games if g.entries)
        return MatMatch(length=self.setup.length, players=self.setup.players, games=games)

    # ================================================================== helpers
    def _name(self, player: int) -> str:
        return f"{self.setup.players[player]} ({self.setup.colour_of(player).value})"

    def _match_desc(self) -> str:
        if self.match.money:
            return "money play"
        return f"{self.match.length}-point match"

    def _emit(self, code: str, player: int | None, message: str, *, frame: int | None, evidence: tuple[int, ...] = (),
              deadline: str | None = None, details: dict[str, Any] | None = None, severity: Severity | None = None) -> Alert | None:
        spec = CATALOGUE[code]
        fam = self.profile.family
        if not spec.applies(fam):
            return None
        alert = Alert(
            code=code,
            severity=severity or spec.severity_for(fam),
            message=message,
            rules=spec.cites_for(fam),
            player=None if player is None else self.setup.colour_of(player).value,
            player_name=None if player is None else self.setup.players[player],
            evidence=evidence or (() if frame is None else (frame,)),
            deadline=deadline,
            game=self.match.game,
            frame=frame,
            t=self._now,
            details=details or {},
            id=self._next_id,
        )
        self._next_id += 1
        self.alerts.append(alert)
        return alert

    def _seat(self, player: int) -> Seat:
        return self.setup.seat_of_player(player)

    def _player_at(self, seat: Seat) -> int:
        return self.setup.player_at(seat)

    def _right_half(self, player: int) -> Half:
        return self.setup.orientation.right_half(self.setup.colour_of(player))

    def _log(self, kind: EntryKind, player: int, *, dice: tuple[int, int] | None = None, play: Play | None = None,
             value: int | None = None, and_match: bool = False) -> None:
        self.games[-1].entries.append(MatEntry(kind, Player(player), None, 0, dice=dice, play=play, value=value, and_match=and_match))

    def _update_rest(self, s: TableState) -> None:
        seen: dict[int, float] = {}
        for i, d in enumerate(s.dice):
            key = d.id if d.id is not None else i
            if d.state is DieState.AT_REST:
                seen[key] = self._rest_since.get(key, s.t)
        self._rest_since = seen

    def _rest_time(self, s: TableState, i: int, d: Die) -> float:
        if d.rest_s is not None:
            return d.rest_s
        key = d.id if d.id is not None else i
        return s.t - self._rest_since.get(key, s.t)

    def _dice_owner(self, d: Die) -> int | None:
        """Whose die: its owner colour, else (four dice) the seat whose right-hand half it is in."""
        if d.owner is not None:
            return self.setup.player_of(d.owner)
        if d.half is not None:
            seat = Seat.NEAR if d.half is Half.RIGHT else Seat.FAR
            return self._player_at(seat)
        return None

    def _roll_dice(self, s: TableState, player: int | None) -> list[tuple[int, Die]]:
        """Dice on the table that make up ``player``'s roll (two shared dice: all on the table)."""
        out = []
        for i, d in enumerate(s.dice):
            if d.state in _OFF_TABLE:
                continue
            if self.setup.dice_mode is DiceMode.FOUR and player is not None and self._dice_owner(d) not in (player, None):
                continue
            out.append((i, d))
        return out

    @staticmethod
    def _lifted(s: TableState) -> int:
        """Dice reported lifted or in the cup (a die merely not seen for a moment is not lifted)."""
        return sum(d.state in _OFF_TABLE for d in s.dice)

    def _hand(self, s: TableState, seat: Seat, over: HandOver, touching: bool = True) -> bool:
        return any(h.side is seat and h.over is over and (h.touching or not touching) for h in s.hands)

    def _latch(self, key: str, on: bool) -> bool:
        """True on the rising edge of a condition (so a persisting problem alerts once)."""
        if on:
            if key in self._latched:
                return False
            self._latched.add(key)
            return True
        self._latched.discard(key)
        return False

    # ================================================================== checks on every state
    def _static_checks(self, s: TableState, prev: TableState | None) -> None:
        settled = s.settled and not any(h.over is HandOver.CHECKERS and h.touching for h in s.hands)
        # checker conservation (A5.15) and impossible positions (A5.5), judged on settled states
        for colour in Colour:
            player = self.setup.player_of(colour)
            expected = 15 - self.position.out_of_play[player]
            total = s.total(colour)
            # with count distributions (vision) only a count the observation makes clear: a stack or
            # the bar read one short with a fair chance of the right count is no missing checker
            wrong = settled and total != expected and s.total_probability(colour, expected) < 1.0 - self.profile.confidence
            if self._latch(f"count-{colour.value}", wrong):
                self._emit("CHECKER_COUNT_MISMATCH", player,
                           f"{colour.value.title()} has {total} checkers on the table, not {expected}. Please count the checkers.",
                           frame=s.frame, details={"colour": colour.value, "seen": total, "expected": expected})
        # with count distributions (vision) only where the reading makes it clear (a checker of one
        # colour read on the other's point for a moment is no impossible position)
        both = [i + 1 for i, p in enumerate(s.points)
                if p.light and p.dark and s.both_colours_probability(i) >= self.profile.confidence]
        if self._latch("both-colours", settled and bool(both)):
            self._emit("IMPOSSIBLE_POSITION", None,
                       f"Checkers of both colours on point {both[0]}. The position must be corrected.",
                       frame=s.frame, details={"points": both})
        # borne-off checker back on the playing surface (A5.11): one that can have been borne off, by a
        # judged turn or by the roll being played (a tray misread for a moment brings nothing back).
        # Judged between states with no hand over the table: an arm bearing off hides part of the tray
        # and the points by it (a full match's bear-off, seed 313: the tray read 10, 7, 10 and the
        # 1-point 5, 8, 4 while the near hand was there; three false alerts); a checker really taken
        # back is seen when the hand has gone.
        if self.phase in (Phase.SETUP, Phase.GAME_OVER):
            self._quiet_before = None
            self._off_back_once.clear()
        elif not s.hands:
            ref = self._quiet_before
            advance = True
            for i, colour in enumerate(Colour):
                if ref is None:
                    break
                on_board = sum(s.counts(colour)) + s.bar[i]
                was_on_board = sum(ref.counts(colour)) + ref.bar[i]
                key = f"off-back-{colour.value}"
                # the checkers that left the tray are those that came onto the board (a full match's
                # last bear-off, seed 319: the tray of 14 read 15, then 8 with one checker on the
                # board, the hands gone; a misread, not seven checkers put back), and so in two quiet
                # views running (seed 314's bear-off: a stack and the tray each misread once, together)
                # and only when the two readings are sure the tray holds fewer now (seed 319 again, session
                # 22: the tray of 14 read 15 at 45%, 14 at 27%, the checker left on the 2 point unseen,
                # then read 14 with it on the board, twice: a doubtful tray, not a checker put back)
                back = (s.off[i] < ref.off[i] and on_board > was_on_board and s.off[i] < self._possible_off(i)
                        and ref.off[i] - s.off[i] == on_board - was_on_board
                        and _fewer_probability(s.off_distribution(i), ref.off_distribution(i)) >= self.profile.confidence)
                if back and key not in self._off_back_once:
                    self._off_back_once.add(key)
                    advance = False  # the same reference for the next quiet view
                elif back:
                    self._off_back_once.discard(key)
                    if self._latch(key, True):
                        player = self.setup.player_of(colour)
                        self._emit("BORNE_OFF_CHECKER_ON_SURFACE", player,
                                   f"A borne-off {colour.value} checker has left the tray. Borne-off checkers stay off the playing surface.",
                                   frame=s.frame, evidence=(ref.frame, s.frame))
                else:
                    self._off_back_once.discard(key)
                    if s.off[i] >= ref.off[i]:
                        self._latched.discard(key)
            if advance:
                self._quiet_before = s
        # checkers touched by the player not on turn (A3.10)
        if self.phase in (Phase.PRE_ROLL, Phase.ROLLING, Phase.MOVING) and self.pending is None:
            other = 1 - self.turn
            key = f"touch-{other}"
            if self._hand(s, self._seat(other), HandOver.CHECKERS) and key not in self._touched_turn:
                self._touched_turn.add(key)
                self._emit("OFF_TURN_CHECKER_TOUCH", other,
                           f"{self._name(other)} touched checkers during the opponent's turn.", frame=s.frame)

    # ================================================================== clock
    CLOCK_GRACE_S = 5.0
    """Seconds the wrong side may run before an alert (a press in progress, a correction being made)."""

    def _clock_checks(self, s: TableState) -> None:
        """A9.5: the running side belongs to the player who has to act (the taker while a double is pending)."""
        clock = s.clock
        if clock is None or clock.paused or clock.running is None or self.pending is not None:
            self._wrong_clock_since = None
            return
        if self.phase in (Phase.PRE_ROLL, Phase.ROLLING, Phase.MOVING):
            actor = self.turn
        elif self.phase is Phase.CUBE_PENDING and self.match.cube.offered_by is not None:
            actor = 1 - int(self.match.cube.offered_by)
        else:
            self._wrong_clock_since = None
            return
        wrong = clock.running is not self._seat(actor)
        if not wrong:
            self._wrong_clock_since = None
            self._latched.discard("clock")
            return
        if self._wrong_clock_since is None:
            self._wrong_clock_since = s.t
        if s.t - self._wrong_clock_since >= self.CLOCK_GRACE_S and self._latch("clock", True):
            self._emit("CLOCK_RUNNING_FOR_WRONG_PLAYER", actor,
                       f"The clock is running for {self._name(1 - actor)} but {self._name(actor)} is to act. Switch it; lost time is restored.",
                       frame=s.frame)

    # ================================================================== cube
    def _cube_checks(self, s: TableState, prev: TableState | None) -> None:
        cube = s.cube
        last = self._cube_before
        if cube is None or prev is None or last is None:
            return
        mover = self.turn
        # A7.8: an owned cube must show its correct value (RG19 4.4.3, 4.4.9)
        owner = self.match.cube.owner
        wrong_face = (
            owner is not None
            and self.phase in (Phase.PRE_ROLL, Phase.ROLLING, Phase.MOVING)
            and not self.cube_void
            and cube.zone is self._cube_home_zone()
            and cube.value != self.match.cube.value
            and not any(h.over is HandOver.CUBE for h in s.hands)
        )
        if self._latch("cube-face", wrong_face):
            assert owner is not None
            self._emit("CUBE_WRONG_LEVEL", int(owner), f"The cube shows {cube.value}; its value is {self.match.cube.value}. Turn it back.",
                       frame=s.frame, details={"shown": cube.value, "correct": self.match.cube.value})
        # RG19 4.4.4.2 / WB23 4.4(ii): touching the cube when doubling is legal is a double; it is
        # reported when the hand leaves the cube without offering it (an offer reports itself)
        strict = self.profile.double_act is DoubleAct.TOUCH
        if self.phase is Phase.PRE_ROLL and self.profile.double_act in (DoubleAct.TOUCH, DoubleAct.POINT_OR_TOUCH):
            seat = self._seat(mover)
            on_cube = self._hand(s, seat, HandOver.CUBE, touching=strict)
            if on_cube and not self.attempted and self.match.may_double(Player(mover)):
                self.bound_double = True
            elif not on_cube and self.bound_double and cube.zone is last.zone and cube.zone is not CubeZone.BOARD:
                self.bound_double = False
                self._emit("DOUBLE_BY_TOUCH", mover,
                           f"{self._name(mover)} touched the cube while doubling was legal: that is a double. "
                           "He must offer it now.", frame=s.frame, details={"binding": True})
        if (
            self.phase is Phase.CUBE_PENDING
            and self.profile.take_on_surface
            and cube.zone is CubeZone.BOARD
            and cube.side is not None
            and self.match.cube.offered_by is not None
            and cube.side is self._seat(1 - int(self.match.cube.offered_by))
            and not any(h.over is HandOver.CUBE for h in s.hands)
            and (last.side is not cube.side or any(h.over is HandOver.CUBE for h in prev.hands))
        ):
            # WB23 4.4(iii): moved to the taker's side within the limits of the board, and let go
            self._cube_answer(s, CubeZone.NEAR if cube.side is Seat.NEAR else CubeZone.FAR)
            return
        if self._board_cube is not None:
            first, first_prev, before = self._board_cube
            if cube.zone is not CubeZone.BOARD:
                self._board_cube = None  # back where it was: no offer was made
                if self.turn is not None and cube.zone.value == self._seat(1 - self.turn).value and cube.zone is not before.zone:
                    # taken from the hand of the player on turn to the other side: the offer, and the answer
                    self._double_offered(first, first_prev, before, frame=s.frame)
                    if self.phase is Phase.CUBE_PENDING:
                        self._cube_answer(s, cube.zone)
                    return
            elif self._offer_clear(s):
                self._board_cube = None
                self._double_offered(first, first_prev, before, frame=s.frame)
                return
        if cube.zone is last.zone:
            return
        zone = cube.zone
        if self.cube_void:
            if zone is self._cube_home_zone() or zone is CubeZone.ABSENT:
                self.cube_void = False
            return
        if self.phase is Phase.CUBE_PENDING:
            self._cube_answer(s, zone)
            return
        if zone is CubeZone.BOARD:
            if self._offer_clear(s):
                self._double_offered(s, prev, last)
            else:
                self._board_cube = (s, prev, last)
                self._bare_tap = None  # the hand at the bar was going for the cube

    @staticmethod
    def _offer_clear(s: TableState) -> bool:
        """A cube read on the board is an offer (RG19 4.4.4) once it is read there with no hand over the
        board, the bar, the cube or checkers: the doubler has let it go. Under a hand the cube may be
        on its way, or not the cube at all (session 10: a light checker carried from the bar past the
        centred cube was read as the cube on the board, showing 32 or, at 0.83, 2, and a void double
        after the roll was called four times in 385 turns; session 15, seed 321: a hand taking the dice
        by the centred cube made it read as 2 on the board, 73% sure, and a void double after the roll
        was called). Taken from there to the other side under the hands, it was offered and taken
        (:meth:`_cube_checks`)."""
        return not any(h.over in (HandOver.BOARD, HandOver.BAR, HandOver.CUBE, HandOver.CHECKERS, HandOver.DICE) for h in s.hands)

    def _cube_home_zone(self) -> CubeZone:
        owner = self.match.cube.owner
        if owner is None:
            return CubeZone.CENTRE
        return CubeZone.NEAR if self._seat(owner) is Seat.NEAR else CubeZone.FAR

    def _double_offered(self, s: TableState, prev: TableState, last: Cube, frame: int | None = None) -> None:
        """The cube moved from ``last`` to the board in ``s`` (``prev`` the state before); reported at
        ``frame`` (default ``s``'s: later when the offer was only clear then, :meth:`_offer_clear`)."""
        assert s.cube is not None
        self._bare_tap = None  # the hand at the bar was going for the cube
        # who doubles: the owner if it left his side; else the hand on it; else the player on turn
        hands = [h.side for h in s.hands if h.over is HandOver.CUBE] or [h.side for h in prev.hands if h.over is HandOver.CUBE]
        # a camera that cannot tell what a hand is over: the one seat whose hand moved the cube
        seats = {h.side for h in (*s.hands, *prev.hands)}
        if hands:
            doubler = self._player_at(hands[0])
        elif len(seats) == 1:
            doubler = self._player_at(seats.pop())
        elif last.zone in (CubeZone.NEAR, CubeZone.FAR):
            doubler = self._player_at(Seat(last.zone.value))
        else:
            doubler = self.turn
        frame = s.frame if frame is None else frame
        self.bound_double = False
        if self.phase in (Phase.SETUP, Phase.OPENING, Phase.GAME_OVER):
            self.cube_void = True
            self._emit("DOUBLE_OUT_OF_TURN", doubler, f"{self._name(doubler)} moved the cube before the game's first turn; no double is possible yet.",
                       frame=frame)
            return
        if doubler != self.turn:
            self.cube_void = True
            self._emit("DOUBLE_OUT_OF_TURN", doubler,
                       f"{self._name(doubler)} offered the cube during the opponent's turn. He must double at his first legal opportunity.",
                       frame=frame, details={"must_double_next_turn": True})
            return
        if self.attempted or self.phase in (Phase.ROLLING, Phase.MOVING):
            self.cube_void = True
            self._emit("DOUBLE_AFTER_ROLL_ATTEMPT", doubler,
                       f"{self._name(doubler)} doubled after attempting to roll. The double is void: it is too late this turn.",
                       frame=frame)
            return
        error = self.match.double_error(Player(doubler))
        if error is not None:
            self.cube_void = True
            code = {"NoCubeAccessError": "DOUBLE_WITHOUT_ACCESS", "CrawfordDoubleError": "CRAWFORD_CUBE_ACTION_VOID",
                    "DeadCubeError": "DEAD_CUBE_DOUBLE"}.get(type(error).__name__, "DOUBLE_WITHOUT_ACCESS")
            self._emit(code, doubler, f"Void double by {self._name(doubler)}: {error}. Put the cube back.", frame=frame,
                       details={"reason": str(error)})
            return
        if self.pending is not None and self.profile.illegal_move_deadline is Deadline.OPPONENT_ROLL_OR_CUBE and self.pending.offender != doubler:
            self._illegal_stands(frame, "condoned by turning the cube")
        self.match = self.match.double(Player(doubler))
        self.phase = Phase.CUBE_PENDING
        offered = self.match.cube.value * 2
        self._emit("DOUBLE_OFFERED", doubler, f"{self._name(doubler)} doubles to {offered}.", frame=frame, details={"value": offered})
        self._log(EntryKind.DOUBLE, doubler, value=offered)
        self._check_setup_window(frame, double_by=doubler)
        if s.cube.value != offered:
            self._emit("CUBE_WRONG_LEVEL", doubler, f"The offered cube shows {s.cube.value}; it should show {offered}. The double stands at {offered}.",
                       frame=frame, details={"shown": s.cube.value, "correct": offered})

    def _cube_answer(self, s: TableState, zone: CubeZone) -> None:
        assert s.cube is not None
        doubler = self.match.cube.offered_by
        assert doubler is not None
        taker = 1 - int(doubler)
        taker_zone = CubeZone.NEAR if self._seat(taker) is Seat.NEAR else CubeZone.FAR
        frame = s.frame
        if zone is taker_zone:
            value = self.match.cube.value * 2
            if self.match.rules.beavers and s.cube.value == value * 2 and not self.match.cube.beavered:
                self.match = self.match.beaver(Player(taker))
                self._emit("BEAVER", taker, f"{self._name(taker)} beavers: the cube is {value * 2}, {self._name(taker)} keeps it.", frame=frame)
                self._log(EntryKind.BEAVER, taker, value=value * 2)
                return
            self.match = self.match.take(Player(taker))
            self.phase = Phase.PRE_ROLL
            self._emit("TAKE", taker, f"{self._name(taker)} takes. The cube is at {self.match.cube.value}.", frame=frame,
                       details={"value": self.match.cube.value})
            self._log(EntryKind.TAKE, taker)
            if s.cube.value != self.match.cube.value:
                self._emit("CUBE_WRONG_LEVEL", taker, f"The cube shows {s.cube.value}; it should show {self.match.cube.value}.",
                           frame=frame, details={"shown": s.cube.value, "correct": self.match.cube.value})
        elif zone is CubeZone.CENTRE:
            passer = taker  # 1 - offered_by; after a beaver the original doubler refuses
            self._emit("PASS", passer, f"{self._name(passer)} passes.", frame=frame)
            self._log(EntryKind.DROP, passer)
            self._end_game(1 - passer, ResultKind.SINGLE, Termination.PASS, frame)
        elif zone is not CubeZone.BOARD:
            self._emit("CUBE_DECISION_AMBIGUOUS", taker, f"The cube was put {zone.value}: that is neither a take nor a pass. Please confirm.",
                       frame=frame)

    # ================================================================== dice and turn signals
    def _dice_and_signals(self, s: TableState, prev: TableState | None) -> None:
        phase = self.phase
        rolling = [(i, d) for i, d in enumerate(s.dice) if d.state is DieState.ROLLING]
        was_rolling = prev is not None and any(d.state is DieState.ROLLING for d in prev.dice)
        new_roll = bool(rolling) and not was_rolling
        if prev is not None and (new_roll or (_on_table(s) and not _on_table(prev))):
            # the table before a throw (dice the camera first sees at rest, their roll unseen, too)
            self._before_throw = prev
        if phase in (Phase.SETUP, Phase.OPENING):
            if self._invalid_opening is not None and prev is not None and self._opening_played(s, prev, new_roll):
                if new_roll:  # the opponent's throw after the turn played on the invalid opening roll
                    self._dice_and_signals(s, prev)
                return
            if self._invalid_opening is None and prev is not None and self._opening_unseen(s, prev, new_roll):
                if new_roll:  # the opponent's throw after the turn played on the unseen opening roll
                    self._dice_and_signals(s, prev)
                return
            self._opening(s, new_roll)
            return
        if phase is Phase.GAME_OVER:
            self._thrown_after_game |= new_roll
            return
        mover = self.turn
        if phase is Phase.CUBE_PENDING:
            doubler = self.match.cube.offered_by
            if new_roll and doubler is not None and not self.match.cube.beavered and self._rolling_elsewhere(rolling, int(doubler)):
                return  # dice moving in the other half: the dice of the last turn, stirred by a hand
            if new_roll and doubler is not None:
                if self.match.cube.beavered:
                    original = 1 - int(doubler)
                    self.match = self.match.take(Player(original))
                    self._emit("TAKE", original, f"{self._name(original)} takes the beaver.", frame=s.frame)
                    self._log(EntryKind.TAKE, original)
                    self.phase = Phase.PRE_ROLL
                    phase = Phase.PRE_ROLL
                else:
                    self._emit("ROLL_WHILE_CUBE_DECISION_PENDING", int(doubler),
                               f"{self._name(int(doubler))} rolled before the double was answered. Treat it as a premature roll.",
                               frame=s.frame)
                    return
            else:
                return
        tapped = self._tap_held_back(s, prev, mover) if phase is Phase.MOVING else None
        if tapped is not None:
            self._judge_turn(tapped)
            phase, mover = self.phase, self.turn
        if phase is Phase.MOVING:
            # the opponent's dice rolling in his right half where none rolled before: his throw, even if
            # one of the mover's dice flickered to rolling a moment ago (vision)
            other_right = self._right_half(1 - mover)
            thrown = prev is not None and any(d.half is other_right for _, d in rolling) and not any(
                d.state is DieState.ROLLING and d.half is other_right for d in prev.dice)
            # or first seen at rest there (both lost in flight)
            thrown = thrown or _appeared_at_rest_in(s, prev, other_right) or _jumped_to_rest_in(s, prev, other_right)
            # one die of the mover's roll stirring under his own hand is no throw of the opponent's
            # (session 34, seed 358: light bearing off by his dice, one of them reported rolling with
            # only his hand in view, was taken for dark's premature roll and light's play judged then)
            stirred = new_roll and not thrown and self._stirred(s, prev, 1 - mover)
            if self._fast_actions(s, prev, (new_roll and not stirred) or thrown, rolling):
                return
            if new_roll and prev is not None and self._lifted(prev) >= 2 and {d.half for _, d in rolling} == {self._right_half(mover)}:
                self._taken_up = True  # both dice taken up and thrown in his half: judged once they rest
            if self._taken_up and self._thrown_again(s, prev, mover):
                return
            if self._end_signalled(s, prev, mover):
                self._judge_turn(s)
            return
        if phase is Phase.PRE_ROLL:
            # dice first seen at rest in the mover's right half: his throw, its rolling unseen (both
            # dice lost in flight, or one seen taken and the other only where it landed); judged like
            # any throw once at rest
            right = self._right_half(mover)
            if new_roll and self._stirred(s, prev, mover):
                return
            if new_roll or _appeared_at_rest_in(s, prev, right) or _moved_to_rest_in(s, prev, right) \
                    or _jumped_to_rest_in(s, prev, right):
                roller = self._roller(rolling, mover)
                if roller != mover:
                    return
                self._bare_tap = None
                self._attempt_begins(s)
                self._emit("ROLL_ATTEMPT_STARTED", mover, f"{self._name(mover)} rolls.", frame=s.frame)
                if self.pending is not None and self.profile.illegal_move_deadline is Deadline.OPPONENT_ROLL_OR_CUBE and self.pending.offender != mover:
                    self._illegal_stands(s.frame, "condoned by rolling")
                if self.bound_double:
                    self.bound_double = False
                return
            if self._end_signalled(s, prev, mover):
                if self.end_signal is EndSignal.BAR_TAP and not s.settled:
                    # checkers in a hand: a play going on (a roll the camera missed), the hand carrying a
                    # checker over the bar, not a tap on a turn without a roll (session 35, seed 360:
                    # light's unseen 6-1, two of dark's checkers he hit carried to the bar, was
                    # "ended his turn without rolling" 1.6 s before his tap)
                    return
                if self._unseen_roll(s, []):
                    return  # he had played: his roll was missed
                if self.pending is not None and self.pending.offender != mover:
                    return  # the clock handed back to the offender: notice of his illegal move (RG19 4.2.3.1(a))
                if self._reaching_for_the_cube(s, mover):
                    return
                if self.end_signal is EndSignal.BAR_TAP:
                    self._bare_tap = (s.frame, s.t)  # a hand going for the cube looks the same at first
                    return
                self._pass_without_roll(s)
                return
            tap = self._bare_tap
            if tap is not None and not self._hand(s, self._seat(mover), HandOver.BAR) and s.t - tap[1] >= BARE_TAP_WAIT_S:
                self._bare_tap = None
                self._pass_without_roll(s, tap[0])
            return
        if phase is Phase.ROLLING:
            if not new_roll and self._end_signalled(s, prev, mover) and (
                    self._unseen_roll(s, self._roll_dice(s, mover)) or self._unseen_dance(s, self._roll_dice(s, mover))):
                return
            # after an invalid roll, dice first seen at rest again in his right half are the new throw
            rethrown = self._judged_roll and (_appeared_at_rest_in(s, prev, self._right_half(mover))
                                              or _rested_anew_in(s, prev, self._right_half(mover)))
            self._settling(s, prev, mover, new_roll or rethrown)

    def _take_back_roll(self) -> None:
        """The roll taken as valid is not the turn's roll after all: back to the position after the
        previous turn, the mover to roll again (the monitor's "reroll"; a throw again, :meth:`_thrown_again`)."""
        self.position = self.roll_pos or self.position
        self.phase = Phase.ROLLING
        self.dice = None
        self.roll_p = {}
        self.valid_rolls -= 1
        self._taken_up = False

    def _thrown_again(self, s: TableState, prev: TableState | None, mover: int) -> bool:
        """The mover took both dice up and threw them again in his right half after a roll judged
        valid, before moving a checker, and they rest showing another roll: players throw again when
        they see a roll invalid (most often a die cocked) that the camera judged flat (seed 320: the
        injected cocked die read valid at 0.042, the 1-1 it showed kept, the 4-1 thrown again never
        followed, and the play on it called illegal). The new roll is taken as the turn's, and
        ROLL_VALUE_UNREADABLE asks the monitor: if the first roll was valid it stands (RG19 4.1.2,
        DIGEST A1.15) and the monitor sets it back. Judged when both dice have rested
        ``profile.settle_s``: a hand moving checkers by the dice hides them (reported lifted) and
        shows them again (reported rolling) where they lay, showing the same roll (seed 322). Not when
        a checker has moved (the table shows a legal play of the roll better than the position after
        it), nor while an illegal move waits for its correction, nor on a die read unsurely."""
        dice = self._roll_dice(s, mover)
        if self.dice is None or self.roll_pos is None or self.pending is not None:
            self._taken_up = False
            return False
        if len(dice) != 2 or any(d.state is not DieState.AT_REST or d.value is None for _, d in dice):
            return False
        if min(self._rest_time(s, i, d) for i, d in dice) < self.profile.settle_s or s.hands:
            return False
        self._taken_up = False
        if sorted(d.value or 0 for _, d in dice) == sorted(self.dice) or min(max(_face_p(d)) for _, d in dice) < SURE_FACE_P:
            return False
        if self._best_result_ll(s, self.roll_pos, self.dice) > self.map.to_physical(self.roll_pos).log_likelihood(s):
            return False
        first = self.dice
        self._take_back_roll()
        self._attempt_begins(s)
        self._emit("ROLL_VALUE_UNREADABLE", mover,
                   f"{self._name(mover)} threw the dice again before moving, after {first[0]}-{first[1]} was judged a valid roll: "
                   f"the new throw is taken as his roll, as if a die of the first was invalid (cocked?). "
                   f"If {first[0]}-{first[1]} was valid, it stands. Please confirm.",
                   frame=s.frame, details={"thrown_again": True, "dice": list(first)})
        self._settling(s, prev, mover, True)
        return True

    def _reaching_for_the_cube(self, s: TableState, mover: int) -> bool:
        """A hand at the bar before the roll is taking the cube, not tapping, when the cube is centred
        on the bar and the mover may double, or when a void cube action is being put right (the demo:
        every double, and the Crawford-game double taken back, began as "ended his turn without
        rolling"); with the clock as the end signal, or no cube in play, it is what it seems."""
        if self.end_signal is not EndSignal.BAR_TAP:
            return False
        if self.cube_void:
            return True
        cube = s.cube or self._cube_before
        return cube is not None and cube.zone is CubeZone.CENTRE and self.match.may_double(Player(mover))

    def _rolling_elsewhere(self, rolling: list[tuple[int, Die]], player: int) -> bool:
        """Dice rolling in a known half, none in ``player``'s right half (where he must throw, RG19
        4.1.2): not his throw, unless the rules let him use either half."""
        halves = {d.half for _, d in rolling if d.half is not None}
        return bool(halves) and self._right_half(player) not in halves and not self.profile.left_side_permission

    def _stirred(self, s: TableState, prev: TableState | None, mover: int) -> bool:
        """One die of the last roll reported rolling while the other lies at rest as before, neither
        lifted, and no hand of ``mover``'s (the player who would be throwing) in view: the die stirred
        (a hand next to it, a box that shifted), not his throw; both dice are thrown together. Before
        the mover's roll (session 12, seed 322: dark's hand tapping by the dice made one of them
        flicker to rolling, light's roll attempt started then, and his grab of the dice a moment
        later was called a lift before rest), and during the mover's play for the opponent's throw
        (session 34, seed 358)."""
        if prev is None or self.setup.dice_mode is not DiceMode.TWO or len(s.dice) != 2 or len(prev.dice) != 2:
            return False
        if any(h.side is self._seat(mover) for h in (*s.hands, *prev.hands)):
            return False
        if not all(d.state is DieState.AT_REST for d in prev.dice):
            return False
        return {d.state for d in s.dice} == {DieState.AT_REST, DieState.ROLLING}

    def _roller(self, rolling: list[tuple[int, Die]], default: int) -> int:
        for _, d in rolling:
            if self.setup.dice_mode is DiceMode.FOUR and d.owner is not None:
                return self.setup.player_of(d.owner)
        return default

    def _end_signalled(self, s: TableState, prev: TableState | None, mover: int) -> bool:
        if prev is None:
            return False
        seat = self._seat(mover)
        clock_before = self._clock_before
        if s.clock is not None and clock_before is not None:
            if clock_before.running is seat and s.clock.running is seat.other:
                return True
        if self.end_signal is EndSignal.BAR_TAP:
            return (self._hand(s, seat, HandOver.BAR) and not self._hand(prev, seat, HandOver.BAR)
                    and self._tap_hold(s, prev, mover) is None)
        if self.end_signal is EndSignal.LIFT_DICE and self.phase is Phase.MOVING:
            before = self._roll_dice(prev, mover)
            if before and self._lifted(s) > self._lifted(prev) and not self._hand(s, seat.other, HandOver.DICE):
                return True
        return False

    def _tap_held_back(self, s: TableState, prev: TableState | None, mover: int) -> TableState | None:
        """A hand of the mover's that came to the bar while he may still have been entering (so no
        tap then, :meth:`_entering`) and left from there, over nothing else, was the end-of-turn tap
        when the table it leaves shows no more on his bar than the roll must leave (the reading under
        the hand is a guess; the entry and the last checker's move came before the hand reached the
        bar, and the opponent's grab after it is no premature action). A hand that goes on from the
        bar to the board was taking a checker there. A hand that came to the bar with a checker it hit
        (:meth:`_carrying_hit`) was putting it there unless the bar then shows no more of the
        opponent's checkers than before it came; a tap then is judged on the table as the hand
        reached the bar (the bar is read under the hand as unknown; when it has left, a checker put
        behind the cube is not seen and the 15-checker check puts it elsewhere). The state to judge
        the turn on when the tap is confirmed, else None."""
        if self.end_signal is not EndSignal.BAR_TAP or prev is None:
            return None
        seat = self._seat(mover)
        mine = [h for h in s.hands if h.side is seat]
        if self._held_tap is None:
            if self._hand(s, seat, HandOver.BAR) and not self._hand(prev, seat, HandOver.BAR):
                hold = self._tap_hold(s, prev, mover)
                if hold is not None:
                    self._held_tap = s.frame
                if hold == "hit":
                    # what the bar held before the hand came: as read as it reached the bar when a
                    # checker was put there since; else as read just then, or as clearly read since
                    # the roll (seed 313: the hit checker on the bar, read clearly, then as the other
                    # colour's with the arm coming to tap; the tap was taken for putting it there)
                    oc = 1 - self._colour_index(mover)
                    dwell = self._placed_in_dwell(s, prev, mover)
                    clear = self._bar_clear[1][oc] if self._bar_clear[0] == self.roll_frame else []
                    self._held_hit = (dwell if dwell is not None else max([prev.bar[oc], *clear]), s)
                elif hold == "mid":
                    self._held_mid = s.frame
                elif hold == "own":
                    self._held_own = s
            return None
        if any(h.over is not HandOver.BAR for h in mine):
            self._held_tap = self._held_hit = None
            return None
        if mine:
            return None
        if self._held_hit is not None:
            # the hand has left the bar: a tap unless it put the hit checker there
            bar_before, arrival = self._held_hit
            placed = s.bar_at_most_probability(1 - self._colour_index(mover), bar_before) < 0.5
            self._held_tap = self._held_hit = None
            return arrival if not placed and not self._entering(s, mover) else None
        if self._held_own is not None and self._held_own.frame == self._held_tap:
            # gone from the bar, not on to the board: the tap, judged on the table as the hand came (as
            # before such taps were held; the doubt it leaves is settled at the opponent's roll)
            arrival, self._held_own = self._held_own, None
            self._held_tap = self._held_hit = None
            if not arrival.settled and s.settled and not s.hands:
                return s
            return arrival
        if self._held_mid == self._held_tap or not self._entering(s, mover, by_play=True):
            # the hand has left the bar and gone: a tap (on a play unfinished, with all entered, or
            # with nothing the roll the table shows lets him enter)
            self._held_tap = self._held_hit = None
            return s
        if s.is_plain:
            self._held_tap = None  # a checker still on his bar: no tap after all (or an incomplete play)
        return None

    def _tap_hold(self, s: TableState, prev: TableState, mover: int) -> Literal["hit", "entering", "mid", "own"] | None:
        """Why the mover's hand arriving at the bar may be no end-of-turn tap: carrying a checker he hit
        (:meth:`_carrying_hit`), entering from the bar (:meth:`_entering`), taking a checker over it
        mid-play (:meth:`_mid_play`) or holding one of his own (:meth:`_holding_own`); None when it is the tap (:meth:`_end_signalled`; a held tap is
        judged when the hand leaves, :meth:`_tap_held_back`)."""
        if self._carrying_hit(s, prev, mover):
            return "hit"
        if self._entering(s, mover, prev):
            return "entering"
        if self._mid_play(s, prev, mover) or self._hidden_play(s, mover) or self._unplayed(s, mover):
            return "mid"
        if self._holding_own(s, prev, mover):
            return "own"
        return None

    def _unplayed(self, s: TableState, mover: int) -> bool:
        """The mover's hand comes to the bar while the board as it comes (points it hides at their
        settled counts) still shows the position of the roll, and the roll has a legal play: the hand
        is on its way to the checkers by the bar, not tapping (decision 0726: a hand that comes in straight onto the bar is
        reported there after 0.2 s; seeds 322 and 350, the far hand came in over the bar's end to play
        on the points beside it). The tap is held until the hand has left the bar and gone, and judged
        then (a roll left unplayed is alerted that much later); a hand that goes on to the board was
        playing."""
        if self.phase is not Phase.MOVING or self.dice is None or self.profile.legal_results is not None:
            return False
        before = self.roll_pos or self.position
        unmoved = before.with_turn(Player(1 - mover))
        _, complete = self._partial_results(before, self.dice)
        if unmoved in complete:
            return False  # no legal play: the tap is the turn's end
        return self._shown(s, mover, before) == unmoved

    def _shown(self, s: TableState, mover: int, before: Position) -> Position | None:
        """The position the table shows once ``mover`` has played from ``before`` (the opponent on roll),
        or None when the board as read is no position (too many checkers, both colours on a point)."""
        try:
            return self.map.to_position(PhysicalBoard.from_state(s), 1 - mover, before.out_of_play)
        except ValueError:
            return None

    def _hidden_play(self, s: TableState, mover: int) -> bool:
        """The mover's hand comes to the bar while his arm hides points (read as unknown: no count at
        least :data:`HIDDEN_P` likely), the board as read is no legal result of the roll, and the points
        in view are those of a legal play not yet finished (none of its steps taken, or some): the hand
        may be working on a point by the bar (the arm over the bar), so the tap is held until the hand
        has left the bar and gone, and judged then, like :meth:`_mid_play` (seed 321: light's 21/19*
        21/17*, the hand over the 19 and 21 points by the bar, the arm over the bar; taken for a tap on
        an unplayed roll, an illegal move was called and at once corrected). A board in view that no
        legal play passes through is judged at the tap."""
        if self.phase is not Phase.MOVING or self.dice is None or self.profile.legal_results is not None or s.is_plain:
            return False
        hidden = {i for i, p in enumerate(s.points) if any(d is not None and max(d) < HIDDEN_P for d in (p.light_p, p.dark_p))}
        if not hidden:
            return False
        before = self.roll_pos or self.position
        _, complete = self._partial_results(before, self.dice)
        if self._shown(s, mover, before) in complete:
            return False
        in_view = [i for i in range(len(s.points)) if i not in hidden]
        seen = tuple((s.points[i].light, s.points[i].dark) for i in in_view)
        for pos in self._unfinished(before, self.dice):
            phys = self.map.to_physical(pos)
            if tuple((phys.light[i], phys.dark[i]) for i in in_view) == seen:
                return True
        return False

    def _unfinished(self, before: Position, dice: tuple[int, int]) -> set[Position]:
        """Every position on the way through a legal play of ``dice`` from ``before``, its steps in any
        order the board allows, from none taken to all but the last (cached for the turn)."""
        return self._walk_plays(before, dice)[3]

    def _holding_own(self, s: TableState, prev: TableState, mover: int) -> bool:
        """The mover has a checker of his own in his hand (as the hand comes to the bar, or just
        before): his play is not finished, and a hand at the bar is taking it across or putting down
        what he hit, not tapping (session 12, seed 314: light's 9/6* 5/1, the checker put on the 6-point
        read as the dark blot still there, the mover's checker as still in his hand and the hit one as
        nowhere; the hand putting the hit checker on the bar was taken for the tap, and the turn was
        judged before 5/1). Held: a hand going on to the board was no tap; one that leaves the bar and
        is gone was, and the turn is judged on the table as it came (:meth:`_tap_held_back`)."""
        if self.phase is not Phase.MOVING:
            return False
        mc = self._colour_index(mover)
        return s.in_hand[mc] > 0 or prev.in_hand[mc] > 0

    def _mid_play(self, s: TableState, prev: TableState, mover: int) -> bool:
        """The mover's hand comes to the bar while the board (as the hand comes, or under it) shows a
        play begun and not finished, its next step over the bar: part of a legal play of the roll and
        no legal result. The hand may be taking a checker across the bar (RG19 4.1.7.2's tap is
        another gesture): the tap is held until the hand has left the bar and gone, and judged then
        (:meth:`_tap_held_back`; an unfinished play so ended is alerted that much later); a hand that
        goes on to the board was moving a checker (session 11, seed 320: light's 6-5, 19/13 carried over the bar after the
        5 was played, was taken for a tap on an unfinished play, an illegal move, and the next turn
        for one that moved the opponent's checkers)."""
        if self.phase is not Phase.MOVING or self.dice is None or self.profile.legal_results is not None:
            return False
        before = self.roll_pos or self.position
        partial, complete = self._partial_results(before, self.dice)
        if not partial:
            return False
        shown = [p for p in (self._shown(state, mover, before) for state in (prev, s)) if p is not None]
        return any(p in partial for p in shown) and not any(p in complete for p in shown)

    def _partial_results(self, before: Position, dice: tuple[int, int]) -> tuple[set[Position], set[Position]]:
        """The positions part of the way through a legal play of ``dice`` from ``before`` whose next step
        takes a checker over the bar (and that are no legal result), and the legal results, the
        opponent on roll in both (cached for the turn)."""
        _, partial, complete, _ = self._walk_plays(before, dice)
        return partial, complete

    def _walk_plays(self, before: Position, dice: tuple[int, int]) -> tuple[
            tuple[Position, tuple[int, int]], set[Position], set[Position], set[Position]]:
        """One walk through the legal plays of ``dice`` from ``before`` (cached for the turn): the
        positions of :meth:`_partial_results` and of :meth:`_unfinished`."""
        key = (before, dice)
        if self._partials is not None and self._partials[0] == key:
            return self._partials
        mover = int(before.turn)
        plays = LegalPlays(before, dice)
        complete = {p.with_turn(Player(1 - mover)) for p in plays.positions()}
        partial: set[Position] = set()
        unfinished: set[Position] = {before}
        for boards, nxt in _steps_on_the_way(before, plays):
            unfinished.add(Position.from_boards(boards, before.turn, before.out_of_play))
            if _crosses_bar(*nxt):  # what is left to play takes a checker over the bar
                partial.add(Position.from_boards(boards, Player(1 - mover), before.out_of_play))
        partial -= complete
        self._partials = (key, partial, complete, unfinished)
        return self._partials

    def _possible_off(self, colour_index: int) -> int:
        """Checkers of a colour (0 light, 1 dark) that can be in its tray now: the referee's position's, or
        more while a roll that bears off is being played."""
        off = self.map.to_physical(self.position).off[colour_index]
        if self.phase is Phase.MOVING and self.dice is not None:
            results = self._legal_results(self.roll_pos or self.position, self.dice)
            off = max([off, *(self.map.to_physical(p).off[colour_index] for p in results)])
        return off

    def _colour_index(self, player: int) -> int:
        return 0 if self.setup.colour_of(player) is Colour.LIGHT else 1

    def _note_bar(self, s: TableState) -> None:
        """Keep, for the roll being played, each clear reading of the bar (no hand over it, the count
        at least :data:`BAR_CLEAR` sure) for :meth:`_carrying_hit`."""
        if self.phase is not Phase.MOVING or self.roll_frame is None:
            return
        if self._bar_clear[0] != self.roll_frame:
            self._bar_clear = (self.roll_frame, ([], []))
        if any(h.over is HandOver.BAR for h in s.hands):
            return
        for ci in (0, 1):
            n = s.bar[ci]
            if n > 0 and 1.0 - s.bar_at_most_probability(ci, n - 1) >= BAR_CLEAR:
                self._bar_clear[1][ci].append(n)

    def _carrying_hit(self, s: TableState, prev: TableState, mover: int) -> bool:
        """The mover's hand comes to the bar with a checker he has hit: putting it there (RG19 4.1.7.2's
        tap is another gesture). Seen as a checker of the opponent's in a hand, or as fewer of them on
        the points than at the roll without as many more on the bar, just before the hand came (the
        bar is read under the hand that is over it). Not when every checker hit has already been
        seen on the bar, clearly and twice since the roll (session 11, the demo: light's 11/10*/7, the
        hit checker on the bar in four states, then read gone under the hand coming to tap and counted
        in a hand: the tap was taken for the hit being put down, and dark's roll after it for a roll
        before the turn had ended). A tap that this delays is found at the opponent's throw."""
        if self.phase is not Phase.MOVING or self.dice is None or not self._hit_possible(mover):
            return False
        if self._placed_in_dwell(s, prev, mover) is not None:
            return True
        oc = 1 - self._colour_index(mover)
        before = self.map.to_physical(self.roll_pos or self.position)
        on_points_before = sum((before.light, before.dark)[oc])
        on_points_now = sum(prev.counts(self.setup.colour_of(1 - mover)))
        in_hand = s.in_hand[oc] > 0 or prev.in_hand[oc] > 0
        if self._bar_clear[0] == self.roll_frame:
            readings = sorted(self._bar_clear[1][oc], reverse=True)
            seen = (readings[1] if len(readings) > 1 else 0) - before.bar[oc]
            if seen >= max(on_points_before - on_points_now, 1):
                return False
        return in_hand or on_points_before - on_points_now > prev.bar[oc] - before.bar[oc]

    def _hit_possible(self, mover: int) -> bool:
        """Whether some legal play of the roll being played hits: of the roll read or of any other the
        die reader gave weight to (:data:`_ROLL_FLOOR`). A hand cannot come to the bar with a checker
        hit in a turn none of whose plays hits anything (seed 352: light's 4-1 from the bar, 25/24
        with the 4 blocked; dark's lone checker by the near rail read gone from its point and, by the
        15-checker count, on his bar: light's hand at the bar was taken for putting it there, and the
        tap that ended the turn was lost). A hit made by an illegal play is then judged at the tap, an
        illegal move either way."""
        assert self.dice is not None
        before = self.roll_pos or self.position
        rolls = frozenset({(max(self.dice), min(self.dice)), *_weighed(self.roll_p)})
        if self._hits is not None and self._hits[0] == (before, rolls):
            return self._hits[1]
        oc = 1 - self._colour_index(mover)
        was = self.map.to_physical(before).bar[oc]
        hits = any(self.map.to_physical(p).bar[oc] > was for r in rolls for p in self._legal_results(before, r))
        self._hits = ((before, rolls), hits)
        return hits

    def _placed_in_dwell(self, s: TableState, prev: TableState, mover: int) -> int | None:
        """The opponent's bar count as the mover's hand reached the bar (:data:`TAP_DWELL_S` before it
        is reported there) when more of his checkers lie there just before the report, the mover's hand
        over the table all the while: the hand put a checker it hit on the bar and stays there (seed 314:
        dark's 6/3*, the hit checker seen on the bar 0.2 s before the hand, still at it, was reported at
        the bar; every hit was then on the bar, the hand's stay was taken for the tap and the play, one 3
        short, for an illegal move). None otherwise (a hand that put a checker on the bar and left, and
        comes to it again, is tapping)."""
        if self.end_signal is not EndSignal.BAR_TAP:
            return None
        oc = 1 - self._colour_index(mover)
        seat = self._seat(mover)
        back = [k for k, (t, _, _) in enumerate(self._bar_seen) if t <= s.t - TAP_DWELL_S]
        if not back:
            return None
        reached = self._bar_seen[back[-1]][1][oc]
        since = list(self._bar_seen)[back[-1] + 1:]
        if prev.bar[oc] <= reached or not since or any(seat not in seats for _, _, seats in since):
            return None
        return reached

    def _entering(self, s: TableState, mover: int, prev: TableState | None = None, by_play: bool = False) -> bool:
        """A hand at the bar while the mover may still have a checker there that the roll lets him enter
        is taking that checker, not the end-of-turn tap on the bar (RG19 4.1.7.2). From vision the bar
        is read under the hand that reaches for it, so a mover who started the turn on the bar is taken
        to be entering unless the reading, under the hand or just before it came (``prev``), is clear
        (at least :data:`ENTERED_SURE`) that no more checkers than the roll must leave there are left,
        or a legal result of the roll explains the table about as well as the reading itself (the play
        is complete). A real tap that this delays is found at the opponent's throw. ``by_play``: the
        hand has left the bar, and the rolls the table then leaves likely (:meth:`_rolls_the_table_shows`)
        stand for a doubtful reading (before, an entering hand and a tap look alike on the board)."""
        if self.phase is not Phase.MOVING or self.dice is None:
            return False
        ci = self._colour_index(mover)
        before = self.roll_pos or self.position
        start = self.map.to_physical(before).bar[ci]
        if start == 0 and s.bar[ci] == 0:
            return False
        results = [p for r in (self._rolls_the_table_shows(s, before, mover) if by_play else [self.dice]) for p in self._legal_results(before, r)]
        least = min((self.map.to_physical(p).bar[ci] for p in results), default=start)
        if start <= least and s.bar[ci] <= least:
            return False  # nothing to enter (every entry point closed)
        done = max(s.bar_at_most_probability(ci, least), prev.bar_at_most_probability(ci, least) if prev is not None else 0.0)
        if done >= ENTERED_SURE:
            return False
        if s.is_plain:
            return True
        ll_seen = PhysicalBoard.from_state(s).log_likelihood(s)
        top = max((self.map.to_physical(p).log_likelihood(s) for p in results), default=-math.inf)
        return top < ll_seen - math.log(2.0)

    def _rolls_the_table_shows(self, s: TableState, before: Position, mover: int) -> list[tuple[int, int]]:
        """The roll read, or, when the reader was unsure of it, the rolls the table leaves likely (each at
        least ``1 - confidence`` by :meth:`_roll_from_play`, the rules filter the judgement uses, and
        together at least ``confidence``). Seed 314: a mover on the bar facing a closed 6 rolled 6-6,
        read 6-5 52% and 6-6 44%; he tapped the bar with the board unchanged, and the tap was taken
        for his hand entering with the 5 (the opponent's throw was then called premature). Only once
        the hand has left the bar: as it comes, the board of a mover about to enter is that of one who
        cannot (seed 314's 6-5 bar/20 was taken for 6-6)."""
        assert self.dice is not None
        key = (max(self.dice), min(self.dice))
        if not self.roll_p or self.roll_p.get(key, 0.0) >= self.profile.confidence:
            return [self.dice]
        _, _, _, post = self._roll_from_play(s, before, self._counted_board(s, before, mover))
        likely = [r for r, p in post.items() if p >= 1.0 - self.profile.confidence]
        return likely if sum(post[r] for r in likely) >= self.profile.confidence else [self.dice]

    def _fast_actions(self, s: TableState, prev: TableState | None, new_roll: bool, rolling: list[tuple[int, Die]]) -> bool:
        """Premature grab and premature roll by the player not on turn (A4.1, A4.2). True if handled."""
        if prev is None:
            return False
        mover = self.turn
        other = 1 - mover
        oseat = self._seat(other)
        grabbed = False
        if self.setup.dice_mode is DiceMode.TWO and self.end_signal is not EndSignal.LIFT_DICE:
            grabbed = self._hand(s, oseat, HandOver.DICE) and not self._hand(prev, oseat, HandOver.DICE)
        elif self.setup.dice_mode is DiceMode.TWO:
            grabbed = self._hand(s, oseat, HandOver.DICE) and not self._hand(prev, oseat, HandOver.DICE)
        if grabbed and f"grab-{other}" not in self._touched_turn:
            self._touched_turn.add(f"grab-{other}")
            if self.profile.fast_grab_rule:
                count = self._grab(other)
                if self.profile.family == "RG19":
                    penalty = ("point it out; a repeat calls for the TD's warning" if count == 1 else
                               "call the TD for a warning" if count == 2 else
                               "30 s of reserve (down to 1 s if less is left) with a timed clock; "
                               "the offender may instead roll early and take the fast-roll consequences")
                else:
                    penalty = "with a clock the offender loses his delay on his next turn (WB23 4.1(v)(b))"
                self._emit("FAST_GRAB", other,
                           f"{self._name(other)} picked up the dice before {self._name(mover)} ended his turn.",
                           frame=s.frame, details={"count": count, "penalty": penalty})
            elif self.profile.off_turn_die_touch:
                self._emit("OFF_TURN_DIE_TOUCH", other, f"{self._name(other)} touched the live dice during the opponent's turn.",
                           frame=s.frame)
        if new_roll:
            # a roll while the mover has not signalled the end of his turn: premature roll (A4.1)
            if self.setup.dice_mode is DiceMode.FOUR:
                roller = self._roller(rolling, other)
                if roller == mover:
                    return False
            if self._rolling_elsewhere(rolling, other):
                return False  # dice moving on the mover's side: he is sliding his own live dice (RG19 4.1.2)
            self.fast_rolls[other] += 1
            options: list[str]
            if self.profile.fast_roll is FastRoll.VOID:
                forced = len(LegalPlays(self.roll_pos or self.position, self.dice or (1, 2))) <= 1
                waived = forced or not self.position.is_contact()
                options = ["waive (forced play or no contact)"] if waived else ["void: reroll after the turn ends"]
            else:
                options = ["let stand (the player on turn may revise his move knowing the roll)", "reroll after the turn has ended"]
            self._emit("FAST_ROLL", other, f"{self._name(other)} rolled before {self._name(mover)} ended his turn. "
                       f"{self._name(mover)} chooses: {' or '.join(options)}.", frame=s.frame,
                       details={"options": options, "count": self.fast_rolls[other]})
            # the premature roll implies the mover's turn is over: judge what is on the board now
            self._judge_turn(s, implied=True)
            if self.phase is Phase.PRE_ROLL and self.turn == other:
                self._attempt_begins(s)
            return True
        return False

    def _attempt_begins(self, s: TableState) -> None:
        """The player on roll has begun a roll attempt (his dice rolling, or first seen at rest)."""
        self.attempted = True
        self.phase = Phase.ROLLING
        self._judged_roll = False
        self._thrown_ids = _rolling_ids(s)
        self._attempt_t = s.t

    def _grab(self, player: int) -> int:
        self.fast_grabs[player] += 1
        return self.fast_grabs[player]

    def _settling(self, s: TableState, prev: TableState | None, mover: int, new_roll: bool) -> None:
        dice = self._roll_dice(s, mover)
        if new_roll:
            self._judged_roll = False
            self._attempt_t = s.t
        self._thrown_ids = (set() if new_roll else self._thrown_ids) | _rolling_ids(s)
        if self._judged_roll:
            return
        # lifted before rest (RG19 4.1.8.4)
        if prev is not None and self.profile.lift_before_rest_rule:
            before = [d for _, d in self._roll_dice(prev, mover)]
            # from vision (count distributions), a die reported lifted with no hand at the dice since
            # the throw began is a die the camera lost while it rolled: no lift to judge (the demo:
            # the thrower's hand at the dice as he gathered them, 0.2 s before the throw, and a die
            # lost in flight 0.6 s after it, was called a lift before rest)
            seen_taken = s.is_plain or (s.t - self._dice_hand_t <= 1.0 and self._dice_hand_t > self._attempt_t)
            # only a die of this throw: one followed lying where it lay since the last roll, never seen
            # rolling in this attempt, is being gathered to be thrown (seed 322: dark threw one die and
            # the camera saw him take the other a frame later)
            taken = {d.id for d in s.dice if d.state in _OFF_TABLE} - {d.id for d in prev.dice if d.state in _OFF_TABLE}
            of_throw = None in taken or not taken or bool(taken & self._thrown_ids)
            if any(d.state is DieState.ROLLING for d in before) and self._lifted(s) > self._lifted(prev) and seen_taken \
                    and of_throw:
                self.lift_warnings[mover] += 1
                sev = Severity.WARN if self.lift_warnings[mover] == 1 else Severity.IRREG
                self._emit("DIE_LIFTED_BEFORE_REST", mover,
                           "A die was lifted before both dice were at rest. "
                           + ("This is a warning." if sev is Severity.WARN else "The opponent decides whether a die already at rest stands."),
                           frame=s.frame, severity=sev)
                return
        if len(dice) != 2 or any(d.state is not DieState.AT_REST for _, d in dice):
            return
        if min(self._rest_time(s, i, d) for i, d in dice) < self.profile.settle_s:
            return
        self._judged_roll = True
        reasons = self._invalid_reasons(dice, mover)
        if reasons and self._thrown_by_the_opponent(dice, mover):
            mover = self.turn  # the mover's turn was missed and judged: this is the opponent's roll
            reasons = self._invalid_reasons(dice, mover)
        if reasons:
            self._roll_invalid(s, mover, reasons)
            return
        values = (dice[0][1].value or 1, dice[1][1].value or 1)
        self._roll_valid(s, mover, values, dice)

    def _invalid_reasons(self, dice: list[tuple[int, Die]], roller: int) -> list[tuple[int, DieReason]]:
        out = []
        right = self._right_half(roller)
        for i, d in dice:
            reason = d.reason
            if reason is None and d.valid is False:
                reason = DieReason.COCKED
            if reason is not None and not self.profile.die_reason_valid(reason.value):
                out.append((i, reason))
            elif d.half is not None and d.half is not right and not self.profile.left_side_permission:
                out.append((i, DieReason.WRONG_SIDE))
        return out

    def _roll_invalid(self, s: TableState, roller: int, reasons: list[tuple[int, DieReason]]) -> None:
        for i, reason in reasons:
            self._emit(_INVALID_CODE[reason], roller,
                       f"Invalid roll by {self._name(roller)}: die {i + 1} is {reason.value.replace('_', ' ')}. Both dice are rolled again.",
                       frame=s.frame, details={"die": i, "reason": reason.value})
        self._emit("REROLL_REQUIRED", roller, "Both dice must be rolled again.", frame=s.frame)

    def _roll_valid(self, s: TableState, mover: int, values: tuple[int, int], dice: list[tuple[int, Die]],
                    opening: bool = False) -> None:
        # an unclear die is not reported here: the play usually shows the roll (_roll_from_play), and
        # ROLL_VALUE_UNREADABLE comes with the end of the turn only when it does not
        if self._doubt is not None and self._doubt.mover != mover:
            self._revisit(s if s.settled and not s.hands else (self._doubt.quiet or s))
        self._flush_doubt()
        self.roll_p = _roll_distribution([d for _, d in dice], opening)
        self.dice = values
        self.valid_rolls += 1
        self.roll_pos = self.position
        self.roll_frame = s.frame
        self.phase = Phase.MOVING
        self._touched_turn.clear()
        self._taken_up = False
        self._emit("ROLL_VALID", mover, f"{self._name(mover)} rolled {values[0]}-{values[1]}.", frame=s.frame,
                   details={"dice": list(values), "valid_rolls": self.valid_rolls})
        if self.pending is not None and self.pending.deadline is not Deadline.OPPONENT_ROLL_OR_CUBE:
            self._roll_resolves_pending(mover, frame=s.frame)
        self._check_setup_window(s.frame)

    # ================================================================== opening roll
    def _opening(self, s: TableState, new_roll: bool) -> None:
        if new_roll:
            if self.phase is Phase.SETUP:
                self._setup_checks(s)
            self.phase = Phase.OPENING
            self._judged_roll = False
            self._invalid_opening = None
            return
        if self.phase is not Phase.OPENING or self._judged_roll:
            return
        dice = self._roll_dice(s, None)
        if len(dice) != 2 or any(d.state is not DieState.AT_REST for _, d in dice):
            return
        if min(self._rest_time(s, i, d) for i, d in dice) < self.profile.settle_s:
            return
        self._judged_roll = True
        if self._start_cube_unchecked:
            self._start_cube_checks(s)
        owners: list[int] = []
        for _, d in dice:
            o = self._dice_owner(d)
            owners.append(o if o is not None else len(owners))
        if owners[0] == owners[1]:
            owners[1] = 1 - owners[0]
        for (i, d), owner in zip(dice, owners, strict=True):
            reasons = self._invalid_reasons([(i, d)], owner)
            if reasons:
                self._roll_invalid(s, owner, reasons)
                v = [d.value for _, d in dice]
                if v[0] is not None and v[1] is not None and v[0] != v[1]:
                    self._invalid_opening = (owners[0] if v[0] > v[1] else owners[1], dice)
                return
        (_, d0), (_, d1) = dice
        v0, v1 = d0.value or 1, d1.value or 1
        if v0 == v1:
            self._emit("OPENING_TIE_REROLL", None, f"Opening roll tied at {v0}: both roll again.", frame=s.frame)
            if self.match.rules.money and self.match.rules.automatic_doubles:
                try:
                    self.match = self.match.automatic_double()
                    self._emit("AUTO_DOUBLE", None, f"Automatic double: the cube is now {self.match.cube.value}.", frame=s.frame)
                except MatchError:
                    pass
            return
        starter = owners[0] if v0 > v1 else owners[1]
        values = (max(v0, v1), min(v0, v1))
        self.starter = starter
        self.turn = starter
        self.position = self.position.with_turn(starter)
        self._emit("OPENING_ROLL", starter, f"{self._name(starter)} starts with {values[0]}-{values[1]}.", frame=s.frame,
                   details={"dice": list(values)})
        self.attempted = True
        self._roll_valid(s, starter, values, dice, opening=True)

    def _opening_played(self, s: TableState, prev: TableState, thrown: bool) -> bool:
        """The opening roll was judged invalid (and a reroll called for) but the starter played it: he
        ends his turn (or the opponent throws, ``thrown``) and the board shows a legal play of that
        roll, explaining it better than the starting position does. The game goes on from the play
        (the monitor has the invalid verdict to act on); otherwise every later throw would be judged
        as an opening rethrow, in one half: "wrong side" for the rest of the game (session 11: the
        demo live, its Crawford game's opening roll called sunk between checkers in error)."""
        assert self._invalid_opening is not None
        starter, dice = self._invalid_opening
        if not thrown and not self._end_signalled(s, prev, starter):
            return False
        if not s.settled or self.setup.dice_mode is not DiceMode.TWO:
            return False
        values = [d.value or 1 for _, d in dice]
        roll = (max(values), min(values))
        before = self.position.with_turn(starter)
        if self._best_result_ll(s, before, roll) <= self.map.to_physical(before).log_likelihood(s):
            return False  # nothing played: a tap or a throw with the starting position unchanged
        self._invalid_opening = None
        self._judged_roll = True
        self.starter = self.turn = starter
        self.position = before
        self._emit("OPENING_ROLL", starter, f"{self._name(starter)} starts with {roll[0]}-{roll[1]}, the roll judged invalid, "
                   "played without a reroll.", frame=s.frame, details={"dice": list(roll), "after_invalid": True})
        self.attempted = True
        self._roll_valid(s, starter, roll, dice, opening=True)
        self._judge_turn(s, implied=thrown)
        return True

    def _opening_unseen(self, s: TableState, prev: TableState, thrown: bool) -> bool:
        """The opening roll was not seen whole (a die never found at rest, or neither) but a player
        played it: he ends his turn (or a new throw begins, ``thrown``) and the board shows a legal play
        of some roll from the starting position, explaining the table better than the starting position
        does. As for a roll missed later in the game (:meth:`_unseen_roll`) the roll is taken from the
        play, weighed by the dice seen at rest (no doubles: a tie is thrown again); the player who
        played starts, and ROLL_VALUE_UNREADABLE asks the monitor to confirm the roll (seed 321: the
        opening 5-4's 4 never found; dark played 24/20 8/3 and tapped, and light's throw was then
        judged an opening throw, one die in the wrong half, and dark's play an impossible move)."""
        if self._judged_roll or self.setup.dice_mode is not DiceMode.TWO or not s.settled:
            return False
        players = [p for p in (0, 1) if thrown or self._end_signalled(s, prev, p)]
        if not players:
            return False
        seen = [(i, d) for i, d in enumerate(s.dice) if d.state is DieState.AT_REST and d.value is not None][:2]
        prior = _roll_prior([d for _, d in seen], doubles=False)
        if not prior:
            return False
        ll_seen = PhysicalBoard.from_state(s).log_likelihood(s)
        ll_still = self.map.to_physical(self.position).log_likelihood(s)  # the starting position, either player on roll
        if ll_still >= ll_seen:
            return False  # the starting position as read: nothing played
        best: tuple[float, int] | None = None
        for p in players:
            before = self.position.with_turn(p)
            top = max(self._best_result_ll(s, before, r) for r in prior)
            if top <= ll_still or top < ll_seen - math.log(2.0):
                continue  # nothing played by him, or nothing a legal opening play explains
            if best is None or top > best[0]:
                best = (top, p)
        if best is None:
            return False
        starter = best[1]
        if self._start_cube_unchecked:
            self._start_cube_checks(s)
        self._judged_roll = True
        self.starter = self.turn = starter
        self.position = self.position.with_turn(starter)
        self.attempted = True
        self.phase = Phase.PRE_ROLL
        return self._unseen_roll(s, seen, passed=thrown, prior=prior, opening=True)  # True: the fit was checked above

    def _setup_checks(self, s: TableState) -> None:
        board = PhysicalBoard.from_state(s)
        if s.settled and board != self._start_board:
            wrong = [i + 1 for i in range(24) if (board.light[i], board.dark[i]) != (self._start_board.light[i], self._start_board.dark[i])]
            deadline = {
                Deadline.FIFTH_VALID_ROLL: "before the fifth valid roll of the game",
                Deadline.FIFTH_ROLL: "before the fifth roll of the game",
                Deadline.STARTER_SECOND_TURN: "before the starter begins his second turn",
            }.get(self.profile.setup_deadline)
            alert = self._emit("SETUP_ERROR", None, f"The starting position is wrong on point(s) {', '.join(map(str, wrong))}. Set up the checkers correctly.",
                               frame=s.frame, deadline=deadline, details={"points": wrong})
            self.setup_error = alert.id if alert else None
            try:
                self.position = self.map.to_position(board, self.turn)
            except ValueError:
                pass
        self._start_cube_unchecked = True

    def _start_cube_checks(self, s: TableState) -> None:
        """The cube where it belongs for the game (RG19 4.4.7: none in the Crawford game), looked at once
        the opening roll has rested, not when it lands: a cube taken away just before the throw can still
        be seen for a moment (session 11: the demo's Crawford game, the cube gone 1.1 s before the dice
        landed, still read at the centre then; removed 0.5 s before the dice were judged)."""
        self._start_cube_unchecked = False
        cube = s.cube
        if self.match.crawford:
            if cube is not None and cube.zone is not CubeZone.ABSENT:
                self._emit("CUBE_PRESENT_IN_CRAWFORD", None, "This is the Crawford game: the cube should be removed from the board.", frame=s.frame)
        elif cube is not None and cube.zone is not CubeZone.CENTRE:
            self._emit("CUBE_NOT_CENTRED_AT_START", None, f"The cube is {cube.zone.value}, not centred, at the start of the game. Centre it at 1.",
                       frame=s.frame, details={"zone": cube.zone.value})

    def _check_setup_window(self, frame: int, double_by: int | None = None) -> None:
        if self.setup_error is None:
            return
        d = self.profile.setup_deadline
        closed = False
        if d in (Deadline.FIFTH_VALID_ROLL, Deadline.FIFTH_ROLL):
            closed = double_by is None and self.valid_rolls >= 5
        elif d is Deadline.STARTER_SECOND_TURN:
            # WB23 4.2(iv): the starter begins his second turn by a valid roll or a valid double
            if double_by is not None:
                closed = double_by == self.starter
            else:
                closed = self.turn == self.starter and self.valid_rolls > 1
        if closed:
            self.setup_error = None
            self._emit("SETUP_ERROR_WINDOW_CLOSED", None, "The starting-position error can now be corrected only if both players agree.", frame=frame)

    # ================================================================== judging a turn
    def _judge_turn(self, s: TableState, implied: bool = False,
                    unseen: dict[tuple[int, int], float] | None = None) -> None:
        """``unseen``: the roll was not seen, these are the rolls it could have been (their prior)."""
        self._flush_doubt()
        mover = self.turn
        before = self.roll_pos or self.position
        assert self.dice is not None
        read = self.dice
        observed = self._counted_board(s, before, mover)
        dice, p_roll, p_legal, post = self._roll_from_play(s, before, observed)
        doubt: dict[tuple[int, int], float] | None = None
        if p_roll < self.profile.confidence and not 1.0 - self.profile.confidence < p_legal < self.profile.confidence:
            # which roll it was is not clear, but the play is legal whichever it was (two rolls play
            # alike: a 3-1 and a 1-1 both 24/20, a 6-1 and a 6-3 both bearing off one checker when
            # the other die cannot be played), or illegal whichever it was (session 22, seed 313: the
            # injected illegal 20/16 13/9 with a 4-3 whose 3 was read 87% sure, 1 the rest): no rules
            # question hangs on the roll, and the monitor is not asked it; the most probable roll (of
            # a legal play; else the roll read) is recorded and the doubt goes with the MOVE event,
            # for the transcriber, or with the illegal move
            doubt = {r: p for r, p in sorted(post.items(), key=lambda kv: -kv[1]) if p >= 1.0 - self.profile.confidence}
            if p_legal < self.profile.confidence:
                dice = read
        elif p_roll < self.profile.confidence:
            # not clear either way: the monitor is asked. A clearly likelier roll than the one read
            # (posterior at least profile.likelier_roll) is recorded, and the question says what the
            # roll read makes of the play; else the roll read stands and a possibly illegal play is
            # judged with it (decision 0714)
            fitting = dice
            if sorted(dice) != sorted(read) and p_roll < self.profile.likelier_roll:
                dice = read
            if sorted(dice) != sorted(read):
                illegal = self._play_fit(self._best_result_ll(s, before, read), observed.log_likelihood(s)) < 0.5
                also = f" With {read[0]}-{read[1]} the play is illegal." if illegal else ""
                text = (f"The dice look like {read[0]}-{read[1]}, but the play fits {dice[0]}-{dice[1]}, recorded as "
                        f"{dice[0]}-{dice[1]}; neither the dice nor the play make it clear. Please confirm the roll.{also}")
            else:
                illegal = False
                fits = f"; the play would fit {fitting[0]}-{fitting[1]}" if sorted(fitting) != sorted(read) else ""
                text = f"The roll looks like {read[0]}-{read[1]}{fits}, but neither the dice nor the play make it clear. Please confirm."
            self._emit("ROLL_VALUE_UNREADABLE", mover, text, frame=s.frame,
                       details={"dice": list(read), "fits": list(fitting), "p": round(p_roll, 4),
                                "illegal_as_read": illegal})
        plays = LegalPlays(before, dice) if self.profile.legal_results is None else None
        results: list[Position] = plays.positions() if plays is not None else self._legal_results(before, dice)
        try:
            seen: Position | None = self.map.to_position(observed, 1 - mover, before.out_of_play)
        except ValueError:
            seen = None
        evidence = tuple(f for f in (self.roll_frame, s.frame) if f is not None)
        conf = self.profile.confidence
        if s.unclear and not any(h.over is HandOver.CHECKERS for h in s.hands):
            # A5.13 escalates to A5.5: a checker left not clearly on any point at the end of the turn
            where = ", ".join(f"near point {u.near_point}" if u.near_point else "on the board" for u in s.unclear)
            self._emit("IMPOSSIBLE_POSITION", mover,
                       f"A checker was left not clearly on any point ({where}) at the end of the turn. Place it clearly.",
                       frame=s.frame, evidence=evidence, details={"unclear": [u.near_point for u in s.unclear]})
        legal_set = set(results)
        if seen is not None and seen in legal_set and s.settled and s.is_plain:
            # plain counts (no probabilities) that a legal play reaches: nothing to weigh
            self._accept(s, mover, dice, before, seen, plays, implied, read, doubt)
            return
        scored = sorted(((self.map.to_physical(p).log_likelihood(s), i, p) for i, p in enumerate(results)), key=lambda x: (-x[0], x[1]))
        best_ll, _, best = scored[0]
        ll_seen = observed.log_likelihood(s)
        ambiguous = False
        if seen is not None and seen in legal_set:
            best = seen
            p_illegal = 0.0
            # which legal play? the runner-up must be clearly less likely
            others = [x[0] for x in scored if x[2] != seen]
            if others:
                m = max(ll_seen, others[0])
                p_best = math.exp(ll_seen - m) / (math.exp(ll_seen - m) + sum(math.exp(o - m) for o in others))
                ambiguous = p_best < conf
        else:
            # posterior that the table shows something no legal play reaches (the MAP stands for "illegal")
            m = max(ll_seen, best_ll)
            legal_mass = sum(math.exp(x[0] - m) for x in scored)
            illegal_mass = math.exp(ll_seen - m)
            p_illegal = illegal_mass / (illegal_mass + legal_mass)
        if not s.settled:
            p_illegal = min(p_illegal, conf - 1e-9)
        if p_illegal >= conf:
            self._illegal(s, mover, before, dice, seen, observed, [x[2] for x in scored], plays, evidence, doubt)
            return
        unconfirmed = p_illegal >= 1.0 - conf or not s.settled or ambiguous
        ask = (f"The move by {self._name(mover)} is not clear enough to judge. Please confirm the position.",
               s.frame, evidence, {"p_illegal": round(p_illegal, 4)})
        rolls = unseen if unseen is not None else _weighed(self.roll_p)
        rolls.setdefault((max(dice), min(dice)), 1.0)
        self._accept(s, mover, dice, before, best, plays, implied, read, doubt)
        if (unconfirmed or p_roll < conf or unseen is not None) and self._turns and self._turns[-1].mover == mover:
            # MOVE_UNCONFIRMED waits for the clearer view at the opponent's roll (_revisit), or, when
            # the play ended the game, for the first quiet view of the board (_confirm_at_game_end)
            self._doubt = _Doubt(mover, before, rolls, best, self._turns[-1], ask if unconfirmed else None)
        elif unconfirmed:
            self._emit("MOVE_UNCONFIRMED", mover, ask[0], frame=ask[1], evidence=ask[2], details=ask[3])

    def _counted_board(self, s: TableState, before: Position, mover: int) -> PhysicalBoard:
        """The board the state shows, each colour's count made right where the reading has a checker
        too few or too many: a checker does not vanish, even in an illegal move, so the board that
        stands for "illegal" is the likeliest one with every checker on it (seed 319: dark's hit
        checker on the bar unseen, the 14-checker board outweighed the legal result that had it
        there, and the turn stayed unconfirmed three times). Only for vision's readings (plain counts
        are what they are) with nothing in a hand or unclear. Each missing checker goes where it
        costs the reading least (a point, the bar, the tray), each extra one leaves likewise; at most
        five (the last bear-offs of seed 319: the tray of 11 read 7). A missing checker is not put
        where no move of the mover's takes one: on the mover's bar, or for the opponent anywhere but
        where his checkers were before the turn and on his bar as his blots hit (session 12, seed
        320's bear-offs: with the bar and a point hidden by a hand, read as unknown, an opponent's
        checker missing from a tray read short cost nothing there; that board outweighed every legal
        play and five bear-off turns were left unconfirmed)."""
        board = PhysicalBoard.from_state(s)
        if s.is_plain or not s.settled:
            return board
        was = self.map.to_physical(before)
        mover_ci = self._colour_index(mover)
        # (the mover's checkers leave his bar, never reach it; the opponent's stay where they were
        # or, his blots hit, reach his bar)
        opp = (was.light, was.dark)[1 - mover_ci]
        most = {(24, mover_ci): was.bar[mover_ci], (25, 1 - mover_ci): was.off[1 - mover_ci],
                (24, 1 - mover_ci): was.bar[1 - mover_ci] + min(4, sum(1 for n in opp if n == 1)),
                **{(i, 1 - mover_ci): n for i, n in enumerate(opp)}}

        def moved(b: PhysicalBoard, ci: int, place: int, n: int) -> PhysicalBoard | None:
            """``b`` with ``n`` checkers of colour ``ci`` added at ``place`` (0-23 points, 24 bar, 25 tray)."""
            counts = list((b.light, b.dark)[ci])
            bar, off = [b.bar[0], b.bar[1]], [b.off[0], b.off[1]]
            cell = bar if place == 24 else off if place == 25 else counts
            k = ci if place >= 24 else place
            if cell[k] + n < 0 or (n > 0 and cell[k] + n > most.get((place, ci), cell[k] + n)):
                return None
            cell[k] += n
            light, dark = (tuple(counts), b.dark) if ci == 0 else (b.light, tuple(counts))
            return PhysicalBoard(light, dark, (bar[0], bar[1]), (off[0], off[1]))

        for ci, colour in enumerate((Colour.LIGHT, Colour.DARK)):
            expected = 15 - before.out_of_play[self.setup.player_of(colour)]
            short = expected - (sum((board.light, board.dark)[ci]) + board.bar[ci] + board.off[ci])
            if short == 0 or abs(short) > 5:
                continue
            step = 1 if short > 0 else -1
            # one checker at a time where each costs least, or all in one place (a tall stack read short)
            options = [b for b in (moved(board, ci, place, short) for place in range(26)) if b is not None]
            greedy: PhysicalBoard | None = board
            for _ in range(abs(short)):
                steps = [b for b in (moved(greedy, ci, place, step) for place in range(26)) if b is not None] if greedy else []
                greedy = max(steps, key=lambda b: b.log_likelihood(s)) if steps else None
            if greedy is not None:
                options.append(greedy)
            if options:
                board = max(options, key=lambda b: b.log_likelihood(s))
        return board

    def _revisit(self, s: TableState) -> None:
        """The opponent has rolled validly and the table is quiet: the mover's doubtful turn (see
        :class:`_Doubt`) is looked at again on this clearer view. Every roll it could have been (the
        dice's probabilities) and each of its legal results is weighed by how well it explains the
        table, against an illegal play (``illegal_play_prior``) that the table shows exactly; when
        another result than the one accepted has at least ``confidence``, the turn is revised
        (transcript line, position) and ``MOVE_REVISED`` says so. An illegal play is never made legal
        here: only rolls the dice gave some probability are weighed (decision 0702)."""
        d = self._doubt
        entries = self.games[-1].entries
        if d is None or not s.settled or not self._turns or self._turns[-1] is not d.turn or not entries \
                or entries[-1] is not d.turn.entry:
            self._flush_doubt()
            return
        weighed = self._weigh_doubt(d, s)
        if weighed is None:
            self._flush_doubt()
            return
        cands, by_board, mass, illegal, shown = weighed
        if shown > 0.0 and illegal / mass >= self.profile.confidence and self._illegal_seen_late(d, s):
            return
        board = max(by_board, key=lambda b: by_board[b])
        _, roll, res, _ = max((c for c in cands if c[3] == board), key=lambda c: c[0])
        conf = self.profile.confidence
        was_board = self.map.to_physical(d.accepted)
        accepted = by_board.get(was_board, 0.0)
        p_board = by_board[board] / mass
        # revised when the new position is clear, or when the one accepted is clearly wrong and the new
        # one is likelier than an illegal play (the position must not drift from the table)
        if board == was_board or not (p_board >= conf or (accepted / mass < 1.0 - conf and by_board[board] > illegal)):
            if self._doubt_confirmed(d, by_board, mass, illegal, shown):
                self._doubt = None  # the clearer view confirms the move accepted: nothing to ask
            else:
                self._flush_doubt()
            return
        if game_winner(res) is not None:
            self._flush_doubt()
            return
        play, written = self._written_play(d.before, res, roll, d.mover)
        was = self._record_again(d, roll, play, res)
        self._emit("MOVE_REVISED", d.mover,
                   f"The board now shows that {self._name(d.mover)} played {roll[0]}{roll[1]}: {written} (recorded as {was}).",
                   frame=s.frame, details={"dice": list(roll), "play": written, "was": was, "p": round(p_board, 4)})

    def _illegal_seen_late(self, d: _Doubt, s: TableState) -> bool:
        """The doubtful turn, looked at again on the clearer view at the opponent's valid roll, shows a
        board that no legal result of any roll it may have been reaches, clearly (the illegal play
        outweighs them, as at the end of a turn): it was an illegal move that the view at the end of the
        turn hid (seed 352: the injected 3-3 played 24/23 13/4, a lone checker read on the wrong point
        under the tapping hand, recorded as the legal 24/21 13/4 with a question). The turn is recorded
        as the play the board shows and the position follows the table; the illegal move is alerted
        now, and as the opponent has rolled, an ordinary illegal move stands (RG19 4.2.3.1(a): it is
        pointed out all the same, 1.1.6); one of the impossible class may still be corrected until the
        offender's own next valid roll (4.2.3.1(b)), which the monitor does. False when the board is
        no position (left to the monitor's question)."""
        observed = self._counted_board(s, d.before, d.mover)
        try:
            seen = self.map.to_position(observed, 1 - d.mover, d.before.out_of_play)
        except ValueError:
            return False
        if game_winner(seen) is not None:
            return False
        roll = d.turn.dice
        play = diff_play(d.before, seen.boards(), d.mover)
        was = self._record_again(d, roll, play, seen)
        classes = self._impossible_classes(d.before, observed, d.mover)
        impossible = bool(classes) and self.profile.impossible_move_class
        rest = (f"It can still be corrected before {self._name(d.mover)}'s own next valid roll." if impossible else
                f"{self._name(1 - d.mover)} has rolled: the move stands.")
        alert = self._emit("IMPOSSIBLE_MOVE" if impossible else "ILLEGAL_MOVE", d.mover,
                           f"Illegal move by {self._name(d.mover)} with {roll[0]}-{roll[1]}: the board shows {play or '(no play)'}, "
                           f"not clear at the end of the turn (recorded then as {was}). {rest}",
                           frame=s.frame, evidence=tuple(f for f in (d.unconfirmed[1] if d.unconfirmed else None, s.frame) if f is not None),
                           details={"dice": list(roll), "seen": str(play), "was": was, "sub_codes": classes, "seen_late": True})
        if not impossible:
            self._emit("ILLEGAL_MOVE_STANDS", d.mover, f"The illegal move by {self._name(d.mover)} stands: "
                       f"{self._name(1 - d.mover)} has rolled.", frame=s.frame, details={"alert": alert.id if alert else 0})
        return True

    def _record_again(self, d: _Doubt, roll: tuple[int, int], play: Play, result: Position) -> str:
        """The doubtful turn recorded again as ``roll`` and ``play`` (its transcript line and the turn
        kept for undo), the position now ``result``; returns how it was recorded before."""
        self._doubt = None
        old_entry = d.turn.entry
        new_entry = MatEntry(EntryKind.ROLL, Player(d.mover), None, 0, dice=roll, play=play)
        self.games[-1].entries[-1] = new_entry
        self._turns[-1] = _Turn(d.mover, roll, d.before, new_entry)
        self.position = result.with_turn(self.turn)
        return f"{old_entry.dice[0]}{old_entry.dice[1]}: {old_entry.play}" if old_entry.dice else str(old_entry.play)

    def _weigh_doubt(self, d: _Doubt, s: TableState) -> tuple[list[tuple[float, tuple[int, int], Position, PhysicalBoard]],
                                                               dict[PhysicalBoard, float], float, float, float] | None:
        """A doubtful turn weighed on a view of the table: every roll it could have been and each of its
        legal results (score, roll, result, board), each board's weight, the total weight with an
        illegal play (``illegal_play_prior``) that the table shows exactly, that illegal play's weight,
        and the weight of the board as read when no legal result is it (all relative to the best
        candidate). None when no roll has a legal result."""
        seen_board = self._counted_board(s, d.before, d.mover)
        ll_seen = seen_board.log_likelihood(s)
        cands: list[tuple[float, tuple[int, int], Position, PhysicalBoard]] = []
        for roll, p in d.rolls.items():
            for res in self._legal_results(d.before, roll):
                phys = self.map.to_physical(res)
                cands.append((math.log(p) + phys.log_likelihood(s), roll, res, phys))
        if not cands:
            return None
        top = max(c[0] for c in cands)
        illegal = self.profile.illegal_play_prior * math.exp(ll_seen - top)
        mass = sum(math.exp(c[0] - top) for c in cands) + illegal
        by_board: dict[PhysicalBoard, float] = {}
        for sc, _, _, phys in cands:
            by_board[phys] = by_board.get(phys, 0.0) + math.exp(sc - top)
        shown = 0.0 if seen_board in by_board else math.exp(ll_seen - top)
        return cands, by_board, mass, illegal, shown

    def _doubt_confirmed(self, d: _Doubt, by_board: dict[PhysicalBoard, float], mass: float, illegal: float,
                         shown: float) -> bool:
        """The same test as at the end of the turn: the result accepted is at least ``confidence`` sure
        against the board as read (unless a legal result) standing for an illegal play without a prior
        against it."""
        accepted = by_board.get(self.map.to_physical(d.accepted), 0.0)
        return accepted / (mass - illegal + shown) >= self.profile.confidence

    def _confirm_at_game_end(self, s: TableState) -> None:
        """The doubtful turn ended the game: no opponent's roll will show the board again, so the first
        quiet view after it does. It confirms the result accepted, or the ``MOVE_UNCONFIRMED`` held back
        is raised; a game's result is not revised here (the monitor corrects it). Six of the twelve
        MOVE_UNCONFIRMED of session 14's seven matches asked about the last bear-off, judged under
        the hand tapping the bar and confirmed by the board a moment later."""
        d = self._doubt
        if d is None or d.unconfirmed is None:
            self._doubt = None  # only the roll was doubtful, and the game is over: nothing to ask
            return
        weighed = self._weigh_doubt(d, s)
        if weighed is not None and self._doubt_confirmed(d, *weighed[1:]):
            self._doubt = None
        else:
            self._flush_doubt()

    def _flush_doubt(self) -> None:
        """Drop the doubtful turn's record, raising the ``MOVE_UNCONFIRMED`` it held back."""
        d, self._doubt = self._doubt, None
        if d is not None and d.unconfirmed is not None:
            message, frame, evidence, details = d.unconfirmed
            self._emit("MOVE_UNCONFIRMED", d.mover, message, frame=frame, evidence=evidence, details=details)

    def _written_play(self, before: Position, result: Position, dice: tuple[int, int], mover: int,
                      plays: LegalPlays | None = None) -> tuple[Play, str]:
        """The play from ``before`` to ``result`` with ``dice`` (``plays``: its legal plays, when at
        hand), and how the MOVE event writes it. A variant's generator (``profile.legal_results``):
        the transcript records the checker movement in standard points, the MOVE event the variant's
        own notation."""
        if self.profile.legal_results is None:
            play = (plays or LegalPlays(before, dice)).play_for(result)
            return play, str(play)
        play = diff_play(before, result.boards(), mover)
        hook = self.profile.play_notation
        return play, (hook(before, result, dice) if hook is not None else str(play))

    def _legal_results(self, before: Position, dice: tuple[int, int]) -> list[Position]:
        if self.profile.legal_results is None:
            return LegalPlays(before, dice).positions()
        return list(self.profile.legal_results(before, dice))

    def _roll_from_play(self, s: TableState, before: Position,
                        observed: PhysicalBoard) -> tuple[tuple[int, int], float, float, dict[tuple[int, int], float]]:
        """The roll that, with the play on the board, is most probable (a rules filter on the dice, DIGEST
        A1.15): each roll the reader gave some probability is weighed by how well its best legal result
        explains the table, against an illegal play (``profile.illegal_play_prior``) that the table shows
        exactly. Returns the roll (the one read unless another is clearly better), its posterior, the
        probability that the play is legal whichever of the rolls it was (the legal part of every roll's
        weight), and each roll's posterior."""
        assert self.dice is not None
        read = self.dice
        key = (max(read), min(read))
        cands = [r for r in _weighed(self.roll_p) if r != key]
        if not cands:
            p_read = self.roll_p.get(key, 1.0) if self.roll_p else 1.0
            return read, p_read, 0.0, {key: p_read}
        ll_seen = observed.log_likelihood(s)
        eps = self.profile.illegal_play_prior
        fits = {r: self._play_fit(self._best_result_ll(s, before, r), ll_seen) for r in [key, *cands]}
        scores = {r: self._roll_weight(self.roll_p.get(r, _ROLL_FLOOR), f) for r, f in fits.items()}
        total = sum(scores.values())
        legal = sum(self.roll_p.get(r, _ROLL_FLOOR) * (1.0 - eps) * f for r, f in fits.items()) / total
        best_roll = max(scores, key=lambda r: (scores[r], r == key))
        post = {r: w / total for r, w in scores.items()}
        return (read if best_roll == key else best_roll), scores[best_roll] / total, legal, post

    def _best_result_ll(self, s: TableState, before: Position, roll: tuple[int, int]) -> float:
        """How well the best legal result of ``roll`` from ``before`` explains the table (log-likelihood)."""
        return max((self.map.to_physical(p).log_likelihood(s) for p in self._legal_results(before, roll)), default=-math.inf)

    @staticmethod
    def _play_fit(best_ll: float, ll_seen: float) -> float:
        """How well a roll's best legal result explains the table relative to the board as read (1: a
        legal play of the roll reaches the board read)."""
        return math.exp(min(0.0, best_ll - ll_seen)) if best_ll > -math.inf else 0.0

    def _roll_weight(self, p_roll: float, fit: float) -> float:
        """A roll's weight given the play (DIGEST A1.15): its probability from the dice, times how well
        its best legal result explains the table (``fit``, :meth:`_play_fit`), against an illegal play
        (``profile.illegal_play_prior``) that the table shows exactly."""
        eps = self.profile.illegal_play_prior
        return p_roll * ((1.0 - eps) * fit + eps)

    def _accept(self, s: TableState, mover: int, dice: tuple[int, int], before: Position, result: Position,
                plays: LegalPlays | None, implied: bool, read: tuple[int, int] | None = None,
                doubt: dict[tuple[int, int], float] | None = None) -> None:
        """``doubt``: the rolls it may have been (posteriors), when the play is legal with each of them."""
        play, written = self._written_play(before, result, dice, mover, plays)
        self._log(EntryKind.ROLL, mover, dice=dice, play=play)
        self._turns.append(_Turn(mover, dice, before, self.games[-1].entries[-1]))
        details: dict[str, Any] = {"dice": list(dice)}
        note = ""
        if read is not None and sorted(read) != sorted(dice):
            details["read"] = list(read)
            note = f" (the dice were read as {read[0]}-{read[1]}; the play shows {dice[0]}-{dice[1]})"
        if doubt is not None and len(doubt) > 1:
            details["roll_doubt"] = [{"dice": list(r), "p": round(p, 4)} for r, p in doubt.items()]
            note += " (the roll is not clear: " + ", ".join(f"{r[0]}-{r[1]} {p:.0%}" for r, p in doubt.items()) \
                + "; the play is legal with each)"
        if play:
            self._emit("MOVE", mover, f"{self._name(mover)} played {dice[0]}{dice[1]}: {written}{note}.", frame=s.frame,
                       details={**details, "play": written})
        else:
            self._emit("NO_MOVE", mover, f"{self._name(mover)} cannot move with {dice[0]}-{dice[1]}{note}.", frame=s.frame, details=details)
        if not implied:
            self._emit("END_OF_TURN", mover, f"{self._name(mover)} ended his turn.", frame=s.frame)
        self.position = result
        winner = game_winner(result)
        if winner is not None:
            self._end_game(winner, result_kind(result, winner), Termination.BEAR_OFF, s.frame)
            return
        self._next_turn(1 - mover)

    def _next_turn(self, player: int) -> None:
        self._bare_tap = None
        self._held_tap = self._held_hit = None
        self.turn = player
        self.position = self.position.with_turn(player)
        self.phase = Phase.PRE_ROLL
        self.dice = None
        self.roll_p = {}
        self.attempted = False
        self.bound_double = False
        self._touched_turn.clear()
        self._taken_up = False

    def _illegal(self, s: TableState, mover: int, before: Position, dice: tuple[int, int], seen: Position | None,
                 observed: PhysicalBoard, results: list[Position], plays: LegalPlays | None, evidence: tuple[int, ...],
                 doubt: dict[tuple[int, int], float] | None = None) -> None:
        """``doubt``: the rolls it may have been (posteriors), when the play is illegal with each of them."""
        classes = self._impossible_classes(before, observed, mover)
        rg19_class = bool(classes) and self.profile.impossible_move_class
        code = "IMPOSSIBLE_MOVE" if rg19_class else "ILLEGAL_MOVE"
        if rg19_class:
            deadline = Deadline.OFFENDER_NEXT_VALID_ROLL
            deadline_text = f"before {self._name(mover)}'s own next valid roll"
        elif self.profile.illegal_move_condonable:
            deadline = Deadline.OPPONENT_ROLL_OR_CUBE
            deadline_text = f"{self._name(1 - mover)} chooses: correct it or let it stand, before rolling or turning the cube"
        else:
            deadline = Deadline.OPPONENT_VALID_ROLL
            deadline_text = f"before {self._name(1 - mover)}'s next valid roll"
        # closest to what the table shows first
        alternatives = [str(plays.play_for(p)) or "(no play)" for p in results[:8]] if plays is not None else []
        restore = self.map.to_physical(before)
        shown = str(diff_play(before, seen.boards(), mover)) if seen is not None else "?"
        message = (
            f"Illegal move by {self._name(mover)} with {dice[0]}-{dice[1]}"
            + (f" ({', '.join(c.replace('_', ' ').lower() for c in classes)})" if classes else "")
            + f". Restore the position after the roll and play legally, {deadline_text}."
        )
        if self.profile.illegal_move_condonable:
            message = f"Illegal move by {self._name(mover)} with {dice[0]}-{dice[1]}. {deadline_text}."
        extra: dict[str, Any] = {}
        if doubt is not None and len(doubt) > 1:
            extra["roll_doubt"] = [{"dice": list(r), "p": round(p, 4)} for r, p in doubt.items()]
            message += (" (The roll is not clear: " + ", ".join(f"{r[0]}-{r[1]} {p:.0%}" for r, p in doubt.items())
                        + "; the play is illegal with each.)")
        severity = Severity.IRREG if self.profile.illegal_move_condonable and not rg19_class else None
        alert = self._emit(code, mover, message, frame=s.frame, evidence=evidence, deadline=deadline_text, severity=severity, details={
            **extra,
            "dice": list(dice),
            "seen": shown,
            "sub_codes": classes,
            "legal_alternatives": alternatives,
            "legal_count": len(results),
            "restore": {
                "points": [{"point": i + 1, "light": restore.light[i], "dark": restore.dark[i]} for i in range(24) if restore.light[i] or restore.dark[i]],
                "bar": {"light": restore.bar[0], "dark": restore.bar[1]},
                "off": {"light": restore.off[0], "dark": restore.off[1]},
                "position_id": before.position_id(),
                "dice": list(dice),
            },
            "options": ["correct", "let stand"] if self.profile.illegal_move_condonable else ["correct"],
        })
        if seen is None:
            self._emit("IMPOSSIBLE_POSITION", mover, "The position on the board is impossible and must be corrected.", frame=s.frame)
        self.pending = PendingIllegal(mover, dice, before, seen, deadline, alert.id if alert else 0, code, evidence)
        # play goes on from what is on the board; a correction brings back `before`
        self._log(EntryKind.ROLL, mover, dice=dice, play=diff_play(before, seen.boards(), mover) if seen is not None else Play())
        self._turns.append(_Turn(mover, dice, before, self.games[-1].entries[-1]))
        if seen is not None:
            self.position = seen
            winner = game_winner(seen)
            if winner is not None:
                self._end_game(winner, result_kind(seen, winner), Termination.BEAR_OFF, s.frame)
                return
        self._next_turn(1 - mover)

    def _impossible_classes(self, before: Position, seen: PhysicalBoard, mover: int) -> list[str]:
        """The RG19 4.2.3.1(b) class: illegalities that do not depend on the dice (DIGEST A5.4)."""
        out: list[str] = []
        b_before = self.map.to_physical(before)
        mc = self.setup.colour_of(mover)
        oc = mc.other
        mi = 0 if mc is Colour.LIGHT else 1
        oi = 1 - mi
        mine_before = b_before.light if mc is Colour.LIGHT else b_before.dark
        mine_after = seen.light if mc is Colour.LIGHT else seen.dark
        opp_before = b_before.light if oc is Colour.LIGHT else b_before.dark
        opp_after = seen.light if oc is Colour.LIGHT else seen.dark
        if seen.bar[mi] > b_before.bar[mi]:
            out.append("OWN_CHECKER_TO_BAR")
        opp_gain = any(a > b for a, b in zip(opp_after, opp_before, strict=True)) or seen.off[oi] != b_before.off[oi]
        opp_lost = sum(max(0, b - a) for a, b in zip(opp_after, opp_before, strict=True))
        if opp_gain or opp_lost != seen.bar[oi] - b_before.bar[oi]:
            out.append("OPP_CHECKER_MOVED")
        # own numbering of the mover's checkers, before and after
        o = self.setup.orientation
        before_pts = {o.own_point(mc, i + 1): n for i, n in enumerate(mine_before) if n}
        after_pts = {o.own_point(mc, i + 1): n for i, n in enumerate(mine_after) if n}
        if b_before.bar[mi] and seen.bar[mi] and before_pts != after_pts:
            out.append("MOVED_WHILE_ON_BAR")
        if seen.off[mi] > b_before.off[mi] and (any(p > 6 for p in after_pts) or seen.bar[mi]):
            out.append("BEAROFF_NOT_HOME")
        # forward-only movement can never increase the number of checkers at or behind any point
        behind_before = behind_after = 0
        for k in range(25, 0, -1):
            behind_before += b_before.bar[mi] if k == 25 else before_pts.get(k, 0)
            behind_after += seen.bar[mi] if k == 25 else after_pts.get(k, 0)
            if k < 25 and behind_after > behind_before:
                out.append("BACKWARD_MOVE")
                break
        return out

    def _illegal_stands(self, frame: int | None, why: str) -> None:
        p = self.pending
        if p is None:
            return
        self.pending = None
        self._emit("ILLEGAL_MOVE_STANDS", p.offender, f"The illegal move by {self._name(p.offender)} stands: {why}.", frame=frame,
                   details={"alert": p.alert_id})

    def _rollback_to_pending(self, frame: int | None) -> None:
        p = self.pending
        assert p is not None
        # the illegal move is the last completed turn: drop its transcript line, back to after the roll
        self.pending = None
        turn = self._turns.pop() if self._turns and self._turns[-1].mover == p.offender else None
        entries = self.games[-1].entries
        for k in range(len(entries) - 1, -1, -1):
            if (entries[k] is turn.entry) if turn is not None else (entries[k].kind is EntryKind.ROLL and entries[k].player == p.offender):
                del entries[k]
                break
        self._back_to_roll(p.offender, p.dice, p.restore)
        self._emit("CORRECTION_COMPLETE", p.offender, f"Back to the position after {self._name(p.offender)}'s roll of {p.dice[0]}-{p.dice[1]}; he plays again.",
                   frame=frame, details={"alert": p.alert_id})

    def _undo_turn(self, frame: int | None) -> None:
        """Take back the last completed turn (see ``decide``): one way for an illegal move and for any turn."""
        self._doubt = None  # the monitor has looked at it
        if self.pending is not None:
            self._rollback_to_pending(frame)
            return
        entries = self.games[-1].entries
        if not self._turns or self.phase in (Phase.GAME_OVER, Phase.MATCH_OVER):
            raise ValueError("nothing to undo: no completed turn in the current game")
        last = self._turns[-1]
        if not entries or entries[-1] is not last.entry:
            raise ValueError("the last turn is followed by a cube action in the transcript; correct the cube (set_cube) "
                             "or set the position instead")
        self._turns.pop()
        entries.pop()
        self._back_to_roll(last.mover, last.dice, last.restore)
        self._emit("CORRECTION_COMPLETE", last.mover, f"Turn taken back: the position after {self._name(last.mover)}'s roll of "
                   f"{last.dice[0]}-{last.dice[1]}; he plays again.", frame=frame, details={"undo_turn": True})

    def _back_to_roll(self, mover: int, dice: tuple[int, int], restore: Position) -> None:
        """The position right after ``mover`` rolled ``dice``: he (re)plays the move (RG19 4.2.3.2)."""
        self.position = restore
        self.roll_pos = restore
        self.turn = mover
        self.dice = dice
        self.roll_p = {}  # the roll as recorded at the judgement
        self.phase = Phase.MOVING
        self.attempted = True

    def _corrected_score(self, score: tuple[int, int], crawford: bool | None) -> MatchState:
        """The match with a corrected score before the current game; Crawford flags from it (RG19 4.4.7):
        the Crawford game is the first game after either player becomes exactly 1 point from winning."""
        m = self.match
        if m.money or not m.rules.crawford:
            if crawford:
                raise ValueError("no Crawford game here (money play, or the rules do not use the Crawford rule)")
            return replace(m, score=score)
        if max(score) >= m.length:
            raise ValueError(f"a score of {score[0]}-{score[1]} ends a {m.length}-point match; give the score before the current game")
        one_away = [s == m.length - 1 for s in score]
        if crawford is None:
            # a single player 1-away: the Crawford game, unless it was already played (then post-Crawford);
            # both 1-away: the Crawford game is behind; nobody 1-away: it is still to come
            crawford = one_away.count(True) == 1 and not (m.crawford_done and not m.crawford)
        elif crawford and one_away.count(True) != 1:
            raise ValueError(f"the Crawford game needs exactly one player 1 point from winning; score {score[0]}-{score[1]} "
                             f"in a {m.length}-point match has {one_away.count(True)}")
        done = any(one_away) and not crawford
        return replace(m, score=score).with_crawford(crawford, done)

    def _unseen_roll(self, s: TableState, seen: list[tuple[int, Die]], passed: bool = False,
                     prior: dict[tuple[int, int], float] | None = None, opening: bool = False) -> bool:
        """The mover ends his turn (``PRE_ROLL`` or an unfinished ``ROLLING``) but the table shows that
        he played: the camera missed his roll (a die never found, a throw hidden by an arm). Like a
        monitor who looked away, the referee takes the roll the play shows (DIGEST A1.15): every roll
        weighed by the dice seen at rest (``seen``; a die not seen at rest counts each face alike) and
        by how well its best legal result explains the table. The turn is judged with that roll and
        ROLL_VALUE_UNREADABLE asks the monitor to confirm it, unless both dice lie read at rest as that
        roll and the play makes it clear (a roll judged invalid and played on, or whose rest was not
        seen for 2 s): then it is the roll, with no alert. Returns False (nothing done) when the
        unchanged position explains the table at least as well (no play: a pass without a roll) or
        no legal play of any roll does (an illegal play needs the real roll: the usual path). With a
        die seen, a roll without its value is taken only when the play makes it clear (posterior at
        least ``likelier_roll``): an illegal play is excused only by a clearly likelier roll (decisions
        0702, 0714).

        ``passed``: the opponent has thrown, so the turn is over whatever was played. A play that no
        roll's legal play explains is then judged as illegal with the roll closest to it, so that the
        monitor is told and the match goes on from the table, instead of every later throw being
        judged as the mover's (the seed-301 render).

        ``prior``: the rolls it may have been and their probabilities, instead of those of the dice
        seen; ``opening``: the game's opening roll (:meth:`_opening_unseen`), announced with
        OPENING_ROLL."""
        mover = self.turn
        if self.setup.dice_mode is not DiceMode.TWO or not s.settled:
            return False
        if self.pending is not None and self.pending.offender == mover and not self._roll_resolves_pending(mover, check=True):
            return False  # the offender's own turn before his illegal move is settled
        before = self.position
        # a die at rest in the opponent's right half is no evidence of the mover's roll: an invalid
        # throw of his, or the opponent's own dice thrown before the end of the turn was seen
        seen = [(i, d) for i, d in seen if d.half is None or d.half is self._right_half(mover) or self.profile.left_side_permission]
        if prior is None:
            prior = _roll_prior([d for _, d in seen])
        ll_seen = PhysicalBoard.from_state(s).log_likelihood(s)
        ll_still = self.map.to_physical(before).log_likelihood(s)
        fits = {roll: self._best_result_ll(s, before, roll) for roll in prior}
        top = max(fits.values())
        no_fit = top < ll_seen - math.log(2.0)
        if top <= ll_still or (no_fit and not (passed and ll_still < ll_seen - math.log(2.0))):
            return False
        weights = {r: self._roll_weight(prior[r], self._play_fit(f, ll_seen)) for r, f in fits.items()}
        total = sum(weights.values())
        def rank(r: tuple[int, int]) -> tuple[float, float]:
            return (fits[r], prior[r]) if no_fit else (weights[r], 0.0)  # no fit: the closest play

        roll = max(weights, key=rank)
        p_roll = weights[roll] / total if total > 0 else 0.0
        read = [d.value for _, d in seen[:2] if d.state is DieState.AT_REST and d.value is not None]
        if read and p_roll < self.profile.likelier_roll:
            # not clear: the die read stands (decisions 0702, 0714: an illegal play is excused only by
            # a clearly likelier roll); the other die is the one that fits the play best
            keep = [r for r in weights if all(r.count(v) >= read.count(v) for v in read)]
            if keep:
                roll = max(keep, key=rank)
        if opening:
            self._emit("OPENING_ROLL", mover, f"{self._name(mover)} starts with {roll[0]}-{roll[1]} (the roll not seen whole; "
                       "the play shows it).", frame=s.frame, details={"dice": list(roll), "from_play": True})
        if len(read) == 2 and sorted(read) == sorted(roll) and p_roll >= self.profile.confidence and not no_fit:
            # both dice seen at rest, read as the roll the play shows: nothing to confirm (seed 322: a
            # flat die against the near rail judged leaning, the roll played; or a roll whose 2 s at
            # rest were not seen); the invalid verdict, if any, has its own alert
            after = ", the roll judged invalid" if self._judged_roll else ""
            self._emit("ROLL_VALID", mover, f"{self._name(mover)} rolled {roll[0]}-{roll[1]} (the dice at rest and the play{after}).",
                       frame=s.frame, details={"dice": list(roll), "from_play": True, "after_invalid": self._judged_roll})
        else:
            shows = (f"no roll's legal play gives the table; the closest is {roll[0]}-{roll[1]}. Please confirm the roll "
                     "and the position" if no_fit else f"the play shows {roll[0]}-{roll[1]}. Please confirm the roll")
            self._emit("ROLL_VALUE_UNREADABLE", mover, f"{self._name(mover)}'s roll was not seen; {shows}.",
                       frame=s.frame, details={"dice": None, "fits": list(roll), "p": round(p_roll, 4), "not_seen": True,
                                               "no_legal_fit": no_fit})
        self._take_unseen_roll(s, mover, roll, before, _weighed(prior))
        return True

    def _no_play(self, before: Position, roll: tuple[int, int]) -> bool:
        """``roll`` has no legal play from ``before`` (a dance, or a blocked position)."""
        return all(p.boards() == before.boards() for p in self._legal_results(before, roll))

    def _unseen_dance(self, s: TableState, seen: list[tuple[int, Die]]) -> bool:
        """The mover ends his turn in an unfinished ``ROLLING`` (one die seen at rest, the other never
        found) with the board as it was: when the die seen allows rolls with no legal play, his roll
        was one of them, and the turn is a dance (a player does not end his turn unplayed when he can
        play; :meth:`_unseen_roll` has no play to take the roll from). The likeliest such roll is
        recorded and ROLL_VALUE_UNREADABLE asks the monitor to confirm it. Before (session 34, seed
        361): light on the bar rolled 6-6, one die was never found, his tap was no end of turn and
        dark's throw in his own half was judged light's second roll on the wrong side; three turns
        lost, twice in the match. Returns False (nothing done) when a die was not seen at rest, the
        roll was judged already, the board is not as it was, or no roll the die seen allows dances."""
        mover = self.turn
        if self.setup.dice_mode is not DiceMode.TWO or not s.settled or self._judged_roll:
            return False
        if self.pending is not None and self.pending.offender == mover and not self._roll_resolves_pending(mover, check=True):
            return False
        right = self._right_half(mover)
        seen = [(i, d) for i, d in seen if d.half is None or d.half is right or self.profile.left_side_permission]
        if not any(d.state is DieState.AT_REST and d.value is not None for _, d in seen):
            return False
        before = self.position
        ll_seen = PhysicalBoard.from_state(s).log_likelihood(s)
        if self.map.to_physical(before).log_likelihood(s) < ll_seen - math.log(2.0):
            return False  # the board is not as it was: not a dance
        prior = _roll_prior([d for _, d in seen])
        dances = {r: p for r, p in _weighed(prior).items() if self._no_play(before, r)}
        if not dances:
            return False
        total = sum(dances.values())
        dances = {r: p / total for r, p in dances.items()}
        roll = max(dances, key=lambda r: (dances[r], r))
        could = ", ".join(f"{r[0]}-{r[1]}" for r in sorted(dances, key=lambda r: -dances[r]))
        self._emit("ROLL_VALUE_UNREADABLE", mover,
                   f"{self._name(mover)}'s roll was not seen whole; the die seen and the board left as it was show a roll "
                   f"with no legal play ({could}), recorded as {roll[0]}-{roll[1]}. Please confirm the roll.",
                   frame=s.frame, details={"dice": None, "fits": list(roll), "p": round(dances[roll], 4), "not_seen": True,
                                           "no_play": True, "could_be": [list(r) for r in dances]})
        self._take_unseen_roll(s, mover, roll, before, dances)
        return True

    def _take_unseen_roll(self, s: TableState, mover: int, roll: tuple[int, int], before: Position,
                          weights: dict[tuple[int, int], float]) -> None:
        """Record ``roll``, found from the play or the board rather than seen, as ``mover``'s valid roll
        from ``before`` and judge the turn over the rolls ``weights`` allows (:meth:`_unseen_roll`,
        :meth:`_unseen_dance`)."""
        self._roll_resolves_pending(mover, frame=s.frame)
        self.dice = roll
        self.roll_p = {roll: 1.0}
        self.roll_pos = before
        self.roll_frame = None
        self.valid_rolls += 1
        self.phase = Phase.MOVING
        self._judge_turn(s, unseen=weights)

    def _roll_resolves_pending(self, mover: int, frame: int | None = None, check: bool = False) -> bool:
        """A valid roll by ``mover`` settles a pending illegal move whose deadline it is (the
        opponent's valid roll, or the offender's own next one): it stands. ``check``: only say whether
        there is no pending move or this roll would settle it."""
        p = self.pending
        if p is None:
            return True
        if p.deadline is Deadline.OPPONENT_VALID_ROLL and p.offender != mover:
            why = "the opponent has rolled validly"
        elif p.deadline is Deadline.OFFENDER_NEXT_VALID_ROLL and p.offender == mover:
            why = "the offender has rolled validly again"
        elif p.deadline is Deadline.OPPONENT_ROLL_OR_CUBE and p.offender != mover:
            why = "condoned by rolling"
        else:
            return False
        if not check:
            self._illegal_stands(frame, why)
        return True

    def _thrown_by_the_opponent(self, dice: list[tuple[int, Die]], mover: int) -> bool:
        """Both dice came to rest in the opponent's right half, where the mover may not roll, and the
        table before the throw showed that the mover had played: the camera missed the mover's roll
        and his end of turn (a far hand is the hardest to see), and this throw is the opponent's.
        The missed turn is judged as :meth:`_unseen_roll` does; True when it was (the turn has passed)."""
        if (self.setup.dice_mode is not DiceMode.TWO or self._before_throw is None or len(dice) != 2
                or any(d.half is not self._right_half(1 - mover) for _, d in dice) or self.profile.left_side_permission):
            return False
        return self._unseen_roll(self._before_throw, [], passed=True) and self.turn != mover

    def _pass_without_roll(self, s: TableState, frame: int | None = None) -> None:
        """``frame``: the end signal's, when it is judged later (a bar tap, :data:`BARE_TAP_WAIT_S`)."""
        mover = self.turn
        at = s.frame if frame is None else frame
        can_play = any(LegalPlays(self.position, (a, b)) for a in range(1, 7) for b in range(a, 7))
        if not can_play:
            self._emit("NO_MOVE", mover, f"{self._name(mover)} is closed out and passes without rolling.", frame=at)
            self._log(EntryKind.ROLL, mover, dice=None, play=Play())
            self.games[-1].entries.pop()  # a skipped roll is not written in .mat
            self._next_turn(1 - mover)
            return
        if self.profile.impossible_move_class:
            self._emit("IMPOSSIBLE_MOVE", mover, f"{self._name(mover)} ended his turn without rolling although a play was possible. He must roll.",
                       frame=at, deadline=f"before {self._name(mover)}'s own next valid roll", details={"sub_codes": ["PASS_WITHOUT_ROLL"]})
        else:
            self._emit("ILLEGAL_MOVE", mover, f"{self._name(mover)} ended his turn without rolling. He must roll.", frame=at,
                       details={"sub_codes": ["PASS_WITHOUT_ROLL"]})

    # ================================================================== game end and reset
    def _end_game(self, winner: int, kind: ResultKind, how: Termination, frame: int | None) -> None:
        self._flush_doubt()
        if how is Termination.PASS:
            self.match = self.match.pass_(Player(1 - winner))
        else:
            if self.match.cube.offered_by is not None:
                self.match = replace(self.match, cube=replace(self.match.cube, offered_by=None, beavered=False))
            jacoby = self.match.rules.money and self.match.rules.jacoby and not self.match.doubled and kind is not ResultKind.SINGLE
            self.match = self.match.end_game(Player(winner), kind, how)
            if jacoby:
                self._emit("JACOBY_APPLIED", winner, "Jacoby rule: no double this game, so the gammon counts as a single game.", frame=frame)
        result = self.match.results[-1]
        self._log(EntryKind.WIN, winner, value=result.points, and_match=self.match.winner is not None)
        self.pending = None
        self.setup_error = None
        self._emit("GAME_RESULT", winner, f"{self._name(winner)} wins a {_KIND_NAMES[result.kind]} "
                   f"({result.points} point{'s' if result.points != 1 else ''}). Score {self.match.score[0]}-{self.match.score[1]}.",
                   frame=frame, details={"kind": result.kind.name.lower(), "points": result.points, "cube": result.cube,
                                         "termination": how.value, "score": list(self.match.score)})
        if self.match.winner is not None:
            self.phase = Phase.MATCH_OVER
            self._emit("MATCH_WON", winner, f"{self._name(winner)} wins the match {self.match.score[0]}-{self.match.score[1]}.", frame=frame)
        else:
            self.phase = Phase.GAME_OVER

    def _start_position(self) -> Position:
        hook = self.profile.start_position
        return hook() if hook is not None else Position.start()

    def _game_start(self, frame: int | None) -> None:
        self._flush_doubt()
        self._thrown_after_game = False
        self._bare_tap = None
        self._held_tap = self._held_hit = None
        self.position = self._start_position()
        self.phase = Phase.SETUP
        self.dice = None
        self.roll_pos = None
        self.valid_rolls = 0
        self.attempted = False
        self.pending = None
        self.starter = None
        self.cube_void = False
        self._judged_roll = False
        self._turns = []
        if len(self.games) == 0 or self.games[-1].entries:
            if self.games[-1].entries:
                self.games.append(_GameLog(self.match.game, self.match.score))
        self._emit("GAME_START", None, f"Game {self.match.game}, score {self.match.score[0]}-{self.match.score[1]} "
                   f"({self.setup.players[0]} - {self.setup.players[1]}).", frame=frame)
        if self.match.crawford:
            self._emit("CRAWFORD_GAME", None, "This is the Crawford game: no doubling.", frame=frame)

    def _correction_checks(self, s: TableState) -> None:
        """The players put the position after the roll back on the board: a correction (RG19 4.2.3.2)."""
        p = self.pending
        if p is None or not s.settled or any(h.over is HandOver.CHECKERS for h in s.hands):
            return
        if self.phase not in (Phase.PRE_ROLL, Phase.ROLLING) or (p.observed is not None and self.position != p.observed.with_turn(self.turn)):
            return
        restore = self.map.to_physical(p.restore)
        if p.observed is not None and self.map.to_physical(p.observed) == restore:
            # the illegal play was no play at all (a player who could move ended his turn, or the dice
            # were misread so that a dance looked like one: seed 313, a 6-6 read as 6-4 with a checker on
            # the bar): the board already shows the position after the roll, so nothing is put back.
            # The correction is the legal play itself; until then the illegal "no play" stands or falls
            # by its deadline (it was taken as corrected at once, the offender put back on turn, and the
            # opponent's next roll called premature, again and again)
            board = PhysicalBoard.from_state(s)
            if board in {self.map.to_physical(r) for r in self._legal_results(p.restore, p.dice)}:  # (restore is none: a play was legal)
                self._rollback_to_pending(s.frame)
            return
        if s.counts(Colour.LIGHT) == restore.light and PhysicalBoard.from_state(s) == restore:
            self._rollback_to_pending(s.frame)

    def _reset_checks(self, s: TableState) -> None:
        if not s.settled or s.hands:
            return
        board = PhysicalBoard.from_state(s)
        if board != self._start_board:
            return
        if self.phase is Phase.GAME_OVER:
            thrown = self._thrown_after_game
            self._game_start(s.frame)
            if thrown and _on_table(s):
                # the opening roll was thrown while the last checkers were set up (seen only now the
                # board is quiet): it is judged when the dice have rested as any opening roll
                self._opening(s, new_roll=True)
        elif self.phase is Phase.CUBE_PENDING and self.match.cube.offered_by is not None:
            # a pass is spoken, not seen: the board set up again while the double waits for its answer
            passer = 1 - int(self.match.cube.offered_by)
            self._emit("PASS", passer, f"{self._name(passer)} passes (the board was set up for the next game while the "
                       "double was pending; the pass itself was not seen).", frame=s.frame, details={"inferred": True})
            self._log(EntryKind.DROP, passer)
            self._end_game(1 - passer, ResultKind.SINGLE, Termination.PASS, s.frame)
            if self.match.winner is None:
                self._game_start(s.frame)
        elif self.phase in (Phase.PRE_ROLL, Phase.ROLLING, Phase.MOVING) and self.map.to_physical(
                (self.roll_pos or self.position) if self.phase is Phase.MOVING else self.position) != self._start_board:
            self._emit("NONSTANDARD_GAME_END", None,
                       "The checkers were reset before the game ended by a bear-off, a pass or an accepted resignation. "
                       "Rebuild the last position; if the game did end (a pass or a resignation not seen), record the score.",
                       frame=s.frame, details={"last_position_id": self.position.position_id()})
            # whatever ended it, the next game is a new one; the score waits for the monitor (set_score)
            self.match = self.match.next_game_unscored()
            self._game_start(s.frame)


def _entry_json(e: MatEntry, setup: MatchSetup) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": e.kind.value, "player": setup.colour_of(int(e.player)).value}
    if e.dice is not None:
        out["dice"] = list(e.dice)
    if e.kind is EntryKind.ROLL:
        out["play"] = None if e.play is None else str(e.play)
    if e.value is not None:
        out["value"] = e.value
    return out
