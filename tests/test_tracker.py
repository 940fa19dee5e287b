"""The tracker: steady sightings, flicker, hands, piles, removals, restarts, and the record mapping."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detection import Detection
from vision.pipeline import watch
from vision.sources import HandPass, Move, Place, Remove, ScriptStep, SyntheticTable
from vision.tracker import CardRemoved, CardSeen, Event, RecordMapper, Tracker, TrackerError, to_record_events
from vision.zones import CENTRE, ZoneMap

W, H = 60, 84  # card size in px for hand-made detections
ZONES = ZoneMap.from_dict({
    "Ann": [[0, 0], [400, 0], [400, 300], [0, 300]],
    "Bob": [[400, 0], [800, 0], [800, 300], [400, 300]],
    CENTRE: [[0, 300], [800, 300], [800, 600], [0, 600]],
})


def card(code: str, x: float, y: float, conf: float = 0.95, alternatives: tuple = ()) -> Detection:
    """A detection of an upright card centred on (x, y)."""
    outline = np.array([[x - W / 2, y - H / 2], [x + W / 2, y - H / 2], [x + W / 2, y + H / 2], [x - W / 2, y + H / 2]], np.float32)
    return Detection(code, conf, outline, alternatives)


def run(tracker: Tracker, frames: list[list[Detection]]) -> list:
    events = []
    for dets in frames:
        events.extend(tracker.update(dets))
    return events


def seen(events) -> list[tuple[str, str | None]]:
    return [(e.code, e.seat) for e in events if isinstance(e, CardSeen)]


def removed(events) -> list[tuple[str, str | None]]:
    return [(e.code, e.seat) for e in events if isinstance(e, CardRemoved)]


def test_a_steady_card_is_reported_once_in_its_zone():
    t = Tracker(ZONES)
    events = run(t, [[card("QS", 100, 100)]] * 20)
    assert seen(events) == [("QS", "Ann")]
    e = events[0]
    assert e.frame_index == 2 and not e.uncertain and e.on_top_of is None
    assert e.confidence == pytest.approx(0.95)
    assert e.candidates[0] == ("QS", pytest.approx(0.95))
    assert len(e.outline) == 4
    assert t.present == {"QS": "Ann"}


def test_single_frame_flicker_is_tolerated():
    t = Tracker(ZONES)
    q = card("QS", 100, 100)
    # Missing in the middle: still reported after three sightings within five frames.
    events = run(t, [[q], [], [q], [q]])
    assert seen(events) == [("QS", "Ann")]
    # A one-frame misread while it lies there neither adds a card nor reports it again.
    events = run(t, [[q], [card("QC", 101, 100, 0.6)], [q], [q], [], [q]] * 3)
    assert events == []


def test_a_one_frame_ghost_is_never_reported():
    t = Tracker(ZONES)
    events = run(t, [[card("7D", 500, 100)]] + [[]] * 30)
    assert events == []
    assert t.present == {}


def test_low_confidence_noise_is_ignored():
    t = Tracker(ZONES, min_confidence=0.3)
    assert run(t, [[card("7D", 500, 100, 0.1)]] * 10) == []


def test_a_hand_passing_over_hides_cards_without_removing_them():
    t = Tracker(ZONES, remove_frames=15)
    cards = [card("QS", 100, 100), card("KH", 600, 100)]
    run(t, [cards] * 5)
    # The hand covers both cards for 7 frames, then one of them for 7 more (one partial misread): 14 < 15.
    events = run(t, [[]] * 7 + [[cards[0]]] * 3 + [[cards[0], card("KD", 601, 101, 0.5)]] + [[cards[0]]] * 3 + [cards] * 5)
    assert events == []
    assert t.present == {"QS": "Ann", "KH": "Bob"}


def test_a_card_gone_for_long_is_removed_once():
    t = Tracker(ZONES, remove_frames=15)
    run(t, [[card("QS", 100, 100), card("KH", 600, 100)]] * 5)
    events = run(t, [[card("KH", 600, 100)]] * 40)
    assert removed(events) == [("QS", "Ann")]
    assert [e.frame_index for e in events] == [4 + 15]
    assert t.present == {"KH": "Bob"}
    # Put back later: a new sighting.
    assert seen(run(t, [[card("QS", 100, 100), card("KH", 600, 100)]] * 4)) == [("QS", "Ann")]


def test_a_card_slid_into_view_is_reported_where_it_comes_to_rest():
    t = Tracker(ZONES)
    # Enters from the right edge (partly out of frame, outside every zone) and slides into Bob's zone.
    path = [card("9C", x, 150) for x in range(820, 600, -12)] + [card("9C", 604, 150)] * 8
    events = run(t, [[d] for d in path])
    assert [(e.code, e.seat, e.on_top_of) for e in events] == [("9C", "Bob", None)]
    assert events[0].frame_index >= len(path) - 8


def test_a_card_put_on_top_of_another_is_reported_on_top_and_the_other_is_not_removed():
    t = Tracker(ZONES, remove_frames=15)
    run(t, [[card("8H", 100, 100)]] * 5)
    # A hand covers the pile for a moment, then the new card lies where 8H was.
    events = run(t, [[]] * 3 + [[card("9H", 103, 98)]] * 40)
    assert [(e.code, e.seat, e.on_top_of) for e in events] == [("9H", "Ann", "8H")]
    assert t.present == {"8H": "Ann", "9H": "Ann"}
    # 9H is lifted off again: 8H shows steadily, so 9H is gone at once; nothing new about 8H.
    events = run(t, [[card("8H", 100, 100)]] * 20)
    assert [(e.code, e.frame_index - t.frame_index + 20) for e in events] == [("9H", 3)]
    assert seen(events) == []
    # The whole pile goes: 8H is removed too.
    assert removed(run(t, [[]] * 20)) == [("8H", "Ann")]


def test_a_lying_card_half_hidden_by_a_neighbour_and_misread_unclearly_is_not_a_new_card():
    t = Tracker(ZONES)
    run(t, [[card("8S", 100, 150)]] * 4)
    # A card laid over its top half hides the index; the rest reads, unclearly, as 9S.
    events = run(t, [[card("9S", 100, 150, 0.6), card("7H", 100, 100)]] * 10)
    assert [(e.code, e.on_top_of) for e in events] == [("7H", None)]
    assert t.present == {"8S": "Ann", "7H": "Ann"}


def test_two_cards_arriving_over_one_the_one_covering_it_most_is_on_top():
    t = Tracker(ZONES)
    run(t, [[card("JS", 100, 100)]] * 4)
    events = run(t, [[card("4H", 103, 98), card("7H", 115, 75)]] * 5)
    assert sorted((e.code, e.on_top_of) for e in events) == [("4H", "JS"), ("7H", None)]


def test_a_stray_read_of_a_covered_card_does_not_uncover_it():
    t = Tracker(ZONES, remove_frames=10)
    run(t, [[card("8H", 100, 100)]] * 4)
    run(t, [[card("9H", 102, 100)]] * 4)
    # Once the top card is misread as the one beneath, then read right for longer than remove_frames.
    events = run(t, [[card("9H", 102, 100)]] * 5 + [[card("8H", 102, 100, 0.5)]] + [[card("9H", 102, 100)]] * 15)
    assert events == []
    assert t.present == {"8H": "Ann", "9H": "Ann"}


def test_a_new_card_on_a_pile_whose_top_was_just_lifted_lies_on_the_revealed_card():
    t = Tracker(ZONES)
    run(t, [[card("8H", 100, 100)]] * 4)
    run(t, [[card("9H", 102, 100)]] * 4)
    events = run(t, [[]] * 2 + [[card("8H", 100, 100)]] * 4 + [[card("TH", 101, 99)]] * 4)
    assert [(type(e).__name__, e.code, getattr(e, "on_top_of", None)) for e in events] == [
        ("CardRemoved", "9H", None), ("CardSeen", "TH", "8H")]


def test_a_card_laid_half_over_a_pile_is_a_new_card():
    t = Tracker(ZONES)
    run(t, [[card("8H", 100, 100)]] * 4)
    run(t, [[card("9H", 102, 100)]] * 4)  # 8H is now covered
    events = run(t, [[card("9H", 102, 100), card("TH", 100, 100 + H * 0.45)]] * 5)
    assert [(e.code, e.on_top_of) for e in events] == [("TH", None)]


def test_picking_up_a_pile_removes_every_card_in_it():
    t = Tracker(ZONES, remove_frames=10)
    run(t, [[card("8H", 100, 100)]] * 4)
    run(t, [[card("9H", 102, 100)]] * 4)
    run(t, [[card("TH", 104, 100)]] * 4)
    assert t.present == {"8H": "Ann", "9H": "Ann", "TH": "Ann"}
    events = run(t, [[]] * 12)
    assert sorted(removed(events)) == [("8H", "Ann"), ("9H", "Ann"), ("TH", "Ann")]
    assert t.present == {}


def test_two_cards_overlapping_are_both_reported():
    t = Tracker(ZONES)
    a, b = card("2C", 100, 100), card("3C", 100 + W * 0.6, 100)  # a fan: both indices in view
    events = run(t, [[a, b]] * 6)
    assert sorted((e.code, e.on_top_of) for e in events) == [("2C", None), ("3C", None)]


def test_a_card_overlapping_a_visible_one_is_not_a_pile():
    t = Tracker(ZONES)
    run(t, [[card("2C", 100, 100)]] * 4)
    events = run(t, [[card("2C", 100, 100), card("3C", 100 + W * 0.25, 100 + H * 0.2)]] * 5)  # covers 60% of 2C
    assert [(e.code, e.on_top_of) for e in events] == [("3C", None)]


def test_a_card_moved_to_another_zone_changes_seat():
    t = Tracker(ZONES, remove_frames=30)
    run(t, [[card("AS", 100, 100)]] * 4)
    # Picked up and put down in Bob's zone (far away: no overlap).
    events = run(t, [[]] * 2 + [[card("AS", 600, 100)]] * 5)
    assert [(type(e).__name__, e.code, e.seat) for e in events] == [("CardRemoved", "AS", "Ann"), ("CardSeen", "AS", "Bob")]
    # Pushed a little within the zone: nothing to report.
    assert run(t, [[card("AS", 620, 110)]] * 6) == []
    # Pushed slowly across the border into Ann's zone.
    events = run(t, [[card("AS", x, 110)] for x in range(620, 340, -20)] + [[card("AS", 340, 110)]] * 5)
    assert [(type(e).__name__, e.seat) for e in events] == [("CardRemoved", "Bob"), ("CardSeen", "Ann")]


def test_a_card_on_a_zone_border_does_not_flap_between_seats():
    t = Tracker(ZONES)
    jitter = [-3, 2, 3, -2, 1, 3, 3, 3, -3, -3, -3, 2, 2, 2, -1] * 4
    events = run(t, [[card("JS", 400 + dx, 100)] for dx in jitter])
    assert len(events) == 1 and events[0].seat in ("Ann", "Bob")


def test_the_same_code_read_in_two_places_is_not_reported_twice():
    t = Tracker(ZONES)
    run(t, [[card("AS", 100, 100)]] * 4)
    # Another card misread as AS while the real AS is still in view.
    events = run(t, [[card("AS", 100, 100), card("AS", 600, 100, 0.7)]] * 10)
    assert events == []


def test_low_confidence_reads_are_uncertain_with_candidates():
    t = Tracker(ZONES)
    d = card("6H", 100, 100, 0.45, alternatives=(("8H", 0.4), ("9H", 0.1)))
    [e] = run(t, [[d]] * 4)
    assert e.uncertain and e.code == "6H"
    assert [c for c, _ in e.candidates] == ["6H", "8H", "9H"]
    sure = e.confirmed("8H")
    assert (sure.code, sure.uncertain, sure.seat) == ("8H", False, "Ann")


def test_a_better_read_of_an_uncertain_card_is_not_a_new_card_on_top():
    t = Tracker(ZONES)
    run(t, [[card("6H", 100, 100, 0.45, alternatives=(("8H", 0.4),))]] * 3)
    assert run(t, [[card("8H", 100, 100, 0.9)]] * 10) == []
    assert t.present == {"6H": "Ann"}


def test_a_card_half_covered_is_still_the_same_card():
    t = Tracker(ZONES, remove_frames=2)  # quick to call a card gone, so a lost match would show
    run(t, [[card("QS", 100, 100)]] * 4)
    # Something covers its lower three quarters: the recogniser reports the visible top quarter.
    top = Detection("QS", 0.9, np.array([[70, 58], [130, 58], [130, 79], [70, 79]], np.float32))
    assert run(t, [[top]] * 30) == []
    assert t.present == {"QS": "Ann"}


def test_an_unclear_echo_of_a_lying_card_is_not_a_new_card():
    t = Tracker(ZONES)
    run(t, [[card("6C", 100, 100)]] * 4)
    # Every other frame the recogniser also proposes a shifted copy, read unclearly as 6S (or 6C).
    echo = card("6S", 118, 80, 0.55, alternatives=(("6C", 0.4),))
    assert run(t, [[card("6C", 100, 100), echo], [card("6C", 100, 100)]] * 10) == []
    # Later a card read clearly at that place is news.
    [e] = run(t, [[card("6C", 100, 100)]] * 6 + [[card("6C", 100, 100), card("6S", 118, 80, 0.95)]] * 3)
    assert (e.code, e.uncertain) == ("6S", False)


def test_votes_decide_a_card_read_two_ways():
    t = Tracker(ZONES)
    reads = [card("8H", 100, 100, 0.8), card("6H", 100, 100, 0.55), card("8H", 100, 100, 0.8)]
    [e] = run(t, [[r] for r in reads])
    assert e.code == "8H"
    assert e.candidates[1][0] == "6H"


def test_restart_with_known_cards_reports_only_new_ones():
    t = Tracker(ZONES, known_cards=["QS", "kh"])
    events = run(t, [[card("QS", 100, 100), card("KH", 600, 100), card("2D", 200, 200)]] * 5)
    assert seen(events) == [("2D", "Ann")]
    assert t.present == {"QS": "Ann", "KH": "Bob", "2D": "Ann"}
    # A known card that goes is still reported as removed.
    assert removed(run(t, [[card("KH", 600, 100), card("2D", 200, 200)]] * 35)) == [("QS", "Ann")]


def test_prime_records_what_lies_on_the_table_without_reporting():
    t = Tracker(ZONES)
    on_table = [card("QS", 100, 100), card("KH", 600, 100)]
    t.prime(on_table)
    assert t.present == {"QS": "Ann", "KH": "Bob"}
    events = run(t, [on_table + [card("3S", 250, 150)]] * 5)
    assert seen(events) == [("3S", "Ann")]


def test_cards_outside_every_zone_are_reported_with_no_seat():
    zones = ZoneMap.from_dict({"Ann": [[0, 0], [300, 0], [300, 300], [0, 300]]})
    t = Tracker(zones)
    [e] = run(t, [[card("4S", 600, 500)]] * 4)
    assert e.seat is None
    assert t.outside == ["4S"]


def test_zone_map_given_per_frame_is_used():
    t = Tracker()
    run(t, [[card("4S", 100, 100)]] * 2)
    [e] = t.update([card("4S", 100, 100)], zone_map=ZONES, frame_index=3)
    assert (e.seat, e.frame_index) == ("Ann", 3)


def test_bad_input_is_refused_and_changes_nothing():
    t = Tracker(ZONES)
    run(t, [[card("QS", 100, 100)]] * 2)
    bad = Detection("KH", 0.9, np.zeros((3, 2), np.float32))
    with pytest.raises(TrackerError, match="outline"):
        t.update([card("QS", 100, 100), bad])
    with pytest.raises(TrackerError, match="confidence"):
        t.update([card("QS", 100, 100, conf=1.5)])
    with pytest.raises(TrackerError, match="Detection"):
        t.update([("QS", 0.9)])  # type: ignore[list-item]
    with pytest.raises(TrackerError, match="frame index"):
        t.update([card("QS", 100, 100)], frame_index=1)
    assert t.frame_index == 1
    # Nothing moved: the third good sighting still completes the card at frame 2.
    [e] = t.update([card("QS", 100, 100)])
    assert (e.code, e.frame_index) == ("QS", 2)
    with pytest.raises(ValueError):
        Tracker(known_cards=["1X"])


@pytest.mark.parametrize("kwargs", [dict(confirm_frames=0), dict(confirm_frames=4, window=3), dict(remove_frames=0), dict(fresh_frames=0),
                                    dict(min_confidence=1.5), dict(match_iou=-0.1)])
def test_bad_options_are_refused(kwargs):
    with pytest.raises(ValueError):
        Tracker(**kwargs)


# -- frames from the synthetic table through a stand-in recogniser ------------------


def oracle(table: SyntheticTable, min_visible: float = 0.6):
    """A perfect recogniser: the cards the renderer drew, when enough of each shows."""
    def detect(_image: np.ndarray) -> list[Detection]:
        return [Detection(code, 0.97, outline) for code, outline in table.truth.items() if table.visible[code] >= min_visible]
    return detect


def test_synthetic_hand_pass_pile_and_removal_end_to_end():
    from vision.render import PlacedCard

    size = (640, 480)
    zones = ZoneMap.around_table(["Ann", "Bob"], size)
    script: list[ScriptStep] = [
        Place(0, PlacedCard("5H", (320, 420), 0, 60)),
        Place(2, PlacedCard("KC", (320, 60), 0, 60)),
        HandPass(8, 6, (100, 470), (560, 400), size=200),  # sweeps over Ann's card
        Place(20, PlacedCard("6H", (322, 418), 5, 60)),  # on top of 5H
        Remove(30, "KC"),
    ]
    table = SyntheticTable([], script, frames=50, size=size, background="felt")
    tracker = Tracker(zones, remove_frames=10)
    events = [e for _, evs in watch(table, oracle(table), tracker) for e in evs]
    summary = [(type(e).__name__, e.code, e.seat, getattr(e, "on_top_of", None)) for e in events]
    assert summary == [
        ("CardSeen", "5H", "Ann", None),
        ("CardSeen", "KC", "Bob", None),
        ("CardSeen", "6H", "Ann", "5H"),
        ("CardRemoved", "KC", "Bob", None),
    ]
    assert table.stats.frames == 50


def test_synthetic_card_slid_in_from_the_edge_is_seen_once_where_it_stops():
    from vision.render import PlacedCard

    size = (640, 360)
    zones = ZoneMap.around_table(["Ann", "Bob"], size)
    slide = [Move(i, "7S", (660 - 25 * i, 300)) for i in range(1, 13)]  # from past the right edge into Ann's zone
    table = SyntheticTable([PlacedCard("7S", (660, 300), 0, 50)], slide, frames=25, size=size)
    events = [e for _, evs in watch(table, oracle(table, min_visible=0.3), Tracker(zones)) for e in evs]
    assert [(e.code, e.seat) for e in events] == [("7S", "Ann")]
    seen = events[0]
    assert isinstance(seen, CardSeen) and seen.on_top_of is None
    assert seen.frame_index >= 12
    assert np.mean(seen.outline, axis=0)[0] == pytest.approx(360, abs=2)


def test_the_hand_really_hides_the_card_in_the_synthetic_scene():
    """Guards the end-to-end test above: the hand pass does make the card vanish for some frames."""
    from vision.render import PlacedCard

    table = SyntheticTable([PlacedCard("5H", (320, 420), 0, 60)], [HandPass(2, 6, (100, 470), (560, 400), size=200)],
                           frames=10, size=(640, 480))
    hidden = [f.index for f in table if table.visible["5H"] < 0.6]
    assert 2 <= len(hidden) < 6


def test_the_demo_table_deals_round_the_default_zones_in_seating_order():
    from vision.sources import demo_table

    size = (640, 360)
    table = demo_table(size=size)
    players = ["Ann", "Bob", "Cy", "Dee"]
    events = [e for _, evs in watch(table, oracle(table), Tracker(ZoneMap.around_table(players, size))) for e in evs]
    assert [(e.code, e.seat) for e in events] == list(zip(["5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"], players * 2))
    assert to_record_events(events, phase="run")[0] == {"type": "play", "player": "Ann", "card": "5H"}


# -- the game record ------------------------------------------------------------


def ev(code: str, seat: str | None, frame: int, *, uncertain: bool = False) -> CardSeen:
    return CardSeen(code, seat, (), 0.5 if uncertain else 0.9, uncertain, (), None, frame)


def test_run_phase_maps_sightings_to_plays_in_order():
    events: list[Event] = [ev("5H", "Ann", 1), ev("6H", "Bob", 3), ev("7H", CENTRE, 4), ev("8H", None, 5),
              ev("9H", "Cy", 6, uncertain=True), CardRemoved("5H", "Ann", 7), ev("TH", "Ann", 9)]
    assert to_record_events(events, phase="run") == [
        {"type": "play", "player": "Ann", "card": "5H"},
        {"type": "play", "player": "Bob", "card": "6H"},
        {"type": "play", "player": "Ann", "card": "TH"},
    ]


def test_a_joker_laid_in_the_run_is_laid_aside_not_played():
    assert to_record_events([ev("JK", "Bob", 1), ev("7C", "Bob", 2)], phase="run") == [
        {"type": "discard", "player": "Bob", "cards": ["JK"]},
        {"type": "play", "player": "Bob", "card": "7C"},
    ]
    assert to_record_events([ev("JK", "Bob", 1)], phase="calls") == [{"type": "show", "player": "Bob", "cards": ["JK"]}]


@pytest.mark.parametrize("phase, kind", [("calls", "show"), ("poker", "show"), ("showdown", "show"), ("claims", "claim")])
def test_layout_phases_group_each_seats_cards(phase, kind):
    events = [ev("9S", "Ann", 1), ev("9H", "Bob", 2), ev("4C", "Ann", 4), ev("2C", "Bob", 5), ev("QH", "Ann", 6, uncertain=True)]
    assert to_record_events(events, phase=phase) == [
        {"type": kind, "player": "Ann", "cards": ["9S", "4C"]},
        {"type": kind, "player": "Bob", "cards": ["9H", "2C"]},
    ]


def test_a_pause_in_a_zone_splits_shows():
    events = [ev("QS", "Ann", 1), ev("JD", "Ann", 3), ev("TD", "Ann", 40), ev("2S", "Ann", 42)]
    assert to_record_events(events, phase="calls", settle_frames=15) == [
        {"type": "show", "player": "Ann", "cards": ["QS", "JD"]},
        {"type": "show", "player": "Ann", "cards": ["TD", "2S"]},
    ]


def test_record_mapper_waits_for_a_layout_to_settle():
    m = RecordMapper("calls", settle_frames=10)
    assert m.update([ev("QS", "Bob", 100)], 100) == []
    assert m.update([ev("JD", "Bob", 105)], 105) == []
    assert m.update([], 114) == []
    assert m.update([], 115) == [{"type": "show", "player": "Bob", "cards": ["QS", "JD"]}]
    # A card taken back before the show settles leaves it; a show with no card left is dropped.
    assert m.update([ev("TD", "Ann", 120), ev("2S", "Ann", 121)], 121) == []
    assert m.update([CardRemoved("2S", "Ann", 123)], 123) == []
    assert m.update([], 140) == [{"type": "show", "player": "Ann", "cards": ["TD"]}]
    m.update([ev("9C", "Cy", 150)], 150)
    m.update([CardRemoved("9C", "Cy", 151)], 151)
    assert m.update([], 200) == []
    # Switching phase sends what is pending; plays go out at once.
    m.update([ev("KS", "Ann", 201)], 201)
    assert m.set_phase("run") == [{"type": "show", "player": "Ann", "cards": ["KS"]}]
    assert m.update([ev("3D", "Bob", 202)], 202) == [{"type": "play", "player": "Bob", "card": "3D"}]


@pytest.mark.parametrize("phase", ["setup", "widow", "between", "over"])
def test_cards_seen_outside_play_map_to_nothing(phase):
    assert to_record_events([ev("5H", "Ann", 1), ev("6H", "Bob", 2)], phase=phase) == []


def test_unknown_phase_is_refused():
    with pytest.raises(ValueError, match="phase"):
        to_record_events([], phase="bidding")
    with pytest.raises(ValueError, match="phase"):
        RecordMapper().set_phase("nope")


def test_a_recogniser_slower_than_the_camera_still_reports_and_removes_cards() -> None:
    """The live loop reads only the latest frame, so the indices it passes skip (every tenth camera
    frame, say): the windows count the frames given, and the events keep the camera's index."""
    tracker = Tracker(ZONES)
    frames = iter(range(0, 10_000, 10))
    events = [e for _ in range(3) for e in tracker.update([card("QS", 100, 100)], frame_index=next(frames))]
    assert seen(events) == [("QS", "Ann")] and events[0].frame_index == 20
    events = [e for _ in range(tracker.remove_frames) for e in tracker.update([], frame_index=next(frames))]
    assert removed(events) == [("QS", "Ann")] and events[0].frame_index == 10 * (3 + tracker.remove_frames - 1)
