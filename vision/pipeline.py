"""What happens to one frame: from the camera's picture to what changed on the table.

:class:`FrameStep` is the one place a frame goes through the vision, for
``companion serve`` (its recognise thread), ``companion demo`` (each frame
it draws) and :func:`watch` (any source, frame by frame):

1. ``detect`` reads the cards in the frame (``Recognizer().detect``, or a
   stand-in); with ``skip_still`` a table that has stopped changing is
   answered from its last reads (:class:`~vision.still.StillFrames`);
2. :class:`~vision.still.TableChanges` notes where the picture changed (a
   card is laid by a hand; one read where nothing moved is put to a person);
3. ``zones`` gives the seat zones for the frame (the camera page's, or
   zones that follow the markers);
4. the :class:`~vision.tracker.Tracker` turns the reads into the few events
   a referee wants: "QS now lies in Bob's zone".

What becomes of those events is the caller's: the table loop
(``companion.app.serve.TableLoop``) makes them record events for the
referee. Where frames come from and when is the caller's too.

>>> import numpy as np
>>> from vision.detection import Detection
>>> from vision.tracker import Tracker
>>> queen = Detection("QS", 0.95, np.array([[100, 100], [160, 100], [160, 190], [100, 190]], np.float32))
>>> step = FrameStep(lambda image: [queen], Tracker(confirm_frames=2))
>>> table = np.full((480, 640, 3), 90, np.uint8)
>>> step(table, 0), [e.code for e in step(table, 1)]
([], ['QS'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from vision.detection import Detection
from vision.sources import Frame
from vision.still import StillFrames, TableChanges
from vision.tracker import Event, Tracker
from vision.zones import AnchoredZones, ZoneMap

Detect = Callable[[np.ndarray], Sequence[Detection]]
"""Image -> the cards read in it."""

ZonesFor = Callable[[np.ndarray, Sequence[Detection]], ZoneMap | None]
"""(image, its cards) -> the seat zones to place them with; None keeps the tracker's own."""


class FrameStep:
    """One frame through the recogniser, the still-table skip, the seat zones and the tracker.

    ``skip_still`` wraps ``detect`` in :class:`~vision.still.StillFrames`
    (kept as ``still``, for its counts), which then keeps ``changes`` from
    its own thumbnail; without it the step keeps them. ``zones`` is called with each frame and its reads
    (the live loop's keeps the frame for the camera page too); without it
    the tracker keeps the zones it was made with.
    """

    def __init__(self, detect: Detect, tracker: Tracker, *, skip_still: bool = False,
                 zones: ZonesFor | None = None) -> None:
        self.changes = TableChanges()
        self.still = StillFrames(detect, changes=self.changes) if skip_still else None
        self.detect: Detect = self.still if self.still is not None else detect
        self.tracker = tracker
        self.zones = zones

    def __call__(self, image: np.ndarray, frame_index: int) -> list[Event]:
        """The tracker's events for this frame, in order.

        A frame ``detect`` cannot take raises its ``ValueError``
        (:class:`~vision.recognizer.FrameError`) and reaches neither the
        zones nor the tracker.
        """
        detections = self.detect(image)
        if self.still is None:  # the still-table skip keeps the changes from its own thumbnail
            self.changes.update(image)
        zone_map = self.zones(image, detections) if self.zones is not None else None
        return self.tracker.update(detections, zone_map=zone_map, frame_index=frame_index, changes=self.changes)


def watch(
    frames: Iterable[Frame],
    detect: Detect,
    tracker: Tracker,
    *,
    zones: AnchoredZones | None = None,
) -> Iterator[tuple[Frame, list[Event]]]:
    """Each frame of a source through a :class:`FrameStep`: yields (frame, events).

    With ``zones`` the seat zones follow the ArUco markers in every frame.
    """
    step = FrameStep(detect, tracker, zones=None if zones is None else lambda image, detections: zones.update(image))
    for frame in frames:
        yield frame, step(frame.image, frame.index)
