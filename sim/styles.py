"""Named board styles: surface material and colours, points, rails, checkers and dice.

``get_style(name)`` raises :class:`UnknownStyleError` naming the style and listing the valid ones.
The name :data:`RANDOM` stands for a palette drawn afresh for each scene (:func:`random_style`).
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np

RGB = tuple[int, int, int]


class UnknownStyleError(ValueError):
    """A board style name that is not in the registry."""


@dataclass(frozen=True)
class Style:
    name: str
    material: str  # felt, wood, leather
    surface: RGB
    point_a: RGB  # points 1, 3, 5, ...
    point_b: RGB
    rail: RGB
    rail_material: str  # wood, leather
    checker_light: RGB
    checker_dark: RGB
    dice_light: RGB  # light player's dice (pips dark)
    dice_dark: RGB  # dark player's dice (pips light)
    dice_shared: RGB
    roughness: float = 0.8


STYLES: dict[str, Style] = {s.name: s for s in [
    Style("green-felt", "felt", (28, 92, 52), (232, 220, 190), (150, 28, 30), (92, 58, 30), "wood",
          (238, 232, 218), (40, 36, 34), (245, 245, 240), (150, 20, 25), (250, 250, 250), 0.95),
    Style("burgundy-leather", "leather", (112, 24, 34), (236, 226, 204), (30, 30, 30), (40, 26, 20), "leather",
          (240, 236, 226), (24, 24, 26), (238, 238, 230), (20, 20, 22), (210, 30, 35), 0.55),
    Style("walnut-wood", "wood", (150, 104, 62), (232, 210, 160), (70, 40, 22), (74, 46, 26), "wood",
          (230, 214, 180), (66, 30, 20), (250, 246, 236), (90, 20, 20), (245, 240, 225), 0.6),
    Style("navy-leather", "leather", (26, 38, 72), (218, 206, 170), (150, 34, 38), (30, 30, 34), "leather",
          (232, 228, 216), (120, 20, 24), (240, 240, 236), (130, 18, 22), (250, 250, 250), 0.5),
    Style("cream-felt", "felt", (214, 200, 164), (120, 30, 34), (36, 60, 44), (60, 40, 26), "wood",
          (250, 248, 240), (30, 28, 28), (246, 244, 236), (28, 28, 30), (210, 40, 40), 0.95),
    Style("tournament-black", "leather", (36, 36, 38), (200, 196, 186), (170, 30, 34), (22, 22, 24), "leather",
          (236, 236, 230), (150, 20, 26), (245, 245, 245), (160, 20, 30), (60, 90, 200), 0.5),
    Style("maple-wood", "wood", (206, 168, 118), (60, 44, 34), (240, 232, 214), (130, 84, 46), "wood",
          (246, 240, 226), (40, 30, 24), (250, 250, 250), (40, 40, 44), (250, 250, 250), 0.6),
    Style("teal-felt", "felt", (22, 96, 100), (230, 226, 210), (220, 120, 40), (54, 40, 30), "wood",
          (244, 240, 230), (28, 30, 40), (245, 245, 245), (24, 26, 40), (250, 200, 40), 0.95),
    Style("grey-leather", "leather", (120, 120, 116), (40, 40, 42), (236, 232, 224), (50, 50, 52), "leather",
          (240, 238, 232), (24, 24, 26), (250, 250, 250), (20, 20, 20), (220, 40, 40), 0.5),
    Style("red-felt", "felt", (150, 30, 30), (236, 228, 206), (20, 20, 22), (40, 30, 24), "wood",
          (238, 234, 224), (28, 28, 30), (250, 250, 250), (30, 30, 30), (250, 250, 250), 0.95),
]}


RANDOM = "random"
"""``--styles random``: a palette drawn for each scene (real boards come in any colours)."""


def _hsv(rng: np.random.Generator, h: tuple[float, float], s: tuple[float, float], v: tuple[float, float]) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(float(rng.uniform(*h)) % 1.0, float(rng.uniform(*s)), float(rng.uniform(*v)))
    return int(round(r * 255)), int(round(g * 255)), int(round(b * 255))


def _luma(c: RGB) -> float:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def random_style(rng: np.random.Generator) -> Style:
    """A plausible board in random colours: a surface of any hue, points one light and one dark (or
    two hues), dark rails (brownish for wood), light checkers bright and dark checkers dark of any
    hue, sometimes the very colours of the points (matched sets). Named :data:`RANDOM` in labels."""
    any_hue = (0.0, 1.0)
    material = str(rng.choice(["felt", "wood", "leather"]))
    surface = _hsv(rng, any_hue, (0.1, 0.8), (0.12, 0.85))
    if rng.random() < 0.7:  # one light, one dark point colour
        point_a = _hsv(rng, any_hue, (0.0, 0.35), (0.7, 0.95))
        point_b = _hsv(rng, any_hue, (0.3, 0.9), (0.1, 0.65))
    else:  # two hues
        point_a = _hsv(rng, any_hue, (0.4, 0.9), (0.35, 0.9))
        point_b = _hsv(rng, any_hue, (0.4, 0.9), (0.35, 0.9))
    if rng.random() < 0.5:
        point_a, point_b = point_b, point_a
    rail = _hsv(rng, (0.0, 0.12) if material == "wood" else any_hue, (0.1, 0.7), (0.06, 0.5))
    checker_light = _hsv(rng, any_hue, (0.0, 0.3), (0.78, 1.0))
    checker_dark = _hsv(rng, any_hue, (0.0, 0.9), (0.06, 0.55))
    if _luma(checker_light) < _luma(checker_dark) + 50:  # "light" and "dark" are told by brightness
        checker_dark = (checker_dark[0] // 2, checker_dark[1] // 2, checker_dark[2] // 2)
    if rng.random() < 0.2:  # checkers in the points' own colours, as many sets are sold
        lighter, darker = sorted((point_a, point_b), key=_luma, reverse=True)
        if _luma(lighter) > _luma(darker) + 60:
            checker_light, checker_dark = lighter, darker
    dice_light = _hsv(rng, any_hue, (0.0, 0.3), (0.8, 1.0))
    dice_dark = _hsv(rng, any_hue, (0.2, 0.9), (0.08, 0.6))
    dice_shared = _hsv(rng, any_hue, (0.0, 0.9), (0.2, 1.0))
    roughness = float(rng.uniform(0.85, 0.95) if material == "felt" else rng.uniform(0.45, 0.65))
    rail_material = "wood" if material == "wood" or rng.random() < 0.5 else "leather"
    return Style(RANDOM, material, surface, point_a, point_b, rail, rail_material, checker_light, checker_dark,
                 dice_light, dice_dark, dice_shared, roughness)


def style_for(name: str, rng: np.random.Generator) -> Style:
    """The named style, or a fresh random one for :data:`RANDOM` (drawing from ``rng`` only then)."""
    return random_style(rng) if name == RANDOM else get_style(name)


def style_names() -> list[str]:
    return sorted(STYLES)


def get_style(name: str) -> Style:
    try:
        return STYLES[name]
    except KeyError:
        raise UnknownStyleError(
            f"unknown board style {name!r}; valid styles: {', '.join(style_names())} "
            f"(or {RANDOM!r} in --styles: a palette drawn for each scene)") from None


def parse_styles(text: str | None) -> list[str]:
    """``"green-felt,walnut-wood"`` (or None for all) -> checked style names."""
    if not text:
        return style_names()
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n != RANDOM:
            get_style(n)
    return names
