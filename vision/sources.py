"""Where frames come from: the Pi camera, a webcam or video, a folder of images, a simulated table.

Every source is an iterator of :class:`Frame` and a context manager, so the
loop reads any of them the same way::

    with open_source("picamera") as source:
        for frame in source:
            ...

A frame that cannot be read is skipped and counted (``source.stats``), never
a crash. A live camera that stops answering is reopened with exponential
back-off (capped), logged at WARNING each time; the clock and the sleep are
injectable so tests need no real waiting. A file or folder that does not
exist is an error when the source is made, not later.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class CameraError(RuntimeError):
    """Raised when a source cannot give frames: no camera, no driver, no usable image at all."""


class _Unreadable(Exception):
    """One frame could not be read; the source goes on with the next."""


class _Lost(Exception):
    """The device stopped answering; the source reopens it."""


@dataclass(frozen=True)
class Frame:
    """One picture: ``image`` is BGR uint8 ``(h, w, 3)`` (OpenCV's order); ``timestamp`` in seconds."""

    image: np.ndarray
    index: int
    timestamp: float


@dataclass
class SourceStats:
    """What a source has done so far: frames given, frames skipped as unreadable, reopenings."""

    frames: int = 0
    skipped: int = 0
    reconnects: int = 0


@dataclass(frozen=True)
class Backoff:
    """Waits between attempts to reopen a lost camera: ``initial`` doubling up to ``maximum`` seconds.

    ``attempts`` bounds the tries (``None``: forever, what a table wants).

    >>> [Backoff(initial=0.5, maximum=4).delay(n) for n in range(6)]
    [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    """

    initial: float = 0.5
    maximum: float = 10.0
    attempts: int | None = None

    def delay(self, attempt: int) -> float:
        return float(min(self.initial * 2 ** attempt, self.maximum))


class FrameSource:
    """The common part of every source: iteration, skipping, reconnecting, pacing, closing.

    A subclass provides ``_open()`` (acquire the device; raise
    :class:`CameraError` if it cannot), ``_grab()`` (return the next BGR
    image, ``None`` at the end of a finite source; raise ``_Unreadable`` to
    skip one frame, ``_Lost`` when the device is gone) and ``_release()``.
    """

    live = False  # a live camera reconnects; a file source ends
    max_failed_reads = 10  # consecutive unreadable frames after which a live camera counts as lost

    def __init__(
        self,
        *,
        fps: float | None = None,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if fps is not None and fps <= 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        self.fps = fps
        self.backoff = backoff
        self.stats = SourceStats()
        self._clock = clock
        self._sleep = sleep
        self._index = 0
        self._failed_in_row = 0
        self._next_due: float | None = None
        self._opened = False
        self._closed = False

    # -- the interface ---------------------------------------------------------

    def __iter__(self) -> Iterator[Frame]:
        return self

    def __next__(self) -> Frame:
        frame = self.read()
        if frame is None:
            raise StopIteration
        return frame

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the device; safe to call twice."""
        if not self._closed:
            self._closed = True
            if self._opened:
                self._opened = False
                self._release()

    def read(self) -> Frame | None:
        """The next frame, or ``None`` when a finite source is exhausted or the source is closed."""
        if self._closed:
            return None
        if not self._opened:
            self._open()
            self._opened = True
        while True:
            try:
                image = self._grab()
            except _Unreadable as e:
                self.stats.skipped += 1
                self._failed_in_row += 1
                log.warning("%s: skipped an unreadable frame (%s)", self, e)
                if self.live and self._failed_in_row >= self.max_failed_reads:
                    self._reconnect(f"{self._failed_in_row} unreadable frames in a row")
                    if self._closed:
                        return None
                continue
            except _Lost as e:
                self._reconnect(str(e))
                if self._closed:
                    return None
                continue
            if image is None:
                return None
            self._failed_in_row = 0
            self._pace()
            frame = Frame(image, self._index, self._timestamp())
            self._index += 1
            self.stats.frames += 1
            return frame

    # -- shared machinery ------------------------------------------------------

    def _timestamp(self) -> float:
        return self._clock()

    def _pace(self) -> None:
        """For replayed sources with an ``fps``: wait until the frame is due."""
        if self.fps is None or self.live:
            return
        now = self._clock()
        if self._next_due is None:
            self._next_due = now
        if self._next_due > now:
            self._sleep(self._next_due - now)
        self._next_due = max(self._next_due, now) + 1.0 / self.fps

    def _reconnect(self, why: str) -> None:
        """Close the device and reopen it, waiting longer after each failure."""
        if not self.live:
            raise CameraError(f"{self}: {why}")
        log.warning("%s: camera lost (%s); reconnecting", self, why)
        try:
            self._release()
        except Exception as e:  # a dead device may fail to close; it is being replaced anyway
            log.warning("%s: closing the lost camera failed: %s", self, e)
        self._opened = False
        attempt = 0
        while not self._closed:  # close() from another thread ends the wait
            if self.backoff.attempts is not None and attempt >= self.backoff.attempts:
                raise CameraError(f"{self}: camera lost ({why}) and not back after {attempt} attempts")
            wait = self.backoff.delay(attempt)
            log.warning("%s: retrying in %.1f s (attempt %d)", self, wait, attempt + 1)
            self._sleep(wait)
            attempt += 1
            if self._closed:
                return
            try:
                self._open()
            except CameraError as e:
                log.warning("%s: reopening failed: %s", self, e)
                continue
            self._opened = True
            self._failed_in_row = 0
            self.stats.reconnects += 1
            log.warning("%s: camera back after %d attempt(s)", self, attempt)
            return

    def _open(self) -> None:
        raise NotImplementedError

    def _grab(self) -> np.ndarray | None:
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def fit_within(image: np.ndarray, size: tuple[int, int] | None) -> np.ndarray:
    """``image`` scaled down (never up), aspect kept, to fit ``size`` = (width, height).

    Replayed photos and videos come in any size; the zones and the
    recogniser's speed expect the configured camera size at most.

    >>> fit_within(np.zeros((2000, 3000, 3), np.uint8), (1280, 720)).shape
    (720, 1080, 3)
    """
    if size is None:
        return image
    h, w = image.shape[:2]
    scale = min(size[0] / w, size[1] / h)
    if scale >= 1:
        return image
    return cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """Any 8-bit picture as 3-channel BGR (grey and BGRA files happen in folders)."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


# -- the Raspberry Pi camera ------------------------------------------------------

PICAMERA_FORMATS = ("RGB888", "BGR888", "XBGR8888", "XRGB8888")
EXPOSURE_VALUE = -2 / 3
"""The Pi camera's exposure against what its meter asks, in stops: under, because over-exposure costs
cards and under-exposure none.  A light table a sixth of a stop over loses 11 of the table photos' 68
cards, a third of a stop over 29 (the cards' white clips into the table's and their outlines go), while
two thirds of a stop under reads them as before: the recogniser lifts a dim frame (models/MODEL_CARD.md)."""


def picamera_to_bgr(array: np.ndarray, fmt: str) -> np.ndarray:
    """A picamera2 array as BGR. libcamera names formats by little-endian words, so
    ``RGB888`` arrives as B, G, R bytes (OpenCV's order, kept as is), ``BGR888`` as
    R, G, B, ``XBGR8888`` as R, G, B, X and ``XRGB8888`` as B, G, R, X.

    >>> px = np.array([[[10, 20, 30, 255]]], np.uint8)  # R, G, B, X from XBGR8888
    >>> picamera_to_bgr(px, "XBGR8888").tolist()
    [[[30, 20, 10]]]
    """
    if fmt == "RGB888":
        return array[..., :3]
    if fmt == "BGR888":
        return cv2.cvtColor(np.ascontiguousarray(array[..., :3]), cv2.COLOR_RGB2BGR)
    if fmt == "XBGR8888":
        return cv2.cvtColor(np.ascontiguousarray(array[..., :3]), cv2.COLOR_RGB2BGR)
    if fmt == "XRGB8888":
        return np.ascontiguousarray(array[..., :3])
    raise ValueError(f"unsupported picamera2 format {fmt!r}; use one of {', '.join(PICAMERA_FORMATS)}")


class PiCamera(FrameSource):
    """The Raspberry Pi camera through picamera2 (Raspberry Pi OS: ``apt install python3-picamera2``).

    Few buffers and no queue, so each frame is the newest one and the
    referee never looks at the table as it was a second ago. Its automatic
    exposure is set ``exposure_value`` stops from what it meters
    (``EXPOSURE_VALUE``: under, so that a card's white never clips into a
    light table's). picamera2 is imported when the camera opens, so this
    module loads anywhere.
    """

    live = True

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1280, 720),
        fps: float = 15.0,
        format: str = "RGB888",
        camera_num: int = 0,
        buffer_count: int = 2,
        exposure_value: float = EXPOSURE_VALUE,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if format not in PICAMERA_FORMATS:
            raise ValueError(f"unsupported picamera2 format {format!r}; use one of {', '.join(PICAMERA_FORMATS)}")
        if not -8.0 <= exposure_value <= 8.0:
            raise ValueError(f"exposure_value must be within [-8, 8] stops, got {exposure_value!r}")
        super().__init__(fps=fps, backoff=backoff, clock=clock, sleep=sleep)
        self.size = (int(size[0]), int(size[1]))
        self.format = format
        self.camera_num = camera_num
        self.buffer_count = buffer_count
        self.exposure_value = float(exposure_value)
        self._cam: Any = None

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as e:
            raise CameraError(
                "picamera2 is not available: it ships with Raspberry Pi OS (apt install python3-picamera2; "
                "create the venv with --system-site-packages). Elsewhere use a webcam index, a video or a folder."
            ) from e
        try:
            cam = Picamera2(self.camera_num)
            config = cam.create_video_configuration(
                main={"size": self.size, "format": self.format},
                buffer_count=self.buffer_count,
                queue=False,
                controls={"FrameRate": float(self.fps or 15.0), "ExposureValue": self.exposure_value},
            )
            cam.configure(config)
            cam.start()
        except Exception as e:  # picamera2 raises plain RuntimeError/IndexError for a missing or busy camera
            raise CameraError(f"cannot open Pi camera {self.camera_num}: {e}") from e
        self._cam = cam

    def _grab(self) -> np.ndarray | None:
        try:
            request = self._cam.capture_request()
        except Exception as e:
            raise _Lost(f"capture failed: {e}") from e
        try:
            array = request.make_array("main")
        except Exception as e:
            raise _Unreadable(str(e)) from e
        finally:
            request.release()
        return picamera_to_bgr(array, self.format)

    def _release(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()

    def __repr__(self) -> str:
        return f"PiCamera(camera_num={self.camera_num}, size={self.size}, fps={self.fps})"


# -- webcams and video files ----------------------------------------------------


def _is_device(text: str) -> bool:
    """A live camera named by text: a device node (``/dev/video0``) or a stream address (``rtsp://...``)."""
    return text.startswith("/dev/") or "://" in text


class OpenCVCamera(FrameSource):
    """A webcam (an index such as ``0``, a device such as ``/dev/video0``, a stream
    address) or a video file, through ``cv2.VideoCapture``.

    A video's frames are scaled down to fit ``size`` if given (a webcam is
    asked for that size). A webcam is live: failed reads are skipped, and after
    ``max_failed_reads`` in a row it is reopened with back-off. A video ends
    at its last frame (or starts again with ``loop=True``). ``capture`` makes
    the capture object (``cv2.VideoCapture`` by default; tests pass a fake).
    """

    def __init__(
        self,
        device: int | str | os.PathLike[str],
        *,
        size: tuple[int, int] | None = None,
        fps: float | None = None,
        loop: bool = False,
        backoff: Backoff = Backoff(),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        capture: Callable[..., Any] = cv2.VideoCapture,
    ) -> None:
        super().__init__(fps=fps, backoff=backoff, clock=clock, sleep=sleep)
        if isinstance(device, int) or _is_device(str(device)):
            self.live = True
        else:
            self.live = False
            device = Path(device)
            if not device.is_file():
                raise FileNotFoundError(f"no such video file: {device}")
        self.device = device
        self.size = size
        self.loop = loop
        self._make = capture
        self._cap: Any = None

    def _open(self) -> None:
        cap = self._make(self.device if isinstance(self.device, int) else str(self.device))
        if not cap.isOpened():
            cap.release()
            what = f"camera {self.device}" if self.live else f"video {self.device}"
            raise CameraError(f"cannot open {what}")
        if self.live:
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, not a queued one
            if self.size is not None:
                cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
                cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
            if self.fps is not None:
                cap.set(cv2.CAP_PROP_FPS, self.fps)
        self._cap = cap

    def _grab(self) -> np.ndarray | None:
        ok, image = self._cap.read()
        if ok and image is not None and image.size:
            return _as_bgr(image) if self.live else fit_within(_as_bgr(image), self.size)
        if self.live:
            raise _Unreadable("the camera returned no image")
        if self.loop and self.stats.frames:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._cap.read()
            if ok and image is not None:
                return fit_within(_as_bgr(image), self.size)
        return None

    def _release(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()

    def __repr__(self) -> str:
        return f"OpenCVCamera({self.device!r})"


# -- a folder of images ---------------------------------------------------------


class ImageFolder(FrameSource):
    """Replays the images of a folder in name order, optionally looping, optionally at ``fps``,
    scaled down to fit ``size`` if given.

    An image that does not decode is skipped and counted; a folder without a
    single readable image is an error rather than an endless loop.
    """

    def __init__(
        self,
        folder: str | os.PathLike[str],
        *,
        loop: bool = False,
        fps: float | None = None,
        size: tuple[int, int] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(fps=fps, clock=clock, sleep=sleep)
        self.size = size
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"no such image folder: {self.folder}")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        if not self.paths:
            raise CameraError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self.folder}")
        self.loop = loop
        self._pos = 0
        self._good_this_pass = False

    def _open(self) -> None:
        self._pos = 0

    def _grab(self) -> np.ndarray | None:
        if self._pos >= len(self.paths):
            if not self.loop:
                return None
            if not self._good_this_pass:
                raise CameraError(f"no image in {self.folder} could be read")
            self._pos, self._good_this_pass = 0, False
        path = self.paths[self._pos]
        self._pos += 1
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise _Unreadable(f"cannot decode {path.name}")
        self._good_this_pass = True
        return fit_within(image, self.size)

    def _release(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"ImageFolder({str(self.folder)!r})"


# -- a simulated table ----------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """At frame ``at`` a card is put on the table (``card`` is a ``vision.render.PlacedCard``)."""

    at: int
    card: Any


@dataclass(frozen=True)
class Move:
    """At frame ``at`` card ``code`` is now at ``centre`` (and ``angle_deg`` if given)."""

    at: int
    code: str
    centre: tuple[float, float]
    angle_deg: float | None = None


@dataclass(frozen=True)
class Remove:
    """At frame ``at`` card ``code`` is picked up."""

    at: int
    code: str


@dataclass(frozen=True)
class HandPass:
    """From frame ``at`` for ``frames`` frames a hand crosses the table from ``start`` to ``end``."""

    at: int
    frames: int
    start: tuple[float, float]
    end: tuple[float, float]
    size: int = 320


ScriptStep = Place | Move | Remove | HandPass


class SyntheticTable(FrameSource):
    """A rendered table (``vision.render``): cards placed, moved, removed, hands passing, on a script.

    Frame ``i`` shows the table after every step with ``at <= i``. Cards lie
    in the order they were placed (a later card on top). The source ends
    after ``frames`` frames (``None``: never). ``timestamp`` is ``index / fps``
    (simulated time), so runs are reproducible. :attr:`truth` holds, for the
    last frame, the cards drawn (code -> outline), :attr:`visible` the share
    of each card not covered by a later card or the hand, and :attr:`hand`
    the hand's centre or ``None``: the ground truth that tests and
    measurement scripts compare the recogniser and tracker against.
    """

    def __init__(
        self,
        cards: Sequence[Any] = (),
        script: Sequence[ScriptStep] = (),
        *,
        frames: int | None = None,
        size: tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        background: str | np.ndarray | None = "wood",
        seed: int = 0,
        noise: float = 0.0,
        blur: float = 0.0,
        realtime: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(fps=fps if realtime else None, clock=clock, sleep=sleep)
        self.rate = float(fps)
        self.size = (int(size[0]), int(size[1]))
        self.frames = frames
        self.seed = seed
        self.noise = noise
        self.blur = blur
        self._initial = list(cards)
        self._script = sorted(script, key=lambda s: s.at)
        self._background_spec = background
        self._render: Any = None
        self._background: np.ndarray | None = None
        self._cards: list[Any] = []
        self._step = 0
        self.truth: dict[str, np.ndarray] = {}
        self.visible: dict[str, float] = {}
        self.hand: tuple[float, float] | None = None

    def _open(self) -> None:
        try:
            from vision import render
        except ImportError as e:
            raise CameraError(f"the synthetic table needs vision.render: {e}") from e
        self._render = render
        spec = self._background_spec
        if isinstance(spec, str):
            self._background = render.table_background(self.size, style=spec, seed=self.seed)
        else:
            self._background = spec
        self._cards = list(self._initial)
        self._step = 0

    def _timestamp(self) -> float:
        return self._index / self.rate

    def _apply(self, step: ScriptStep) -> None:
        if isinstance(step, Place):
            self._cards = [c for c in self._cards if c.code != step.card.code] + [step.card]
        elif isinstance(step, Remove):
            self._cards = [c for c in self._cards if c.code != step.code]
        elif isinstance(step, Move):
            moved = []
            for c in self._cards:
                if c.code == step.code:
                    changes: dict[str, Any] = {"centre": step.centre}
                    if step.angle_deg is not None:
                        changes["angle_deg"] = step.angle_deg
                    c = dataclasses.replace(c, **changes)
                moved.append(c)
            self._cards = moved

    def _grab(self) -> np.ndarray | None:
        i = self._index
        if self.frames is not None and i >= self.frames:
            return None
        while self._step < len(self._script) and self._script[self._step].at <= i:
            self._apply(self._script[self._step])
            self._step += 1
        image, outlines = self._render.render_scene(
            self._cards, size=self.size, background=self._background, seed=self.seed + i, noise=self.noise, blur=self.blur
        )
        self.truth = {c.code: np.asarray(o, np.float32) for c, o in zip(self._cards, outlines)}
        self.hand = None
        hand_mask = None
        for step in self._script:
            if isinstance(step, HandPass) and step.at <= i < step.at + step.frames:
                t = (i - step.at) / max(step.frames - 1, 1)
                at = (step.start[0] + t * (step.end[0] - step.start[0]), step.start[1] + t * (step.end[1] - step.start[1]))
                self._render.draw_hand(image, at=at, size=step.size)
                mask = self._render.draw_hand(np.zeros_like(image), at=at, size=step.size)
                hand_mask = mask.any(axis=2) if hand_mask is None else hand_mask | mask.any(axis=2)
                self.hand = at
        self.visible = self._visible_shares(hand_mask)
        return image

    def _visible_shares(self, hand_mask: np.ndarray | None, scale: int = 4) -> dict[str, float]:
        """Each card's uncovered share, on a grid ``scale`` times coarser than the frame (cheap, close enough)."""
        w, h = self.size
        covered = np.zeros((h // scale + 1, w // scale + 1), np.uint8)
        if hand_mask is not None:
            covered[: (h + scale - 1) // scale, : (w + scale - 1) // scale] = hand_mask[::scale, ::scale]
        shares: dict[str, float] = {}
        for code in reversed(list(self.truth)):  # top card first
            mask = np.zeros_like(covered)
            cv2.fillPoly(mask, [np.round(self.truth[code] / scale).astype(np.int32)], 1)
            total = int(mask.sum())
            shares[code] = float((mask & (1 - covered)).sum()) / total if total else 0.0
            covered |= mask
        return {code: shares[code] for code in self.truth}

    def _release(self) -> None:
        self._render = None

    def __repr__(self) -> str:
        return f"SyntheticTable({len(self._initial)} cards, {len(self._script)} steps)"


def demo_table(*, size: tuple[int, int] = (1280, 720), seats: int = 4, seed: int = 0, **options: Any) -> SyntheticTable:
    """A short scripted hand for ``open_source("demo")``: cards laid one by one in front of each seat, a hand passing."""
    from vision.render import PlacedCard

    w, h = size
    width = max(60, w // 14)
    spots = [(w * 0.5, h * 0.82), (w * 0.12, h * 0.5), (w * 0.5, h * 0.18), (w * 0.88, h * 0.5)][:seats]
    codes = ["5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    script: list[ScriptStep] = []
    for k, code in enumerate(codes):
        x, y = spots[k % len(spots)]
        offset = (k // len(spots)) * width * 0.4
        script.append(Place(at=10 + 15 * k, card=PlacedCard(code, (x + offset, y), 90.0 if k % 2 else 0.0, width)))
    script.append(HandPass(at=40, frames=8, start=(0, h * 0.6), end=(w, h * 0.4), size=int(h * 0.3)))
    return SyntheticTable((), script, size=size, seed=seed, frames=options.pop("frames", 10 + 15 * len(codes) + 30), **options)


def open_source(spec: str | int, **options: Any) -> FrameSource:
    """The source the config's ``[camera] source`` names.

    ``"picamera"`` (or ``"picamera2"``), a webcam index (``0`` or ``"0"``), a
    camera device (``"/dev/video0"``) or stream address, a video file, a
    folder of images, or ``"demo"``/``"synthetic"``. ``options`` go to the
    source (``size``, ``fps``, ``loop``, ...).

    >>> open_source("/no/such/thing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: camera source '/no/such/thing' is not a file or folder (expected picamera, a webcam index such as 0, ...)
    """
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise TypeError(f"camera source must be text or a webcam index, got {spec!r}")
    text = str(spec).strip()
    if text.lower() in ("picamera", "picamera2"):
        return PiCamera(**options)
    if text.lower() in ("demo", "synthetic"):
        return demo_table(**options)
    if text.isdigit():
        return OpenCVCamera(int(text), **options)
    if _is_device(text):
        return OpenCVCamera(text, **options)
    path = Path(text).expanduser()
    if path.is_dir():
        return ImageFolder(path, **options)
    if path.is_file():
        return OpenCVCamera(path, **options)
    raise FileNotFoundError(
        f"camera source {text!r} is not a file or folder "
        "(expected picamera, a webcam index such as 0, a video file, an image folder, or demo)"
    )
