"""A small language for hand-written referee scenarios: what happens at the table, in readable steps.

    s = Scenario()                       # USBGF 2019, 7-point match, light (Ann) near, clock ends turns
    s.opening("light", 3, 1)             # one die each; light starts with 3-1
    s.play("light", "8/5 6/5")           # checkers moved, in light's own numbering
    s.end_turn("light")                  # clock pressed
    s.roll("dark", 6, 4)
    assert "ILLEGAL_MOVE" not in s.codes()

Each step writes table states with the script primitives of :mod:`sim.script` (the same ones that
script real transcripts) and feeds them to a real :class:`Referee`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.matfile import MatMatch
from rules.play import Play
from rules.position import BAR, OFF
from rules.referee import Alert, Colour, Referee, TableState, get_profile
from rules.referee.setup import DiceMode, EndSignal
from sim.script import MatchScript, ScriptOptions, ScriptStep


class Scenario:
    def __init__(self, rules: str = "usbgf-2019", length: int = 7, score: tuple[int, int] = (0, 0),
                 end_signal: EndSignal = EndSignal.CLOCK, dice_mode: DiceMode = DiceMode.TWO,
                 crawford: bool | None = None, crawford_done: bool = False, cube_zone: str = "centre",
                 **options: Any) -> None:
        match = MatMatch(length=length, players=("Ann", "Bob"), games=())
        script = MatchScript(match, ScriptOptions(end_signal=end_signal, dice_mode=dice_mode))
        script.setup = replace(script.setup, score=score, crawford=crawford, crawford_done=crawford_done)
        script.table.setup = script.setup
        self.script = script
        self.table = script.table
        self.ref = Referee(script.setup, get_profile(rules, **options))
        self.alerts: list[Alert] = list(self.ref.alerts)
        self.table.cube = {"value": 1, "zone": cube_zone}
        self.table.dice = [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
        self.snap()

    # ------------------------------------------------------------------ plumbing
    def player(self, colour: str) -> int:
        return self.script.setup.player_of(Colour(colour))

    def feed(self, steps: Any) -> list[Alert]:
        out: list[Alert] = []
        for step in steps:
            assert isinstance(step, ScriptStep)
            rec = step.record
            if rec["type"] == "table_state":
                out += self.ref.feed(TableState.from_json(rec))
            elif rec["type"] == "announce":
                out += self.ref.announce(rec)
        self.alerts += out
        return out

    def snap(self, dt: float | None = None) -> list[Alert]:
        """One snapshot of the table as it is now."""
        return self.feed([self.script.snap(dt)])

    def codes(self) -> list[str]:
        """Codes of what a monitor must look at (VIOL, IRREG, WARN), in order."""
        return [a.code for a in self.alerts if a.severity.is_alert]

    def all_codes(self) -> list[str]:
        return [a.code for a in self.alerts]

    def last(self, code: str) -> Alert:
        return [a for a in self.alerts if a.code == code][-1]

    def decide(self, **decision: Any) -> list[Alert]:
        out = self.ref.decide(decision)
        self.alerts += out
        return out

    # ------------------------------------------------------------------ table actions
    def opening(self, starter: str, high: int, low: int, reasons: tuple[str, str] = ("flat_board", "flat_board")) -> list[Alert]:
        p = self.player(starter)
        out = self.feed(self.script.throw(p, (high, low), opening=True, reasons=reasons))
        if self.script.setup.clock:
            self.table.clock = self.script.seat(p)
        return out

    def roll(self, colour: str, d1: int, d2: int, reasons: tuple[str, str] = ("flat_board", "flat_board"),
             halves: tuple[str, str] | None = None) -> list[Alert]:
        return self.feed(self.script.throw(self.player(colour), (d1, d2), reasons=reasons, halves=halves))

    def play(self, colour: str, notation: str, hit_by_hand: bool = False, in_hand_seen: bool = True) -> list[Alert]:
        """Move checkers as written (own numbering), legal or not; hits land on the bar. ``hit_by_hand``:
        the mover lifts a blot he hits and puts it on the bar with his hand, seen over the bar as the
        camera sees it (otherwise the blot is on the bar when his checker lands); ``in_hand_seen``:
        whether the states say a checker of the opponent's is in a hand meanwhile."""
        p = self.player(colour)
        me, opp = self.table.boards[p], self.table.boards[1 - p]
        out: list[Alert] = []
        for step in Play.parse(notation).steps:
            self.script.hand(p, "checkers")
            me[step.src] -= 1
            self.table.in_hand[p] += 1
            out += self.snap()
            self.table.in_hand[p] -= 1
            me[step.dst] += 1
            if step.dst and opp[25 - step.dst] == 1:
                opp[25 - step.dst] = 0
                if hit_by_hand and in_hand_seen:
                    self.table.in_hand[1 - p] += 1
                    out += self.snap()  # the blot lifted
                    self.script.hand(p, "board")
                    out += self.snap()  # on its way
                    self.script.hand(p, "bar")
                    out += self.snap()  # over the bar
                    self.table.in_hand[1 - p] -= 1
                elif hit_by_hand:
                    out += self.snap()  # the blot lifted: gone from its point, nothing said in the hand
                    self.script.hand(p, "bar")  # and at once on the bar under the hand
                opp[BAR] += 1
            out += self.snap()
        self.script.no_hands()
        out += self.snap()
        return out

    def shift(self, colour: str, src: int, dst: int, count: int = 1) -> list[Alert]:
        """Move checkers anywhere, even backwards or off/on the tray (0 = borne off, 25 = bar)."""
        p = self.player(colour)
        b = self.table.boards[p]
        b[src] -= count
        b[dst] += count
        return self.snap()

    def end_turn(self, colour: str) -> list[Alert]:
        return self.feed(self.script.end_turn(self.player(colour)))

    def double(self, colour: str, face: int | None = None) -> list[Alert]:
        p = self.player(colour)
        self.script.hand(p, "cube")
        out = self.snap()
        value = face if face is not None else (self.table.cube or {"value": 1})["value"] * 2
        if self.ref.match.cube.owner is None and face is None:
            value = self.ref.match.cube.value * 2
        self.table.cube = {"value": value, "zone": "board"}
        out += self.snap()
        self.script.no_hands()
        out += self.snap()
        return out

    def take(self, colour: str, face: int | None = None) -> list[Alert]:
        p = self.player(colour)
        assert self.table.cube is not None
        value = face if face is not None else self.table.cube["value"]
        self.table.cube = {"value": value, "zone": self.script.seat(p)}
        return self.snap()

    def drop(self, colour: str) -> list[Alert]:
        self.table.cube = {"value": 1, "zone": "centre"}
        return self.snap()

    def hand(self, colour: str, over: str, touching: bool = True) -> list[Alert]:
        self.script.hand(self.player(colour), over, touching)
        out = self.snap()
        self.script.no_hands()
        out += self.snap()
        return out

    def reset_board(self) -> list[Alert]:
        return self.feed(self.script.reset_board())

    def set_boards(self, b0: list[int], b1: list[int]) -> None:
        self.table.boards = [list(b0), list(b1)]

    def start_from(self, b0: list[int], b1: list[int], turn: int = 0) -> None:
        """A game in progress: these boards on the table and in the referee's position, ``turn`` (player
        0 or 1) to roll. The caller snaps the table when it has set the rest (a clock, ...)."""
        from rules.position import Position

        self.set_boards(b0, b1)
        self.ref.position = Position(self.table.boards[0], self.table.boards[1], turn)
        self.ref.phase = self.ref.phase.PRE_ROLL
        self.ref.turn = turn

    def off(self, colour: str) -> int:
        return self.table.boards[self.player(colour)][OFF]
