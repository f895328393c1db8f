"""Welsh games as table-state streams: what a camera would report at the table (DIGEST C.4-C.22).

:class:`WelshTable` is a physical Welsh table (men per race coordinate, four dice with their owners,
the doubling die, the clock and hands) that writes ``table_state`` records (schemas/table_state.schema.json)
and ``announce`` records for spoken acts.  Hand-written referee scenarios use its primitives
(``throw``, ``move``, ``lift``, ``press``, ``raise_cube``, ``announce``); :class:`StreamObserver`
turns a random game of :mod:`rules.welsh.randplay` into the stream of playing it over the board,
so a whole game can be refereed from table states and compared with the engine's own result.

Physical terms follow the standard referee (rules.referee.setup): the roof is reported as the
``bar`` count, checked-out men as ``off``; each player's race coordinate ``r`` is his own standard
point ``25 - r``, placed on the table by the set-up's orientation.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rules.referee.board import BoardMap
from rules.referee.setup import DiceMode, MatchSetup
from rules.referee.tablestate import Colour
from rules.welsh.game import WelshGame
from rules.welsh.geometry import OFF, ROOF
from rules.welsh.match import WelshMatch
from rules.welsh.movegen import Play, Throw
from rules.welsh.options import WelshOptions
from rules.welsh.position import Side, WelshPosition
from rules.welsh.randplay import Observer, Stats, play_random_game

FPS = 30

Record = dict[str, Any]


def welsh_setup(players: tuple[str, str] = ("Red", "Black"), clock: bool = False) -> MatchSetup:
    """The usual Welsh set-up: two dice per player (C.1), Red light and near, inner boards right."""
    return MatchSetup(length=25, players=players, dice_mode=DiceMode.FOUR, clock=clock)


@dataclass
class WelshTable:
    """The physical table; every primitive returns the records a camera (and operator) would give."""

    setup: MatchSetup = field(default_factory=welsh_setup)
    step_s: float = 0.4
    settle_s: float = 2.2
    men: list[list[int]] = field(default_factory=list)
    in_hand: list[int] = field(default_factory=lambda: [0, 0])
    dice: list[dict[str, Any]] = field(default_factory=list)
    cube: dict[str, Any] = field(default_factory=lambda: {"value": 1, "zone": "centre"})
    hands: list[dict[str, Any]] = field(default_factory=list)
    clock: str | None = None
    reserves: tuple[float, float] | None = None
    """Seconds left per player (engine order) when the clock reports them."""
    t: float = 0.0
    frame: int = 0

    def __post_init__(self) -> None:
        self.bmap = BoardMap(self.setup)
        if not self.men:
            self.place(WelshPosition.start())
        if not self.dice:
            self.dice = self._fresh_dice()

    # ------------------------------------------------------------------ helpers
    def _fresh_dice(self) -> list[dict[str, Any]]:
        if self.setup.dice_mode is DiceMode.TWO:
            return [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
        out = []
        for p in (0, 1):
            half = self.setup.orientation.right_half(self.setup.colour_of(p)).value
            for k in (0, 1):
                out.append({"id": 2 * p + k, "value": None, "state": "in_cup", "owner": self.setup.colour_of(p).value,
                            "half": half})
        return out

    def _dice_of(self, player: int) -> list[dict[str, Any]]:
        if self.setup.dice_mode is DiceMode.TWO:
            return self.dice
        return [d for d in self.dice if d["owner"] == self.setup.colour_of(player).value]

    def seat(self, player: int) -> str:
        return self.setup.seat_of_player(player).value

    def place(self, position: WelshPosition | tuple[Side, Side]) -> None:
        """Put the men of ``position`` on the table (no record); raw sides may break the rules."""
        men = position.men if isinstance(position, WelshPosition) else position
        self.men = [list(men[0]), list(men[1])]

    def position(self) -> WelshPosition:
        return WelshPosition((tuple(self.men[0]), tuple(self.men[1])))

    def hand(self, player: int, over: str, touching: bool = True) -> None:
        self.hands = [{"side": self.seat(player), "over": over, "touching": touching}]

    def state(self) -> Record:
        light = [0] * 24
        dark = [0] * 24
        bar = [0, 0]
        off = [0, 0]
        hand = [0, 0]
        for p in (0, 1):
            ci = 0 if self.setup.colour_of(p) is Colour.LIGHT else 1
            counts = light if ci == 0 else dark
            idx = self.bmap.phys_index[p]
            side = self.men[p]
            for r in range(1, 25):
                if side[r]:
                    counts[idx[25 - r]] += side[r]
            bar[ci] = side[ROOF]
            off[ci] = side[OFF]
            hand[ci] = self.in_hand[p]
        out: Record = {
            "type": "table_state", "version": 1, "frame": self.frame, "t": round(self.t, 3),
            "points": [{"point": i + 1, "light": light[i], "dark": dark[i]} for i in range(24)],
            "bar": {"light": bar[0], "dark": bar[1]},
            "off": {"light": off[0], "dark": off[1]},
            "dice": [dict(d) for d in self.dice],
            "cube": dict(self.cube),
        }
        if hand != [0, 0]:
            out["in_hand"] = {"light": hand[0], "dark": hand[1]}
        if self.hands:
            out["hands"] = [dict(h) for h in self.hands]
        if self.setup.clock:
            clock: dict[str, Any] = {"running": self.clock}
            if self.reserves is not None:
                by_seat = {self.seat(p): max(0.0, round(self.reserves[p], 3)) for p in (0, 1)}
                clock["reserve_s"] = {"near": by_seat["near"], "far": by_seat["far"]}
            out["clock"] = clock
        out["source"] = "rules.welsh.script"
        return out

    def snap(self, dt: float | None = None) -> list[Record]:
        self.t += self.step_s if dt is None else dt
        self.frame = round(self.t * FPS)
        return [self.state()]

    # ------------------------------------------------------------------ primitives
    def announce(self, act: str, **fields: Any) -> list[Record]:
        """A spoken act an operator enters (colours for players, as in the stream format)."""
        self.t += self.step_s
        self.frame = round(self.t * FPS)
        out: Record = {"type": "announce", "act": act, "frame": self.frame}
        for k, v in fields.items():
            out[k] = self.setup.colour_of(v).value if k in ("player", "for", "shaker", "first") and isinstance(v, int) else v
        return [out]

    def throw(self, player: int, values: Throw, reasons: tuple[str, ...] | None = None, set_dice: bool = False,
              from_table: bool = False) -> list[Record]:
        """The player's dice leave the cup, roll and come to rest (``set_dice``: put down by hand,
        as a nominated throw is, R21; ``from_table``: picked up and rolled again without going back
        to the cup).  One value: a single die (the full-spread option, R11)."""
        mine = self._dice_of(player)
        out: list[Record] = []
        if any(d["state"] != "in_cup" for d in mine) and not from_table:
            self.hand(player, "dice")
            for d in mine:
                d.update(value=None, state="in_cup")
                d.pop("valid", None)
                d.pop("reason", None)
            out += self.snap()
            self.hands = []
        thrown = mine[: len(values)]
        half = self.setup.orientation.right_half(self.setup.colour_of(player)).value
        if not set_dice:
            for d in thrown:
                d.update(value=None, state="rolling", half=half)
            out += self.snap()
        for k, d in enumerate(thrown):
            reason = reasons[k] if reasons else "flat_board"
            d.update(value=values[k], state="at_rest", valid=reason == "flat_board", reason=reason, half=half)
        out += self.snap(0.6)
        out += self.snap(self.settle_s)
        return out

    def lift(self, player: int) -> list[Record]:
        """The player lifts his dice off the table: the end of his turn (R24(iii))."""
        self.hand(player, "dice")
        for d in self._dice_of(player):
            d.update(value=None, state="in_cup")
            d.pop("valid", None)
            d.pop("reason", None)
        out = self.snap()
        self.hands = []
        return out + self.snap()

    def press(self, player: int) -> list[Record]:
        """The player stops his side of the clock, starting the opponent's (W45)."""
        self.hand(player, "clock")
        self.clock = self.seat(1 - player)
        out = self.snap()
        self.hands = []
        return out + self.snap()

    def move(self, player: int, after: WelshPosition | tuple[Side, Side]) -> list[Record]:
        """The men go from where they are to ``after`` (legal or not): the movers are lifted, then
        put down."""
        target = after.men if isinstance(after, WelshPosition) else after
        me = self.men[player]
        lifted = sum(max(0, me[r] - target[player][r]) for r in range(0, 25))
        out: list[Record] = []
        if lifted:
            self.hand(player, "checkers")
            for r in range(0, 25):
                me[r] = min(me[r], target[player][r])
            self.in_hand[player] = 15 - sum(me)
            out += self.snap()
            self.in_hand[player] = 0
        self.place(after)
        out += self.snap()
        self.hands = []
        return out + self.snap()

    def raise_cube(self, player: int, value: int, zone: str | None = None) -> list[Record]:
        """The player turns the doubling die to ``value`` and hands it to the opponent's end (R24(vii))."""
        self.hand(player, "cube")
        out = self.snap()
        self.cube = {"value": value, "zone": zone or self.seat(1 - player)}
        out += self.snap()
        self.hands = []
        return out + self.snap()

    def turn_cube(self, value: int) -> list[Record]:
        """The doubling die is turned where it lies (the automatic raise, R16; Ten For Two, R12b)."""
        self.cube = dict(self.cube, value=value)
        return self.snap()

    def reset(self, cube: int = 1) -> list[Record]:
        """Between games: the men are swept up and laid out again, the die centred."""
        self.men = [[0] * 25 + [0], [0] * 25 + [0]]
        self.in_hand = [15, 15]
        self.dice = self._fresh_dice()
        self.hands = [{"side": "near", "over": "board", "touching": True}, {"side": "far", "over": "board", "touching": True}]
        out = self.snap(1.0)
        self.in_hand = [0, 0]
        self.place(WelshPosition.start())
        self.hands = []
        self.cube = {"value": cube, "zone": "centre"}
        return out + self.snap(1.0)


class StreamObserver(Observer):
    """Writes a random game (:func:`rules.welsh.randplay.play_random_game`) as the table states and
    spoken acts of playing it over the board; ``records`` collects them in order."""

    def __init__(self, table: WelshTable | None = None) -> None:
        self.table = table or WelshTable(setup=welsh_setup(clock=True))
        self.records: list[Record] = [self.table.setup.to_json()]
        self.games = 0
        self._announced_start = False

    def _add(self, records: list[Record]) -> None:
        self.records += records

    def new_game(self, match: WelshMatch, game: WelshGame, clocks: tuple[float, float]) -> None:
        tb = self.table
        tb.reserves = clocks
        tb.clock = None
        if self.games:
            self._add(tb.reset(cube=game.cube))
        else:
            tb.cube = {"value": game.cube, "zone": "centre"}
            self._add(tb.snap(1.0))
        self.games += 1
        if len(match.results) == 0 or match.next_starter() is None:
            # odds and evens decided who starts (R7); the operator enters it
            self._add(tb.announce("odds_evens", shaker=1 - game.turn, call="odds", sum=7, first=game.turn))
        tb.clock = tb.seat(game.turn)
        self._add(tb.snap())

    def turn_start(self, game: WelshGame, player: int, clocks: tuple[float, float]) -> None:
        self.table.reserves = clocks
        self.table.clock = self.table.seat(player)

    def timed_out(self, match: WelshMatch, player: int, clocks: tuple[float, float]) -> None:
        self.table.reserves = clocks
        self._add(self.table.snap())

    def raised(self, game: WelshGame, player: int) -> None:
        self._add(self.table.raise_cube(player, game.cube))

    def nominated(self, game: WelshGame, by: int, for_player: int, throw: Throw) -> None:
        self._add(self.table.announce("nominate", player=by, **{"for": for_player}, dice=list(throw)))

    def thrown(self, game: WelshGame, player: int, dice: Throw, nominated: bool, outcome: str) -> None:
        self._add(self.table.throw(player, dice, set_dice=nominated))

    def rethrown(self, game: WelshGame, player: int) -> None:
        self._add(self.table.lift(player))

    def played(self, game: WelshGame, player: int, play: Play, cube_before: int) -> None:
        tb = self.table
        self._add(tb.move(player, play.result))
        self._add(tb.lift(player))
        if game.over:
            return
        if game.cube != cube_before:
            self._add(tb.turn_cube(game.cube))  # the first dance's automatic raise (R16)
        if game.turn != player:
            self._add(tb.press(player))

    def conceded(self, game: WelshGame, by: int, games: int, payment: bool, accept: bool) -> None:
        tb = self.table
        self._add(tb.announce("concede_offer", player=by, games=games, payment=payment))
        self._add(tb.announce("concede_answer", player=1 - by, accept=accept))


def random_game_stream(seed: int, games: int = 1, options: WelshOptions | None = None,
                       setup: MatchSetup | None = None) -> tuple[list[Record], WelshMatch]:
    """The stream of ``games`` random games of one match (seeded), and the engine's match.
    ``setup`` defaults to :func:`welsh_setup` with a clock (four dice)."""
    rng = random.Random(seed)
    match = WelshMatch(options or WelshOptions())
    clocks = [float(match.options.clock_seconds)] * 2
    observer = StreamObserver(WelshTable(setup=setup or welsh_setup(clock=True)))
    stats = Stats()
    while not match.over and len(match.results) < games:
        play_random_game(match, rng, stats, clocks, observer=observer)
    if stats.violations:
        raise AssertionError(f"random game broke an invariant: {stats.violations[:3]}")
    return observer.records, match


def records_to_lines(records: list[Record]) -> Iterator[str]:
    import json

    for r in records:
        yield json.dumps(r, separators=(",", ":"))
