"""Welsh backgammon: its own geometry, move generation, throws, game and match (DIGEST part C).

Public API::

    from rules.welsh import WelshPosition, WelshOptions, legal_plays, WelshGame, WelshMatch
"""
