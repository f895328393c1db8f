"""Welsh backgammon: its own geometry, move generation, throws, game and match (DIGEST part C).

Public API (see docs/welsh.md)::

    from rules.welsh import WelshPosition, WelshOptions, legal_plays, WelshGame, WelshMatch

``rules.welsh.perft.perft(depth)`` serves ``gammonwatch perft --variant welsh``;
``rules.welsh.profile`` registers the ``welsh`` referee profile.
"""

from rules.welsh.alerts import CODES, WelshEvent, WelshRuleError
from rules.welsh.game import ALL_THROWS, Ending, GameResult, Phase, WelshGame, loss_multiplier, one_throw_win
from rules.welsh.match import Settlement, WelshMatch, odds_evens_chooser, pounds, settle
from rules.welsh.movegen import Play, Step, legal_plays, legal_results, sample_play
from rules.welsh.options import PRESETS, WelshOptions, options_by_name
from rules.welsh.position import InvalidPositionError, WelshPosition

__all__ = [
    "ALL_THROWS",
    "CODES",
    "Ending",
    "GameResult",
    "InvalidPositionError",
    "PRESETS",
    "Phase",
    "Play",
    "Settlement",
    "Step",
    "WelshEvent",
    "WelshGame",
    "WelshMatch",
    "WelshOptions",
    "WelshPosition",
    "WelshRuleError",
    "legal_plays",
    "legal_results",
    "loss_multiplier",
    "odds_evens_chooser",
    "one_throw_win",
    "options_by_name",
    "pounds",
    "sample_play",
    "settle",
]
