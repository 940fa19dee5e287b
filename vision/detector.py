"""Where the cards' corners are: a learned detector that sees any table.

:class:`CardDetector` runs ``models/detector.onnx``, a small fully
convolutional network trained on synthetic tables of every kind
(``models/scenes.py``).  On a grid of ``STRIDE`` pixels it marks the cells at
each visible corner of a face-up card, and each such cell says where the
corner lies, the direction of the edge leaving it clockwise and the card's
width.  It finds corners most surely on cards about ``CARD_PX`` pixels wide,
so it looks twice: once at ``size`` pixels on the frame's long side, to learn
how wide the cards are, and again at the size that makes them ``CARD_PX``
wide, where that differs, about the corners of cards not known already; a
close-up, whose cards are wider at the first look than it sizes well, by
halves too (:meth:`CardDetector.closer_up`).  A
corner whose card's next corner was found too is also measured by the two
(:func:`paired`): their distance is a card's side, surer than the width one
corner's look suggests.  Each corner, taken as a card's top-left one,
becomes a :class:`CardCorner`, whose
:meth:`~CardCorner.card_to_frame` is the homography the corner reader cuts
its patch with.  Two of a card's four corners hold its index; the network
also says which (its index map), and only those are handed on: the other
two would cost the reader a patch each to call ``none``.  A corner is the
same on every deck; which deck it is, only the reader needs to know.

>>> import numpy as np
>>> maps = np.zeros((7, 8, 8), np.float32)
>>> maps[0, 2, 5] = 0.9                                  # a corner in cell (5, 2) ...
>>> maps[3, 2, 5], maps[5, 2, 5] = 1.0, np.log(80 / WIDTH_UNIT)   # ... of a card upright, 80 px wide ...
>>> maps[6, 2, 5] = 0.8                                  # ... that holds its index
>>> [tuple(round(v, 2) for v in c) for c in decode(maps)]
[(21.5, 9.5, 0.0, 80.0, 0.9, 0.8)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision._detect import lift
from vision.classifier import CARD_SIZE, ModelError

STRIDE = 4
"""Frame pixels (at the detector's size) per cell of its output grid."""
MAPS = 7
"""The network's output maps: corner probability, x and y offsets to the corner (cells), cos and sin of
the edge leaving it clockwise, log(card width / WIDTH_UNIT), and the probability that it holds an index."""
WIDTH_UNIT = 32.0
"""The network predicts log(card width / WIDTH_UNIT): widths near 32 px regress near zero."""
THRESHOLD = 0.6
"""The least score a corner is reported at: chosen leaving one real source out at a time among 0.5 to
0.7 (models/MODEL_CARD.md); the corner reader's ``none`` answers for the rest."""
INDEX = 0.5
"""The least index probability at which a corner is handed on to be read (models/MODEL_CARD.md)."""
CARD_PX = 120.0
"""The card width (px at the network's input) the second look brings a frame's cards to: its corner
recall rises with the width up to about this (models/MODEL_CARD.md)."""
_SIZING = 0.7
"""The least score of a first look's corner whose width counts in the cards' width."""
_SMALL = 80.0
"""Cards narrower than this in the frame's own pixels (by the first look) are looked at again in the
frame enlarged to make them so: enlarging adds no detail, but the network finds under half the corners
of cards under 45 px wide and three quarters from 60 px (models/MODEL_CARD.md)."""
_CLOSE = 90.0
"""Where the sure corners' median card is this wide (px at a look) or wider, a look at half that size
follows (a close-up): the network sizes wider cards too narrow (a 274-px card as 170) and its index map
misses their corners (models/MODEL_CARD.md)."""
_GRAIN = 2.0
"""How many times more a lifted frame is smoothed than would lower white noise as much as the lift
raised it: chosen on the validation folders among 1, 1.5, 2 and 3 (models/MODEL_CARD.md)."""
_LEAST = 128
"""The least long side of a close-up look (a 224-px card photo is looked at down to 160)."""
_LOOK_AGAIN = math.log(1.3)
"""A second look is taken only when it changes the scale by more than this (as a log)."""
_AROUND = 2.2
"""The second look sees this many card widths about each corner it is taken for: a card reaches 1.72
widths from any of its corners, and the first look's width can be a fifth off."""
_WHOLE = 0.6
"""... and the whole frame where those places would cover more than this share of it."""
_FAR = 0.7
"""A card about a place handed in to be looked at (``CardDetector.find``'s ``also``) may be this much
narrower than the table's cards (a far one of a table seen at an angle, which the first look missed):
such places are looked at as much closer again."""
_SAME = 0.12
"""Votes this close (a share of the card's width) are one corner: two cards in a row lie further apart."""
_ALIKE = math.cos(math.radians(40))
"""... and turned alike within 40 degrees."""
_BLOCK = 64
"""Votes whose neighbours are found at once (a block's rows against every vote)."""
_PAIR_OFF = 1.33
"""A partner may lie this many times nearer or farther than a corner's own width puts it: a corner's
look at a small card can be a fifth off; a row's next card, whose corner lies on the same edge line
turned alike, is mostly further off than this."""
_PAIR_TURN = math.radians(45)
"""How far a corner's own look at its edge may be from the way to its card's next corner: a corner in
a tight row can be turned 20 to 50 degrees off."""
_PAIR_AGREE = math.radians(20)
"""... and how far from the way the next corner's own look says it was reached from."""
_WIDTH_OFF = math.log(1.15)
"""A corner this far (as a log) from the table's card width is also read at that width
(:func:`sized_alike`): two corners' looks at one card differ by up to a tenth."""
DEFAULT_DETECTOR = Path(__file__).resolve().parent.parent / "models" / "detector.onnx"


class CardCorner(NamedTuple):
    """One card corner found: where it lies (frame px), the angle of the edge leaving it clockwise
    (radians, y down: the card's x axis were this its top-left corner), the card's width (frame px),
    the detector's score (0..1) and how sure it is that the corner holds an index (0..1; a corner
    said to be one is taken as one)."""

    x: float
    y: float
    angle: float
    width: float
    score: float
    holds_index: float = 1.0

    def card_to_frame(self) -> np.ndarray:
        """Card units -> frame px, the card upright on this corner (a similarity: perspective is
        small across one card's corner)."""
        k = self.width / CARD_SIZE[0]
        c, s = math.cos(self.angle) * k, math.sin(self.angle) * k
        return np.array([[c, -s, self.x], [s, c, self.y], [0.0, 0.0, 1.0]])


def decode(maps: np.ndarray, *, threshold: float = THRESHOLD) -> list[CardCorner]:
    """The corners of one frame's ``(7, gh, gw)`` output, in pixels of the network's input (pixel
    centres at whole numbers).

    Every cell at ``threshold`` or more votes for a corner point, a direction, a width and whether
    it holds an index.  The surest unclaimed cell's vote starts a corner, which every unclaimed vote
    within ``_SAME`` of its width, at a like angle, joins; the corner is the votes' mean, weighted by
    their cells' scores, and its score the surest cell's.  Two corners side by side (a tight row)
    vote apart, so their cells never make one corner even where they touch.
    """
    heat = maps[0]
    gy, gx = np.nonzero(heat >= threshold)
    if not len(gy):
        return []
    score, cos, sin, index = (maps[c, gy, gx].astype(np.float64) for c in (0, 3, 4, 6))
    vx, vy = gx + maps[1, gy, gx], gy + maps[2, gy, gx]
    width = WIDTH_UNIT * np.exp(np.minimum(maps[5, gy, gx], 6.0)) / STRIDE
    # Which corner each vote joins: the surest free vote starts one, and takes the free votes near it.
    # Neighbours are worked out for a block of votes at a time (all at once would be a square matrix
    # as large as the frame is noisy).
    order = np.argsort(-score)
    joins = np.full(len(gy), -1)
    seeds: list[int] = []
    for start in range(0, len(order), _BLOCK):
        block = order[start:start + _BLOCK]
        block = block[joins[block] < 0]             # those not taken by the blocks before
        reach = ((vx[None, :] - vx[block, None]) ** 2 + (vy[None, :] - vy[block, None]) ** 2
                 <= (_SAME * width[block, None]) ** 2) & (cos[None, :] * cos[block, None] + sin[None, :] * sin[block, None] > _ALIKE)
        for i, near in zip(block.tolist(), reach):
            if joins[i] >= 0:
                continue
            near &= joins < 0
            near[i] = True
            joins[near] = len(seeds)
            seeds.append(i)
    # Each corner is its votes' mean, each vote weighted by its cell's score.
    total = np.bincount(joins, weights=score, minlength=len(seeds))
    x, y, s, c, log_w, ink = ((np.bincount(joins, weights=v * score, minlength=len(seeds)) / total).tolist()
                              for v in (vx, vy, sin, cos, np.log(width), index))
    return [CardCorner((x[k] + 0.5) * STRIDE - 0.5, (y[k] + 0.5) * STRIDE - 0.5, math.atan2(s[k], c[k]),
                       math.exp(log_w[k]) * STRIDE, float(score[i]), ink[k]) for k, i in enumerate(seeds)]


def _median_width(corners: list[CardCorner], *, least: int = 1) -> float | None:
    """The median width of the corners scored ``_SIZING`` or more; None where fewer than ``least`` are."""
    sure = sorted(c.width for c in corners if c.score >= _SIZING)
    return sure[len(sure) // 2] if sure and len(sure) >= least else None


def sized_alike(corners: list[CardCorner]) -> list[CardCorner]:
    """``corners``, and again at the table's card width each whose own width is more than
    ``_WIDTH_OFF`` from it.

    One deck's cards are one size on one table.  A card whose other
    corners are hidden (under the next card of a row, under a hand) is
    sized by its one visible corner's look, which can be a third off; its
    far index is then looked for in the wrong place.  The table's width is
    the median of the corners scored ``_SIZING`` or more.

    >>> row = [CardCorner(100.0 * k, 0.0, 0.0, 80.0, 0.9) for k in range(3)]
    >>> [c.width for c in sized_alike(row + [CardCorner(0.0, 200.0, 0.0, 110.0, 0.9)])]
    [80.0, 80.0, 80.0, 110.0, 80.0]
    """
    table = _median_width(corners, least=3)
    if table is None:
        return list(corners)
    return list(corners) + [c._replace(width=table) for c in corners if abs(math.log(c.width / table)) > _WIDTH_OFF]


def _turn_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The angle between directions ``a`` and ``b`` (radians), 0 to pi."""
    return np.abs((a - b + math.pi) % (2 * math.pi) - math.pi)


def paired(corners: list[CardCorner]) -> list[CardCorner]:
    """``corners``, and again each that has its card's next corner among them, measured by the two.

    A corner's next one clockwise lies along the edge it looks at, a card's
    width away (its index corners' are) and turned a quarter on; its next one
    counter-clockwise lies down its other edge, a card's height away, and
    looks back at it.  Where such a partner lies no more than 1.33 times
    nearer or farther than the corner's own width puts it (and turned as it
    should be), the way to it and the distance between them give the
    corner's turn and width again: two points measured, where one corner's
    look at a small card can be a fifth too wide and half a right angle
    askew.  Both are kept, for the reader to tell which reads, the
    measured one first: the recogniser reads the other only where the first
    reads no card surely at the table's width.

    >>> top_left = CardCorner(100.0, 100.0, 0.3, 66.0, 0.9)      # an upright card 80 px wide, seen askew
    >>> top_right = CardCorner(180.0, 100.0, math.pi / 2, 80.0, 0.9)
    >>> [(round(c.x), round(c.y), round(c.angle, 2), round(c.width)) for c in paired([top_left, top_right])]
    [(100, 100, 0.0, 80), (100, 100, 0.3, 66), (180, 100, 1.57, 80)]
    """
    if len(corners) < 2:
        return list(corners)
    x, y, angle, width = (np.array(v, np.float64) for v in list(zip(*corners))[:4])
    dx, dy = x[None, :] - x[:, None], y[None, :] - y[:, None]        # row: the corner, column: a partner
    dist, way = np.hypot(dx, dy), np.arctan2(dy, dx)
    mine, theirs = angle[:, None], angle[None, :]
    best, turn, size = np.full(len(corners), np.inf), angle.copy(), width.copy()
    # For the next corner clockwise, then counter-clockwise: how far it lies, the way to it less my
    # turn, its turn less mine, the way to it less its turn, and its distance over my width.
    height = width * CARD_SIZE[1] / CARD_SIZE[0]
    for side, reach, back, ahead, per_width in ((width, 0.0, math.pi / 2, -math.pi / 2, 1.0),
                                              (height, math.pi / 2, -math.pi / 2, math.pi, CARD_SIZE[1] / CARD_SIZE[0])):
        expected = side[:, None]
        fits = ((dist * _PAIR_OFF >= expected) & (dist <= _PAIR_OFF * expected)
                & (_turn_apart(way, mine + reach) < _PAIR_TURN)
                & (_turn_apart(theirs - back, mine) < _PAIR_TURN)
                & (_turn_apart(way, theirs + ahead) < _PAIR_AGREE))
        np.fill_diagonal(fits, False)
        miss = np.where(fits, np.abs(np.log(np.maximum(dist, 1e-9) / expected)), np.inf)
        j = np.argmin(miss, axis=1)
        rows = np.arange(len(corners))
        better = miss[rows, j] < best
        best[better] = miss[rows, j][better]
        turn[better] = way[rows, j][better] - reach
        size[better] = dist[rows, j][better] / per_width
    out = []
    for c, b, t, w in zip(corners, best.tolist(), turn.tolist(), size.tolist()):
        if math.isfinite(b):
            out.append(c._replace(angle=math.atan2(math.sin(t), math.cos(t)), width=w))
        out.append(c)
    return out


class CardDetector:
    """The card corners in a BGR frame of any size, by the shipped network (one thread by default).

    ``size`` is the long side, in pixels, of the first look, which finds how
    wide the frame's cards are; a card about 20 px wide or more at that size
    is found.  Where they are far from ``CARD_PX`` wide there, a second look
    shrinks or enlarges the frame to make them so, up to ``max_size`` pixels
    on its long side, and beyond the frame's own only where its cards are
    under ``_SMALL`` px wide in it (a webcam's 640x480 picture of a whole
    table).  Each look lifts a dim frame to full white first, as the
    cards' white is what the network knows.  ``threshold`` is the least score
    reported, ``index`` the least index probability (0 reports the plain
    corners too).
    """

    def __init__(self, path: Path | str = DEFAULT_DETECTOR, *, size: int = 640, max_size: int = 1600,
                 threshold: float = THRESHOLD, index: float = INDEX, threads: int = 1) -> None:
        import onnxruntime as ort

        if not isinstance(size, int) or size < 64:
            raise ValueError(f"size must be an int of at least 64 pixels, got {size!r}")
        if not isinstance(max_size, int) or max_size < size:
            raise ValueError(f"max_size must be an int of at least size ({size}) pixels, got {max_size!r}")
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be within (0, 1), got {threshold!r}")
        if not 0.0 <= index < 1.0:
            raise ValueError(f"index must be within [0, 1), got {index!r}")
        path = Path(path)
        if not path.is_file():
            raise ModelError(f"detector model not found: {path} (train it with `make train`)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a damaged file
            raise ModelError(f"cannot load detector model {path}: {exc}") from exc
        maps = self._session.get_outputs()[0].shape[1]
        if maps != MAPS:
            raise ModelError(f"detector model {path} gives {maps} maps, not {MAPS}: it was made for another "
                             "version of the companion (train it with `make train`)")
        layout = self._session.get_inputs()[0].shape
        if len(layout) != 4 or layout[1] != 3:
            raise ModelError(f"detector model {path} takes the frame as {layout}, not as its three planes "
                             "(1 x 3 x H x W): it was made for another version of the companion (train it with `make train`)")
        self.size = size
        self.max_size = max_size
        self.threshold = float(threshold)
        self.index = float(index)

    def find(self, frame_bgr: np.ndarray, *, unseen: Callable[[list[CardCorner]], list[CardCorner]] | None = None,
             also: Sequence[CardCorner] = (), everywhere: bool = False) -> list[CardCorner]:
        """Every index corner found in ``frame_bgr``, in the frame's own pixels (:func:`paired`'s
        measured ones beside the corners they were measured from; the plain corners measure, but
        are not handed on), a close-up's looks (:meth:`closer_up`) included.

        ``unseen`` keeps those of the first look's corners that no card known
        already explains (the recogniser's geometry proposes most cards of a
        table it suits): the second look is spent only about those, and about
        ``also``, places where a card may lie (a card the geometry read in doubt).
        ``everywhere`` spends it on the whole frame instead (a table as white
        as its cards: what the first look misses there, nothing else sees).
        Where a card is ``CARD_PX`` wide or wider at the first look already, a
        larger look would only size it worse: its first-look corner is kept.
        """
        h, w = frame_bgr.shape[:2]
        k = self.size / max(h, w)
        gain = lift(cv2.resize(frame_bgr, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_NEAREST))
        if gain > 1.0:
            # A dim frame's grain is lifted with its light.  A Gaussian of sigma px lowers white noise by
            # 2 sqrt(pi) sigma, but a camera's grain is coarser (JPEG and demosaicing spread each speck
            # over its neighbours) and falls less: smoothed by _GRAIN times what white noise would need.
            frame_bgr = cv2.GaussianBlur(frame_bgr, (0, 0), _GRAIN * gain / (2 * math.sqrt(math.pi)))
        found = self.look(frame_bgr, self.size, gain=gain)
        close = self.closer_up(frame_bgr, found, gain=gain)
        again = self.second_size(frame_bgr, found)
        if again is None:
            return self._indices(paired(found)) + close
        if everywhere:
            places = [(0, 0, w, h)]
        else:
            around = self._indices(found)
            places = self.places(frame_bgr.shape, around if unseen is None else unseen(around), again)
        closer = [c for x0, y0, x1, y1 in places for c in self.look(frame_bgr[y0:y1, x0:x1], again, gain=gain,
                                                                   whole=frame_bgr.shape, at=(x0, y0))]
        looks = [(places, again)]
        if also:
            nearer = min(max(again, min(self.max_size, max(h, w))), round(again / _FAR))
            far = self.places(frame_bgr.shape, list(also), nearer)
            closer += [c for x0, y0, x1, y1 in far for c in self.look(frame_bgr[y0:y1, x0:x1], nearer, gain=gain,
                                                                     whole=frame_bgr.shape, at=(x0, y0))]
            looks.append((far, nearer))

        def inside(c: CardCorner, parts: list[tuple[int, int, int, int]]) -> bool:
            return any(x0 <= c.x < x1 and y0 <= c.y < y1 for x0, y0, x1, y1 in parts)

        def first_sees_better(c: CardCorner, size: int) -> bool:
            """A card ``CARD_PX`` wide or wider at the first look, looked at larger (or that narrow or narrower,
            looked at smaller): the later look only takes it further from ``CARD_PX``."""
            return (c.width * k >= CARD_PX) == (size > self.size)

        # The network sizes a card far wider than CARD_PX too narrow, so such a card's first-look corner
        # stands and the later look's at it goes; the first look's width of a small card is no judge of it.
        kept = [c for c in found if all(not inside(c, parts) or first_sees_better(c, size) for parts, size in looks)]
        held = [c for c in kept if any(inside(c, parts) for parts, _ in looks)]
        closer = [c for c in closer if not any(math.hypot(c.x - first.x, c.y - first.y) < _SAME * first.width
                                               and math.cos(c.angle - first.angle) > _ALIKE for first in held)]
        return self._indices(paired(closer + kept)) + close

    def closer_up(self, frame_bgr: np.ndarray, found: list[CardCorner], *, gain: float = 1.0) -> list[CardCorner]:
        """The index corners of a close-up's looks: at half the first look's size where the sure
        corners of ``found`` (that look's) are ``_CLOSE`` px wide or wider at it, and at half again
        while that look's are, down to ``_LEAST`` px.

        A second look sized by those widths would change little: the
        network sizes such cards too narrow, and they are the cards its
        index map misses.  Each look hands on the cards it is taken for,
        half ``_CLOSE`` wide or wider there, beside the first look's, whose
        cards may be the narrower ones.
        """
        long_side = max(frame_bgr.shape[:2])
        size, seen, out = self.size, found, []
        while size // 2 >= _LEAST:
            median = _median_width(seen)
            if median is None or median * size / long_side < _CLOSE:
                break
            size //= 2
            seen = self.look(frame_bgr, size, gain=gain)
            out += [c for c in self._indices(paired(seen)) if c.width * size / long_side >= _CLOSE / 2]
        return out

    def _indices(self, corners: list[CardCorner]) -> list[CardCorner]:
        """Those of ``corners`` the index map says hold an index."""
        return [c for c in corners if c.holds_index >= self.index]

    def second_size(self, frame_bgr: np.ndarray, found: list[CardCorner]) -> int | None:
        """The long side of the look that makes the narrower cards of ``found`` (a look at ``size``)
        about ``CARD_PX`` wide, by its sure index corners (a patterned floor's or a rim's corners hold
        none), within ``max_size`` and the frame's own pixels (enlarged so far as to make its cards
        ``_SMALL`` px wide where they are narrower); where it found corners, but too few sure ones to
        size by, the closest look the frame and ``max_size`` allow; None where that look would change
        little or nothing was found.

        The narrower quarter's width, not the median: the first look finds few of the small cards
        (the far ones of a table seen at an angle) and sizes those it finds too wide, or too unsurely
        to size by at all (a table seen from its side, its cards 30 px wide at the first look)."""
        widths = sorted(c.width for c in found if c.score >= _SIZING and c.holds_index >= self.index)
        long_side = max(frame_bgr.shape[:2])
        if len(widths) < 2:
            closest = min(self.max_size, long_side)
            return closest if found and math.log(closest / self.size) > _LOOK_AGAIN else None
        narrow = widths[len(widths) // 4]                                 # in the frame's own pixels
        seen = narrow * self.size / long_side                              # at the first look
        largest = min(self.max_size, long_side * max(1.0, _SMALL / narrow))   # enlarged where the cards are small
        again = int(min(max(self.size, largest), max(self.size / 2, self.size * CARD_PX / seen)))
        return again if abs(math.log(again / self.size)) > _LOOK_AGAIN else None

    @staticmethod
    def places(shape: tuple[int, ...], around: list[CardCorner], size: int) -> list[tuple[int, int, int, int]]:
        """The parts of a frame of ``shape`` a look at ``size`` takes to see ``_AROUND`` card widths
        about each corner of ``around``: (x0, y0, x1, y1) frame px, apart, on the network's 32 px
        grid; the whole frame where they would cover most of it.

        >>> CardDetector.places((720, 1280), [CardCorner(300.0, 200.0, 0.0, 40.0, 0.9)], 1280)
        [(192, 96, 416, 288)]
        >>> CardDetector.places((720, 1280), [CardCorner(300.0, 200.0, 0.0, 300.0, 0.9)], 1280)
        [(0, 0, 1280, 720)]
        """
        h, w = shape[:2]
        cell = 32 * max(h, w) / size                                      # frame px per 32 px of the look
        grid = np.zeros((math.ceil(h / cell), math.ceil(w / cell)), np.uint8)
        for c in around:
            r = _AROUND * c.width
            grid[max(0, math.floor((c.y - r) / cell)):math.ceil((c.y + r) / cell),
                 max(0, math.floor((c.x - r) / cell)):math.ceil((c.x + r) / cell)] = 1
        if grid.mean() > _WHOLE:
            return [(0, 0, w, h)]
        boxes = [tuple(int(v) for v in b[:4]) for b in cv2.connectedComponentsWithStats(grid, connectivity=8)[2][1:]]

        def overlap(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
            return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]

        # Parts that overlap become one, so that nothing is looked at twice.
        while pair := next(((i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                            if overlap(boxes[i], boxes[j])), None):
            (ax, ay, aw, ah), (bx, by, bw, bh) = boxes[pair[0]], boxes.pop(pair[1])
            x0, y0 = min(ax, bx), min(ay, by)
            boxes[pair[0]] = (x0, y0, max(ax + aw, bx + bw) - x0, max(ay + ah, by + bh) - y0)
        return [(round(x * cell), round(y * cell), min(w, round((x + bw) * cell)), min(h, round((y + bh) * cell)))
                for x, y, bw, bh in boxes]

    def look(self, frame_bgr: np.ndarray, size: int, *, gain: float = 1.0, whole: tuple[int, ...] | None = None,
             at: tuple[int, int] = (0, 0)) -> list[CardCorner]:
        """The corners the network finds in ``frame_bgr`` (lifted by ``gain``, :func:`vision._detect.lift`
        of the whole frame), shrunk or enlarged to ``size`` on its long side, in the frame's own
        pixels, surest first.  ``frame_bgr`` can be the part of a ``whole`` frame at ``at``: ``size``
        is then the whole's long side, and corners on the part's cut edges (a card cut there shows a
        corner it has not) are left out."""
        h, w = frame_bgr.shape[:2]
        full_h, full_w = (whole or frame_bgr.shape)[:2]
        scale = size / max(full_h, full_w)
        # A grid of whole cells: each side a multiple of the network's coarsest stride (32).
        gw, gh = max(32, round(w * scale / 32) * 32), max(32, round(h * scale / 32) * 32)
        # Area averaging wherever the look shrinks the frame: bilinear sampling between one and two pixels
        # apart skips some of the print and not the rest (a partly covered 3C's index, read at 0.51 of a
        # 3000 px photo, was missed).  But where it halves the long side exactly (a 1280 px camera frame's
        # first look), bilinear sampling is a 2x2 average already, and costs a seventh (0.5 ms against 3.2).
        halved = 2 * max(gw, gh) == max(w, h)
        small = cv2.resize(frame_bgr, (gw, gh), interpolation=cv2.INTER_AREA if scale < 1.0 and not halved
                           else cv2.INTER_LINEAR)
        if gain != 1.0:
            small = cv2.convertScaleAbs(small, alpha=gain)
        # Plane by plane: 4 ms against 7 for one strided transpose and cast of a 1280x704 picture.
        planes = np.empty((1, 3, gh, gw), np.float32)
        for i, plane in enumerate(cv2.split(small)):
            planes[0, i] = plane
        maps = self._session.run(None, {"frame": planes})[0][0]
        found = decode(maps, threshold=self.threshold)
        sx, sy = w / gw, h / gh
        edge = STRIDE * max(sx, sy)
        out = []
        for c in found:
            x, y = (c.x + 0.5) * sx - 0.5, (c.y + 0.5) * sy - 0.5
            if ((at[0] and x < edge) or (at[1] and y < edge) or (at[0] + w < full_w and x >= w - edge)
                    or (at[1] + h < full_h and y >= h - edge)):
                continue
            out.append(CardCorner(x + at[0], y + at[1], math.atan2(math.sin(c.angle) * sy, math.cos(c.angle) * sx),
                                  c.width * math.sqrt(sx * sy), c.score, c.holds_index))
        return out
