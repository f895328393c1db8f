"""Welsh perft: distinct positions after N plies from the Welsh start (DIGEST C.3).

Definition (used by ``gammonwatch perft --variant welsh``):

* Red (player 0) moves first from :meth:`WelshPosition.start`; plies alternate Red, Black, ...
* A ply is one turn: each of the 21 distinct two-dice throws, played every legal way
  (:func:`~rules.welsh.movegen.legal_plays`, default options), including the empty play when
  nothing can be played.
* ``perft(n)`` is the number of **distinct positions** (both sides' men) after ``n`` plies,
  taking the union over all throws and all positions of ply ``n - 1``.  ``perft(0) == 1``.
* Throw-level rules (re-throws, snakes, nominations, the single die, extra turns) and game
  endings are not part of perft; it measures move generation only.
"""

from __future__ import annotations

import argparse
import sys
import time

from rules.welsh.game import ALL_THROWS
from rules.welsh.movegen import legal_plays
from rules.welsh.options import WelshOptions
from rules.welsh.position import WelshPosition


def perft_sets(depth: int, options: WelshOptions | None = None) -> list[set[WelshPosition]]:
    """The sets of distinct positions after 0..depth plies."""
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")
    opts = options or WelshOptions()
    layers = [{WelshPosition.start()}]
    for ply in range(depth):
        mover = ply % 2
        nxt: set[WelshPosition] = set()
        for pos in layers[-1]:
            for t in ALL_THROWS:
                for play in legal_plays(pos, mover, t, opts):
                    nxt.add(play.result)
        layers.append(nxt)
    return layers


def perft(depth: int) -> int:
    """Distinct positions after ``depth`` plies from the Welsh start (see the module docstring)."""
    return len(perft_sets(depth)[-1])


def perft_tree(depth: int, options: WelshOptions | None = None) -> int:
    """The leaf count in the manner of the standard ``rules.perft`` (gnubg's definition): from each
    position, each of the 21 throws leads to its distinct results, and the leaves are summed
    over throws and branches without merging.  Shown beside :func:`perft` for comparison."""
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")
    opts = options or WelshOptions()
    cache: dict[tuple[WelshPosition, int, int], int] = {}

    def count(pos: WelshPosition, mover: int, d: int) -> int:
        if d == 0:
            return 1
        key = (pos, mover, d)
        hit = cache.get(key)
        if hit is not None:
            return hit
        total = 0
        for t in ALL_THROWS:
            for play in legal_plays(pos, mover, t, opts):
                total += 1 if d == 1 else count(play.result, 1 - mover, d - 1)
        cache[key] = total
        return total

    return count(WelshPosition.start(), 0, depth)


def divide(depth: int) -> list[tuple[str, int]]:
    """Distinct positions after ``depth`` plies under each first throw (a debugging aid)."""
    out = []
    opts = WelshOptions()
    start = WelshPosition.start()
    for t in ALL_THROWS:
        layer = {p.result for p in legal_plays(start, 0, t, opts)}
        for ply in range(1, depth):
            layer = {p.result for pos in layer for t2 in ALL_THROWS for p in legal_plays(pos, ply % 2, t2, opts)}
        out.append((f"{t[0]}{t[1]}", len(layer)))
    return out


def main(argv: list[str]) -> int:
    """``gammonwatch perft --variant welsh [--depth N] [--divide]`` (called by rules.perft)."""
    parser = argparse.ArgumentParser(
        prog="gammonwatch perft --variant welsh",
        description="Welsh backgammon: distinct positions after N plies from the Welsh start "
        "(DIGEST C.3), and the leaf count in the standard perft's manner.",
    )
    parser.add_argument("--depth", type=int, default=2, help="number of plies (default 2)")
    parser.add_argument("--divide", action="store_true", help="also print the count under each first throw")
    parser.add_argument("--no-cache", action="store_true", help="accepted for compatibility; no effect")
    parser.add_argument("--position", default=None, help="not supported for Welsh")
    args = parser.parse_args(argv)
    if args.position:
        print("gammonwatch perft: --position is not supported with --variant welsh "
              "(gnubg and XG IDs cannot hold Welsh positions); drop it", file=sys.stderr)
        return 2
    if args.depth < 0:
        parser.error(f"--depth must be 0 or more, got {args.depth}")
    if args.depth > 2:
        print(f"note: depth {args.depth} may take very long in pure Python", file=sys.stderr)
    t0 = time.perf_counter()
    n = perft(args.depth)
    t1 = time.perf_counter()
    tree = perft_tree(args.depth)
    t2 = time.perf_counter()
    if args.divide and args.depth >= 1:
        for name, count in divide(args.depth):
            print(f"{name}: {count}")
    print(f"perft depth {args.depth}: {n:,} distinct positions in {t1 - t0:.3f} s (welsh)")
    print(f"perft depth {args.depth}: {tree:,} leaves (standard perft's count) in {t2 - t1:.3f} s (welsh)")
    return 0
