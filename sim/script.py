"""``gammonwatch sim script MATCH.mat > STATES.jsonl``: the table states a camera would report for a match.

Pure Python (no physics, no rendering): for each entry of a ``.mat`` transcript it writes the ground-truth
table-state stream of playing it over the board: the opening roll (one die each), throws rolling and then
at rest for more than 2 s (RG19 4.1.4.3), each checker lifted and put down, the clock pressed to end the
turn (or the bar tapped / the dice lifted, by option), the cube offered on the playing surface and set
down on the taker's side or back in the centre, resignations as spoken acts, and the board reset between
games. It is faithful to the transcript even where a move is illegal: such a move is laid out literally.

The physical simulator can render from the same script: :func:`script_match` yields
:class:`ScriptStep` objects (timestamp, frame, record) lazily, and :class:`ScriptOptions` sets seats,
colours, dice mode and timing. Output is deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from rules.errors import IllegalPlayError, InvalidPlayError
from rules.match import MatchRules, MatchState, Player, ResultKind, Termination
from rules.matfile import EntryKind, MatEntry, MatMatch, MatSyntaxError, load
from rules.play import Play
from rules.position import BAR, OFF, Position
from rules.referee.board import BoardMap
from rules.referee.setup import DiceMode, EndSignal, MatchSetup, Orientation
from rules.referee.tablestate import Colour, Half
from rules.scoring import game_winner, result_kind

FPS = 30


@dataclass(frozen=True)
class ScriptOptions:
    first_colour: Colour = Colour.LIGHT
    near: Colour = Colour.LIGHT
    home: Half = Half.RIGHT
    dice_mode: DiceMode = DiceMode.TWO
    end_signal: EndSignal = EndSignal.CLOCK
    step_s: float = 0.4
    """Time between two snapshots of ordinary activity."""
    settle_s: float = 2.2
    """How long thrown dice lie still before the script moves on (>= 2 s, RG19 4.1.4.3)."""
    idle_dice: bool = False
    """Four dice only: list all four, the pair not in play as ``in_cup`` (out of play: the table-state
    schema has no state for a die put aside; the video draws it lying in its owner's side of the
    left tray); each player picks his pair up to roll and puts it aside after lifting it to end his
    turn (RG19 4.1.7.3). Off: only the dice in play are listed (what the referee's scenario tests use)."""

    def setup(self, match: MatMatch) -> MatchSetup:
        return MatchSetup(
            length=match.length,
            players=match.players,
            first_colour=self.first_colour,
            orientation=Orientation(self.near, self.home),
            dice_mode=self.dice_mode,
            end_signal=self.end_signal,
            clock=self.end_signal is EndSignal.CLOCK,
            score=match.games[0].score if match.games else (0, 0),
        )


@dataclass(frozen=True)
class ScriptStep:
    t: float
    frame: int
    record: dict[str, Any]
    """A ``table_state``, ``announce`` or ``match_setup`` record (JSON-ready)."""


@dataclass
class Table:
    """The physical table the script keeps, in engine terms plus equipment."""

    setup: MatchSetup
    bmap: BoardMap
    boards: list[list[int]] = field(default_factory=list)
    in_hand: list[int] = field(default_factory=lambda: [0, 0])
    dice: list[dict[str, Any]] = field(default_factory=list)
    cube: dict[str, Any] | None = None
    hands: list[dict[str, Any]] = field(default_factory=list)
    clock: str | None = None
    t: float = 0.0
    frame: int = 0

    def reset(self) -> None:
        start = Position.start()
        self.boards = [list(start.board(0)), list(start.board(1))]
        self.in_hand = [0, 0]

    def state(self) -> dict[str, Any]:
        light: list[int] = [0] * 24
        dark: list[int] = [0] * 24
        bar = [0, 0]
        off = [0, 0]
        hand = [0, 0]
        for p in (0, 1):
            colour = self.setup.colour_of(p)
            counts = light if colour is Colour.LIGHT else dark
            ci = 0 if colour is Colour.LIGHT else 1
            b = self.boards[p]
            idx = self.bmap.phys_index[p]
            for n in range(1, 25):
                counts[idx[n]] += b[n]
            bar[ci] = b[BAR]
            off[ci] = b[OFF]
            hand[ci] = self.in_hand[p]
        out: dict[str, Any] = {
            "type": "table_state",
            "version": 1,
            "frame": self.frame,
            "t": round(self.t, 3),
            "points": [{"point": i + 1, "light": light[i], "dark": dark[i]} for i in range(24)],
            "bar": {"light": bar[0], "dark": bar[1]},
            "off": {"light": off[0], "dark": off[1]},
            "dice": [dict(d) for d in self.dice],
        }
        if hand != [0, 0]:
            out["in_hand"] = {"light": hand[0], "dark": hand[1]}
        if self.cube is not None:
            out["cube"] = dict(self.cube)
        if self.hands:
            out["hands"] = [dict(h) for h in self.hands]
        if self.setup.clock:
            out["clock"] = {"running": self.clock}
        out["source"] = "sim.script"
        return out


class MatchScript:
    def __init__(self, match: MatMatch, options: ScriptOptions) -> None:
        self.match = match
        self.options = options
        self.setup = options.setup(match)
        self.bmap = BoardMap(self.setup)
        self.table = Table(self.setup, self.bmap)
        self.table.reset()
        rules = MatchRules(length=match.length) if match.length else MatchRules.money_play(jacoby=False)
        self.mstate = MatchState.new(rules, self.setup.score)

    # ------------------------------------------------------------------ primitives
    def snap(self, dt: float | None = None) -> ScriptStep:
        tb = self.table
        tb.t += self.options.step_s if dt is None else dt
        tb.frame = round(tb.t * FPS)
        return ScriptStep(tb.t, tb.frame, tb.state())

    def seat(self, player: int) -> str:
        return self.setup.seat_of_player(player).value

    def right_half(self, player: int) -> str:
        return self.setup.orientation.right_half(self.setup.colour_of(player)).value

    def hand(self, player: int, over: str, touching: bool = True) -> None:
        self.table.hands = [{"side": self.seat(player), "over": over, "touching": touching}]

    def no_hands(self) -> None:
        self.table.hands = []

    def position(self, turn: int) -> Position | None:
        b0, b1 = self.table.boards
        try:
            return Position(b0, b1, turn)
        except ValueError:
            return None

    # ------------------------------------------------------------------ four dice, idle pairs shown
    def _four(self) -> bool:
        return self.setup.dice_mode is DiceMode.FOUR and self.options.idle_dice

    def _owner_ids(self, player: int) -> tuple[int, int]:
        return (0, 1) if self.setup.colour_of(player) is Colour.LIGHT else (2, 3)

    def _idle(self, k: int) -> dict[str, Any]:
        return {"id": k, "value": None, "state": "in_cup", "owner": "light" if k < 2 else "dark"}

    def _throw_four(self, player: int, values: tuple[int, int], opening: bool,
                    reasons: tuple[str, str]) -> Iterator[ScriptStep]:
        tb = self.table
        if len(tb.dice) != 4:
            tb.dice = [self._idle(k) for k in range(4)]
        if opening:  # each player throws one of his own dice
            live = [self._owner_ids(player)[0], self._owner_ids(1 - player)[0]]
            halves = [self.right_half(player), self.right_half(1 - player)]
        else:
            live = list(self._owner_ids(player))
            halves = [self.right_half(player)] * 2
            self.hand(player, "dice")
            for k in live:
                tb.dice[k] = {"id": k, "value": None, "state": "in_cup", "owner": tb.dice[k]["owner"]}
            yield self.snap()
            self.no_hands()
        for k, half in zip(live, halves, strict=True):
            tb.dice[k] = {"id": k, "value": None, "state": "rolling", "half": half, "owner": tb.dice[k]["owner"]}
        yield self.snap()
        for j, k in enumerate(live):
            tb.dice[k].update(value=values[j], state="at_rest", valid=reasons[j] in ("flat_board", "on_checker"),
                              reason=reasons[j])
        yield self.snap(0.6)
        yield self.snap(self.options.settle_s)

    def _lift_four(self, player: int) -> Iterator[ScriptStep]:
        """End of turn with four dice: the mover lifts the dice in play (RG19 4.1.7.3) and puts them
        down beside the board, each on its owner's side."""
        tb = self.table
        self.hand(player, "dice")
        tb.dice = [self._idle(k) for k in range(4)]
        yield self.snap()
        self.no_hands()
        yield self.snap()

    # ------------------------------------------------------------------ turn pieces
    def throw(self, player: int, values: tuple[int, int], opening: bool = False,
              reasons: tuple[str, str] = ("flat_board", "flat_board"), halves: tuple[str, str] | None = None) -> Iterator[ScriptStep]:
        tb = self.table
        if self._four():
            yield from self._throw_four(player, values, opening, reasons)
            return
        if opening:
            sides = [self.right_half(player), self.right_half(1 - player)]
            owners = [self.setup.colour_of(player).value, self.setup.colour_of(1 - player).value]
            tb.dice = [
                {"id": k, "value": None, "state": "rolling", "half": sides[k], "owner": owners[k]} for k in (0, 1)
            ]
        else:
            if tb.dice:
                self.hand(player, "dice")
                tb.dice = [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
                yield self.snap()
                self.no_hands()
            tb.dice = [{"id": k, "value": None, "state": "rolling", "half": self.right_half(player)} for k in (0, 1)]
        yield self.snap()
        for k in (0, 1):
            tb.dice[k].update(value=values[k], state="at_rest", valid=reasons[k] in ("flat_board", "on_checker"), reason=reasons[k])
            if halves is not None:
                tb.dice[k]["half"] = halves[k]
        yield self.snap(0.6)
        yield self.snap(self.options.settle_s)

    def move(self, player: int, dice: tuple[int, int], play: Play) -> Iterator[ScriptStep]:
        tb = self.table
        before = self.position(player)
        after: Position | None = None
        if before is not None:
            try:
                after = before.apply(play, dice)
            except (IllegalPlayError, InvalidPlayError):
                after = None
        me, opp = tb.boards[player], tb.boards[1 - player]
        for step in play.steps:
            if me[step.src] <= 0:
                continue  # the transcript moves a checker that is not there (after an illegal move): skip it
            self.hand(player, "checkers")
            me[step.src] -= 1
            tb.in_hand[player] += 1
            yield self.snap()
            tb.in_hand[player] -= 1
            me[step.dst] += 1
            yield self.snap()
            if step.dst and opp[25 - step.dst] == 1:
                # a hit, as players do it: the mover lifts the blot from under his checker and puts it
                # on the bar with his own hand (until session 10 the blot jumped to the bar unseen)
                opp[25 - step.dst] = 0
                tb.in_hand[1 - player] += 1
                yield self.snap()
                tb.in_hand[1 - player] -= 1
                opp[BAR] += 1
                yield self.snap()
        self.no_hands()
        if after is not None:
            tb.boards = [list(after.board(0)), list(after.board(1))]
        yield self.snap()

    def end_turn(self, player: int) -> Iterator[ScriptStep]:
        signal = self.options.end_signal
        tb = self.table
        if signal is EndSignal.CLOCK:
            self.hand(player, "clock")
            tb.clock = self.seat(1 - player)
            yield self.snap()
            self.no_hands()
            yield self.snap()
        elif signal is EndSignal.BAR_TAP:
            self.hand(player, "bar")
            yield self.snap()
            self.no_hands()
            yield self.snap()
        elif self._four():
            yield from self._lift_four(player)
        else:
            self.hand(player, "dice")
            tb.dice = [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
            yield self.snap()
            self.no_hands()
            yield self.snap()

    def reset_board(self) -> Iterator[ScriptStep]:
        tb = self.table
        # everything swept into the players' hands, then laid out again
        tb.boards = [[0] * 26, [0] * 26]
        tb.in_hand = [15, 15]
        tb.dice = [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
        self.table.hands = [{"side": "near", "over": "board", "touching": True}, {"side": "far", "over": "board", "touching": True}]
        yield self.snap(1.0)
        tb.reset()
        self.no_hands()
        tb.clock = None
        yield self.snap(1.0)

    # ------------------------------------------------------------------ the match
    def steps(self) -> Iterator[ScriptStep]:
        tb = self.table
        yield ScriptStep(0.0, 0, self.setup.to_json())
        for gi, game in enumerate(self.match.games):
            if gi:
                yield from self.reset_board()
            crawford = self.mstate.crawford
            tb.cube = {"value": 64, "zone": "absent"} if crawford else {"value": 1, "zone": "centre"}
            tb.dice = [{"id": k, "value": None, "state": "in_cup"} for k in (0, 1)]
            if self._four():
                tb.dice = [self._idle(k) for k in range(4)]
            tb.clock = None
            yield self.snap(1.0)
            yield from self.game(game.entries)
            if self.mstate.winner is not None:
                break

    def game(self, entries: tuple[MatEntry, ...]) -> Iterator[ScriptStep]:
        tb = self.table
        opening = True
        cube_value = self.mstate.cube.value
        ended = False
        for e in entries:
            p = int(e.player)
            if e.kind is EntryKind.ROLL:
                assert e.dice is not None
                if opening:
                    hi, lo = max(e.dice), min(e.dice)
                    yield from self.throw(p, (hi, lo), opening=True)
                    tb.clock = self.seat(p) if self.setup.clock else None
                    opening = False
                else:
                    yield from self.throw(p, e.dice)
                if e.play is None:  # rolled, then resigned (????)
                    continue
                yield from self.move(p, e.dice, e.play)
                yield from self.end_turn(p)
                pos = self.position(1 - p)
                if pos is not None and game_winner(pos) is not None:
                    w = game_winner(pos)
                    assert w is not None
                    self.mstate = self.mstate.end_game(Player(w), result_kind(pos, w), Termination.BEAR_OFF)
                    ended = True
            elif e.kind is EntryKind.DOUBLE:
                value = e.value or cube_value * 2
                self.hand(p, "cube")
                yield self.snap()
                tb.cube = {"value": value, "zone": "board"}
                yield self.snap()
                self.no_hands()
                if self.setup.clock:
                    tb.clock = self.seat(1 - p)
                yield self.snap()
                try:
                    self.mstate = self.mstate.double(Player(p))
                except ValueError:
                    pass
            elif e.kind is EntryKind.BEAVER:
                tb.cube = {"value": e.value or cube_value * 4, "zone": self.seat(p)}
                yield self.snap()
            elif e.kind is EntryKind.TAKE:
                self.hand(p, "cube")
                yield self.snap()
                value = tb.cube["value"] if tb.cube else cube_value * 2
                tb.cube = {"value": value, "zone": self.seat(p)}
                yield self.snap()
                self.no_hands()
                if self.setup.clock:
                    tb.clock = self.seat(1 - p)
                yield self.snap()
                cube_value = value
                try:
                    self.mstate = self.mstate.take(Player(p))
                except ValueError:
                    pass
            elif e.kind is EntryKind.DROP:
                self.hand(p, "cube")
                yield self.snap()
                tb.cube = {"value": 1, "zone": "centre"}
                self.no_hands()
                tb.clock = None
                yield self.snap()
                try:
                    self.mstate = self.mstate.pass_(Player(p))
                except ValueError:
                    pass
                ended = True
            elif e.kind is EntryKind.WIN and not ended:
                # a game that ends without a bear-off or a pass: a resignation (a spoken act)
                points = e.value or 1
                value = self.mstate.cube.value
                loser = 1 - p
                tb.t += self.options.step_s
                tb.frame = round(tb.t * FPS)
                if points > 3 * value and self.match.length:
                    # more than any resignation can give: the match was forfeited (e.g. time expiry, RG19 4.3.4)
                    yield ScriptStep(tb.t, tb.frame, {"type": "announce", "act": "forfeit",
                                                      "player": self.setup.colour_of(loser).value, "frame": tb.frame})
                    self.mstate = replace(self.mstate, winner=Player(p))
                    ended = True
                    continue
                kind = ResultKind(max(1, min(3, -(-points // value))))
                yield ScriptStep(tb.t, tb.frame, {"type": "announce", "act": "resign", "player": self.setup.colour_of(loser).value,
                                                  "kind": kind.name.lower(), "frame": tb.frame})
                try:
                    self.mstate = self.mstate.end_game(Player(p), kind, Termination.RESIGN)
                except ValueError:
                    pass
                ended = True


def script_match(match: MatMatch, options: ScriptOptions | None = None) -> Iterator[ScriptStep]:
    """The table-state stream for a transcript, lazily, with timestamps (the simulator's script)."""
    return MatchScript(match, options or ScriptOptions()).steps()


def script_lines(match: MatMatch, options: ScriptOptions | None = None) -> Iterator[str]:
    for step in script_match(match, options):
        yield json.dumps(step.record, separators=(",", ":"))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gammonwatch sim script", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("match", help="a .mat transcript")
    parser.add_argument("--out", help="write the JSON lines here instead of standard output")
    parser.add_argument("--end-signal", choices=[e.value for e in EndSignal], default="clock",
                        help="how turns end: clock press (default), bar tap (RG19 4.1.7.2) or lifting the dice")
    parser.add_argument("--near", choices=["light", "dark"], default="light", help="colour of the near seat")
    parser.add_argument("--home", choices=["right", "left"], default="right", help="half holding the home boards, seen from the near seat")
    parser.add_argument("--first-colour", choices=["light", "dark"], default="light", help="colour of the first player of the .mat")
    args = parser.parse_args(argv)
    try:
        match = load(args.match)
    except OSError as exc:
        print(f"gammonwatch sim script: cannot read {args.match}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except MatSyntaxError as exc:
        print(f"gammonwatch sim script: {exc}", file=sys.stderr)
        return 2
    options = ScriptOptions(first_colour=Colour(args.first_colour), near=Colour(args.near), home=Half(args.home),
                            end_signal=EndSignal(args.end_signal))
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        for line in script_lines(match, options):
            out.write(line + "\n")
    finally:
        if args.out:
            out.close()
    return 0


__all__ = ["ScriptOptions", "ScriptStep", "Table", "MatchScript", "script_match", "script_lines", "main"]
