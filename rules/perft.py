"""``gammonwatch perft``: count the positions reachable from the start, as an engine check and a
benchmark (python-chess and every chess engine have one).

What is counted (the definition that gives GNU Backgammon's figures 447 and 202,782): a ply is one
roll followed by one play. From a position, each of the 21 distinct rolls (doubles included, each
counted once, not weighted by probability) leads to the **distinct** positions that roll can reach
(plays reaching the same position count once, as in gnubg; a player who cannot move reaches one
position, his own with the opponent on roll). ``perft(p, 0) = 1`` and
``perft(p, n) = sum over rolls r, over distinct results q of (p, r): perft(q, n - 1)``, i.e. the
leaves of the tree, like chess perft. Results from different rolls or different branches are not
merged. The starting position is treated like any other (the opening roll's no-doubles rule is
ignored, as in gnubg's count).

>>> perft(Position.start(), 1)
447
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from rules.dice import ALL_ROLLS
from rules.movegen import generate
from rules.position import Board, Position

_ROLLS = tuple((r.first, r.second) for r in ALL_ROLLS)


def _perft(my: Board, opp: Board, depth: int, cache: dict[tuple[Board, Board, int], int] | None) -> int:
    if cache is not None:
        hit = cache.get((my, opp, depth))
        if hit is not None:
            return hit
    total = 0
    if depth == 1:
        for d1, d2 in _ROLLS:
            total += len(generate(my, opp, d1, d2))
    else:
        for d1, d2 in _ROLLS:
            for m2, o2 in generate(my, opp, d1, d2):
                total += _perft(o2, m2, depth - 1, cache)
    if cache is not None:
        cache[(my, opp, depth)] = total
    return total


def perft(position: Position, depth: int, cache: bool = True) -> int:
    """Leaf count of the roll/play tree of ``depth`` plies from ``position`` (see module docstring).

    ``cache`` reuses counts of positions met again in the tree (a transposition table); it does not
    change the result."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    my, opp = position.mover_view()
    return _perft(my, opp, depth, {} if cache else None)


def divide(position: Position, depth: int) -> list[tuple[str, int]]:
    """Per first roll: ``(roll, leaf count)``; useful to find where two engines differ."""
    my, opp = position.mover_view()
    out = []
    cache: dict[tuple[Board, Board, int], int] = {}
    for d1, d2 in _ROLLS:
        n = 0
        for m2, o2 in generate(my, opp, d1, d2):
            n += 1 if depth == 1 else _perft(o2, m2, depth - 1, cache)
        out.append((f"{d1}{d2}", n))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gammonwatch perft",
        description="Count positions reachable after N plies (roll + play) from the starting position. "
        "Depth 1 = 447 and depth 2 = 202,782 (GNU Backgammon's counts) for standard backgammon.",
    )
    parser.add_argument("--depth", type=int, default=2, help="number of plies (default 2)")
    parser.add_argument("--variant", choices=("standard", "welsh"), default="standard")
    parser.add_argument("--position", default=None,
                        help="start from this gnubg ID (PosID[:MatchID]) or XGID instead of the opening")
    parser.add_argument("--divide", action="store_true", help="also print the count under each first roll")
    parser.add_argument("--no-cache", action="store_true", help="do not reuse counts of repeated positions")
    args, rest = parser.parse_known_args(argv)
    if args.variant == "welsh":
        try:
            welsh = importlib.import_module("rules.welsh.perft")
        except ModuleNotFoundError as exc:
            print(f"gammonwatch perft: the Welsh variant is not available in this build ({exc.name} is missing)",
                  file=sys.stderr)
            return 2
        code: int = welsh.main([a for a in argv if a not in ("--variant", "welsh", "--variant=welsh")])
        return code
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    if args.depth < 0:
        parser.error(f"--depth must be 0 or more, got {args.depth}")
    if args.depth > 3:
        print(f"note: depth {args.depth} grows about 500x per ply; this can take very long", file=sys.stderr)
    start = Position.start()
    if args.position:
        from rules.position_cli import read_any

        try:
            start = read_any(args.position)[0]
        except ValueError as exc:
            print(f"gammonwatch perft: {exc}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    c0 = time.process_time()
    n = perft(start, args.depth, cache=not args.no_cache)
    elapsed = time.perf_counter() - t0
    cpu = time.process_time() - c0
    if args.divide and args.depth >= 1:
        for roll, count in divide(start, args.depth):
            print(f"{roll}: {count}")
    print(f"perft depth {args.depth}: {n:,} positions in {elapsed:.3f} s ({cpu:.3f} s CPU; {args.variant})")
    return 0
