"""What the recogniser reports for one card in one frame.

Every part that looks at cards (the recogniser, the tracker, the calibration
view, the evaluator) speaks this one type, so they can be built and tested
apart: a tracker test can hand-make detections without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Detection:
    """A face-up card seen in a frame.

    ``outline`` is the card's quadrilateral (or the visible part's bounding
    quadrilateral when the card is partly covered) in frame pixel
    coordinates, shape ``(4, 2)``, float32, in clockwise order.
    ``alternatives`` are the next most likely codes with their probabilities,
    best first, not including ``code``.
    """

    code: str
    confidence: float
    outline: np.ndarray
    alternatives: tuple[tuple[str, float], ...] = field(default=())

    @property
    def centre(self) -> tuple[float, float]:
        """The outline's centroid, which decides the seat zone a card lies in."""
        x, y = self.outline.reshape(-1, 2).mean(axis=0)
        return float(x), float(y)
