"""``models/validity_data.py`` cuts the validity model's samples as the run time sees the dice (decision 0729).

Sample frame 000009 has one die resting on the other (A1.5): the locator finds such a stack as one box,
so neither die's cues may see the other's box (the model once learnt ``on_die`` from a box the run
time never has), and the lower die, flat with a valid label, is trained as ``on_die`` (its roll is void).
A frame without a stack keeps the other die in the exact copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vision.dice_validity import FEATURE_NAMES, POSE_CLASSES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "sim-sample"
sys.path.insert(0, str(ROOT / "models"))

from validity_data import samples  # noqa: E402

DIE_NEAR = FEATURE_NAMES.index("die_near")
N_DICE = FEATURE_NAMES.index("n_dice")


def _cut(name: str, copies: int = 3) -> list[dict]:
    js = SAMPLE / f"{name}.json"
    lab = json.loads(js.read_text(encoding="utf-8"))
    return list(samples(js.with_suffix(".jpg"), lab, copies, np.random.default_rng(0)))


def test_a_stack_is_cut_without_the_other_dies_box_and_both_dice_are_on_die() -> None:
    got = _cut("000009")
    assert len(got) == 6  # two dice, three copies
    assert {POSE_CLASSES[s["y"]] for s in got} == {"on_die"}
    for s in got:
        assert s["feat"][DIE_NEAR] == 6.0  # no other die seen (the cap)
        assert s["feat"][N_DICE] == 0.5    # itself only: (1 + 1) / 4


def test_two_dice_apart_see_each_other_in_the_exact_copy() -> None:
    got = _cut("000006")
    exact = [s for s in got if s["copy"] == 0]
    assert len(exact) == 2
    assert [POSE_CLASSES[s["y"]] for s in exact] == ["on_checker", "flat_board"]
    for s in exact:
        assert s["feat"][N_DICE] == 0.75  # itself and the other die (11 die edges away: die_near capped at 6)
