"""Peer check against GNU Backgammon on a small sample (the 100,000-case run is `make bench`).

Skipped when gnubg is not installed (Debian: apt-get install gnubg, or `make system-deps`).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _peer():
    spec = importlib.util.spec_from_file_location("gnubg_peer", ROOT / "scripts" / "gnubg_peer.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gnubg_peer"] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


peer = _peer()
GNUBG = peer.find_gnubg()
pytestmark = [
    pytest.mark.gnubg,
    pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon (gnubg) is not installed: apt-get install gnubg"),
]


def test_legal_plays_agree_with_gnubg_on_400_random_cases():
    cases = peer.random_cases(400, seed=2024)
    lines = [f"{peer.position_id(c.position)} {c.dice[0]} {c.dice[1]}" for c in cases]
    answers = peer.run_worker(GNUBG, "hints", lines, jobs=4)
    bad, stats = peer.compare_plays(cases, answers)
    assert [str(d) for d in bad] == []
    assert stats["notation_diff"] == 0 and stats["notation_same"] > 3000  # written as gnubg writes it
    assert stats["cases"] == 400
    # the sample covers what matters
    assert stats["doubles"] >= 80 and stats["bar"] >= 40 and stats["bearoff"] >= 40 and stats["no_move"] >= 5


def test_ids_agree_with_gnubg_on_150_positions():
    cases = peer.random_cases(150, seed=99)
    n, problems = peer.check_ids(GNUBG, [c.position for c in cases], seed=99, jobs=4)
    assert n == 150
    assert problems == []


def test_literal_application_of_gnubg_notation_detects_a_wrong_play():
    from rules import Position

    my, opp = Position.start().mover_view()
    with pytest.raises(ValueError, match="no checker"):
        peer.apply_literal(my, opp, "23/20")


def test_parallel_workers_all_answer_where_gnubg_never_ran(tmp_path, monkeypatch):
    """Session 34, a fresh machine: four gnubg workers started together each made ~/.gnubg, and the
    one that found it made by another exited ("File exists") having answered nothing. With a home
    where gnubg never ran, every worker answers."""
    monkeypatch.setenv("HOME", str(tmp_path))
    cases = peer.random_cases(8, seed=7)
    lines = [f"{peer.position_id(c.position)} {c.dice[0]} {c.dice[1]}" for c in cases]
    answers = peer.run_worker(GNUBG, "hints", lines, jobs=4, nice=0)
    assert len(answers) == 8 and (tmp_path / ".gnubg").is_dir()
