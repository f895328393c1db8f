"""Referee throughput: table states per second on one core (issue 3 target: >= 2,000/s).

Scripts a bundled real match (tests/data/matches) into its table-state stream with `sim.script`, then
times, on the same JSON lines:
  - parse + validate (TableState.from_json) and referee (Referee.feed), separately and together;
  - the peer: the generic JSON Schema validator (jsonschema, draft 2020-12) on the same objects, which
    is what a naive implementation of the contract would call per state.
Rates are states per second of CPU time of this process (time.process_time), i.e. on one core, so a
busy machine does not distort them. Prints the figures and the ratio; exits 1 if the end-to-end rate
(plain counts, or counts with distributions on the uncertain points) is below the target.
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
        t0 = time.process_time()
        states = [[TableState.from_json(o) for o in group] for group in objs]
        t1 = time.process_time()
        for (setup_line, _), group in zip(setups, states, strict=True):
            ref = Referee(MatchSetup.from_json(json.loads(setup_line)), get_profile())
            for st in group:
                ref.feed(st)
        t2 = time.process_time()
        for setup_line, raw in setups:
            ref = Referee(MatchSetup.from_json(json.loads(setup_line)), get_profile())
            for text in raw:
                ref.feed(TableState.from_json(json.loads(text)))
        t3 = time.process_time()
        best_parse, best_feed, best_all = min(best_parse, t1 - t0), min(best_feed, t2 - t1), min(best_all, t3 - t2)
    print(f"parse + validate (TableState.from_json): {n / best_parse:9.0f} states/s")
    print(f"referee (Referee.feed):                  {n / best_feed:9.0f} states/s")
    print(f"end to end (JSON text -> alerts):        {n / best_all:9.0f} states/s   target >= {TARGET:.0f}")

    # the same states as vision would write them: count distributions on some or all points
    def with_probabilities(o: dict, every: int) -> dict:
        o = dict(o)
        pts = []
        for i, pt in enumerate(o["points"]):
            pt = dict(pt)
            if i % every:
                pts.append(pt)
                continue
            for colour in ("light", "dark"):
                n = pt[colour]
                dist = [0.02 / 15] * 16
                dist[n] = 0.98
                pt[f"{colour}_p"] = dist
            pts.append(pt)
        o["points"] = pts
        return o

    rates = {}
    for every, label in ((6, "on 4 points (uncertain ones)"), (1, "on all 24 points")):
        prob_texts = [(setup_line, [json.dumps(with_probabilities(json.loads(t), every)) for t in raw]) for setup_line, raw in setups]
        m = sum(len(raw) for _, raw in prob_texts)
        t0 = time.process_time()
        for setup_line, raw in prob_texts:
            ref = Referee(MatchSetup.from_json(json.loads(setup_line)), get_profile())
            for text in raw:
                ref.feed(TableState.from_json(json.loads(text)))
        rates[every] = m / (time.process_time() - t0)
        print(f"end to end, count distributions {label:30}: {rates[every]:9.0f} states/s")
    rate_p = rates[6]

    try:
        import jsonschema
    except ImportError:  # pragma: no cover
        print("peer: jsonschema not installed; skipped")
    else:
        schema = json.loads((ROOT / "schemas" / "table_state.schema.json").read_text())
        validator = jsonschema.Draft202012Validator(schema)
        flat = [o for group in objs for o in group][:1500]
        t0 = time.process_time()
        for o in flat:
            validator.validate(o)
        dt = time.process_time() - t0
        rate = len(flat) / dt
        print(f"peer: jsonschema Draft202012Validator.validate: {rate:9.0f} states/s "
              f"(our reader validates {n / best_parse / rate:.1f}x faster)")
    return 0 if min(n / best_all, rate_p) >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
