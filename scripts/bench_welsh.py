"""Welsh backgammon benchmark (`make bench`): 100,000 random games with every invariant checked,
Welsh perft, and move-generation speed beside the standard engine's (the peer in the same run).

    python scripts/bench_welsh.py [--games N] [--seed S] [--workers K] [--cross-check-every M]

Figures printed: games, matches, turns, invariant violations (must be 0), how games ended, the
events seen, sampled plays cross-checked against the full legal list, time per game, perft(1),
perft(2), and microseconds per move generation for Welsh and for standard backgammon.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.welsh.game import ALL_THROWS  # noqa: E402
from rules.welsh.movegen import legal_plays  # noqa: E402
from rules.welsh.perft import perft, perft_tree  # noqa: E402
from rules.welsh.position import WelshPosition  # noqa: E402
from rules.welsh.randplay import Stats, run  # noqa: E402


def _chunk(args: tuple[int, int, int]) -> Stats:
    games, seed, every = args
    return run(games, seed=seed, cross_check_every=every)


def _merge(parts: list[Stats]) -> Stats:
    out = Stats()
    for s in parts:
        out.games += s.games
        out.matches += s.matches
        out.turns += s.turns
        out.checked_plays += s.checked_plays
        out.violations += s.violations
        for k, v in s.endings.items():
            out.endings[k] = out.endings.get(k, 0) + v
        for k, v in s.events.items():
            out.events[k] = out.events.get(k, 0) + v
    return out


def movegen_speed(samples: int, seed: int) -> tuple[float, float | None]:
    """Microseconds per generation over positions from random Welsh games, and the standard
    engine's speed on random standard positions (None when rules.movegen is missing)."""
    rng = random.Random(seed)
    positions = []
    pos = WelshPosition.start()
    mover = 0
    while len(positions) < samples:
        t = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(pos, mover, t)
        positions.append((pos, mover, t))
        nxt = plays[rng.randrange(len(plays))]
        pos, mover = nxt.result, 1 - mover
        if nxt.ending or pos.full_spikes(0) and pos.full_spikes(1) or len(positions) % 60 == 0:
            pos, mover = WelshPosition.start(), 0
    t0 = time.perf_counter()
    for p, m, t in positions:
        legal_plays(p, m, t)
    welsh_us = (time.perf_counter() - t0) / len(positions) * 1e6
    try:
        from rules.movegen import generate
        from rules.position import Position
    except ImportError:
        return welsh_us, None
    start = Position.start()
    my, opp = start.boards() if hasattr(start, "boards") else (None, None)
    if my is None:
        return welsh_us, None
    std_positions = []
    rng = random.Random(seed)
    for i in range(samples):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        std_positions.append((my, opp, d1, d2))
        res = list(generate(my, opp, d1, d2))
        if res and i % 60:
            m2, o2 = res[rng.randrange(len(res))]
            my, opp = o2, m2
        else:
            my, opp = start.boards()
    t0 = time.perf_counter()
    for a, b, d1, d2 in std_positions:
        generate(a, b, d1, d2)
    return welsh_us, (time.perf_counter() - t0) / len(std_positions) * 1e6


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cross-check-every", type=int, default=50,
                    help="every M-th game has each sampled play checked against the full legal list")
    args = ap.parse_args(argv)

    print(f"welsh perft: depth 1 = {perft(1):,} distinct positions ({perft_tree(1):,} leaves)")
    t0 = time.perf_counter()
    d2 = perft(2)
    print(f"welsh perft: depth 2 = {d2:,} distinct positions in {time.perf_counter() - t0:.2f} s "
          f"({perft_tree(2):,} leaves)")
    welsh_us, std_us = movegen_speed(3000, args.seed)
    print(f"move generation: welsh {welsh_us:.0f} us per (position, throw)"
          + (f"; standard peer {std_us:.0f} us" if std_us is not None else "; standard peer not available"))
    print(f"legal plays from the Welsh start: {sum(len(legal_plays(WelshPosition.start(), 0, t)) for t in ALL_THROWS)} "
          "over the 21 throws")

    t0 = time.perf_counter()
    k = max(1, args.workers)
    share = [args.games // k + (1 if i < args.games % k else 0) for i in range(k)]
    jobs = [(n, args.seed * 1000 + i, args.cross_check_every) for i, n in enumerate(share) if n]
    if k == 1:
        stats = _chunk(jobs[0])
    else:
        with Pool(k) as pool:
            stats = _merge(pool.map(_chunk, jobs))
    elapsed = time.perf_counter() - t0
    print(f"random games: {stats.games:,} in {stats.matches:,} matches, {stats.turns:,} turns, "
          f"{elapsed:.0f} s ({elapsed / max(1, stats.games) * 1e3:.1f} ms per game, {k} worker(s))")
    print(f"sampled plays cross-checked against the full legal list: {stats.checked_plays:,}")
    print("endings: " + ", ".join(f"{k}={v:,}" for k, v in sorted(stats.endings.items(), key=lambda kv: -kv[1])))
    print("events: " + ", ".join(f"{k}={v:,}" for k, v in sorted(stats.events.items())))
    print(f"invariant violations: {len(stats.violations)}")
    for v in stats.violations[:20]:
        print(f"  {v}")
    return 1 if stats.violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
