"""Table geometry in centimetres: board, points, bar, rails, tray, checker slots, cube zones.

World frame: origin at the centre of the bar on the playing surface, x to the right as seen by the
near (light) player, y away from him (towards the far side), z up; the playing surface is z = 0 and
the table top is z = -base. Left half x < 0, right half x > 0. The bear-off tray is at the right
end, beyond an inner rail: near half of the tray for light, far half for dark.

Sizes are drawn within the tournament limits: RG19 3.1 allows an opened board from 44 x 55 cm to
66 x 88 cm. RG19 has no size rule for checkers or dice (RG19 3.2.1 asks only for precision dice:
precise cubes with rounded corners), so those follow common equipment: the checker fills 90-97%
of a point's width, dice 13-19 mm, cube 19-25 mm.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

# RG19 3.1: opened board between 44 x 55 cm and 66 x 88 cm
BOARD_MIN_CM = (55.0, 44.0)
BOARD_MAX_CM = (88.0, 66.0)


@dataclass(frozen=True)
class TableSpec:
    width: float = 60.0  # outer, along x
    depth: float = 45.0  # outer, along y
    rail: float = 2.0  # frame width of the rails
    rail_h: float = 2.5  # rail and bar height above the playing surface
    bar: float = 4.0  # bar width
    tray: float = 5.0  # bear-off tray width (inside)
    base: float = 1.2  # board thickness under the playing surface
    point_len_frac: float = 0.4  # point length as a fraction of the playing depth
    checker_d: float = 3.6
    checker_h: float = 0.9
    die: float = 1.6
    cube: float = 2.2
    trays: int = 1  # bear-off trays: 1 (right end) or 2 (both ends, each beyond an inner rail)

    # ---- derived geometry -------------------------------------------------
    @property
    def half_w(self) -> float:
        """Width of one half of the playing surface."""
        return (self.width - (2 + self.trays) * self.rail - self.bar - self.trays * self.tray) / 2

    @property
    def play_d(self) -> float:
        return self.depth - 2 * self.rail

    @property
    def point_w(self) -> float:
        return self.half_w / 6

    @property
    def x_min(self) -> float:
        """Outer left edge of the board."""
        return -self.bar / 2 - self.half_w - self.rail - (self.tray + self.rail if self.trays == 2 else 0.0)

    @property
    def x_max(self) -> float:
        return self.bar / 2 + self.half_w + 2 * self.rail + self.tray

    def half_rect(self, half: str) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1) of the playing surface of ``half`` ('left' or 'right')."""
        q = self.play_d / 2
        if half == "right":
            return (self.bar / 2, self.bar / 2 + self.half_w, -q, q)
        return (-self.bar / 2 - self.half_w, -self.bar / 2, -q, q)

    def tray_rect(self, end: str = "right") -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1) of the bear-off tray at the ``end`` ('right', or 'left' with two trays)."""
        if end == "left":
            if self.trays != 2:
                raise ValueError("this board has one bear-off tray, at the right end")
            x1 = -self.bar / 2 - self.half_w - self.rail
            return (x1 - self.tray, x1, -self.play_d / 2, self.play_d / 2)
        x0 = self.bar / 2 + self.half_w + self.rail
        return (x0, x0 + self.tray, -self.play_d / 2, self.play_d / 2)

    def with_two_trays(self) -> TableSpec:
        """The same board with a second bear-off tray at the left end (the board grows by a tray and
        a rail, so points and checkers keep their sizes; RG19 3.1 limits are kept by clipping)."""
        if self.trays == 2:
            return self
        width = min(self.width + self.tray + self.rail, BOARD_MAX_CM[0])
        return TableSpec(**{**asdict(self), "width": width, "trays": 2})

    def half_of(self, x: float, y: float) -> str | None:
        """'left' / 'right' if (x, y) lies on that half's playing surface, else None."""
        for h in ("left", "right"):
            x0, x1, y0, y1 = self.half_rect(h)
            if x0 <= x <= x1 and y0 <= y <= y1:
                return h
        return None

    def point_centre_x(self, point: int) -> float:
        """x of the centre line of physical point 1..24."""
        pw, b = self.point_w, self.bar / 2
        if 1 <= point <= 6:
            return b + self.half_w - (point - 0.5) * pw
        if 7 <= point <= 12:
            return -b - (point - 6 - 0.5) * pw
        if 13 <= point <= 18:
            return -b - self.half_w + (point - 12 - 0.5) * pw
        if 19 <= point <= 24:
            return b + (point - 18 - 0.5) * pw
        raise ValueError(f"no physical point {point}; points are 1..24")

    def point_side(self, point: int) -> int:
        """-1 for the near side (points 1..12), +1 for the far side."""
        return -1 if point <= 12 else 1

    def point_triangle(self, point: int) -> np.ndarray:
        """3 x 2 array: base left, base right, tip (x, y) of the point's triangle."""
        x = self.point_centre_x(point)
        s = self.point_side(point)
        y_edge = s * self.play_d / 2
        tip = y_edge - s * self.point_len_frac * self.play_d
        return np.array([[x - self.point_w / 2, y_edge], [x + self.point_w / 2, y_edge], [x, tip]])

    def checker_slots(self, point: int, n: int) -> list[tuple[float, float, float]]:
        """Centres (x, y, z) of ``n`` checkers on a point: a row from the rail towards the middle,
        then further layers over the gaps of the layer below."""
        x = self.point_centre_x(point)
        s = self.point_side(point)
        d = self.checker_d * 1.01
        y0 = s * (self.play_d / 2 - self.checker_d / 2 - 0.05)
        per_row = max(1, int((self.play_d / 2 - 2.0) // d))
        per_row = min(per_row, 6)
        out: list[tuple[float, float, float]] = []
        layer = 0
        while len(out) < n:
            count = per_row - layer
            if count <= 0:
                layer = 0
                count = per_row
            for k in range(count):
                if len(out) >= n:
                    break
                y = y0 - s * (k + 0.5 * layer) * d
                out.append((x, y, self.checker_h * (layer + 0.5)))
            layer += 1
        return out

    def bar_slots(self, colour: int, n: int, cube_y: float | None = None) -> list[tuple[float, float, float]]:
        """Checkers on the bar top: light towards the near side, dark towards the far side. ``cube_y``:
        the centre of a cube lying on the bar (zone centre); the checkers go beside it, as players put
        them (a row starting inside the cube would draw two solid bodies in one place)."""
        s = -1 if colour == 0 else 1
        d = self.checker_d * 1.01
        first = d * 0.6
        if cube_y is not None:  # clear of the cube whatever its yaw (half diagonal), with 1 mm to spare
            first = max(first, s * cube_y + self.cube * 0.71 + d / 2 + 0.1)
        out = []
        for k in range(n):
            layer, k2 = divmod(k, 3)
            out.append((0.0, s * (first + k2 * d), self.rail_h + self.checker_h * (layer + 0.5)))
        return out

    def off_slots(self, colour: int, n: int) -> list[tuple[float, float, float]]:
        """Borne-off checkers lying flat in the tray (light near half, dark far half), stacked."""
        x0, x1, y0, y1 = self.tray_rect()
        xc = (x0 + x1) / 2
        s = -1 if colour == 0 else 1
        d = self.checker_d * 1.02
        per_half = max(1, int((self.play_d / 2 - 0.5) // d))
        out = []
        for k in range(n):
            layer, k2 = divmod(k, per_half)
            out.append((xc, s * (self.play_d / 2 - d / 2 - 0.2 - k2 * d), self.checker_h * (layer + 0.5)))
        return out

    def cube_pose(self, zone: str, rng: np.random.Generator) -> tuple[float, float, float] | None:
        """Cube centre for a zone: centre (on the bar), near/far (on the table in front of that
        player's side of the board), board (on the playing surface), absent (None)."""
        c = self.cube / 2
        if zone == "absent":
            return None
        if zone == "centre":
            return (0.0, float(rng.uniform(-2, 2)), self.rail_h + c)
        if zone in ("near", "far"):
            s = -1 if zone == "near" else 1
            return (float(rng.uniform(-8, 8)), s * (self.depth / 2 + c + rng.uniform(0.8, 3.0)), -self.base + c)
        if zone == "board":
            h = str(rng.choice(["left", "right"]))
            x0, x1, _, _ = self.half_rect(h)
            return (float(rng.uniform(x0 + 2, x1 - 2)), float(rng.uniform(-2.5, 2.5)), c)
        raise ValueError(f"unknown cube zone {zone!r}; use centre, near, far, board or absent")

    def corners(self) -> dict[str, list[list[float]]]:
        """Playing-surface corners (z = 0) in the order of issue 5: 1 near-right, 2 near-left,
        3 far-left, 4 far-right; and the 8-point version: right half's four then left half's four."""
        q = self.play_d / 2
        xl = -self.bar / 2 - self.half_w
        xr = self.bar / 2 + self.half_w
        four = [[xr, -q, 0.0], [xl, -q, 0.0], [xl, q, 0.0], [xr, q, 0.0]]
        b = self.bar / 2
        right = [[xr, -q, 0.0], [b, -q, 0.0], [b, q, 0.0], [xr, q, 0.0]]
        left = [[-b, -q, 0.0], [xl, -q, 0.0], [xl, q, 0.0], [-b, q, 0.0]]
        return {"corners4": four, "corners8": right + left}

    def to_json(self) -> dict[str, float]:
        return {k: round(v, 4) for k, v in asdict(self).items()}

    @classmethod
    def sample(cls, rng: np.random.Generator) -> TableSpec:
        """A board within RG19 3.1 limits, with equipment sized to it."""
        width = float(rng.uniform(BOARD_MIN_CM[0], 72.0) if rng.random() < 0.85 else rng.uniform(72.0, BOARD_MAX_CM[0]))
        depth = float(np.clip(width * rng.uniform(0.7, 0.8), BOARD_MIN_CM[1], BOARD_MAX_CM[1]))
        scale = width / 60.0
        rail = float(rng.uniform(1.6, 2.6) * scale ** 0.5)
        bar = float(rng.uniform(3.6, 5.0) * scale ** 0.5)
        tray = float(rng.uniform(4.6, 5.6) * scale)
        spec = cls(width=width, depth=depth, rail=rail, rail_h=float(rng.uniform(1.8, 2.8)), bar=bar, tray=tray,
                   base=float(rng.uniform(0.8, 1.6)), point_len_frac=float(rng.uniform(0.37, 0.43)))
        cd = spec.point_w * float(rng.uniform(0.88, 0.96))
        ch = cd * float(rng.uniform(0.2, 0.27))
        die = float(rng.uniform(1.3, 1.9))
        cube = float(max(die + 0.3, rng.uniform(1.9, 2.5)))
        tray = max(spec.tray, cd + 0.6)
        return cls(**{**asdict(spec), "checker_d": cd, "checker_h": ch, "die": die, "cube": cube, "tray": tray})
