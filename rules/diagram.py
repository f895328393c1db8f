"""A text diagram of a position in the style of gnubg's ASCII board, drawn as gnubg and XG draw it:
player 1 = ``X`` at the bottom (the XGID's bottom player), numbered in his numbering (his home board
bottom right), player 0 = ``O`` at the top.

>>> from rules.position import Position
>>> print(diagram(Position.start()))
 +13-14-15-16-17-18------19-20-21-22-23-24-+   O: player 0 (on roll)
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
 +12-11-10--9--8--7-------6--5--4--3--2--1-+   X: player 1
"""

from __future__ import annotations

from rules.position import Position

_ROWS = 5


def _cell(position: Position, point: int, row: int) -> str:
    """Character for point ``point`` (player 1's numbering) at ``row`` (0 = nearest the edge)."""
    x = position.count(1, point)
    o = position.count(0, 25 - point)
    n, ch = (x, "X") if x else (o, "O")
    if n > row:
        if row == _ROWS - 1 and n > _ROWS:
            return str(n)
        return ch
    return " "


def _half(position: Position, points: list[int], row: int) -> str:
    cells = (_cell(position, p, row) for p in points)
    return "".join(f" {c} " if len(c) == 1 else f"{c} " for c in cells)


def diagram(position: Position) -> str:
    """The board as text; more than five checkers show their count in the fifth row."""
    top_left, top_right = list(range(13, 19)), list(range(19, 25))
    bot_left, bot_right = list(range(12, 6, -1)), list(range(6, 0, -1))
    on_roll = [" (on roll)" if position.turn == p else "" for p in (0, 1)]
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+   O: player 0" + on_roll[0]]
    for row in range(_ROWS):
        lines.append(f" |{_half(position, top_left, row)}| {_bar(position, 0, row, 'O')} |"
                     f"{_half(position, top_right, row)}|" + (_side(position, 0) if row == 0 else ""))
    lines.append(" |                  |BAR|                  |")
    for row in range(_ROWS - 1, -1, -1):
        lines.append(f" |{_half(position, bot_left, row)}| {_bar(position, 1, row, 'X')} |"
                     f"{_half(position, bot_right, row)}|" + (_side(position, 1) if row == 0 else ""))
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+   X: player 1" + on_roll[1])
    return "\n".join(lines)


def _bar(position: Position, player: int, row: int, ch: str) -> str:
    n = position.on_bar(player)
    if row == _ROWS - 1 and n > _ROWS:
        return str(n) if n < 10 else "+"
    return ch if n > row else " "


def _side(position: Position, player: int) -> str:
    text = f"   pips {position.pip_count(player)}, off {position.borne_off(player)}"
    if position.out_of_play[player]:
        text += f", out of play {position.out_of_play[player]}"
    return text
