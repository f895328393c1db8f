"""Alerts: typed objects with code, severity, player, citations, a message to read aloud, evidence.

The catalogue below is the single source for ``docs/alerts.md`` (``python -m rules.referee.alerts``
prints it) and for the severity and citations an alert carries under the active rule set.
Severities follow DIGEST A.0: VIOL (mandatory rule broken), IRREG (opponent may condone / choose a
remedy), WARN (best practice, or a possible violation seen with low confidence: a human confirms),
EVENT (state change), INFO (advisory).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Severity(StrEnum):
    VIOL = "VIOL"
    IRREG = "IRREG"
    WARN = "WARN"
    EVENT = "EVENT"
    INFO = "INFO"

    @property
    def is_alert(self) -> bool:
        """True for what a monitor must look at (VIOL, IRREG, WARN); EVENT and INFO are log entries."""
        return self in (Severity.VIOL, Severity.IRREG, Severity.WARN)


FAMILIES = ("RG19", "WB23", "US09", "STD")
"""Rule documents (DIGEST 'Sources'): the profiles usbgf-2019, wbgf-2023, usbgf-2009 and money."""


@dataclass(frozen=True)
class AlertSpec:
    code: str
    severity: Severity
    title: str
    cites: dict[str, tuple[str, ...]]
    """Rule sections per family; a family missing here has no such rule (the alert is not raised)."""
    severity_by_family: dict[str, Severity] = field(default_factory=dict)
    digest: str = ""
    """DIGEST section(s) describing the rule."""

    def severity_for(self, family: str) -> Severity:
        return self.severity_by_family.get(family, self.severity)

    def applies(self, family: str) -> bool:
        return family in self.cites or "*" in self.cites

    def cites_for(self, family: str) -> tuple[str, ...]:
        """The sections to cite under ``family``. A shared ("*") list keeps the family's own sections,
        the standard rules of the game (STD) and anything that is not a rule document."""
        if family in self.cites:
            return self.cites[family]
        shared = self.cites.get("*", ())
        kept = tuple(c for c in shared if c.split()[0] in (family, "STD") or c.split()[0] not in FAMILIES)
        return kept


V, IR, W, E = Severity.VIOL, Severity.IRREG, Severity.WARN, Severity.EVENT



def _all(*cites: str) -> dict[str, tuple[str, ...]]:
    return {"*": cites}


_SPECS: list[AlertSpec] = [
    # ---------------------------------------------------------------- match flow (EVENT)
    AlertSpec("MATCH_START", E, "Match set up", _all("RG19 4.6.1", "WB23 4.7"), digest="A8.10"),
    AlertSpec("GAME_START", E, "A new game starts; score announced", _all("RG19 4.6.1", "WB23 4.7", "US09 5.1"), digest="A8.10"),
    AlertSpec("CRAWFORD_GAME", E, "This is the Crawford game: no doubling", {"RG19": ("RG19 4.4.7", "RG19 4.6.1"), "WB23": ("WB23 4.4(iv)", "WB23 4.7"), "US09": ("US09 5.5",)}, digest="A7.10"),
    AlertSpec("OPENING_TIE_REROLL", E, "Opening roll tied: both roll again", _all("STD Movement", "RG19 4.1.4.2.2"), digest="A2.7"),
    AlertSpec("OPENING_ROLL", E, "Opening roll decided who starts", _all("STD Movement"), digest="A2.7"),
    AlertSpec("ROLL_ATTEMPT_STARTED", E, "Roll attempt started: the cube window is closed", {"RG19": ("RG19 4.4.2",), "WB23": ("WB23 4.4(ii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A2.9"),
    AlertSpec("ROLL_VALID", E, "Valid roll", {"RG19": ("RG19 4.1.4.3", "RG19 4.1.2"), "WB23": ("WB23 4.1(iv)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.3, A1.15"),
    AlertSpec("REROLL_REQUIRED", E, "Invalid roll: both dice are rerolled", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.14"),
    AlertSpec("MOVE", E, "Move accepted at the end of the turn", _all("STD Movement", "RG19 4.2.2.1"), digest="A5.2"),
    AlertSpec("NO_MOVE", E, "No legal play: the turn is lost", _all("STD Movement-4"), digest="A5.1(e)"),
    AlertSpec("END_OF_TURN", E, "End of turn signalled", {"RG19": ("RG19 4.1.7",), "WB23": ("WB23 4.1(vi)",), "US09": ("US09 4.5",), "STD": ("STD Irregularities-2",)}, digest="A3.2"),
    AlertSpec("DOUBLE_OFFERED", E, "Double offered", {"RG19": ("RG19 4.4.4", "RG19 4.4.4.1"), "WB23": ("WB23 4.4(ii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A7.5, A7.6"),
    AlertSpec("TAKE", E, "Double taken", {"RG19": ("RG19 4.4.5.2",), "WB23": ("WB23 4.4(iii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A7.7"),
    AlertSpec("PASS", E, "Double passed: the game ends at the value before the double", {"RG19": ("RG19 4.4.5.2", "RG19 4.6.2"), "WB23": ("WB23 4.4(iii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A7.7, A7.12"),
    AlertSpec("BEAVER", E, "Beaver: the doubled player redoubles and keeps the cube", {"RG19": ("RG19 4.4.10",), "WB23": ("WB23 4.4(viii)",), "STD": ("STD Optional-2",)}, severity_by_family={"RG19": V, "WB23": V}, digest="A7.13"),
    AlertSpec("AUTO_DOUBLE", E, "Automatic double on a tied opening roll", {"RG19": ("RG19 4.4.10", "RG19 4.4.9"), "WB23": ("WB23 4.4(viii)",), "STD": ("STD Optional-1",)}, severity_by_family={"RG19": V, "WB23": V}, digest="A7.13"),
    AlertSpec("JACOBY_APPLIED", E, "Jacoby rule: gammon counted as a single game (no double this game)", {"STD": ("STD Optional-3",)}, digest="A7.13"),
    AlertSpec("RESIGNATION", E, "Game conceded", {"RG19": ("RG19 4.5.1",), "WB23": ("WB23 4.5",), "US09": ("US09 4.9",), "STD": ("STD Gammons and Backgammons",)}, digest="A8.5"),
    AlertSpec("CLAIM_VALID", E, "A claim passes the 1-2 against 6-6 test", {"RG19": ("RG19 4.5.2",)}, digest="A8.6"),
    AlertSpec("CLAIM_INVALID", E, "A claim fails the 1-2 against 6-6 test (or contact is not broken)", {"RG19": ("RG19 4.5.2",)}, digest="A8.6"),
    AlertSpec("GAME_RESULT", E, "Game over", _all("RG19 4.6.2", "STD Gammons and Backgammons"), digest="A8.1-A8.3"),
    AlertSpec("MATCH_WON", E, "Match won", {"RG19": ("RG19 4.6.2",), "WB23": ("WB23 4.7",), "US09": ("US09 4.9",), "STD": ("STD Object",)}, digest="A8.12"),
    AlertSpec("ILLEGAL_MOVE_STANDS", E, "Correction window closed: the illegal move stands", {"RG19": ("RG19 4.2.3.1(a)", "RG19 4.2.3.1(d)"), "WB23": ("WB23 4.2(iii)",), "US09": ("US09 4.8",), "STD": ("STD Irregularities-2",)}, digest="A5.3"),
    AlertSpec("SETUP_ERROR_WINDOW_CLOSED", E, "Starting-position error can now be corrected only by agreement", {"RG19": ("RG19 4.2.1",), "WB23": ("WB23 4.2(iv)",), "US09": ("US09 4.7",)}, digest="A6.2"),
    AlertSpec("CORRECTION_COMPLETE", E, "The position was restored as required", {"RG19": ("RG19 4.2.3.2",), "WB23": ("WB23 4.2(iii)",), "US09": ("US09 4.8",), "STD": ("STD Irregularities-2",)}, digest="A5.8"),
    AlertSpec("MONITOR_DECISION", E, "Monitor decision applied", {"RG19": ("RG19 1.3.3",), "WB23": ("WB23 1.3(iii)",), "US09": ("US09 2.5",), "STD": ()}, digest="A.0 principle 2"),
    # ---------------------------------------------------------------- dice (A1, A4)
    AlertSpec("ROLL_INVALID_WRONG_SIDE", V, "Die finished on the wrong side of the bar", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.1"),
    AlertSpec("ROLL_INVALID_OFF_SURFACE", V, "Die not on the playing surface", {"RG19": ("RG19 4.1.4.3", "RG19 4.1.8.4"), "WB23": ("WB23 4.1(iv)(a)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.2"),
    AlertSpec("ROLL_INVALID_COCKED", V, "Cocked die (not flat / balanced on an edge or corner)", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)(a)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.7, A1.9"),
    AlertSpec("ROLL_INVALID_VERTICAL_SUPPORT", V, "Die leaning on a vertical surface", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)(a)", "WB23 4.1(iv)(c)"), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.6, A1.9"),
    AlertSpec("ROLL_INVALID_SUNK_BETWEEN_CHECKERS", V, "Die sunk into the gap between checkers", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)(c)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.8"),
    AlertSpec("ROLL_INVALID_DIE_ON_DIE", V, "One die resting on the other", {"RG19": ("RG19 4.1.4.3",), "WB23": ("WB23 4.1(iv)(a)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.5"),
    AlertSpec("ROLL_INVALID_DIE_ON_CHECKER", V, "Die on a checker where the rules require the playing surface", {"WB23": ("WB23 4.1(iv)(a)", "WB23 4.1(iv)(c)"), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.10"),
    AlertSpec("ROLL_VALUE_UNREADABLE", W, "Die value or validity not read with confidence: please confirm", {"RG19": ("RG19 4.1.2", "RG19 4.1.4.3"), "WB23": ("WB23 4.1(iv)",), "US09": ("US09 4.2",), "STD": ("STD Irregularities-1",)}, digest="A1.6, A1.15"),
    AlertSpec("DIE_LIFTED_BEFORE_REST", W, "A rolled die was lifted before both dice were at rest", {"RG19": ("RG19 4.1.8.4",)}, digest="A4.6"),
    AlertSpec("FAST_ROLL", IR, "Premature roll: rolled before the opponent ended his turn", {"RG19": ("RG19 4.1.8.1",), "WB23": ("WB23 4.1(v)(a)",), "US09": ("US09 4.6",), "STD": ("STD Irregularities-3",)}, severity_by_family={"STD": V}, digest="A4.1"),
    AlertSpec("FAST_GRAB", V, "Premature grab: picked up the shared dice before the opponent ended his turn", {"RG19": ("RG19 4.1.8.2", "RG19 4.3.2(f)"), "WB23": ("WB23 4.1(v)(b)", "WB23 4.3(ii)(d)")}, digest="A4.2"),
    AlertSpec("OFF_TURN_DIE_TOUCH", V, "Touched the live dice during the opponent's turn", {"WB23": ("WB23 4.1(ii)",), "US09": ("US09 4.3",)}, digest="A3.10"),
    AlertSpec("ROLL_WHILE_CUBE_DECISION_PENDING", IR, "Rolled while a double was waiting for take or pass (derived rule)", {"RG19": ("RG19 4.4.4.1", "RG19 4.4.5.1"), "WB23": ("WB23 4.4(iii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A4.9"),
    # ---------------------------------------------------------------- checkers (A5, A6)
    AlertSpec("ILLEGAL_MOVE", V, "Illegal move", {"RG19": ("RG19 4.2.3.1(a)", "RG19 4.2.3.2"), "WB23": ("WB23 4.2(iii)", "WB23 1.1"), "US09": ("US09 4.8",), "STD": ("STD Irregularities-2",)}, severity_by_family={"US09": IR, "STD": IR}, digest="A5.1-A5.3, A5.8"),
    AlertSpec("IMPOSSIBLE_MOVE", V, "Impossible move (corrected until the offender's own next valid roll)", {"RG19": ("RG19 4.2.3.1(b)",)}, digest="A5.4"),
    AlertSpec("MOVE_REVISED", E, "A doubtful move recorded again from a clearer view of the board", {"RG19": ("RG19 1.3.3", "RG19 4.2.2.1"), "WB23": ("WB23 1.3(iii)", "WB23 4.2(i)"), "US09": ("US09 2.5", "US09 4.3"), "STD": ("STD Movement",)}, digest="A5.13, A1.15"),
    AlertSpec("MOVE_UNCONFIRMED", W, "Move not seen clearly enough to judge: please confirm", {"RG19": ("RG19 1.3.3", "RG19 4.2.2.1"), "WB23": ("WB23 1.3(iii)", "WB23 4.2(i)"), "US09": ("US09 2.5", "US09 4.3"), "STD": ("STD Movement",)}, digest="A5.13, A.0 principle 5"),
    AlertSpec("IMPOSSIBLE_POSITION", V, "Impossible position: must be corrected whenever found", {"RG19": ("RG19 4.2.3.1(c)",), "WB23": ("WB23 1.2(i)",), "US09": ("US09 4.3",), "STD": ("STD Movement-1",)}, digest="A5.5"),
    AlertSpec("CHECKER_COUNT_MISMATCH", V, "A colour does not have 15 checkers on the table", {"RG19": ("RG19 4.2.1", "RG19 4.2.3.3"), "WB23": ("WB23 4.2(iv)",), "US09": ("US09 4.7",), "STD": ("STD Set Up",)}, digest="A5.15, A6.4"),
    AlertSpec("OFF_TURN_CHECKER_TOUCH", W, "Checkers touched during the opponent's turn", {"RG19": ("RG19 4.2.2.2",), "WB23": ("WB23 4.2(ii)",), "US09": ("US09 4.3",)}, severity_by_family={"US09": V}, digest="A3.10"),
    AlertSpec("BORNE_OFF_CHECKER_ON_SURFACE", V, "A borne-off checker is back on the playing surface", {"RG19": ("RG19 4.2.2.2",), "WB23": ("WB23 4.2(ii)",), "US09": ("US09 4.4",)}, digest="A5.11"),
    AlertSpec("SETUP_ERROR", V, "Starting-position error", {"RG19": ("RG19 4.2.1",), "WB23": ("WB23 4.2(iv)",), "US09": ("US09 4.7",), "STD": ("STD Set Up",)}, digest="A6.1-A6.3"),
    AlertSpec("NONSTANDARD_GAME_END", V, "The board was reset before the game ended in a recognised way", {"RG19": ("RG19 4.2.4", "RG19 4.5"), "WB23": ("WB23 4.5",), "US09": ("US09 4.9",), "STD": ("STD Object",)}, digest="A8.8, A4.10"),
    # ---------------------------------------------------------------- cube (A4, A7)
    AlertSpec("DOUBLE_AFTER_ROLL_ATTEMPT", V, "Double after the first attempt to roll: void", {"RG19": ("RG19 4.4.2", "RG19 4.4.4.3"), "WB23": ("WB23 4.4(ii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A4.4"),
    AlertSpec("DOUBLE_OUT_OF_TURN", IR, "Cube handled as a double when it was not the player's turn to double", {"RG19": ("RG19 4.4.4", "RG19 4.4.4.3"), "WB23": ("WB23 4.4(v)",), "US09": ("US09 4.6",), "STD": ("STD Doubling",)}, digest="A4.3"),
    AlertSpec("DOUBLE_WITHOUT_ACCESS", V, "Double without cube access: void", {"RG19": ("RG19 4.4.2",), "WB23": ("WB23 4.4(iii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A7.4"),
    AlertSpec("CRAWFORD_CUBE_ACTION_VOID", V, "Cube action in the Crawford game: void", {"RG19": ("RG19 4.4.7", "RG19 4.4.7.1"), "WB23": ("WB23 4.4(iv)",), "US09": ("US09 5.5",)}, digest="A7.10"),
    AlertSpec("DEAD_CUBE_DOUBLE", V, "Dead-cube double: void", {"RG19": ("RG19 4.4.8",), "WB23": ("WB23 4.4(vii)",), "US09": ("US09 5.6",)}, digest="A7.11"),
    AlertSpec("CUBE_WRONG_LEVEL", V, "Cube shows the wrong level: the action stands, the level is corrected", {"RG19": ("RG19 4.4.9", "RG19 4.4.3"), "WB23": ("WB23 4.4(vi)",), "US09": ("US09 5.2",), "STD": ("STD Doubling",)}, digest="A7.8, A7.9"),
    AlertSpec("CUBE_NOT_CENTRED_AT_START", V, "Cube not centred at the start of the game", {"RG19": ("RG19 4.4.1",), "WB23": ("WB23 4.4(i)",), "US09": ("US09 5.2",), "STD": ("STD Doubling",)}, severity_by_family={"US09": W, "STD": W}, digest="A7.1"),
    AlertSpec("DOUBLE_BY_TOUCH", E, "Cube touched while doubling was legal: that is a double", {"RG19": ("RG19 4.4.4.2",), "WB23": ("WB23 4.4(ii)",)}, digest="A7.5"),
    AlertSpec("CUBE_DECISION_AMBIGUOUS", W, "Cube set down where it decides neither take nor pass: please confirm", {"RG19": ("RG19 4.4.5.2",), "WB23": ("WB23 4.4(iii)",), "US09": ("US09 5.4",), "STD": ("STD Doubling",)}, digest="A7.7"),
    AlertSpec("CUBE_PRESENT_IN_CRAWFORD", W, "Cube still on the table in the Crawford game", {"RG19": ("RG19 4.4.7",), "WB23": ("WB23 4.4(iv)",), "US09": ("US09 5.5",)}, digest="A7.10"),
    # ---------------------------------------------------------------- clock (A9)
    AlertSpec("CLOCK_RUNNING_FOR_WRONG_PLAYER", V, "The clock is running for the player who is not to act", {"RG19": ("RG19 3.4.1", "RG19 4.3.3"), "WB23": ("WB23 4.1(vi)(b)", "WB23 4.3(iv)")}, digest="A9.5, A9.7"),
    # ---------------------------------------------------------------- input
    AlertSpec("INPUT_REJECTED", W, "A table state broke the schema and was ignored", _all("schemas/table_state.schema.json"), digest="ARCHITECTURE principle 3"),
]

CATALOGUE: dict[str, AlertSpec] = {s.code: s for s in _SPECS}


def register_alert(spec: AlertSpec) -> None:
    """Add a code (e.g. the Welsh profile's DIGEST C.26 alerts); refuses to redefine an existing one."""
    if spec.code in CATALOGUE:
        raise ValueError(f"alert code {spec.code} is already in the catalogue; use add_citations to extend it")
    CATALOGUE[spec.code] = spec


def add_citations(code: str, family: str, cites: tuple[str, ...], severity: Severity | None = None) -> None:
    """Make an existing code apply under another rule document (e.g. ``WEL``) with its sections."""
    spec = CATALOGUE[code]
    spec.cites[family] = cites
    if severity is not None:
        spec.severity_by_family[family] = severity


@dataclass(frozen=True)
class Alert:
    """One alert or event raised by the referee.

    JSON form (one line each on ``gammonwatch referee`` standard output)::

        {"code": "ILLEGAL_MOVE", "severity": "VIOL", "player": "light", "player_name": "Ann",
         "rules": ["RG19 4.2.3.1(a)", "RG19 4.2.3.2"], "message": "...", "evidence": [1201, 1262],
         "deadline": "before dark's next valid roll", "game": 3, "frame": 1262, "t": 84.2,
         "details": {...}}
    """

    code: str
    severity: Severity
    message: str
    rules: tuple[str, ...]
    player: str | None = None
    """Colour ("light"/"dark") of the player concerned, or None."""
    player_name: str | None = None
    evidence: tuple[int, ...] = ()
    """Frame ids of the table states that show it."""
    deadline: str | None = None
    game: int = 0
    frame: int | None = None
    t: float | None = None
    details: dict[str, Any] = field(default_factory=dict)
    id: int = 0
    """Sequence number of the alert in this referee run (for acknowledging it)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "code": self.code,
            "severity": self.severity.value,
            "player": self.player,
            "player_name": self.player_name,
            "rules": list(self.rules),
            "message": self.message,
            "evidence": list(self.evidence),
            "deadline": self.deadline,
            "game": self.game,
            "frame": self.frame,
            "t": self.t,
        }
        if self.details:
            out["details"] = self.details
        return out


def catalogue_markdown() -> str:
    """The alert catalogue as Markdown (the body of docs/alerts.md), variants' codes included."""
    from rules.referee.profiles import load_variants

    load_variants()
    lines = [
        "| code | severity (per rule set) | what | RG19 | WB23 | US09 | STD | Welsh | DIGEST |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in CATALOGUE.values():
        sev = s.severity.value
        if s.severity_by_family:
            sev += " (" + ", ".join(f"{f}: {v.value}" for f, v in s.severity_by_family.items()) + ")"
        cols = []
        for fam in (*FAMILIES, "WELSH"):
            cols.append("; ".join(s.cites_for(fam)) if s.applies(fam) else "–")
        lines.append(f"| `{s.code}` | {sev} | {s.title} | {' | '.join(cols)} | {s.digest} |")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    # run as a script this file is a second module object; variants register into the package's
    from rules.referee import alerts as _package_alerts

    sys.stdout.write(_package_alerts.catalogue_markdown() + "\n")
