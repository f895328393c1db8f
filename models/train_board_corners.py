"""Train the board corner network on simulator frames and export models/board_corners.onnx.

    pip install -e '.[train]'
    nice -n 5 python models/train_board_corners.py --train DIR... --test DIR... [--minutes M]
    python models/train_board_corners.py --eval-only --test DIR...

Data: ``gammonwatch sim frames`` folders (``frames/NNNNNN.jpg`` + ``.json``); the target of each
frame is its ``board.corners8_px`` (issue-5 order of 8 corners). Frames are kept in memory at half
size. Each sample is the frame under a random similarity transform (scale, small rotation, shift),
mirrored half the time (the kinds of point do not change), with
photometric jitter (brightness, contrast, colour balance, blur, noise), then cut to the network's
input exactly as the run time does (``calibration.corner_model``). Loss: per heatmap, the cross-entropy
between the softmax over its cells and equal Gaussians around its true points (a heatmap one of
whose points leaves the input carries no loss).

The held-out folders (other seeds and board styles) are measured through the run-time code path
(ONNX Runtime, ``CornerModel``): the largest of the 8 corner errors per frame, within 5 and 15 px,
median and 90th percentile; ``models/board_corners.metrics.json`` keeps the figures.

PyTorch is needed only here, never at run time.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from calibration.corner_model import (  # noqa: E402
    CHANNELS,
    INPUT_LONG,
    STRIDE,
    CornerModel,
    input_geometry,
    normalise,
    to_cells,
)

SEED = 20261125
CACHE_SCALE = 0.5
SIGMA_CELLS = 1.0


def conv_bn(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, dilation, dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CornerNet(nn.Module):
    """Encoder (strides 2-32) and decoder back to stride 4 with skips; a whole-frame context vector
    (global average of the deepest level) is added there, so each heatmap knows where the tray is."""

    def __init__(self, w: tuple[int, ...] = (16, 32, 64, 96, 128)) -> None:
        super().__init__()
        self.e1 = nn.Sequential(conv_bn(3, w[0], 2), conv_bn(w[0], w[0]))
        self.e2 = nn.Sequential(conv_bn(w[0], w[1], 2), conv_bn(w[1], w[1]))
        self.e3 = nn.Sequential(conv_bn(w[1], w[2], 2), conv_bn(w[2], w[2]))
        self.e4 = nn.Sequential(conv_bn(w[2], w[3], 2), conv_bn(w[3], w[3]))
        self.e5 = nn.Sequential(conv_bn(w[3], w[4], 2), conv_bn(w[4], w[4]), conv_bn(w[4], w[4], dilation=2))
        self.ctx = nn.Sequential(nn.Conv2d(w[4], w[4], 1), nn.ReLU(inplace=True))
        self.d4 = conv_bn(w[4] + w[3], w[3])
        self.d3 = conv_bn(w[3] + w[2], w[2])
        self.d2 = nn.Sequential(conv_bn(w[2] + w[1], 48), conv_bn(48, 48))
        self.head = nn.Conv2d(48, len(CHANNELS), 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x1 = self.e1(x)
        x2 = self.e2(x1)
        x3 = self.e3(x2)
        x4 = self.e4(x3)
        x5 = self.e5(x4)
        x5 = x5 + self.ctx(x5.mean(dim=(2, 3), keepdim=True))
        up = F.interpolate(x5, scale_factor=2.0, mode="nearest")
        y = self.d4(torch.cat([up, x4], 1))
        y = self.d3(torch.cat([F.interpolate(y, scale_factor=2.0, mode="nearest"), x3], 1))
        y = self.d2(torch.cat([F.interpolate(y, scale_factor=2.0, mode="nearest"), x2], 1))
        return self.head(y)


OUTER, INNER = (0, 3, 5, 6), (1, 2, 4, 7)
"""Indices (issue-5 order of 8 corners) of the corners at the board's ends and at the bar."""


def tray_point(lab: dict) -> np.ndarray:
    """The bear-off tray's centre in the frame (pixels; NaN when the board has trays at both ends)."""
    t = lab["table_cm"]
    if int(t.get("trays", 1)) != 1:
        return np.array([np.nan, np.nan])
    right_x = float(lab["board"]["corners8_world_cm"][0][0])
    world = np.array([[right_x + float(t["rail"]) + float(t["tray"]) / 2, 0.0, 0.0]])
    cam = lab["camera"]
    uv, _ = cv2.projectPoints(world, np.asarray(cam["rvec"], dtype=np.float64), np.asarray(cam["t_cm"], dtype=np.float64),
                              np.asarray(cam["K"], dtype=np.float64), np.asarray(cam.get("dist", [0.0] * 5), dtype=np.float64))
    return np.asarray(uv, dtype=np.float64).reshape(2)


def load_folder(folder: Path, limit: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Half-size frames and their 9 points: the 8 corners (issue-5 order), then the tray's centre."""
    images, corners = [], []
    labels = sorted((folder / "frames").glob("*.json"))
    if not labels:
        raise SystemExit(f"{folder}: no frames/*.json; render some with 'gammonwatch sim frames'")
    for p in labels[: limit or None]:
        lab = json.loads(p.read_text())
        img = cv2.imread(str(p.with_suffix(".jpg")))
        if img is None:
            continue
        small = cv2.resize(img, None, fx=CACHE_SCALE, fy=CACHE_SCALE, interpolation=cv2.INTER_AREA)
        images.append(small)
        corners.append(np.vstack([np.asarray(lab["board"]["corners8_px"], dtype=np.float64), tray_point(lab)]))
    return images, corners


def sample(img: np.ndarray, corners: np.ndarray, rng: np.random.Generator, augment: bool) -> tuple[np.ndarray, np.ndarray]:
    """One training input ``3 x ph x pw`` and its corners in input pixels (8 x 2)."""
    h0, w0 = (int(round(v / CACHE_SCALE)) for v in img.shape[:2])
    scale, sw, sh, pw, ph = input_geometry(w0, h0)
    # frame pixels -> input pixels: the run time's scaling, then a random similarity about the centre
    s = scale
    pts = (corners + 0.5) * s - 0.5
    m = np.array([[s / CACHE_SCALE, 0.0, 0.0], [0.0, s / CACHE_SCALE, 0.0]])
    m[:, 2] = 0.5 * (s / CACHE_SCALE) - 0.5  # cache pixels -> input pixels (pixel centres)
    if augment:
        zoom = math.exp(rng.uniform(-0.25, 0.2))
        ang = math.radians(rng.normal(0.0, 5.0))
        c = np.array([sw / 2, sh / 2])
        rot = cv2.getRotationMatrix2D((float(c[0]), float(c[1])), math.degrees(ang), zoom)
        rot[:, 2] += rng.normal(0.0, 0.06, 2) * np.array([sw, sh])
        m = rot @ np.vstack([m, [0, 0, 1]])
        pts = pts @ rot[:, :2].T + rot[:, 2]
    inp = cv2.warpAffine(img, m, (sw, sh), flags=cv2.INTER_AREA if s / CACHE_SCALE < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT101 if augment and rng.random() < 0.5 else cv2.BORDER_CONSTANT)
    if augment and rng.random() < 0.5:
        inp = np.ascontiguousarray(inp[:, ::-1])
        pts = pts.copy()
        pts[:, 0] = sw - 1 - pts[:, 0]  # the kinds (end, bar, tray) do not change in a mirror
    if augment:
        x = inp.astype(np.float32)
        x = x * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
        x = x * rng.uniform(0.85, 1.15, 3)[None, None, :]
        mean = x.mean(axis=2, keepdims=True)
        x = mean + (x - mean) * rng.uniform(0.6, 1.4)
        if rng.random() < 0.3:
            k = int(rng.choice([3, 5]))
            x = cv2.GaussianBlur(x, (k, k), 0)
        if rng.random() < 0.5:
            x = x + rng.normal(0.0, rng.uniform(2, 10), x.shape)
        inp = np.clip(x, 0, 255).astype(np.uint8)
    return normalise(inp, pw, ph)[0], pts


def targets(pts: np.ndarray, hc: int, wc: int) -> tuple[np.ndarray, np.ndarray]:
    """Target distributions ``3 x hc x wc`` over the cells (:data:`CHANNELS`: the corners at the
    ends, at the bar, the tray; equal Gaussians around each point of the kind) and which channels
    carry a loss (those whose points all lie inside the input)."""
    uv = to_cells(pts)
    ys, xs = np.mgrid[0:hc, 0:wc]
    out = np.zeros((len(CHANNELS), hc, wc), dtype=np.float32)
    mask = np.zeros(len(CHANNELS), dtype=np.float32)
    for c, idx in enumerate((OUTER, INNER, (8,))):
        ok = True
        acc = np.zeros((hc, wc))
        for k in idx:
            u, v = uv[k]
            if not (-0.5 <= u <= wc - 0.5 and -0.5 <= v <= hc - 0.5):  # NaN fails too
                ok = False
                break
            g = np.exp(-((xs - u) ** 2 + (ys - v) ** 2) / (2 * SIGMA_CELLS ** 2))
            acc += g / g.sum()
        if ok:
            out[c] = acc / len(idx)
            mask[c] = 1.0
    return out, mask


def export(model: CornerNet, path: Path, meta: dict[str, str]) -> None:
    import onnx

    model.eval()
    _, _, _, pw, ph = input_geometry(1280, 720)
    dummy = torch.zeros(1, 3, ph, pw)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, dummy, str(path), input_names=["image"], output_names=["heatmaps"],
                      dynamic_axes={"image": {2: "h", 3: "w"}, "heatmaps": {2: "hc", 3: "wc"}}, opset_version=17,
                      dynamo=False)
    m = onnx.load(str(path))
    for k, v in meta.items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    onnx.save(m, str(path))


def evaluate(model_path: Path, folders: list[Path]) -> dict[str, object]:
    """Largest corner error per frame (pixels) over the held-out folders, through the run-time path."""
    finder = CornerModel(model_path)
    errs: list[float] = []
    per: dict[str, dict[str, float]] = {}
    t = 0.0
    for folder in folders:
        fe = []
        for p in sorted((folder / "frames").glob("*.json")):
            lab = json.loads(p.read_text())
            if not all(lab["board"].get("corners8_in_frame", [True])):
                continue
            img = cv2.imread(str(p.with_suffix(".jpg")))
            t0 = time.perf_counter()
            try:
                found_corners = finder.find(img).corners
            except ValueError:
                found_corners = np.full((8, 2), 1e4)
            t += time.perf_counter() - t0
            true8 = np.asarray(lab["board"]["corners8_px"], dtype=np.float64)
            fe.append(float(np.linalg.norm(found_corners - true8, axis=1).max()))
        a = np.array(fe)
        per[folder.name] = {"frames": len(a), "within_5px": float((a <= 5).mean()), "within_15px": float((a <= 15).mean()),
                            "median_px": float(np.median(a)), "p90_px": float(np.percentile(a, 90))}
        errs.extend(fe)
    a = np.array(errs)
    return {"frames": len(a), "within_5px": float((a <= 5).mean()), "within_15px": float((a <= 15).mean()),
            "median_px": float(np.median(a)), "p90_px": float(np.percentile(a, 90)),
            "ms_per_frame": 1e3 * t / max(len(a), 1), "folders": per}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, nargs="*", default=[])
    ap.add_argument("--test", type=Path, nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "board_corners.onnx")
    ap.add_argument("--minutes", type=float, default=20.0, help="training time")
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", type=Path, default=None, help="continue from a checkpoint (.pt) of this script")
    ap.add_argument("--eval-only", action="store_true")
    a = ap.parse_args(argv)
    if a.eval_only:
        print(json.dumps(evaluate(a.out, a.test), indent=1))
        return 0
    if not a.train:
        ap.error("--train needs at least one folder of simulator frames")
    torch.set_num_threads(a.threads)
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    images: list[np.ndarray] = []
    corners: list[np.ndarray] = []
    for f in a.train:
        i, c = load_folder(f)
        images += i
        corners += c
        print(f"{f}: {len(i)} frames", flush=True)
    model = CornerNet()
    if a.init is not None:
        model.load_state_dict(torch.load(a.init))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{len(images)} frames, {n_params} parameters", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    budget = a.minutes * 60.0
    t0 = time.perf_counter()
    step = 0
    losses: list[float] = []
    model.train()
    while True:
        frac = (time.perf_counter() - t0) / budget
        if frac >= 1.0:
            break
        for g in opt.param_groups:  # warm-up, then cosine to zero over the time budget
            g["lr"] = a.lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * frac))
        idx = rng.integers(0, len(images), a.batch)
        xs, ts, ms = [], [], []
        for i in idx:
            x, pts = sample(images[i], corners[i], rng, augment=True)
            t, m = targets(pts, x.shape[1] // STRIDE, x.shape[2] // STRIDE)
            xs.append(x)
            ts.append(t)
            ms.append(m)
        xb = torch.from_numpy(np.stack(xs))
        tb = torch.from_numpy(np.stack(ts))
        mb = torch.from_numpy(np.stack(ms))
        logits = model(xb)
        logp = F.log_softmax(logits.flatten(2), dim=2)
        ce = -(tb.flatten(2) * logp).sum(dim=2)
        loss = (ce * mb).sum() / mb.sum().clamp(min=1.0)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        step += 1
        if step % 100 == 0:
            print(f"step {step} ({(time.perf_counter() - t0) / 60:.1f} min): loss {np.mean(losses[-100:]):.3f}", flush=True)
    ckpt = a.out.with_suffix(".pt")
    torch.save(model.state_dict(), ckpt)
    meta = {"input_long": str(INPUT_LONG), "stride": str(STRIDE), "trained_on": ",".join(f.name for f in a.train),
            "frames": str(len(images)), "steps": str(step)}
    export(model, a.out, meta)
    record: dict[str, object] = {"train": [str(f) for f in a.train], "frames": len(images), "steps": step,
                                 "batch": a.batch, "lr": a.lr, "minutes": a.minutes, "parameters": n_params,
                                 "final_loss": float(np.mean(losses[-100:])) if losses else None}
    if a.test:
        record["test"] = evaluate(a.out, a.test)
        print(json.dumps(record["test"], indent=1))
    a.out.with_suffix(".metrics.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
