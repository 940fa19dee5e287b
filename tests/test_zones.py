"""Seat zones: loading, validation, assignment at borders, default layout, ArUco anchoring, drawing."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.detection import Detection
from vision.zones import CENTRE, AnchoredZones, MarkerAnchors, MarkerError, Zone, ZoneError, ZoneMap, draw_zones

TWO = {"Ann": [[0, 0], [100, 0], [100, 50], [0, 50]], "Bob": [[0, 50], [100, 50], [100, 100], [0, 100]]}


def det(code: str, cx: float, cy: float, w: float = 20, h: float = 28) -> Detection:
    outline = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]], np.float32)
    return Detection(code, 0.9, outline)


def test_round_trip_through_a_plain_dict():
    zones = ZoneMap.from_dict(TWO)
    assert zones.seats == ("Ann", "Bob")
    again = ZoneMap.from_dict(zones.to_dict())
    assert again == zones
    assert zones.to_dict() == {k: [[float(x), float(y)] for x, y in v] for k, v in TWO.items()}


@pytest.mark.parametrize(
    "points, message",
    [
        ([[0, 0], [1, 1]], "at least 3 points"),
        ([], "at least 3 points"),
        ([[0, 0], [10, "a"], [5, 5]], "number pairs"),
        ([[0, 0], [10, 0, 3], [5, 5]], "number pairs"),
        ([[0, 0], [True, 0], [5, 5]], "numbers"),
        ([[0, 0], [float("nan"), 0], [5, 5]], "finite"),
        ("nonsense", "number pairs"),
        (5, "number pairs"),
        ([[0, 0], [10, 10], [10, 0], [0, 10]], "crosses itself"),
        ([[0, 0], [5, 0], [10, 0]], "crosses itself|no area"),
        ([[0, 0], [10, 0], [10, 10], [5, 0], [0, 10]], "crosses itself"),
    ],
)
def test_invalid_polygons_are_refused(points, message):
    with pytest.raises(ZoneError, match=message):
        ZoneMap.from_dict({"Ann": points})


def test_zone_error_is_a_value_error_and_names_the_seat():
    with pytest.raises(ValueError, match="'Cy'"):
        ZoneMap.from_dict({"Cy": [[0, 0], [1, 1]]})


def test_other_bad_tables():
    with pytest.raises(ZoneError, match="table"):
        ZoneMap.from_dict([[0, 0], [1, 0], [1, 1]])  # type: ignore[arg-type]
    square = ((0, 0), (1, 0), (1, 1))
    with pytest.raises(ZoneError, match="repeated: Ann"):
        ZoneMap([Zone("Ann", square), Zone("Ann", square)])
    with pytest.raises(ZoneError, match="seat name"):
        Zone("", square)


def test_concave_zone_is_fine():
    ell = {"Ann": [[0, 0], [100, 0], [100, 20], [20, 20], [20, 100], [0, 100]]}
    zones = ZoneMap.from_dict(ell)
    assert zones.zone_at((10, 90)) == "Ann"
    assert zones.zone_at((60, 60)) is None


def test_assignment_inside_outside_and_on_borders():
    zones = ZoneMap.from_dict(TWO)
    assert zones.zone_at((50, 25)) == "Ann"
    assert zones.zone_at((50, 75)) == "Bob"
    assert zones.zone_at((50, 101)) is None
    assert zones.zone_at((-0.01, 25)) is None
    # Exactly on the shared border: the zone listed first, whatever the order.
    assert zones.zone_at((50, 50)) == "Ann"
    assert ZoneMap.from_dict(dict(reversed(list(TWO.items())))).zone_at((50, 50)) == "Bob"
    # Just off the border either way goes where it lies.
    assert zones.zone_at((50, 50.01)) == "Bob"
    assert zones.zone_at((50, 49.99)) == "Ann"
    # Outer edge and corner count as inside.
    assert zones.zone_at((0, 0)) == "Ann"
    assert zones.zone_at((100, 100)) == "Bob"


def test_detection_goes_by_its_centre_even_when_it_straddles_a_border():
    zones = ZoneMap.from_dict(TWO)
    straddling = det("QS", 50, 55)  # mostly in Bob's half, centre in Bob's
    assert zones.assign(straddling) == "Bob"
    by_seat, outside = zones.split([straddling, det("KH", 50, 20), det("2C", 300, 300)])
    assert {s: [d.code for d in ds] for s, ds in by_seat.items()} == {"Bob": ["QS"], "Ann": ["KH"]}
    assert [d.code for d in outside] == ["2C"]


def test_a_centre_zone_drawn_over_the_seats_takes_the_middle():
    table = {"Ann": [[0, 0], [200, 0], [200, 100], [0, 100]], "Bob": [[0, 100], [200, 100], [200, 200], [0, 200]],
             CENTRE: [[60, 60], [140, 60], [140, 140], [60, 140]]}
    zones = ZoneMap.from_dict(table)
    assert zones.zone_at((100, 80)) == CENTRE
    assert zones.zone_at((100, 120)) == CENTRE
    assert zones.zone_at((20, 80)) == "Ann"
    assert zones.zone_at((100, 60)) == "Ann"  # on the centre's border but inside Ann's: inside wins


@pytest.mark.parametrize("n", range(2, 10))
def test_default_zones_cover_the_table_in_seating_order(n):
    seats = [f"P{i}" for i in range(n)]
    size = (1280, 720)
    zones = ZoneMap.around_table(seats, size)
    assert zones.seats == tuple(seats) + (CENTRE,)
    # Every point of the table (inside the margin) belongs to exactly one zone.
    xs, ys = np.meshgrid(np.linspace(30, 1250, 23), np.linspace(20, 700, 13))
    for x, y in zip(xs.ravel(), ys.ravel()):
        assert zones.zone_at((x, y)) is not None, (x, y)
    # Seat i sits at 90 + i * 360/n degrees, going clockwise on screen from the bottom.
    for i, seat in enumerate(seats):
        a = math.radians(90 + i * 360 / n)
        t = min(600 / max(abs(math.cos(a)), 1e-9), 340 / max(abs(math.sin(a)), 1e-9)) * 0.85
        point = (640 + math.cos(a) * t, 360 + math.sin(a) * t)
        assert zones.zone_at(point) == seat
    assert zones.zone_at((640, 360)) == CENTRE


def test_default_zones_without_centre_and_bad_requests():
    zones = ZoneMap.around_table(["Ann", "Bob"], (640, 480), centre=None)
    assert zones.seats == ("Ann", "Bob")
    assert zones.zone_at((320, 400)) == "Ann"
    assert zones.zone_at((320, 80)) == "Bob"
    with pytest.raises(ZoneError):
        ZoneMap.around_table([], (640, 480))
    with pytest.raises(ZoneError, match="centre"):
        ZoneMap.around_table(["Ann", CENTRE], (640, 480))
    with pytest.raises(ZoneError, match="fraction"):
        ZoneMap.around_table(["Ann", "Bob"], (640, 480), centre=1.5)


# -- ArUco ------------------------------------------------------------------------

SIZE = (800, 600)


def marker_table() -> np.ndarray:
    """A grey table with four 4x4 markers near its corners (white quiet zone round each)."""
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(aruco.DICT_4X4_50)
    frame = np.full((SIZE[1], SIZE[0], 3), 140, np.uint8)
    for marker_id, (x, y) in zip((1, 2, 3, 4), ((40, 40), (680, 40), (680, 480), (40, 480))):
        frame[y - 10:y + 90, x - 10:x + 90] = 255
        frame[y:y + 80, x:x + 80] = cv2.cvtColor(aruco.generateImageMarker(dictionary, marker_id, 80), cv2.COLOR_GRAY2BGR)
    return frame


def test_markers_are_found_where_they_were_drawn():
    anchors = MarkerAnchors.calibrate(marker_table())
    assert sorted(anchors.reference) == [1, 2, 3, 4]
    np.testing.assert_allclose(anchors.reference[1][0], (40, 40), atol=1.5)
    assert MarkerAnchors.from_dict(anchors.to_dict()).reference.keys() == anchors.reference.keys()


def test_zones_follow_a_bumped_camera():
    zones = ZoneMap.around_table(["Ann", "Bob", "Cy"], SIZE)
    table = marker_table()
    anchored = AnchoredZones(zones, MarkerAnchors.calibrate(table))
    np.testing.assert_allclose(anchored.update(table)["Ann"].array, zones["Ann"].array, atol=1.0)
    # The camera is knocked: the picture turns 4 degrees and shifts.
    bump = cv2.getRotationMatrix2D((400, 300), 4, 1.0)
    bump[:, 2] += (25, -15)
    bumped = cv2.warpAffine(table, bump, SIZE, borderValue=(140, 140, 140))
    moved = anchored.update(bumped)
    expected = cv2.transform(zones["Ann"].array.reshape(-1, 1, 2), bump).reshape(-1, 2)
    np.testing.assert_allclose(moved["Ann"].array, expected, atol=2.0)
    # A point that was in Bob's zone, seen through the bumped camera, is still Bob's.
    p = np.array([[[60.0, 300.0]]], np.float32)
    assert zones.zone_at(tuple(p[0, 0])) == "Bob"
    q = cv2.transform(p, bump)[0, 0]
    assert moved.zone_at((float(q[0]), float(q[1]))) == "Bob"
    # Markers covered (a hand, a cloth): the last placement stays.
    covered = bumped.copy()
    covered[:] = 140
    assert anchored.update(covered) is moved


def test_one_marker_in_view_is_enough_to_follow_a_turn_and_shift():
    zones = ZoneMap.around_table(["Ann", "Bob", "Cy"], SIZE)
    table = marker_table()
    anchored = AnchoredZones(zones, MarkerAnchors.calibrate(table))
    only_one = table.copy()
    only_one[:, 300:] = 140  # markers 2, 3 and 4 hidden
    only_one[300:, :] = 140
    bump = cv2.getRotationMatrix2D((400, 300), 4, 1.0)
    bump[:, 2] += (25, -15)
    moved = anchored.update(cv2.warpAffine(only_one, bump, SIZE, borderValue=(140, 140, 140)))
    assert len(anchored.anchors.detect(cv2.warpAffine(only_one, bump, SIZE))) == 1
    for seat in zones.seats:
        expected = cv2.transform(zones[seat].array.reshape(-1, 1, 2), bump).reshape(-1, 2)
        np.testing.assert_allclose(moved[seat].array, expected, atol=2.0)  # a homography from 4 corners: 22 px off


def test_markers_can_be_looked_for_every_few_frames():
    zones = ZoneMap.around_table(["Ann", "Bob"], SIZE)
    table = marker_table()
    anchored = AnchoredZones(zones, MarkerAnchors.calibrate(table), every=3)
    bumped = cv2.warpAffine(table, np.array([[1, 0, 30], [0, 1, 0]], np.float32), SIZE, borderValue=(140, 140, 140))
    first = anchored.update(bumped)  # call 1 looks
    assert first["Ann"].array[0, 0] == pytest.approx(zones["Ann"].array[0, 0] + 30, abs=1)
    assert anchored.update(table) is first and anchored.update(table) is first  # calls 2, 3 do not look
    assert anchored.update(table)["Ann"].array[0, 0] == pytest.approx(zones["Ann"].array[0, 0], abs=1)  # call 4 looks
    with pytest.raises(ValueError):
        AnchoredZones(zones, anchored.anchors, every=0)


def test_marker_errors():
    with pytest.raises(MarkerError, match="no ArUco markers"):
        MarkerAnchors.calibrate(np.full((100, 100, 3), 128, np.uint8))
    with pytest.raises(ZoneError):
        MarkerAnchors({})
    with pytest.raises(ZoneError, match="marker"):
        MarkerAnchors({"x": [[0, 0], [1, 0], [1, 1], [0, 1]]})
    with pytest.raises(MarkerError, match="dictionary"):
        MarkerAnchors({1: [[0, 0], [1, 0], [1, 1], [0, 1]]}, dictionary="DICT_NOPE").detect(marker_table())


def test_draw_zones_marks_zones_and_ignored_cards_without_touching_the_frame():
    frame = np.full((480, 640, 3), 90, np.uint8)
    zones = ZoneMap.around_table(["Ann", "Bob"], (640, 480), margin=0.1)
    before = frame.copy()
    out = draw_zones(frame, zones, detections=[det("QS", 320, 400), det("KH", 10, 10)])
    np.testing.assert_array_equal(frame, before)
    assert out.shape == frame.shape and out.dtype == np.uint8
    assert (out != frame).any(axis=2).mean() > 0.3  # the zones are tinted
    # The card outside every zone is marked in pure red.
    corner = out[:30, :30].reshape(-1, 3)
    assert ((corner[:, 2] > 200) & (corner[:, 0] < 60) & (corner[:, 1] < 60)).any()
