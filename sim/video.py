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
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

INJECTIONS = ("cocked_roll", "illegal_move", "premature_roll", "premature_grab", "double_after_roll",
              "crawford_double")
NOT_YET: tuple[str, ...] = ()
PARK_X, PARK_Y = 100.0, 100.0  # where dice in a cup or a hand wait (on the table, out of view)
TURN_LEVEL = ("cocked_roll", "premature_roll", "premature_grab", "double_after_roll", "crawford_double")


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
      roll offers the cube, then takes it back (RG19 4.4.7: void);
    - ``cocked_roll``: the ``at``-th throw (the opening counts) comes to rest with its first die cocked
      (the renderer builds it so and keeps physics' label); the roll is void (RG19 4.1.4.3), so the
      roller throws again and the transcript's roll follows.
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
            if "cocked_roll" in inject and self.calls == at:
                yield from super().throw(player, values, opening, reasons=("cocked", "flat_board"))
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


def _rest_still_plays(pos: Any, player: int, bad: Any, later: Any) -> bool:
    """Whether every later play of the game is still legal after ``bad`` is laid out literally (as
    the script does: each step moves one checker, a lone opponent checker where it lands is hit). An
    illegal move that is not corrected stands, and the rest of the transcript is played on from it:
    if a later play needed the checker where the legal play put it (or the blot it hit), the ground
    truth after it would be no game at all (seed 301: every later turn 'moved while on bar')."""
    from rules.errors import IllegalPlayError, InvalidPlayError
    from rules.matfile import EntryKind
    from rules.position import Position

    boards = [list(b) for b in pos.boards()]
    me, opp = boards[player], boards[1 - player]
    for step in bad.steps:
        if me[step.src] <= 0:
            return False
        me[step.src] -= 1
        me[step.dst] += 1
        if 0 < step.dst < 25 and opp[25 - step.dst] == 1:
            opp[25 - step.dst] = 0
            opp[25] += 1
    try:
        cur = Position.from_boards(boards, turn=1 - player)
    except ValueError:
        return False
    for e in later:
        if e.kind is not EntryKind.ROLL or e.play is None:
            continue
        try:
            cur = cur.with_turn(int(e.player)).apply(e.play, e.dice)
        except (IllegalPlayError, InvalidPlayError, ValueError):
            return False
    return True


def inject_illegal_move(match: Any, n: int) -> tuple[Any, str]:
    """The transcript with the ``n``-th play of game 1 made illegal (one checker moved one pip too
    far, or too short); the script lays it out literally, as a player would. Returns (match, what).
    The checker never lands where the opponent has checkers: on a made point the table would show
    both colours on one point, and the rest of the transcript, played on from that layout, would be
    no game at all (the ground truth of everything after it meaningless)."""
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
                if pos.owner(dst, int(e.player))[0] not in (None, int(e.player)):
                    continue  # onto the opponent's checkers: see above
                try:
                    bad = Play([Step(s0.src, dst)] + [Step(s.src, s.dst) for s in steps[1:]])
                    pos.apply(bad, e.dice)
                except IllegalPlayError:
                    if not _rest_still_plays(pos, int(e.player), bad, entries[i + 1:]):
                        continue  # a later play would need the checker where the legal play put it
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


def random_match(rng: np.random.Generator, length: int = 1, rolls: int | None = None) -> Any:
    """One random legal game from the rules engine, as a parsed transcript (``rules.matfile.MatMatch``).

    With ``rolls``, the game stops after that many plays (if nobody has borne off by then) and the
    player behind in the race resigns a single game (a spoken act in the stream): a whole, short
    transcript, e.g. for a 2-minute video."""
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
        if rolls is not None and k >= rolls:
            pips = [sum(n * c for n, c in enumerate(pos.board(p))) for p in (0, 1)]
            w = 0 if pips[0] < pips[1] else 1 if pips[1] < pips[0] else 1 - pos.turn
            entries.append(MatEntry(EntryKind.WIN, Player(w), None, k + 4, value=1, and_match=1 >= length,
                                    text="Wins 1 point"))
            break
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    game = MatGame(1, 3, (0, 0), tuple(entries))
    return MatMatch(length=length, players=("light", "dark"), games=(game,), source="<random>")


def transcript_differences(expected: Any, got: Any) -> tuple[int, list[str]]:
    """Compare two transcripts (``MatMatch``) entry by entry: rolls by player, dice and the position
    the play leaves (so '8/5 6/5' equals '6/5 8/5'); cube actions and game ends by kind, player and
    value. Returns (entries compared, differences)."""
    from rules.errors import IllegalPlayError, InvalidPlayError
    from rules.matfile import EntryKind
    from rules.position import Position

    diffs: list[str] = []
    n = 0

    def key(e: Any, pos: Any) -> tuple[Any, Any]:
        if e.kind is EntryKind.ROLL:
            after = None
            if pos is not None and e.play is not None:
                try:
                    after = pos.apply(e.play, e.dice)
                except (IllegalPlayError, InvalidPlayError, ValueError):
                    after = None
            desc = (after.board(0), after.board(1)) if after is not None else str(e.play)
            return ("roll", int(e.player), tuple(sorted(e.dice or ())), desc), after
        if e.kind is EntryKind.LOSS:
            return None, pos
        return (e.kind.value, int(e.player), e.value), pos

    if len(expected.games) != len(got.games):
        diffs.append(f"games: expected {len(expected.games)}, got {len(got.games)}")
    for gi, (ge, gg) in enumerate(zip(expected.games, got.games, strict=False)):
        ke: list[Any] = []
        kg: list[Any] = []
        for entries, out in ((ge.entries, ke), (gg.entries, kg)):
            first = next((e for e in entries if e.kind is EntryKind.ROLL), None)
            pos = Position.start(turn=int(first.player)) if first is not None else None
            for e in entries:
                kk, pos = key(e, pos)
                if kk is not None:
                    out.append((kk, e.text))
        for j in range(max(len(ke), len(kg))):
            n += 1
            a = ke[j] if j < len(ke) else None
            b = kg[j] if j < len(kg) else None
            if a is None or b is None or a[0] != b[0]:
                diffs.append(f"game {gi + 1} entry {j + 1}: expected {a[1] if a else 'nothing'!r}, "
                             f"got {b[1] if b else 'nothing'!r}")
    return n, diffs


def referee_check(states: Path, match: Any, rules: str = "usbgf-2019") -> dict[str, Any]:
    """Feed ``states`` (a states.jsonl) to the referee and compare its transcript with ``match``."""
    from rules.referee.profiles import get_profile
    from rules.referee.stream import run_stream

    with open(states, encoding="utf-8") as f:
        referee, alerts = run_stream(f, get_profile(rules))
        flagged = [f"{a.code}" for a in alerts if a.severity.is_alert]
    got = referee.transcript()
    n, diffs = transcript_differences(match, got)
    return {"rules": rules, "alerts": flagged, "entries_compared": n, "differences": diffs[:20],
            "reproduced": not diffs}


def _layout(rec: dict[str, Any]) -> Any:
    from sim.layout import TableLayout

    pts = tuple((int(p["light"]), int(p["dark"])) for p in rec["points"])
    bar = (int(rec.get("bar", {}).get("light", 0)), int(rec.get("bar", {}).get("dark", 0)))
    off = (int(rec.get("off", {}).get("light", 0)), int(rec.get("off", {}).get("dark", 0)))
    return TableLayout(points=pts, bar=bar, off=off, mixed_ok=True)


def _die_key(d: dict[str, Any]) -> tuple[Any, ...]:
    return (d.get("id"), d.get("value"), d.get("state"), d.get("reason"), d.get("half"))


class StateRenderer:
    """Builds table-state records physically and renders them from one fixed camera; keeps dice
    still between states, throws them physically, and moves the hand proxies (:mod:`sim.motion`)."""

    def __init__(self, seed: int, style: str | None, elevation: float | None, shadows: bool = False) -> None:
        import pybullet as pb

        from sim.camera import sample_camera
        from sim.render import Renderer
        from sim.styles import get_style, style_names
        from sim.table import TableSpec

        self.pb = pb
        self.client = pb.connect(pb.DIRECT)
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, 0xF11]))
        self.spec = TableSpec.sample(self.rng).with_two_trays()
        names = style_names()
        self.style = get_style(style or names[int(self.rng.integers(len(names)))])
        self.cam = sample_camera(self.spec, self.rng, elevation=elevation if elevation is not None else 55.0,
                                 azimuth=float(self.rng.normal(0, 5)), fill=0.97)
        self.renderer = Renderer()
        self.seed = seed
        self.dice_poses: dict[tuple[Any, ...], tuple[np.ndarray, tuple[float, ...], dict[str, Any]]] = {}
        self.prev_layout: Any = None
        self.layout: Any = None
        self.world: Any = None
        self.colours: tuple[int, ...] = (2, 2)
        self.table_dice: dict[int, tuple[np.ndarray, tuple[float, ...]]] = {}
        self.idle: set[int] = set()
        self.die_values: dict[int, int] = {}
        self.prev_table_dice: dict[int, tuple[np.ndarray, tuple[float, ...]]] = {}
        self.translucent = bool(self.rng.random() < 0.3)
        self.static: Any = None
        self.meshes: dict[tuple[object, ...], Any] = {}
        self.hand_meshes: dict[str, Any] = {}
        self.shadows = shadows
        self.mismatches = 0  # constructions that did not hold (fell back to a flat die)
        self.value_changed = 0  # dice whose physics value still differs from the script's
        self.throws = 0
        self.throw_fallbacks = 0  # throws that never came to rest as scripted (dice placed instead)
        self.renders = 0

    def close(self) -> None:
        self.renderer.close()
        self.pb.disconnect(self.client)

    def frame(self, rec: dict[str, Any], force_reason: dict[int, str] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Image (RGB) and the record as physics made it (dice labels, pixel centres), hands held
        still over their targets."""
        from sim.motion import hand_matrix

        out = self.build(rec, force_reason)
        hands = []
        for h in rec.get("hands", []):
            tip, z, _act = self.hand_target(h, "")
            hands.append((str(h.get("side", "near")), hand_matrix(str(h.get("side", "near")), tip, z), str(h.get("over"))))
        return self.render(hands), out

    def build(self, rec: dict[str, Any], force_reason: dict[int, str] | None = None,
              nxt: dict[str, Any] | None = None) -> dict[str, Any]:
        """Make ``rec`` physical in a new world (``self.world``); returns the record with the dice as
        physics labels them. Dice rolling, in the cup or lifted wait parked out of view."""
        from sim.dicestate import physics_label, place_die
        from sim.physics import World, quat_for_top

        layout = _layout(rec)
        cube = rec.get("cube") or {"zone": "absent", "value": 64}
        zone = str(cube.get("zone", "absent"))
        value = int(cube.get("value", 64))
        value = 64 if value == 1 else value
        zrng = np.random.default_rng(np.random.SeedSequence([self.seed, sum(map(ord, zone))]))
        dice_recs = [dict(d) for d in rec.get("dice", [])][:4]
        owners = [d.get("owner") for d in dice_recs]
        n_dice = 4 if len(dice_recs) > 2 else 2
        colours = tuple(0 if o == "light" else 1 if o == "dark" else 2
                        for o in owners + [None] * (n_dice - len(owners)))
        world = World.build(self.spec, layout, client=self.client, die_friction=0.35, cube_zone=zone,
                            cube_value=value, dice_colours=colours, rng=zrng)
        self.world = world
        self.colours = colours
        out = dict(rec)
        out_dice = []
        idle = self._idle_dice(rec, nxt) if n_dice == 4 and self.spec.trays == 2 else set()
        for k, d in enumerate(dice_recs):
            uid = world.dice[k]
            state = d.get("state")
            if k in idle:  # four dice: the pair out of play lies in the left tray on its owner's side
                self._put_aside(world, k, str(d.get("owner")))
                out_dice.append(d)
                continue
            half = d.get("half") or "right"
            reason = (force_reason or {}).get(k, d.get("reason") or "flat_board")
            if state == "at_rest" and d.get("value"):
                key = (*_die_key(d), reason)
                if key in self.dice_poses:
                    pos0, q0, lab = self.dice_poses[key]
                    world.set_pose(uid, pos0, q0)
                    d.update(lab)
                else:
                    want = int(d["value"])
                    lab = {}
                    for _attempt in range(16 if reason != "flat_board" else 6):
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
                # rolling (the throw moves it), in the cup or lifted: parked at rest, far outside the view
                world.set_pose(uid, (PARK_X + 5 * k, PARK_Y, -self.spec.base + self.spec.die / 2 + 0.001),
                               quat_for_top(1, 0.0))
            if world.pose(uid)[0][0] < PARK_X - 10:
                px = self.cam.project(world.pose(uid)[0][None])[0]
                d["center_px"] = [round(float(px[0]), 2), round(float(px[1]), 2)]
            out_dice.append(d)
        out["dice"] = out_dice
        world.sleep_resting()
        self.idle = idle
        for k, d in enumerate(out_dice):
            if d.get("state") == "at_rest" and d.get("value"):
                self.die_values[k] = int(d["value"])
        self.prev_layout, self.layout = self.layout, layout
        self.prev_table_dice = self.table_dice
        self.table_dice = {k: world.pose(u) for k, u in enumerate(world.dice) if world.pose(u)[0][0] < PARK_X - 10}
        return out

    def _idle_dice(self, rec: dict[str, Any], nxt: dict[str, Any] | None) -> set[int]:
        """Four dice: which ``in_cup`` dice lie aside in the tray. A die that was on the board in the
        last state is being lifted (in the hand); one that lay aside and rolls next is being picked up."""
        dice = rec.get("dice", [])
        in_cup = {k for k, d in enumerate(dice) if d.get("state") == "in_cup"}
        if not any(h.get("over") == "dice" for h in rec.get("hands", [])):
            return in_cup
        lifted = {k for k in in_cup if k in self.table_dice and k not in self.idle}
        if lifted:
            return in_cup - lifted
        rolls_next = set(_rolling(nxt))
        return in_cup - {k for k in in_cup if k in self.idle and k in rolls_next}

    def _put_aside(self, world: Any, k: int, owner: str) -> None:
        from sim.physics import quat_for_top

        tx0, tx1, _ty0, _ty1 = self.spec.tray_rect("left")
        s = -1.0 if owner == "light" else 1.0
        y = s * (self.spec.play_d / 2 - 2.0 - (k % 2) * 2.2 * self.spec.die)
        yaw = 0.3 * (k % 2) - 0.15
        world.set_pose(world.dice[k], ((tx0 + tx1) / 2, y, self.spec.die / 2 + 0.002),
                       quat_for_top(self.die_values.get(k, 1 + k % 2), yaw))

    def render(self, hands: list[tuple[str, np.ndarray, str]]) -> np.ndarray:
        """RGB image of ``self.world`` as it is now, with hand meshes at the given (side, 4x4 pose, over)."""
        from sim.camera import distort, effects
        from sim.meshes import hand_mesh
        from sim.render import SKIN, Hand, SceneLook, _pips_for

        world = self.world
        dice_rgb = []
        for c in self.colours:
            dice_rgb.append(self.style.dice_shared if c == 2 else self.style.dice_light if c == 0 else self.style.dice_dark)
        look = SceneLook(self.style, False, dice_rgb, [_pips_for(c) for c in dice_rgb], (120, 84, 52))
        for side, pose, over in hands:
            if side not in self.hand_meshes:
                self.hand_meshes[side] = _reaching_hand(
                    hand_mesh(np.random.default_rng(self.seed + len(self.hand_meshes)), SKIN[1]), SKIN[1])
            look.hands.append(Hand(side, pose, self.hand_meshes[side], over))
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
        self.renders += 1
        return img

    def _free_spot(self, world: Any, half: str, others: list[int]) -> tuple[float, float]:
        from sim.dicestate import _free_spot

        for _ in range(30):
            x, y = _free_spot(world, half, self.rng, self.spec.die)
            if all(np.hypot(x - world.pose(o)[0][0], y - world.pose(o)[0][1]) > 2.5 * self.spec.die for o in others):
                return x, y
        return x, y

    # ------------------------------------------------------------------ motion
    def throw(self, rec: dict[str, Any], nxt: dict[str, Any] | None, force_next: dict[int, str] | None,
              release: np.ndarray | None, fps: float) -> Any:
        """Throw the rolling dice of ``rec`` physically (``self.world`` is ``rec`` built). The throw is
        repeated until the dice come to rest as the next record ``nxt`` says (flat in the rolled half,
        up to 12 tries); the transcript's values are put on top by :func:`sim.motion.value_fix`, and
        the resting poses are kept for ``nxt``. Returns the :class:`sim.motion.Throw`."""
        from sim.dicestate import physics_label
        from sim.motion import compose, throw_dice, value_fix
        from sim.physics import face_up

        world = self.world
        dice_recs = rec.get("dice", [])[:4]
        rolling = [k for k, d in enumerate(dice_recs) if d.get("state") == "rolling"]
        uids = [world.dice[k] for k in rolling]
        halves = [str(dice_recs[k].get("half") or "right") for k in rolling]
        rest: dict[int, dict[str, Any]] = {}
        if nxt is not None:
            for k, d in enumerate(nxt.get("dice", [])[:4]):
                if k in rolling and d.get("state") == "at_rest" and d.get("value"):
                    rest[k] = d
        snap = world.snapshot()
        self.throws += 1
        ok = False
        th: Any = None
        for attempt in range(12):
            if attempt:
                world.restore(snap)
            th = throw_dice(world, uids, halves, self.rng, fps, release if attempt == 0 else None)
            if not th.settled:
                continue
            ok = True
            for j, k in enumerate(rolling):
                if k not in rest:
                    continue
                # a die scripted in another state (e.g. cocked) is built at rest afterwards; the
                # throw only has to land the flat ones flat in the rolled half
                pl = physics_label(world, uids[j], halves[j])
                if pl.reason != "flat_board" or pl.half != halves[j]:
                    ok = False
            if ok:
                break
        if not ok:
            self.throw_fallbacks += 1
        fixes = []
        for j, k in enumerate(rolling):
            want_v = rest.get(k, {}).get("value")
            final_q = th.frames[-1][j][1]
            fixes.append(value_fix(face_up(final_q), int(want_v)) if want_v else (0.0, 0.0, 0.0, 1.0))
        th.frames = [[(p, compose(q, fixes[j])) for j, (p, q) in enumerate(fr)] for fr in th.frames]
        if ok:
            built = {k for k in rest if (force_next or {}).get(k, rest[k].get("reason") or "flat_board") != "flat_board"}
            for j, k in enumerate(rolling):
                if k not in rest or k in built:
                    continue
                p, q = th.frames[-1][j]
                world.set_pose(uids[j], p, q)
            self.pb.performCollisionDetection(physicsClientId=self.client)
            for j, k in enumerate(rolling):
                if k not in rest or k in built:
                    continue
                d = rest[k]
                pl = physics_label(world, uids[j], halves[j])
                lab: dict[str, Any] = {"value": pl.value, "reason": pl.reason, "valid": pl.valid}
                if pl.half is not None:
                    lab["half"] = pl.half
                if pl.value != d.get("value"):
                    self.value_changed += 1
                reason = str(d.get("reason") or "flat_board")
                p, q = th.frames[-1][j]
                self.dice_poses[(*_die_key(d), reason)] = (p, q, lab)
        return th

    def set_dice(self, rolling: list[int], poses: list[tuple[np.ndarray, tuple[float, ...]]]) -> None:
        for j, k in enumerate(rolling):
            self.world.set_pose(self.world.dice[k], poses[j][0], poses[j][1])

    def hand_target(self, h: dict[str, Any], action_for: str) -> tuple[np.ndarray, float, dict[str, Any]]:
        """Finger-tip point (x, y), palm height and the action of hand ``h`` in the current world:
        ``{"pick": uid, "rest": pose}`` (a checker lifted: added to the world at its slot),
        ``{"place": uid, "rest": pose}`` (a checker put down), ``{"dice": [k...]}`` (dice lifted)."""
        from sim.motion import HAND_TIP_BELOW_PALM

        spec, world = self.spec, self.world
        side = str(h.get("side", "near"))
        over = str(h.get("over", "board"))
        s = -1.0 if side == "near" else 1.0
        touch_z = 3.0 if h.get("touching", True) else 7.0
        action: dict[str, Any] = {}
        tip = np.array([0.0, s * 6.0])
        if over == "checkers" and self.prev_layout is not None and self.layout is not None:
            change = _layout_change(self.prev_layout, self.layout)
            if change is not None:
                place, colour, delta = change
                if delta < 0:
                    pos = _slot(spec, self.prev_layout, place, colour, world.cube_on_bar_y)
                    if action_for:
                        uid = world._add_checker(colour, pos, "hand", 0)
                        action = {"pick": uid, "rest": world.pose(uid)}
                    tip = np.array(pos[:2])
                    return tip, pos[2] + HAND_TIP_BELOW_PALM, action
                mine = [u for u in world.checkers if world.bodies[u].place == place and world.bodies[u].colour == colour]
                if mine:
                    uid = mine[-1]
                    p, q = world.pose(uid)
                    return p[:2].copy(), float(p[2]) + HAND_TIP_BELOW_PALM, {"place": uid, "rest": (p, q)}
        elif over == "dice":
            ks = (sorted(k for k in self.prev_table_dice if k not in self.table_dice) if action_for
                  else sorted(self.table_dice))
            poses = self.prev_table_dice if action_for else self.table_dice
            if ks:
                tip = np.mean([poses[k][0][:2] for k in ks], axis=0)
                if action_for:
                    action = {"dice": ks, "rest": {k: poses[k] for k in ks}}
                return tip, spec.die / 2 + HAND_TIP_BELOW_PALM, action
        elif over == "cube" and world.cube is not None:
            p = world.pose(world.cube)[0]
            return p[:2].copy(), float(p[2]) + spec.cube / 2 + 1.6, action
        elif over == "clock":
            tip = np.array([spec.x_max + 8.0, s * 10.0])
            return tip, 4.0, action
        elif over == "bar":
            tip = np.array([0.0, s * 6.0])
            return tip, spec.rail_h + 1.6, action
        return tip, touch_z, action


def _reaching_hand(hand: Any, skin: tuple[int, int, int]) -> Any:
    """The hand proxy with its forearm continued up to the player's shoulder (the arm rises towards
    him), so that a hand reaching across the board still crosses his edge of the board."""
    import trimesh

    arm = trimesh.creation.capsule(height=45.0, radius=3.3, count=[12, 12])
    arm.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2 - 0.28, [1, 0, 0]))
    arm.apply_translation([0.0, -50.0, 7.5])
    rgba = np.array([*skin, 255], dtype=np.uint8)
    arm.visual = trimesh.visual.ColorVisuals(arm, vertex_colors=np.tile(rgba, (len(arm.vertices), 1)))
    return trimesh.util.concatenate([hand, arm])


def _layout_change(before: Any, after: Any) -> tuple[str, int, int] | None:
    """The first place whose count of one colour changed: (place 'p1'..'p24' | 'bar' | 'off', colour, delta)."""
    for i in range(24):
        for c in (0, 1):
            dlt = after.points[i][c] - before.points[i][c]
            if dlt:
                return f"p{i + 1}", c, dlt
    for c in (0, 1):
        if after.bar[c] != before.bar[c]:
            return "bar", c, after.bar[c] - before.bar[c]
        if after.off[c] != before.off[c]:
            return "off", c, after.off[c] - before.off[c]
    return None


def _slot(spec: Any, layout: Any, place: str, colour: int, cube_y: float | None = None) -> tuple[float, float, float]:
    """Resting centre of the top checker of ``colour`` at ``place`` in ``layout`` (the one a hand lifts;
    ``cube_y``: a centred cube's place on the bar)."""
    if place == "bar":
        n = layout.bar[colour]
        return spec.bar_slots(colour, n, cube_y)[n - 1]
    if place == "off":
        n = layout.off[colour]
        return spec.off_slots(colour, n)[n - 1]
    p = int(place[1:])
    n_l, n_d = layout.points[p - 1]
    slots = spec.checker_slots(p, n_l + n_d)
    return slots[n_l - 1] if colour == 0 else slots[-1]


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
    is applied to ``match`` here). ``motion_every``: render a moving hand every n-th video frame and
    repeat the last image in between (a throw, under a second, is rendered every frame so that it
    visibly tumbles); static holds are never re-rendered.
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


MOVE_S = 0.45
"""Seconds a hand takes to reach what it acts on (or its seat edge when leaving), added to the script's
hold of each hand state in the video's time line."""
LIFT_S = 0.25


def _same_state(a: dict[str, Any] | None, b: dict[str, Any]) -> bool:
    if a is None:
        return False
    skip = ("t", "frame")
    return {k: v for k, v in a.items() if k not in skip} == {k: v for k, v in b.items() if k not in skip}


def _sides(rec: dict[str, Any] | None) -> set[str]:
    return {str(h.get("side", "near")) for h in (rec or {}).get("hands", [])}


def _rolling(rec: dict[str, Any] | None) -> list[int]:
    return [k for k, d in enumerate((rec or {}).get("dice", [])[:4]) if d.get("state") == "rolling"]


class _Segment:
    """What moves while one table state is in force: a throw, hand paths, carried bodies."""

    def __init__(self, hold: float) -> None:
        from sim.motion import HandPath

        self.duration = hold
        self.throw: Any = None
        self.rolling: list[int] = []
        self.paths: list[tuple[HandPath, str, dict[str, Any]]] = []
        self.arrive: list[float] = []
        """For each hand of the state (in its order): when it reaches what it acts on; before
        that it is on its way and touches nothing (0 when it is already there)."""

    def hands_at(self, hands: list[dict[str, Any]], tau: float) -> list[dict[str, Any]]:
        """The state's hands as the frame at ``tau`` shows them: a hand still reaching is over its
        target but not yet touching it (a bar tap or a grab of the dice happens when it arrives)."""
        return [{**h, "touching": False} if tau < at - 1e-9 and h.get("touching", True) else h
                for h, at in zip(hands, self.arrive + [0.0] * (len(hands) - len(self.arrive)), strict=True)]

    def throwing(self, tau: float) -> bool:
        return self.throw is not None and tau < (self.throw.rest_index + 0.5) * self.dt

    def moving(self, tau: float) -> bool:
        return self.throwing(tau) or any(p.moving(tau) for p, _o, _a in self.paths)

    dt = 0.1


def _plan_segment(sr: StateRenderer, rec: dict[str, Any], prev: dict[str, Any] | None, nxt: dict[str, Any] | None,
                  force_next: dict[int, str] | None, hold: float, fps: float, hand_end: dict[str, np.ndarray],
                  release: dict[str, Any]) -> _Segment:
    """Plan the motion of one state (``sr.world`` is ``rec`` built). ``hand_end``: where each side's hand
    was at the end of the previous segment (updated); ``release``: where a hand holding dice will let
    them go (set by a pick-up, used by the next throw)."""
    from sim.motion import HandPath, hand_matrix, release_point, seat_edge

    del hand_matrix
    seg = _Segment(hold)
    seg.dt = 1.0 / fps
    spec = sr.spec
    if _same_state(prev, rec):  # nothing new happens: hands (if any) stay where they are
        for side, at in hand_end.items():
            path = HandPath(side)
            path.keys = [(0.0, at)]
            seg.paths.append((path, "board", {}))
        return seg
    rolling = _rolling(rec)
    if rolling and _rolling(prev) != rolling:
        seg.rolling = rolling
        seg.throw = sr.throw(rec, nxt, force_next, release.pop("at", None), fps)
        seg.duration = max(hold, (seg.throw.rest_index + 1) / fps)
        # a throw nobody picked up for (the opening): each roller's hand lets his die go, then leaves
        from sim.motion import HAND_TIP_BELOW_PALM

        dice = rec.get("dice", [])
        for j, k in enumerate(rolling):
            side = "near" if dice[k].get("half", "right") == "right" else "far"
            if side in hand_end or any(path.side == side for path, _o, _a in seg.paths):
                continue
            p0 = seg.throw.frames[0][j][0]
            hand_end[side] = np.array([p0[0], p0[1], p0[2] + HAND_TIP_BELOW_PALM])
    sides_now = _sides(rec)
    for side in sorted(set(hand_end) - sides_now):  # a hand still out from the last state goes home
        path = HandPath(side)
        start = hand_end.pop(side)
        path.keys = [(0.0, start), (MOVE_S, seat_edge(spec, side, float(start[0])))]
        seg.paths.append((path, "board", {}))
        seg.duration = max(seg.duration, MOVE_S)
    leaving = not (_rolling(nxt) and not _rolling(rec))  # a hand holding dice about to be thrown stays
    for h in rec.get("hands", []):
        side = str(h.get("side", "near"))
        tip, palm_z, action = sr.hand_target(h, "plan")
        target = np.array([tip[0], tip[1], palm_z])
        start = hand_end.get(side, seat_edge(spec, side, float(tip[0])))
        path = HandPath(side)
        path.keys = [(0.0, start), (MOVE_S, target)]
        # a tap, a grab, a touch of the cube happen when the hand gets there; a hand moving checkers
        # handles them all along (the truth's position changes as it sets out, the checker in its hand)
        seg.arrive.append(0.0 if h.get("over") == "checkers" else MOVE_S)
        t_end = MOVE_S + hold
        if "pick" in action:
            up = target + np.array([0.0, 0.0, 3.0])
            path.keys.append((MOVE_S + LIFT_S, up))
            path.carry.append((MOVE_S, 1e9, [action["pick"]]))
        elif "place" in action:
            path.carry.append((0.0, MOVE_S, [action["place"]]))
        elif "dice" in action:
            for k in action["dice"]:
                p, q = action["rest"][k]
                sr.world.set_pose(sr.world.dice[k], p, q)
            roll = _rolling(nxt)
            if roll and nxt is not None:
                half = str(nxt["dice"][roll[0]].get("half") or "right")
                r = release_point(spec, half, sr.rng)
                release["at"] = r
                path.keys.append((MOVE_S + max(hold, MOVE_S), np.array([r[0], r[1], r[2] + 2.2])))
                t_end = MOVE_S + max(hold, MOVE_S)
            path.carry.append((MOVE_S, 1e9, [sr.world.dice[k] for k in action["dice"]]))
        path.keys.append((t_end, path.keys[-1][1]))
        if side not in _sides(nxt) and leaving:
            path.keys.append((t_end + MOVE_S, seat_edge(spec, side, float(path.keys[-1][1][0]))))
            # home: the next state must not send it home again from where an earlier state left it
            # (seed 308: after 18/11 the near arm reappeared over point 18 for 0.3 s, going home)
            hand_end.pop(side, None)
        else:
            hand_end[side] = path.keys[-1][1]
        seg.paths.append((path, str(h.get("over", "board")), action))
        seg.duration = max(seg.duration, path.keys[-1][0])
    return seg


def _pose_segment(sr: StateRenderer, seg: _Segment, tau: float) -> list[tuple[str, np.ndarray, str]]:
    """Put the world's moving bodies where they are at ``tau`` into the segment; returns the hands."""
    from sim.motion import HAND_TIP_BELOW_PALM, hand_matrix

    if seg.throw is not None:
        j = min(len(seg.throw.frames) - 1, int(round(tau / seg.dt)))
        sr.set_dice(seg.rolling, seg.throw.frames[j])
    hands = []
    for path, over, action in seg.paths:
        p = path.at(tau)
        hands.append((path.side, hand_matrix(path.side, p[:2], float(p[2])), over))
        carried = path.carried(tau)
        for n, uid in enumerate(carried):
            _pos, q = sr.world.pose(uid)
            off = (n - (len(carried) - 1) / 2) * sr.spec.die * 1.3
            sr.world.set_pose(uid, (float(p[0] + off), float(p[1]), float(p[2] - HAND_TIP_BELOW_PALM)), q)
        if "place" in action and not carried:
            sr.world.set_pose(action["place"], *action["rest"])
    return hands


def _frames_from_steps(steps: Iterable[Any], *, seed: int, fps: float, max_seconds: float, style: str | None,
                       inject: list[str], inject_at: int, elevation: float | None, shadows: bool,
                       motion_every: int, on_record: Callable[[dict[str, Any]], None] | None,
                       info: dict[str, Any] | None) -> Iterator[VideoFrame]:
    import time

    import cv2

    records: list[tuple[float, dict[str, Any]]] = []
    for st in steps:
        if st.t > max_seconds:
            break
        records.append((float(st.t), st.record))
    states = [(t, r) for t, r in records if r.get("type") == "table_state"]
    others = [(t, r) for t, r in records if r.get("type") != "table_state"]
    if not states:
        raise ValueError("the script produced no table states")
    sr = StateRenderer(seed, style, elevation, shadows)
    t_wall = time.time()
    try:
        if info is not None:
            info["camera"] = _camera_json(sr)
        h, w = sr.cam.height, sr.cam.width
        img: np.ndarray = np.zeros((h, w, 3), np.uint8)
        rec_out: dict[str, Any] = {}
        oi = 0
        k = 0
        seg_start = 0.0
        hand_end: dict[str, np.ndarray] = {}
        release: dict[str, Any] = {}
        prev: dict[str, Any] | None = None
        motion_frames = 0
        done = False
        for i, (t_i, rec) in enumerate(states):
            nxt = states[i + 1][1] if i + 1 < len(states) else None
            hold = (states[i + 1][0] - t_i) if nxt is not None else 2.0
            same = _same_state(prev, rec)
            if not same:
                rec_out = sr.build(rec, None, nxt)
            seg = _plan_segment(sr, rec, prev, nxt, None, hold, fps, hand_end,
                                release)
            first = True
            rolling_px: dict[int, list[float]] = {}
            last_render = -10**9
            was_moving = False
            while k / fps < seg_start + seg.duration - 1e-9:
                t = k / fps
                if t > max_seconds + 1e-9:
                    done = True
                    break
                tau = t - seg_start
                moving = seg.moving(tau)
                # a throw (under a second) is drawn every frame so that it visibly tumbles; hands every n-th
                every = 1 if seg.throwing(tau) else motion_every
                render = ((first and not same) or (moving and k - last_render >= every)
                          or (not moving and was_moving) or (first and bool(seg.paths)))
                if render:
                    hands = _pose_segment(sr, seg, tau)
                    img = np.asarray(cv2.cvtColor(sr.render(hands), cv2.COLOR_RGB2BGR), dtype=np.uint8)
                    last_render = k
                    if moving:
                        motion_frames += 1
                    # where the rolling dice are in the image shown (a label for trackers)
                    rolling_px = {}
                    for j in seg.rolling:
                        pos = sr.world.pose(sr.world.dice[j])[0]
                        if pos[0] < PARK_X - 10:
                            px = sr.cam.project(pos[None])[0]
                            rolling_px[j] = [round(float(px[0]), 2), round(float(px[1]), 2)]
                first = False
                was_moving = moving
                while oi < len(others) and (others[oi][0] <= t_i + min(tau, hold) + 1e-9 or
                                            others[oi][1].get("type") == "match_setup"):
                    if on_record is not None:
                        on_record(dict(others[oi][1]))
                    oi += 1
                out_rec = {**rec_out, "frame": k, "t": round(t, 4), "source": "sim.video"}
                if rec_out.get("hands"):
                    out_rec["hands"] = seg.hands_at(rec_out["hands"], tau)
                if rolling_px:
                    out_rec["dice"] = [{**d, "center_px": rolling_px[j]} if j in rolling_px else d
                                       for j, d in enumerate(rec_out.get("dice", []))]
                yield k, round(t, 4), img, out_rec
                k += 1
            seg_start += seg.duration
            prev = rec
            if done:
                break
        while oi < len(others) and not done:
            if on_record is not None:
                on_record(dict(others[oi][1]))
            oi += 1
        if info is not None:
            info["summary"] = {"frames": k, "fps": fps, "seconds": round(k / fps, 2),
                               "table_states": len(states), "renders": sr.renders, "motion_renders": motion_frames,
                               "throws": sr.throws, "throws_placed_instead": sr.throw_fallbacks,
                               "dice_constructions_failed": sr.mismatches,
                               "dice_value_differs_from_script": sr.value_changed,
                               "injected": list(inject),
                               "cocked_die_states": sum(any(d.get("reason") == "cocked" for d in r.get("dice", []))
                                                        for _t, r in states),
                               "render_wall_s": round(time.time() - t_wall, 1)}
    finally:
        sr.close()


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
                    help="render moving hands every n-th frame, repeat the image in between (throws: every frame)")
    ap.add_argument("--rolls", type=int, default=None,
                    help="with --random: stop after this many plays, the player behind in the race resigns")
    ap.add_argument("--dice-mode", choices=["two", "four"], default="two",
                    help="two shared dice, or four (each player's pair; the idle pair lies in his side of the left tray)")
    ap.add_argument("--step-s", type=float, default=0.4, help="script seconds between two snapshots of activity")
    ap.add_argument("--check", action="store_true",
                    help="feed states.jsonl to the referee and compare its transcript with the one played")
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
        match = random_match(np.random.default_rng(np.random.SeedSequence([a.seed, 0xA11])), rolls=a.rolls)
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
        if a.from_game > len(match.games):
            print(f"gammonwatch sim video: --from-game {a.from_game}: the transcript has {len(match.games)} games",
                  file=sys.stderr)
            return 2
        # the script takes the score of the first game it plays from that game's score line
        match = replace(match, games=match.games[a.from_game - 1:])
    opts = ScriptOptions(step_s=a.step_s)
    if a.dice_mode == "four":  # two dice per player; lifting them ends the turn (RG19 4.1.7.3)
        from rules.referee.setup import DiceMode, EndSignal

        opts = replace(opts, dice_mode=DiceMode.FOUR, end_signal=EndSignal.LIFT_DICE, idle_dice=True)
    turn_level = [n for n in a.inject if n in TURN_LEVEL]
    if turn_level:
        steps: Iterator[Any] = irregular_script(match, opts, turn_level, a.inject_at, a.seed)
        notes += [f"{n}: at turn/roll {a.inject_at}" for n in turn_level]
    else:
        steps = script_match(match, opts)
    summary = render_video(steps, a.out, seed=a.seed, fps=a.fps, max_seconds=a.max_seconds, style=a.style,
                           inject=a.inject, inject_at=a.inject_at, elevation=a.elevation, progress=not a.quiet,
                           shadows=a.shadows, motion_every=max(1, a.motion_every))
    if notes:
        summary["injection_notes"] = notes
    from rules.matfile import dump

    dump(match, a.out / "played.mat")
    if a.check:
        summary["referee"] = referee_check(a.out / "states.jsonl", match)
    (a.out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return 0
