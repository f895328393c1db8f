"""Train the doubling-cube model (presence per window + face) and export it to ONNX (models/cube_reader.onnx).

    nice -n 15 python models/board_data.py build data-gen/board-train --out data-gen/board-train
    nice -n 15 python models/train_cube.py data-gen/board-train-cube.npz [--epochs 8] [--threads 1]
    nice -n 15 python models/board_data.py build-faces data-gen/board-train --out data-gen/board-train
    nice -n 15 python models/train_cube.py --faces data-gen/board-train-cubeface.npz [--epochs 30]

Input: ``*-cube.npz`` files from ``models/board_data.py build`` (the windows of ``vision.cube``).
The network is fully convolutional (any window size): a presence map and six face maps at 1/8 of
the window's resolution; the presence logit is the map's maximum, the face logits are the face
maps pooled with the presence map's softmax as weights (so the face is read where the cube is).
A tenth of the frames is kept aside to choose the epoch; the held-out evaluation proper is
``models/board_data.py eval``.
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

from models.train_checkers import load_folded_blocks  # noqa: E402
from vision.cube import CENTRE_H, CENTRE_W, FACES, MAP_STRIDE, WIDE_H, WIDE_W, to_tensor  # noqa: E402


def build_model() -> Any:
    import torch
    from torch import nn

    def block(i: int, o: int, stride: int = 1) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True))

    class CubeNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(block(3, 12, 2), block(12, 24, 2), block(24, 48), nn.MaxPool2d(2),
                                          block(48, 64))
            self.head = nn.Conv2d(64, 1 + len(FACES), 1)

        def forward_all(self, windows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            m = self.head(self.features(windows))
            pres = m[:, 0].flatten(1)              # N x HW
            faces = m[:, 1:].flatten(2)            # N x 6 x HW
            weights = torch.softmax(pres, dim=1)   # where the cube is
            face = (faces * weights.unsqueeze(1)).sum(dim=2)
            return pres.amax(dim=1), face, m[:, 0]

        def forward(self, windows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            pres, face, _ = self.forward_all(windows)
            return pres, face

    return CubeNet()


def init_from_onnx(model: Any, path: Path) -> None:
    """Copy an exported window model's weights (batch-norm folded into the convolutions) into ``model``;
    each batch-norm becomes the identity plus the folded bias (keep it in eval mode while training)."""
    import onnx
    import torch
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    blocks: list[Any] = [m for m in model.features if isinstance(m, torch.nn.Sequential)]
    if len(convs) != len(blocks) + 1:
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(blocks) + 1}")
    with torch.no_grad():
        load_folded_blocks(convs[:-1], blocks, inits, path)
        model.head.weight.copy_(torch.from_numpy(inits[convs[-1].input[1]].copy()))
        model.head.bias.copy_(torch.from_numpy(inits[convs[-1].input[2]].copy()))


def init_face_from_onnx(model: Any, path: Path) -> None:
    """Copy an exported face model's weights (batch-norm folded) into ``model`` (see ``init_from_onnx``)."""
    import onnx
    import torch
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    gemm = next(n for n in g.node if n.op_type in ("Gemm", "MatMul"))
    blocks: list[Any] = [m for m in model if isinstance(m, torch.nn.Sequential)]
    linear: Any = next(m for m in model if isinstance(m, torch.nn.Linear))
    if len(convs) != len(blocks):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(blocks)}")
    with torch.no_grad():
        load_folded_blocks(convs, blocks, inits, path)
        w = inits[gemm.input[1]]
        linear.weight.copy_(torch.from_numpy((w if w.shape == tuple(linear.weight.shape) else w.T).copy()))
        linear.bias.copy_(torch.from_numpy(inits[gemm.input[2]].copy()))


def add_map_output(path: Path) -> None:
    """Expose the head's maps (N x 7 x h x w: presence, then the faces) as a third output "maps",
    so the reader can find where the cube is and read its face from a crop there."""
    import onnx

    model = onnx.load(str(path))
    if any(o.name == "maps" for o in model.graph.output):
        return
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    head = convs[-1]
    model.graph.node.append(onnx.helper.make_node("Identity", [head.output[0]], ["maps"]))
    model.graph.output.append(onnx.helper.make_tensor_value_info("maps", onnx.TensorProto.FLOAT,
                                                                 ["n", 1 + len(FACES), "h", "w"]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


FACE_WIDTHS = (24, 48, 96, 128, 128)
"""Channels of the face model's five 3x3 blocks (session 27; sessions 1-16: 16, 32, 64, 64, four blocks)."""


def build_face_model(widths: tuple[int, ...] = FACE_WIDTHS) -> Any:
    """3x3 conv blocks with a 2x2 max-pool after each but the last, global average, dropout, linear."""
    from torch import nn

    def block(i: int, o: int) -> nn.Sequential:
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    layers: list[Any] = []
    prev = 3
    for k, w in enumerate(widths):
        layers.append(block(prev, w))
        if k < len(widths) - 1:
            layers.append(nn.MaxPool2d(2))
        prev = w
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(prev, len(FACES)))


def _load_faces(paths: list[Path]) -> tuple[Any, Any, Any]:
    crops_l, face_l, frame_l = [], [], []
    offset = 0
    for p in paths:
        d = np.load(p)
        crops_l.append(d["crops"])
        face_l.append(d["face"])
        frame_l.append(d["frame"] + offset)
        offset = int(frame_l[-1].max()) + 1
    return np.concatenate(crops_l), np.concatenate(face_l).astype(np.int64), np.concatenate(frame_l)


def _augment_faces(xb: Any, rng: Any) -> Any:
    """A quarter turn, per-channel gain, brightness offset, a blur now and then, sensor noise
    (standardised crops: offsets in standard deviations)."""
    import torch
    import torch.nn.functional as F

    n = xb.shape[0]
    xb = torch.rot90(xb, int(rng.integers(4)), dims=(2, 3))
    xb = xb * torch.from_numpy(rng.normal(1.0, 0.12, (n, 3, 1, 1)).astype(np.float32))
    xb = xb + torch.from_numpy(rng.normal(0.0, 0.15, (n, 1, 1, 1)).astype(np.float32))
    if rng.random() < 0.3:
        k = torch.tensor([1.0, 2.0, 1.0])
        k = (k[:, None] * k[None, :]) / 16.0
        xb = F.conv2d(xb, k.expand(3, 1, 3, 3).contiguous(), padding=1, groups=3)
    return xb + torch.from_numpy(rng.normal(0.0, 0.05, tuple(xb.shape)).astype(np.float32))


def train_faces(args: argparse.Namespace) -> int:
    """The face reader on crops around the cube (``*-cubeface.npz`` from ``board_data.py build-faces``)."""
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()
    crops, face, frame = _load_faces(args.data)
    x_all = torch.from_numpy(to_tensor(crops))
    n_frames = int(frame.max()) + 1
    if args.val:
        # validation on crops of other folders (other seeds): all the given crops train
        v_crops, v_face, _ = _load_faces(args.val)
        tr, va = np.arange(len(crops)), np.arange(len(crops), len(crops) + len(v_crops))
        x_all = torch.cat([x_all, torch.from_numpy(to_tensor(v_crops))])
        face = np.concatenate([face, v_face])
    else:
        val_frames = set(rng.choice(n_frames, max(1, n_frames // 10), replace=False).tolist())
        is_val = np.array([f in val_frames for f in frame])
        tr, va = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    print(f"{len(crops)} crops ({n_frames} frames), {len(tr)} training, {len(va)} validation", file=sys.stderr)
    model = build_face_model()
    if args.init_onnx:
        init_face_from_onnx(model, args.init_onnx)
        model.eval()
        with torch.no_grad():
            acc0 = float((model(x_all[va]).argmax(1).numpy() == face[va]).mean()) if len(va) else 0.0
        print(f"start ({args.init_onnx.name}): validation face {acc0:.4f}", file=sys.stderr)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * int(np.ceil(len(tr) / 64))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=max(steps, 1))
    ce = nn.CrossEntropyLoss()
    best: tuple[float, dict[str, Any] | None] = (-1.0, None)
    history = []
    for epoch in range(args.epochs):
        model.train()
        if args.init_onnx:  # keep the folded statistics of the warm start
            for mod in model.modules():
                if isinstance(mod, nn.BatchNorm2d):
                    mod.eval()
        perm = rng.permutation(tr)
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            xb = _augment_faces(x_all[idx], rng)
            loss = ce(model(xb), torch.from_numpy(face[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = float((model(x_all[va]).argmax(1).numpy() == face[va]).mean()) if len(va) else 0.0
        history.append({"epoch": epoch + 1, "val_face": acc})
        print(f"epoch {epoch + 1}: validation face {acc:.4f} ({(time.time() - t_start) / 60:.1f} min)", file=sys.stderr)
        if acc >= best[0]:
            best = (acc, {k: v.detach().clone() for k, v in model.state_dict().items()})
    assert best[1] is not None
    model.load_state_dict(best[1])
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (x_all[:2],), str(args.out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    report = {"crops": len(crops), "frames": n_frames, "best_val_face": best[0], "history": history,
              "onnx_bytes": args.out.stat().st_size, "parameters": int(sum(p.numel() for p in model.parameters())),
              "minutes": round((time.time() - t_start) / 60, 1), "data": [str(p) for p in args.data]}
    args.out.with_suffix(".train.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "history"}))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="*", type=Path, help="*-cube.npz from models/board_data.py build")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "cube_reader.onnx")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--negative-share", type=float, default=0.35, help="share of empty wide windows used per epoch")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this many minutes (0: no limit)")
    ap.add_argument("--faces", action="store_true",
                    help="train the face reader on *-cubeface.npz crops (default --out models/cube_face.onnx)")
    ap.add_argument("--val", nargs="*", type=Path, default=[],
                    help="--faces: validation crops (*-cubeface.npz of other seeds) instead of a tenth of the frames")
    ap.add_argument("--add-map-output", action="store_true", help="only add the 'maps' output to --out")
    ap.add_argument("--init-onnx", type=Path,
                    help="start from this export of the same network (window model, or face model with --faces)")
    ap.add_argument("--dense", type=float, default=0.05,
                    help="weight of the per-cell presence loss (the cube's cell from the labels; 0: window labels only)")
    ap.add_argument("--dense-pos-weight", type=float, default=20.0, help="weight of the cube's own cell in that loss")
    args = ap.parse_args(argv)
    if args.add_map_output:
        add_map_output(args.out)
        return 0
    if args.faces:
        if args.out == ROOT / "models" / "cube_reader.onnx":
            args.out = ROOT / "models" / "cube_face.onnx"
        return train_faces(args)

    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t_start = time.time()
    centre_l, wide_l, pres_l, face_l, frame_l, pos_l = [], [], [], [], [], []
    offset = 0
    for p in args.data:
        d = np.load(p)
        centre_l.append(d["centre"])
        wide_l.append(d["wide"])
        pres_l.append(d["present"])
        face_l.append(d["face"])
        frame_l.append(d["frame"] + offset)
        offset = int(frame_l[-1].max()) + 1
        pos_l.append(d["pos"] if "pos" in d.files else np.full((len(d["frame"]), 5, 2), -1.0, dtype=np.float32))
    pos = np.concatenate(pos_l).astype(np.float32)  # F x 5 x 2, window pixels of the cube (-1: not there)
    centre = np.concatenate(centre_l)            # F x H x W x 3
    wide = np.concatenate(wide_l)                # F x 4 x H x W x 3
    present = np.concatenate(pres_l).astype(np.float32)  # F x 5
    face = np.concatenate(face_l)                # F
    frame = np.concatenate(frame_l)
    n_frames = int(frame.max()) + 1
    val_frames = set(rng.choice(n_frames, max(1, n_frames // 10), replace=False).tolist())
    is_val = np.array([f in val_frames for f in frame])
    # samples: (copy index, window index 0 = centre, 1..4 wide)
    samples = np.array([(i, w) for i in range(len(frame)) for w in range(5)])
    s_val = samples[is_val[samples[:, 0]]]
    s_tr = samples[~is_val[samples[:, 0]]]
    print(f"{len(frame)} frame copies ({n_frames} frames); cube present in {int(present.sum())} windows",
          file=sys.stderr)

    model = build_model()
    if args.init_onnx:
        init_from_onnx(model, args.init_onnx)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    bce = nn.BCEWithLogitsLoss()
    ce = nn.CrossEntropyLoss()

    def batch_tensor(sel: np.ndarray, train: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        w = int(sel[0, 1])
        imgs = centre[sel[:, 0]] if w == 0 else wide[sel[:, 0], w - 1]
        x = torch.from_numpy(to_tensor(imgs))
        uv = pos[sel[:, 0], w].copy()
        if train:
            # the digits are seen from every side: turn windows by a half turn (the face model sees quarter turns)
            if rng.random() < 0.5:
                x = torch.rot90(x, 2, dims=(2, 3))
                h, wd = x.shape[2], x.shape[3]
                there = uv[:, 0] >= 0
                uv[there] = np.stack([wd - uv[there, 0], h - uv[there, 1]], axis=1)
            x = x * torch.from_numpy(rng.normal(1.0, 0.08, (len(sel), 3, 1, 1)).astype(np.float32))
        return x, torch.from_numpy(present[sel[:, 0], w]), torch.from_numpy(face[sel[:, 0]]), torch.from_numpy(uv)

    def dense_loss(pmap: torch.Tensor, uv: torch.Tensor) -> torch.Tensor:
        """Per map cell: the cube's cell 1, its 8 neighbours ignored, every other cell 0 (and all 0
        in windows without the cube)."""
        n, h, wd = pmap.shape
        target = torch.zeros_like(pmap)
        weight = torch.ones_like(pmap)
        for i in range(n):
            if float(uv[i, 0]) < 0:
                continue
            c = min(max(int(float(uv[i, 0]) // MAP_STRIDE), 0), wd - 1)
            r = min(max(int(float(uv[i, 1]) // MAP_STRIDE), 0), h - 1)
            weight[i, max(r - 1, 0):r + 2, max(c - 1, 0):c + 2] = 0.0
            target[i, r, c] = 1.0
            weight[i, r, c] = args.dense_pos_weight
        return nn.functional.binary_cross_entropy_with_logits(pmap, target, weight=weight, reduction="sum") / max(n, 1)

    def batches(s: np.ndarray, train: bool) -> list[np.ndarray]:
        out = []
        for w in range(5):
            sel = s[s[:, 1] == w]
            if train:
                pos = present[sel[:, 0], w] > 0
                sel = sel[pos | (rng.random(len(sel)) < args.negative_share)] if w > 0 else sel
                sel = sel[rng.permutation(len(sel))]
            for i in range(0, len(sel), args.batch):
                out.append(sel[i:i + args.batch])
        if train:
            out = [out[i] for i in rng.permutation(len(out))]
        return out

    def evaluate() -> tuple[float, float]:
        model.eval()
        pres_ok = n = face_ok = n_face = 0
        with torch.no_grad():
            for sel in batches(s_val, False):
                x, p, f, _ = batch_tensor(sel, False)
                lp, lf = model(x)
                pres_ok += int(((lp > 0).float() == p).sum())
                n += len(sel)
                m = (p > 0) & (f >= 0)
                face_ok += int((lf.argmax(1)[m] == f[m]).sum())
                n_face += int(m.sum())
        return pres_ok / max(n, 1), face_ok / max(n_face, 1)

    def export() -> None:
        model.eval()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        torch.onnx.export(model, (torch.zeros(2, 3, WIDE_H, WIDE_W),), str(args.out), input_names=["windows"],
                          output_names=["presence", "face"],
                          dynamic_axes={"windows": {0: "n", 2: "h", 3: "w"}, "presence": {0: "n"}, "face": {0: "n"}},
                          opset_version=17, dynamo=False)
        add_map_output(args.out)

    n_steps = args.epochs * len(batches(s_tr, True))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=max(n_steps + 10, 1))
    best: tuple[float, dict[str, torch.Tensor] | None] = (-1.0, None)
    history = []
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        total = 0.0
        count = 0
        if args.init_onnx:  # keep the folded statistics of the warm start
            for mod in model.modules():
                if isinstance(mod, nn.BatchNorm2d):
                    mod.eval()
        for sel in batches(s_tr, True):
            x, p, f, uv = batch_tensor(sel, True)
            lp, lf, pmap = model.forward_all(x)
            loss = bce(lp, p)
            if args.dense:
                loss = loss + args.dense * dense_loss(pmap, uv)
            m = (p > 0) & (f >= 0)
            if bool(m.any()):
                loss = loss + ce(lf[m], f[m])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch + 1 < sched.total_steps:
                sched.step()
            total += float(loss.detach()) * len(sel)
            count += len(sel)
        pres_acc, face_acc = evaluate()
        score = pres_acc + face_acc
        history.append({"epoch": epoch + 1, "loss": total / max(count, 1), "val_presence": pres_acc, "val_face": face_acc})
        print(f"epoch {epoch + 1}: loss {total / max(count, 1):.4f}, validation presence {pres_acc:.4f}, "
              f"face {face_acc:.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
        if score >= best[0]:
            best = (score, {k: v.detach().clone() for k, v in model.state_dict().items()})
            export()  # a run stopped early still leaves its best model
            print(f"  -> {args.out}", file=sys.stderr)
        if args.minutes and time.time() - t_start > args.minutes * 60:
            print("time limit reached", file=sys.stderr)
            break
    assert best[1] is not None
    model.load_state_dict(best[1])
    model.eval()
    import onnxruntime as ort

    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    probe = to_tensor(centre[:2])
    assert probe.shape[2:] == (CENTRE_H, CENTRE_W)
    po, fo, _ = sess.run(None, {"windows": probe})
    with torch.no_grad():
        pt, ft = model(torch.from_numpy(probe))
    diff = float(max(np.abs(po - pt.numpy()).max(), np.abs(fo - ft.numpy()).max()))
    report = {"frames": n_frames, "frame_copies": len(frame), "best_val_presence_plus_face": best[0],
              "history": history, "onnx_bytes": args.out.stat().st_size, "onnx_vs_torch_max_abs_diff": diff,
              "parameters": int(sum(p.numel() for p in model.parameters())),
              "minutes": round((time.time() - t_start) / 60, 1), "data": [str(p) for p in args.data]}
    args.out.with_suffix(".train.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
