"""From per-frame detections to table events: "QS now lies in Bob's zone".

The recogniser looks at one frame at a time and is sometimes wrong for a
frame: a card misread, a card hidden by a passing hand, a card half slid in.
The tracker turns that flicker into the few events a referee wants:

- :class:`CardSeen` once a card has lain still, read steadily, for a few frames;
- :class:`CardRemoved` once a card has been gone for many frames (a hand over
  the table hides cards for a moment; that is not a removal);

and never the same card twice while it lies there. A card put down over most
of another one is reported ``on_top_of`` it (a pile); the card underneath is
then *covered*: not expected to be seen, not removed.

>>> import numpy as np
>>> from vision.detection import Detection
>>> def card(code, x, y, conf=0.95):
...     outline = np.array([[x, y], [x + 60, y], [x + 60, y + 90], [x, y + 90]], np.float32)
...     return Detection(code, conf, outline)
>>> tracker = Tracker(confirm_frames=3, remove_frames=5)
>>> [tracker.update([card("QS", 100, 100)]) for _ in range(2)]
[[], []]
>>> [e.code for e in tracker.update([card("QS", 100, 100)])]
['QS']
>>> [tracker.update([]) for _ in range(4)]  # a hand passes over: nothing happens
[[], [], [], []]
>>> tracker.update([card("QS", 100, 100)])  # still there, not reported again
[]
>>> for _ in range(4): _ = tracker.update([])
>>> tracker.update([])
[CardRemoved(code='QS', seat=None, frame_index=12)]
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.rules.cards import JOKER_CODE, Card
from companion.rules.game import CARD_PHASES, PHASES
from vision.detection import Detection
from vision.zones import CENTRE, ZoneMap

if TYPE_CHECKING:
    from vision.still import TableChanges

Outline = tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class CardSeen:
    """A card now lies on the table in ``seat``'s zone (``None``: outside every zone).

    ``uncertain`` reads carry the best ``candidates`` (code, probability) for
    the referee to choose from; :meth:`confirmed` makes the settled event.
    ``on_top_of`` names the card this one was put on (now covered), if any.
    ``unmoved`` says it was read where the picture had not changed for a
    while (uncertain for that, however clearly it reads).
    """

    code: str
    seat: str | None
    outline: Outline
    confidence: float
    uncertain: bool
    candidates: tuple[tuple[str, float], ...]
    on_top_of: str | None
    frame_index: int
    unmoved: bool = False

    def confirmed(self, code: str | None = None) -> CardSeen:
        """The same sighting after a person confirmed (or corrected) the code."""
        return dataclasses.replace(self, code=self.code if code is None else code, uncertain=False, confidence=1.0,
                                   unmoved=False)


@dataclass(frozen=True)
class CardRemoved:
    """A card that lay in ``seat``'s zone is gone (picked up, or slid elsewhere)."""

    code: str
    seat: str | None
    frame_index: int


Event = CardSeen | CardRemoved


def _hull(outline: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.asarray(outline, dtype=np.float32).reshape(-1, 1, 2))


def _area(outline: np.ndarray) -> float:
    return float(cv2.contourArea(_hull(outline)))


def _intersection(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(_hull(a), _hull(b))
    return max(float(area), 0.0)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter = _intersection(a, b)
    union = _area(a) + _area(b) - inter
    return inter / union if union > 0 else 0.0


def _centre(outline: np.ndarray) -> np.ndarray:
    return np.asarray(outline, dtype=np.float64).reshape(-1, 2).mean(axis=0)


@dataclass
class _Vote:
    frame: int          # the tracker's count of frames given (``Tracker._now``), not the camera's index
    code: str
    probs: dict[str, float]
    outline: np.ndarray


@dataclass
class _Track:
    """One physical card, followed by place; its code is decided by votes."""

    id: int
    outline: np.ndarray
    votes: deque[_Vote]
    last_seen: int          # in the tracker's count of frames given, as ``born``
    state: str = "candidate"  # candidate | present | covered
    code: str | None = None  # the reported code, once present
    seat: str | None = None
    covered_by: int | None = None
    other_seat_hits: int = 0
    seen_now: bool = False
    seen_self_now: bool = False  # read as its own code this frame (not just something read there)
    born: int = 0
    doubts: set[str] = field(default_factory=set)  # the other candidates of an uncertain report

    def hit_frames(self) -> list[int]:
        return [v.frame for v in self.votes]

    def scores(self) -> list[tuple[str, float]]:
        """Average probability per code over the remembered votes, best first."""
        total: dict[str, float] = {}
        for v in self.votes:
            for code, p in v.probs.items():
                total[code] = total.get(code, 0.0) + p
        n = max(len(self.votes), 1)
        return sorted(((c, s / n) for c, s in total.items()), key=lambda cs: (-cs[1], cs[0]))

    def lead(self) -> str:
        return self.scores()[0][0]


class TrackerError(ValueError):
    """Raised for input the tracker cannot take: a detection without a 4-point outline, a frame index going back."""


def _check(detections: Sequence[Detection]) -> None:
    for d in detections:
        if not isinstance(d, Detection):
            raise TrackerError(f"expected Detection, got {type(d).__name__}")
        outline = np.asarray(d.outline, dtype=np.float64)
        if outline.size != 8 or not np.isfinite(outline).all():
            raise TrackerError(f"detection {d.code!r}: the outline must be 4 finite [x, y] points, got shape {outline.shape}")
        if not 0 <= d.confidence <= 1:
            raise TrackerError(f"detection {d.code!r}: confidence must be between 0 and 1, got {d.confidence!r}")


class Tracker:
    """Follows the cards on the table from frame to frame and reports changes.

    Options (keyword-only): a card is reported once it has been read in
    ``confirm_frames`` of the last ``window`` frames (so one missed frame
    does not reset it) and lain still meanwhile (within ``still_fraction`` of
    its size); it is removed after ``remove_frames`` frames without a
    sighting. A lying card changes seat only once its centre is
    ``border_fraction`` of its size inside the new zone, so a card on a
    border does not flap between two players. Reads below
    ``min_confidence`` are ignored as noise; a card whose averaged read stays
    below ``certain_confidence`` is reported ``uncertain``, and so is one
    read where the picture has not changed for ``fresh_frames`` frames
    (when :meth:`update` is given the table's
    :class:`~vision.still.TableChanges`). Detections match a known card when their outlines overlap
    by ``match_iou``; a new card covering ``pile_overlap`` of an older one is
    ``on_top_of`` it.

    ``known_cards`` are codes already on the table (after a restart): when
    seen they are recorded as present without being reported. :meth:`prime`
    does the same from one frame's detections.

    Frames are counted as they are given to :meth:`update`, whatever their
    ``frame_index``: a recogniser slower than the camera skips camera
    frames (the live loop reads only the latest), and counting those would
    leave fewer reads in a window than ``confirm_frames`` asks for, so that
    no card would ever be reported.  ``frame_index`` only labels the events.
    """

    def __init__(
        self,
        zone_map: ZoneMap | None = None,
        *,
        confirm_frames: int = 3,
        window: int = 5,
        remove_frames: int = 30,
        min_confidence: float = 0.2,
        certain_confidence: float = 0.7,
        match_iou: float = 0.3,
        pile_overlap: float = 0.5,
        still_fraction: float = 0.1,
        border_fraction: float = 0.15,
        vote_memory: int = 15,
        fresh_frames: int = 30,
        known_cards: Iterable[str] = (),
    ) -> None:
        if confirm_frames < 1 or window < confirm_frames:
            raise ValueError(f"need 1 <= confirm_frames <= window, got {confirm_frames} and {window}")
        if remove_frames < 1 or fresh_frames < 1:
            raise ValueError(f"remove_frames and fresh_frames must be at least 1, got {remove_frames} and {fresh_frames}")
        for name, value in (("min_confidence", min_confidence), ("certain_confidence", certain_confidence),
                            ("match_iou", match_iou), ("pile_overlap", pile_overlap)):
            if not 0 <= value <= 1:
                raise ValueError(f"{name} must be between 0 and 1, got {value!r}")
        self.zone_map = zone_map
        self.confirm_frames = confirm_frames
        self.window = window
        self.remove_frames = remove_frames
        self.min_confidence = min_confidence
        self.certain_confidence = certain_confidence
        self.match_iou = match_iou
        self.pile_overlap = pile_overlap
        self.still_fraction = still_fraction
        self.border_fraction = border_fraction
        self.vote_memory = max(vote_memory, confirm_frames)
        self.fresh_frames = fresh_frames
        self.known_cards = {str(Card.parse(c)) for c in known_cards}
        self.frame_index = -1
        self._now = -1   # frames given so far, less one: the clock of every window (camera indices can skip)
        self._tracks: dict[int, _Track] = {}
        self._ids = itertools.count()

    # -- what lies on the table ------------------------------------------------

    @property
    def present(self) -> dict[str, str | None]:
        """Every card the tracker believes lies on the table (covered ones included): code -> seat."""
        return {t.code: t.seat for t in self._tracks.values() if t.code is not None and t.state != "candidate"}

    @property
    def outside(self) -> list[str]:
        """Cards lying outside every zone (the game ignores them; the calibration view shows them)."""
        return sorted(t.code for t in self._tracks.values() if t.state == "present" and t.seat is None and t.code)

    def relabel(self, code: str, new_code: str) -> bool:
        """A person corrected the card reported as ``code``: it is ``new_code``.

        The card keeps its place; reads of either code there are now its own,
        so the corrected card is not reported again as a new one. Returns
        whether such a card was lying on the table.
        """
        for t in self._tracks.values():
            if t.code == code and t.state != "candidate":
                t.code = str(new_code)
                t.doubts = t.doubts | {code}
                return True
        return False

    # -- feeding frames --------------------------------------------------------

    def prime(self, detections: Sequence[Detection], *, zone_map: ZoneMap | None = None) -> None:
        """Record the cards in one frame as already present, without reporting them (after a restart)."""
        _check(detections)
        zones = zone_map if zone_map is not None else self.zone_map
        self.frame_index += 1
        self._now += 1
        for d in detections:
            if d.confidence < self.min_confidence or d.code in self.present:
                continue
            t = self._new_track(d)
            t.state, t.code = "present", d.code
            t.seat = zones.assign(d) if zones is not None else None

    def update(self, detections: Sequence[Detection], *, zone_map: ZoneMap | None = None,
               frame_index: int | None = None, changes: TableChanges | None = None) -> list[Event]:
        """Take one frame's detections; return the events it completes, in order.

        ``changes`` (updated with this frame) says where the picture last
        changed: a card reported where nothing has changed for
        ``fresh_frames`` frames is reported ``uncertain``.  Malformed input
        raises :class:`TrackerError` and changes nothing.
        """
        _check(detections)
        if frame_index is not None and int(frame_index) <= self.frame_index:
            raise TrackerError(f"frame index {frame_index} is not after the last one ({self.frame_index})")
        if zone_map is not None:
            self.zone_map = zone_map
        self.frame_index = self.frame_index + 1 if frame_index is None else int(frame_index)
        self._now += 1
        events: list[Event] = []
        for t in self._tracks.values():
            t.seen_now = t.seen_self_now = False
        self._match([d for d in detections if d.confidence >= self.min_confidence])
        self._split_swapped()
        self._promote(events, changes)
        self._lift(events)
        self._follow_moves(events, changes)
        self._expire(events)
        return events

    # -- the steps of one frame --------------------------------------------------

    def _new_track(self, d: Detection) -> _Track:
        t = _Track(id=next(self._ids), outline=np.asarray(d.outline, np.float32).reshape(4, 2),
                   votes=deque(maxlen=self.vote_memory), last_seen=self._now, born=self._now)
        self._vote(t, d)
        self._tracks[t.id] = t
        return t

    def _vote(self, t: _Track, d: Detection) -> None:
        probs = {d.code: float(d.confidence)}
        for code, p in d.alternatives:
            probs.setdefault(code, float(p))
        outline = np.asarray(d.outline, np.float32).reshape(4, 2)
        t.votes.append(_Vote(self._now, d.code, probs, outline))
        own = t.code is None or d.code == t.code or d.code in t.doubts
        if own or t.state != "covered":
            t.outline = outline
        t.last_seen = self._now
        t.seen_now = True
        t.seen_self_now = own
        # A covered card seen (a corner peeping out, a misread of the top card) stays covered: it is
        # uncovered only when the card on top goes, so one stray read cannot make it "removed" later.

    def _match(self, detections: list[Detection]) -> None:
        """Pair detections with tracks: same code first, then most overlap."""
        pairs = []
        tracks = list(self._tracks.values())
        outlines = [np.asarray(d.outline, np.float32).reshape(4, 2) for d in detections]
        if not outlines or not tracks:
            near = np.zeros((len(outlines), len(tracks)), bool)
        else:  # only pairs whose bounding boxes meet get the exact (costlier) overlap
            db = np.array([[o[:, 0].min(), o[:, 1].min(), o[:, 0].max(), o[:, 1].max()] for o in outlines])
            tb = np.array([[o[:, 0].min(), o[:, 1].min(), o[:, 0].max(), o[:, 1].max()] for o in (t.outline for t in tracks)])
            near = ((db[:, None, 0] <= tb[None, :, 2]) & (tb[None, :, 0] <= db[:, None, 2])
                    & (db[:, None, 1] <= tb[None, :, 3]) & (tb[None, :, 1] <= db[:, None, 3]))
        for di, d in enumerate(detections):
            outline = outlines[di]
            area = _area(outline)
            for ti in np.flatnonzero(near[di]):
                t = tracks[ti]
                inter = _intersection(outline, t.outline)
                smaller = min(area, _area(t.outline))
                union = area + _area(t.outline) - inter
                iou = inter / union if union > 0 else 0.0
                same = d.code == (t.code or t.lead())
                # A card partly covered is reported by its visible part: by code, nesting is enough.
                nested = same and smaller > 0 and inter / smaller >= 0.5
                if t.state == "covered" and not same and not (area > 0 and inter / area >= 0.8):
                    # Another code over a covered card is another card, unless it lies within the covered
                    # card's place: then it is the covered card's edge, misread.
                    continue
                if iou >= self.match_iou or nested:
                    pairs.append((same, t.state != "covered", iou, di, t.id))
        pairs.sort(key=lambda p: (p[0], p[1], p[2]), reverse=True)
        used_d: set[int] = set()
        used_t: set[int] = set()
        for _, _, _, di, tid in pairs:
            if di in used_d or tid in used_t:
                continue
            used_d.add(di)
            used_t.add(tid)
            self._vote(self._tracks[tid], detections[di])
        for di, d in enumerate(detections):
            if di not in used_d:
                self._new_track(d)

    def _split_swapped(self) -> None:
        """A lying card whose place now reads steadily as another code has had a card put on it."""
        n = self.confirm_frames
        for t in list(self._tracks.values()):
            if t.state != "present" or len(t.votes) <= n:
                continue
            recent = list(t.votes)[-n:]
            codes = {v.code for v in recent}
            if len(codes) != 1 or t.code in codes or codes <= t.doubts:
                continue  # the same code throughout, or a better read of a card the referee is asked about
            if np.mean([v.probs[v.code] for v in recent]) < self.certain_confidence:
                continue  # a card put on a pile lies in full view and reads clearly; a half-hidden one does not
            new = _Track(id=next(self._ids), outline=recent[-1].outline, votes=deque(recent, maxlen=self.vote_memory),
                         last_seen=self._now, seen_now=True, seen_self_now=True, born=recent[0].frame)
            self._tracks[new.id] = new
            own = [v for v in list(t.votes)[:-n]]
            t.votes = deque(own, maxlen=self.vote_memory)
            mine = [v for v in own if v.code == t.code]
            t.last_seen = mine[-1].frame if mine else t.last_seen - n
            t.outline = mine[-1].outline if mine else t.outline
            t.seen_now = t.seen_self_now = False

    def _still(self, t: _Track) -> bool:
        recent = list(t.votes)[-self.confirm_frames:]
        centres = np.array([_centre(v.outline) for v in recent])
        size = float(np.linalg.norm(t.outline[2] - t.outline[0])) or 1.0
        return float(np.linalg.norm(centres - centres.mean(axis=0), axis=1).max()) <= self.still_fraction * size

    def _seat_of(self, outline: np.ndarray) -> str | None:
        if self.zone_map is None:
            return None
        c = _centre(outline)
        return self.zone_map.zone_at((float(c[0]), float(c[1])))

    def _promote(self, events: list[Event], changes: TableChanges | None) -> None:
        for t in sorted(self._tracks.values(), key=lambda t: t.id):
            if t.state != "candidate" or t.id not in self._tracks:
                continue
            hits = [f for f in t.hit_frames() if f > self._now - self.window]
            if len(hits) < self.confirm_frames or not self._still(t):
                continue
            code = t.lead()
            if self._echo_of_lying_card(t):
                continue
            twin = next((o for o in self._tracks.values() if o is not t and o.code == code and o.state != "candidate"), None)
            seat = self._seat_of(t.outline)
            if twin is not None:
                if self._now - twin.last_seen < self.confirm_frames:
                    continue  # the same code lies elsewhere and is still in view: a misread, wait for more votes
                # The card was picked up and put down elsewhere: follow it.
                del self._tracks[twin.id]
                self._release(twin.id)
                t.state, t.code, t.seat = "present", code, seat
                if twin.seat != seat:
                    events.append(CardRemoved(code, twin.seat, self.frame_index))
                    events.append(self._seen(t, None, changes))
                continue
            under = self._covered_card(t)
            t.state, t.code, t.seat = "present", code, seat
            if under is not None:
                under.state, under.covered_by = "covered", t.id
            if code in self.known_cards:
                self.known_cards.discard(code)
                continue
            events.append(self._seen(t, under.code if under is not None else None, changes))

    def _echo_of_lying_card(self, t: _Track) -> bool:
        """An unclear read over a lying card, with that card's code among its candidates, in view
        itself: the recogniser seeing the same card twice, not a new card (those read clearly)."""
        scores = t.scores()
        if scores[0][1] >= self.certain_confidence:
            return False
        doubts = {c for c, _ in scores[:3]}
        for o in self._tracks.values():
            if o is not t and o.state == "present" and o.code in doubts \
                    and self._now - o.last_seen < self.window and _iou(t.outline, o.outline) >= self.match_iou:
                return True
        return False

    def _covered_card(self, t: _Track) -> _Track | None:
        """The lying card ``t`` was put on: mostly under it and no longer read as itself."""
        best, best_share = None, self.pile_overlap
        for o in self._tracks.values():
            if o is t or o.state != "present" or o.seen_self_now:
                continue
            area = _area(o.outline)
            share = _intersection(t.outline, o.outline) / area if area > 0 else 0.0
            if share < best_share:
                continue
            # Two cards came at once (or one and a phantom): the card lies under the one covering it most.
            rivals = (p for p in self._tracks.values() if p is not t and p is not o and p.seen_self_now and p.state != "covered")
            if any(_intersection(p.outline, o.outline) / area > share for p in rivals):
                continue
            best, best_share = o, share
        return best

    def _seen(self, t: _Track, on_top_of: str | None, changes: TableChanges | None) -> CardSeen:
        scores = t.scores()
        confidence = dict(scores).get(t.code or "", 0.0)
        if confidence < self.certain_confidence:
            t.doubts = {c for c, _ in scores[:3]}
        # A card comes with a hand: read where the picture has long been still, it is a likeness
        # in the cards lying there (a corner box across a row), or a card read very late.
        stale = changes is not None and changes.quiet_frames(t.outline) > self.fresh_frames
        outline = tuple((float(x), float(y)) for x, y in t.outline)
        return CardSeen(
            code=t.code or "", seat=t.seat, outline=outline, confidence=round(confidence, 4),
            uncertain=confidence < self.certain_confidence or stale,
            candidates=tuple((c, round(p, 4)) for c, p in scores[:3]),
            on_top_of=on_top_of, frame_index=self.frame_index, unmoved=stale,
        )

    def _follow_moves(self, events: list[Event], changes: TableChanges | None) -> None:
        """A lying card pushed into another zone and left there changes seat."""
        for t in self._tracks.values():
            if t.state != "present" or not t.seen_now or self.zone_map is None:
                continue
            seat = self._seat_of(t.outline)
            if seat != t.seat and not self._clearly_in(t, seat):
                seat = t.seat  # on the border: jitter must not make a card change hands back and forth
            t.other_seat_hits = t.other_seat_hits + 1 if seat != t.seat else 0
            if t.other_seat_hits >= self.confirm_frames and self._still(t):
                events.append(CardRemoved(t.code or "", t.seat, self.frame_index))
                t.seat, t.other_seat_hits = seat, 0
                events.append(self._seen(t, None, changes))

    def _lift(self, events: list[Event]) -> None:
        """A covered card read steadily while the card on it is not seen: that card was lifted off."""
        n = self.confirm_frames
        for u in list(self._tracks.values()):
            top = self._tracks.get(u.covered_by) if u.state == "covered" and u.covered_by is not None else None
            if top is None or not u.seen_self_now:
                continue
            recent = list(u.votes)[-n:]
            if len(recent) == n and all(v.code == u.code for v in recent) and top.last_seen < recent[0].frame \
                    and recent[0].frame > self._now - self.window:
                del self._tracks[top.id]
                self._release(top.id)
                events.append(CardRemoved(top.code or "", top.seat, self.frame_index))

    def _clearly_in(self, t: _Track, seat: str | None) -> bool:
        """True when the card's centre and the points a border margin round it all lie in ``seat``'s zone."""
        assert self.zone_map is not None
        c = _centre(t.outline)
        m = self.border_fraction * float(np.linalg.norm(t.outline[2] - t.outline[0]))
        probes = [(c[0] + dx, c[1] + dy) for dx, dy in ((0, 0), (m, 0), (-m, 0), (0, m), (0, -m))]
        return all(self.zone_map.zone_at((float(x), float(y))) == seat for x, y in probes)

    def _release(self, tid: int) -> None:
        for o in self._tracks.values():
            if o.covered_by == tid:
                o.state, o.covered_by = "present", None

    def _expire(self, events: list[Event]) -> None:
        changed = True
        while changed:  # removing the top of a pile uncovers the card below, which may be gone too
            changed = False
            for t in sorted(self._tracks.values(), key=lambda t: -t.id):
                gone = self._now - t.last_seen
                if t.state == "candidate" and gone >= self.window:
                    del self._tracks[t.id]
                elif t.state == "present" and gone >= self.remove_frames:
                    del self._tracks[t.id]
                    self._release(t.id)
                    events.append(CardRemoved(t.code or "", t.seat, self.frame_index))
                    changed = True
                    break


class RecordMapper:
    """Turns tracker events into game-record events (docs/record.md), as they happen.

    In the run every card seen in a player's zone is a ``play`` at once
    (the Joker, which is never played, a Bonanza ``discard``). In
    the calls, the poker phase and the showdown a player lays out several
    cards: they become one ``show`` when no new card has come into that
    zone for ``settle_frames`` frames (``claim`` in Tripoley's claims). A
    card taken back before its show settles leaves the show. Uncertain reads,
    cards outside every zone and cards in the ``centre`` zone map to nothing
    (the loop has a person confirm uncertain ones first, see
    :meth:`CardSeen.confirmed`); removals map to nothing either (cards are
    picked up between hands).
    """

    def __init__(self, phase: str = "run", *, settle_frames: int = 15) -> None:
        self._check(phase)
        self.phase = phase
        self.settle_frames = settle_frames
        self._pending: dict[str, tuple[list[str], int]] = {}  # seat -> (cards, last frame)
        self._order: list[str] = []

    @staticmethod
    def _check(phase: str) -> None:
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}; expected one of {', '.join(PHASES)}")

    def set_phase(self, phase: str) -> list[dict]:
        """Switch phase (or call: the same phase again), sending the shows still pending first."""
        self._check(phase)
        out = self.flush()
        self.phase = phase
        return out

    def update(self, events: Iterable[Event], frame_index: int) -> list[dict]:
        out: list[dict] = []
        for e in events:
            if isinstance(e, CardRemoved):
                if e.seat in self._pending and e.code in self._pending[e.seat][0]:
                    self._pending[e.seat][0].remove(e.code)
                continue
            if e.uncertain or e.seat is None or e.seat == CENTRE or self.phase not in CARD_PHASES:
                continue
            if self.phase == "run":
                if e.code == JOKER_CODE:  # Bonanza: a Joker never shown is laid aside, not played
                    out.append({"type": "discard", "player": e.seat, "cards": [e.code]})
                else:
                    out.append({"type": "play", "player": e.seat, "card": e.code})
                continue
            out.extend(self._settled(e.frame_index))
            cards, _ = self._pending.get(e.seat, ([], 0))
            self._pending[e.seat] = (cards + [e.code], e.frame_index)
            if e.seat not in self._order:
                self._order.append(e.seat)
        out.extend(self._settled(frame_index))
        return out

    def _settled(self, now: int) -> list[dict]:
        done = sorted((last, self._order.index(seat), seat) for seat, (_, last) in self._pending.items()
                      if now - last >= self.settle_frames)
        return [self._emit(seat) for _, _, seat in done if self._pending[seat][0] or self._drop(seat)]

    def _drop(self, seat: str) -> bool:
        self._pending.pop(seat)
        self._order.remove(seat)
        return False

    def _emit(self, seat: str) -> dict:
        cards, _ = self._pending.pop(seat)
        self._order.remove(seat)
        kind = "claim" if self.phase == "claims" else "show"
        return {"type": kind, "player": seat, "cards": cards}

    def flush(self) -> list[dict]:
        """Send every pending show now (the phase ends)."""
        out = []
        for seat in list(self._order):
            if self._pending[seat][0]:
                out.append(self._emit(seat))
            else:
                self._drop(seat)
        return out


def to_record_events(events: Iterable[Event], *, phase: str, settle_frames: int = 15) -> list[dict]:
    """Map a finished list of tracker events onto the game record (docs/record.md).

    In the run each certain sighting in a player's zone is a ``play``; in the
    other phases each player's cards make one ``show`` (``claim`` in the
    claims), split where no card came into that zone for ``settle_frames``.

    >>> seen = lambda code, seat, f: CardSeen(code, seat, (), 0.9, False, (), None, f)
    >>> to_record_events([seen("5H", "Ann", 10), seen("6H", "Cy", 20)], phase="run")
    [{'type': 'play', 'player': 'Ann', 'card': '5H'}, {'type': 'play', 'player': 'Cy', 'card': '6H'}]
    >>> to_record_events([seen("QS", "Bob", 3), seen("JD", "Bob", 5), seen("TD", "Ann", 6)], phase="calls")
    [{'type': 'show', 'player': 'Bob', 'cards': ['QS', 'JD']}, {'type': 'show', 'player': 'Ann', 'cards': ['TD']}]
    """
    mapper = RecordMapper(phase, settle_frames=settle_frames)
    out: list[dict] = []
    for e in events:
        out.extend(mapper.update([e], e.frame_index))
    return out + mapper.flush()
