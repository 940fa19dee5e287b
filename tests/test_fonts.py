"""Font decks: every index lies where the corner reader looks, printed at both index corners, at the
height its band asks; ``python -m models.evaluate`` reads them band by band."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

pytest.importorskip("PIL")
from models.evaluate import font_accuracy
from models.fonts import BANDS, SUIT_FONT, font_decks, fonts
from vision.classifier import CARD_SIZE, CLASSES, CORNER_BOX

pytestmark = pytest.mark.skipif(not fonts() or not SUIT_FONT.is_file(), reason="no DejaVu or Liberation fonts")


def _ink(face: np.ndarray) -> np.ndarray:
    """Where the face is printed: darker or more coloured than its paper, inside its border."""
    bgr = face[..., :3].astype(np.int16)
    paper = np.median(bgr[face[..., 3] > 0], axis=0)
    ink = (np.abs(bgr - paper).max(axis=2) > 60) & (face[..., 3] == 255)
    border = cv2.erode((face[..., 3] == 255).astype(np.uint8), np.ones((9, 9), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    return ink & (border > 0)


def test_every_index_lies_within_the_corner_box_at_both_index_corners() -> None:
    decks = font_decks(24, seed=3)
    assert len(decks) == 24
    for deck in decks:
        assert sorted(deck.faces) == sorted(c for c in deck.faces if c != "JK") and len(deck.faces) == 52
        ten, ace = _ink(deck.faces["TD"]), _ink(deck.faces["AD"])
        h, w = ten.shape
        x1 = round(CORNER_BOX[2] * w / CARD_SIZE[0])
        y1 = round(CORNER_BOX[3] * h / CARD_SIZE[1])
        assert ten[:y1, :x1].any(), deck.name
        # Nothing printed just beyond the box, beside the widest index above the pips and below the
        # ace's (whose one pip lies in the middle): each index lies wholly within it.
        assert not ten[:h // 5, x1:x1 + w // 10].any(), deck.name
        assert not ace[y1:y1 + h // 20, :x1].any(), deck.name
        # The bottom-right corner holds the same index turned.
        assert np.array_equal(np.rot90(ace, 2)[:y1, :x1], ace[:y1, :x1]), deck.name


def test_font_decks_are_drawn_afresh_by_seed() -> None:
    a, b, c = font_decks(3, seed=5), font_decks(3, seed=5), font_decks(3, seed=6)
    assert all(np.array_equal(x.faces["7S"], y.faces["7S"]) for x, y in zip(a, b))
    assert not all(np.array_equal(x.faces["7S"], y.faces["7S"]) for x, y in zip(a, c))
    # Within one set, the decks differ: another font, size or place of the index.
    assert len({x.faces["QH"].tobytes() for x in a + c}) == 6


class _SeesNone:
    """A reader that calls every patch ``none``."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, -1] = 1.0
        return out


def test_the_font_decks_are_read_band_by_band_of_the_ranks_height() -> None:
    report = font_accuracy(_SeesNone(), decks=1)  # type: ignore[arg-type]
    assert report is not None and len(report) == len(BANDS)
    for (low, high), (name, band) in zip(BANDS, report.items()):
        assert name == f"rank_{low:.0f}_{high:.0f}_units"
        assert band["patches"] > 40 and band["top1"] == 0.0 and band["none"] == 1.0


def test_each_band_sets_its_ranks_at_that_height() -> None:
    """The rank of a small band's deck is shorter than a large band's, in the same font."""
    small = font_decks(1, seed=2, rank_height=BANDS[0])[0].faces["8C"]
    large = font_decks(1, seed=2, rank_height=BANDS[-1])[0].faces["8C"]

    def rank_rows(face: np.ndarray) -> int:
        box = _ink(face)[: face.shape[0] // 3, : face.shape[1] // 3]
        rows = np.flatnonzero(box.any(axis=1))
        gaps = np.flatnonzero(np.diff(rows) > 1)   # the rank, then a gap, then the suit
        return int(rows[gaps[0]] - rows[0] + 1) if len(gaps) else int(rows[-1] - rows[0] + 1)

    unit = small.shape[1] / CARD_SIZE[0]
    assert BANDS[0][0] * 0.8 <= rank_rows(small) / unit <= BANDS[0][1] * 1.1
    assert BANDS[-1][0] * 0.8 <= rank_rows(large) / unit <= BANDS[-1][1] * 1.1
