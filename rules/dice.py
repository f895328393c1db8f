"""Dice: one roll of two dice, and the 21 distinct rolls.

>>> Dice.parse("64"), Dice(6, 6).moves
(Dice(6, 4), (6, 6, 6, 6))
>>> str(Dice(5, 2)), len(ALL_ROLLS), sum(r.weight for r in ALL_ROLLS)
('52', 21, 36)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rules.errors import InvalidDiceError


@dataclass(frozen=True, slots=True, order=True)
class Dice:
    """Two die faces as rolled (``first``, ``second``), each 1..6. Order is kept as rolled;
    :attr:`high` and :attr:`low` give them sorted."""

    first: int
    second: int

    def __post_init__(self) -> None:
        for value in (self.first, self.second):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
                raise InvalidDiceError(f"a die shows 1..6, got {value!r} in ({self.first!r}, {self.second!r})")

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Read ``"64"``, ``"6-4"``, ``"6 4"``, ``"6,4"`` or ``"(6, 4)"``."""
        digits = [c for c in text if not c.isspace() and c not in "-,:()[]"]
        if len(digits) != 2 or not all(c in "123456" for c in digits):
            raise InvalidDiceError(f"cannot read dice {text!r}; write two faces 1..6 such as '64' or '6-4'")
        return cls(int(digits[0]), int(digits[1]))

    @classmethod
    def coerce(cls, value: Dice | tuple[int, int] | str | list[int]) -> Dice:
        """Accept a :class:`Dice`, a pair of ints or a string."""
        if isinstance(value, Dice):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, (tuple, list)) and len(value) == 2:
            return cls(value[0], value[1])
        raise InvalidDiceError(f"expected Dice, a pair of faces or a string such as '64', got {value!r}")

    @property
    def high(self) -> int:
        return max(self.first, self.second)

    @property
    def low(self) -> int:
        return min(self.first, self.second)

    @property
    def is_double(self) -> bool:
        return self.first == self.second

    @property
    def moves(self) -> tuple[int, ...]:
        """The die values to play: four of them for doubles (STD Movement-4), else high then low."""
        if self.first == self.second:
            return (self.first,) * 4
        return (self.high, self.low)

    @property
    def weight(self) -> int:
        """How many of the 36 equally likely outcomes give this roll (1 for doubles, else 2)."""
        return 1 if self.is_double else 2

    def sorted(self) -> Dice:
        """The same roll with the higher die first."""
        return Dice(self.high, self.low)

    def __str__(self) -> str:
        return f"{self.first}{self.second}"

    def __repr__(self) -> str:
        return f"Dice({self.first}, {self.second})"


ALL_ROLLS: Final[tuple[Dice, ...]] = tuple(Dice(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))
"""The 21 distinct rolls, higher die first (6-6, 6-5, ..., 1-1)."""

OPENING_ROLLS: Final[tuple[Dice, ...]] = tuple(r for r in ALL_ROLLS if not r.is_double)
"""The 15 rolls that can start a game (the opening roll is never a double: STD, RG19 4.1.2)."""
