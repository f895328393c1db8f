"""Every legal play's steps, replayed one by one with independent bookkeeping, give its result and
respect the step rules (R7, R9, R10, R15, R16, R18, R20); positions come from random games."""

from __future__ import annotations

import random
from collections import Counter

from rules.welsh.game import ALL_THROWS
from rules.welsh.geometry import crosses_central_bar
from rules.welsh.movegen import dice_pool, is_doubles, legal_plays, sample_play
from rules.welsh.position import WelshPosition


def _positions(n: int, seed: int) -> list[tuple[WelshPosition, int]]:
    rng = random.Random(seed)
    out = []
    pos, mover = WelshPosition.start(), 0
    while len(out) < n:
        out.append((pos, mover))
        throw = ALL_THROWS[rng.randrange(21)]
        play = sample_play(pos, mover, throw, rng)
        pos, mover = play.result, 1 - mover
        if play.ending or (pos.full_spikes(0) and pos.full_spikes(1)) or rng.random() < 0.02:
            pos, mover = WelshPosition.start(), 0
    return out


def test_steps_replay_to_the_result_and_respect_the_step_rules():
    checked = 0
    for pos, mover in _positions(150, seed=7):
        for throw in ALL_THROWS:
            pool = Counter(dice_pool(throw))
            for play in legal_plays(pos, mover, throw):
                me, opp = list(pos.men[mover]), list(pos.men[1 - mover])
                used: Counter[int] = Counter()
                hitters: Counter[int] = Counter()  # men that hit, per spike (they must stop)
                for step in play.steps:
                    assert me[step.frm] > 0, f"{play}: no man on {step.frm}"
                    assert me[0] == 0 or step.frm == 0, f"{play}: moved while a man is on the roof (R16)"
                    assert not (step.backward and is_doubles(throw)), f"{play}: backward on doubles (R20)"
                    assert me[step.frm] > hitters[step.frm], f"{play}: a man that hit moved again (W7)"
                    if throw in ((5, 2), (2, 5)):
                        assert not crosses_central_bar(step.frm, step.to), f"{play}: Skinny Seven (R9)"
                    if 7 <= step.frm <= 12 and 13 <= step.to <= 24 and not step.backward:
                        c = step.frm - 6  # R15: part of the step equal to the spike number
                        parts = {sum(step.values[:k]) for k in range(1, len(step.values) + 1)}
                        parts |= {v for v in step.values}
                        assert c in parts, f"{play}: crossed the stream without the exact value (R15)"
                    if step.frm == 0:
                        assert step.to == sum(step.values) <= 6, f"{play}: entry (W4)"
                    used.update(step.values)
                    me[step.frm] -= 1
                    if step.to == 25:
                        assert sum(me[0:19]) == 0, f"{play}: checked out with a man outside Home (R18)"
                        assert step.frm + sum(step.values) == 25 or step.backward, f"{play}: bust (R18)"
                    else:
                        their = opp[25 - step.to]
                        assert their <= 1, f"{play}: settled on a covered spike (R9)"
                        assert step.hit == (their == 1)
                        if their:
                            opp[25 - step.to] = 0
                            opp[0] += 1
                            hitters[step.to] += 1
                        assert me[step.to] < 6, f"{play}: seventh man (R10)"
                    me[step.to] += 1
                assert not (used - pool), f"{play}: uses dice {used} not in {throw}"
                expect = (tuple(me), tuple(opp)) if mover == 0 else (tuple(opp), tuple(me))
                assert play.result.men == expect
                if play.ending is None:
                    assert len(play.result.full_spikes(mover)) <= 1, f"{play}: two full spikes (R10)"
                checked += 1
    assert checked > 20_000
