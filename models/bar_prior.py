"""How often real games and the simulator's layouts hold checkers on the bar: the numbers behind
``vision.checkers.BAR_PRIOR`` (decision 0732).

    python models/bar_prior.py [MATCH_DIR] [--layouts 20000]

Real games: every position after a move in the match transcripts (default ../shared/data/matches),
per colour. Simulator: the default layouts of ``sim.scene.make_scene`` (half from a random game, half
a free spread), per colour. Prints both distributions and their ratio relative to 0 on the bar.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np

from rules.replay import ReplayVisitor, collect_files, replay_file
from sim.layout import TableLayout

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data" / "matches"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("matches", nargs="?", default=str(SHARED))
    ap.add_argument("--layouts", type=int, default=20000)
    args = ap.parse_args()
    real: Counter[int] = Counter()

    class Bar(ReplayVisitor):
        def move(self, game, entry, before, after, legal) -> None:  # type: ignore[no-untyped-def]
            for player in (0, 1):
                real[min(int(after.board(player)[25]), 3)] += 1

    files = [f for f in collect_files([args.matches]) if f.suffix.lower() in (".mat", ".txt")]
    for f in files:
        try:
            replay_file(f, Bar())
        except Exception as e:  # a file the replay refuses is left out, and said
            print(f"left out {f}: {e}")
    rng = np.random.default_rng(0)
    sim: Counter[int] = Counter()
    for _ in range(args.layouts):
        lay = TableLayout.from_random_game(rng) if rng.random() < 0.5 else TableLayout.random(rng)
        for c in (0, 1):
            sim[min(lay.bar[c], 3)] += 1
    nr, ns = sum(real.values()), sum(sim.values())
    if nr == 0:
        print(f"no moves found in {args.matches}: give the folder of .mat/.txt match transcripts")
        return 2
    print(f"real games: {len(files)} files, {nr} colour-positions; simulator: {ns}")
    for k in range(4):
        r, s = real[k] / nr, sim[k] / ns
        ratio = (r / s) / ((real[0] / nr) / (sim[0] / ns)) if s > 0 else float("nan")
        print(f"  {k}{'+' if k == 3 else ' '} on the bar: real {r:.4f}  simulator {s:.4f}  weight {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
