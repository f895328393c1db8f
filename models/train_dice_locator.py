"""Train the dice locator (CenterNet-style heatmap FCN) on simulator frames and export models/dice_locator.onnx.

    pip install -e '.[train]'
    nice -n 10 python models/train_dice_locator.py [--train DIR ...] [--test DIR ...] [--steps N]
    python models/train_dice_locator.py --eval-only [--out MODEL] [--test DIR ...] [--threshold T]

Data: the frames of ``gammonwatch sim frames`` folders (``frames/NNNNNN.jpg`` + ``.json``); each die
in ``objects`` with a ``box_xyxy`` and ``visible_frac >= 0.25`` is a positive; dice less visible
(under a hand, out of frame) are ignored (no loss around them). Frames are scaled by
``vision.dice_locator.INPUT_SCALE`` and cached in ``data-gen/dice_locator_<name>.npz`` (git-ignored).
Training takes random 224x224 windows (most around a die) with scale, flip and photometric
augmentation; the held-out folders (other seeds and board styles) are only measured: recall of the
dice at least half visible, precision of all boxes, centre error, through the run-time code path
(``vision.dice_locator.DiceLocator``). Figures go to ``models/dice_locator.metrics.json``.

PyTorch is needed only here, never at run time.
"""

from __future__ import annotations

import argparse
import json
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

from vision.dice_locator import INPUT_SCALE, STRIDE, DiceLocator, encode_targets, input_contrast, normalise  # noqa: E402

SEED = 20261122
WIN = 224
MIN_VISIBLE = 0.25
EVAL_VISIBLE = 0.5
DEFAULT_TRAIN = [ROOT / "data-gen" / n for n in ("board-train", "validity-train", "validity-train2")]
DEFAULT_TEST = [ROOT / "data-gen" / n for n in ("board-test", "validity-test")]


def conv_bn(cin: int, cout: int, stride: int = 1, groups: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


def sep(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise 3x3 + pointwise 1x1."""
    return nn.Sequential(*conv_bn(cin, cin, stride, groups=cin),
                         nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class LocatorNet(nn.Module):
    """Stride-4 output with a stride-8 context branch; about 190 M multiply-adds at 640x360."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        w = width
        self.s4 = nn.Sequential(*conv_bn(3, 16, 2), *conv_bn(16, w, 2), sep(w, w))
        self.s8 = nn.Sequential(sep(w, 2 * w, 2), sep(2 * w, 2 * w), sep(2 * w, 2 * w))
        self.lateral = nn.Sequential(nn.Conv2d(2 * w, w, 1, bias=False), nn.BatchNorm2d(w))
        self.head = nn.Sequential(sep(w, w), nn.Conv2d(w, 5, 1))
        nn.init.constant_(self.head[1].bias, 0.0)
        with torch.no_grad():
            self.head[1].bias[0] = -4.0  # heatmap prior ~2%

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(x)
        f8 = self.s8(f4)
        up = F.interpolate(self.lateral(f8), size=f4.shape[2:], mode="nearest")
        return self.head(F.relu(f4 + up))


def load_onnx_weights(model: LocatorNet, path: Path) -> None:
    """Continue from an export of the same network: each ONNX Conv (batch norm folded in) becomes the
    convolution's weight and its bias the following batch norm's shift over unit statistics; the
    batch norms then stay in inference mode while training. The head's last 1x1 keeps its bias."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    mods = [m for m in model.modules() if isinstance(m, nn.Conv2d)]
    if len(convs) != len(mods):
        raise SystemExit(f"{path}: {len(convs)} convolutions, this network has {len(mods)}; not the same network")
    bn_after: dict[int, nn.BatchNorm2d] = {}
    seq = [m for m in model.modules() if isinstance(m, nn.Conv2d | nn.BatchNorm2d)]
    for a, b in zip(seq, seq[1:], strict=False):
        if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
            bn_after[id(a)] = b
    with torch.no_grad():
        for node, conv in zip(convs, mods, strict=True):
            conv.weight.copy_(torch.from_numpy(np.array(init[node.input[1]])))
            bias = torch.from_numpy(np.array(init[node.input[2]])) if len(node.input) > 2 else None
            bn = bn_after.get(id(conv))
            if bn is not None:
                bn.weight.fill_(1.0)
                bn.bias.copy_(bias if bias is not None else torch.zeros_like(bn.bias))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            elif conv.bias is not None and bias is not None:
                conv.bias.copy_(bias)


# ------------------------------------------------------------------------------------------ data
def frame_dice(label: dict, scale: float) -> tuple[list[list[float]], list[list[float]], list[list[float]]]:
    """(positive boxes, ignored boxes, eval boxes) in scaled pixels."""
    pos, ign, ev = [], [], []
    for o in label["objects"]:
        if o.get("kind") != "die" or o.get("box_xyxy") is None:
            continue
        b = [float(v) * scale for v in o["box_xyxy"]]
        if b[2] - b[0] < 1 or b[3] - b[1] < 1:
            continue
        vis = float(o.get("visible_frac", 1.0))
        (pos if vis >= MIN_VISIBLE else ign).append(b)
        if vis >= EVAL_VISIBLE:
            ev.append(b)
    return pos, ign, ev


def frame_die_values(label: dict) -> np.ndarray:
    """The face up of each positive of :func:`frame_dice` (same order; 0 where unknown)."""
    out = []
    for o in label["objects"]:
        if o.get("kind") != "die" or o.get("box_xyxy") is None:
            continue
        b = o["box_xyxy"]
        if b[2] - b[0] < 1 or b[3] - b[1] < 1 or float(o.get("visible_frac", 1.0)) < MIN_VISIBLE:
            continue
        out.append(int(o.get("value") or 0))
    return np.array(out, np.int64)


def frame_lookalikes(label: dict, scale: float) -> np.ndarray:
    """Boxes (scaled pixels) of what the locator must not take for a die: the cube and the checkers."""
    out = [[float(v) * scale for v in o["box_xyxy"]] for o in label["objects"]
           if o.get("kind") in ("cube", "checker") and o.get("box_xyxy") is not None]
    return np.array(out, np.float32).reshape(-1, 4)


def load_folder(folder: Path, cache_dir: Path) -> dict[str, object]:
    """Scaled frames and boxes of one sim folder, cached (re-read when the folder has more frames)."""
    labels = sorted((folder / "frames").glob("*.json"))
    cache = cache_dir / f"dice_locator_{folder.name}_{len(labels)}.npz"
    if cache.is_file():
        d = np.load(cache, allow_pickle=True)
        names = list(d["names"])
        labs = [json.loads(Path(str(n)).read_text()) for n in names]
        return {"images": d["images"], "boxes": list(d["boxes"]), "ignore": list(d["ignore"]),
                "eval": list(d["eval"]), "names": names,
                "lookalikes": [frame_lookalikes(lab, INPUT_SCALE) for lab in labs],
                "values": [frame_die_values(lab) for lab in labs]}
    images, boxes, ignore, evals, names, looks, values = [], [], [], [], [], [], []
    t0 = time.time()
    for p in labels:
        lab = json.loads(p.read_text())
        img = cv2.imread(str(p.with_suffix(".jpg")))
        if img is None:
            continue
        h, w = img.shape[:2]
        small = cv2.resize(img, (int(round(w * INPUT_SCALE)), int(round(h * INPUT_SCALE))), interpolation=cv2.INTER_AREA)
        pos, ign, ev = frame_dice(lab, INPUT_SCALE)
        images.append(small)
        boxes.append(np.array(pos, np.float32).reshape(-1, 4))
        ignore.append(np.array(ign, np.float32).reshape(-1, 4))
        evals.append(np.array(ev, np.float32).reshape(-1, 4))
        names.append(str(p))
        looks.append(frame_lookalikes(lab, INPUT_SCALE))
        values.append(frame_die_values(lab))
    print(f"  {folder.name}: {len(images)} frames ({time.time() - t0:.0f} s)", flush=True)
    cache_dir.mkdir(parents=True, exist_ok=True)
    arr = np.stack(images)
    obj = np.empty(len(boxes), dtype=object)
    ob2 = np.empty(len(boxes), dtype=object)
    ob3 = np.empty(len(boxes), dtype=object)
    for i in range(len(boxes)):
        obj[i], ob2[i], ob3[i] = boxes[i], ignore[i], evals[i]
    np.savez(cache, images=arr, boxes=obj, ignore=ob2, eval=ob3, names=np.array(names))
    return {"images": arr, "boxes": boxes, "ignore": ignore, "eval": evals, "names": names, "lookalikes": looks,
            "values": values}


def sample_window(img: np.ndarray, boxes: np.ndarray, ignore: np.ndarray, rng: np.random.Generator,
                  lookalikes: np.ndarray | None = None, die_share: float = 0.75,
                  lookalike_share: float = 0.0, die_index: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A WIN x WIN training window (scale 0.75-1.35, flip, photometric changes) and its boxes:
    centred near die ``die_index`` if given, else near a die (``die_share`` of the windows), near the
    cube, a checker or a mined false peak (``lookalike_share``: hard negatives), else anywhere."""
    h, w = img.shape[:2]
    s = float(np.exp(rng.uniform(np.log(0.75), np.log(1.35))))
    src = min(WIN / s, h, w)
    s = WIN / src
    u = rng.random()
    if die_index is not None or (len(boxes) and u < die_share):
        b = boxes[die_index if die_index is not None else rng.integers(len(boxes))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-0.4, 0.4) * src
        cy = (b[1] + b[3]) / 2 + rng.uniform(-0.4, 0.4) * src
    elif lookalikes is not None and len(lookalikes) and u < die_share + lookalike_share:
        b = lookalikes[rng.integers(len(lookalikes))]
        cx = (b[0] + b[2]) / 2 + rng.uniform(-0.2, 0.2) * src
        cy = (b[1] + b[3]) / 2 + rng.uniform(-0.2, 0.2) * src
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    x0 = float(np.clip(cx - src / 2, 0, w - src))
    y0 = float(np.clip(cy - src / 2, 0, h - src))
    m = np.array([[s, 0, -s * x0], [0, s, -s * y0]], dtype=np.float64)
    flip = rng.random() < 0.5
    if flip:
        m = np.array([[-1, 0, WIN], [0, 1, 0]], dtype=np.float64) @ np.vstack([m, [0, 0, 1]])
    win = cv2.warpAffine(img, m, (WIN, WIN), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    def tf(bx: np.ndarray) -> np.ndarray:
        if not len(bx):
            return bx.reshape(-1, 4)
        xs = bx[:, [0, 2]] * m[0, 0] + m[0, 2]
        ys = bx[:, [1, 3]] * m[1, 1] + m[1, 2]
        out = np.column_stack([xs.min(1), ys.min(1), xs.max(1), ys.max(1)])
        out[:, [0, 2]] = out[:, [0, 2]].clip(0, WIN)
        out[:, [1, 3]] = out[:, [1, 3]].clip(0, WIN)
        keep = (out[:, 2] - out[:, 0] > 1.5) & (out[:, 3] - out[:, 1] > 1.5)
        return out[keep]

    pos, ign = tf(boxes), tf(ignore)
    # boxes cut by the window edge are ignored rather than taught
    orig = (boxes[:, 2:] - boxes[:, :2]) * s if len(boxes) else np.zeros((0, 2))
    if len(pos) and len(pos) == len(orig):
        cut = ((pos[:, 2:] - pos[:, :2]) < 0.7 * orig).any(1)
        ign = np.vstack([ign, pos[cut]]) if cut.any() else ign
        pos = pos[~cut]
    f = win.astype(np.float32)
    f = f * rng.uniform(0.75, 1.25, 3)[None, None, :] * rng.uniform(0.7, 1.3) + rng.uniform(-20, 20)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.4, 1.2))
    if rng.random() < 0.4:
        f = f + rng.normal(0, rng.uniform(1, 6), f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8), pos, ign


def die_table(data: list[dict[str, object]], one_boost: float = 0.0, hard_boost: float = 0.0,
              hard_below: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Every positive die as (folder, frame, die) and its sampling probability: 1, plus
    ``one_boost`` for a die showing 1 (the face the locator finds least), plus ``hard_boost`` for a
    die the mined model scored under ``hard_below`` (``d["mined"]``, see :func:`mine`)."""
    rows, wts = [], []
    for k, d in enumerate(data):
        mined = d.get("mined")
        for i, bx in enumerate(d["boxes"]):  # type: ignore[arg-type]
            vals = d["values"][i]  # type: ignore[index]
            for j in range(len(bx)):
                w = 1.0
                if j < len(vals) and vals[j] == 1:
                    w += one_boost
                if mined is not None and mined[0][i][j] < hard_below:  # type: ignore[index]
                    w += hard_boost
                rows.append((k, i, j))
                wts.append(w)
    p = np.array(wts, np.float64)
    return np.array(rows, np.int64).reshape(-1, 3), p / max(p.sum(), 1e-9)


def mine(data: list[dict[str, object]], onnx_path: Path, threshold: float = 0.3) -> None:
    """Score every training die with an exported locator (the peak of its heatmap inside the die's
    box, into ``d["mined"][0]``) and add its false peaks (over ``threshold``, not on a die) to the
    frame's lookalikes: the windows that teach most are sampled more."""
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    contrast = input_contrast(sess.get_modelmeta().custom_metadata_map, onnx_path)  # as the run time sees
    t0 = time.time()
    n_hard = n_false = 0
    for d in data:
        scores_all = []
        for i, img in enumerate(d["images"]):  # type: ignore[arg-type]
            h, w = img.shape[:2]
            out = sess.run(None, {name: normalise(img, -(-w // 8) * 8, -(-h // 8) * 8, contrast)})[0][0]
            heat = 1.0 / (1.0 + np.exp(-out[0]))
            sc = []
            for b in d["boxes"][i]:  # type: ignore[index]
                x0, y0 = int(b[0] // STRIDE), int(b[1] // STRIDE)
                x1, y1 = int(np.ceil(b[2] / STRIDE)), int(np.ceil(b[3] / STRIDE))
                sc.append(float(heat[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)].max()))
            scores_all.append(np.array(sc, np.float32))
            n_hard += sum(1 for v in sc if v < 0.5)
            peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
            near = [*d["boxes"][i], *d["ignore"][i]]  # type: ignore[index]
            extra = []
            for py, px in zip(*np.nonzero(peaks), strict=True):
                cx, cy = (px + 0.5) * STRIDE, (py + 0.5) * STRIDE
                if any(b[0] - 4 <= cx <= b[2] + 4 and b[1] - 4 <= cy <= b[3] + 4 for b in near):
                    continue
                extra.append([cx - 6, cy - 6, cx + 6, cy + 6])
            if extra:
                n_false += len(extra)
                d["lookalikes"][i] = np.vstack([d["lookalikes"][i], np.array(extra, np.float32)])  # type: ignore[index]
        d["mined"] = (scores_all,)
    print(f"  mined with {onnx_path.name}: {n_hard} dice scored under 0.5, {n_false} false peaks "
          f"({time.time() - t0:.0f} s)", flush=True)


def batch(data: list[dict[str, object]], size: int, rng: np.random.Generator, die_share: float = 0.75,
          lookalike_share: float = 0.0, dice: tuple[np.ndarray, np.ndarray] | None = None
          ) -> tuple[torch.Tensor, ...]:
    """A training batch; with ``dice`` (from :func:`die_table`) the die-centred windows pick their die
    by its sampling probability instead of a frame at random."""
    xs, heats, weights, regs, masks = [], [], [], [], []
    g = WIN // STRIDE
    for _ in range(size):
        if dice is not None and len(dice[0]) and rng.random() < die_share:
            k, i, j = (int(v) for v in dice[0][rng.choice(len(dice[0]), p=dice[1])])
            d = data[k]
            win, pos, ign = sample_window(d["images"][i], d["boxes"][i], d["ignore"][i], rng,  # type: ignore[index]
                                          d["lookalikes"][i], die_index=j)  # type: ignore[index]
        else:
            d = data[rng.integers(len(data))]
            images = d["images"]
            i = int(rng.integers(len(images)))  # type: ignore[arg-type]
            ds, ls = (0.0, lookalike_share / max(1e-9, 1 - die_share)) if dice is not None else (die_share, lookalike_share)
            win, pos, ign = sample_window(images[i], d["boxes"][i], d["ignore"][i], rng,  # type: ignore[index]
                                          d["lookalikes"][i], ds, ls)  # type: ignore[index]
        heat, weight, reg, mask = encode_targets(pos, ign, g, g, STRIDE)
        xs.append(normalise(win)[0])
        heats.append(heat)
        weights.append(weight)
        regs.append(reg)
        masks.append(mask)
    return tuple(torch.from_numpy(np.stack(a)) for a in (xs, heats, weights, regs, masks))


def focal_loss(logits: torch.Tensor, heat: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss, normalised by the number of dice."""
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - pos) * weight
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)


# ------------------------------------------------------------------------------------------ eval
def match(pred: np.ndarray, truth: np.ndarray, others: np.ndarray) -> tuple[int, int, int, list[float]]:
    """(true positives, false positives, missed, centre errors px) for one frame; a prediction on a
    less visible die (``others``) is neither right nor wrong."""
    used = set()
    tp, errs = 0, []
    fp = 0
    for b in pred:
        c = (b[:2] + b[2:]) / 2
        best, best_d = -1, 1e9
        for j, t in enumerate(truth):
            if j in used:
                continue
            d = float(np.hypot(*((t[:2] + t[2:]) / 2 - c)))
            if d < max(6.0, 0.5 * float(max(t[2] - t[0], t[3] - t[1]))) and d < best_d:
                best, best_d = j, d
        if best >= 0:
            used.add(best)
            tp += 1
            errs.append(best_d)
            continue
        if any(np.hypot(*((o[:2] + o[2:]) / 2 - c)) < 0.7 * max(o[2] - o[0], o[3] - o[1]) for o in others):
            continue
        fp += 1
    return tp, fp, len(truth) - len(used), errs


def evaluate(locator: DiceLocator, folders: list[Path]) -> dict[str, object]:
    out: dict[str, object] = {}
    for folder in folders:
        labels = sorted((folder / "frames").glob("*.json"))
        tp = fp = fn = 0
        errs: list[float] = []
        ms: list[float] = []
        for p in labels:
            lab = json.loads(p.read_text())
            img = cv2.imread(str(p.with_suffix(".jpg")))
            if img is None:
                continue
            _, ign, ev = frame_dice(lab, 1.0)
            allb = [[float(v) for v in o["box_xyxy"]] for o in lab["objects"]
                    if o.get("kind") == "die" and o.get("box_xyxy") is not None]
            t0 = time.perf_counter()
            found = locator.locate(img)
            ms.append((time.perf_counter() - t0) * 1e3)
            a, b, c, e = match(found.boxes, np.array(ev).reshape(-1, 4), np.array(allb).reshape(-1, 4))
            tp, fp, fn, errs = tp + a, fp + b, fn + c, errs + e
        out[folder.name] = {"frames": len(labels), "dice_half_visible": tp + fn,
                            "recall": round(tp / max(tp + fn, 1), 4), "precision": round(tp / max(tp + fp, 1), 4),
                            "false_positives": fp, "missed": fn,
                            "centre_error_px_median": round(float(np.median(errs)), 2) if errs else None,
                            "centre_error_px_p95": round(float(np.percentile(errs, 95)), 2) if errs else None,
                            "locate_ms_median": round(float(np.median(ms)), 2) if ms else None}
        print(f"  {folder.name}: {out[folder.name]}", flush=True)
    return out


def evaluate_video(locator: DiceLocator, folders: list[Path], radius: float = 12.0) -> dict[str, object]:
    """Per-frame recall of the dice at rest in rendered videos (``gammonwatch sim video`` folders,
    ``index.jsonl`` with the truth per stored frame): what the live pipeline needs is the die found in
    the frames it rests, not in single varied frames. A die is found when a box centre lies within
    ``radius`` px of its ``center_px``; a rest is the run of frames a die keeps one place, found when
    the locator finds it in at least half of them; a box far from every die is a false box."""
    out: dict[str, object] = {}
    for folder in folders:
        found = total = false = frames = 0
        rests: dict[tuple[int, int, int], list[bool]] = {}
        for line in (folder / "index.jsonl").read_text().splitlines():
            rec = json.loads(line)
            dice = [d for d in rec["truth"].get("dice", []) if d.get("center_px")]
            img = cv2.imread(str(folder / rec["image"]))
            if img is None:
                continue
            frames += 1
            boxes = locator.locate(img).boxes
            centres = (boxes[:, :2] + boxes[:, 2:]) / 2 if len(boxes) else np.zeros((0, 2))
            for d in dice:
                if d.get("state") != "at_rest":
                    continue
                c = np.array(d["center_px"], np.float64)
                hit = bool(len(centres)) and float(np.hypot(*(centres - c).T).min()) <= radius
                total += 1
                found += hit
                key = (int(d["id"]), int(round(c[0] / 4)), int(round(c[1] / 4)))
                rests.setdefault(key, []).append(hit)
            for c in centres:
                if not any(np.hypot(*(np.array(d["center_px"]) - c)) <= 2 * radius for d in dice):
                    false += 1
        rest_found = sum(1 for v in rests.values() if np.mean(v) >= 0.5)
        out[folder.name] = {"frames": frames, "dice_at_rest": total, "recall": round(found / max(total, 1), 4),
                            "rests": len(rests), "rests_found": rest_found, "false_boxes": false}
        print(f"  {folder.name}: {out[folder.name]}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, nargs="+", default=DEFAULT_TRAIN)
    ap.add_argument("--test", type=Path, nargs="*", default=DEFAULT_TEST)
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "dice_locator.onnx")
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-frames", type=int, default=0, help="use at most this many frames per folder (0: all)")
    ap.add_argument("--init-onnx", type=Path, default=None,
                    help="continue from an export of the same network (batch norm folded; kept in inference mode)")
    ap.add_argument("--eval-only", action="store_true", help="only measure --out on the --test folders")
    ap.add_argument("--video", type=Path, nargs="*", default=[],
                    help="rendered video folders (index.jsonl) to measure recall of dice at rest on as well")
    ap.add_argument("--one-boost", type=float, default=2.0,
                    help="extra sampling weight of a die showing 1 (the face found least)")
    ap.add_argument("--hard-boost", type=float, default=3.0,
                    help="extra sampling weight of a die the mined model scores under 0.5")
    ap.add_argument("--mine-onnx", type=Path, default=None,
                    help="locator to mine hard dice and false peaks with (default: --init-onnx; none: no mining)")
    ap.add_argument("--width", type=int, default=32,
                    help="channels at stride 4 (twice that at stride 8); 32 is the committed network's")
    ap.add_argument("--threshold", type=float, default=None, help="heatmap threshold for --eval-only")
    ap.add_argument("--die-share", type=float, default=0.6, help="share of windows centred near a die")
    ap.add_argument("--lookalike-share", type=float, default=0.25,
                    help="share of windows centred near the cube or a checker (hard negatives)")
    args = ap.parse_args(argv)
    if args.eval_only:
        loc = DiceLocator(args.out) if args.threshold is None else DiceLocator(args.out, threshold=args.threshold)
        evaluate(loc, [f for f in args.test if (f / "frames").is_dir()])
        if args.video:
            evaluate_video(loc, args.video)
        return 0

    t_start = time.time()
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(SEED)
    cache_dir = ROOT / "data-gen"
    data = []
    for folder in args.train:
        if not (folder / "frames").is_dir():
            print(f"  {folder}: no frames/, skipped", flush=True)
            continue
        d = load_folder(folder, cache_dir)
        if args.max_frames:
            for k in ("boxes", "ignore", "eval", "names", "lookalikes", "values"):
                d[k] = d[k][: args.max_frames]  # type: ignore[index]
            d["images"] = d["images"][: args.max_frames]  # type: ignore[index]
        data.append(d)
    n_frames = sum(len(d["images"]) for d in data)  # type: ignore[arg-type]
    n_dice = sum(len(b) for d in data for b in d["boxes"])  # type: ignore[attr-defined]
    print(f"training frames: {n_frames}, dice: {n_dice}", flush=True)

    mine_onnx = args.mine_onnx if args.mine_onnx is not None else args.init_onnx
    if mine_onnx is not None:
        mine(data, mine_onnx)
    dice = die_table(data, args.one_boost, args.hard_boost)

    model = LocatorNet(args.width)
    if args.init_onnx is not None:
        load_onnx_weights(model, args.init_onnx)
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    t0 = time.time()
    run_h = run_r = 0.0
    for step in range(args.steps):
        model.train()
        if args.init_onnx is not None:
            for mod in model.modules():
                if isinstance(mod, nn.BatchNorm2d):
                    mod.eval()
        x, heat, weight, reg, mask = batch(data, args.batch, rng, args.die_share, args.lookalike_share, dice)
        out = model(x)
        lh = focal_loss(out[:, 0], heat, weight)
        m = mask.unsqueeze(1)
        lr_ = (F.smooth_l1_loss(out[:, 1:5] * m, reg * m, reduction="sum", beta=0.1) / m.sum().clamp(min=1))
        loss = lh + lr_
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run_h = 0.98 * run_h + 0.02 * lh.item()
        run_r = 0.98 * run_r + 0.02 * lr_.item()
        if (step + 1) % 100 == 0:
            print(f"  step {step + 1}/{args.steps}: heat {run_h:.3f} reg {run_r:.3f} ({time.time() - t0:.0f} s)",
                  flush=True)
    train_seconds = time.time() - t0

    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, 360, 640)
    torch.onnx.export(model, (dummy,), str(args.out), input_names=["image"], output_names=["maps"],
                      dynamic_axes={"image": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}}, opset_version=17,
                      dynamo=False)
    import onnxruntime as ort

    probe = torch.from_numpy(normalise(data[0]["images"][0])[0][None])  # type: ignore[index]
    with torch.no_grad():
        ref = model(probe).numpy()
    sess = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"image": probe.numpy()})[0]
    max_diff = float(np.abs(ref - got).max())
    assert max_diff < 1e-2, f"ONNX and PyTorch disagree by {max_diff}"
    locator = DiceLocator(args.out)
    print("held-out frames:", flush=True)
    held = evaluate(locator, [f for f in args.test if (f / "frames").is_dir()])
    video = evaluate_video(locator, args.video) if args.video else {}
    metrics = {"seed": SEED, "parameters": n_params, "onnx_bytes": args.out.stat().st_size,
               "training_frames": n_frames, "training_dice": n_dice,
               "training_folders": {str(d["names"][0]).split("/frames/")[0].split("/")[-1]: len(d["images"])  # type: ignore[index,arg-type]
                                    for d in data if len(d["names"])},  # type: ignore[arg-type]
               "steps": args.steps, "batch": args.batch, "width": args.width, "window": WIN, "lr": args.lr,
               "heldout": held, "video": video, "one_boost": args.one_boost, "hard_boost": args.hard_boost,
               "mined_with": str(mine_onnx) if mine_onnx is not None else None, "train_seconds": round(train_seconds, 1),
               "total_seconds": round(time.time() - t_start, 1), "onnx_vs_torch_max_abs_diff": max_diff,
               "torch": torch.__version__, "threads": args.threads,
               "command": "python models/train_dice_locator.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    args.out.with_suffix(".metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    print(json.dumps(metrics, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
