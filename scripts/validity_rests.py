"""The dice-validity verdicts of one or more models on every rest of the dice of rendered end-to-end
matches, against the simulator's truth: a candidate validity model checked in seconds where a serve
of the match takes tens of minutes.

    python scripts/validity_rests.py FOLDER... [--models A.onnx,B.onnx] [--at 2.0] [--json OUT]

FOLDER is a rendered match folder (``server.simtable`` layout: ``index.jsonl``, ``frames/``,
``camera.json``; ``scripts/eval_e2e.py --render-only`` makes them). A *rest* is a run of frames in
which the truth has every die at rest at the same place; its frame ``--at`` seconds in (the verdict
the tracker gives when the dice complete their 2 s at rest; the last frame of a shorter rest) goes
through the recognizer as the pipeline calls it (the locator's boxes, both looks, the readers' doubt,
decisions 0725 and 0742), with the truth's checker counts. Each truth die is matched to the nearest
located box whose centre lies within the box's larger side of it (a box cut by the near rail covers
only what shows, so the die's centre may lie outside it). Printed per model: the valid dice called
invalid and the invalid dice let through, each with its frame, so that a model can be judged on the dice a match really throws
(decisions 0724, 0729: a validity model is kept only if it loses no injection end to end).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def rests(index: list[dict[str, Any]], fps: float, at_s: float) -> list[dict[str, Any]]:
    """One row of ``index.jsonl`` per rest of the dice: ``at_s`` seconds in, or the rest's last."""
    out: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    key: tuple[Any, ...] | None = None
    for row in index + [{"truth": {"dice": []}}]:
        dice = row["truth"].get("dice", [])
        resting = bool(dice) and all(d.get("state") == "at_rest" for d in dice)
        k = tuple((round(d["center_px"][0]), round(d["center_px"][1])) for d in dice) if resting else None
        if k is not None and k == key:
            run.append(row)
            continue
        if run:
            out.append(run[min(int(round(at_s * fps)), len(run) - 1)])
        run, key = ([row], k) if k is not None else ([], None)
    return out


def nearest_box(boxes: list[Any], xy: list[float]) -> int | None:
    """Index of the box whose centre is nearest ``xy``, if within the box's larger side; else None."""
    best: tuple[float, int] | None = None
    for i, b in enumerate(boxes):
        d = ((b[0] + b[2]) / 2 - xy[0]) ** 2 + ((b[1] + b[3]) / 2 - xy[1]) ** 2
        if d <= max(b[2] - b[0], b[3] - b[1]) ** 2 and (best is None or d < best[0]):
            best = (d, i)
    return None if best is None else best[1]


def judge_folder(folder: Path, models: list[str], at_s: float) -> list[dict[str, Any]]:
    """Every truth die of every rest in ``folder`` with each model's verdict (None: no box holds it)."""
    import cv2

    from server.pipeline import load_profile
    from vision.dice_validity import VALID_CLASSES, DieValidityClassifier
    from vision.recognizer import FrameRecognizer

    for need in ("index.jsonl", "camera.json"):
        if not (folder / need).is_file():
            raise SystemExit(f"{folder}: no {need}; render the match with scripts/eval_e2e.py --render-only first")
    index = []
    with open(folder / "index.jsonl", encoding="utf-8") as f:
        for line in f:
            try:
                index.append(json.loads(line))
            except ValueError:
                break  # a render still being written: its last line may be cut
    if len(index) < 2:
        return []
    fps = 1.0 / max(index[1]["t"] - index[0]["t"], 1e-6)
    profile = load_profile(folder / "camera.json")
    first = FrameRecognizer(profile, validity=DieValidityClassifier(models[0]))
    # the other models' recognizers share the first's board reader, locator, box refiner and die readers
    recognizers = [first] + [FrameRecognizer(profile, board=first.board_reader, die_reader=first.die_reader,
                                             validity=DieValidityClassifier(m), locator=first.locator,
                                             refiner=first.refiner) for m in models[1:]]
    out = []
    for row in rests(index, fps, at_s):
        image = cv2.imread(str(folder / row["image"]))
        if image is None:
            raise SystemExit(f"{folder / row['image']}: not readable; render the match again")
        truth = row["truth"]
        counts = [p["light"] + p["dark"] for p in truth["points"]]
        boxes = first.locate_dice(image)
        verdicts = [rec.read_dice(image, boxes, counts)[1] for rec in recognizers]
        for die in truth["dice"]:
            i = nearest_box(boxes, die["center_px"])
            out.append({"folder": folder.name, "frame": row["k"], "value": die.get("value"),
                        "truth_valid": bool(die.get("valid")), "truth_reason": die.get("reason"),
                        "verdicts": None if i is None else
                        [{"reason": v[i].reason, "valid": v[i].reason in VALID_CLASSES,
                          "valid_p": round(float(v[i].valid_p), 4),
                          "p": [round(float(x), 4) for x in v[i].pose_p],
                          "reach": None if v[i].reach is None else round(float(v[i].reach), 3)} for v in verdicts]})
    return out


def report(items: list[dict[str, Any]], models: list[str]) -> list[str]:
    """Per model: valid dice called invalid, invalid dice let through, each listed."""
    found = [d for d in items if d["verdicts"] is not None]
    lines = [f"{len(items)} dice at rest, {len(found)} located"]
    for m, name in enumerate(models):
        valid = [d for d in found if d["truth_valid"]]
        invalid = [d for d in found if not d["truth_valid"]]
        false = [d for d in valid if not d["verdicts"][m]["valid"]]
        missed = [d for d in invalid if d["verdicts"][m]["valid"]]
        lines.append(f"{name}: valid called invalid {len(false)}/{len(valid)}, invalid let through {len(missed)}/{len(invalid)}")
        for kind, dice in (("false", false), ("missed", missed)):
            for d in dice:
                v = d["verdicts"][m]
                lines.append(f"   {kind}: {d['folder']} frame {d['frame']} {d['truth_reason']} {d['value']}: "
                             f"{v['reason']} P(valid) {v['valid_p']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--models", default=str(ROOT / "models" / "die_validity.onnx"),
                    help="comma-separated validity models (default: the committed one)")
    ap.add_argument("--at", type=float, default=2.0, help="seconds into each rest")
    ap.add_argument("--json", type=Path, help="also write every die's verdicts here")
    a = ap.parse_args(argv)
    models = [m for m in a.models.split(",") if m]
    for m in models:
        if not Path(m).is_file():
            print(f"{m}: no such validity model; give an exported .onnx (models/train_die_validity.py --out)",
                  file=sys.stderr)
            return 2
    items: list[dict[str, Any]] = []
    for folder in a.folders:
        items += judge_folder(folder, models, a.at)
    print("\n".join(report(items, models)))
    if a.json:
        a.json.write_text(json.dumps(items, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
