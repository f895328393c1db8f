"""A Welsh match: games to 25, who starts, Ten For Two, breaks, penalties and prizes (C.4, C.18,
C.23, C.24; R1, R7, R12, R17b, R23, (D)).

Money is counted in pence (ints) to keep sums exact; :func:`pounds` formats it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rules.welsh.alerts import WelshEvent, WelshRuleError
from rules.welsh.game import Ending, GameResult, Nominations, WelshGame
from rules.welsh.options import WelshOptions

Call = Literal["odds", "evens"]


def odds_evens_chooser(shaker: int, hidden_sum: int, call: Call) -> int:
    """R7: the caller (the other player) chooses who goes first if his call is right, else the
    shaker chooses.  Returns the player who makes the choice."""
    if call not in ("odds", "evens"):
        raise ValueError(f"call must be 'odds' or 'evens', got {call!r}")
    if not 2 <= hidden_sum <= 12:
        raise ValueError(f"the hidden throw's sum must be 2..12, got {hidden_sum}")
    right = (hidden_sum % 2 == 1) == (call == "odds")
    return 1 - shaker if right else shaker


def pounds(pence: int) -> str:
    sign = "-" if pence < 0 else ""
    return f"{sign}£{abs(pence) // 100}.{abs(pence) % 100:02d}"


@dataclass
class ScoopPot:
    """R23 BG Scoop-Pot: games played since the last collection; runs across matches (W36)."""

    games: int = 0


@dataclass(frozen=True)
class Settlement:
    """What the match loser pays the winner (R23), in pence, with each part named."""

    winner: int
    loser: int
    standard: int
    set_payment: int
    nil: int
    scoop: tuple[tuple[int, int], ...]
    """(collector, pence) for each scoop-pot collection during the match."""

    @property
    def match_payment(self) -> int:
        """Loser -> winner, before scoop-pot collections."""
        return self.standard + self.set_payment + self.nil


@dataclass
class WelshMatch:
    """The match state: scores, games, nominate cards, clocks' triggers, breaks, penalties."""

    options: WelshOptions = field(default_factory=WelshOptions)
    scores: list[int] = field(default_factory=lambda: [0, 0])
    results: list[GameResult] = field(default_factory=list)
    nominations: Nominations = field(default_factory=Nominations)
    scoop_pot: ScoopPot = field(default_factory=ScoopPot)
    scoop_collections: list[tuple[int, int]] = field(default_factory=list)
    penalties: list[tuple[int, int, str]] = field(default_factory=list)
    breaks: list[tuple[int, str]] = field(default_factory=list)
    events: list[WelshEvent] = field(default_factory=list)
    winner: int | None = None
    ending: Ending | str | None = None
    game: WelshGame | None = None
    games_won: list[int] = field(default_factory=lambda: [0, 0])
    _thresholds_seen: set[int] = field(default_factory=set)
    _under_35_seen: bool = False
    _last_starter: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    # ---- starting games ------------------------------------------------------------------------
    def next_starter(self) -> int | None:
        """Who goes first in the next game, or None when odds and evens must decide (R7, W30)."""
        if not self.results:
            return None
        last = self.results[-1]
        if last.winner is not None and not last.is_wash:
            return 1 - last.winner  # mugs away: the loser starts
        if self.options.wash_starter == "other_player" and self._last_starter is not None:
            return 1 - self._last_starter
        return None

    def start_cube(self, clocks: tuple[float, float] | None) -> int:
        """The doubling die's value at the start of a game: 2 under Ten For Two (R12b: both clocks
        show 00:01-09:59 when the game is due to start, W34), else 1."""
        if clocks is not None and all(0 < c < self.options.ten_for_two_seconds for c in clocks):
            return 2
        return 1

    def new_game(self, first_player: int | None = None, clocks: tuple[float, float] | None = None) -> WelshGame:
        """Start the next game.  ``first_player`` is required when :meth:`next_starter` is None
        (first game, or after a wash); ``clocks`` (seconds left) drive Ten For Two (R12b)."""
        if self.over:
            raise WelshRuleError("WEL_MATCH_WON", "the match is over")
        if self.game is not None and self.game.result is None:
            raise WelshRuleError("WEL_OUT_OF_TURN", "the current game has not finished")
        due = self.next_starter()
        if due is not None:
            if first_player is not None and first_player != due:
                raise WelshRuleError("WEL_OUT_OF_TURN", f"{('Red', 'Black')[due]} starts this game (mugs away)")
            first_player = due
        if first_player is None:
            raise ValueError("who starts is decided by odds and evens: pass first_player (see odds_evens_chooser)")
        cube = self.start_cube(clocks)
        if clocks is not None:
            if cube == 2:
                self.events.append(WelshEvent("WEL_TEN_FOR_TWO", None))
            if all(c < 35 * 60 for c in clocks) and not self._under_35_seen:
                self._under_35_seen = True
                self.breaks.append((len(self.results), "both clocks under 35 minutes"))
        self._last_starter = first_player
        self.game = WelshGame(
            first_player,
            self.options,
            cube=cube,
            scores=(self.scores[0], self.scores[1]),
            nominations=self.nominations,
            on_end=self._record,
        )
        need = self.options.match_length
        if any(s + cube * self.options.backgammon_multiplier >= need for s in self.scores):
            self.events.append(WelshEvent("WEL_MATCH_GAME", None, "this game can decide the match"))
        return self.game

    # ---- results --------------------------------------------------------------------------------
    def _record(self, result: GameResult) -> None:
        self.results.append(result)
        self.scoop_pot.games += 1
        if result.ending is Ending.RECTANGLE:
            self._finish(result.winner, Ending.RECTANGLE)
            return
        if result.ending is Ending.TIMED_OUT:
            self._finish(result.winner, Ending.TIMED_OUT)
            return
        self._add_games(result.games)
        if result.winner is not None and not result.is_wash:
            self.games_won[result.winner] += 1
        if result.backgammon and result.winner is not None:
            self.scoop_collections.append((result.winner, self.scoop_pot.games * 100))
            self.scoop_pot.games = 0
            self.breaks.append((len(self.results), "backgammon"))
        if result.last_throw is not None and sorted(result.last_throw) == [2, 3]:
            self.breaks.append((len(self.results), "time for tea: the last throw was 2-3"))
        self._check_match_end()

    def _add_games(self, games: tuple[int, int]) -> None:
        for p in (0, 1):
            if games[p]:
                self.scores[p] += games[p]
                if self.scores[p] in (6, 12, 18, 24) and self.scores[p] not in self._thresholds_seen:
                    self._thresholds_seen.add(self.scores[p])
                    self.breaks.append((len(self.results), f"games-score of exactly {self.scores[p]}"))

    def _check_match_end(self) -> None:
        need = self.options.match_length
        a, b = self.scores
        if max(a, b) < need:
            return
        if a == b:
            if self.options.both_reach_rule == "first_listed":
                self._finish(0, "score")
            return  # W33: one more game decides
        self._finish(0 if a > b else 1, "score")

    def _finish(self, winner: int | None, how: Ending | str) -> None:
        self.winner = winner
        self.ending = how
        self.events.append(WelshEvent("WEL_MATCH_WON", winner, str(how)))

    def award_penalty(self, player: int, games: int, reason: str = "lateness ((D))") -> None:
        """(D): the official awards ``games`` penalty games to ``player``."""
        if games < 1:
            raise ValueError("penalty games are a positive number")
        if self.over:
            raise WelshRuleError("WEL_MATCH_WON", "the match is over")
        self.penalties.append((player, games, reason))
        self._add_games((games, 0) if player == 0 else (0, games))
        self._check_match_end()

    def time_out(self, player: int) -> None:
        """R12a: ``player`` ran out of time; the match is lost at once."""
        if self.game is not None and self.game.result is None:
            self.game.time_out(player)
        else:
            self.results.append(GameResult(Ending.TIMED_OUT, 1 - player, (0, 0), 1))
            self._finish(1 - player, Ending.TIMED_OUT)

    # ---- prizes (R23, C.24) ---------------------------------------------------------------------
    def settlement(self) -> Settlement:
        """R23 with W19 and W35: set payments replace only the standard part."""
        if self.winner is None:
            raise ValueError("the match is not over")
        return settle(
            self.winner,
            (self.scores[0], self.scores[1]),
            self.ending,
            self.games_won[1 - self.winner],
            tuple(self.scoop_collections),
            self.options,
        )

    def check_consistency(self) -> str | None:
        """The scores equal the sum of the games and penalties recorded (an invariant)."""
        total = [0, 0]
        for r in self.results:
            if r.ending in (Ending.RECTANGLE, Ending.TIMED_OUT):
                continue
            total[0] += r.games[0]
            total[1] += r.games[1]
        for p, g, _ in self.penalties:
            total[p] += g
        if total != self.scores:
            return f"scores {self.scores} but the games add up to {total}"
        if self.winner is None and max(self.scores) >= self.options.match_length and self.scores[0] != self.scores[1]:
            return f"scores {self.scores} reach the match length but the match is not over"
        return None


def settle(
    winner: int,
    scores: tuple[int, int],
    ending: Ending | str | None,
    loser_games_won: int,
    scoop: tuple[tuple[int, int], ...],
    options: WelshOptions,
) -> Settlement:
    """R23: £10 + 25p per game of difference; rectangle £7.50, time-out £20 instead; £25 for a
    match to nil; scoop-pot collections listed separately."""
    loser = 1 - winner
    standard = set_payment = 0
    if ending is Ending.RECTANGLE:
        set_payment = 750
    elif ending is Ending.TIMED_OUT:
        set_payment = 2000
    else:
        standard = 1000 + 25 * (scores[winner] - scores[loser])
    if options.nil_trigger == "score_zero":
        nil = 2500 if scores[loser] == 0 else 0
    else:
        nil = 2500 if loser_games_won == 0 else 0
    return Settlement(winner, loser, standard, set_payment, nil, scoop)
