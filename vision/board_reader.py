"""The board part of recognition: checkers per point, bar and trays, and the doubling cube.

One call per frame::

    from calibration.profile import CalibrationProfile
    from vision.board_reader import BoardReader

    reader = BoardReader()                              # loads models/checkers_strip.onnx, models/cube_reader.onnx
    profile = CalibrationProfile.load("profile.json")   # or CalibrationProfile.from_corners(corners, (1280, 720))
    reading = reader.read(image_bgr, profile)           # BoardReading
    reading.point_p                                     # 24 x 2 x 16: physical point, light/dark, count 0..15
    reading.points_json()                               # [{"point": 1, "light": 0, "dark": 2}, ...] (issue 5)
    obs = reading.observation(dice=die_observations)   # vision.observation.TableObservation for the referee

The strips and windows are cut through the profile's homographies (4 or 8 corners; the pose is
not needed) and cached per profile, so a fixed camera pays for the geometry once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from calibration.board import F64
from calibration.profile import CalibrationProfile
from vision import checkers, cube
from vision.cube import CubeWindows
from vision.images import colour_frame
from vision.observation import COUNTS, CubeObservation, DieObservation, TableObservation
from vision.unchanged import KeptReadings

U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class BoardReading:
    """What the board reader saw in one frame (physical numbering, issue 5)."""

    point_p: F64
    """``24 x 2 x 16``: per physical point, light (0) and dark (1), the count distribution."""
    bar_p: F64
    """``2 x 16``: light and dark checkers on the bar (near and far strips added)."""
    off_p: F64
    """``2 x 16``: light and dark checkers borne off (both trays added)."""
    cube: CubeObservation | None
    """Zone and face probabilities; None when the reader was built without the cube model."""
    strips: checkers.StripCounts
    """The per-strip distributions behind the totals (``vision.checkers.STRIP_NAMES`` order)."""
    cube_windows: CubeWindows | None = None
    totals: tuple[checkers.TotalCheck, checkers.TotalCheck] | None = None
    """Light and dark strips conditioned on 15 checkers of each colour (``BoardReader(check_totals=True)``);
    when set, :attr:`point_p`, :attr:`bar_p`, :attr:`off_p` hold the conditioned distributions and
    the ``*_counts`` methods the joint likeliest counts."""
    hidden: tuple[int, ...] = ()
    """Strips (``vision.checkers.STRIP_NAMES`` order) a hand may hide (:func:`vision.checkers.hidden_strips`):
    their distributions are uniform (the frame says nothing of them) and the 15-per-colour check is
    not applied (the frame does not show 15 of each colour)."""

    def strip_counts(self) -> npt.NDArray[np.int64]:
        """``28 x 2`` (light, dark) count per strip: the joint likeliest with 15 per colour when the
        totals were checked, else each strip's own likeliest."""
        if self.totals is not None:
            return np.stack([self.totals[0].best, self.totals[1].best], axis=1)
        return self.raw_strip_counts()

    def raw_strip_counts(self) -> npt.NDArray[np.int64]:
        """``28 x 2`` each strip's own likeliest (light, dark) count, before the 15-per-colour check."""
        return self.strips.likeliest()

    def point_counts(self) -> list[tuple[int, int]]:
        """Most likely (light, dark) count of each physical point 1..24."""
        c = self.strip_counts()
        return [(int(c[i, 0]), int(c[i, 1])) for i in range(24)]

    def raw_point_counts(self) -> list[tuple[int, int]]:
        """Each point's own likeliest (light, dark) count, before the 15-per-colour check."""
        c = self.raw_strip_counts()
        return [(int(c[i, 0]), int(c[i, 1])) for i in range(24)]

    def _pair(self, a: str, b: str) -> tuple[int, int]:
        c = self.strip_counts()
        i, j = checkers.STRIP_NAMES.index(a), checkers.STRIP_NAMES.index(b)
        return int(min(c[i, 0] + c[j, 0], checkers.MAX_COUNT)), int(min(c[i, 1] + c[j, 1], checkers.MAX_COUNT))

    def bar_counts(self) -> tuple[int, int]:
        return self._pair("bar-near", "bar-far")

    def off_counts(self) -> tuple[int, int]:
        return self._pair("off-near", "off-far")

    def points_json(self) -> list[dict[str, int]]:
        return [{"point": i + 1, "light": a, "dark": b} for i, (a, b) in enumerate(self.point_counts())]

    def to_json(self) -> dict[str, Any]:
        """The board part of ``gammonwatch recognize --json`` (issue 5): points, bar, off, cube."""
        bar, off = self.bar_counts(), self.off_counts()
        out: dict[str, Any] = {"points": self.points_json(), "bar": {"light": bar[0], "dark": bar[1]},
                               "off": {"light": off[0], "dark": off[1]}}
        if self.cube is not None:
            out["cube"] = {"value": self.cube.value, "zone": self.cube.zone,
                           "confidence": round(self.cube.confidence, 4)}
        return out

    def observation(self, dice: Sequence[DieObservation] = (), frame_id: int = 0, timestamp: float = 0.0,
                    profile: CalibrationProfile | None = None) -> TableObservation:
        """A :class:`TableObservation` with these counts, the cube (if read) and the given dice.

        With ``profile`` the observation carries its orientation (whose home board is where)."""
        kw: dict[str, Any] = {}
        if profile is not None:
            kw["orientation"] = profile.orientation
        cube_obs = self.cube if self.cube is not None and self.cube.zone != "absent" else None
        hidden = tuple(checkers.STRIP_NAMES[i] for i in self.hidden)
        return TableObservation(self.point_p, self.bar_p, self.off_p, tuple(dice), cube_obs, frame_id, timestamp,
                                hidden=hidden, **kw)


class BoardReader:
    """Checker counter plus cube reader for frames of a calibrated camera.

    Missing or unreadable models raise :class:`vision.errors.ModelMissingError`, whose message
    says how to rebuild them. ``cube_model=False`` reads the checkers only; ``cube_face_model=None``
    reads the face from the window model's own face maps. ``check_totals`` (default) conditions
    each colour's strip distributions on its 15 checkers (:func:`vision.checkers.check_total`;
    skipped for a colour whose reading makes 15 very unlikely, e.g. a hand holding checkers).
    ``cube_zone_prior`` (default) weighs the cube's face reading by how often each face shows in
    its zone (:func:`vision.cube.cube_observation`). ``tray_tall_share``: see
    :data:`vision.checkers.TRAY_TALL_SHARE` (0: the trays as the network reads them). ``bar_prior``
    (default): the bar strips weighed by how often real games hold checkers there before the check
    (:data:`vision.checkers.BAR_PRIOR`).
    """

    def __init__(self, checker_model: str | Path | None = None, cube_model: str | Path | bool | None = None,
                 threads: int = 1, flip_average: bool = True,
                 cube_face_model: str | Path | None = cube.DEFAULT_FACE_MODEL,
                 presence_bias: float | dict[str, float] | None = None, check_totals: bool = True,
                 cube_zone_prior: bool = True, tray_tall_share: float = checkers.TRAY_TALL_SHARE,
                 bar_prior: bool = True) -> None:
        self.check_totals = check_totals
        self.bar_prior = bar_prior
        self.checkers = checkers.CheckerCounter(checker_model or checkers.DEFAULT_MODEL, threads=threads,
                                                flip_average=flip_average, tray_tall_share=tray_tall_share)
        self.cube: cube.CubeReader | None = None
        if cube_model is not False:
            path = cube.DEFAULT_MODEL if cube_model in (None, True) else Path(str(cube_model))
            self.cube = cube.CubeReader(path, threads=threads, face_model=cube_face_model, presence_bias=presence_bias,
                                        zone_prior=cube_zone_prior)
        self._cache_key: tuple[Any, ...] | None = None
        self._strip_tf: list[F64] = []
        self._window_tf: dict[str, F64] = {}

    def keep_unchanged(self, on: bool = True) -> None:
        """From now on (``on``) give a strip, cube window or cube face whose pixels are as when last read
        the reading it had then, instead of running its network again (:mod:`vision.unchanged`; decision
        0747): for a fixed camera's consecutive frames (the live pipeline), never for unrelated images.
        ``on=False`` reads everything again."""
        self.checkers.kept = KeptReadings() if on else None
        if self.cube is not None:
            self.cube.kept = KeptReadings() if on else None

    def _transforms(self, profile: CalibrationProfile) -> tuple[list[F64], dict[str, F64]]:
        key = (profile.image_size, profile.corners.tobytes(), profile.dims)
        if key != self._cache_key:
            for kept in (self.checkers.kept, None if self.cube is None else self.cube.kept):
                if kept is not None:
                    kept.clear()  # another camera: its places are other pixels
            self._strip_tf = checkers.strip_transforms(profile)
            self._window_tf = cube.window_transforms(profile) if self.cube is not None else {}
            self._cache_key = key
        return self._strip_tf, self._window_tf

    def read(self, image: U8, profile: CalibrationProfile, hand_mask: U8 | None = None,
             mask_scale: float = 1.0, known: Sequence[tuple[int, int]] | None = None,
             dice: Sequence[Sequence[float]] | None = None) -> BoardReading:
        """Read one BGR frame (as ``cv2.imread`` gives) of the camera ``profile`` describes.

        ``hand_mask`` (0/255 at ``mask_scale`` of the frame's size): where hands are over the table;
        the strips they may hide are read as unknown (:attr:`BoardReading.hidden`), and so is the cube's
        face when a hand is at it (:func:`vision.cube.face_under_hand`). ``known``: the
        (light, dark) counts of points 1..24 last settled (the tracker's), whose places a hand may
        hide as well as those of the checkers read (:func:`vision.checkers.hidden_strips`). ``dice``: the
        dice boxes located in this frame, when known (a die on the board is not the cube:
        :func:`vision.cube.dice_on_the_board`)."""
        arr = colour_frame(image, profile.image_size)
        strip_tf, window_tf = self._transforms(profile)
        counts = self.checkers.count_strips(checkers.cut_strips(arr, strip_tf))
        hidden: tuple[int, ...] = ()
        if hand_mask is not None and np.any(hand_mask):
            cover = checkers.strip_cover(hand_mask, mask_scale, strip_tf)
            prior = None if known is None else np.asarray(known, dtype=np.int64).reshape(-1, 2)
            hidden = checkers.hidden_strips(cover, counts.likeliest(), profile.dims, prior)
            if hidden:
                lp, dp = counts.light_p.copy(), counts.dark_p.copy()
                lp[list(hidden)] = dp[list(hidden)] = 1.0 / COUNTS
                counts = checkers.StripCounts(lp, dp)
        idx = {n: i for i, n in enumerate(checkers.STRIP_NAMES)}
        totals = None
        light_p, dark_p = counts.light_p, counts.dark_p
        if self.check_totals and not hidden:
            # (with places hidden the frame does not show 15 of each colour: forcing the total would
            # move a doubtful checker of a place in view under the hand)
            if self.bar_prior:
                light_p, dark_p = checkers.weigh_bar(light_p), checkers.weigh_bar(dark_p)
            totals = (checkers.check_total(light_p), checkers.check_total(dark_p))
            light_p, dark_p = totals[0].marginals, totals[1].marginals
        point_p = np.stack([light_p[:24], dark_p[:24]], axis=1)

        def total(a: str, b: str) -> F64:
            return np.stack([checkers.add_counts(light_p[idx[a]], light_p[idx[b]]),
                             checkers.add_counts(dark_p[idx[a]], dark_p[idx[b]])])

        bar_p = total("bar-near", "bar-far")
        off_p = total("off-near", "off-far")
        cube_obs = None
        windows = None
        if self.cube is not None:
            windows = self.cube.read_full(arr, profile, window_tf, dice)
            if hand_mask is not None:
                windows = cube.face_under_hand(windows, profile, hand_mask, mask_scale)
            cube_obs = windows.observation()
        assert point_p.shape == (24, 2, COUNTS)
        return BoardReading(point_p, bar_p, off_p, cube_obs, counts, windows, totals, hidden)
