"""Where the cards' corners are: a learned detector that sees any table.

:class:`CardDetector` runs ``models/detector.onnx``, a small fully
convolutional network trained on synthetic tables of every kind
(``models/scenes.py``), over the frame shrunk to ``size`` pixels on its long
side.  On a grid of ``STRIDE`` pixels it marks the cells at each visible
corner of a face-up card, and each such cell says where the corner lies, the
direction of the edge leaving it clockwise and the card's width.  Each
corner, taken as a card's top-left one, becomes a :class:`CardCorner`, whose
:meth:`~CardCorner.card_to_frame` is the homography the corner reader cuts
its patch with: two of a card's four corners hold its index, and the reader
calls the other two ``none``.  A corner is the same on every deck; which
deck it is, only the reader needs to know.

>>> import numpy as np
>>> maps = np.zeros((6, 8, 8), np.float32)
>>> maps[0, 2, 5] = 0.9                                  # a corner in cell (5, 2) ...
>>> maps[3, 2, 5], maps[5, 2, 5] = 1.0, np.log(80 / WIDTH_UNIT)   # ... of a card upright, 80 px wide
>>> [tuple(round(v, 2) for v in c) for c in decode(maps)]
[(21.5, 9.5, 0.0, 80.0, 0.9)]
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from vision.classifier import CARD_SIZE, ModelError

STRIDE = 4
"""Frame pixels (at the detector's size) per cell of its output grid."""
WIDTH_UNIT = 32.0
"""The network predicts log(card width / WIDTH_UNIT): widths near 32 px regress near zero."""
THRESHOLD = 0.7
"""The least score a corner is reported at: chosen leaving one real source out at a time among 0.3 to
0.7 (models/MODEL_CARD.md); the corner reader's ``none`` answers for the rest."""
_SAME = 0.12
"""Votes this close (a share of the card's width) are one corner: two cards in a row lie further apart."""
_ALIKE = math.cos(math.radians(40))
"""... and turned alike within 40 degrees."""
DEFAULT_DETECTOR = Path(__file__).resolve().parent.parent / "models" / "detector.onnx"


class CardCorner(NamedTuple):
    """One card corner found: where it lies (frame px), the angle of the edge leaving it clockwise
    (radians, y down: the card's x axis were this its top-left corner), the card's width (frame px)
    and the detector's score (0..1)."""

    x: float
    y: float
    angle: float
    width: float
    score: float

    def card_to_frame(self) -> np.ndarray:
        """Card units -> frame px, the card upright on this corner (a similarity: perspective is
        small across one card's corner)."""
        k = self.width / CARD_SIZE[0]
        c, s = math.cos(self.angle) * k, math.sin(self.angle) * k
        return np.array([[c, -s, self.x], [s, c, self.y], [0.0, 0.0, 1.0]])


def decode(maps: np.ndarray, *, threshold: float = THRESHOLD) -> list[CardCorner]:
    """The corners of one frame's ``(6, gh, gw)`` output, in pixels of the network's input (pixel
    centres at whole numbers).

    Every cell at ``threshold`` or more votes for a corner point, a direction and a width.  The
    surest unclaimed cell's vote starts a corner, which every unclaimed vote within ``_SAME`` of its
    width, at a like angle, joins; the corner is the votes' mean, weighted by their cells' scores, and
    its score the surest cell's.  Two corners side by side (a tight row) vote apart, so their cells
    never make one corner even where they touch.
    """
    heat = maps[0]
    gy, gx = np.nonzero(heat >= threshold)
    if not len(gy):
        return []
    score = heat[gy, gx]
    vx, vy = gx + maps[1, gy, gx], gy + maps[2, gy, gx]
    cos, sin = maps[3, gy, gx], maps[4, gy, gx]
    width = WIDTH_UNIT * np.exp(np.minimum(maps[5, gy, gx], 6.0)) / STRIDE
    # Each vote weighted by its cell's score, summed over a corner's votes at once.
    weighted = np.stack([vx, vy, sin, cos, np.log(width), np.ones_like(vx)]) * score
    free = np.ones(len(gy), bool)
    out = []
    for i in np.argsort(-score):
        if not free[i]:
            continue
        near = free & ((vx - vx[i]) ** 2 + (vy - vy[i]) ** 2 <= (_SAME * width[i]) ** 2) \
            & (cos * cos[i] + sin * sin[i] > _ALIKE)
        near[i] = True
        free &= ~near
        x, y, s, c, log_w = (weighted[:5, near].sum(axis=1) / weighted[5, near].sum()).tolist()
        out.append(CardCorner((x + 0.5) * STRIDE - 0.5, (y + 0.5) * STRIDE - 0.5, math.atan2(s, c),
                              math.exp(log_w) * STRIDE, float(score[i])))
    return out


class CardDetector:
    """The card corners in a BGR frame of any size, by the shipped network (one thread by default).

    ``size`` is the long side, in pixels, the frame is shrunk (or enlarged)
    to before the network looks: a card about 20 px wide or more at that size
    is found.  ``threshold`` is the least score reported.
    """

    def __init__(self, path: Path | str = DEFAULT_DETECTOR, *, size: int = 640, threshold: float = THRESHOLD,
                 threads: int = 1) -> None:
        import onnxruntime as ort

        if not isinstance(size, int) or size < 64:
            raise ValueError(f"size must be an int of at least 64 pixels, got {size!r}")
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"threshold must be within (0, 1), got {threshold!r}")
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
        self.size = size
        self.threshold = float(threshold)

    def find(self, frame_bgr: np.ndarray) -> list[CardCorner]:
        """Every card corner found in ``frame_bgr``, surest first, in the frame's own pixels."""
        h, w = frame_bgr.shape[:2]
        scale = self.size / max(h, w)
        # A grid of whole cells: each side a multiple of the network's coarsest stride (32).
        gw, gh = max(32, round(w * scale / 32) * 32), max(32, round(h * scale / 32) * 32)
        small = cv2.resize(frame_bgr, (gw, gh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        maps = self._session.run(None, {"frame": small[None].astype(np.float32)})[0][0]
        found = decode(maps, threshold=self.threshold)
        sx, sy = w / gw, h / gh
        return [CardCorner((c.x + 0.5) * sx - 0.5, (c.y + 0.5) * sy - 0.5, math.atan2(math.sin(c.angle) * sy,
                                                                                    math.cos(c.angle) * sx),
                            c.width * math.sqrt(sx * sy), c.score) for c in found]
