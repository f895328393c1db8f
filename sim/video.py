"""``gammonwatch sim video (--match FILE.mat | --random) --out DIR``: a scripted match, rendered.

The table states come from the referee engineer's script (:func:`sim.script.script_match`), the one
scripting path; this module only makes them physical and visible: each distinct table state is
built in pybullet (checkers from its counts, dice placed by their reason and settled, the cube in
its zone, hand proxies over what changed), rendered from one fixed camera, and held until the next
state. Dice at rest carry the label physics gives them, which is what the ground-truth stream says.

Output::

    DIR/video.mp4         the camera (or video.avi, MJPG, if no MP4 encoder is available)
    DIR/states.jsonl      ground truth per video frame: the match_setup record, then one table_state
                          per frame (frame, t in video time) and the script's other records in order
    DIR/camera.json       the fixed camera (intrinsics, distortion, pose) and the board corners in pixels
    DIR/summary.json      frames, states, dice whose physics label differs from the script's

Streaming API (what ``gammonwatch demo`` consumes in-process; ``sim video`` writes the same frames
to files)::

    iter_frames(match: MatMatch | None = None, *, seed: int = 0, fps: float = 10.0,
                max_seconds: float = 120.0, style: str | None = None, inject: Sequence[str] = (),
                inject_at: int = 3, elevation: float | None = None, shadows: bool = False,
                motion_every: int = 3, options: ScriptOptions | None = None,
                on_record: Callable[[dict], None] | None = None,
                info: dict | None = None) -> Iterator[tuple[int, float, np.ndarray, dict | None]]

    for frame_id, t, bgr, state in iter_frames(match, seed=1, on_record=referee_feed, info=info): ...

yields (frame_id, t = frame_id / fps, BGR uint8 1280 x 720 image, the frame's ground-truth
``table_state`` dict or None) as each frame is rendered; the ``match_setup`` and ``announce``
records go to ``on_record`` at their moment (match_setup before frame 0); ``info["camera"]`` (the
camera.json content) is set before frame 0 and ``info["summary"]`` after the last frame.

Injected irregularities (``--inject``, at the ``--inject-at``-th roll or turn, default 3):
``cocked_roll`` (the first die comes to rest balanced on an edge or corner and the script plays on),
``illegal_move`` (the transcript's play is changed into an illegal one, laid out literally),
``premature_roll``, ``premature_grab`` and ``double_after_roll`` (woven into the script with its own
primitives, :func:`irregular_script`), and ``crawford_double`` (use ``--from-game`` to start at the
Crawford game).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

INJECTIONS = ("cocked_roll", "illegal_move", "premature_roll", "premature_grab", "double_after_roll",
              "crawford_double")
NOT_YET: tuple[str, ...] = ()
PARK_X, PARK_Y = 100.0, 100.0  # where dice in a cup or a hand wait (on the table, out of view)
TURN_LEVEL = ("premature_roll", "premature_grab", "double_after_roll", "crawford_double")


def irregular_script(match: Any, options: Any, inject: list[str], at: int, seed: int = 0) -> Iterator[Any]:
    """The referee engineer's script with turn-level irregularities woven in, using its own
    primitives (throw, hand, snap, end_turn):

    - ``premature_roll``: at the ``at``-th end of turn the opponent rolls (the transcript's next
      roll) before the clock is pressed (RG19 4.1.8.1; picking up the shared dice early is also a
      premature grab); the roll is let stand and the transcript goes on;
    - ``premature_grab``: at the ``at``-th end of turn the opponent's hand takes the shared dice
      before the clock is pressed (RG19 4.1.8.2);
    - ``double_after_roll``: after the ``at``-th (non-opening) roll the roller puts the cube on the
      board, then takes it back (RG19 4.4.2: a double after rolling is void);
    - ``crawford_double``: in the Crawford game, before his first (non-opening) roll, the player on
      roll offers the cube, then takes it back (RG19 4.4.7: void).
    """
    from rules.matfile import EntryKind
    from sim.script import MatchScript

    del seed
    rolls = [e for g in match.games for e in g.entries if e.kind is EntryKind.ROLL]

    class Irregular(MatchScript):
        turns = 0
        throws = 0
        calls = 0  # throw() calls so far = index of the next roll entry
        early = False
        crawford_done = False

        def offer_and_withdraw(self, player: int, offered: Callable[[int], int]) -> Iterator[Any]:
            """The player puts the cube on the playing surface showing ``offered(current value)``,
            lets go, then puts it back where it was (the act of doubling, later taken back)."""
            old = dict(self.table.cube) if self.table.cube else None
            self.hand(player, "cube")
            yield self.snap()
            self.table.cube = {"value": offered(int((old or {}).get("value", 1))), "zone": "board"}
            yield self.snap()
            self.no_hands()
            yield self.snap(0.8)
            self.hand(player, "cube")
            self.table.cube = old
            yield self.snap()
            self.no_hands()
            yield self.snap()

        def end_turn(self, player: int) -> Iterator[Any]:
            self.turns += 1
            if self.turns == at:
                if "premature_grab" in inject:
                    self.hand(1 - player, "dice")
                    yield self.snap()
                    self.no_hands()
                    yield self.snap()
                nxt = rolls[self.calls] if self.calls < len(rolls) else None
                if "premature_roll" in inject and nxt is not None and int(nxt.player) == 1 - player:
                    assert nxt.dice is not None
                    yield from MatchScript.throw(self, 1 - player, nxt.dice)
                    self.early = True
            yield from super().end_turn(player)

        def throw(self, player: int, values: tuple[int, int], opening: bool = False, *args: Any,
                  **kwargs: Any) -> Iterator[Any]:
            self.calls += 1
            if "crawford_double" in inject and not opening and not self.crawford_done and self.mstate.crawford:
                self.crawford_done = True
                yield from self.offer_and_withdraw(player, lambda _: 2)
            if self.early:  # the early roll stands: the dice are already at rest
                self.early = False
                yield self.snap()
                return
            yield from super().throw(player, values, opening, *args, **kwargs)
            if opening:
                return
            self.throws += 1
            if "double_after_roll" in inject and self.throws == at:
                yield from self.offer_and_withdraw(player, lambda value: max(2, value * 2))

    return Irregular(match, options).steps()


def inject_illegal_move(match: Any, n: int) -> tuple[Any, str]:
    """The transcript with the ``n``-th play of game 1 made illegal (one checker moved one pip too
    far, or too short); the script lays it out literally, as a player would. Returns (match, what)."""
    from dataclasses import replace

    from rules.errors import IllegalPlayError, InvalidPlayError
    from rules.matfile import EntryKind
    from rules.play import Play, Step
    from rules.position import Position

    game = match.games[0]
    entries = list(game.entries)
    rolls = [i for i, e in enumerate(entries) if e.kind is EntryKind.ROLL and e.play is not None]
    if not rolls:
        raise ValueError("the transcript has no played roll to make illegal")
    pos = Position.start(turn=int(entries[rolls[0]].player))
    count = 0
    for i in rolls:
        e = entries[i]
        if count + 1 >= n and len(e.play.steps) > 0:
            for delta in (1, -1, 2, -2):
                steps = list(e.play.steps)
                s0 = steps[0]
                dst = s0.dst - delta
                if not 0 < dst < s0.src:
                    continue
                try:
                    bad = Play([Step(s0.src, dst)] + [Step(s.src, s.dst) for s in steps[1:]])
                    pos.apply(bad, e.dice)
                except IllegalPlayError:
                    entries[i] = replace(e, play=bad, text=f"{e.dice[0]}{e.dice[1]}: {bad}")
                    games = (replace(game, entries=tuple(entries)), *match.games[1:])
                    return replace(match, games=games), f"roll {count + 1}: {e.play} -> {bad} (illegal)"
                except (InvalidPlayError, ValueError):
                    continue
        try:
            pos = pos.apply(e.play, e.dice)
        except (IllegalPlayError, InvalidPlayError):
            break
        count += 1
    raise ValueError(f"could not make play {n} of the transcript illegal")


def random_match(rng: np.random.Generator, length: int = 1) -> Any:
    """One random legal game from the rules engine, as a parsed transcript (``rules.matfile.MatMatch``)."""
    from rules.match import Player
    from rules.matfile import EntryKind, MatEntry, MatGame, MatMatch
    from rules.position import Position
    from rules.scoring import game_winner, result_kind

    while True:
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        if dice[0] != dice[1]:
            break
    first = 0 if dice[0] > dice[1] else 1
    pos = Position.start(turn=first)
    entries: list[MatEntry] = []
    k = 0
    while True:
        player = pos.turn
        plays = list(pos.legal_plays(dice))
        play = plays[int(rng.integers(len(plays)))]
        entries.append(MatEntry(EntryKind.ROLL, Player(player), k // 2 + 1, k + 4, dice, play,
                                f"{dice[0]}{dice[1]}: {play}"))
        pos = pos.apply(play, dice)
        k += 1
        w = game_winner(pos)
        if w is not None:
            pts = int(result_kind(pos, w).value)
            entries.append(MatEntry(EntryKind.WIN, Player(w), None, k + 4, value=pts, and_match=pts >= length,
                                    text=f"Wins {pts} point"))
            break
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    game = MatGame(1, 3, (0, 0), tuple(entries))
    return MatMatch(length=length, players=("light", "dark"), games=(game,), source="<random>")


def _layout(rec: dict[str, Any]) -> Any:
    from sim.layout import TableLayout

    pts = tuple((int(p["light"]), int(p["dark"])) for p in rec["points"])
    bar = (int(rec.get("bar", {}).get("light", 0)), int(rec.get("bar", {}).get("dark", 0)))
    off = (int(rec.get("off", {}).get("light", 0)), int(rec.get("off", {}).get("dark", 0)))
    return TableLayout(points=pts, bar=bar, off=off, mixed_ok=True)


def _die_key(d: dict[str, Any]) -> tuple[Any, ...]:
    return (d.get("id"), d.get("value"), d.get("state"), d.get("reason"), d.get("half"))


class StateRenderer:
    """Turns table-state records into images from one camera, keeping dice still between states."""

    def __init__(self, seed: int, style: str | None, elevation: float | None, shadows: bool = False) -> None:
        import pybullet as pb

        from sim.camera import sample_camera
        from sim.render import Renderer
        from sim.styles import get_style, style_names
        from sim.table import TableSpec

        self.pb = pb
        self.client = pb.connect(pb.DIRECT)
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 0xF11]))
        self.spec = TableSpec.sample(self.rng)
        names = style_names()
        self.style = get_style(style or names[int(self.rng.integers(len(names)))])
        self.cam = sample_camera(self.spec, self.rng, elevation=elevation if elevation is not None else 55.0,
                                 azimuth=float(self.rng.normal(0, 5)), fill=0.97)
        self.renderer = Renderer()
        self.seed = seed
        self.dice_poses: dict[tuple[Any, ...], tuple[np.ndarray, tuple[float, ...], dict[str, Any]]] = {}
        self.prev_layout: Any = None
        self.translucent = bool(self.rng.random() < 0.3)
        self.static: Any = None
        self.meshes: dict[tuple[object, ...], Any] = {}
        self.hand_meshes: dict[str, Any] = {}
        self.shadows = shadows
        self.mismatches = 0  # constructions that did not hold (fell back to a flat die)
        self.value_changed = 0  # dice whose physics value still differs from the script's

    def close(self) -> None:
        self.renderer.close()
        self.pb.disconnect(self.client)

    def frame(self, rec: dict[str, Any], force_reason: dict[int, str] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Image (RGB) and the record as physics made it (dice labels, pixel centres)."""
        from sim.camera import distort, effects
        from sim.dicestate import physics_label, place_die
        from sim.physics import World, quat_for_top
        from sim.render import SceneLook, _pips_for

        layout = _layout(rec)
        cube = rec.get("cube") or {"zone": "absent", "value": 64}
        zone = str(cube.get("zone", "absent"))
        value = int(cube.get("value", 64))
        value = 64 if value == 1 else value
        zrng = np.random.default_rng(np.random.SeedSequence([self.seed, sum(map(ord, zone))]))
        dice_recs = [dict(d) for d in rec.get("dice", [])][:2]
        owners = [d.get("owner") for d in dice_recs]
        colours = tuple(0 if o == "light" else 1 if o == "dark" else 2 for o in owners + [None] * (2 - len(owners)))
        world = World.build(self.spec, layout, client=self.client, die_friction=0.35, cube_zone=zone,
                            cube_value=value, dice_colours=(colours[0], colours[1]), rng=zrng)
        out = dict(rec)
        out_dice = []
        for k, d in enumerate(dice_recs):
            uid = world.dice[k]
            state = d.get("state")
            half = d.get("half") or "right"
            reason = (force_reason or {}).get(k, d.get("reason") or "flat_board")
            if state == "rolling":
                x0, x1, y0, y1 = self.spec.half_rect(half)
                pos = (float(self.rng.uniform(x0 + 3, x1 - 3)), float(self.rng.uniform(y0 + 4, y1 - 4)),
                       float(self.rng.uniform(2.0, 6.0)))
                q = tuple(self.pb.getQuaternionFromEuler(list(self.rng.uniform(-math.pi, math.pi, 3))))
                world.set_pose(uid, pos, q)
            elif state == "at_rest" and d.get("value"):
                key = (*_die_key(d), reason)
                if key in self.dice_poses:
                    pos0, q0, lab = self.dice_poses[key]
                    world.set_pose(uid, pos0, q0)
                    d.update(lab)
                else:
                    want = int(d["value"])
                    lab = {}
                    for _attempt in range(16 if force_reason else 6):
                        if reason == "flat_board":
                            x, y = self._free_spot(world, half, [world.dice[j] for j in range(k)])
                            world.set_pose(uid, (x, y, self.spec.die / 2 + 0.01),
                                           quat_for_top(want, float(self.rng.uniform(-math.pi, math.pi))))
                        else:
                            place_die(world, uid, reason, half, self.rng, value=want)
                        world.settle(max_time=2.0)
                        pl = physics_label(world, uid, half)
                        # a cocked die shows no clear value: its reason is what counts
                        if pl.reason == reason and (pl.value == want or reason == "cocked"):
                            break
                    else:
                        # the construction did not hold: the die lies flat with the scripted value
                        self.mismatches += 1
                        x, y = self._free_spot(world, half, [world.dice[j] for j in range(k)])
                        world.set_pose(uid, (x, y, self.spec.die / 2 + 0.01),
                                       quat_for_top(want, float(self.rng.uniform(-math.pi, math.pi))))
                        world.settle(max_time=2.0)
                        pl = physics_label(world, uid, half)
                    lab = {"value": pl.value, "reason": pl.reason, "valid": pl.valid}
                    if pl.half is not None:
                        lab["half"] = pl.half
                    if pl.value != want and pl.reason != "cocked":
                        self.value_changed += 1
                    p, q = world.pose(uid)
                    self.dice_poses[key] = (p, q, lab)
                    d.update(lab)
            else:
                # in the cup or lifted: parked at rest on the table, far outside the view
                world.set_pose(uid, (PARK_X + 5 * k, PARK_Y, -self.spec.base + self.spec.die / 2 + 0.001),
                               quat_for_top(1, 0.0))
            if world.pose(uid)[0][0] < PARK_X - 10:
                px = self.cam.project(world.pose(uid)[0][None])[0]
                d["center_px"] = [round(float(px[0]), 2), round(float(px[1]), 2)]
            out_dice.append(d)
        out["dice"] = out_dice
        world.sleep_resting()
        dice_rgb = []
        for c in colours[:2]:
            dice_rgb.append(self.style.dice_shared if c == 2 else self.style.dice_light if c == 0 else self.style.dice_dark)
        look = SceneLook(self.style, False, dice_rgb, [_pips_for(c) for c in dice_rgb], (120, 84, 52))
        look.hands = self._hands(world, rec, layout)
        if self.static is None:  # the table, board, rails and bar are built once
            self.static = self.renderer.build_static(world, look, np.random.default_rng(self.seed))
        nodes = self.renderer.add_dynamic(self.static, world, look, self.meshes)
        try:
            canvas, _depth, _ = self.renderer.render(self.static, self.cam, np.random.default_rng(self.seed + 1),
                                                     shadows=self.shadows)
        finally:
            for n in nodes:
                self.static.remove_node(n)
        img = distort(canvas, self.cam)
        img, _fx = effects(img, np.random.default_rng(self.seed + 2))
        self.prev_layout = layout
        return img, out

    def _free_spot(self, world: Any, half: str, others: list[int]) -> tuple[float, float]:
        from sim.dicestate import _free_spot

        for _ in range(30):
            x, y = _free_spot(world, half, self.rng, self.spec.die)
            if all(np.hypot(x - world.pose(o)[0][0], y - world.pose(o)[0][1]) > 2.5 * self.spec.die for o in others):
                return x, y
        return x, y

    def _hands(self, world: Any, rec: dict[str, Any], layout: Any) -> list[Any]:
        import trimesh

        from sim.meshes import hand_mesh
        from sim.render import SKIN, Hand

        hands: list[Hand] = []
        for h in rec.get("hands", []):
            side = h.get("side", "near")
            over = h.get("over", "board")
            target = np.array([0.0, 0.0])
            if over == "dice" and world.dice:
                target = np.mean([world.pose(d)[0][:2] for d in world.dice if world.pose(d)[0][0] < PARK_X - 10] or
                                 [np.zeros(2)], axis=0)
            elif over == "checkers" and self.prev_layout is not None:
                changed = [i for i in range(24) if layout.points[i] != self.prev_layout.points[i]]
                if changed:
                    p = changed[0] + 1
                    target = np.array([self.spec.point_centre_x(p), self.spec.point_side(p) * self.spec.play_d / 4])
            elif over == "cube" and world.cube is not None:
                target = world.pose(world.cube)[0][:2]
            elif over == "clock":
                target = np.array([self.spec.x_max + 8.0, (-1 if side == "near" else 1) * 10.0])
            elif over == "bar":
                target = np.array([0.0, (-1 if side == "near" else 1) * 6.0])
            yaw = 0.0 if side == "near" else math.pi
            pose = trimesh.transformations.rotation_matrix(yaw, [0, 0, 1])
            # the palm centre sits ~4 cm behind the finger tips: put the tips over the target
            back = np.array([math.sin(yaw), -math.cos(yaw)]) * 7.0
            pose[:3, 3] = [target[0] + back[0], target[1] + back[1], 3.0 if h.get("touching") else 7.0]
            if side not in self.hand_meshes:
                self.hand_meshes[side] = hand_mesh(np.random.default_rng(self.seed + len(self.hand_meshes)), SKIN[1])
            hands.append(Hand(side, pose, self.hand_meshes[side], over))
        return hands


VideoFrame = tuple[int, float, np.ndarray, "dict[str, Any] | None"]
"""What :func:`iter_frames` yields: (frame_id, t in video seconds, BGR uint8 image 720 x 1280 x 3,
the ground-truth ``table_state`` record of that frame or None)."""


def iter_frames(match: Any = None, *, seed: int = 0, fps: float = 10.0, max_seconds: float = 120.0,
                style: str | None = None, inject: Sequence[str] = (), inject_at: int = 3,
                elevation: float | None = None, shadows: bool = False, motion_every: int = 3,
                options: Any = None, on_record: Callable[[dict[str, Any]], None] | None = None,
                info: dict[str, Any] | None = None) -> Iterator[VideoFrame]:
    """The scripted match as frames, lazily, in video order (the streaming API of ``sim video``).

    ``match``: a parsed transcript (``rules.matfile.MatMatch``), or None for a random legal game
    (:func:`random_match` from ``seed``). ``inject``: names from :data:`INJECTIONS` (``illegal_move``
    is applied to ``match`` here). ``motion_every``: render moving scenes (a rolling throw, a hand)
    every n-th video frame and repeat the last image in between; static holds are never re-rendered.
    ``options``: ``sim.script.ScriptOptions`` (seats, dice mode, end signal, timing).

    Yields (frame_id, t, image, state): frame_id counts from 0, t = frame_id / fps, image is BGR
    uint8, state is the ground-truth ``table_state`` dict of that frame (the dice as physics left
    them; the same dict ``sim video`` writes to states.jsonl), None only for a frame without ground
    truth (none today). Every other record of the stream (``match_setup`` first, ``announce``) is
    passed to ``on_record`` at its moment, before the frame it precedes. ``info``, when given, is
    filled before the first frame with ``camera`` (the camera.json content: intrinsics, distortion,
    pose, board corners in pixels) and after the last with ``summary``.
    Raises ValueError for an unknown injection or style (the message names it).
    """
    from sim.script import ScriptOptions, script_match
    from sim.styles import get_style

    for name in inject:
        if name not in INJECTIONS:
            raise ValueError(f"unknown irregularity {name!r}; use {', '.join(INJECTIONS)}")
    if style is not None:
        get_style(style)  # UnknownStyleError (a ValueError) names it
    if match is None:
        match = random_match(np.random.default_rng(np.random.SeedSequence([seed, 0xA11])))
    if "illegal_move" in inject:
        match, _what = inject_illegal_move(match, inject_at)
    opts = options if options is not None else ScriptOptions()
    turn_level = [n for n in inject if n in TURN_LEVEL]
    steps: Iterator[Any] = (irregular_script(match, opts, turn_level, inject_at, seed) if turn_level
                            else script_match(match, opts))
    yield from _frames_from_steps(steps, seed=seed, fps=fps, max_seconds=max_seconds, style=style,
                                  inject=list(inject), inject_at=inject_at, elevation=elevation, shadows=shadows,
                                  motion_every=motion_every, on_record=on_record, info=info)


def _camera_json(sr: StateRenderer) -> dict[str, Any]:
    cam = sr.cam
    corners = sr.spec.corners()
    return {"camera": cam.to_json(), "table_cm": sr.spec.to_json(), "style": sr.style.name,
            "corners4_px": np.round(cam.project(np.array(corners["corners4"])), 2).tolist(),
            "corners8_px": np.round(cam.project(np.array(corners["corners8"])), 2).tolist()}


def _frames_from_steps(steps: Iterable[Any], *, seed: int, fps: float, max_seconds: float, style: str | None,
                       inject: list[str], inject_at: int, elevation: float | None, shadows: bool,
                       motion_every: int, on_record: Callable[[dict[str, Any]], None] | None,
                       info: dict[str, Any] | None) -> Iterator[VideoFrame]:
    import cv2

    del motion_every
    records: list[tuple[float, dict[str, Any]]] = []
    for st in steps:
        if st.t > max_seconds:
            break
        records.append((float(st.t), st.record))
    states = [(t, r) for t, r in records if r.get("type") == "table_state"]
    others = [(t, r) for t, r in records if r.get("type") != "table_state"]
    if not states:
        raise ValueError("the script produced no table states")
    forced = _forced_reasons(states, inject, inject_at)
    sr = StateRenderer(seed, style, elevation, shadows)
    try:
        if info is not None:
            info["camera"] = _camera_json(sr)
        duration = min(max_seconds, states[-1][0] + 2.0)
        n_frames = int(duration * fps) + 1
        cur = -1
        h, w = sr.cam.height, sr.cam.width
        img: np.ndarray = np.zeros((h, w, 3), np.uint8)
        rec_out: dict[str, Any] = {}
        oi = 0
        for k in range(n_frames):
            t = k / fps
            idx = cur
            while idx + 1 < len(states) and states[idx + 1][0] <= t + 1e-9:
                idx += 1
            idx = max(idx, 0)
            if idx != cur:
                cur = idx
                rgb, rec_out = sr.frame(states[idx][1], forced.get(idx))
                img = np.asarray(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), dtype=np.uint8)
            while oi < len(others) and (others[oi][0] <= t + 1e-9 or k == 0 and others[oi][1].get("type") == "match_setup"):
                if on_record is not None:
                    on_record(dict(others[oi][1]))
                oi += 1
            yield k, round(t, 4), img, {**rec_out, "frame": k, "t": round(t, 4), "source": "sim.video"}
        if info is not None:
            info["summary"] = {"frames": n_frames, "fps": fps, "seconds": round(duration, 2),
                               "table_states": len(states), "dice_constructions_failed": sr.mismatches,
                               "dice_value_differs_from_script": sr.value_changed,
                               "injected": list(inject), "cocked_die_states": len(forced)}
    finally:
        sr.close()


def _forced_reasons(states: list[tuple[float, dict[str, Any]]], inject: list[str], inject_at: int
                    ) -> dict[int, dict[int, str]]:
    """Injected cocked roll: which state index gets which forced die reason."""
    forced: dict[int, dict[int, str]] = {}
    if "cocked_roll" not in inject:
        return forced
    rolls = 0
    prev_rest = False
    start = None
    for i, (_t, r) in enumerate(states):
        rest = any(d.get("state") == "at_rest" for d in r.get("dice", []))
        if rest and not prev_rest:
            rolls += 1
            if rolls == inject_at:
                start = i
        if start is not None and i >= start:
            if not rest:
                break
            forced[i] = {0: "cocked"}
        prev_rest = rest
    return forced


def write_video(frames: Iterable[VideoFrame], out: Path, *, fps: float, progress: bool = True,
                records: list[dict[str, Any]] | None = None) -> tuple[str, int]:
    """Write frames to ``out/video.mp4`` (MJPG ``video.avi`` if no MP4 encoder) and their states (and
    the pending ``records``, drained as they arrive) to ``out/states.jsonl``. Returns (video name, frames)."""
    import cv2

    out.mkdir(parents=True, exist_ok=True)
    writer: Any = None
    path = out / "video.mp4"
    n = 0
    pending = records if records is not None else []
    with open(out / "states.jsonl", "w", encoding="utf-8") as f:
        for k, _t, img, rec in frames:
            if writer is None:
                h, w = img.shape[:2]
                writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (w, h))
                if not writer.isOpened():
                    path = out / "video.avi"
                    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
            while pending:
                f.write(json.dumps(pending.pop(0), separators=(",", ":")) + "\n")
            writer.write(img)
            if rec is not None:
                f.write(json.dumps(rec, separators=(",", ":")) + "\n")
            f.flush()
            n += 1
            if progress:
                sys.stderr.write(f"\rvideo frames {k + 1}")
                sys.stderr.flush()
        while pending:
            f.write(json.dumps(pending.pop(0), separators=(",", ":")) + "\n")
    if writer is not None:
        writer.release()
    if progress:
        sys.stderr.write("\n")
    return path.name, n


def render_video(steps: Iterable[Any], out: Path, *, seed: int = 0, fps: float = 10.0, max_seconds: float = 120.0,
                 style: str | None = None, inject: list[str] | None = None, inject_at: int = 3,
                 elevation: float | None = None, progress: bool = True, shadows: bool = False,
                 motion_every: int = 3) -> dict[str, Any]:
    """Render script ``steps`` into ``out`` (video, states.jsonl, camera.json, summary.json)."""
    import time

    info: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    t0 = time.time()
    frames = _frames_from_steps(steps, seed=seed, fps=fps, max_seconds=max_seconds, style=style,
                                inject=list(inject or []), inject_at=inject_at, elevation=elevation,
                                shadows=shadows, motion_every=motion_every, on_record=records.append, info=info)
    name, _n = write_video(frames, out, fps=fps, progress=progress, records=records)
    (out / "camera.json").write_text(json.dumps(info["camera"], indent=1))
    summary = {"video": name, **info["summary"], "wall_s": round(time.time() - t0, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="gammonwatch sim video", description="a scripted match as video + ground truth")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--match", type=Path, help="a .mat transcript")
    src.add_argument("--random", action="store_true", help="a random legal game from the rules engine")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    ap.add_argument("--style", default=None)
    ap.add_argument("--elevation", type=float, default=None)
    ap.add_argument("--inject", action="append", default=[], help=f"irregularity: {', '.join(INJECTIONS)}")
    ap.add_argument("--inject-at", type=int, default=3, help="which roll gets the injected irregularity")
    ap.add_argument("--from-game", type=int, default=1, help="start at this game of the transcript (e.g. the Crawford game)")
    ap.add_argument("--shadows", action="store_true", help="render shadows (about 3x slower)")
    ap.add_argument("--motion-every", type=int, default=3,
                    help="render moving scenes (throws, hands) every n-th frame, repeat the image in between")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    for name in a.inject:
        if name in NOT_YET:
            print(f"gammonwatch sim video: --inject {name} is not available yet (only {', '.join(INJECTIONS)})",
                  file=sys.stderr)
            return 2
        if name not in INJECTIONS:
            print(f"gammonwatch sim video: unknown irregularity {name!r}; use {', '.join(INJECTIONS)}", file=sys.stderr)
            return 2
    if a.style is not None:
        from sim.styles import UnknownStyleError, get_style

        try:
            get_style(a.style)
        except UnknownStyleError as exc:
            print(f"gammonwatch sim video: {exc}", file=sys.stderr)
            return 2
    from sim.script import ScriptOptions, script_match

    if a.random:
        match = random_match(np.random.default_rng(np.random.SeedSequence([a.seed, 0xA11])))
    else:
        from rules.matfile import MatSyntaxError, load

        try:
            match = load(a.match)
        except OSError as exc:
            print(f"gammonwatch sim video: cannot read transcript {a.match}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        except (MatSyntaxError, ValueError, UnicodeDecodeError) as exc:
            print(f"gammonwatch sim video: transcript {a.match} is not a readable .mat file: {exc}", file=sys.stderr)
            return 2
    notes = []
    if "illegal_move" in a.inject:
        try:
            match, what = inject_illegal_move(match, a.inject_at)
        except ValueError as exc:
            print(f"gammonwatch sim video: {exc}", file=sys.stderr)
            return 2
        notes.append(f"illegal_move: {what}")
    if a.from_game > 1:
        from dataclasses import replace

        if a.from_game > len(match.games):
            print(f"gammonwatch sim video: --from-game {a.from_game}: the transcript has {len(match.games)} games",
                  file=sys.stderr)
            return 2
        # the script takes the score of the first game it plays from that game's score line
        match = replace(match, games=match.games[a.from_game - 1:])
    turn_level = [n for n in a.inject if n in TURN_LEVEL]
    if turn_level:
        steps: Iterator[Any] = irregular_script(match, ScriptOptions(), turn_level, a.inject_at, a.seed)
        notes += [f"{n}: at turn/roll {a.inject_at}" for n in turn_level]
    else:
        steps = script_match(match, ScriptOptions())
    summary = render_video(steps, a.out, seed=a.seed, fps=a.fps, max_seconds=a.max_seconds, style=a.style,
                           inject=a.inject, inject_at=a.inject_at, elevation=a.elevation, progress=not a.quiet,
                           shadows=a.shadows, motion_every=max(1, a.motion_every))
    if notes:
        summary["injection_notes"] = notes
        (a.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return 0
