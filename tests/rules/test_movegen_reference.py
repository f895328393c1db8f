"""The fast generator against a slow, obviously-correct one written straight from the rules text
(STD Movement-1..4, Bearing Off): every order of the dice, every checker, no pruning; then keep the
plays using the most dice, and with one die of a non-double the larger die when it can be played.
Runs on seeded random positions, so it needs no gnubg."""

from __future__ import annotations

import itertools
import random

import pytest

from rules.movegen import generate

BAR = 25


def _single_moves(m, o, d):
    out = []
    for s in range(25, 0, -1):
        if not m[s] or (m[BAR] and s != BAR):
            continue
        t = s - d
        if t > 0:
            if o[25 - t] >= 2:
                continue
        else:
            if any(m[7:26]):
                continue  # not all home
            if t < 0 and any(m[s + 1:7]):
                continue  # a checker on a higher point: the die must be used from there
            t = 0
        m2, o2 = list(m), list(o)
        m2[s] -= 1
        m2[t] += 1
        if t and o2[25 - t] == 1:
            o2[25 - t] = 0
            o2[BAR] += 1
        out.append((m2, o2))
    return out


def reference(my, opp, d1, d2):
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    found: dict[tuple, int] = {}  # result -> dice used (and for one die: which)
    used_die: dict[tuple, set] = {}

    def walk(m, o, dice, used, first):
        moves = _single_moves(m, o, dice[0]) if dice else []
        if not moves:
            key = (tuple(m), tuple(o))
            found[key] = max(found.get(key, 0), used)
            if used == 1:
                used_die.setdefault(key, set()).add(first)
            return
        for m2, o2 in moves:
            walk(m2, o2, dice[1:], used + 1, first if used else dice[0])

    for order in orders:
        walk(list(my), list(opp), order, 0, 0)
    most = max(found.values())
    keep = {k for k, v in found.items() if v == most}
    if most == 1 and d1 != d2:
        high = max(d1, d2)
        with_high = {k for k in keep if high in used_die.get(k, ())}
        keep = with_high or keep
    return keep


def _random_position(rng):
    while True:
        me, op = [0] * 26, [0] * 26
        home_only = rng.random() < 0.3
        for _ in range(rng.randint(1, 15)):
            me[rng.randint(1, 6) if home_only else rng.randint(1, 25)] += 1
        for _ in range(rng.randint(1, 15)):
            op[rng.randint(1, 25)] += 1
        if me[BAR] > 4 or op[BAR] > 4 or any(me[p] and op[25 - p] for p in range(1, 25)):
            continue
        me[0] = 15 - sum(me)
        op[0] = 15 - sum(op)
        return tuple(me), tuple(op)


CASES = []
_rng = random.Random(11)
for _ in range(300):
    CASES.append((*_random_position(_rng), _rng.randint(1, 6), _rng.randint(1, 6)))
for a, b in itertools.product(range(1, 7), repeat=2):
    CASES.append((*_random_position(_rng), a, b))


@pytest.mark.parametrize("my,opp,d1,d2", CASES)
def test_fast_generator_equals_reference(my, opp, d1, d2):
    assert set(generate(my, opp, d1, d2)) == reference(my, opp, d1, d2)
