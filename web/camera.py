"""What the camera page needs from the camera, as a small protocol.

The web app never talks to the camera or the recogniser: the serve loop hands
it an object with these methods (``CameraView``) and keeps it current. Zones
are the config's ``[zones]`` table: seat name -> polygon in frame pixels, the
same as ``vision.zones.ZoneMap.from_dict`` reads; the editor draws them over
the frame and posts them back, and ``validate_zones`` checks them (also
against the frame, when its size is known) before ``set_zones`` sees them.

>>> validate_zones({"Ann": [[0, 0], [320, 0], [320, 480], [0, 480]]}, size=(640, 480))
{'Ann': [[0.0, 0.0], [320.0, 0.0], [320.0, 480.0], [0.0, 480.0]]}
>>> validate_zones({"Ann": [[0, 0], [700, 0], [0, 480]]}, size=(640, 480))
Traceback (most recent call last):
...
web.camera.ZoneError: zone 'Ann', corner 2: [700, 0] lies outside the 640x480 frame
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from vision.detection import Detection

Polygon = list[list[float]]

MAX_ZONES = 16
MAX_CORNERS = 24
MAX_NAME = 40
CENTRE = "centre"
"""The middle of the table (``vision.zones.CENTRE``): a zone, but nobody's seat."""


class ZoneError(ValueError):
    """A zone map that cannot be saved: the message names the zone (and the corner)."""


class ZonesNotSaved(ZoneError):
    """Good zones that could not be written where they are kept (a read-only or full disk); nothing changed."""


@runtime_checkable
class CameraView(Protocol):
    """The live camera as the web pages see it (implemented by the serve loop)."""

    def latest_jpeg(self) -> bytes | None:
        """The newest frame, JPEG-encoded; None before the first frame."""

    def frame_size(self) -> tuple[int, int] | None:
        """(width, height) of the newest frame in pixels; None before the first frame."""

    def detections(self) -> Sequence[Detection]:
        """The cards recognised in the newest frame (outlines in frame pixels)."""

    def zones(self) -> dict[str, Polygon]:
        """Seat name -> polygon in frame pixels (the config's ``[zones]``)."""

    def set_zones(self, zones: dict[str, Polygon]) -> None:
        """Keep these zones (they have passed ``validate_zones``), then use them from now on.

        Raises ``ZonesNotSaved`` when they cannot be kept; the zones in use stay as they were.
        """


class MemoryCameraView:
    """A camera view that holds one still frame and its zones in memory.

    For tests, and the reference for the real one: it behaves like a camera
    that always sees the same picture.
    """

    def __init__(
        self,
        *,
        jpeg: bytes | None = None,
        size: tuple[int, int] | None = None,
        detections: Sequence[Detection] = (),
        zones: Mapping[str, Polygon] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._jpeg, self._size, self._detections = jpeg, size, tuple(detections)
        self._zones = validate_zones(dict(zones), size=size) if zones else {}

    def latest_jpeg(self) -> bytes | None:
        with self._lock:
            return self._jpeg

    def frame_size(self) -> tuple[int, int] | None:
        with self._lock:
            return self._size

    def detections(self) -> Sequence[Detection]:
        with self._lock:
            return self._detections

    def zones(self) -> dict[str, Polygon]:
        with self._lock:
            return {name: [list(p) for p in poly] for name, poly in self._zones.items()}

    def set_zones(self, zones: dict[str, Polygon]) -> None:
        checked = validate_zones(zones, size=self.frame_size())
        with self._lock:
            self._zones = checked

    def show(self, jpeg: bytes, size: tuple[int, int], detections: Sequence[Detection] = ()) -> None:
        """Replace the frame, as the serve loop does for every new one."""
        with self._lock:
            self._jpeg, self._size, self._detections = jpeg, size, tuple(detections)


def validate_zones(zones: object, *, size: tuple[int, int] | None = None) -> dict[str, Polygon]:
    """Check a zone map from the editor and return a clean copy (floats, names stripped).

    Each zone: a name of 1-40 characters, 3 to 24 corners, each ``[x, y]`` two
    finite numbers (not booleans) inside the frame when ``size`` is known; the
    polygon must not cross itself (``vision.zones`` decides that).
    """
    if not isinstance(zones, dict):
        raise ZoneError("zones must be an object mapping each seat's name to its polygon")
    if len(zones) > MAX_ZONES:
        raise ZoneError(f"at most {MAX_ZONES} zones, not {len(zones)}")
    clean: dict[str, Polygon] = {}
    for name, poly in zones.items():
        label = name.strip() if isinstance(name, str) else ""
        if not 1 <= len(label) <= MAX_NAME or not label.isprintable():
            raise ZoneError(f"zone name {name!r} must be 1 to {MAX_NAME} printable characters")
        if label in clean:
            raise ZoneError(f"zone {label!r} is given twice")
        if not isinstance(poly, list) or not 3 <= len(poly) <= MAX_CORNERS:
            raise ZoneError(f"zone {label!r} needs a list of 3 to {MAX_CORNERS} corners")
        corners: Polygon = []
        for i, point in enumerate(poly, 1):
            if not (isinstance(point, list) and len(point) == 2 and all(_number(v) for v in point)):
                raise ZoneError(f"zone {label!r}, corner {i}: expected [x, y], two numbers, not {point!r}")
            x, y = float(point[0]), float(point[1])
            if x < 0 or y < 0 or (size is not None and (x > size[0] or y > size[1])):
                frame = f"the {size[0]}x{size[1]} frame" if size is not None else "the frame"
                raise ZoneError(f"zone {label!r}, corner {i}: {point!r} lies outside {frame}")
            corners.append([x, y])
        clean[label] = corners
    if not any(name != CENTRE for name in clean):
        raise ZoneError("draw at least one seat's zone: without one the camera gives no card to anybody")
    from vision.zones import ZoneError as GeometryError  # OpenCV: loaded only when zones are edited
    from vision.zones import ZoneMap

    try:
        ZoneMap.from_dict(clean)
    except GeometryError as e:
        raise ZoneError(str(e)) from None
    return clean


def _number(value: Any) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer of hundreds of digits: no frame is that wide
        return False
