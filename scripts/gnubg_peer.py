"""Peer check of the rules engine against GNU Backgammon (Debian package ``gnubg``).

Two checks, both comparing *results*, never code paths:

* **legal plays** — for random positions and rolls (random games from the start, so hits, bar entry
  and bear-offs occur naturally, plus synthetic bar-entry and bear-off positions), gnubg lists its
  plays (``set board``, ``set dice``, ``hint``; see scripts/gnubg_worker.py). Each gnubg play is
  applied to the board literally (gnubg writes every landing point where it hits, so its notation
  determines the result) and the *set of resulting positions* is compared with
  :func:`rules.movegen.generate`. Any difference is a disagreement.
* **IDs** — our Position ID + Match ID are read by gnubg (``set gnubgid``) and must give the board
  we meant and the same IDs back; our XGID is read by gnubg (``set xgid``) and must give the
  Position ID and Match ID our own XGID reader gives.

Usage: ``python scripts/gnubg_peer.py [--cases 100000] [--ids 1000] [--jobs 6] [--seed 1]``.
gnubg sleeps about 10 ms inside every ``hint`` (its task queue polls) while using ~0.3 ms of CPU, so
the work is split over several gnubg processes; they are mostly idle, so this stays light.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.dice import ALL_ROLLS  # noqa: E402
from rules.ids import (  # noqa: E402
    MatchInfo,
    from_xgid,
    match_from_id,
    match_id,
    position_id,
    to_xgid,
)
from rules.movegen import generate  # noqa: E402
from rules.play import Play, Step  # noqa: E402
from rules.position import BAR, Board, Position  # noqa: E402

WORKER = Path(__file__).resolve().parent / "gnubg_worker.py"
Key = tuple[Board, Board]


def find_gnubg() -> str | None:
    """Path of the gnubg executable (Debian installs it in /usr/games), or None."""
    found = shutil.which("gnubg")
    if found:
        return found
    return "/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None


# ------------------------------------------------------------------------------------ cases
@dataclass(frozen=True)
class Case:
    position: Position
    dice: tuple[int, int]
    kind: str


def _random_game_positions(rng: random.Random, limit: int) -> list[Position]:
    pos = Position.start(turn=rng.randrange(2))
    out: list[Position] = []
    for _ in range(400):
        if pos.is_game_over() or len(out) >= limit:
            break
        out.append(pos)
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        my, opp = pos.mover_view()
        results = list(generate(my, opp, d1, d2))
        m, o = results[rng.randrange(len(results))]
        pos = Position._unchecked(m, o, 1, pos.out_of_play) if pos.turn == 0 else Position._unchecked(
            o, m, 0, pos.out_of_play)
    return out


def _scatter(rng: random.Random, n: int, allowed: Sequence[int], board: list[int]) -> None:
    for _ in range(n):
        board[rng.choice(allowed)] += 1


def _synthetic(rng: random.Random, kind: str) -> Position:
    """A random position of ``kind`` ('bearoff' or 'bar'), mover = player 0 then maybe switched."""
    while True:
        me = [0] * 26
        op = [0] * 26
        if kind == "bearoff":
            in_play = rng.randint(1, 15)
            _scatter(rng, in_play, range(1, 7), me)
            if rng.random() < 0.25:  # an opponent checker back in our home board or on the bar
                op[rng.choice([19, 20, 21, 22, 23, 24, BAR])] += 1
            opp_in = rng.randint(1, 15 - sum(op))
            free = [q for q in range(1, 25) if q < 19 or me[25 - q] == 0]
            _scatter(rng, opp_in, free, op)
        else:  # bar entry against a home board with some points made
            me[BAR] = rng.randint(1, 4)
            made = rng.sample(range(1, 7), rng.randint(0, 6))
            for q in made:
                op[q] = 2
            free_me = [q for q in range(1, 25) if op[25 - q] == 0]
            _scatter(rng, rng.randint(0, 15 - me[BAR]), free_me, me)
            left = 15 - sum(op)
            free_op = [q for q in range(1, 25) if me[25 - q] == 0]
            _scatter(rng, rng.randint(1, max(1, left)), free_op, op)
            op[BAR] += rng.random() < 0.2
        me[0] = 15 - sum(me[1:])
        op[0] = 15 - sum(op[1:])
        if me[0] < 0 or op[0] < 0:
            continue
        if any(me[q] and op[25 - q] for q in range(1, 25)):
            continue
        turn = rng.randrange(2)
        return Position(me, op, 0).switch_sides() if turn else Position(me, op, 0)


def random_cases(n: int, seed: int = 1) -> list[Case]:
    """``n`` reproducible (position, roll) cases: 60% from random games, 20% bar entry, 20% bear-off;
    every fourth roll is a double so doubles are well covered."""
    rng = random.Random(seed)
    cases: list[Case] = []
    pool: list[Position] = []
    i = 0
    while len(cases) < n:
        r = rng.random()
        if r < 0.6:
            if not pool:
                pool = _random_game_positions(rng, 200)
                rng.shuffle(pool)
            pos, kind = pool.pop(), "game"
        elif r < 0.8:
            pos, kind = _synthetic(rng, "bar"), "bar"
        else:
            pos, kind = _synthetic(rng, "bearoff"), "bearoff"
        d = rng.randint(1, 6)
        dice = (d, d) if i % 4 == 0 else (rng.randint(1, 6), rng.randint(1, 6))
        cases.append(Case(pos, dice, kind))
        i += 1
    return cases


# ------------------------------------------------------------------------------ running gnubg
def run_worker(gnubg: str, mode: str, lines: list[str], jobs: int = 1, nice: int = 10) -> list[dict[str, Any]]:
    """Run scripts/gnubg_worker.py in ``jobs`` gnubg processes over ``lines``; answers in order."""
    jobs = max(1, min(jobs, len(lines)))
    chunks = [lines[i::jobs] for i in range(jobs)]
    # gnubg makes its settings folder at start and exits ("~/.gnubg: File exists") when another
    # process made it first: on a machine where gnubg never ran, parallel workers race (session 34's
    # fresh machine, 4 workers: one answered nothing). Made here first, there is no race.
    Path(os.path.expanduser("~/.gnubg")).mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gw-gnubg-") as tmp:
        procs = []
        for j, chunk in enumerate(chunks):
            src = Path(tmp) / f"in{j}.txt"
            dst = Path(tmp) / f"out{j}.jsonl"
            src.write_text(mode + "\n" + "\n".join(chunk) + "\n")
            env = dict(os.environ, GW_GNUBG_IN=str(src), GW_GNUBG_OUT=str(dst))
            cmd = [gnubg, "-t", "-q", "-p", str(WORKER)]
            if nice and shutil.which("nice"):
                cmd = ["nice", "-n", str(nice), *cmd]
            procs.append((subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.PIPE), dst, len(chunk)))
        answers: list[list[dict[str, Any]]] = []
        for proc, dst, expected in procs:
            _, err = proc.communicate()
            got = [json.loads(x) for x in dst.read_text().splitlines()] if dst.exists() else []
            if len(got) != expected:
                raise RuntimeError(
                    f"gnubg worker answered {len(got)} of {expected} jobs (exit {proc.returncode}): "
                    f"{err.decode(errors='replace')[-500:]}"
                )
            answers.append(got)
    # re-interleave
    out: list[dict[str, Any]] = []
    for i in range(len(lines)):
        out.append(answers[i % jobs][i // jobs])
    return out


# ------------------------------------------------------------------------------- comparing
def apply_literal(my: Board, opp: Board, notation: str) -> Key:
    """The result of gnubg's notation applied move by move, without any dice logic: each written
    landing point on an opponent blot hits it (gnubg writes every point where it hits)."""
    m = list(my)
    o = list(opp)
    for st in Play.parse(notation).steps:
        if m[st.src] <= 0:
            raise ValueError(f"{notation!r}: no checker on {st.src}")
        m[st.src] -= 1
        m[st.dst] += 1
        if st.dst and o[25 - st.dst] == 1:
            o[25 - st.dst] = 0
            o[BAR] += 1
        elif st.dst and o[25 - st.dst] > 1:
            raise ValueError(f"{notation!r}: lands on a made point {st.dst}")
    return tuple(m), tuple(o)


@dataclass
class Disagreement:
    position_id: str
    dice: tuple[int, int]
    only_ours: list[str]
    only_gnubg: list[str]
    note: str = ""

    def __str__(self) -> str:
        return (f"{self.position_id} {self.dice[0]}{self.dice[1]}: only ours {self.only_ours[:5]}, "
                f"only gnubg {self.only_gnubg[:5]} {self.note}")


def compare_plays(cases: list[Case], answers: list[dict[str, Any]]) -> tuple[list[Disagreement], dict[str, int]]:
    bad: list[Disagreement] = []
    stats = {"cases": 0, "plays": 0, "doubles": 0, "bar": 0, "bearoff": 0, "no_move": 0, "rejected": 0,
             "notation_same": 0, "notation_diff": 0}
    for case, ans in zip(cases, answers, strict=True):
        pid = position_id(case.position)
        if "error" in ans:
            stats["rejected"] += 1
            bad.append(Disagreement(pid, case.dice, [], [], f"gnubg: {ans['error']}"))
            continue
        my, opp = case.position.mover_view()
        ours = generate(my, opp, *case.dice)
        moves = ans["moves"]
        assert isinstance(moves, list)
        theirs: dict[Key, str] = {}
        try:
            for mv in moves:
                theirs[apply_literal(my, opp, str(mv))] = str(mv)
        except ValueError as exc:
            bad.append(Disagreement(pid, case.dice, [], [], f"cannot apply gnubg's play: {exc}"))
            continue
        if not moves:
            theirs[(my, opp)] = ""
        for key, text in theirs.items():
            if key in ours and text:
                same = str(Play(Step(*st) for st in ours[key])) == text
                stats["notation_same" if same else "notation_diff"] += 1
        stats["cases"] += 1
        stats["plays"] += len(ours)
        stats["doubles"] += case.dice[0] == case.dice[1]
        stats["bar"] += my[BAR] > 0
        stats["bearoff"] += any(k[0][0] > my[0] for k in ours)
        stats["no_move"] += not moves
        if set(ours) != set(theirs) or (moves and len(moves) != len(theirs)):
            only_ours = [str(Play(ours[k])) for k in ours if k not in theirs]
            only_gnubg = [theirs[k] for k in theirs if k not in ours]
            note = "" if len(moves) == len(theirs) else f"gnubg listed {len(moves)} plays for {len(theirs)} results"
            bad.append(Disagreement(pid, case.dice, only_ours, only_gnubg, note))
    return bad, stats


# ------------------------------------------------------------------------------------- ids
def random_infos(rng: random.Random, position: Position) -> MatchInfo:
    length = rng.choice([0, 0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 21, 25])
    if length:
        s0, s1 = rng.randrange(length), rng.randrange(length)
    else:
        s0 = s1 = 0
    crawford = bool(length) and (s0 == length - 1 or s1 == length - 1) and s0 != s1 and rng.random() < 0.5
    cube_value = 1 if crawford else 1 << rng.randrange(7)
    owner = None if cube_value == 1 else rng.choice([None, 0, 1])
    if cube_value > 1 and owner is None:
        owner = rng.randrange(2)
    rolled = rng.random() < 0.6
    # a pending double (not in the Crawford game, doubler with access to the cube)
    doubled = not rolled and not crawford and owner in (None, position.turn) and rng.random() < 0.3
    return MatchInfo(
        match_length=length, score=(s0, s1), cube_value=cube_value, cube_owner=owner,
        player_on_roll=position.turn, crawford=crawford, game_state=1,
        turn=1 - position.turn if doubled else position.turn, doubled=doubled,
        dice=(rng.randint(1, 6), rng.randint(1, 6)) if rolled else None,
        jacoby=not length and rng.random() < 0.5,
    )


def _gnubg_normal(info: MatchInfo) -> MatchInfo:
    dice = (max(info.dice), min(info.dice)) if info.dice else None
    return replace(info, dice=dice, doubled=False, turn=info.player_on_roll)


def _relative(info: MatchInfo) -> str:
    """Match fields relative to the player on roll (what an XGID fixes)."""
    me = info.player_on_roll
    n = _gnubg_normal(info)
    owner = "centre" if n.cube_owner is None else ("roller" if n.cube_owner == me else "opponent")
    return (f"length {n.match_length} score {n.score[me]}-{n.score[1 - me]} cube {n.cube_value} {owner} "
            f"crawford {n.crawford} dice {n.dice}")


def check_ids(gnubg: str, positions: list[Position], seed: int, jobs: int) -> tuple[int, list[str]]:
    """Round trips of our own, then agreement with gnubg. Returns (checked, problems)."""
    from rules.ids import from_gnubg_id, gnubg_id, position_from_id

    rng = random.Random(seed)
    problems: list[str] = []
    items = [(p, random_infos(rng, p)) for p in positions]
    # our own round trips
    for pos, info in items:
        pid = position_id(pos)
        if position_from_id(pid, pos.turn) != pos:
            problems.append(f"Position ID round trip failed for {pos!r}")
        p2, i2 = from_gnubg_id(gnubg_id(pos, info))
        if p2 != pos or i2 != info:
            problems.append(f"gnubg ID round trip failed for {pos!r} {info}")
        p3, i3 = from_xgid(to_xgid(pos, info))
        if p3 != pos or match_id(i3) != match_id(info):
            problems.append(f"XGID round trip failed: {to_xgid(pos, info)} -> {p3!r} {i3}")
    # gnubg reads our gnubg IDs
    lines = [f"{position_id(p)} {match_id(i)}" for p, i in items]
    lines += [to_xgid(p, i) for p, i in items]
    answers = run_worker(gnubg, "ids", lines, jobs=jobs)
    n = len(items)
    for k, ((pos, info), ans) in enumerate(zip(items, answers[:n], strict=True)):
        if "error" in ans:
            problems.append(f"gnubg could not read {lines[k]}: {ans['error']}")
            continue
        on_roll, opponent = pos.mover_view()
        board = ans["board"]
        assert isinstance(board, list)
        if [list(opponent[1:26]), list(on_roll[1:26])] != board:
            problems.append(f"gnubg read {lines[k]} as board {board}, we meant {pos!r}")
        # gnubg keeps the dice higher first whatever order an ID gives them in, and `set gnubgid`
        # does not restore a pending double
        expected = match_id(_gnubg_normal(info))
        if ans["posid"] != position_id(pos) or ans["matchid"] != expected:
            problems.append(f"gnubg wrote back {ans['posid']}:{ans['matchid']} for {lines[k]}")
    for k, ans in enumerate(answers[n:]):
        xg = lines[n + k]
        if "error" in ans:
            problems.append(f"gnubg could not read {xg}: {ans['error']}")
            continue
        p2, i2 = from_xgid(xg)
        # An XGID names no player 0/1 (only bottom/top); gnubg's `set xgid` makes the player on roll
        # its player 1, takes Jacoby from its own settings and drops a pending double ('D'). So
        # compare what the XGID does fix: the board seen by the player on roll and the match fields
        # relative to him.
        ours = f"{position_id(p2)}:{_relative(i2)}"
        theirs = f"{ans['posid']}:{_relative(match_from_id(str(ans['matchid'])))}"
        if ours != theirs:
            problems.append(f"{xg}: gnubg reads {theirs}, we read {ours}")
    return n, problems


# ---------------------------------------------------------------------------------- timing
def perft2_cases() -> list[tuple[str, int, int]]:
    """The 447 x 21 (position, roll) pairs whose results perft depth 2 counts."""
    start = Position.start()
    my, opp = start.mover_view()
    out = []
    for r in ALL_ROLLS:
        for m, o in generate(my, opp, r.first, r.second):
            pid = position_id(Position._unchecked(m, o, 1))
            for r2 in ALL_ROLLS:
                out.append((pid, r2.first, r2.second))
    return out


def time_gnubg_perft2(gnubg: str, jobs: int) -> dict[str, float]:
    """gnubg's CPU time to list the plays of every depth-1 node (447 positions x 21 rolls)."""
    cases = perft2_cases()
    answers = run_worker(gnubg, "hints", [f"{p} {a} {b}" for p, a, b in cases], jobs=jobs)
    total = sum(len(a["moves"]) for a in answers if isinstance(a.get("moves"), list))
    cpu = sum(float(a["cpu"]) for a in answers)
    wall = sum(float(a["wall"]) for a in answers)
    return {"calls": len(cases), "plays": total, "cpu": cpu, "wall": wall}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000, help="random positions+rolls (default 100000)")
    parser.add_argument("--ids", type=int, default=1000, help="positions for the ID checks (default 1000)")
    parser.add_argument("--jobs", type=int, default=6, help="parallel gnubg processes (mostly idle)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    gnubg = find_gnubg()
    if gnubg is None:
        print("gnubg is not installed: apt-get install gnubg (or make system-deps); peer check skipped")
        return 0
    t0 = time.perf_counter()
    cases = random_cases(args.cases, args.seed)
    lines = [f"{position_id(c.position)} {c.dice[0]} {c.dice[1]}" for c in cases]
    answers = run_worker(gnubg, "hints", lines, jobs=args.jobs)
    bad, stats = compare_plays(cases, answers)
    print(f"legal plays vs gnubg: {stats['cases']:,} positions+rolls compared ({stats['plays']:,} plays; "
          f"{stats['doubles']:,} doubles, {stats['bar']:,} with bar entry, {stats['bearoff']:,} with bear-offs, "
          f"{stats['no_move']:,} with no legal play), {len(bad)} disagreements, "
          f"{stats['rejected']} positions gnubg refused; {time.perf_counter() - t0:.0f} s")
    for d in bad[:20]:
        print("  DISAGREE", d)
    print(f"notation rebuilt from before/after/dice identical to gnubg's for {stats['notation_same']:,} of "
          f"{stats['notation_same'] + stats['notation_diff']:,} plays")
    t1 = time.perf_counter()
    id_positions = [c.position for c in cases[: args.ids]]
    n, problems = check_ids(gnubg, id_positions, args.seed, args.jobs)
    print(f"IDs vs gnubg: {n:,} positions, Position ID + Match ID round trips and gnubg readback, XGID read by "
          f"gnubg: {len(problems)} problems; {time.perf_counter() - t1:.0f} s")
    for p in problems[:20]:
        print("  ID PROBLEM", p)
    return 1 if bad or problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
