"""Choose the die-validity threshold on the verdicts the recognizer gives, and write it into the model.

    pip install -e '.[train]'          # (onnx, to rewrite the metadata; no PyTorch needed)
    python models/calibrate_validity.py data-gen/val-cal [--max-false 0.01] [--model models/die_validity.onnx] [--write]

``models/train_die_validity.py`` chooses ``valid_threshold`` on single looks at dice (one box each). The
recognizer judges each die twice, from the locator's box and from the box the refiner makes of it, and
decides on the two looks' averaged pose probabilities (``DieValidityClassifier.combine``, decision
0716): a steadier quantity, whose 1% quantile over valid dice lies elsewhere. This script runs
``FrameRecognizer.recognize`` over labelled frames (a render of the *training* board styles never
trained on: ``gammonwatch sim frames`` with its own seed), matches the dice found to the labelled ones
as ``gammonwatch eval vision`` does, and takes the threshold under which at most ``--max-false`` of
the matched valid dice fall (dice decided ``off_board`` or ``wrong_side`` are decided before the
threshold and left out, and so is a die the other die rests on: it lies flat, but its roll is void,
DIGEST A1.5, and the camera sees it as the lower half of the stack). It prints the invalid dice caught and valid dice called invalid on these
frames at the model's threshold and at the chosen one; ``--write`` stores the chosen one in the
model's metadata (``valid_threshold``, with ``valid_threshold_source`` naming the frames).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))

from onnx_init import save_model, set_metadata  # noqa: E402
from train_die_validity import quantile_threshold  # noqa: E402  (no PyTorch needed to import it)

from vision.dice_validity import DEFAULT_MODEL, VALID_CLASSES, DieValidityClassifier  # noqa: E402
from vision.eval_cli import labelled_frames, match_dice, recognized  # noqa: E402

DECIDED_FIRST = ("off_board", "wrong_side")
"""Verdicts ``vision.dice_validity.decide`` gives before it looks at the threshold."""


def collect(folders: list[Path], model: Path) -> tuple[np.ndarray, np.ndarray]:
    """P(valid) of the averaged looks and the label's validity, for every matched die at rest the threshold decides."""
    clf = DieValidityClassifier(model)
    valid_p, valid = [], []
    frames = labelled_frames(folders)
    for k, (f, rec, _, _) in enumerate(recognized(frames, validity=clf)):
        for i, j in match_dice(f.dice, [d.center_px for d in rec.dice]):
            if rec.verdicts[j].reason in DECIDED_FIRST or f.dice[i].under_die:
                continue  # decided before the threshold; a die under the other is in a void roll (A1.5)
            valid_p.append(rec.verdicts[j].valid_p)
            valid.append(f.dice[i].valid)
        if (k + 1) % 100 == 0:
            print(f"{k + 1}/{len(frames)} frames", file=sys.stderr, flush=True)
    return np.array(valid_p, dtype=np.float64), np.array(valid, dtype=bool)


def rates(valid_p: np.ndarray, valid: np.ndarray, threshold: float) -> tuple[float, float]:
    """Invalid dice caught and valid dice called invalid at ``threshold`` (among the dice it decides)."""
    called_invalid = valid_p < threshold
    return float(called_invalid[~valid].mean()) if (~valid).any() else float("nan"), \
        float(called_invalid[valid].mean()) if valid.any() else float("nan")


def write_threshold(model: Path, threshold: float, source: str) -> None:
    import onnx

    m = onnx.load(str(model))
    set_metadata(m, {"valid_threshold": f"{threshold:.5f}", "valid_threshold_source": source})
    save_model(m, model)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", nargs="+", type=Path, help="labelled simulator frames (training styles, never trained on)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--max-false", type=float, default=0.01, help="share of valid dice that may be called invalid")
    ap.add_argument("--write", action="store_true", help="store the chosen threshold in the model's metadata")
    a = ap.parse_args(argv)
    valid_p, valid = collect(a.folders, a.model)
    if not valid.any():
        print(f"no valid dice matched in {', '.join(map(str, a.folders))}: nothing to choose a threshold on", file=sys.stderr)
        return 2
    old = DieValidityClassifier(a.model).valid_threshold
    new = quantile_threshold(valid_p[valid], a.max_false)
    print(f"{len(valid)} matched dice decided by the threshold ({int(valid.sum())} valid, {int((~valid).sum())} invalid; "
          f"valid classes {', '.join(sorted(VALID_CLASSES))})")
    for name, t in (("model's", old), ("chosen", new)):
        caught, false = rates(valid_p, valid, t)
        print(f"{name} threshold {t:.5f}: invalid caught {caught:.1%}, valid called invalid {false:.2%}")
    if a.write:
        write_threshold(a.model, new, f"calibrate_validity.py {' '.join(f.name for f in a.folders)} --max-false {a.max_false}")
        print(f"wrote valid_threshold {new:.5f} into {a.model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
