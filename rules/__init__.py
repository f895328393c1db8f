"""gammonwatch rules: the rules engine (positions, dice, plays, legal plays, IDs, match state).

The engine core's public names are re-exported here::

    from rules import Position, Play, Dice, ALL_ROLLS, IllegalPlayError
"""

from rules.dice import ALL_ROLLS, OPENING_ROLLS, Dice
from rules.errors import IllegalPlayError, InvalidDiceError, InvalidIdError, InvalidPlayError
from rules.movegen import LegalPlays, legal_plays, notation, resulting_positions
from rules.play import Play, Step
from rules.position import BAR, NUM_CHECKERS, OFF, Board, Player, Position, other

__all__ = [
    "ALL_ROLLS",
    "BAR",
    "NUM_CHECKERS",
    "OFF",
    "OPENING_ROLLS",
    "Board",
    "Dice",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "LegalPlays",
    "Play",
    "Player",
    "Position",
    "Step",
    "legal_plays",
    "notation",
    "other",
    "resulting_positions",
]
