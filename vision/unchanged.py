"""Network outputs kept per place while the place's pixels stay as they were when it was read.

A fixed camera over a settled table shows the same strips and cube windows frame after frame: the live
pipeline recognises the table every 0.2 s while dice come to rest, and most of the board has not
changed since the last look. :class:`KeptReadings` keeps each place's pixels as last read (a checker
strip, a cube window, the cube's face crop) and the network's output for them; a place whose pixels
still differ from those by at most :data:`CHANGE_DELTA` levels (the largest of the three channels, on
the means of 2 x 2 cells) on all but :data:`CHANGE_SHARE` of them gets the kept output instead of a
new run of the network.
Comparing with the pixels of the last *read*, not of the last frame, lets no slow drift go unread.
(Decision 0747.)

    kept = KeptReadings()
    todo = [i for i, crop in enumerate(crops) if kept.changed(i, crop)]
    for i, out in zip(todo, run(crops[todo])):
        kept.keep(i, crops[i], out)
    outputs = [kept.output(i) for i in range(len(crops))]
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

U8 = npt.NDArray[np.uint8]

CHANGE_DELTA = 20
"""Levels (0..255, the largest channel difference) a pixel must move by to count as changed: above
video compression's and a camera's noise on a still scene, below any checker, die or hand edge."""
CHANGE_SHARE = 0.002
"""Share of a place's cells that may change before it is read again (one of a checker strip's 768
2 x 2 cells; two of the cube face crop's 1,024: a face turned from 2 to 4 changes dozens)."""
POOL = 2
"""Pixels are compared as the means of ``POOL x POOL`` cells: a camera's noise halves (seed 306 with
Gaussian noise of 8 levels added to every channel: no place was ever kept pixel by pixel; by cells,
as without noise), while a checker, a die or a pip covers many cells."""


def pooled(image: U8, pool: int = POOL) -> npt.NDArray[np.int16]:
    """``image`` (``H x W x C``) averaged over ``pool x pool`` cells (rows and columns beyond whole cells
    dropped), as int16."""
    h, w = image.shape[0] // pool * pool, image.shape[1] // pool * pool
    cells = image[:h, :w].reshape(h // pool, pool, w // pool, pool, -1).astype(np.int16)
    out: npt.NDArray[np.int16] = (cells.sum(axis=(1, 3)) // (pool * pool)).astype(np.int16)
    return out


def moved_share(a: npt.NDArray[np.int16], b: npt.NDArray[np.int16], delta: int = CHANGE_DELTA) -> float:
    """Share of the cells of two same-shape :func:`pooled` images that differ by more than ``delta`` in
    some channel."""
    return float(np.mean(np.abs(a - b).max(axis=-1) > delta))


def changed_share(a: U8, b: U8, delta: int = CHANGE_DELTA, pool: int = POOL) -> float:
    """Share of the ``pool x pool`` cells of two same-shape ``H x W x C`` images whose means differ by
    more than ``delta`` in some channel."""
    return moved_share(pooled(a, pool), pooled(b, pool), delta)


class KeptReadings:
    """Per place (any hashable key), the pixels last read and what the network made of them."""

    def __init__(self, delta: int = CHANGE_DELTA, share: float = CHANGE_SHARE) -> None:
        if not 0 <= delta <= 255 or not 0.0 <= share < 1.0:
            raise ValueError(f"need 0 <= delta <= 255 and 0 <= share < 1, got {delta} and {share}")
        self.delta = delta
        self.share = share
        self._pixels: dict[Hashable, tuple[tuple[int, ...], npt.NDArray[np.int16]]] = {}
        """Per place, the shape of the pixels last read and their :func:`pooled` cells."""
        self._outputs: dict[Hashable, Any] = {}
        self.reads = 0
        """Places read by the network (:meth:`keep`)."""
        self.reused = 0
        """Outputs given from the kept readings (:meth:`output`)."""

    def changed(self, key: Hashable, pixels: U8) -> bool:
        """Whether ``pixels`` must be read again: nothing kept for ``key``, another shape, or more than
        :attr:`share` of its cells (:func:`changed_share`) moved by more than :attr:`delta` since the kept read."""
        old = self._pixels.get(key)
        if old is None or old[0] != pixels.shape:
            return True
        return moved_share(old[1], pooled(pixels), self.delta) > self.share

    def keep(self, key: Hashable, pixels: U8, output: Any) -> None:
        """Keep ``output``, the network's reading of ``pixels`` at ``key``."""
        self._pixels[key] = (tuple(pixels.shape), pooled(pixels))
        self._outputs[key] = output
        self.reads += 1

    def output(self, key: Hashable) -> Any:
        """The output kept for ``key`` (KeyError when none)."""
        out = self._outputs[key]
        self.reused += 1
        return out

    def clear(self) -> None:
        """Forget every place (a new camera or profile)."""
        self._pixels.clear()
        self._outputs.clear()


__all__ = ["CHANGE_DELTA", "CHANGE_SHARE", "POOL", "KeptReadings", "changed_share", "moved_share", "pooled"]
