"""Named board styles: surface material and colours, points, rails, checkers and dice.

``get_style(name)`` raises :class:`UnknownStyleError` naming the style and listing the valid ones.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def style_names() -> list[str]:
    return sorted(STYLES)


def get_style(name: str) -> Style:
    try:
        return STYLES[name]
    except KeyError:
        raise UnknownStyleError(
            f"unknown board style {name!r}; valid styles: {', '.join(style_names())}") from None


def parse_styles(text: str | None) -> list[str]:
    """``"green-felt,walnut-wood"`` (or None for all) -> checked style names."""
    if not text:
        return style_names()
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        get_style(n)
    return names
