"""Fit a temperature to the die reader's logits and fold it into the ONNX file's last layer.

    pip install -e '.[train]'          # (onnx; no PyTorch needed)
    python models/calibrate_die_reader.py models/die_reader_calibrated.onnx --sim data-gen/dice-cal

The reader is trained with label smoothing (0.05), which keeps its probabilities under about 0.96
even where it is always right; the referee multiplies two dice and asks for 0.95 (session 12: on the
held-out renders, dice read at 0.90-0.95 were right 99.2% of the time). One temperature T, fitted on
simulator dice of the training board styles (a folder never trained on: ``gammonwatch sim frames``
with its own seed), minimises the negative log-likelihood of the reading as ``vision.dice.DieReader``
gives it (each crop with its mirror image, probabilities averaged); the last linear layer's weights
and bias are divided by T, so the run-time code is unchanged. The value read does not change (argmax
is invariant; the mirror average may change it in a rare tie). Figures go to ``<out>.calibration.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))

from die_crops import sim_test_crops  # noqa: E402

from vision.dice import to_tensor  # noqa: E402
from vision.onnx import load_session  # noqa: E402

HEAD = ("head.1.weight", "head.1.bias")
"""The reader's last layer in the exported graph (``models/train_die_reader.py``, ``DieNet.head``)."""


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def reading(logits: np.ndarray, mirrored: np.ndarray, t: float) -> np.ndarray:
    """Probabilities as the reader gives them at temperature ``t``: crop and mirror averaged."""
    return (softmax(logits / t) + softmax(mirrored / t)) / 2


def figures(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Negative log-likelihood, accuracy, mean top probability and expected calibration error (10 bins)."""
    top, pred = p.max(axis=1), p.argmax(axis=1)
    ok = pred == y
    edges = np.linspace(0.0, 1.0, 11)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (top > lo) & (top <= hi)
        if m.any():
            ece += float(m.mean()) * abs(float(ok[m].mean()) - float(top[m].mean()))
    return {"nll": round(float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-12)).mean()), 4),
            "accuracy": round(float(ok.mean()), 4), "mean_top_p": round(float(top.mean()), 4), "ece": round(ece, 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path, help="the die reader's ONNX file (as exported, temperature 1)")
    ap.add_argument("--sim", type=Path, nargs="+", required=True, help="simulator frame folders never trained on")
    ap.add_argument("--out", type=Path, default=None, help="where to write the calibrated model (default: over the input)")
    ap.add_argument("--all-dice", action="store_true",
                    help="fit on every die, also those that do not show their value (tilted past 30 degrees, under the "
                         "other die: their label is a guess); before session 21 the fit was on all dice")
    args = ap.parse_args(argv)
    import onnx
    from onnx import numpy_helper

    session = load_session(args.model, what="die reader model", rebuild_hint="see models/die_reader.md")
    kind = str(session.get_modelmeta().custom_metadata_map.get("crop_kind", "up"))  # the crops it was trained on
    xs, ys = [], []
    for folder in args.sim:
        if not (folder / "frames").is_dir():
            raise SystemExit(f"{folder}: no frames/ folder; render one with: gammonwatch sim frames --n 400 --out {folder} --seed N")
        x, y, _ = sim_test_crops(folder, kind, showing_only=not args.all_dice)
        xs.append(x)
        ys.append(y)
    x, y = np.concatenate(xs), np.concatenate(ys)
    name = session.get_inputs()[0].name
    t_in = to_tensor(x)
    logits = np.asarray(session.run(None, {name: t_in})[0], dtype=np.float64)
    mirrored = np.asarray(session.run(None, {name: np.ascontiguousarray(t_in[:, :, :, ::-1])})[0], dtype=np.float64)
    grid = np.round(np.arange(0.25, 2.0001, 0.025), 3)
    nll = [figures(reading(logits, mirrored, float(t)), y)["nll"] for t in grid]
    t_best = float(grid[int(np.argmin(nll))])
    before, after = figures(reading(logits, mirrored, 1.0), y), figures(reading(logits, mirrored, t_best), y)
    print(f"{len(y)} dice from {', '.join(str(f) for f in args.sim)}")
    print(f"temperature 1: {before}")
    print(f"temperature {t_best}: {after}")

    model = onnx.load(str(args.model))
    inits = {i.name: i for i in model.graph.initializer}
    missing = [n for n in HEAD if n not in inits]
    if missing:
        raise SystemExit(f"{args.model}: no {', '.join(missing)} in the graph; not a reader exported by models/train_die_reader.py")
    for n in HEAD:
        w = numpy_helper.to_array(inits[n]).astype(np.float32) / np.float32(t_best)
        inits[n].CopyFrom(numpy_helper.from_array(w, n))
    out = args.out or args.model
    onnx.save(model, str(out))
    check = load_session(out, what="die reader model", rebuild_hint="see models/die_reader.md")
    got = np.asarray(check.run(None, {name: t_in[:64]})[0], dtype=np.float64)
    assert np.allclose(got, logits[:64] / t_best, atol=1e-3), "the folded model does not give logits / T"
    record = {"temperature": t_best, "dice": int(len(y)), "data": [str(f) for f in args.sim],
              "dice_kind": "all" if args.all_dice else "showing their value",
              "before": before, "after": after, "model": str(out)}
    Path(str(out).removesuffix(".onnx") + ".calibration.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out} (last layer divided by {t_best})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
