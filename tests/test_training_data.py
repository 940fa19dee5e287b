"""The training set's real-photo parts, on tiny folders written at test time (no torch needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.data import NONE, scene_negatives
from models.decks import Deck
from models.train import _channels, drawn_by, show_progress
from vision.classifier import CLASSES, CORNER_BOX, FACE_SHAPE, PATCH_SHAPE, extract_patch, rotate_180
from vision.render import PlacedCard, render_scene

_XML = """<annotation><size><width>{w}</width><height>{h}</height></size>
<object><name>ten</name><bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax><ymax>{y1}</ymax></bndbox></object>
</annotation>"""


def _write(folder: Path, name: str, frame: np.ndarray, box: tuple[int, int, int, int]) -> None:
    cv2.imwrite(str(folder / f"{name}.jpg"), frame)
    h, w = frame.shape[:2]
    (folder / f"{name}.xml").write_text(_XML.format(w=w, h=h, x0=box[0], y0=box[1], x1=box[2], y1=box[3]))


def test_scene_negatives_come_only_from_outside_the_boxes(tmp_path: Path) -> None:
    cards = [PlacedCard("TD", (200, 240), 10, 110), PlacedCard("4S", (470, 230), -20, 110)]
    frame, outlines = render_scene(cards, size=(640, 480), background="wood", noise=2)
    # Both cards boxed: nothing the detector proposes is a negative.
    x0, y0 = np.min(np.vstack(outlines), axis=0).astype(int)
    x1, y1 = np.max(np.vstack(outlines), axis=0).astype(int)
    _write(tmp_path, "boxed", frame, (x0, y0, x1, y1))
    assert len(scene_negatives(tmp_path, np.random.default_rng(0)).y) == 0
    # Only the first card boxed: the second one's corners are proposed, and come back as "none".
    (tmp_path / "boxed.xml").unlink()
    (tmp_path / "boxed.jpg").unlink()
    bx0, by0 = np.min(outlines[0], axis=0).astype(int)
    bx1, by1 = np.max(outlines[0], axis=0).astype(int)
    _write(tmp_path, "half", frame, (bx0, by0, bx1, by1))
    mined = scene_negatives(tmp_path, np.random.default_rng(0), per_image=500)
    assert len(mined.y) > 0 and set(mined.y.tolist()) == {NONE}
    assert mined.x.shape[1:] == PATCH_SHAPE + (3,) and mined.x.dtype == np.uint8


def test_channels_option_takes_four_positive_widths() -> None:
    assert _channels("24,48,96,128") == (24, 48, 96, 128)
    for bad in ("16,32,64", "16,32,64,0", "a,b,c,d", "16,32,64,96,128"):
        with pytest.raises(argparse.ArgumentTypeError):
            _channels(bad)


def test_textured_stock_multiplies_paper_and_ink() -> None:
    """Old paper, linen, a coloured board: the white turns the paper's (uneven) colour and the ink stays
    the darkest thing on the card, as printing on such stock does."""
    from models.data import textured

    face = np.full((350, 250, 3), 255, np.uint8)
    face[40:100, 20:60] = (20, 20, 200)      # red ink
    face[150:200, 100:150] = 0               # black ink
    for seed in range(20):
        out = textured(face, np.random.default_rng(seed))
        paper, red, black = out[250:340, 20:230], out[40:100, 20:60], out[150:200, 100:150]
        assert out.shape == face.shape and out.min() >= 0 and out.max() <= 255 * 1.2
        assert paper.mean() < 250 and paper.std() > 0.5           # tinted, and not flat
        assert black.mean() < 0.5 * paper.mean()
        assert red[..., 2].mean() > red[..., 0].mean()             # red ink stays red


def test_table_negatives_come_only_from_outside_the_face_up_cards() -> None:
    from models.data import off_cards, proposed_outside, table_negatives
    from vision.recognizer import Recognizer, _NoCards

    cards = [PlacedCard("TD", (200, 240), 10, 110), PlacedCard("4S", (470, 230), -20, 110)]
    # Wider than a card could fill, so no hypothesis stands on the picture's own corners.
    frame, outlines = render_scene(cards, size=(800, 400), background="wood", noise=2)
    rec = Recognizer(classifier=_NoCards())
    assert proposed_outside(rec, frame, off_cards(outlines)) == []
    # The second card not counted as a face: its corners come back, and nothing of the first card.
    found = proposed_outside(rec, frame, off_cards(outlines[:1]))
    assert found
    corners = np.array([(m @ (0.0, 0.0, 1.0))[:2] / (m @ (0.0, 0.0, 1.0))[2] for m in found])
    assert np.all(np.linalg.norm(corners - outlines[1].mean(axis=0), axis=1) < 250)
    mined = table_negatives(2, np.random.default_rng(0))
    assert len(mined.y) > 0 and set(mined.y.tolist()) == {NONE}
    assert mined.x.shape[1:] == PATCH_SHAPE + (3,) and mined.x.dtype == np.uint8


def _shipped_deck() -> Deck:
    """The renderer's own deck as a training deck (BGRA faces), so no Debian deck is needed."""
    from vision.render import _cell

    return Deck("shipped", {code: _cell(code).copy() for code in ("5H", "8S", "TS", "2D", "QC", "AH")},
                _cell("back").copy())


def test_a_box_on_a_readable_index_is_no_row_negative() -> None:
    """Two cards in a row, the second half over the first: both cards' top-left indices stay readable, the
    first one's bottom-right is covered; boxes there, or on the pips, are what is mined."""
    from models.data import CH, CW, card_homography, off_indices

    rng = np.random.default_rng(0)
    first = card_homography(rng, scale=0.5, angle=0, anchor=(CW / 2, CH / 2), at=(300, 300), tilt=0)
    second = card_homography(rng, scale=0.5, angle=0, anchor=(CW / 2, CH / 2), at=(300 + 0.5 * 0.5 * CW, 300), tilt=0)
    clear = off_indices([(first, True), (second, True)])

    def corner_box(m: np.ndarray, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
        x0, y0, x1, y1 = CORNER_BOX
        pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [(x0 + x1) / 2, (y0 + y1) / 2]], np.float64) + (dx, dy)
        q = np.c_[pts, np.ones(5)] @ m.T
        return q[:, :2] / q[:, 2:]

    assert not clear(corner_box(first)) and not clear(corner_box(second))
    assert not clear(corner_box(rotate_180(second)))            # the top card's far index
    assert not clear(corner_box(first, dx=30))                  # a box half on an index
    assert clear(corner_box(rotate_180(first)))                 # the first card's far index lies under the second
    assert clear(corner_box(second, dx=85, dy=120))             # the middle of the top card
    assert not off_indices([(first, True)])(corner_box(rotate_180(first)))


def test_row_negatives_are_none_patches_from_played_rows() -> None:
    from models.data import played_rows, row_negatives

    canvas, placed = played_rows(_shipped_deck(), np.random.default_rng(1))
    assert canvas.shape == (720, 1280, 3) and len(placed) >= 3
    mined = row_negatives([_shipped_deck()], 2, np.random.default_rng(0))
    assert len(mined.y) > 0 and set(mined.y.tolist()) == {NONE}
    assert mined.x.shape[1:] == PATCH_SHAPE + (3,) and mined.x.dtype == np.uint8


@pytest.mark.slow
def test_training_continues_from_the_shipped_model_widened() -> None:
    """A run started from ``cards.onnx`` reads exactly as the shipped model, at its own width or wider;
    a narrower network is refused.  (Needs the training extra: skipped without torch and onnx.)"""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.train import OUTPUT, build_net, freeze_norms, load_shipped, predict
    from vision.classifier import CardClassifier

    rng = np.random.default_rng(5)
    patches = rng.integers(0, 256, (12, *PATCH_SHAPE, 3), dtype=np.uint8)
    patches[:, 8:20, 4:14] = 20   # a dark blot, as an index gives, so that some classes stir
    shipped = CardClassifier(OUTPUT).classify(patches)
    for channels in ((16, 32, 64, 96), (16, 32, 96, 192)):
        net = build_net(channels)
        load_shipped(net, OUTPUT)
        assert np.abs(predict(net, patches) - shipped).max() < 1e-4
        net.train()
        freeze_norms(net)
        net.head.eval()   # dropout aside: training mode with frozen norms keeps the shipped function
        with torch.no_grad():
            assert np.abs(net(torch.from_numpy(patches).float()).numpy() - shipped).max() < 1e-4
    with pytest.raises(ValueError, match="does not fit"):
        load_shipped(build_net((16, 32, 64, 48)), OUTPUT)
    # The face reader too, its grid halved once more.
    from models.train import FACE_POOLS
    from vision.classifier import FaceReader

    faces = rng.integers(0, 256, (6, *FACE_SHAPE, 3), dtype=np.uint8)
    net = build_net((16, 32, 64, 128), FACE_SHAPE, pools=FACE_POOLS)
    load_shipped(net, FaceReader.default_path)
    assert np.abs(predict(net, faces) - FaceReader().classify(faces)).max() < 1e-4


_HELD = PlacedCard("7H", (330, 260), 25, 190)
"""A card held inside a 640x520 photo, turned (:func:`_card_photos`)."""


def _card_photos(folder: Path, labels: str) -> tuple[np.ndarray, np.ndarray]:
    """``held.png`` (:data:`_HELD` on dark wood) and ``whole.png`` (a KS filling the picture) written to
    ``folder`` with the given ``labels.csv`` lines; the two pictures."""
    held, _ = render_scene([_HELD], size=(640, 520), background="dark_wood")
    cv2.imwrite(str(folder / "held.png"), held)
    whole, _ = render_scene([PlacedCard("KS", (125, 175), 0, 250)], size=(250, 350), background="felt")
    cv2.imwrite(str(folder / "whole.png"), whole)
    (folder / "labels.csv").write_text("image,cards\n" + labels)
    return held, whole


def test_a_photo_of_a_card_inside_the_picture_is_cut_at_the_card(tmp_path: Path) -> None:
    """A card held in the picture is cut at its own corners; a photo that is all card is taken whole,
    and a find of another code is not trusted."""
    from models.data import CARD_CORNERS, found_inside, read_labelled, real_corners
    from vision.recognizer import Recognizer

    held, _ = _card_photos(tmp_path, "held.png,7H\nwhole.png,KS\n")
    items = read_labelled(tmp_path)
    inside = found_inside(items, Recognizer())
    assert set(inside) == {tmp_path / "held.png"}
    tl, _ = real_corners(items, None, inside=inside)
    expected = extract_patch(held, cv2.getPerspectiveTransform(CARD_CORNERS, _HELD.outline()))
    assert np.abs(tl.x[0].astype(int) - expected.astype(int)).mean() < 25
    # Labelled as another card, the held photo is taken whole.
    (tmp_path / "labels.csv").write_text("image,cards\nheld.png,7D\n")
    assert found_inside(read_labelled(tmp_path), Recognizer()) == {}


def test_a_cached_set_is_named_by_its_decks_and_by_the_code_that_draws_it(tmp_path: Path) -> None:
    """A set drawn by code since changed, or of other decks, is not reused: its name differs."""
    code = tmp_path / "draw.py"
    code.write_text("SPREAD = 1.0\n")
    tag = drawn_by(["plastic", "anglo"], code)
    assert len(tag) == 8 and tag == drawn_by(["anglo", "plastic"], code)
    assert tag != drawn_by(["anglo"], code)
    code.write_text("SPREAD = 2.0\n")
    assert tag != drawn_by(["plastic", "anglo"], code)


def test_the_photos_corners_are_drawn_in_shares_each_from_its_own_seed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drawn in two processes, the photos' corners are the same for the same seed (a rerun draws the
    set it drew before) and change with it; every photo gives both corners, ``copies`` times."""
    from models import train

    monkeypatch.setattr(train, "CACHE", tmp_path / "cache")
    (tmp_path / "train").mkdir()
    _card_photos(tmp_path / "train", "held.png,7H\nwhole.png,KS\n")
    draw = train._photos_and_mined.__wrapped__
    first, again, other = (draw(tmp_path, 2, tmp_path / "no-scenes", 0, 0, (), seed=s, workers=2) for s in (1, 1, 2))
    cards = first.y != NONE
    assert sorted(first.y[cards].tolist()) == sorted([CLASSES.index("7H"), CLASSES.index("KS")] * 4)
    assert np.array_equal(first.x, again.x) and np.array_equal(first.y, again.y)
    assert not np.array_equal(first.x[: len(other.x)], other.x[: len(first.x)])


def test_face_patches_are_whole_faces_either_way_up_or_none() -> None:
    """Synthetic faces: every face of every deck at the face reader's shape, labelled with its code
    unless covered; the negatives all ``none``."""
    from models.faces import FaceSynth

    deck = _shipped_deck()
    patches = FaceSynth([deck], seed=3).make(4, 10)
    assert patches.x.shape[1:] == FACE_SHAPE + (3,) and patches.x.dtype == np.uint8
    labels = [CLASSES[i] for i in patches.y.tolist()]
    assert labels[-10:] == ["none"] * 10
    assert set(labels[:-10]) <= set(deck.faces) | {"none"} and len(set(labels[:-10]) - {"none"}) == len(deck.faces)


def test_real_faces_are_the_whole_photo_or_the_card_found_inside(tmp_path: Path) -> None:
    from models.data import CARD_CORNERS, read_labelled
    from models.faces import real_faces
    from vision.classifier import extract_faces

    held, whole = _card_photos(tmp_path, "whole.png,KS\nheld.png,7H\n")
    items = read_labelled(tmp_path)
    card = cv2.getPerspectiveTransform(CARD_CORNERS, _HELD.outline())
    plain = real_faces(items, None, inside={tmp_path / "held.png": card})
    assert [CLASSES[i] for i in plain.y] == ["KS", "7H"]
    assert np.abs(plain.x[1].astype(int) - extract_faces(held, [card])[0].astype(int)).mean() < 1
    assert np.abs(plain.x[0].astype(int) - cv2.resize(whole, FACE_SHAPE[::-1], interpolation=cv2.INTER_AREA)
                  .astype(int)).mean() < 12
    varied = real_faces(items, np.random.default_rng(0), copies=3)
    assert len(varied.y) == 6 and varied.x.shape[1:] == FACE_SHAPE + (3,)


def test_whole_photos_of_tables_are_none_faces_unless_a_card_fills_them(tmp_path: Path) -> None:
    from models.faces import picture_negatives, rendered_tables

    table, _ = render_scene([PlacedCard("TD", (200, 240), 10, 110)], size=(640, 480), background="wood")
    _write(tmp_path, "table", table, (140, 160, 260, 320))
    close, _ = render_scene([PlacedCard("4S", (320, 240), 0, 300)], size=(640, 480), background="felt")
    _write(tmp_path, "close", close, (100, 20, 540, 460))
    negatives = picture_negatives(tmp_path, np.random.default_rng(0), copies=2)
    assert len(negatives.y) == 2 and set(negatives.y.tolist()) == {NONE}
    assert negatives.x.shape[1:] == FACE_SHAPE + (3,)
    tables = rendered_tables(3, np.random.default_rng(1))
    assert len(tables.y) == 3 and set(tables.y.tolist()) == {NONE}


def test_an_epochs_progress_bar_is_redrawn_every_twenty_steps_and_full_at_its_last(
        capsys: pytest.CaptureFixture[str]) -> None:
    for step in (0, 5, 20, 99):
        show_progress(2, 40, step, 100, 0.5, since=0.0)
    bars = capsys.readouterr().err.split("\r")[1:]
    assert [b.split("[")[1].split("]")[0].count("#") for b in bars] == [0, 6, 30]
    assert all(b.startswith("    epoch 3/40 [") and "loss 0.500" in b for b in bars)


def _make_train() -> list[tuple[str, list[str]]]:
    """The ``python -m`` runs of the Makefile's ``train`` recipe, in order: (module, its arguments)."""
    import shlex

    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text()
    names = dict(line.split(" := ", 1) for line in makefile.splitlines() if " := " in line)
    recipe = makefile.split("\ntrain:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    runs = []
    for line in recipe:
        for name, value in names.items():
            line = line.replace(f"$({name})", value)
        words = shlex.split(line)
        if "-m" in words:
            module = words[words.index("-m") + 1]
            runs.append((module, words[words.index("-m") + 2:]))
    return runs


def test_make_train_passes_only_options_the_trainers_take_and_trains_the_faces_first() -> None:
    """A mistyped option would stop ``make train`` an hour in; the face reader goes first so that
    both readers share one read of the photos' cut, under the shipped corner reader's digest."""
    from models import detector, train

    runs = _make_train()
    assert [m for m, _ in runs] == ["models.train", "models.chain", "models.detector", "models.detector"]
    faces = train.options().parse_args(runs[0][1])
    assert faces.reader == "faces"
    assert runs[1][1] == []
    for _, argv in runs[2:]:
        assert detector.options().parse_known_args(argv)[1] == [], argv


def test_every_stage_of_the_chain_parses_and_trains_on_from_the_last() -> None:
    from models import chain, train

    stages = []
    for i in range(len(chain.STAGES)):
        args, rest = train.options().parse_known_args(chain.stage_argv(i))
        assert rest == [], (i, rest)
        stages.append(args)
    assert all(a.reader == "corners" for a in stages)
    assert stages[0].init is None and all(a.init == train.CACHE / "last-corners.pt" for a in stages[1:])


def test_the_chain_refuses_a_stage_it_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    from models import chain

    with pytest.raises(SystemExit) as stop:
        chain.main(["--from-stage", str(len(chain.STAGES) + 1)])
    assert stop.value.code == 2 and "--from-stage must be 1 to" in capsys.readouterr().err


def test_the_model_cards_stages_are_the_chains() -> None:
    """The model card's table of the corner reader's stages says what ``models.chain`` runs."""
    from models import chain

    card = (Path(__file__).resolve().parent.parent / "models" / "MODEL_CARD.md").read_text()
    table = card.split("| stage | options | its data |\n", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    assert [row.split("`")[1] for row in table] == list(chain.STAGES)
