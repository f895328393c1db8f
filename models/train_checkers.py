"""Train the checker-count strip classifier and export it to ONNX (models/checkers_strip.onnx).

    nice -n 15 python models/board_data.py build data-gen/board-train --out data-gen/board-train
    nice -n 15 python models/train_checkers.py data-gen/board-train-checkers.npz [--epochs 12] [--threads 2]

Input: one or more ``*-checkers.npz`` files from ``models/board_data.py build``. A tenth of the
frames (by frame index) is kept aside to choose the epoch; the held-out evaluation proper is
``models/board_data.py eval`` on frames of another seed and other board styles. PyTorch is used
here only; the run time reads the ONNX file with ONNX Runtime (``vision.checkers``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from vision.checkers import COUNTS, KINDS, N_STRIPS, STRIP_H, STRIP_W, kinds_onehot, to_tensor  # noqa: E402


def build_model() -> Any:
    import torch
    from torch import nn

    def block(i: int, o: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class StripNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                block(3, 16), nn.MaxPool2d(2),     # 48 x 16
                block(16, 24), nn.MaxPool2d(2),    # 24 x 8
                block(24, 48), nn.MaxPool2d(2),    # 12 x 4
                block(48, 32),
            )
            flat = 32 * (STRIP_H // 8) * (STRIP_W // 8)
            self.fc = nn.Sequential(nn.Linear(flat + len(KINDS), 128), nn.ReLU(inplace=True), nn.Dropout(0.2))
            self.light = nn.Linear(128, COUNTS)
            self.dark = nn.Linear(128, COUNTS)

        def forward(self, strips: torch.Tensor, kinds: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            f = self.features(strips).flatten(1)
            h = self.fc(torch.cat([f, kinds], dim=1))
            return self.light(h), self.dark(h)

    return StripNet()


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, fs = [], [], []
    offset = 0
    for p in paths:
        d = np.load(p)
        strips = d["strips"]  # F x 28 x H x W x 3 uint8
        xs.append(np.stack([to_tensor(s) for s in strips]).astype(np.float16))
        ys.append(d["counts"].astype(np.int64))
        fs.append(d["frame"] + offset)
        offset = int(fs[-1].max()) + 1
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(fs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="+", type=Path, help="*-checkers.npz from models/board_data.py build")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "checkers_strip.onnx")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--empty-share", type=float, default=0.35, help="share of empty strips used per epoch")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this many minutes (0: no limit)")
    args = ap.parse_args(argv)

    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()
    x, y, frame = load(args.data)
    n_frames = int(frame.max()) + 1
    val_frames = set(rng.choice(n_frames, max(1, n_frames // 10), replace=False).tolist())
    is_val = np.array([f in val_frames for f in frame])
    kinds = kinds_onehot()
    # flatten frames x strips
    xs = x.reshape(-1, 3, STRIP_H, STRIP_W)
    ys = y.reshape(-1, 2)
    ks = np.tile(kinds, (len(x), 1))
    val_mask = np.repeat(is_val, N_STRIPS)
    tr_idx = np.flatnonzero(~val_mask)
    va_idx = np.flatnonzero(val_mask)
    print(f"{len(x)} frame copies ({n_frames} frames), {len(tr_idx)} training strips, {len(va_idx)} validation strips",
          file=sys.stderr)

    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    n_empty = int((ys[tr_idx].sum(axis=1) == 0).sum())
    per_epoch = len(tr_idx) - n_empty + int(args.empty_share * n_empty) + args.batch
    steps = args.epochs * int(np.ceil(per_epoch / args.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=max(steps, 1))
    loss_fn = nn.CrossEntropyLoss()

    def evaluate() -> tuple[float, float]:
        model.eval()
        wrong = 0
        frames_bad: set[int] = set()
        with torch.no_grad():
            for i in range(0, len(va_idx), 512):
                idx = va_idx[i:i + 512]
                lo, do = model(torch.from_numpy(xs[idx].astype(np.float32)), torch.from_numpy(ks[idx]))
                pred = np.stack([lo.argmax(1).numpy(), do.argmax(1).numpy()], axis=1)
                bad = np.any(pred != ys[idx], axis=1)
                wrong += int(bad.sum())
                frames_bad.update((idx[bad] // N_STRIPS).tolist())
        n_val_frames = max(1, len(va_idx) // N_STRIPS)
        return wrong / max(1, len(va_idx)), 1.0 - len(frames_bad) / n_val_frames

    best: tuple[float, dict[str, Any] | None] = (2.0, None)
    history = []
    for epoch in range(args.epochs):
        model.train()
        # every strip holding checkers, and a third of the empty ones (half of all strips are empty)
        empty = ys[tr_idx].sum(axis=1) == 0
        keep = ~empty | (rng.random(len(tr_idx)) < args.empty_share)
        perm = rng.permutation(tr_idx[keep])
        total = 0.0
        t0 = time.time()
        for i in range(0, len(perm), args.batch):
            idx = np.sort(perm[i:i + args.batch])
            xb = torch.from_numpy(xs[idx].astype(np.float32))
            flip = torch.from_numpy(rng.random(len(idx)) < 0.5)
            xb[flip] = xb[flip].flip(3)  # a mirrored strip holds the same checkers
            gain = torch.from_numpy(rng.normal(1.0, 0.08, (len(idx), 3, 1, 1)).astype(np.float32))
            xb = xb * gain + torch.from_numpy(rng.normal(0.0, 0.08, (len(idx), 3, 1, 1)).astype(np.float32))
            yb = torch.from_numpy(ys[idx])
            lo, do = model(xb, torch.from_numpy(ks[idx]))
            loss = loss_fn(lo, yb[:, 0]) + loss_fn(do, yb[:, 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(idx)
        err, boards = evaluate()
        history.append({"epoch": epoch + 1, "loss": total / len(perm), "val_strip_error": err, "val_boards_right": boards})
        print(f"epoch {epoch + 1}: loss {total / len(perm):.4f}, validation strip error {err:.4f}, "
              f"frames all right {boards:.3f} ({time.time() - t0:.0f} s)", file=sys.stderr)
        if err <= best[0]:
            best = (err, {k: v.detach().clone() for k, v in model.state_dict().items()})
        if args.minutes and time.time() - t_start > args.minutes * 60:
            print("time limit reached", file=sys.stderr)
            break
    assert best[1] is not None
    model.load_state_dict(best[1])
    model.eval()
    dummy = (torch.zeros(N_STRIPS, 3, STRIP_H, STRIP_W), torch.from_numpy(kinds))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, dummy, str(args.out), input_names=["strips", "kinds"], output_names=["light", "dark"],
                      dynamic_axes={"strips": {0: "n"}, "kinds": {0: "n"}, "light": {0: "n"}, "dark": {0: "n"}},
                      opset_version=17, dynamo=False)
    import onnxruntime as ort

    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    probe = xs[va_idx[:N_STRIPS]].astype(np.float32)
    lo_o, _ = sess.run(None, {"strips": probe, "kinds": ks[va_idx[:N_STRIPS]]})
    with torch.no_grad():
        lo_t, _ = model(torch.from_numpy(probe), torch.from_numpy(ks[va_idx[:N_STRIPS]]))
    diff = float(np.abs(lo_o - lo_t.numpy()).max())
    report = {"frames": n_frames, "frame_copies": len(x), "training_strips": int(len(tr_idx)),
              "validation_strips": int(len(va_idx)), "best_val_strip_error": best[0], "history": history,
              "onnx_bytes": args.out.stat().st_size, "onnx_vs_torch_max_abs_diff": diff,
              "parameters": int(sum(p.numel() for p in model.parameters())),
              "minutes": round((time.time() - t_start) / 60, 1), "data": [str(p) for p in args.data]}
    args.out.with_suffix(".train.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
