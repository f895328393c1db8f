"""Per-frame labels: the table state (the referee's schema), 2D boxes and keypoints per object,
board corners, camera, and each die's physical state with its reason."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sim.camera import Camera, canvas_for
from sim.physics import die_corners, quat_matrix
from sim.render import SceneLook
from sim.scene import Scene

TABLE_STATE_VERSION = 1


def _box(px: np.ndarray, cam: Camera) -> tuple[list[float] | None, bool]:
    """Clipped xyxy box of projected points; None when wholly outside the frame."""
    x0, y0 = float(px[:, 0].min()), float(px[:, 1].min())
    x1, y1 = float(px[:, 0].max()), float(px[:, 1].max())
    inside = x1 >= 0 and y1 >= 0 and x0 <= cam.width - 1 and y0 <= cam.height - 1
    if not inside:
        return None, False
    full = x0 >= 0 and y0 >= 0 and x1 <= cam.width - 1 and y1 <= cam.height - 1
    clip = [max(0.0, x0), max(0.0, y0), min(cam.width - 1.0, x1), min(cam.height - 1.0, y1)]
    return [round(v, 2) for v in clip], full


def visible_fraction(points: np.ndarray, normals: np.ndarray, cam: Camera, depth: np.ndarray) -> float:
    """Share of an object's camera-facing surface samples not hidden by something else (from the
    renderer's depth buffer on the pinhole canvas)."""
    _mx, _my, cw, ch, px, py = canvas_for(cam)
    to_cam = cam.position[None, :] - points
    facing = np.einsum("ij,ij->i", to_cam, normals) > 0
    pts = points[facing]
    if len(pts) == 0:
        return 0.0
    c = pts @ cam.R.T + cam.t
    z = c[:, 2]
    u = cam.K[0, 0] * c[:, 0] / z + cam.K[0, 2] + px
    v = cam.K[1, 1] * c[:, 1] / z + cam.K[1, 2] + py
    ui, vi = np.round(u).astype(int), np.round(v).astype(int)
    ok = (ui >= 0) & (vi >= 0) & (ui < cw) & (vi < ch) & (z > 0)
    if not np.any(ok):
        return 0.0
    d = depth[vi[ok], ui[ok]]
    seen = (d > 0) & (d >= z[ok] - 0.25 - 0.004 * z[ok])
    return float(seen.sum()) / len(pts)


def _cube_samples(centre: np.ndarray, m: np.ndarray, size: float, n: int = 4) -> tuple[np.ndarray, np.ndarray]:
    g = (np.arange(n) + 0.5) / n * 2 - 1
    pts, nrm = [], []
    for axis in range(3):
        for sign in (-1, 1):
            a1, a2 = [i for i in range(3) if i != axis]
            for u in g:
                for v in g:
                    loc = np.zeros(3)
                    loc[axis] = sign * size / 2
                    loc[a1], loc[a2] = u * size / 2 * 0.9, v * size / 2 * 0.9
                    nl = np.zeros(3)
                    nl[axis] = sign
                    pts.append(m @ loc + centre)
                    nrm.append(m @ nl)
    return np.array(pts), np.array(nrm)


def _checker_samples(centre: np.ndarray, m: np.ndarray, r: float, h: float) -> tuple[np.ndarray, np.ndarray]:
    pts, nrm = [], []
    for rr in (0.0, 0.45 * r, 0.85 * r):
        k = 1 if rr == 0 else 8
        for j in range(k):
            a = 2 * math.pi * j / k
            pts.append(m @ np.array([rr * math.cos(a), rr * math.sin(a), h / 2]) + centre)
            nrm.append(m[:, 2])
    for j in range(16):
        a = 2 * math.pi * j / 16
        pts.append(m @ np.array([r * math.cos(a), r * math.sin(a), 0.0]) + centre)
        nrm.append(m @ np.array([math.cos(a), math.sin(a), 0.0]))
    return np.array(pts), np.array(nrm)


def frame_labels(scene: Scene, look: SceneLook, cam: Camera, depth: np.ndarray, frame: int, t: float = 0.0
                 ) -> dict[str, Any]:
    world = scene.world
    spec = world.spec
    objects: list[dict[str, Any]] = []
    dice_ts: list[dict[str, Any]] = []
    for k, (uid, lab) in enumerate(zip(world.dice, scene.dice_labels, strict=True)):
        pos, q = world.pose(uid)
        m = quat_matrix(q)
        corners = die_corners(spec, pos, q)
        px = cam.project(corners)
        box, full = _box(px, cam)
        centre_px = cam.project(pos[None])[0]
        top_idx = int(np.argmax(m[2, :] * np.sign(m[2, :])))
        top_normal = m[:, top_idx] * np.sign(m[2, top_idx])
        top_px = cam.project((pos + top_normal * spec.die / 2)[None])[0]
        pts, nrm = _cube_samples(pos, m, spec.die)
        vis = visible_fraction(pts, nrm, cam, depth)
        owner = None
        colour = world.bodies[uid].colour
        if colour in (0, 1):
            owner = "light" if colour == 0 else "dark"
        objects.append({
            "kind": "die", "id": k, "value": lab.value, "reason": lab.reason, "valid": lab.valid,
            "box_xyxy": box, "fully_in_frame": full, "center_px": np.round(centre_px, 2).tolist(),
            "top_center_px": np.round(top_px, 2).tolist(), "corners_px": np.round(px, 2).tolist(),
            "visible_frac": round(vis, 3), "owner": owner, "rgb": list(look.dice_rgb[k]),
            "translucent": look.translucent, "size_cm": round(spec.die, 3),
            "pose": {"position_cm": np.round(pos, 4).tolist(), "quat_xyzw": np.round(q, 6).tolist()},
            "physical": lab.to_json(),
        })
        d: dict[str, Any] = {"value": lab.value, "state": "at_rest", "valid": lab.valid, "reason": lab.reason,
                             "id": k, "center_px": [round(float(centre_px[0]), 2), round(float(centre_px[1]), 2)]}
        if lab.half is not None:
            d["half"] = lab.half
        if owner is not None:
            d["owner"] = owner
        dice_ts.append(d)
    for uid in world.checkers:
        body = world.bodies[uid]
        pos, q = world.pose(uid)
        m = quat_matrix(q)
        ring = np.array([[spec.checker_d / 2 * math.cos(a), spec.checker_d / 2 * math.sin(a), z]
                         for a in np.linspace(0, 2 * math.pi, 16, endpoint=False)
                         for z in (-spec.checker_h / 2, spec.checker_h / 2)])
        px = cam.project(ring @ m.T + pos)
        box, full = _box(px, cam)
        pts, nrm = _checker_samples(pos, m, spec.checker_d / 2, spec.checker_h)
        objects.append({
            "kind": "checker", "colour": "light" if body.colour == 0 else "dark", "place": body.place,
            "layer": body.layer, "box_xyxy": box, "fully_in_frame": full,
            "top_center_px": np.round(cam.project((pos + m[:, 2] * spec.checker_h / 2)[None])[0], 2).tolist(),
            "visible_frac": round(visible_fraction(pts, nrm, cam, depth), 3),
            "position_cm": np.round(pos, 3).tolist(),
        })
    cube_ts: dict[str, Any] = {"value": scene.cube_value, "zone": scene.cube_zone}
    if world.cube is not None:
        pos, q = world.pose(world.cube)
        m = quat_matrix(q)
        px = cam.project(die_corners(spec, pos, q, spec.cube))
        box, full = _box(px, cam)
        pts, nrm = _cube_samples(pos, m, spec.cube)
        objects.append({"kind": "cube", "value": scene.cube_value, "zone": scene.cube_zone, "box_xyxy": box,
                        "fully_in_frame": full, "center_px": np.round(cam.project(pos[None])[0], 2).tolist(),
                        "visible_frac": round(visible_fraction(pts, nrm, cam, depth), 3)})
    hands_ts = []
    for hand in look.hands:
        px = cam.project(hand.points())
        box, full = _box(px, cam)
        objects.append({"kind": "hand", "side": hand.side, "over": hand.over, "box_xyxy": box,
                        "fully_in_frame": full})
        if box is not None:
            hands_ts.append({"side": hand.side, "over": hand.over, "touching": False})
    bc = spec.corners()
    c4 = cam.project(np.array(bc["corners4"]))
    c8 = cam.project(np.array(bc["corners8"]))
    tips = cam.project(np.array([[*spec.point_triangle(p)[2], 0.0] for p in range(1, 25)]))

    def in_frame(px: np.ndarray) -> list[bool]:
        return [bool(0 <= u < cam.width and 0 <= v < cam.height) for u, v in px]

    table_state: dict[str, Any] = {
        "type": "table_state", "version": TABLE_STATE_VERSION, "frame": frame, "t": round(t, 4),
        "points": [{"point": i + 1, "light": a, "dark": b} for i, (a, b) in enumerate(scene.layout.points)],
        "bar": {"light": scene.layout.bar[0], "dark": scene.layout.bar[1]},
        "off": {"light": scene.layout.off[0], "dark": scene.layout.off[1]},
        "dice": dice_ts,
        "cube": None if scene.cube_zone == "absent" else cube_ts,
        "source": "sim",
    }
    if hands_ts:
        table_state["hands"] = hands_ts
    if scene.cube_zone == "absent":
        del table_state["cube"]
    return {
        "table_state": table_state,
        "objects": objects,
        "board": {
            "corners4_px": np.round(c4, 2).tolist(), "corners4_in_frame": in_frame(c4),
            "corners8_px": np.round(c8, 2).tolist(), "corners8_in_frame": in_frame(c8),
            "corners4_world_cm": bc["corners4"], "corners8_world_cm": bc["corners8"],
            "point_tips_px": np.round(tips, 2).tolist(),
            "order": "corners4: 1 near-right, 2 near-left, 3 far-left, 4 far-right of the playing surface; "
                     "corners8: the right half's four then the left half's four, same order",
        },
        "camera": cam.to_json(),
        "table_cm": spec.to_json(),
        "look": look.to_json(),
        "scene": {"roller": scene.roller, "rolled_half": scene.rolled_half, "target": scene.target,
                  "settled": scene.settled, **scene.params},
    }
