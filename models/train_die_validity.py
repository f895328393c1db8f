"""Train the die-validity classifier (context crop + pose cues -> pose class) and export it to ONNX.

    pip install -e '.[train]'
    nice -n 15 python models/validity_data.py DIRS... --out data-gen/validity-train.npz --copies 2 --exclude-styles walnut-wood,navy-leather
    nice -n 15 python models/validity_data.py DIRS... --out data-gen/validity-test.npz --styles walnut-wood,navy-leather
    nice -n 15 python models/train_die_validity.py data-gen/validity-train.npz --test data-gen/validity-test.npz \
        [--minutes 12] [--out models/die_validity.onnx]

PyTorch is used here only; run time is ONNX Runtime (``vision.dice_validity.DieValidityClassifier``).
The feature standardisation is part of the exported graph, so callers pass the raw features of
``vision.dice_validity.die_features``. The validity threshold is chosen on a validation part of
the *training* frames (whole frames held out, never the test set) so that at most 1% of valid dice
fall below it, and stored in the model's metadata (``valid_threshold``). With ``--test`` the script
prints the held-out figures of issue 5: invalid dice caught, valid dice called invalid, and the
reasons' confusion matrix (rows truth, columns vision); ``--report FILE`` writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.dice_validity import CROP_CONTEXT, CROP_SIZE, N_FEATURES, POSE_CLASSES, crops_to_tensor, decide  # noqa: E402
from vision.observation import DIE_REASONS  # noqa: E402

VALID_IDX = (POSE_CLASSES.index("flat_board"), POSE_CLASSES.index("on_checker"))
N_AUX = 9
"""Auxiliary targets of ``models/validity_data.py`` (``AUX_NAMES``): 4 regressed, 5 binary."""
AUX_WEIGHT = 0.5
HALVES = ("left", "right")


def load(path: Path) -> dict[str, npt.NDArray[Any]]:
    with np.load(path) as d:
        return {k: d[k] for k in d.files}


def build_model(mean: npt.NDArray[np.float32], std: npt.NDArray[np.float32]) -> Any:
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()

            def block(i: int, o: int) -> nn.Sequential:
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))

            self.cnn = nn.Sequential(block(3, 16), block(16, 32), block(32, 48), block(48, 64), nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
            self.register_buffer("std", torch.tensor(std, dtype=torch.float32))
            self.mlp = nn.Sequential(nn.Linear(N_FEATURES, 48), nn.ReLU(), nn.Linear(48, 48), nn.ReLU())
            self.trunk = nn.Sequential(nn.Dropout(0.2), nn.Linear(64 + 48, 64), nn.ReLU())
            self.head = nn.Linear(64, len(POSE_CLASSES))
            self.aux = nn.Linear(64, N_AUX)  # training only: tilt, base height, top-face offset, supports
            self.with_aux = False

        def forward(self, crop: Any, features: Any) -> Any:
            f = (features - self.mean) / self.std
            h = self.trunk(torch.cat([self.cnn(crop), self.mlp(f)], dim=1))
            if self.with_aux:
                return self.head(h), self.aux(h)
            return self.head(h)

    return Net()


def augment(x: npt.NDArray[np.float32], rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """Colour-channel permutation and gain per crop (dice and boards come in every colour)."""
    out = x.copy()
    for i in range(len(out)):
        out[i] = out[i][rng.permutation(3)] * float(rng.uniform(0.85, 1.15))
    return out


def predict(model: Any, crops: npt.NDArray[np.float32], feats: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    import torch

    model.eval()
    outs = []
    with torch.no_grad():
        for i in range(0, len(crops), 256):
            logits = model(torch.from_numpy(crops[i:i + 256]), torch.from_numpy(feats[i:i + 256]))
            outs.append(torch.softmax(logits, dim=1).numpy())
    return np.concatenate(outs).astype(np.float32) if outs else np.zeros((0, len(POSE_CLASSES)), np.float32)


def choose_threshold(probs: npt.NDArray[np.float32], y: npt.NDArray[np.int64], max_false: float = 0.01) -> float:
    """Largest threshold on P(valid) that calls at most ``max_false`` of the valid dice invalid."""
    vp = probs[:, VALID_IDX[0]] + probs[:, VALID_IDX[1]]
    valid = np.isin(y, VALID_IDX)
    if not valid.any():
        return 0.5
    t = float(np.quantile(vp[valid], max_false))
    return float(np.clip(min(t, 0.5), 0.02, 0.5))


def evaluate(probs: npt.NDArray[np.float32], data: dict[str, npt.NDArray[Any]], threshold: float) -> dict[str, Any]:
    """Issue 5's figures: reasons decided with the rolled half known (the referee knows who rolled)."""
    n = len(probs)
    truth = [DIE_REASONS[int(r)] for r in data["reason"]]
    halves = [HALVES[int(h)] if h >= 0 else None for h in data["half"]]
    pred: list[str] = []
    for i in range(n):
        rolled = HALVES[int(data["rolled"][i])] if data["rolled"][i] >= 0 else None
        reason, _ = decide(probs[i], halves[i], rolled, threshold)  # type: ignore[arg-type]
        pred.append(reason)
    valid_t = np.array([t in ("flat_board", "on_checker") for t in truth])
    valid_p = np.array([p in ("flat_board", "on_checker") for p in pred])
    conf = {t: {p: 0 for p in DIE_REASONS} for t in DIE_REASONS}
    for t, p in zip(truth, pred, strict=True):
        conf[t][p] += 1
    caught = int(np.sum(~valid_t & ~valid_p))
    false_inv = int(np.sum(valid_t & ~valid_p))
    return {
        "dice": n, "invalid": int((~valid_t).sum()), "valid": int(valid_t.sum()),
        "caught": caught, "catch_rate": round(caught / max(1, int((~valid_t).sum())), 4),
        "false_invalid": false_inv, "false_invalid_rate": round(false_inv / max(1, int(valid_t.sum())), 4),
        "reason_accuracy": round(float(np.mean([t == p for t, p in zip(truth, pred, strict=True)])), 4),
        "threshold": round(threshold, 4), "confusion": conf,
        "frames": len(set(data["frame"].tolist())), "styles": sorted(set(data["style"].tolist())),
    }


def print_report(rep: dict[str, Any]) -> None:
    print(f"held-out: {rep['dice']} dice ({rep['valid']} valid, {rep['invalid']} invalid) from {rep['frames']} frames, "
          f"styles {', '.join(rep['styles'])}")
    print(f"invalid caught {rep['caught']}/{rep['invalid']} = {rep['catch_rate']:.3f} (target >= 0.98); "
          f"valid called invalid {rep['false_invalid']}/{rep['valid']} = {rep['false_invalid_rate']:.3f} (target <= 0.01); "
          f"reason accuracy {rep['reason_accuracy']:.3f}; threshold {rep['threshold']}")
    short = {r: r[:9] for r in DIE_REASONS}
    print("truth \\ vision " + " ".join(f"{short[r]:>9}" for r in DIE_REASONS))
    for t in DIE_REASONS:
        print(f"{t:>14} " + " ".join(f"{rep['confusion'][t][p]:>9}" for p in DIE_REASONS))


def export(model: Any, path: Path, threshold: float, info: dict[str, str]) -> None:
    import onnx
    import torch

    model.eval()
    tmp = path.with_name(path.stem + ".tmp.onnx")
    torch.onnx.export(model, (torch.zeros(1, 3, CROP_SIZE, CROP_SIZE), torch.zeros(1, N_FEATURES)), str(tmp),
                      input_names=["crop", "features"], output_names=["logits"],
                      dynamic_axes={"crop": {0: "n"}, "features": {0: "n"}, "logits": {0: "n"}}, opset_version=17,
                      dynamo=False)
    m = onnx.load(str(tmp))
    meta = {"valid_threshold": f"{threshold:.4f}", "classes": ",".join(POSE_CLASSES), **info}
    for k, v in meta.items():
        entry = m.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(m, str(tmp))
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("train", type=Path)
    ap.add_argument("--test", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "die_validity.onnx")
    ap.add_argument("--minutes", type=float, default=12.0)
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--report", type=Path, default=None, help="write the held-out figures as JSON here")
    ap.add_argument("--peer", action="store_true", help="also train and evaluate the geometric cues alone (the peer)")
    ap.add_argument("--eval-only", action="store_true", help="evaluate the model at --out on --test without training")
    a = ap.parse_args(argv)
    if a.eval_only:
        if a.test is None:
            ap.error("--eval-only needs --test TEST.npz")
        return evaluate_file(a.out, a.test, None, a.report)
    import torch
    from torch import nn

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(a.seed)
    data = load(a.train)
    keep = data["y"] >= 0
    frames = np.array(sorted(set(data["frame"][keep].tolist())))
    val_frames = set(rng.choice(frames, size=max(1, len(frames) // 8), replace=False).tolist())
    is_val = np.array([f in val_frames for f in data["frame"]])
    tr = keep & ~is_val
    va = keep & is_val & (data["copy"] == 0)
    x_all = crops_to_tensor(data["crops"])
    aux_all = data["aux"].astype(np.float32) if "aux" in data else None
    f_all = data["feats"].astype(np.float32)
    mean = f_all[tr].mean(0).astype(np.float32)
    std = np.maximum(f_all[tr].std(0), 1e-3).astype(np.float32)
    model = build_model(mean, std)
    y = torch.from_numpy(data["y"].astype(np.int64))
    counts = np.bincount(data["y"][tr], minlength=len(POSE_CLASSES)).astype(np.float64)
    weights = torch.tensor((counts.max() / np.maximum(counts, 1.0)) ** 0.75, dtype=torch.float32)
    loss_fn = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.02)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=a.epochs * (int(tr.sum()) // 64 + 1))
    idx_tr = np.flatnonzero(tr)
    print(f"train {len(idx_tr)} samples, validation {int(va.sum())}; class counts "
          + ", ".join(f"{c} {int(n)}" for c, n in zip(POSE_CLASSES, counts, strict=True)), flush=True)
    start = time.monotonic()
    for epoch in range(a.epochs):
        model.train()
        perm = rng.permutation(idx_tr)
        total = 0.0
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            xb = torch.from_numpy(augment(x_all[b], rng))
            flipped = bool(rng.random() < 0.5)
            if flipped:
                xb = torch.flip(xb, dims=[3])
            model.with_aux = aux_all is not None
            out = model(xb, torch.from_numpy(f_all[b]))
            if aux_all is not None:
                logits, aux = out
                tb = torch.from_numpy(aux_all[b])
                if flipped:
                    tb = tb.clone()
                    tb[:, 2] = -tb[:, 2]
                reg = nn.functional.smooth_l1_loss(aux[:, :4], tb[:, :4])
                bce = nn.functional.binary_cross_entropy_with_logits(aux[:, 4:], tb[:, 4:])
                loss = loss_fn(logits, y[b]) + AUX_WEIGHT * (reg + bce)
            else:
                loss = loss_fn(out, y[b])
            model.with_aux = False
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch + 1 < sched.total_steps:
                sched.step()
            total += float(loss.detach()) * len(b)
        msg = f"epoch {epoch + 1}: loss {total / len(perm):.4f}"
        if va.any():
            pv = predict(model, x_all[va], f_all[va])
            msg += f", validation accuracy {float(np.mean(pv.argmax(1) == data['y'][va])):.3f}"
        print(msg, flush=True)
        if time.monotonic() - start > a.minutes * 60:
            print(f"time limit ({a.minutes} min) reached after {epoch + 1} epochs", flush=True)
            break
    threshold = 0.5
    if va.any():
        threshold = choose_threshold(predict(model, x_all[va], f_all[va]), data["y"][va])
    info = {"train_samples": str(len(idx_tr)), "train_file": a.train.name,
            "crop_context": f"{float(data['context']) if 'context' in data else CROP_CONTEXT:.3f}"}
    export(model, a.out, threshold, info)
    print(f"wrote {a.out} (valid_threshold {threshold:.4f})")
    if a.test is not None:
        evaluate_file(a.out, a.test, len(idx_tr), a.report)
        if a.peer:
            peer_features_only(data, f_all, tr, va, load(a.test), rng, a.epochs)
    return 0


def peer_features_only(data: dict[str, npt.NDArray[Any]], f_all: npt.NDArray[np.float32], tr: npt.NDArray[np.bool_],
                       va: npt.NDArray[np.bool_], test: dict[str, npt.NDArray[Any]], rng: np.random.Generator,
                       epochs: int) -> None:
    """The peer: the geometric cues alone (an MLP, same split, same threshold rule), on the same test set."""
    import torch
    from torch import nn

    mean = torch.tensor(f_all[tr].mean(0))
    std = torch.tensor(np.maximum(f_all[tr].std(0), 1e-3))
    net = nn.Sequential(nn.Linear(N_FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, len(POSE_CLASSES)))
    y = torch.from_numpy(data["y"].astype(np.int64))
    counts = np.bincount(data["y"][tr], minlength=len(POSE_CLASSES)).astype(np.float64)
    weights = torch.tensor(1.0 / np.sqrt(np.maximum(counts, 1.0)) * np.sqrt(counts.max()), dtype=torch.float32)
    loss_fn = nn.CrossEntropyLoss(weight=weights)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-3)
    idx = np.flatnonzero(tr)
    x = (torch.from_numpy(f_all) - mean) / std
    for _ in range(epochs * 4):
        perm = rng.permutation(idx)
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            loss = loss_fn(net(x[b]), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        pv = torch.softmax(net(x[va]), 1).numpy() if va.any() else None
        xt = (torch.from_numpy(test["feats"].astype(np.float32)) - mean) / std
        pt = torch.softmax(net(xt), 1).numpy()
    threshold = choose_threshold(pv, data["y"][va]) if pv is not None else 0.5
    rep = evaluate(pt, test, threshold)
    print(f"peer (geometric cues only): caught {rep['catch_rate']:.3f}, valid called invalid "
          f"{rep['false_invalid_rate']:.3f}, reason accuracy {rep['reason_accuracy']:.3f} (threshold {threshold:.3f})")


def evaluate_file(model: Path, test_path: Path, train_samples: int | None, report: Path | None = None) -> int:
    """Print issue 5's figures for ``model`` on a held-out dataset (and write them as JSON to ``report``)."""
    from vision.dice_validity import DieValidityClassifier

    test = load(test_path)
    clf = DieValidityClassifier(model)
    probs = clf.predict(test["crops"], test["feats"])
    rep = evaluate(probs, test, clf.valid_threshold)
    rep["test_file"] = test_path.name
    if train_samples is not None:
        rep["train_samples"] = train_samples
    for t in (0.5, 0.8, 0.9):
        other = evaluate(probs, test, t)
        rep[f"at_threshold_{t}"] = {k: other[k] for k in ("catch_rate", "false_invalid_rate", "reason_accuracy")}
    print_report(rep)
    for t in (0.5, 0.8, 0.9):
        r = rep[f"at_threshold_{t}"]
        print(f"at threshold {t}: caught {r['catch_rate']:.3f}, valid called invalid {r['false_invalid_rate']:.3f}")
    if report is not None:
        report.write_text(json.dumps(rep, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
