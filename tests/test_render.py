"""The synthetic table renderer: outlines, stacking, determinism, bad input."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.cards import ALL_CODES, CardError
from vision.render import STYLES, PlacedCard, card_back, card_face, draw_hand, render_scene, table_background

SIZE = (640, 480)


def _mask(outline: np.ndarray, shrink: float = 0.0) -> np.ndarray:
    """Pixels inside the outline, optionally shrunk towards its centre by ``shrink`` px."""
    c = outline.mean(axis=0)
    pts = outline - np.sign(outline - c) * shrink
    mask = np.zeros(SIZE[::-1], np.uint8)
    cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 1)
    return mask.astype(bool)


def test_every_code_has_a_distinct_face():
    faces = [card_face(code) for code in ALL_CODES]
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 for f in faces)
    h, w = faces[0].shape[:2]
    assert 1.3 < h / w < 1.5
    flat = {f.tobytes() for f in faces}
    assert len(flat) == len(ALL_CODES)
    assert not np.array_equal(card_back(), card_face("AS"))


def test_card_face_reads_any_spelling_and_rejects_nonsense():
    assert np.array_equal(card_face("10h"), card_face("TH"))
    with pytest.raises(CardError):
        card_face("ZZ")


@pytest.mark.parametrize("angle", [0, 33, 90, 181])
def test_outline_matches_the_drawn_card(angle):
    card = PlacedCard("7D", (320, 240), angle, 120)
    background = table_background(SIZE, style="felt", seed=3)
    frame, (outline,) = render_scene([card], size=SIZE, background=background)
    changed = np.abs(frame.astype(int) - background.astype(int)).sum(axis=2) > 40
    inside, outside = _mask(outline, shrink=2), ~_mask(outline, shrink=-6)
    # The card covers its whole outline and (shadow aside) nothing far beyond it.
    assert changed[inside].mean() > 0.97
    assert changed[outside].mean() < 0.002
    assert outline.dtype == np.float32 and outline.shape == (4, 2)


def test_outline_is_clockwise_from_the_cards_own_top_left_corner():
    (outline,) = render_scene([PlacedCard("AS", (300, 200), 90, 100)], size=SIZE)[1]
    # Turned a quarter counter-clockwise, the card's top-left corner is bottom-left on screen.
    x, y = outline[0]
    assert x < 300 and y > 200
    signed_area = 0.5 * sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(outline, np.roll(outline, -1, 0)))
    assert signed_area > 0  # clockwise on screen, y down


def test_index_corner_is_where_the_outline_says():
    frame, (outline,) = render_scene([PlacedCard("KH", (320, 240), 0, 200)], size=SIZE)
    # The top-left index of a red card is red; the top-right corner of the Anglo king is not.
    tl = outline[0]
    corner = frame[int(tl[1]) + 8:int(tl[1]) + 45, int(tl[0]) + 4:int(tl[0]) + 28].reshape(-1, 3).astype(int)
    red = (corner[:, 2] > 150) & (corner[:, 1] < 100)
    assert red.sum() > 20


def test_later_cards_cover_earlier_ones():
    low, high = PlacedCard("2C", (300, 240), 0, 150), PlacedCard("JK", (360, 240), 0, 150, face_up=False)
    frame_a, outlines = render_scene([low, high], size=SIZE, background="felt")
    frame_b, _ = render_scene([high], size=SIZE, background="felt")
    overlap = _mask(outlines[0], 10) & _mask(outlines[1], 10)  # clear of the rounded corners
    assert overlap.sum() > 1000
    assert np.array_equal(frame_a[overlap], frame_b[overlap])
    frame_c, _ = render_scene([high, low], size=SIZE, background="felt")
    assert not np.array_equal(frame_c[overlap], frame_b[overlap])


def test_same_seed_same_frame_and_other_seed_differs():
    cards = [PlacedCard(code, (100 + 90 * i, 200), 15 * i, 80) for i, code in enumerate(["AS", "TD", "5C"])]
    a, _ = render_scene(cards, size=SIZE, seed=5, noise=6.0, blur=1.0)
    b, _ = render_scene(cards, size=SIZE, seed=5, noise=6.0, blur=1.0)
    c, _ = render_scene(cards, size=SIZE, seed=6, noise=6.0, blur=1.0)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_backgrounds_by_style_and_seed():
    images = [table_background(SIZE, style=s, seed=1) for s in STYLES]
    assert all(i.shape == (480, 640, 3) and i.dtype == np.uint8 for i in images)
    assert len({tuple(np.round(i.reshape(-1, 3).mean(0))) for i in images}) == len(STYLES)
    assert not np.array_equal(table_background(SIZE, seed=1), table_background(SIZE, seed=2))
    with pytest.raises(ValueError, match="unknown table style"):
        table_background(SIZE, style="marble")
    with pytest.raises(ValueError, match="width, height"):
        table_background((0, 10))


def test_bad_scene_input_is_refused():
    with pytest.raises(ValueError):
        render_scene([], size=SIZE, background=np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError):
        PlacedCard("AS", (0, 0), 0, 0)
    with pytest.raises(CardError):
        PlacedCard("XX", (0, 0))
    with pytest.raises(ValueError):
        render_scene([], size=SIZE, noise=-1)


def test_card_partly_off_frame_is_clipped_not_an_error():
    frame, (outline,) = render_scene([PlacedCard("9S", (5, 5), 10, 150)], size=SIZE)
    assert frame.shape == (480, 640, 3)
    assert outline.min() < 0


def test_draw_hand_covers_skin_around_the_point():
    frame = table_background(SIZE, style="felt")
    before = frame.copy()
    out = draw_hand(frame, (320, 240), size=120)
    assert out is frame
    b, g, r = frame[240, 320].astype(int)
    assert r > g > b and not np.array_equal(frame[240, 320], before[240, 320])
    assert np.array_equal(frame[5, 5], before[5, 5])
    with pytest.raises(ValueError):
        draw_hand(frame, (0, 0), size=-1)
