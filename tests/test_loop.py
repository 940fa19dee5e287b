"""The serve loop's wiring: sightings to record events, refusals to the buzzer, buttons, newest-frame reading."""

import logging
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.app.serve import CameraWorker, LatestFrame, TableLoop, cards_on_table
from companion.table import Table
from hardware.board import Board
from hardware.config import BoardConfig
from hardware.pins import mock_factory
from hardware.timing import ManualScheduler
from vision.detection import Detection
from vision.sources import Frame
from vision.tracker import CardRemoved, CardSeen, Tracker
from vision.zones import ZoneMap

PLAYERS = ["Ann", "Bob", "Cy"]
OPENING: list[dict[str, Any]] = [
    {"type": "game", "variant": "michigan-1939", "players": PLAYERS, "chips": 100},
    {"type": "deal", "dealer": "Ann"},
    {"type": "widow", "action": "keep"},
]


def seen(code: str, seat: str | None, frame: int, *, uncertain: bool = False) -> CardSeen:
    candidates = ((code, 0.55), ("9C", 0.3)) if uncertain else ((code, 0.97),)
    return CardSeen(code, seat, (), candidates[0][1], uncertain, candidates, None, frame)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    t = Table.open(tmp_path / "game.sqlite")
    for event in OPENING:
        t.submit(event)
    return t


@pytest.fixture
def board():
    clock = ManualScheduler()
    with Board(BoardConfig(), on_event=lambda e: None, pin_factory=mock_factory(), scheduler=clock) as b:
        yield b, clock


def test_cards_count_only_in_phases_where_they_mean_something(table: Table) -> None:
    loop = TableLoop(table)
    loop.handle([seen("5H", "Ann", 1)], 1)  # the poker phase: a card laid is part of a show, not a play
    assert table.view()["run"]["played"]["Ann"] == []
    table.submit({"type": "next"})
    assert loop.mapper.phase == "run"
    loop.handle([seen("5H", "Ann", 2), seen("6H", "Bob", 2), seen("QS", None, 2), seen("KS", "centre", 2)], 2)
    assert loop.applied == [
        {"type": "play", "player": "Ann", "card": "5H"},
        {"type": "play", "player": "Bob", "card": "6H"},
    ]
    assert table.view()["run"]["last_card"] == "6H"


def test_a_refused_play_buzzes_and_shows_why_until_the_card_is_taken_back(table: Table, board) -> None:
    b, _ = board
    table.submit({"type": "next"})
    loop = TableLoop(table, board=b)
    loop.handle([seen("9C", "Bob", 5)], 5)
    assert b.buzzer.sounding
    notice = table.view()["notice"]
    assert notice["card"] == "9C" and "Ann leads" in notice["text"]
    assert table.view()["run"]["played"]["Bob"] == []
    loop.handle([CardRemoved("9C", "Bob", 9)], 9)
    assert table.view()["notice"] is None


def test_a_joker_read_in_a_game_without_one_is_no_card(table: Table, tmp_path: Path, board) -> None:
    """Print on a box read as a Joker at Bob's place: Michigan's pack holds none, so nothing is refused
    or buzzed at, and nothing waits to be confirmed; an unsure read is read among its other candidates.
    In Bonanza, whose pack holds one, a Joker is read."""
    b, _ = board
    table.submit({"type": "next"})
    loop = TableLoop(table, board=b)
    loop.handle([seen("JK", "Bob", 5), CardSeen("JK", "Cy", (), 0.6, True, (("JK", 0.6),), None, 5)], 5)
    assert not b.buzzer.sounding and table.view()["notice"] is None and loop.refused_events == []
    assert table.view()["pending"] == []
    # An unsure read is read among its other candidates: 9C, the only one, waits to be confirmed.
    loop.handle([seen("JK", "Cy", 7, uncertain=True)], 7)
    assert [[code for code, _ in entry["candidates"]] for entry in table.view()["pending"]] == [["9C"]]
    loop.handle([CardRemoved("JK", "Bob", 9), seen("5H", "Ann", 9)], 9)
    assert loop.applied == [{"type": "play", "player": "Ann", "card": "5H"}]
    bonanza = Table.open(tmp_path / "bonanza.sqlite")
    for event in ({"type": "game", "variant": "bonanza", "players": PLAYERS, "chips": 100},
                  {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}):
        bonanza.submit(event)
    while bonanza.view()["phase"] != "run":
        bonanza.submit({"type": "next"})
    loop = TableLoop(bonanza)
    loop.handle([seen("JK", "Bob", 5)], 5)
    assert [e["cards"] for e in loop.applied + loop.refused_events] == [["JK"]]


def test_a_played_card_found_again_where_it_lies_is_no_new_play(table: Table, board) -> None:
    """The camera lost Ann's 5H under a hand for a while and found it again: nothing to refuse, no
    buzzer.  The same card turning up at Bob's place is still refused."""
    b, _ = board
    table.submit({"type": "next"})
    loop = TableLoop(table, board=b)
    loop.handle([seen("5H", "Ann", 1)], 1)
    loop.handle([CardRemoved("5H", "Ann", 40)], 40)
    loop.handle([seen("5H", "Ann", 50)], 50)
    assert table.view()["run"]["played"]["Ann"] == ["5H"]
    assert loop.refused_events == [] and not b.buzzer.sounding and table.view()["notice"] is None
    loop.handle([seen("5H", "Bob", 60)], 60)
    assert loop.refused_events == [{"type": "play", "player": "Bob", "card": "5H"}] and b.buzzer.sounding


def test_uncertain_reads_wait_for_the_confirm_button(table: Table, board) -> None:
    b, _ = board
    table.submit({"type": "next"})
    loop = TableLoop(table, board=b)
    loop.handle([seen("5H", "Ann", 3, uncertain=True)], 3)
    assert table.view()["run"]["played"]["Ann"] == []
    assert table.view()["pending"][0]["candidates"][0] == ["5H", 0.55]
    assert table.view()["pending"][0]["reason"] == "unsure"
    loop.on_button({"type": "confirm"})
    assert table.view()["run"]["played"]["Ann"] == ["5H"]
    loop.on_button({"type": "undo"})
    assert table.view()["run"]["played"]["Ann"] == []
    loop.on_button({"type": "confirm"})  # nothing waiting: refused, buzzer
    assert b.buzzer.sounding


def unsure(seat: str, *codes: str, frame: int = 5, unmoved: bool = False) -> CardSeen:
    candidates = tuple((c, round(0.5 - 0.1 * i, 2)) for i, c in enumerate(codes))
    return CardSeen(codes[0], seat, (), 0.5, True, candidates, None, frame, unmoved=unmoved)


@pytest.fixture
def in_run(table: Table) -> Table:
    """Ann led 5H, Bob played 6H: the run expects 7H, or Bob reopens."""
    for event in ({"type": "next"}, {"type": "play", "player": "Ann", "card": "5H"}, {"type": "play", "player": "Bob", "card": "6H"}):
        table.submit(event)
    return table


def test_an_unsure_read_with_one_legal_candidate_is_settled_as_it(in_run: Table, caplog: pytest.LogCaptureFixture) -> None:
    loop = TableLoop(in_run)
    with caplog.at_level("INFO", logger="companion.app.serve"):
        loop.handle([unsure("Cy", "7D", "7H")], 5)  # Cy may not reopen (only Bob may): 7D is no legal card for him
    assert in_run.view()["run"]["played"]["Cy"] == ["7H"] and in_run.view()["pending"] == []
    assert loop.settled == [("Cy", "7H")] and loop.applied == [{"type": "play", "player": "Cy", "card": "7H"}]
    [entry] = in_run.view()["settled"]
    assert entry["text"] == "settled as 7H: the only legal card among 7D/7H"
    assert "Cy: settled as 7H: the only legal card among 7D/7H" in caplog.text


def test_an_unsure_read_with_several_or_no_legal_candidates_waits(in_run: Table) -> None:
    loop = TableLoop(in_run)
    loop.handle([unsure("Bob", "7H", "7D")], 5)  # Bob may play 7H or reopen with 7D
    loop.handle([unsure("Cy", "9C", "9D", frame=6)], 6)  # neither is legal for Cy
    assert [p["player"] for p in in_run.view()["pending"]] == ["Bob", "Cy"]
    assert loop.applied == [] and loop.settled == [] and in_run.view()["settled"] == []


def test_a_sure_illegal_card_is_never_settled_but_refused_and_buzzed(in_run: Table, board) -> None:
    b, _ = board
    loop = TableLoop(in_run, board=b)
    loop.handle([seen("7D", "Cy", 5)], 5)
    assert loop.refused_events == [{"type": "play", "player": "Cy", "card": "7D"}] and b.buzzer.sounding
    assert in_run.view()["run"]["played"]["Cy"] == [] and loop.settled == []


def test_an_unmoved_read_is_not_settled(in_run: Table) -> None:
    loop = TableLoop(in_run)
    loop.handle([unsure("Cy", "7H", "7D", unmoved=True)], 5)  # perhaps no card at all: a person says
    assert in_run.view()["run"]["played"]["Cy"] == [] and in_run.view()["pending"][0]["reason"] == "unmoved"


def test_a_settled_read_is_taught_to_the_tracker(in_run: Table) -> None:
    tracker = Tracker(confirm_frames=2, window=3)
    loop = TableLoop(in_run, tracker=tracker)
    outline = np.array([[600, 600], [670, 600], [670, 700], [600, 700]], np.float32)
    zones = ZoneMap.around_table(PLAYERS, (1280, 720))
    for frame in range(3):  # Ann's 7H misread, unsure, as 7D: only 7H is legal for her
        loop.handle(tracker.update([Detection("7D", 0.5, outline, (("7H", 0.4),))], zone_map=zones, frame_index=frame), frame)
    assert in_run.view()["run"]["played"]["Ann"] == ["5H", "7H"] and tracker.present["7H"] == "Ann"
    for frame in range(3, 8):  # now read right: the same card, not a new one
        loop.handle(tracker.update([Detection("7H", 0.95, outline)], zone_map=zones, frame_index=frame), frame)
    assert loop.refused_events == [] and in_run.view()["run"]["played"]["Ann"] == ["5H", "7H"]


def test_a_card_where_nothing_moved_waits_and_the_referee_is_told_why(table: Table) -> None:
    table.submit({"type": "next"})
    loop = TableLoop(table)
    ghost = CardSeen("7C", "Bob", (), 0.98, True, (("7C", 0.98),), None, 40, unmoved=True)
    loop.handle([ghost], 40)
    assert table.view()["run"]["played"]["Bob"] == []
    [entry] = table.view()["pending"]
    assert entry["reason"] == "unmoved" and entry["candidates"] == [["7C", 0.98]]
    table.dismiss(entry["id"])
    assert table.view()["pending"] == [] and table.view()["run"]["played"]["Bob"] == []


def test_the_board_follows_the_table(table: Table, board) -> None:
    b, _ = board
    TableLoop(table, board=b)
    table.submit({"type": "bet", "player": "Bob", "chips": 5})
    poker = [s["chips"] for s in table.view()["sections"]].index(9)
    assert b.leds.values[poker] > b.leds.values[0] > 0


def test_after_a_restart_the_cards_on_the_table_are_known(table: Table) -> None:
    table.submit({"type": "next"})
    table.submit({"type": "play", "player": "Ann", "card": "5H"})
    assert cards_on_table(table.view()) == {"5H"}


class SlowDetect:
    """Takes its time, like a Pi reading a frame; records which frames it saw and reads ``detections``."""

    def __init__(self, seconds: float, detections: list[Detection] | None = None) -> None:
        self.seconds, self.detections = seconds, detections or []
        self.seen: list[int] = []

    def __call__(self, image: np.ndarray) -> list[Detection]:
        self.seen.append(int(image[0, 0, 0]))
        time.sleep(self.seconds)
        return list(self.detections)


def paced(frames: list[Frame], pause: float, done: threading.Event):
    """A camera sending ``frames`` one every ``pause`` seconds, setting ``done`` after the last."""
    for f in frames:
        yield f
        time.sleep(pause)
    done.set()


def test_the_newest_frame_is_read_and_slow_frames_are_dropped() -> None:
    frames = [Frame(np.full((48, 64, 3), i, np.uint8), i, i / 100) for i in range(40)]
    done = threading.Event()
    detect = SlowDetect(0.05)
    states: list[str] = []
    worker = CameraWorker(paced(frames, 0.005, done), detect, Tracker(), LatestFrame(ZoneMap.around_table(PLAYERS, (64, 48))),
                          on_events=lambda events, index: None, on_camera=states.append).start()
    assert done.wait(5)
    time.sleep(0.2)
    worker.stop()
    assert worker.frames_read == 40
    assert worker.frames_dropped > 10
    assert len(detect.seen) == worker.frames_recognised < 40
    assert detect.seen == sorted(detect.seen) and detect.seen[-1] == 39  # in order, ending on the newest
    assert states[0] == "reading"


def test_a_recogniser_far_slower_than_the_camera_still_reports_the_cards() -> None:
    """Frames come ten times faster than they are read, so the frame indices the tracker is given skip
    by about ten: the card lying in every frame is still reported (it never was while the tracker's
    windows counted camera indices)."""
    qs = Detection("QS", 0.95, np.array([[10, 10], [30, 10], [30, 40], [10, 40]], np.float32))
    frames = [Frame(np.full((48, 64, 3), 90, np.uint8), i, i / 300) for i in range(300)]
    done = threading.Event()
    seen: list[CardSeen] = []
    zones = LatestFrame(ZoneMap.around_table(PLAYERS, (64, 48)))
    worker = CameraWorker(paced(frames, 0.003, done), SlowDetect(0.03, [qs]), Tracker(), zones,
                          on_events=lambda events, index: seen.extend(e for e in events if isinstance(e, CardSeen)))
    worker.start()
    assert done.wait(10)
    time.sleep(0.2)
    worker.stop()
    assert worker.frames_dropped > worker.frames_recognised >= 3
    assert [e.code for e in seen] == ["QS"] and seen[0].frame_index > 10


def test_every_frame_read_reaches_the_loop_even_with_no_news() -> None:
    """A show laid out for a call settles after frames in which nothing more happens, so the loop
    is given those frames too, not only the ones with tracker events."""
    frames = [Frame(np.full((48, 64, 3), 90, np.uint8), i, i / 100) for i in range(20)]
    done = threading.Event()
    calls: list[tuple[int, int]] = []
    worker = CameraWorker(paced(frames, 0.01, done), SlowDetect(0.0), Tracker(), LatestFrame(ZoneMap.around_table(PLAYERS, (64, 48))),
                          on_events=lambda events, index: calls.append((len(events), index)))
    worker.start()
    assert done.wait(10)
    time.sleep(0.2)
    worker.stop()
    assert len(calls) == worker.frames_recognised >= 5 and all(n == 0 for n, _ in calls)


def test_the_camera_page_sees_the_latest_frame_and_can_move_the_zones(tmp_path: Path) -> None:
    saved: list[dict[str, list[list[float]]]] = []
    view = LatestFrame(ZoneMap.around_table(PLAYERS, (640, 480)), save_zones=saved.append)
    assert view.latest_jpeg() is None and view.frame_size() is None
    outline = np.array([[10, 10], [70, 10], [70, 100], [10, 100]], np.float32)
    view.show(np.zeros((480, 640, 3), np.uint8), [Detection("QS", 0.9, outline)])
    jpeg = view.latest_jpeg()
    assert jpeg is not None and jpeg[:2] == b"\xff\xd8" and view.frame_size() == (640, 480)
    assert [d.code for d in view.detections()] == ["QS"]
    view.set_zones({"Ann": [[0, 0], [640, 0], [640, 240]]})
    assert list(view.zones()) == ["Ann"] and saved == [view.zones()]


def test_shows_laid_out_are_sent_before_the_call_closes(tmp_path: Path) -> None:
    t = Table.open(tmp_path / "bonanza.sqlite")
    opening: list[dict[str, Any]] = [
        {"type": "game", "variant": "bonanza", "players": PLAYERS, "chips": 100},
        {"type": "deal", "dealer": "Ann"},
        {"type": "widow", "action": "exchange"},
        {"type": "next"},  # the Joker call closes unanswered: Queen-Jack is called
    ]
    for event in opening:
        t.submit(event)
    loop = TableLoop(t, settle_frames=50)
    loop.handle([seen("QS", "Bob", 10), seen("JD", "Bob", 12)], 12)  # not settled yet when the referee moves on
    t.submit({"type": "next"})
    assert loop.applied == [{"type": "show", "player": "Bob", "cards": ["QS", "JD"]}]
    assert t.view()["call"] == "sequence" and t.view()["balances"]["Bob"] > t.view()["balances"]["Cy"]


def test_a_corrected_read_is_taught_to_the_tracker(table: Table) -> None:
    table.submit({"type": "next"})
    tracker = Tracker(confirm_frames=2, window=3)
    loop = TableLoop(table, tracker=tracker)
    outline = np.array([[600, 600], [670, 600], [670, 700], [600, 700]], np.float32)
    zones = ZoneMap.around_table(PLAYERS, (1280, 720))
    for frame in range(3):  # a 5H misread, unsure, as 5D
        loop.handle(tracker.update([Detection("5D", 0.5, outline, (("5H", 0.4),))], zone_map=zones, frame_index=frame), frame)
    pending = table.view()["pending"]
    assert [p["candidates"][0][0] for p in pending] == ["5D"]
    table.confirm(pending[0]["id"], "5H")  # the referee corrects it
    assert tracker.present == {"5H": "Ann"}
    for frame in range(3, 8):  # now the camera reads it right: the same card, not a new one
        loop.handle(tracker.update([Detection("5H", 0.95, outline)], zone_map=zones, frame_index=frame), frame)
    assert loop.refused_events == [] and table.view()["notice"] is None
    assert table.view()["run"]["played"]["Ann"] == ["5H"]


def test_a_camera_that_cannot_be_opened_is_no_picture_once_and_the_worker_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    from vision.sources import CameraError

    def missing():
        raise CameraError("cannot open /dev/video9")
        yield  # a generator, as a source is iterated

    states: list[str] = []
    worker = CameraWorker(missing(), lambda image: [], Tracker(), LatestFrame(ZoneMap.around_table(PLAYERS, (64, 48))),
                          on_events=lambda events, index: None, on_camera=states.append, lost_after_s=0.1)
    with caplog.at_level(logging.INFO, logger="companion.app.serve"):
        worker.start()
        time.sleep(1.3)  # the watch wakes once a second: it must not report the camera again
        worker.stop()
    assert states == ["no-picture"]
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "/dev/video9" in warnings[0].getMessage() and not warnings[0].exc_info


def test_frames_that_stop_coming_are_a_lost_table_and_coming_back_reading_again() -> None:
    done, resume = threading.Event(), threading.Event()

    def stalling():
        for i in range(5):
            yield Frame(np.zeros((48, 64, 3), np.uint8), i, i / 100)
        done.set()
        resume.wait(5)
        yield Frame(np.zeros((48, 64, 3), np.uint8), 5, 1.0)

    states: list[str] = []
    worker = CameraWorker(stalling(), lambda image: [], Tracker(), LatestFrame(ZoneMap.around_table(PLAYERS, (64, 48))),
                          on_events=lambda events, index: None, on_camera=states.append, lost_after_s=0.3)
    worker.start()
    assert done.wait(5)
    time.sleep(2.5)  # the watch wakes at least once a second
    assert states == ["reading", "lost"]
    resume.set()
    time.sleep(0.15)
    assert states == ["reading", "lost", "reading"]
    worker.stop()
