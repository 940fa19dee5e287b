"""Stop reading a table that has stopped changing.

Cards lie still on a table far longer than hands move over it: between two
plays a camera at ten frames a second sends dozens of frames that the
recogniser would read to the same cards.  :class:`StillFrames` wraps any
``detect`` callable and compares each frame with the table it last read, on
a thumbnail 160 pixels wide whose pixels are 8x8 averages (a camera's noise
averages away there, a card moved by a few pixels does not); once a table
has been read a few times alike and nothing has changed, it answers with
those readings at a few hundredths of a read's cost, so a Raspberry Pi
idles between plays and reads a new card at once.  :class:`TableChanges`
remembers, on the same thumbnail, where the picture last changed: a card
is laid by a hand, so one read where nothing has moved is put to a person.

>>> import numpy as np
>>> reads = []
>>> def detect(frame):
...     reads.append(frame.mean())
...     return []
>>> still = StillFrames(detect, settle_reads=2)
>>> table = np.full((720, 1280, 3), 90, np.uint8)
>>> [still(table) for _ in range(5)], len(reads)
([[], [], [], [], []], 2)
>>> table[300:420, 600:690] = 250      # a card is laid
>>> still(table), len(reads), still.frames_skipped
([], 3, 3)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.detection import Detection
from vision.recognizer import check_frame

_THUMB = 160
"""The long side, in pixels, of the thumbnail two frames are compared on."""


class StillFrames:
    """``detect`` that stops reading a table that has stopped changing.

    A frame shows the same table when no pixel of its thumbnail differs by
    more than ``tolerance`` levels (0-255, any colour channel) from that of
    the table's first frame read (not the last frame, so a slow drift adds
    up).  Such a table is read on until its last ``settle_reads`` reads
    agree (the same cards, each within a quarter of its width of where the
    others put it), or until it has been read twice that often; after that
    its frames are answered with the last ``settle_reads`` reads in turn.  Reads that disagree are
    the tracker's evidence: a card read in two frames of five is read in
    more frames, as when every frame is read, and a chance misread comes
    back as seldom as it was read, never repeated into a card.  Every
    ``refresh_frames``-th frame is read all the same and replaces the
    oldest reading.  Keep ``settle_reads`` at least the tracker's
    ``window``.  Given ``changes``, it keeps that
    :class:`TableChanges` up to date with every frame from its own
    thumbnail, so that a frame is shrunk once.  A frame that is no image raises
    :class:`~vision.recognizer.FrameError`, as the recogniser does, and
    changes nothing here.
    """

    def __init__(self, detect: Callable[[np.ndarray], Sequence[Detection]], *, tolerance: float = 12.0,
                 settle_reads: int = 5, refresh_frames: int = 30, changes: TableChanges | None = None) -> None:
        if not 0 <= tolerance <= 255:
            raise ValueError(f"tolerance must be within [0, 255] levels, got {tolerance!r}")
        for name, value in (("settle_reads", settle_reads), ("refresh_frames", refresh_frames)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int of at least 1, got {value!r}")
        self.detect = detect
        self.changes = changes
        self.tolerance = float(tolerance)
        self.settle_reads = settle_reads
        self.refresh_frames = refresh_frames
        self.frames_read = 0
        self.frames_skipped = 0
        self._table: np.ndarray | None = None      # the thumbnail of the table's first frame read
        self._reads: deque[list[Detection]] = deque(maxlen=settle_reads)
        self._table_reads = 0                      # reads of this table so far
        self._settled = False                      # read enough to answer from the reads
        self._turn = 0
        self._since_read = 0

    def __call__(self, frame_bgr: np.ndarray) -> list[Detection]:
        frame = check_frame(frame_bgr)
        thumb = _thumbnail(frame)
        if self.changes is not None:
            self.changes._take(thumb, frame.shape[1])
        same = (self._table is not None and self._table.shape == thumb.shape
                and cv2.norm(thumb, self._table, cv2.NORM_INF) <= self.tolerance)
        if same and self._settled and self._since_read + 1 < self.refresh_frames:
            self._since_read += 1
            self.frames_skipped += 1
            replay, self._turn = self._reads[self._turn], (self._turn + 1) % len(self._reads)
            return list(replay)
        detections = list(self.detect(frame))
        if not same:
            self._table, self._turn, self._table_reads = thumb, 0, 0
            self._reads.clear()
        self._reads.append(detections)
        self._table_reads += 1
        # Read enough: the last settle_reads reads agree, or this table has been read twice as often.
        self._settled = len(self._reads) == self.settle_reads and (
            self._table_reads >= 2 * self.settle_reads or all(_alike(detections, r) for r in self._reads))
        self._since_read = 0
        self.frames_read += 1
        return list(detections)


class TableChanges:
    """Where the picture of the table last changed, counted in the frames given to :meth:`update`.

    A card comes with a hand: the place it is laid at changes in the picture
    a moment before it is read.  A card read where nothing has changed for
    seconds is a likeness the recogniser found in the cards lying there (a
    corner box across a row, pips taken for an index), or a card read very
    late; the tracker reports it uncertain, for a person to confirm
    (:class:`~vision.tracker.Tracker`'s ``fresh_frames``).  Each pixel of the
    same thumbnail as :class:`StillFrames` compares (8x8 averages, so a
    camera's noise does not count) remembers the last frame in which it
    moved more than ``tolerance`` levels from the level it had then; the
    first frame, and a frame of another size, change everything.

    >>> changes = TableChanges()
    >>> table = np.full((720, 1280, 3), 90, np.uint8)
    >>> for _ in range(40):
    ...     changes.update(table)
    >>> table[300:420, 600:690] = 250      # a card is laid
    >>> changes.update(table)
    >>> card = np.array([[600, 300], [690, 300], [690, 420], [600, 420]])
    >>> changes.quiet_frames(card), changes.quiet_frames(card + 300)
    (0, 40)
    """

    def __init__(self, *, tolerance: float = 12.0) -> None:
        if not 0 <= tolerance <= 255:
            raise ValueError(f"tolerance must be within [0, 255] levels, got {tolerance!r}")
        self.tolerance = float(tolerance)
        self.frames = 0
        self._level: np.ndarray | None = None     # each thumbnail pixel's level when it last changed
        self._changed: np.ndarray | None = None   # ... and the frame (count, from 0) it changed in
        self._scale = 1.0

    def update(self, frame_bgr: np.ndarray) -> None:
        """Take the next frame; one that is no image raises :class:`~vision.recognizer.FrameError`
        and changes nothing."""
        frame = check_frame(frame_bgr)
        self._take(_thumbnail(frame), frame.shape[1])

    def _take(self, thumb: np.ndarray, frame_width: int) -> None:
        now = self.frames
        if self._level is None or self._changed is None or self._level.shape != thumb.shape:
            self._level, self._changed = thumb.copy(), np.full(thumb.shape[:2], now, np.int64)
            self._scale = thumb.shape[1] / frame_width
        else:
            diff = cv2.absdiff(thumb, self._level)
            moved = np.maximum(np.maximum(diff[..., 0], diff[..., 1]), diff[..., 2]) > self.tolerance
            self._level[moved] = thumb[moved]
            self._changed[moved] = now
        self.frames = now + 1

    def quiet_frames(self, outline: np.ndarray | Sequence[Sequence[float]]) -> int:
        """Frames since the picture last changed anywhere within ``outline`` (frame pixels): 0 where
        it changed in the last frame given, or where it cannot tell (no frame yet, outside the picture)."""
        if self._changed is None:
            return 0
        mask = np.zeros(self._changed.shape, np.uint8)
        pts = np.asarray(outline, np.float64).reshape(-1, 2) * self._scale
        if not np.isfinite(pts).all():
            return 0
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
        inside = self._changed[mask > 0]
        return self.frames - 1 - int(inside.max()) if inside.size else 0


def _thumbnail(frame: np.ndarray) -> np.ndarray:
    """The frame _THUMB pixels on its long side, area-averaged."""
    h, w = frame.shape[:2]
    scale = _THUMB / max(h, w)
    return cv2.resize(frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)


def _alike(a: Sequence[Detection], b: Sequence[Detection]) -> bool:
    """The same cards in two reads, each within a quarter of its width of where the other puts it."""
    if len(a) != len(b):
        return False
    for d in a:
        (x, y), width = d.centre, float(np.hypot(*(d.outline[1] - d.outline[0])))
        if not any(e.code == d.code and np.hypot(e.centre[0] - x, e.centre[1] - y) <= 0.25 * width for e in b):
            return False
    return True
