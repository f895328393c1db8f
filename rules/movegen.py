"""Legal plays under the standard rules, as distinct resulting positions.

The rules (STD Movement-1..4, Hitting and Entering, Bearing Off; RG19 4.2.2.1; DIGEST A5.1):

* both dice must be used if possible; if only one can be used and either could, the larger;
* a double is played as four moves of that number, as many as possible;
* a checker on the bar must enter before any other checker moves;
* bearing off only with every checker home; a die larger than the highest occupied point bears off
  from the highest point (the higher-point rule).

Plays that reach the same position are one play (as in GNU Backgammon): a play is identified by its
resulting position, and one representative step sequence is kept for its notation.

>>> from rules.position import Position
>>> plays = Position.start().legal_plays("31")
>>> len(plays), Play.parse("8/5 6/5") in plays, Play.parse("24/22") in plays
(16, True, False)
>>> str(plays.play_for(Position.start().apply("8/5 6/5", "31")))
'8/5 6/5'
"""

from __future__ import annotations

from collections.abc import Iterator

from rules.dice import Dice
from rules.errors import IllegalPlayError, InvalidPlayError
from rules.play import Play, Step
from rules.position import Board, Position

Key = tuple[Board, Board]
"""(mover's board, opponent's board) after a play, both in their owners' numbering."""

RawSteps = tuple[tuple[int, int, bool], ...]


# ----------------------------------------------------------------------------------- the core
def generate(my: Board, opp: Board, d1: int, d2: int) -> dict[Key, RawSteps]:
    """All distinct results of a roll for the mover with board ``my`` against ``opp``.

    Returns ``{(my_after, opp_after): steps}`` with one representative single-die step sequence
    ``((src, dst, hit), ...)`` per result. A player who cannot move gets one result, his own
    position, with no steps.
    """
    m = list(my)
    o = list(opp)
    if d1 == d2:
        return _gen_double(m, o, d1)
    return _gen_nondouble(m, o, d1, d2)


def _can_bear_off(m: list[int], s: int, t: int) -> bool:
    """May the checker on ``s`` (1..6) bear off with a die taking it to ``t <= 0``?"""
    # every checker must be home (points 1..6): STD Bearing Off, RG19 4.2.2
    for q in range(7, 26):
        if m[q]:
            return False
    if t == 0:
        return True
    # higher-point rule: a larger die bears off only from the highest occupied point
    for q in range(s + 1, 7):
        if m[q]:
            return False
    return True


def _open_sources(o: list[int], d: int) -> list[int]:
    """Points 24..1 from which a move of ``d`` is not blocked by a made point (bear-offs included;
    their legality is checked when played). Blocking is fixed during a turn: the opponent's
    checkers do not move, and a hit only empties a point that was not blocking."""
    return [s for s in range(24, 0, -1) if s <= d or o[25 - s + d] < 2]


def _gen_nondouble(m: list[int], o: list[int], a: int, b: int) -> dict[Key, RawSteps]:
    both: dict[Key, RawSteps] = {}
    single_hi: dict[Key, RawSteps] = {}
    single_lo: dict[Key, RawSteps] = {}
    hi = a if a > b else b
    open_a = _open_sources(o, a)
    open_b = _open_sources(o, b)
    enter_a = o[a] < 2  # entering with a lands on our point 25 - a, the opponent's point a
    enter_b = o[b] < 2
    for x, y, open_x, open_y, enter_x, enter_y in (
        (a, b, open_a, open_b, enter_a, enter_b),
        (b, a, open_b, open_a, enter_b, enter_a),
    ):
        single = single_hi if x == hi else single_lo
        if m[25]:
            srcs1: list[int] = [25] if enter_x else []
        else:
            srcs1 = [s for s in open_x if m[s]]
        for s in srcs1:
            t = s - x
            if t <= 0:
                if not _can_bear_off(m, s, t):
                    continue
                t = 0
            m[s] -= 1
            m[t] += 1
            hit = t > 0 and o[25 - t] == 1
            if hit:
                o[25 - t] = 0
                o[25] += 1
            moved2 = False
            if m[25]:
                srcs2: list[int] = [25] if enter_y else []
            else:
                srcs2 = open_y
            for s2 in srcs2:
                if not m[s2]:
                    continue
                t2 = s2 - y
                if t2 <= 0:
                    if not _can_bear_off(m, s2, t2):
                        continue
                    t2 = 0
                moved2 = True
                m[s2] -= 1
                m[t2] += 1
                hit2 = t2 > 0 and o[25 - t2] == 1
                if hit2:
                    o[25 - t2] = 0
                    o[25] += 1
                key = (tuple(m), tuple(o))
                if key not in both:
                    both[key] = ((s, t, hit), (s2, t2, hit2))
                if hit2:
                    o[25] -= 1
                    o[25 - t2] = 1
                m[t2] -= 1
                m[s2] += 1
            if not moved2 and not both:
                key = (tuple(m), tuple(o))
                if key not in single:
                    single[key] = ((s, t, hit),)
            if hit:
                o[25] -= 1
                o[25 - t] = 1
            m[t] -= 1
            m[s] += 1
    if both:
        return both
    if single_hi:
        return single_hi
    if single_lo:
        return single_lo
    return {(tuple(m), tuple(o)): ()}


def _gen_double(m: list[int], o: list[int], d: int) -> dict[Key, RawSteps]:
    # Moves are generated with non-increasing source points: any multiset of moves can be played in
    # that order (a checker moved on continues from a lower point; bar entry and bearing off only get
    # easier), so every distinct result is still found while the permutations are not.
    results: dict[Key, RawSteps] = {}
    stack: list[tuple[int, int, bool]] = []
    depth0 = 0
    if m[25]:
        # entering comes first and is the same move for every checker on the bar
        if o[d] >= 2:
            return {(tuple(m), tuple(o)): ()}
        t = 25 - d
        while m[25] and depth0 < 4:
            hit = o[d] == 1
            if hit:
                o[d] = 0
                o[25] += 1
            m[25] -= 1
            m[t] += 1
            stack.append((25, t, hit))
            depth0 += 1
        if m[25] or depth0 == 4:
            return {(tuple(m), tuple(o)): tuple(stack)}
    cand = _open_sources(o, d)
    ncand = len(cand)
    best = 0

    def rec(depth: int, i: int) -> None:
        nonlocal best
        moved = False
        if depth < 4:
            for j in range(i, ncand):
                s = cand[j]
                if not m[s]:
                    continue
                t = s - d
                if t <= 0:
                    if not _can_bear_off(m, s, t):
                        continue
                    t = 0
                moved = True
                m[s] -= 1
                m[t] += 1
                hit = t > 0 and o[25 - t] == 1
                if hit:
                    o[25 - t] = 0
                    o[25] += 1
                stack.append((s, t, hit))
                rec(depth + 1, j)
                stack.pop()
                if hit:
                    o[25] -= 1
                    o[25 - t] = 1
                m[t] -= 1
                m[s] += 1
        if not moved and depth >= best:
            if depth > best:
                best = depth
                results.clear()
            key = (tuple(m), tuple(o))
            if key not in results:
                results[key] = tuple(stack)

    rec(depth0, 0)
    return results


# ------------------------------------------------------------------------------ the public view
def _result_position(pos: Position, key: Key) -> Position:
    my, opp = key
    t = pos.turn
    if t == 0:
        return Position._unchecked(my, opp, 1, pos.out_of_play)
    return Position._unchecked(opp, my, 0, pos.out_of_play)


class LegalPlays:
    """The legal plays of the player on roll for one roll: a lazy view like python-chess's
    ``board.legal_moves`` (computed on first use).

    Supports ``len``, iteration (one :class:`Play` per distinct resulting position) and ``in`` with
    a :class:`Play`, a notation string or a resulting :class:`Position`.
    """

    __slots__ = ("position", "dice", "_raw", "_by_position")

    def __init__(self, position: Position, dice: Dice | tuple[int, int] | str) -> None:
        self.position = position
        self.dice = Dice.coerce(dice)
        self._raw: dict[Key, RawSteps] | None = None
        self._by_position: dict[Position, Key] | None = None

    def _generate(self) -> dict[Key, RawSteps]:
        """The raw results (boards only; cheap)."""
        if self._raw is None:
            my, opp = self.position.mover_view()
            self._raw = generate(my, opp, self.dice.first, self.dice.second)
        return self._raw

    def _positions(self) -> dict[Position, Key]:
        """Resulting position -> raw key; a :class:`Play` is only built when one is asked for."""
        if self._by_position is None:
            self._by_position = {_result_position(self.position, key): key for key in self._generate()}
        return self._by_position

    def _play(self, key: Key) -> Play:
        return Play(Step(*st) for st in self._generate()[key])

    def __len__(self) -> int:
        return len(self._generate())

    def __iter__(self) -> Iterator[Play]:
        return (Play(Step(*st) for st in steps) for steps in self._generate().values())

    def __bool__(self) -> bool:
        """True when the mover can move at all (False for a dance or a blocked position)."""
        raw = self._generate()
        return not (len(raw) == 1 and not next(iter(raw.values())))

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Position):
            return item in self._positions()
        if isinstance(item, (Play, str)):
            try:
                apply_play(self.position, item, self.dice, legal=self)
            except (IllegalPlayError, InvalidPlayError):
                return False
            return True
        return False

    def positions(self) -> list[Position]:
        """The distinct resulting positions (the opponent then on roll)."""
        return list(self._positions())

    def items(self) -> list[tuple[Play, Position]]:
        return [(self._play(key), pos) for pos, key in self._positions().items()]

    def play_for(self, after: Position) -> Play:
        """The notation of the play reaching ``after`` (as gnubg rebuilds it from before/after/dice)."""
        try:
            key = self._positions()[after]
        except KeyError:
            raise IllegalPlayError(
                f"no legal play with {self.dice} reaches {after!r} from {self.position!r}"
            ) from None
        return self._play(key)

    def __repr__(self) -> str:
        plays = ", ".join(str(p) or "(no play)" for p in self)
        return f"<LegalPlays({plays}) for {self.dice}>"


def legal_plays(position: Position, dice: Dice | tuple[int, int] | str) -> LegalPlays:
    return LegalPlays(position, dice)


def resulting_positions(position: Position, dice: Dice | tuple[int, int] | str) -> list[Position]:
    """Distinct positions the player on roll can reach with ``dice`` (the referee scores these)."""
    return LegalPlays(position, dice).positions()


def notation(before: Position, after: Position, dice: Dice | tuple[int, int] | str) -> Play:
    """Rebuild the play from the positions before and after and the dice (like gnubg does)."""
    return LegalPlays(before, dice).play_for(after)


# ------------------------------------------------------------------------- applying a notation
def _literal_results(my: Board, opp: Board, steps: tuple[Step, ...], dice: tuple[int, ...]) -> set[Key]:
    """Positions a written play can mean: each written step walked with some order of the unused dice
    (intermediate landings hit blots), so ``24/13`` with 6-5 tries 24/18/13 and 24/19/13."""
    out: set[Key] = set()
    m = list(my)
    o = list(opp)

    def walk(i: int, remaining: tuple[int, ...]) -> None:
        if i == len(steps):
            out.add((tuple(m), tuple(o)))
            return
        src, dst = steps[i].src, steps[i].dst
        if not m[src]:
            return
        # choose an ordered sub-sequence of the remaining dice carrying the checker from src to dst
        def path(at: int, rem: tuple[int, ...]) -> None:
            for j, d in enumerate(rem):
                if d in rem[:j]:
                    continue  # the same value was tried already
                t = at - d
                final = t == dst or (dst == 0 and t <= 0)
                if not final and t <= dst:
                    continue
                if t > 0 and o[25 - t] >= 2:
                    continue
                hit = t > 0 and o[25 - t] == 1
                if hit:
                    o[25 - t] = 0
                    o[25] += 1
                rest = rem[:j] + rem[j + 1:]
                if final:
                    m[src] -= 1
                    m[max(t, 0)] += 1
                    walk(i + 1, rest)
                    m[max(t, 0)] -= 1
                    m[src] += 1
                else:
                    path(t, rest)
                if hit:
                    o[25] -= 1
                    o[25 - t] = 1

        path(src, remaining)

    walk(0, dice)
    return out


def apply_play(position: Position, play: Play | str, dice: Dice | tuple[int, int] | str,
               legal: LegalPlays | None = None) -> Position:
    """The position after ``play`` (notation or :class:`Play`) with ``dice``.

    Raises :class:`InvalidPlayError` for unreadable notation and :class:`IllegalPlayError` when the
    play is not one of the legal plays, with the reason where it is a common one.
    """
    if isinstance(play, str):
        play = Play.parse(play)
    view = legal if legal is not None else LegalPlays(position, dice)
    raw = view._generate()
    my, opp = position.mover_view()
    keys = _literal_results(my, opp, play.steps, view.dice.moves)
    legal_cands = [_result_position(position, k) for k in keys if k in raw]
    if legal_cands:
        if len(legal_cands) > 1:
            # A combined move that can pass a blot or not: take the reading whose number of hits
            # matches the '*' written; with none written, no hit (gnubg writes intermediate hits).
            them = 1 - position.turn
            marked = play.hits
            legal_cands.sort(key=lambda c: (abs(c.on_bar(them) - position.on_bar(them) - marked), c.on_bar(them)))
        return legal_cands[0]
    raise IllegalPlayError(_why_illegal(position, play, view, bool(keys)))


def _dice_used(play: Play, dice: Dice) -> int:
    """How many dice a written play uses (for error messages)."""
    used = 0
    for st in play.steps:
        dist = st.src - st.dst
        if dice.is_double:
            used += -(-dist // dice.first)
        elif dist in (dice.first, dice.second) or (st.dst == 0 and dist < dice.high):
            used += 1
        else:
            used += 2
    return used


def _why_illegal(position: Position, play: Play, view: LegalPlays, walkable: bool) -> str:
    dice = view.dice
    head = f"{str(play) or '(no play)'} with {dice} is not legal for player {position.turn}"
    results = list(view)
    options = [str(p) or "(no play)" for p in results[:6]]
    more = "" if len(results) <= 6 else f" ... ({len(results)} in all)"
    allowed = f"; legal plays: {', '.join(options)}{more}"
    my, _ = position.mover_view()
    entering = sum(1 for s in play.steps if s.src == 25)
    if my[25] and entering < my[25] and any(s.src != 25 for s in play.steps):
        return f"{head}: a checker on the bar must enter before any other checker moves (RG19 4.2.2.1){allowed}"
    if not walkable:
        return f"{head}: the written moves do not fit the dice or land on a made point{allowed}"
    max_dice = max((len(p.steps) for p in results), default=0)
    used = _dice_used(play, dice)
    if used < max_dice:
        return (f"{head}: it uses {used} of the dice but {max_dice} can be played; all must be used "
                f"when possible (STD Movement-3){allowed}")
    if max_dice == 1 and not dice.is_double:
        return (f"{head}: only one die can be played, and then the larger one when it can be "
                f"(STD Movement-3){allowed}")
    return f"{head}{allowed}"
