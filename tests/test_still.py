"""StillFrames: a frame is read again exactly when the table in it has changed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from vision.detection import Detection
from vision.pipeline import FrameStep
from vision.recognizer import FrameError
from vision.render import PlacedCard, render_scene, table_background
from vision.still import StillFrames, TableChanges
from vision.tracker import CardSeen, Tracker

BACKGROUND = table_background((1280, 720), style="wood", seed=3)
CARDS = [PlacedCard("QS", (400, 300), 10, 85), PlacedCard("7H", (800, 400), -30, 85)]


def frame(cards: list[PlacedCard], seed: int) -> np.ndarray:
    """The table with ``cards``, a camera's noise drawn afresh for each ``seed``."""
    return render_scene(cards, size=(1280, 720), background=BACKGROUND, seed=seed, noise=4.0)[0]


class Counting:
    """A stand-in recogniser that counts its reads and names each one."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self, image: np.ndarray) -> list[Detection]:
        self.reads += 1
        return [Detection(f"read {self.reads}", 1.0, np.zeros((4, 2), np.float32))]


QS = Detection("QS", 0.95, np.array([[360, 240], [440, 240], [440, 360], [360, 360]], np.float32))


def test_a_table_read_alike_is_then_answered_from_those_reads_in_turn() -> None:
    reads = []

    def detect(image: np.ndarray) -> list[Detection]:   # the same card each time, told apart by its confidence
        reads.append(image)
        return [Detection("QS", 0.9 + len(reads) / 1000, QS.outline)]

    still = StillFrames(detect, settle_reads=3)
    confidences = [round(still(frame(CARDS, seed))[0].confidence, 3) for seed in range(8)]
    assert len(reads) == 3
    assert confidences == [0.901, 0.902, 0.903, 0.901, 0.902, 0.903, 0.901, 0.902]
    assert (still.frames_read, still.frames_skipped) == (3, 5)


@pytest.mark.parametrize("readings", [[[QS], []], [[QS], [Detection("QS", 0.95, QS.outline + 40)]]],
                         ids=["every-other-frame", "two-places"])
def test_a_table_read_unalike_is_read_on_as_every_frame_would_be(readings: list[list[Detection]]) -> None:
    """A card read in every other frame, or read at two places by turns, is the tracker's to weigh
    on fresh reads; after twice settle_reads reads the table is answered from the last ones all the same."""
    reads: list[np.ndarray] = []

    def detect(image: np.ndarray) -> list[Detection]:
        reads.append(image)
        return list(readings[len(reads) % 2])

    still = StillFrames(detect, settle_reads=5, refresh_frames=30)
    for seed in range(40):
        still(frame(CARDS, seed))
    assert len(reads) == 11   # ten, and one more 30 frames after the last


def test_a_wrong_read_of_a_still_table_does_not_become_a_card() -> None:
    """The tracker tells a chance misread from a card by how often it comes back: repeated frame
    after frame it would pass for a card.  Here the fifth read is wrong: the table is read on
    until five reads agree, and only those are replayed."""
    misread = Detection("8D", 0.8, np.array([[700, 300], [780, 300], [780, 420], [700, 420]], np.float32))
    reads = []

    def detect(image: np.ndarray) -> list[Detection]:
        reads.append(image)
        return [QS, misread] if len(reads) == 5 else [QS]

    still, tracker = StillFrames(detect), Tracker()
    seen = [e.code for seed in range(60) for e in tracker.update(still(frame(CARDS, seed)))]
    assert seen == ["QS"] and len(reads) == 11   # ten reads, and one more 30 frames after the last


def test_a_card_taken_from_a_still_table_is_removed() -> None:
    on_table = [QS]
    still, tracker = StillFrames(lambda image: list(on_table)), Tracker()
    events = [e for seed in range(20) for e in tracker.update(still(frame(CARDS, seed)))]
    assert [type(e).__name__ for e in events] == ["CardSeen"]
    on_table.clear()   # the card is taken: the table changes, and reads empty from now on
    later = range(20, 20 + tracker.remove_frames + 1)
    events = [e for seed in later for e in tracker.update(still(frame(CARDS[1:], seed)))]
    assert [type(e).__name__ for e in events] == ["CardRemoved"]


@pytest.mark.parametrize("change", [
    CARDS + [PlacedCard("2C", (600, 500), 45, 85)],                         # a card laid
    CARDS[:1],                                                             # a card taken
    [CARDS[0], PlacedCard("7H", (804, 400), -30, 85)],                     # a card pushed 4 pixels
    [CARDS[0], PlacedCard("8H", (800, 400), -30, 85)],                     # a card swapped for another
    [CARDS[0], PlacedCard("7H", (800, 400), -30, 85, face_up=False)],      # a card turned over
], ids=["laid", "taken", "pushed", "swapped", "turned"])
def test_a_changed_table_is_read_again(change: list[PlacedCard]) -> None:
    detect = Counting()
    still = StillFrames(detect, settle_reads=1)
    still(frame(CARDS, 0))
    assert still(frame(CARDS, 1))[0].code == "read 1"
    assert [d.code for d in still(frame(change, 2))] == ["read 2"]


def test_a_slow_drift_of_light_adds_up_until_the_frame_is_read_again() -> None:
    """Each frame is compared with the last one read, not the last one seen."""
    detect = Counting()
    still = StillFrames(detect, tolerance=12, settle_reads=1)
    base = frame(CARDS, 0)
    reads = []
    for step in range(1, 11):
        still(np.clip(base.astype(np.int16) + 3 * step, 0, 255).astype(np.uint8))
        reads.append(detect.reads)
    assert reads == [1] * 5 + [2] * 5   # 3 levels a frame: over the tolerance 5 frames after a read


def test_an_unchanged_table_is_read_again_every_refresh_frames() -> None:
    detect = Counting()
    still = StillFrames(detect, settle_reads=1, refresh_frames=4)
    codes = [still(frame(CARDS, seed))[0].code for seed in range(9)]
    assert codes == ["read 1"] * 4 + ["read 2"] * 4 + ["read 3"]


def test_a_frame_of_another_size_is_read() -> None:
    detect = Counting()
    still = StillFrames(detect, settle_reads=1)
    still(frame(CARDS, 0))
    still(frame(CARDS, 1)[:, :1200])
    assert detect.reads == 2


@pytest.mark.parametrize("bad", [None, np.zeros((720, 1280), np.uint8), np.zeros((720, 1280, 3), np.float32)])
def test_a_frame_that_is_no_image_is_refused_and_changes_nothing(bad: object) -> None:
    detect = Counting()
    still = StillFrames(detect, settle_reads=1)
    first = still(frame(CARDS, 0))
    with pytest.raises(FrameError):
        still(bad)  # type: ignore[arg-type]
    assert [d.code for d in still(frame(CARDS, 1))] == [d.code for d in first] == ["read 1"]
    assert (detect.reads, still.frames_read, still.frames_skipped) == (1, 1, 1)


def test_a_read_that_fails_is_not_remembered() -> None:
    """The recogniser refusing a frame leaves the last good reading to compare with."""
    reads: list[int] = []

    def detect(image: np.ndarray) -> list[Detection]:
        reads.append(len(reads))
        if len(reads) == 2:
            raise FrameError("unreadable")
        return []

    still = StillFrames(detect)
    still(frame(CARDS, 0))
    with pytest.raises(FrameError):
        still(frame(CARDS[:1], 1))
    still(frame(CARDS[:1], 2))
    assert reads == [0, 1, 2]


@pytest.mark.parametrize(("options", "message"), [
    ({"tolerance": -1}, "tolerance"), ({"tolerance": 300}, "tolerance"),
    ({"refresh_frames": 0}, "refresh_frames"), ({"refresh_frames": 2.5}, "refresh_frames"),
    ({"settle_reads": 0}, "settle_reads"),
])
def test_nonsense_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StillFrames(Counting(), **options)


# -- TableChanges: where the picture last changed ------------------------------------------------------------


def _outline(card: PlacedCard) -> np.ndarray:
    return render_scene([card], size=(1280, 720), background=BACKGROUND)[1][0]


def test_table_changes_mark_where_a_card_was_laid_and_not_the_cameras_noise() -> None:
    changes = TableChanges()
    for k in range(40):
        changes.update(frame(CARDS, seed=k))
    assert changes.frames == 40
    assert changes.quiet_frames(_outline(CARDS[0])) == 39     # the noise never counted as a change
    new = PlacedCard("8D", (1000, 200), 5, 85)
    changes.update(frame(CARDS + [new], seed=40))
    changes.update(frame(CARDS + [new], seed=41))
    assert changes.quiet_frames(_outline(new)) == 1
    assert changes.quiet_frames(_outline(CARDS[0])) == 41 and changes.quiet_frames(_outline(CARDS[1])) == 41
    assert changes.quiet_frames(np.array([[2000, 2000], [2100, 2000], [2100, 2100]])) == 0   # off the picture


def test_table_changes_refuse_bad_frames_and_start_again_on_another_size() -> None:
    changes = TableChanges()
    assert changes.quiet_frames(_outline(CARDS[0])) == 0     # nothing seen yet: no reason to doubt
    for k in range(5):
        changes.update(frame(CARDS, seed=k))
    for bad in (None, np.zeros((720, 1280), np.uint8), np.zeros((720, 1280, 3), np.float32)):
        with pytest.raises(FrameError):
            changes.update(bad)  # type: ignore[arg-type]
    assert changes.frames == 5 and changes.quiet_frames(_outline(CARDS[0])) == 4
    changes.update(np.full((480, 640, 3), 90, np.uint8))    # another camera: everything is new
    assert changes.quiet_frames([[0, 0], [640, 0], [640, 480], [0, 480]]) == 0
    with pytest.raises(ValueError):
        TableChanges(tolerance=300)


def test_a_card_read_where_nothing_has_changed_is_reported_uncertain() -> None:
    """A chance likeness in a still row, read steadily, never becomes a sure card; a card laid does."""
    changes, tracker = TableChanges(), Tracker(fresh_frames=30)
    still = frame(CARDS, seed=0)
    events = []
    for k in range(40):
        changes.update(still)
        ghost = [QS] if k >= 35 else []        # read on the QS lying there since the first frame
        events += tracker.update(ghost, changes=changes)
    [ghost_seen] = events
    assert isinstance(ghost_seen, CardSeen)
    assert ghost_seen.code == "QS" and ghost_seen.uncertain and ghost_seen.unmoved
    laid = PlacedCard("8D", (1000, 200), 5, 85)
    read = Detection("8D", 0.95, _outline(laid).astype(np.float32))
    events = []
    for k in range(5):
        changes.update(frame(CARDS + [laid], seed=50 + k))
        events += tracker.update([QS, read], changes=changes)
    seen = [e for e in events if isinstance(e, CardSeen)]
    assert seen == events and [(e.code, e.uncertain, e.unmoved) for e in seen] == [("8D", False, False)]
    # Without the changes the tracker cannot tell: as before, a steady read is a sure card.
    plain = Tracker()
    events = [e for _ in range(3) for e in plain.update([QS])]
    seen = [e for e in events if isinstance(e, CardSeen)]
    assert seen == events and [e.uncertain for e in seen] == [False]


def test_still_frames_keep_their_table_changes_up_to_date_from_their_own_thumbnail() -> None:
    kept, own = TableChanges(), TableChanges()
    still = StillFrames(Counting(), changes=kept)
    laid = PlacedCard("8D", (1000, 200), 5, 85)
    for k in range(45):
        image = frame(CARDS + ([laid] if k >= 40 else []), seed=k)
        still(image)
        own.update(image)
    assert still.frames_skipped > 0 and kept.frames == own.frames == 45
    for outline in (_outline(laid), _outline(CARDS[0])):
        assert kept.quiet_frames(outline) == own.quiet_frames(outline)
    assert kept.quiet_frames(_outline(laid)) == 4 and kept.quiet_frames(_outline(CARDS[0])) == 44


@pytest.mark.parametrize("skip_still", [True, False])
def test_the_frame_step_takes_each_frame_into_its_table_changes_once(skip_still: bool) -> None:
    """With the still-table skip its thumbnail feeds the changes; without it the step does: once a frame either way."""
    step = FrameStep(Counting(), Tracker(), skip_still=skip_still)
    for k in range(3):
        step(frame(CARDS, seed=k), k)
    assert step.changes.frames == 3
    assert (step.still is not None and step.still.changes is step.changes) == skip_still
