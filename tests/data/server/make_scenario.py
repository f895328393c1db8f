"""Rebuild scenario.jsonl: the simulator's script of scenario.mat with one cocked roll injected.

    python -m sim.script tests/data/server/scenario.mat --out /tmp/scenario-plain.jsonl   (or gammonwatch sim script)
    python tests/data/server/make_scenario.py /tmp/scenario-plain.jsonl tests/data/server/scenario.jsonl

Bob's 3-1 (his fourth roll) first comes to rest with die 2 cocked for 2.5 s (RG19 4.1.4.3: both dice are
rolled again), then the dice go back in the cup and the scripted valid 3-1 follows; later states are
shifted by 3.6 s and 108 frames.
"""

from __future__ import annotations

import copy
import json
import sys


def main(src: str, dst: str) -> None:
    lines = [json.loads(x) for x in open(src, encoding="utf-8")]
    states = [i for i, x in enumerate(lines) if x["type"] == "table_state"]
    roll = next(i for i in states if lines[i]["frame"] > 1254 and lines[i].get("dice") and lines[i]["dice"][0]["state"] == "rolling")
    idx = next(i for i in states if i > roll and lines[i]["dice"][0]["state"] == "at_rest")
    base = lines[idx]
    inserted = []
    for k in range(6):  # at rest 0 .. 2.5 s, die 2 cocked
        s = copy.deepcopy(base)
        s["t"], s["frame"] = round(base["t"] + k * 0.5, 3), base["frame"] + k * 15
        s["dice"][0]["rest_s"] = round(k * 0.5, 2)
        s["dice"][1].update({"valid": False, "reason": "cocked", "rest_s": round(k * 0.5, 2)})
        inserted.append(s)
    for k, state in enumerate(["in_cup", "rolling"]):
        s = copy.deepcopy(base)
        s["t"], s["frame"] = round(base["t"] + 3.0 + k * 0.3, 3), base["frame"] + 90 + k * 9
        s["dice"] = [{"value": None, "state": state, **({"half": base["dice"][0]["half"]} if state == "rolling" else {})}
                     for _ in range(2)]
        inserted.append(s)
    out = lines[:idx] + inserted
    for x in lines[idx:]:
        if x["type"] == "table_state":
            x = {**x, "t": round(x["t"] + 3.6, 3), "frame": x["frame"] + 108}
        out.append(x)
    with open(dst, "w", encoding="utf-8") as f:
        for x in out:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
