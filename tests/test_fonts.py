"""Font decks: every index lies where the corner reader looks, printed at both index corners."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

pytest.importorskip("PIL")
from models.fonts import SUIT_FONT, font_decks, fonts
from vision.classifier import CARD_SIZE, CORNER_BOX

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
