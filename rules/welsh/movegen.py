"""Welsh legal plays (DIGEST C.6-C.13, R7-R11, R14-R16, R18-R20).

A *step* moves one man by one value: a single die, or several dice combined into one bigger move
that jumps over the spikes in between and settles only at its end (R9).  A *play* is the sequence
of steps of one turn.  :func:`legal_plays` lists every legal play with a distinct result, following
the engine definition of C.12.4:

1. every step must be legal when it is made: re-entry from the roof first (R16, W5), settling
   rules (R8, R9, R10 at most 6, R11 protected full spreads), Crossing The Stream (R15), Skinny
   Sevens (R9), the check-out condition and exact values (R18), hit-and-stop (W7, option),
   backward moves only by activated rovers and never on doubles (R20);
2. then the complete sequences are filtered: (a) no two own full spikes at the end (R10),
   (b) Six Must (R18), (c) plays with no backward move use as many dice as possible and the larger
   die (R7), (d) plays with a backward move leave no unused value that has a forward use (R20, W26).

A step that ends the game (the last man checked out, or a third opposing man sent to the roof,
R14) ends the turn at once; such a play counts as using every die (W16).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rules.errors import InvalidDiceError
from rules.welsh.geometry import (
    FULL_SPIKE,
    MEN,
    OFF,
    ROOF,
    backward_paths,
    forward_paths,
    label,
    parse_label,
    quarter_spikes,
)
from rules.welsh.options import WelshOptions
from rules.welsh.position import Side, WelshPosition, position_problem

Throw = tuple[int, ...]
"""One die ``(v,)`` (full-spread option, R11) or two dice ``(a, b)``; doubles count four times."""

DEFAULT_OPTIONS = WelshOptions()


def check_throw(throw: Sequence[int]) -> Throw:
    """Validate a throw: one or two dice with values 1..6."""
    t = tuple(throw)
    if len(t) not in (1, 2) or any(not isinstance(v, int) or not 1 <= v <= 6 for v in t):
        raise InvalidDiceError(f"throw {throw!r}: give one or two dice with values 1-6, e.g. (6, 4)")
    return t


def dice_pool(throw: Throw) -> tuple[int, ...]:
    """The die values a throw provides: doubles count twice over (R7)."""
    if len(throw) == 2 and throw[0] == throw[1]:
        return (throw[0],) * 4
    return tuple(sorted(throw, reverse=True))


def is_doubles(throw: Throw) -> bool:
    return len(throw) == 2 and throw[0] == throw[1]


def is_skinny_seven(throw: Throw) -> bool:
    return len(throw) == 2 and sorted(throw) == [2, 5]


@dataclass(frozen=True, slots=True)
class Step:
    """One man moved by one (single or combined) value, in the mover's race coordinates."""

    frm: int
    to: int
    values: tuple[int, ...]
    backward: bool = False
    hit: bool = False

    def __str__(self) -> str:
        vals = "+".join(str(v) for v in self.values)
        mark = "*" if self.hit else ""
        arrow = "<" if self.backward else "/"
        return f"{label(self.frm)}{arrow}{label(self.to)}{mark}({vals})"


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: its steps and the position it leads to."""

    player: int
    throw: Throw
    steps: tuple[Step, ...]
    result: WelshPosition
    dice_used: int
    backward: bool
    hits: int
    checked_out: int
    ending: str | None = None
    """None, "checkout" (all 15 off), "three_on_roof" (R14) or "boxes_out" (R19)."""

    @property
    def dance(self) -> bool:
        """The turn ends with a man of the mover still on the roof (R16)."""
        return self.result.on_roof(self.player) > 0 and self.ending is None

    def notation(self) -> str:
        return " ".join(str(s) for s in self.steps) if self.steps else "(no move)"

    def __str__(self) -> str:
        return self.notation()


def parse_steps(text: str) -> list[tuple[int, int, bool]]:
    """Parse ``"F6/N6 N6/N2"`` (``<`` for a backward step) into (from, to, backward) triples."""
    out = []
    for token in text.split():
        token = token.split("(")[0].rstrip("*")
        backward = "<" in token
        a, sep, b = token.partition("<" if backward else "/")
        if not sep:
            raise ValueError(f"step {token!r}: write FROM/TO, e.g. F6/N6, or FROM<TO for a rover moving back")
        out.append((parse_label(a), parse_label(b), backward))
    return out


# ---- the generator -----------------------------------------------------------------------------

_Key = tuple[Side, Side, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]


class _Ctx:
    __slots__ = (
        "doubles",
        "skinny",
        "skinny_each",
        "protected",
        "hit_and_stop",
        "enter_above_six",
        "back_ok",
        "continue_crossing",
        "relax",
        "any_back",
    )

    def __init__(
        self, throw: Throw, opp_protected: frozenset[int], opts: WelshOptions, relax: frozenset[str] = frozenset()
    ) -> None:
        self.doubles = is_doubles(throw)
        self.skinny = is_skinny_seven(throw) and "skinny" not in relax
        self.skinny_each = opts.skinny_seven_each_die
        self.protected = frozenset() if "protected" in relax else opp_protected
        self.hit_and_stop = opts.hit_and_stop and "hit_stop" not in relax
        self.enter_above_six = opts.enter_above_six
        self.back_ok = (not self.doubles or "backward_doubles" in relax) and (
            len(throw) == 2 or opts.rover_backward_single_die
        )
        self.continue_crossing = opts.cross_then_continue
        self.relax = relax
        self.any_back = "backward_any" in relax


#: diagnosis: a rule relaxed in the generator -> the C.26 alert for breaking it
RELAXATIONS: dict[str, str] = {
    "roof_first": "WEL_ROOF_ENTRY_FIRST",
    "protected": "WEL_ILLEGAL_SETTLE",
    "hit_stop": "WEL_HIT_THEN_MOVED",
    "skinny": "WEL_SKINNY_SEVEN_BAR_CROSS",
    "stream": "WEL_STREAM_NOT_EXACT",
    "two_full": "WEL_TWO_FULL_SPIKES",
    "backward_any": "WEL_BACKWARD_NOT_ROVER",
    "backward_doubles": "WEL_BACKWARD_ON_DOUBLES",
    "checkout_not_home": "WEL_CHECKOUT_NOT_ALL_HOME",
    "bust": "WEL_CHECKOUT_BUST",
    "six_must": "WEL_SIX_MUST_VIOLATED",
    "maximise": "WEL_FORWARD_MOVE_WAIVED",
}


def _value_choices(rem: tuple[int, ...], doubles: bool) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """(value, dice used, dice left) for each way to use some remaining dice in one step."""
    if not rem:
        return []
    if doubles:
        d = rem[0]
        return [(d * j, rem[:j], rem[j:]) for j in range(1, len(rem) + 1)]
    if len(rem) == 1:
        return [(rem[0], rem, ())]
    a, b = rem[0], rem[1]
    return [(a, (a,), (b,)), (b, (b,), (a,)), (a + b, (a, b), ())]


def _remove(t: tuple[int, ...], r: int) -> tuple[int, ...]:
    i = t.index(r)
    return t[:i] + t[i + 1 :]


def _add(t: tuple[int, ...], r: int) -> tuple[int, ...]:
    return tuple(sorted(t + (r,)))


def _children(
    me: Side,
    opp: Side,
    rem: tuple[int, ...],
    frozen: tuple[int, ...],
    rovers: tuple[int, ...],
    ctx: _Ctx,
    forward_only: bool = False,
    shuffle: _Rng | None = None,
) -> Iterator[tuple[Step, Side, Side, tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Every legal single step from a mid-turn state (rule 1 of the module docstring).

    With ``shuffle`` the sources and values are tried in a random order (for :func:`sample_play`,
    which takes the first step found)."""
    choices = _value_choices(rem, ctx.doubles)
    if not choices:
        return
    relax = ctx.relax
    if me[ROOF] and "roof_first" not in relax:
        sources: Sequence[int] = (ROOF,)
    else:
        sources = [r for r in range(0, 25) if me[r]]
    if shuffle is not None:
        sources = list(sources)
        shuffle.shuffle(sources)
        shuffle.shuffle(choices)
    all_home_now = (me[ROOF] == 0 and sum(me[1:19]) == 0) or "checkout_not_home" in relax
    for r in sources:
        n_frozen = frozen.count(r) if frozen else 0
        n_rover = rovers.count(r) if rovers else 0
        movable = me[r] - n_frozen
        if movable <= 0:
            continue
        n_plain = movable - n_rover
        for value, used, left in choices:
            # forward
            if r == ROOF:
                # W4: a value v enters on Back v; above 6 only with the enter_above_six option
                # (then the man lands at race coordinate v in the Far-Outer board)
                limit = 12 if ctx.enter_above_six else 6
                fwd: Sequence[tuple[int, bool]] = ((value, False),) if value <= limit else ()
            else:
                fwd = forward_paths(r, used, ctx.continue_crossing)
                if relax:
                    fwd = _relaxed_forward(r, value, fwd, relax)
            movers: list[bool] = []  # is the moving man a rover?
            if n_plain > 0:
                movers.append(False)
            if n_rover > 0:
                movers.append(True)
            for to, over_bar in fwd:
                if over_bar and ctx.skinny and (ctx.skinny_each or len(used) > 1):
                    continue  # R9 Skinny Sevens
                res = _settle(me, opp, r, to, ctx, all_home_now)
                if res is None:
                    continue
                nme, nopp, hit = res
                step = Step(r, to, used, False, hit)
                for is_rover in movers:
                    nfrozen = frozen
                    nrovers = rovers
                    if is_rover:
                        nrovers = _remove(rovers, r)
                        if to != OFF and not (hit and ctx.hit_and_stop):
                            nrovers = _add(nrovers, to)
                    if hit and ctx.hit_and_stop:
                        nfrozen = _add(frozen, to)
                    yield step, nme, nopp, left, nfrozen, nrovers
            if forward_only or not ctx.back_ok or r == ROOF or (n_rover == 0 and not ctx.any_back):
                continue
            for to, over_bar in backward_paths(r, used, ctx.continue_crossing):
                if over_bar and ctx.skinny and (ctx.skinny_each or len(used) > 1):
                    continue
                res = _settle(me, opp, r, to, ctx, False)
                if res is None:
                    continue
                nme, nopp, hit = res
                if n_rover == 0:  # only with the backward_any relaxation (diagnosis)
                    nfrozen = _add(frozen, to) if hit and ctx.hit_and_stop else frozen
                    yield Step(r, to, used, True, hit), nme, nopp, left, nfrozen, rovers
                    continue
                nrovers = _remove(rovers, r)
                nfrozen = frozen
                if hit and ctx.hit_and_stop:
                    nfrozen = _add(frozen, to)
                else:
                    nrovers = _add(nrovers, to)
                yield Step(r, to, used, True, hit), nme, nopp, left, nfrozen, nrovers


def _relaxed_forward(
    r: int, value: int, fwd: Sequence[tuple[int, bool]], relax: frozenset[str]
) -> list[tuple[int, bool]]:
    """Extra destinations a relaxed rule would allow (for :func:`diagnose` only)."""
    out = list(fwd)
    if "stream" in relax and 7 <= r <= 12 and 13 <= r + value <= 24:
        out.append((r + value, False))  # across the stream without the exact value
    if "bust" in relax and r >= 19 and r + value > 25:
        out.append((OFF, False))  # a bust used to check out
    return out


def _settle(
    me: Side, opp: Side, frm: int, to: int, ctx: _Ctx, all_home_now: bool
) -> tuple[Side, Side, bool] | None:
    """The sides after a man moves frm -> to, or None if he may not settle there."""
    if to == OFF:
        if not all_home_now:
            return None  # R18: only when all remaining men are in Home
        lme = list(me)
        lme[frm] -= 1
        lme[OFF] += 1
        return tuple(lme), opp, False
    if me[to] >= FULL_SPIKE:
        return None  # R10
    theirs = opp[25 - to]
    hit = False
    if theirs:
        if theirs >= 2 or to in ctx.protected:
            return None  # R9 covered spike; R11 protected full spread
        hit = True
    lme = list(me)
    lme[frm] -= 1
    lme[to] += 1
    if hit:
        lopp = list(opp)
        lopp[25 - to] -= 1
        lopp[ROOF] += 1
        return tuple(lme), tuple(lopp), True
    return tuple(lme), opp, False


def _protected_spikes(opp: Side) -> frozenset[int]:
    """Spikes (mover's coordinates) of the opponent's full spreads (R11)."""
    out: set[int] = set()
    for q in range(4):
        if opp[6 * q + 1 : 6 * q + 7] == (1, 1, 1, 1, 1, 1):
            out.update(25 - r for r in quarter_spikes(q))
    return frozenset(out)


def _two_full(me: Side) -> bool:
    n = 0
    for r in range(1, 25):
        if me[r] == FULL_SPIKE:
            n += 1
    return n >= 2


def boxes_out_applies(position: WelshPosition, player: int, throw: Throw) -> bool:
    """R19: exactly four men left, all in Home, and a throw of 6-6."""
    me = position.men[player]
    return throw == (6, 6) and me[OFF] == MEN - 4 and position.all_home(player)


def legal_plays(
    position: WelshPosition,
    player: int,
    throw: Sequence[int],
    options: WelshOptions = DEFAULT_OPTIONS,
    rovers: Sequence[int] | None = None,
    relax: frozenset[str] = frozenset(),
) -> list[Play]:
    """Every legal play of ``throw`` by ``player``, one per distinct result (C.12.4).

    ``rovers`` are the race coordinates of the player's activated rovers (C.12.1); by default
    those alone in their quarter in ``position``, which must be the position at the start of
    the turn.  An empty play (no step) is returned when nothing can be played.  ``relax`` names
    rules to switch off (keys of :data:`RELAXATIONS`); it exists for :func:`diagnose`.
    """
    t = check_throw(throw)
    me, opp = position.men[player], position.men[1 - player]
    if options.boxes_out_automatic and boxes_out_applies(position, player, t):
        steps = tuple(Step(r, OFF, ()) for r in range(19, 25) for _ in range(me[r]))
        lme = list(me)
        for r in range(19, 25):
            lme[r] = 0
        lme[OFF] = MEN
        result = _make(player, tuple(lme), opp)
        return [Play(player, t, steps, result, 4, False, 0, 4, "boxes_out")]
    active = tuple(sorted(position.rovers(player) if rovers is None else rovers))
    ctx = _Ctx(t, _protected_spikes(opp), options, relax)
    pool = dice_pool(t)
    total = len(pool)
    start_off = me[OFF]

    seen: dict[_Key, tuple[Step, ...]] = {}
    stack: list[tuple[Side, Side, tuple[int, ...], tuple[int, ...], tuple[int, ...], bool, tuple[Step, ...]]]
    stack = [(me, opp, pool, (), active, False, ())]
    while stack:
        cme, copp, rem, frozen, rov, back, steps = stack.pop()
        key = (cme, copp, rem, frozen, rov, back)
        if key in seen:
            continue
        seen[key] = steps
        if cme[OFF] == MEN or copp[ROOF] >= 3:
            continue  # the game is over: the turn ends here
        for step, nme, nopp, left, nfrozen, nrov in _children(cme, copp, rem, frozen, rov, ctx):
            stack.append((nme, nopp, left, nfrozen, nrov, back or step.backward, steps + (step,)))

    # classify the candidate end states
    cands: list[tuple[_Key, tuple[Step, ...], int, bool, str | None]] = []
    for key, steps in seen.items():
        cme, copp, rem, _frozen, _rov, back = key
        ending = "checkout" if cme[OFF] == MEN else ("three_on_roof" if copp[ROOF] >= 3 else None)
        used = total if ending else total - len(rem)
        if ending is None and _two_full(cme) and "two_full" not in relax:
            continue  # (a) R10
        cands.append((key, steps, used, cme[OFF] > start_off, ending))

    def six_must(cs: list[tuple[_Key, tuple[Step, ...], int, bool, str | None]]) -> list[
        tuple[_Key, tuple[Step, ...], int, bool, str | None]
    ]:
        if 6 in t and any(c[3] for c in cs):
            return [c for c in cs if c[3]]
        return cs

    if "six_must" in relax:
        pass
    elif options.six_must_before_maximise:
        cands = six_must(cands)  # (b) R18, W21
    if "maximise" in relax:
        return _distinct(player, t, start_off, cands)

    forward = [c for c in cands if not c[0][5]]
    backward = [c for c in cands if c[0][5]]
    kept = []
    if forward:
        best = max(c[2] for c in forward)
        fw = [c for c in forward if c[2] == best]
        if not ctx.doubles and total == 2 and best == 1 and pool[0] != pool[1]:
            larger = pool[0]
            big = [c for c in fw if c[0][2] != (larger,)]
            if big:
                fw = big  # (c) R7: the larger die
        kept.extend(fw)
    for c in backward:
        cme, copp, rem, frozen, rov, _b = c[0]
        if c[4] is None and rem and _has_forward_use(cme, copp, rem, frozen, rov, ctx):
            continue  # (d) R20, W26: a forward move cannot be waived
        kept.append(c)
    if not options.six_must_before_maximise and "six_must" not in relax:
        kept = six_must(kept)
    return _distinct(player, t, start_off, kept)


def _distinct(
    player: int, t: Throw, start_off: int, kept: list[tuple[_Key, tuple[Step, ...], int, bool, str | None]]
) -> list[Play]:
    by_result: dict[tuple[Side, Side], Play] = {}
    for key, steps, used, _co, ending in kept:
        cme, copp = key[0], key[1]
        rk = (cme, copp)
        old = by_result.get(rk)
        if old is not None and len(old.steps) <= len(steps):
            continue
        by_result[rk] = Play(
            player,
            t,
            steps,
            _make(player, cme, copp),
            used,
            key[5],
            sum(1 for s in steps if s.hit),
            cme[OFF] - start_off,
            ending,
        )
    return sorted(by_result.values(), key=lambda p: p.notation())


def _has_forward_use(
    me: Side, opp: Side, rem: tuple[int, ...], frozen: tuple[int, ...], rov: tuple[int, ...], ctx: _Ctx
) -> bool:
    for _step, nme, _nopp, _left, _f, _r in _children(me, opp, rem, frozen, rov, ctx, forward_only=True):
        if not _two_full(nme):
            return True
    return False


def _make(player: int, me: Side, opp: Side) -> WelshPosition:
    # the generator only builds positions that keep the invariants (the random-game benchmark
    # checks every one of them independently with position_problem)
    return WelshPosition.trusted((me, opp) if player == 0 else (opp, me))


def legal_results(
    position: WelshPosition, player: int, throw: Sequence[int], options: WelshOptions = DEFAULT_OPTIONS
) -> list[WelshPosition]:
    """The distinct positions ``throw`` can legally lead to (what the referee matches against)."""
    return [p.result for p in legal_plays(position, player, throw, options)]


def can_check_out_all(
    position: WelshPosition, player: int, throw: Sequence[int], options: WelshOptions = DEFAULT_OPTIONS
) -> bool:
    """Some legal play of ``throw`` checks out every remaining man (C.20's one-throw win)."""
    return any(p.result.checked_out(player) == MEN for p in legal_plays(position, player, throw, options))


def sample_play(
    position: WelshPosition,
    player: int,
    throw: Sequence[int],
    rng: _Rng,
    options: WelshOptions = DEFAULT_OPTIONS,
    rovers: Sequence[int] | None = None,
    walks: int = 3,
) -> Play:
    """A random legal play, usually without listing them all (for random games and benchmarks).

    A random walk of legal steps is kept when it is certainly one of :func:`legal_plays`'s
    results: it used every die (or ended the game), does not end with two full spikes, leaves no
    forward use after a backward move, and Six Must cannot bite.  Up to ``walks`` walks are
    tried; otherwise one of the full list is chosen.  The plays are not uniformly distributed.
    """
    t = check_throw(throw)
    me, opp = position.men[player], position.men[1 - player]
    if options.boxes_out_automatic and boxes_out_applies(position, player, t):
        return legal_plays(position, player, t, options)[0]
    active = tuple(sorted(position.rovers(player) if rovers is None else rovers))
    ctx = _Ctx(t, _protected_spikes(opp), options)
    pool = dice_pool(t)
    outside = sum(me[0:19])
    # Six Must (R18) can bite only if every man outside Home can come in and one more die is left
    six_must_possible = 6 in t and outside + 1 <= len(pool)
    for _attempt in range(walks):
        cme, copp, rem, rov = me, opp, pool, active
        frozen: tuple[int, ...] = ()
        steps: list[Step] = []
        back = False
        stuck = False
        while rem and cme[OFF] < MEN and copp[ROOF] < 3:
            kid = next(_children(cme, copp, rem, frozen, rov, ctx, shuffle=rng), None)
            if kid is None:
                stuck = True
                break
            step, cme, copp, rem, frozen, rov = kid
            steps.append(step)
            back = back or step.backward
        ending = "checkout" if cme[OFF] == MEN else ("three_on_roof" if copp[ROOF] >= 3 else None)
        ok = ending is not None or not rem or (back and stuck)
        if ok and ending is None and _two_full(cme):
            ok = False
        checked = cme[OFF] - me[OFF]
        if ok and six_must_possible and not checked:
            break  # Six Must might apply: decide with the full list
        if ok:
            used = len(pool) if ending else len(pool) - len(rem)
            return Play(
                player,
                t,
                tuple(steps),
                _make(player, cme, copp),
                used,
                back,
                sum(1 for s in steps if s.hit),
                checked,
                ending,
            )
    plays = legal_plays(position, player, t, options, active)
    return plays[rng.randrange(len(plays))]


class _Rng(Protocol):
    """The part of :class:`random.Random` the sampler uses."""

    def randrange(self, n: int, /) -> int: ...

    def shuffle(self, x: list[Any], /) -> None: ...


def diagnose(
    position: WelshPosition,
    player: int,
    throw: Sequence[int],
    observed: WelshPosition | tuple[Side, Side],
    options: WelshOptions = DEFAULT_OPTIONS,
    rovers: Sequence[int] | None = None,
) -> list[str]:
    """Why ``observed`` is not a legal result of ``throw``: the C.26 alert codes.

    Returns [] for a legal result.  Otherwise each rule whose relaxation (one at a time) makes
    ``observed`` reachable is named; ``WEL_ILLEGAL_SETTLE`` for a position that breaks R8 or R10
    by itself; ``WEL_ILLEGAL_PLAY`` when no single rule explains it.
    """
    if isinstance(observed, WelshPosition):
        target = observed
    else:
        problem = position_problem(observed[0], observed[1])
        if problem:
            settle = "mixed spike" in problem or "at most" in problem
            return ["WEL_ILLEGAL_SETTLE" if settle else "WEL_ILLEGAL_PLAY"]
        target = WelshPosition(observed)
    if target in {p.result for p in legal_plays(position, player, throw, options, rovers)}:
        return []
    codes = []
    for name, code in RELAXATIONS.items():
        results = {p.result for p in legal_plays(position, player, throw, options, rovers, frozenset({name}))}
        if target in results and code not in codes:
            codes.append(code)
    return codes or ["WEL_ILLEGAL_PLAY"]
