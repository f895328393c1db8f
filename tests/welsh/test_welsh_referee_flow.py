"""The Welsh referee's turn flow, scoring and match from table states (DIGEST C.4, C.7, C.17, C.19,
C.23; R1, R4-R7, R12, R14, R17, R22, W40), and whole random games refereed from their streams."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_welsh_referee import FAR_BLACK, check_out_last, concede, rectangle, snakes, three_on_roof
from welsh_scenario import BLACK, RED, WelshScenario, pos

from rules.referee import Referee, TableState, get_profile
from rules.referee.setup import DiceMode, MatchSetup
from rules.referee_cli import main as referee_main
from rules.welsh.game import Ending
from rules.welsh.script import WelshTable, random_game_stream, records_to_lines, welsh_setup


def referee_over(records: list[dict]) -> Referee:  # type: ignore[type-arg]
    ref = Referee(MatchSetup.from_json(records[0]), get_profile("welsh"))
    for r in records[1:]:
        if r["type"] == "table_state":
            ref.feed(TableState.from_json(r))
        else:
            ref.announce(r)
    return ref


# ---- whole random games (C.17 turn flow end to end) -----------------------------------------------
@pytest.mark.parametrize("seed,dice_mode,clock", [
    (0, DiceMode.FOUR, True), (2, DiceMode.FOUR, True), (4, DiceMode.FOUR, True), (7, DiceMode.FOUR, True),
    (10, DiceMode.FOUR, False), (11, DiceMode.TWO, True), (12, DiceMode.TWO, False),
])
def test_a_random_game_refereed_from_its_table_states_raises_nothing_and_scores_as_the_engine(
        seed: int, dice_mode: DiceMode, clock: bool) -> None:
    setup = welsh_setup(clock=clock).with_(dice_mode=dice_mode)
    records, match = random_game_stream(seed, games=1, setup=setup)
    ref = referee_over(records)
    assert [a.code for a in ref.alerts if a.severity.is_alert] == []
    assert [r.ending for r in ref.wmatch.results] == [r.ending for r in match.results]
    assert ref.wmatch.scores == match.scores
    assert [a.code for a in ref.alerts].count("GAME_RESULT") == 1


def test_a_whole_random_match_refereed_from_its_table_states_R1():
    records, match = random_game_stream(102, games=1000)  # a whole match: every game to 25 (~11,000 states)
    assert match.over
    ref = referee_over(records)
    assert [a.code for a in ref.alerts if a.severity.is_alert] == []
    assert [r.ending for r in ref.wmatch.results] == [r.ending for r in match.results]
    assert ref.wmatch.scores == match.scores and ref.wmatch.winner == match.winner
    codes = [a.code for a in ref.alerts]
    # the stream exercises the Welsh flow, not only plain turns
    for code in ("WEL_ODDS_EVENS", "WEL_RAISE", "WEL_DANCE", "WEL_ACEY_DEUCEY_RETHROW", "WEL_WASH_STICKS",
                 "WEL_FIRST_CHECKOUT_BONUS", "WEL_MATCH_WON"):
        assert code in codes, code
    assert ref.phase.value == "match_over"


def test_gammonwatch_referee_rules_welsh_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records, match = random_game_stream(4, games=1)
    stream = tmp_path / "welsh.jsonl"
    stream.write_text("\n".join(records_to_lines(records)) + "\n", encoding="utf-8")
    assert referee_main([str(stream), "--rules", "welsh", "--json"]) == 0
    alerts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    result = [a for a in alerts if a["code"] == "GAME_RESULT"][-1]
    assert result["details"]["score"] == match.scores
    assert result["rules"][0].startswith("Welsh")
    # a stream with one play laid out illegally: exit status 1 and the Welsh code with its rule
    table = WelshTable()
    bad = [table.setup.to_json(), *table.snap(), *table.throw(RED, (3, 1))]
    bad += table.move(RED, pos("B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5"))  # across the stream with a 4
    bad += table.lift(RED)
    stream.write_text("\n".join(records_to_lines(bad)) + "\n", encoding="utf-8")
    assert referee_main([str(stream), "--rules", "welsh"]) == 1
    assert "WEL_STREAM_NOT_EXACT [Red (light)]" in capsys.readouterr().out


# ---- scoring (C.19) ----------------------------------------------------------------------------------
@pytest.mark.parametrize("black,games,multiplier", [
    ("H6:5 H5:5 H4:4", 1, 1),  # Black has checked out a man: a single game
    (FAR_BLACK, 3, 3),  # none off, all in his Home: a gammon counts three times (R4)
    ("N1 H6:5 H5:5 H4:4", 6, 6),  # none off and a man outside his Home: a backgammon, six times (R5, W31)
])
def test_checking_out_the_last_man_scores_die_times_gammon_or_backgammon_R4_R5_W32(black: str, games: int,
                                                                                   multiplier: int) -> None:
    w = check_out_last(black)
    assert w.ref.wmatch.scores == [games, 0]
    result = w.last("GAME_RESULT")
    assert (result.details["ending"], result.details["multiplier"]) == ("checkout", multiplier)
    assert w.ref.phase.value == "game_over" and w.codes() == []


def test_a_raised_die_multiplies_the_backgammon_R3_R6():
    w = WelshScenario()
    w.start("H1", "N1 H6:5 H5:5 H4:4")
    w.raise_cube(RED, 2)
    w.throw(RED, 2, 1)
    w.play(RED, where=lambda pl: pl.result.checked_out(RED) == 15)
    w.lift(RED)
    assert w.ref.wmatch.scores == [12, 0] and w.codes() == []


def test_three_on_the_roof_scores_the_die_value_only_R14_W16():
    w = three_on_roof(2)
    assert w.ref.wmatch.scores == [1, 0]
    assert w.ref.wmatch.results[-1].ending is Ending.THREE_ON_ROOF
    assert w.last("GAME_RESULT").player == "light"


def test_a_wash_scores_one_game_each_R22():
    assert snakes((1, 1)).ref.wmatch.scores == [1, 1]


def test_an_accepted_concession_scores_the_games_offered_R18():
    w = concede(2, accept=True)
    assert w.ref.wmatch.scores == [2, 0] and w.ref.wmatch.results[-1].ending is Ending.CONCESSION


def test_a_rectangle_wins_the_match_whatever_the_score_R17b():
    w = WelshScenario(score=(0, 20))
    w.start("N2 H6:3 H5:3 H4:3 H3:3 H2:2", FAR_BLACK)
    w.throw(RED, 4, 2)
    w.play(RED, where=lambda pl: pl.result.has_rectangle(RED))
    w.lift(RED)
    assert w.ref.wmatch.winner == RED and w.ref.phase.value == "match_over"
    assert w.ref.wmatch.settlement().set_payment == 750  # R23 a): £7.50
    assert rectangle(form=False).ref.wmatch.winner is None


# ---- turn flow ---------------------------------------------------------------------------------------
def test_mugs_away_the_loser_of_a_game_starts_the_next_R7():
    w = three_on_roof(2)  # Red wins
    w.feed(w.table.reset())
    w.throw(RED, 6, 4)
    assert w.codes() == ["WEL_OUT_OF_TURN"]
    w.throw(BLACK, 6, 4)
    assert w.codes() == ["WEL_OUT_OF_TURN"] and w.ref.phase.value == "moving" and w.ref.turn == BLACK


def test_an_illegal_play_corrected_before_the_next_throw_is_accepted_W40():
    w = WelshScenario()
    w.throw(RED, 3, 1)
    w.move(RED, "B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")  # across the stream with a 4 (R15)
    w.lift(RED)
    assert w.codes() == ["WEL_STREAM_NOT_EXACT"] and w.ref.pending is not None
    w.play(RED)  # put right: a legal play of the 3-1
    w.throw(BLACK, 6, 5)
    assert w.codes() == ["WEL_STREAM_NOT_EXACT"]
    assert "CORRECTION_COMPLETE" in w.all_codes() and w.ref.pending is None
    assert w.ref.turn == BLACK and w.ref.phase.value == "moving"


def test_an_illegal_play_not_corrected_stands_at_the_next_throw_W40():
    w = WelshScenario()
    w.throw(RED, 3, 1)
    w.move(RED, "B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")
    w.lift(RED)
    w.throw(BLACK, 6, 5)
    assert "ILLEGAL_MOVE_STANDS" in w.all_codes()
    assert w.game.position == pos("B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")  # play goes on from it
    assert w.ref.turn == BLACK and w.game.throw_value == (6, 5)


def test_a_clock_press_also_ends_the_turn_R24iii():
    w = WelshScenario(clock=True)
    w.table.clock = "near"
    w.throw(RED, 6, 4)
    w.play(RED, "F6/N2(6+4)")
    w.press(RED)  # the dice still lie on the table
    assert "MOVE" in w.all_codes() and w.ref.turn == BLACK and w.codes() == []


def test_the_automatic_raise_is_turned_on_the_die_without_a_raise_alert_R16_W17():
    w = WelshScenario()
    w.start("roof H6:5 H5:5 H4:4", "H6:2 H5:2 H4:2 H3:2 H2:2 H1:2 N1:3")
    w.throw(RED, 6, 5)
    w.lift(RED)
    assert w.game.cube == 2 and w.game.cube_owner is None  # the right does not move (W13)
    w.feed(w.table.turn_cube(2))
    assert w.codes() == [] and "WEL_RAISE" not in w.all_codes()


def test_time_out_loses_the_match_R12a():
    w = WelshScenario(clock=True, reserves=(100.0, 100.0))
    w.table.clock = "near"
    w.throw(RED, 6, 4)
    w.table.reserves = (0.0, 90.0)
    w.snap()
    assert w.ref.wmatch.winner == BLACK and w.ref.phase.value == "match_over"
    assert w.ref.wmatch.settlement().set_payment == 2000  # R23 b): £20


def test_welsh_has_no_resignation_W12():
    w = WelshScenario()
    with pytest.raises(ValueError, match="concession"):
        w.ref.announce({"act": "resign", "player": "light"})


def test_cli_welsh_options_length_and_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = WelshTable()
    stream = tmp_path / "short.jsonl"
    stream.write_text("\n".join(records_to_lines([table.setup.to_json(), *table.snap()])) + "\n", encoding="utf-8")
    assert referee_main([str(stream), "--rules", "welsh", "--length", "3", "--welsh-preset", "welsh-narrow-hit"]) == 0
    assert "Welsh match to 3 games" in capsys.readouterr().out  # R1's 25 games, changed
    assert referee_main([str(stream), "--rules", "usbgf-2019", "--welsh-preset", "welsh-narrow-hit"]) == 2
    assert "--welsh-preset" in capsys.readouterr().err
    assert referee_main([str(stream), "--rules", "welsh", "--welsh-preset", "welsh-unknown"]) == 2
    assert "known:" in capsys.readouterr().err


def test_snapshot_carries_the_welsh_state():
    w = concede(2, accept=False)
    snap = w.ref.snapshot()
    assert snap["rules"] == "welsh" and snap["welsh"]["scores"] == [0, 0]
    assert snap["welsh"]["match_length"] == 25 and snap["match"]["length"] == 25
    assert snap["welsh"]["cube"] == 1 and snap["welsh"]["nominate_cards_used"] == []


def test_the_die_turned_to_2_for_ten_for_two_is_not_a_raise_and_either_may_raise_R12b_W42():
    w = WelshScenario(clock=True, reserves=(500.0, 550.0))
    w.table.clock = "far"
    w.snap()
    w.feed(w.table.turn_cube(2))  # before anyone has thrown: the starter is still open
    w.throw(BLACK, 6, 4)
    assert w.codes() == [] and w.game.cube == 2 and w.game.turn == BLACK
    w.play(BLACK)
    w.lift(BLACK)
    w.press(BLACK)
    w.raise_cube(RED, 4)  # the die starts centred at 2: either player may raise it (W42)
    assert w.codes() == [] and w.game.cube == 4 and w.game.cube_owner == BLACK


def _blur(records: list[dict], cells: dict[int, list[float]]) -> list[dict]:  # type: ignore[type-arg]
    """Vision's view of the settled states: some points' light counts as distributions."""
    out = []
    for r in records:
        r = json.loads(json.dumps(r))
        if r["type"] == "table_state" and not r.get("in_hand"):
            for point, light_p in cells.items():
                cell = r["points"][point - 1]
                cell["light_p"] = light_p
                cell["light"] = max(range(len(light_p)), key=lambda k: light_p[k])
        out.append(r)
    return out


@pytest.mark.parametrize("p_seen,unclear", [(0.55, True), (0.99, False)])
def test_a_count_seen_unclearly_is_weighed_against_the_legal_results(p_seen: float, unclear: bool) -> None:
    # Red plays F6/N2(6+4) (physical point 8 gets a 4th man); vision leans to a man on point 7 instead
    w = WelshScenario()
    w.throw(RED, 6, 4)
    records = w.table.move(RED, pos("B1:2 F6:4 N2:4 H6:5", "B1:2 F6:5 N2:3 H6:5")) + w.table.lift(RED)
    on8 = [0.0] * 16
    on8[3], on8[4] = p_seen, 1.0 - p_seen
    on7 = [1.0 - p_seen, p_seen]
    w.feed(_blur(records, {8: on8, 7: on7}))
    if unclear:  # likely enough to be the legal play: taken, with a request to confirm
        assert w.codes() == ["MOVE_UNCONFIRMED"] and w.ref.turn == BLACK
    else:  # the table most likely shows a play no legal play reaches
        assert w.codes() and w.codes()[0].startswith("WEL_") and w.ref.pending is not None


def test_the_opponents_throw_ends_a_turn_whose_dice_were_not_lifted_R24iii():
    w = WelshScenario()
    w.throw(RED, 6, 4)
    w.play(RED, "F6/N2(6+4)")
    w.throw(BLACK, 5, 3)  # Red's dice still lie on the table
    assert "MOVE" in w.all_codes() and w.codes() == []
    assert w.ref.turn == BLACK and w.game.throw_value == (5, 3)


def test_monitor_decisions_let_stand_and_award_penalty_W38_W40():
    w = WelshScenario()
    w.throw(RED, 3, 1)
    w.move(RED, "B1:2 F6:4 N3 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5")
    w.lift(RED)
    w.decide(action="let_stand")
    assert "ILLEGAL_MOVE_STANDS" in w.all_codes() and w.ref.turn == BLACK and w.ref.pending is None
    w.decide(action="award_penalty", player="dark", games=2)  # (D): the official awards penalty games
    assert w.ref.wmatch.scores == [0, 2]
    with pytest.raises(ValueError, match="set_cube"):
        w.decide(action="undo_turn")


def test_a_spoken_raise_counts_like_the_die_R3():
    w = WelshScenario()
    w.announce("raise", player=RED)
    assert w.game.cube == 2 and w.game.cube_owner == BLACK and "WEL_RAISE" in w.all_codes()
    w.feed(w.table.raise_cube(RED, 2))  # the die is then shown at 2 on Black's side: no second raise
    assert w.game.cube == 2 and w.codes() == []


@pytest.mark.parametrize("late_s,games", [(9 * 60.0, 0), (10 * 60.0 + 30, 1), (13 * 60.0 + 1, 4)])
def test_penalty_games_due_for_a_late_start_of_the_match_D_W38(late_s: float, games: int) -> None:
    w = WelshScenario()
    w.announce("scheduled_start", t=w.table.t)
    w.snap(late_s)
    w.throw(RED, 6, 4)
    due = [a for a in w.alerts if a.code == "WEL_PENALTY_GAME_DUE"]
    assert [a.details["games"] for a in due] == ([games] if games else [])
