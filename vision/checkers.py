"""Counting checkers per point, on the bar and in the trays with a small ONNX classifier on strips.

Every place that can hold checkers is cut out of the camera frame as a *strip*: a rectified,
top-down picture of the board plane (through the calibration profile's homographies, so 4 or 8
corners suffice and no pose is needed), :data:`STRIP_W` x :data:`STRIP_H` pixels, always with the
rail end at the top. A point's strip is two point widths wide (the point and half of each
neighbour, for context) and runs from beyond its rail (tall stacks seen from the far side lean
outwards) to beyond the middle line (tall stacks seen from the near side lean inwards). The bar
has a near and a far strip (light checkers wait on the near half, dark on the far half in the
simulator, but either colour is counted in both), the trays likewise.

The classifier (``models/checkers_strip.onnx``, trained by ``models/train_checkers.py`` on
simulator frames) takes the strips, standardised per frame and channel (so light and dark keep
their brightness relative to the rest of the board), and the strip's kind (point / bar / tray),
and returns for each strip a distribution over 0..15 light and 0..15 dark checkers.

The strip convention lives here and the training script imports it, so training and inference see
the same pixels (as ``vision.dice`` does for the die reader).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import F64, BoardDimensions
from calibration.profile import CalibrationProfile
from vision.geometry import point_centre_x, point_side
from vision.images import network_input
from vision.onnx import MODELS_DIR, load_session
from vision.unchanged import KeptReadings

STRIP_W = 32
"""Width of a strip (pixels): two point widths."""
STRIP_H = 96
"""Height of a strip (pixels): from RAIL_MARGIN beyond the rail to MID_MARGIN beyond the middle line."""
RAIL_MARGIN = 0.30
"""How far a strip reaches beyond the rail, as a fraction of half the playing depth."""
MID_MARGIN = 0.15
"""How far a strip reaches beyond the middle line, as a fraction of half the playing depth."""
MAX_COUNT = 15
COUNTS = MAX_COUNT + 1

Kind = Literal["point", "bar", "tray"]
KINDS: tuple[Kind, ...] = ("point", "bar", "tray")

DEFAULT_MODEL = MODELS_DIR / "checkers_strip.onnx"
REBUILD_HINT = ("rebuild it with: pip install -e '.[train]' && python models/board_data.py checkers "
                "DATA_DIR... && python models/train_checkers.py (see models/checkers.md)")

U8 = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Strip:
    """One place that holds checkers: its name, kind and four board-plane corners (cm), in the
    order top-left, top-right, bottom-right, bottom-left of the strip image (rail end at the top)."""

    name: str
    """``p1``..``p24``, ``bar-near``, ``bar-far``, ``off-near``, ``off-far``."""
    kind: Kind
    corners_cm: F64
    half: Literal["right", "left", "bar"]


def strip_names() -> tuple[str, ...]:
    return tuple(f"p{p}" for p in range(1, 25)) + ("bar-near", "bar-far", "off-near", "off-far")


STRIP_NAMES = strip_names()
N_STRIPS = len(STRIP_NAMES)
KIND_OF = {n: ("point" if n.startswith("p") else "bar" if n.startswith("bar") else "tray") for n in STRIP_NAMES}


def _column(xc: float, width: float, side: int, q: float) -> F64:
    """Corners of a strip centred on x = ``xc`` on the near (side -1) or far (+1) side, rail at the top.

    The far-side strip is the near-side one turned by 180 degrees (a rotation, never a mirror)."""
    y_rail = side * q * (1.0 + RAIL_MARGIN)
    y_mid = -side * q * MID_MARGIN
    h = width / 2
    if side < 0:
        return np.array([[xc + h, y_rail], [xc - h, y_rail], [xc - h, y_mid], [xc + h, y_mid]], dtype=np.float64)
    return np.array([[xc - h, y_rail], [xc + h, y_rail], [xc + h, y_mid], [xc - h, y_mid]], dtype=np.float64)


def strips(profile: CalibrationProfile) -> list[Strip]:
    """The 28 strips of a board in :data:`STRIP_NAMES` order, in the profile's board frame."""
    dims = profile.dims
    q = dims.play_depth / 2
    pw = dims.point_width
    out: list[Strip] = []
    for p in range(1, 25):
        xc = point_centre_x(dims, p)
        out.append(Strip(f"p{p}", "point", _column(xc, 2 * pw, point_side(p), q), "right" if xc > 0 else "left"))
    for name, side in (("bar-near", -1), ("bar-far", 1)):
        out.append(Strip(name, "bar", _column(0.0, 2 * pw, side, q), "bar"))
    sgn = 1.0 if dims.tray_side == "right" else -1.0
    tray_x = sgn * (dims.bar_width / 2 + dims.half_width + dims.rail_width + dims.tray_width / 2)
    for name, side in (("off-near", -1), ("off-far", 1)):
        out.append(Strip(name, "tray", _column(tray_x, 2 * pw, side, q), "right" if sgn > 0 else "left"))
    return out


def region_homographies(profile: CalibrationProfile) -> dict[str, F64]:
    """Board-plane -> image homographies for the right half, the left half and the bar.

    With 8 corners the bar's homography comes from the halves' inner corners, so a bar wider or
    narrower than the profile's dimensions still lands on the bar; with 4 corners all three are the
    whole-board homography."""
    hs = profile.homographies
    out = {"right": hs["right"], "left": hs["left"], "bar": hs["right"]}
    dims = profile.dims
    if len(profile.corners) == 8 and dims.bar_width > 0.1:
        c = profile.corners
        b, q = dims.bar_width / 2, dims.play_depth / 2
        src = np.array([[b, -q], [-b, -q], [-b, q], [b, q]], dtype=np.float32)
        dst = np.array([c[1], c[4], c[7], c[2]], dtype=np.float32)  # the halves' inner corners
        h = np.asarray(cv2.getPerspectiveTransform(src, dst), dtype=np.float64)
        out["bar"] = h / h[2, 2]
    return out


def strip_transforms(profile: CalibrationProfile) -> list[F64]:
    """For each strip, the 3x3 map from strip pixels to image pixels (for ``cv2.WARP_INVERSE_MAP``)."""
    hs = region_homographies(profile)
    dst = np.array([[0, 0], [STRIP_W, 0], [STRIP_W, STRIP_H], [0, STRIP_H]], dtype=np.float32)
    out = []
    for s in strips(profile):
        pts = s.corners_cm.reshape(-1, 1, 2)
        img = cv2.perspectiveTransform(pts, hs[s.half]).reshape(-1, 2).astype(np.float32)
        out.append(np.asarray(cv2.getPerspectiveTransform(dst, img), dtype=np.float64))
    return out


def cut_strips(image: U8, transforms: list[F64]) -> U8:
    """``N x STRIP_H x STRIP_W x 3`` BGR strips of a frame (border pixels replicated)."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"need a colour image (H x W x 3), got shape {image.shape}")
    out = np.empty((len(transforms), STRIP_H, STRIP_W, 3), dtype=np.uint8)
    for i, m in enumerate(transforms):
        out[i] = cv2.warpPerspective(image, m, (STRIP_W, STRIP_H), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
    return out


COVER_W, COVER_H = STRIP_W // 2, STRIP_H // 2
"""Size of a strip's hand-cover map (:func:`strip_cover`)."""
HIDDEN_SLOT_COVER = 0.4
"""A checker's place on a point (one checker diameter of the point's column, from the rail) this
much covered by a hand is hidden (seed 304: a stack whose checkers' places were 0.29-0.49 covered,
its left half under a palm, read 7 for 5; 0.5 until session 9)."""
HIDDEN_AREA_COVER = 0.25
"""A bar or tray half this much covered by a hand is hidden (checkers there can lie anywhere)."""


HAND_MARGIN = 0.2
"""A hand's mask is widened by this share of the narrowest point's width (rounded to whole mask pixels:
one at the pipeline's 1/8 scale) before its cover is measured: a hand's
edge, a thumb or fingers over a pale point or the rail differ little from the table under them and
fall outside the mask, yet the strip's network reads them as a light checker (seed 320: a thumb
over the far rail end of point 17 read as one light checker, a palm's edge 0.36 over point 7's first
place; five false illegal moves at the bar tap)."""


def strip_cover(hand_mask: U8, mask_scale: float, transforms: list[F64]) -> F32:
    """``N x COVER_H x COVER_W``: the share of each (reduced) strip pixel that a hand covers.

    ``hand_mask``: the hands in the frame, 0/255, at ``mask_scale`` of the frame's size (as the
    pipeline's hand cue keeps it), widened by :data:`HAND_MARGIN` of the narrowest point's width
    there; ``transforms``: :func:`strip_transforms` of the frame."""
    widths = [float(np.hypot(*(_apply(t, (STRIP_W, 0.0)) - _apply(t, (0.0, 0.0))))) for t in transforms[:24]]
    r = int(round(HAND_MARGIN * min(widths, default=0.0) * mask_scale))
    if r > 0:
        hand_mask = np.asarray(cv2.dilate(hand_mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))),
                               dtype=np.uint8)
    m = np.asarray(hand_mask, dtype=np.float32) / 255.0
    to_mask = np.diag([mask_scale, mask_scale, 1.0])
    from_small = np.diag([STRIP_W / COVER_W, STRIP_H / COVER_H, 1.0])
    out = np.empty((len(transforms), COVER_H, COVER_W), dtype=np.float32)
    for i, t in enumerate(transforms):
        out[i] = cv2.warpPerspective(m, to_mask @ t @ from_small, (COVER_W, COVER_H),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0.0)
    return out


def _apply(t: F64, xy: tuple[float, float]) -> npt.NDArray[np.float64]:
    """Image point of strip point ``xy`` under the strip's homography ``t`` (strip -> image)."""
    v = t @ np.array([xy[0], xy[1], 1.0])
    return np.asarray(v[:2] / v[2], dtype=np.float64)


def hidden_strips(cover: F32, counts: npt.NDArray[np.int64], dims: BoardDimensions,
                  known: npt.NDArray[np.int64] | None = None) -> tuple[int, ...]:
    """Indices (:data:`STRIP_NAMES` order) of the strips whose checkers a hand may hide.

    A point is hidden when one of the places its checkers take, from the rail, is at least
    :data:`HIDDEN_SLOT_COVER` covered: the places of the checkers read there (``counts``: ``N x 2``,
    the larger colour, at most five: taller stacks fold onto the first layer) or known to be there
    (``known``: ``N x 2`` or only the 24 points, the counts last settled; a palm over a stack makes it
    read short: seed 304 read two checkers under a palm as none) and the next one (where a checker
    set down would go). A bar or tray half is hidden when its area is at least
    :data:`HIDDEN_AREA_COVER` covered. Only the middle of a strip's width is the place itself."""
    length = 1.0 + RAIL_MARGIN + MID_MARGIN  # strip height in half playing depths
    rail = RAIL_MARGIN / length * COVER_H
    mid = (RAIL_MARGIN + 1.0) / length * COVER_H
    slot = dims.checker_diameter / (dims.play_depth / 2) / length * COVER_H
    c0, c1 = COVER_W // 4, COVER_W - COVER_W // 4
    out = []
    for i, name in enumerate(STRIP_NAMES):
        core = cover[i, :, c0:c1]
        if KIND_OF[name] != "point":
            if float(core[int(rail):int(np.ceil(mid))].mean()) >= HIDDEN_AREA_COVER:
                out.append(i)
            continue
        n = int(max(counts[i]))
        if known is not None and i < len(known):
            n = max(n, int(max(known[i])))
        n = min(n, 4)
        for k in range(n + 1):
            a, b = int(rail + k * slot), int(np.ceil(min(rail + (k + 1) * slot, mid)))
            if b > a and float(core[a:b].mean()) >= HIDDEN_SLOT_COVER:
                out.append(i)
                break
    return tuple(out)


def to_tensor(strips_bgr: U8) -> F32:
    """Network input of one frame's strips: RGB, standardised per channel over all the frame's strips
    (``N x 3 x STRIP_H x STRIP_W`` float32)."""
    return network_input(strips_bgr, axes=(0, 1, 2))


def kinds_onehot(names: tuple[str, ...] = STRIP_NAMES) -> F32:
    out = np.zeros((len(names), len(KINDS)), dtype=np.float32)
    for i, n in enumerate(names):
        out[i, KINDS.index(KIND_OF[n])] = 1.0
    return out


def softmax(logits: F32) -> F32:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True), dtype=np.float32)


def add_counts(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Distribution of the sum of two independent counts 0..15 (the tail above 15 folded onto 15)."""
    s = np.convolve(a, b)
    out = s[:COUNTS].copy()
    out[-1] += s[COUNTS:].sum()
    return np.asarray(out, dtype=np.float64)


TRAY_TALL_FROM = 6
"""A tray strip's counts from this one up are read unreliably (borne-off checkers lie in a row and
double up; a second layer shows only as a thicker rim): see :data:`TRAY_TALL_SHARE`."""
TRAY_TALL_SHARE = 0.4
"""Share of a tray strip's probability for :data:`TRAY_TALL_FROM` checkers or more that is spread
evenly over those counts (:func:`spread_tall`). The network reads 6 or more borne-off checkers in a
tray strip right only a third of the time and often puts less than 1% on the true count (1,044
simulator frames of the training styles, never trained on): as it comes, its tray reading outweighs
the 24 points in the 15-per-colour check and in the referee's likelihoods. Both values chosen by the
negative log-likelihood of the true counts on those frames (``python models/board_data.py
calibrate-trays``; models/checkers.md)."""


def spread_tall(p: npt.NDArray[np.float64], start: int = TRAY_TALL_FROM, share: float = TRAY_TALL_SHARE) -> npt.NDArray[np.float64]:
    """``p`` (``... x 16`` count distributions) with ``share`` of the probability of ``start`` or more
    checkers spread evenly over those counts: the total for ``start`` or more, and everything below
    it, stay as they were."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be within 0..1, got {share}")
    out = np.array(p, dtype=np.float64, copy=True)
    tall = out[..., start:]
    mass = tall.sum(axis=-1, keepdims=True)
    out[..., start:] = (1.0 - share) * tall + share * mass / tall.shape[-1]
    return out


PLAYER_CHECKERS = 15
"""Checkers of each colour in a game: on the points, the bar and the trays together."""
MIN_TOTAL_P = 1e-6
"""Below this probability of the strips holding 15 of a colour (the frame's own evidence, strips
independent), the 15-per-colour check is not applied to that colour: something hides or holds
checkers (a hand), and forcing the total would move errors elsewhere."""


BAR_PRIOR = np.array([1.0, 0.84, 0.35] + [1.0] * (COUNTS - 3))
"""Weights of 0, 1, 2, ... checkers of a colour on a bar strip, applied before the 15-per-colour check
(:func:`weigh_bar`): how often real games hold that many on the bar, against how often the simulator's
layouts the strip network was trained on do (``python models/bar_prior.py``: 300 shared match
transcripts, after every move, 0/1/2: 81.2% / 14.4% / 3.6%; the default layouts 74.5% / 15.8% / 9.4%),
relative to 0. From 3 on the simulator's draws are too few to say: left as the network reads. Without
it, a checker the network misses (a dark red one on a red point by the rail) was put on the bar by
the check, where a little stray mass of the bar strip took it (seed 352; decision 0732)."""
_BAR_ROWS = [i for i, n in enumerate(STRIP_NAMES) if KIND_OF[n] == "bar"]


def weigh_counts(d: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] = BAR_PRIOR) -> npt.NDArray[np.float64]:
    """Count distributions ``d`` (``16`` or ``N x 16``) weighed by ``weights`` (per count) and
    normalised again."""
    out: npt.NDArray[np.float64] = np.asarray(d, dtype=np.float64) * weights
    out /= np.maximum(out.sum(axis=-1, keepdims=True), 1e-300)
    return out


def weigh_bar(p: npt.NDArray[np.float64], weights: npt.NDArray[np.float64] = BAR_PRIOR) -> npt.NDArray[np.float64]:
    """One colour's ``28 x 16`` strip distributions with the bar strips weighed by ``weights`` (per
    count, :func:`weigh_counts`); the other strips as they are."""
    out = np.array(p, dtype=np.float64, copy=True)
    out[_BAR_ROWS] = weigh_counts(out[_BAR_ROWS], weights)
    return out


@dataclass(frozen=True)
class TotalCheck:
    """One colour's strip distributions conditioned on the colour's 15 checkers (see :func:`check_total`)."""

    marginals: npt.NDArray[np.float64]
    """``N x 16``: P(count of strip i | the N strips hold ``total``)."""
    best: npt.NDArray[np.int64]
    """``N``: the likeliest counts that add up to ``total`` (joint, not strip by strip)."""
    total_p: float
    """P(the strips hold ``total``) with the strips independent: how well the raw reading fits."""
    applied: bool
    """False when ``total_p`` was below the threshold and the raw distributions were kept."""


def check_total(p: npt.NDArray[np.float64], total: int = PLAYER_CHECKERS, min_total_p: float = MIN_TOTAL_P) -> TotalCheck:
    """Condition independent per-strip count distributions ``p`` (``N x 16``) on their sum being ``total``.

    The marginals come from a forward-backward pass over the strips (sum-product), the joint
    likeliest counts from the same recursion with max-product. Exact and cheap (N x 16 x 16)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, None)
    p = p / p.sum(axis=1, keepdims=True)
    n, k = p.shape
    size = total + 1
    fwd = np.zeros((n + 1, size))
    fwd[0, 0] = 1.0
    scale = np.ones(n + 1)
    for i in range(n):
        row = np.convolve(fwd[i], p[i])[:size]
        scale[i + 1] = max(row.sum(), 1e-300)
        fwd[i + 1] = row / scale[i + 1]
    total_p = float(fwd[n, total] * np.prod(scale[1:]))
    raw_best = p.argmax(axis=1).astype(np.int64)
    if not total_p >= min_total_p:
        return TotalCheck(p, raw_best, total_p, False)
    bwd = np.zeros((n + 1, size))  # bwd[i, s]: P(strips i.. hold s), rescaled
    bwd[n, 0] = 1.0
    for i in range(n - 1, -1, -1):
        row = np.convolve(bwd[i + 1], p[i])[:size]
        bwd[i] = row / max(row.sum(), 1e-300)
    marg = np.zeros((n, k))
    kk = min(k, size)
    for i in range(n):
        # strips before i hold s, strip i holds c, strips after hold total - s - c
        around = np.convolve(fwd[i], bwd[i + 1])  # around[t] ~ P(the others hold t)
        marg[i, :kk] = p[i, :kk] * around[total - np.arange(kk)]
        marg[i] /= max(marg[i].sum(), 1e-300)
    # joint best: max-product over the same chain
    logp = np.log(p)
    dp = np.full((n + 1, size), -np.inf)
    dp[0, 0] = 0.0
    back = np.zeros((n, size), dtype=np.int64)
    prev = np.arange(size)[:, None] - np.arange(kk)[None, :]  # [s_new, c] -> s_new - c
    ok = prev >= 0
    prev = np.clip(prev, 0, None)
    rows = np.arange(size)
    for i in range(n):
        cand = np.where(ok, dp[i][prev], -np.inf) + logp[i, :kk][None, :]
        j = np.argmax(cand, axis=1)
        dp[i + 1] = cand[rows, j]
        back[i] = j
    best = np.zeros(n, dtype=np.int64)
    s_left = total
    for i in range(n - 1, -1, -1):
        best[i] = back[i, s_left]
        s_left -= int(best[i])
    return TotalCheck(marg, best, total_p, True)


@dataclass(frozen=True)
class StripCounts:
    """Per strip (``STRIP_NAMES`` order) the distributions over 0..15 light and dark checkers."""

    light_p: npt.NDArray[np.float64]
    dark_p: npt.NDArray[np.float64]

    def counts(self) -> dict[str, tuple[int, int]]:
        return {n: (int(np.argmax(self.light_p[i])), int(np.argmax(self.dark_p[i]))) for i, n in enumerate(STRIP_NAMES)}

    def likeliest(self) -> npt.NDArray[np.int64]:
        """``N x 2``: each strip's own likeliest (light, dark) count."""
        return np.stack([self.light_p.argmax(axis=1), self.dark_p.argmax(axis=1)], axis=1)


class CheckerCounter:
    """The strip classifier (ONNX Runtime, CPU).

    >>> counter = CheckerCounter()                     # doctest: +SKIP
    >>> counter.count(image, profile).counts()["p6"]   # doctest: +SKIP
    (5, 0)
    """

    def __init__(self, model_path: str | Path = DEFAULT_MODEL, threads: int = 1, flip_average: bool = True,
                 tray_tall_share: float = TRAY_TALL_SHARE) -> None:
        """``flip_average``: also classify every strip mirrored left-right (it holds the same
        checkers) and average the two distributions (twice the model time, fewer errors).
        ``tray_tall_share``: how much of the tray strips' probability for many checkers is spread
        evenly (:func:`spread_tall`; 0 keeps the network's distributions)."""
        if not 0.0 <= tray_tall_share <= 1.0:
            raise ValueError(f"tray_tall_share must be within 0..1, got {tray_tall_share}")
        path = Path(model_path)
        self.flip_average = flip_average
        self.tray_tall_share = tray_tall_share
        self._trays = np.array([KIND_OF[n] == "tray" for n in STRIP_NAMES])
        self._session = load_session(path, what="checker model", rebuild_hint=REBUILD_HINT, threads=threads)
        self.model_path = path
        self._kinds = kinds_onehot()
        self.kept: KeptReadings | None = None
        """When set (:meth:`vision.board_reader.BoardReader.keep_unchanged`), the strips keep their readings
        while none of them has changed since it was read (:mod:`vision.unchanged`)."""

    def count_strips(self, strips_bgr: U8) -> StripCounts:
        """Classify one frame's 28 strips (cut with :func:`cut_strips`)."""
        if strips_bgr.shape != (N_STRIPS, STRIP_H, STRIP_W, 3):
            raise ValueError(f"need {N_STRIPS} strips of {STRIP_H}x{STRIP_W}x3, got {strips_bgr.shape}")
        kept = self.kept
        # the strips are read all again when any has changed: the network's input is standardised over all
        # the frame's strips, and a hand over some changes what every strip's reading would be (decision 0747)
        if kept is not None and not any(kept.changed(i, strips_bgr[i]) for i in range(N_STRIPS)):
            outputs = [kept.output(i) for i in range(N_STRIPS)]
            lp = np.stack([o[0] for o in outputs])
            dp = np.stack([o[1] for o in outputs])
        else:
            x = to_tensor(strips_bgr)
            kinds = self._kinds
            if self.flip_average:
                x = np.ascontiguousarray(np.concatenate([x, x[..., ::-1]]))
                kinds = np.concatenate([kinds, kinds])
            light, dark = self._session.run(None, {"strips": x, "kinds": kinds})
            lp = softmax(np.asarray(light)).astype(np.float64)
            dp = softmax(np.asarray(dark)).astype(np.float64)
            if self.flip_average:
                lp = (lp[:N_STRIPS] + lp[N_STRIPS:]) / 2
                dp = (dp[:N_STRIPS] + dp[N_STRIPS:]) / 2
            if kept is not None:
                for i in range(N_STRIPS):
                    kept.keep(i, strips_bgr[i], (lp[i].copy(), dp[i].copy()))
        if self.tray_tall_share > 0.0:
            lp[self._trays] = spread_tall(lp[self._trays], share=self.tray_tall_share)
            dp[self._trays] = spread_tall(dp[self._trays], share=self.tray_tall_share)
        return StripCounts(lp, dp)

    def count(self, image: U8, profile: CalibrationProfile) -> StripCounts:
        """Count the checkers of every strip of a frame seen through ``profile``."""
        return self.count_strips(cut_strips(image, strip_transforms(profile)))
