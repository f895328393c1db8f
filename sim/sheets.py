"""Contact sheets: one tile per die state (``die-states.png``) and per board style (``board-styles.png``).

Each die-state tile is a scene whose *physics* label is that state (constructed, settled, kept only
if physics agrees), seen close up from an oblique camera.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from sim.camera import Camera, look_at


def _closeup(target: np.ndarray, az: float, el: float, dist: float) -> Camera:
    heading = np.array([math.sin(az), math.cos(az), 0.0])
    eye = target + dist * (-math.cos(el) * heading + np.array([0, 0, math.sin(el)]))
    R = look_at(eye, target, heading)
    K = np.array([[1500.0, 0, 640], [0, 1500.0, 360], [0, 0, 1]])
    return Camera(K=K, dist=np.zeros(5), R=R, t=-R @ eye, elevation_deg=math.degrees(el), azimuth_deg=math.degrees(az))


def _label(img: np.ndarray, text: str, sub: str = "") -> np.ndarray:
    out = img.copy()
    cv2.rectangle(out, (0, 0), (out.shape[1], 44 if not sub else 70), (0, 0, 0), -1)
    cv2.putText(out, text, (10, 32), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2, cv2.LINE_AA)
    if sub:
        cv2.putText(out, sub, (10, 60), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (200, 200, 200), 1, cv2.LINE_AA)
    return out


def die_state_sheet(out: Path, seed: int = 0, tile: tuple[int, int] = (640, 400)) -> list[str]:
    import pybullet as pb

    from sim.dicestate import REASONS
    from sim.render import Renderer, sample_look
    from sim.scene import make_scene, scene_rng
    from sim.styles import style_names

    client = pb.connect(pb.DIRECT)
    renderer = Renderer()
    tiles = []
    notes = []
    target_for = {r: r for r in REASONS}
    styles = style_names()
    for k, reason in enumerate(REASONS):
        found = None
        for i in range(400):
            rng = scene_rng(seed + 1000 * (k + 1), i)
            sc = make_scene(rng, client=client, target=target_for[reason])
            if sc.dice_labels[0].reason == reason:
                found = (sc, rng)
                break
        if found is None:
            notes.append(f"{reason}: not produced in 400 tries")
            continue
        sc, rng = found
        look = sample_look(sc.world, __import__("sim.styles", fromlist=["get_style"]).get_style(
            styles[k % len(styles)]), rng, (0, 0), hands=0)
        look.translucent = k % 3 == 2
        scene = renderer.build(sc.world, look, rng)
        pos = sc.world.pose(sc.world.dice[0])[0]
        lab = sc.dice_labels[0]
        wide = reason in ("off_board", "wrong_side")
        az = math.radians(30.0 + 40 * (k % 3)) + (math.pi if pos[1] > 0 else 0.0)
        cam = _closeup(pos, az, math.radians(32.0), 60.0 if wide else 16.0)
        img, _depth, _ = renderer.render(scene, cam, rng, shadows=True)
        h, w = img.shape[:2]
        crop = img[(h - tile[1]) // 2:(h + tile[1]) // 2, (w - tile[0]) // 2:(w + tile[0]) // 2]
        sub = f"value {lab.value}, tilt {lab.tilt_deg:.0f} deg, base {lab.base_z * 10:.1f} mm"
        if lab.leaning_on:
            sub += f", on {'/'.join(lab.leaning_on)}"
        tiles.append(_label(cv2.cvtColor(crop, cv2.COLOR_RGB2BGR), f"{reason} ({'valid' if lab.valid else 'invalid'})",
                            sub))
    renderer.close()
    pb.disconnect(client)
    _grid(tiles, 4, out)
    return notes


def board_style_sheet(out: Path, seed: int = 0) -> None:
    import pybullet as pb

    from sim.camera import distort, sample_camera
    from sim.render import Renderer, sample_look
    from sim.scene import make_scene, scene_rng
    from sim.styles import get_style, style_names

    client = pb.connect(pb.DIRECT)
    renderer = Renderer()
    tiles = []
    for k, name in enumerate(style_names()):
        rng = scene_rng(seed + 77, k)
        sc = make_scene(rng, client=client, target="throw")
        look = sample_look(sc.world, get_style(name), rng, (0, 1), hands=k % 2)
        scene = renderer.build(sc.world, look, rng)
        cam = sample_camera(sc.world.spec, rng, elevation=40.0 + 50.0 * (k % 3) / 2)
        img, _d, _ = renderer.render(scene, cam, rng, shadows=True)
        img = distort(img, cam)
        small = cv2.resize(cv2.cvtColor(img, cv2.COLOR_RGB2BGR), (640, 360), interpolation=cv2.INTER_AREA)
        tiles.append(_label(small, name, f"{look.style.material}, elevation {cam.elevation_deg:.0f} deg"))
    renderer.close()
    pb.disconnect(client)
    _grid(tiles, 3, out)


def video_sheet(video_dir: Path, out: Path, throw: int = 2) -> list[int]:
    """Stills from a ``sim video`` output: the ``throw``-th throw while it tumbles and once at rest,
    and a hand coming in, lifting and carrying a checker. Each tile is labelled with its frame, time
    and ground truth. Returns the frame numbers used."""
    import json

    recs = [json.loads(line) for line in (video_dir / "states.jsonl").read_text().splitlines()]
    states = [r for r in recs if r.get("type") == "table_state"]
    summary = json.loads((video_dir / "summary.json").read_text())
    rolling_runs: list[list[int]] = []
    for s in states:
        if any(d.get("state") == "rolling" for d in s["dice"]):
            if rolling_runs and rolling_runs[-1][-1] == s["frame"] - 1:
                rolling_runs[-1].append(s["frame"])
            else:
                rolling_runs.append([s["frame"]])
    if not rolling_runs:
        raise RuntimeError(f"{video_dir}: no rolling dice in the ground truth")
    def near_mover(r: list[int]) -> bool:
        nxt = next((s for s in states if s["frame"] > r[-1] and s.get("in_hand")), None)
        return nxt is not None and any(h.get("side") == "near" for h in nxt.get("hands", []))

    # the throw-th throw, or the first later one that the near player (facing the camera) rolls
    later = [r for r in rolling_runs[min(throw, len(rolling_runs)) - 1:] if near_mover(r)]
    run = later[0] if later else rolling_runs[min(throw, len(rolling_runs)) - 1]
    step = max(1, len(run) // 3)
    picks = [run[0], run[min(step, len(run) - 1)], run[min(2 * step, len(run) - 1)], run[-1] + 3]
    after = [s["frame"] for s in states if s["frame"] > run[-1] and s.get("in_hand")]
    if after:
        lift = after[0]
        picks += [max(run[-1] + 4, lift - 4), lift + 3, lift + 8]
    cap = cv2.VideoCapture(str(video_dir / summary["video"]))
    frames: dict[int, np.ndarray] = {}
    k = 0
    while len(frames) < len(picks):
        ok, img = cap.read()
        if not ok:
            break
        if k in picks:
            frames[k] = img
        k += 1
    cap.release()
    rest_px = [d["center_px"] for d in states[min(run[-1] + 3, len(states) - 1)]["dice"] if "center_px" in d]
    tiles = []
    for f in picks:
        if f not in frames:
            continue
        s = states[f]
        px = [d["center_px"] for d in s["dice"] if "center_px" in d and d["state"] == "rolling"] or rest_px
        if f <= run[-1] + 3 and px:  # the throw: 2x closer, around the dice
            cx, cy = np.mean(np.array(px), axis=0)
            h, w = frames[f].shape[:2]
            x0 = int(np.clip(cx - w / 4, 0, w / 2))
            y0 = int(np.clip(cy - h / 4, 0, h / 2))
            frames[f] = frames[f][y0:y0 + h // 2, x0:x0 + w // 2]
        dice = ", ".join(f"{d['state']}" + (f" {d.get('value')} {d.get('reason')}" if d["state"] == "at_rest" else "")
                         for d in s["dice"] if d["state"] in ("rolling", "at_rest"))
        hands = ", ".join(f"{h['side']} hand over {h['over']}" for h in s.get("hands", []))
        small = cv2.resize(frames[f], (640, 360), interpolation=cv2.INTER_AREA)
        if f <= run[-1] + 3 and px:
            dice = f"(2x, around the dice) {dice}"
        tiles.append(_label(small, f"frame {f}, t {s['t']:.1f} s", "; ".join(x for x in (dice, hands) if x)))
    _grid(tiles, 3 if len(tiles) > 4 else 2, out)
    return [f for f in picks if f in frames]


def _grid(tiles: list[np.ndarray], cols: int, out: Path) -> None:
    if not tiles:
        raise RuntimeError("no tiles to put on the sheet")
    h, w = tiles[0].shape[:2]
    rows = math.ceil(len(tiles) / cols)
    sheet = np.full((rows * h + (rows - 1) * 4, cols * w + (cols - 1) * 4, 3), 255, np.uint8)
    for i, t in enumerate(tiles):
        r, c = divmod(i, cols)
        sheet[r * (h + 4):r * (h + 4) + h, c * (w + 4):c * (w + 4) + w] = t
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="gammonwatch sim sheets", description="contact sheets for die states and styles")
    ap.add_argument("--out", type=Path, default=Path("docs/contact-sheets"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--video", type=Path, default=None,
                    help="a 'sim video' output directory: write OUT/video-throw-and-hand.png from it instead")
    a = ap.parse_args(argv)
    if a.video is not None:
        used = video_sheet(a.video, a.out / "video-throw-and-hand.png")
        print(f"wrote {a.out / 'video-throw-and-hand.png'} (frames {used})")
        return 0
    notes = die_state_sheet(a.out / "die-states.png", a.seed)
    for n in notes:
        print(n, file=sys.stderr)
    board_style_sheet(a.out / "board-styles.png", a.seed)
    print(f"wrote {a.out / 'die-states.png'} and {a.out / 'board-styles.png'}")
    return 0
