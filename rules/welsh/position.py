"""A Welsh position: where the 2 x 15 men are (DIGEST C.2, C.3, R2, R8, R10).

``WelshPosition.men[p][r]`` is the number of player ``p``'s men at race coordinate ``r`` (0 the
roof, 1..24 spikes, 25 checked out) in that player's own coordinates (see
:mod:`rules.welsh.geometry`).  Player 0 is Red, player 1 is Black.

Positions are immutable values; the constructor validates them and says what is wrong.
Test fixtures are written with labels, from each player's own view::

    WelshPosition.from_labels(red="H2", black="B1:2 F6:5 N2:3 H6:5")

Men not listed are checked out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rules.welsh.geometry import (
    FULL_SPIKE,
    HOME,
    MEN,
    OFF,
    PLAYER_NAMES,
    ROOF,
    label,
    parse_label,
    quarter_spikes,
)

Side = tuple[int, ...]

_SPREAD = (1,) * 6
_RECTANGLE = (3,) * 5

#: the starting layout of each side (C.3, W2): Back 1 x2, Far-Outer 6 x5, Near-Outer 2 x3, Home 6 x5
START_LAYOUT = "B1:2 F6:5 N2:3 H6:5"


class InvalidPositionError(ValueError):
    """A position that breaks the Welsh invariants (15 men a side, no mixed spikes, at most 6)."""


def parse_side(text: str) -> Side:
    """``"B1:2 F6:5 roof"`` -> a 26-tuple of counts; unlisted men are checked out."""
    counts = [0] * 26
    for token in text.replace(",", " ").split():
        name, _, n = token.partition(":")
        r = parse_label(name)
        try:
            k = int(n) if n else 1
        except ValueError:
            raise InvalidPositionError(f"{token!r}: the count after ':' must be a number, e.g. F6:5") from None
        if k < 0:
            raise InvalidPositionError(f"{token!r}: a count cannot be negative")
        counts[r] += k
    listed = sum(counts) - counts[OFF]
    if listed > MEN:
        raise InvalidPositionError(f"{text!r} lists {listed} men; a side has {MEN}")
    if counts[OFF] == 0:
        counts[OFF] = MEN - listed
    return tuple(counts)


def format_side(side: Side) -> str:
    """The inverse of :func:`parse_side` (checked-out men omitted)."""
    parts = []
    for r in range(0, 25):
        if side[r]:
            parts.append(f"{label(r)}:{side[r]}" if side[r] > 1 else label(r))
    return " ".join(parts) if parts else "-"


@dataclass(frozen=True, slots=True)
class WelshPosition:
    """The men of both players; ``men[p][r]`` in player ``p``'s race coordinates."""

    men: tuple[Side, Side]

    def __post_init__(self) -> None:
        problem = position_problem(self.men[0], self.men[1])
        if problem:
            raise InvalidPositionError(problem)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def start(cls) -> WelshPosition:
        """The starting position of every game (C.3)."""
        side = parse_side(START_LAYOUT)
        return cls((side, side))

    @classmethod
    def trusted(cls, men: tuple[Side, Side]) -> WelshPosition:
        """A position built by the engine itself, without re-validating it (fast path)."""
        pos = object.__new__(cls)
        object.__setattr__(pos, "men", men)
        return pos

    @classmethod
    def from_labels(cls, red: str, black: str) -> WelshPosition:
        """Red's and Black's men as labels from each one's own view; unlisted men are off."""
        return cls((parse_side(red), parse_side(black)))

    def labels(self) -> tuple[str, str]:
        """The inverse of :meth:`from_labels`."""
        return format_side(self.men[0]), format_side(self.men[1])

    def __repr__(self) -> str:
        red, black = self.labels()
        return f"WelshPosition.from_labels(red={red!r}, black={black!r})"

    # ---- queries --------------------------------------------------------------------------------
    def side(self, player: int) -> Side:
        return self.men[player]

    def at(self, player: int, r: int) -> int:
        """Player's men at his race coordinate ``r``."""
        return self.men[player][r]

    def owner_at(self, player: int, r: int) -> tuple[int | None, int]:
        """(owner, count) of the spike that is ``r`` for ``player``; owner None if empty."""
        mine = self.men[player][r]
        if mine:
            return player, mine
        theirs = self.men[1 - player][25 - r]
        return (1 - player, theirs) if theirs else (None, 0)

    def on_roof(self, player: int) -> int:
        return self.men[player][ROOF]

    def checked_out(self, player: int) -> int:
        return self.men[player][OFF]

    def all_home(self, player: int) -> bool:
        """All the player's remaining men are in his Home board (R18: checking out allowed)."""
        side = self.men[player]
        return sum(side[0:19]) == 0

    def full_spikes(self, player: int) -> list[int]:
        """Race coordinates where the player has a full spike (6 men, R10)."""
        side = self.men[player]
        return [r for r in range(1, 25) if side[r] == FULL_SPIKE]

    def full_spreads(self, player: int) -> list[int]:
        """Quarters (own order) where the player has a blot on each of the six spikes (R11)."""
        side = self.men[player]
        return [q for q in range(4) if side[6 * q + 1 : 6 * q + 7] == _SPREAD]

    def rovers(self, player: int) -> list[int]:
        """Race coordinates of the player's men that are alone in their quarter-board (R20).

        Alone means no team-mate and no opposing man anywhere in that quarter.  Men alone at the
        start of the owner's turn are activated rovers for that turn (C.12.1).  Last Man Roving
        (C.12.5) is added: the player's only man left, sitting in his Home board.
        """
        me, opp = self.men[player], self.men[1 - player]
        out = []
        for q in range(4):
            spikes = quarter_spikes(q)
            mine = [r for r in spikes if me[r]]
            if len(mine) == 1 and me[mine[0]] == 1 and not any(opp[25 - r] for r in spikes):
                out.append(mine[0])
        if me[OFF] == MEN - 1:
            last = [r for r in range(19, 25) if me[r]]
            if last and last[0] not in out:
                out.append(last[0])
        return sorted(out)

    def triangles(self, player: int) -> list[tuple[int, ...]]:
        """Runs of four adjacent spikes in one quarter holding 4-3-2-1 of the player's men (R17a)."""
        side = self.men[player]
        out = []
        for q in range(4):
            base = 6 * q + 1
            for start in range(base, base + 3):
                run = side[start : start + 4]
                if run == (4, 3, 2, 1) or run == (1, 2, 3, 4):
                    out.append(tuple(range(start, start + 4)))
        return out

    def has_triangle(self, player: int) -> bool:
        return bool(self.triangles(player))

    def has_rectangle(self, player: int) -> bool:
        """All 15 men on five adjacent spikes of one quarter, three on each (R17b)."""
        side = self.men[player]
        if side[0] or side[25]:
            return False
        for q in range(4):
            base = 6 * q + 1
            for start in (base, base + 1):
                if side[start : start + 5] == _RECTANGLE:
                    return True
        return False

    def one_man_left_home(self, player: int) -> bool:
        return self.men[player][OFF] == MEN - 1 and sum(self.men[player][19:25]) == 1

    def key(self) -> tuple[Side, Side]:
        return self.men

    def diagram(self) -> str:
        """A text picture: each physical spike with its owner and count, from Red's view."""
        lines = []
        for q in range(3, -1, -1):
            cells = []
            for r in quarter_spikes(q):
                owner, n = self.owner_at(0, r)
                mark = "." if owner is None else ("R" if owner == 0 else "B") + str(n)
                cells.append(f"{label(r)}={mark}")
            lines.append(" ".join(cells))
        for p in (0, 1):
            lines.append(f"{PLAYER_NAMES[p]}: roof {self.on_roof(p)}, off {self.checked_out(p)}")
        return "\n".join(lines)

    def iter_men(self, player: int) -> Iterator[int]:
        for r, n in enumerate(self.men[player]):
            for _ in range(n):
                yield r


def position_problem(red: Side, black: Side) -> str | None:
    """What breaks the Welsh invariants in a pair of sides, or None (C.1, R8, R10)."""
    for p, side in ((0, red), (1, black)):
        if len(side) != 26:
            return f"{PLAYER_NAMES[p]}: a side needs 26 counts (roof, 24 spikes, off), got {len(side)}"
        if any(n < 0 for n in side):
            return f"{PLAYER_NAMES[p]}: negative count of men"
        if sum(side) != MEN:
            return f"{PLAYER_NAMES[p]} has {sum(side)} men; each side has {MEN} (R1)"
        for r in range(1, 25):
            if side[r] > FULL_SPIKE:
                return f"{PLAYER_NAMES[p]} has {side[r]} men on {label(r)}; at most {FULL_SPIKE} (R10)"
    for r in range(1, 25):
        if red[r] and black[25 - r]:
            return f"mixed spike: Red's {label(r)} holds men of both players (R8)"
    return None


#: Home quarter index, re-exported for callers that test "in Home" by quarter
HOME_QUARTER = HOME
