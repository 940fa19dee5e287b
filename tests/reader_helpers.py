"""Corner-reader doubles shared by the recogniser's tests and the evaluation scripts' tests."""

from __future__ import annotations

import numpy as np

from vision.classifier import CLASSES


class Reads:
    """Reads every patch as ``code`` with probability ``p`` (the rest as 'none')."""

    def __init__(self, code: str, p: float) -> None:
        self.code, self.p = code, p

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, CLASSES.index(self.code)] = self.p
        out[:, -1] = 1.0 - self.p
        return out
