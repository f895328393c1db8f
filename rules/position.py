"""The position: where every checker is and who is on roll.

Numbering (the one canonical numbering inside ``rules/``)
--------------------------------------------------------
Each player counts the points in **his own numbering**: point 1 is the last point of his home board
(the next step is off the board), point 24 is the farthest, where his back checkers start. A player
moves from higher to lower numbers. Player 0's point ``p`` is player 1's point ``25 - p``.

A side's checkers are stored as a *board*: a tuple of 26 counts indexed by point::

    board[OFF] (index 0)   checkers borne off (derived: 15 - on board - on bar - out of play)
    board[1] .. board[24]  checkers on points 1..24 in this player's numbering
    board[BAR] (index 25)  checkers on the bar

Checkers *out of play* (RG19 4.2.1 and DIGEST A6.4: a player who started short, or a checker
illegally removed, RG19 4.2.3.3) belong to neither the board nor the borne-off count; a side's
four counts always add up to 15.

Which physical corner is whose home board is a matter for calibration, never for this package.

>>> pos = Position.start()
>>> pos.pip_count(0), pos.pip_count(1)
(167, 167)
>>> pos.board(0)[13], pos.board(1)[BAR]
(5, 0)
>>> Position.start().switch_sides() == Position.start(turn=1)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # pragma: no cover
    from rules.dice import Dice
    from rules.movegen import LegalPlays
    from rules.play import Play

Player = int
"""0 or 1. Which physical side is which belongs to calibration; the referee maps colours to 0/1."""

Board = tuple[int, ...]
"""26 counts: ``board[OFF]`` borne off, ``board[1..24]`` points in the owner's numbering, ``board[BAR]``."""

OFF: Final = 0
BAR: Final = 25
NUM_POINTS: Final = 24
NUM_CHECKERS: Final = 15
PLAYERS: Final = (0, 1)

_START_POINTS: Final[Mapping[int, int]] = {24: 2, 13: 5, 8: 3, 6: 5}


def other(player: Player) -> Player:
    """The opponent of ``player``."""
    return 1 - player


def _board_from_points(player: Player, points: Mapping[int, int], out_of_play: int) -> Board:
    counts = [0] * 26
    for point, n in points.items():
        if not isinstance(point, int) or not 1 <= point <= BAR:
            raise ValueError(
                f"player {player}: point {point!r} is not a point; use 1..24 in the player's own "
                f"numbering, or {BAR} (BAR) for the bar"
            )
        counts[point] += n
    in_play = sum(counts[1:])
    if in_play + out_of_play > NUM_CHECKERS:
        extra = f" and {out_of_play} out of play" if out_of_play else ""
        raise ValueError(
            f"player {player} has {in_play + out_of_play} checkers ({in_play} on points and bar{extra}); "
            f"each side has exactly {NUM_CHECKERS}"
        )
    counts[OFF] = NUM_CHECKERS - out_of_play - in_play
    return tuple(counts)


class Position:
    """An immutable, hashable backgammon position: both sides' checkers and the player on roll.

    Build one with :meth:`start`, :meth:`from_points`, :meth:`from_boards` or the ID readers in
    :mod:`rules.ids`. The constructor validates and raises :class:`ValueError` with a message that
    says what is wrong, e.g. ``player 0 has 16 checkers (on points 15, on bar 1, ...)``.

    ``boards`` are two 26-tuples (see the module docstring), ``turn`` the player on roll and
    ``out_of_play`` the number of each side's checkers out of play (RG19 4.2.1, 4.2.3.3).
    """

    __slots__ = ("_boards", "_turn", "_out", "_hash")

    _boards: tuple[Board, Board]
    _turn: Player
    _out: tuple[int, int]
    _hash: int

    def __init__(
        self,
        board0: Sequence[int],
        board1: Sequence[int],
        turn: Player = 0,
        out_of_play: tuple[int, int] = (0, 0),
    ) -> None:
        boards = (tuple(board0), tuple(board1))
        _validate(boards, turn, out_of_play)
        _init(self, boards, turn, (int(out_of_play[0]), int(out_of_play[1])))

    # ----------------------------------------------------------------------------------- builders
    @classmethod
    def start(cls, turn: Player = 0) -> Position:
        """The standard starting position (STD Set Up; RG19 4.2.1) with ``turn`` on roll."""
        b = _board_from_points(0, _START_POINTS, 0)
        return cls(b, b, turn)

    @classmethod
    def from_points(
        cls,
        points0: Mapping[int, int],
        points1: Mapping[int, int],
        turn: Player = 0,
        out_of_play: tuple[int, int] = (0, 0),
    ) -> Position:
        """A position from ``{point: count}`` maps in each player's own numbering (``25`` = bar).

        Borne-off counts are derived: 15 minus checkers on the board, on the bar and out of play.

        >>> Position.from_points({6: 2, 25: 1}, {1: 2})
        Position.from_points({6: 2, 25: 1}, {1: 2}, turn=0)
        >>> Position.from_points({6: 2}, {19: 1})
        Traceback (most recent call last):
        ...
        ValueError: point 6 (player 0's numbering) holds checkers of both players (player 0: 2, player 1: 1 on its point 19)
        """
        b0 = _board_from_points(0, points0, out_of_play[0])
        b1 = _board_from_points(1, points1, out_of_play[1])
        return cls(b0, b1, turn, out_of_play)

    @classmethod
    def from_boards(cls, boards: Sequence[Sequence[int]], turn: Player = 0,
                    out_of_play: tuple[int, int] = (0, 0)) -> Position:
        """From two 26-long boards (``[off, point 1 .. point 24, bar]``); see :meth:`boards`."""
        if len(boards) != 2:
            raise ValueError(f"expected two boards (player 0, player 1), got {len(boards)}")
        return cls(boards[0], boards[1], turn, out_of_play)

    @classmethod
    def from_simple(cls, values: Iterable[int], turn: Player = 0) -> Position:
        """From a 'simple' signed array in player 0's numbering (see :func:`boards_from_simple`)."""
        b0, b1 = boards_from_simple(values)
        return cls(b0, b1, turn)

    def to_simple(self) -> list[int]:
        """The 'simple' signed array in player 0's numbering: ``[1..24]`` points (player 0 positive,
        player 1 negative), ``[25]`` player 0's bar, ``[0]`` player 1's bar (negative)."""
        return simple_from_boards(self._boards[0], self._boards[1])

    @classmethod
    def _unchecked(cls, board0: Board, board1: Board, turn: Player,
                   out_of_play: tuple[int, int] = (0, 0)) -> Position:
        """Internal fast path for boards produced by the engine itself (already consistent)."""
        pos = cls.__new__(cls)
        _init(pos, (board0, board1), turn, out_of_play)
        return pos

    # -------------------------------------------------------------------------------- accessors
    @property
    def turn(self) -> Player:
        """The player on roll (0 or 1)."""
        return self._turn

    @property
    def out_of_play(self) -> tuple[int, int]:
        """Checkers of each player out of play (RG19 4.2.1 setup shortfall, 4.2.3.3 removal)."""
        return self._out

    def boards(self) -> tuple[Board, Board]:
        """Both 26-tuples ``(board of player 0, board of player 1)``, each in its owner's numbering."""
        return self._boards

    def board(self, player: Player) -> Board:
        """The 26-tuple of ``player``: ``[OFF]`` borne off, ``[1..24]`` points, ``[BAR]`` bar."""
        return self._boards[player]

    def count(self, player: Player, point: int) -> int:
        """Checkers of ``player`` on ``point`` (his numbering; ``BAR`` = 25, ``OFF`` = 0)."""
        return self._boards[player][point]

    def owner(self, point: int, player: Player = 0) -> tuple[Player | None, int]:
        """``(player owning the point or None, count)`` for ``point`` in ``player``'s numbering (1..24)."""
        mine = self._boards[player][point]
        if mine:
            return player, mine
        theirs = self._boards[1 - player][25 - point]
        return (1 - player, theirs) if theirs else (None, 0)

    def on_bar(self, player: Player) -> int:
        return self._boards[player][BAR]

    def borne_off(self, player: Player) -> int:
        return self._boards[player][OFF]

    def in_play(self, player: Player) -> int:
        """Checkers still to bear off (on points and on the bar)."""
        b = self._boards[player]
        return NUM_CHECKERS - b[OFF] - self._out[player]

    def pip_count(self, player: Player) -> int:
        """Pips ``player`` needs to bear off every checker in play (bar counts 25)."""
        b = self._boards[player]
        return sum(i * b[i] for i in range(1, 26))

    def pips(self) -> tuple[int, int]:
        return self.pip_count(0), self.pip_count(1)

    def has_won(self, player: Player) -> bool:
        """True when ``player`` has no checker left on the board or the bar (RG19 4.2.3.3: out of play
        checkers do not count as borne off, but need not be borne off to finish)."""
        return self.in_play(player) == 0

    def all_home(self, player: Player) -> bool:
        """True when every checker of ``player`` in play is in his home board (may bear off)."""
        return not any(self._boards[player][7:26])

    def is_contact(self) -> bool:
        """True while some checker of one side still has to pass a checker of the other."""
        b0, b1 = self._boards
        back0 = max((i for i in range(25, 0, -1) if b0[i]), default=0)
        back1 = max((i for i in range(25, 0, -1) if b1[i]), default=0)
        return back0 + back1 > 25

    def is_game_over(self) -> bool:
        return self.has_won(0) or self.has_won(1)

    # -------------------------------------------------------------------------------- transforms
    def with_turn(self, player: Player) -> Position:
        """The same checkers with ``player`` on roll."""
        if player not in PLAYERS:
            raise ValueError(f"turn must be 0 or 1, got {player!r}")
        return Position._unchecked(self._boards[0], self._boards[1], player, self._out)

    def pass_turn(self) -> Position:
        """The same checkers, the other player on roll (what a dance/no-move turn does)."""
        return self.with_turn(1 - self._turn)

    def switch_sides(self) -> Position:
        """Exchange the roles of the players: player 0's checkers become player 1's and vice versa, and
        the turn moves with them, so the position looks the same to whoever is on roll."""
        b0, b1 = self._boards
        return Position._unchecked(b1, b0, 1 - self._turn, (self._out[1], self._out[0]))

    swap = switch_sides

    def mover_view(self) -> tuple[Board, Board]:
        """``(board of the player on roll, board of the opponent)``."""
        t = self._turn
        return self._boards[t], self._boards[1 - t]

    # ------------------------------------------------------------------------------------ rules
    def legal_plays(self, dice: Dice | tuple[int, int] | str) -> LegalPlays:
        """The lazy view of legal plays for the player on roll (see :class:`rules.movegen.LegalPlays`)."""
        from rules.movegen import LegalPlays

        return LegalPlays(self, dice)

    def resulting_positions(self, dice: Dice | tuple[int, int] | str) -> list[Position]:
        """The distinct positions the player on roll can legally reach (opponent then on roll)."""
        from rules.movegen import resulting_positions

        return resulting_positions(self, dice)

    def apply(self, play: Play | str, dice: Dice | tuple[int, int] | str) -> Position:
        """The position after ``play`` with ``dice``; raises :class:`rules.errors.IllegalPlayError`."""
        from rules.movegen import apply_play

        return apply_play(self, play, dice)

    # ---------------------------------------------------------------------------------- formats
    def position_id(self) -> str:
        """gnubg Position ID (14 characters, from the view of the player on roll)."""
        from rules.ids import position_id

        return position_id(self)

    def diagram(self) -> str:
        from rules.diagram import diagram

        return diagram(self)

    def points(self, player: Player) -> dict[int, int]:
        """``{point: count}`` of ``player``'s checkers on points and bar (his numbering, bar = 25)."""
        b = self._boards[player]
        return {i: b[i] for i in range(1, 26) if b[i]}

    # -------------------------------------------------------------------------------- dunder
    def __eq__(self, other_: object) -> bool:
        if not isinstance(other_, Position):
            return NotImplemented
        return (
            self._turn == other_._turn and self._boards == other_._boards and self._out == other_._out
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        extra = f", out_of_play={self._out!r}" if any(self._out) else ""
        return f"Position.from_points({self.points(0)!r}, {self.points(1)!r}, turn={self._turn}{extra})"

    def __str__(self) -> str:
        return self.diagram()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Position is immutable; cannot set {name!r} (build a new Position)")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Position, (self._boards[0], self._boards[1], self._turn, self._out))


_set = object.__setattr__


def _init(pos: Position, boards: tuple[Board, Board], turn: Player, out: tuple[int, int]) -> None:
    _set(pos, "_boards", boards)
    _set(pos, "_turn", turn)
    _set(pos, "_out", out)
    _set(pos, "_hash", hash((boards, turn, out)))


def _validate(boards: tuple[Board, Board], turn: object, out_of_play: object) -> None:
    if turn not in PLAYERS or isinstance(turn, bool):
        raise ValueError(f"turn must be 0 or 1 (the player on roll), got {turn!r}")
    if not (isinstance(out_of_play, Sequence) and len(out_of_play) == 2):
        raise ValueError(f"out_of_play must be a pair (player 0, player 1), got {out_of_play!r}")
    for player, board in enumerate(boards):
        if len(board) != 26:
            raise ValueError(
                f"player {player}'s board has {len(board)} entries; expected 26 "
                f"([borne off, point 1 .. point 24, bar])"
            )
        for i, n in enumerate(board):
            if not isinstance(n, int) or isinstance(n, bool):
                raise ValueError(f"player {player}: count at index {i} is {n!r}, not an integer")
            if n < 0:
                where = "borne off" if i == OFF else "the bar" if i == BAR else f"point {i}"
                raise ValueError(f"player {player} has a negative count ({n}) on {where}")
        out = out_of_play[player]
        if not isinstance(out, int) or not 0 <= out <= NUM_CHECKERS:
            raise ValueError(f"player {player}: out_of_play must be 0..15, got {out!r}")
        total = sum(board) + out
        if total != NUM_CHECKERS:
            on_points = sum(board[1:25])
            raise ValueError(
                f"player {player} has {total} checkers (on points {on_points}, on bar {board[BAR]}, "
                f"borne off {board[OFF]}, out of play {out}); each side has exactly {NUM_CHECKERS}"
            )
    b0, b1 = boards
    for p in range(1, 25):
        if b0[p] and b1[25 - p]:
            raise ValueError(
                f"point {p} (player 0's numbering) holds checkers of both players "
                f"(player 0: {b0[p]}, player 1: {b1[25 - p]} on its point {25 - p})"
            )


def boards_from_simple(values: Iterable[int]) -> tuple[Board, Board]:
    """Split a 'simple' array into two boards (used by the ID readers and tests).

    ``values`` are 26 signed counts in **player 0's numbering**: index 1..24 the points (positive =
    player 0, negative = player 1), index 25 player 0's bar, index 0 player 1's bar (negative or
    positive, its magnitude is used). Borne-off counts are derived (no out-of-play checkers).
    """
    v = list(values)
    if len(v) != 26:
        raise ValueError(f"a simple array has 26 entries (0 = player 1's bar, 1..24, 25 = player 0's bar), got {len(v)}")
    b0 = [0] * 26
    b1 = [0] * 26
    for p in range(1, 25):
        if v[p] > 0:
            b0[p] = v[p]
        elif v[p] < 0:
            b1[25 - p] = -v[p]
    b0[BAR] = abs(v[25])
    b1[BAR] = abs(v[0])
    b0[OFF] = NUM_CHECKERS - sum(b0)
    b1[OFF] = NUM_CHECKERS - sum(b1)
    return tuple(b0), tuple(b1)


def simple_from_boards(board0: Board, board1: Board) -> list[int]:
    """Inverse of :func:`boards_from_simple` (player 0's numbering, player 1 negative)."""
    v = [0] * 26
    for p in range(1, 25):
        v[p] = board0[p] - board1[25 - p]
    v[25] = board0[BAR]
    v[0] = -board1[BAR]
    return v
