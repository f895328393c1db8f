"""Real transcripts scripted to table states and refereed: no alert, and the referee's record equals the
file's (moves as resulting positions, cube actions, game results). Also the two command lines."""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from referee_roundtrip import check_file, expected_record, recorded, referee_match

from rules.matfile import EntryKind, MatMatch, load, loads
from rules.play import Play
from rules.referee_cli import main as referee_main
from sim.script import main as script_main
from sim.script import script_lines

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "tests" / "data" / "matches").glob("*.txt"))
SHARED = ROOT / ".." / "shared" / "data" / "matches"


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name[:12])
def test_bundled_transcript_refereed_from_its_table_states_raises_nothing_and_is_reproduced(path):
    flagged, same, notes = check_file(path)
    assert flagged == []
    assert same
    assert notes == []


@pytest.mark.slow
def test_all_shared_transcripts_are_reproduced_without_alerts():
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (the 300 shared transcripts); the bundled ones are tested above")
    files = sorted(SHARED.glob("*.txt"))
    assert len(files) >= 300
    problems = []
    workers = max(1, min(2, os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for path, (flagged, same, _notes) in zip(files, pool.map(check_file, files, chunksize=10), strict=True):
            if flagged or not same:
                problems.append(f"{path.name}: alerts {flagged[:2]}, record equal: {same}")
    assert problems == []


def test_the_record_compares_positions_so_a_different_move_is_caught():
    """The comparison itself can fail: change one move of a real match and it notices."""
    match = load(BUNDLED[0])
    ref = referee_match(match)
    want, _ = expected_record(match)
    got = recorded(ref)
    assert [g for g in want if g] == [g for g in got if g]
    got[0][2] = (*got[0][2][:3], ((0,) * 26, (0,) * 26))
    assert [g for g in want if g] != [g for g in got if g]


def test_script_is_deterministic_and_dice_rest_at_least_two_seconds():
    match = load(BUNDLED[0])
    a = list(script_lines(match))
    assert a == list(script_lines(match))
    states = [json.loads(x) for x in a[1:] if '"table_state"' in x]
    assert all(s2["t"] > s1["t"] and s2["frame"] > s1["frame"] for s1, s2 in zip(states, states[1:], strict=False))
    rest_start = {}
    judged = 0
    for s in states:
        if s["dice"] and all(d["state"] == "at_rest" for d in s["dice"]):
            key = tuple(d["value"] for d in s["dice"])
            rest_start.setdefault(key, s["t"])
            if s["t"] - rest_start[key] >= 2.0:
                judged += 1
        else:
            rest_start.clear()
    assert judged >= len([e for g in match.games for e in g.entries if e.kind is EntryKind.ROLL]) * 0.9


def test_script_is_faithful_to_an_illegal_move():
    text = BUNDLED[0].read_text(encoding="utf-8")
    match = loads(text)
    game = match.games[0]
    # leave out the last checker of an early two-checker play: too few checkers moved (A5.1(e))
    rolls = [i for i, e in enumerate(game.entries) if e.kind is EntryKind.ROLL and e.play and len(e.play.steps) == 2]
    k = rolls[1]
    entry = game.entries[k]
    assert entry.dice is not None and entry.play is not None
    bad = Play(entry.play.steps[:1])
    from dataclasses import replace

    entries = list(game.entries)
    entries[k] = replace(entry, play=bad)
    tampered = MatMatch(match.length, match.players, (replace(game, entries=tuple(entries)), *match.games[1:]))
    ref = referee_match(tampered)
    flagged = [a for a in ref.alerts if a.severity.is_alert]
    assert flagged and flagged[0].code in ("ILLEGAL_MOVE", "IMPOSSIBLE_MOVE")
    assert flagged[0].player_name == match.players[int(entry.player)]
    assert list(flagged[0].details["dice"]) == list(entry.dice)


def test_command_lines_sim_script_then_referee_write_the_same_match(tmp_path, capsys):
    src = BUNDLED[2]
    states = tmp_path / "states.jsonl"
    assert script_main([str(src), "--out", str(states)]) == 0
    out_mat = tmp_path / "out.mat"
    code = referee_main([str(states), "--json", "--transcript", str(out_mat)])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    alerts = [json.loads(x) for x in lines]
    assert alerts[0]["code"] == "MATCH_START" and all(a["severity"] in ("EVENT", "INFO") for a in alerts)
    written = load(out_mat)
    original = load(src)
    assert [len([e for e in g.entries if e.kind is EntryKind.ROLL]) for g in written.games] == \
        [len([e for e in g.entries if e.kind is EntryKind.ROLL]) for g in original.games]


def test_referee_command_reports_unreadable_input(tmp_path, capsys):
    assert referee_main([str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert referee_main([str(tmp_path / "x"), "--rules", "fibs"]) == 2
    assert "unknown rule set 'fibs'" in capsys.readouterr().err
    assert referee_main([str(tmp_path / "x"), "--moves-policy", "responsible"]) == 2
    assert "--moves-policy only applies" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "table_state", "version": 1}\n')
    assert referee_main([str(bad), "--json"]) == 1
    alert = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert alert["code"] == "INPUT_REJECTED" and "line 1: frame" in alert["message"]


def test_sim_script_command_reports_a_bad_transcript(tmp_path, capsys):
    bad = tmp_path / "bad.mat"
    bad.write_text("seven point match\n")
    assert script_main([str(bad)]) == 2
    assert "bad.mat:1" in capsys.readouterr().err
    assert script_main([str(tmp_path / "none.mat")]) == 2


def test_other_seating_and_the_mirror_layout_give_the_same_record():
    """Dark near, home boards on the left, the first player dark: only the orientation changes."""
    from rules.referee import Colour, Half
    from sim.script import ScriptOptions

    path = BUNDLED[0]
    match = load(path)
    options = ScriptOptions(first_colour=Colour.DARK, near=Colour.DARK, home=Half.LEFT)
    ref = referee_match(match, options=options)
    want, _ = expected_record(match)
    assert [a.code for a in ref.alerts if a.severity.is_alert] == []
    assert [g for g in want if g] == [g for g in recorded(ref) if g]
    first_state = next(s for s in script_lines(match, options) if '"table_state"' in s)
    points = json.loads(first_state)["points"]
    # the near (dark) player's 24-point is at the far-left... his back checkers sit on physical 13
    assert points[12]["dark"] == 2 and points[11]["light"] == 2


@pytest.mark.parametrize("signal", ["bar_tap", "lift_dice"])
def test_turns_ended_by_bar_tap_or_lifting_the_dice_give_the_same_record(signal):
    from rules.referee import EndSignal
    from sim.script import ScriptOptions

    match = load(BUNDLED[2])
    ref = referee_match(match, options=ScriptOptions(end_signal=EndSignal(signal)))
    want, _ = expected_record(match)
    assert [a.code for a in ref.alerts if a.severity.is_alert] == []
    assert [g for g in want if g] == [g for g in recorded(ref) if g]
