"""Frame sources: folders, videos, webcams and the Pi camera (faked), the synthetic table, failures."""

from __future__ import annotations

import logging
import sys
import types
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from vision.sources import (
    Backoff,
    CameraError,
    Frame,
    ImageFolder,
    Move,
    OpenCVCamera,
    PiCamera,
    Place,
    Remove,
    SyntheticTable,
    open_source,
    picamera_to_bgr,
)


class FakeClock:
    """Time that moves only when the source sleeps, so back-off and pacing cost no real time."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def write_images(folder: Path, shades: dict[str, int]) -> None:
    for name, shade in shades.items():
        cv2.imwrite(str(folder / name), np.full((24, 32, 3), shade, np.uint8))


# -- image folders -------------------------------------------------------------------


def test_folder_replays_in_name_order_and_skips_what_does_not_decode(tmp_path, caplog):
    write_images(tmp_path, {"b.png": 20, "a.png": 10, "d.jpg": 40})
    (tmp_path / "c.png").write_bytes(b"this is not a picture")
    (tmp_path / "notes.txt").write_text("ignored")
    with caplog.at_level(logging.WARNING, logger="vision.sources"), ImageFolder(tmp_path) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [int(f.image[0, 0, 0]) for f in frames][:2] == [10, 20]
    assert abs(int(frames[2].image[0, 0, 0]) - 40) <= 2  # JPEG
    assert all(f.image.shape == (24, 32, 3) and f.image.dtype == np.uint8 for f in frames)
    assert (source.stats.frames, source.stats.skipped, source.stats.reconnects) == (3, 1, 0)
    assert "c.png" in caplog.text


def test_folder_loops_at_a_frame_rate_without_real_sleeping(tmp_path):
    write_images(tmp_path, {"1.png": 1, "2.png": 2})
    clock = FakeClock()
    source = ImageFolder(tmp_path, loop=True, fps=4, clock=clock, sleep=clock.sleep)
    frames = [next(source) for _ in range(5)]
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 1, 2, 1]
    assert [f.timestamp - 100.0 for f in frames] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert clock.sleeps == [0.25] * 4
    source.close()
    assert source.closed and source.read() is None
    source.close()  # twice is fine


TABLE_PHOTOS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "table-photos"


@pytest.mark.skipif(not TABLE_PHOTOS.is_dir(), reason="../shared/data/table-photos is not here")
def test_real_table_photos_replay_as_bgr_frames():
    with ImageFolder(TABLE_PHOTOS, size=(1280, 720)) as source:
        frames = list(source)
    jpegs = [p for p in TABLE_PHOTOS.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    assert len(frames) == len(jpegs) > 0 and source.stats.skipped == 0  # labels.csv is not an image
    assert all(f.image.ndim == 3 and f.image.shape[2] == 3 and f.image.dtype == np.uint8 for f in frames)
    assert all(max(f.image.shape[0] / 720, f.image.shape[1] / 1280) == pytest.approx(1, abs=0.002) for f in frames)


def test_missing_or_empty_folder_is_an_error_at_open(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such image folder"):
        ImageFolder(tmp_path / "nope")
    with pytest.raises(CameraError, match="no images"):
        ImageFolder(tmp_path)


def test_a_looping_folder_of_nothing_but_broken_files_stops(tmp_path):
    (tmp_path / "x.png").write_bytes(b"junk")
    with pytest.raises(CameraError, match="could be read"):
        list(ImageFolder(tmp_path, loop=True))


# -- video files and webcams -------------------------------------------------------------


def test_video_file_gives_its_frames_then_ends(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (64, 48))
    for i in range(6):
        writer.write(np.full((48, 64, 3), 30 * i, np.uint8))
    writer.release()
    with OpenCVCamera(path) as source:
        frames = list(source)
    assert len(frames) == 6 and frames[0].image.shape == (48, 64, 3)
    with OpenCVCamera(path, loop=True) as source:
        assert len([next(source) for _ in range(9)]) == 9
    with OpenCVCamera(path, size=(32, 32)) as source:
        assert next(source).image.shape == (24, 32, 3)  # scaled down, aspect kept


def test_missing_video_is_an_error_at_open(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such video file"):
        OpenCVCamera(tmp_path / "missing.mp4")


class FakeCapture:
    """Scripted ``cv2.VideoCapture``: each ``script`` entry is True (a frame), False (a failed read)."""


    def __init__(self, script: list[bool], opens: list[bool]) -> None:
        self.script, self.opens = script, opens
        self.made = 0
        self.settings: dict[int, float] = {}

    def __call__(self, device):  # the factory
        self.made += 1
        self.device = device
        self.is_open = self.opens.pop(0) if self.opens else True
        return self

    def isOpened(self) -> bool:
        return self.is_open

    def set(self, prop: int, value: float) -> bool:
        self.settings[prop] = value
        return True

    def read(self):
        ok = self.script.pop(0) if self.script else True
        return (True, np.zeros((8, 8, 3), np.uint8)) if ok else (False, None)

    def release(self) -> None:
        pass


def test_webcam_failed_reads_are_skipped_then_the_camera_is_reopened_with_backoff(caplog):
    clock = FakeClock()
    # Two good frames, two failed reads (skipped), a good one, then the camera dies: 10 failed reads.
    fake = FakeCapture([True, True, False, False, True] + [False] * 10, opens=[True, False, False, False, True])
    cam = OpenCVCamera(0, backoff=Backoff(initial=0.5, maximum=1.5), clock=clock, sleep=clock.sleep, capture=fake,
                       size=(640, 480))
    with caplog.at_level(logging.WARNING, logger="vision.sources"), cam:
        frames = [next(cam) for _ in range(4)]
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert cam.stats.skipped == 12 and cam.stats.reconnects == 1 and cam.stats.frames == 4
    # Reopening failed three times: waits grow and are capped, and nothing really slept.
    assert clock.sleeps == [0.5, 1.0, 1.5, 1.5]
    assert fake.made == 5
    assert fake.settings[cv2.CAP_PROP_BUFFERSIZE] == 1 and fake.settings[cv2.CAP_PROP_FRAME_WIDTH] == 640
    assert "camera lost" in caplog.text and "camera back" in caplog.text


def test_a_webcam_that_never_comes_back_gives_up_after_the_allowed_attempts():
    clock = FakeClock()
    fake = FakeCapture([False] * 10, opens=[True] + [False] * 10)
    cam = OpenCVCamera(0, backoff=Backoff(initial=1, maximum=8, attempts=5), clock=clock, sleep=clock.sleep, capture=fake)
    with pytest.raises(CameraError, match="not back after 5 attempts"):
        next(cam)
    assert clock.sleeps == [1, 2, 4, 8, 8]


def test_closing_a_source_while_it_waits_for_its_camera_ends_the_wait():
    fake = FakeCapture([True] + [False] * 10, opens=[True] + [False] * 10)
    cam = OpenCVCamera(0, capture=fake, sleep=lambda s: cam.close())  # close() from another thread
    assert next(cam).index == 0
    assert cam.read() is None
    assert fake.made == 1  # no reopening after the close


def test_a_webcam_that_cannot_be_opened_at_all_is_a_camera_error():
    fake = FakeCapture([], opens=[False])
    with pytest.raises(CameraError, match="cannot open camera 3"):
        next(OpenCVCamera(3, capture=fake))


# -- the Pi camera, through a stand-in picamera2 -------------------------------------


def test_picamera_formats_come_out_bgr():
    bgr = np.array([[[1, 2, 3]]], np.uint8)
    assert picamera_to_bgr(bgr, "RGB888").tolist() == [[[1, 2, 3]]]  # already B, G, R
    assert picamera_to_bgr(bgr[..., ::-1], "BGR888").tolist() == [[[1, 2, 3]]]
    assert picamera_to_bgr(np.array([[[3, 2, 1, 255]]], np.uint8), "XBGR8888").tolist() == [[[1, 2, 3]]]
    assert picamera_to_bgr(np.array([[[1, 2, 3, 255]]], np.uint8), "XRGB8888").tolist() == [[[1, 2, 3]]]
    with pytest.raises(ValueError, match="YUV420"):
        picamera_to_bgr(bgr, "YUV420")


def test_picamera_without_picamera2_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails as on a PC
    cam = PiCamera()
    with pytest.raises(CameraError, match="picamera2 is not available"):
        next(cam)


class FakePicamera2:
    """Just what PiCamera uses of picamera2.Picamera2."""

    instances: ClassVar[list[FakePicamera2]] = []
    fail_after: int | None = None

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.captures = 0
        self.started = self.closed = False
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, **kw):
        self.config_args = kw
        return kw

    def configure(self, config) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_request(self):
        self.captures += 1
        if FakePicamera2.fail_after is not None and self.captures > FakePicamera2.fail_after:
            raise RuntimeError("Camera frontend has timed out!")
        w, h = self.config["main"]["size"]
        rgbx = np.zeros((h, w, 4), np.uint8)
        rgbx[..., 0], rgbx[..., 2], rgbx[..., 3] = 200, 10, 255  # R high, B low, X
        return types.SimpleNamespace(make_array=lambda name: rgbx, release=lambda: None)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_picamera2(monkeypatch):
    FakePicamera2.instances = []
    FakePicamera2.fail_after = None
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    return FakePicamera2


def test_picamera_configures_for_fresh_frames_and_converts_xbgr(fake_picamera2):
    with PiCamera(size=(32, 24), fps=12, format="XBGR8888") as cam:
        frame = next(cam)
    [pi] = fake_picamera2.instances
    assert pi.config_args["main"] == {"size": (32, 24), "format": "XBGR8888"}
    assert pi.config_args["queue"] is False and pi.config_args["buffer_count"] == 2
    assert pi.config_args["controls"] == {"FrameRate": 12.0, "ExposureValue": -2 / 3}
    assert frame.image.shape == (24, 32, 3)
    assert frame.image[0, 0].tolist() == [10, 0, 200]  # B, G, R
    assert pi.closed and not pi.started


def test_picamera_exposes_as_asked_within_the_cameras_range(fake_picamera2):
    with PiCamera(size=(8, 8), exposure_value=0.0) as cam:
        next(cam)
    assert fake_picamera2.instances[0].config_args["controls"]["ExposureValue"] == 0.0
    for stops in (-8.5, 9.0, float("nan")):
        with pytest.raises(ValueError, match="exposure_value must be within"):
            PiCamera(exposure_value=stops)


def test_picamera_that_stops_answering_is_reopened(fake_picamera2):
    clock = FakeClock()
    fake_picamera2.fail_after = 2
    cam = PiCamera(size=(8, 8), backoff=Backoff(initial=2, maximum=30), clock=clock, sleep=clock.sleep)
    frames = [next(cam) for _ in range(4)]
    assert len(frames) == 4 and cam.stats.reconnects == 1
    assert clock.sleeps == [2]
    assert len(fake_picamera2.instances) == 2 and fake_picamera2.instances[0].closed
    cam.close()


# -- the synthetic table --------------------------------------------------------------


def test_synthetic_table_follows_its_script():
    from vision.render import PlacedCard

    script: list[Place | Move | Remove] = [Place(2, PlacedCard("KH", (200, 120), 0, 50)), Move(4, "QS", (60, 60), 90.0), Remove(6, "KH")]
    with SyntheticTable([PlacedCard("QS", (100, 100), 0, 50)], script, frames=8, size=(320, 240)) as table:
        seen = []
        for frame in table:
            assert isinstance(frame, Frame) and frame.image.shape == (240, 320, 3)
            seen.append((frame.index, frame.timestamp, sorted(table.truth)))
            if frame.index == 5:
                qs = table.truth["QS"]
    assert [s[2] for s in seen] == [["QS"]] * 2 + [["KH", "QS"]] * 4 + [["QS"]] * 2
    assert [s[1] for s in seen][:3] == [0.0, 0.1, 0.2]
    np.testing.assert_allclose(qs.mean(axis=0), (60, 60), atol=0.5)
    assert np.ptp(qs[:, 0]) > np.ptp(qs[:, 1])  # turned a quarter: now wider than tall
    assert table.stats.frames == 8


def test_synthetic_table_in_real_time_is_paced_without_changing_its_clock():
    clock = FakeClock()
    table = SyntheticTable([], frames=4, size=(64, 48), fps=5, realtime=True, clock=clock, sleep=clock.sleep)
    assert [f.timestamp for f in table] == [0.0, 0.2, 0.4, 0.6]
    assert clock.sleeps == [0.2, 0.2, 0.2]


def test_synthetic_frames_show_the_cards():
    from vision.render import PlacedCard

    empty = next(SyntheticTable([], frames=1, size=(320, 240), background="felt"))
    with_card = next(SyntheticTable([PlacedCard("AS", (160, 120), 0, 80)], frames=1, size=(320, 240), background="felt"))
    changed = (np.abs(with_card.image.astype(int) - empty.image.astype(int)).sum(axis=2) > 30)
    ys, xs = np.nonzero(changed)
    assert abs(xs.mean() - 160) < 5 and abs(ys.mean() - 120) < 5
    assert changed.sum() == pytest.approx(80 * 112, rel=0.1)


# -- open_source --------------------------------------------------------------------------


def test_open_source_picks_the_right_source(tmp_path):
    write_images(tmp_path, {"a.png": 1})
    video = tmp_path / "v.avi"
    video.write_bytes(b"")
    assert isinstance(open_source(str(tmp_path)), ImageFolder)
    assert next(open_source(str(tmp_path), size=(16, 16), fps=10)).image.shape == (12, 16, 3)  # the config's options
    assert isinstance(open_source(str(video)), OpenCVCamera)
    webcam = open_source(" 1 ")
    assert isinstance(webcam, OpenCVCamera) and webcam.device == 1 and webcam.live
    two, video0 = open_source(2), open_source("/dev/video0")
    assert isinstance(two, OpenCVCamera) and two.device == 2
    assert isinstance(video0, OpenCVCamera) and video0.live and video0.device == "/dev/video0"
    assert open_source("rtsp://cam.local/stream").live
    assert isinstance(open_source("picamera", size=(640, 480)), PiCamera)
    assert isinstance(open_source("picamera2"), PiCamera)
    demo = open_source("demo", frames=3)
    assert isinstance(demo, SyntheticTable) and len(list(demo)) == 3
    assert isinstance(open_source("Synthetic", frames=1), SyntheticTable)
    with pytest.raises(FileNotFoundError, match="picamera, a webcam index"):
        open_source(str(tmp_path / "gone"))
    with pytest.raises(TypeError):
        open_source(True)


def test_bad_options_are_refused_up_front(tmp_path):
    write_images(tmp_path, {"a.png": 1})
    with pytest.raises(ValueError, match="fps"):
        ImageFolder(tmp_path, fps=0)
    with pytest.raises(ValueError, match="format"):
        PiCamera(format="YUV420")
