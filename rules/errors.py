"""Errors raised by the rules engine.

All of them subclass :class:`ValueError`, as in python-chess, so callers that only care that an
input was bad can catch ``ValueError``; callers that care why can catch the precise class.
"""

from __future__ import annotations


class InvalidPlayError(ValueError):
    """A play's notation cannot be parsed (syntax), e.g. ``"24-18"`` or ``"25/off/3"``."""


class IllegalPlayError(ValueError):
    """A well-formed play that the rules do not allow in the given position with the given dice."""


class InvalidDiceError(ValueError):
    """Dice values outside 1..6 or a roll string that cannot be read, e.g. ``"7-2"``."""


class InvalidIdError(ValueError):
    """A gnubg Position ID, Match ID or XGID that cannot be decoded."""
