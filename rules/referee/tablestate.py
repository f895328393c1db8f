"""The table state: what is on the table at one moment (the one contract between vision and rules).

A table state speaks *physical* terms only (ARCHITECTURE principle 4):

- colours are ``"light"`` and ``"dark"`` (the two checker colours, by brightness);
- points are numbered physically as in ``gammonwatch recognize`` (issue 5): seen from the near seat,
  point 1 is at the near-right corner, 1..12 run along the near edge to the near-left corner,
  13..24 run along the far edge from the far-left corner to the far-right corner;
- seats are ``"near"`` and ``"far"``; halves of the board are ``"left"`` and ``"right"`` as seen from
  the near seat (so the near player's right-hand half is ``"right"``, the far player's is ``"left"``).

The referee maps these to the engine's canonical per-side numbering with :class:`rules.referee.setup.Orientation`.

The JSON form is specified by ``schemas/table_state.schema.json`` (draft 2020-12); ``TableState.from_json``
implements the same checks by hand (fast enough for live video) and names the field and the reason
of the first problem in :class:`TableStateError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SCHEMA_VERSION = 1
"""Version of the table-state schema this module reads and writes (``"version"`` in the JSON)."""

MAX_CHECKERS = 15


class TableStateError(ValueError):
    """A table state that breaks the schema; ``field`` is a JSON path such as ``dice[1].state``."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class Colour(StrEnum):
    LIGHT = "light"
    DARK = "dark"

    @property
    def other(self) -> Colour:
        return Colour.DARK if self is Colour.LIGHT else Colour.LIGHT


class Seat(StrEnum):
    NEAR = "near"
    FAR = "far"

    @property
    def other(self) -> Seat:
        return Seat.FAR if self is Seat.NEAR else Seat.NEAR


class Half(StrEnum):
    LEFT = "left"
    RIGHT = "right"


class DieState(StrEnum):
    ROLLING = "rolling"
    AT_REST = "at_rest"
    LIFTED = "lifted"
    IN_CUP = "in_cup"


class DieReason(StrEnum):
    """Why a die at rest is (in)valid: the vision issue's vocabulary (physical facts, not rulings)."""

    FLAT_BOARD = "flat_board"
    ON_CHECKER = "on_checker"
    COCKED = "cocked"
    LEANING = "leaning"
    IN_GAP = "in_gap"
    OFF_BOARD = "off_board"
    WRONG_SIDE = "wrong_side"
    ON_DIE = "on_die"


class CubeZone(StrEnum):
    CENTRE = "centre"  # centred, off the playing surface (initial / passed)
    NEAR = "near"  # on the near player's side (owned by the near player)
    FAR = "far"  # on the far player's side
    BOARD = "board"  # on the playing surface (a double being offered)
    ABSENT = "absent"  # not visible (e.g. removed in the Crawford game)


class HandOver(StrEnum):
    CHECKERS = "checkers"
    DICE = "dice"
    CUBE = "cube"
    BAR = "bar"
    CLOCK = "clock"
    BOARD = "board"  # over the playing surface, nothing in particular
    TRAY = "tray"


def _enum(cls: type[Any], value: Any, path: str) -> Any:
    member = cls._value2member_map_.get(value) if type(value) is str else None
    if member is None:
        allowed = ", ".join(m.value for m in cls)
        raise TableStateError(path, f"must be one of {allowed}; got {value!r}")
    return member


def _int(value: Any, path: str, lo: int, hi: int) -> int:
    if type(value) is not int:
        raise TableStateError(path, f"must be an integer {lo}..{hi}; got {value!r}")
    if not lo <= value <= hi:
        raise TableStateError(path, f"must be between {lo} and {hi}; got {value}")
    return value


def _num(value: Any, path: str, lo: float | None = None, hi: float | None = None) -> float:
    if type(value) not in (int, float) or (isinstance(value, float) and not math.isfinite(value)):
        raise TableStateError(path, f"must be a finite number; got {value!r}")
    v = float(value)
    if lo is not None and v < lo:
        raise TableStateError(path, f"must be >= {lo}; got {v}")
    if hi is not None and v > hi:
        raise TableStateError(path, f"must be <= {hi}; got {v}")
    return v


def _obj(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TableStateError(path, f"must be an object; got {type(value).__name__}")
    return value


def _check_keys(obj: dict[str, Any], path: str, allowed: frozenset[str], required: tuple[str, ...]) -> None:
    if obj.keys() <= allowed and all(key in obj for key in required):
        return
    for key in required:
        if key not in obj:
            raise TableStateError(f"{path}.{key}" if path else key, "is required")
    for key in obj:
        if key not in allowed:
            raise TableStateError(f"{path}.{key}" if path else key, "is not a table-state field")


_NUMBER_TYPES = frozenset({float, int})


def _dist(value: Any, path: str) -> tuple[float, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CHECKERS + 1:
        raise TableStateError(path, "must be a list of 1..16 probabilities (index = checker count)")
    if set(map(type, value)) <= _NUMBER_TYPES and min(value) >= 0.0 and max(value) <= 1.0:
        probs = tuple(map(float, value))  # fast path (NaN fails the comparisons above)
    else:
        probs = tuple(_num(p, f"{path}[{i}]", 0.0, 1.0) for i, p in enumerate(value))
    if abs(sum(probs) - 1.0) > 0.02:
        raise TableStateError(path, f"probabilities must sum to 1; they sum to {sum(probs):.3f}")
    return probs


def _pair(value: Any, path: str) -> tuple[int, int]:
    obj = _obj(value, path)
    _check_keys(obj, path, _PAIR_KEYS, ("light", "dark"))
    return (_int(obj["light"], f"{path}.light", 0, MAX_CHECKERS), _int(obj["dark"], f"{path}.dark", 0, MAX_CHECKERS))


_PAIR_KEYS = frozenset({"light", "dark"})
_COUNTED_PAIR_KEYS = frozenset({"light", "dark", "light_p", "dark_p"})

PairDist = tuple[tuple[float, ...] | None, tuple[float, ...] | None]
"""Optional count distributions of a (light, dark) pair: the bar's or the trays'."""


def _counted_pair(value: Any, path: str) -> tuple[tuple[int, int], PairDist]:
    """A bar or tray pair: MAP counts and optional ``light_p`` / ``dark_p`` distributions."""
    obj = _obj(value, path)
    _check_keys(obj, path, _COUNTED_PAIR_KEYS, ("light", "dark"))
    counts = (_int(obj["light"], f"{path}.light", 0, MAX_CHECKERS), _int(obj["dark"], f"{path}.dark", 0, MAX_CHECKERS))
    dists = (_dist(obj["light_p"], f"{path}.light_p") if "light_p" in obj else None,
             _dist(obj["dark_p"], f"{path}.dark_p") if "dark_p" in obj else None)
    return counts, dists


@dataclass(frozen=True, slots=True)
class PointObs:
    """Checkers seen on one physical point: MAP counts, optionally with count distributions."""

    light: int = 0
    dark: int = 0
    light_p: tuple[float, ...] | None = None
    dark_p: tuple[float, ...] | None = None
    confidence: float | None = None


_SIMPLE_POINTS: dict[tuple[int, int], PointObs] = {
    (a, b): PointObs(a, b) for a in range(MAX_CHECKERS + 1) for b in range(MAX_CHECKERS + 1)
}
"""Shared immutable point observations for the common case (plain counts): parsing allocates nothing."""


@dataclass(frozen=True, slots=True)
class Unclear:
    """Checkers on the playing surface not clearly on any point (RG19 4.2.3.1(c))."""

    colour: Colour
    count: int = 1
    near_point: int | None = None


@dataclass(frozen=True, slots=True)
class Die:
    value: int | None
    state: DieState
    valid: bool | None = None
    reason: DieReason | None = None
    half: Half | None = None
    owner: Colour | None = None
    confidence: float = 1.0
    rest_s: float | None = None
    id: int | None = None
    value_p: tuple[float, ...] | None = None
    """Probabilities of the faces 1..6 (a reader's distribution); None: ``confidence`` on ``value``."""
    center_px: tuple[float, float] | None = field(default=None, compare=False)
    """Where the camera saw the die (image pixels), kept in the log for looking into a run afterwards; the
    referee does not use it, and two dice that differ only here are the same die (session 36: seed 360's
    unseen rethrow could not be traced from the stored states, which had dropped it)."""


@dataclass(frozen=True, slots=True)
class Cube:
    value: int
    zone: CubeZone
    confidence: float = 1.0
    side: Seat | None = None
    """For a cube on the playing surface: the half of the board it is in, by the seat next to it."""


@dataclass(frozen=True, slots=True)
class Hand:
    side: Seat
    over: HandOver
    touching: bool = False
    point: int | None = None


@dataclass(frozen=True, slots=True)
class Clock:
    running: Seat | None
    paused: bool = False
    reserve_near_s: float | None = None
    reserve_far_s: float | None = None


_TOP_KEYS = frozenset(
    {"type", "version", "frame", "t", "points", "bar", "off", "in_hand", "unclear", "dice", "cube", "hands", "clock", "source"}
)
_POINT_KEYS = frozenset({"point", "light", "dark", "light_p", "dark_p", "confidence"})
_DIE_KEYS = frozenset({"value", "state", "valid", "reason", "half", "owner", "confidence", "rest_s", "id", "value_p", "center_px"})
_CUBE_KEYS = frozenset({"value", "zone", "confidence", "side"})
_HAND_KEYS = frozenset({"side", "over", "touching", "point"})
_CLOCK_KEYS = frozenset({"running", "paused", "reserve_s"})
_UNCLEAR_KEYS = frozenset({"colour", "count", "near_point"})
CUBE_FACES = (1, 2, 4, 8, 16, 32, 64)

DEFAULT_POINT_CONFIDENCE = 0.999
"""Probability given to the MAP count of a point when the state carries neither a distribution nor a confidence."""
_LOG_DEFAULT = math.log(DEFAULT_POINT_CONFIDENCE)
_LOG_MISS = math.log((1.0 - DEFAULT_POINT_CONFIDENCE) / MAX_CHECKERS)


def _peaked(seen: int, conf: float) -> tuple[float, ...]:
    """The count distribution a bare count stands for: ``conf`` on it, the rest shared by the others."""
    return tuple(conf if n == seen else (1.0 - conf) / MAX_CHECKERS for n in range(MAX_CHECKERS + 1))


@dataclass(frozen=True, slots=True)
class TableState:
    """One snapshot of the table. ``points[i]`` is physical point ``i + 1``."""

    frame: int
    t: float
    points: tuple[PointObs, ...]
    bar: tuple[int, int] = (0, 0)  # (light, dark)
    off: tuple[int, int] = (0, 0)
    in_hand: tuple[int, int] = (0, 0)
    unclear: tuple[Unclear, ...] = ()
    dice: tuple[Die, ...] = ()
    cube: Cube | None = None
    hands: tuple[Hand, ...] = ()
    clock: Clock | None = None
    source: str | None = None
    bar_p: PairDist = (None, None)
    """Count distributions of the bar (light, dark), where the observer gives them."""
    off_p: PairDist = (None, None)
    """Count distributions of the trays (light, dark), where the observer gives them."""
    _light: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _dark: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _simple: bool = field(init=False, repr=False, compare=False)
    _map_ll: float | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _setattr = object.__setattr__
        _setattr(self, "_light", tuple(p.light for p in self.points))
        _setattr(self, "_dark", tuple(p.dark for p in self.points))
        _setattr(self, "_simple", all(p.light_p is None and p.dark_p is None and p.confidence is None for p in self.points))
        _setattr(self, "_map_ll", None)

    # ------------------------------------------------------------------ counts
    def counts(self, colour: Colour) -> tuple[int, ...]:
        """MAP checker counts of one colour on physical points 1..24 (index 0 = point 1)."""
        return self._light if colour is Colour.LIGHT else self._dark

    def total(self, colour: Colour) -> int:
        """All checkers of a colour the camera accounts for: points, bar, off, in a hand, unclear."""
        i = 0 if colour is Colour.LIGHT else 1
        on_points = sum(self._light if i == 0 else self._dark)
        unclear = sum(u.count for u in self.unclear if u.colour is colour) if self.unclear else 0
        return on_points + self.bar[i] + self.off[i] + self.in_hand[i] + unclear

    @property
    def is_plain(self) -> bool:
        """Plain MAP counts with no probabilities attached (the simulator's ground truth, hand-written tests)."""
        return self._simple

    @property
    def settled(self) -> bool:
        """No checker in a hand or unclear: the checker map can be judged."""
        return self.in_hand == (0, 0) and not self.unclear

    def checker_log_likelihood(self, light: tuple[int, ...], dark: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int]) -> float:
        """log P(observation | the table holds exactly this checker map) (physical numbering).

        Per-point count distributions are used where given; otherwise the MAP count gets the point's
        ``confidence`` (default :data:`DEFAULT_POINT_CONFIDENCE`) and every other count shares the rest.
        Bar and borne-off counts use the default confidence.
        """
        if self._simple:
            wrong = sum(a != b for a, b in zip(light, self._light, strict=True)) + sum(a != b for a, b in zip(dark, self._dark, strict=True))
            extra = (bar[0] != self.bar[0]) + (bar[1] != self.bar[1]) + (off[0] != self.off[0]) + (off[1] != self.off[1])
            return (48 - wrong) * _LOG_DEFAULT + (wrong + extra) * _LOG_MISS
        # the MAP board's log-likelihood once per state, then only the cells where the candidate differs
        total = self._map_ll
        if total is None:
            total = sum(self._cell_lp(i, c, (obs.light, obs.dark)[c]) for i, obs in enumerate(self.points) for c in (0, 1))
            object.__setattr__(self, "_map_ll", total)
        for c, want_counts, seen_counts in ((0, light, self._light), (1, dark, self._dark)):
            for i, (want, seen) in enumerate(zip(want_counts, seen_counts, strict=True)):
                if want != seen:
                    total += self._cell_lp(i, c, want) - self._cell_lp(i, c, seen)
        for want_pair, seen_pair, dists in ((bar, self.bar, self.bar_p), (off, self.off, self.off_p)):
            for c in (0, 1):
                if want_pair[c] != seen_pair[c]:
                    dist = dists[c]
                    total += (_LOG_MISS if dist is None else
                              math.log(max(dist[want_pair[c]] if want_pair[c] < len(dist) else 0.0, 1e-9))
                              - math.log(max(dist[seen_pair[c]] if seen_pair[c] < len(dist) else 0.0, 1e-9)))
        return total

    def both_colours_probability(self, index: int) -> float:
        """P(physical point ``index + 1`` holds checkers of both colours), from its count
        distributions (the MAP counts with their confidence where none is given; plain counts: 1 or 0)."""
        obs = self.points[index]
        if self._simple:
            return 1.0 if obs.light and obs.dark else 0.0
        conf = obs.confidence if obs.confidence is not None else DEFAULT_POINT_CONFIDENCE

        def some(dist: tuple[float, ...] | None, seen: int) -> float:
            if dist is not None:
                return 1.0 - dist[0]
            return conf if seen else (1.0 - conf)

        return some(obs.light_p, obs.light) * some(obs.dark_p, obs.dark)

    def bar_at_most_probability(self, index: int, count: int) -> float:
        """P(the bar holds at most ``count`` checkers of colour ``index`` (0 light, 1 dark)), from its
        count distribution (the MAP count with the default confidence where none is given; plain
        counts: 1 or 0)."""
        dist = self.bar_p[index]
        if dist is None:
            if self._simple and self.bar_p == (None, None):
                return 1.0 if self.bar[index] <= count else 0.0
            dist = _peaked(self.bar[index], DEFAULT_POINT_CONFIDENCE)
        return min(1.0, sum(dist[: count + 1]))

    def off_distribution(self, index: int) -> tuple[float, ...]:
        """The count distribution of colour ``index``'s tray (0 light, 1 dark): as read, or the MAP count
        with the default confidence where none is given (plain counts: certain)."""
        dist = self.off_p[index]
        if dist is not None:
            return dist
        if self._simple and self.off_p == (None, None):
            return tuple(1.0 if n == self.off[index] else 0.0 for n in range(MAX_CHECKERS + 1))
        return _peaked(self.off[index], DEFAULT_POINT_CONFIDENCE)

    def total_probability(self, colour: Colour, total: int) -> float:
        """P(the camera's view accounts for exactly ``total`` checkers of a colour): the points', bar's
        and trays' count distributions added up (the MAP count with its confidence where no
        distribution is given), plus the checkers in a hand or unclear. Plain counts: 1 or 0."""
        if self._simple and self.bar_p == (None, None) and self.off_p == (None, None):
            return 1.0 if self.total(colour) == total else 0.0
        i = 0 if colour is Colour.LIGHT else 1
        k = total - self.in_hand[i] - (sum(u.count for u in self.unclear if u.colour is colour) if self.unclear else 0)
        if k < 0:
            return 0.0
        cells: list[tuple[tuple[float, ...] | None, int, float]] = [
            ((obs.light_p, obs.dark_p)[i], (obs.light, obs.dark)[i],
             obs.confidence if obs.confidence is not None else DEFAULT_POINT_CONFIDENCE) for obs in self.points]
        cells.append((self.bar_p[i], self.bar[i], DEFAULT_POINT_CONFIDENCE))
        cells.append((self.off_p[i], self.off[i], DEFAULT_POINT_CONFIDENCE))
        acc = [1.0] + [0.0] * k  # P(partial sum = j), j = 0..k (larger sums never come back down)
        for dist, seen, conf in cells:
            if dist is None:
                dist = _peaked(seen, conf)
            elif len(dist) == 1:
                continue  # surely empty
            acc = [sum(acc[j - n] * dist[n] for n in range(min(j, len(dist) - 1) + 1)) for j in range(k + 1)]
        return acc[k]

    def _cell_lp(self, i: int, colour: int, count: int) -> float:
        """log P(observation of point i+1, one colour | that point holds ``count`` of the colour)."""
        obs = self.points[i]
        dist = obs.light_p if colour == 0 else obs.dark_p
        if dist is not None:
            return math.log(max(dist[count] if count < len(dist) else 0.0, 1e-9))
        conf = obs.confidence if obs.confidence is not None else DEFAULT_POINT_CONFIDENCE
        seen = obs.light if colour == 0 else obs.dark
        if count == seen:
            return math.log(conf)
        return math.log(max((1.0 - conf) / MAX_CHECKERS, 1e-9))

    # ------------------------------------------------------------------ JSON
    @classmethod
    def from_json(cls, obj: Any) -> TableState:
        """Parse and validate one table state (a decoded JSON object); raises :class:`TableStateError`."""
        obj = _obj(obj, "$")
        _check_keys(obj, "", _TOP_KEYS, ("type", "version", "frame", "t", "points"))
        if obj["type"] != "table_state":
            raise TableStateError("type", f"must be 'table_state'; got {obj['type']!r}")
        if obj["version"] != SCHEMA_VERSION:
            raise TableStateError("version", f"this referee reads table-state version {SCHEMA_VERSION}; got {obj['version']!r}")
        frame = _int(obj["frame"], "frame", 0, 2**53)
        t = _num(obj["t"], "t", 0.0)
        raw_points = obj["points"]
        if not isinstance(raw_points, list) or len(raw_points) != 24:
            raise TableStateError("points", "must be a list of 24 entries, one per physical point 1..24")
        points: list[PointObs] = []
        simple = _SIMPLE_POINTS
        for i, raw in enumerate(raw_points):
            # fast path: {"point": i+1, "light": n, "dark": m}
            if type(raw) is dict and len(raw) == 3 and raw.get("point") == i + 1 and type(raw["point"]) is int:
                lc, dc = raw.get("light"), raw.get("dark")
                if type(lc) is int and type(dc) is int:  # not bool: True == 1 as a dict key
                    hit = simple.get((lc, dc))
                    if hit is not None:
                        points.append(hit)
                        continue
            path = f"points[{i}]"
            p = _obj(raw, path)
            _check_keys(p, path, _POINT_KEYS, ("point", "light", "dark"))
            if p["point"] != i + 1:
                raise TableStateError(f"{path}.point", f"must be {i + 1} (entries in physical order 1..24); got {p['point']!r}")
            light = _int(p["light"], f"{path}.light", 0, MAX_CHECKERS)
            dark = _int(p["dark"], f"{path}.dark", 0, MAX_CHECKERS)
            light_p = _dist(p["light_p"], f"{path}.light_p") if "light_p" in p else None
            dark_p = _dist(p["dark_p"], f"{path}.dark_p") if "dark_p" in p else None
            conf = _num(p["confidence"], f"{path}.confidence", 0.0, 1.0) if "confidence" in p else None
            points.append(PointObs(light, dark, light_p, dark_p, conf))
        bar, bar_p = _counted_pair(obj["bar"], "bar") if "bar" in obj else ((0, 0), (None, None))
        off, off_p = _counted_pair(obj["off"], "off") if "off" in obj else ((0, 0), (None, None))
        in_hand = _pair(obj["in_hand"], "in_hand") if "in_hand" in obj else (0, 0)
        unclear: list[Unclear] = []
        if "unclear" in obj:
            if not isinstance(obj["unclear"], list):
                raise TableStateError("unclear", "must be a list")
            for i, raw in enumerate(obj["unclear"]):
                path = f"unclear[{i}]"
                u = _obj(raw, path)
                _check_keys(u, path, _UNCLEAR_KEYS, ("colour",))
                near = u.get("near_point")
                unclear.append(
                    Unclear(
                        _enum(Colour, u["colour"], f"{path}.colour"),
                        _int(u.get("count", 1), f"{path}.count", 1, MAX_CHECKERS),
                        None if near is None else _int(near, f"{path}.near_point", 1, 24),
                    )
                )
        dice: list[Die] = []
        if "dice" in obj:
            if not isinstance(obj["dice"], list) or len(obj["dice"]) > 4:
                raise TableStateError("dice", "must be a list of at most 4 dice")
            for i, raw in enumerate(obj["dice"]):
                dice.append(_die(raw, f"dice[{i}]"))
        cube = None
        if obj.get("cube") is not None:
            c = _obj(obj["cube"], "cube")
            _check_keys(c, "cube", _CUBE_KEYS, ("value", "zone"))
            if c["value"] not in CUBE_FACES or type(c["value"]) is not int:
                raise TableStateError("cube.value", f"must be a cube face {', '.join(map(str, CUBE_FACES))}; got {c['value']!r}")
            side = c.get("side")
            cube = Cube(c["value"], _enum(CubeZone, c["zone"], "cube.zone"), _num(c.get("confidence", 1.0), "cube.confidence", 0.0, 1.0),
                        None if side is None else _enum(Seat, side, "cube.side"))
        hands: list[Hand] = []
        if "hands" in obj:
            if not isinstance(obj["hands"], list) or len(obj["hands"]) > 6:
                raise TableStateError("hands", "must be a list of at most 6 hands")
            for i, raw in enumerate(obj["hands"]):
                path = f"hands[{i}]"
                h = _obj(raw, path)
                _check_keys(h, path, _HAND_KEYS, ("side", "over"))
                touching = h.get("touching", False)
                if type(touching) is not bool:
                    raise TableStateError(f"{path}.touching", f"must be true or false; got {touching!r}")
                pt = h.get("point")
                hands.append(
                    Hand(
                        _enum(Seat, h["side"], f"{path}.side"),
                        _enum(HandOver, h["over"], f"{path}.over"),
                        touching,
                        None if pt is None else _int(pt, f"{path}.point", 1, 24),
                    )
                )
        clock = None
        if obj.get("clock") is not None:
            c = _obj(obj["clock"], "clock")
            _check_keys(c, "clock", _CLOCK_KEYS, ("running",))
            running = None if c["running"] is None else _enum(Seat, c["running"], "clock.running")
            paused = c.get("paused", False)
            if type(paused) is not bool:
                raise TableStateError("clock.paused", f"must be true or false; got {paused!r}")
            rn = rf = None
            if "reserve_s" in c:
                r = _obj(c["reserve_s"], "clock.reserve_s")
                _check_keys(r, "clock.reserve_s", frozenset({"near", "far"}), ("near", "far"))
                rn = _num(r["near"], "clock.reserve_s.near", 0.0)
                rf = _num(r["far"], "clock.reserve_s.far", 0.0)
            clock = Clock(running, paused, rn, rf)
        source = obj.get("source")
        if source is not None and not isinstance(source, str):
            raise TableStateError("source", "must be a string")
        state = cls(frame, t, tuple(points), bar, off, in_hand, tuple(unclear), tuple(dice), cube, tuple(hands), clock, source,
                    bar_p, off_p)
        for colour in Colour:
            if state.total(colour) > MAX_CHECKERS:
                raise TableStateError("points", f"more than 15 {colour.value} checkers in total ({state.total(colour)})")
        return state

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "table_state", "version": SCHEMA_VERSION, "frame": self.frame, "t": round(self.t, 4)}
        pts: list[dict[str, Any]] = []
        for i, p in enumerate(self.points):
            d: dict[str, Any] = {"point": i + 1, "light": p.light, "dark": p.dark}
            if p.light_p is not None:
                d["light_p"] = list(p.light_p)
            if p.dark_p is not None:
                d["dark_p"] = list(p.dark_p)
            if p.confidence is not None:
                d["confidence"] = p.confidence
            pts.append(d)
        out["points"] = pts
        for key, pair, dists in (("bar", self.bar, self.bar_p), ("off", self.off, self.off_p)):
            entry: dict[str, Any] = {"light": pair[0], "dark": pair[1]}
            for dist, name in zip(dists, ("light_p", "dark_p"), strict=True):
                if dist is not None:
                    entry[name] = list(dist)
            out[key] = entry
        if self.in_hand != (0, 0):
            out["in_hand"] = {"light": self.in_hand[0], "dark": self.in_hand[1]}
        if self.unclear:
            out["unclear"] = [
                {"colour": u.colour.value, "count": u.count, **({"near_point": u.near_point} if u.near_point else {})}
                for u in self.unclear
            ]
        out["dice"] = [_die_json(d) for d in self.dice]
        if self.cube is not None:
            out["cube"] = {"value": self.cube.value, "zone": self.cube.zone.value}
            if self.cube.confidence != 1.0:
                out["cube"]["confidence"] = self.cube.confidence
            if self.cube.side is not None:
                out["cube"]["side"] = self.cube.side.value
        if self.hands:
            out["hands"] = [
                {"side": h.side.value, "over": h.over.value, "touching": h.touching, **({"point": h.point} if h.point else {})}
                for h in self.hands
            ]
        if self.clock is not None:
            c: dict[str, Any] = {"running": None if self.clock.running is None else self.clock.running.value}
            if self.clock.paused:
                c["paused"] = True
            if self.clock.reserve_near_s is not None and self.clock.reserve_far_s is not None:
                c["reserve_s"] = {"near": self.clock.reserve_near_s, "far": self.clock.reserve_far_s}
            out["clock"] = c
        if self.source is not None:
            out["source"] = self.source
        return out


def _die(raw: Any, path: str) -> Die:
    d = _obj(raw, path)
    _check_keys(d, path, _DIE_KEYS, ("state",))
    value = d.get("value")
    if value is not None:
        value = _int(value, f"{path}.value", 1, 6)
    state = _enum(DieState, d["state"], f"{path}.state")
    valid = d.get("valid")
    if valid is not None and type(valid) is not bool:
        raise TableStateError(f"{path}.valid", f"must be true, false or null; got {valid!r}")
    reason = d.get("reason")
    reason_e = None if reason is None else _enum(DieReason, reason, f"{path}.reason")
    half = d.get("half")
    owner = d.get("owner")
    rest = d.get("rest_s")
    die_id = d.get("id")
    if state is DieState.AT_REST and value is None:
        raise TableStateError(f"{path}.value", "a die at rest must have a value (use confidence to express doubt)")
    value_p = d.get("value_p")
    if value_p is not None:
        if not isinstance(value_p, list) or len(value_p) != 6:
            raise TableStateError(f"{path}.value_p", f"must be a list of 6 probabilities (faces 1 to 6); got {value_p!r}")
        value_p = tuple(_num(v, f"{path}.value_p[{k}]", 0.0, 1.0) for k, v in enumerate(value_p))
        if sum(value_p) <= 0.0:
            raise TableStateError(f"{path}.value_p", "the probabilities sum to 0: give at least one face a probability")
    centre = d.get("center_px")
    if centre is not None:
        if not isinstance(centre, list) or len(centre) != 2:
            raise TableStateError(f"{path}.center_px", f"must be a list of 2 pixel coordinates [x, y] or null; got {centre!r}")
        centre = (_num(centre[0], f"{path}.center_px[0]"), _num(centre[1], f"{path}.center_px[1]"))
    return Die(
        value,
        state,
        valid,
        reason_e,
        None if half is None else _enum(Half, half, f"{path}.half"),
        None if owner is None else _enum(Colour, owner, f"{path}.owner"),
        _num(d.get("confidence", 1.0), f"{path}.confidence", 0.0, 1.0),
        None if rest is None else _num(rest, f"{path}.rest_s", 0.0),
        None if die_id is None else _int(die_id, f"{path}.id", 0, 99),
        value_p,
        centre,
    )


def _die_json(d: Die) -> dict[str, Any]:
    out: dict[str, Any] = {"value": d.value, "state": d.state.value}
    if d.valid is not None:
        out["valid"] = d.valid
    if d.reason is not None:
        out["reason"] = d.reason.value
    if d.half is not None:
        out["half"] = d.half.value
    if d.owner is not None:
        out["owner"] = d.owner.value
    if d.confidence != 1.0:
        out["confidence"] = d.confidence
    if d.rest_s is not None:
        out["rest_s"] = round(d.rest_s, 3)
    if d.id is not None:
        out["id"] = d.id
    if d.value_p is not None:
        out["value_p"] = list(d.value_p)
    if d.center_px is not None:
        out["center_px"] = [round(d.center_px[0], 1), round(d.center_px[1], 1)]
    return out


def empty_points() -> tuple[PointObs, ...]:
    return tuple(PointObs() for _ in range(24))


@dataclass(frozen=True, slots=True)
class PhysicalBoard:
    """A checker map in physical terms (what the table would show for an engine position)."""

    light: tuple[int, ...]  # 24 counts, index 0 = physical point 1
    dark: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    def points(self) -> tuple[PointObs, ...]:
        return tuple(PointObs(a, b) for a, b in zip(self.light, self.dark, strict=True))

    @classmethod
    def from_state(cls, s: TableState) -> PhysicalBoard:
        return cls(s.counts(Colour.LIGHT), s.counts(Colour.DARK), s.bar, s.off)

    def log_likelihood(self, s: TableState) -> float:
        return s.checker_log_likelihood(self.light, self.dark, self.bar, self.off)


__all__ = [
    "SCHEMA_VERSION",
    "TableStateError",
    "Colour",
    "Seat",
    "Half",
    "DieState",
    "DieReason",
    "CubeZone",
    "HandOver",
    "PointObs",
    "Unclear",
    "Die",
    "Cube",
    "Hand",
    "Clock",
    "TableState",
    "PhysicalBoard",
    "empty_points",
]
