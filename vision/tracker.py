"""The tracker: per-frame observations in, stable table states (the referee's schema) out.

ARCHITECTURE: frames -> vision (a :class:`~vision.observation.TableObservation` per recognised frame)
-> **tracker** -> ``rules.referee``. The tracker owns time:

- **motion** (:class:`MotionDetector`): differencing of a small grey copy of each frame (160 px wide
  by default), so every frame of a 30 fps 1280x720 stream is looked at for well under a
  millisecond of work besides the resize; full recognition (checkers, cube, dice values and
  validity) runs only when :attr:`Tracker.wants_recognition` says the table is quiet and something
  changed (or a refresh is due);
- **hands** over the board suppress checker decisions: while a hand is over checkers, the bar or
  the trays the settled checker map is frozen and the missing checkers are reported ``in_hand``
  (the referee judges no move on such a state);
- **dice**: each die is followed by position (track ids stay while it is followed); a die that moves
  is ``rolling``; one that has not moved is ``at_rest`` with ``rest_s``, the seconds since it last
  moved (RG19 4.1.4.3: at rest once still for 2 s, :attr:`TrackerConfig.settle_s`; the referee waits
  for ``rest_s >= 2``); a die that disappears under or after a hand over the dice is ``lifted``;
  one merely hidden for a moment keeps its last state (the referee counts only reported lifts);
  values and validity are fused over the frames the die rests;
- **checkers** settle with hysteresis: the count distributions of the accepted frames are fused
  (mean log-probability over the last :attr:`TrackerConfig.fuse_frames` frames) and a new map is
  adopted only when :attr:`TrackerConfig.confirm_frames` accepted frames in a row agree on it;
- timestamps and frame ids are carried from the frame into every state it emits.

A state is emitted when what the referee would read changes (dice states, values, reasons, checker
map, ``in_hand``, hands, cube), when a resting die passes ``settle_s``, and every ``heartbeat_s``.

Typical use (docs/tracker.md)::

    tracker = Tracker(TrackerConfig(), board_polygon=profile_polygon)
    for frame in source:
        motion = tracker.motion(frame.image)                       # cheap, every frame
        dice = locate_dice(frame.image) if motion.moving else None  # or None to keep the tracks
        board = recognise(frame.image) if tracker.wants_recognition else None
        for state in tracker.update(frame.frame_id, frame.timestamp, dice=dice, board=board, hands=hands):
            referee.feed(TableState.from_json(state))
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.checkers import check_total, weigh_counts
from vision.dice_validity import VALID_CLASSES
from vision.errors import VisionError
from vision.observation import (
    COLOURS,
    COUNTS,
    CUBE_ZONES,
    DIE_REASONS,
    CubeObservation,
    DieObservation,
    TableObservation,
    rounded_distribution,
)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]
SCHEMA_VERSION = 1
HAND_OVER = ("checkers", "dice", "cube", "bar", "clock", "board", "tray")
HIDDEN_PRIOR = 0.8
"""Probability that a place a hand hides still holds its settled count (the rest spread evenly)."""
HIDDEN_BAR_PRIOR = 0.5
"""The same for the bar: the hand at it is often taking the checker that enters."""
IN_HAND_PRIOR = np.array([0.7, 0.2, 0.07, 0.02] + [0.01 / 12] * 12)
"""How many checkers of a colour a hand over the table holds (0..15): in the 15-per-colour check of
a view with hands, checkers the frame does not show are held rather than forced under the hand."""
BLOCKS_CHECKERS = frozenset({"checkers", "bar", "tray", "board"})
"""Hands over these hide or move checkers: no checker decision while one is there."""


@dataclass(frozen=True)
class TrackerConfig:
    """Every threshold of the tracker in one place."""

    settle_s: float = 2.0
    """RG19 4.1.4.3: a die is at rest once it has not moved for 2 s (``rest_s`` reaches this)."""
    still_s: float = 0.15
    """A die still for this long is reported ``at_rest`` (with ``rest_s`` counting from its last move)."""
    move_px: float = 4.0
    """A die whose centre moves more than this (pixels, between sightings) is moving."""
    rest_move_px: float = 8.0
    """The same for a die at rest: its box from a settled frame's closer look (two scales merged) and
    from a moving frame's single look differ by about 4 px, which made a die at rest flicker to
    "rolling" (phantom throws in the demo); a die that really moves goes farther."""
    rest_jitter_frac: float = 0.5
    """A die at rest whose box centre shifts farther than ``rest_move_px`` (one not yet at rest:
    ``move_px``) but at most this share of its box's longer side, with nothing changing in its box
    (``die_motion``), has not moved: the locator placed its box elsewhere on it (seed 314: a still
    die's box alternated between two places 8.6 px apart, its 2 s at rest restarted twice and its
    roll's verdict came 0.8 s late; seed 350: a die just landed, never at rest)."""
    move_hand_px: float = 12.0
    """The same for a die at rest while a hand is on the table: an arm passing next to it hides part of
    it and shifts its box by a few pixels (a die that really moves goes farther)."""
    gate_px: float = 160.0
    """Largest jump (pixels) a die can make between two sightings and stay the same track."""
    hidden_keep_s: float = 3.0
    """A die unseen this long without a hand over the dice is reported ``lifted``."""
    back_s: float = 3.0
    """A die lifted at rest under a hand and seen again at its place, not moving, within this long was
    only hidden: it is at rest again with its reading (seen in a render: the far arm moving
    checkers next to the dice had its fingers read at them; the dice were "lifted", then "thrown"
    when the arm left: a false premature roll)."""
    lost_s: float = 0.25
    """A rolling die unseen this long with no hand over it is lost in flight: it no longer holds a
    place among the dice, and the next die to appear takes its track (in the demo a far player's
    cup, its hand unseen, was followed as a die; it held one of the two places for 3 s while the
    throw's second die landed and lay unread)."""
    lift_s: float = 0.1
    """A die unseen this long after a hand was over the dice is ``lifted``."""
    hand_gone_s: float = 0.3
    """A die hidden while a hand (not reaching for the dice) was over the table is ``lifted`` when
    the hands have been gone this long and it is still not seen."""
    hand_hold_s: float = 0.1
    """A hand stays reported this long after its last sighting (bridges a detector's dropouts)."""
    value_looks: float = 2.0
    """Die values fuse as the mean log-probability over the frames a die rests, times this: the frames
    of a die at rest are nearly the same picture, together worth a few independent looks, not one
    each (the product of 20 frames' probabilities, even tempered by 0.5, called dice read wrong
    99.9% sure, and the rules filter could not correct them: session 5, 3 -> 10 of 13 turns right on
    the seed-303 render)."""
    cube_doubtful: float = 0.5
    """A followed cube read with less confidence (face x zone) than this is replaced at once by a
    reading of the same zone at least ``cube_clear`` sure, without ``confirm_frames`` votes."""
    cube_clear: float = 0.8
    cube_gone_p: float = 0.05
    """A followed cube moves or turns only with a hand on the table (decision 0730): a new cube reading is
    adopted without a hand seen since the cube last read as followed only when the reading gives the
    followed zone less than this (the cube is plainly gone from it: a hand the cue missed moved it)."""
    confirm_frames: int = 3
    """Accepted recognitions in a row that must agree before the settled checker map changes."""
    fuse_frames: int = 6
    """Recognitions fused (mean log-probability) into the settled checker distributions."""
    quiet_s: float = 0.1
    """No motion for this long before a recognition is worth running."""
    refresh_s: float = 1.0
    """A quiet table is recognised again at least this often (to confirm and fuse)."""
    hand_refresh_s: float = 0.2
    """While hands are over the table, recognise this often (to report what is in hand)."""
    heartbeat_s: float = 1.0
    """A state is emitted at least this often."""
    pending_hold_s: float = 1.0
    """When the hands have left and the recognitions show a checker map other than the settled one,
    no state is emitted until the new map is confirmed (``confirm_frames``), for at most this long
    after the hands were last seen (the quiet frames meanwhile are all recognised): the referee would
    otherwise see the old position come back for a moment after a move."""
    motion_width: int = 160
    """Width (pixels) of the grey copy used for motion."""
    motion_delta: int = 18
    """Grey-level change (0-255) that counts as a changed pixel."""
    motion_frac: float = 0.002
    """Share of changed board pixels above which the table is moving."""
    hand_frac: float = 0.03
    """Share of changed board pixels, touching a seat's edge, taken as a hand from that seat."""
    checkers_per_colour: int = 15
    bar_prior: bool = True
    """Weigh the bar by real games (:data:`vision.checkers.BAR_PRIOR`) in the 15-per-colour check of a
    view with hands, as the board reader does in a view without (decision 0732)."""


@dataclass(frozen=True)
class HandObservation:
    """A hand (or arm) over the table in one frame: the seat it comes from and what it is over."""

    side: Literal["near", "far"]
    over: str = "board"
    touching: bool = False
    point: int | None = None

    def __post_init__(self) -> None:
        if self.side not in ("near", "far"):
            raise VisionError(f"hand side must be 'near' or 'far', got {self.side!r}")
        if self.over not in HAND_OVER:
            raise VisionError(f"hand 'over' must be one of {', '.join(HAND_OVER)}, got {self.over!r}")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"side": self.side, "over": self.over, "touching": self.touching}
        if self.point is not None:
            out["point"] = self.point
        return out


# ------------------------------------------------------------------------------------------ motion
def outer_corners(corners: npt.ArrayLike) -> F64:
    """The 4 outer corners (near-right, near-left, far-left, far-right) of a profile's 4 or 8 corners."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    if len(c) == 4:
        return c
    if len(c) == 8:  # the right half's four, then the left half's four (issue 5)
        return np.asarray(c[[0, 5, 6, 3]], dtype=np.float64)
    raise VisionError(f"need 4 or 8 board corners, got {len(c)}")


@dataclass(frozen=True)
class Motion:
    """What changed since the previous frame (on the small grey copy)."""

    fraction: float
    """Share of changed pixels inside the board mask (the whole frame without one)."""
    moving: bool
    hand_side: Literal["near", "far"] | None
    """A large change touching one seat's edge of the board: probably a hand from that seat."""
    mask: U8
    """The changed pixels (small copy, 0/255), for per-die checks with :meth:`MotionDetector.changed_in`."""


class MotionDetector:
    """Frame differencing on a downscaled grey image.

    ``board_polygon`` (image pixels, e.g. the profile's 4 outer corners near-right, near-left,
    far-left, far-right) restricts the measure to the table; its first two corners are the near
    edge, the last two the far edge (for the hand side)."""

    def __init__(self, image_size: tuple[int, int], board_polygon: npt.ArrayLike | None = None,
                 config: TrackerConfig | None = None) -> None:
        self.config = config or TrackerConfig()
        w, h = image_size
        if w <= 0 or h <= 0:
            raise VisionError(f"image size must be positive, got {image_size}")
        self.image_size = (int(w), int(h))
        self.scale = self.config.motion_width / w
        self.small = (self.config.motion_width, max(1, round(h * self.scale)))
        self.stride = max(1, int(w // self.config.motion_width) // 2)
        sw, sh = self.small
        self.mask = np.full((sh, sw), 255, dtype=np.uint8)
        self.near_band = np.zeros((sh, sw), dtype=np.uint8)
        self.far_band = np.zeros((sh, sw), dtype=np.uint8)
        if board_polygon is not None:
            poly = np.asarray(board_polygon, dtype=np.float64).reshape(-1, 2)
            if len(poly) != 4:
                raise VisionError(f"board polygon needs the 4 outer corners, got {len(poly)} points")
            small_poly = np.round(poly * self.scale).astype(np.int32)
            self.mask[:] = 0
            cv2.fillPoly(self.mask, [small_poly], 255)
            band = max(2, sh // 12)
            cv2.line(self.near_band, tuple(int(v) for v in small_poly[0]), tuple(int(v) for v in small_poly[1]), 255, band)
            cv2.line(self.far_band, tuple(int(v) for v in small_poly[2]), tuple(int(v) for v in small_poly[3]), 255, band)
        self.mask_count = max(1, int(np.count_nonzero(self.mask)))
        self._prev: U8 | None = None

    def __call__(self, image: U8) -> Motion:
        arr = np.asarray(image)
        if arr.ndim not in (2, 3) or arr.dtype != np.uint8:
            raise VisionError(f"need an 8-bit image (H x W or H x W x 3), got shape {arr.shape} and type {arr.dtype}")
        if (arr.shape[1], arr.shape[0]) != self.image_size:
            raise VisionError(f"frame is {arr.shape[1]}x{arr.shape[0]}, the motion detector was made for "
                              f"{self.image_size[0]}x{self.image_size[1]}")
        # a strided view first (no copy), then an area average over the rest: cheap and still smoothing noise
        small = cv2.resize(arr[::self.stride, ::self.stride], self.small, interpolation=cv2.INTER_AREA)
        grey: U8 = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small, dtype=np.uint8)
        prev, self._prev = self._prev, grey
        if prev is None:
            return Motion(0.0, False, None, np.zeros_like(grey))
        diff = cv2.absdiff(grey, prev)
        _, changed = cv2.threshold(diff, self.config.motion_delta, 255, cv2.THRESH_BINARY)
        changed = cv2.bitwise_and(changed, self.mask)
        frac = cv2.countNonZero(changed) / self.mask_count
        side: Literal["near", "far"] | None = None
        if frac >= self.config.hand_frac:
            near = cv2.countNonZero(cv2.bitwise_and(changed, self.near_band))
            far = cv2.countNonZero(cv2.bitwise_and(changed, self.far_band))
            if max(near, far) > 0:
                side = "near" if near >= far else "far"
        return Motion(float(frac), frac >= self.config.motion_frac, side, np.asarray(changed, dtype=np.uint8))

    def region(self, box_xyxy: Sequence[float], shape: tuple[int, ...]) -> tuple[slice, slice] | None:
        """The rows and columns of a motion-resolution array of ``shape`` that an image box (full-
        resolution pixels) covers; None when it covers none."""
        x0, y0, x1, y1 = (float(v) * self.scale for v in box_xyxy)
        h, w = shape[:2]
        a, b = max(0, int(math.floor(x0))), min(w, int(math.ceil(x1)))
        c, d = max(0, int(math.floor(y0))), min(h, int(math.ceil(y1)))
        return (slice(c, d), slice(a, b)) if b > a and d > c else None

    def changed_in(self, motion: Motion, box_xyxy: Sequence[float]) -> float:
        """Share of changed pixels inside an image box (full-resolution pixels)."""
        r = self.region(box_xyxy, motion.mask.shape)
        return 0.0 if r is None else float(np.count_nonzero(motion.mask[r])) / float(motion.mask[r].size)


# ------------------------------------------------------------------------------------------ dice tracks
@dataclass
class _DieTrack:
    id: int
    center: tuple[float, float]
    last_seen: float
    last_move: float
    value_logp: F64 = field(default_factory=lambda: np.zeros(6))
    value_n: int = 0
    valid_p: list[float] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    half: str | None = None
    lifted: bool = False
    hand_since_seen: bool = False
    hidden_by_hand: bool = False
    moving: bool = False
    lifted_at: float = -math.inf
    at_rest_when_lifted: tuple[F64, int, list[float], list[str], float] | None = None
    """A die lifted at rest under a hand: its reading and last move, in case it was only hidden."""
    appeared_at: tuple[float, float] | None = None
    """Where the die this track follows was first seen (None: it has since travelled, as a thrown die does)."""
    lifted_by_hand: bool = False
    """The die was lifted with a hand over the table (taken up, or hidden by it)."""
    from_hand: bool = False
    """The die this track follows appeared after the track's die was taken up by a hand: a die thrown,
    even if first seen where it landed."""

    def reset_reading(self) -> None:
        self.value_logp = np.zeros(6)
        self.value_n = 0
        self.valid_p = []
        self.reasons = []


def assign(cost: Sequence[Sequence[float]], gate: float) -> list[tuple[int, int]]:
    """Pairs (row, column) of a small cost matrix (dice followed x boxes, pixels): as many pairs as
    possible within ``gate`` (an infinite cost forbids a pair), then the least total cost. Greedy
    nearest-first matching loses a die when two rolling dice cross: the first takes the box the
    other needed and the other's own box is beyond the gate."""
    n = len(cost)
    m = len(cost[0]) if n else 0
    best: tuple[int, float, list[tuple[int, int]]] = (0, 0.0, [])

    def walk(i: int, used: frozenset[int], count: int, total: float, pairs: list[tuple[int, int]]) -> None:
        nonlocal best
        if count + (n - i) < best[0]:
            return  # cannot beat the best count
        if i == n:
            if count > best[0] or (count == best[0] and total < best[1]):
                best = (count, total, list(pairs))
            return
        for j in range(m):
            c = cost[i][j]
            if j not in used and c <= gate:
                pairs.append((i, j))
                walk(i + 1, used | {j}, count + 1, total + c, pairs)
                pairs.pop()
        walk(i + 1, used, count, total, pairs)

    walk(0, frozenset(), 0, 0.0, [])
    return best[2]


def _cube_key(cube: CubeObservation | None) -> tuple[int, str] | None:
    """A cube reading's face and zone; None for no cube (absent)."""
    return None if cube is None or cube.zone == "absent" else (cube.value, cube.zone)


def _hands_key(hands: Sequence[HandObservation]) -> tuple[tuple[str, str, bool, int | None], ...]:
    return tuple(sorted((h.side, h.over, h.touching, h.point) for h in hands))


class Tracker:
    """Frames -> stable table states (``schemas/table_state.schema.json`` version 1, as dicts)."""

    def __init__(self, config: TrackerConfig | None = None, source: str = "vision") -> None:
        self.config = config or TrackerConfig()
        self.source = source
        self._tracks: list[_DieTrack] = []
        self._next_id = 0
        self._hands: dict[tuple[str, str, bool, int | None], tuple[HandObservation, float]] = {}
        self._recent: deque[tuple[F64, F64, F64]] = deque(maxlen=self.config.fuse_frames)
        self._maps: deque[tuple[tuple[int, ...], ...]] = deque(maxlen=self.config.confirm_frames)
        self._settled: tuple[F64, F64, F64] | None = None
        self._settled_map: tuple[tuple[int, ...], ...] | None = None
        self._in_hand = (0, 0)
        self._hiding = False
        """The last recognition had hands over the table that may hide checkers (``hidden`` places)."""
        self._cube: CubeObservation | None = None
        self._cube_votes: deque[tuple[int, str]] = deque(maxlen=self.config.confirm_frames)
        self._cube_agreed_t: float | None = None
        """When a recognition last read the cube as followed (value and zone; absent included); None
        before the first cube reading is adopted."""
        self._hands_looked = False
        self._last_motion_t: float = -math.inf
        self._last_recognition_t: float = -math.inf
        self._dirty = True
        self._last_key: Any = None
        self._last_emit_t: float = -math.inf
        self._last_t: float = -math.inf
        self._now: float = 0.0
        self._clock: dict[str, Any] | None = None
        self._live: tuple[tuple[F64, F64, F64], tuple[tuple[int, ...], ...]] | None = None
        self._latest: tuple[tuple[F64, F64, F64], tuple[tuple[int, ...], ...]] | None = None
        """The last recognition without hands over the checkers (a possible map), for a map not yet confirmed."""
        self._pending_since: float | None = None
        self._last_hand_t: float = -math.inf

    # ---------------------------------------------------------------- scheduling of recognition
    @property
    def wants_recognition(self) -> bool:
        """True when a full recognition of the current frame is worth its cost: the table has been
        quiet for ``quiet_s`` and something moved since the last one, or ``refresh_s`` has passed;
        or a hand is over the checkers (to count what is missing, at the refresh rate)."""
        quiet = self._now - self._last_motion_t >= self.config.quiet_s
        due = self._now - self._last_recognition_t >= self.config.refresh_s - 1e-9  # (times are sums of frame steps)
        # a map to confirm: recognitions disagree with the settled one, or hands were over the checkers
        # (what they did is known only from the recognitions after they have gone)
        pending = self._pending_since is not None or (
            bool(self._maps) and (len(set(self._maps)) > 1 or self._maps[-1] != self._settled_map))
        hand_due = self._now - self._last_recognition_t >= self.config.hand_refresh_s - 1e-9
        # dice coming to their 2 s at rest are read every ``hand_refresh_s``: their verdict is formed
        # from these looks (seed 321: a cocked die read twice, once as flat, was judged valid), and a
        # die found lying still, its rest dated from the motion history, is read at once
        settling = hand_due and any(not tr.lifted and not self._rolling(tr)
                                    and (tr.value_n == 0 or self._now - tr.last_move <= self.config.settle_s)
                                    for tr in self._tracks)
        return (quiet and (self._dirty or pending or due or settling)) or (bool(self._hands) and hand_due)

    @property
    def settled_points(self) -> list[tuple[int, int]] | None:
        """The (light, dark) counts of points 1..24 of the settled map, None before one settled."""
        if self._settled_map is None:
            return None
        return list(zip(self._settled_map[0], self._settled_map[1], strict=True))

    @property
    def dice_in_motion(self) -> bool:
        """A followed die was last seen moving (and is not lost): it is looked for every frame until
        it is seen still, even when the motion detector sees nothing (a die far from the camera
        creeping to a stop changes few pixels: its rest would otherwise count from the next full
        recognition, up to ``refresh_s`` late)."""
        return any(not tr.lifted and tr.moving and not self._lost(tr) for tr in self._tracks)

    def mark_gone(self, centre: tuple[float, float]) -> None:
        """The followed die nearest ``centre`` is gone (its spot shows the bare table again): it was
        taken, by a hand the hand detector may not have seen. It is ``lifted`` from this frame on."""
        live = [tr for tr in self._tracks if not tr.lifted]
        if not live:
            return
        tr = min(live, key=lambda x: math.dist(x.center, centre))
        if math.dist(tr.center, centre) <= 1.0:
            self._lift(tr, self._now, hidden=False, by_hand=True)  # its spot is bare: it was taken

    def followed_dice(self, resting: bool = False, holding: bool = False) -> list[tuple[float, float]]:
        """Image centres of the dice followed now (seen, or hidden for a moment), not those lifted;
        ``resting``: only those still for ``still_s`` (a rolling die's last spot is bare a frame later);
        ``holding``: not those lost in flight (``lost_s``), whose places a new die may take."""
        return [tr.center for tr in self._tracks if not tr.lifted
                and (not resting or not self._rolling(tr)) and (not holding or not self._lost(tr))]

    def unmoved_dice(self) -> list[tuple[float, float]]:
        """Centres of the followed dice at rest for ``settle_s`` and never seen away from where they
        appeared (more than ``rest_move_px``): a thrown die is seen rolling, or lands with the other
        die of its throw; what the locator finds lying still where it first saw it, and still lying
        there when another die arrives, may be something else (a white point's tip uncovered when the
        checkers were set up: the demo's table, frame 517). A die that landed unseen a moment ago is
        not listed (seed 320: the second die of a throw, first seen at rest 0.3 s before the first
        die, still rolling, jumped out of the tracker's gate)."""
        return [tr.center for tr in self._tracks if not tr.lifted and tr.appeared_at is not None
                and not tr.moving and self._now - tr.last_move >= self.config.settle_s]

    def lost_dice(self) -> list[tuple[float, float]]:
        """Last centres of the dice lost in flight (rolling, not seen for ``lost_s``, no hand over the
        table since): they have landed somewhere the locator does not find them."""
        return [tr.center for tr in self._tracks if self._lost(tr)]

    def thrown_dice(self) -> list[tuple[float, float]]:
        """Centres of the followed dice seen away from where they appeared (more than
        ``rest_move_px``), or found after a hand took a die up (first seen where it landed: session 37,
        seed 360): dice of a throw, not something the locator found lying still."""
        return [tr.center for tr in self._tracks if not tr.lifted and (tr.appeared_at is None or tr.from_hand)]

    def forget_unmoved(self, centre: tuple[float, float]) -> None:
        """Stop following the unmoved die (:meth:`unmoved_dice`) at ``centre``: a die the locator is
        surer of has taken its place."""
        self._tracks = [tr for tr in self._tracks if tr.lifted or tr.appeared_at is None or tr.center != centre]

    def taken_since_rest(self, centre: tuple[float, float]) -> bool:
        """Whether another die was lifted with a hand over the table (taken up, or hidden by the hand)
        after the followed die nearest ``centre`` last moved: that die was no die of its throw lost in
        flight or never followed (seed 358 frame 9316: light's hand, playing his 4-4, covered one 4 a
        while; the whole-frame look for "the other die" then found a checker edge he had moved and took
        it for a die thrown, dark's premature roll). A die of the throw lost in flight is lifted, if at
        all, with no hand over the table; the previous roll's dice were taken up before the throw."""
        followed = [tr for tr in self._tracks if not tr.lifted]
        if not followed:
            return False
        near = min(followed, key=lambda tr: math.dist(tr.center, centre))
        return any(tr.lifted and tr.lifted_by_hand and tr.lifted_at > near.last_move for tr in self._tracks)

    def hidden_dice(self) -> list[tuple[float, float]]:
        """Where dice lifted at rest under a hand within ``back_s`` lay: one seen there again was only
        hidden (an arm moving checkers next to the dice, its fingers read at them)."""
        return [tr.center for tr in self._tracks if self._may_be_back(tr)]

    def _may_be_back(self, tr: _DieTrack) -> bool:
        return tr.lifted and tr.at_rest_when_lifted is not None and self._now - tr.lifted_at <= self.config.back_s

    def _rolling(self, tr: _DieTrack) -> bool:
        return tr.moving or self._now - tr.last_move < self.config.still_s

    def _lost(self, tr: _DieTrack) -> bool:
        """A rolling die not seen for ``lost_s`` with no hand over the table since."""
        return (not tr.lifted and self._rolling(tr) and not tr.hidden_by_hand
                and self._now - tr.last_seen >= self.config.lost_s)

    def note_motion(self, t: float, moving: bool) -> None:
        """Tell the tracker the frame at ``t`` has come, and whether the table moved in it (done by
        :meth:`update` with ``motion``): :attr:`wants_recognition` then decides on this frame's
        clock, not the previous frame's (one frame late)."""
        if not math.isfinite(t) or t < self._last_t:
            raise VisionError(f"timestamps must be finite and non-decreasing; got t={t} after {self._last_t}")
        self._last_t = self._now = t
        if moving:
            self._last_motion_t = t
            self._dirty = True

    # ---------------------------------------------------------------- the per-frame step
    def update(self, frame_id: int, t: float, *, dice: Sequence[DieObservation] | None = None,
               board: TableObservation | None = None, hands: Sequence[HandObservation] | None = None,
               moving: bool | None = None, die_motion: Sequence[bool] | None = None,
               clock: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """One frame. ``dice``: the dice located in this frame (None = not looked for: tracks kept);
        ``board``: a full recognition of this frame (None = not run); ``hands``: the hands seen
        (None = not looked for); ``moving``: motion on the board this frame (from :class:`MotionDetector`);
        ``die_motion``: per die of ``dice``, whether its box changed (from ``changed_in``);
        ``clock``: the clock's state as the schema writes it (``running``, ``paused``, ``reserve_s``),
        from a clock reader or a connected clock, carried into the states as the latest value.
        Returns the table states to emit (zero or one)."""
        if frame_id < 0:
            raise VisionError(f"frame id must be >= 0, got {frame_id}")
        self.note_motion(t, bool(moving))  # (checks and sets the clock; None: motion not looked for)
        if clock is not None:
            self._clock = dict(clock)
        if hands is not None:
            self._update_hands(t, hands)
        active_hands = self._active_hands(t)
        if dice is not None:
            self._update_dice(t, dice, die_motion, active_hands)
        if board is not None:
            self._last_recognition_t = t
            if not _blocks(active_hands, board):
                self._dirty = False
            self._update_board(board, active_hands)
        return self._emit(frame_id, t, active_hands)

    # ---------------------------------------------------------------- hands
    def _update_hands(self, t: float, hands: Sequence[HandObservation]) -> None:
        self._hands_looked = True
        if hands:
            self._last_hand_t = t
        for h in hands:
            self._hands[(h.side, h.over, h.touching, h.point)] = (h, t)
        keep = self.config.hand_hold_s
        self._hands = {k: v for k, v in self._hands.items() if t - v[1] <= keep}

    def _active_hands(self, t: float) -> list[HandObservation]:
        return [h for h, seen in self._hands.values() if t - seen <= self.config.hand_hold_s]

    # ---------------------------------------------------------------- dice
    def _update_dice(self, t: float, dice: Sequence[DieObservation], die_motion: Sequence[bool] | None,
                     hands: list[HandObservation]) -> None:
        cfg = self.config
        if die_motion is not None and len(die_motion) != len(dice):
            raise VisionError(f"die_motion has {len(die_motion)} entries for {len(dice)} dice")
        live = [tr for tr in self._tracks if not tr.lifted]
        used_d: set[int] = set()
        cost = [[math.dist(tr.center, d.center_px) for d in dice] for tr in live]
        for i, j in assign(cost, cfg.gate_px):
            used_d.add(j)
            tr, d, dist = live[i], dice[j], cost[i][j]
            # a die at rest moves when its centre does: pixels changing in its box without that are a
            # shadow or an arm passing by; and with a hand on the table its box may shift a little
            at_rest = not tr.moving and t - tr.last_move >= cfg.still_s
            if at_rest:
                moved = dist > (cfg.move_hand_px if hands else cfg.rest_move_px)
            else:
                moved = dist > cfg.move_px or bool(die_motion is not None and die_motion[j])
            if moved and die_motion is not None and not die_motion[j] and d.box_xyxy is not None:
                # nothing changing in its box: the locator placed the box elsewhere on a still die (seed
                # 314, at rest; seed 350: a 2 just landed, found only by the second look, whose window
                # follows the box; the box alternated between two places 4.5 px apart every frame and
                # the die never came to rest: its roll was asked for)
                x0, y0, x1, y1 = d.box_xyxy
                moved = dist > cfg.rest_jitter_frac * max(x1 - x0, y1 - y0)
            if at_rest and moved and hands:
                # a die at rest that a hand moves is picked up (or pushed): in the hand, not thrown;
                # what is found later is judged afresh (seed 354: light's die, followed into dark's
                # gathering hand as "rolling", then onto a white checker's edge by the far rail, was
                # judged sunk between checkers)
                self._lift(tr, t, hidden=False, by_hand=True)
                continue
            self._sight(tr, d, t, moved)
        started = self._last_emit_t != -math.inf
        for j, d in enumerate(dice):
            if j in used_d:
                continue
            # a die seen again where one was lifted at rest under a hand a moment ago, not moving (or
            # changing only as the hand still there uncovers it: seed 353, the far arm reaching over a
            # die to the near side's checkers): it was hidden, not taken; it keeps its reading and rest time
            back = [tr for tr in self._tracks if self._may_be_back(tr) and math.dist(tr.center, d.center_px) <= cfg.move_hand_px]
            if back and (hands or not (die_motion is not None and die_motion[j])):
                tr = min(back, key=lambda x: math.dist(x.center, d.center_px))
                assert tr.at_rest_when_lifted is not None
                tr.value_logp, tr.value_n, tr.valid_p, tr.reasons, tr.last_move = tr.at_rest_when_lifted
                tr.at_rest_when_lifted = None
                self._sight(tr, d, t, moved=False)
                continue
            # a die that appears takes the track of a die lost in flight (it is that die, or that track
            # followed no die); a lifted one thrown again keeps its id; it arrives moving
            lost = sorted((tr for tr in self._tracks if self._lost(tr)), key=lambda x: x.last_seen)
            lifted = sorted((tr for tr in self._tracks if tr.lifted), key=lambda x: -x.last_seen)
            # (a die lost in flight and found again has been seen rolling: it keeps having travelled)
            if lost:
                tr = lost[0]
                tr.last_move = t
            elif lifted:
                tr = lifted[0]
                tr.lifted = False
                tr.last_move = t
                tr.appeared_at = d.center_px
                tr.from_hand = tr.lifted_by_hand
            else:
                tr = _DieTrack(self._new_id(), d.center_px, t, t, appeared_at=d.center_px)
                self._tracks.append(tr)
            # before the first state the stream starts with the die lying there: not a throw
            self._sight(tr, d, t, moved=started)
            if started and d.still_since is not None and d.still_since >= self._last_hand_t:
                # first found lying still where something moved after the hands left, or in the frame
                # they were last seen (it landed there, touching the other die, and only a closer look
                # found it): at rest since nothing moved in its box (seed 322: a 6 by its 5 found 1 s
                # after it landed, its verdict 1 s late; seed 320: both dice's boxes last changed in the
                # last frame of the "hand", the throw itself, and they were found 1.3 s later)
                tr.last_move = min(t, d.still_since)
        # a hand reached for the dice (its tip at them): lifted at once; any other hand that was over
        # the table while a die is out of sight: lifted once the hands have been gone ``hand_gone_s``
        # and the die is still not there (an arm passing over it hides it only)
        gone = not hands and t - self._last_hand_t >= cfg.hand_gone_s
        for tr in self._tracks:
            if tr.lifted or tr.last_seen == t:
                continue
            if any(h.over == "dice" for h in hands):
                tr.hand_since_seen = True
            if hands:
                tr.hidden_by_hand = True
            unseen = t - tr.last_seen
            if ((tr.hand_since_seen and unseen >= cfg.lift_s) or (tr.hidden_by_hand and gone and unseen >= cfg.lift_s)
                    or unseen >= cfg.hidden_keep_s):
                self._lift(tr, t, hidden=(tr.hand_since_seen or tr.hidden_by_hand) and not self._rolling(tr),
                           by_hand=tr.hand_since_seen or tr.hidden_by_hand)
        self._tracks = self._tracks[:4]

    def _lift(self, tr: _DieTrack, t: float, hidden: bool, by_hand: bool = False) -> None:
        """The die of ``tr`` is taken up (or out of sight); ``hidden``: it lay at rest under a hand, and
        seen again at its place it was only hidden (its reading and rest kept for that); ``by_hand``: a
        hand was over the table (:attr:`_DieTrack.lifted_by_hand`)."""
        tr.lifted = True
        tr.lifted_at = t
        tr.lifted_by_hand = by_hand
        tr.from_hand = False
        tr.at_rest_when_lifted = (tr.value_logp.copy(), tr.value_n, list(tr.valid_p), list(tr.reasons), tr.last_move) if hidden else None
        tr.reset_reading()

    def _new_id(self) -> int:
        used = {tr.id for tr in self._tracks}
        while self._next_id in used:
            self._next_id = (self._next_id + 1) % 100
        out = self._next_id
        self._next_id = (self._next_id + 1) % 100
        return out

    def _sight(self, tr: _DieTrack, d: DieObservation, t: float, moved: bool) -> None:
        if tr.appeared_at is not None and math.dist(tr.appeared_at, d.center_px) > self.config.rest_move_px:
            tr.appeared_at = None
        tr.center = d.center_px
        tr.last_seen = t
        tr.hand_since_seen = False
        tr.hidden_by_hand = False
        tr.lifted = False
        tr.half = d.half
        tr.moving = moved
        if moved:
            tr.last_move = t
            tr.reset_reading()
            return
        # a die only located (``rolling``: the frame was not read, its value_p says nothing) adds no
        # look: counted, it would flatten the fused reading (``value_looks / value_n``)
        if t - tr.last_move >= self.config.still_s and d.state != "rolling":
            tr.value_logp = tr.value_logp + np.log(np.maximum(d.value_p, 1e-6))
            tr.value_n += 1
            if d.valid_p is not None:
                tr.valid_p.append(float(d.valid_p))
            if d.reason is not None:
                tr.reasons.append(d.reason)

    def _die_json(self, tr: _DieTrack, t: float) -> dict[str, Any]:
        cfg = self.config
        if tr.lifted:
            return {"id": tr.id, "value": None, "state": "lifted"}
        rest = t - tr.last_move
        out: dict[str, Any] = {"id": tr.id}
        if tr.moving or rest < cfg.still_s or tr.value_n == 0:
            out.update({"value": None, "state": "rolling"})
        else:
            z = tr.value_logp * (cfg.value_looks / tr.value_n)
            p = np.exp(z - z.max())
            p = p / p.sum()
            out.update({"value": int(np.argmax(p)) + 1, "state": "at_rest", "rest_s": round(rest, 3),
                        "confidence": round(float(p.max()), 4), "value_p": [round(float(v), 4) for v in p]})
            if tr.reasons:
                # valid by the reason the looks agree on: the validity model calls a die valid from
                # its own threshold (P(flat) + P(on checker) >= 0.045 for the committed model), so a
                # mean valid_p under 0.5 with "flat_board" said "valid": false of a die it judged flat
                out["reason"] = max(DIE_REASONS, key=tr.reasons.count)
                out["valid"] = out["reason"] in VALID_CLASSES
            elif tr.valid_p:
                out["valid"] = bool(float(np.mean(tr.valid_p)) >= 0.5)
        if tr.half in ("left", "right"):
            out["half"] = tr.half
        out["center_px"] = [round(tr.center[0], 1), round(tr.center[1], 1)]
        return out

    # ---------------------------------------------------------------- checkers and cube
    def _update_board(self, board: TableObservation, hands: list[HandObservation]) -> None:
        cfg = self.config
        maps = (tuple(board.counts("light")), tuple(board.counts("dark")), board.bar, board.off)
        seen = [sum(maps[0]) + maps[2][0] + maps[3][0], sum(maps[1]) + maps[2][1] + maps[3][1]]
        self._hiding = bool(hands) and bool(board.hidden)
        if _blocks(hands, board):
            # the settled map is frozen; the state shows this view, and what is missing from it is in a hand
            self._maps.clear()
            self._pending_since = self._now  # what the hand did is known once it has gone
            live = self._hands_view(board, maps)
            seen = [sum(live[1][c]) + live[1][2][c] + live[1][3][c] for c in (0, 1)]
            if max(seen) <= cfg.checkers_per_colour:
                self._in_hand = (cfg.checkers_per_colour - seen[0], cfg.checkers_per_colour - seen[1])
                self._live = live
            self._update_cube(board)  # a double and its answer are made with a hand on the table
            return
        self._in_hand = (0, 0)
        self._live = None
        # more checkers of a colour than a set has is a misread, never a map to adopt (the referee
        # would refuse the state); like any other disagreeing recognition it breaks a run
        possible = max(seen) <= cfg.checkers_per_colour
        if possible:
            self._latest = ((board.point_p, board.bar_p, board.off_p), maps)
        logs = (np.log(np.maximum(board.point_p, 1e-9)), np.log(np.maximum(board.bar_p, 1e-9)),
                np.log(np.maximum(board.off_p, 1e-9)))
        self._recent.append(logs)
        key = (maps[0], maps[1], maps[2], maps[3])
        self._maps.append(key)
        if key == self._settled_map:
            self._pending_since = None
        elif self._pending_since is None:
            self._pending_since = self._now
        if possible and len(self._maps) == cfg.confirm_frames and len(set(self._maps)) == 1 and key != self._settled_map:
            if self._settled_map is not None and key != self._settled_map:
                # a new map: fuse only the frames that show it
                recent = list(self._recent)[-cfg.confirm_frames:]
                self._recent.clear()
                self._recent.extend(recent)
            self._settled_map = key
            self._pending_since = None
        if key == self._settled_map:
            self._settled = tuple(_fuse([r[k] for r in self._recent]) for k in range(3))  # type: ignore[assignment]
        self._update_cube(board)

    def _hands_view(self, board: TableObservation, maps: tuple[tuple[int, ...], ...]
                    ) -> tuple[tuple[F64, F64, F64], tuple[tuple[int, ...], ...]]:
        """The view of a frame with hands over the table. Where a hand may hide checkers
        (``board.hidden``: the board reader gives them no evidence and does not apply its
        15-per-colour check) the settled count is the prior (:data:`HIDDEN_PRIOR`, the bar's
        :data:`HIDDEN_BAR_PRIOR`: an entering checker leaves it under the hand); the 15-per-colour
        check then runs over the places in view, these priors and the checkers a hand may hold
        (:data:`IN_HAND_PRIOR`) together: a checker taken from a hidden place to one in view is
        counted once, a doubtful one in view is not moved under the hand, a missing one is held. The
        state shows the check's counts, the frame's distributions in view (checked) and uniform ones
        at the hidden places (the referee weighs nothing it did not see)."""
        cfg = self.config
        point_p, bar_p, off_p = board.point_p.copy(), board.bar_p.copy(), board.off_p.copy()
        if not board.hidden or self._settled_map is None:
            return (point_p, bar_p, off_p), maps
        hidden = {"bar" if h.startswith("bar") else "off" if h.startswith("off") else h for h in board.hidden}
        cells = [f"p{i + 1}" for i in range(24)] + ["bar", "off"]
        hid = [k for k, n in enumerate(cells) if n in hidden]
        bar_row = cells.index("bar")
        flat = np.full(COUNTS, 1.0 / COUNTS)
        counts: list[list[int]] = []
        for c in (0, 1):
            settled = list(self._settled_map[c]) + [self._settled_map[2][c], self._settled_map[3][c]]
            dists = np.vstack([point_p[:, c], bar_p[c][None], off_p[c][None], IN_HAND_PRIOR[None]])
            if cfg.bar_prior and bar_row not in hid:
                dists[bar_row] = weigh_counts(dists[bar_row])  # real games hold fewer on the bar (decision 0732)
            for k in hid:
                conf = HIDDEN_BAR_PRIOR if cells[k] == "bar" else HIDDEN_PRIOR
                dists[k] = flat * (1.0 - conf) + np.eye(COUNTS)[settled[k]] * conf
            check = check_total(dists, cfg.checkers_per_colour)
            dists = dists[:-1]
            best = [int(v) for v in (check.best if check.applied else np.argmax(dists, axis=1))]
            marg = check.marginals if check.applied else dists
            for k in range(len(cells)):
                dist = flat if k in hid else marg[k]
                if k < 24:
                    point_p[k, c] = dist
                elif k == 24:
                    bar_p[c] = dist
                else:
                    off_p[c] = dist
            counts.append(best)
        light, dark = counts
        return ((point_p, bar_p, off_p),
                (tuple(light[:24]), tuple(dark[:24]), (light[24], dark[24]), (light[25], dark[25])))

    def _update_cube(self, board: TableObservation) -> None:
        cfg = self.config
        reading, followed = _cube_key(board.cube), _cube_key(self._cube)
        if self._cube_agreed_t is not None and reading == followed:
            self._cube_agreed_t = self._now
        self._cube_votes.append(reading or (0, "absent"))
        agreed = len(self._cube_votes) == cfg.confirm_frames and len(set(self._cube_votes)) == 1
        if agreed:
            if reading == followed or self._cube_may_change(board.cube):
                self._adopt_cube(board.cube)
        elif self._cube is None and board.cube is not None:
            if self._cube_may_change(board.cube):
                self._adopt_cube(board.cube)
        elif (board.cube is not None and self._cube is not None and board.cube.zone == self._cube.zone
              and self._cube.confidence < cfg.cube_doubtful and board.cube.confidence >= cfg.cube_clear):
            # the same place read clearly where the face was doubtful (the demo's first double: the
            # cube on the board read "8" at 0.31 under the doubler's leaving hand, three times, then
            # "2" at 0.91 twice before the taker's hand came: the double was never seen)
            self._adopt_cube(board.cube)

    def _adopt_cube(self, cube: CubeObservation | None) -> None:
        self._cube = cube
        self._cube_agreed_t = self._now

    def _cube_may_change(self, reading: CubeObservation | None) -> bool:
        """Whether a reading other than the followed cube (another zone or face, or none) may replace it
        (decision 0730): the cube moves and turns only in a hand, so a hand must have been seen since
        the cube last read as followed, unless no cube reading was adopted yet, hands are not looked
        for, the followed cube was doubtful, or the reading plainly puts the followed cube elsewhere
        (its zone under :attr:`TrackerConfig.cube_gone_p`: a hand the cue missed moved it). Seed 352
        (navy-leather, frame 117) showed the risk: a die at rest read as the cube on the board beside
        the centred cube, three readings and no hand, and the referee saw an offer after the roll.
        (There a hand moving checkers 3 s later would still have let the misreading through: the
        reader's own rule, :func:`vision.cube.dice_on_the_board`, is what keeps that one out.)"""
        cfg = self.config
        if self._cube_agreed_t is None or not self._hands_looked or self._last_hand_t >= self._cube_agreed_t:
            return True
        followed = _cube_key(self._cube)
        if followed is None:
            return False
        if self._cube is not None and self._cube.confidence < cfg.cube_doubtful:
            return True
        return reading is not None and float(reading.zone_p[CUBE_ZONES.index(followed[1])]) < cfg.cube_gone_p

    # ---------------------------------------------------------------- emission
    def _emit(self, frame_id: int, t: float, hands: list[HandObservation]) -> list[dict[str, Any]]:
        cfg = self.config
        if self._settled is None:
            return []  # nothing to say before the first recognition of the board
        dice = [self._die_json(tr, t) for tr in sorted(self._tracks, key=lambda x: x.id)]
        settled_flags = tuple(d.get("rest_s", 0.0) >= cfg.settle_s for d in dice)
        blocked = self._live is not None and (any(h.over in BLOCKS_CHECKERS for h in hands) or (bool(hands) and self._hiding))
        view = self._live if blocked else None
        if not blocked and self._pending_since is not None and not hands:
            if t - max(self._pending_since, self._last_hand_t) < cfg.pending_hold_s:
                return []  # a new map is being confirmed: the settled one is about to be replaced
            # still not confirmed (motion kept the table from being recognised): what was last seen,
            # not the settled map that the recognitions since have contradicted
            view = self._latest
        key = (view[1] if view is not None else self._settled_map, self._in_hand if blocked else (0, 0), _hands_key(hands),
               tuple((d["id"], d["state"], d.get("value"), d.get("reason"), d.get("valid"), d.get("half")) for d in dice),
               settled_flags, None if self._cube is None else (self._cube.value, self._cube.zone),
               None if self._clock is None else tuple(sorted(self._clock.items())))
        if key == self._last_key and t - self._last_emit_t < cfg.heartbeat_s:
            return []
        self._last_key = key
        self._last_emit_t = t
        return [self._state_json(frame_id, t, dice, hands, view, blocked)]

    def _state_json(self, frame_id: int, t: float, dice: list[dict[str, Any]], hands: list[HandObservation],
                    view: tuple[tuple[F64, F64, F64], tuple[tuple[int, ...], ...]] | None, blocked: bool) -> dict[str, Any]:
        """``view``: a recognition to show instead of the settled map (hands over the checkers, or a
        new map not confirmed in time); ``blocked``: the hands' view, with the checkers in hand."""
        assert self._settled is not None and self._settled_map is not None
        point_p, bar_p, off_p = self._settled
        light, dark, bar, off = self._settled_map
        in_hand = self._in_hand if blocked else (0, 0)
        if view is not None:
            (point_p, bar_p, off_p), (light, dark, bar, off) = view
        points = []
        for i in range(24):
            points.append({"point": i + 1, "light": light[i], "dark": dark[i],
                           "light_p": rounded_distribution(point_p[i, 0]), "dark_p": rounded_distribution(point_p[i, 1])})
        out: dict[str, Any] = {
            "type": "table_state", "version": SCHEMA_VERSION, "frame": int(frame_id), "t": round(float(t), 4),
            "source": self.source, "points": points,
            "bar": {"light": bar[0], "dark": bar[1],
                    "light_p": rounded_distribution(bar_p[0]), "dark_p": rounded_distribution(bar_p[1])},
            "off": {"light": off[0], "dark": off[1],
                    "light_p": rounded_distribution(off_p[0]), "dark_p": rounded_distribution(off_p[1])},
            "dice": dice[:4],
        }
        if in_hand != (0, 0):
            out["in_hand"] = {"light": in_hand[0], "dark": in_hand[1]}
        if self._cube is not None and self._cube.zone != "absent":
            out["cube"] = {"value": self._cube.value, "zone": self._cube.zone, "confidence": round(self._cube.confidence, 4)}
        if hands:
            out["hands"] = [h.to_json() for h in sorted(hands, key=lambda h: (h.side, h.over))]
        if self._clock is not None:
            out["clock"] = dict(self._clock)
        return out


def _blocks(hands: Sequence[HandObservation], board: TableObservation) -> bool:
    """No checker decision from this recognition: a hand over the checkers, the bar, a tray or the
    board, or any hand (one at the dice too) that hides a place (``board.hidden``)."""
    return any(h.over in BLOCKS_CHECKERS for h in hands) or (bool(hands) and bool(board.hidden))


def _fuse(logs: list[F64]) -> F64:
    """Mean log-probability of several distributions over the last axis, renormalised."""
    m = np.mean(np.stack(logs), axis=0)
    m = m - m.max(axis=-1, keepdims=True)
    p = np.exp(m)
    return np.asarray(p / p.sum(axis=-1, keepdims=True), dtype=np.float64)


__all__ = ["COLOURS", "COUNTS", "HandObservation", "assign", "Motion", "MotionDetector", "Tracker", "TrackerConfig", "outer_corners"]
