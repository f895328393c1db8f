"""Train the checker-count strip classifier and export it to ONNX (models/checkers_strip.onnx).

    nice -n 15 python models/board_data.py build data-gen/board-train --out data-gen/board-train
    nice -n 15 python models/train_checkers.py data-gen/board-train-checkers.npz [--epochs 12] [--threads 2]
        [--minutes M] [--init-onnx models/checkers_strip.onnx] [--tall-weight 3] [--bar-weight 1]

Input: one or more ``*-checkers.npz`` files from ``models/board_data.py build``, kept as 8-bit
strips in memory (the per-frame standardisation of ``vision.checkers.to_tensor`` is applied per
batch from per-frame statistics). A twentieth of the frames (by frame index) is kept aside to
choose the epoch; the held-out evaluation proper is ``models/board_data.py eval`` on frames of
another seed and other board styles. Tall stacks are rare in the simulator's positions, so strips
holding 5 or more checkers of a colour are drawn ``--tall-weight`` times per epoch (7 or more:
twice that); bar strips holding checkers (a hit checker) ``--bar-weight`` times as often. The ONNX file is written whenever the validation error improves, so a run stopped
early (``--minutes``) still leaves its best model. ``--init-onnx`` starts from a previous export
of the same network (its batch-norm folded into the convolutions). PyTorch is used here only; the
run time reads the ONNX file with ONNX Runtime (``vision.checkers``).
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

from vision.checkers import COUNTS, KINDS, N_STRIPS, STRIP_H, STRIP_W, kinds_onehot  # noqa: E402


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


def frame_stats(strips: np.ndarray) -> np.ndarray:
    """``F x 2 x 3`` per frame copy the RGB mean and spread of its strips (``to_tensor``'s standardisation)."""
    out = np.empty((len(strips), 2, 3), dtype=np.float32)
    for i, s in enumerate(strips):
        x = s.reshape(-1, 3)[:, ::-1].astype(np.float32) / np.float32(255.0)
        out[i, 0] = x.mean(axis=0)
        out[i, 1] = np.maximum(x.std(axis=0), 1e-3)
    return out


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strips (``F x 28 x H x W x 3`` uint8 BGR), counts, frame index and per-frame statistics."""
    xs, ys, fs, st = [], [], [], []
    offset = 0
    for p in paths:
        d = np.load(p)
        strips = d["strips"]
        xs.append(strips)
        st.append(frame_stats(strips))
        ys.append(d["counts"].astype(np.int64))
        fs.append(d["frame"] + offset)
        offset = int(fs[-1].max()) + 1
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(fs), np.concatenate(st)


def batch_tensor(strips: np.ndarray, stats: np.ndarray) -> np.ndarray:
    """``B x 3 x H x W`` float32 network input of 8-bit BGR strips with their frames' statistics (``B x 2 x 3``)."""
    x = strips[..., ::-1].astype(np.float32) / np.float32(255.0)
    x = (x - stats[:, None, None, 0, :]) / stats[:, None, None, 1, :]
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def load_folded_blocks(convs: list[Any], blocks: list[Any], inits: dict[str, Any], path: Path) -> None:
    """Each (convolution, batch-norm) block of ``blocks`` takes an exported convolution of ``convs``
    whose batch-norm was folded in: the convolution gets the weight, the batch-norm becomes the
    identity plus the folded bias (keep it in eval mode while training). Call under ``torch.no_grad()``."""
    import torch

    for node, blk in zip(convs, blocks, strict=True):
        w, b = inits[node.input[1]], inits[node.input[2]]
        if tuple(blk[0].weight.shape) != w.shape:
            raise ValueError(f"{path}: convolution shape {w.shape} differs from {tuple(blk[0].weight.shape)}")
        blk[0].weight.copy_(torch.from_numpy(w.copy()))
        bn = blk[1]
        bn.weight.fill_(1.0)
        bn.bias.copy_(torch.from_numpy(b.copy()))
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)


def init_from_onnx(model: Any, path: Path) -> None:
    """Copy the weights of an exported model (batch-norm folded into the convolutions) into ``model``:
    each convolution takes the folded weight, its batch-norm becomes the identity plus the folded bias."""
    import onnx
    import torch
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    blocks = [m for m in model.features if hasattr(m, "__getitem__")]
    if len(convs) != len(blocks):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(blocks)}")
    with torch.no_grad():
        load_folded_blocks(convs, blocks, inits, path)
        for name in ("fc.0", "light", "dark"):
            mod = model.fc[0] if name == "fc.0" else getattr(model, name)
            mod.weight.copy_(torch.from_numpy(inits[name + ".weight"]))
            mod.bias.copy_(torch.from_numpy(inits[name + ".bias"]))


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
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="train for this many minutes, the learning-rate cycle spread over them (0: --epochs)")
    ap.add_argument("--check-minutes", type=float, default=10.0,
                    help="validate (and export when better) this often within an epoch (0: at epoch ends only)")
    ap.add_argument("--tall-weight", type=float, default=3.0,
                    help="strips with 5+ checkers of a colour drawn this often per epoch (7+: twice as often)")
    ap.add_argument("--bar-weight", type=float, default=1.0,
                    help="bar strips holding checkers drawn this many times as often per epoch")
    ap.add_argument("--tray-weight", type=float, default=1.0,
                    help="tray strips holding checkers drawn this many times as often per epoch")
    ap.add_argument("--init-onnx", type=Path,
                    help="start from this export of the same network (batch-norm statistics then stay fixed)")
    args = ap.parse_args(argv)

    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()
    x, y, frame, stats = load(args.data)
    n_frames = int(frame.max()) + 1
    val_frames = set(rng.choice(n_frames, max(1, n_frames // 20), replace=False).tolist())
    is_val = np.array([f in val_frames for f in frame])
    kinds = kinds_onehot()
    # flatten frames x strips
    xs = x.reshape(-1, STRIP_H, STRIP_W, 3)
    ys = y.reshape(-1, 2)
    ss = np.repeat(stats, N_STRIPS, axis=0)
    ks = np.tile(kinds, (len(x), 1))
    val_mask = np.repeat(is_val, N_STRIPS)
    tr_idx = np.flatnonzero(~val_mask)
    va_idx = np.flatnonzero(val_mask)
    print(f"{len(x)} frame copies ({n_frames} frames), {len(tr_idx)} training strips, {len(va_idx)} validation strips "
          f"({time.time() - t_start:.0f} s)", file=sys.stderr)

    model = build_model()
    if args.init_onnx:
        init_from_onnx(model, args.init_onnx)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    top = ys[tr_idx].max(axis=1)
    empty = top == 0
    repeats = np.where(top >= 7, 2 * args.tall_weight, np.where(top >= 5, args.tall_weight, 1.0))
    # bar strips holding checkers (a hit checker, the strip least often seen full) drawn more often
    on_bar = (ks[tr_idx, KINDS.index("bar")] > 0) & ~empty
    repeats = np.where(on_bar, repeats * args.bar_weight, repeats)
    # tray strips holding checkers (the end of a game: tall borne-off stacks read short)
    in_tray = (ks[tr_idx, KINDS.index("tray")] > 0) & ~empty
    repeats = np.where(in_tray, repeats * args.tray_weight, repeats)
    per_epoch = int(repeats[~empty].sum() + args.empty_share * empty.sum()) + args.batch
    steps = args.epochs * int(np.ceil(per_epoch / args.batch))
    warm = 0.1 if args.init_onnx else 0.3

    def set_lr(progress: float) -> None:
        """One cycle over the run: a linear warm-up, then a cosine down to 1/50 of --lr. Progress is
        the share of --minutes used when a time limit is given (the machine's load then sets how many
        steps fit, not the schedule), else the share of the steps."""
        p = min(max(progress, 0.0), 1.0)
        f = p / warm if p < warm else 0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * (p - warm) / (1 - warm)))
        for group in opt.param_groups:
            group["lr"] = args.lr * max(f, 0.02)

    step = 0
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)

    def evaluate() -> tuple[float, float]:
        model.eval()
        wrong = 0
        frames_bad: set[int] = set()
        with torch.no_grad():
            for i in range(0, len(va_idx), 512):
                idx = va_idx[i:i + 512]
                lo, do = model(torch.from_numpy(batch_tensor(xs[idx], ss[idx])), torch.from_numpy(ks[idx]))
                pred = np.stack([lo.argmax(1).numpy(), do.argmax(1).numpy()], axis=1)
                bad = np.any(pred != ys[idx], axis=1)
                wrong += int(bad.sum())
                frames_bad.update((idx[bad] // N_STRIPS).tolist())
        n_val_frames = max(1, len(va_idx) // N_STRIPS)
        return wrong / max(1, len(va_idx)), 1.0 - len(frames_bad) / n_val_frames

    def export(path: Path) -> None:
        model.eval()
        dummy = (torch.zeros(N_STRIPS, 3, STRIP_H, STRIP_W), torch.from_numpy(kinds))
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(model, dummy, str(path), input_names=["strips", "kinds"], output_names=["light", "dark"],
                          dynamic_axes={"strips": {0: "n"}, "kinds": {0: "n"}, "light": {0: "n"}, "dark": {0: "n"}},
                          opset_version=17, dynamo=False)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.init_onnx:
        err0, boards0 = evaluate()
        print(f"start ({args.init_onnx.name}): validation strip error {err0:.4f}, frames all right {boards0:.3f}",
              file=sys.stderr)
        best_start = err0
    else:
        best_start = 2.0
    best = best_start  # a warm start is only replaced by something better
    history: list[dict[str, Any]] = []
    stop = False
    t_train = time.time()
    epochs = args.epochs if not args.minutes else 10_000  # with a time limit the clock ends the run
    def train_mode() -> None:
        model.train()
        if args.init_onnx:  # keep the folded statistics: the warm start stays the function it was
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()

    def checkpoint(epoch: int, seen: int, total: float) -> None:
        nonlocal best
        err, boards = evaluate()
        history.append({"epoch": epoch + 1, "strips": seen, "loss": total / max(seen, 1), "val_strip_error": err,
                        "val_boards_right": boards, "minutes": round((time.time() - t_start) / 60, 1)})
        print(f"epoch {epoch + 1} ({seen} strips): loss {total / max(seen, 1):.4f}, validation strip error {err:.4f}, "
              f"frames all right {boards:.3f} ({(time.time() - t_start) / 60:.1f} min)", file=sys.stderr)
        if err <= best:
            best = err
            torch.save(model.state_dict(), str(args.out.with_suffix(".pt")))
            export(args.out)
            print(f"  -> {args.out}", file=sys.stderr)
        train_mode()

    last_check = time.time()
    for epoch in range(epochs):
        train_mode()
        # every strip holding checkers (tall stacks repeated), and a share of the empty ones
        n_rep = np.floor(repeats + rng.random(len(repeats))).astype(np.int64)
        n_rep[empty] = (rng.random(int(empty.sum())) < args.empty_share).astype(np.int64)
        perm = rng.permutation(np.repeat(tr_idx, n_rep))
        total = 0.0
        seen = 0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            xb = torch.from_numpy(batch_tensor(xs[idx], ss[idx]))
            flip = torch.from_numpy(rng.random(len(idx)) < 0.5)
            xb[flip] = xb[flip].flip(3)  # a mirrored strip holds the same checkers
            # colour: channels mixed a little (unseen board styles), gain and offset per channel
            mix = np.eye(3, dtype=np.float32) + rng.normal(0.0, 0.06, (len(idx), 3, 3)).astype(np.float32)
            xb = torch.einsum("bij,bjhw->bihw", torch.from_numpy(mix), xb)
            gain = torch.from_numpy(rng.normal(1.0, 0.08, (len(idx), 3, 1, 1)).astype(np.float32))
            xb = xb * gain + torch.from_numpy(rng.normal(0.0, 0.08, (len(idx), 3, 1, 1)).astype(np.float32))
            yb = torch.from_numpy(ys[idx])
            lo, do = model(xb, torch.from_numpy(ks[idx]))
            loss = loss_fn(lo, yb[:, 0]) + loss_fn(do, yb[:, 1])
            set_lr((time.time() - t_train) / (60 * args.minutes) if args.minutes else step / max(steps, 1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += float(loss.detach()) * len(idx)
            seen += len(idx)
            if step % 100 == 0:
                print(f"  step {step}, {seen} strips this epoch, loss {total / seen:.4f}, "
                      f"lr {opt.param_groups[0]['lr']:.2e}, {(time.time() - t_start) / 60:.1f} min", file=sys.stderr)
            if args.minutes and time.time() - t_train > args.minutes * 60:
                print(f"time limit reached in epoch {epoch + 1} after {seen} strips", file=sys.stderr)
                stop = True
                break
            if args.check_minutes and time.time() - last_check > args.check_minutes * 60:
                checkpoint(epoch, seen, total)
                last_check = time.time()
        checkpoint(epoch, seen, total)
        last_check = time.time()
        if stop:
            break
    import onnxruntime as ort

    if not args.out.with_suffix(".pt").is_file():
        print(f"no epoch beat the start ({best:.4f}); nothing written", file=sys.stderr)
        return 1
    model.load_state_dict(torch.load(str(args.out.with_suffix(".pt"))))
    model.eval()
    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    probe = batch_tensor(xs[va_idx[:N_STRIPS]], ss[va_idx[:N_STRIPS]])
    lo_o, _ = sess.run(None, {"strips": probe, "kinds": ks[va_idx[:N_STRIPS]]})
    with torch.no_grad():
        lo_t, _ = model(torch.from_numpy(probe), torch.from_numpy(ks[va_idx[:N_STRIPS]]))
    diff = float(np.abs(lo_o - lo_t.numpy()).max())
    report = {"frames": n_frames, "frame_copies": len(x), "training_strips": int(len(tr_idx)),
              "validation_strips": int(len(va_idx)), "best_val_strip_error": best, "history": history,
              "onnx_bytes": args.out.stat().st_size, "onnx_vs_torch_max_abs_diff": diff,
              "parameters": int(sum(p.numel() for p in model.parameters())), "tall_weight": args.tall_weight,
              "bar_weight": args.bar_weight, "tray_weight": args.tray_weight,
              "init_onnx": str(args.init_onnx) if args.init_onnx else None,
              "minutes": round((time.time() - t_start) / 60, 1), "data": [str(p) for p in args.data]}
    args.out.with_suffix(".train.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
