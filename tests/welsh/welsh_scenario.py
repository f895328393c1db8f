"""Hand-written Welsh referee scenarios: a physical table (rules.welsh.script.WelshTable) fed to a
real referee built by ``Referee(setup, get_profile("welsh"))``, in readable steps::

    w = WelshScenario()
    w.start("B1:2 F6:5 N2:3 H6:5", "B1:2 F6:5 N2:3 H6:5", turn=RED)   # optional: a set position
    w.throw(RED, 6, 4)
    w.play(RED, "F6/N2(6+4)")          # a legal play by its notation, or w.move(RED, red=..., black=...)
    w.lift(RED)
    assert w.codes() == []              # nothing a monitor must look at
"""

from __future__ import annotations

from typing import Any

from rules.referee import Alert, Referee, TableState, get_profile
from rules.welsh.position import Side, WelshPosition, parse_side
from rules.welsh.script import Record, WelshTable, welsh_setup

RED, BLACK = 0, 1


def pos(red: str, black: str) -> WelshPosition:
    return WelshPosition.from_labels(red=red, black=black)


class WelshScenario:
    def __init__(self, clock: bool = False, score: tuple[int, int] = (0, 0), reserves: tuple[float, float] | None = None,
                 **options: Any) -> None:
        setup = welsh_setup(clock=clock).with_(score=score)
        self.table = WelshTable(setup=setup, reserves=reserves)
        self.ref = Referee(setup, get_profile("welsh", **options))
        self.alerts: list[Alert] = list(self.ref.alerts)
        self.snap()

    # ------------------------------------------------------------------ plumbing
    def feed(self, records: list[Record]) -> list[Alert]:
        out: list[Alert] = []
        for r in records:
            if r["type"] == "table_state":
                out += self.ref.feed(TableState.from_json(r))
            else:
                out += self.ref.announce(r)
        self.alerts += out
        return out

    def snap(self, dt: float | None = None) -> list[Alert]:
        return self.feed(self.table.snap(dt))

    def codes(self) -> list[str]:
        """What a monitor must look at (VIOL, IRREG, WARN), in order."""
        return [a.code for a in self.alerts if a.severity.is_alert]

    def all_codes(self) -> list[str]:
        return [a.code for a in self.alerts]

    def last(self, code: str) -> Alert:
        return [a for a in self.alerts if a.code == code][-1]

    def decide(self, **decision: Any) -> list[Alert]:
        out = self.ref.decide(decision)
        self.alerts += out
        return out

    @property
    def game(self) -> Any:
        return self.ref.game

    # ------------------------------------------------------------------ table actions
    def start(self, red: str, black: str, turn: int = RED) -> None:
        """The monitor sets a position (the table shows it too); ``turn`` is about to throw."""
        position = pos(red, black)
        self.table.place(position)
        self.snap()
        board = self.table.state()
        self.decide(action="set_position", turn=self.table.setup.colour_of(turn).value, board={
            "light": [p["light"] for p in board["points"]], "dark": [p["dark"] for p in board["points"]],
            "bar": [board["bar"]["light"], board["bar"]["dark"]], "off": [board["off"]["light"], board["off"]["dark"]]})

    def throw(self, player: int, *values: int, reasons: tuple[str, ...] | None = None, set_dice: bool = False) -> list[Alert]:
        return self.feed(self.table.throw(player, tuple(values), reasons=reasons, set_dice=set_dice))

    def play(self, player: int, notation: str | None = None, where: Any = None) -> list[Alert]:
        """Lay out a legal play of the current throw: by its notation, by a predicate, or the first."""
        plays = self.ref.game.legal_plays()
        for pl in plays:
            if (notation is None or pl.notation() == notation) and (where is None or where(pl)):
                return self.feed(self.table.move(player, pl.result))
        raise AssertionError(f"no legal play {notation!r}; legal: {[p.notation() for p in plays]}")

    def move(self, player: int, red: str, black: str) -> list[Alert]:
        """Lay out any result (legal or not, even an impossible one)."""
        sides: tuple[Side, Side] = (parse_side(red), parse_side(black))
        return self.feed(self.table.move(player, sides))

    def lift(self, player: int) -> list[Alert]:
        return self.feed(self.table.lift(player))

    def press(self, player: int) -> list[Alert]:
        return self.feed(self.table.press(player))

    def turn(self, player: int, *values: int, notation: str | None = None, where: Any = None) -> list[Alert]:
        """A whole ordinary turn: throw, a legal play, lift the dice."""
        out = self.throw(player, *values)
        out += self.play(player, notation, where)
        return out + self.lift(player)

    def raise_cube(self, player: int, value: int, zone: str | None = None) -> list[Alert]:
        return self.feed(self.table.raise_cube(player, value, zone))

    def announce(self, act: str, **fields: Any) -> list[Alert]:
        return self.feed(self.table.announce(act, **fields))
