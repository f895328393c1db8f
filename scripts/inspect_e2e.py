"""Look at one end-to-end run (``scripts/eval_e2e.py``) frame by frame: what vision fed the referee
against the simulator's truth, and the referee's alerts, over a range of frames.

    python scripts/inspect_e2e.py FOLDER FIRST LAST [--all-alerts]

FOLDER is a rendered match folder after ``eval_e2e.py`` ran on it (``vision.db`` and ``truth.jsonl``).
For each table state vision emitted in the range: its dice (value, state, valid, reason, half), the
cube, bar, trays and hands, then the truth's, and the points where the two differ (vision, truth) as
(light, dark) pairs. Alerts that carry a frame in the range are printed where they were raised
(``--all-alerts``: events too, not only what a monitor must look at).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

ALERTING = ("VIOL", "IRREG", "WARN")


def brief(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of a table state worth comparing by eye."""
    cube = state.get("cube")
    return {
        "points": {p["point"]: (p["light"], p["dark"]) for p in state["points"]},
        "dice": [(d.get("value"), d.get("state"), d.get("valid"), d.get("reason"), d.get("half")) for d in state.get("dice", [])],
        "cube": None if not cube else (cube.get("value"), cube.get("zone"), cube.get("confidence")),
        "bar": (state["bar"]["light"], state["bar"]["dark"]),
        "off": (state["off"]["light"], state["off"]["dark"]),
        "hands": [(h.get("side"), h.get("over")) for h in state.get("hands", [])],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path)
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--all-alerts", action="store_true", help="events too, not only VIOL, IRREG and WARN")
    a = ap.parse_args(argv)
    db, truth_path = a.folder / "vision.db", a.folder / "truth.jsonl"
    for need in (db, truth_path):
        if not need.is_file():
            print(f"inspect_e2e: {need} is missing; run scripts/eval_e2e.py --folders {a.folder} first", file=sys.stderr)
            return 2
    truth: dict[int, dict[str, Any]] = {}
    for line in truth_path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "table_state":
            truth[int(rec["frame"])] = rec
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = [json.loads(p) for (p,) in con.execute("select payload from events where kind in ('state', 'alert') order by seq")]
    finally:
        con.close()
    for rec in rows:
        if "alert" in rec:
            al = rec["alert"]
            frame = al.get("frame")
            if frame is not None and a.first <= frame <= a.last and (a.all_alerts or al.get("severity") in ALERTING):
                print(f"   ALERT {frame} {al['code']} {al['severity']}: {al['message']}")
            continue
        state = rec["state"]
        frame = int(state["frame"])
        if not a.first <= frame <= a.last:
            continue
        seen = brief(state)
        print(f"{frame}: vision dice={seen['dice']} cube={seen['cube']} bar={seen['bar']} off={seen['off']} hands={seen['hands']}")
        if frame in truth:
            true = brief(truth[frame])
            diff = {p: (seen["points"][p], true["points"][p]) for p in seen["points"] if seen["points"][p] != true["points"][p]}
            print(f"{'':>{len(str(frame))}}  truth  dice={true['dice']} cube={true['cube']} bar={true['bar']} off={true['off']} "
                  f"hands={true['hands']} points differing (vision, truth)={diff}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
