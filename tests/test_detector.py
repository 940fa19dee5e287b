"""The card-corner detector: its geometry, its decoding, its model file, and the recogniser reading
what it finds.  The shipped network itself is measured by ``companion eval`` (models/MODEL_CARD.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision import _detect
from vision.classifier import CARD_SIZE, CLASSES, ModelError
from vision.detector import CARD_PX, DEFAULT_DETECTOR, MAPS, STRIDE, WIDTH_UNIT, CardCorner, CardDetector, decode, paired, sized_alike
from vision.recognizer import Recognizer, _NoCards
from vision.render import PlacedCard, render_scene, table_background


def test_a_corner_is_a_cards_top_left_turned_and_sized() -> None:
    corner = CardCorner(300.0, 200.0, math.radians(30), 125.0, 0.9)
    m = corner.card_to_frame()
    p = m @ np.array([0.0, 0.0, 1.0])
    assert np.allclose(p[:2], (300.0, 200.0))
    along = m @ np.array([CARD_SIZE[0], 0.0, 1.0]) - p
    assert math.isclose(math.hypot(along[0], along[1]), 125.0)
    assert math.isclose(math.atan2(along[1], along[0]), math.radians(30))


def test_decode_joins_the_cells_that_vote_alike_and_parts_those_that_do_not() -> None:
    maps = np.zeros((7, 12, 12), np.float32)
    maps[5] = math.log(64 / WIDTH_UNIT)          # cards 64 px wide: 16 cells
    maps[3] = 1.0                                # upright
    maps[0, 2, 2], maps[0, 2, 3] = 0.8, 0.6      # two cells of one index, both voting for cell (2.5, 2)
    maps[1, 2, 2], maps[1, 2, 3] = 0.5, -0.5
    maps[0, 7, 7], maps[0, 7, 8] = 0.5, 0.7      # two cells side by side voting 4 cells apart: a tight row
    maps[1, 7, 7], maps[1, 7, 8] = -2.0, 2.0
    maps[0, 10, 0] = 0.2                         # below the threshold
    found = decode(maps, threshold=0.3)
    assert [round(c.score, 2) for c in found] == [0.8, 0.7, 0.5]
    first = found[0]
    assert math.isclose(first.x, (2.5 + 0.5) * STRIDE - 0.5) and math.isclose(first.y, (2 + 0.5) * STRIDE - 0.5)
    assert math.isclose(first.angle, 0.0, abs_tol=1e-6) and math.isclose(first.width, 64.0, rel_tol=1e-5)
    assert sorted(round(c.x) for c in found[1:]) == [round((5 + 0.5) * STRIDE - 0.5), round((10 + 0.5) * STRIDE - 0.5)]
    maps[4, 7, 8], maps[3, 7, 8] = 1.0, 0.0      # the same place, turned a quarter: another card
    maps[1, 7, 8] = -2.0
    assert len(decode(maps, threshold=0.3)) == 3


def test_decode_finds_each_corner_once_however_many_votes_a_frame_holds() -> None:
    """A frame of 120 corners, two cells each, the surer cells first: several blocks of votes, and each
    corner's second cell is claimed by its first however far apart the two fall in the order."""
    maps = np.zeros((7, 40, 60), np.float32)
    maps[5] = math.log(64 / WIDTH_UNIT)
    maps[3] = 1.0
    spots = [(gy, gx) for gy in range(2, 40, 4) for gx in range(2, 60, 5)]
    for k, (gy, gx) in enumerate(spots):
        maps[0, gy, gx], maps[0, gy, gx + 1] = 0.99 - k * 0.001, 0.6 - k * 0.001
        maps[1, gy, gx], maps[1, gy, gx + 1] = 0.5, -0.5
    found = decode(maps, threshold=0.3)
    assert len(found) == len(spots) == 120         # 240 votes: four blocks
    assert sorted((round(c.y, 3), round(c.x, 3)) for c in found) == sorted(
        ((gy + 0.5) * STRIDE - 0.5, (gx + 1) * STRIDE - 0.5) for gy, gx in spots)   # both cells vote gx + 0.5


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_corner_found_at_any_size_lies_where_the_card_lies() -> None:
    """The same card, in a frame the detector shrinks and in one it enlarges: its corner comes back in
    the frame's own pixels, to within a few."""
    card = PlacedCard("7S", (640, 360), 0, 120)
    frame, _ = render_scene([card], size=(1280, 720), background="felt")
    x, y = card.outline()[0]
    for seen in (frame, cv2.resize(frame, (426, 240), interpolation=cv2.INTER_AREA)):
        k = frame.shape[1] / seen.shape[1]
        found = CardDetector().find(seen)
        assert min(math.hypot(c.x * k - x, c.y * k - y) for c in found) < 0.1 * card.width_px


def test_a_missing_or_broken_model_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"absent\.onnx"):
        CardDetector(tmp_path / "absent.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(ModelError, match=r"broken\.onnx"):
        CardDetector(broken)
    with pytest.raises(ValueError, match="size"):
        CardDetector(DEFAULT_DETECTOR, size=10)
    with pytest.raises(ValueError, match="max_size"):
        CardDetector(DEFAULT_DETECTOR, size=640, max_size=320)
    with pytest.raises(ValueError, match="index"):
        CardDetector(DEFAULT_DETECTOR, index=1.0)


def test_a_detector_of_another_version_is_refused_by_its_maps(tmp_path: Path) -> None:
    """A model giving six maps (no index map) is a clear error on loading, not a crash on the first frame."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(   # the frame's three planes twice over, as six maps
        [helper.make_node("Concat", ["frame", "frame"], ["maps"], axis=1)],
        "six", [helper.make_tensor_value_info("frame", TensorProto.FLOAT, [1, 3, "h", "w"])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 6, "h", "w"])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "six.onnx"))
    with pytest.raises(ModelError, match="6 maps, not 7"):
        CardDetector(tmp_path / "six.onnx")


def test_a_detector_that_takes_the_frame_pixel_by_pixel_is_refused(tmp_path: Path) -> None:
    """A model of seven maps that takes the frame as height x width x 3 (as earlier versions did) is
    refused on loading: fed the planes, it would read every frame as noise."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(   # seven maps from a frame given pixel by pixel
        [helper.make_node("Concat", ["frame", "frame", "frame"], ["nine"], axis=3),
         helper.make_node("Slice", ["nine", "start", "end", "axis"], ["seven"]),
         helper.make_node("Transpose", ["seven"], ["maps"], perm=[0, 3, 1, 2])],
        "pixels", [helper.make_tensor_value_info("frame", TensorProto.FLOAT, [1, "h", "w", 3])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 7, "h", "w"])],
        [helper.make_tensor("start", TensorProto.INT64, [1], [0]), helper.make_tensor("end", TensorProto.INT64, [1], [7]),
         helper.make_tensor("axis", TensorProto.INT64, [1], [3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "pixels.onnx"))
    with pytest.raises(ModelError, match="not as its three planes"):
        CardDetector(tmp_path / "pixels.onnx")


def test_a_corner_is_measured_again_by_its_cards_next_corner() -> None:
    """Along its edge a card's width away (a top-left and its top-right), or down its other edge a
    height away (a top-left and its bottom-left): the pair gives the turn and the width, kept before
    the corner's own look (of alike corners, a screen that keeps one keeps the first)."""
    height = 80 * CARD_SIZE[1] / CARD_SIZE[0]
    askew = CardCorner(100.0, 100.0, 0.4, 64.0, 0.9)              # an upright card 80 px wide, seen askew
    for partner, measured_width in ((CardCorner(180.0, 100.0, math.pi / 2, 80.0, 0.8), 80.0),
                                    (CardCorner(100.0, 100.0 + height, -math.pi / 2, 80.0, 0.8), 80.0)):
        out = paired([askew, partner])
        assert out[1] == askew
        assert math.isclose(out[0].angle, 0.0, abs_tol=1e-9) and math.isclose(out[0].width, measured_width)
        assert (out[0].x, out[0].y, out[0].score) == (askew.x, askew.y, askew.score)


def test_a_neighbour_in_a_row_or_a_corner_out_of_reach_is_no_partner() -> None:
    """The next card's top-left in a row is turned as this one is; a top-right three widths away, or
    one that says it was reached from elsewhere, belongs to another card."""
    corner = CardCorner(100.0, 100.0, 0.0, 80.0, 0.9)
    for other in (CardCorner(130.0, 100.0, 0.0, 80.0, 0.9),                       # the next card in a row
                  CardCorner(340.0, 100.0, math.pi / 2, 80.0, 0.9),               # too far
                  CardCorner(180.0, 100.0, math.pi / 2 + math.radians(40), 80.0, 0.9)):   # turned otherwise
        assert [c for c in paired([corner, other]) if (c.x, c.y) == (corner.x, corner.y)] == [corner]
    assert paired([corner]) == [corner] and paired([]) == []


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_the_second_look_brings_the_cards_to_the_networks_best_width() -> None:
    """Cards 60 px wide in the first look are looked at again twice as large, within the frame's own
    pixels and ``max_size``, or beyond the frame's own where its cards are under ``_SMALL`` px wide in it
    (a webcam's picture of a whole table: as far as makes them that wide); cards near ``CARD_PX`` wide,
    or too few sure index corners, need no second look; a close-up's are looked at smaller; of cards 60
    and 100 px wide, the narrower decide; corners too few or too unsure to size by are looked at as
    closely as the frame allows."""
    detector = CardDetector(DEFAULT_DETECTOR, size=640, max_size=1600)
    four_k = np.zeros((2160, 3840, 3), np.uint8)
    small = [CardCorner(0.0, 0.0, 0.0, 60.0 * 6, 0.9)] * 3           # 60 px at 640 of 3840
    assert detector.second_size(four_k, small) == 1280
    assert CardDetector(DEFAULT_DETECTOR, max_size=1000).second_size(four_k, small) == 1000
    assert detector.second_size(np.zeros((720, 1280, 3), np.uint8), [c._replace(width=80.0) for c in small]) == 1280
    webcam = np.zeros((480, 640, 3), np.uint8)
    assert detector.second_size(webcam, [c._replace(width=40.0) for c in small]) == 1280   # enlarged: 40-px cards 80 there
    assert detector.second_size(webcam, [c._replace(width=20.0) for c in small]) == 1600   # within max_size
    assert detector.second_size(webcam, [c._replace(width=70.0) for c in small]) is None   # 80/70: too little
    assert detector.second_size(four_k, [c._replace(width=CARD_PX * 6) for c in small]) is None
    assert detector.second_size(four_k, small[:1]) == 1600          # too few sure corners to size by: closest
    assert detector.second_size(four_k, []) is None                   # nothing seen: nothing to look at
    assert detector.second_size(np.zeros((720, 1280, 3), np.uint8), small[:1]) == 1280
    assert detector.second_size(np.zeros((480, 640, 3), np.uint8), small[:1]) is None
    assert detector.second_size(four_k, [c._replace(score=0.5) for c in small]) == 1600
    assert detector.second_size(four_k, [c._replace(holds_index=0.2) for c in small]) == 1600   # plain corners size nothing
    assert detector.second_size(four_k, [c._replace(width=400.0 * 6) for c in small]) == 320   # a close-up
    near = [c._replace(width=100.0 * 6) for c in small[:2]]
    assert detector.second_size(four_k, small[:2] + near) == 1280   # the narrower cards, the far ones at an angle


def test_the_second_look_sees_the_parts_about_its_corners_each_once() -> None:
    """Two corners far apart: two parts; a corner inside an L of others, apart from it but within its
    bounds: one part; every part on the look's 32 px grid and inside the frame."""
    def corner(x: float, y: float) -> CardCorner:
        return CardCorner(x, y, 0.0, 30.0, 0.9)

    apart = CardDetector.places((720, 1280), [corner(100, 100), corner(1100, 600)], 1280)
    assert apart == [(32, 32, 192, 192), (1024, 512, 1184, 672)]
    ell = [corner(100, 100), corner(200, 100), corner(300, 100), corner(300, 200), corner(300, 300)]
    assert len(CardDetector.places((720, 1280), [corner(120, 300)], 1280)) == 1
    (one,) = CardDetector.places((720, 1280), [*ell, corner(120, 300)], 1280)
    assert one == (32, 32, 384, 384)
    (edge,) = CardDetector.places((720, 1280), [corner(1270, 715)], 640)   # 64 px of the frame a cell
    assert edge == (1152, 640, 1280, 720)
    assert CardDetector.places((720, 1280), [], 1280) == []


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_place_where_a_card_may_lie_is_looked_at_closer_still(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second look is spent about the first's unseen corners at the size that brings the cards to
    ``CARD_PX``, and about each place handed in (``also``) as much closer again as a far card is
    narrower, within ``max_size`` and the frame's own pixels; with nothing unseen and no place, not at all;
    ``everywhere`` (a table as white as its cards), over the whole frame at its size, whatever is unseen."""
    detector = CardDetector(DEFAULT_DETECTOR, max_size=3200)
    frame = np.zeros((2250, 4000, 3), np.uint8)
    first = [CardCorner(500.0 + 400 * i, 500.0, 0.0, 234.375, 0.9) for i in range(3)]   # 37.5 px at 640
    looks: list[tuple[int, tuple[int, int], tuple[int, ...]]] = []

    def look(part: np.ndarray, size: int, **where: object) -> list[CardCorner]:
        at = where.get("at", (0, 0))
        assert isinstance(at, tuple)
        looks.append((size, at, part.shape[:2]))
        return list(first) if size == detector.size else []

    monkeypatch.setattr(detector, "look", look)
    far = CardCorner(3000.0, 1500.0, 0.0, 234.375, 0.4)
    detector.find(frame, unseen=lambda found: [])
    assert [size for size, _, _ in looks] == [640]
    looks.clear()
    detector.find(frame, unseen=lambda found: [], also=[far])
    ((size, (x0, y0), (h, w)),) = looks[1:]
    assert size == round(2048 / 0.7) and x0 <= far.x < x0 + w and y0 <= far.y < y0 + h
    looks.clear()
    detector.find(frame, unseen=lambda found: found[:1], also=[far])
    assert sorted(size for size, _, _ in looks[1:]) == [2048, 2926]
    looks.clear()
    detector.find(frame, unseen=lambda found: [], everywhere=True)
    assert looks[1:] == [(2048, (0, 0), (2250, 4000))]
    looks.clear()
    monkeypatch.setattr(detector, "max_size", 2400)
    detector.find(frame, unseen=lambda found: [], also=[far])
    assert [size for size, _, _ in looks[1:]] == [2400]


def test_the_recogniser_asks_for_the_whole_frame_on_a_table_as_white_as_its_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside the cards the geometry read, the detector's closer look spans the whole frame where the
    table is as white as the cards (``_detect.as_white_as_cards``), and only the places it keeps elsewhere."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    frame = _grey_desk_with_a_card(corner)
    asked = []
    for white in (False, True):
        monkeypatch.setattr(_detect, "as_white_as_cards", lambda value, white=white: white)
        detector = _Asked()
        Recognizer(classifier=_ReadsQueenAt(0.95), detector=detector, read_again=False).detect(frame)
        asked.append(detector.everywhere)
    assert asked == [False, True]


def test_a_close_up_is_looked_at_by_halves_while_its_cards_stay_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the first look's sure corners are ``_CLOSE`` px wide or wider at it (the median), a look at
    half its size follows, and another at half again while that look's are, down to ``_LEAST`` px;
    each look's index corners are handed on beside the first's.  Narrower cards take no such look."""
    detector = CardDetector(DEFAULT_DETECTOR)
    frame = np.zeros((504, 378, 3), np.uint8)
    looks: list[int] = []
    widths = {640: 120.0, 320: 110.0, 160: 60.0}     # px at each look

    def look(part: np.ndarray, size: int, **where: object) -> list[CardCorner]:
        looks.append(size)
        at_look = widths.get(size, 20.0)
        return ([CardCorner(100.0 + 60 * i, 100.0, 0.0, at_look * 504 / size, 0.9, 0.9) for i in range(3)]
                + [CardCorner(300.0, 400.0, 0.0, 30.0 * 504 / size, 0.9, 0.9)])     # a narrow card at each

    monkeypatch.setattr(detector, "look", look)
    found = detector.find(frame)
    assert looks == [640, 320, 160]
    # The close-up's looks hand on only the cards they are taken for: at least half _CLOSE wide there.
    assert sorted(round(c.width * 640 / 504) for c in found) == [30] + [120] * 3 + [220] * 3 + [240] * 3
    looks.clear()
    widths[640] = 80.0
    detector.find(frame)
    assert looks == [640]
    widths[640], widths[160] = 120.0, 120.0
    looks.clear()
    detector.find(frame)
    assert looks == [640, 320, 160]                              # no look at 80: under _LEAST


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_card_the_first_look_sees_wide_keeps_its_first_look_corner(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone card 220 px wide in a 960-px picture is 147 px wide at the first look, wider than
    ``CARD_PX``; three small corners call for a second look at 960, where the network sizes it 156.  The
    first look's corner is kept and the second's at it dropped; the small cards' corners (70 px at the
    first look) come from the second look."""
    detector = CardDetector(DEFAULT_DETECTOR)
    frame = np.zeros((540, 960, 3), np.uint8)
    small = [(600.0 + 150 * i, 450.0) for i in range(3)]

    def look(part: np.ndarray, size: int, **where: object) -> list[CardCorner]:
        if size == detector.size:
            return ([CardCorner(370.0, 95.0, 0.14, 220.0, 1.0, 0.99)]
                    + [CardCorner(x, y, 0.0, 105.0, 0.9, 0.9) for x, y in small])
        return ([CardCorner(371.0, 94.0, 0.17, 156.0, 1.0, 0.99)]
                + [CardCorner(x + 1, y, 0.0, 100.0, 0.9, 0.9) for x, y in small])

    monkeypatch.setattr(detector, "look", look)
    found = detector.find(frame)
    assert sorted((round(c.x), round(c.width)) for c in found) == [(370, 220), (601, 100), (751, 100), (901, 100)]


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_close_ups_wide_card_is_found_by_a_closer_look() -> None:
    """A card 215 px wide in a 380x504 photo, 273 px at the first look: that look sizes it too narrow and
    its index map misses the index corners; the close-up's look at 320 finds both, and alone the
    detector reads the card."""
    card = PlacedCard("JH", (190, 260), 0, 215)
    frame, _ = render_scene([card], size=(380, 504), background="felt")

    def at_index(found: list[CardCorner]) -> int:
        return sum(any(math.hypot(c.x - x, c.y - y) < 0.1 * card.width_px
                       and abs(math.log(c.width / card.width_px)) < math.log(1.2) for c in found)
                   for x, y in card.outline()[[0, 2]])

    detector = CardDetector()
    assert at_index(detector._indices(detector.look(frame, detector.size))) == 0
    assert at_index(detector.find(frame)) == 2
    assert [d.code for d in Recognizer(geometry=False).detect(frame)] == ["JH"]


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_live_frames_small_cards_come_back_turned_and_sized_right() -> None:
    """Cards 80 px wide in a 1280x720 frame, 40 at the first look, where that look alone gives most
    of their top-left corners askew or mis-sized: every one comes back within 10 degrees and 10 %."""
    cards = [PlacedCard(code, (300 + 200 * i, 300 + 60 * (i % 2)), 15 * i, 80)
             for i, code in enumerate(("2C", "7H", "QS", "9D", "KH"))]
    frame, _ = render_scene(cards, size=(1280, 720), background="felt")

    def right(found: list[CardCorner]) -> int:
        n = 0
        for card in cards:
            (x, y), (x1, y1) = card.outline()[:2]
            turn, width = math.atan2(y1 - y, x1 - x), math.hypot(x1 - x, y1 - y)
            n += any(math.hypot(c.x - x, c.y - y) < 0.1 * width and abs(math.log(c.width / width)) < math.log(1.1)
                     and abs((c.angle - turn + math.pi) % (2 * math.pi) - math.pi) < math.radians(10) for c in found)
        return n

    detector = CardDetector()
    assert right(detector.look(frame, 640)) <= 3
    assert right(detector.find(frame)) == len(cards)
    first = [c for c in paired(detector.look(frame, 640)) if c.holds_index >= detector.index]
    assert detector.find(frame, unseen=lambda found: []) == first   # no second look: the first's index corners


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_dim_frames_cards_are_found_as_a_lit_ones() -> None:
    """A frame at a third of its light: each look lifts it to full white before the network sees it."""
    card = PlacedCard("7S", (640, 360), 20, 140)
    frame, _ = render_scene([card], size=(1280, 720), background="felt")
    x, y = card.outline()[0]
    dim = (frame.astype(np.float32) / 3).astype(np.uint8)
    found = CardDetector().find(dim)
    assert min(math.hypot(c.x - x, c.y - y) for c in found) < 0.1 * card.width_px


def test_a_dim_frames_grain_is_smoothed_before_the_looks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lifted to white, a dim frame's grain is lifted with its light (a webcam at night): its looks see it
    smoothed first, by more than would leave white noise as it was before the lift (a camera's grain is
    coarser and falls less); a frame lit well is looked at as it is."""
    detector = CardDetector()
    seen: list[np.ndarray] = []
    gains: list[float] = []

    def look(part: np.ndarray, size: int, *, gain: float = 1.0, **where: object) -> list[CardCorner]:
        seen.append(part)
        gains.append(gain)
        return []

    monkeypatch.setattr(detector, "look", look)
    lit = np.clip(np.random.default_rng(0).normal(120.0, 20.0, (720, 1280, 3)), 0, 255).astype(np.uint8)
    lit[300:420, 600:690] = 250                                       # a white card
    detector.find(lit)
    assert seen[0] is lit
    seen.clear()
    gains.clear()
    dim = (lit * 0.3).astype(np.uint8)
    detector.find(dim)
    table = (slice(0, 250), slice(0, 500))
    assert gains[0] > 3
    assert seen[0][table].std() * gains[0] < dim[table].std() / 1.5


@pytest.mark.parametrize("size", [640, 900, 1100])
def test_a_shrunk_look_averages_every_pixel(size: int) -> None:
    """A look smaller than the frame sees each of its pixels as the average of the frame's under it: each
    takes in both kinds of a print of one-pixel lines, whether the look halves the frame (a camera frame's
    first look, an even grey) or shrinks it by less (a photo's second look), where bilinear sampling lands
    on some lines whole and misses others."""
    detector = CardDetector()
    seen: list[np.ndarray] = []

    class Session:
        def run(self, names: object, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
            seen.append(feed["frame"])
            gh, gw = feed["frame"].shape[2:]
            return [np.zeros((1, MAPS, gh // 4, gw // 4), np.float32)]

    detector._session = Session()
    lines = np.zeros((704, 1280, 3), np.uint8)
    lines[:, ::2] = 255
    detector.look(lines, size)
    assert seen[0].min() > 30 and seen[0].max() < 225


class _Told:
    """A detector double: the index corners of the cards it is told about."""

    def __init__(self, corners: list[CardCorner]) -> None:
        self.corners = corners

    def find(self, frame: np.ndarray, *, unseen: Callable[[list[CardCorner]], list[CardCorner]] | None = None,
             also: Sequence[CardCorner] = (), everywhere: bool = False) -> list[CardCorner]:
        return list(self.corners)


def _upright(card: PlacedCard) -> CardCorner:
    """The top-left corner of an upright card."""
    x0, y0 = card.outline()[0]
    return CardCorner(float(x0), float(y0), 0.0, card.width_px, 0.9)


class _ReadsQueen:
    """A corner reader double that reads a sure QS wherever it looks (sure enough for a learned corner)."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, CLASSES.index("QS")] = 0.98
        out[:, -1] = 0.02
        return out


def _white_desk_with_an_index(corner: CardCorner, *, glyph: bool = True,
                              box: Sequence[tuple[int, int]] = ()) -> np.ndarray:
    """A plain light frame (no edge for the geometry, as a white card on a white desk gives none) with
    ink where ``corner``'s card has its index: a glyph, or one straight line along the card's top edge;
    or over ``box`` (card units) where one is given."""
    box = box or (_GLYPH if glyph else [(6, 10), (44, 10), (44, 14), (6, 14)])
    return _inked(np.full((720, 1280, 3), 230, np.uint8), corner, box)


_GLYPH = ((14, 20), (36, 20), (36, 100), (14, 100))
"""Card units: where an index's glyph lies."""


def _inked(frame: np.ndarray, corner: CardCorner, box: Sequence[tuple[int, int]]) -> np.ndarray:
    """``frame`` with ink over ``box`` (card units) of ``corner``'s card."""
    m = corner.card_to_frame()
    cv2.fillPoly(frame, [np.array([(m @ np.array([x, y, 1.0]))[:2] for x, y in box], np.int32)], (40, 40, 40))
    return frame


class _ReadsQueenAt:
    """A reader double (of corners or faces) that reads QS at ``confidence``, the rest ``none``, wherever
    it looks."""

    def __init__(self, confidence: float) -> None:
        self.confidence = confidence

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, CLASSES.index("QS")] = self.confidence
        out[:, -1] = 1.0 - self.confidence
        return out


class _ReadsByPaper(_ReadsQueenAt):
    """:class:`_ReadsQueenAt`, but reading QH where the patch is mostly the grey desk's (a learned corner
    inked on the desk, beside the geometry's white card): two cards, reported apart (each code once)."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = super().classify(patches)
        desk = patches.reshape(len(patches), -1).mean(axis=1) < 180
        out[desk, CLASSES.index("QH")], out[desk, CLASSES.index("QS")] = self.confidence, 0.0
        return out


def test_a_card_the_geometry_cannot_see_is_read_at_the_detectors_corner() -> None:
    """Only the detector's corner is read, and the card lies where that corner puts it."""
    corner = CardCorner(300.0, 200.0, 0.0, 120.0, 0.9)
    frame = _white_desk_with_an_index(corner)
    assert Recognizer(classifier=_ReadsQueen(), detector=_Told([]), read_again=False).detect(frame) == []
    (found,) = Recognizer(classifier=_ReadsQueen(), detector=_Told([corner]), read_again=False).detect(frame)
    assert found.code == "QS"
    assert np.allclose(found.outline[0], (300.0, 200.0), atol=1.0)
    assert np.allclose(found.outline[1], (420.0, 200.0), atol=1.0)


def test_a_learned_corner_beside_the_geometrys_cards_must_read_surely() -> None:
    """Where the geometry reads a card, a learned corner at no card of its own is reported at 0.85 and
    not at 0.7 (a blank slip's corner can read as a card at 0.66).  Where it reads none (a white card on
    a white desk gives it no edge), the frame is read as the detector alone reads it, at the
    recogniser's 0.6, and so it is without the geometry."""
    corner = CardCorner(900.0, 300.0, 0.0, 120.0, 0.9)
    beside = _inked(_grey_desk_with_a_card(CardCorner(300.0, 200.0, 0.0, 120.0, 0.9)), corner, _GLYPH)
    for confidence, found in ((0.85, 2), (0.7, 1)):
        by_paper = _ReadsByPaper(confidence)
        assert len(Recognizer(classifier=by_paper, detector=_Told([]), read_again=False).detect(beside)) == 1
        assert len(Recognizer(classifier=by_paper, detector=_Told([corner]), read_again=False).detect(beside)) == found
    white = _white_desk_with_an_index(corner)
    for confidence, codes in ((0.85, ["QS"]), (0.7, ["QS"]), (0.55, [])):
        reader = _ReadsQueenAt(confidence)
        for geometry in (True, False):
            assert [d.code for d in Recognizer(classifier=reader, detector=_Told([corner]), geometry=geometry,
                                               read_again=False).detect(white)] == codes, (confidence, geometry)


def test_a_learned_corner_beside_the_geometrys_cards_reads_surely_with_its_face() -> None:
    """A learned corner whose card lies whole in the picture is read by its face before the 0.8 it must
    reach beside the geometry's cards: its corners read at 0.7 and its face surely make a card; a face
    in doubt, or one that reads no card, adds nothing."""
    corner = CardCorner(900.0, 300.0, 0.0, 120.0, 0.9)
    beside = _inked(_grey_desk_with_a_card(CardCorner(300.0, 200.0, 0.0, 120.0, 0.9)), corner, _GLYPH)
    for face, found in ((0.95, 2), (0.6, 1), (0.0, 1)):
        rec = Recognizer(classifier=_ReadsByPaper(0.7), faces=_ReadsByPaper(face), detector=_Told([corner]),
                         read_again=False)
        assert len(rec.detect(beside)) == found, face


class _ReadsInkAtTheRight:
    """A corner reader double that reads a sure QS where ink lies in the patch's right eighth, and none
    elsewhere: it tells a corner read at a card's width from one read a tenth wider."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        ink = (patches[:, :, 28:].max(axis=3) < 60).mean(axis=(1, 2)) > 0.05
        out[ink, CLASSES.index("QS")] = 0.98
        out[:, -1] = np.where(ink, 0.02, 1.0)
        return out


def _grey_desk_with_a_card(corner: CardCorner) -> np.ndarray:
    """A white card on a grey desk at ``corner``, with ink where its index lies (the geometry proposes
    it) and just beyond its index box at its own width."""
    m = corner.card_to_frame()
    frame = np.full((720, 1280, 3), 120, np.uint8)

    def fill(box: tuple[tuple[int, int], ...], colour: int) -> None:
        cv2.fillPoly(frame, [np.array([(m @ np.array([x, y, 1.0]))[:2] for x, y in box], np.int32)], (colour,) * 3)

    fill(((0, 0), (250, 0), (250, 350), (0, 350)), 240)
    fill(((14, 20), (36, 20), (36, 100), (14, 100)), 40)
    fill(((83, 50), (90, 50), (90, 70), (83, 70)), 20)
    return frame


def test_a_card_the_geometry_proposes_but_cannot_read_is_left_to_the_detector() -> None:
    """A learned corner at the corner of a card the geometry proposed is read where that proposal read
    nothing (a far card of a table seen at an angle, grown to the near cards' width): only a card read
    already makes it redundant."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    frame = _grey_desk_with_a_card(corner)
    proposed = Recognizer(classifier=_NoCards()).propose(frame)
    assert any(np.allclose(p @ np.array([0.0, 0.0, 1.0]), (400.0, 200.0, 1.0), atol=1.0) for p in proposed)
    wider = corner._replace(width=1.1 * corner.width)     # as wide within 15 percent: the same card's corner
    reader = _ReadsInkAtTheRight()
    assert Recognizer(classifier=reader, detector=_Told([]), read_again=False).detect(frame) == []
    (found,) = Recognizer(classifier=reader, detector=_Told([wider]), read_again=False).detect(frame)
    assert found.code == "QS"
    # Before anything is read, every learned corner is a proposal (which are read depends on the reads).
    assert any(np.allclose(p, wider.card_to_frame(), atol=1e-6)
               for p in Recognizer(classifier=reader, detector=_Told([wider])).propose(frame))


class _ReadsQueenOfSpadesAtTheRight(_ReadsInkAtTheRight):
    """:class:`_ReadsInkAtTheRight`, but reading QH at ``confidence`` where no ink lies at the right: the
    geometry's proposal of the card and the detector's corner a tenth wider read two codes."""

    def __init__(self, confidence: float) -> None:
        self.confidence = confidence

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = super().classify(patches)
        plain = out[:, -1] == 1.0
        out[plain, CLASSES.index("QH")], out[plain, -1] = self.confidence, 1.0 - self.confidence
        return out


@pytest.mark.parametrize(("geometry_read", "reported"), [(0.85, "QS"), (0.95, "QH")])
def test_a_card_the_geometry_reads_unsurely_is_read_at_the_detectors_corner_too(geometry_read: float,
                                                                               reported: str) -> None:
    """A learned corner at a card the geometry read under 0.9 is read too, and the surer read stands
    (a shaken 6H the geometry reads 5H); at a card read surely it adds nothing and is not read."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    wider = corner._replace(width=1.1 * corner.width)     # the same card's corner, as the detector sizes it
    reader = _ReadsQueenOfSpadesAtTheRight(geometry_read)
    rec = Recognizer(classifier=reader, detector=_Told([wider]), read_again=False)
    assert [d.code for d in rec.detect(_grey_desk_with_a_card(corner))] == [reported]


class _ReadsUprightIndex:
    """A corner reader double that reads an index only where ink fills the glyph's box (``_GLYPH``) of the
    patch, the corner turned as its card is: QS on a white card, QH inked on the grey desk."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        upright = (patches[:, 10:38, 7:13].max(axis=3) < 60).mean(axis=(1, 2)) > 0.8
        desk = patches.reshape(len(patches), -1).mean(axis=1) < 180
        out[upright & ~desk, CLASSES.index("QS")] = 0.98
        out[upright & desk, CLASSES.index("QH")] = 0.98
        out[:, -1] = np.where(upright, 0.02, 1.0)
        return out


def test_a_learned_corner_beside_the_geometrys_cards_is_read_at_its_later_take_too() -> None:
    """The detector hands on a corner measured by its neighbour first (here 15 degrees askew: a row's
    KH) and then as its own look sees it.  Beside the geometry's cards, as alone, the later take is
    read where the first reads nothing, and the card is found there."""
    corner = CardCorner(900.0, 300.0, 0.0, 120.0, 0.9)
    askew = corner._replace(angle=math.radians(15))
    frame = _inked(_grey_desk_with_a_card(CardCorner(300.0, 200.0, 0.0, 120.0, 0.9)), corner, _GLYPH)
    reader = _ReadsUprightIndex()
    assert [d.code for d in Recognizer(classifier=reader, detector=_Told([askew]), read_again=False).detect(frame)] \
        == ["QS"]
    found = Recognizer(classifier=reader, detector=_Told([askew, corner]), read_again=False).detect(frame)
    assert sorted(d.code for d in found) == ["QH", "QS"]
    (queen,) = (d for d in found if d.code == "QH")
    assert np.allclose(queen.outline[:2], [(900.0, 300.0), (1020.0, 300.0)], atol=1.0)


def test_a_corner_sized_off_the_table_is_read_at_the_tables_width_beside_the_geometry_too() -> None:
    """A card beneath another shows one corner, whose look can size it a third off: beside the geometry
    as alone, it is read at the width of the table's other cards as well, and found there."""
    corner = CardCorner(300.0, 200.0, 0.0, 90.0, 0.9)
    # Ink that _ReadsInkAtTheRight reads at the card's own width only.
    frame = _white_desk_with_an_index(corner, box=[(62, 20), (78, 20), (78, 100), (62, 100)])
    row = [CardCorner(700.0 + 130 * k, 450.0, 0.0, 90.0, 0.9) for k in range(3)]
    askew = corner._replace(width=120.0)
    reader = _ReadsInkAtTheRight()
    assert Recognizer(classifier=reader, detector=_Told([askew]), read_again=False).detect(frame) == []
    (found,) = Recognizer(classifier=reader, detector=_Told(row + [askew]), read_again=False).detect(frame)
    assert found.code == "QS"
    assert np.allclose(found.outline[:2], [(300.0, 200.0), (390.0, 200.0)], atol=1.0)


class _ReadsAnyOf:
    """A corner reader double that sees an index but splits it evenly among ``codes`` codes."""

    def __init__(self, codes: int) -> None:
        self.codes = codes

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, :self.codes] = 0.6 / self.codes
        out[:, -1] = 0.4
        return out


class _Asked(_Told):
    """A detector double that finds nothing and keeps the places it was asked to look at closely."""

    def __init__(self) -> None:
        super().__init__([])
        self.also: list[CardCorner] = []
        self.unseen: Callable[[list[CardCorner]], list[CardCorner]] | None = None
        self.everywhere: bool | None = None

    def find(self, frame: np.ndarray, *, unseen: Callable[[list[CardCorner]], list[CardCorner]] | None = None,
             also: Sequence[CardCorner] = (), everywhere: bool = False) -> list[CardCorner]:
        self.also, self.unseen, self.everywhere = list(also), unseen, everywhere
        return []


def test_a_card_the_geometry_reads_in_doubt_is_looked_for_closely() -> None:
    """Where the geometry's card reads under ``min_confidence`` but not hopelessly (a far card of a table
    seen at an angle, grown at the near cards' width), the detector is asked to look closely at its
    place; a card read, read as nothing, or read as any of ten codes alike, is no such place."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    frame = _grey_desk_with_a_card(corner)
    centre = corner.card_to_frame() @ np.array([CARD_SIZE[0] / 2, CARD_SIZE[1] / 2, 1.0])
    for reader, asked in ((_ReadsQueenAt(0.55), True), (_ReadsQueenAt(0.1), False), (_ReadsQueenAt(0.8), False),
                          (_ReadsAnyOf(10), False)):
        detector = _Asked()
        Recognizer(classifier=reader, detector=detector, read_again=False).detect(frame)
        there = [c for c in detector.also if math.hypot(c.x - centre[0], c.y - centre[1]) < 0.2 * corner.width]
        assert bool(there) == asked, reader
        assert all(abs(math.log(c.width / corner.width)) < math.log(1.2) for c in there)


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
@pytest.mark.parametrize("surely", [0.95, 0.1])
def test_a_close_ups_looks_are_taken_whatever_the_geometry_reads(monkeypatch: pytest.MonkeyPatch, surely: float) -> None:
    """Beside cards the geometry read as where it read none: a photo of a card or two out of focus
    gives the geometry no edge to grow a close-up's card from, and the detector's half-size look
    still finds its corners."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    detector = CardDetector(DEFAULT_DETECTOR)
    looked: list[int] = []
    closer_up = detector.closer_up

    def counted(*args: Any, **kwargs: Any) -> list[CardCorner]:
        looked.append(1)
        return closer_up(*args, **kwargs)

    monkeypatch.setattr(detector, "closer_up", counted)
    Recognizer(classifier=_ReadsQueenAt(surely), detector=detector, read_again=False).detect(_grey_desk_with_a_card(corner))
    assert looked == [1]


def test_beside_the_geometry_only_a_sure_corner_calls_for_a_closer_look() -> None:
    """Of the first look's corners at no card read, those scored under 0.7 (a hand's, a covered card's)
    are no reason for the second look beside the geometry; a corner of the card read is none either."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    detector = _Asked()
    Recognizer(classifier=_ReadsQueenAt(0.95), detector=detector, read_again=False).detect(_grey_desk_with_a_card(corner))
    assert detector.unseen is not None
    weak, sure = CardCorner(900.0, 500.0, 0.0, 120.0, 0.65), CardCorner(1000.0, 300.0, 0.5, 120.0, 0.75)
    assert detector.unseen([corner, weak, sure]) == [sure]


class _ReadsNothingOnBacks(_ReadsQueenAt):
    """:class:`_ReadsQueenAt`, but reading ``none`` at 0.95 where the patch is mostly a dark back's."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = super().classify(patches)
        back = patches.reshape(len(patches), -1).mean(axis=1) < 80
        out[back, :-1], out[back, -1] = 0.0, 0.95
        out[back, CLASSES.index("QS")] = 0.05
        return out


def test_beside_the_geometry_a_corner_the_reader_dismisses_calls_for_no_closer_look() -> None:
    """A first-look corner that the corner reader calls ``none`` surely where that look puts it (a
    face-down card's back, which the detector hands on as an index corner) is no reason for the second
    look beside the geometry; one it reads anything at is."""
    corner = CardCorner(400.0, 200.0, 0.0, 120.0, 0.9)
    frame = _grey_desk_with_a_card(corner)
    frame[450:650, 900:1050] = 30                                     # a face-down card's dark back
    detector = _Asked()
    Recognizer(classifier=_ReadsNothingOnBacks(0.95), detector=detector, read_again=False).detect(frame)
    assert detector.unseen is not None
    on_back, on_desk = CardCorner(910.0, 460.0, 0.0, 120.0, 0.9), CardCorner(1000.0, 100.0, 0.0, 120.0, 0.9)
    assert detector.unseen([on_back, on_desk]) == [on_desk]


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
@pytest.mark.parametrize("background", ["felt", "light_wood"])
def test_the_shipped_detector_hands_on_a_cards_index_corners_and_no_blank_slips(background: str) -> None:
    """A card and a blank slip of paper its size: of the eight corners, only the card's top-left and
    bottom-right hold an index, and only those are handed on to be read (the slip's corner read by
    a hopeful reader would pass for a card)."""
    card = PlacedCard("7S", (400, 360), 10, 120)
    frame, _ = render_scene([card], size=(1280, 720), background=background)
    slip = cv2.boxPoints(((850, 360), (120, 168), -15)).astype(np.int32)
    cv2.fillPoly(frame, [slip], (235, 238, 240))
    every = CardDetector(index=0.0).find(frame)
    outline = card.outline()
    assert len({(round(c.x), round(c.y)) for c in every}) >= 6   # most of the eight corners are found
    handed = CardDetector().find(frame)
    assert handed and all(min(math.hypot(c.x - x, c.y - y) for x, y in outline[[0, 2]]) < 0.1 * card.width_px
                          for c in handed)
    assert [d.code for d in Recognizer().detect(frame)] == ["7S"]


def test_without_the_geometry_every_detector_corner_is_read_and_at_the_tables_width_too() -> None:
    """Alone, no ink test stands between a corner and the reader (the reader's none decides); a corner
    sized a third off the table's other cards is read at their width as well."""
    corner = CardCorner(300.0, 200.0, 0.0, 120.0, 0.9)
    blank = np.full((720, 1280, 3), 230, np.uint8)
    (found,) = Recognizer(classifier=_ReadsQueen(), detector=_Told([corner]), geometry=False,
                          read_again=False).detect(blank)
    assert found.code == "QS" and np.allclose(found.outline[0], (300.0, 200.0), atol=1.0)
    row = [CardCorner(600.0 + 130 * k, 400.0, 0.0, 90.0, 0.9) for k in range(3)]
    assert [c.width for c in sized_alike(row + [corner])] == [90.0, 90.0, 90.0, 120.0, 90.0]
    assert sized_alike(row) == row and sized_alike([corner, corner]) == [corner, corner]


class _CountsPatches(_ReadsQueenAt):
    """:class:`_ReadsQueenAt` that counts the patches it is given."""

    def __init__(self, confidence: float) -> None:
        super().__init__(confidence)
        self.patches = 0

    def classify(self, patches: np.ndarray) -> np.ndarray:
        self.patches += len(patches)
        return super().classify(patches)


def _patches_read(corners: list[CardCorner], confidence: float) -> int:
    reader = _CountsPatches(confidence)
    Recognizer(classifier=reader, detector=_Told(corners), geometry=False, read_again=False).detect(
        np.full((720, 1280, 3), 230, np.uint8))
    return reader.patches


def test_a_corners_later_takes_are_read_only_where_no_card_of_the_tables_width_read_it_surely() -> None:
    """One printed index is one card's: a second take of a corner (turned otherwise, as its pair
    measures it) adds nothing where the first read a card of the table's width surely there, and is
    read where the first was in doubt, or sure at another width (the table's reads a row's covered
    card right)."""
    row = [CardCorner(200.0 + 300 * k, 200.0, 0.0, 90.0, 0.9) for k in range(3)]
    again = row[0]._replace(angle=0.2)
    assert _patches_read(row + [again], 0.99) == _patches_read(row, 0.99)
    assert _patches_read(row + [again], 0.8) > _patches_read(row, 0.8)
    wide = CardCorner(300.0, 500.0, 0.0, 130.0, 0.9)      # read at the table's 90 px too (sized_alike)
    assert _patches_read(row + [wide], 0.99) == _patches_read(row + [wide._replace(width=90.0)], 0.99) + 1


@pytest.mark.parametrize("geometry", [False, True])
def test_a_learned_corners_card_may_run_out_of_the_picture(geometry: bool) -> None:
    """A row running out of the picture shows its cards' index corners only: a learned corner is
    read there however little of its card lies within the picture, which the geometry's corners
    must not (the picture's edge cuts bright clutter into false corners)."""
    from vision.recognizer import _MIN_IN_FRAME, _in_frame

    corner = CardCorner(300.0, 680.0, 0.0, 120.0, 0.9)   # its card reaches 128 px below the picture
    blank = np.full((720, 1280, 3), 230, np.uint8)
    assert _in_frame(corner.card_to_frame(), 1280, 720) < _MIN_IN_FRAME
    (found,) = Recognizer(classifier=_ReadsQueen(), detector=_Told([corner]), geometry=geometry,
                          read_again=False).detect(blank)
    assert found.code == "QS" and np.allclose(found.outline[0], (300.0, 680.0), atol=1.0)


def test_without_the_geometry_only_the_detectors_corners_are_read() -> None:
    """A card on a table the geometry sees well is found without it only where the detector puts a
    corner, and read as surely as the geometry's own."""
    card = PlacedCard("QS", (640, 360), 0, 120)
    frame, _ = render_scene([card], size=(1280, 720), background="felt")
    corner = _upright(card)
    reader = _ReadsQueenAt(0.85)
    assert Recognizer(classifier=reader, detector=_Told([]), geometry=False, read_again=False).detect(frame) == []
    (found,) = Recognizer(classifier=reader, detector=_Told([corner]), geometry=False, read_again=False).detect(frame)
    assert found.code == "QS" and np.allclose(found.outline[0], card.outline()[0], atol=1.0)
    assert Recognizer(classifier=reader, detector=_Told([corner]), read_again=False).detect(frame)  # the geometry's
    with pytest.raises(ValueError, match="needs a detector"):
        Recognizer(classifier=reader, geometry=False)


def test_a_detector_corner_the_geometry_proposed_already_is_not_read_twice() -> None:
    """Any corner of a known card, turned alike and as wide, adds nothing; one turned or sized
    otherwise, or a card beside it, is another hypothesis; ``anyhow``, only one at none of the known
    card's corner points is (where a second look is worth taking)."""
    def at(x: float, y: float, angle: float, width: float) -> _detect.Hypothesis:
        return _detect.Hypothesis(CardCorner(x, y, math.radians(angle), width, 1.0).card_to_frame(), width, 0)

    known = [at(100, 100, 0, 80)]
    height = 80 * CARD_SIZE[1] / CARD_SIZE[0]
    found = [at(103, 98, 10, 85), at(180, 100 + height, 180, 80),           # its two index corners
             at(180, 100, 90, 80), at(100, 100 + height, -90, 80),          # its two plain corners
             at(100, 100, 40, 80), at(100, 100, 0, 100), at(130, 100, 0, 80),   # three others
             at(180, 100, 0, 80)]                                          # a card beside it
    assert _detect.new_to(found, known) == found[4:]
    assert _detect.new_to(found, []) == found
    assert _detect.new_to(found, known, anyhow=True) == [found[6]]


def test_the_shipped_detector_goes_with_the_shipped_reader() -> None:
    """A test double's reads stay its own: beside one, no detector unless given (docs/recogniser.md,
    Learned corners)."""
    assert Recognizer(classifier=_NoCards()).detector is None
    told = _Told([])
    assert Recognizer(classifier=_NoCards(), detector=told).detector is told
    if DEFAULT_DETECTOR.is_file():
        assert isinstance(Recognizer().detector, CardDetector)


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_the_shipped_detector_finds_a_row_of_cards() -> None:
    cards = [PlacedCard(code, (400 + 70 * i, 360), 0, 110) for i, code in enumerate(("2C", "3C", "4C", "5C"))]
    frame, _ = render_scene(cards, size=(1280, 720), background="light_wood")
    found = CardDetector().find(frame)
    for card in cards:   # a corner of each, though the overlapped ones' turns are often off
        assert any(math.hypot(c.x - x, c.y - y) < 0.15 * card.width_px for c in found for x, y in card.outline()), \
            card.code
    assert sorted(d.code for d in Recognizer().detect(frame)) == ["2C", "3C", "4C", "5C"]


@pytest.mark.skipif(not DEFAULT_DETECTOR.is_file(), reason="no shipped detector")
def test_a_neighbours_index_read_askew_is_no_card_of_its_own() -> None:
    """A frame of the demo's Michigan game (shuffle 2), where a corner on the 2D's index turned and sized
    askew once read 2H at 0.90: every card is read once, as itself."""
    width = 1280 / 15
    cards = [PlacedCard("4H", (6784 / 15, 604.8), 5.4724, width), PlacedCard("2D", (499.2, 604.8), 5.3739, width),
             PlacedCard("3D", (1100.8, 8216 / 15), -95.3214, width), PlacedCard("4D", (1100.8, 500.8), -94.9815, width),
             PlacedCard("5D", (8192 / 15, 604.8), 4.0260, width), PlacedCard("6D", (179.2, 2584 / 15), 92.8316, width)]
    frame, _ = render_scene(cards, size=(1280, 720), background=table_background((1280, 720), style="wood", seed=2),
                            seed=55, noise=4.0)
    assert sorted(d.code for d in Recognizer().detect(frame)) == sorted(c.code for c in cards)
