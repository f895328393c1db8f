"""The match set-up: who plays which colour from which seat, which way, with what equipment.

This is where physical table terms meet the engine's canonical numbering (ARCHITECTURE principle 4).

Orientation
-----------
Physical points are numbered as in ``gammonwatch recognize`` (see :mod:`rules.referee.tablestate`):
1 at the near-right corner, 1..12 along the near edge, 13..24 along the far edge from far-left to
far-right. Both home boards are in the same half of the board (STD Set Up; the mirror layout with the
home boards on the left is allowed, DIGEST A6.1). With ``home = "right"`` the near player's own point
``n`` *is* physical point ``n``; with ``home = "left"`` it is ``13 - n`` (n <= 12) or ``37 - n``
(n >= 13). The far player's own point ``n`` is always the physical point of the near player's ``25 - n``.

The engine numbers players 0 and 1 as the first and second player of the match (``.mat`` order); the
set-up says which colour the first player has and which colour sits near.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from rules.referee.tablestate import Colour, Half, Seat, TableStateError


class DiceMode(StrEnum):
    TWO = "two"  # two shared dice (RG19 3.2.2 preferred; clocked matches always two)
    FOUR = "four"  # two dice per player (WB23 3.3, US09 3.3)


class EndSignal(StrEnum):
    """How a player ends his turn (RG19 4.1.7, WB23 4.1(vi), US09 4.5, STD Irregularities-2)."""

    CLOCK = "clock"  # press the clock (any profile, when a clock is used)
    BAR_TAP = "bar_tap"  # RG19 4.1.7.2: two dice, no clock
    LIFT_DICE = "lift_dice"  # four dice, or an agreed method (WB23 4.1(vi)(a))


@dataclass(frozen=True)
class Orientation:
    near: Colour = Colour.LIGHT
    """Colour of the player in the near seat."""
    home: Half = Half.RIGHT
    """Half of the board (seen from the near seat) that holds both home boards."""

    def seat_of(self, colour: Colour) -> Seat:
        return Seat.NEAR if colour is self.near else Seat.FAR

    def colour_at(self, seat: Seat) -> Colour:
        return self.near if seat is Seat.NEAR else self.near.other

    def right_half(self, colour: Colour) -> Half:
        """The half on this colour's right-hand side (where he must roll, RG19 4.1.4.3)."""
        return Half.RIGHT if self.seat_of(colour) is Seat.NEAR else Half.LEFT

    def physical_point(self, colour: Colour, own: int) -> int:
        """Physical point (1..24) of ``colour``'s own point ``own`` (1..24)."""
        near_own = own if colour is self.near else 25 - own
        if self.home is Half.RIGHT:
            return near_own
        return 13 - near_own if near_own <= 12 else 37 - near_own

    def own_point(self, colour: Colour, physical: int) -> int:
        """Inverse of :meth:`physical_point`."""
        near_own = physical if self.home is Half.RIGHT else (13 - physical if physical <= 12 else 37 - physical)
        return near_own if colour is self.near else 25 - near_own

    def to_json(self) -> dict[str, Any]:
        return {"near": self.near.value, "home": self.home.value}


@dataclass(frozen=True)
class MatchSetup:
    """Everything the referee must know before the first table state (``schemas/match_setup.schema.json``)."""

    length: int = 7
    """Match length in points; 0 for money play."""
    players: tuple[str, str] = ("Player 1", "Player 2")
    """Names of the first and second player (the ``.mat`` order; engine players 0 and 1)."""
    first_colour: Colour = Colour.LIGHT
    """Checker colour of the first player."""
    orientation: Orientation = field(default_factory=Orientation)
    dice_mode: DiceMode = DiceMode.TWO
    end_signal: EndSignal | None = None
    """How turns end; None = the profile's default for the dice mode and clock."""
    clock: bool = False
    score: tuple[int, int] = (0, 0)
    """Score at the start of the stream (a stream may begin mid-match)."""
    crawford: bool | None = None
    """Whether the first game of the stream is the Crawford game; None = derive from the score."""
    crawford_done: bool = False

    def colour_of(self, player: int) -> Colour:
        return self.first_colour if player == 0 else self.first_colour.other

    def player_of(self, colour: Colour) -> int:
        return 0 if colour is self.first_colour else 1

    def player_at(self, seat: Seat) -> int:
        return self.player_of(self.orientation.colour_at(seat))

    def seat_of_player(self, player: int) -> Seat:
        return self.orientation.seat_of(self.colour_of(player))

    def with_(self, **changes: Any) -> MatchSetup:
        return replace(self, **changes)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "match_setup",
            "version": 1,
            "length": self.length,
            "players": list(self.players),
            "first_colour": self.first_colour.value,
            "orientation": self.orientation.to_json(),
            "dice_mode": self.dice_mode.value,
            "clock": self.clock,
            "score": list(self.score),
        }
        if self.end_signal is not None:
            out["end_signal"] = self.end_signal.value
        if self.crawford is not None:
            out["crawford"] = self.crawford
        if self.crawford_done:
            out["crawford_done"] = True
        return out

    @classmethod
    def from_json(cls, obj: Any) -> MatchSetup:
        if not isinstance(obj, dict):
            raise TableStateError("$", "a match set-up must be an object")
        allowed = {
            "type", "version", "length", "players", "first_colour", "orientation", "dice_mode",
            "end_signal", "clock", "score", "crawford", "crawford_done",
        }
        for key in obj:
            if key not in allowed:
                raise TableStateError(key, "is not a match-set-up field")
        if obj.get("type") != "match_setup":
            raise TableStateError("type", "must be 'match_setup'")
        if obj.get("version") != 1:
            raise TableStateError("version", f"this referee reads match-set-up version 1; got {obj.get('version')!r}")
        length = obj.get("length", 7)
        if type(length) is not int or not 0 <= length <= 255:
            raise TableStateError("length", f"must be an integer 0..255 (0 = money play); got {length!r}")
        players = obj.get("players", ["Player 1", "Player 2"])
        if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
            raise TableStateError("players", "must be a list of two names")
        try:
            first = Colour(obj.get("first_colour", "light"))
        except ValueError:
            raise TableStateError("first_colour", "must be light or dark") from None
        ori = obj.get("orientation", {})
        if not isinstance(ori, dict):
            raise TableStateError("orientation", "must be an object with near and home")
        try:
            orientation = Orientation(Colour(ori.get("near", "light")), Half(ori.get("home", "right")))
        except ValueError:
            raise TableStateError("orientation", "near must be light|dark and home must be left|right") from None
        try:
            dice_mode = DiceMode(obj.get("dice_mode", "two"))
        except ValueError:
            raise TableStateError("dice_mode", "must be two or four") from None
        end = obj.get("end_signal")
        try:
            end_signal = None if end is None else EndSignal(end)
        except ValueError:
            raise TableStateError("end_signal", "must be clock, bar_tap or lift_dice") from None
        clock = obj.get("clock", False)
        if type(clock) is not bool:
            raise TableStateError("clock", "must be true or false")
        score = obj.get("score", [0, 0])
        if not (isinstance(score, list) and len(score) == 2 and all(type(s) is int and s >= 0 for s in score)):
            raise TableStateError("score", "must be two non-negative integers")
        crawford = obj.get("crawford")
        if crawford is not None and type(crawford) is not bool:
            raise TableStateError("crawford", "must be true, false or absent")
        crawford_done = obj.get("crawford_done", False)
        if type(crawford_done) is not bool:
            raise TableStateError("crawford_done", "must be true or false")
        return cls(
            length=length,
            players=(players[0], players[1]),
            first_colour=first,
            orientation=orientation,
            dice_mode=dice_mode,
            end_signal=end_signal,
            clock=clock,
            score=(score[0], score[1]),
            crawford=crawford,
            crawford_done=crawford_done,
        )
