"""Train the die box refiner and export it to ONNX (models/die_box.onnx; decision 0716).

    pip install -e '.[train]'
    nice -n 10 python models/train_die_box.py --sim-train data-gen/dice-train data-gen/val-train \
        --sim-test data-gen/dice-test

For every labelled die of the training folders (``gammonwatch sim frames``), boxes a locator could
give: the box the trained dice locator finds for it (``FrameRecognizer.locate_dice``, as the run
time cuts them) and boxes jittered from the labelled one (centre moved by 15% of the side, or 35%
for a third of them; width and height by 12%). Each is cut as the run time does
(``vision.die_box.refine_crop``: twice the box's side, turned to the die's vertical from the
label's camera jittered by a few degrees) with the target ``vision.die_box.encode(box, labelled
box)``. Training mirrors crops (the x offset changes sign), permutes colours, greys and blurs some.

Measured on the held-out folders through the run time's code (``DieBoxRefiner`` on the locator's
boxes of frames whose profile comes from the labelled corners): the box centres' error before and
after, and the two calibrated die readers' accuracy on the located, refined and labelled boxes.
Figures go to models/die_box.metrics.json. PyTorch is needed only here, never at run time.
"""

from __future__ import annotations

import argparse
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
from die_crops import true_up  # noqa: E402
from train_die_reader import blur, conv_block, rotate  # noqa: E402
from validity_data import located_boxes, profile_for, recognizer_locate  # noqa: E402

from vision.dice import CROP_SIZE, SETTLED_ZOOMS, DieReaders, to_tensor, up_directions  # noqa: E402
from vision.die_box import DieBoxRefiner, encode, refine_crop  # noqa: E402
from vision.images import read_image  # noqa: E402

SEED = 20261123
MIN_VISIBLE = 0.6


class BoxNet(nn.Module):
    """Convolutions to a 6 x 6 map kept whole (where the die is matters), then two linear layers to
    the four numbers of ``vision.die_box.encode``."""

    def __init__(self, width: int = 1) -> None:
        super().__init__()
        c1, c2, c3, c4 = 16 * width, 24 * width, 32 * width, 32 * width
        block = conv_block
        self.features = nn.Sequential(
            *block(3, c1), nn.MaxPool2d(2),  # 24
            *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),  # 12
            *block(c2, c3), *block(c3, c3), nn.MaxPool2d(2),  # 6
            *block(c3, c4),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c4 * 36, 96), nn.ReLU(inplace=True), nn.Linear(96, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def labelled_dice(lab: dict) -> list[dict]:
    return [o for o in lab["objects"] if o.get("kind") == "die" and o.get("box_xyxy") is not None
            and o.get("fully_in_frame", True) and o.get("visible_frac", 0) >= MIN_VISIBLE]


def train_crops(folder: Path, variants: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Crops and targets of one folder's dice (cached under data-gen/)."""
    labels = sorted((folder / "frames").glob("*.json"))
    cache = ROOT / "data-gen" / f"die_box_{folder.name}_{len(labels)}_{variants}_{seed}.npz"
    if cache.is_file():
        d = np.load(cache)
        return d["x"], d["t"]
    rng = np.random.default_rng(seed)
    locate = recognizer_locate()
    xs, ts = [], []
    for path in labels:
        lab = json.loads(path.read_text())
        dice = labelled_dice(lab)
        if not dice:
            continue
        img = read_image(path.with_suffix(".jpg"))
        found, _ = located_boxes(locate, img, lab, dice)
        for die, lb in zip(dice, found, strict=True):
            truth = np.array(die["box_xyxy"], dtype=np.float64)
            w, h = truth[2] - truth[0], truth[3] - truth[1]
            if min(w, h) < 4:
                continue
            side = max(w, h)
            up = true_up(lab, die["pose"]["position_cm"])
            for k in range(variants):
                if k == 0 and lb is not None:
                    b = np.array(lb, dtype=np.float64)
                else:
                    spread = 0.35 if rng.random() < 0.33 else 0.15
                    c = (truth[:2] + truth[2:]) / 2 + rng.normal(0, spread, 2) * side
                    hw, hh = w / 2 * np.exp(rng.normal(0, 0.12)), h / 2 * np.exp(rng.normal(0, 0.12))
                    b = np.array([c[0] - hw, c[1] - hh, c[0] + hw, c[1] + hh])
                u = rotate(up, float(rng.normal(0, 8.0)))
                xs.append(refine_crop(img, b, u))
                ts.append(encode(b, truth, u))
    x, t = np.stack(xs), np.array(ts, dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, x=x, t=t)
    return x, t


def augment(x: torch.Tensor, t: torch.Tensor, gen: torch.Generator, blur_share: float) -> tuple[torch.Tensor, torch.Tensor]:
    flip = torch.rand(x.shape[0], generator=gen) < 0.5
    if flip.any():
        x[flip] = torch.flip(x[flip], dims=(3,))
        t[flip, 0] = -t[flip, 0]
    x = x[:, torch.randperm(3, generator=gen)]
    gray = torch.rand(x.shape[0], generator=gen) < 0.1
    if gray.any():
        x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    soft = torch.rand(x.shape[0], generator=gen) < blur_share
    if soft.any():
        x[soft] = blur(x[soft], 0.6 + float(torch.rand(1, generator=gen)) * 1.0)
    return x, t


LOSS_WEIGHTS = torch.tensor([1.0, 1.0, 0.5, 0.5])


def train(model: BoxNet, x: np.ndarray, t: np.ndarray, epochs: int, lr: float, gen: torch.Generator, blur_share: float) -> None:
    xt, tt = torch.from_numpy(to_tensor(x)), torch.from_numpy(t)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    batch = 128
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * ((len(xt) + batch - 1) // batch),
                                                pct_start=0.15)
    for epoch in range(epochs):
        model.train()
        t0, total = time.time(), 0.0
        order = torch.randperm(len(xt), generator=gen)
        for s in range(0, len(xt), batch):
            idx = order[s : s + batch]
            xb, tb = augment(xt[idx].clone(), tt[idx].clone(), gen, blur_share)
            loss = (F.smooth_l1_loss(model(xb), tb, reduction="none", beta=0.05) * LOSS_WEIGHTS).sum(1).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(xt):.4f} ({time.time() - t0:.0f} s)", flush=True)


def centre_error(a: np.ndarray, b: np.ndarray) -> float:
    """Distance of the box centres over the labelled box's side."""
    return float(np.hypot((a[0] + a[2] - b[0] - b[2]) / 2, (a[1] + a[3] - b[1] - b[3]) / 2) / max(b[2] - b[0], b[3] - b[1]))


def evaluate(folder: Path, refiner: DieBoxRefiner, readers: DieReaders) -> dict:
    """Located boxes before and after refinement, against the labels, and what the readers make of them."""
    locate = recognizer_locate()
    err_before, err_after = [], []
    right = {"located": 0, "refined": 0, "labelled": 0}
    by_value = np.zeros((6, 2), dtype=int)
    n = 0
    for path in sorted((folder / "frames").glob("*.json")):
        lab = json.loads(path.read_text())
        dice = labelled_dice(lab)
        if not dice:
            continue
        img = read_image(path.with_suffix(".jpg"))
        prof = profile_for(lab, None)
        found, _ = located_boxes(locate, img, lab, dice)
        pairs = [(d, lb) for d, lb in zip(dice, found, strict=True) if lb is not None]
        if not pairs:
            continue
        located = [lb for _, lb in pairs]
        ups = up_directions(prof, located)
        refined = refiner.refine(img, located, ups)
        labelled = [d["box_xyxy"] for d, _ in pairs]
        for name, boxes in (("located", located), ("refined", refined), ("labelled", labelled)):
            values = readers.read(img, boxes, ups=up_directions(prof, boxes), zooms=SETTLED_ZOOMS, profile=prof).value
            ok = [int(v) == int(d["value"]) for v, (d, _) in zip(values, pairs, strict=True)]
            right[name] += sum(ok)
            if name == "refined":
                for (d, _), good in zip(pairs, ok, strict=True):
                    by_value[int(d["value"]) - 1, int(good)] += 1
        for (d, lb), rb in zip(pairs, refined, strict=True):
            err_before.append(centre_error(np.array(lb), np.array(d["box_xyxy"])))
            err_after.append(centre_error(np.array(rb), np.array(d["box_xyxy"])))
        n += len(pairs)
    eb, ea = np.array(err_before), np.array(err_after)
    return {"dice_located": n,
            "centre_error_sides_before": {"median": round(float(np.median(eb)), 4), "p90": round(float(np.percentile(eb, 90)), 4),
                                          "over_0.2": int((eb > 0.2).sum())},
            "centre_error_sides_after": {"median": round(float(np.median(ea)), 4), "p90": round(float(np.percentile(ea, 90)), 4),
                                         "over_0.2": int((ea > 0.2).sum())},
            "readers_accuracy": {k: round(v / max(n, 1), 4) for k, v in right.items()},
            "refined_right_by_value": {str(v + 1): f"{by_value[v, 1]}/{by_value[v].sum()}" for v in range(6)}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim-train", type=Path, nargs="+", default=[ROOT / "data-gen" / "dice-train", ROOT / "data-gen" / "val-train"])
    ap.add_argument("--sim-test", type=Path, nargs="*", default=[ROOT / "data-gen" / "dice-test"])
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "die_box.onnx")
    ap.add_argument("--variants", type=int, default=5, help="boxes per training die (the located one and jittered ones)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--blur", type=float, default=0.3, help="share of training crops blurred")
    ap.add_argument("--width", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    gen = torch.Generator().manual_seed(SEED)

    parts, counts = [], {}
    for i, folder in enumerate(args.sim_train):
        if not (folder / "frames").is_dir():
            raise SystemExit(f"{folder}: no frames/ folder; make it with `gammonwatch sim frames` (models/die_box.md)")
        t0 = time.time()
        part = train_crops(folder, args.variants, SEED + 10 + i)
        parts.append(part)
        counts[folder.name] = int(len(part[1]))
        print(f"  {folder.name}: {len(part[1])} crops ({time.time() - t0:.0f} s)", flush=True)
    x = np.concatenate([p[0] for p in parts])
    t = np.concatenate([p[1] for p in parts])
    model = BoxNet(args.width)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"parameters: {n_params}; crops {len(t)}", flush=True)
    t_train = time.time()
    train(model, x, t, args.epochs, args.lr, gen, args.blur)
    train_seconds = time.time() - t_train

    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sample = torch.from_numpy(to_tensor(x[:64]))
    torch.onnx.export(model, (sample[:2],), str(args.out), input_names=["crops"], output_names=["box"],
                      dynamic_axes={"crops": {0: "n"}, "box": {0: "n"}}, opset_version=17, dynamo=False)
    import onnxruntime as ort

    with torch.no_grad():
        ref = model(sample).numpy()
    got = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"]).run(None, {"crops": sample.numpy()})[0]
    max_diff = float(np.abs(ref - got).max())
    assert max_diff < 1e-3, f"ONNX and PyTorch disagree by {max_diff}"

    refiner = DieBoxRefiner(args.out)
    readers = DieReaders.calibrated()
    held = {}
    for folder in args.sim_test:
        if (folder / "frames").is_dir():
            held[folder.name] = evaluate(folder, refiner, readers)
            print(f"held-out {folder.name}: {held[folder.name]}", flush=True)
    metrics = {"seed": SEED, "parameters": n_params, "bytes": args.out.stat().st_size, "crop_size": CROP_SIZE,
               "training_crops": counts, "epochs": args.epochs, "train_seconds": round(train_seconds),
               "held_out": held, "onnx_vs_torch_max_abs_diff": max_diff, "torch": torch.__version__, "threads": args.threads,
               "command": "python models/train_die_box.py " + " ".join(sys.argv[1:] if argv is None else argv)}
    args.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    print(json.dumps(metrics, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
