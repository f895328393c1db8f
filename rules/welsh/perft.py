"""Welsh perft: distinct positions after N plies from the Welsh start (DIGEST C.3).

Definition (used by ``gammonwatch perft --variant welsh``):

* Red (player 0) moves first from :meth:`WelshPosition.start`; plies alternate Red, Black, ...
* A ply is one turn: each of the 21 distinct two-dice throws, played every legal way
  (:func:`~rules.welsh.movegen.legal_plays`, default options), including the empty play when
  nothing can be played.
* ``perft(n)`` is the number of **distinct positions** (both sides' men) after ``n`` plies,
  taking the union over all throws and all positions of ply ``n - 1``.  ``perft(0) == 1``.
* Throw-level rules (re-throws, snakes, nominations, the single die, extra turns) and game
  endings are not part of perft; it measures move generation only.
"""

from __future__ import annotations

from rules.welsh.game import ALL_THROWS
from rules.welsh.movegen import legal_plays
from rules.welsh.options import WelshOptions
from rules.welsh.position import WelshPosition


def perft_sets(depth: int, options: WelshOptions | None = None) -> list[set[WelshPosition]]:
    """The sets of distinct positions after 0..depth plies."""
    if depth < 0:
        raise ValueError(f"depth must be 0 or more, got {depth}")
    opts = options or WelshOptions()
    layers = [{WelshPosition.start()}]
    for ply in range(depth):
        mover = ply % 2
        nxt: set[WelshPosition] = set()
        for pos in layers[-1]:
            for t in ALL_THROWS:
                for play in legal_plays(pos, mover, t, opts):
                    nxt.add(play.result)
        layers.append(nxt)
    return layers


def perft(depth: int) -> int:
    """Distinct positions after ``depth`` plies from the Welsh start (see the module docstring)."""
    return len(perft_sets(depth)[-1])
