"""The live pipeline: camera frames in, table states for the referee out (issue 7), in one place.

::

    frames (id, timestamp)                       vision.sources.VideoSource: bounded queue, drop oldest (live)
      -> MotionDetector          every frame      vision.tracker (small grey copy)
      -> hands                   every frame      background difference touching a seat's edge
      -> FrameRecognizer.locate  moving frames    dice boxes (tracker follows them)
      -> FrameRecognizer.read    quiet frames     board, dice values and validity (when the tracker wants it)
      -> Tracker.update          every frame      stable table states (the referee's schema)
      -> server.live             each state       event log, referee, WebSocket push

:class:`FramePipeline` is the synchronous part (one frame at a time; used by ``gammonwatch serve
--source``, ``gammonwatch demo``, ``scripts/eval_e2e.py`` and the tests). :class:`StageTimes` keeps
per-stage timings (capture, vision, tracker, referee, push) that the monitor page and
``GET /api/tables/{id}/pipeline`` show. :func:`load_profile` reads a calibration profile, or a
simulator ``camera.json`` (``gammonwatch sim video``), with errors that name the file and the fix.

Decisions are never dropped: only frames are (by the bounded queue of a live source); every table
state the tracker emits reaches the referee.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.errors import CalibrationError, ProfileError
from calibration.profile import CalibrationProfile
from vision.dice_detect import detect_dice
from vision.dice_validity import DEFAULT_DIE_CM, die_board_xy, flat_die_boxes, half_of
from vision.observation import DieObservation
from vision.recognizer import FrameRecognizer, Recognition, box_holds, die_px_range
from vision.tracker import (
    HandObservation,
    Motion,
    MotionDetector,
    Tracker,
    TrackerConfig,
    assign,
    outer_corners,
)

U8 = npt.NDArray[np.uint8]
Box = tuple[float, float, float, float]
STAGES = ("capture", "vision", "tracker", "referee", "push")
"""The stages whose time is measured and shown (milliseconds per frame or per state)."""
UNIFORM = np.full(6, 1 / 6)


class PipelineError(ValueError):
    """A pipeline input that cannot be used (calibration, frame size); the message names the fix."""


# ----------------------------------------------------------------------------------------- timings
class StageTimes:
    """Rolling per-stage timings (last ``window`` samples), thread-safe; ``summary()`` is JSON-ready."""

    def __init__(self, window: int = 300) -> None:
        self._lock = threading.Lock()
        self._samples: dict[str, deque[float]] = {s: deque(maxlen=window) for s in STAGES}
        self._counts: dict[str, int] = dict.fromkeys(STAGES, 0)

    def add(self, stage: str, ms: float) -> None:
        with self._lock:
            if stage not in self._samples:
                self._samples[stage] = deque(maxlen=self._samples[STAGES[0]].maxlen)
                self._counts[stage] = 0
            self._samples[stage].append(float(ms))
            self._counts[stage] += 1

    def summary(self) -> dict[str, dict[str, float]]:
        """``{stage: {"n", "last_ms", "p50_ms", "p95_ms", "mean_ms"}}`` over the window."""
        out: dict[str, dict[str, float]] = {}
        with self._lock:
            for stage, values in self._samples.items():
                if not values:
                    continue
                arr = np.fromiter(values, dtype=np.float64)
                out[stage] = {"n": self._counts[stage], "last_ms": round(float(arr[-1]), 2),
                              "p50_ms": round(float(np.percentile(arr, 50)), 2),
                              "p95_ms": round(float(np.percentile(arr, 95)), 2),
                              "mean_ms": round(float(arr.mean()), 2)}
        return out


# ----------------------------------------------------------------------------------------- profile
def load_profile(path: str | Path) -> CalibrationProfile:
    """A calibration profile (``gammonwatch calibrate board``), or a simulator ``camera.json``
    (``gammonwatch sim video``: intrinsics, pose, board sizes and corners in pixels).

    Raises :class:`PipelineError` naming the file and the fix."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PipelineError(f"--calibration {p}: no such file; create a profile with "
                            "'gammonwatch calibrate board IMAGE --out profile.json'") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PipelineError(f"--calibration {p}: not readable JSON ({exc}); recreate it with "
                            "'gammonwatch calibrate board IMAGE --out profile.json'") from None
    if isinstance(data, dict) and "corners8_px" in data and "camera" in data and "table_cm" in data:
        try:
            return profile_from_sim_camera(data)
        except (KeyError, TypeError, ValueError, CalibrationError) as exc:
            raise PipelineError(f"--calibration {p}: a simulator camera file that cannot be used ({exc}); "
                                "render the video again with 'gammonwatch sim video'") from None
    try:
        return CalibrationProfile.from_json(data, str(p))
    except ProfileError as exc:
        raise PipelineError(f"--calibration {exc}") from None


def profile_from_sim_camera(cam: dict[str, Any]) -> CalibrationProfile:
    """The profile a user would make for a simulated camera: its 8 corners, intrinsics and the board's sizes."""
    from calibration.board import BoardDimensions
    from calibration.intrinsics import Intrinsics

    c = cam["camera"]
    size = (int(c["width"]), int(c["height"]))
    corners = np.asarray(cam["corners8_px"], dtype=np.float64)
    dims = BoardDimensions.from_sim_table(cam["table_cm"])
    intr = Intrinsics(np.asarray(c["K"], dtype=np.float64), np.asarray(c["dist"], dtype=np.float64), size)
    return CalibrationProfile.from_corners(corners, size, dims=dims, intrinsics=intr, method="simulator")


# ----------------------------------------------------------------------------------------- hands
class HandCue:
    """Hands from the difference with the quiet table, at a seat's edge.

    Motion alone sees a hand only while it moves; a hand held still over the board (or a camera that
    repeats a frame) would vanish. This keeps a small grey copy of the table as last seen quiet and
    without hands (updated at each full recognition), and reports a hand from a seat when more than
    ``TrackerConfig.hand_frac`` of the board differs from it and the change touches that seat's
    edge (the board mask and edge bands of :class:`vision.tracker.MotionDetector`); ``min_frac`` (1.2%
    of the board by default) rather than the tracker's 3%, which a hand from the far seat, small in
    perspective, does not reach. What the hand is
    over is read at its tip (the changed pixels farthest from its seat's edge): ``dice`` when the tip
    is within one die side of a die the pipeline follows (an arm that reaches over the dice to move
    checkers beyond them is over the ``board``: it hides the dice without taking them), unless the
    tip is all on the bar and leaves that die uncovered (a tap beside dice resting by the bar),
    ``bar`` when the tip is on the bar (a bar tap ends a turn, RG19 4.2.3), else ``board``.
    """

    def __init__(self, motion: MotionDetector, profile: CalibrationProfile | None = None, min_frac: float = 0.012,
                 bar_hold_s: float = 0.3, join_gap_px: float = 80.0) -> None:
        self.m = motion
        self.join_gap_px = join_gap_px
        """A region crossing no edge joins an arm at most this far from it (frame pixels)."""
        self.bar_hold_s = bar_hold_s
        """How long a tip must stay on the bar to be a tap (RG19 4.2.3), not a checker carried across."""
        self.bar_tip_share = 0.75
        """A tip with this share of its pixels on the bar, beside a die it does not cover, is on the bar
        (0.9 until session 10: a far tap at the bar's end with the fingers spread over its edge
        towards a die, 80% on the bar, was read as taking the dice)."""
        self._before_still: U8 | None = None
        """The reference, free of hands, before a still "hand" was taken in (:meth:`settle`,
        :meth:`take_in_still`)."""
        self._taken_at: float | None = None
        """When a still "hand" was last taken into the reference, until a quiet table has been taken
        in :attr:`clean_after_s` later (None: the reference shows no hand): a reference that may show
        a hand is never kept as :attr:`_before_still`."""
        self.clean_after_s = 1.0
        """A quiet table taken in this long after a still "hand" was is free of it."""
        self._taken: npt.NDArray[np.bool_] = np.zeros(motion.mask.shape, dtype=bool)
        """Where still "hands" were taken into the reference since it last showed no hand: only there
        can a hand's place left show the table before (session 22, seed 319: a far hand the cue hardly
        saw, taken in by a quiet recognition, was in that table; the tap that came back to its place
        elsewhere from the region taken in matched it)."""
        self.stale_min_px = 20
        """Fewest still hand pixels showing that older table for them to be taken in (small copy)."""
        self._bar_since: dict[str, float] = {}
        self.straight_hold_s = 0.2
        """How long the tip of a hand that came straight in onto the bar must stay there to be a tap
        (decision 0726): it carries no checker across (a carry starts on the board). Three frames at
        10 fps: hands on their way over the bar's end to the points beside it stayed one or two."""
        self.away_s = 0.6
        """How long a seat's hand must have been unseen before it comes in for it to come in anew."""
        self.gap_s = 0.15
        """Frames without a seat's hand this far apart at most are one stay of that hand (a frame missed)."""
        self._last_seen: dict[str, float] = {}
        self._straight: dict[str, bool] = {}
        """Per seat: its hand, in this stay, came in after :attr:`away_s` unseen with its tip on the bar
        and has kept it there."""
        self.min_frac = min_frac
        """Smallest hand region, as a share of the board (a hand from the far seat looks small)."""
        self.arm_min_frac = min(min_frac, 0.003)
        """Smallest hand region on the board, as a share of it, where it joins a change beyond a seat's
        edge at least ``min_frac`` of the board large: an arm reaching in, mostly beyond the board
        (session 11, seed 320: the far arm over the far checkers, 0.5-0.9% of the board inside it, was
        taken into the quiet table at the next recognition, and the checkers it moved for turns read
        as moved with no hand; the other seat's and the 15-checker checks then failed)."""
        self.reference: U8 | None = None
        self.changed: U8 | None = None
        self.bar_mask: U8 | None = None
        self.hand_mask: U8 = np.zeros_like(motion.mask)
        """The changed regions taken as hands in the last frame (small copy, 0/255)."""
        self._beyond: tuple[bool, bool] | None = None
        self._outside: U8 = np.zeros_like(motion.mask)
        """What differs from the reference beyond the board (an arm reaching in), last frame."""
        if profile is not None:
            d = profile.dims
            q = d.play_depth / 2
            w = d.bar_width / 2 + 0.5
            quad = profile.project(np.array([[-w, -q, 0.0], [w, -q, 0.0], [w, q, 0.0], [-w, q, 0.0]]))
            mask = np.zeros_like(motion.mask)
            cv2.fillPoly(mask, [np.round(quad * motion.scale).astype(np.int32)], 255)
            self.bar_mask = np.asarray(cv2.dilate(mask, np.ones((3, 3), np.uint8)), dtype=np.uint8)

    def _over(self, blob: U8, side: str, dice_boxes: Sequence[Box]) -> str:
        """What the hand's tip is over: ``bar``, ``dice`` or ``board``."""
        band = self.m.near_band if side == "near" else self.m.far_band
        ys, xs = np.nonzero(blob)
        if len(xs) == 0:
            return "board"
        by, bx = np.nonzero(band)
        edge = np.array([bx.mean(), by.mean()]) if len(bx) else np.array([0.0, 0.0])
        dist = np.hypot(xs - edge[0], ys - edge[1])
        tip = dist >= np.percentile(dist, 97)
        tx, ty = xs[tip], ys[tip]
        sc = self.m.scale
        on_bar = float(np.mean(self.bar_mask[ty, tx] > 0)) if self.bar_mask is not None else 0.0
        h, w = blob.shape[:2]
        for x0, y0, x1, y1 in dice_boxes:  # the fingers are at a die it is taking; an arm reaching over
            pad = max(x1 - x0, y1 - y0)  # the dice to move checkers has its tip beyond them
            near = (tx >= (x0 - pad) * sc) & (tx <= (x1 + pad) * sc) & (ty >= (y0 - pad) * sc) & (ty <= (y1 + pad) * sc)
            if not bool(np.any(near)):
                continue
            # a tip all on the bar beside a die it leaves uncovered is tapping the bar next to the
            # dice (the demo and seed 301: the turn's end missed, the opponent's grab called premature)
            cx, cy = min(w - 1, max(0, int((x0 + x1) / 2 * sc))), min(h - 1, max(0, int((y0 + y1) / 2 * sc)))
            if on_bar >= self.bar_tip_share and not blob[cy, cx]:
                continue
            return "dice"
        if on_bar >= 0.5:
            return "bar"
        return "board"

    def _beyond_in_view(self) -> tuple[bool, bool]:
        """Whether the picture shows enough beyond the near and the far edge (half the band's inner
        part) to see an arm come in there."""
        if self._beyond is None:
            m = self.m
            outside = cv2.bitwise_not(m.mask)
            vis = []
            for band in (m.near_band, m.far_band):
                inner = cv2.countNonZero(cv2.bitwise_and(band, m.mask))
                outer = cv2.countNonZero(cv2.bitwise_and(band, outside))
                vis.append(inner > 0 and outer >= 0.5 * inner)
            self._beyond = (vis[0], vis[1])
        return self._beyond

    def small_grey(self, image: U8) -> U8:
        m = self.m
        small = cv2.resize(image[::m.stride, ::m.stride], m.small, interpolation=cv2.INTER_AREA)
        return np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small, dtype=np.uint8)

    def __call__(self, grey: U8, dice_boxes: Sequence[Box], t: float | None = None) -> list[HandObservation]:
        """The hands in this frame (``t``: its time; with it, a tip on the bar counts as a bar tap only
        once it has stayed there ``bar_hold_s``: a hand carrying a checker across the bar passes over it;
        ``straight_hold_s`` for a hand that came in straight onto the bar, decision 0726)."""
        hands = self._hands(grey, dice_boxes)
        if t is None:
            return hands
        out = []
        for h in hands:
            last = self._last_seen.get(h.side)
            if last is None or t - last > self.gap_s + 1e-6:  # this seat's hand comes in
                self._straight[h.side] = last is None or t - last >= self.away_s - 1e-6
            self._last_seen[h.side] = t
            if h.over == "bar":
                since = self._bar_since.setdefault(h.side, t)
                hold = self.straight_hold_s if self._straight.get(h.side) else self.bar_hold_s
                if t - since < hold - 1e-6:
                    h = HandObservation(h.side, "board", h.touching, h.point)
            else:
                self._straight[h.side] = False
                self._bar_since.pop(h.side, None)
            out.append(h)
        for side in [s for s in self._bar_since if all(h.side != s for h in hands)]:
            del self._bar_since[side]
        return out

    def _hands(self, grey: U8, dice_boxes: Sequence[Box]) -> list[HandObservation]:
        m = self.m
        self.hand_mask = np.zeros_like(m.mask)
        self._outside = np.zeros_like(m.mask)
        if self.reference is None:
            self.reference = grey
            return []
        diff = cv2.absdiff(grey, self.reference)
        _, changed_all = cv2.threshold(diff, m.config.motion_delta, 255, cv2.THRESH_BINARY)
        changed = cv2.bitwise_and(changed_all, m.mask)
        self.changed = np.asarray(changed, dtype=np.uint8)
        frac = cv2.countNonZero(changed) / m.mask_count
        if frac < self.arm_min_frac:
            return []
        # beyond each seat's edge: an arm comes in from there (fingers that reach the near edge from
        # the far seat do not cross it)
        outside = cv2.bitwise_and(changed_all, cv2.bitwise_not(m.mask))
        self._outside = np.asarray(outside, dtype=np.uint8)
        out_near = cv2.bitwise_and(outside, m.near_band)
        out_far = cv2.bitwise_and(outside, m.far_band)
        seen_near, seen_far = self._beyond_in_view()
        least = self.min_frac * m.mask_count
        # the parts of the change beyond the board as large as a hand: an arm seen coming in
        n_out, out_labels, out_stats, _ = cv2.connectedComponentsWithStats(self._outside, connectivity=8)
        big_out = np.isin(out_labels, [i for i in range(1, n_out) if out_stats[i, cv2.CC_STAT_AREA] >= least])
        arm_out = np.asarray(big_out, dtype=np.uint8) * 255
        if frac < self.min_frac and not cv2.countNonZero(arm_out):
            return []
        # connected regions large enough to be a hand; moved checkers and dice are separate small regions
        n, labels, stats, _ = cv2.connectedComponentsWithStats(self.changed, connectivity=8)
        grow = np.ones((5, 5), np.uint8)
        # the arm beyond an edge and its hand on the board may be apart by a wrist over the rail that
        # differs little from the reference (seed 320's far arm over the walnut rail: 2-3 small pixels)
        wrist = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
        arm_band = cv2.bitwise_and(arm_out, cv2.bitwise_or(m.near_band, m.far_band))
        Side = Literal["near", "far"]
        arms: dict[Side, U8] = {}
        orphans: list[tuple[U8, Side | None]] = []
        banded: list[tuple[U8, Side]] = []

        def join(side: Side, blob: U8) -> None:
            arms[side] = blob if side not in arms else np.asarray(cv2.bitwise_or(arms[side], blob), dtype=np.uint8)

        for i in range(1, n):
            area = stats[i, cv2.CC_STAT_AREA]
            if area < self.arm_min_frac * m.mask_count:
                continue
            blob = np.asarray(labels == i, dtype=np.uint8) * 255
            reach = cv2.dilate(blob, grow)
            if area < least:  # too small for a hand on the board: one only with an arm beyond the edge next to it
                reach = cv2.dilate(blob, wrist)
                if not cv2.countNonZero(cv2.bitwise_and(reach, arm_band)):
                    continue
            near_out = cv2.countNonZero(cv2.bitwise_and(reach, out_near))
            far_out = cv2.countNonZero(cv2.bitwise_and(reach, out_far))
            near = cv2.countNonZero(cv2.bitwise_and(blob, m.near_band))
            far = cv2.countNonZero(cv2.bitwise_and(blob, m.far_band))
            band_side: Side | None = None if max(near, far) == 0 else ("near" if near >= far else "far")
            # an edge whose outside is out of the picture: touching its band is all there is to see
            near_ev = near_out if seen_near else near
            far_ev = far_out if seen_far else far
            if max(near_ev, far_ev) > 0:
                side_ev: Side = "near" if near_ev >= far_ev else "far"
                seen_side = seen_near if side_ev == "near" else seen_far
                band = m.near_band if side_ev == "near" else m.far_band
                touched = np.unique(out_labels[cv2.bitwise_and(reach, band) > 0])
                beyond = max((int(out_stats[j, cv2.CC_STAT_AREA]) for j in touched if j > 0), default=0)
                if not seen_side or beyond < least / 2:
                    # only its band, or fingertips over the edge (no arm beyond it), say so: decided
                    # once the arms are known
                    banded.append((blob, side_ev))
                else:
                    join(side_ev, blob)
            else:
                orphans.append((blob, band_side))
        # a region whose side only an edge band out of the picture or fingertips over the edge give,
        # touching an arm seen coming in over the other edge, is that arm's hand cut off by a strip
        # that differs little from the table (seed 321: the near arm reaching over the far rail, its
        # hand read as a far hand over the dice, a false FAST_GRAB); one merely near it keeps its side
        seen_arms = dict(arms)
        for blob, side_ev in banded:
            other: Side = "far" if side_ev == "near" else "near"
            if other in seen_arms and cv2.countNonZero(cv2.bitwise_and(cv2.dilate(blob, wrist), seen_arms[other])):
                join(other, blob)
            else:
                join(side_ev, blob)
        # a region that crosses no seat's edge belongs to the nearest arm within ``join_gap_px`` (a
        # palm cut off from its forearm); farther away it is no part of a hand (checkers moved since
        # the quiet table, which would otherwise become the hand's "tip" and hide a bar tap); with no
        # arm in sight the edge band decides only where the picture ends at that edge (where it shows
        # what lies beyond, a region that does not continue there is no arm: seed 307's hit blot, gone
        # from its place by the near rail, read as a near hand over the dice, a false FAST_GRAB)
        gap = max(1, int(round(self.join_gap_px * m.scale)))
        reach_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap + 1, 2 * gap + 1))
        arm_reach = {k: cv2.dilate(v, reach_k) for k, v in arms.items()}
        for blob, band_side in orphans:
            if arm_reach:  # (the arms that cross an edge; one joined below from its band is no such arm)
                touching = {k: cv2.countNonZero(cv2.bitwise_and(r, blob)) for k, r in arm_reach.items()}
                if max(touching.values()) > 0:
                    ys, xs = np.nonzero(blob)
                    centre = np.array([xs.mean(), ys.mean()])
                    near_arms = [k for k in arm_reach if touching[k] > 0]
                    join(min(near_arms, key=lambda k: float(np.min(np.hypot(*(np.nonzero(arms[k])[::-1] - centre[:, None]))))), blob)
            elif band_side is not None and not (seen_near if band_side == "near" else seen_far):
                join(band_side, blob)
        out: list[HandObservation] = []
        sides: tuple[Side, Side] = ("near", "far")
        for side in sides:
            if side in arms:
                blob = arms[side]
                self.hand_mask = np.asarray(cv2.bitwise_or(self.hand_mask, blob), dtype=np.uint8)
                out.append(HandObservation(side, self._over(blob, side, dice_boxes), touching=True))
        return out

    def take_in_still(self, grey: U8, still_for: npt.NDArray[np.float64], still_s: float, remnant_s: float,
                      left_s: float | None = None, t: float | None = None) -> bool:
        """Take into the reference each hand region none of whose pixels moved for ``still_s``
        (``still_for``: per small-copy pixel, seconds since it last changed from one frame to the
        next), or for ``remnant_s`` while another hand region moved since, with the change beyond the
        edge joined to it; whether any was. Such a "hand" is the place an arm left after being taken
        in as table (the whole table still for ``hand_still_s``, or a recognition that did not see
        an arm coming in): it differs from the reference but nothing moves there. (A hand held still
        is taken in too, after ``still_s``: a double offered with the hand on the cube is still a
        while, hence the longer wait for a region alone.) Hand pixels still for ``left_s`` (default
        ``remnant_s``) that show the table as it was before a still "hand" was taken in are table
        again at once: the place that hand left."""
        if self.reference is None or not np.any(self.hand_mask):
            return False
        # a hand pixel still for ``left_s`` that shows the table as it was before a still "hand"
        # was taken in (:meth:`settle` with ``still_hand``, or a region taken in here) is table: the
        # place the arm left, joined to the arm that moved on (seed 308: the near arm, still 0.8 s
        # over a far point, was taken in; carrying the checker away it left its old place as a "hand"
        # joined to it, whose far end was read as the tip of the bar tap that followed, and the tap
        # was missed), or alone (seed 322: the hand that put a hit checker on the bar, still there
        # 0.5 s, was taken in; gone, its place read as a hand at the bar for 1 s, and the tap that
        # came meanwhile was no new hand: the turn's end was missed and the opponent's throw called
        # premature)
        stale = np.zeros(self.hand_mask.shape, dtype=bool)
        if self._before_still is not None and self._before_still.shape == grey.shape:
            shows_before = ((still_for >= (remnant_s if left_s is None else left_s))
                            & (cv2.absdiff(grey, self._before_still) < self.m.config.motion_delta))
            shows_before &= self._taken
            stale = (self.hand_mask > 0) & shows_before
            if np.count_nonzero(stale) < self.stale_min_px:
                stale[:] = False
            else:  # with the arm's place beyond the edge (else the arm coming back there is not seen)
                stale |= (self._outside > 0) & shows_before
        n, labels = cv2.connectedComponents(self.hand_mask, connectivity=8)
        grow = np.ones((5, 5), np.uint8)
        regions = [np.asarray(cv2.dilate(np.asarray(labels == i, dtype=np.uint8), grow), dtype=bool) for i in range(1, n)]
        still = [float(np.min(still_for[r])) for r in regions]
        take = np.zeros(self.hand_mask.shape, dtype=bool)
        for i, region in enumerate(regions):
            others_moved = any(a < remnant_s for j, a in enumerate(still) if j != i)
            if still[i] >= still_s or (still[i] >= remnant_s and others_moved):
                take |= region
        if not np.any(take):
            if not np.any(stale):
                return False
            self.reference = np.where(stale, grey, self.reference).astype(np.uint8)
            self._taken &= ~stale
            return True
        k, out_labels = cv2.connectedComponents(self._outside, connectivity=8)
        touching = np.unique(out_labels[cv2.dilate(take.astype(np.uint8), grow) > 0])
        # the change beyond the edge joined to it, unless it is joined to a hand region that moved as
        # well: the arm of a hand coming in beside the remnant (session 22, seed 319: a far remnant by
        # the edge taken in with the arm of the tap coming in next to it; the hand, cut from its arm,
        # was no hand, and the tap was missed). (Beyond the board nothing is followed for motion.)
        moving = np.zeros(self.hand_mask.shape, dtype=bool)
        for i, region in enumerate(regions):
            if not take[region].all() and still[i] < remnant_s:
                moving |= region
        armed = set(np.unique(out_labels[cv2.dilate(moving.astype(np.uint8), grow) > 0]).tolist())
        take |= np.isin(out_labels, [c for c in touching if c > 0 and c not in armed])
        self._keep_before(t, take)  # to know the place that hand leaves
        self.reference = np.where(take, grey, self.reference).astype(np.uint8)
        return True

    def settle(self, grey: U8, still_hand: bool = False, t: float | None = None) -> None:
        """The table is quiet and without hands: this is the new reference. ``still_hand``: a "hand"
        that has not moved for a while is taken in whole (it may be an arm held still: the table as
        it was before is kept to recognise the place it leaves, :meth:`take_in_still`). ``t``: the
        frame's time (without it a quiet table is taken as free of hands at once)."""
        if still_hand and self.reference is not None:
            self._keep_before(t, cv2.absdiff(grey, self.reference) >= self.m.config.motion_delta)
        elif self._taken_at is not None and (t is None or t - self._taken_at >= self.clean_after_s):
            self._taken_at = None
            self._taken[:] = False
        elif self._taken_at is not None and self.reference is not None:
            # soon after a still "hand" was taken in, what this quiet table changes may be the rest of
            # that hand (seed 322: the arm's part taken in, the hand at the bar no longer joined to an
            # arm, and the recognition that followed took it in as table)
            self._taken |= cv2.absdiff(grey, self.reference) >= self.m.config.motion_delta
        self.reference = grey

    def _keep_before(self, t: float | None, taken: npt.NDArray[np.bool_]) -> None:
        """A still "hand" (``taken``: its pixels) is being taken into the reference: keep the reference
        as the table before it, if it shows no hand itself."""
        if self._taken_at is None:
            self._before_still = self.reference
        self._taken_at = t if t is not None else 0.0
        self._taken |= taken


# ----------------------------------------------------------------------------------------- the pipeline
@dataclass
class PipelineConfig:
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    max_dice: int = 2
    """Dice kept per frame (two-dice play: 2; four-dice mode: 4), the most confident first."""
    dice_locator: Literal["model", "background"] = "model"
    """``model`` (default): the recognizer's locator (:meth:`FrameRecognizer.locate_dice`);
    ``background``: the classical detector (``vision.dice_detect``) against the table as last seen
    quiet, the dice regions kept from before (decision 0652). Either way the same filters follow
    (dice already followed first, nothing inside a hand, no new die next to a hand)."""
    prefer_followed: bool | None = None
    """Keep boxes where dice are already followed before more confident new ones; None: for the
    ``background`` locator only (measured, decision 0652: it helps the classical detector, whose
    moved-checker blobs score high, and hurts the trained one, whose early false boxes would stick)."""
    hands: bool = True
    """Report hands from the difference with the quiet table (:class:`HandCue`)."""
    hand_min_frac: float = 0.012
    """Smallest region taken as a hand, as a share of the board (a hand from the far seat looks small)."""
    hand_still_s: float = 0.8
    """A "hand" that has not moved for this long is taken as part of the table (the reference is renewed)."""
    hand_region_still_s: float = 1.0
    """A "hand" whose own region has not moved for this long, while the table moves elsewhere, is
    taken into the table there (:meth:`HandCue.take_in_still`)."""
    hand_remnant_still_s: float = 0.5
    """The same while another hand region moved since: the place an arm left, the arm now elsewhere
    (in the demo the near arm's old place, reaching the near edge, was the hand's "tip" while the
    arm tapped the bar: the tap was missed)."""
    hand_left_still_s: float = 0.2
    """Pixels of a hand, still this long, that show the table as it was before a still "hand" was
    taken in are the place it left, table again (under ``HandCue.bar_hold_s``: that place by the bar
    must not last long enough to read as a tap)."""
    new_die_min_frac: float = 0.6
    """A box smaller than this share of the size the followed dice show at its place is not taken for
    a new die (:meth:`FramePipeline._too_small`; 0 turns the check off)."""
    die_changed_frac: float = 0.15
    """A die box must differ from the table as last seen quiet on at least this share of its pixels
    (grey difference above ``die_changed_delta``): a die arrives by a throw, so it is not part of the
    quiet table; checker edges and the cube, which the locator can mistake for dice, are (0: off)."""
    die_changed_delta: int = 30
    die_gone_frac: float = 0.4
    """A followed die at rest that the locator no longer finds, with no hand next to it, is gone when
    its spot differs from how the die looked there at the last recognition (grey difference above
    ``die_changed_delta``) on at least this share of its pixels."""
    die_fill_frac: float = 0.3
    """A box the whole-frame second look finds too small for a die there is taken at a die's size when
    that box differs from the quiet table on at least this share of its pixels (a die fills half of
    it or more; a 16 px change in a 36 px box is 0.2): :meth:`FramePipeline._look_again`."""
    hand_memory_s: float = 0.5
    """No new die where a hand was within this many seconds: a hand puts checkers and the cube down,
    while thrown dice land away from it."""
    second_look_score: float = 0.2
    """A followed die the locator did not find is looked for again around its last place, keeping
    boxes from this score (the locator's own threshold is 0.35; 0: no second look)."""
    second_look_px: float = 80.0
    """How far from a rolling die's last place the second look goes (one at rest: ``rest_claim_px``)."""
    pair_min_ratio: float = 1.1
    """A lone die of a throw whose box is this many times the size the followed dice show at its place
    (:meth:`FramePipeline._die_ratio`) is looked at closer for two dice touching
    (:meth:`FramePipeline._look_closer`; 0: never). Seed 358's pair showed 1.14 (a box of 1.05 of the
    default die there, the match's dice 0.92)."""
    pair_reach_sides: float = 2.5
    """A lone die of a throw is also looked at closer, whatever its box's size, when the throw's other
    die, followed in flight and not found since, was last seen rolling within this many die sides of
    it (:meth:`FramePipeline._lost_beside`; 0: never): seed 361's pairs, 32 and 41 px away."""
    pair_apart_frac: float = 0.4
    """Two peaks of the closer look are two dice when their centres lie this share of their boxes' side
    apart or more."""
    keep_unchanged: bool = False
    """Strips, cube windows and the cube's face whose pixels are as when last read keep that reading
    (:meth:`vision.board_reader.BoardReader.keep_unchanged`, decision 0747): a settled table is
    recognised every 0.2 s while dice come to rest, and most of it has not changed (a recognition 65 ->
    47 ms on seed 306). Off by default: seed 362 served with it lost two turns (the tracker's fused
    probabilities differ slightly, and a marginal decision under a hand went the other way). For the
    pipeline's own recognizer; one given to :class:`FramePipeline` is used as it is."""
    rest_claim_px: float = 20.0
    """A die at rest claims only a box this close (frame pixels; a die is about 25 px across at
    720p): a resting die does not jump; one taken away without a hand in view would otherwise
    follow the next die-like box (in the demo a checker's edge 25 px from where the last turn's die
    lay, and others 100 px away, were followed as dice and judged on the wrong side of the bar)."""


@dataclass
class FrameResult:
    """What one frame produced: the states to feed (in order) and what the stages did."""

    frame_id: int
    t: float
    states: list[dict[str, Any]]
    recognized: bool
    moving: bool
    hands: list[HandObservation]
    dice_boxes: list[Box]
    timings_ms: dict[str, float]
    recognition: Recognition | None = None


class FramePipeline:
    """One calibrated camera: frames -> table states (see the module docstring).

    ``recognizer`` defaults to :class:`vision.recognizer.FrameRecognizer` with the committed models.
    Frames must match the profile's image size (else :class:`PipelineError` naming the fix).
    """

    def __init__(self, profile: CalibrationProfile, *, recognizer: FrameRecognizer | None = None,
                 config: PipelineConfig | None = None, times: StageTimes | None = None, source: str = "vision") -> None:
        self.profile = profile
        self.config = config or PipelineConfig()
        if recognizer is None:
            recognizer = FrameRecognizer(profile)
            recognizer.board_reader.keep_unchanged(self.config.keep_unchanged)
        self.recognizer = recognizer
        self.motion = MotionDetector(tuple(profile.image_size), board_polygon=outer_corners(profile.corners),  # type: ignore[arg-type]
                                     config=self.config.tracker)
        self.hand_cue = HandCue(self.motion, profile, self.config.hand_min_frac)
        self.tracker = Tracker(self.config.tracker, source=source)
        self.times = times or StageTimes()
        self._die_px = die_px_range(profile)
        self._die_ratios: deque[float] = deque(maxlen=50)
        """The followed dice's boxes, each over the default die's box at its place (:meth:`_too_small`)."""
        self._background: U8 | None = None
        self._die_looks: list[tuple[tuple[float, float], U8]] = []
        """Each followed die at rest as last found at a recognition: its centre and the pixels of its
        spot. A spot that no longer looks like its die shows it taken, when the copy of the quiet table
        there is stale (a checker moved away just before the die landed on its place)."""
        self._boxes: list[Box] = []
        self._located: list[Box] = []
        """Every box the locator gave in the last look, before the filters."""
        self._located_since: dict[tuple[int, int], tuple[float, float]] = {}
        """When the locator first and last gave a box at each place (its centre on an 8 px grid)."""
        self._dice_where: list[Box] = []
        """Where the dice were last seen (kept while a hand hides them, so the hand is known to be over them)."""
        self._last_motion_t = -math.inf
        self._hand_seen: npt.NDArray[np.float64] = np.full(self.motion.mask.shape, -math.inf)
        """Per small-copy pixel, the time a hand last covered it."""
        self._moved_at: npt.NDArray[np.float64] = np.full(self.motion.mask.shape, -math.inf)
        """Per small-copy pixel, the time it last changed from one frame to the next."""
        self._t = 0.0
        self.frames = 0
        self.recognitions = 0
        self.last_frame_id = -1

    # ------------------------------------------------------------------ dice
    def locate_dice(self, image: U8, settled: bool = False) -> list[Box]:
        """Dice boxes on (or next to) the playing surface, the ``max_dice`` most confident (``settled``:
        a quiet frame about to be recognised, which the locator looks at more closely)."""
        boxes: list[Box]
        if self.config.dice_locator == "model":
            # (a box that shows the quiet table is no die that arrived: it does not count as one of the
            # two dice found plainly, after which the locator would not look again)
            found = self.recognizer.locate_dice(image, settled=settled,  # highest score first
                                                arrived=lambda b: self._differs_from_table(image, b))
            boxes = [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in found]
            scores = [1.0 - i / max(1, len(found)) for i in range(len(found))]
        else:
            det = detect_dice(image, die_px=self._die_px, background=self._background)
            boxes = [(float(b[0]), float(b[1]), float(b[2]), float(b[3])) for b in det.xyxy]
            scores = [float(c) for c in det.confidence]
        self._located = boxes
        # how long the locator has been firing at each place (kept 1 s through missed frames)
        spots = {k: v for k, v in self._located_since.items() if self._t - v[1] <= 1.0}
        for b in boxes:
            key = _spot(b)
            spots[key] = (spots.get(key, (self._t, self._t))[0], self._t)
        self._located_since = spots
        hands = Motion(0.0, False, None, self.hand_cue.hand_mask)
        hand_present = bool(np.any(self.hand_cue.hand_mask))
        followed = self.tracker.followed_dice()
        recent = self._t - self._hand_seen <= self.config.hand_memory_s
        hand_lately = Motion(0.0, False, None, np.asarray(recent, dtype=np.uint8))
        # each followed die claims the nearest box within the tracker's gate (a rolling die moves far;
        # one at rest only ``rest_claim_px``), but not a box the locator has given at one place for 2 s
        # while the die was elsewhere (a checker's edge by the spot where a die near the camera went unseen)
        gate = self.config.tracker.gate_px
        near = self.config.tracker.move_hand_px
        hidden = self.tracker.hidden_dice()  # (a die lifted at rest under a hand may only have been hidden)
        followed = [*followed, *hidden]
        resting = {*self.tracker.followed_dice(resting=True), *hidden}
        far = self.config.rest_claim_px
        # nor, for a die in flight, a box that shows the quiet table (seed 321: the cube, located at
        # 0.35, took the place of a rolling die the locator scored under its threshold; the die was
        # never looked for again and the roll was called 'off board')
        table = [not self._differs_from_table(image, b) for b in boxes]
        cost = [[math.inf if ((d := math.dist(_centre(b), c)) > near and self._static(b)) or (c in resting and d > far)
                 or (c not in resting and table[i]) else d for i, b in enumerate(boxes)] for c in followed]
        pairs = assign(cost, gate)
        claimed = {i for _, i in pairs}
        cands: list[tuple[bool, float, Box]] = []
        for k, (b, conf) in enumerate(zip(boxes, scores, strict=True)):
            box: Box = (b[0], b[1], b[2], b[3])
            if self.motion.changed_in(hands, box) > 0.3:
                continue  # part of a hand or of what it carries
            if self.config.dice_locator != "model" and half_of(self.profile, die_board_xy(self.profile, box)) is None:
                continue  # (the recognizer's locator keeps dice just off the surface: validity judges them)
            known = k in claimed  # (each followed die claims one box: a second box near it is new)
            if known and self.config.new_die_min_frac > 0:
                self._die_ratios.append(self._die_ratio(box))
            if not known and self._static(box):
                continue  # found at this place for 2 s, before any throw: something on the table
            if not known and self._too_small(box):
                continue  # far smaller than a die lying there would look: not a die arriving
            if not known and self._at_frame_edge(box):
                continue  # dice are thrown onto the board: by the frame's edge, an arm coming or going
            if not known and table[k]:
                continue  # part of the quiet table (a checker's edge, the cube): not a die that arrived
            if not known and (hand_present or self.motion.changed_in(hand_lately, box) > 0.3):
                continue  # dice appear from a throw, not where a hand is putting something down
            cands.append((known, conf, box))
        # dice already followed first (a die at rest stays where it is), then the most confident
        prefer = self.config.prefer_followed
        if prefer is None:
            prefer = self.config.dice_locator == "background"
        cands.sort(key=lambda c: (prefer and not c[0], -c[1]))
        # a new die takes a free place: the dice the tracker follows (seen or hidden under an arm) hold
        # theirs, but not one lost in flight (its track goes to the new die), nor, against a new die
        # the locator is surer of, one never seen away from where it appeared: a thrown die is seen
        # rolling (the demo's table: a white point's tip uncovered as the checkers were set up, 0.44,
        # held a die's place from frame 517, and the cocked die of the opening roll, 0.82, was never
        # followed)
        free = self.config.max_dice - len(self.tracker.followed_dice(holding=True))
        unmoved = set(self.tracker.unmoved_dice())
        unmoved_boxes = {boxes[k]: followed[r] for r, k in pairs if followed[r] in unmoved}
        yielding = [box for known, _, box in cands[::-1] if known and box in unmoved_boxes]  # the least sure first
        out: list[Box] = []
        dropped: set[Box] = set()
        for known, _, box in cands:
            if len(out) >= self.config.max_dice:
                break
            if box in dropped:
                continue
            if not known:
                if free <= 0:
                    weaker = [b for b in yielding if b not in dropped and b not in out]
                    if not weaker:
                        continue
                    dropped.add(weaker[0])
                    self.tracker.forget_unmoved(unmoved_boxes[weaker[0]])
                    free += 1
                free -= 1
            out.append(box)
        if self.config.dice_locator == "model" and self.config.second_look_score > 0:
            self._look_again(image, out, [c for k, c in enumerate(self.tracker.followed_dice())
                                          if all(r != k for r, _ in pairs)], resting, hands)
            lone_thrown = (self.config.max_dice == 2 and len(out) == 1 and not hand_present
                           and any(math.dist(_centre(out[0]), c) <= self.config.rest_claim_px for c in self.tracker.thrown_dice()))
            now_followed = self.tracker.followed_dice()
            n_followed = len(now_followed)
            if lone_thrown and n_followed <= 1:
                self._look_closer(image, out)
            elif lone_thrown and n_followed == 2 and (all(box_holds(out[0], c) for c in now_followed)
                                                      or self._lost_beside(out[0], now_followed)):
                # two dice followed and one box: both inside it (the pair it held, seen apart before), or
                # the other, followed in flight, last seen rolling beside it and not found since. They
                # may rest touching, one behind the other (seed 361 frames 1117-1145: two 6s, the far
                # one's face showing above the near one's, one box hardly larger than a die; the rolling
                # one was dropped as lifted and the dance taken with one die seen): looked at closer
                # whatever the box's size (decision 0744)
                self._look_closer(image, out, any_size=True)
            if lone_thrown and n_followed <= 1 and len(out) == 1:
                # one die of a throw found (seen rolling), and no other followed: the other may lie by
                # it, scored under the locator's threshold (seed 321: the 1 by its throw's 4, and the
                # roll taken as unseen; seed 322: a 6 touching its 4, half on a red point's tip, 0.21).
                # Not beside something never seen moving (the demo's white point tip: a false die by
                # it took the place of the next throw's die)
                self._look_again(image, out, [_centre(out[0])], set(), hands, beside=True)
            if (lone_thrown and settled and len(out) == 1
                    and (n_followed <= 1 or (n_followed == 2 and len(self.tracker.lost_dice()) == 1))
                    and not self.tracker.taken_since_rest(_centre(out[0]))):
                # one die of a throw at rest, the other never followed or lost in flight, and not found
                # beside it or near its last place: a look over the whole frame at the second look's
                # score (seed 321: a 4 on a walnut board's dark point at 0.33, 360 px from where it was
                # last seen rolling; seed 322: a 4 at 0.32 never followed, 130 px from its 3; both
                # rolls were taken as unseen). Settled frames only: the table is quiet, and what is new
                # on it since it was last quiet is the die (the first settled frame: a recognition then
                # takes what the locator did not find into the quiet table). Not when the other die lay
                # at rest after this one came to rest and was then lifted (:meth:`Tracker.taken_since_rest`)
                self._look_again(image, out, [_centre(out[0])], set(), hands, beside=True,
                                 radius=float(max(image.shape[0], image.shape[1])))
        return out

    def _look_again(self, image: U8, out: list[Box], missed: list[tuple[float, float]],
                    resting: set[tuple[float, float]], hands: Motion, beside: bool = False,
                    radius: float | None = None) -> None:
        """A second look, at a lower score, where a followed die was not found: within a die's width
        of one at rest, within ``second_look_px`` of one rolling (a white die on a walnut board,
        plainly in view, scored 0.32 against the locator's 0.35 and the roll went unseen). ``beside``:
        ``missed`` are dice found, and the look goes within ``second_look_px`` of them for another.
        What is found must differ from the quiet table, not be part of a hand and lie apart from the
        boxes in ``out``; it is added to ``out``. ``radius``: how far the look goes (instead of the
        above); a box found so that is too small for a die there (:meth:`_too_small`) is taken at a
        die's size (:meth:`_die_sized`)."""
        for c in missed:
            if len(out) >= self.config.max_dice:
                return
            if not beside and any(math.dist(_centre(b), c) <= self.config.rest_claim_px for b in out):
                continue
            reach = radius if radius is not None else (
                self.config.rest_claim_px if c in resting and not beside else self.config.second_look_px)
            for b in self.recognizer.look_again(image, c, reach, self.config.second_look_score):
                box: Box = (b[0], b[1], b[2], b[3])
                if (self.motion.changed_in(hands, box) > 0.3 or not self._differs_from_table(image, box)
                        or any(math.dist(_centre(o), _centre(box)) <= self.config.rest_claim_px for o in out)):
                    continue
                if radius is not None and self._too_small(box):
                    # a weak peak's box may be sized poorly: a die is there if a die-sized box around it
                    # has changed (session 37, seed 360: a white 2 on walnut at 0.23, its box 22 px where
                    # a die there shows 39, refused as too small: the roll went unseen; the die-sized box
                    # had changed on 54% of its pixels). Something small that changed is still no die
                    sized = self._die_sized(box)
                    if not self._differs_from_table(image, sized, self.config.die_fill_frac):
                        continue
                    box = sized
                out.append(box)
                break

    def _lost_beside(self, box: Box, followed: list[tuple[float, float]]) -> bool:
        """A followed die outside ``box``, not at rest, was last seen within ``pair_reach_sides`` die sides
        of it (the size the followed dice show there)."""
        reach = self.config.pair_reach_sides * self._followed_scale(1.0) * self._flat_die_side(box)
        if reach <= 0:
            return False
        resting = set(self.tracker.followed_dice(resting=True))
        return any(c not in resting and not box_holds(box, c) and math.dist(c, _centre(box)) <= reach for c in followed)

    def _look_closer(self, image: U8, out: list[Box], any_size: bool = False) -> None:
        """One die of a throw found, in a box ``pair_min_ratio`` times the size the dice show at its place
        or more: the box may hold both dice, touching (seed 358 frame 765: a 5 and a 3 corner to corner,
        seen apart in flight, one box 36 x 39 px where a die shows about 27; the 3 was read, the 5 never
        followed, and the roll was taken as unseen). The locator looks closer at the box
        (:meth:`FrameRecognizer.look_closer`); two peaks inside it in one window, apart by ``pair_apart_frac`` of their
        sides or more, each differing from the quiet table, are the two dice. ``any_size``: whatever the
        box's size (two dice followed and this one box: both inside it, or the other last seen rolling
        beside it, :meth:`_lost_beside`; decision 0744)."""
        need = self.config.pair_min_ratio
        if need <= 0 or len(out) != 1 or (not any_size and self._die_ratio(out[0]) < need * self._followed_scale(1.0)):
            return
        for found in self.recognizer.look_closer(image, out[0], self.config.second_look_score):
            if len(found) < 2:
                continue
            a, b = found[:2]
            side = (max(a[2] - a[0], a[3] - a[1]) + max(b[2] - b[0], b[3] - b[1])) / 2
            if (math.dist(_centre(a), _centre(b)) >= self.config.pair_apart_frac * side
                    and self._differs_from_table(image, a) and self._differs_from_table(image, b)):
                out[:] = [(a[0], a[1], a[2], a[3]), (b[0], b[1], b[2], b[3])]
                return

    def _at_frame_edge(self, box: Box) -> bool:
        """The box lies within half its side of the frame's edge (session 39, seed 359 frame 1383: as the
        near player's arm left the frame after he tapped the bar, a box at its edge, 6 px from the
        bottom of the frame, was taken for a die thrown; it took the track of a die his hand had hidden,
        which was then seen coming to rest anew as a roll on the wrong side)."""
        w, h = self.profile.image_size
        margin = 0.5 * max(box[2] - box[0], box[3] - box[1])
        return box[0] < margin or box[1] < margin or box[2] > w - margin or box[3] > h - margin

    def _die_sized(self, box: Box) -> Box:
        """A box of the size the followed dice show at the box's place (the default die's until three
        were seen), centred on it."""
        side = self._followed_scale(1.0) * self._flat_die_side(box)
        cx, cy = _centre(box)
        return (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)

    def _flat_die_side(self, box: Box) -> float:
        """The longer side of the box a die of ``DEFAULT_DIE_CM`` lying flat at the box's place shows
        (from the calibration)."""
        flat = flat_die_boxes(self.profile, die_board_xy(self.profile, box), DEFAULT_DIE_CM, 0.0)[0]  # square to the board
        return float(max(flat[2] - flat[0], flat[3] - flat[1]))

    def _followed_scale(self, default: float) -> float:
        """The followed dice's boxes over the default die's (their median :meth:`_die_ratio`), or
        ``default`` until three were seen."""
        return float(np.median(self._die_ratios)) if len(self._die_ratios) >= 3 else default

    def _die_ratio(self, box: Box) -> float:
        """The box's longer side over :meth:`_flat_die_side` at its place."""
        side = self._flat_die_side(box)
        return max(box[2] - box[0], box[3] - box[1]) / side if side > 0 else 1.0

    def _too_small(self, box: Box) -> bool:
        """The box is under ``new_die_min_frac`` of the size the followed dice show at its place (their
        boxes' median :meth:`_die_ratio`; 0.75 of the default die's until three were seen: dice differ in
        size, and the smallest simulated ones show 0.64 of it). Session 11, the demo's table from its
        JPEG frames: a 15 px box by the near rail (0.53 of the default die there, where the match's
        dice showed 0.95-1.33) took a die's place with both dice in the cup; the real die that landed
        in the other half was never followed and the roll was called 'wrong side' (the same table's
        MP4 never had that box: which false box gets in decides)."""
        need = self.config.new_die_min_frac
        if need <= 0:
            return False
        return self._die_ratio(box) < need * self._followed_scale(0.75)

    def _static(self, box: Box) -> bool:
        """The locator has given a box at this place for 2 s or more (with at most 1 s missed)."""
        first_last = self._located_since.get(_spot(box))
        return first_last is not None and self._t - first_last[0] >= 2.0

    def _differs_from_table(self, image: U8, box: Box, frac: float | None = None) -> bool:
        """Whether the box differs from the table as last seen quiet (``die_changed_frac`` of its pixels)."""
        need = self.config.die_changed_frac if frac is None else frac
        if need <= 0 or self._background is None:
            return True
        h, w = int(image.shape[0]), int(image.shape[1])
        x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
        x1, y1 = min(w, int(math.ceil(box[2]))), min(h, int(math.ceil(box[3])))
        if x1 <= x0 or y1 <= y0:
            return False
        a = np.asarray(image[y0:y1, x0:x1], dtype=np.int16)
        b = np.asarray(self._background[y0:y1, x0:x1], dtype=np.int16)
        diff = np.abs(a - b).max(axis=2)
        return float(np.mean(diff > self.config.die_changed_delta)) >= need

    def _update_background(self, image: U8, boxes: Sequence[Box]) -> None:
        """The quiet table without dice: take the frame, keeping the old pixels under the dice."""
        if self._background is None:
            self._background = image.copy()
            return
        keep = np.zeros(image.shape[:2], dtype=bool)
        h, w = int(image.shape[0]), int(image.shape[1])
        half = self._die_px[1] / 2  # and where the followed dice are, found in this frame or not, and
        around = [(cx - half, cy - half, cx + half, cy + half) for cx, cy in self.tracker.followed_dice()]
        held = [b for b in self._located  # whatever the locator took for a die, for a moment: a die held
                # back (where a hand just was) must still differ from the table later; something
                # located at the same place for 2 s that is no die (a checker put there) joins the table
                if not self._static(b)]
        for x0, y0, x1, y1 in [*boxes, *around, *held]:
            pad = 0.35 * max(x1 - x0, y1 - y0)
            a, b = max(0, int(x0 - pad)), min(w, int(math.ceil(x1 + pad)))
            c, d = max(0, int(y0 - pad)), min(h, int(math.ceil(y1 + pad)))
            keep[c:d, a:b] = True
        self._background = np.where(keep[..., None], self._background, image)

    def _moving_dice(self, boxes: Sequence[Box]) -> list[DieObservation]:
        out = []
        for b in boxes:
            half = half_of(self.profile, die_board_xy(self.profile, b))
            out.append(DieObservation(UNIFORM, _centre(b), b, half, "rolling"))
        return out

    # ------------------------------------------------------------------ one frame
    def process(self, image: U8, frame_id: int, t: float) -> FrameResult:
        """Run one frame through motion, hands, dice, recognition (when wanted) and the tracker."""
        arr = np.asarray(image)
        w, h = self.profile.image_size
        if arr.ndim != 3 or arr.shape[2] != 3 or arr.dtype != np.uint8:
            raise PipelineError(f"frame {frame_id}: need an 8-bit colour image, got shape {arr.shape} type {arr.dtype}")
        if (arr.shape[1], arr.shape[0]) != (w, h):
            raise PipelineError(f"frame {frame_id} is {arr.shape[1]}x{arr.shape[0]} but the calibration profile is for "
                                f"{w}x{h}; calibrate this camera resolution ('gammonwatch calibrate board') or set the "
                                "camera to the profile's resolution")
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        motion = self.motion(arr)
        grey = self.hand_cue.small_grey(arr) if self.config.hands else None
        hands = self.hand_cue(grey, self._dice_where, t) if grey is not None else []
        self._t = t
        self._moved_at[motion.mask > 0] = t
        if hands and grey is not None and self.hand_cue.take_in_still(grey, t - self._moved_at, self.config.hand_region_still_s,
                                                                      self.config.hand_remnant_still_s,
                                                                      self.config.hand_left_still_s, t):
            hands = self.hand_cue(grey, self._dice_where, t)
        if hands:
            self._hand_seen[self.hand_cue.hand_mask > 0] = t
        if motion.moving:
            self._last_motion_t = t
        elif hands and grey is not None and t - self._last_motion_t >= self.config.hand_still_s:
            self.hand_cue.settle(grey, still_hand=True, t=t)  # nothing moves: no hand is there, the table changed
            hands = []
        tr = self.tracker
        tr.note_motion(t, motion.moving)  # so wants_recognition sees this frame's motion
        if self._background is None:
            self._background = arr.copy()  # the table as first seen (dice in it are found once they move)
        dice: list[DieObservation] | None = None
        die_motion: list[bool] | None = None
        recognition: Recognition | None = None
        board = None
        if tr.wants_recognition and not motion.moving:
            boxes = self.locate_dice(arr, settled=True)
            self._note_gone(arr, boxes)
            if not hands:
                self._note_looks(arr, boxes)
            counts: list[int] | None = None
            try:
                reading = self.recognizer.read_board(arr, self.hand_cue.hand_mask if hands else None, self.motion.scale,
                                                     tr.settled_points if hands else None, boxes)
                counts = [a + b for a, b in reading.point_counts()]
                seen = [b for b in boxes if not self._hand_next_to(b)]  # half-hidden by a hand: not read
                found, verdicts = self.recognizer.read_dice(arr, seen, counts, None, timings)
            except Exception as exc:  # noqa: BLE001 - a model failure must not stop a live table
                raise PipelineError(f"frame {frame_id}: recognition failed: {exc!r}") from exc
            recognition = Recognition(reading, tuple(found), tuple(verdicts), timings)
            board = recognition.observation(frame_id, t, self.profile)
            dice, die_motion = list(found), [False] * len(found)
            self._set_boxes(boxes, hands)
            self.recognitions += 1
            if not hands:
                self._update_background(arr, boxes)
                if grey is not None:
                    self.hand_cue.settle(grey, t=t)
        elif motion.moving or tr.dice_in_motion:
            # (a quiet frame is looked at as closely as a recognised one: the two looks place a die a
            # few pixels apart, and a box that jumps between them restarts the die's rest every frame)
            boxes = self.locate_dice(arr, settled=not motion.moving)
            # a die with a hand next to it (a checker carried past, fingers over it) is half hidden:
            # its box shifts and changes without the die moving, so it is not looked at this frame
            seen = [b for b in boxes if not self._hand_next_to(b)]
            self._note_gone(arr, boxes)
            dice = self._moving_dice(seen)
            die_motion = [self.motion.changed_in(motion, b) > 0.2 for b in seen]
            self._set_boxes(boxes, hands)
        if dice:
            dice = [replace(d, still_since=self._still_since(d.box_xyxy)) if d.box_xyxy is not None else d for d in dice]
        t1 = time.perf_counter()
        states = tr.update(frame_id, t, dice=dice, board=board, hands=hands if self.config.hands else None,
                           moving=motion.moving, die_motion=die_motion)
        t2 = time.perf_counter()
        timings["vision"] = (t1 - t0) * 1e3
        timings["tracker"] = (t2 - t1) * 1e3
        self.times.add("vision", timings["vision"])
        self.times.add("tracker", timings["tracker"])
        self.frames += 1
        self.last_frame_id = frame_id
        return FrameResult(frame_id, t, states, recognition is not None, motion.moving, hands, list(self._boxes),
                           timings, recognition)

    def _still_since(self, box: Box) -> float:
        """The last time the motion detector saw a change inside ``box`` (-inf: never)."""
        r = self.motion.region(box, self._moved_at.shape)
        return -math.inf if r is None else float(self._moved_at[r].max())

    def _die_spot(self, c: tuple[float, float]) -> tuple[int, int, int, int]:
        """The pixels (x0, y0, x1, y1) of a die's spot: a mean die side around its centre."""
        side = sum(self._die_px) / 2
        return (max(0, int(c[0] - side / 2)), max(0, int(c[1] - side / 2)),
                max(0, int(math.ceil(c[0] + side / 2))), max(0, int(math.ceil(c[1] + side / 2))))

    def _note_looks(self, image: U8, boxes: Sequence[Box]) -> None:
        """Keep how each followed die at rest that the locator found at this recognition looks."""
        side = sum(self._die_px) / 2
        looks = []
        for c in self.tracker.followed_dice(resting=True):
            if any(math.dist(_centre(b), c) <= side / 2 for b in boxes):
                x0, y0, x1, y1 = self._die_spot(c)
                looks.append((c, np.asarray(image[y0:y1, x0:x1], dtype=np.uint8).copy()))
            else:
                looks += [(c, look) for k, look in self._die_looks if math.dist(k, c) <= side / 2][:1]
        self._die_looks = looks

    def _unlike_its_die(self, image: U8, c: tuple[float, float]) -> bool:
        """The spot of a followed die differs from how the die looked there on most of its pixels."""
        side = sum(self._die_px) / 2
        x0, y0, x1, y1 = self._die_spot(c)
        for k, look in self._die_looks:
            if math.dist(k, c) <= side / 2 and look.shape == image[y0:y1, x0:x1].shape and look.size:
                diff = np.abs(np.asarray(image[y0:y1, x0:x1], dtype=np.int16) - look.astype(np.int16)).max(axis=2)
                return float(np.mean(diff > self.config.die_changed_delta)) >= self.config.die_gone_frac
        return False

    def _note_gone(self, image: U8, boxes: Sequence[Box]) -> None:
        """Followed dice at rest not found this frame whose spot shows the bare table again (the copy
        kept from before they arrived), or no longer looks like the die on most of it, were taken: a
        hand from the far seat can be too small to be seen. (A rolling die has left the spot it was
        last seen at: it is not gone.)"""
        if self._background is None:
            return
        side = sum(self._die_px) / 2
        for c in self.tracker.followed_dice(resting=True):
            spot: Box = (c[0] - side / 2, c[1] - side / 2, c[0] + side / 2, c[1] + side / 2)
            if any(math.dist(_centre(b), c) <= side for b in boxes) or self._hand_next_to(spot):
                continue
            if not self._differs_from_table(image, spot, frac=0.05) or self._unlike_its_die(image, c):
                self.tracker.mark_gone(c)

    def _hand_next_to(self, box: Box) -> bool:
        """A hand's region reaches within one box side of the box."""
        pad = max(box[2] - box[0], box[3] - box[1])
        hands = Motion(0.0, False, None, self.hand_cue.hand_mask)
        return self.motion.changed_in(hands, (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad)) > 0.0

    def _set_boxes(self, boxes: list[Box], hands: list[HandObservation]) -> None:
        self._boxes = boxes
        if boxes or not hands:
            self._dice_where = boxes

    def detections(self) -> list[dict[str, Any]]:
        """The dice boxes followed now, for the monitor page's camera panel."""
        return [{"box": [round(v, 1) for v in b], "label": "die", "confidence": 1.0} for b in self._boxes]


def _spot(box: Sequence[float]) -> tuple[int, int]:
    """A box's place: its centre on an 8 px grid."""
    c = _centre(box)
    return round(c[0] / 8), round(c[1] / 8)


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return (float(box[0]) + float(box[2])) / 2, (float(box[1]) + float(box[3])) / 2


def encode_preview(image: U8, width: int = 640, quality: int = 70) -> tuple[bytes, int, int]:
    """A small JPEG of a frame for the monitor page (bytes, width, height)."""
    h, w = image.shape[:2]
    scale = min(1.0, width / w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise PipelineError("could not encode a preview JPEG")
    return buf.tobytes(), small.shape[1], small.shape[0]


__all__ = ["STAGES", "FramePipeline", "FrameResult", "HandCue", "PipelineConfig", "PipelineError", "StageTimes",
           "encode_preview", "load_profile", "profile_from_sim_camera"]
