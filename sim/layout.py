"""What stands on the table, in the *physical* numbering the labels use.

Physical numbering (the one of issue 5 and ``gammonwatch recognize``): seen from the near side,
corner 1 is near-right, 2 near-left, 3 far-left, 4 far-right of the playing surface; points 1..12
run from corner 1 to corner 2 along the near side, points 13..24 from corner 3 to corner 4 along
the far side. In the simulator the *light* player sits at the near side, has his home board on
points 1..6 and rolls into the right half; the *dark* player sits opposite, home 19..24, and
rolls into the left half (his right-hand side).

A :class:`TableLayout` can be made from a rules-engine :class:`rules.position.Position` (player 0
light by default) or from a simple per-point list, so the simulator does not depend on the engine
for random scenes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

COLOURS = ("light", "dark")


@dataclass(frozen=True)
class TableLayout:
    """Checker counts by colour: ``points[i] = (light, dark)`` for physical point ``i + 1``."""

    points: tuple[tuple[int, int], ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    # checkers of a colour that are in neither place (in a hand, out of play)
    elsewhere: tuple[int, int] = field(default=(0, 0))
    # a moment of a hit: the hitter's checker is down before the blot is lifted (scripted video)
    mixed_ok: bool = False

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise ValueError(f"a table layout needs 24 points, got {len(self.points)}")
        for i, (a, b) in enumerate(self.points):
            if a < 0 or b < 0:
                raise ValueError(f"point {i + 1}: negative checker count {(a, b)}")
            if a and b and not self.mixed_ok:
                raise ValueError(f"point {i + 1} holds checkers of both colours ({a} light, {b} dark)")
        for c in range(2):
            total = sum(p[c] for p in self.points) + self.bar[c] + self.off[c] + self.elsewhere[c]
            if total > 15:
                raise ValueError(f"{COLOURS[c]} has {total} checkers; each side has 15")

    @classmethod
    def from_counts(cls, counts: Sequence[int], bar: tuple[int, int] = (0, 0),
                    off: tuple[int, int] | None = None) -> TableLayout:
        """From 24 signed counts by physical point: positive = light, negative = dark.

        Borne-off counts default to whatever completes 15 per side.

        >>> TableLayout.from_counts([2] + [0] * 22 + [-2]).off
        (13, 13)
        """
        if len(counts) != 24:
            raise ValueError(f"need 24 signed point counts (light > 0, dark < 0), got {len(counts)}")
        pts = tuple((max(int(c), 0), max(-int(c), 0)) for c in counts)
        if off is None:
            off = (15 - sum(p[0] for p in pts) - bar[0], 15 - sum(p[1] for p in pts) - bar[1])
        return cls(points=pts, bar=bar, off=off)

    @classmethod
    def start(cls) -> TableLayout:
        counts = [0] * 24
        for pt, n in {24: 2, 13: 5, 8: 3, 6: 5}.items():
            counts[pt - 1] += n  # light in its own (= physical) numbering
            counts[25 - pt - 1] -= n  # dark: own point p is physical 25 - p
        return cls.from_counts(counts)

    @classmethod
    def from_position(cls, position: object, light_player: int = 0) -> TableLayout:
        """From a ``rules.position.Position``; ``light_player`` is the engine player who is light."""
        boards = position.boards()  # type: ignore[attr-defined]
        out = position.out_of_play  # type: ignore[attr-defined]
        light, dark = boards[light_player], boards[1 - light_player]
        pts = tuple((int(light[p]), int(dark[25 - p])) for p in range(1, 25))
        return cls(points=pts, bar=(int(light[25]), int(dark[25])), off=(int(light[0]), int(dark[0])),
                   elsewhere=(int(out[light_player]), int(out[1 - light_player])))

    @classmethod
    def random(cls, rng: np.random.Generator) -> TableLayout:
        """A plausible mid-game spread: each colour's 15 checkers on distinct-owner points, some on
        the bar or borne off, sometimes tall stacks."""
        owner = [-1] * 24
        pts = [[0, 0] for _ in range(24)]
        bar = [0, 0]
        off = [0, 0]
        progress = rng.uniform(0.0, 1.0)
        for c in range(2):
            n_off = int(rng.binomial(15, max(0.0, progress - 0.6) * 1.5)) if progress > 0.6 else 0
            n_bar = int(rng.choice([0, 0, 0, 1, 2])) if progress < 0.8 else 0
            n_bar = min(n_bar, 15 - n_off)
            off[c], bar[c] = n_off, n_bar
            left = 15 - n_off - n_bar
            # home for light is points 1..6 (index 0..5); dark 19..24 (index 18..23)
            centre = (1 - progress) * 16 + 2
            weights = np.array([np.exp(-((i if c == 0 else 23 - i) - centre) ** 2 / 60.0) + 0.02
                                for i in range(24)])
            n_points = int(rng.integers(2, 8))
            chosen: list[int] = []
            for _ in range(60):
                if len(chosen) >= n_points:
                    break
                i = int(rng.choice(24, p=weights / weights.sum()))
                if owner[i] in (-1, c) and i not in chosen:
                    chosen.append(i)
                    owner[i] = c
            if not chosen:
                free = [i for i in range(24) if owner[i] == -1]
                chosen = [free[0]]
                owner[free[0]] = c
            for k in range(left):
                i = chosen[k % len(chosen)] if k < len(chosen) else int(rng.choice(chosen))
                pts[i][c] += 1
        return cls(points=tuple((a, b) for a, b in pts), bar=(bar[0], bar[1]), off=(off[0], off[1]))

    @classmethod
    def tall(cls, rng: np.random.Generator) -> TableLayout:
        """Few, tall stacks: each colour's checkers on 1 to 4 points, one of them taking most, some
        on the bar or borne off (bearing in and bearing off; decision 0723). Stacks of 6 to 15 are
        rare in random games and the checker counter misread them most."""
        owner = [-1] * 24
        pts = [[0, 0] for _ in range(24)]
        bar = [0, 0]
        off = [0, 0]
        for c in range(2):
            off[c] = int(rng.choice([0, 0, 0, int(rng.integers(1, 15))]))
            bar[c] = min(int(rng.choice([0, 0, 0, 0, 1, 2, 3, 4])), 15 - off[c])
            left = 15 - off[c] - bar[c]
            free = [i for i in range(24) if owner[i] == -1]
            n_points = min(int(rng.integers(1, 5)), left, len(free))
            if n_points == 0:
                continue
            chosen = [int(i) for i in rng.choice(free, size=n_points, replace=False)]
            share = rng.dirichlet(np.full(n_points, 0.6))
            counts = rng.multinomial(left - n_points, share) + 1
            for i, k in zip(chosen, counts, strict=True):
                owner[i] = c
                pts[i][c] = int(k)
        return cls(points=tuple((a, b) for a, b in pts), bar=(bar[0], bar[1]), off=(off[0], off[1]))

    @classmethod
    def from_random_game(cls, rng: np.random.Generator, max_moves: int = 90) -> TableLayout:
        """The position after a random number of random legal plays from the start (rules engine)."""
        from rules.position import Position

        pos = Position.start(turn=int(rng.integers(2)))
        for _ in range(int(rng.integers(0, max_moves))):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            plays = list(pos.legal_plays(dice))
            nxt = pos.apply(plays[int(rng.integers(len(plays)))], dice)
            if nxt.is_game_over():
                break
            pos = nxt
        return cls.from_position(pos)

    def to_json(self) -> dict[str, object]:
        return {
            "points": [{"point": i + 1, "light": a, "dark": b} for i, (a, b) in enumerate(self.points)],
            "bar": {"light": self.bar[0], "dark": self.bar[1]},
            "off": {"light": self.off[0], "dark": self.off[1]},
        }
