"""Benchmark and peer check for `gammonwatch replay` (rules/replay.py, rules/matfile.py).

Prints:
1. the replay of every sample transcript (../shared/data/matches, else tests/data/matches):
   games, moves, cube actions, irregularities (must be 0), notes, winners agreeing with the files;
2. speed: 1,000 matches replayed (the sample cycled), wall and CPU time, next to GNU Backgammon
   importing (and so checking) the same 1,000 files in one process (the peer);
3. GNU Backgammon agreement: each match exported with --export-mat, imported by gnubg
   (`import mat`) and exported again; the moves and cube actions it read must equal ours.

Usage: python scripts/bench_replay.py [--matches N] [--no-gnubg]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.matfile import dump, load  # noqa: E402
from rules.replay import find_gnubg, gnubg_reexport, move_trace, replay_file  # noqa: E402

SHARED = ROOT / ".." / "shared" / "data" / "matches"
BUNDLED = ROOT / "tests" / "data" / "matches"


def sample_files() -> list[Path]:
    folder = SHARED if SHARED.is_dir() else BUNDLED
    return sorted(folder.glob("*.txt"))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="matches to replay for the speed figure")
    parser.add_argument("--no-gnubg", action="store_true", help="skip the GNU Backgammon peer")
    args = parser.parse_args(argv)
    files = sample_files()
    if not files:
        print("no sample transcripts found", file=sys.stderr)
        return 2
    print(f"sample: {len(files)} transcripts from {files[0].parent}")

    # 1. correctness figures
    totals = {"games": 0, "moves": 0, "cube": 0, "irregularities": 0, "notes": 0, "winner_agrees": 0}
    kinds: dict[str, int] = {}
    reports = []
    for path in files:
        report = replay_file(path)
        reports.append((path, report))
        totals["games"] += report.games
        totals["moves"] += report.moves
        totals["cube"] += report.cube_actions
        totals["irregularities"] += len(report.irregularities)
        totals["notes"] += len(report.notes)
        totals["winner_agrees"] += report.winner == report.file_winner
        for item in report.irregularities:
            kinds[item.kind] = kinds.get(item.kind, 0) + 1
    print(f"replay: {len(files)} files, {totals['games']} games, {totals['moves']} moves, {totals['cube']} cube "
          f"actions; {totals['irregularities']} irregularities {kinds or ''}, {totals['notes']} notes; "
          f"match winner agrees with the file in {totals['winner_agrees']}/{len(files)}")

    # 2. speed
    cycle = [files[i % len(files)] for i in range(args.matches)]
    wall0, cpu0 = time.perf_counter(), time.process_time()
    moves = 0
    for path in cycle:
        moves += replay_file(path).moves
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(f"speed: {len(cycle)} matches ({moves} moves) replayed in {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({moves / max(cpu, 1e-9):,.0f} moves per CPU second)")

    gnubg = None if args.no_gnubg else find_gnubg()
    if gnubg is None:
        print("gnubg peer: skipped (" + ("--no-gnubg" if args.no_gnubg else
              "GNU Backgammon not installed; Debian package gnubg") + ")")
        return 0 if totals["irregularities"] == 0 else 1
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        # peer speed: gnubg imports the same files (it checks each move as it reads)
        # (gnubg 1.07 aborts with a buffer overflow on a file whose first player has an empty name, so
        # the peer reads our export of those files instead: same moves, placeholder name)
        empty = {p for p, r in reports if "" in r.players}
        peer_files = []
        for path in cycle:
            if path in empty:
                report = dict(reports)[path]
                assert report.export is not None
                target = tmp / "peer" / (path.stem + ".mat")
                target.parent.mkdir(exist_ok=True)
                dump(report.export, target)
                path = target
            peer_files.append(path)
        commands = "\n".join(f'import mat "{p.resolve()}"' for p in peer_files) + "\n"
        import resource

        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        proc = subprocess.run([gnubg, "-t", "-q"], input=commands, text=True, capture_output=True, check=False)
        gw = time.perf_counter() - w0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        gcpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        status = "ok" if proc.returncode == 0 else f"gnubg exit {proc.returncode}: figures invalid"
        print(f"peer: gnubg 'import mat' of the same {len(peer_files)} matches ({len(empty)} files with an empty "
              f"name given as our export) in {gw:.1f} s wall, {gcpu:.1f} s CPU ({status}); "
              f"ratio ours/gnubg CPU {cpu / max(gcpu, 1e-9):.1f}x (gnubg checks each move on import too)")

        # 3. gnubg agreement on the exported .mat
        exported = []
        for path, report in reports:
            if report.export is None:
                continue
            target = tmp / "export" / (path.stem + ".mat")
            target.parent.mkdir(exist_ok=True)
            dump(report.export, target)
            exported.append(target)
        back = gnubg_reexport(exported, tmp / "gnubg", gnubg)
        by_stem = {p.stem: p for p in files}
        same = 0
        different = []
        for src, dst in back.items():
            original = by_stem[src.stem]
            if move_trace(load(dst)) == move_trace(load(original)):
                same += 1
            else:
                different.append(src.name)
        print(f"gnubg import of our exported .mat: {len(back)}/{len(exported)} imported and re-exported; "
              f"same moves and cube actions in {same}/{len(exported)}"
              + (f"; differ: {', '.join(different[:10])}" if different else ""))
    ok = totals["irregularities"] == 0 and same == len(exported)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
