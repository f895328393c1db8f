"""``gammonwatch replay``: check ``.mat`` transcripts move by move with the rules engine.

For each game of each file: every recorded play must reach one of the legal resulting positions
for its roll (STD Movement; RG19 4.2.2), every cube action must be allowed (access RG19 4.4.2,
Crawford RG19 4.4.7, dead cube RG19 4.4.8, level RG19 4.4.9), each game's score line must match
the score the rules give (RG19 4.6.3) and the final result and match winner must agree.

Irregularities have a ``kind``: ``illegal_move``, ``cube``, ``score`` or ``other``. Things that are
not breaches of the rules but are worth knowing (a "Wins N" capped by the site at the points the
winner needed, a concession made with contact on an online site, an unfinished match) are notes.

Exit status: 0 clean, 1 irregularities found, 2 an input could not be read.

API: :func:`replay_match` (a parsed :class:`rules.matfile.MatMatch`), :func:`replay_file`, and
:class:`ReplayVisitor` to follow the replay position by position (the demo uses it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rules.errors import IllegalPlayError
from rules.match import (
    DeadCubeRule,
    GameResult,
    MatchError,
    MatchRules,
    MatchState,
    Player,
    ResultKind,
    Termination,
)
from rules.matfile import EntryKind, MatEntry, MatGame, MatMatch, MatSyntaxError, dumps, load
from rules.movegen import LegalPlays, apply_play, generate
from rules.play import Play, Step
from rules.position import Board, Position
from rules.scoring import possible_kinds, result_kind

__all__ = [
    "Irregularity",
    "Note",
    "FileReport",
    "ReplayVisitor",
    "replay_match",
    "replay_file",
    "collect_files",
    "main",
]

KINDS = ("illegal_move", "cube", "score", "other")


@dataclass(frozen=True)
class Irregularity:
    """A breach of the rules found in a transcript."""

    game: int
    """Game number as written in the file."""
    move: int | None
    """Row number ``N)`` in the file (None for a line without one)."""
    player: str
    kind: str
    """One of ``illegal_move``, ``cube``, ``score``, ``other``."""
    played: str
    """What the file records."""
    rule: str
    """The rule section broken, e.g. ``RG19 4.4.8``."""
    allowed: str = ""
    """What the rules allow instead."""
    line: int = 0
    """Line number in the file."""

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "move": self.move,
            "player": self.player,
            "kind": self.kind,
            "played": self.played,
            "rule": self.rule,
            "allowed": self.allowed,
            "line": self.line,
        }

    def __str__(self) -> str:
        where = f"game {self.game}" + (f" move {self.move}" if self.move is not None else "")
        who = f" {self.player!r}" if self.player else ""
        return f"{where}{who}: {self.kind}: played {self.played!r}; rules allow {self.allowed} ({self.rule})"


@dataclass(frozen=True)
class Note:
    """Something worth knowing that is not an irregularity."""

    game: int | None
    move: int | None
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "move": self.move, "note": self.text}

    def __str__(self) -> str:
        where = "" if self.game is None else f"game {self.game}" + (f" move {self.move}" if self.move is not None else "") + ": "
        return f"{where}{self.text}"


@dataclass
class FileReport:
    file: str
    players: tuple[str, str] = ("", "")
    length: int = 0
    games: int = 0
    moves: int = 0
    cube_actions: int = 0
    irregularities: list[Irregularity] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    winner: Player | None = None
    """Match winner found by the replay."""
    file_winner: Player | None = None
    """Match winner the file records ("and the match", or the score reaching the length)."""
    final_score: tuple[int, int] = (0, 0)
    export: MatMatch | None = None
    """The transcript as replayed (canonical plays), for ``--export-mat``."""

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.players[self.winner]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "games": self.games,
            "moves": self.moves,
            "irregularities": [i.to_json() for i in self.irregularities],
            "notes": [n.to_json() for n in self.notes],
            "winner": self.winner_name,
        }


class ReplayVisitor:
    """Hooks called during a replay (override what you need; all default to doing nothing)."""

    def begin_game(self, game: MatGame, state: MatchState) -> None:
        pass

    def move(self, game: MatGame, entry: MatEntry, before: Position, after: Position, legal: LegalPlays) -> None:
        pass

    def cube(self, game: MatGame, entry: MatEntry, state: MatchState) -> None:
        pass

    def irregularity(self, item: Irregularity) -> None:
        pass

    def end_game(self, game: MatGame, result: GameResult | None, state: MatchState) -> None:
        pass


def is_galaxy_money_game(match: MatMatch) -> bool:
    """A '16 point match' holding one game: how Backgammon Galaxy exports a money game (its gammons
    follow the Jacoby rule). Decision record 0152."""
    return match.length == 16 and len(match.games) == 1 and match.games[0].score == (0, 0)


def rules_for(match: MatMatch, dead_cube: DeadCubeRule = DeadCubeRule.RG19, *,
              money_16: bool = True) -> MatchRules:
    """Match settings from the file: length, the Crawford header, the CubeLimit header.

    With ``money_16``, a '16 point match' of one game is read as money play with the Jacoby rule
    (:func:`is_galaxy_money_game`)."""
    limit_text = match.header("CubeLimit")
    limit: int | None = None
    if limit_text and limit_text.strip().isdigit():
        value = int(limit_text.strip())
        limit = value if value > 0 and value & (value - 1) == 0 else None
    crawford = (match.header("Crawford", "On") or "On").strip().lower() not in ("off", "no", "false", "0")
    if match.length == 0:
        # a money transcript that records a beaver was played with beavers on (STD Optional-2)
        beavers = any(e.kind is EntryKind.BEAVER for g in match.games for e in g.entries)
        jacoby = (match.header("Jacoby", "Off") or "").lower() in ("on", "yes", "true")
        return replace(MatchRules.money_play(jacoby=jacoby, beavers=beavers), cube_limit=limit)
    if money_16 and is_galaxy_money_game(match):
        return replace(MatchRules.money_play(jacoby=True), cube_limit=limit)
    return MatchRules(length=match.length, crawford=crawford, dead_cube=dead_cube, cube_limit=limit)


_KIND_WORD = {ResultKind.SINGLE: "single", ResultKind.GAMMON: "gammon", ResultKind.BACKGAMMON: "backgammon"}


class _Replayer:
    def __init__(self, match: MatMatch, visitor: ReplayVisitor | None, dead_cube: DeadCubeRule,
                 money_16: bool = True) -> None:
        self.match = match
        self.visitor = visitor or ReplayVisitor()
        self.report = FileReport(file=match.source, players=match.players, length=match.length)
        self.rules = rules_for(match, dead_cube, money_16=money_16)
        self.export_games: list[MatGame] = []

    # helpers ------------------------------------------------------------------------------
    def name(self, player: int) -> str:
        return self.match.players[player]

    def irregular(self, game: MatGame, entry: MatEntry | None, player: int | None, kind: str,
                  played: str, rule: str, allowed: str) -> None:
        item = Irregularity(
            game=game.number,
            move=entry.row if entry is not None else None,
            player=self.name(player) if player is not None else "",
            kind=kind,
            played=played,
            rule=rule,
            allowed=allowed,
            line=entry.line if entry is not None else game.line,
        )
        self.report.irregularities.append(item)
        self.visitor.irregularity(item)

    def note(self, game: MatGame | None, entry: MatEntry | None, text: str) -> None:
        self.report.notes.append(
            Note(game.number if game else None, entry.row if entry is not None else None, text)
        )

    # the match ----------------------------------------------------------------------------
    def run(self) -> FileReport:
        match = self.match
        first = match.games[0].score
        if self.rules.money and match.length:
            self.note(None, None, f"'{match.length} point match' with a single game: read as a money game "
                      "with the Jacoby rule (how Backgammon Galaxy exports money play)")
        try:
            state = MatchState.new(self.rules, first)
        except ValueError as exc:
            self.note(match.games[0], None, f"cannot start at the file's score {first}: {exc}; starting at 0-0")
            state = MatchState.new(self.rules)
        if first != (0, 0):
            self.note(match.games[0], None, f"the transcript starts at {first[0]}-{first[1]}, not 0-0")
        for index, game in enumerate(match.games):
            if state.over:
                self.irregular(game, None, None, "score", f"game {game.number}",
                               "US09 4.9", f"no game after the match was won by {self.name(state.winner or 0)!r}")
                break
            if index and game.number != match.games[index - 1].number + 1:
                self.note(game, None, f"game numbered {game.number} follows game {match.games[index - 1].number}")
            if game.score != state.score:
                self.irregular(
                    game, None, None, "score", f"score line {game.score[0]}-{game.score[1]}", "RG19 4.6.3",
                    f"{state.score[0]}-{state.score[1]} (the score the results of the previous games give)",
                )
            if game.crawford_marked != state.crawford and (game.crawford_marked or state.crawford):
                if game.crawford_marked:
                    self.note(game, None, "the file marks this game 'Crawford' but the score "
                              f"{state.score[0]}-{state.score[1]} does not make it the Crawford game (RG19 4.4.7)")
            state = self.replay_game(game, state, last=index == len(match.games) - 1)
        self.report.games = len(match.games)
        self.report.winner = state.winner
        if self.rules.money and state.score[0] != state.score[1]:
            self.report.winner = Player.FIRST if state.score[0] > state.score[1] else Player.SECOND
        self.report.final_score = state.score
        self.report.file_winner = self.file_winner()
        if self.report.file_winner != self.report.winner:
            fw = "nobody" if self.report.file_winner is None else repr(self.name(self.report.file_winner))
            rw = "nobody" if self.report.winner is None else repr(self.name(self.report.winner))
            last = match.games[-1]
            self.irregular(last, None, self.report.file_winner, "score", f"match winner {fw}", "RG19 4.6.3",
                           f"match winner {rw} (final score {state.score[0]}-{state.score[1]})")
        if state.winner is None and self.rules.length:
            self.note(None, None, f"match not finished: {state.score[0]}-{state.score[1]} in a {self.rules.length}-point match")
        self.report.export = MatMatch(
            length=match.length, players=match.players, games=tuple(self.export_games),
            headers=match.headers, comments=match.comments, source=match.source,
        )
        return self.report

    def file_winner(self) -> Player | None:
        """The winner the file records: a 'Wins ... and the match' line, else the last 'Wins N'
        bringing its player to the match length."""
        last = self.match.games[-1]
        wins = [e for e in last.entries if e.kind is EntryKind.WIN]
        if self.rules.money:
            return _money_leader(self.match)
        for e in wins:
            if e.and_match:
                return e.player
        if self.match.length and wins:
            e = wins[-1]
            if last.score[e.player] + (e.value or 0) >= self.match.length:
                return e.player
        return None

    # one game -----------------------------------------------------------------------------
    def replay_game(self, game: MatGame, state: MatchState, last: bool) -> MatchState:
        self.visitor.begin_game(game, state)
        position: Position | None = None
        result: tuple[Player, ResultKind, Termination] | None = None
        broken = False  # after an illegal move the position is unknown: stop checking this game
        resigned_after_roll: MatEntry | None = None
        ends: list[MatEntry] = []
        export: list[MatEntry] = []
        report = self.report
        for entry in game.entries:
            p = entry.player
            if entry.kind in (EntryKind.WIN, EntryKind.LOSS):
                ends.append(entry)
                continue
            if result is not None or resigned_after_roll is not None:
                self.irregular(game, entry, p, "other", entry.text, "RG19 4.5",
                               "nothing after the end of the game")
                continue
            if entry.kind is EntryKind.ROLL:
                assert entry.dice is not None
                if position is None:
                    position = Position.start(turn=p)
                    if entry.dice[0] == entry.dice[1]:
                        self.irregular(game, entry, p, "other", entry.text, "STD Starting the game",
                                       "an opening roll of two different numbers (ties are rerolled)")
                elif broken:  # the position is unknown after an illegal move: nothing more to check
                    export.append(entry)
                    continue
                elif p != position.turn:
                    self.irregular(game, entry, p, "other", entry.text, "RG19 4.2.2",
                                   f"{self.name(position.turn)!r} to roll")
                    position = position.with_turn(p)
                if state.cube.offered_by is not None:
                    self.irregular(game, entry, p, "cube", entry.text, "RG19 4.4.5",
                                   f"take or pass of the double to {state.cube.offered_value} first")
                    state = replace(state, cube=replace(state.cube, offered_by=None, beavered=False))
                if entry.play is None:  # rolled, then resigned ("????")
                    resigned_after_roll = entry
                    export.append(entry)
                    continue
                if broken:
                    export.append(entry)
                    continue
                legal = position.legal_plays(entry.dice)  # lazy: computed only if needed below
                fast = _literal_legal_result(position, entry.play, entry.dice)
                try:
                    if fast is not None:
                        after, canonical = fast
                    else:
                        after = apply_play(position, entry.play, entry.dice, legal=legal)
                        canonical = legal.play_for(after)
                except IllegalPlayError:
                    written = {(st.src, st.dst) for st in entry.play.steps}
                    nearest = sorted(legal, key=lambda pl: -len(written & {(st.src, st.dst) for st in pl.steps}))
                    options = [str(play) or "(no play)" for play in nearest[:8]]
                    more = "" if len(legal) <= 8 else f" ... ({len(legal)} in all)"
                    self.irregular(game, entry, p, "illegal_move", entry.text, "STD Movement; RG19 4.2.2",
                                   f"one of {', '.join(options)}{more}" if options else "no play")
                    self.note(game, entry, f"rest of game {game.number} not checked after the illegal move")
                    broken = True
                    export.append(entry)
                    continue
                report.moves += 1
                export.append(replace(entry, play=canonical))
                self.visitor.move(game, entry, position, after, legal)
                position = after
                if position.has_won(p):
                    result = (Player(p), result_kind(position, p), Termination.BEAR_OFF)
                continue
            # cube actions
            report.cube_actions += 1
            export.append(entry)
            if entry.kind is EntryKind.DOUBLE:
                if position is None:
                    self.irregular(game, entry, p, "cube", entry.text, "RG19 4.4.2",
                                   "no double before the opening roll")
                elif p != position.turn and not broken:
                    self.irregular(game, entry, p, "cube", entry.text, "RG19 4.4.2",
                                   f"a double only on one's own turn ({self.name(position.turn)!r} is on roll)")
                error = state.double_error(Player(p))
                if error is not None:
                    self.irregular(game, entry, p, "cube", entry.text, error.rule, _allowed_text(error, self.match.players))
                elif entry.value != state.cube.value * 2:
                    self.irregular(game, entry, p, "cube", entry.text, "RG19 4.4.9",
                                   f"'Doubles => {state.cube.value * 2}' (twice the current value {state.cube.value})")
                if error is None:
                    state = state.double(Player(p))
                else:  # record the offer anyway so the take/pass that follows can be read
                    state = replace(state, cube=replace(state.cube, offered_by=Player(p), beavered=False), doubled=True)
            elif entry.kind is EntryKind.BEAVER:
                try:
                    state = state.beaver(Player(p))
                except MatchError as exc:
                    self.irregular(game, entry, p, "cube", entry.text, exc.rule, _allowed_text(exc, self.match.players))
            elif entry.kind is EntryKind.TAKE:
                try:
                    state = state.take(Player(p))
                except MatchError as exc:
                    self.irregular(game, entry, p, "cube", entry.text, exc.rule, _allowed_text(exc, self.match.players))
            elif entry.kind is EntryKind.DROP:
                if state.cube.offered_by is None or state.cube.offered_by == p:
                    self.irregular(game, entry, p, "cube", entry.text, "RG19 4.4.5",
                                   "a pass only answers the opponent's pending double")
                else:
                    result = (Player(p).other, ResultKind.SINGLE, Termination.PASS)
            self.visitor.cube(game, entry, state)
        return self.finish_game(game, state, position, result, resigned_after_roll, ends, export, last)

    def finish_game(self, game: MatGame, state: MatchState, position: Position | None,
                    result: tuple[Player, ResultKind, Termination] | None, resigned_after_roll: MatEntry | None,
                    ends: list[MatEntry], export: list[MatEntry], last: bool) -> MatchState:
        wins = [e for e in ends if e.kind is EntryKind.WIN]
        losses = [e for e in ends if e.kind is EntryKind.LOSS]
        claimed = wins[-1] if wins else None
        file_value = claimed.value if claimed is not None else (losses[-1].value if losses else None)
        file_winner: Player | None = (
            claimed.player if claimed is not None else (losses[-1].player.other if losses else None)
        )
        anchor = claimed or (losses[-1] if losses else None)
        if result is None and file_winner is not None:
            # a concession: the file's points say what was conceded (RG19 4.5.1)
            loser = file_winner.other
            if resigned_after_roll is not None and resigned_after_roll.player != loser:
                self.irregular(game, resigned_after_roll, resigned_after_roll.player, "other",
                               resigned_after_roll.text, "RG19 4.5.1",
                               f"the player who rolled and stopped ({self.name(resigned_after_roll.player)!r}) to lose")
            if (state.length and claimed is not None and claimed.and_match and file_value == state.away(file_winner)
                    and file_value > state.points_for(ResultKind.BACKGAMMON)):
                self.note(game, anchor, f"{self.name(loser)!r} abandoned the match: '{claimed.text}' credits "
                          f"the {file_value} point(s) {self.name(file_winner)!r} needed, more than any game "
                          f"result at cube {state.cube.value}")
                new_state = state.forfeit(file_winner)
                self.export_games.append(replace(game, entries=tuple(export)))
                self.visitor.end_game(game, new_state.results[-1], new_state)
                return new_state
            kind = self.conceded_kind(game, anchor, state, file_winner, file_value or 0)
            if position is not None:
                allowed = possible_kinds(position, loser)
                if kind not in allowed:
                    self.irregular(game, anchor, loser, "other", f"concedes a {_KIND_WORD[kind]}", "RG19 4.5.1",
                                   "a concession of " + " or ".join(_KIND_WORD[k] for k in sorted(allowed)))
                    kind = max(allowed)
                if position.is_contact():
                    self.note(game, anchor, f"{self.name(loser)!r} conceded with contact (online play allows it; "
                              "RG19 4.5.1 allows concessions only once contact is broken)")
            result = (file_winner, kind, Termination.RESIGN)
        if result is None:
            if last:
                self.note(game, None, "no result (unfinished game)")
            else:
                self.irregular(game, None, None, "other", f"game {game.number} without a result", "RG19 4.5",
                               "every game played to completion, a pass or a concession")
            self.export_games.append(replace(game, entries=tuple(export)))
            self.visitor.end_game(game, None, state)
            return state
        winner, kind, how = result
        before = state
        if how is Termination.PASS:
            new_state = state.pass_(winner.other)
        else:
            if state.cube.offered_by is not None:
                state = replace(state, cube=replace(state.cube, offered_by=None, beavered=False))
            new_state = state.end_game(winner, kind, how)
        game_result = new_state.results[-1]
        points = game_result.points
        # compare the file's record of the result
        if file_winner is not None and file_winner != winner:
            self.irregular(game, anchor, file_winner, "score", anchor.text if anchor else "", "RG19 4.6.2",
                           f"{self.name(winner)!r} wins {points} point(s)")
        elif file_value is not None and file_value != points:
            needed = before.away(winner) if before.length else None
            if needed is not None and file_value < points and file_value in (needed, before.length):
                what = "needed" if file_value == needed else "of the match length"
                self.note(game, anchor, f"'{anchor.text if anchor else ''}' where the rules give {points} "
                          f"({_KIND_WORD[kind]} x cube {game_result.cube}): the site capped it at the "
                          f"{file_value} point(s) {what}")
            elif how is Termination.RESIGN:
                pass  # reported by conceded_kind
            else:
                self.irregular(game, anchor, winner, "score", anchor.text if anchor else "", "RG19 4.6.2",
                               f"'Wins {points} point' ({_KIND_WORD[kind]} x cube {game_result.cube})")
        for loss in losses:
            if loss.player != winner.other:
                self.irregular(game, loss, loss.player, "score", loss.text, "RG19 4.6.2",
                               f"{self.name(winner.other)!r} loses")
            elif claimed is not None and loss.value != claimed.value:
                self.note(game, loss, f"'{loss.text}' differs from '{claimed.text}'")
        if claimed is None and file_value is None:
            self.note(game, None, f"game {game.number} has no 'Wins' line; the rules give "
                      f"{self.name(winner)!r} {points} point(s)")
        if claimed is not None and claimed.and_match and new_state.winner is None and before.length:
            self.irregular(game, claimed, claimed.player, "score", claimed.text, "RG19 4.6.3",
                           f"the match goes on at {new_state.score[0]}-{new_state.score[1]} of {before.length}")
        # the export records the rules' result (capped like the site would, so gnubg agrees)
        out_value = points
        export_entries = list(export)
        if how is Termination.RESIGN:
            export_entries.append(MatEntry(EntryKind.LOSS, winner.other, 0, anchor.line if anchor else game.line,
                                           text=f"Losses {out_value} point", value=out_value))
        export_entries.append(MatEntry(EntryKind.WIN, winner, None, anchor.line if anchor else game.line,
                                       text=f"Wins {out_value} point", value=out_value,
                                       and_match=new_state.winner is not None))
        self.export_games.append(replace(game, entries=tuple(export_entries)))
        self.visitor.end_game(game, game_result, new_state)
        return new_state

    def conceded_kind(self, game: MatGame, anchor: MatEntry | None, state: MatchState,
                      winner: Player, value: int) -> ResultKind:
        cube = state.cube.value
        jacoby_single = state.rules.money and state.rules.jacoby and not state.doubled
        for kind in ResultKind:
            if state.points_for(kind) == value and not (jacoby_single and kind is not ResultKind.SINGLE):
                return kind
        if state.length and value == state.away(winner):
            # capped by the site: the smallest result worth at least the points needed
            for kind in ResultKind:
                if state.points_for(kind) >= value:
                    return kind
        self.note(game, anchor, f"'{anchor.text if anchor else value}' is not a concession the cube at {cube} "
                  "can give (1, 2 or 3 times the cube); read as a single game")
        return ResultKind.SINGLE


def _literal_result_key(my: tuple[int, ...], opp: tuple[int, ...], play: Play) -> tuple[Board, Board] | None:
    """The boards after the written steps taken literally (each landing hits a blot)."""
    m, o = list(my), list(opp)
    for step in play.steps:
        if m[step.src] == 0:
            return None
        m[step.src] -= 1
        if step.dst > 0:
            q = 25 - step.dst
            if o[q] >= 2:
                return None
            if o[q] == 1:
                o[q] = 0
                o[25] += 1
        m[step.dst] += 1
    return tuple(m), tuple(o)


def _literal_legal_result(position: Position, play: Play, dice: tuple[int, int]) -> tuple[Position, Play] | None:
    """Fast path: when the written steps, taken literally, reach one of the legal results, return
    that position and the engine's play for it. None means "ask the engine" (an illegal play, or a
    combined move whose intermediate points matter); :func:`rules.movegen.apply_play` decides then."""
    my, opp = position.mover_view()
    key = _literal_result_key(my, opp, play)
    if key is None:
        return None
    steps = generate(my, opp, dice[0], dice[1]).get(key)
    if steps is None:
        return None
    turn = position.turn
    boards = key if turn == 0 else (key[1], key[0])
    after = Position.from_boards(boards, turn=1 - turn, out_of_play=position.out_of_play)
    return after, Play(Step(*st) for st in steps)


def _money_leader(match: MatMatch) -> Player | None:
    """Money play: the player ahead after the last recorded result (None if level)."""
    last = match.games[-1]
    score = list(last.score)
    for e in last.entries:
        if e.kind is EntryKind.WIN:
            score[e.player] += e.value or 0
    if score[0] == score[1]:
        return None
    return Player.FIRST if score[0] > score[1] else Player.SECOND


def _allowed_text(error: MatchError, names: tuple[str, str] | None = None) -> str:
    text = f"no such cube action: {error.message}"
    if names is not None:
        text = re.sub(r"\b(FIRST|SECOND)\b", lambda m: repr(names[Player[m.group(1)]]), text)
    return text


def replay_match(match: MatMatch, visitor: ReplayVisitor | None = None,
                 dead_cube: DeadCubeRule = DeadCubeRule.RG19, *, money_16: bool = True) -> FileReport:
    """Replay a parsed transcript; returns the report (irregularities, notes, winner).

    ``dead_cube`` picks the reading of RG19 4.4.8 / US09 5.6; ``money_16`` reads a one-game
    '16 point match' as a money game (:func:`is_galaxy_money_game`)."""
    return _Replayer(match, visitor, dead_cube, money_16).run()


def replay_file(path: str | Path, visitor: ReplayVisitor | None = None,
                dead_cube: DeadCubeRule = DeadCubeRule.RG19, *, money_16: bool = True) -> FileReport:
    """Read and replay one file. Raises MatSyntaxError (ValueError) or OSError if unreadable."""
    return replay_match(load(path), visitor, dead_cube, money_16=money_16)


def collect_files(paths: Iterable[str | Path]) -> list[Path]:
    """Each path, or each file in a folder (sorted, not recursive, hidden files skipped)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")))
        else:
            files.append(path)
    return files


def format_report(report: FileReport) -> str:
    names = " v ".join(repr(n) for n in report.players)
    length = f"{report.length}-point match" if report.length else "money session"
    winner = "no winner (unfinished)" if report.winner is None else f"winner {report.winner_name!r}"
    lines = [
        f"{report.file}: {length}, {names}: {report.games} games, {report.moves} moves, "
        f"{report.cube_actions} cube actions; {winner} at {report.final_score[0]}-{report.final_score[1]}; "
        f"{len(report.irregularities)} irregularities, {len(report.notes)} notes"
    ]
    lines += [f"  IRREGULARITY {item}" for item in report.irregularities]
    lines += [f"  note: {note}" for note in report.notes]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="gammonwatch replay",
        description="Replay .mat match transcripts with the rules engine and report irregularities.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".mat file, or a folder of them")
    parser.add_argument("--json", action="store_true", help="one JSON object per file per line")
    parser.add_argument("--export-mat", metavar="DIR", help="write each replayed match as .mat (GNU Backgammon dialect)")
    parser.add_argument("--dead-cube", choices=["rg19", "us09"], default="rg19",
                        help="reading of the dead-cube rule (DIGEST A7.11); default rg19")
    parser.add_argument("--literal-length", action="store_true",
                        help="read a one-game '16 point match' as a 16-point match, not as a money game")
    parser.add_argument("--quiet", action="store_true", help="print only files with irregularities and the total")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    dead_cube = DeadCubeRule(args.dead_cube)
    files = collect_files(args.paths)
    if not files:
        print("gammonwatch replay: no files found in " + ", ".join(args.paths), file=sys.stderr)
        return 2
    export_dir = Path(args.export_mat) if args.export_mat else None
    if export_dir is not None:
        export_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    totals = {"files": 0, "games": 0, "moves": 0, "cube": 0, "irregularities": 0, "notes": 0, "unreadable": 0}
    started = time.perf_counter()
    for path in files:
        try:
            report = replay_file(path, dead_cube=dead_cube, money_16=not args.literal_length)
        except MatSyntaxError as exc:
            print(f"gammonwatch replay: cannot read {exc} (fix the line or remove the file)", file=sys.stderr)
            totals["unreadable"] += 1
            status = 2
            continue
        except OSError as exc:
            print(f"gammonwatch replay: cannot open {path}: {exc.strerror or exc}", file=sys.stderr)
            totals["unreadable"] += 1
            status = 2
            continue
        totals["files"] += 1
        totals["games"] += report.games
        totals["moves"] += report.moves
        totals["cube"] += report.cube_actions
        totals["irregularities"] += len(report.irregularities)
        totals["notes"] += len(report.notes)
        if report.irregularities and status == 0:
            status = 1
        if export_dir is not None and report.export is not None:
            target = export_dir / (path.stem + ".mat")
            target.write_text(dumps(report.export), encoding="utf-8")
        if args.json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
        elif not args.quiet or report.irregularities:
            print(format_report(report))
    elapsed = time.perf_counter() - started
    summary = (
        f"{totals['files']} files, {totals['games']} games, {totals['moves']} moves, {totals['cube']} cube actions: "
        f"{totals['irregularities']} irregularities, {totals['notes']} notes"
        + (f", {totals['unreadable']} unreadable" if totals["unreadable"] else "")
        + f" ({elapsed:.1f} s)"
    )
    print(summary, file=sys.stderr if args.json else sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main())


# ------------------------------------------------------------------------------ peer check

TraceItem = tuple[int, str, int, str]
"""(game number, action, player, detail): a roll's detail is 'dice position-id-after'."""


class _Tracer(ReplayVisitor):
    def __init__(self) -> None:
        self.items: list[TraceItem] = []

    def move(self, game: MatGame, entry: MatEntry, before: Position, after: Position, legal: LegalPlays) -> None:
        dice = f"{entry.dice[0]}{entry.dice[1]}" if entry.dice else ""
        board = after.boards()
        self.items.append((game.number, "roll", int(entry.player), f"{dice} {board}"))

    def cube(self, game: MatGame, entry: MatEntry, state: MatchState) -> None:
        self.items.append((game.number, entry.kind.value, int(entry.player), str(entry.value or "")))


def move_trace(match: MatMatch) -> list[TraceItem]:
    """Every legal play (as the resulting position) and cube action of a match, in order: two
    transcripts record the same moves when their traces are equal, whatever their notation."""
    tracer = _Tracer()
    replay_match(match, tracer)
    return tracer.items


def find_gnubg() -> str | None:
    """Path of the GNU Backgammon binary (Debian puts it in /usr/games), or None."""
    import shutil

    return shutil.which("gnubg") or (shutil.which("gnubg", path="/usr/games") if Path("/usr/games").is_dir() else None)


def gnubg_reexport(files: Sequence[Path], out_dir: Path, gnubg: str, timeout: float = 600.0) -> dict[Path, Path]:
    """Have GNU Backgammon ``import mat`` each file and ``export match mat`` it again into
    ``out_dir``; returns {input: output} for the files it wrote. One gnubg process for all."""
    import subprocess

    out_dir.mkdir(parents=True, exist_ok=True)
    commands = []
    mapping: dict[Path, Path] = {}
    for i, path in enumerate(files):
        target = out_dir / f"{i:05d}.mat"
        if target.exists():
            target.unlink()
        mapping[path] = target
        commands.append(f'import mat "{path.resolve()}"')
        commands.append(f'export match mat "{target.resolve()}"')
    subprocess.run([gnubg, "-t", "-q"], input="\n".join(commands) + "\n", text=True,
                   capture_output=True, timeout=timeout, check=False)
    return {src: dst for src, dst in mapping.items() if dst.exists()}
