"""Position and match identifiers: gnubg Position ID, gnubg Match ID and XGID (both directions).

* **gnubg Position ID** (gnubg manual 11.6): 14 base64 characters of an 80-bit key. For each side,
  for points 1..24 then the bar in that side's numbering, as many 1-bits as checkers followed by a
  0-bit. gnubg writes the side *not* on roll first, then the side on roll (checked against gnubg
  1.07: the position it shows after its own opening move has the mover's checkers first while the
  opponent is on roll). The ID says nothing about who is on roll: pass ``turn``.
* **gnubg Match ID** (gnubg manual 11.7): 12 base64 characters of a 66-bit key: cube, owner, dice
  owner, Crawford, game state, turn, double, resignation, dice, match length and scores.
* **XGID** (eXtreme Gammon): ``XGID=<26 chars>:cube:cubepos:turn:dice:score_bottom:score_top:crawford
  (or jacoby+2*beaver in money play):length:maxcube``. The 26 characters are seen from the bottom
  player: character 0 is the top player's bar, 1..24 the bottom player's points 1..24 (uppercase
  ``A``.. = bottom player's checkers, lowercase = top player's), 25 the bottom player's bar.

Player 0 and 1 here are gnubg's players 0 and 1 (Match ID owner, scores). gnubg reads an XGID's
bottom player as its player 1, so XG's bottom player is our player 1 (checked against gnubg 1.07).

>>> from rules.position import Position
>>> position_id(Position.start())
'4HPwATDgc/ABMA'
>>> position_from_id('4HPwATDgc/ABMA') == Position.start()
True
>>> to_xgid(Position.start(turn=1))
'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field, replace
from typing import Final

from rules.errors import InvalidIdError
from rules.position import BAR, NUM_CHECKERS, OFF, Board, Player, Position

# ------------------------------------------------------------------------------ Position ID


def _b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii").rstrip("=")


def _b64decode(text: str, nbytes: int, what: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9+/]+", text):
        raise InvalidIdError(f"{what} {text!r} has characters outside base64 (A-Z a-z 0-9 + /)")
    padded = text + "=" * (-len(text) % 4)
    try:
        data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidIdError(f"{what} {text!r} is not valid base64: {exc}") from None
    if len(data) != nbytes:
        raise InvalidIdError(f"{what} {text!r} decodes to {len(data)} bytes, expected {nbytes}")
    return data


def position_key(first: Board, second: Board) -> bytes:
    """The 10-byte gnubg key of two boards (``first`` encoded first; see the module docstring)."""
    bits = 0
    n = 0
    for board in (first, second):
        for i in range(1, 26):  # points 1..24 then bar (index 25)
            c = board[i]
            bits |= ((1 << c) - 1) << n
            n += c + 1
    return bits.to_bytes(10, "little")


def boards_from_key(key: bytes) -> tuple[Board, Board]:
    """Inverse of :func:`position_key` (borne-off counts derived)."""
    bits = int.from_bytes(key, "little")
    boards: list[list[int]] = [[0] * 26, [0] * 26]
    side, idx, count = 0, 1, 0
    n = 0
    while side < 2 and n < 80:
        if bits >> n & 1:
            count += 1
        else:
            boards[side][idx] = count
            count = 0
            idx += 1
            if idx == 26:
                side, idx = side + 1, 1
        n += 1
    if side < 2:
        raise InvalidIdError("position key ends before both sides' 25 points are described")
    if bits >> n:
        raise InvalidIdError("position key has 1-bits after both sides are described")
    for b in boards:
        b[OFF] = NUM_CHECKERS - sum(b[1:])
    return tuple(boards[0]), tuple(boards[1])


def position_id(position: Position) -> str:
    """The gnubg Position ID of ``position`` (from the view of the player on roll)."""
    on_roll, opponent = position.mover_view()
    return _b64encode(position_key(opponent, on_roll))


def position_from_id(pos_id: str, turn: Player = 0, out_of_play: tuple[int, int] = (0, 0)) -> Position:
    """Read a gnubg Position ID; ``turn`` says which of our players is on roll (the ID does not).

    ``out_of_play`` checkers are taken from the borne-off count the ID implies (the ID cannot tell
    them apart)."""
    text = pos_id.strip()
    if len(text) != 14:
        raise InvalidIdError(
            f"gnubg Position ID {pos_id!r} has {len(text)} characters; it has 14 (e.g. 4HPwATDgc/ABMA)"
        )
    opponent, on_roll = boards_from_key(_b64decode(text, 10, "gnubg Position ID"))
    for b, who in ((on_roll, "on roll"), (opponent, "not on roll")):
        if b[OFF] < 0:
            raise InvalidIdError(
                f"gnubg Position ID {pos_id!r} gives the player {who} {NUM_CHECKERS - b[OFF]} checkers (max 15)"
            )
    b_on, b_opp = on_roll, opponent
    if any(out_of_play):
        mover_out, opp_out = out_of_play[turn], out_of_play[1 - turn]
        b_on = (b_on[0] - mover_out,) + b_on[1:]
        b_opp = (b_opp[0] - opp_out,) + b_opp[1:]
    boards = (b_on, b_opp) if turn == 0 else (b_opp, b_on)
    try:
        return Position(boards[0], boards[1], turn, out_of_play)
    except ValueError as exc:
        raise InvalidIdError(f"gnubg Position ID {pos_id!r} is not a possible position: {exc}") from None


# -------------------------------------------------------------------------------- Match ID

GAME_STATES: Final = ("none", "playing", "over", "resigned", "dropped")
"""gnubg game states by code 0..4."""


@dataclass(frozen=True)
class MatchInfo:
    """The fields of a gnubg Match ID (and of an XGID's tail), player 0 = gnubg's player 0.

    ``cube_owner`` is None for a centred cube. ``dice`` is None when not rolled yet. ``match_length``
    0 means money play. ``resigned`` is 0 (none), 1 (single), 2 (gammon) or 3 (backgammon).
    ``jacoby``/``beaver`` are XGID money-play flags that the Match ID cannot hold.
    """

    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    cube_value: int = 1
    cube_owner: Player | None = None
    player_on_roll: Player = 0
    crawford: bool = False
    game_state: int = 1
    turn: Player = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] | None = None
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = field(default=1024, compare=False)

    def __post_init__(self) -> None:
        v = self.cube_value
        if v < 1 or v & (v - 1) or v > 1 << 15:
            raise ValueError(f"cube value must be a power of two 1..32768, got {v}")
        if self.cube_owner not in (None, 0, 1):
            raise ValueError(f"cube owner must be None (centred), 0 or 1, got {self.cube_owner!r}")
        if self.dice is not None and not all(1 <= d <= 6 for d in self.dice):
            raise ValueError(f"dice must be 1..6, got {self.dice!r}")
        if not 0 <= self.match_length < 1 << 15 or not all(0 <= s < 1 << 15 for s in self.score):
            raise ValueError(f"match length and scores must be 0..32767, got {self.match_length}, {self.score}")
        if not 0 <= self.game_state <= 7 or not 0 <= self.resigned <= 3:
            raise ValueError(f"game state 0..7 and resigned 0..3, got {self.game_state}, {self.resigned}")


def match_id(info: MatchInfo) -> str:
    """The 12-character gnubg Match ID."""
    fields: list[tuple[int, int]] = [
        (info.cube_value.bit_length() - 1, 4),
        (3 if info.cube_owner is None else info.cube_owner, 2),
        (info.player_on_roll, 1),
        (int(info.crawford), 1),
        (info.game_state, 3),
        (info.turn, 1),
        (int(info.doubled), 1),
        (info.resigned, 2),
        (info.dice[0] if info.dice else 0, 3),
        (info.dice[1] if info.dice else 0, 3),
        (info.match_length, 15),
        (info.score[0], 15),
        (info.score[1], 15),
        (int(info.jacoby), 1),
    ]
    bits = 0
    n = 0
    for value, width in fields:
        bits |= (value & ((1 << width) - 1)) << n
        n += width
    return _b64encode(bits.to_bytes(9, "little"))


def match_from_id(mid: str) -> MatchInfo:
    """Read a gnubg Match ID."""
    text = mid.strip()
    if len(text) != 12:
        raise InvalidIdError(f"gnubg Match ID {mid!r} has {len(text)} characters; it has 12 (e.g. cAgAAAAAAAAA)")
    bits = int.from_bytes(_b64decode(text, 9, "gnubg Match ID"), "little")
    values = []
    n = 0
    for width in (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1):
        values.append(bits >> n & ((1 << width) - 1))
        n += width
    cube_log, owner, on_roll, crawford, state, turn, doubled, resigned, d1, d2, length, s0, s1, jacoby = values
    if owner == 2:
        raise InvalidIdError(f"gnubg Match ID {mid!r} has cube owner code 2 (valid: 0, 1, 3 = centred)")
    if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
        raise InvalidIdError(f"gnubg Match ID {mid!r} has impossible dice {d1}-{d2}")
    if length and (s0 >= length or s1 >= length) and state != 2:
        raise InvalidIdError(f"gnubg Match ID {mid!r}: score {s0}-{s1} is not below the match length {length}")
    try:
        return MatchInfo(
            match_length=length, score=(s0, s1), cube_value=1 << cube_log,
            cube_owner=None if owner == 3 else owner, player_on_roll=on_roll, crawford=bool(crawford),
            game_state=state, turn=turn, doubled=bool(doubled), resigned=resigned,
            dice=(d1, d2) if d1 else None, jacoby=bool(jacoby),
        )
    except ValueError as exc:
        raise InvalidIdError(f"gnubg Match ID {mid!r}: {exc}") from None


def gnubg_id(position: Position, info: MatchInfo | None = None) -> str:
    """``"PositionID:MatchID"`` (gnubg's combined form)."""
    info = info if info is not None else MatchInfo(player_on_roll=position.turn, turn=position.turn)
    return f"{position_id(position)}:{match_id(info)}"


def from_gnubg_id(text: str) -> tuple[Position, MatchInfo | None]:
    """Read ``"PosID:MatchID"`` (``GNUBGID`` prefix allowed) or a bare Position ID (then player 0 is
    on roll and the match info is None). The Match ID's player on roll sets the turn."""
    body = text.strip()
    body = re.sub(r"^(gnubgid|gnubg id)\s*[:=]?\s*", "", body, flags=re.IGNORECASE)
    if ":" in body:
        pid, mid = (s.strip() for s in body.split(":", 1))
        info = match_from_id(mid)
        return position_from_id(pid, info.player_on_roll), info
    return position_from_id(body, 0), None


# ------------------------------------------------------------------------------------ XGID

_XGID_RE: Final = re.compile(r"^(?:XGID=)?([-a-oA-O]{26}):(.*)$")


def to_xgid(position: Position, info: MatchInfo | None = None) -> str:
    """The XGID of ``position`` with the match fields of ``info``.

    XG's bottom player is our player 1 and the top player our player 0, which is how gnubg maps an
    XGID onto its players 0 and 1 (``set xgid``), so the two conversions agree."""
    info = info if info is not None else MatchInfo(player_on_roll=position.turn, turn=position.turn)
    top, bottom = position.boards()  # player 0 on top, player 1 at the bottom
    chars = []
    for i in range(26):
        if i == 0:
            n, up = top[BAR], False
        elif i == 25:
            n, up = bottom[BAR], True
        elif bottom[i]:
            n, up = bottom[i], True
        else:
            n, up = top[25 - i], False
        chars.append("-" if n == 0 else chr((ord("A") if up else ord("a")) + n - 1))
    cube_pos = 0 if info.cube_owner is None else (1 if info.cube_owner == 1 else -1)
    # the turn field names the player on roll (the doubler when a double is pending)
    turn = 1 if info.player_on_roll == 1 else -1
    if info.doubled:
        dice = "D"
    elif info.dice is not None:
        dice = f"{info.dice[0]}{info.dice[1]}"
    else:
        dice = "00"
    if info.match_length:
        flag = int(info.crawford)
    else:
        flag = int(info.jacoby) + 2 * int(info.beaver)
    max_cube = max(info.max_cube.bit_length() - 1, 0)
    return (
        f"XGID={''.join(chars)}:{info.cube_value.bit_length() - 1}:{cube_pos}:{turn}:{dice}:"
        f"{info.score[1]}:{info.score[0]}:{flag}:{info.match_length}:{max_cube}"
    )


def from_xgid(text: str) -> tuple[Position, MatchInfo]:
    """Read an XGID (bottom player = our player 1, see :func:`to_xgid`). The position's turn is the
    player on roll (the doubler when the dice field is ``D``)."""
    m = _XGID_RE.match(text.strip())
    if not m:
        raise InvalidIdError(
            f"XGID {text!r} is not readable: expected 'XGID=' then 26 characters of '-', a-o, A-O, then "
            f"':'-separated fields, e.g. XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
        )
    board_text, rest = m.group(1), m.group(2)
    fields = rest.split(":")
    if len(fields) < 8:
        raise InvalidIdError(f"XGID {text!r} has {len(fields)} fields after the position; expected 8 or 9")
    top = [0] * 26
    bottom = [0] * 26
    for i, ch in enumerate(board_text):
        if ch == "-":
            continue
        n = ord(ch.lower()) - ord("a") + 1
        if i == 0:
            if ch.isupper():
                raise InvalidIdError(f"XGID {text!r}: character 0 is the top player's bar, so lowercase")
            top[BAR] = n
        elif i == 25:
            if ch.islower():
                raise InvalidIdError(f"XGID {text!r}: character 25 is the bottom player's bar, so uppercase")
            bottom[BAR] = n
        elif ch.isupper():
            bottom[i] = n
        else:
            top[25 - i] = n
    try:
        cube_log, cube_pos, turn_code = int(fields[0]), int(fields[1]), int(fields[2])
        dice_text = fields[3]
        s_bottom, s_top, flag, length = int(fields[4]), int(fields[5]), int(fields[6]), int(fields[7])
        max_log = int(fields[8]) if len(fields) > 8 and fields[8] else 10
    except ValueError:
        raise InvalidIdError(f"XGID {text!r}: cube, turn, score, flag and length fields must be integers") from None
    if cube_pos not in (-1, 0, 1) or turn_code not in (-1, 1):
        raise InvalidIdError(f"XGID {text!r}: cube position must be -1/0/1 and turn 1/-1")
    if not 0 <= cube_log <= 15:
        raise InvalidIdError(f"XGID {text!r}: cube field {cube_log} must be the cube's log2, 0..15")
    on_roll = 1 if turn_code == 1 else 0
    dice: tuple[int, int] | None = None
    doubled = False
    if dice_text in ("D", "B", "R"):
        doubled = True
    elif re.fullmatch(r"[0-6]{2}", dice_text):
        if dice_text != "00":
            if "0" in dice_text:
                raise InvalidIdError(f"XGID {text!r}: dice {dice_text!r} mix a rolled and an unrolled die")
            dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise InvalidIdError(f"XGID {text!r}: dice field {dice_text!r} must be 00, two digits 1-6, D, B or R")
    for b in (top, bottom):
        b[OFF] = NUM_CHECKERS - sum(b)
    try:
        position = Position(top, bottom, on_roll)
        info = MatchInfo(
            match_length=length, score=(s_top, s_bottom), cube_value=1 << cube_log,
            cube_owner=None if cube_pos == 0 else (1 if cube_pos == 1 else 0),
            player_on_roll=on_roll, crawford=bool(flag) if length else False,
            game_state=1, turn=1 - on_roll if doubled else on_roll, doubled=doubled, dice=dice,
            jacoby=bool(flag & 1) if not length else False, beaver=bool(flag & 2) if not length else False,
            max_cube=1 << max_log,
        )
    except ValueError as exc:
        raise InvalidIdError(f"XGID {text!r}: {exc}") from None
    return position, info


def with_info(info: MatchInfo, **changes: object) -> MatchInfo:
    """A copy of ``info`` with fields changed (``dataclasses.replace`` re-export)."""
    return replace(info, **changes)  # type: ignore[arg-type]
