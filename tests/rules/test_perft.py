"""perft: leaves of the roll/play tree from the start (GNU Backgammon's counts 447 and 202,782)."""

from __future__ import annotations

import importlib

import pytest

from rules import Position
from rules.perft import divide, main, perft


def test_perft_depth_0_and_1():
    assert perft(Position.start(), 0) == 1
    assert perft(Position.start(), 1) == 447


def test_perft_depth_2_matches_gnubg():
    assert perft(Position.start(), 2) == 202_782


def test_cache_does_not_change_the_count():
    pos = Position.start().apply("24/18 13/11", "62")
    assert perft(pos, 2, cache=True) == perft(pos, 2, cache=False)


def test_divide_sums_to_perft_and_lists_21_rolls():
    rows = divide(Position.start(), 1)
    assert len(rows) == 21
    assert dict(rows)["31"] == 16 and dict(rows)["66"] == 11
    assert sum(n for _, n in rows) == 447


def test_perft_command(capsys):
    assert main(["--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert "perft depth 1: 447 positions in" in out


def test_perft_from_a_position_id(capsys):
    assert main(["--depth", "1", "--position", "4HPwATDgc/ABMA"]) == 0
    assert "447" in capsys.readouterr().out
    assert main(["--depth", "1", "--position", "bogus!"]) == 2


def test_welsh_variant_dispatch_reports_a_missing_module(monkeypatch, capsys):
    real = importlib.import_module

    def fake(name, *args):
        if name == "rules.welsh.perft":
            raise ModuleNotFoundError("no module", name="rules.welsh.perft")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    assert main(["--variant", "welsh", "--depth", "1"]) == 2
    assert "Welsh variant is not available" in capsys.readouterr().err


def test_negative_depth_is_an_error():
    with pytest.raises(ValueError, match="depth"):
        perft(Position.start(), -1)
