"""``scripts/eval_synthetic.py``: what a synthetic table asks the recogniser to find.

Drawn from the demo's own card sheet, so no Debian deck is needed here."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from models.data import FacePyramid
from models.decks import Deck
from models.scenes import SceneSynth, corner_pose
from vision.classifier import CardClassifier
from vision.detector import CardCorner
from vision.render import card_back, card_face

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import eval_synthetic
from reader_helpers import Reads

CODES = ("AS", "7H", "QD", "TC", "2S", "9D", "KC", "5H")


def _pyramids() -> dict[str, FacePyramid]:
    return {c: FacePyramid(np.dstack([card_face(c), np.full(card_face(c).shape[:2], 255, np.uint8)])) for c in CODES}


def test_a_table_deals_a_deck_without_repeats_and_asks_only_for_cards_whose_index_shows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_synthetic, "SIZES", (((640, 480), 0.5), ((960, 540), 0.5)))
    faces = _pyramids()
    back_bgr = card_back()
    back = FacePyramid(np.dstack([back_bgr, np.full(back_bgr.shape[:2], 255, np.uint8)]))
    synth = SceneSynth([Deck("demo", {}, None)], seed=4)
    sizes = {size for size, _ in eval_synthetic.SIZES}
    wanted_any = 0
    for _ in range(8):
        table = eval_synthetic.draw_table(synth, faces, back)
        height, width = table.frame.shape[:2]
        assert (width, height) in sizes and table.frame.dtype == np.uint8
        dealt = [c for c, _ in table.wanted] + table.optional
        assert len(dealt) == len(set(dealt)) and set(dealt) <= set(CODES)
        assert all(0.0 < shows <= 1.01 for _, shows in table.wanted)
        wanted_any += len(table.wanted)
    assert wanted_any > 0


def test_a_card_off_the_frame_is_not_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table drawn square and cut to the frame: a card laid wholly in the part cut away is neither
    wanted nor optional."""
    faces = _pyramids()
    synth = SceneSynth([Deck("demo", {}, None)], seed=1)
    monkeypatch.setattr(eval_synthetic, "SIZES", (((640, 480), 1.0),))
    far = np.array([[0.4, 0.0, 300.0], [0.0, 0.4, 560.0], [0.0, 0.0, 1.0]])   # below row 480 of a 640 square
    near = np.array([[0.4, 0.0, 300.0], [0.0, 0.4, 100.0], [0.0, 0.0, 1.0]])
    monkeypatch.setattr(synth, "_layout", lambda n, w: [near, far])
    monkeypatch.setattr(synth, "_camera", lambda n: np.eye(3))
    table = eval_synthetic.draw_table(synth, faces, None)
    assert table.frame.shape == (480, 640, 3)
    assert len(table.wanted) == 1 and not table.optional


class _AtTheCorners:
    """A detector that finds every index corner of ``table`` where it lies, turned ``turn`` degrees."""

    def __init__(self, table: eval_synthetic.Table, turn: float) -> None:
        poses = [corner_pose(to_frame) for _, to_frame in table.corners]
        self.corners = [CardCorner(x, y, angle + math.radians(turn), width, 0.9) for x, y, angle, width in poses]

    def find(self, frame_bgr: np.ndarray, **_: object) -> list[CardCorner]:
        return self.corners


def test_corner_reads_tally_each_shown_index_corner_and_the_detectors_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_synthetic, "SIZES", (((960, 720), 1.0),))
    synth = SceneSynth([Deck("demo", {}, None)], seed=4)
    tables = [eval_synthetic.draw_table(synth, _pyramids(), None) for _ in range(4)]
    tables = [t for t in tables if t.corners]
    shown = sum(len(t.corners) for t in tables)
    assert shown >= 4 and all(code in [c for c, _ in t.wanted] for t in tables for code, _ in t.corners)
    reader = CardClassifier()

    straight, turned = eval_synthetic.CornerReads(), eval_synthetic.CornerReads()
    for table in tables:
        straight.add(table, _AtTheCorners(table, 0.0), reader)
        turned.add(table, _AtTheCorners(table, 15.0), reader)
    assert turned.shown == turned.found == shown
    assert np.allclose(turned.turn_off, 15.0)
    # The demo deck's indices read right at their own corners; 15 degrees off, fewer of them, and all
    # of those again once turned back to the true angle.
    assert straight.at_detector == straight.at_true_angle >= 0.8 * shown
    assert turned.at_detector < turned.at_true_angle == straight.at_true_angle
    assert turned.at_true_outline == straight.at_true_outline >= 0.8 * shown
    # A tenth narrower or wider, the true outline's reads do not hang on the detector either.
    assert turned.at_width_off == straight.at_width_off and len(straight.at_width_off) == 2
    assert all(0 < n <= shown for n in straight.at_width_off)

    missed = eval_synthetic.CornerReads()
    for table in tables:
        missed.add(table, _AtTheCorners(table, 30.0), reader)   # turned beyond ALIKE: not that corner
    assert (missed.shown, missed.found, missed.turn_off) == (shown, 0, [])
    assert missed.at_true_outline == turned.at_true_outline
    assert "index corners shown" in "\n".join(turned.report()) and "+15.0" in turned.report()[-1]
    assert any("1.1 times as wide" in line for line in turned.report())


def test_a_missed_card_counts_as_read_at_its_outline_only_where_its_own_code_is_read_surely(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eval_synthetic, "SIZES", (((960, 720), 1.0),))
    synth = SceneSynth([Deck("demo", {}, None)], seed=4)
    table = next(t for t in (eval_synthetic.draw_table(synth, _pyramids(), None) for _ in range(8)) if t.corners)
    codes = sorted({code for code, _ in table.corners})
    one = codes[0]
    assert eval_synthetic.read_at_outlines(table, codes, CardClassifier(), 0.6) >= 0.8 * len(codes)
    assert eval_synthetic.read_at_outlines(table, codes, Reads(one, 0.7), 0.6) == 1
    assert eval_synthetic.read_at_outlines(table, codes, Reads(one, 0.5), 0.6) == 0
    assert eval_synthetic.read_at_outlines(table, codes[1:], Reads(one, 0.9), 0.6) == 0
    assert eval_synthetic.read_at_outlines(table, [], CardClassifier(), 0.6) == 0


@pytest.mark.parametrize("decks, faces", [("held-out", False), ("face-only", True)])
def test_the_decks_dealt_are_chosen_by_name(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                            decks: str, faces: bool) -> None:
    """``--decks face-only`` asks for the decks only the face reader learned; none installed is an error."""
    asked: list[bool] = []

    def load_all(*, verbose: bool = True, faces: bool = False) -> list[Deck]:
        asked.append(faces)
        return [Deck("some-other-deck", {}, None)]

    monkeypatch.setattr(eval_synthetic, "load_all", load_all)
    assert eval_synthetic.main(["--decks", decks]) == 2
    assert asked == [faces]
    assert f"no {decks} deck is installed" in capsys.readouterr().err
