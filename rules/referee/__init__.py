"""The referee: table states in, alerts and a match record out (issue 3).

Public API::

    from rules.referee import Referee, MatchSetup, TableState, get_profile
    ref = Referee(MatchSetup(length=7), get_profile("usbgf-2019"))
    for alert in ref.feed(TableState.from_json(obj)): ...
    ref.snapshot()      # position, dice, cube, score, pips, transcript so far (for the server)
    ref.transcript()    # rules.matfile.MatMatch
"""

from rules.referee.alerts import CATALOGUE, Alert, AlertSpec, Severity, add_citations, register_alert
from rules.referee.machine import Phase, Referee
from rules.referee.profiles import Profile, get_profile, profile_names, register_profile
from rules.referee.setup import DiceMode, EndSignal, MatchSetup, Orientation
from rules.referee.stream import read_stream, run_stream
from rules.referee.tablestate import (
    Colour,
    CubeZone,
    DieReason,
    DieState,
    Half,
    HandOver,
    PhysicalBoard,
    Seat,
    TableState,
    TableStateError,
)

__all__ = [
    "CATALOGUE",
    "Alert",
    "AlertSpec",
    "Severity",
    "add_citations",
    "register_alert",
    "Phase",
    "Referee",
    "Profile",
    "get_profile",
    "profile_names",
    "register_profile",
    "DiceMode",
    "EndSignal",
    "MatchSetup",
    "Orientation",
    "read_stream",
    "run_stream",
    "Colour",
    "CubeZone",
    "DieReason",
    "DieState",
    "Half",
    "HandOver",
    "PhysicalBoard",
    "Seat",
    "TableState",
    "TableStateError",
]
