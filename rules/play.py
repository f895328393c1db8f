"""A play: the checker steps of one turn, with standard notation.

Points are in the mover's own numbering (see :mod:`rules.position`): ``25`` is the bar, ``0`` is off.

>>> p = Play.parse("24/18 13/11")
>>> p
Play.parse('24/18 13/11')
>>> p.steps
(Step(24, 18), Step(13, 11))
>>> str(Play.parse("bar/22* 6/off")), str(Play.parse("8/5 8/5 6/5(2)"))
('bar/22* 6/off', '8/5(2) 6/5(2)')
>>> str(Play.parse("13/7*/1")), str(Play.parse("24/18 18/13"))
('13/7*/1', '24/13')
>>> Play.parse("24-18")
Traceback (most recent call last):
...
rules.errors.InvalidPlayError: cannot read play '24-18': '24-18' is not a move; write moves as FROM/TO such as '24/18', 'bar/22*', '6/off' or '8/5(2)'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple

from rules.errors import InvalidPlayError

BAR_POINT: Final = 25
OFF_POINT: Final = 0

_POINT = r"(?:bar|b|off|o|\d{1,2})"
_TOKEN_RE: Final = re.compile(rf"^({_POINT}\*?(?:/{_POINT}\*?)+)(?:\((\d)\))?$", re.IGNORECASE)
_NO_PLAY_WORDS: Final = {"", "-", "cannot move", "can't move", "no move", "no play", "pass", "(no play)"}


class Step(NamedTuple):
    """One checker moving from ``src`` to ``dst`` (mover's numbering; 25 = bar, 0 = off).

    ``hit`` is True when it lands on (and hits) an opponent's blot. A step from parsed notation may
    span more than one die (``24/13``)."""

    src: int
    dst: int
    hit: bool = False

    def __repr__(self) -> str:
        return f"Step({self.src}, {self.dst}{', hit=True' if self.hit else ''})"

    @property
    def distance(self) -> int:
        return self.src - self.dst


def _point_text(p: int) -> str:
    return "bar" if p == BAR_POINT else "off" if p == OFF_POINT else str(p)


def _read_point(text: str, token: str, play_text: str) -> int:
    t = text.lower()
    if t in ("bar", "b"):
        return BAR_POINT
    if t in ("off", "o"):
        return OFF_POINT
    value = int(t)
    if not 0 <= value <= 25:
        raise InvalidPlayError(
            f"cannot read play {play_text!r}: point {value} in {token!r} is not 1..24 (use 'bar' or 'off')"
        )
    return value


class Play:
    """The steps of one turn in order; immutable and hashable.

    Two plays are equal when their steps are equal. Different notations can reach the same position
    (``24/13`` and ``24/18 18/13``); compare resulting positions to decide legality (ARCHITECTURE
    principle 2) — :class:`rules.movegen.LegalPlays` does that for ``in``.
    """

    __slots__ = ("_steps",)
    _steps: tuple[Step, ...]

    def __init__(self, steps: Iterable[Step | tuple[int, int] | tuple[int, int, bool]] = ()) -> None:
        norm = []
        for st in steps:
            step = st if isinstance(st, Step) else Step(*st)
            if not (0 < step.src <= 25 and 0 <= step.dst < 25 and step.src > step.dst):
                raise InvalidPlayError(
                    f"step {_point_text(step.src)}/{_point_text(step.dst)} does not move forward "
                    f"(from 1..24 or bar to a lower point or off)"
                )
            if step.hit and step.dst == OFF_POINT:
                raise InvalidPlayError("a checker borne off cannot hit ('off*')")
            norm.append(step)
        object.__setattr__(self, "_steps", tuple(norm))

    @classmethod
    def parse(cls, text: str) -> Play:
        """Read standard notation: moves separated by spaces (or commas), each ``FROM/TO`` with
        optional intermediate points (``13/7*/1``), ``*`` for a hit, ``bar``/``off`` (``25``/``0`` also
        accepted) and ``(n)`` for a move repeated n times. An empty string (or ``"cannot move"``) is
        the empty play of a player who cannot move."""
        if not isinstance(text, str):
            raise InvalidPlayError(f"a play's notation is a string, got {text!r}")
        norm = text.strip()
        if norm.lower() in _NO_PLAY_WORDS:
            return cls(())
        steps: list[Step] = []
        for token in re.split(r"[\s,]+", norm):
            m = _TOKEN_RE.match(token)
            if not m:
                raise InvalidPlayError(
                    f"cannot read play {text!r}: {token!r} is not a move; write moves as FROM/TO such as "
                    f"'24/18', 'bar/22*', '6/off' or '8/5(2)'"
                )
            parts = m.group(1).split("/")
            repeat = int(m.group(2)) if m.group(2) else 1
            if not 1 <= repeat <= 4:
                raise InvalidPlayError(f"cannot read play {text!r}: repeat ({repeat}) in {token!r} must be 1..4")
            if parts[0].endswith("*"):
                raise InvalidPlayError(f"cannot read play {text!r}: {token!r} marks a hit on its starting point")
            points = [(_read_point(p.rstrip("*"), token, text), p.endswith("*")) for p in parts]
            chain = []
            for (src, _), (dst, hit) in zip(points, points[1:], strict=False):
                if src <= dst:
                    raise InvalidPlayError(
                        f"cannot read play {text!r}: {token!r} moves from {_point_text(src)} to "
                        f"{_point_text(dst)}, which is not forward (checkers move to lower points)"
                    )
                if dst == OFF_POINT and hit:
                    raise InvalidPlayError(f"cannot read play {text!r}: {token!r} marks a hit on 'off'")
                if dst == BAR_POINT:
                    raise InvalidPlayError(f"cannot read play {text!r}: {token!r} moves onto the bar")
                chain.append(Step(src, dst, hit))
            steps.extend(chain * repeat)
        if len(steps) > 8:
            raise InvalidPlayError(f"cannot read play {text!r}: {len(steps)} moves; a turn has at most 4 (doubles)")
        return cls(steps)

    @property
    def steps(self) -> tuple[Step, ...]:
        return self._steps

    @property
    def pips(self) -> int:
        """Total distance written (a bear-off counts to point 0)."""
        return sum(s.src - s.dst for s in self._steps)

    @property
    def hits(self) -> int:
        return sum(1 for s in self._steps if s.hit)

    def notation(self) -> str:
        """Standard notation in gnubg's style: one checker's consecutive steps joined (intermediate
        points shown only where it hits), identical moves grouped with ``(n)``, higher points first."""
        return format_steps(self._steps)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Play.parse({self.notation()!r})"

    def __iter__(self) -> Iterator[Step]:
        return iter(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def __bool__(self) -> bool:
        return bool(self._steps)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._steps == other._steps

    def __hash__(self) -> int:
        return hash(self._steps)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Play is immutable")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Play, (self._steps,))


def format_steps(steps: Iterable[Step]) -> str:
    """Format steps as notation (see :meth:`Play.notation`), the way gnubg writes plays:

    * the steps of one checker are joined (``24/18 18/13`` -> ``24/13``), showing an intermediate
      point only where it hits (``13/7*/1``);
    * moves are listed from the highest starting point down;
    * a hit is marked on the first move (in that order) that lands on the hit point;
    * moves with the same start and end are grouped as ``(n)``, marked ``*`` if one of them hits.
    """
    steps_list = list(steps)
    pending = sorted(steps_list, key=lambda s: (-s.src, -s.dst))
    hit_points = {s.dst for s in pending if s.hit}
    chains: list[list[Step]] = []
    while pending:
        chain = [pending.pop(0)]
        while chain[-1].dst != OFF_POINT:
            nxt = next((i for i, s in enumerate(pending) if s.src == chain[-1].dst), None)
            if nxt is None:
                break
            chain.append(pending.pop(nxt))
        chains.append(chain)
    # two moves from one point: gnubg lists the longer first for a double, the shorter otherwise
    dists = [s.src - s.dst for s in steps_list if s.dst != OFF_POINT]
    double = len(steps_list) > 2 or (len(dists) == 2 and dists[0] == dists[1])
    chains.sort(key=lambda c: (-c[0].src, c[-1].dst if double else -c[-1].dst))
    groups: dict[tuple[int, int], list[str]] = {}
    for chain in chains:
        parts = [_point_text(chain[0].src)]
        for i, st in enumerate(chain):
            hit = st.dst in hit_points
            if hit:
                hit_points.discard(st.dst)
            if hit or i == len(chain) - 1:
                parts.append(_point_text(st.dst) + ("*" if hit else ""))
        groups.setdefault((chain[0].src, chain[-1].dst), []).append("/".join(parts))
    out = []
    for texts in groups.values():
        text = max(texts, key=lambda t: (t.count("*"), len(t)))  # the variant that shows the hits
        out.append(text if len(texts) == 1 else f"{text}({len(texts)})")
    return " ".join(out)
