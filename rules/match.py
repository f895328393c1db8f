"""Match and game state: score, Crawford, the doubling cube, resignations, results and points.

Everything here is an immutable value: each action returns a new state, so a referee can keep the
history and undo by going back to an earlier value. Positions are not needed here; the functions
that look at checkers (game result from a final position, resignation limits, the claim test) live
in :mod:`rules.scoring`.

Players are :class:`Player` ``FIRST`` and ``SECOND``: the order of a ``.mat`` file ("Player 1",
"Player 2"), which is also the order of the score tuple.

Rule references (see ``../shared/rules/DIGEST.md``):

* cube access and who may double: RG19 4.4.2, STD Doubling (DIGEST A7.3, A7.4);
* the value of the cube, 2^N for N accepted doubles: RG19 4.4.3 (A7.8);
* the Crawford rule: RG19 4.4.7, WB23 4.4(iv), US09 5.5 (A7.10);
* the dead cube: RG19 4.4.8, WB23 4.4(vii), US09 5.6 (A7.11);
* a pass concedes at the value before the double: RG19 4.6.2, STD Doubling (A7.12);
* automatic doubles, beavers and the Jacoby rule, money play only: STD Optional-1..3,
  forbidden in tournaments by RG19 4.4.10 (A7.13);
* points = final game value x final cube value: RG19 4.6.2 (A8.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum

__all__ = [
    "Player",
    "ResultKind",
    "CubeAction",
    "Termination",
    "DeadCubeRule",
    "MatchRules",
    "CubeState",
    "GameResult",
    "MatchState",
    "MatchError",
    "CubeError",
    "NoCubeAccessError",
    "CrawfordDoubleError",
    "DeadCubeError",
    "CubeLimitError",
    "NoOfferError",
    "OfferPendingError",
    "BeaverError",
    "MatchOverError",
    "ResignationError",
]


class Player(IntEnum):
    """A seat in the match: the first and second player of a ``.mat`` file."""

    FIRST = 0
    SECOND = 1

    @property
    def other(self) -> Player:
        return Player.SECOND if self is Player.FIRST else Player.FIRST

    def __repr__(self) -> str:
        return f"Player.{self.name}"


class ResultKind(IntEnum):
    """Final game value (RG19 4.6.2): single 1, gammon 2, backgammon 3."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    def __repr__(self) -> str:
        return f"ResultKind.{self.name}"


class CubeAction(Enum):
    """What a player may do with the cube (RG19 4.4.2-4.4.5, STD Optional-2 for the beaver)."""

    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


class Termination(Enum):
    """How a game ended."""

    BEAR_OFF = "bear_off"  # STD Object, RG19 4.2.1
    PASS = "pass"  # a double refused, RG19 4.6.2 / A7.12
    RESIGN = "resign"  # a concession accepted, RG19 4.5.1
    CLAIM = "claim"  # a valid claim, RG19 4.5.2
    FORFEIT = "forfeit"  # the loser abandoned the match (online sites); the winner gets what he needed


class DeadCubeRule(Enum):
    """Which reading of the dead-cube rule applies (DIGEST A7.11).

    ``RG19``: a player must not double when winning the game at the current value wins him the
    match (RG19 4.4.8; WB23 4.4(vii) reads the same): ``value >= away(doubler)``.
    ``US09``: once the cube is high enough that the match ends with this game, nobody doubles
    (US09 5.6, DIGEST's interpretation): ``value >= max(away(first), away(second))``.
    ``NONE``: no dead-cube restriction (money play has none).
    """

    RG19 = "rg19"
    US09 = "us09"
    NONE = "none"


class MatchError(ValueError):
    """A match action that the rules do not allow. ``rule`` names the rule section."""

    rule: str = ""

    def __init__(self, message: str, rule: str = "") -> None:
        rule = rule or type(self).rule
        super().__init__(f"{message} ({rule})" if rule else message)
        self.message = message
        self.rule = rule


class CubeError(MatchError):
    """A cube action the cube rules forbid."""

    rule = "RG19 4.4.2"


class NoCubeAccessError(CubeError):
    """The opponent owns the cube (RG19 4.4.2, DIGEST A7.4)."""

    rule = "RG19 4.4.2"


class CrawfordDoubleError(CubeError):
    """No cube action in the Crawford game (RG19 4.4.7, DIGEST A7.10)."""

    rule = "RG19 4.4.7"


class DeadCubeError(CubeError):
    """Doubling a dead cube (RG19 4.4.8, DIGEST A7.11)."""

    rule = "RG19 4.4.8"


class CubeLimitError(CubeError):
    """The double would exceed the agreed cube limit (a site or event setting)."""

    rule = "cube limit"


class NoOfferError(CubeError):
    """Take, pass or beaver without a double pending (RG19 4.4.5)."""

    rule = "RG19 4.4.5"


class OfferPendingError(CubeError):
    """A double is pending: only take, pass (or beaver) may follow (RG19 4.4.5)."""

    rule = "RG19 4.4.5"


class BeaverError(CubeError):
    """Beavers are a money-play option only (STD Optional-2; forbidden by RG19 4.4.10)."""

    rule = "RG19 4.4.10"


class MatchOverError(MatchError):
    """The match already has a winner."""

    rule = "US09 4.9"


class ResignationError(MatchError):
    """A concession or claim the position does not allow (RG19 4.5.1, 4.5.2)."""

    rule = "RG19 4.5.1"


@dataclass(frozen=True)
class MatchRules:
    """The settings of a match or money session.

    ``length`` 0 means money play (unlimited). The money options (``jacoby``, ``beavers``,
    ``automatic_doubles``) are STD Optional-1..3 and are rejected for matches, where RG19 4.4.10
    and WB23 4.4(viii) forbid them.
    """

    length: int = 0
    """Points to win the match; 0 for money play."""
    crawford: bool = True
    """Apply the Crawford rule (all tournament rule sets do: RG19 4.4.7)."""
    dead_cube: DeadCubeRule = DeadCubeRule.RG19
    """Reading of the dead-cube rule; ignored in money play."""
    jacoby: bool = False
    """Money play: gammons count single unless a double was offered (STD Optional-3)."""
    beavers: bool = False
    """Money play: a doubled player may redouble at once and keep the cube (STD Optional-2)."""
    automatic_doubles: int = 0
    """Money play: how many automatic doubles per game on tied opening rolls (STD Optional-1)."""
    cube_limit: int | None = None
    """Highest cube value allowed (e.g. 1024 on online sites), or None for no limit."""

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"match length must be 0 (money) or positive, got {self.length}")
        if self.length > 0 and (self.jacoby or self.beavers or self.automatic_doubles):
            raise ValueError(
                "Jacoby, beavers and automatic doubles are money-play options; they are not "
                "allowed in match play (RG19 4.4.10, WB23 4.4(viii)). Use length=0 for money play."
            )
        if self.automatic_doubles < 0:
            raise ValueError(f"automatic_doubles must be >= 0, got {self.automatic_doubles}")
        if self.cube_limit is not None and (self.cube_limit < 1 or self.cube_limit & (self.cube_limit - 1)):
            raise ValueError(f"cube_limit must be a power of two, got {self.cube_limit}")

    @property
    def money(self) -> bool:
        return self.length == 0

    @classmethod
    def money_play(
        cls, *, jacoby: bool = True, beavers: bool = False, automatic_doubles: int = 0
    ) -> MatchRules:
        """Money-play settings (STD Optional); Jacoby on by default as is usual."""
        return cls(
            length=0,
            crawford=False,
            dead_cube=DeadCubeRule.NONE,
            jacoby=jacoby,
            beavers=beavers,
            automatic_doubles=automatic_doubles,
        )


@dataclass(frozen=True)
class CubeState:
    """The cube: its correct value (RG19 4.4.3), owner (None = centred) and a pending offer."""

    value: int = 1
    """Correct current value, 2^N for N accepted doubles (times automatic doubles)."""
    owner: Player | None = None
    """Who owns the cube; None while centred (both have access, RG19 4.4.2)."""
    offered_by: Player | None = None
    """The player whose double is waiting for take or pass."""
    beavered: bool = False
    """The pending offer is a beaver (the doubled player redoubled and keeps the cube)."""

    @property
    def offered_value(self) -> int | None:
        return None if self.offered_by is None else self.value * 2

    def has_access(self, player: Player) -> bool:
        """Cube access (RG19 4.4.2): centred, or owned by ``player``."""
        return self.owner is None or self.owner is player


@dataclass(frozen=True)
class GameResult:
    """How a game ended and what it scored (RG19 4.6.2)."""

    winner: Player
    kind: ResultKind
    cube: int
    """Final cube value (for a pass: the value before the refused double)."""
    termination: Termination
    points: int
    """Points added to the winner's score."""

    @property
    def loser(self) -> Player:
        return self.winner.other


@dataclass(frozen=True)
class MatchState:
    """The state of a match between games and during one, as far as the cube and score go.

    Build with :meth:`new`; every action returns a new state. ``score`` is uncapped: a player
    may pass the match length (a site may print a capped "Wins N"; see rules.replay).
    """

    rules: MatchRules
    score: tuple[int, int] = (0, 0)
    game: int = 1
    """Number of the current game, from 1."""
    crawford: bool = False
    """The current game is the Crawford game (RG19 4.4.7)."""
    crawford_done: bool = False
    """The Crawford game has been played (later games are post-Crawford)."""
    cube: CubeState = field(default_factory=CubeState)
    doubled: bool = False
    """A double was offered in this game (for the Jacoby rule, STD Optional-3)."""
    automatic: int = 0
    """Automatic doubles so far in this game (STD Optional-1)."""
    winner: Player | None = None
    """Winner of the match, once decided."""
    results: tuple[GameResult, ...] = ()
    """Results of the finished games, in order."""

    # construction ------------------------------------------------------------------------
    @classmethod
    def new(cls, rules: MatchRules | int = 0, score: tuple[int, int] = (0, 0)) -> MatchState:
        """A match at ``score`` (default 0-0) with a fresh game. ``rules`` may be a length."""
        if isinstance(rules, int):
            rules = MatchRules(length=rules) if rules > 0 else MatchRules.money_play()
        if any(s < 0 for s in score):
            raise ValueError(f"a score cannot be negative: {score}")
        state = cls(rules=rules, score=score)
        if rules.length:
            if max(score) >= rules.length:
                raise ValueError(f"score {score[0]}-{score[1]} already ends a {rules.length}-point match")
            # Starting from a score where a player is 1-away, we cannot know whether the Crawford
            # game was played; assume this is it only if exactly one player is 1-away and the
            # other is not (the usual case of entering a score by hand). Use with_crawford() to set it.
            crawford = rules.crawford and (score[0] == rules.length - 1) != (score[1] == rules.length - 1)
            state = replace(state, crawford=crawford)
        return state

    def with_crawford(self, crawford: bool, crawford_done: bool | None = None) -> MatchState:
        """The same state with the Crawford flags set explicitly (for positions read from IDs)."""
        return replace(
            self,
            crawford=crawford,
            crawford_done=self.crawford_done if crawford_done is None else crawford_done,
        )

    # queries -----------------------------------------------------------------------------
    @property
    def length(self) -> int:
        return self.rules.length

    @property
    def money(self) -> bool:
        return self.rules.length == 0

    @property
    def post_crawford(self) -> bool:
        """A game after the Crawford game (DIGEST A7.11: the leader may never double)."""
        return self.crawford_done and not self.crawford

    @property
    def over(self) -> bool:
        return self.winner is not None

    def away(self, player: Player) -> int:
        """Points ``player`` still needs (match play only)."""
        if self.money:
            raise ValueError("'away' has no meaning in money play (match length 0)")
        return max(0, self.length - self.score[player])

    def is_dead_cube(self, player: Player) -> bool:
        """True if ``player`` must not double because the cube is dead (RG19 4.4.8).

        RG19/WB23 reading: winning this game at the current value already wins ``player`` the
        match. US09 reading (DIGEST A7.11): the cube is high enough that the match ends with
        this game whoever wins it.
        """
        if self.money or self.rules.dead_cube is DeadCubeRule.NONE:
            return False
        value = self.cube.value
        if self.rules.dead_cube is DeadCubeRule.RG19:
            return value >= self.away(player)
        return value >= max(self.away(Player.FIRST), self.away(Player.SECOND))

    def double_error(self, player: Player) -> MatchError | None:
        """Why ``player`` may not double now, or None if he may (before his roll, on his turn).

        Checks, in order: match over, offer pending, access (RG19 4.4.2), Crawford game
        (RG19 4.4.7), dead cube (RG19 4.4.8), cube limit. The caller checks the timing (own turn,
        before the first attempt to roll: RG19 4.4.2, DIGEST A7.3).
        """
        if self.winner is not None:
            return MatchOverError(f"the match is over ({self.winner.name} won)")
        if self.cube.offered_by is not None:
            return OfferPendingError(
                f"a double by {self.cube.offered_by.name} to {self.cube.offered_value} is pending; "
                "take or pass comes first"
            )
        if not self.cube.has_access(player):
            return NoCubeAccessError(
                f"{player.name} has no cube access: {self.cube.owner.name if self.cube.owner is not None else '?'} "
                f"owns the cube at {self.cube.value}"
            )
        if self.crawford:
            return CrawfordDoubleError(
                f"no doubling in the Crawford game (score {self.score[0]}-{self.score[1]} "
                f"of {self.length})"
            )
        if self.is_dead_cube(player):
            if self.rules.dead_cube is DeadCubeRule.US09:
                return DeadCubeError(
                    f"dead cube: at value {self.cube.value} the match ends with this game "
                    f"({self.away(Player.FIRST)}-away, {self.away(Player.SECOND)}-away)",
                    "US09 5.6",
                )
            return DeadCubeError(
                f"dead cube: {player.name} is {self.away(player)}-away and the cube is at "
                f"{self.cube.value}, so winning this game already wins the match"
            )
        if self.rules.cube_limit is not None and self.cube.value * 2 > self.rules.cube_limit:
            return CubeLimitError(f"the cube is at its limit {self.rules.cube_limit}")
        return None

    def may_double(self, player: Player) -> bool:
        return self.double_error(player) is None

    def legal_cube_actions(self, player: Player, *, before_roll: bool = True) -> frozenset[CubeAction]:
        """The cube actions open to ``player`` now.

        With a double pending, the doubled player may take or pass, and in money play with
        beavers on, beaver (once). Otherwise ``player`` may double if it is his turn before his
        roll (``before_roll``) and :meth:`double_error` finds nothing.
        """
        if self.winner is not None:
            return frozenset()
        if self.cube.offered_by is not None:
            if player is self.cube.offered_by:
                return frozenset()
            actions = {CubeAction.TAKE, CubeAction.PASS}
            if self.rules.money and self.rules.beavers and not self.cube.beavered:
                actions.add(CubeAction.BEAVER)
            return frozenset(actions)
        if before_roll and self.may_double(player):
            return frozenset({CubeAction.DOUBLE})
        return frozenset()

    # cube actions ------------------------------------------------------------------------
    def double(self, player: Player) -> MatchState:
        """``player`` offers a double. Raises a :class:`CubeError` subclass if not allowed."""
        error = self.double_error(player)
        if error is not None:
            raise error
        return replace(self, cube=replace(self.cube, offered_by=player, beavered=False), doubled=True)

    def take(self, player: Player) -> MatchState:
        """``player`` accepts the pending double and owns the cube at twice the value (RG19 4.4.2).

        After a beaver, the original doubler takes: the cube goes to 4x with the beaverer owning it.
        """
        offer = self._pending_offer(player, "take")
        if self.cube.beavered:
            new_cube = CubeState(value=self.cube.value * 2, owner=offer)  # beaverer keeps it
        else:
            new_cube = CubeState(value=self.cube.value * 2, owner=player)
        return replace(self, cube=new_cube)

    def beaver(self, player: Player) -> MatchState:
        """``player``, just doubled, redoubles at once and keeps the cube (STD Optional-2).

        The cube is taken at 2x and offered back at 4x; the original doubler takes or passes.
        """
        doubler = self._pending_offer(player, "beaver")
        if not (self.rules.money and self.rules.beavers):
            raise BeaverError("beavers are off (a money-play option, STD Optional-2)")
        if self.cube.beavered:
            raise BeaverError("a beaver cannot be beavered again (raccoons are not supported)")
        del doubler  # the original doubler now takes or passes the beaver
        return replace(
            self, cube=CubeState(value=self.cube.value * 2, owner=player, offered_by=player, beavered=True)
        )

    def pass_(self, player: Player) -> MatchState:
        """``player`` refuses the pending double: the doubler wins at the value before it.

        RG19 4.6.2 / STD Doubling (DIGEST A7.12): final game value 1, final cube value the
        current (pre-double) value. After a beaver, refusing costs the beavered value (2x).
        """
        doubler = self._pending_offer(player, "pass")
        return self.end_game(doubler, ResultKind.SINGLE, Termination.PASS)

    def _pending_offer(self, player: Player, what: str) -> Player:
        if self.winner is not None:
            raise MatchOverError(f"the match is over ({self.winner.name} won); no {what}")
        doubler = self.cube.offered_by
        if doubler is None:
            raise NoOfferError(f"{player.name} cannot {what}: no double is pending")
        if doubler is player:
            raise NoOfferError(f"{player.name} cannot {what} his own double")
        return doubler

    def automatic_double(self) -> MatchState:
        """A tied opening roll doubles the stake, cube stays centred (STD Optional-1).

        Raises if automatic doubles are off or this game's limit is reached.
        """
        limit = self.rules.automatic_doubles
        if not (self.rules.money and limit):
            raise CubeError("automatic doubles are off (a money-play option)", "STD Optional-1")
        if self.automatic >= limit:
            raise CubeError(f"the limit of {limit} automatic double(s) per game is reached", "STD Optional-1")
        if self.cube.value != 1 and self.cube.owner is not None:
            raise CubeError("automatic doubles happen before any double", "STD Optional-1")
        return replace(self, cube=replace(self.cube, value=self.cube.value * 2), automatic=self.automatic + 1)

    # scoring -----------------------------------------------------------------------------
    def points_for(self, kind: ResultKind) -> int:
        """Points a game ending now with ``kind`` scores (RG19 4.6.2; Jacoby STD Optional-3)."""
        value = int(kind)
        if self.rules.money and self.rules.jacoby and not self.doubled:
            value = 1
        return value * self.cube.value

    def end_game(self, winner: Player, kind: ResultKind, termination: Termination = Termination.BEAR_OFF) -> MatchState:
        """Score the current game and start the next one (or end the match).

        A pending offer is dropped unless ``termination`` is PASS (the pass scores the value
        before the double). The Crawford game is the first game after a player reaches
        match length - 1 (RG19 4.4.7).
        """
        if self.winner is not None:
            raise MatchOverError(f"the match is over ({self.winner.name} won); no further games")
        if termination is Termination.PASS:
            if self.cube.offered_by is not winner:
                raise NoOfferError("a game ends by a pass only when the winner's double is pending")
            kind = ResultKind.SINGLE
        points = self.points_for(kind)
        result = GameResult(winner=winner, kind=kind, cube=self.cube.value, termination=termination, points=points)
        score = list(self.score)
        score[winner] += points
        new_score = (score[0], score[1])
        match_winner: Player | None = None
        crawford = False
        crawford_done = self.crawford_done or self.crawford
        if self.length:
            if new_score[winner] >= self.length:
                match_winner = winner
            elif self.rules.crawford and not crawford_done and max(new_score) == self.length - 1:
                crawford = True
        return MatchState(
            rules=self.rules,
            score=new_score,
            game=self.game + 1,
            crawford=crawford,
            crawford_done=crawford_done,
            cube=CubeState(),
            doubled=False,
            automatic=0,
            winner=match_winner,
            results=(*self.results, result),
        )

    def next_game_unscored(self) -> MatchState:
        """The next game after one whose end was not seen (the board set up again): its own number, the
        cube centred, the Crawford game (if this was it) behind; the score as it was, until the result
        is recorded (no result is added)."""
        if self.winner is not None:
            raise MatchOverError(f"the match is over ({self.winner.name} won); no further games")
        return replace(self, game=self.game + 1, cube=CubeState(), doubled=False, automatic=0, crawford=False,
                       crawford_done=self.crawford_done or self.crawford)

    def resign(self, loser: Player, kind: ResultKind = ResultKind.SINGLE) -> MatchState:
        """``loser`` concedes the game as a single game, gammon or backgammon and the concession is
        accepted (RG19 4.5.1); scored like a finished game of that kind. Whether the position
        allows the concession is :func:`rules.scoring.check_resignation`'s question."""
        if self.cube.offered_by is not None and self.cube.offered_by is not loser:
            raise OfferPendingError(
                f"{loser.name} faces a double: take or pass it (a pass concedes at {self.cube.value})"
            )
        state = self if self.cube.offered_by is None else replace(self, cube=replace(self.cube, offered_by=None))
        return state.end_game(loser.other, kind, Termination.RESIGN)

    def forfeit(self, winner: Player) -> MatchState:
        """The opponent of ``winner`` abandons the match: ``winner`` is credited the points he
        needed and wins it (online sites record this as 'Wins N point and the match'). Not a
        tournament rule: a referee reports it, it does not offer it."""
        if self.winner is not None:
            raise MatchOverError(f"the match is over ({self.winner.name} won)")
        if self.money:
            raise ValueError("a forfeit ends a match; money play has no match to forfeit")
        needed = self.away(winner)
        score = list(self.score)
        score[winner] += needed
        result = GameResult(winner=winner, kind=ResultKind.SINGLE, cube=self.cube.value,
                            termination=Termination.FORFEIT, points=needed)
        return replace(
            self,
            score=(score[0], score[1]),
            game=self.game + 1,
            crawford=False,
            cube=CubeState(),
            winner=winner,
            results=(*self.results, result),
        )

    def __str__(self) -> str:
        if self.money:
            head = f"money play, game {self.game}, score {self.score[0]}-{self.score[1]}"
        else:
            head = f"{self.length}-point match, game {self.game}, score {self.score[0]}-{self.score[1]}"
            if self.crawford:
                head += " (Crawford)"
            elif self.post_crawford:
                head += " (post-Crawford)"
        owner = "centred" if self.cube.owner is None else f"owned by {self.cube.owner.name}"
        cube = f"cube {self.cube.value} {owner}"
        if self.cube.offered_by is not None:
            cube += f", {self.cube.offered_by.name} offers {self.cube.offered_value}"
        tail = f", {self.winner.name} won the match" if self.winner is not None else ""
        return f"{head}, {cube}{tail}"
