"""``gammonwatch position ID --to xgid|gnubg|diagram``: convert between position formats.

The input format is detected: an XGID (``XGID=...``), a gnubg ``PositionID:MatchID`` (or
``GNUBGID PositionID:MatchID``), or a bare 14-character Position ID (player 0 on roll).
"""

from __future__ import annotations

import argparse
import sys

from rules.errors import InvalidIdError
from rules.ids import MatchInfo, from_gnubg_id, from_xgid, gnubg_id, position_id, to_xgid
from rules.position import Position


def read_any(text: str) -> tuple[Position, MatchInfo | None]:
    """Read an XGID, ``PosID:MatchID`` or a bare Position ID; raises :class:`InvalidIdError`."""
    body = text.strip()
    if body.upper().startswith("XGID=") or (len(body) > 27 and body[26:27] == ":"):
        return from_xgid(body)
    if len(body) >= 14:
        return from_gnubg_id(body)
    raise InvalidIdError(
        f"cannot tell the format of {text!r}: give an XGID (XGID=...), a gnubg 'PositionID:MatchID' "
        f"(e.g. 4HPwATDgc/ABMA:cAkAAAAAAAAA) or a 14-character Position ID"
    )


def convert(text: str, to: str) -> str:
    position, info = read_any(text)
    if to == "xgid":
        return to_xgid(position, info)
    if to == "gnubg":
        return gnubg_id(position, info) if info is not None else position_id(position)
    lines = [position.diagram()]
    lines.append(f"gnubg: {gnubg_id(position, info)}")
    lines.append(f"xgid:  {to_xgid(position, info)}")
    if info is not None:
        length = f"{info.match_length}-point match" if info.match_length else "money game"
        cube = "centred" if info.cube_owner is None else f"owned by player {info.cube_owner}"
        dice = f"{info.dice[0]}{info.dice[1]}" if info.dice else "not rolled"
        extra = ", Crawford game" if info.crawford else ""
        lines.append(
            f"{length}, score {info.score[0]}-{info.score[1]}{extra}; cube {info.cube_value} {cube}; "
            f"dice {dice}{'; double offered' if info.doubled else ''}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="gammonwatch position",
        description="Convert between gnubg Position ID / Match ID, XGID and a text diagram.",
    )
    parser.add_argument("id", help="XGID=..., PositionID:MatchID, or a bare Position ID")
    parser.add_argument("--to", choices=("xgid", "gnubg", "diagram"), default="diagram")
    args = parser.parse_args(argv)
    try:
        print(convert(args.id, args.to))
    except ValueError as exc:
        print(f"gammonwatch position: {exc}", file=sys.stderr)
        return 2
    return 0
