"""`make bench` for the rules engine core: perft speed side by side with GNU Backgammon, and the
peer check of legal plays and IDs against gnubg.

Figures printed:
* perft depth 1 and 2 from the start (counts must be 447 and 202,782) and our time, best of 3,
  without the transposition cache so that every one of the 447 x 21 (position, roll) pairs is
  generated, as gnubg does below;
* gnubg's time to list the plays of the same 447 x 21 pairs through its Python interface
  (``set board``, ``set dice``, ``hint``). gnubg offers no call that lists plays without scoring
  them, so ``hint`` runs with its cheapest evaluator (0-ply, pruning nets, cubeless) and we count
  the CPU seconds of those calls; gnubg's ``hint`` also idles ~10 ms per call waiting on its task
  queue, which is wall time, not work, and is excluded (docs/decisions/0101-gnubg-timing.md);
* the ratio ours / gnubg (target: at most 2);
* the peer check: legal plays on 100,000 random positions+rolls and IDs on 1,000 positions
  (scripts/gnubg_peer.py), with the number of disagreements.

Options: --cases N (default 100000), --ids N (default 1000), --jobs N, --quick (2,000 cases).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import gnubg_peer  # noqa: E402

from rules.perft import perft  # noqa: E402
from rules.position import Position  # noqa: E402


def time_ours(depth: int, repeat: int = 3) -> tuple[int, float]:
    """Best CPU seconds of ``repeat`` runs (CPU, like gnubg's figure: the machine is shared)."""
    best = float("inf")
    count = 0
    for _ in range(repeat):
        t0 = time.process_time()
        count = perft(Position.start(), depth, cache=False)
        best = min(best, time.process_time() - t0)
    return count, best


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--ids", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument("--quick", action="store_true", help="2,000 peer cases instead of 100,000")
    args = parser.parse_args(argv)
    status = 0
    n1, t1 = time_ours(1)
    n2, t2 = time_ours(2)
    n2c = perft(Position.start(), 2, cache=True)
    print(f"perft depth 1: {n1:,} (expected 447) in {t1 * 1000:.1f} ms CPU")
    print(f"perft depth 2: {n2:,} (expected 202,782) in {t2:.3f} s CPU (best of 3, no cache)")
    if (n1, n2, n2c) != (447, 202_782, 202_782):
        print("  PERFT MISMATCH")
        status = 1
    gnubg = gnubg_peer.find_gnubg()
    if gnubg is None:
        print("gnubg is not installed (apt-get install gnubg): no peer timing or peer check")
        return status
    g = gnubg_peer.time_gnubg_perft2(gnubg, jobs=args.jobs)
    print(
        f"gnubg 1.07 on the same {g['calls']:,} (position, roll) pairs: {int(g['plays']):,} plays listed, "
        f"{g['cpu']:.3f} s CPU in hint (0-ply pruning evaluator included; {g['wall']:.1f} s wall incl. its idle waits)"
    )
    if g["plays"] != n2:
        print(f"  gnubg's play count {int(g['plays']):,} differs from our perft {n2:,}")
        status = 1
    print(f"ratio ours / gnubg = {t2 / g['cpu']:.2f} (target <= 2.0)")
    cases = 2000 if args.quick else args.cases
    code = gnubg_peer.main(["--cases", str(cases), "--ids", str(args.ids), "--jobs", str(args.jobs)])
    return status or code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
