"""Card hypotheses from a frame: where might a card's index corner be?

The recogniser's detection half, kept apart so that it can be tested without a
model.  It never decides *whether* a hypothesis is a card: it proposes
generously and lets the classifier's ``none`` class reject the wrong ones.

The four choices that make the classic threshold-and-quadrilateral reader fail
on real tables are each replaced here:

* **No global threshold.**  A card face is the brightest, least yellow thing
  around it, so :func:`card_mask` compares a "white and not warm" value with
  its local mean over a window a few card widths across.  A light wooden
  table, a lamp's gradient or a dark cloth all work the same way.
* **Corners, not quadrilaterals.**  Overlapped and fanned cards merge into one
  blob whose outline is no quadrilateral, but every visible card corner is
  still a convex, roughly right-angled turn between two straight runs of the
  outline.  :func:`find_corners` finds those turns; each one is a hypothesis.
* **No fixed pixel sizes.**  Tolerances are fractions of the frame, and the
  card's size comes from the scene: edges running from one right-angled
  corner to another give the card's width and height (:func:`measure_edges`).
* Which of a corner's two edges is the short one need not be known: ordering
  the edges so that the corner is a *top-left* one fixes the card's x axis,
  and a corner that is really a top-right one yields a patch of plain card
  that the classifier calls ``none``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.classifier import CARD_SIZE

ASPECT = CARD_SIZE[1] / CARD_SIZE[0]
"""Height over width of a card (1.4: poker size; bridge cards are about 1.56)."""

_MAX_TURN_COS = math.cos(math.radians(68))   # corner angle within 90 ± 22 degrees
_ROUGH_TURN_COS = math.cos(math.radians(55))  # before refitting the edges
_PARALLEL_COS = math.cos(math.radians(12))
_MAX_RMS = 0.7                                  # px: how far a straight edge's outline may wander
_MIN_BEND_SIN = math.sin(math.radians(7))      # a fan's bend from one card's edge to the next


@dataclass
class Corner:
    """A convex, near-right-angled turn of a bright blob's outline, in working pixels.

    ``u`` and ``v`` are unit vectors along the two edges, ordered so that the
    corner would be a card's top-left corner (``u`` to the right along the
    top, ``v`` down the left side: ``cross(u, v) > 0`` with y pointing down).
    ``seen_u`` and ``seen_v`` are how far each edge is visible from the corner;
    ``edge_u`` / ``edge_v`` the displacement to the corner at the other end of
    that edge when one was found (so the edge's full length is known).
    """

    point: np.ndarray
    u: np.ndarray
    v: np.ndarray
    seen_u: float
    seen_v: float
    edge_u: np.ndarray | None = field(default=None)
    edge_v: np.ndarray | None = field(default=None)
    bend: bool = False   # found where an edge merely bends into the next (a fan), not at a turn


@dataclass(frozen=True)
class Hypothesis:
    """A possible card: the map from card units to working pixels (affine; a perspective one for a
    close-up's four corners, :func:`card_quads`).

    ``corner`` is the index of the :class:`Corner` it grew from, or -1 for a
    card seen whole (the frame itself, a card filling the picture, or a
    close-up's four corners).
    ``measured`` counts the card's edges whose length was measured rather
    than assumed (0 to 2).  ``twin`` is set where the same card turned half
    a turn was proposed too and dropped (:func:`unique`): its other index
    corner must then be read even when this one is covered.  ``doubtful``
    marks a card grown at the scene's less likely size
    (:attr:`CardWidths.doubtful`): its read must be sure.  ``learned``
    marks a corner of the learned detector's (``vision.detector``).
    """

    card_to_work: np.ndarray
    width: float
    corner: int
    measured: int = 0
    twin: bool = False
    doubtful: bool = False
    learned: bool = False


class CardWidths(NamedTuple):
    """A card's width in this frame (working pixels), as :func:`scene_card_widths` reads the edges.

    ``likely`` holds one figure, or two a card's ratio apart that the edges
    support almost equally.  ``doubtful`` holds the other readings where
    the edges alone support them fairly: the other reading of the same
    edges (a row of cards overlapping by half can show only their long
    sides, and pairs of them that pass for whole cards), or the edges' own
    best (and its other reading) where a lone whole-card witness overruled
    it.  Cards are grown at a doubtful size only from an edge that fits it,
    and reported only when read surely.
    """

    likely: list[float]
    doubtful: list[float]

    def confirmed_by(self, whole: list[float]) -> CardWidths:
        """These readings after cards seen whole elsewhere (pieces cut out of rows) had their say.

        The readings that two or more of ``whole`` agree with are the card's
        width, and the others become doubtful: in rows, a row's straight side
        next to a card's long edge can pass for a whole card, twice, and
        outvote the true width, which only the top card of a row shows whole.
        ``whole`` can only choose between these readings, never add one: a
        card's print has frames of a card's shape too.  Save one: where the
        corners seen whole left no other reading, the width whose height
        that reading is.  Three cards laid in a row, each a little over half
        a card along, make one blob a card's height tall and one and a half
        heights long, a card's shape turned sideways; where it holds the
        only corners seen whole, the cards' height passes for their width,
        and only the top card, cut out of the row, shows the true one.  (A
        print's frame is not a card's height narrower than the card; but a
        card sticking out from under another can leave a piece of that
        shape, so not where the edges kept another reading.)
        """
        readings = self.likely + self.doubtful
        confirmed = [w for w in readings if sum(abs(x - w) < 0.1 * w for x in whole) >= 2]
        if not confirmed and not self.doubtful:
            narrower = [x for x in whole if sum(abs(y - x) < 0.1 * x for y in whole) >= 2
                        and any(abs(r - ASPECT * x) < 0.1 * ASPECT * x for r in self.likely)]
            if narrower:
                x = min(narrower)
                confirmed = [float(np.median([y for y in whole if abs(y - x) < 0.1 * x]))]
        if not confirmed:
            return self
        return CardWidths(confirmed, [w for w in readings if w not in confirmed])


def card_mask(value: np.ndarray) -> np.ndarray:
    """Pixels that are whiter than their neighbourhood: card faces and their rims.

    ``value`` is the frame's :func:`whiteness`.  A pixel counts when it exceeds its local mean (over
    a tenth of the frame) by a quarter of the way to white (255, or the
    cards' own :func:`white_point` under a tinted light), and by at least
    10 levels.  Inside a card larger than the window only the rim
    survives, which is all the outline needs: at a card's edge the window is
    half table, so the card's side always passes.  (The table just beside a
    chip or a card back passes too; those ragged blobs show few straight
    corners, and the classifier rejects what they propose.)
    """
    h, w = value.shape
    k = max(15, (max(h, w) // 10) | 1)
    mean = cv2.blur(value, (k, k))
    # The level needed depends on the local mean alone: one table lookup per pixel.
    level = np.arange(256)
    need = np.minimum(255, level + np.maximum(10, np.maximum(white_point(value) - level, 0) >> 2))
    mask = cv2.compare(value, cv2.LUT(mean, need.astype(np.uint8)), cv2.CMP_GT)
    # Close small gaps: an index printed right at the card's edge would
    # otherwise bite a notch out of the outline next to the very corner we need.
    c = max(3, (max(h, w) // 200) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (c, c)))
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _top_and_median(levels: np.ndarray) -> tuple[int, int]:
    """The 99.9th percentile and the median of a uint8 image, from its histogram (a sixth of
    ``np.percentile``'s time, which every frame pays)."""
    share = np.cumsum(np.bincount(levels.ravel(), minlength=256)) / levels.size
    top, median = np.searchsorted(share, [0.999, 0.5])
    return int(top), int(median)


_DISTINCT_WHITE = 30
"""How far (levels) the brightest whiteness must stand above the median to be the cards' white."""
_TINTED_WHITE = 220
"""... and below this it is a tinted white; above it, 255 stays the mark."""


def white_point(value: np.ndarray) -> int:
    """The whiteness of a card's face in this frame: 255, or less where the light makes it so.

    Under a warm lamp a white card has little blue, and its whiteness tops
    out near 160; a quarter of the way from the table to 255 is then beyond
    it.  Where the brightest pixels (the 99.9th percentile) stand well
    clear of the median, ``_DISTINCT_WHITE`` levels or more, and short of
    ``_TINTED_WHITE``, they are taken for the cards and their level for
    white.  An empty table's grain or weave never stands so far from its own
    median: white stays 255 there, and its brightest streaks stay under the
    margin.  Nor does a well-lit frame's white move: lowering it by a few
    levels let newspaper print and book pages through as card faces.
    """
    return _white_and_table(value)[0]


def _white_and_table(value: np.ndarray) -> tuple[int, int]:
    """:func:`white_point` and the median whiteness (the table's, where the cards leave most of the
    picture to it), from one histogram."""
    top, median = _top_and_median(value[::4, ::4])
    return (top if top - median >= _DISTINCT_WHITE and top < _TINTED_WHITE else 255), median


_CLEAR = 40
"""Levels of whiteness by which a table (its median) must stand below the cards' white for
:func:`card_mask` to see their outlines in it."""


def as_white_as_cards(value: np.ndarray) -> bool:
    """Whether the table in ``value`` (the frame's :func:`whiteness`; the median pixel is the table's)
    stands within ``_CLEAR`` levels of the cards' :func:`white_point`: a white desk, on which the mask
    misses most cards (the table photos' light wood, whitened so: 14 to 35 levels; as taken 52 or more).
    A close-up, whose median pixel is its card's own white, passes too (159 of ``card-crops/valid``'s
    265): what depends on it there reads those photos alike.
    """
    white, table = _white_and_table(value)
    return white - table < _CLEAR


_WHITE_ENOUGH = 200
"""A frame whose brightest pixels reach this in some channel is left as it is."""
_TABLE_AT_MOST = 200
"""... and no frame's median pixel (its brightest channel) is lifted beyond this."""


def brightened(work_bgr: np.ndarray) -> np.ndarray:
    """The frame lifted, where it is dim, so that its brightest pixels (a card's face) reach 255.

    Every threshold below is in levels of a well-lit picture: in a dim room
    the cards stay at 140, under the quarter-of-the-way-to-white margin of
    :func:`card_mask`, and it finds nothing.  The white point is the 99.9th
    percentile of the brightest channel (a card covers a hundredth of a
    camera frame, so the table's own brightness cannot set it).  One gain
    for all three channels, and never one that lifts the frame's median
    beyond ``_TABLE_AT_MOST``: an empty light table's grain is the brightest
    thing in its picture, and stretching that to white, or correcting a
    warm table's tint away, turns the grain into hundreds of false card
    edges.
    """
    gain = lift(work_bgr)
    return work_bgr if gain == 1.0 else cv2.convertScaleAbs(work_bgr, alpha=gain)


def lift(work_bgr: np.ndarray) -> float:
    """The gain :func:`brightened` lifts ``work_bgr`` by: 1.0 for a frame lit well enough (one gain
    serves every part of a frame alike)."""
    sample = work_bgr[::6, ::6]   # 1 pixel in 36 is plenty
    # The brightest channel, pairwise: numpy's max over a 3-long last axis took 20 times as long.
    white, median = _top_and_median(np.maximum(np.maximum(sample[..., 0], sample[..., 1]), sample[..., 2]))
    if white >= _WHITE_ENOUGH:
        return 1.0
    gain = min(4.0, 255.0 / max(white, 1.0), max(1.0, _TABLE_AT_MOST / max(median, 1.0)))
    return 1.0 if gain <= 1.05 else float(gain)


_LIGHT_CELLS = 24
"""Cells along the frame's long side in which :func:`evened` measures the light."""
_LEAST_FALL_OFF = 1.25
"""The fitted light's brightest corner over its dimmest, below which the frame is left as it is."""
_SURFACE_SHARE = 0.4
"""The share of cells the fitted light must explain: a table's surface, not a card here and there."""
_SURFACE_FIT = 0.05
"""... and how closely (mean distance, in log brightness): a plain surface under a lamp, not clutter."""
_EVENING = 0.6
"""How much of the fall-off :func:`evened` undoes."""


def evened(value: np.ndarray, work_bgr: np.ndarray) -> np.ndarray:
    """``value`` with a lamp's fall-off across the table partly undone, or ``value`` itself where
    the frame shows none.

    :func:`card_mask` asks a card to rise a quarter of the way to white,
    which a card in the dim half of a table lit from one side cannot: there
    it stands 11 levels above a light table, not 25.  The light is a plane
    fitted (in log) to the mean brightness of a grid of cells, each round
    dropping the cells more than a tenth below it (the dark floor around a
    table, a chip, a shadow): the fit follows the brightest surface, the
    table.  Where it falls by a quarter or more across the frame, over at
    least ``_SURFACE_SHARE`` of the cells, with those cells close to it, the
    whiteness is lifted by ``_EVENING`` of the fall-off (lifting all of it
    brought a light table up to the cards' white).  Cluttered photos fit no
    plane that closely (4 of `scene-photos/train`'s 296 photos pass) and
    are left alone: evening their own contrast out lost as many cards as
    it found.
    """
    h, w = work_bgr.shape[:2]
    gw, gh = (_LIGHT_CELLS, max(2, round(_LIGHT_CELLS * h / w))) if w >= h else \
        (max(2, round(_LIGHT_CELLS * w / h)), _LIGHT_CELLS)
    small = cv2.resize(work_bgr[::8, ::8], (gw, gh), interpolation=cv2.INTER_AREA)
    light = np.log(np.maximum(small.max(axis=2).astype(np.float64), 8.0)).ravel()
    ys, xs = np.mgrid[0:gh, 0:gw]
    across = np.stack([np.ones(gw * gh), (xs.ravel() + 0.5) / gw - 0.5, (ys.ravel() + 0.5) / gh - 0.5], axis=1)
    kept = np.ones(light.size, bool)
    for _ in range(3):
        plane = np.linalg.lstsq(across[kept], light[kept], rcond=None)[0]
        kept = light >= across @ plane - 0.1
    _, slope_x, slope_y = plane
    if (math.exp(abs(slope_x) + abs(slope_y)) < _LEAST_FALL_OFF or kept.mean() < _SURFACE_SHARE
            or float(np.abs(light[kept] - across[kept] @ plane).mean()) > _SURFACE_FIT):
        return value
    # The plane's inverse, separable: one factor per column times one per row, 1 at the brightest corner.
    vh, vw = value.shape
    fx = np.exp(_EVENING * (abs(slope_x) / 2 - slope_x * ((np.arange(vw) + 0.5) / vw - 0.5)))
    fy = np.exp(_EVENING * (abs(slope_y) / 2 - slope_y * ((np.arange(vh) + 0.5) / vh - 0.5)))
    return cv2.multiply(value, fy.astype(np.float32)[:, None] * fx.astype(np.float32)[None, :], dtype=cv2.CV_8U)


def whiteness(work_bgr: np.ndarray) -> np.ndarray:
    """How white, not merely how bright, each pixel is: ``min(B + (B - R) / 2, max(G, R) + 20)``.

    A light wooden table can be as bright as a card, but it is yellow: its
    blue falls short of its red, which this value doubles; a card stays white
    (under a warm lamp the table's tint grows faster than the card's).  The
    second term keeps blue chips and cloth from passing for white.  Lightly
    smoothed; uint8.
    """
    b, g, r = cv2.split(work_bgr)
    tinted = cv2.addWeighted(b, 1.5, r, -0.5, 0.0)          # saturates to 0..255
    brightest = cv2.max(g, r)
    value = cv2.min(tinted, cv2.add(brightest, np.full_like(brightest, 20)))
    return cv2.GaussianBlur(value, (3, 3), 0)


def lone_cards(mask: np.ndarray, width: float) -> np.ndarray:
    """The blobs that are one whole card on their own: a convex quadrilateral of a card's size.

    Nothing can hide inside such a blob, so the costlier search for cards
    beneath cards (:func:`split_overlaps`) skips it.  The size matters: a
    spread of four cards makes a rectangle of a card's proportions too.
    """
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    lone = np.zeros_like(mask)
    for c in contours:
        if cv2.contourArea(c) < 0.5 * width * width:
            continue
        quad = cv2.approxPolyDP(c, 0.03 * cv2.arcLength(c, True), True)
        if len(quad) != 4 or not cv2.isContourConvex(quad):
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        short, long_ = min(rw, rh), max(rw, rh)
        if abs(short - width) < 0.12 * width and abs(long_ - ASPECT * width) < 0.12 * ASPECT * width \
                and cv2.contourArea(c) >= 0.92 * rw * rh:
            cv2.drawContours(lone, [c], -1, 255, cv2.FILLED)
    return lone


def split_overlaps(value: np.ndarray, mask: np.ndarray, filled: np.ndarray, *, min_line: float) -> np.ndarray:
    """The card mask cut along the long straight edges inside it (``filled``: :func:`fill_holes` of it).

    Where cards overlap, or lie in a spread with their tops in one line, the
    blob's outline shows no corner for the cards beneath the top one; but the
    top card's edge (its printed border, or the thin shadow it casts) still
    crosses the face below as a straight line.  Cutting the mask along such
    lines, at least ``min_line`` long, turns each visible piece of a card into
    a blob of its own, with its own corners; the short edges of pips and
    index characters are left alone.
    """
    inner = cv2.erode(filled, np.ones((5, 5), np.uint8))
    # Edges are wanted inside the blobs only: look there alone, blob by blob.
    edges = np.zeros_like(mask)
    blobs, _ = cv2.findContours(inner, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = mask.shape
    for x, y, bw, bh in (cv2.boundingRect(b) for b in blobs):
        if max(bw, bh) < min_line:
            continue
        x0, y0, x1, y1 = max(0, x - 12), max(0, y - 12), min(w, x + bw + 12), min(h, y + bh + 12)
        cv2.max(edges[y0:y1, x0:x1], cv2.Canny(value[y0:y1, x0:x1], 25, 60), dst=edges[y0:y1, x0:x1])
    edges = cv2.bitwise_and(edges, inner)
    lines = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=max(8, int(min_line * 0.6)),
                            minLineLength=min_line, maxLineGap=4)
    cut = mask.copy()
    if lines is None:
        return cut
    seg = lines.reshape(-1, 4).astype(np.float64)
    d = seg[:, 2:] - seg[:, :2]
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-9
    # Each line is carried on to the blob's outline (the index beside a card's
    # edge often hides its last stretch), but no further than twice min_line.
    steps = np.arange(1.0, 2.0 * min_line)
    ends = []
    for start, sign in ((seg[:, :2], -1.0), (seg[:, 2:], 1.0)):
        pts = start[:, None, :] + sign * d[:, None, :] * steps[None, :, None]
        x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        outside = filled[y, x] == 0
        first = np.where(outside.any(axis=1), outside.argmax(axis=1), -1)
        idx = np.arange(len(seg))
        reach = np.where(first[:, None] >= 0, np.stack([x[idx, first], y[idx, first]], axis=1),
                         np.round(start).astype(int))
        ends.append(reach)
    for (x0, y0), (x1, y1) in zip(ends[0].tolist(), ends[1].tolist()):
        cv2.line(cut, (x0, y0), (x1, y1), 0, 2)
    return cut


class _Runs:
    """Least-squares lines through runs of one closed outline, each in constant time.

    Prefix sums of x, y, x², y² and xy over the outline (a run that wraps
    adds the whole round) give any run's centroid and covariance by a subtraction;
    the line is the covariance's main axis and the points' root-mean-square
    distance from it is the square root of the smaller eigenvalue.  The
    outline holds hundreds of candidate edges, and a per-edge library call
    cost more than all the rest of the corner search.
    """

    def __init__(self, points: np.ndarray) -> None:
        self.points = points
        self.n = len(points)
        self.ox, self.oy = (int(v) for v in points[0])
        self.sums: np.ndarray | None = None   # summed on the first fit: most outlines never need one

    def fit(self, a: int, b: int, rough: tuple[float, float]) -> tuple[float, float, float, float, float]:
        """(x0, y0, dx, dy, rms) of the outline from point ``a`` to point ``b`` (wrapping), a sixth
        trimmed off each end of a long run (the rounded corners), oriented like ``rough``."""
        if self.sums is None:
            # One row per sum, each contiguous (summing down columns took twice as long).
            x, y = (self.points - (self.ox, self.oy)).T.astype(np.float64)
            self.sums = np.zeros((5, self.n + 1))
            np.cumsum(np.array([x, y, x * x, y * y, x * y]), axis=1, out=self.sums[:, 1:])
        end = b if a <= b else b + self.n
        length = end - a + 1
        trim = length // 6 if length > 12 else 0
        lo, hi = self._summed(a + trim), self._summed(end - trim + 1)
        k = end - 2 * trim - a + 1
        mx, my = (hi[0] - lo[0]) / k, (hi[1] - lo[1]) / k
        cxx = (hi[2] - lo[2]) / k - mx * mx
        cyy = (hi[3] - lo[3]) / k - my * my
        cxy = (hi[4] - lo[4]) / k - mx * my
        angle = 0.5 * math.atan2(2 * cxy, cxx - cyy)
        dx, dy = math.cos(angle), math.sin(angle)
        if dx * rough[0] + dy * rough[1] < 0:
            dx, dy = -dx, -dy
        smaller = 0.5 * (cxx + cyy) - math.hypot(0.5 * (cxx - cyy), cxy)
        return mx + self.ox, my + self.oy, dx, dy, math.sqrt(max(smaller, 0.0))

    def _summed(self, i: int) -> list[float]:
        """The five sums over the outline's first ``i`` points, going on round it past the end (the sums
        are of whole numbers, so a second round adds exactly)."""
        assert self.sums is not None
        if i <= self.n:
            return self.sums[:, i].tolist()
        return [whole + part for whole, part in zip(self.sums[:, self.n].tolist(), self.sums[:, i - self.n].tolist())]


Outlines = tuple[Sequence[np.ndarray], "np.ndarray | None"]
"""What ``cv2.findContours(mask, RETR_CCOMP, CHAIN_APPROX_NONE)`` returns: every point of the outlines of
the blobs and of their holes, and the hierarchy (None for an empty mask)."""


def _edge_lines(runs: _Runs, idx: list[int], S: list[list[float]]) -> Callable[[int], tuple[float, float, float, float, float]]:
    """``edge(i)``: the line fitted to the outline from polygon vertex ``i`` (at outline point ``idx[i]``)
    to the next, oriented like the polygon's edge ``S[i]``; each edge is fitted once, when first asked for."""
    fitted: dict[int, tuple[float, float, float, float, float]] = {}
    n = len(idx)

    def edge(i: int) -> tuple[float, float, float, float, float]:
        if i not in fitted:
            fitted[i] = runs.fit(idx[i], idx[(i + 1) % n], (S[i][0], S[i][1]))
        return fitted[i]

    return edge


def outlines(mask: np.ndarray) -> Outlines:
    """The outlines of ``mask``'s blobs and their holes, for :func:`find_corners` and :func:`fill_holes` to share."""
    return cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)


def find_corners(mask: np.ndarray, *, min_edge: float, epsilon: float,
                 found: Outlines | None = None) -> list[Corner]:
    """Every convex, near-right-angled turn between two straight outline runs of at least ``min_edge``.

    The outline is simplified with tolerance ``epsilon``; up to two short runs
    between the long ones are allowed, since a card's rounded corner becomes a
    small chamfer.  Edge directions are refitted to the outline points (their
    middle part) so that the corner point, the intersection of the two edge
    lines, lands on the card's virtual sharp corner.  ``found``: the mask's
    :func:`outlines`, where they were traced already.
    """
    h, w = mask.shape
    # Holes' boundaries too: a card touching the bright rim of a light table
    # is part of the rim's blob and shows on the boundary of the hole inside it.
    contours, hierarchy = outlines(mask) if found is None else found
    if hierarchy is None:
        return []
    found_corners: list[tuple[tuple[float, float], tuple[float, float], tuple[float, float], float, float, bool]] = []
    for contour, parent in zip(contours, hierarchy[0][:, 3].tolist()):
        if len(contour) < 4 * min_edge:
            continue   # too short an outline to hold two edges and a corner
        _, _, cw, ch = cv2.boundingRect(contour)
        if max(cw, ch) < (1.5 if parent < 0 else 6) * min_edge:
            continue   # too small to show a corner; for a hole, a pip or a letter
        approx = cv2.approxPolyDP(contour, epsilon, True).reshape(-1, 2)
        n = len(approx)
        if n < 3:
            continue
        poly = approx.astype(np.float64)
        nxt = np.concatenate([poly[1:], poly[:1]])   # each vertex's successor round the outline
        seg = nxt - poly
        seg_len = np.hypot(seg[:, 0], seg[:, 1])
        longs = np.flatnonzero(seg_len >= min_edge).tolist()
        if len(longs) < 2:
            continue
        area2 = float(np.sum(poly[:, 0] * nxt[:, 1] - nxt[:, 0] * poly[:, 1]))
        if abs(area2) < 1e-6:
            continue
        # +1 when the blob lies to the left of the outline's direction of travel.
        orient = 1.0 if (area2 > 0) == (parent < 0) else -1.0
        pts = contour.reshape(-1, 2)
        # approxPolyDP returns contour points; find where each one sits on the contour.
        keys = pts[:, 1].astype(np.int64) * (w + 2) + pts[:, 0]
        order = np.argsort(keys, kind="stable")
        idx = order[np.searchsorted(keys[order], approx[:, 1].astype(np.int64) * (w + 2) + approx[:, 0])].tolist()
        P, S, SL = poly.tolist(), seg.tolist(), seg_len.tolist()
        edge = _edge_lines(_Runs(pts), idx, S)
        ends_used: set[tuple[int, int]] = set()   # (segment, 0 = start / 1 = end) already in a corner
        for k, i in enumerate(longs):
            j = longs[(k + 1) % len(longs)]
            between = (j - i - 1) % n
            if between > 2 or sum(SL[(i + 1 + m) % n] for m in range(between)) > 1.5 * min_edge:
                continue
            (ax, ay), (bx, by) = S[i], S[j]
            la, lb = SL[i], SL[j]
            if abs(ax * bx + ay * by) > _ROUGH_TURN_COS * la * lb or (ax * by - ay * bx) * orient <= 0:
                continue  # not even roughly a right angle, or concave for the blob
            x1, y1, dx1, dy1, r1 = edge(i)
            x2, y2, dx2, dy2, r2 = edge(j)
            if max(r1, r2) > _MAX_RMS:
                continue  # not straight edges
            turn = dx1 * dy2 - dy1 * dx2
            if abs(dx1 * dx2 + dy1 * dy2) > _MAX_TURN_COS or turn * orient <= 0:
                continue  # concave for the blob: where one card's edge meets another's face
            t = ((x2 - x1) * dy2 - (y2 - y1) * dx2) / turn
            cx, cy = x1 + t * dx1, y1 + t * dy1
            if not (-min_edge <= cx <= w + min_edge and -min_edge <= cy <= h + min_edge):
                continue
            (px, py), (qx, qy) = P[i], P[(j + 1) % n]
            ends_used.update({(i, 1), (j, 0)})
            found_corners.append(((cx, cy), (-dx1, -dy1), (dx2, dy2),
                                  math.hypot(cx - px, cy - py), math.hypot(qx - cx, qy - cy), False))
        # A long edge that ends in a convex bend that is no right angle: in a
        # fan, each card's top-left corner shows only a sliver of its left
        # side, or none, above the card below, so the outline just bends
        # there from one card's top to the next.  The corner is the edge's
        # end; its other edge runs square to it, into the blob.
        for i in longs:
            for end in (0, 1):
                nb = (i - 1) % n if end == 0 else (i + 1) % n
                if (i, end) in ends_used or SL[nb] < 0.5 * epsilon:
                    continue
                (ax, ay), (bx, by) = (S[nb], S[i]) if end == 0 else (S[i], S[nb])
                cross = (ax * by - ay * bx) * orient
                if cross <= 0 or (SL[nb] >= min_edge and cross < _MIN_BEND_SIN * SL[nb] * SL[i]):
                    continue
                x0, y0, dx, dy, rms = edge(i)
                if rms > _MAX_RMS:
                    continue
                px, py = P[i] if end == 0 else P[(i + 1) % n]
                t = (px - x0) * dx + (py - y0) * dy      # the end, moved onto the fitted line
                cx, cy = x0 + t * dx, y0 + t * dy
                inward = (-dy * orient, dx * orient)
                along = (dx, dy) if end == 0 else (-dx, -dy)
                found_corners.append(((cx, cy), along, inward, SL[i], SL[nb], True))
    return _corners(found_corners)


def sharpness(value: np.ndarray) -> np.ndarray:
    """The local gradient (3x3 morphological) of the whiteness, for :func:`contrasted`."""
    return cv2.morphologyEx(value, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))


def contrasted(corners: list[Corner], value: np.ndarray, grad: np.ndarray, *, min_contrast: float,
               edges: int) -> list[Corner]:
    """The corners whose edges are real edges, along ``edges`` of their two edges.

    A card's edge is either a step from white face to darker table (the
    median difference, a few pixels inside against a few outside, reaches
    ``min_contrast``) or, on a table as white as the card, the thin dark
    line of the card's rim or shadow (a sharp local gradient beside four in
    five of the samples).  The ragged blobs that local thresholding leaves
    beside chips and card backs are smooth table on both sides and fail
    both.  ``grad`` is :func:`sharpness` of ``value``.  Each edge is sampled at five points along its seen length.  A
    bend corner (a fan's) needs only one real edge: its other side runs over
    the card below.
    """
    if not corners:
        return []
    h, w = value.shape
    off = max(2.0, 0.003 * max(h, w))
    frac = np.linspace(0.2, 0.8, 5)
    P = np.array([c.point for c in corners])
    U = np.array([c.u for c in corners])
    V = np.array([c.v for c in corners])
    seen = np.maximum(np.array([(c.seen_u, c.seen_v) for c in corners]), 4 * off)           # (n, 2)
    along, across = np.stack([U, V], axis=1), np.stack([V, U], axis=1)                       # (n, 2, 2)
    base = P[:, None, None, :] + along[:, :, None, :] * (seen[:, :, None, None] * frac[None, None, :, None])
    # Every sample at once (numpy's per-call cost was most of the time): the step's two sides
    # at +-off, then the gradient at -2..2 across the edge.
    shifts = np.array([off, -off, -2.0, -1.0, 0.0, 1.0, 2.0])
    pts = base[:, :, None] + across[:, :, None, None, :] * shifts[None, None, :, None, None]   # (n, 2, 7, 5, 2)
    x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    step = value[y[:, :, 0], x[:, :, 0]].astype(np.int16) - value[y[:, :, 1], x[:, :, 1]]   # (n, 2, 5)
    sharp = grad[y[:, :, 2:], x[:, :, 2:]].max(axis=2)                                       # (n, 2, 5)
    middle = np.partition(step, 2, axis=2)[..., 2]   # the median of the five (np.median costs 10x more)
    real = (middle >= min_contrast) | (np.mean(sharp >= 2 * min_contrast, axis=2) >= 0.8)
    need = np.array([1 if c.bend else edges for c in corners])
    return [c for c, ok in zip(corners, (real.sum(axis=1) >= need).tolist()) if ok]


def _corners(found: list[tuple[tuple[float, float], tuple[float, float], tuple[float, float], float, float, bool]]
             ) -> list[Corner]:
    """Corners from (point, edge direction, edge direction, seen along each, bend), the two edges in
    either order: ordered so that each would be a top-left corner.  Their vectors are made in one
    array (numpy's per-call cost on 2-vectors was most of the time)."""
    ordered = [(p, a, b, sa, sb, bend) if a[0] * b[1] - a[1] * b[0] > 0 else (p, b, a, sb, sa, bend)
               for p, a, b, sa, sb, bend in found]
    vectors = np.array([(p, u, v) for p, u, v, *_ in ordered]).reshape(-1, 3, 2)
    return [Corner(pt, u, v, su, sv, bend=bend) for (pt, u, v), (_, _, _, su, sv, bend) in zip(vectors, ordered)]


def longest_edged(corners: list[Corner], limit: int) -> list[Corner]:
    """At most ``limit`` corners, in their order: those whose shorter visible edge is longest.

    A frame of noise or a finely printed cloth shows thousands of tiny right
    angles, and measuring every pair of them (:func:`measure_edges`) grows
    with their square: two seconds for a frame of noise.  A card's corner
    shows long straight edges, so the short-edged ones are dropped first.
    """
    if len(corners) <= limit:
        return corners
    order = np.argsort([-min(c.seen_u, c.seen_v) for c in corners], kind="stable")
    return [corners[i] for i in sorted(order[:limit].tolist())]


def measure_edges(corners: list[Corner], *, min_length: float) -> None:
    """Join corners that are the two ends of one visible card edge.

    Corner B ends corner A's ``u`` edge when B lies along A's ``u`` ray, one of
    B's edges points straight back at A, B's other edge runs the same way as
    A's ``v``, and the two ends between them see most of the edge (an index
    printed near the edge may hide a piece of it).  The nearest such corner at
    least ``min_length`` away wins, so the little corners of such a notch do
    not count.  The displacement is stored on A, so a card seen whole gets its
    exact width, height and skew.

    One of an edge's two ends sees more than half of it, so more than half of
    ``min_length``: only pairs with such a corner are measured (a busy cloth's
    thousand tiny right angles are not measured against each other).
    """
    n = len(corners)
    if n < 2:
        return
    pts = np.array([c.point for c in corners])
    dirs = {"u": np.array([c.u for c in corners]), "v": np.array([c.v for c in corners])}
    seen = {"u": np.array([c.seen_u for c in corners]), "v": np.array([c.seen_v for c in corners])}
    is_long = np.maximum(seen["u"], seen["v"]) > 0.5 * min_length
    long, short = np.flatnonzero(is_long), np.flatnonzero(~is_long)
    # Rows: the corners whose edges are measured; columns, in order, the corners that may end them.
    for rows, cols in ((long, np.arange(n)), (short, long)):
        if not len(rows) or not len(cols):
            continue
        d = pts[None, cols, :] - pts[rows, None, :]            # d[a, b] = b - a
        dist = np.hypot(d[..., 0], d[..., 1])
        for axis, other_axis in (("u", "v"), ("v", "u")):
            along, other, seen_a = dirs[axis][rows], dirs[other_axis][rows], seen[axis][rows]
            ahead = (np.einsum("abk,ak->ab", d, along) >= _PARALLEL_COS * dist) & (dist >= min_length)
            ok = np.zeros(dist.shape, bool)
            for back, side, seen_b in ((dirs["u"][cols], dirs["v"][cols], seen["u"][cols]),
                                       (dirs["v"][cols], dirs["u"][cols], seen["v"][cols])):
                ok |= ((along @ back.T) < -_PARALLEL_COS) & ((other @ side.T) > _PARALLEL_COS) \
                    & (seen_a[:, None] + seen_b[None, :] > 0.85 * dist) \
                    & (np.maximum(seen_a[:, None], seen_b[None, :]) > 0.5 * dist)
            ok &= ahead
            nearest = np.where(ok, dist, np.inf).argmin(axis=1)
            for k in np.flatnonzero(ok.any(axis=1)).tolist():
                setattr(corners[rows[k]], "edge_" + axis, d[k, nearest[k]].copy())


def seen_whole(corners: list[Corner], *, max_width: float) -> list[float]:
    """The widths of the cards seen whole: corners whose two measured edges are in a card's ratio."""
    return [min(lu, lv) for lu, lv in ((float(np.hypot(*c.edge_u)), float(np.hypot(*c.edge_v)))
                                       for c in corners if c.edge_u is not None and c.edge_v is not None)
            if 1.28 <= max(lu, lv) / max(min(lu, lv), 1e-6) <= 1.52 and min(lu, lv) <= max_width]


def scene_card_widths(corners: list[Corner], *, max_width: float) -> CardWidths:
    """The width of a card in this frame, from the edges measured between corners: one figure, or two.

    Every measured edge is either a card's width or its height, but which is
    unknown, and some run to a false corner.  Each edge proposes both
    readings; the proposal that explains the most edge length (as widths or
    as heights, within 10%) wins, and the edges it explains give the figure.
    Corners whose two edges are in a card's ratio (cards seen whole) count
    double; where two of them agree on a size, only such sizes may be
    proposed, and so it is with a lone one; but that may be a chance
    rectangle (a box, the gap between cards, a light table's rim), so the
    edges' own best reading, and its other reading a ratio apart, are then
    kept as doubtful.  When only
    one kind of edge is visible (every card's lower half lost against a
    bright table, say), the reading a ratio apart explains almost as much:
    then both are likely and the classifier settles it; where only the
    edges, not the whole cards, speak for it, it is doubtful.  All cards on one
    table are one size at one distance, so this sizes the partly visible
    cards.  No card is wider than ``max_width`` (the straight sides of a
    table are edges too).  Empty when fewer than two edges agree.
    """
    lengths = np.array([float(np.hypot(*e)) for c in corners for e in (c.edge_u, c.edge_v) if e is not None])
    if len(lengths) < 2:
        return CardWidths([], [])
    # A corner whose two edges are in a card's ratio is a stronger witness.
    whole = seen_whole(corners, max_width=max_width)
    proposals = np.concatenate([lengths, lengths / ASPECT])
    as_width = np.abs(lengths[None, :] - proposals[:, None]) < 0.1 * proposals[:, None]
    as_height = np.abs(lengths[None, :] - ASPECT * proposals[:, None]) < 0.1 * ASPECT * proposals[:, None]
    # Each edge counts by its length: a card's long edges outweigh the many
    # short ones that carpet or wood grain can put between false corners.
    # (Up to max_width / 4.5: beyond that an edge may be a table's side.)
    support = (as_width | as_height) @ np.minimum(lengths, max_width / 4.5)
    support[proposals > max_width] = 0
    by_edges = support.copy()
    lone: np.ndarray | None = None
    if whole:
        w_ = np.asarray(whole)
        fits = np.abs(w_[None, :] - proposals[:, None]) < 0.1 * proposals[:, None]
        weight = 2 * (fits @ np.minimum(w_ * (1 + ASPECT), max_width / 4.5))
        # Cards seen whole vouch for their own size: nothing else is a card's width.  But where
        # no two agree (a card seen whole shows four such corners), one may be a chance
        # rectangle of the table (a box, the gap between cards): the edges' own readings
        # then stay, as doubtful.
        if ((np.abs(w_[:, None] - w_[None, :]) < 0.1 * w_[None, :]).sum(axis=1) < 2).all():
            lone = np.where(proposals <= max_width, support + weight, 0)
        support[~fits.any(axis=1)] = 0
        support += weight
    best = int(np.argmax(support))
    if support[best] <= 0 or (as_width[best] | as_height[best]).sum() < 2:
        return CardWidths([], [])

    def figure(i: int) -> float:
        return float(np.median(np.concatenate([lengths[as_width[i]], lengths[as_height[i]] / ASPECT])))

    def other_reading(i: int, ratio: float, score: np.ndarray) -> int | None:
        rival = np.abs(proposals - proposals[i] * ratio) < 0.1 * proposals[i] * ratio
        return int(np.flatnonzero(rival)[np.argmax(score[rival])]) if rival.any() else None

    out = CardWidths([figure(best)], [])
    for ratio in (ASPECT, 1 / ASPECT):   # the other reading of the same edges
        j = other_reading(best, ratio, support)
        if j is not None and support[j] >= 0.75 * support[best] and support[j] > 0:
            out.likely.append(figure(j))
        elif j is not None and by_edges[j] >= 0.6 * by_edges[best] and by_edges[j] > 0:
            out.doubtful.append(figure(j))
    if lone is not None:   # the edges' own best, and its other reading, where a lone witness overruled them
        k = int(np.argmax(lone))
        readings = [k] + [j for ratio in (ASPECT, 1 / ASPECT) if (j := other_reading(k, ratio, by_edges)) is not None
                          and by_edges[j] >= 0.6 * by_edges[k] and by_edges[j] > 0]
        for i in readings:
            if all(abs(proposals[i] - w) >= 0.1 * w for w in out.likely + out.doubtful):
                out.doubtful.append(figure(i))
    return out


_Vector = Sequence[float] | np.ndarray
"""A point or a displacement in the frame: two plain floats, or numpy's."""


def _affine(point: _Vector, x_axis: _Vector, y_axis: _Vector) -> np.ndarray:
    """Card units -> pixels, with the card's full x and y edges given as pixel vectors."""
    return np.array(_affine_row(point, x_axis, y_axis)).reshape(3, 3)


def _affine_row(point: _Vector, x_axis: _Vector, y_axis: _Vector) -> tuple[float, ...]:
    """:func:`_affine`'s matrix as nine plain floats, row by row (many are made into one array at once)."""
    cw, ch = CARD_SIZE
    return (x_axis[0] / cw, y_axis[0] / ch, point[0], x_axis[1] / cw, y_axis[1] / ch, point[1], 0.0, 0.0, 1.0)


def hypotheses(corners: list[Corner], width: float | None, *, min_width: float,
               measured_only: bool = False) -> list[Hypothesis]:
    """Hypotheses for the card each corner belongs to (see :func:`unique` for the duplicates).

    A corner is either an index corner (top-left or bottom-right: its ``u``
    edge is the short one) or a plain one (top-right or bottom-left: its
    ``v`` edge is the short one, and the index corner lies a card's width
    along it).  The measured edges decide which where they can; otherwise
    both are proposed and the classifier decides.  The card's width comes
    from the corner's own measured edges, else from the scene's ``width``,
    else from what is visible of its edges (never under ``min_width``).
    ``measured_only`` skips the corners with no edge measured at this width
    (a doubtful width is grown only from those).
    """
    rows: list[tuple[float, ...]] = []            # each card's map, built at once below
    found: list[tuple[float, int, int]] = []      # (width, corner, measured)
    # Plain floats: a frame holds hundreds of corners, and numpy's per-call cost on 2-vectors
    # was most of this function's time.
    for i, c in enumerate(corners):
        # () for an edge not measured: it has no length to be consistent
        eu: tuple[float, ...] = () if c.edge_u is None else tuple(c.edge_u.tolist())
        ev: tuple[float, ...] = () if c.edge_v is None else tuple(c.edge_v.tolist())
        (ux, uy), (vx, vy) = c.u.tolist(), c.v.tolist()
        lu = _consistent(eu, width)
        lv = _consistent(ev, width)
        index: tuple[Sequence[float], Sequence[float]] | None = None   # (x edge, y edge) if an index corner
        plain: tuple[Sequence[float], Sequence[float]] | None = None   # (short edge along v, long edge along u)
        measured = (lu is not None) + (lv is not None)
        if lu is not None and lv is not None:
            if lv >= 1.15 * lu:
                index = (eu, ev)
            elif lu >= 1.15 * lv:
                plain = (ev, eu)
            else:
                measured = 0
        elif lu is not None:
            if width is None or lu < 1.2 * width:
                index = (eu, (vx * (lu * ASPECT), vy * (lu * ASPECT)))
            if width is None or lu > 1.15 * width:
                w = lu / ASPECT if width is None else width
                plain = ((vx * w, vy * w), eu)
        elif lv is not None:
            if width is None or lv > 1.15 * width:
                w = lv / ASPECT if width is None else width
                index = ((ux * w, uy * w), ev)
            if width is None or lv < 1.2 * width:
                plain = (ev, (ux * (lv * ASPECT), uy * (lv * ASPECT)))
        if measured_only and not measured:
            continue
        if index is None and plain is None and measured == 0:
            # No length is known.  (A visible edge longer than a card proves
            # nothing: in a spread, the tops of all the cards make one line.)
            w = width or max(min_width, min(c.seen_u, c.seen_v / ASPECT))
            index = ((ux * w, uy * w), (vx * (w * ASPECT), vy * (w * ASPECT)))
            w = width or max(min_width, min(c.seen_v, c.seen_u / ASPECT))
            plain = ((vx * w, vy * w), (ux * (w * ASPECT), uy * (w * ASPECT)))
        px, py = c.point.tolist()
        if index is not None:
            rows.append(_affine_row((px, py), *index))
            found.append((math.hypot(*index[0]), i, measured))
        if plain is not None:
            (sx, sy), long_ = plain
            rows.append(_affine_row((px + sx, py + sy), (-sx, -sy), long_))
            found.append((math.hypot(sx, sy), i, measured))
    mats = np.array(rows).reshape(-1, 3, 3)
    return [Hypothesis(m, width, i, measured) for m, (width, i, measured) in zip(mats, found)]


def _consistent(edge: Sequence[float], width: float | None) -> float | None:
    """The edge's length, unless it is not measured (empty) or fits neither a card's width nor its height in this scene.

    An edge "measured" to a false corner, such as the point where a card's
    side disappears over another card, is ignored rather than believed.
    """
    if not edge:
        return None
    length = math.hypot(*edge)
    if width is not None and not (abs(length - width) < 0.15 * width
                                  or abs(length - ASPECT * width) < 0.15 * ASPECT * width):
        return None
    return length


_SHEARED = math.cos(math.radians(81))
"""A hypothesis whose sides meet further than this from square (the cosine of their angle) is sheared:
an overhead camera's perspective bends a card's corner by a few degrees, not by nine."""


def _within(a: np.ndarray, b: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Every ``(i, j)`` whose points ``a[i]`` and ``b[j]`` lie less than ``reach`` apart along x.

    >>> _within(np.array([[0.0, 0.0], [10.0, 0.0]]), np.array([[9.0, 5.0], [1.0, 0.0], [30.0, 0.0]]), 2.0)
    (array([0, 1]), array([1, 0]))
    """
    by_x = np.argsort(b[:, 0], kind="stable")
    xs = b[by_x, 0]
    lo = np.searchsorted(xs, a[:, 0] - reach, side="right")
    hi = np.searchsorted(xs, a[:, 0] + reach, side="left")
    counts = np.maximum(hi - lo, 0)
    i = np.repeat(np.arange(len(a)), counts)
    start = np.repeat(lo - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return i, by_x[np.arange(len(i)) + start]


def unique(hyps: list[Hypothesis]) -> list[Hypothesis]:
    """Drop hypotheses that put the same index corner at the same place, keeping the best measured.

    The same card turned half a turn (its other index corner taken for the
    top-left one) is the same card too: it is dropped and the one kept is
    marked ``twin``, so the recogniser reads both corners of one hypothesis
    instead of the same two corners of two.  Only hypotheses that lie near
    each other along x are compared (a busy cloth proposes a thousand).
    """
    if not hyps:
        return []
    mats = np.stack([h.card_to_work for h in hyps])
    x_axis, y_axis = mats[:, :2, 0], mats[:, :2, 1]
    skew = np.abs(np.sum(x_axis * y_axis, axis=1)) \
        / (np.linalg.norm(x_axis, axis=1) * np.linalg.norm(y_axis, axis=1) + 1e-12)
    order = np.lexsort(([-h.measured for h in hyps], skew > _SHEARED))
    hyps, mats = [hyps[i] for i in order], mats[order]
    origin = mats[:, :2, 2]
    far = mats[:, :2, 0] * CARD_SIZE[0] + mats[:, :2, 1] * CARD_SIZE[1] + origin   # the opposite corner
    x_axis = mats[:, :2, 0] / (np.linalg.norm(mats[:, :2, 0], axis=1, keepdims=True) + 1e-12)
    width = np.array([h.width for h in hyps])
    reach = 0.12 * width

    def alike(start: np.ndarray, turned: bool) -> list[list[int]]:
        """For each hypothesis, in order, those alike in width whose origin lies near its ``start``
        (and whose far corner near its origin, where ``turned`` half a turn), turned as it says."""
        i, j = _within(start, origin, float(reach.max()))
        d = start[i] - origin[j]
        keep = (d[:, 0] ** 2 + d[:, 1] ** 2 < reach[j] ** 2) & (np.abs(width[i] - width[j]) < 0.15 * width[j])
        turn = np.sum(x_axis[i] * x_axis[j], axis=1)
        keep &= turn < -0.95 if turned else turn > 0.95
        if turned:
            e = origin[i] - far[j]
            keep &= e[:, 0] ** 2 + e[:, 1] ** 2 < reach[j] ** 2
        i, j = i[keep], j[keep]
        by_row = np.lexsort((j, i))
        out: list[list[int]] = [[] for _ in hyps]
        for a, b in zip(i[by_row].tolist(), j[by_row].tolist()):
            out[a].append(b)
        return out

    same_as, turned_as = alike(origin, False), alike(far, True)
    kept = [False] * len(hyps)
    twins: set[int] = set()
    for i in range(len(hyps)):
        if any(kept[j] for j in same_as[i]):
            continue
        twin = next((j for j in turned_as[i] if kept[j]), None)   # the first kept, as kept ones are in order
        if twin is not None:
            twins.add(twin)
            continue
        kept[i] = True
    return [replace(h, twin=True) if i in twins else h for i, h in enumerate(hyps) if kept[i]]


_TURNED_ALIKE = math.cos(math.radians(25))
"""Two corners turned within 25 degrees of each other are turned alike (:func:`new_to`)."""


def new_to(found: list[Hypothesis], known: list[Hypothesis], *, anyhow: bool = False) -> list[Hypothesis]:
    """The hypotheses of ``found`` whose corner is none of the four corners of a card of ``known``:
    the same point, the edge leaving it clockwise turned alike (within 25 degrees), and as wide
    (within 15 percent); ``anyhow``: the same point (within 0.12 of the known card's width), turned
    and sized any way.

    Another look's corners cost the classifier only where they add a card: a known card seen from
    its other index corner is the same card, and from a plain corner it is no card at all.  A
    corner seen coarsely (askew, mis-sized) at a known card's corner is that card's, ``anyhow``.
    """
    if not found or not known:
        return list(found)
    a, b = np.stack([h.card_to_work for h in found]), np.stack([h.card_to_work for h in known])
    o, along, down = b[:, :2, 2], b[:, :2, 0] * CARD_SIZE[0], b[:, :2, 1] * CARD_SIZE[1]
    points = np.stack([o, o + along, o + along + down, o + down], axis=1)          # (k, 4, 2), clockwise
    d = a[:, None, None, :2, 2] - points[None]
    apart2 = d[..., 0] ** 2 + d[..., 1] ** 2                                        # (n, k, 4)
    known_width = np.array([h.width for h in known])
    if anyhow:
        seen = (apart2 < (0.12 * known_width[None, :, None]) ** 2).any(axis=2)
    else:
        x_axis = a[:, :2, 0] / (np.linalg.norm(a[:, :2, 0], axis=1, keepdims=True) + 1e-12)
        unit_along = along / (np.linalg.norm(along, axis=1, keepdims=True) + 1e-12)
        unit_down = down / (np.linalg.norm(down, axis=1, keepdims=True) + 1e-12)
        leaving = np.stack([unit_along, unit_down, -unit_along, -unit_down], axis=1)   # each corner's clockwise edge
        width = np.array([h.width for h in found])
        alike = np.abs(width[:, None] - known_width[None, :]) < 0.15 * width[:, None]
        turned = np.einsum("nj,kcj->nkc", x_axis, leaving) > _TURNED_ALIKE
        seen = ((apart2 < (0.12 * width[:, None, None]) ** 2) & turned).any(axis=2) & alike
    return [h for h, known_there in zip(found, seen.any(axis=1).tolist()) if not known_there]


_INDEX_SAMPLES = np.array([[x, y, 1.0] for x in (12, 40, 68) for y in (15, 60, 105)]).T
"""A 3x3 grid over the index corner box (card units), for :func:`on_cards`."""


def fill_holes(mask: np.ndarray, found: Outlines | None = None) -> np.ndarray:
    """The mask with its small holes filled: pips, prints, the hollow middle of a large card.

    Holes bigger than a few cards stay open: the bright rim around a light
    table encloses the whole table, which is no card face.  ``found``: the
    mask's :func:`outlines`, where they were traced already.
    """
    contours, hierarchy = outlines(mask) if found is None else found
    filled = np.zeros_like(mask)
    if hierarchy is None:
        return filled
    big = (0.15 * max(mask.shape)) ** 2
    outer = [c for c, hier in zip(contours, hierarchy[0]) if hier[3] < 0]
    holes = [c for c, hier in zip(contours, hierarchy[0]) if hier[3] >= 0 and cv2.contourArea(c) > big]
    cv2.drawContours(filled, outer, -1, 255, cv2.FILLED)
    cv2.drawContours(filled, holes, -1, 0, cv2.FILLED)
    return cv2.bitwise_or(filled, mask)


def on_cards(hyps: list[Hypothesis], filled: np.ndarray, *, min_share: float = 0.6) -> list[Hypothesis]:
    """The hypotheses whose index corner lies (mostly) on a bright blob.

    An index is printed on the card face, so a hypothesis that puts it on the
    table (a plain corner taken for an index one, the wrong way round) is
    dropped before the classifier spends any time on it.
    """
    if not hyps:
        return []
    h, w = filled.shape
    pts = np.stack([hyp.card_to_work for hyp in hyps]) @ _INDEX_SAMPLES      # (n, 3, 9)
    x = np.clip(np.round(pts[:, 0] / pts[:, 2]).astype(int), 0, w - 1)
    y = np.clip(np.round(pts[:, 1] / pts[:, 2]).astype(int), 0, h - 1)
    share = np.count_nonzero(filled[y, x], axis=1) / _INDEX_SAMPLES.shape[1]
    return [hyp for hyp, ok in zip(hyps, (share >= min_share).tolist()) if ok]


_INK = np.array([[x, y, 1.0] for x in (8, 16, 24, 32, 40) for y in (12, 26, 40, 54, 68, 82, 96, 110)]).T
_MARGIN = np.array([[x, 9, 1.0] for x in (50, 62, 74, 86, 98)] + [[9, y, 1.0] for y in (125, 140, 155, 170, 185)]).T
"""Card units along the top and left edges, just beside the index (which a few pixels'
error in the outline would otherwise put under the samples)."""


def look_like_index(hyps: list[Hypothesis], value: np.ndarray, mask: np.ndarray) -> list[Hypothesis]:
    """The hypotheses whose corner looks like a printed index: a white margin, some ink inside it.

    A cheap look before the classifier's.  Along the card's edges, just
    inside, the face is white on every deck: along one edge at least, four of
    five margin samples are card-white in ``mask`` and within 25 levels of
    the brightest of them (a corner of table, chip or carpet has no such
    margin).  Where the rank and suit are printed, some samples (3 to 65
    percent) are ink, 35 levels or more darker than that white (a plain
    corner of a card, or a blank slip of paper, has none).  The learned
    detector's corners need no such look: its index map says which hold one
    (:mod:`vision.detector`).
    """
    if not hyps:
        return []
    h, w = value.shape
    mats = np.stack([hyp.card_to_work for hyp in hyps])

    def sample(image: np.ndarray, points: np.ndarray) -> np.ndarray:
        pts = mats @ points
        x = np.clip(np.round(pts[:, 0] / pts[:, 2]).astype(int), 0, w - 1)
        y = np.clip(np.round(pts[:, 1] / pts[:, 2]).astype(int), 0, h - 1)
        return image[y, x].astype(np.int16)

    margin, ink = sample(value, _MARGIN), sample(value, _INK)
    # The 80th percentile, interpolated as np.percentile does (in a fifth of its time).
    ranked, at = np.sort(margin, axis=1), 0.8 * (margin.shape[1] - 1)
    below = int(at)
    white = (ranked[:, below] + (ranked[:, below + 1] - ranked[:, below]) * (at - below))[:, None]
    card_white = (margin >= white - 25) & (sample(mask, _MARGIN) > 0)
    # One edge's margin may run under the next card of a spread.
    margin_ok = (card_white[:, :5].mean(axis=1) >= 0.8) | (card_white[:, 5:].mean(axis=1) >= 0.8)
    dark = ink < white - 35
    inked = np.mean(dark, axis=1)
    ok = margin_ok & (inked >= 0.03) & (inked <= 0.65)
    return [hyp for hyp, keep in zip(hyps, ok.tolist()) if keep]


_SNAP_T = np.linspace(0.1, 0.9, 9)
"""Where along an edge (fractions of the card's width or height) :func:`snap_edges` looks."""


def _bilinear(image: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """``image`` (uint8 or float32) at the (..., 2) points ``pts``, interpolated in float32."""
    h, w = image.shape
    x = np.clip(pts[..., 0], 0, w - 1.001)
    y = np.clip(pts[..., 1], 0, h - 1.001)
    x0, y0 = x.astype(np.intp), y.astype(np.intp)
    fx, fy = (x - x0).astype(np.float32), (y - y0).astype(np.float32)
    top = image[y0, x0] * (1 - fx) + image[y0, x0 + 1] * fx
    bottom = image[y0 + 1, x0] * (1 - fx) + image[y0 + 1, x0 + 1] * fx
    return top * (1 - fy) + bottom * fy


def snap_edges(hyps: list[Hypothesis], value: np.ndarray, *, reach: float = 0.12,
               min_step: float = 12.0) -> list[Hypothesis | None]:
    """Each hypothesis moved so that its top and left edges lie on the step from table to card (None: stays).

    The outline of a thresholded blob can stop short of the card's real edge:
    a light table next to a card in shadow leaves the card's rim, and the
    index printed right beside it, out of the mask, and the index corner is
    then proposed a few pixels inside the card, where the patch shows a pip.
    Each of the two edges that meet at the index corner is moved across
    itself, by up to ``reach`` of the card's width, to the nearest place where
    ``value`` rises to a peak from outside to inside (the median over nine
    places along the edge, so the ink of the index, which lines only part of
    it, does not count); only a rise of at least ``min_step`` levels counts,
    and a move under a pixel and a half is none, so a card on a table as
    white as itself, or a well-found one, stays where its outline put it.
    Width and height are kept.  Beside a covering card the step found can be
    that card's, so the recogniser keeps a moved hypothesis only where its
    corner reads better than the original.
    """
    if not hyps:
        return []
    mats = np.stack([hyp.card_to_work for hyp in hyps])                    # (n, 3, 3), affine
    origin, ex, ey = mats[:, :2, 2], mats[:, :2, 0] * CARD_SIZE[0], mats[:, :2, 1] * CARD_SIZE[1]
    width = np.linalg.norm(ex, axis=1)
    ux, uy = ex / width[:, None], ey / (np.linalg.norm(ey, axis=1)[:, None] + 1e-9)
    # One profile across each edge, in steps of ``gap``; the rise at an offset is the
    # profile a step inside minus a step outside.
    gap = np.maximum(1.0, 0.015 * width)
    half = max(1, round(reach / 0.015))
    offsets = np.arange(-half - 1, half + 2)                                 # in gaps
    rows = np.arange(len(hyps))
    shift = np.zeros((len(hyps), 2))
    for along, across in ((ex, uy), (ey, ux)):
        base = origin[:, None, :] + _SNAP_T[None, :, None] * along[:, None, :]          # (n, 9, 2)
        d = offsets[None, :] * gap[:, None]                                              # (n, 2 half + 3)
        profile = _bilinear(value, base[:, None, :, :] + d[:, :, None, None] * across[:, None, None, :])
        # The median of the nine, by partition (np.median's own checks cost more than the work).
        rise = np.partition(profile[:, 2:] - profile[:, :-2], 4, axis=2)[..., 4]           # (n, 2 half + 1)
        # The nearest clear edge, not the strongest: beside a covering card's edge the
        # card's own rim may be the weaker step.
        padded = np.concatenate([rise[:, :1], rise, rise[:, -1:]], axis=1)   # the ends repeated
        peak = (rise >= padded[:, :-2]) & (rise >= padded[:, 2:]) & (rise >= min_step)
        best = np.argmin(np.where(peak, np.abs(offsets[1:-1])[None, :], np.inf), axis=1)
        # A parabola through the best offset and its neighbours: the edge to a fraction of a pixel.
        at = np.clip(best, 1, rise.shape[1] - 2)
        left, mid, right = rise[rows, at - 1], rise[rows, at], rise[rows, at + 1]
        curve = left - 2 * mid + right
        frac = np.where((curve < 0) & (at == best), 0.5 * (left - right) / np.where(curve < 0, curve, -1.0), 0.0)
        move = (best - half + np.clip(frac, -0.5, 0.5)) * gap
        # Only a clear step, and only beyond the outline's own accuracy (a pixel or so).
        move = np.where((rise[rows, best] >= min_step) & (np.abs(move) >= 1.5), move, 0.0)
        shift += move[:, None] * across
    out: list[Hypothesis | None] = []
    for hyp, mat, (dx, dy) in zip(hyps, mats, shift.tolist()):
        if dx == 0.0 and dy == 0.0:
            out.append(None)
            continue
        moved = mat.copy()
        moved[0, 2] += dx
        moved[1, 2] += dy
        out.append(replace(hyp, card_to_work=moved))
    return out


def card_quads(filled: np.ndarray, *, min_share: float = 0.15) -> list[Hypothesis]:
    """A card seen close up: each blob filling ``min_share`` of the picture whose outline is four-sided.

    A card held up to the camera, or photographed at an angle, shows its
    whole outline, but in perspective (or, in a dataset's square crop,
    squeezed) its sides are not in a card's ratio, which the table's corner
    search asks for.  The blob's convex outline, cut down to four corners,
    maps the card onto it whatever its shape, either way up (the other two
    ways are the same cards turned half a turn, read at their other corner).
    """
    h, w = filled.shape
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card = np.array([[0.0, 0.0], [CARD_SIZE[0], 0.0], [CARD_SIZE[0], CARD_SIZE[1]], [0.0, CARD_SIZE[1]]], np.float32)
    out = []
    for contour in contours:
        if cv2.contourArea(contour) < min_share * h * w:
            continue
        hull = cv2.convexHull(contour)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float32)
        if len(quad) != 4 or cv2.contourArea(quad) < 0.9 * cv2.contourArea(hull):
            continue
        x, y = quad[:, 0], quad[:, 1]
        if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
            quad = quad[::-1]   # clockwise on screen, as the card's corners run
        for start in (0, 1):
            tl, tr, br, bl = (quad[(start + k) % 4] for k in range(4))
            across = 0.5 * (float(np.hypot(*(tr - tl))) + float(np.hypot(*(br - bl))))
            down = 0.5 * (float(np.hypot(*(bl - tl))) + float(np.hypot(*(br - tr))))
            if not 0.9 <= down / max(across, 1e-6) <= 1.8:
                continue   # far from a card's shape this way up
            to_work = cv2.getPerspectiveTransform(card, np.array([tl, tr, br, bl], np.float32)).astype(np.float64)
            out.append(Hypothesis(to_work, across, -1))
    return out


def frame_hypotheses(width: int, height: int) -> list[Hypothesis]:
    """A card that fills the whole picture: the frame's own corners as the card's.

    A close-up photo of one card often crops it at or inside its edges, so no
    outline is visible; the frame's rectangle then stands for the card (for a
    landscape picture, a card lying sideways; a square one is taken as an
    upright card squeezed, as dataset crops are).  The recogniser accepts
    these only when both index corners are read.  A picture far longer than
    a card (a 16:9 camera frame) cannot be filled by one: none then.
    """
    w, h = float(width), float(height)
    if max(w, h) > 1.6 * min(w, h):
        return []
    tl, tr, br, bl = (np.array(p) for p in ((0.0, 0.0), (w, 0.0), (w, h), (0.0, h)))
    out = []
    if h >= 0.9 * w:
        out.append(Hypothesis(_affine(tl, tr - tl, bl - tl), w, -1))
        out.append(Hypothesis(_affine(br, bl - br, tr - br), w, -1))
    if w >= 1.1 * h:
        out.append(Hypothesis(_affine(tr, br - tr, tl - tr), h, -1))
        out.append(Hypothesis(_affine(bl, tl - bl, br - bl), h, -1))
    return out
