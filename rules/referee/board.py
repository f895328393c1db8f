"""Physical checker maps <-> engine positions, through the set-up's orientation (principle 4)."""

from __future__ import annotations

from rules.play import Play, Step
from rules.position import BAR, NUM_CHECKERS, OFF, Position
from rules.referee.setup import MatchSetup
from rules.referee.tablestate import Colour, PhysicalBoard


class BoardMap:
    """Converts between :class:`PhysicalBoard` and :class:`Position` for one match set-up."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        o = setup.orientation
        # own point n (1..24) of engine player p -> physical index 0..23
        self.phys_index: tuple[tuple[int, ...], tuple[int, ...]] = (
            (0, *(o.physical_point(setup.colour_of(0), n) - 1 for n in range(1, 25))),
            (0, *(o.physical_point(setup.colour_of(1), n) - 1 for n in range(1, 25))),
        )
        self.light_player = setup.player_of(Colour.LIGHT)
        self._cache: dict[Position, PhysicalBoard] = {}

    def to_physical(self, pos: Position) -> PhysicalBoard:
        hit = self._cache.get(pos)
        if hit is not None:
            return hit
        counts: list[list[int]] = [[0] * 24, [0] * 24]
        for p in (0, 1):
            b = pos.board(p)
            idx = self.phys_index[p]
            c = counts[p]
            for n in range(1, 25):
                if b[n]:
                    c[idx[n]] = b[n]
        lp = self.light_player
        dp = 1 - lp
        board = PhysicalBoard(
            tuple(counts[lp]),
            tuple(counts[dp]),
            (pos.board(lp)[BAR], pos.board(dp)[BAR]),
            (pos.board(lp)[OFF], pos.board(dp)[OFF]),
        )
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[pos] = board
        return board

    def to_position(self, board: PhysicalBoard, turn: int, out_of_play: tuple[int, int] = (0, 0)) -> Position:
        """The engine position a physical map shows; raises ValueError if no position can look like it."""
        boards: list[list[int]] = [[0] * 26, [0] * 26]
        lp = self.light_player
        for p in (0, 1):
            counts = board.light if p == lp else board.dark
            idx = self.phys_index[p]
            b = boards[p]
            for n in range(1, 25):
                b[n] = counts[idx[n]]
            i = 0 if p == lp else 1
            b[BAR] = board.bar[i]
            b[OFF] = NUM_CHECKERS - out_of_play[p] - sum(b[1:26])
            if b[OFF] < 0:
                raise ValueError(f"{self.setup.colour_of(p).value} has more than {NUM_CHECKERS - out_of_play[p]} checkers in play")
        return Position(boards[0], boards[1], turn, out_of_play)


def diff_play(before: Position, after_boards: tuple[tuple[int, ...], tuple[int, ...]], mover: int) -> Play:
    """A readable notation for what the mover did, even when it is not a legal play.

    Sources (points that lost checkers, 25 = bar) and destinations (points that gained, 0 = off) are
    paired from the highest down. Used for illegal moves in alerts and transcripts only; legal moves
    take their notation from the engine (:meth:`rules.movegen.LegalPlays.play_for`).
    """
    b = before.board(mover)
    a = after_boards[mover]
    srcs: list[int] = []
    dsts: list[int] = []
    for n in range(25, 0, -1):
        if a[n] < b[n]:
            srcs += [n] * (b[n] - a[n])
    for n in range(25, -1, -1):
        if n < 25 and a[n] > b[n]:
            dsts += [n] * (a[n] - b[n])
    steps = [Step(s, d, False) for s, d in zip(srcs, dsts, strict=False) if s > d]
    return Play(steps)
