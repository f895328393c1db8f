"""Helpers: script a .mat to table states, referee them, compare the referee's record with the file."""

from __future__ import annotations

from pathlib import Path

from rules.match import GameResult, MatchState
from rules.matfile import EntryKind, MatGame, MatMatch, load
from rules.position import Position
from rules.referee import Referee, TableState, get_profile
from rules.referee.setup import MatchSetup
from rules.replay import ReplayVisitor, is_galaxy_money_game, replay_match
from rules.scoring import game_winner, result_kind
from sim.script import ScriptOptions, script_match


def referee_match(match: MatMatch, rules: str = "usbgf-2019", options: ScriptOptions | None = None) -> Referee:
    """Script the match and referee it. A Galaxy money game ('16 point match' of one game, decision
    record 0152) is refereed as money play with the Jacoby rule, as rules.replay reads it."""
    steps = script_match(match, options)
    setup = MatchSetup.from_json(next(steps).record)
    if is_galaxy_money_game(match):
        ref = Referee(setup.with_(length=0), get_profile("money", jacoby=True, beavers=False, automatic_doubles=0))
    else:
        ref = Referee(setup, get_profile(rules))
    for step in steps:
        rec = step.record
        if rec["type"] == "table_state":
            ref.feed(TableState.from_json(rec))
        elif rec["type"] == "announce":
            ref.announce(rec)
    return ref


Row = tuple[object, ...]


class _Results(ReplayVisitor):
    def __init__(self) -> None:
        self.results: dict[int, GameResult | None] = {}

    def end_game(self, game: MatGame, result: GameResult | None, state: MatchState) -> None:
        self.results[game.number] = result


def expected_record(match: MatMatch) -> tuple[list[list[Row]], list[str]]:
    """What a faithful referee must record for the file, per game: every roll as (player, dice, position
    after), every cube action, and the game's winner with the points the rules give (a bear-off: the
    final position's result times the cube; a pass: the cube; otherwise the file's own figure, a
    resignation). Points are capped at what the winner needed, as the sites write them.

    Also returns notes where the file's "Wins N" differs from what the rules give."""
    games: list[list[Row]] = []
    notes: list[str] = []
    visitor = _Results()
    replay_match(match, visitor)
    money = is_galaxy_money_game(match) or match.length == 0
    for game in match.games:
        pos = Position.start()
        first = True
        rows: list[Row] = []
        cube = 1
        ended: tuple[int, int] | None = None
        for e in game.entries:
            p = int(e.player)
            if e.kind is EntryKind.ROLL:
                assert e.dice is not None
                if first:
                    pos, first = pos.with_turn(p), False
                if e.play is None:
                    rows.append(("roll?", p, e.dice))
                    continue
                pos = pos.with_turn(p).apply(e.play, e.dice)
                rows.append(("roll", p, e.dice, pos.boards()))
                w = game_winner(pos)
                if w is not None:
                    ended = (w, int(result_kind(pos, w)) * cube)
            elif e.kind is EntryKind.DOUBLE:
                rows.append(("double", p))
            elif e.kind is EntryKind.TAKE:
                cube *= 2
                rows.append(("take", p))
            elif e.kind is EntryKind.DROP:
                rows.append(("drop", p))
                ended = (1 - p, cube)
            elif e.kind is EntryKind.WIN:
                written = e.value or 0
                winner, points = ended if ended is not None else (p, written)
                result = visitor.results.get(game.number)
                if result is not None:  # the rules engine's reading of the game (Jacoby, resignations)
                    winner, points = int(result.winner), result.points
                need = match.length - game.score[winner] if match.length and not money else points
                if min(points, need) != min(written, need) or winner != p:
                    notes.append(f"game {game.number}: the file says {match.players[p]} wins {written}, "
                                 f"the rules give {points} to {match.players[winner]}")
                rows.append(("win", winner, min(points, need)))
        games.append(rows)
    return games, notes


def recorded(ref: Referee) -> list[list[Row]]:
    """The referee's own record in the same form (positions replayed from its notation)."""
    games: list[list[Row]] = []
    match = ref.transcript()
    for game in match.games:
        pos = Position.start()
        first = True
        rows: list[Row] = []
        for e in game.entries:
            p = int(e.player)
            if e.kind is EntryKind.ROLL:
                assert e.dice is not None
                if first:
                    pos, first = pos.with_turn(p), False
                if e.play is None:
                    rows.append(("roll?", p, e.dice))
                    continue
                pos = pos.with_turn(p).apply(e.play, e.dice)
                rows.append(("roll", p, e.dice, pos.boards()))
            elif e.kind in (EntryKind.DOUBLE, EntryKind.TAKE):
                rows.append((e.kind.value, p))
            elif e.kind is EntryKind.DROP:
                rows.append(("drop", p))
            elif e.kind is EntryKind.WIN:
                need = match.length - game.score[p] if match.length and not ref.match.money else (e.value or 0)
                rows.append(("win", p, min(e.value or 0, need)))
        games.append(rows)
    return games


def check_file(path: Path, rules: str = "usbgf-2019") -> tuple[list[str], bool, list[str]]:
    """(alerts raised, whether the referee's record equals the file's, notes on the file)."""
    match = load(path)
    ref = referee_match(match, rules)
    flagged = [f"{a.code}: {a.message}" for a in ref.alerts if a.severity.is_alert]
    want, notes = expected_record(match)
    got = recorded(ref)
    return flagged, [g for g in want if g] == [g for g in got if g], notes
