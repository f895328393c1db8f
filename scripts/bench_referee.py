"""Referee throughput: table states per second on one core (issue 3 target: >= 2,000/s).

Scripts a bundled real match (tests/data/matches) into its table-state stream with `sim.script`, then
times, on the same JSON lines:
  - parse + validate (TableState.from_json) and referee (Referee.feed), separately and together;
  - the peer: the generic JSON Schema validator (jsonschema, draft 2020-12) on the same objects, which
    is what a naive implementation of the contract would call per state.
Prints the figures and the ratio; exits 1 if the end-to-end rate is below the target.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.matfile import load  # noqa: E402
from rules.referee import MatchSetup, Referee, TableState, get_profile  # noqa: E402
from sim.script import script_lines  # noqa: E402

TARGET = 2000.0


def main() -> int:
    files = sorted((ROOT / "tests" / "data" / "matches").glob("*.txt"))
    if not files:
        print("no bundled match transcripts in tests/data/matches; nothing to time")
        return 1
    setups: list[tuple[str, list[str]]] = []
    for f in files[:4]:
        ls = list(script_lines(load(f)))
        setups.append((ls[0], [x for x in ls[1:] if '"type":"table_state"' in x]))
    objs = [[json.loads(x) for x in ls] for _, ls in setups]
    n = sum(len(o) for o in objs)
    print(f"{n} table states from {len(setups)} scripted matches ({', '.join(f.name[:10] for f in files[:4])})")

    best_parse = best_feed = best_all = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        states = [[TableState.from_json(o) for o in group] for group in objs]
        t1 = time.perf_counter()
        for (setup_line, _), group in zip(setups, states, strict=True):
            ref = Referee(MatchSetup.from_json(json.loads(setup_line)), get_profile())
            for st in group:
                ref.feed(st)
        t2 = time.perf_counter()
        for setup_line, raw in setups:
            ref = Referee(MatchSetup.from_json(json.loads(setup_line)), get_profile())
            for text in raw:
                ref.feed(TableState.from_json(json.loads(text)))
        t3 = time.perf_counter()
        best_parse, best_feed, best_all = min(best_parse, t1 - t0), min(best_feed, t2 - t1), min(best_all, t3 - t2)
    print(f"parse + validate (TableState.from_json): {n / best_parse:9.0f} states/s")
    print(f"referee (Referee.feed):                  {n / best_feed:9.0f} states/s")
    print(f"end to end (JSON text -> alerts):        {n / best_all:9.0f} states/s   target >= {TARGET:.0f}")

    try:
        import jsonschema
    except ImportError:  # pragma: no cover
        print("peer: jsonschema not installed; skipped")
    else:
        schema = json.loads((ROOT / "schemas" / "table_state.schema.json").read_text())
        validator = jsonschema.Draft202012Validator(schema)
        flat = [o for group in objs for o in group][:1500]
        t0 = time.perf_counter()
        for o in flat:
            validator.validate(o)
        dt = time.perf_counter() - t0
        rate = len(flat) / dt
        print(f"peer: jsonschema Draft202012Validator.validate: {rate:9.0f} states/s "
              f"(our reader validates {n / best_parse / rate:.1f}x faster)")
    return 0 if n / best_all >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
