"""Train the die-value reader and export it to ONNX (models/die_reader.onnx).

    pip install -e '.[train]'
    nice -n 10 python models/train_die_reader.py [--real DIR] [--out models/die_reader.onnx]

Reproducible: fixed seeds, deterministic algorithms, a fixed split of the real photos by photo
name (written to models/die_reader.split.json). Steps:

1. render synthetic dice crops (models/synth_dice.py; cached under data-gen/, which git ignores);
2. train on synthetic crops only, and measure on the held-out real photos (figure "synthetic only");
3. fine-tune on synthetic + the training part of the real photos (boxes jittered, several crops per
   die); the held-out photos (25%, chosen by a hash of the photo name) are never trained on and not
   used to choose anything;
4. export to ONNX, check ONNX Runtime agrees with PyTorch, and measure with vision.dice.DieReader
   (the same code path as ``gammonwatch eval dice``); figures go to models/die_reader.metrics.json.

PyTorch is needed only here, never at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from synth_dice import render_sample  # noqa: E402

from vision.dice import CROP_SIZE, DieReader, crop_die, to_tensor  # noqa: E402
from vision.dice_data import LabelledPhoto, read_folder  # noqa: E402
from vision.images import read_image  # noqa: E402

SEED = 20261121
HELDOUT_FRACTION = 0.25
DEFAULT_REAL = ROOT / ".." / "shared" / "data" / "real-dice" / "photos"


class DieNet(nn.Module):
    """About 80k parameters, ~11 M multiply-adds per 48x48 crop."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> list[nn.Module]:
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

        self.features = nn.Sequential(
            *block(3, 12), nn.MaxPool2d(2),  # 24
            *block(12, 24), *block(24, 24), nn.MaxPool2d(2),  # 12
            *block(24, 48), *block(48, 48), nn.MaxPool2d(2),  # 6
            *block(48, 96),
        )
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(96, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = x.mean(dim=(2, 3))
        return self.head(x)


def split_photos(photos: list[LabelledPhoto]) -> tuple[list[LabelledPhoto], list[LabelledPhoto]]:
    """(train, held-out): the held-out part is the first 25% of photos ordered by sha1(name)."""
    ordered = sorted(photos, key=lambda p: hashlib.sha1(p.name.encode()).hexdigest())
    n_hold = int(round(len(ordered) * HELDOUT_FRACTION))
    held = sorted(ordered[:n_hold], key=lambda p: p.name)
    train = sorted(ordered[n_hold:], key=lambda p: p.name)
    return train, held


def synthetic_set(n_per_class: int, seed: int, cache: Path, colour_pips: bool = False) -> tuple[np.ndarray, np.ndarray]:
    if cache.is_file():
        data = np.load(cache)
        return data["x"], data["y"]
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    t0 = time.time()
    total = 6 * n_per_class
    for i in range(total):
        value = i % 6 + 1
        img, box = render_sample(rng, value, colour_pips)
        xs.append(crop_die(img, box))
        ys.append(value - 1)
        if (i + 1) % 5000 == 0:
            print(f"  synthetic {i + 1}/{total} ({time.time() - t0:.0f} s)", flush=True)
    x, y = np.stack(xs), np.array(ys, dtype=np.int64)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(cache, x=x, y=y)
    return x, y


def real_crops(photos: list[LabelledPhoto], variants: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The plain crop of every die plus ``variants - 1`` crops from jittered boxes."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for photo in photos:
        img = read_image(photo.image_path)
        h, w = img.shape[:2]
        for die in photo.dice:
            box = np.array(die.box_px(w, h))
            side = max(box[2] - box[0], box[3] - box[1])
            for k in range(variants):
                b = box if k == 0 else box + rng.normal(0, 0.07, 4) * side
                if b[2] - b[0] < 2 or b[3] - b[1] < 2:
                    b = box
                xs.append(crop_die(img, b))
                ys.append(die.value - 1)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Values are invariant to rotation, mirroring and colour: rot90, flip, channel permutation."""
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    if int(torch.randint(0, 2, (1,), generator=gen)):
        x = torch.flip(x, dims=(3,))
    perm = torch.randperm(3, generator=gen)
    x = x[:, perm]
    gray = torch.rand(x.shape[0], generator=gen) < 0.1
    if gray.any():
        x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    return x


def run_epochs(model: DieNet, x: np.ndarray, y: np.ndarray, epochs: int, lr: float, gen: torch.Generator,
               label: str) -> None:
    xt = torch.from_numpy(to_tensor(x))
    yt = torch.from_numpy(y)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    for epoch in range(epochs):
        model.train()
        t0 = time.time()
        order = torch.randperm(len(xt), generator=gen)
        total_loss, correct = 0.0, 0
        for s in range(0, len(xt), batch):
            idx = order[s : s + batch]
            xb = augment(xt[idx].clone(), gen)
            yb = yt[idx]
            logits = model(xb)
            loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total_loss += loss.item() * len(idx)
            correct += int((logits.argmax(1) == yb).sum())
        print(f"  {label} epoch {epoch + 1}/{epochs}: loss {total_loss / len(xt):.4f} "
              f"train acc {correct / len(xt):.4f} ({time.time() - t0:.0f} s)", flush=True)


@torch.no_grad()
def accuracy(model: DieNet, x: np.ndarray, y: np.ndarray) -> float:
    model.eval()
    logits = torch.cat([model(torch.from_numpy(to_tensor(x[s : s + 512]))) for s in range(0, len(x), 512)])
    return float((logits.argmax(1).numpy() == y).mean())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", type=Path, default=DEFAULT_REAL, help="folder of real labelled dice photos")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "die_reader.onnx")
    ap.add_argument("--synthetic-per-class", type=int, default=5000)
    ap.add_argument("--synthetic-epochs", type=int, default=3)
    ap.add_argument("--finetune-epochs", type=int, default=12)
    ap.add_argument("--real-variants", type=int, default=12, help="crops per real training die")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--colour-pips", action="store_true",
                    help="synthetic dice also with hue-only pip contrast and smoky dark faces")
    args = ap.parse_args(argv)

    t_start = time.time()
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    gen = torch.Generator().manual_seed(SEED)

    photos = read_folder(args.real)
    train_photos, held_photos = split_photos(photos)
    split_path = args.out.with_suffix(".split.json")
    split_path.write_text(json.dumps({
        "rule": f"held out: the first {HELDOUT_FRACTION:.0%} of photos ordered by sha1(name)",
        "train": [p.name for p in train_photos], "heldout": [p.name for p in held_photos]}, indent=1) + "\n")
    print(f"real photos: {len(train_photos)} train, {len(held_photos)} held out", flush=True)

    variant = "_colourpips" if args.colour_pips else ""
    cache = ROOT / "data-gen" / f"synth_dice_{args.synthetic_per_class}_{SEED}_{CROP_SIZE}{variant}.npz"
    t0 = time.time()
    xs, ys = synthetic_set(args.synthetic_per_class, SEED, cache, args.colour_pips)
    print(f"synthetic crops: {len(xs)} ({time.time() - t0:.0f} s)", flush=True)
    xr, yr = real_crops(train_photos, args.real_variants, SEED + 1)
    xh, yh = real_crops(held_photos, 1, SEED + 2)
    print(f"real train crops: {len(xr)} from {len(xr) // args.real_variants} dice; held-out dice: {len(xh)}",
          flush=True)

    model = DieNet()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"parameters: {n_params}", flush=True)
    t_train = time.time()
    run_epochs(model, xs, ys, args.synthetic_epochs, 3e-3, gen, "synthetic")
    synth_only = {"heldout_real": accuracy(model, xh, yh), "train_real": accuracy(model, xr[:: args.real_variants],
                                                                                   yr[:: args.real_variants])}
    print(f"synthetic only: held-out real {synth_only['heldout_real']:.4f}, "
          f"train real {synth_only['train_real']:.4f}", flush=True)

    # fine-tune: all real variants + an equal number of synthetic crops
    rng = np.random.default_rng(SEED + 3)
    pick = rng.choice(len(xs), size=min(len(xs), len(xr)), replace=False)
    xm = np.concatenate([xr, xs[pick]])
    ym = np.concatenate([yr, ys[pick]])
    run_epochs(model, xm, ym, args.finetune_epochs, 1e-3, gen, "fine-tune")
    train_seconds = time.time() - t_train

    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.from_numpy(to_tensor(xh[:2]))
    torch.onnx.export(model, (dummy,), str(args.out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    # check ONNX Runtime against PyTorch, then measure through the run-time code path
    reader = DieReader(args.out)
    with torch.no_grad():
        ref = model(torch.from_numpy(to_tensor(xh[:64]))).numpy()
    import onnxruntime as ort

    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"crops": to_tensor(xh[:64])})[0]
    max_diff = float(np.abs(ref - got).max())
    assert max_diff < 1e-3, f"ONNX and PyTorch disagree by {max_diff}"
    held_acc = float((reader.read_crops(xh).value == yh + 1).mean())
    train_acc = float((reader.read_crops(xr[:: args.real_variants]).value == yr[:: args.real_variants] + 1).mean())
    synth_check_rng = np.random.default_rng(SEED + 99)  # fresh synthetic dice, never trained on
    fresh = [render_sample(synth_check_rng, i % 6 + 1) for i in range(1200)]
    fresh_crops = np.stack([crop_die(img, box) for img, box in fresh])
    fresh_truth = np.arange(len(fresh)) % 6 + 1
    synth_acc = float((reader.read_crops(fresh_crops).value == fresh_truth).mean())
    cm = np.zeros((6, 6), dtype=int)
    for t, p in zip(yh + 1, reader.read_crops(xh).value, strict=True):
        cm[t - 1, p - 1] += 1
    metrics = {
        "seed": SEED,
        "parameters": n_params,
        "onnx_bytes": args.out.stat().st_size,
        "crop_size": CROP_SIZE,
        "synthetic_crops": len(xs),
        "real_train_photos": len(train_photos),
        "real_train_dice": len(xr) // args.real_variants,
        "real_heldout_photos": len(held_photos),
        "real_heldout_dice": len(xh),
        "accuracy_synthetic_only": synth_only,
        "accuracy_heldout_real": held_acc,
        "accuracy_train_real": train_acc,
        "accuracy_fresh_synthetic": synth_acc,
        "confusion_heldout_real_rows_true_cols_pred": cm.tolist(),
        "train_seconds": round(train_seconds, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "onnx_vs_torch_max_abs_diff": max_diff,
        "torch": torch.__version__,
        "threads": args.threads,
        "command": "python models/train_die_reader.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    args.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    print(json.dumps(metrics, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
