"""``scripts/eval_conditions.py`` on a tiny labelled folder of rendered tables, through the shipped model."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classifier import DEFAULT_MODEL
from vision.recognizer import Recognizer
from vision.render import PlacedCard, render_scene

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import eval_conditions

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no trained model (models/cards-int8.onnx)")

TABLES = {"a.png": ["AS", "KH", "7C"], "b.png": ["QD", "2S", "9H"]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for k, (name, codes) in enumerate(TABLES.items()):
        cards = [PlacedCard(code, (300 + 330 * i, 300 + 60 * i), 20 * i - 15, 110) for i, code in enumerate(codes)]
        frame, _ = render_scene(cards, background="felt", seed=k, noise=2)
        assert cv2.imwrite(str(tmp_path / name), frame)
    (tmp_path / "labels.csv").write_text("image,cards\n" + "".join(f"{n},{' '.join(c)}\n" for n, c in TABLES.items()))
    return tmp_path


def test_each_condition_is_measured(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert eval_conditions.main([str(folder), "--only", "as taken,dim,portrait", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert list(results) == ["as taken", "dim", "portrait"]
    for figures in results.values():
        assert figures["images"] == 2 and figures["cards"] == 6
        assert figures["recall"] >= 5 / 6 and figures["precision"] >= 5 / 6


def test_the_recogniser_is_built_from_companion_evals_options(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``--no-geometry`` measures the detector alone, as ``companion eval --no-geometry`` does."""
    built: list[Recognizer] = []
    real = eval_conditions.make_recognizer

    def make(args: argparse.Namespace) -> Recognizer:
        built.append(real(args))
        return built[-1]

    monkeypatch.setattr(eval_conditions, "make_recognizer", make)
    assert eval_conditions.main([str(folder), "--only", "dim", "--no-geometry", "--json"]) == 0
    assert [r.geometry for r in built] == [False]
    assert json.loads(capsys.readouterr().out)["dim"]["recall"] >= 5 / 6
    assert eval_conditions.main([str(folder), "--no-geometry", "--no-detector"]) == 2
    assert "leave nothing to find the cards" in capsys.readouterr().err


def test_an_unknown_condition_or_folder_is_refused(folder: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        eval_conditions.main([str(folder), "--only", "fog"])
    assert exit_.value.code == 2 and "unknown condition(s) fog" in capsys.readouterr().err
    assert eval_conditions.main([str(tmp_path / "absent")]) == 2
    assert "eval_conditions:" in capsys.readouterr().err


def test_the_lamp_lights_one_side_and_leaves_the_far_corner_about_half() -> None:
    white = np.full((720, 1280, 3), 250, np.uint8)
    lit = eval_conditions.CONDITIONS["lamp"](white)
    assert lit[144, 384].min() == 250                       # below the lamp, at (0.3, 0.2) of the frame
    assert 0.45 * 250 < lit[719, 1279].max() < 0.55 * 250  # the far corner
    assert lit[144, 384, 0] > lit[360, 640, 0] > lit[719, 1279, 0]


def test_far_keeps_the_frame_and_shrinks_the_table_into_its_middle() -> None:
    """A card 80 px wide in a 1280-px frame is 60 px wide seen ``far``, in the same frame's middle."""
    frame = np.full((720, 1280, 3), 90, np.uint8)
    frame[320:400, 600:680] = 255                       # a white square in the middle ...
    frame[:40, :40] = 255                               # ... and one at the corner, where the room is now
    seen = eval_conditions.CONDITIONS["far"](frame)
    assert seen.shape == frame.shape
    white = np.argwhere(seen[200:520, 400:880, 0] > 200) + (200, 400)
    (y0, x0), (y1, x1) = white.min(axis=0), white.max(axis=0)
    assert (x1 - x0 + 1, y1 - y0 + 1) == (60, 60) and abs((x0 + x1) / 2 - 639.5) <= 1
    assert seen[:40, :40].max() < 200                   # out of focus: no card left at the picture's edge
    assert seen[95:115, 165:185].min() > 200            # the corner's square, shrunk onto the table's corner


def test_small_is_a_webcams_picture_of_a_whole_table() -> None:
    """A 3000x2000 photo's 210-px card is 44 to 45 px wide ``small``, in a 640x427 picture; a picture that
    small already is left as it is."""
    frame = np.full((2000, 3000, 3), 90, np.uint8)
    frame[900:1110, 1400:1610] = 255
    seen = eval_conditions.CONDITIONS["small"](frame)
    assert seen.shape == (427, 640, 3)
    assert 44 <= int((seen[213] > 170).all(axis=1).sum()) <= 45
    webcam = np.full((480, 640, 3), 90, np.uint8)
    assert eval_conditions.CONDITIONS["small"](webcam) is webcam


def test_night_is_dark_grainy_and_the_same_each_time() -> None:
    """A white card at 30 % of the light, grainy, at the live frame's size; the same grain every run, so
    that two recognisers are compared on the same pictures."""
    frame = np.full((2000, 3000, 3), 240, np.uint8)
    seen = eval_conditions.CONDITIONS["night"](frame)
    assert seen.shape == (853, 1280, 3)
    assert 66 < seen.mean() < 78 and 1.5 < seen.std() < 6        # the JPEG keeps some of the grain
    assert np.array_equal(seen, eval_conditions.CONDITIONS["night"](frame))


def test_desk_whitens_the_tables_own_colour_and_leaves_the_cards_print() -> None:
    """A card with a red pip and black ink on a yellowish-brown table: the table turns a neutral white
    just short of the card's, and the card keeps its white, its pip's red and its ink."""
    frame = np.zeros((400, 600, 3), np.uint8)
    frame[:] = (150, 185, 210)                         # BGR: a light wooden table
    frame[100:300, 200:340] = 250                      # the card
    frame[150:170, 220:240] = (40, 40, 200)            # a red pip
    frame[120:135, 300:310] = 20                       # black ink
    seen = eval_conditions.CONDITIONS["desk"](frame)
    table, card = seen[20, 20].astype(int), seen[200, 270].astype(int)
    assert table.max() - table.min() <= 3               # neutral
    assert 0.93 * 250 < table.mean() < 250 and card.min() >= 245
    assert seen[160, 230, 2] > 150 and seen[160, 230, 0] < 90   # still red
    assert seen[127, 305].max() < 40                   # still ink


def test_bright_clips_the_cards_white_and_thins_the_print() -> None:
    """A third of a stop more light: a light wooden table's red clips, the card's white stays white,
    and an index stroke's grey edge pales while its black core stays black."""
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[:] = (150, 185, 210)                         # BGR: a light wooden table
    frame[40:60, 40:60] = 240                          # the card
    frame[50, 45:48] = 180                             # a stroke: black core between grey edges
    frame[50, 46] = 0
    seen = eval_conditions.CONDITIONS["bright"](frame).astype(int)
    assert abs(seen[10, 10] - [189, 233, 255]).max() <= 1 and seen[45, 45].min() == 255
    assert seen[50, 46].max() == 0 and 226 <= seen[50, 45].min() <= seen[50, 45].max() <= 227


def test_motion_smears_along_the_rows_only() -> None:
    """A thin black bar on white, 3000 px wide: smeared over 12 px across it, untouched along it."""
    frame = np.full((200, 3000, 3), 250, np.uint8)
    frame[:, 1500:1502] = 0                              # a vertical bar ...
    frame[100:102, :] = 0                                # ... and a horizontal one
    seen = eval_conditions.CONDITIONS["motion"](frame)
    row = seen[50, 1480:1520, 0].astype(int)
    assert np.count_nonzero(row < 245) in (12, 13, 14) and row.min() > 180
    assert seen[100, 200:400].max() == 0 and seen[95, 200:400].min() == 250


def test_glare_lights_two_spots_and_leaves_the_rest() -> None:
    frame = np.full((600, 1000, 3), 100, np.uint8)
    seen = eval_conditions.CONDITIONS["glare"](frame).astype(int)
    assert seen[228, 420].min() >= 218 and seen[390, 700].min() >= 218    # 120 levels at each spot's middle
    assert seen[0, 0].max() == 100 and seen[590, 10].max() == 100


def test_shadow_darkens_a_band_from_the_near_edge_to_the_middle() -> None:
    frame = np.full((400, 600, 3), 200, np.uint8)
    seen = eval_conditions.CONDITIONS["shadow"](frame).astype(int)
    assert seen[380, 300].max() == 90                    # the arm: 45 % of the light
    assert seen[380, 50].min() == 200 and seen[50, 300].min() == 200


def test_lens_bows_a_straight_edge_most_at_the_corners() -> None:
    """A white frame's straight top edge, bent by the lens: drawn towards the middle, most at the corners."""
    frame = np.zeros((480, 640, 3), np.uint8)
    frame[40:440, 40:600] = 255
    seen = eval_conditions.CONDITIONS["lens"](frame)
    assert seen.shape == frame.shape

    def top(x: int) -> int:
        return int(np.argmax(seen[:, x, 0] > 127))

    assert 40 < top(320) < top(200) < top(60) and top(60) - top(320) >= 6
    assert abs(top(580) - top(60)) <= 1                 # alike on both sides
