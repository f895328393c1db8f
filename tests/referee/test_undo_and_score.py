"""Monitor corrections (issue 6): undo the last completed turn, correct the score with Crawford (RG19 4.2.3, 4.4.7)."""

from __future__ import annotations

import pytest
from referee_scenario import Scenario


def _two_turns() -> tuple[Scenario, list[list[int]]]:
    """Light opens 3-1 (8/5 6/5), dark plays 6-4 (24/18 18/14); returns the boards after light's turn."""
    s = Scenario()
    s.opening("light", 3, 1)
    s.play("light", "8/5 6/5")
    s.end_turn("light")
    after_light = [list(b) for b in s.table.boards]
    s.roll("dark", 6, 4)
    s.play("dark", "24/18 18/14")
    s.end_turn("dark")
    return s, after_light


def _plays(s: Scenario) -> list[str]:
    return [f"{e.dice[0]}{e.dice[1]}: {e.play}" for g in s.ref.transcript().games for e in g.entries
            if e.dice is not None and e.play is not None]


def test_undo_turn_takes_back_the_last_turn_and_play_continues_from_it() -> None:
    s, after_light = _two_turns()
    assert _plays(s) == ["31: 8/5 6/5", "64: 24/14"]
    dark = s.player("dark")
    s.decide(action="undo_turn")
    assert _plays(s) == ["31: 8/5 6/5"]  # the transcript lost dark's line
    assert s.ref.turn == dark and s.ref.dice == (6, 4) and s.ref.phase.value == "moving"
    assert s.ref.snapshot()["transcript"][0]["entries"][-1]["player"] == "light"
    assert s.all_codes()[-2:] == ["CORRECTION_COMPLETE", "MONITOR_DECISION"]
    # the players put dark's checkers back and dark plays the 6-4 again, differently
    s.set_boards(*after_light)
    s.table.clock = s.script.seat(dark)
    s.snap()
    s.play("dark", "13/7 13/9")
    s.end_turn("dark")
    assert s.codes() == []  # judged from the restored position: legal
    assert _plays(s) == ["31: 8/5 6/5", "64: 13/9 13/7"]
    # a second undo takes back the replayed turn; a third reaches light's opening, a fourth finds nothing
    s.decide(action="undo_turn")
    s.decide(action="undo_turn")
    assert _plays(s) == [] and s.ref.turn == s.player("light") and s.ref.dice == (3, 1)
    with pytest.raises(ValueError, match="nothing to undo"):
        s.decide(action="undo_turn")


def test_undo_turn_of_an_illegal_move_is_the_correction() -> None:
    s = Scenario()
    s.opening("light", 3, 1)
    s.play("light", "8/4 6/5")  # 8/4 is no 3 or 1
    s.end_turn("light")
    assert s.codes() == ["ILLEGAL_MOVE"] and _plays(s) == ["31: 8/5 6/4"]
    s.decide(action="undo_turn")
    assert s.ref.pending is None and _plays(s) == [] and s.ref.dice == (3, 1) and s.ref.phase.value == "moving"


def test_undo_turn_refuses_when_a_cube_action_follows() -> None:
    s, _ = _two_turns()
    s.double("light")
    s.take("dark")
    assert s.ref.match.cube.value == 2
    with pytest.raises(ValueError, match="cube action"):
        s.decide(action="undo_turn")
    assert _plays(s) == ["31: 8/5 6/5", "64: 24/14"]  # nothing changed


def test_set_score_one_away_makes_the_current_game_crawford() -> None:
    s = Scenario(length=7)
    s.decide(action="set_score", score=[6, 3])  # light 1-away: this game is the Crawford game (RG19 4.4.7)
    assert s.ref.match.crawford and not s.ref.match.post_crawford
    s.decide(action="set_score", score=[6, 3], crawford=False)  # the monitor knows it was already played
    assert not s.ref.match.crawford and s.ref.match.post_crawford
    s.decide(action="set_score", score=[6, 6])  # both 1-away: post-Crawford
    assert not s.ref.match.crawford and s.ref.match.post_crawford
    with pytest.raises(ValueError, match="exactly one player 1 point from winning"):
        s.decide(action="set_score", score=[4, 3], crawford=True)
    s.decide(action="set_score", score=[4, 3])  # nobody 1-away: the Crawford game is still to come
    assert not s.ref.match.crawford and not s.ref.match.post_crawford


def test_set_score_two_away_then_a_win_makes_the_next_game_crawford() -> None:
    s, _ = _two_turns()
    s.decide(action="set_score", score=[5, 3])  # light 2-away in a 7-point match
    assert not s.ref.match.crawford
    s.double("light")
    s.drop("dark")  # light wins 1 point: 6-3, light 1-away
    assert s.ref.match.score == (6, 3)
    s.reset_board()
    assert s.ref.match.crawford and "CRAWFORD_GAME" in s.all_codes()
