"""What vision saw in one frame, as probabilities: the :class:`TableObservation`.

Perception is blind to legality (ARCHITECTURE principle 1): the observation never decides a
position; the referee asks it how likely a candidate is with :meth:`TableObservation.log_likelihood`.
It serialises to the table-state schema (``schemas/table_state.schema.json``, read by
``rules.referee.tablestate.TableState.from_json``) with :meth:`TableObservation.to_table_state`.

Checker counts are distributions over 0..15 per physical point and colour (index = count), so a
half-hidden tall stack can say "5 or 6, probably 6".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from calibration.profile import Orientation, own_to_physical

F64 = npt.NDArray[np.float64]
MAX_CHECKERS = 15
COUNTS = MAX_CHECKERS + 1
COLOURS: tuple[Literal["light"], Literal["dark"]] = ("light", "dark")
LOG_FLOOR = 1e-9
DIE_REASONS = ("flat_board", "on_checker", "cocked", "leaning", "in_gap", "off_board", "wrong_side", "on_die")
CUBE_FACES = (1, 2, 4, 8, 16, 32, 64)
CUBE_ZONES = ("centre", "near", "far", "board", "absent")
SCHEMA_VERSION = 1


def peaked(count: int, confidence: float) -> F64:
    """A count distribution with ``confidence`` on ``count`` and the rest spread evenly."""
    if not 0 <= count <= MAX_CHECKERS:
        raise ValueError(f"checker count {count} outside 0..{MAX_CHECKERS}")
    if not 0.0 < confidence <= 1.0:
        raise ValueError(f"confidence must be in (0, 1], got {confidence}")
    p = np.full(COUNTS, (1.0 - confidence) / (COUNTS - 1))
    p[count] = confidence
    return p


def _normalise(p: npt.ArrayLike, shape: tuple[int, ...], name: str) -> F64:
    arr = np.asarray(p, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if np.any(arr < 0) or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must hold non-negative finite probabilities")
    s = arr.sum(axis=-1, keepdims=True)
    if np.any(s <= 0):
        raise ValueError(f"{name}: a distribution sums to zero")
    return np.asarray(arr / s, dtype=np.float64)


@dataclass(frozen=True)
class DieObservation:
    value_p: F64
    """Probabilities of the values 1..6."""
    center_px: tuple[float, float]
    box_xyxy: tuple[float, float, float, float] | None = None
    half: Literal["left", "right"] | None = None
    state: Literal["rolling", "at_rest", "lifted", "in_cup"] = "at_rest"
    valid_p: float | None = None
    """Probability that the die lies validly (flat on the board, right side); None = not judged."""
    reason: str | None = None
    """One of :data:`DIE_REASONS` (the most likely physical situation), or None."""
    still_since: float | None = None
    """Since when nothing has moved in the die's box (the camera's motion history), when known: a die
    first found lying still (touching the other die, found by a closer look) has been at rest since."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value_p", _normalise(self.value_p, (6,), "DieObservation.value_p"))
        if self.reason is not None and self.reason not in DIE_REASONS:
            raise ValueError(f"die reason {self.reason!r} is not one of {', '.join(DIE_REASONS)}")

    @property
    def value(self) -> int:
        return int(np.argmax(self.value_p)) + 1

    @property
    def confidence(self) -> float:
        return float(np.max(self.value_p))

    @property
    def valid(self) -> bool | None:
        return None if self.valid_p is None else bool(self.valid_p >= 0.5)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "state": self.state}
        if self.valid is not None:
            out["valid"] = self.valid
        if self.reason is not None:
            out["reason"] = self.reason
        if self.half is not None:
            out["half"] = self.half
        out["center_px"] = [round(self.center_px[0], 1), round(self.center_px[1], 1)]
        out["confidence"] = round(self.confidence, 4)
        out["value_p"] = [round(float(v), 4) for v in self.value_p]
        return out


@dataclass(frozen=True)
class CubeObservation:
    value_p: F64
    """Probabilities of the faces :data:`CUBE_FACES`."""
    zone_p: F64
    """Probabilities of the zones :data:`CUBE_ZONES`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value_p", _normalise(self.value_p, (len(CUBE_FACES),), "CubeObservation.value_p"))
        object.__setattr__(self, "zone_p", _normalise(self.zone_p, (len(CUBE_ZONES),), "CubeObservation.zone_p"))

    @property
    def value(self) -> int:
        return CUBE_FACES[int(np.argmax(self.value_p))]

    @property
    def zone(self) -> str:
        return CUBE_ZONES[int(np.argmax(self.zone_p))]

    @property
    def confidence(self) -> float:
        return float(np.max(self.value_p) * np.max(self.zone_p))


@dataclass(frozen=True)
class TableObservation:
    """One frame's observation. ``point_p[i, c]`` is the count distribution of colour ``c``
    (0 light, 1 dark) on physical point ``i + 1``; ``bar_p[c]`` and ``off_p[c]`` likewise."""

    point_p: F64
    bar_p: F64
    off_p: F64
    dice: tuple[DieObservation, ...] = ()
    cube: CubeObservation | None = None
    frame_id: int = 0
    timestamp: float = 0.0
    orientation: Orientation = field(default_factory=Orientation)
    source: str | None = "vision"
    hidden: tuple[str, ...] = ()
    """Places a hand may hide in this frame (``vision.checkers.STRIP_NAMES``: ``p1``..``p24``,
    ``bar-near``, ``bar-far``, ``off-near``, ``off-far``); their distributions say nothing."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "point_p", _normalise(self.point_p, (24, 2, COUNTS), "point_p"))
        object.__setattr__(self, "bar_p", _normalise(self.bar_p, (2, COUNTS), "bar_p"))
        object.__setattr__(self, "off_p", _normalise(self.off_p, (2, COUNTS), "off_p"))

    # ---- construction ---------------------------------------------------------
    @classmethod
    def from_counts(cls, light: Sequence[int], dark: Sequence[int], bar: tuple[int, int] = (0, 0),
                    off: tuple[int, int] = (0, 0), confidence: float = 0.99, **kw: Any) -> TableObservation:
        """A sharp observation of known counts (physical points 1..24), e.g. from simulator labels."""
        if len(light) != 24 or len(dark) != 24:
            raise ValueError(f"need 24 counts per colour, got {len(light)} light and {len(dark)} dark")
        pts = np.stack([np.stack([peaked(a, confidence), peaked(b, confidence)]) for a, b in zip(light, dark, strict=True)])
        return cls(pts, np.stack([peaked(bar[0], confidence), peaked(bar[1], confidence)]),
                   np.stack([peaked(off[0], confidence), peaked(off[1], confidence)]), **kw)

    @classmethod
    def from_table_state(cls, state: dict[str, Any], confidence: float = 0.99,
                         orientation: Orientation | None = None) -> TableObservation:
        """An observation from a table-state JSON object (e.g. simulator labels): per-point
        distributions are used where given (``light_p``/``dark_p``), else the counts with ``confidence``."""
        points = state.get("points")
        if not isinstance(points, list) or len(points) != 24:
            raise ValueError("a table state needs 'points' with 24 entries")
        pts = np.empty((24, 2, COUNTS))
        for entry in points:
            i = int(entry["point"]) - 1
            if not 0 <= i < 24:
                raise ValueError(f"table state point {entry['point']!r} is not 1..24")
            for c, colour in enumerate(COLOURS):
                dist = entry.get(f"{colour}_p")
                if dist is not None:
                    d = np.zeros(COUNTS)
                    d[: len(dist)] = dist
                    pts[i, c] = d
                else:
                    pts[i, c] = peaked(int(entry[colour]), confidence)

        def pair(key: str) -> F64:
            obj = state.get(key) or {"light": 0, "dark": 0}
            return np.stack([peaked(int(obj["light"]), confidence), peaked(int(obj["dark"]), confidence)])

        dice = []
        for d in state.get("dice", []):
            if d.get("value") is None:
                continue
            p = np.full(6, (1.0 - float(d.get("confidence", confidence))) / 5)
            p[int(d["value"]) - 1] = float(d.get("confidence", confidence))
            valid = d.get("valid")
            dice.append(DieObservation(np.asarray(d.get("value_p", p), dtype=np.float64),
                                       tuple(d.get("center_px", (0.0, 0.0))),
                                       half=d.get("half"), state=d.get("state", "at_rest"),
                                       valid_p=None if valid is None else (0.99 if valid else 0.01),
                                       reason=d.get("reason")))
        cube = None
        if isinstance(state.get("cube"), dict):
            cv, cz = int(state["cube"]["value"]), str(state["cube"]["zone"])
            vp = np.full(len(CUBE_FACES), 0.01)
            vp[CUBE_FACES.index(cv)] = 1.0
            zp = np.full(len(CUBE_ZONES), 0.01)
            zp[CUBE_ZONES.index(cz)] = 1.0
            cube = CubeObservation(vp, zp)
        return cls(pts, pair("bar"), pair("off"), tuple(dice), cube, int(state.get("frame", 0)),
                   float(state.get("t", 0.0)), orientation or Orientation(), state.get("source"))

    # ---- most likely reading ----------------------------------------------------
    def counts(self, colour: Literal["light", "dark"]) -> tuple[int, ...]:
        c = COLOURS.index(colour)
        return tuple(int(v) for v in np.argmax(self.point_p[:, c], axis=1))

    @property
    def bar(self) -> tuple[int, int]:
        return (int(np.argmax(self.bar_p[0])), int(np.argmax(self.bar_p[1])))

    @property
    def off(self) -> tuple[int, int]:
        return (int(np.argmax(self.off_p[0])), int(np.argmax(self.off_p[1])))

    # ---- scoring candidates --------------------------------------------------------
    def log_likelihood_physical(self, light: Sequence[int], dark: Sequence[int], bar: tuple[int, int],
                                off: tuple[int, int]) -> float:
        """log P(observation | the table holds exactly these counts), physical numbering.

        Points, bar and trays are treated as independent; each probability is floored at 1e-9 so
        a single misread point costs a bounded amount instead of ruling a candidate out.
        """
        li = np.asarray(light, dtype=np.int64)
        di = np.asarray(dark, dtype=np.int64)
        if li.shape != (24,) or di.shape != (24,):
            raise ValueError("need 24 counts per colour")
        if np.any(li < 0) or np.any(di < 0) or np.any(li > MAX_CHECKERS) or np.any(di > MAX_CHECKERS):
            raise ValueError("checker counts must be 0..15")
        idx = np.arange(24)
        probs = np.concatenate([
            self.point_p[idx, 0, li], self.point_p[idx, 1, di],
            [self.bar_p[0, bar[0]], self.bar_p[1, bar[1]], self.off_p[0, off[0]], self.off_p[1, off[1]]],
        ])
        return float(np.sum(np.log(np.maximum(probs, LOG_FLOOR))))

    def log_likelihood(self, position: Any, light_player: int = 0) -> float:
        """log P(observation | ``position``), a ``rules.position.Position``.

        ``light_player`` (0 or 1) is the engine player who plays the light checkers; the profile's
        orientation says where each colour's home board is (``calibration.profile.own_to_physical``).
        """
        if light_player not in (0, 1):
            raise ValueError(f"light_player must be 0 or 1, got {light_player!r}")
        light, dark = [0] * 24, [0] * 24
        bar, off = [0, 0], [0, 0]
        for colour_index, player in ((0, light_player), (1, 1 - light_player)):
            board = position.board(player)
            home = self.orientation.home(COLOURS[colour_index])
            target = light if colour_index == 0 else dark
            for own in range(1, 25):
                target[own_to_physical(home, own) - 1] = int(board[own])
            bar[colour_index] = int(board[25])
            off[colour_index] = int(board[0])
        return self.log_likelihood_physical(light, dark, (bar[0], bar[1]), (off[0], off[1]))

    # ---- the table-state contract ---------------------------------------------------
    def to_table_state(self) -> dict[str, Any]:
        """This observation as a table state (``schemas/table_state.schema.json``, version 1)."""
        points = []
        light, dark = self.counts("light"), self.counts("dark")
        for i in range(24):
            points.append({
                "point": i + 1,
                "light": light[i],
                "dark": dark[i],
                "light_p": rounded_distribution(self.point_p[i, 0]),
                "dark_p": rounded_distribution(self.point_p[i, 1]),
            })
        out: dict[str, Any] = {
            "type": "table_state",
            "version": SCHEMA_VERSION,
            "frame": int(self.frame_id),
            "t": round(float(self.timestamp), 4),
            "points": points,
            "bar": {"light": self.bar[0], "dark": self.bar[1]},
            "off": {"light": self.off[0], "dark": self.off[1]},
            "dice": [d.to_json() for d in self.dice],
        }
        if self.cube is not None:
            out["cube"] = {"value": self.cube.value, "zone": self.cube.zone, "confidence": round(self.cube.confidence, 4)}
        if self.source is not None:
            out["source"] = self.source
        return out


def rounded_distribution(p: F64) -> list[float]:
    """Probabilities rounded to 5 decimals, trailing zeros of the count axis dropped, still summing to ~1."""
    r = [round(float(v), 5) for v in p]
    while len(r) > 1 and r[-1] == 0.0:
        r.pop()
    total = sum(r)
    if total > 0 and abs(total - 1.0) > 1e-4:
        r = [round(v / total, 5) for v in r]
    return r

