"""Request bodies of the REST API (Pydantic, with size limits on every field).

Table states themselves are validated by the referee's own parser
(:meth:`rules.referee.tablestate.TableState.from_json`), which names the field and the reason; the
server only bounds their size before parsing (:data:`MAX_STATE_BYTES`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_STATE_BYTES = 64 * 1024
"""Largest table state accepted (a full state with per-point distributions is about 10 KB)."""

Name = Annotated[str, StringConstraints(min_length=1, max_length=64, strip_whitespace=True)]
Note = Annotated[str, StringConstraints(max_length=500)]
TableId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,32}$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TableCreate(_Strict):
    """A feature table: one camera (or one recorded stream)."""

    id: TableId | None = Field(default=None, description="short id used in URLs; generated when absent")
    name: Name = Field(description="shown on the pages, e.g. 'Feature table 1'")
    source: Annotated[str, StringConstraints(max_length=256)] | None = Field(
        default=None, description="where the table states come from: camera:N, video:PATH, rtsp://..., replay:FILE"
    )


class ClockMode(StrEnum):
    NONE = "none"
    TIMED = "timed"


class ClockSettings(_Strict):
    """Game clock settings (RG19 3.4; WB23 2.4): reserve per player and delay per move."""

    mode: ClockMode = ClockMode.NONE
    reserve_s: int = Field(default=0, ge=0, le=6 * 3600, description="each player's reserve at the start, seconds")
    delay_s: int = Field(default=0, ge=0, le=120, description="delay (Bronstein/simple) per move, seconds")


class MatchCreate(_Strict):
    """Start a new match on a table. Field names follow the referee's match set-up
    (``rules.referee.setup.MatchSetup``), plus the rule set and the clock."""

    players: tuple[Name, Name] = Field(description="first and second player (the .mat order)")
    length: int = Field(default=7, ge=0, le=255, description="match length in points; 0 = money play")
    rules: Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{1,32}$")] = Field(
        default="usbgf-2019", description="rule set: usbgf-2019, wbgf-2023, usbgf-2009, money (and variants such as welsh)"
    )
    rules_options: dict[Annotated[str, StringConstraints(max_length=32)], bool | int | str] = Field(
        default_factory=dict,
        max_length=16,
        description="rule-set options, e.g. moves_policy, dice_on_checkers, jacoby, beavers, automatic_doubles",
    )
    dice_mode: Literal["two", "four"] = Field(default="two", description="two shared dice, or two per player")
    first_colour: Literal["light", "dark"] = "light"
    near: Literal["light", "dark"] = Field(default="light", description="colour of the player in the near seat")
    home: Literal["left", "right"] = Field(default="right", description="half (seen from the near seat) with both home boards")
    end_signal: Literal["clock", "bar_tap", "lift_dice"] | None = Field(
        default=None, description="how turns end; default: the rule set's for the dice mode and clock"
    )
    clock: ClockSettings = Field(default_factory=ClockSettings)
    score: tuple[Annotated[int, Field(ge=0, le=255)], Annotated[int, Field(ge=0, le=255)]] = (0, 0)
    event: Annotated[str, StringConstraints(max_length=128)] = Field(default="", description="event name for the transcript")


class Decision(StrEnum):
    """The monitor's answer to an alert."""

    ACKNOWLEDGE = "acknowledge"
    LET_STAND = "let_stand"
    REQUIRE_CORRECTION = "require_correction"


class AlertDecision(_Strict):
    decision: Decision
    note: Note = ""


class SetPosition(_Strict):
    """Set the position by gnubg Position ID (with optional Match ID) or by XGID; exactly one form."""

    position_id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+/]{14}$")] | None = None
    match_id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+/]{12}$")] | None = None
    xgid: Annotated[str, StringConstraints(max_length=80, pattern=r"^(XGID=)?[-a-oA-O]{26}(:[-0-9A-Za-z]{1,4}){4,12}$")] | None = None
    note: Note = ""


class CorrectCube(_Strict):
    value: Literal[1, 2, 4, 8, 16, 32, 64]
    owner: Literal["centre", "first", "second"] = Field(description="centre, or the first/second player")
    note: Note = ""


class CorrectScore(_Strict):
    """The score before the current game. The referee recomputes the Crawford flags from it (RG19 4.4.7:
    the Crawford game is the first game after a player becomes exactly 1 point from winning);
    ``crawford`` overrides whether the current game is the Crawford game."""

    score: tuple[Annotated[int, Field(ge=0, le=255)], Annotated[int, Field(ge=0, le=255)]]
    crawford: bool | None = Field(None, description="the current game is (true) or is not (false) the Crawford game; "
                                  "omitted: derived from the score")
    note: Note = ""


class Announce(_Strict):
    """A spoken act the camera cannot see, entered by the monitor (DIGEST A.0 principle 4): a
    resignation (RG19 4.5.1), a claim (RG19 4.5.2: judged by rolling 1-2 against 6-6; ``accepted``
    when the opponent accepts it) or a forfeit of the match."""

    act: Literal["resign", "claim", "forfeit"]
    player: Literal["light", "dark"] = Field(description="colour of the player who resigns, claims or forfeits")
    kind: Literal["single", "gammon", "backgammon"] = "single"
    accepted: bool | None = Field(default=None, description="for a claim: the opponent accepted it")
    frame: int | None = Field(default=None, ge=0, le=2**53, description="table-state frame it happened at")
    note: Note = ""


class Undo(_Strict):
    note: Note = ""
