"""Welsh board geometry: race coordinates, quarter-boards, spike labels (DIGEST C.2, R2, R15, R18).

Every man is located by its owner's **race coordinate** ``r``:

=========================  ==========  =================================
location                   r           label
=========================  ==========  =================================
the roof (R9, R14, R16)    0           ``roof``
Back k (1 edge .. 6 bar)   k           ``B1`` .. ``B6``
Far-Outer c (1 bar..6 edge) 6 + c      ``F1`` .. ``F6``
Near-Outer c (6 edge..1 bar) 19 - c    ``N6`` .. ``N1``
Home h (6 bar .. 1 edge)   25 - h      ``H6`` .. ``H1``
checked out                25          ``off``
=========================  ==========  =================================

The order of travel is roof -> B1..B6 -> (central bar) -> F1..F6 -> (cross the stream) ->
N6..N1 -> (central bar) -> H6..H1 -> check-out.  A physical spike has one number for both
players (W3): my Back k is the opponent's Home k, so ``r_opponent = 25 - r``.

Physical spikes are named by Red's (player 0's) race coordinate, ``1..24``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from rules.errors import InvalidPlayError

ROOF: Final = 0
OFF: Final = 25
SPIKES: Final = range(1, 25)

#: quarter indices in a player's own race order
BACK: Final = 0
FAR_OUTER: Final = 1
NEAR_OUTER: Final = 2
HOME: Final = 3
QUARTER_NAMES: Final = ("Back", "Far-Outer", "Near-Outer", "Home")
QUARTER_LETTERS: Final = "BFNH"

#: the men of each side
MEN: Final = 15
#: the most men one spike may hold (R10)
FULL_SPIKE: Final = 6

PLAYER_NAMES: Final = ("Red", "Black")


def opponent_r(r: int) -> int:
    """The opponent's race coordinate of the spike that is ``r`` for me (W3, C.2)."""
    return 25 - r


def quarter_of(r: int) -> int:
    """The quarter (BACK, FAR_OUTER, NEAR_OUTER, HOME) of race coordinate ``r`` in 1..24."""
    if not 1 <= r <= 24:
        raise ValueError(f"race coordinate {r} is not on a spike (1..24)")
    return (r - 1) // 6


def quarter_spikes(q: int) -> range:
    """The race coordinates of quarter ``q`` in travel order."""
    return range(6 * q + 1, 6 * q + 7)


def spike_number(r: int) -> int:
    """The number printed on spike ``r`` within its quarter (R2: 1..6; R15 and R18 conventions)."""
    q = quarter_of(r)
    if q == BACK:
        return r
    if q == FAR_OUTER:
        return r - 6
    if q == NEAR_OUTER:
        return 19 - r
    return 25 - r


def label(r: int) -> str:
    """``roof``, ``B1``..``B6``, ``F1``..``F6``, ``N6``..``N1``, ``H6``..``H1`` or ``off``."""
    if r == ROOF:
        return "roof"
    if r == OFF:
        return "off"
    return f"{QUARTER_LETTERS[quarter_of(r)]}{spike_number(r)}"


def parse_label(text: str) -> int:
    """The race coordinate named by a label such as ``F6``, ``h2``, ``roof`` or ``off``."""
    t = text.strip().lower()
    if t in ("roof", "bar", "0"):
        return ROOF
    if t in ("off", "out", "25"):
        return OFF
    if len(t) == 2 and t[0] in "bfnh" and t[1] in "123456":
        k = int(t[1])
        return {"b": k, "f": 6 + k, "n": 19 - k, "h": 25 - k}[t[0]]
    raise InvalidPlayError(
        f"{text!r} is not a Welsh spike label; use roof, off, or a quarter letter B/F/N/H "
        "(Back, Far-Outer, Near-Outer, Home) followed by the spike number 1-6, e.g. F6"
    )


def crosses_central_bar(frm: int, to: int) -> bool:
    """True when a move between two race coordinates passes the central bar (R9, C.9).

    The central bar lies between Back 6 and Far-Outer 1 (r 6|7) and between Near-Outer 1 and
    Home 6 (r 18|19).  Entering from the roof, crossing the stream (r 12|13) and checking out do
    not cross it (W8).
    """
    lo, hi = (frm, to) if frm < to else (to, frm)
    if lo == ROOF or hi == OFF:
        return False
    return (lo <= 6 < hi) or (13 <= lo <= 18 < hi)


def forward_targets(r: int, v: int) -> tuple[int, ...]:
    """Where a forward move of value ``v`` from ``r`` may end, geometry only (C.8 transition).

    Returns zero, one or two race coordinates.  Two when a man on Far-Outer c has ``v == c``
    and ``c + v <= 6``: he may cross the stream or move within the board (W6 e).  25 is a
    check-out; the caller decides whether checking out is allowed.  Values above 6 never enter
    from the roof (W4); a man from the Back board cannot pass through the Far-Outer board (W6 b).
    """
    if r == ROOF:
        return (v,) if v <= 6 else ()
    if r <= 6:
        t = r + v
        return (t,) if t <= 12 else ()
    if r <= 12:
        c = r - 6
        out: tuple[int, ...] = ()
        if v == c:
            out = (19 - c,)
        if r + v <= 12:
            out = out + (r + v,)
        return out
    t = r + v
    return (t,) if t <= 25 else ()


def backward_targets(r: int, v: int) -> tuple[int, ...]:
    """Where a rover's backward move of value ``v`` from ``r`` may end (C.12.2, W6 d, W27).

    Mirror image of :func:`forward_targets`: from Near-Outer c a rover recrosses the stream to
    Far-Outer c with exactly ``v == c``; it never goes back onto the roof or past Back 1.
    """
    if r <= 0 or r >= 25:
        return ()
    if 13 <= r <= 18:
        c = 19 - r
        out: tuple[int, ...] = ()
        if v == c:
            out = (6 + c,)
        if r - v >= 13:
            out = out + (r - v,)
        return out
    if r >= 19:
        t = r - v
        return (t,) if t >= 13 else ()
    t = r - v
    return (t,) if t >= 1 else ()


def _cross_then_continue(c: int, used: tuple[int, ...]) -> list[int]:
    """The values left after a first part of ``used`` that sums exactly to ``c`` (R15)."""
    if len(used) < 2:
        return []
    out: list[int] = []
    if all(v == used[0] for v in used):
        d, j = used[0], len(used)
        if c % d == 0 and 0 < c // d < j:
            out.append(d * (j - c // d))
        return out
    a, b = used[0], used[1]
    if a == c:
        out.append(b)
    if b == c and b != a:
        out.append(a)
    return out


@lru_cache(maxsize=8192)
def forward_paths(
    r: int, used: tuple[int, ...], continue_after_crossing: bool = True
) -> tuple[tuple[int, bool], ...]:
    """(destination, crosses the central bar) for one man moved forward by the dice ``used``.

    A combined move settles only at its end (R9).  From the Far-Outer board, a combined move may
    first cross the stream with part of its dice summing exactly to the spike number the man is
    sitting on, then carry on with the rest, jumping over the spikes in between: this is R15's
    opening 6-4, "sent across-the-stream from the 6-spike, then move another 4 forward, so that he
    joins the spike with the three men on it" (Near-Outer 6 is the opponent's covered spike in
    the opening, so the man cannot settle there).  See docs/decisions/0600.
    """
    value = sum(used)
    out = [(t, crosses_central_bar(r, t)) for t in forward_targets(r, value)]
    if continue_after_crossing and 7 <= r <= 12:
        c = r - 6
        for rest in _cross_then_continue(c, used):
            t = 19 - c + rest
            if t <= 24:
                out.append((t, crosses_central_bar(19 - c, t)))
    return tuple(out)


@lru_cache(maxsize=8192)
def backward_paths(
    r: int, used: tuple[int, ...], continue_after_crossing: bool = True
) -> tuple[tuple[int, bool], ...]:
    """Mirror image of :func:`forward_paths` for an activated rover (C.12.2, W6 d)."""
    value = sum(used)
    out = [(t, crosses_central_bar(r, t)) for t in backward_targets(r, value)]
    if continue_after_crossing and 13 <= r <= 18:
        c = 19 - r
        for rest in _cross_then_continue(c, used):
            t = 6 + c - rest
            if t >= 1:
                out.append((t, crosses_central_bar(6 + c, t)))
    return tuple(out)
