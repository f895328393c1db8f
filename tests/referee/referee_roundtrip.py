"""Helpers: script a .mat to table states, referee them, compare the referee's record with the file."""

from __future__ import annotations

from pathlib import Path

from rules.matfile import EntryKind, MatMatch, load
from rules.position import Position
from rules.referee import Referee, TableState, get_profile
from rules.referee.setup import MatchSetup
from sim.script import ScriptOptions, script_match


def referee_match(match: MatMatch, rules: str = "usbgf-2019", options: ScriptOptions | None = None) -> Referee:
    steps = script_match(match, options)
    setup = MatchSetup.from_json(next(steps).record)
    ref = Referee(setup, get_profile(rules))
    for step in steps:
        rec = step.record
        if rec["type"] == "table_state":
            ref.feed(TableState.from_json(rec))
        elif rec["type"] == "announce":
            ref.announce(rec)
    return ref


def normalised(match: MatMatch) -> list[list[tuple[object, ...]]]:
    """Per game: rolls as (player, dice, position after), cube actions, and the winner with the points
    (capped at what the winner needed, as the sites write them)."""
    out = []
    score = list(match.games[0].score) if match.games else [0, 0]
    for game in match.games:
        pos = Position.start()
        first = True
        rows: list[tuple[object, ...]] = []
        for e in game.entries:
            p = int(e.player)
            if e.kind is EntryKind.ROLL:
                if first:
                    pos = pos.with_turn(p)
                    first = False
                if e.play is None:
                    rows.append(("roll?", p, tuple(e.dice or ())))
                    continue
                pos = pos.with_turn(p).apply(e.play, e.dice or (1, 1))
                rows.append(("roll", p, tuple(e.dice or ()), pos.boards()))
            elif e.kind in (EntryKind.DOUBLE, EntryKind.TAKE, EntryKind.DROP, EntryKind.BEAVER):
                rows.append((e.kind.value, p))
            elif e.kind is EntryKind.WIN:
                points = e.value or 0
                if match.length:
                    points = min(points, match.length - game.score[p])
                rows.append(("win", p, points))
        out.append(rows)
        del score
        score = list(game.score)
    return out


def check_file(path: Path, rules: str = "usbgf-2019") -> tuple[list[str], bool]:
    """(alert lines raised, whether the referee's record equals the file's)."""
    match = load(path)
    ref = referee_match(match, rules)
    flagged = [f"{a.code}: {a.message}" for a in ref.alerts if a.severity.is_alert]
    want = [g for g in normalised(match) if g]
    got = [g for g in normalised(ref.transcript()) if g]
    return flagged, want == got
