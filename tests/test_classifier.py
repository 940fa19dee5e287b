"""The shipped card models (corner and face readers), read through extract_patch on frames drawn by vision.render."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules.cards import ALL_CODES
from vision.classifier import (
    CARD_SIZE,
    CLASSES,
    FACE_BOX,
    FACE_SHAPE,
    PATCH_SHAPE,
    CardClassifier,
    FaceReader,
    ModelError,
    PatchError,
    corner_to_card,
    extract_faces,
    extract_patch,
    extract_patches,
    rotate_180,
)
from vision.render import PlacedCard, render_scene, table_background

CARD_CORNERS = np.array([[0, 0], [CARD_SIZE[0], 0], [CARD_SIZE[0], CARD_SIZE[1]], [0, CARD_SIZE[1]]],
                        np.float32)
NONE = CLASSES.index("none")


@pytest.fixture(scope="module")
def model() -> CardClassifier:
    return CardClassifier()


def homography(outline: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(CARD_CORNERS, outline.astype(np.float32))


def _grid_scene(codes: list[str], *, seed: int, width: float, style: str) -> tuple[np.ndarray, list]:
    """All ``codes`` laid out in rows at random small turns, as the camera might see them."""
    rng = np.random.default_rng(seed)
    cols = 9
    rows = -(-len(codes) // cols)
    size = (int(width * (1.3 * cols + 0.6)), int(width * (1.75 * rows + 0.6)))
    cards = [PlacedCard(code, (width * 0.8 + (i % cols) * width * 1.3, width * 1.0 + (i // cols) * width * 1.75),
                        float(rng.uniform(-25, 25)), width) for i, code in enumerate(codes)]
    return render_scene(cards, size=size, background=style, seed=seed, noise=2.0, blur=0.5)


@pytest.mark.parametrize("width,style", [(110, "wood"), (160, "felt")])
def test_reads_every_card_from_a_rendered_table(model, width, style):
    frame, outlines = _grid_scene(list(ALL_CODES), seed=width, width=width, style=style)
    tl = np.stack([extract_patch(frame, homography(o)) for o in outlines])
    br = np.stack([extract_patch(frame, rotate_180(homography(o))) for o in outlines])
    p_tl, p_br = model.classify(tl), model.classify(br)
    assert p_tl.shape == (53, len(CLASSES)) and p_tl.dtype == np.float32
    np.testing.assert_allclose(p_tl.sum(axis=1), 1.0, atol=1e-4)
    expected = np.arange(53)
    both = np.log(p_tl[:, :53] + 1e-6) + np.log(p_br[:, :53] + 1e-6)
    assert (both.argmax(1) == expected).mean() == 1.0
    # Each corner alone, upright and turned half round, is nearly always right too.
    assert (p_tl.argmax(1) == expected).mean() >= 0.94
    assert (p_br.argmax(1) == expected).mean() >= 0.94


def test_card_turned_upside_down_reads_through_the_turned_homography(model):
    frame, (outline,) = render_scene([PlacedCard("9H", (300, 260), 180, 140)], size=(640, 520), seed=3)
    h = homography(outline)
    probs = model.classify(np.stack([extract_patch(frame, h), extract_patch(frame, rotate_180(h))]))
    assert [CLASSES[i] for i in probs.argmax(1)] == ["9H", "9H"]


def test_bare_table_and_card_back_are_none(model):
    patches = []
    for style in ("wood", "felt", "dark_wood"):
        frame = table_background((640, 480), style=style, seed=7)
        patches.append(extract_patch(frame, np.array([[0.5, 0, 200], [0, 0.5, 150], [0, 0, 1.0]])))
    frame, (outline,) = render_scene([PlacedCard("AS", (320, 240), 10, 130, face_up=False)], size=(640, 480))
    patches.append(extract_patch(frame, homography(outline)))
    probs = model.classify(np.stack(patches))
    assert (probs.argmax(1) == NONE).all(), probs.max(1)


def test_empty_batch(model):
    out = model.classify(np.zeros((0,) + PATCH_SHAPE + (3,), np.uint8))
    assert out.shape == (0, len(CLASSES))


def test_wrong_patches_are_refused(model):
    with pytest.raises(PatchError):
        model.classify(np.zeros((2, 10, 10, 3), np.uint8))
    with pytest.raises(PatchError):
        model.classify(np.zeros((1,) + PATCH_SHAPE + (3,), np.float32))


def test_missing_and_corrupt_model_files(tmp_path: Path):
    with pytest.raises(ModelError, match="no card model"):
        CardClassifier(tmp_path / "absent.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07not really a protobuf" * 10)
    with pytest.raises(ModelError, match="cannot load"):
        CardClassifier(bad)
    assert issubclass(ModelError, ValueError)


def test_extract_patch_geometry():
    # A frame whose left half is black and right half white; a card whose corner box straddles them.
    frame = np.zeros((400, 400, 3), np.uint8)
    frame[:, 200:] = 255
    # 1 px per card unit, card's left edge at x=160: the corner box (80 units) spans x 160..240.
    h = np.array([[1.0, 0, 160], [0, 1.0, 50], [0, 0, 1]])
    patch = extract_patch(frame, h)
    assert patch.shape == PATCH_SHAPE + (3,) and patch.dtype == np.uint8
    w = PATCH_SHAPE[1]
    assert patch[:, : w // 2 - 1].max() < 30 and patch[:, w // 2 + 1:].min() > 225


def test_extract_patches_is_extract_patch_for_many():
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    small = [np.array([[0.3, 0.1, 120], [-0.1, 0.3, 80], [0, 0, 1.0]]),
             rotate_180(np.array([[0.35, 0, 200], [0, 0.35, 60], [1e-4, 0, 1.0]]))]
    big = np.array([[2.0, 0, -20], [0, 2.0, -30], [0, 0, 1.0]])   # drawn large: sampled finely, then averaged
    patches = extract_patches(frame, small + [big])
    assert patches.shape == (3,) + PATCH_SHAPE + (3,) and patches.dtype == np.uint8
    h, w = PATCH_SHAPE
    for m, patch in zip(small, patches):   # a plain warp of the corner box, pixel for pixel
        expected = cv2.warpPerspective(frame, m @ corner_to_card(), (w, h),
                                       flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        assert np.array_equal(patch, expected)
    assert np.array_equal(patches[2], extract_patch(frame, big))
    assert not np.array_equal(patches[2], cv2.warpPerspective(frame, big @ corner_to_card(), (w, h),
                                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP))
    assert extract_patches(frame, []).shape == (0,) + PATCH_SHAPE + (3,)


def test_extract_patches_names_the_bad_homography():
    frame = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(PatchError, match="card_to_frame 1 is singular"):
        extract_patches(frame, [np.eye(3), np.zeros((3, 3))])
    with pytest.raises(PatchError, match="card_to_frame 2 is not finite"):
        extract_patches(frame, [np.eye(3), np.eye(3), np.full((3, 3), np.inf)])
    with pytest.raises(PatchError, match="3x3"):
        extract_patches(frame, [np.eye(3), np.eye(4)])


def test_extract_patch_refuses_bad_input():
    frame = np.zeros((100, 100, 3), np.uint8)
    with pytest.raises(PatchError):
        extract_patch(frame, np.zeros((3, 3)))
    with pytest.raises(PatchError):
        extract_patch(frame, np.eye(2))
    with pytest.raises(PatchError):
        extract_patch(np.zeros((100, 100), np.uint8), np.eye(3))
    with pytest.raises(PatchError):
        extract_patch(frame.astype(np.float32), np.eye(3))


@pytest.fixture(scope="module")
def faces() -> FaceReader:
    return FaceReader()


def test_the_face_reader_reads_whole_faces_either_way_up(faces):
    """The shipped face reader names rendered cards from their whole face, upright or turned half round,
    and calls a bare table and a card's back ``none``."""
    frame, outlines = _grid_scene(list(ALL_CODES[:52]), seed=4, width=130, style="felt")
    mats = [homography(o) for o in outlines]
    upright = faces.classify(extract_faces(frame, mats))
    turned = faces.classify(extract_faces(frame, [rotate_180(m) for m in mats]))
    assert upright.shape == (52, len(CLASSES))
    expected = np.arange(52)
    assert (upright.argmax(1) == expected).mean() >= 0.9 and (turned.argmax(1) == expected).mean() >= 0.9
    bare = table_background((640, 480), style="wood", seed=7)
    back, (outline,) = render_scene([PlacedCard("AS", (320, 240), 10, 200, face_up=False)], size=(640, 480))
    probs = faces.classify(np.stack([extract_faces(bare, [np.array([[1.0, 0, 150], [0, 1.0, 50], [0, 0, 1]])])[0],
                                     extract_faces(back, [homography(outline)])[0]]))
    assert (probs.argmax(1) == NONE).all(), probs.max(1)


def test_each_reader_takes_only_its_own_patches(faces):
    """The corner model is no face reader, nor the face model a corner reader: their input shapes differ."""
    with pytest.raises(ModelError, match="takes input"):
        FaceReader(CardClassifier.default_path)
    with pytest.raises(ModelError, match="takes input"):
        CardClassifier(FaceReader.default_path)
    with pytest.raises(PatchError, match=rf"\(N, {FACE_SHAPE[0]}, {FACE_SHAPE[1]}, 3\)"):
        faces.classify(np.zeros((1,) + PATCH_SHAPE + (3,), np.uint8))
    assert repr(faces).startswith("FaceReader(")


def test_extract_patches_cuts_any_box_of_the_card():
    """The face box is the whole card: a card drawn at the face patch's own scale fills it exactly."""
    h, w = FACE_SHAPE
    k = w / CARD_SIZE[0]                             # patch px per card unit
    frame = np.zeros((200, 200, 3), np.uint8)
    frame[20:20 + h, 30:30 + w] = 255                # the card, w x h px from (30, 20)
    card = np.array([[k, 0, 30 - 0.5 + 0.1], [0, k, 20 - 0.5 + 0.1], [0, 0, 1.0]])
    patch = extract_patches(frame, [card], box=FACE_BOX, shape=FACE_SHAPE)[0]
    assert patch.shape == FACE_SHAPE + (3,) and patch.min() > 200
    frame[20:20 + h, 30:30 + w // 2] = 0             # its left half dark: so is the patch's
    patch = extract_patches(frame, [card], box=FACE_BOX, shape=FACE_SHAPE)[0]
    assert patch[:, :w // 2 - 1].max() < 30 and patch[:, w // 2 + 1:].min() > 200
    assert np.allclose(corner_to_card(FACE_BOX, FACE_SHAPE) @ [0, 0, 1], [0.5 / k, 0.5 / k, 1])
