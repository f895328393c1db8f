"""The Jellyfish ``.mat`` match transcript format: reader and writer.

The reader accepts the dialect written by GNU Backgammon, Backgammon Galaxy and Backgammon Studio
(see ``docs/transcripts.md``). It only reads: it checks syntax, not rules. Replaying the moves
against the rules is :mod:`rules.replay`'s job.

A file is::

    ; [Site "BackgammonGalaxy"]          optional header comments, ; [Key "Value"]
    7 point match                         the match length (0 = money / unlimited)

     Game 1
     alice : 0                    bob : 0  the score before the game
      1) 31: 8/5 6/5              52: 13/8 13/11
      2)  Doubles => 2             Takes
      ...
          Wins 1 point (and the match)

Each numbered row holds up to two entries: the first player's (left column) and the second
player's (right column). A row with one entry belongs to the side its column says.

Entries: ``DD: MOVES`` (a roll and its play; an empty play, ``Cannot Move`` or a dance),
``DD: ????`` (rolled, then resigned without moving), ``Doubles => N``, ``Beavers => N``,
``Takes``, ``Drops``, ``Wins N point(s) [and the match]``, ``Losses N point(s)``.

>>> m = loads("3 point match\\n\\n Game 1\\n a : 0    b : 0\\n  1) 31: 8/5 6/5    52: 13/8 13/11\\n")
>>> m.length, m.players, len(m.games[0].actions)
(3, ('a', 'b'), 2)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Final

from rules.match import Player
from rules.play import Play

__all__ = [
    "EntryKind",
    "MatEntry",
    "MatGame",
    "MatMatch",
    "MatSyntaxError",
    "load",
    "loads",
    "dump",
    "dumps",
    "read_text",
]


class MatSyntaxError(ValueError):
    """A ``.mat`` file that cannot be read: names the file, the line and what was expected."""

    def __init__(self, source: str, line: int, found: str, expected: str) -> None:
        shown = found.strip()
        if len(shown) > 70:
            shown = shown[:67] + "..."
        super().__init__(f"{source}:{line}: expected {expected}, found {shown!r}")
        self.source = source
        self.line = line
        self.found = found
        self.expected = expected


class EntryKind(Enum):
    ROLL = "roll"  # dice and a play (possibly empty)
    DOUBLE = "double"  # Doubles => N
    BEAVER = "beaver"  # Beavers => N (money play)
    TAKE = "take"
    DROP = "drop"
    WIN = "win"  # Wins N point(s) [and the match]
    LOSS = "loss"  # Losses N point(s): the loser's side of a game's end (or a resignation)


@dataclass(frozen=True)
class MatEntry:
    """One entry of a game record, in file order."""

    kind: EntryKind
    player: Player
    row: int | None
    """The row number ``N)`` of the file, or None for a line without one (a "Wins" line)."""
    line: int
    """1-based line number in the file."""
    dice: tuple[int, int] | None = None
    play: Play | None = None
    """The play of a ROLL (empty for Cannot Move); None when the row shows ``????``."""
    text: str = ""
    """The entry as written (for messages)."""
    value: int | None = None
    """Cube value for DOUBLE/BEAVER; points for WIN/LOSS."""
    and_match: bool = False
    """A WIN line that says 'and the match'."""

    @property
    def resigned_after_roll(self) -> bool:
        """``DD: ????``: the player rolled and then resigned (Backgammon Studio)."""
        return self.kind is EntryKind.ROLL and self.play is None


@dataclass(frozen=True)
class MatGame:
    number: int
    """Game number as written in the file."""
    line: int
    score: tuple[int, int]
    """The score line before the game, as written."""
    entries: tuple[MatEntry, ...]
    crawford_marked: bool = False
    """The game header says 'Crawford' (some writers mark the Crawford game so)."""

    @property
    def actions(self) -> tuple[MatEntry, ...]:
        return self.entries


@dataclass(frozen=True)
class MatMatch:
    length: int
    """Match length; 0 for money or unlimited sessions."""
    players: tuple[str, str]
    games: tuple[MatGame, ...]
    headers: tuple[tuple[str, str], ...] = ()
    """The ``; [Key "Value"]`` comment lines, in order."""
    comments: tuple[str, ...] = ()
    """Other comment lines (without the leading ';')."""
    source: str = "<string>"
    length_line: int = 0

    def header(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.headers:
            if k.lower() == key.lower():
                return v
        return default


# --------------------------------------------------------------------------------------- reading

_HEADER_RE: Final = re.compile(r'^;\s*\[\s*([^"\]]+?)\s+"(.*)"\s*\]\s*$')
_LENGTH_RE: Final = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_RE: Final = re.compile(r"^\s*Game\s+(\d+)\s*(\(?\s*Crawford(?:\s+game)?\s*\)?)?\s*$", re.IGNORECASE)
_SCORE_RE: Final = re.compile(r"^\s*(?P<n1>.*?)\s*:\s*(?P<s1>\d+)(?P<gap>\s+)(?P<n2>.*?)\s*:\s*(?P<s2>\d+)\s*$")
_ROW_RE: Final = re.compile(r"^\s*(\d+)\)(.*)$")
_ENTRY_START_RE: Final = re.compile(
    r"(?<!\S)(?:[1-6][1-6]:|Doubles\b|Beavers\b|Takes\b|Drops\b|Wins\b|Losses\b)", re.IGNORECASE
)
_ROLL_RE: Final = re.compile(r"^([1-6])([1-6]):\s*(.*?)\s*$")
_CUBE_RE: Final = re.compile(r"^(Doubles|Beavers)\s*=>\s*(\d+)\s*$", re.IGNORECASE)
_WORD_RE: Final = re.compile(r"^(Takes|Drops)\s*$", re.IGNORECASE)
_WINS_RE: Final = re.compile(r"^Wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?\s*$", re.IGNORECASE)
_LOSSES_RE: Final = re.compile(r"^Losses\s+(\d+)\s+points?\s*$", re.IGNORECASE)

_EXPECT_ENTRY: Final = (
    "a row entry: 'DD: MOVES' (e.g. '31: 8/5 6/5', '52: Cannot Move', '32: ????'), "
    "'Doubles => N', 'Takes', 'Drops', 'Wins N point' or 'Losses N point'"
)


def read_text(path: str | Path) -> str:
    """The text of a transcript: UTF-8 (with or without BOM), else Windows-1252."""
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def load(path: str | Path) -> MatMatch:
    """Read a ``.mat`` file. Raises :class:`MatSyntaxError` (a ValueError) or OSError."""
    return loads(read_text(path), source=str(path))


@dataclass
class _GameBuilder:
    number: int
    line: int
    crawford: bool = False
    score: tuple[int, int] | None = None
    split: int = 20
    entries: list[MatEntry] = field(default_factory=list)


def loads(text: str, source: str = "<string>") -> MatMatch:
    """Read a ``.mat`` transcript from a string; ``source`` names it in error messages."""
    headers: list[tuple[str, str]] = []
    comments: list[str] = []
    length: int | None = None
    length_line = 0
    players: tuple[str, str] | None = None
    games: list[MatGame] = []
    current: _GameBuilder | None = None

    def finish() -> None:
        nonlocal current
        if current is not None:
            assert current.score is not None
            games.append(MatGame(current.number, current.line, current.score, _fix_loss_sides(current.entries),
                                 crawford_marked=current.crawford))
            current = None

    lines = text.splitlines()
    for index, raw in enumerate(lines):
        lineno = index + 1
        line = raw.replace("\t", "    ").rstrip()
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            body = line.lstrip()
            h = _HEADER_RE.match(body)
            if h:
                headers.append((h.group(1), h.group(2)))
            else:
                comments.append(body[1:].strip())
            continue
        if length is None:
            m = _LENGTH_RE.match(line)
            if not m:
                raise MatSyntaxError(source, lineno, line, "the match length line 'N point match'")
            length = int(m.group(1))
            length_line = lineno
            continue
        g = _GAME_RE.match(line)
        if g:
            finish()
            current = _GameBuilder(number=int(g.group(1)), line=lineno, crawford=bool(g.group(2)))
            continue
        if current is None:
            raise MatSyntaxError(source, lineno, line, "'Game 1' after the match length line")
        if current.score is None:
            s = _SCORE_RE.match(line)
            if not s:
                raise MatSyntaxError(
                    source, lineno, line, f"the score line of game {current.number}, 'NAME : N    NAME : N'"
                )
            names = (s.group("n1").strip(), s.group("n2").strip())
            if players is None:
                players = names
            current.score = (int(s.group("s1")), int(s.group("s2")))
            # the second column starts where the second name (or its ' : N' if empty) starts
            second = s.start("n2") if s.group("n2") else s.end("gap")
            current.split = max(12, (second + 5) // 2)
            continue
        r = _ROW_RE.match(line)
        if r:
            row: int | None = int(r.group(1))
            rest_start = r.start(2)
        else:
            row = None
            rest_start = 0
        rest = line[rest_start:]
        starts = [m.start() for m in _ENTRY_START_RE.finditer(rest)]
        if not starts:
            if rest.strip() and row is None:
                raise MatSyntaxError(source, lineno, line, "a numbered row 'N) ...', a 'Wins N point' line or 'Game N'")
            if rest.strip():
                raise MatSyntaxError(source, lineno, rest, _EXPECT_ENTRY)
            continue  # an empty row such as '25)'
        if rest[: starts[0]].strip():
            raise MatSyntaxError(source, lineno, rest[: starts[0]], _EXPECT_ENTRY)
        if len(starts) > 2:
            raise MatSyntaxError(source, lineno, line, "at most two entries in a row (first player, second player)")
        pieces = [rest[a:b] for a, b in zip(starts, [*starts[1:], len(rest)], strict=True)]
        if len(pieces) == 2:
            sides = [Player.FIRST, Player.SECOND]
        else:
            column = rest_start + starts[0]
            sides = [Player.SECOND if column >= current.split else Player.FIRST]
        for piece, side in zip(pieces, sides, strict=True):
            current.entries.append(_parse_entry(piece.strip(), side, row, lineno, source))
    finish()
    if length is None:
        raise MatSyntaxError(source, len(lines) or 1, "", "the match length line 'N point match'")
    if not games:
        raise MatSyntaxError(source, len(lines) or 1, "", "at least one 'Game N' section")
    names = players or ("", "")
    for key, i in (("Player 1", 0), ("Player 2", 1)):
        value = next((v for k, v in headers if k.lower() == key.lower()), None)
        if value is not None and not names[i]:
            names = (value, names[1]) if i == 0 else (names[0], value)
    return MatMatch(
        length=length,
        players=names,
        games=tuple(games),
        headers=tuple(headers),
        comments=tuple(comments),
        source=source,
        length_line=length_line,
    )


def _fix_loss_sides(entries: list[MatEntry]) -> tuple[MatEntry, ...]:
    """A 'Losses N point' line without a row number is written at the left margin whoever lost
    (Backgammon Galaxy); its side is the opposite of the game's 'Wins' line."""
    wins = [e for e in entries if e.kind is EntryKind.WIN]
    if not wins:
        return tuple(entries)
    loser = wins[-1].player.other
    return tuple(
        replace(e, player=loser) if e.kind is EntryKind.LOSS and e.row is None else e for e in entries
    )


def _parse_entry(text: str, player: Player, row: int | None, lineno: int, source: str) -> MatEntry:
    m = _ROLL_RE.match(text)
    if m:
        dice = (int(m.group(1)), int(m.group(2)))
        body = m.group(3)
        if body.strip() == "????":
            return MatEntry(EntryKind.ROLL, player, row, lineno, dice=dice, play=None, text=text)
        try:
            play = Play.parse(body)
        except ValueError as exc:
            raise MatSyntaxError(
                source, lineno, text, "a play such as '24/18 13/11', 'bar/22*', '6/off' or '8/5(2)' after the dice"
            ) from exc
        return MatEntry(EntryKind.ROLL, player, row, lineno, dice=dice, play=play, text=text)
    m = _CUBE_RE.match(text)
    if m:
        kind = EntryKind.DOUBLE if m.group(1).lower() == "doubles" else EntryKind.BEAVER
        return MatEntry(kind, player, row, lineno, text=text, value=int(m.group(2)))
    m = _WORD_RE.match(text)
    if m:
        kind = EntryKind.TAKE if m.group(1).lower() == "takes" else EntryKind.DROP
        return MatEntry(kind, player, row, lineno, text=text)
    m = _WINS_RE.match(text)
    if m:
        return MatEntry(
            EntryKind.WIN, player, row, lineno, text=text, value=int(m.group(1)), and_match=bool(m.group(2))
        )
    m = _LOSSES_RE.match(text)
    if m:
        return MatEntry(EntryKind.LOSS, player, row, lineno, text=text, value=int(m.group(1)))
    raise MatSyntaxError(source, lineno, text, _EXPECT_ENTRY)


# --------------------------------------------------------------------------------------- writing

_LEFT_WIDTH: Final = 28  # as GNU Backgammon writes: row number in 4, left entry padded to 28


def _steps_text(play: Play) -> str:
    """A play as GNU Backgammon writes it in .mat: one FROM/TO per checker step, 25 = bar, 0 = off."""
    parts = []
    for step in play.steps:
        parts.append(f"{step.src}/{step.dst}{'*' if step.hit else ''}")
    return " ".join(parts)


def format_entry(entry: MatEntry) -> str:
    """One entry in the dialect GNU Backgammon writes and imports."""
    if entry.kind is EntryKind.ROLL:
        assert entry.dice is not None
        dice = f"{max(entry.dice)}{min(entry.dice)}:"  # the higher die first, as GNU Backgammon and XG write
        if entry.play is None:
            return f"{dice} ????"
        return f"{dice} {_steps_text(entry.play)}".rstrip()
    if entry.kind is EntryKind.DOUBLE:
        return f" Doubles => {entry.value}"
    if entry.kind is EntryKind.BEAVER:
        return f" Beavers => {entry.value}"
    if entry.kind is EntryKind.TAKE:
        return " Takes"
    if entry.kind is EntryKind.DROP:
        return " Drops"
    if entry.kind is EntryKind.WIN:
        value = entry.value or 0
        return f" Wins {value} point{'s' if value != 1 else ''}{' and the match' if entry.and_match else ''}"
    value = entry.value or 0
    return f" Losses {value} point{'s' if value != 1 else ''}"


def _pair_rows(entries: Iterable[MatEntry]) -> list[tuple[MatEntry | None, MatEntry | None]]:
    """Lay entries out in rows: first player left, second right, in order, as JF does."""
    rows: list[tuple[MatEntry | None, MatEntry | None]] = []
    left: MatEntry | None = None
    pending_left = False
    for e in entries:
        if e.player is Player.FIRST:
            if pending_left:
                rows.append((left, None))
            left, pending_left = e, True
        else:
            rows.append((left if pending_left else None, e))
            left, pending_left = None, False
    if pending_left:
        rows.append((left, None))
    return rows


def dumps(match: MatMatch, *, placeholder_names: bool = True) -> str:
    """The match as ``.mat`` text that GNU Backgammon's ``import mat`` reads.

    Header lines are kept. An empty player name cannot be written in a score line without making
    it ambiguous (GNU Backgammon 1.07 misreads it), so with ``placeholder_names`` it is written as
    ``Player1``/``Player2`` in the score lines while the ``; [Player N ""]`` header keeps the
    original (decision record 0151).
    """
    out: list[str] = []
    for key, value in match.headers:
        out.append(f'; [{key} "{value}"]')
    for comment in match.comments:
        out.append(f"; {comment}")
    if out:
        out.append("")
    out.append(f" {match.length} point match")
    out.append("")
    names = list(match.players)
    if placeholder_names:
        for i in (0, 1):
            if not names[i].strip():
                names[i] = f"Player{i + 1}"
    for game in match.games:
        out.append(f" Game {game.number}")
        left_head = f" {names[0]} : {game.score[0]}"
        out.append(f"{left_head:<33}{names[1]} : {game.score[1]}")
        ends = [e for e in game.entries if e.kind is EntryKind.WIN]
        # a 'Losses' entry with a row is the loser's column of a concession (GNU Backgammon reads it
        # so); a 'Losses' line of its own adds nothing to the 'Wins' line and is left out
        body = [e for e in game.entries if e.kind is not EntryKind.WIN
                and not (e.kind is EntryKind.LOSS and e.row is None)]
        if ends and body and body[-1].kind is EntryKind.DROP and body[-1].player is Player.FIRST:
            # GNU Backgammon writes (and needs) the win on the row of the drop: "Drops   Wins 1 point"
            body.append(ends.pop())
        for number, (left, right) in enumerate(_pair_rows(body), start=1):
            ltext = format_entry(left) if left is not None else ""
            rtext = format_entry(right) if right is not None else ""
            # at least one space between the columns: GNU Backgammon reads the entries by words
            line = f"{number:3d}) {ltext:<{_LEFT_WIDTH - 1}} {rtext}" if rtext else f"{number:3d}) {ltext}"
            out.append(line.rstrip())
        for e in ends:
            text = format_entry(e)
            out.append(f"    {text}" if e.player is Player.FIRST else f"{'':<32}{text}")
        out.append("")
    return "\n".join(out) + "\n"


def dump(match: MatMatch, path: str | Path, *, placeholder_names: bool = True) -> None:
    Path(path).write_text(dumps(match, placeholder_names=placeholder_names), encoding="utf-8")
