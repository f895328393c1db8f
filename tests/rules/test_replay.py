"""``gammonwatch replay`` (rules/replay.py): real transcripts replay clean; broken ones are caught.

The hand-made broken transcripts below each hold one irregularity of a known kind; the tests
check that exactly that one is reported, with the rule it breaks (DIGEST A5, A7, A8).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.matfile import load, loads
from rules.replay import find_gnubg, gnubg_reexport, main, move_trace, replay_file, replay_match

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "matches"
SAMPLES = sorted(DATA.glob("*.txt"))

HEAD = "; [Player 1 \"alice\"]\n; [Player 2 \"bob\"]\n\n{length} point match\n"
SCORE = " alice : {a}                       bob : {b}\n"


def game(number: int, a: int, b: int, rows: str) -> str:
    return f"\n Game {number}\n" + SCORE.format(a=a, b=b) + rows


def transcript(length: int, *games: str) -> str:
    return HEAD.format(length=length) + "".join(games)


BOB_DOUBLES_ALICE_DROPS = (
    "  1) 31: 8/5 6/5                  Doubles => 2\n"
    "  2)  Drops                       Wins 1 point\n"
)

NO_ACCESS = transcript(
    5,
    game(1, 0, 0,
         "  1) 31: 8/5 6/5                 52: 13/8 13/11\n"
         "  2)  Doubles => 2                Takes\n"
         "  3) 64: 24/18 13/9              21: 13/11 6/5\n"
         "  4)  Doubles => 4                Takes\n"),
)

CRAWFORD_DOUBLE = transcript(
    3,
    game(1, 0, 0, BOB_DOUBLES_ALICE_DROPS),
    game(2, 0, 1, BOB_DOUBLES_ALICE_DROPS),
    game(3, 0, 2,
         "  1) 42: 8/4 6/4                  Doubles => 2\n"
         "  2)  Takes                      52: 13/8 13/11\n"),
)

DEAD_CUBE = transcript(
    3,
    game(1, 0, 0, BOB_DOUBLES_ALICE_DROPS),
    game(2, 0, 1, BOB_DOUBLES_ALICE_DROPS),
    game(3, 0, 2,
         "  1) 31: 8/5 6/5                 52: 13/8 13/11\n"
         "  2) 64: 24/18 13/9               Losses 1 point\n"
         "      Wins 1 point\n"),
    game(4, 1, 2,
         "  1) 31: 8/5 6/5                  Doubles => 2\n"
         "  2)  Takes                      52: 13/8 13/11\n"),
)

WRONG_SCORE_LINE = transcript(
    5,
    game(1, 0, 0, BOB_DOUBLES_ALICE_DROPS),
    game(2, 0, 2, "  1) 31: 8/5 6/5                 52: 13/8 13/11\n"),
)

WRONG_WINS = transcript(
    5,
    game(1, 0, 0,
         "  1) 31: 8/5 6/5                  Doubles => 2\n"
         "  2)  Drops                       Wins 2 point\n"),
    game(2, 0, 2, "  1) 31: 8/5 6/5                 52: 13/8 13/11\n"),
)

ILLEGAL_MOVE = transcript(
    5,
    game(1, 0, 0,
         "  1) 31: 8/5 6/4                 52: 13/8 13/11\n"),
)

OUT_OF_TURN = transcript(
    5,
    game(1, 0, 0,
         "  1) 31: 8/5 6/5\n"
         "  2) 42: 8/4 6/4\n"),
)

WRONG_LEVEL = transcript(
    5,
    game(1, 0, 0,
         "  1) 31: 8/5 6/5                  Doubles => 4\n"
         "  2)  Takes                      52: 13/8 13/11\n"),
)


def only_irregularity(text: str) -> dict[str, object]:
    report = replay_match(loads(text, source="hand-made.mat"))
    items = [i.to_json() for i in report.irregularities]
    assert len(items) == 1, items
    return items[0]


def test_double_without_access_is_a_cube_irregularity_rg19_4_4_2() -> None:
    item = only_irregularity(NO_ACCESS)
    assert (item["kind"], item["rule"], item["game"], item["move"], item["player"]) == (
        "cube", "RG19 4.4.2", 1, 4, "alice")
    assert item["played"] == "Doubles => 4"
    assert "'alice' has no cube access: 'bob' owns the cube at 2" in str(item["allowed"])


def test_double_in_the_crawford_game_is_a_cube_irregularity_rg19_4_4_7() -> None:
    item = only_irregularity(CRAWFORD_DOUBLE)
    assert (item["kind"], item["rule"], item["game"], item["move"], item["player"]) == (
        "cube", "RG19 4.4.7", 3, 1, "bob")


def test_post_crawford_double_by_the_leader_is_a_dead_cube_rg19_4_4_8() -> None:
    item = only_irregularity(DEAD_CUBE)
    assert (item["kind"], item["rule"], item["game"], item["move"], item["player"]) == (
        "cube", "RG19 4.4.8", 4, 1, "bob")


def test_us09_dead_cube_reading_is_an_option() -> None:
    from rules.match import DeadCubeRule

    # US09 5.6 only stops doubling once the match must end with this game; at 1-2 of 3 with the
    # cube at 1 the trailer can still win a single without ending the match, so no irregularity
    report = replay_match(loads(DEAD_CUBE), dead_cube=DeadCubeRule.US09)
    assert report.irregularities == []


def test_wrong_score_line_is_a_score_irregularity_rg19_4_6_3() -> None:
    item = only_irregularity(WRONG_SCORE_LINE)
    assert (item["kind"], item["rule"], item["game"]) == ("score", "RG19 4.6.3", 2)
    assert "0-1" in str(item["allowed"])


def test_wrong_wins_value_is_a_score_irregularity_rg19_4_6_2() -> None:
    report = replay_match(loads(WRONG_WINS))
    kinds = [(i.kind, i.rule, i.game) for i in report.irregularities]
    # the pass is worth the cube before the double (1), not 2; the next score line follows the file
    assert ("score", "RG19 4.6.2", 1) in kinds
    assert ("score", "RG19 4.6.3", 2) in kinds


def test_illegal_move_is_reported_with_the_legal_plays() -> None:
    item = only_irregularity(ILLEGAL_MOVE)
    assert (item["kind"], item["game"], item["move"], item["player"], item["played"]) == (
        "illegal_move", 1, 1, "alice", "31: 8/5 6/4")
    assert "8/5 6/5" in str(item["allowed"])
    assert "RG19 4.2.2" in str(item["rule"])


def test_roll_out_of_turn_is_other() -> None:
    item = only_irregularity(OUT_OF_TURN)
    assert (item["kind"], item["move"], item["player"]) == ("other", 2, "alice")


def test_double_to_the_wrong_level_is_a_cube_irregularity_rg19_4_4_9() -> None:
    item = only_irregularity(WRONG_LEVEL)
    assert (item["kind"], item["rule"]) == ("cube", "RG19 4.4.9")


def test_clean_hand_made_match_has_no_irregularity_and_a_winner() -> None:
    text = transcript(
        3,
        game(1, 0, 0, BOB_DOUBLES_ALICE_DROPS),
        game(2, 0, 1, BOB_DOUBLES_ALICE_DROPS),
        game(3, 0, 2,
             "  1) 31: 8/5 6/5                 52: 13/8 13/11\n"
             "  2)  Losses 1 point\n"
             "                                  Wins 1 point and the match\n"),
    )
    report = replay_match(loads(text))
    assert report.irregularities == []
    assert report.winner_name == "bob" and report.final_score == (0, 3)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name[:8] for p in SAMPLES])
def test_bundled_real_transcripts_replay_clean(path: Path) -> None:
    report = replay_file(path)
    assert report.irregularities == []
    assert report.moves > 0


def test_quirk_notes_on_the_bundled_transcripts() -> None:
    capped = replay_file(DATA / "0354eb6b69a61270ab0fa34a5e0c5249e274b06c.txt")
    assert any("capped" in n.text and "6" in n.text for n in capped.notes)
    abandoned = replay_file(DATA / "0527cc6654681e2e8018b64dc965f412a3ddf7e3.txt")
    assert abandoned.winner_name == "maartjebabes" and any("abandoned" in n.text for n in abandoned.notes)
    money = replay_file(DATA / "10528674ebbf5a07711e0487ed5698de7a9fad0f.txt")
    assert any("money game" in n.text for n in money.notes)
    assert money.final_score == (0, 1)  # the gammon counted single: Jacoby rule (STD Optional-3)
    literal = replay_file(DATA / "10528674ebbf5a07711e0487ed5698de7a9fad0f.txt", money_16=False)
    assert [i.kind for i in literal.irregularities] == ["score"]  # as a real 16-point match it is wrong
    studio = replay_file(DATA / "01504d079b3e0573ac73cd7c055d4fc1d68b2792.txt")
    assert studio.winner_name == "Lasse" and any("4016" in n.text for n in studio.notes)


def test_empty_player_name_wins_the_match() -> None:
    report = replay_file(DATA / "2358a3a19ae326595260efa3369bc013d5696ec2.txt")
    assert report.irregularities == [] and report.winner_name == "" and report.final_score == (0, 3)


def test_cli_json_lines_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.mat"
    broken.write_text(NO_ACCESS, encoding="utf-8")
    clean = DATA / "003e8d5ffdedaba5def97face401b7f95ef7441c.txt"
    assert main([str(clean), "--json"]) == 0
    line = capsys.readouterr().out.strip().splitlines()
    assert len(line) == 1
    obj = json.loads(line[0])
    assert set(obj) == {"file", "games", "moves", "irregularities", "notes", "winner"}
    assert obj["winner"] == "Llabba" and obj["games"] == 7 and obj["irregularities"] == []
    assert main([str(clean), str(broken), "--json"]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.strip().splitlines()]
    assert [len(x["irregularities"]) for x in lines] == [0, 1]
    assert set(lines[1]["irregularities"][0]) >= {"game", "move", "player", "kind", "played", "rule"}
    unreadable = tmp_path / "unreadable.mat"
    unreadable.write_text("not a transcript\n", encoding="utf-8")
    assert main([str(unreadable)]) == 2
    err = capsys.readouterr().err
    assert "unreadable.mat:1: expected the match length line" in err
    assert main([str(tmp_path / "missing.mat")]) == 2


def test_cli_folder_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for path in SAMPLES[:3]:
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "out"
    assert main([str(folder), "--export-mat", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3 files" in text
    for path in SAMPLES[:3]:
        exported = out / (path.stem + ".mat")
        assert move_trace(load(exported)) == move_trace(load(path))


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/matches is not present (the 300 sample transcripts)")
def test_all_300_shared_transcripts_replay_without_illegal_moves_or_cube_irregularities() -> None:
    files = sorted(SHARED.glob("*.txt"))
    assert len(files) == 300
    totals = {"games": 0, "moves": 0}
    for path in files:
        report = replay_file(path)
        bad = [i for i in report.irregularities if i.kind in ("illegal_move", "cube")]
        assert bad == [], (path.name, bad)
        assert report.irregularities == [], (path.name, report.irregularities)
        assert report.winner == report.file_winner, path.name
        totals["games"] += report.games
        totals["moves"] += report.moves
    assert totals == {"games": 863, "moves": 35857}


@pytest.mark.gnubg
@pytest.mark.skipif(find_gnubg() is None, reason="GNU Backgammon (Debian package gnubg) is not installed")
def test_exported_mat_imports_into_gnubg_with_the_same_moves(tmp_path: Path) -> None:
    gnubg = find_gnubg()
    assert gnubg is not None
    exported = []
    for path in SAMPLES:
        report = replay_file(path)
        assert report.export is not None
        target = tmp_path / (path.stem + ".mat")
        from rules.matfile import dump

        dump(report.export, target)
        exported.append(target)
    back = gnubg_reexport(exported, tmp_path / "gnubg", gnubg, timeout=120)
    assert len(back) == len(exported), "gnubg did not export every imported file"
    for src, dst in back.items():
        original = DATA / (src.stem + ".txt")
        assert move_trace(load(dst)) == move_trace(load(original)), src.name


def test_money_session_with_a_beaver_std_optional_2() -> None:
    text = transcript(
        0,
        game(1, 0, 0,
             "  1) 31: 8/5 6/5                  Doubles => 2\n"
             "  2)  Beavers => 4                 Drops\n"
             "      Wins 2 point\n"),
    )
    report = replay_match(loads(text))
    assert report.irregularities == []
    assert report.final_score == (2, 0) and report.winner_name == "alice"
    # the same beaver in match play is a cube irregularity (RG19 4.4.10)
    match_play = replay_match(loads(text.replace("0 point match", "5 point match")))
    assert [(i.kind, i.rule) for i in match_play.irregularities][:1] == [("cube", "RG19 4.4.10")]


def test_fast_path_agrees_with_the_engine_on_a_real_match() -> None:
    """The replay's literal fast path must reach exactly what rules.movegen.apply_play reaches."""
    from rules.movegen import apply_play
    from rules.replay import ReplayVisitor, _literal_legal_result

    checked = []

    class Compare(ReplayVisitor):
        def move(self, game, entry, before, after, legal):  # type: ignore[no-untyped-def]
            fast = _literal_legal_result(before, entry.play, entry.dice)
            assert fast is not None and fast[0] == after == apply_play(before, entry.play, entry.dice)
            assert fast[1] == legal.play_for(after)
            checked.append(after)

    replay_file(DATA / "003e8d5ffdedaba5def97face401b7f95ef7441c.txt", Compare())  # Studio: bar/off, (2), hits
    assert len(checked) > 100
    # a combined move whose only legal path hits on the way is not taken literally: the engine decides
    from rules.play import Play
    from rules.position import Position

    pos = Position.from_points({24: 1, 6: 14}, {7: 1, 2: 14})  # player 1's blot on player 0's 18-point
    assert _literal_legal_result(pos, Play.parse("24/13"), (6, 5)) is not None  # 24/19/13 passes no blot
    blocked = Position.from_points({24: 1, 6: 14}, {7: 1, 6: 2, 2: 12})  # 19 blocked: must go via 18
    assert _literal_legal_result(blocked, Play.parse("24/13"), (6, 5)) is None
    assert apply_play(blocked, "24/13", (6, 5)).on_bar(1) == 1


def test_crawford_off_header_allows_the_trailers_double() -> None:
    text = transcript(
        3,
        game(1, 0, 0, BOB_DOUBLES_ALICE_DROPS),
        game(2, 0, 1, BOB_DOUBLES_ALICE_DROPS),
        game(3, 0, 2,
             "  1) 42: 8/4 6/4                 52: 13/8 13/11\n"
             "  2)  Doubles => 2                Takes\n"),
    )
    assert [i.rule for i in replay_match(loads(text)).irregularities] == ["RG19 4.4.7"]
    off = text.replace("; [Player 2 \"bob\"]", "; [Player 2 \"bob\"]\n; [Crawford \"Off\"]")
    assert replay_match(loads(off)).irregularities == []
