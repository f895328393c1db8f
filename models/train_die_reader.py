"""Train the die-value reader and export it to ONNX (models/die_reader.onnx).

    pip install -e '.[train]'
    nice -n 10 python models/train_die_reader.py [--real DIR] [--sim-train DIR ...] [--sim-test DIR ...]

Reproducible: fixed seeds, a fixed split of the real photos by photo name (written to
models/die_reader.split.json). One model reads both kinds of crop (decision 0520):

- simulator dice (``gammonwatch sim frames`` folders): the crop is rotated so that the world's
  vertical at the die points up (``vision.dice.crop_die(..., up=...)``; the direction comes from the
  label's true camera, jittered by a few degrees and the box jittered like a locator's), so the top
  face is above the visible side faces; only mirrored in training;
- real top-down photos (no calibration): upright crops, rotated by multiples of 90 degrees and
  mirrored in training, several jittered boxes per die;
- synthetic OpenCV dice (models/synth_dice.py; cached under data-gen/) as in the first model.

Steps: cache the crops (data-gen/, git-ignored); train on the mix; export to ONNX, check ONNX
Runtime against PyTorch, and measure with vision.dice.DieReader on the held-out real photos (25%,
chosen by a hash of the photo name; never trained on) and on the held-out simulator folders (other
seeds and board styles), whose crops take the vertical from a profile made of the four labelled
corners only, as ``gammonwatch recognize --corners`` does (``vision.dice.up_directions``).
Figures go to models/die_reader.metrics.json.

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
from die_crops import REAL_TOP_ENLARGE, enlarge, shrink_crops, sim_test_crops, true_up  # noqa: E402
from onnx_init import freeze_batch_norms, load_folded_convs, set_metadata  # noqa: E402
from synth_dice import render_sample  # noqa: E402
from validity_data import located_boxes, profile_for, recognizer_locate  # noqa: E402

from sim.camera import motion_kernel  # noqa: E402
from vision.dice import CROP_SIZE, DieReader, crop_die, to_tensor  # noqa: E402
from vision.dice_data import LabelledPhoto, read_folder  # noqa: E402
from vision.dice_validity import TOP_SPAN, top_face_crop  # noqa: E402
from vision.eval_cli import die_shows_value  # noqa: E402
from vision.images import read_image  # noqa: E402

SEED = 20261121
HELDOUT_FRACTION = 0.25
DEFAULT_REAL = ROOT / ".." / "shared" / "data" / "real-dice" / "photos"
DEFAULT_SIM_TRAIN = [ROOT / "data-gen" / n for n in ("board-train", "validity-train", "validity-train2")]
DEFAULT_SIM_TEST = [ROOT / "data-gen" / n for n in ("board-test", "validity-test")]
MIN_VISIBLE_TRAIN = 0.3


def conv_block(cin: int, cout: int) -> list[nn.Module]:
    """A 3x3 convolution, batch norm and ReLU (the die networks' building block)."""
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class DieNet(nn.Module):
    """About 80k parameters, ~11 M multiply-adds per 48x48 crop at ``width`` 1; ``width`` multiplies
    every layer's channels (parameters and multiply-adds grow as its square)."""

    def __init__(self, width: int = 1) -> None:
        super().__init__()
        c1, c2, c3, c4 = 12 * width, 24 * width, 48 * width, 96 * width
        block = conv_block
        self.features = nn.Sequential(
            *block(3, c1), nn.MaxPool2d(2),  # 24
            *block(c1, c2), *block(c2, c2), nn.MaxPool2d(2),  # 12
            *block(c2, c3), *block(c3, c3), nn.MaxPool2d(2),  # 6
            *block(c3, c4),
        )
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(c4, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = x.mean(dim=(2, 3))
        return self.head(x)


def load_onnx_weights(model: DieNet, path: Path) -> None:
    """Start from an export of the same network (``onnx_init.load_folded_convs``); the batch norms
    then stay in inference mode while training (``run_epochs(frozen_bn=True)``)."""
    pairs = list(zip([m for m in model.features if isinstance(m, nn.Conv2d)],
                     [m for m in model.features if isinstance(m, nn.BatchNorm2d)], strict=True))
    init = load_folded_convs(pairs, path)
    with torch.no_grad():
        model.head[1].weight.copy_(torch.from_numpy(init["head.1.weight"]))
        model.head[1].bias.copy_(torch.from_numpy(init["head.1.bias"]))


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


def real_crops(photos: list[LabelledPhoto], variants: int, seed: int, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The plain crop of every die plus ``variants - 1`` crops from jittered boxes; ``scale``: each box
    enlarged so (``REAL_TOP_ENLARGE`` for the top-face reader)."""
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
                xs.append(crop_die(img, b if scale == 1.0 else enlarge(b, scale)))
                ys.append(die.value - 1)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def rotate(v: np.ndarray, deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def sim_train_crops(folder: Path, variants: int, seed: int, crop: str = "up",
                    located: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops of the simulator dice of one folder: labelled box + jittered boxes and vertical (cached);
    also each crop's die size in pixels (the labelled box's longer side). ``crop`` "top": top-face
    crops (``vision.dice_validity.top_face_crop``) with the camera solved from the 8 labelled corners
    alone, jittered by 1.5 px in all but the first crop, as the run time does without intrinsics.
    ``located``: the jittered crops take the box the trained dice locator finds for the die instead
    (the second as found, the others jittered by 3% of its side; the labelled box jittered where the
    locator missed it), as the run time cuts them (models/die_reader.md, session 16). Dice that do not
    show their value (``vision.eval_cli.die_shows_value``: tilted past 30 degrees, under the other die)
    are left out: their label is a guess the network would learn as noise (session 21)."""
    labels = sorted((folder / "frames").glob("*.json"))
    kind = ("_top" if crop == "top" else "") + ("_located" if located else "") + "_shows"
    cache = ROOT / "data-gen" / f"die_reader_sim_{folder.name}_{len(labels)}_{variants}_{seed}_sized{kind}.npz"
    if cache.is_file():
        d = np.load(cache)
        return d["x"], d["y"], d["side"]
    rng = np.random.default_rng(seed)
    locate = recognizer_locate() if located else None
    xs, ys, sides = [], [], []
    for path in labels:
        lab = json.loads(path.read_text())
        dice = [o for o in lab["objects"] if o.get("kind") == "die" and o.get("box_xyxy") is not None
                and o.get("visible_frac", 0) >= MIN_VISIBLE_TRAIN and die_shows_value(o, lab["objects"]) is not False]
        if not dice:
            continue
        img = read_image(path.with_suffix(".jpg"))
        profiles = []
        if crop == "top":
            try:
                profiles = [profile_for(lab, None if k == 0 else rng, intrinsics=False) for k in range(variants)]
            except Exception:  # noqa: BLE001 - a degenerate view: skip the frame
                continue
        found: list[list[float] | None] = [None] * len(dice)
        if locate is not None:
            found, _ = located_boxes(locate, img, lab, dice)
        for die, lb in zip(dice, found, strict=True):
            box = np.array(die["box_xyxy"], dtype=np.float64)
            side = max(box[2] - box[0], box[3] - box[1])
            if side < 4:
                continue
            up = true_up(lab, die["pose"]["position_cm"])
            for k in range(variants):
                if k > 0 and lb is not None:
                    b = np.array(lb, dtype=np.float64)
                    if k > 1:
                        b = b + rng.normal(0, 0.03, 4) * max(b[2] - b[0], b[3] - b[1])
                else:
                    b = box if k == 0 else box + rng.normal(0, 0.06, 4) * side
                if b[2] - b[0] < 2 or b[3] - b[1] < 2:
                    b = box
                if crop == "top":
                    xs.append(top_face_crop(img, profiles[k], b, CROP_SIZE))
                else:
                    xs.append(crop_die(img, b, up=rotate(up, float(rng.normal(0, 8.0)))))
                ys.append(int(die["value"]) - 1)
                sides.append(side)
    x, y, sd = np.stack(xs), np.array(ys, dtype=np.int64), np.array(sides, dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, x=x, y=y, side=sd)
    return x, y, sd


def blur(x: torch.Tensor, sigma: float) -> torch.Tensor:
    """A Gaussian blur of ``sigma`` crop pixels on every channel (reflecting borders)."""
    r = max(1, int(np.ceil(2.5 * sigma)))
    k1 = torch.exp(-torch.arange(-r, r + 1, dtype=torch.float32) ** 2 / (2 * sigma * sigma))
    k1 = k1 / k1.sum()
    c = x.shape[1]
    xp = F.pad(x, (r, r, r, r), mode="reflect")
    xp = F.conv2d(xp, k1.view(1, 1, 1, -1).expand(c, 1, 1, -1).contiguous(), groups=c)
    return F.conv2d(xp, k1.view(1, 1, -1, 1).expand(c, 1, -1, 1).contiguous(), groups=c)


def motion_blur(x: torch.Tensor, length: int, angle_deg: float) -> torch.Tensor:
    """A straight motion blur of ``length`` crop pixels at ``angle_deg`` on every channel (as the
    simulator's camera effects draw it: ``sim.camera.effects``)."""
    k = motion_kernel(length, angle_deg)
    c = x.shape[1]
    r = length // 2
    xp = F.pad(x, (r, length - 1 - r, r, length - 1 - r), mode="replicate")
    kt = torch.from_numpy(k).view(1, 1, length, length).expand(c, 1, length, length).contiguous()
    return F.conv2d(xp, kt, groups=c)


def augment(x: torch.Tensor, oriented: torch.Tensor, gen: torch.Generator, blur_share: float = 0.0,
            motion_share: float = 0.0, motion_max: int = 11) -> torch.Tensor:
    """Values are invariant to rotation, mirroring and colour. Crops whose up is known (``oriented``,
    simulator crops rotated to the vertical) are only mirrored; the others also get rot90.
    ``blur_share`` of the crops are blurred (sigma 0.6-1.6 crop pixels: the defocus and video
    compression of a live camera, which soften a small die's pips further than the training frames)."""
    free = ~oriented
    if free.any():
        k = int(torch.randint(0, 4, (1,), generator=gen))
        x[free] = torch.rot90(x[free], k, dims=(2, 3))
    if int(torch.randint(0, 2, (1,), generator=gen)):
        x = torch.flip(x, dims=(3,))
    perm = torch.randperm(3, generator=gen)
    x = x[:, perm]
    gray = torch.rand(x.shape[0], generator=gen) < 0.1
    if gray.any():
        x[gray] = x[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    if motion_share > 0:  # a camera shaken or panning while the frame is exposed: 3 to motion_max crop pixels
        shaken = torch.rand(x.shape[0], generator=gen) < motion_share
        if shaken.any():
            length = int(torch.randint(3, motion_max + 1, (1,), generator=gen))
            x[shaken] = motion_blur(x[shaken], length, float(torch.rand(1, generator=gen)) * 180.0)
    if blur_share > 0:
        soft = torch.rand(x.shape[0], generator=gen) < blur_share
        if soft.any():
            sigma = 0.6 + float(torch.rand(1, generator=gen)) * 1.0
            x[soft] = blur(x[soft], sigma)
    return x


def run_epochs(model: DieNet, x: np.ndarray, y: np.ndarray, epochs: int, lr: float, gen: torch.Generator,
               label: str, oriented: np.ndarray | None = None, frozen_bn: bool = False,
               blur_share: float = 0.0, motion_share: float = 0.0, motion_max: int = 11) -> None:
    if epochs <= 0:
        return
    xt = torch.from_numpy(to_tensor(x))
    yt = torch.from_numpy(y)
    ot = torch.from_numpy(np.zeros(len(y), dtype=bool) if oriented is None else oriented)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    for epoch in range(epochs):
        model.train()
        if frozen_bn:
            freeze_batch_norms(model)
        t0 = time.time()
        order = torch.randperm(len(xt), generator=gen)
        total_loss, correct = 0.0, 0
        for s in range(0, len(xt), batch):
            idx = order[s : s + batch]
            xb = augment(xt[idx].clone(), ot[idx], gen, blur_share, motion_share, motion_max)
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
    ap.add_argument("--sim-train", type=Path, nargs="*", default=DEFAULT_SIM_TRAIN, help="simulator folders to train on")
    ap.add_argument("--sim-test", type=Path, nargs="*", default=DEFAULT_SIM_TEST, help="held-out simulator folders")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "die_reader.onnx")
    ap.add_argument("--synthetic-per-class", type=int, default=5000)
    ap.add_argument("--synthetic-crops", type=int, default=6000, help="synthetic crops in the mixed set")
    ap.add_argument("--synthetic-epochs", type=int, default=0, help="epochs on synthetic crops alone first")
    ap.add_argument("--epochs", type=int, default=8, help="epochs on the mix of simulator, real and synthetic crops")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--real-variants", type=int, default=6, help="crops per real training die")
    ap.add_argument("--sim-variants", type=int, default=3, help="crops per simulator training die")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--width", type=int, default=1, help="channel multiplier of the network (1: 82k parameters)")
    ap.add_argument("--init-onnx", type=Path, default=None,
                    help="continue from an export of the same network (batch norm folded; kept in inference mode)")
    ap.add_argument("--small-px", type=float, default=20.0, help="a simulator die this size or smaller (pixels) is small")
    ap.add_argument("--small-weight", type=int, default=1,
                    help="each small simulator die's crops this many times in the mixed set (far dice at low camera elevations)")
    ap.add_argument("--blur", type=float, default=0.0, help="share of training crops blurred (augmentation)")
    ap.add_argument("--motion-blur", type=float, default=0.0,
                    help="share of training crops given a straight motion blur of 3 to --motion-max crop pixels (augmentation)")
    ap.add_argument("--motion-max", type=int, default=11,
                    help="longest motion blur, crop pixels (the simulator's 9 px on a 20 px die is 17 crop pixels)")
    ap.add_argument("--crop", choices=("up", "top"), default="up",
                    help="simulator crops: 'up' turned to the vertical (crop_die), 'top' the top face seen from above "
                         "(top_face_crop; real and synthetic crops rescaled to its scale)")
    ap.add_argument("--located", action="store_true",
                    help="the simulator dice's jittered crops take the dice locator's boxes (as the run time cuts them)")
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
    args.out.parent.mkdir(parents=True, exist_ok=True)
    split_path = args.out.with_suffix(".split.json")
    split_path.write_text(json.dumps({
        "rule": f"held out: the first {HELDOUT_FRACTION:.0%} of photos ordered by sha1(name)",
        "train": [p.name for p in train_photos], "heldout": [p.name for p in held_photos]}, indent=1) + "\n")
    print(f"real photos: {len(train_photos)} train, {len(held_photos)} held out", flush=True)

    variant = "_colourpips" if args.colour_pips else ""
    cache = ROOT / "data-gen" / f"synth_dice_{args.synthetic_per_class}_{SEED}_{CROP_SIZE}{variant}.npz"
    t0 = time.time()
    xs, ys = synthetic_set(args.synthetic_per_class, SEED, cache, args.colour_pips)
    scale = REAL_TOP_ENLARGE if args.crop == "top" else 1.0
    if args.crop == "top":
        xs = shrink_crops(xs)
    print(f"synthetic crops: {len(xs)} ({time.time() - t0:.0f} s)", flush=True)
    xr, yr = real_crops(train_photos, args.real_variants, SEED + 1, scale)
    xh, yh = real_crops(held_photos, 1, SEED + 2, scale)
    print(f"real train crops: {len(xr)} from {len(xr) // args.real_variants} dice; held-out dice: {len(xh)}",
          flush=True)
    sim_parts, sim_counts = [], {}
    for i, folder in enumerate(args.sim_train):
        if not (folder / "frames").is_dir():
            print(f"  {folder}: no frames/, skipped", flush=True)
            continue
        t0 = time.time()
        part = sim_train_crops(folder, args.sim_variants, SEED + 10 + i, args.crop, args.located)
        small = part[2] <= args.small_px
        if args.small_weight > 1 and small.any():
            extra = np.repeat(np.nonzero(small)[0], args.small_weight - 1)
            part = (np.concatenate([part[0], part[0][extra]]), np.concatenate([part[1], part[1][extra]]), part[2])
        sim_parts.append(part)
        sim_counts[folder.name] = int(len(part[2]) // args.sim_variants)
        sim_small = sim_counts.get("small_dice", 0) + int(small.sum()) // args.sim_variants
        sim_counts["small_dice"] = sim_small
        print(f"  simulator {folder.name}: {len(part[1])} crops ({time.time() - t0:.0f} s)", flush=True)
    xsim = np.concatenate([p[0] for p in sim_parts]) if sim_parts else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    ysim = np.concatenate([p[1] for p in sim_parts]) if sim_parts else np.zeros(0, np.int64)
    tests = {}
    for folder in args.sim_test:
        if (folder / "frames").is_dir():
            tests[folder.name] = sim_test_crops(folder, args.crop)
            print(f"  held-out simulator {folder.name}: {len(tests[folder.name][1])} dice", flush=True)

    model = DieNet(args.width)
    if args.init_onnx is not None:
        load_onnx_weights(model, args.init_onnx)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"parameters: {n_params}", flush=True)
    before_figures = {}
    if args.init_onnx is not None:  # the starting model on the same held-out dice, for comparison
        start = DieReader(args.init_onnx)
        for name, (xt_, yt_, _flat) in tests.items():
            before_figures[name] = round(float((start.read_crops(xt_).value == yt_ + 1).mean()), 4)
        before_figures["real"] = round(float((start.read_crops(xh).value == yh + 1).mean()), 4)
        print(f"starting model on the held-out dice: {before_figures}", flush=True)
    t_train = time.time()
    run_epochs(model, xs, ys, args.synthetic_epochs, 3e-3, gen, "synthetic")
    rng = np.random.default_rng(SEED + 3)
    pick = rng.choice(len(xs), size=min(len(xs), args.synthetic_crops), replace=False)
    xm = np.concatenate([xsim, xr, xs[pick]])
    ym = np.concatenate([ysim, yr, ys[pick]])
    oriented = np.concatenate([np.ones(len(ysim), bool), np.zeros(len(yr) + len(pick), bool)])
    print(f"mixed set: {len(ysim)} simulator + {len(yr)} real + {len(pick)} synthetic crops", flush=True)
    run_epochs(model, xm, ym, args.epochs, args.lr, gen, "mixed", oriented, frozen_bn=args.init_onnx is not None,
               blur_share=args.blur, motion_share=args.motion_blur, motion_max=args.motion_max)
    train_seconds = time.time() - t_train

    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.from_numpy(to_tensor(xh[:2]))
    torch.onnx.export(model, (dummy,), str(args.out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    if args.crop == "top":  # the run time cuts the crops the model was trained on (vision.dice.DieReader)
        import onnx

        m = onnx.load(str(args.out))
        set_metadata(m, {"crop_kind": "top", "top_span": f"{TOP_SPAN}"})
        onnx.save(m, str(args.out))
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
    cm = np.zeros((6, 6), dtype=int)
    for t, p in zip(yh + 1, reader.read_crops(xh).value, strict=True):
        cm[t - 1, p - 1] += 1
    sim_figures = {}
    for name, (xt_, yt_, flat) in tests.items():
        pred = reader.read_crops(xt_).value
        ok = pred == yt_ + 1
        scm = np.zeros((6, 6), dtype=int)
        for t, p in zip(yt_ + 1, pred, strict=True):
            scm[t - 1, p - 1] += 1
        sim_figures[name] = {"dice": int(len(ok)), "accuracy_all": round(float(ok.mean()), 4),
                             "flat_dice": int(flat.sum()), "accuracy_flat": round(float(ok[flat].mean()), 4),
                             "other_dice": int((~flat).sum()),
                             "accuracy_other": round(float(ok[~flat].mean()), 4) if (~flat).any() else None,
                             "confusion_rows_true_cols_pred": scm.tolist()}
        print(f"held-out simulator {name}: {sim_figures[name]}", flush=True)
    metrics = {
        "seed": SEED,
        "parameters": n_params,
        "width": args.width,
        "onnx_bytes": args.out.stat().st_size,
        "crop_size": CROP_SIZE,
        "synthetic_crops": len(pick),
        "simulator_training_dice": sim_counts,
        "simulator_training_crops": len(ysim),
        "real_train_photos": len(train_photos),
        "real_train_dice": len(xr) // args.real_variants,
        "real_heldout_photos": len(held_photos),
        "real_heldout_dice": len(xh),
        "accuracy_heldout_real": held_acc,
        "accuracy_train_real": train_acc,
        "confusion_heldout_real_rows_true_cols_pred": cm.tolist(),
        "heldout_simulator": sim_figures,
        "heldout_before_training": before_figures,
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
