"""Random Welsh games and matches with invariant checks (the 100,000-game benchmark and tests).

Every decision is random: throws, plays (:func:`~rules.welsh.movegen.sample_play`), raising the
doubling die, nominating, re-throwing 1-2, the single die of a full spread, concession offers and
answers, and a simple clock (so Ten For Two, breaks and time-outs happen too).  After every turn
the invariants are checked: 15 men a side, no mixed spikes, at most 6 men on a spike, never two
full spikes for the player who just moved, at most 2 men on a roof while a game goes on, the
doubling die a power of two up to 64, and the match scores equal to the games recorded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from rules.welsh.alerts import WelshRuleError
from rules.welsh.game import Ending, WelshGame
from rules.welsh.geometry import FULL_SPIKE, MEN, ROOF
from rules.welsh.match import WelshMatch
from rules.welsh.movegen import Play, Throw, legal_plays, sample_play
from rules.welsh.options import WelshOptions
from rules.welsh.position import WelshPosition, position_problem

#: seconds-per-turn multipliers drawn per match: slow matches reach Ten For Two (R12b), the
#: 35-minute break and time-outs (R12a)
PACES = (1.0, 1.0, 1.0, 3.0, 6.0)


@dataclass
class Stats:
    """Counters over random games."""

    games: int = 0
    matches: int = 0
    turns: int = 0
    violations: list[str] = field(default_factory=list)
    endings: dict[str, int] = field(default_factory=dict)
    events: dict[str, int] = field(default_factory=dict)
    checked_plays: int = 0

    def add_ending(self, name: str) -> None:
        self.endings[name] = self.endings.get(name, 0) + 1

    def add_match(self, match: WelshMatch) -> None:
        """Count a finished (or stopped) match's events and break triggers."""
        self.matches += 1
        for e in match.events:
            self.events[e.code] = self.events.get(e.code, 0) + 1
        if match.breaks:
            self.events["WEL_BREAK_TRIGGER"] = self.events.get("WEL_BREAK_TRIGGER", 0) + len(match.breaks)
        if match.over:
            s = match.settlement()
            if s.match_payment < 0:
                self.violations.append(f"negative payment {s}")


class Observer:
    """Told of every decision a random game makes, in order (e.g. to write it as a table-state
    stream, :mod:`rules.welsh.script`).  The default does nothing."""

    def new_game(self, match: WelshMatch, game: WelshGame, clocks: tuple[float, float]) -> None: ...

    def turn_start(self, game: WelshGame, player: int, clocks: tuple[float, float]) -> None: ...

    def timed_out(self, match: WelshMatch, player: int, clocks: tuple[float, float]) -> None: ...

    def raised(self, game: WelshGame, player: int) -> None: ...

    def nominated(self, game: WelshGame, by: int, for_player: int, throw: Throw) -> None: ...

    def thrown(self, game: WelshGame, player: int, dice: Throw, nominated: bool, outcome: str) -> None: ...

    def rethrown(self, game: WelshGame, player: int) -> None: ...

    def played(self, game: WelshGame, player: int, play: Play, cube_before: int) -> None: ...

    def conceded(self, game: WelshGame, by: int, games: int, payment: bool, accept: bool) -> None: ...


_QUIET = Observer()


def position_violations(pos: WelshPosition, mover: int | None, game_over: bool) -> list[str]:
    out = []
    problem = position_problem(pos.men[0], pos.men[1])
    if problem:
        out.append(problem)
    for p in (0, 1):
        side = pos.men[p]
        if sum(side) != MEN:
            out.append(f"player {p} has {sum(side)} men")
        if any(side[r] > FULL_SPIKE for r in range(1, 25)):
            out.append(f"player {p} has more than {FULL_SPIKE} men on a spike")
        if not game_over and side[ROOF] > 2:
            out.append(f"player {p} has {side[ROOF]} men on the roof and the game goes on")
    if mover is not None and not game_over and len(pos.full_spikes(mover)) >= 2:
        out.append(f"player {mover} ended his turn with two full spikes")
    return out


def play_random_game(
    match: WelshMatch,
    rng: random.Random,
    stats: Stats,
    clocks: list[float],
    cross_check: bool = False,
    max_turns: int = 5000,
    pace: float = 1.0,
    avoid_wash: bool = True,
    observer: Observer = _QUIET,
) -> None:
    """Play one game of ``match`` to its end with random decisions (``observer`` is told of each)."""
    starter = match.next_starter()
    game = match.new_game(rng.randrange(2) if starter is None else None, clocks=(clocks[0], clocks[1]))
    observer.new_game(match, game, (clocks[0], clocks[1]))
    turns = 0
    while not game.over:
        turns += 1
        if turns > max_turns:
            stats.violations.append(f"game {stats.games}: no end after {max_turns} turns")
            return
        p = game.turn
        clocks[p] -= pace * rng.uniform(0.5, 4.0)
        if clocks[p] <= 0:
            match.time_out(p)
            observer.timed_out(match, p, (clocks[0], clocks[1]))
            break
        observer.turn_start(game, p, (clocks[0], clocks[1]))
        _random_cube_and_nomination(game, rng, observer)
        single = bool(game.position.full_spreads(p)) and p not in game.nominations.pending and rng.random() < 0.3
        dice = game.nominations.pending.get(p)
        nominated = dice is not None
        if dice is None:
            dice = (rng.randint(1, 6),) if single else (rng.randint(1, 6), rng.randint(1, 6))
        outcome = game.throw(dice, single_die=single)
        observer.thrown(game, p, dice, nominated, outcome)
        if outcome == "rethrow":
            continue
        if outcome == "over":
            break
        if game.may_rethrow_acey_deucey() and rng.random() < 0.5:
            game.rethrow_acey_deucey()
            observer.rethrown(game, p)
            continue
        if game.nominations.used[p] is False and game.concession_window is None and rng.random() < 0.002:
            t = (rng.randint(1, 6), rng.randint(1, 6))
            try:
                game.nominate(p, 1 - p, t)
                observer.nominated(game, p, 1 - p, t)
            except WelshRuleError:
                pass
        assert game.throw_value is not None
        play = sample_play(game.position, p, game.throw_value, rng, game.options, game.rovers)
        res = play.result
        if avoid_wash and play.ending is None and res.full_spikes(0) and res.full_spikes(1) and rng.random() < 0.95:
            # a purely random player washes most games by candlesticks (R22 i); steering away
            # from it most of the time lets the games reach the later rules
            others = [
                x
                for x in legal_plays(game.position, p, game.throw_value, game.options, game.rovers)
                if x.ending or not (x.result.full_spikes(0) and x.result.full_spikes(1))
            ]
            if others:
                play = others[rng.randrange(len(others))]
        if cross_check:
            legal = {x.result for x in legal_plays(game.position, p, game.throw_value, game.options, game.rovers)}
            stats.checked_plays += 1
            if play.result not in legal:
                stats.violations.append(f"sampled play {play} is not in the legal list")
        cube_before = game.cube
        game.apply_play(play)
        observer.played(game, p, play, cube_before)
        stats.turns += 1
        for v in position_violations(game.position, p, game.over):
            stats.violations.append(f"game {stats.games} turn {turns}: {v}")
        if game.cube not in (1, 2, 4, 8, 16, 32, 64):
            stats.violations.append(f"doubling die shows {game.cube}")
        _random_concession(game, rng, observer)
    stats.games += 1
    for e in game.events:
        stats.events[e.code] = stats.events.get(e.code, 0) + 1
    if game.result is not None:
        stats.add_ending(game.result.ending.value)
        r = game.result
        if r.ending in (Ending.CHECKOUT, Ending.BOXES_OUT):
            winner = r.winner
            assert winner is not None
            if game.position.checked_out(winner) != MEN:
                stats.violations.append(f"{r.ending.value} win without 15 men off")
            if r.games[winner] != r.cube * r.multiplier:
                stats.violations.append(f"score {r.games} is not die {r.cube} x {r.multiplier}")
        if r.ending is Ending.THREE_ON_ROOF and game.position.on_roof(1 - (r.winner or 0)) < 3:
            stats.violations.append("three-on-the-roof ending without three men on the roof")
    problem = match.check_consistency()
    if problem:
        stats.violations.append(problem)


def _random_cube_and_nomination(game: WelshGame, rng: random.Random, observer: Observer = _QUIET) -> None:
    p = game.turn
    if game.can_raise(p) is None and rng.random() < 0.02:
        game.raise_cube(p)
        observer.raised(game, p)
    if not game.nominations.used[p] and p not in game.nominations.pending and rng.random() < 0.003:
        t = (rng.randint(1, 6), rng.randint(1, 6))
        try:
            game.nominate(p, p, t)
            observer.nominated(game, p, p, t)
        except WelshRuleError:
            pass


def _random_concession(game: WelshGame, rng: random.Random, observer: Observer = _QUIET) -> None:
    w = game.concession_window
    if w is None or game.over or rng.random() < 0.5:
        return
    by = w[0]
    top = game.exposure(by)
    if top <= 1:
        return
    games = rng.randint(1, top - 1)
    payment = rng.random() < 0.5
    game.offer_concession(by, games, with_payment=payment)
    accept = game.offer_mandatory() or rng.random() < 0.5
    game.answer_concession(accept)
    observer.conceded(game, by, games, payment, accept)


def play_random_match(
    rng: random.Random,
    stats: Stats,
    options: WelshOptions | None = None,
    game_limit: int | None = None,
    cross_check: bool = False,
    observer: Observer = _QUIET,
) -> WelshMatch:
    """A whole match (or its first ``game_limit`` games) with random decisions."""
    match = WelshMatch(options or WelshOptions())
    clocks = [float(match.options.clock_seconds)] * 2
    pace = rng.choice(PACES)
    while not match.over and (game_limit is None or len(match.results) < game_limit):
        play_random_game(match, rng, stats, clocks, cross_check, pace=pace, observer=observer)
    stats.add_match(match)
    return match


def run(games: int, seed: int = 0, cross_check_every: int = 0) -> Stats:
    """Play random matches until ``games`` games have been played."""
    rng = random.Random(seed)
    stats = Stats()
    while stats.games < games:
        match = WelshMatch(WelshOptions())
        clocks = [float(match.options.clock_seconds)] * 2
        pace = rng.choice(PACES)
        while not match.over and stats.games < games:
            check = cross_check_every > 0 and stats.games % cross_check_every == 0
            play_random_game(match, rng, stats, clocks, check, pace=pace)
        stats.add_match(match)
    return stats
