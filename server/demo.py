"""``gammonwatch demo`` (interim): replay a real match transcript through the rules engine.

Until the live pipeline (simulated table -> vision -> referee -> monitor page) is wired up, the
demo replays a real 3-point match bundled with the package (``rules/data/demo_match.mat``, MIT
licence) and prints every position with the checks the engine made: the play is one of the legal
resulting positions for the roll (STD Movement, RG19 4.2.2), each cube action is allowed
(RG19 4.4.2 access, 4.4.7 Crawford, 4.4.8 dead cube), the score and the result of each game
(RG19 4.6.2). It then replays a copy with one move and one cube action altered, to show the
alerts the same checks raise.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from importlib import resources

from rules.diagram import diagram
from rules.match import CubeAction, GameResult, MatchState, Player
from rules.matfile import EntryKind, MatEntry, MatGame, MatMatch, load, loads
from rules.movegen import LegalPlays
from rules.play import Play
from rules.position import Position
from rules.replay import Irregularity, ReplayVisitor, replay_match

__all__ = ["main", "bundled_match_text"]


def bundled_match_text() -> str:
    """The transcript bundled as package data."""
    return resources.files("rules.data").joinpath("demo_match.mat").read_text(encoding="utf-8")


class _Printer(ReplayVisitor):
    def __init__(self, match: MatMatch, *, diagrams: bool, out: list[str]) -> None:
        self.match = match
        self.diagrams = diagrams
        self.out = out
        self.state: MatchState | None = None
        self.flagged: set[tuple[int, int]] = set()

    def name(self, player: int) -> str:
        return self.match.players[player] or f"player {player + 1}"

    def begin_game(self, game: MatGame, state: MatchState) -> None:
        self.state = state
        flags = " - Crawford game: no doubling (RG19 4.4.7)" if state.crawford else (
            " - post-Crawford" if state.post_crawford else "")
        self.out.append("")
        self.out.append(
            f"=== Game {game.number}: {self.name(0)} {state.score[0]} - {self.name(1)} {state.score[1]} "
            f"({state.length}-point match; score line checked){flags}"
        )

    def move(self, game: MatGame, entry: MatEntry, before: Position, after: Position, legal: LegalPlays) -> None:
        assert entry.dice is not None and entry.play is not None
        played = legal.play_for(after)
        what = str(played) or "no legal move (dance or blocked)"
        count = len(legal)
        check = (f"legal: one of {count} distinct results" if legal else "legal: no play possible")
        self.out.append(
            f"--- {game.number}.{entry.row} {self.name(entry.player)} rolls {entry.dice[0]}-{entry.dice[1]}: "
            f"{what}   [{check}; Position ID {after.position_id()}]"
        )
        if self.diagrams:
            board = diagram(after)
            board = board.replace("O: player 0", f"O: {self.name(0)}").replace("X: player 1", f"X: {self.name(1)}")
            self.out.append(board)

    def cube(self, game: MatGame, entry: MatEntry, state: MatchState) -> None:
        who = self.name(entry.player)
        if (game.number, entry.line) in self.flagged:
            text = f"{entry.text} - see the alert above"
        elif entry.kind is EntryKind.DOUBLE:
            text = f"doubles to {entry.value} - allowed: has access, not Crawford, cube not dead (RG19 4.4.2-4.4.8)"
        elif entry.kind is EntryKind.TAKE:
            text = f"takes - owns the cube at {state.cube.value} (RG19 4.4.2)"
        elif entry.kind is EntryKind.DROP:
            text = "passes - the doubler wins the cube value before the double (RG19 4.6.2)"
        else:
            text = entry.text
        self.out.append(f"--- {game.number}.{entry.row} {who} {text}")

    def irregularity(self, item: Irregularity) -> None:
        self.flagged.add((item.game, item.line))
        self.out.append(f"!!! ALERT {item.kind} ({item.rule}): {item.player!r} played {item.played!r}; "
                        f"the rules allow {item.allowed}")

    def end_game(self, game: MatGame, result: GameResult | None, state: MatchState) -> None:
        if result is None:
            self.out.append(f"=== Game {game.number} unfinished")
            return
        how = {"bear_off": "bears off", "pass": "wins on a pass", "resign": "wins by concession",
               "claim": "wins by claim", "forfeit": "wins by forfeit"}[result.termination.value]
        kind = result.kind.name.lower()
        self.out.append(
            f"=== Game {game.number}: {self.name(result.winner)} {how}: {kind} x cube {result.cube} = "
            f"{result.points} point(s); score {state.score[0]}-{state.score[1]}"
            + (f"; {self.name(state.winner)} wins the match" if state.winner is not None else "")
        )
        if state.winner is None:
            nxt = [p for p in (Player.FIRST, Player.SECOND)
                   if CubeAction.DOUBLE in state.legal_cube_actions(p)]
            who = ", ".join(self.name(p) for p in nxt) or "nobody"
            self.out.append(f"    next game: may double before rolling: {who}")


def _tampered(match: MatMatch) -> MatMatch:
    """A copy with two errors: a move of the first game changed to an illegal one, and a double
    in the Crawford game added (void under RG19 4.4.7)."""
    games = list(match.games)
    first = games[0]
    entries = list(first.entries)
    for i, e in enumerate(entries):
        if e.kind is EntryKind.ROLL and e.play is not None and len(e.play.steps) == 2 and e.dice and e.dice[0] != e.dice[1]:
            a, b = e.play.steps
            wrong = Play([(a.src, a.dst), (b.src, max(b.dst - 1, 0) if b.dst > 1 else b.dst)])
            entries[i] = replace(e, play=wrong, text=f"{e.dice[0]}{e.dice[1]}: {wrong}")
            break
    games[0] = replace(first, entries=tuple(entries))
    crawford = _crawford_games(match)
    for index, g in enumerate(games):
        if g.number in crawford:
            ge = list(g.entries)
            k = next((i for i, e in enumerate(ge) if e.kind is EntryKind.ROLL), None)
            if k is not None:
                roller = ge[k].player
                row = ge[k].row
                double = MatEntry(EntryKind.DOUBLE, roller.other, row, ge[k].line, text="Doubles => 2", value=2)
                take = MatEntry(EntryKind.TAKE, roller, row, ge[k].line, text="Takes")
                ge[k + 1:k + 1] = [double, take]
                games[index] = replace(g, entries=tuple(ge))
            break
    return replace(match, games=tuple(games), source=match.source + " (tampered copy)")


def _crawford_games(match: MatMatch) -> set[int]:
    found: set[int] = set()

    class Finder(ReplayVisitor):
        def begin_game(self, game: MatGame, state: MatchState) -> None:
            if state.crawford:
                found.add(game.number)

    replay_match(match, Finder())
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gammonwatch demo",
        description="Interim demo: replay a real match through the rules engine, position by position.",
    )
    parser.add_argument("--file", help="another .mat transcript instead of the bundled one")
    parser.add_argument("--brief", action="store_true", help="one line per move, no board diagrams")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    started = time.perf_counter()
    if args.file:
        try:
            match = load(args.file)
        except (OSError, ValueError) as exc:
            print(f"gammonwatch demo: cannot read {args.file}: {exc}", file=sys.stderr)
            return 2
    else:
        match = loads(bundled_match_text(), source="rules/data/demo_match.mat")
    out: list[str] = [
        f"gammonwatch demo (interim, until the live camera pipeline lands): replaying {match.source}",
        f"{match.length}-point match {match.players[0]!r} v {match.players[1]!r}"
        f" ({match.header('Site', 'unknown site')}); every position below was checked by the rules engine.",
    ]
    report = replay_match(match, _Printer(match, diagrams=not args.brief, out=out))
    out.append("")
    file_winner = "nobody" if report.file_winner is None else repr(match.players[report.file_winner])
    out.append(
        f"Checked {report.games} games, {report.moves} moves, {report.cube_actions} cube actions: "
        f"{len(report.irregularities)} irregularities. Winner {report.winner_name!r} at "
        f"{report.final_score[0]}-{report.final_score[1]} (the transcript says {file_winner})."
    )
    for note in report.notes:
        out.append(f"note: {note}")
    # the same checks on a tampered copy
    out.append("")
    out.append("Now a copy of the same match with one move altered and a double added in the Crawford game:")
    tampered = replay_match(_tampered(match))
    for item in tampered.irregularities:
        out.append(f"!!! ALERT {item}")
    if not tampered.irregularities:
        out.append("(no irregularity found: the alteration happened to be legal)")
    out.append(f"({time.perf_counter() - started:.1f} s)")
    try:
        print("\n".join(out))
    except BrokenPipeError:  # e.g. piped into head
        pass
    return 0 if not report.irregularities else 1


if __name__ == "__main__":
    sys.exit(main())
