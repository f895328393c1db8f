"""Runs INSIDE GNU Backgammon's embedded Python (``gnubg -t -q -p scripts/gnubg_worker.py``).

It imports nothing from gammonwatch (gnubg's Python is not our virtual environment). Jobs come in
a text file named by the environment variable ``GW_GNUBG_IN``; answers go, one JSON object per line,
to ``GW_GNUBG_OUT``. The first line of the input is the mode:

``hints``  then lines ``POSID D1 D2``: gnubg's legal plays for the player on roll (``set board``,
           ``set dice``, ``hint``), as gnubg's own notation strings, plus the seconds spent.
``ids``    then lines ``POSID MATCHID`` or ``XGID=...``: what gnubg reads from them (board and
           Match ID, via ``set gnubgid`` / ``set xgid``), and the Position ID gnubg writes back
           for the board it read.

``hint`` scores every play with the 0-ply evaluator (gnubg has no call that lists plays without
scoring them); this script sets the cheapest evaluator (0-ply, pruning nets) before timing.
"""

import json
import os
import time

import gnubg  # type: ignore[import-not-found]  # only exists inside gnubg


def quiet(cmd):
    gnubg.command(cmd)


def setup():
    for cmd in (
        "set player 0 human",
        "set player 1 human",
        "set automatic roll off",
        "set automatic game off",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation chequerplay evaluation prune on",
        "set evaluation cubedecision evaluation plies 0",
        "set warning endgame off",
        "set threads 1",
        "set evaluation chequerplay evaluation cubeful off",
        "new game",
    ):
        quiet(cmd)


def do_hints(lines, out):
    for line in lines:
        pid, d1, d2 = line.split()
        t0 = time.perf_counter()
        c0 = time.process_time()
        quiet("set board " + pid)
        quiet(f"set dice {d1} {d2}")
        h = gnubg.hint(100000)
        cpu = time.process_time() - c0
        wall = time.perf_counter() - t0
        rec = {"id": pid, "dice": [int(d1), int(d2)], "cpu": cpu, "wall": wall}
        got = gnubg.positionid(gnubg.board())
        if got != pid:
            rec["error"] = f"gnubg did not accept the position (it kept {got})"
        else:
            rec["moves"] = [m["move"] for m in h["hint"]] if h else []
        out.write(json.dumps(rec) + "\n")


def do_ids(lines, out):
    for line in lines:
        text = line.strip()
        rec = {"input": text}
        try:
            if text.startswith("XGID="):
                quiet("set xgid " + text)
            else:
                pid, mid = text.split()
                quiet(f"set gnubgid {pid}:{mid}")
            board = gnubg.board()
            rec["board"] = [list(board[0]), list(board[1])]
            rec["posid"] = gnubg.positionid(board)
            rec["matchid"] = gnubg.matchid()
        except Exception as exc:  # noqa: BLE001 - report anything gnubg raises
            rec["error"] = f"{type(exc).__name__}: {exc}"
        out.write(json.dumps(rec) + "\n")


def main():
    src = os.environ["GW_GNUBG_IN"]
    dst = os.environ["GW_GNUBG_OUT"]
    setup()
    with open(src) as fh:
        mode = fh.readline().strip()
        lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    with open(dst, "w") as out:
        if mode == "hints":
            do_hints(lines, out)
        elif mode == "ids":
            do_ids(lines, out)
        else:
            raise SystemExit(f"unknown mode {mode!r}")


main()
