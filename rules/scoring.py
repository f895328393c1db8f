"""Scoring rules that look at the checkers: game results, resignations and the claim test.

* :func:`result_kind`: single, gammon or backgammon from the final position (STD Gammons and
  Backgammons; RG19 4.6.2; DIGEST A8.2).
* :func:`resignation_error` / :func:`check_resignation`: what a concession may be (RG19 4.5.1).
* :func:`claim_is_valid`: the claim test of RG19 4.5.2: the claim stands if the claimant achieves
  the claimed result or better when he rolls 1-2 and his opponent 6-6 on every future roll.

Players are 0 and 1 as in :mod:`rules.position` (:class:`rules.match.Player` is compatible).
"""

from __future__ import annotations

from rules.dice import Dice
from rules.match import ResignationError, ResultKind
from rules.position import BAR, Position

__all__ = [
    "result_kind",
    "game_winner",
    "possible_kinds",
    "resignation_error",
    "check_resignation",
    "claim_is_valid",
    "turns_to_finish",
    "race_bounds",
]


def _loser_backgammoned(position: Position, loser: int) -> bool:
    """Loser has a checker on the bar or in the winner's home board (loser's points 19..24)."""
    board = position.board(loser)
    return board[BAR] > 0 or any(board[p] for p in range(19, 25))


def result_kind(position: Position, winner: int) -> ResultKind:
    """The result if ``winner`` wins now (normally: has borne off his last checker).

    Single if the loser has borne off a checker; gammon if not; backgammon if also a loser's
    checker is on the bar or in the winner's home board (STD Gammons and Backgammons, RG19 4.6.2).
    Checkers out of play do not count as borne off (DIGEST A8.2).
    """
    loser = 1 - winner
    if position.borne_off(loser) > 0:
        return ResultKind.SINGLE
    if _loser_backgammoned(position, loser):
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


def game_winner(position: Position) -> int | None:
    """The player who has borne off all his checkers in play, or None."""
    for player in (0, 1):
        if position.has_won(player):
            return player
    return None


def possible_kinds(position: Position, loser: int) -> frozenset[ResultKind]:
    """The results a concession by ``loser`` may name now (RG19 4.5.1): gammon only if he has
    borne off nothing; backgammon only if also a checker of his is on the bar or in the
    opponent's home board."""
    kinds = {ResultKind.SINGLE}
    if position.borne_off(loser) == 0:
        kinds.add(ResultKind.GAMMON)
        if _loser_backgammoned(position, loser):
            kinds.add(ResultKind.BACKGAMMON)
    return frozenset(kinds)


def resignation_error(
    position: Position, loser: int, kind: ResultKind, *, require_no_contact: bool = True
) -> ResignationError | None:
    """Why ``loser`` may not concede ``kind`` now, or None (RG19 4.5.1, WB23 4.5, US09 4.9).

    ``require_no_contact``: RG19 and US09 allow concessions only once contact is broken (online
    sites allow them at any time; pass False to check only the possible outcome).
    """
    if require_no_contact and position.is_contact():
        return ResignationError(
            f"player {loser} concedes {kind.name.lower()} while the checkers are still in contact",
            "RG19 4.5.1",
        )
    if kind not in possible_kinds(position, loser):
        if kind is ResultKind.GAMMON or position.borne_off(loser) > 0:
            why = f"player {loser} has borne off {position.borne_off(loser)} checker(s), so no gammon is possible"
        else:
            why = f"player {loser} has no checker on the bar or in the opponent's home board, so no backgammon"
        return ResignationError(f"cannot concede {kind.name.lower()}: {why}", "RG19 4.5.1")
    return None


def check_resignation(position: Position, loser: int, kind: ResultKind, *, require_no_contact: bool = True) -> None:
    """Raise :class:`ResignationError` if the concession is not allowed (see :func:`resignation_error`)."""
    error = resignation_error(position, loser, kind, require_no_contact=require_no_contact)
    if error is not None:
        raise error


# ----------------------------------------------------------------------------------- claim test

_STATE_CAP = 400_000


def turns_to_finish(position: Position, player: int, roll: Dice | tuple[int, int] | str, goal: str,
                    first_roll: Dice | tuple[int, int] | str | None = None) -> int:
    """Fewest turns ``player`` needs to reach ``goal`` rolling ``roll`` every turn (no contact).

    ``goal``: ``"all_off"`` (bear off every checker), ``"one_off"`` (bear off one checker) or
    ``"escape"`` (no checker on the bar or in the opponent's home board, i.e. own points 19..24).
    ``first_roll`` replaces ``roll`` on the first turn (a claim made after rolling). Breadth-first
    over the distinct positions the player can reach; without contact the other side's checkers
    never interact, so each side's race is independent. Returns 0 if the goal already holds.
    """
    dice = Dice.coerce(roll)
    first = Dice.coerce(first_roll) if first_roll is not None else dice

    def done(pos: Position) -> bool:
        if goal == "all_off":
            return pos.has_won(player)
        if goal == "one_off":
            return pos.borne_off(player) > 0
        if goal == "escape":
            return not _loser_backgammoned(pos, player)
        raise ValueError(f"unknown goal {goal!r}; use 'all_off', 'one_off' or 'escape'")

    start = position.with_turn(player)
    if done(start):
        return 0
    frontier = [start]
    turns = 0
    while frontier:
        turns += 1
        roll_now = first if turns == 1 else dice
        following: set[Position] = set()
        for pos in frontier:
            for after in pos.resulting_positions(roll_now):
                if done(after):
                    return turns
                following.add(after.with_turn(player))
        frontier = list(following)
        if len(frontier) > _STATE_CAP:
            raise ValueError(
                f"claim test: more than {_STATE_CAP} positions after {turns} turns; position too far from the end"
            )
    raise ValueError("claim test: the goal cannot be reached")  # pragma: no cover - a race always ends


def _goal_distance(position: Position, player: int, goal: str) -> int:
    """Pips still to travel before ``goal`` can be reached (a lower bound on the pips to move)."""
    board = position.board(player)
    if goal == "all_off":
        return sum(point * board[point] for point in range(1, BAR + 1))
    if goal == "one_off":
        outside = sum((point - 6) * board[point] for point in range(7, BAR + 1))
        nearest = min((point for point in range(1, 7) if board[point]), default=0)
        return outside + (nearest if outside == 0 else 1)
    return sum((point - 18) * board[point] for point in range(19, BAR + 1))


def race_bounds(position: Position, player: int, roll: Dice | tuple[int, int] | str, goal: str,
                first_roll: Dice | tuple[int, int] | str | None = None) -> tuple[int, int]:
    """(lower, upper) bounds on :func:`turns_to_finish` without searching.

    Lower: the pips still to travel over the pips a turn moves (and, to bear all off, the checkers
    left over the checkers a turn can bear off). Upper: the turns a greedy player needs, choosing
    each turn the play that leaves the fewest pips to travel.
    """
    dice = Dice.coerce(roll)
    first = Dice.coerce(first_roll) if first_roll is not None else dice
    if _goal_done(position, player, goal):
        return 0, 0
    per_turn = sum(dice.moves)
    first_turn = sum(first.moves)
    distance = _goal_distance(position, player, goal)
    lower = 1 if distance <= first_turn else 1 + -(-(distance - first_turn) // per_turn)
    if goal == "all_off":
        left = position.in_play(player)
        lower = max(lower, 1 + max(0, -(-(left - len(first.moves)) // len(dice.moves))))
    pos = position.with_turn(player)
    turns = 0
    while True:
        turns += 1
        options = pos.resulting_positions(first if turns == 1 else dice)
        best = min(options, key=lambda p: (_goal_distance(p, player, goal), -p.borne_off(player)))
        if _goal_done(best, player, goal):
            return lower, max(lower, turns)
        pos = best.with_turn(player)
        if turns > 400:  # pragma: no cover - a race always ends
            return lower, 10**6


def _goal_done(pos: Position, player: int, goal: str) -> bool:
    if goal == "all_off":
        return pos.has_won(player)
    if goal == "one_off":
        return pos.borne_off(player) > 0
    return not _loser_backgammoned(pos, player)


def claim_is_valid(position: Position, claimant: int, kind: ResultKind,
                   claimant_roll: Dice | tuple[int, int] | str | None = None) -> bool:
    """The claim test of RG19 4.5.2 (DIGEST A8.6).

    Valid if ``claimant`` achieves ``kind`` or better when the game goes on with him rolling 1-2
    and his opponent 6-6 on every roll. He claims on his own turn, before rolling, or after
    rolling ``claimant_roll`` (DIGEST's interpretation: that roll is used for the current turn).
    Contact must be broken (RG19 4.5.2); otherwise a :class:`ResignationError` is raised.

    With no contact the two races are independent, so the test compares the claimant's fewest
    turns to bear off with the opponent's fewest turns to the event that spoils the claim
    (bearing off all for a single, one checker for a gammon, leaving the claimant's home board
    and the bar for a backgammon). The claimant moves first, so he wins the race on a tie.
    """
    if position.is_contact():
        raise ResignationError("a claim needs contact to be broken", "RG19 4.5.2")
    opponent = 1 - claimant
    goal = {ResultKind.SINGLE: "all_off", ResultKind.GAMMON: "one_off", ResultKind.BACKGAMMON: "escape"}[kind]
    goals = [goal] if kind is not ResultKind.BACKGAMMON else ["escape", "one_off"]
    # bounds first (cheap); search only when they overlap
    mine_lo, mine_hi = race_bounds(position, claimant, (1, 2), "all_off", first_roll=claimant_roll)
    theirs_bounds = [race_bounds(position, opponent, (6, 6), g) for g in goals]
    theirs_lo = min(lo for lo, _ in theirs_bounds)
    theirs_hi = min(hi for _, hi in theirs_bounds)
    if mine_hi <= theirs_lo:
        return True
    if mine_lo > theirs_hi:
        return False
    mine = turns_to_finish(position, claimant, (1, 2), "all_off", first_roll=claimant_roll)
    # a backgammon also needs the gammon: the opponent must bear off nothing before the end
    theirs = min(turns_to_finish(position, opponent, (6, 6), g) for g in goals)
    return mine <= theirs
