"""The interim ``gammonwatch demo`` (server/demo.py): a real replay of the bundled match."""

from __future__ import annotations

import pytest

from rules.matfile import loads
from rules.replay import replay_match
from server.demo import bundled_match_text, main


def test_bundled_match_is_package_data_and_replays_clean() -> None:
    report = replay_match(loads(bundled_match_text(), source="demo_match.mat"))
    assert report.irregularities == []
    assert (report.games, report.moves, report.winner_name) == (4, 76, "mindfulbg")


def test_demo_prints_positions_and_flags_the_tampered_copy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.count("Position ID") == 76  # one line per checked move
    assert "+13-14-15-16-17-18" in out  # board diagrams
    assert "Crawford game: no doubling (RG19 4.4.7)" in out
    assert "0 irregularities" in out
    alerts = [line for line in out.splitlines() if line.startswith("!!! ALERT")]
    assert len(alerts) == 2
    assert "illegal_move" in alerts[0] and "RG19 4.4.7" in alerts[1]


def test_demo_brief_mode_has_no_diagrams(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--brief"]) == 0
    assert "+13-14-15" not in capsys.readouterr().out
