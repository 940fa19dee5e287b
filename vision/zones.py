"""Seat zones: which player a card on the table belongs to.

Each seat owns a polygon of the camera image; a card belongs to the seat
whose polygon holds the card's centre. A ``centre`` zone (the middle of the
table) is just another named zone. Zones come from the config's ``[zones]``
table, a plain ``{seat: [[x, y], ...]}`` dict, and can follow a bumped camera
through ArUco markers taped to the table (:class:`MarkerAnchors`).

>>> zones = ZoneMap.from_dict({"Ann": [[0, 0], [100, 0], [100, 50], [0, 50]],
...                            "Bob": [[0, 50], [100, 50], [100, 100], [0, 100]]})
>>> zones.zone_at((10, 20)), zones.zone_at((10, 70)), zones.zone_at((500, 500))
('Ann', 'Bob', None)
>>> zones.zone_at((10, 50))  # on the shared border: the first zone listed wins
'Ann'
>>> ZoneMap.from_dict({"Ann": [[0, 0], [10, 10], [10, 0], [0, 10]]})
Traceback (most recent call last):
...
vision.zones.ZoneError: zone 'Ann': the polygon crosses itself (edges 0 and 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cv2
import numpy as np

from vision.detection import Detection

CENTRE = "centre"
"""The conventional name of the zone in the middle of the table (not a player)."""

Point = tuple[float, float]


class ZoneError(ValueError):
    """Raised for a zone that cannot be used: too few points, not numbers, a polygon that crosses itself."""


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _segments_cross(p1: Point, p2: Point, q1: Point, q2: Point) -> bool:
    """True when the closed segments p1p2 and q1q2 share a point."""
    d1, d2 = _cross(q1, q2, p1), _cross(q1, q2, p2)
    d3, d4 = _cross(p1, p2, q1), _cross(p1, p2, q2)
    if ((d1 > 0) != (d2 > 0)) and d1 != 0 and d2 != 0 and ((d3 > 0) != (d4 > 0)) and d3 != 0 and d4 != 0:
        return True

    def on(a: Point, b: Point, c: Point, d: float) -> bool:
        return d == 0 and min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])

    return on(q1, q2, p1, d1) or on(q1, q2, p2, d2) or on(p1, p2, q1, d3) or on(p1, p2, q2, d4)


def _read_polygon(seat: str, points: Any) -> tuple[Point, ...]:
    try:
        pts = [(float(p[0]), float(p[1])) for p in points]
        if any(len(p) != 2 for p in points):
            raise TypeError
    except (TypeError, ValueError, IndexError, KeyError):
        raise ZoneError(f"zone {seat!r}: expected a list of [x, y] number pairs, got {points!r}") from None
    if any(isinstance(c, bool) for p in points for c in p):
        raise ZoneError(f"zone {seat!r}: coordinates must be numbers, got {points!r}")
    if not all(math.isfinite(c) for p in pts for c in p):
        raise ZoneError(f"zone {seat!r}: coordinates must be finite numbers")
    if len(pts) < 3:
        raise ZoneError(f"zone {seat!r}: a polygon needs at least 3 points, got {len(pts)}")
    n = len(pts)
    for i in range(n):
        for j in range(i + 1, n):
            adjacent = j == i + 1 or (i == 0 and j == n - 1)
            if adjacent:
                continue
            if _segments_cross(pts[i], pts[(i + 1) % n], pts[j], pts[(j + 1) % n]):
                raise ZoneError(f"zone {seat!r}: the polygon crosses itself (edges {i} and {j})")
    area = 0.5 * abs(sum(pts[i][0] * pts[(i + 1) % n][1] - pts[(i + 1) % n][0] * pts[i][1] for i in range(n)))
    if area <= 0:
        raise ZoneError(f"zone {seat!r}: the polygon has no area")
    return tuple(pts)


@dataclass(frozen=True)
class Zone:
    """A seat's part of the image: a simple polygon in image pixel coordinates."""

    seat: str
    polygon: tuple[Point, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.seat, str) or not self.seat:
            raise ZoneError(f"a zone needs a seat name, got {self.seat!r}")
        object.__setattr__(self, "polygon", _read_polygon(self.seat, self.polygon))

    @cached_property
    def array(self) -> np.ndarray:
        """The polygon as a read-only ``(n, 2)`` float32 array, as OpenCV wants it."""
        array = np.asarray(self.polygon, dtype=np.float32)
        array.setflags(write=False)
        return array

    @cached_property
    def area(self) -> float:
        return float(abs(cv2.contourArea(self.array)))

    def distance(self, point: Point) -> float:
        """Signed distance from the border: positive inside, 0 on it, negative outside."""
        return float(cv2.pointPolygonTest(self.array, (float(point[0]), float(point[1])), True))

    def contains(self, point: Point) -> bool:
        """True when ``point`` lies inside or on the border."""
        return self.distance(point) >= 0

    def transformed(self, homography: np.ndarray) -> Zone:
        """The zone as seen through a 3x3 homography (the camera moved)."""
        moved = cv2.perspectiveTransform(self.array.reshape(-1, 1, 2), np.asarray(homography, dtype=np.float64))
        return Zone(self.seat, tuple((float(x), float(y)) for x, y in moved.reshape(-1, 2)))


class ZoneMap:
    """The seat zones of one table, in a fixed order.

    A point inside one zone belongs to it. Where zones overlap, the smaller
    zone wins (so a ``centre`` zone drawn over the seats takes the middle);
    a point exactly on a border between zones goes to the zone listed first,
    so the answer never depends on rounding luck. A point outside every zone
    belongs to nobody (``None``): the game ignores such a card, the
    calibration view shows it.
    """

    def __init__(self, zones: Iterable[Zone]) -> None:
        self._zones: tuple[Zone, ...] = tuple(zones)
        seats = [z.seat for z in self._zones]
        dupes = sorted({s for s in seats if seats.count(s) > 1})
        if dupes:
            raise ZoneError(f"each seat may have one zone; repeated: {', '.join(dupes)}")

    @property
    def zones(self) -> tuple[Zone, ...]:
        return self._zones

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(z.seat for z in self._zones)

    def __len__(self) -> int:
        return len(self._zones)

    def __getitem__(self, seat: str) -> Zone:
        for z in self._zones:
            if z.seat == seat:
                return z
        raise KeyError(seat)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZoneMap) and self._zones == other._zones

    def __repr__(self) -> str:
        return f"ZoneMap({list(self.seats)!r})"

    def zone_at(self, point: Point) -> str | None:
        """The seat whose zone holds ``point``, or ``None``."""
        best: tuple[int, float, int] | None = None  # (inside?, area, order): smaller wins
        for order, z in enumerate(self._zones):
            d = z.distance(point)
            if d < 0:
                continue
            key = (0 if d > 0 else 1, z.area if d > 0 else 0.0, order)
            if best is None or key < best:
                best = key
        return None if best is None else self._zones[best[2]].seat

    def assign(self, detection: Detection) -> str | None:
        """The seat of a detected card: the zone holding its centre."""
        return self.zone_at(detection.centre)

    def split(self, detections: Iterable[Detection]) -> tuple[dict[str, list[Detection]], list[Detection]]:
        """Detections by seat, and those outside every zone (for the calibration view)."""
        by_seat: dict[str, list[Detection]] = {}
        outside: list[Detection] = []
        for d in detections:
            seat = self.assign(d)
            if seat is None:
                outside.append(d)
            else:
                by_seat.setdefault(seat, []).append(d)
        return by_seat, outside

    def transformed(self, homography: np.ndarray) -> ZoneMap:
        """Every zone moved by the same homography."""
        return ZoneMap(z.transformed(homography) for z in self._zones)

    @classmethod
    def from_dict(cls, data: Mapping[str, Sequence[Sequence[float]]]) -> ZoneMap:
        """Read the config's ``[zones]`` table: ``{seat: [[x, y], ...]}``."""
        if not isinstance(data, Mapping):
            raise ZoneError(f"zones must be a table of seat = [[x, y], ...], got {type(data).__name__}")
        return cls(Zone(str(seat), points) for seat, points in data.items())  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, list[list[float]]]:
        """The ``[zones]`` table to save: plain lists, rounded to 0.1 px."""
        return {z.seat: [[round(x, 1), round(y, 1)] for x, y in z.polygon] for z in self._zones}

    @classmethod
    def around_table(
        cls,
        seats: Sequence[str],
        size: tuple[int, int],
        *,
        margin: float = 0.02,
        centre: float | None = 0.4,
    ) -> ZoneMap:
        """Default zones: seats round the edge of a rectangular table filling the image.

        The first seat sits at the bottom edge (nearest the camera's lower
        side) and the following ones go round clockwise on screen, so each
        sits to the left of the one before as the players face the centre.
        With ``centre`` a fraction (of the table's width and height) a
        ``centre`` zone takes the middle; ``None`` gives the whole table to
        the seats.

        >>> ZoneMap.around_table(["Ann", "Bob", "Cy"], (1280, 720)).seats
        ('Ann', 'Bob', 'Cy', 'centre')
        >>> z = ZoneMap.around_table(["Ann", "Bob", "Cy", "Dee"], (1280, 720))
        >>> [z.zone_at(p) for p in [(640, 700), (40, 360), (640, 30), (1240, 360), (640, 360)]]
        ['Ann', 'Bob', 'Cy', 'Dee', 'centre']
        """
        if not seats:
            raise ZoneError("around_table needs at least one seat")
        if CENTRE in seats and centre is not None:
            raise ZoneError(f"{CENTRE!r} is the middle zone's name; it cannot also be a seat")
        if centre is not None and not 0 < centre < 1:
            raise ZoneError(f"centre must be a fraction between 0 and 1, got {centre!r}")
        w, h = size
        cx, cy = w / 2, h / 2
        hw, hh = w / 2 * (1 - 2 * margin), h / 2 * (1 - 2 * margin)
        inner = centre if centre is not None else 0.0

        def edge(angle: float, scale: float) -> Point:
            dx, dy = math.cos(angle), math.sin(angle)
            t = min(hw / abs(dx) if abs(dx) > 1e-12 else math.inf, hh / abs(dy) if abs(dy) > 1e-12 else math.inf)
            return (cx + dx * t * scale, cy + dy * t * scale)

        corners = [math.atan2(sy * hh, sx * hw) % (2 * math.pi) for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))]
        step = 2 * math.pi / len(seats)
        zones = []
        for i, seat in enumerate(seats):
            a0 = math.pi / 2 + (i - 0.5) * step
            a1 = a0 + step
            between = sorted(a0 + ((c - a0) % (2 * math.pi)) for c in corners)
            angles = [a0] + [a for a in between if a0 < a < a1] + [a1]
            outer = [edge(a, 1.0) for a in angles]
            polygon = outer + ([edge(a, inner) for a in reversed(angles)] if inner else [(cx, cy)])
            zones.append(Zone(seat, tuple(polygon)))
        if centre is not None:
            zones.append(Zone(CENTRE, tuple(edge(a, centre) for a in corners)))
        return cls(zones)


class MarkerError(RuntimeError):
    """Raised when ArUco markers cannot be used: OpenCV without ``cv2.aruco``, or no markers in a calibration frame."""


def _aruco() -> Any:
    aruco = getattr(cv2, "aruco", None)
    if aruco is None or not hasattr(aruco, "ArucoDetector"):
        raise MarkerError(f"this OpenCV ({cv2.__version__}) has no cv2.aruco.ArucoDetector; install opencv-python-headless>=4.7")
    return aruco


class MarkerAnchors:
    """ArUco markers taped to the table, so the zones follow a bumped camera.

    ``reference`` maps each marker id to its four corners (``(4, 2)``) where
    they were when the zones were drawn. In a later frame the markers found
    again give a homography from the reference positions to the current ones,
    and the zones move by it. With one or two markers in view the camera is
    taken to have turned, shifted or zoomed (a similarity transform); three
    or more, far apart, also follow a tilt (a full homography, RANSAC).

    >>> MarkerAnchors({7: [[0, 0], [10, 0], [10, 10], [0, 10]]}).to_dict()
    {'7': [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]}
    """

    def __init__(self, reference: Mapping[int, Any] | Mapping[str, Any], *, dictionary: str = "DICT_4X4_50") -> None:
        """``reference``: each marker's four corners by its id, a number or its text (as TOML keys are)."""
        ref: dict[int, np.ndarray] = {}
        for key, corners in reference.items():
            try:
                arr = np.asarray(corners, dtype=np.float32).reshape(4, 2)
                marker_id = int(key)
            except (TypeError, ValueError):
                raise ZoneError(f"marker {key!r}: expected an integer id and four [x, y] corners") from None
            if not np.isfinite(arr).all():
                raise ZoneError(f"marker {key!r}: corners must be finite numbers")
            ref[marker_id] = arr
        if not ref:
            raise ZoneError("MarkerAnchors needs at least one reference marker")
        self.reference = ref
        self.dictionary = dictionary
        self._detector: Any = None

    def _get_detector(self) -> Any:
        if self._detector is None:
            aruco = _aruco()
            kind = getattr(aruco, self.dictionary, None)
            if kind is None:
                raise MarkerError(f"unknown ArUco dictionary {self.dictionary!r}")
            params = aruco.DetectorParameters()
            params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX  # sub-pixel corners: a steadier homography
            self._detector = aruco.ArucoDetector(aruco.getPredefinedDictionary(kind), params)
        return self._detector

    def detect(self, frame: np.ndarray) -> dict[int, np.ndarray]:
        """The markers visible in ``frame``: id -> ``(4, 2)`` corners."""
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._get_detector().detectMarkers(gray)
        if ids is None:
            return {}
        return {int(i): np.asarray(c, dtype=np.float32).reshape(4, 2) for i, c in zip(np.asarray(ids).reshape(-1), corners)}

    def homography(self, frame: np.ndarray) -> np.ndarray | None:
        """Reference positions -> positions in ``frame``, or ``None`` when no known marker is visible."""
        found = self.detect(frame)
        common = sorted(set(found) & set(self.reference))
        if not common:
            return None
        src = np.concatenate([self.reference[i] for i in common])
        dst = np.concatenate([found[i] for i in common])
        if len(common) >= 3:
            h, _ = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
            return h
        # One or two small markers pin a full perspective badly far from them: assume the camera
        # turned, shifted or zoomed (a similarity), which is what a knock does.
        m, _ = cv2.estimateAffinePartial2D(src, dst)
        return None if m is None else np.vstack([m, [0.0, 0.0, 1.0]])

    @classmethod
    def calibrate(cls, frame: np.ndarray, *, dictionary: str = "DICT_4X4_50") -> MarkerAnchors:
        """Record where the markers are now, in the frame the zones are drawn on."""
        probe = cls({0: [[0, 0], [1, 0], [1, 1], [0, 1]]}, dictionary=dictionary)
        found = probe.detect(frame)
        if not found:
            raise MarkerError("no ArUco markers found in the calibration frame")
        return cls(found, dictionary=dictionary)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, dictionary: str = "DICT_4X4_50") -> MarkerAnchors:
        """Read a config table ``{"id": [[x, y] x 4]}`` (TOML keys are text)."""
        return cls(data, dictionary=dictionary)

    def to_dict(self) -> dict[str, list[list[float]]]:
        return {str(i): [[round(float(x), 1), round(float(y), 1)] for x, y in c] for i, c in sorted(self.reference.items())}


class AnchoredZones:
    """Zones that follow the markers: call :meth:`update` with each frame (or every few).

    When no known marker is visible (a hand over it) the last placement is
    kept, since a camera does not move back by itself. Looking for markers
    costs tens of milliseconds a frame; with ``every=n`` only every n-th
    call looks (a knocked camera is rare, and followed within n frames).
    """

    def __init__(self, zones: ZoneMap, anchors: MarkerAnchors, *, every: int = 1) -> None:
        if every < 1:
            raise ValueError(f"every must be at least 1, got {every!r}")
        self.reference = zones
        self.anchors = anchors
        self.every = every
        self.current = zones
        self.homography: np.ndarray | None = None
        self._calls = 0

    def update(self, frame: np.ndarray) -> ZoneMap:
        self._calls += 1
        if (self._calls - 1) % self.every:
            return self.current
        h = self.anchors.homography(frame)
        if h is not None:
            try:
                self.current = self.reference.transformed(h)
                self.homography = h
            except ZoneError:
                pass  # a degenerate fit (markers half hidden) would fold the zones; keep the last good placement
        return self.current


_PALETTE = [(66, 135, 245), (60, 180, 75), (230, 160, 40), (200, 70, 200), (40, 200, 220), (245, 100, 80),
            (150, 150, 255), (120, 220, 160), (90, 90, 200)]


def draw_zones(
    frame: np.ndarray,
    zone_map: ZoneMap,
    *,
    detections: Iterable[Detection] = (),
    alpha: float = 0.25,
) -> np.ndarray:
    """A copy of ``frame`` with the zones tinted and named, for the calibration view.

    Detections are outlined in their seat's colour; those outside every zone
    in red with a cross, so the person calibrating sees what is ignored.
    """
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    overlay = out.copy()
    colours = {}
    for i, z in enumerate(zone_map.zones):
        colour = (200, 200, 200) if z.seat == CENTRE else _PALETTE[i % len(_PALETTE)]
        colours[z.seat] = colour
        cv2.fillPoly(overlay, [np.round(z.array).astype(np.int32)], colour)
    out = cv2.addWeighted(overlay, alpha, out, 1 - alpha, 0)
    for z in zone_map.zones:
        pts = np.round(z.array).astype(np.int32)
        cv2.polylines(out, [pts], True, colours[z.seat], 2, cv2.LINE_AA)
        cx, cy = z.array.mean(axis=0)
        cv2.putText(out, z.seat, (int(cx) - 6 * len(z.seat), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, z.seat, (int(cx) - 6 * len(z.seat), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2, cv2.LINE_AA)
    for d in detections:
        seat = zone_map.assign(d)
        pts = np.round(np.asarray(d.outline, dtype=np.float32)).astype(np.int32)
        colour = (0, 0, 255) if seat is None else colours[seat]
        cv2.polylines(out, [pts], True, colour, 3, cv2.LINE_AA)
        x, y = (int(v) for v in d.centre)
        if seat is None:
            cv2.line(out, (x - 12, y - 12), (x + 12, y + 12), colour, 3)
            cv2.line(out, (x - 12, y + 12), (x + 12, y - 12), colour, 3)
        cv2.putText(out, d.code, (x + 8, y - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
    return out
