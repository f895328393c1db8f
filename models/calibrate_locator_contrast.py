"""Choose the dice locator's input contrast on frames it was not trained on, and write it into the model.

    pip install -e '.[train]'
    python models/calibrate_locator_contrast.py DIR [DIR ...] [--model models/dice_locator.onnx]
        [--contrasts 1,0.9,0.85,0.8,0.75,0.7] [--max-recall-loss 0.005] [--video FOLDER ...] [--write]

The locator's input is ``contrast * (pixel / 255 - 0.5) / 0.25`` (``vision.dice_locator.normalise``):
the contrast about mid-grey it is given at run time, 1 as trained. Session 39 found the committed
model sees more of the dice, and fewer things that are no die, when its input is given less contrast
than in training (decision 0740). This script measures the locator (``train_dice_locator.evaluate``:
recall of the dice at least half visible, precision of all boxes, through ``DiceLocator``) on
labelled frames of ``gammonwatch sim frames`` folders at each contrast, and takes the one with the
best precision among those whose recall is at most ``--max-recall-loss`` under the recall at contrast
1 (a die missed costs a turn; most false boxes are refused by the live pipeline, decision 0653). The
frames must be ones the model was not trained on, in the *training* board styles (the held-out
styles stay for measuring). ``--video`` folders (``gammonwatch sim video`` renders) are measured at each
contrast as well, for the report only. ``--write`` stores the choice in the model's metadata
(``input_contrast``, with ``input_contrast_source`` naming the frames); the weights are not touched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))

from vision.dice_locator import CONTRAST_KEY, DEFAULT_MODEL, DiceLocator  # noqa: E402


def choose(results: dict[float, tuple[float, float]], max_recall_loss: float) -> float:
    """``results``: contrast -> (recall, precision); 1 must be among them. The contrast with the best
    precision whose recall is at least the recall at 1 less ``max_recall_loss`` (ties: nearer 1)."""
    if 1.0 not in results:
        raise ValueError("the contrasts to try must include 1 (the model as trained)")
    floor = results[1.0][0] - max_recall_loss
    ok = [c for c, (r, _) in results.items() if r >= floor]
    return max(ok, key=lambda c: (results[c][1], -abs(c - 1.0)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", type=Path, nargs="+", help="sim frames folders (frames/NNNNNN.jpg + .json)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--contrasts", default="1,0.9,0.85,0.8,0.75,0.7")
    ap.add_argument("--max-recall-loss", type=float, default=0.005)
    ap.add_argument("--video", type=Path, nargs="*", default=[])
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    from train_dice_locator import evaluate, evaluate_video  # (PyTorch: the [train] extra)

    for f in a.folders:
        if not (f / "frames").is_dir():
            raise SystemExit(f"{f}: no frames/ folder; give folders made by 'gammonwatch sim frames'")
    try:
        contrasts = sorted({float(c) for c in a.contrasts.split(",") if c.strip()} | {1.0}, reverse=True)
    except ValueError:
        raise SystemExit(f"--contrasts {a.contrasts!r}: give numbers separated by commas, e.g. 1,0.9,0.8") from None
    results: dict[float, tuple[float, float]] = {}
    loc = DiceLocator(a.model)
    now = loc.contrast
    for c in contrasts:
        loc.contrast = c
        print(f"contrast {c}:", flush=True)
        out = evaluate(loc, a.folders)
        n = sum(v["dice_half_visible"] for v in out.values())
        tp = n - sum(v["missed"] for v in out.values())
        fp = sum(v["false_positives"] for v in out.values())
        results[c] = (tp / max(n, 1), tp / max(tp + fp, 1))
        print(f"  all: recall {results[c][0]:.4f}, precision {results[c][1]:.4f}", flush=True)
        if a.video:
            evaluate_video(loc, a.video)
    best = choose(results, a.max_recall_loss)
    print(f"chosen contrast {best} (recall {results[best][0]:.4f}, precision {results[best][1]:.4f}); "
          f"the model's now: {now}")
    if a.write:
        import onnx
        from onnx_init import set_metadata

        model = onnx.load(str(a.model))
        set_metadata(model, {CONTRAST_KEY: f"{best:g}",
                             f"{CONTRAST_KEY}_source": ", ".join(f.name for f in a.folders)})
        onnx.save(model, str(a.model))
        print(f"wrote {CONTRAST_KEY}={best:g} into {a.model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
