"""A text diagram of a position, in player 0's numbering (player 0 = ``X`` moving 24 -> 1 to the
bottom right, player 1 = ``O``), in the style of gnubg's ASCII board.

>>> from rules.position import Position
>>> print(diagram(Position.start()))
 +13-14-15-16-17-18------19-20-21-22-23-24-+   O: player 1
 | X           O    |   | O              X |   pips 167, off 0
 | X           O    |   | O              X |
 | X           O    |   | O                |
 | X                |   | O                |
 | X                |   | O                |
 |                  |BAR|                  |
 | O                |   | X                |
 | O                |   | X                |
 | O           X    |   | X                |
 | O           X    |   | X              O |
 | O           X    |   | X              O |   pips 167, off 0
 +12-11-10--9--8--7-------6--5--4--3--2--1-+   X: player 0 (on roll)
"""

from __future__ import annotations

from rules.position import Position

_ROWS = 5


def _cell(position: Position, point: int, row: int) -> str:
    """Character for point ``point`` (player 0's numbering) at ``row`` (0 = nearest the edge)."""
    x = position.count(0, point)
    o = position.count(1, 25 - point)
    n, ch = (x, "X") if x else (o, "O")
    if n > row:
        if row == _ROWS - 1 and n > _ROWS:
            return str(n) if n < 10 else chr(ord("a") + n - 10)
        return ch
    return " "


def _half(position: Position, points: list[int], row: int) -> str:
    return "".join(f" {_cell(position, p, row)} " for p in points)


def diagram(position: Position) -> str:
    """The board as text; more than five checkers show their count in the fifth row."""
    top_left, top_right = list(range(13, 19)), list(range(19, 25))
    bot_left, bot_right = list(range(12, 6, -1)), list(range(6, 0, -1))
    turn0 = " (on roll)" if position.turn == 0 else ""
    turn1 = " (on roll)" if position.turn == 1 else ""
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+   O: player 1" + turn1]
    for row in range(_ROWS):
        bar = "O" if position.on_bar(1) > row else " "
        if row == _ROWS - 1 and position.on_bar(1) > _ROWS:
            bar = str(position.on_bar(1))
        line = f" |{_half(position, top_left, row)}| {bar} |{_half(position, top_right, row)}|"
        if row == 0:
            line += f"   pips {position.pip_count(1)}, off {position.borne_off(1)}"
            if position.out_of_play[1]:
                line += f", out of play {position.out_of_play[1]}"
        lines.append(line)
    lines.append(" |                  |BAR|                  |")
    for row in range(_ROWS - 1, -1, -1):
        bar = "X" if position.on_bar(0) > row else " "
        if row == _ROWS - 1 and position.on_bar(0) > _ROWS:
            bar = str(position.on_bar(0))
        line = f" |{_half(position, bot_left, row)}| {bar} |{_half(position, bot_right, row)}|"
        if row == 0:
            line += f"   pips {position.pip_count(0)}, off {position.borne_off(0)}"
            if position.out_of_play[0]:
                line += f", out of play {position.out_of_play[0]}"
        lines.append(line)
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+   X: player 0" + turn0)
    return "\n".join(lines)
