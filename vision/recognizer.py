"""Every face-up card in a camera frame: where it lies and what it is.

:class:`Recognizer` joins the two halves: :mod:`vision._detect` proposes card
hypotheses from the frame's geometry (right-angled corners of bright blobs,
so overlapped and fanned cards are found too), and the learned
:class:`~vision.classifier.CardClassifier` reads each hypothesis's index
corner, rejecting the false ones through its ``none`` class.

>>> import numpy as np
>>> Recognizer(classifier=_NoCards()).detect(np.zeros((480, 640, 3), np.uint8))
[]
>>> Recognizer(classifier=_NoCards()).detect(np.zeros((480, 640), np.uint8))
Traceback (most recent call last):
...
vision.recognizer.FrameError: frame must be (height, width, 3) BGR, got shape (480, 640)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple, Protocol, TypeGuard

import cv2
import numpy as np

from vision import _detect
from vision.classifier import CARD_SIZE, CLASSES, CardClassifier, FaceReader, extract_faces, extract_patches, rotate_180
from vision.detection import Detection
from vision.detector import CardCorner, CardDetector, sized_alike

_NONE = len(CLASSES) - 1
_SURE = 0.9
"""A card filling the picture read from one corner only must be this sure."""
_LEARNED_SURE = 0.8
"""A learned corner's card, where the geometry reads none, must read this surely: a corner on a
blank slip of paper can read as a card at 0.66 (models/MODEL_CARD.md)."""
_DECISIVE = 0.97
"""A corner read with this probability is not checked against the opposite one."""
_AGREED = 0.75
"""... and read alike from both corners this sure to outrank the cards read by their own corners."""
_CONTRADICTS = 0.02
"""A read sure of a code (half or more) that gives the combined verdict less than this names another
card outright."""
_FACE_SURE = 0.8
"""A face read less surely than this adds nothing: unsure reads of a face and two corners, multiplied,
can agree on a card that none of them named first."""
_CODES = CLASSES[:_NONE]
_JOKER = _CODES.index("JK")
_JOKER_CONFIDENCE = 0.9
"""A Joker must be read this surely, and by two reads (both corners, or a corner and the face) or by its
face alone (:func:`_a_joker`): its class, learned from the fewest and most varied designs, is where
unfamiliar print (a word on a box, a court card's frame, a glittered pouch) lands at one corner, and a
pack holds one at most."""
_PARALLEL = math.cos(math.radians(8))
_DISTINCT = 0.9
"""A candidate read this surely, at more than 8 degrees to a nearby one, is another card."""
_PEEKS_OUT = 0.8
"""A candidate read this surely, each index that reads it off every card kept, is a card of its own however
near their centres lie: a card slid under another shows only that index.  Read less surely it is the other
card misread (under a cheap webcam's JPEG a JH's index, read at a size a third off, came out a KH at 0.76)."""
_A_TABLE = 2
"""A card seen whole beside which this many other cards are read surely (``_DISTINCT``), by their own
corners and outside it, lies on a table: it is not the one card of a close-up."""
_TABLE_SIZE = 0.15
"""A card this near (a share of it) to the median width of the frame's sure cards is of the table's size."""
_ONE_SIZE = (0.5, 0.8)
"""A card under half as wide as the surest card of the frame, read under 0.8, is no card: one pack is one
size, and the far cards of a table seen at an angle are 0.6 as wide as the near ones."""
_SAME_INDEX = 0.1
"""Index corners read this close (in card widths) are one printed index: no fan spreads cards so tightly
that a second index shows."""
_UNSURE = (0.3, 0.9)
"""A card read with a probability in this range is read again a little shifted (``_SHIFTS``)."""
_SHIFTS = tuple(np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
                for dx, dy in ((-3.0, 0.0), (3.0, 0.0), (0.0, -3.0), (0.0, 3.0)))
"""Card units (3 of a card's 250: about a pixel in a camera frame) by which an unsure corner is moved."""
_DOUBTED = 0.2
"""A card the geometry read this surely, but under ``min_confidence``, may be there: the detector's
closer look takes in its place too (a far card of a table seen at an angle, grown at the near ones' width).
A read spread thinner over many codes is no card's."""
_KNOWN = 0.9
"""A card the geometry read this surely explains the learned corners at it; those of a card read less
surely are read too, at the detector's pose, and the surer read stands (models/MODEL_CARD.md: 0.8 to 0.95
read the validation folders alike)."""
_WORTH_A_LOOK = 0.7
"""Beside the geometry, a first look's corner scored under this is no reason for the detector's closer
look: the geometry reads the table's cards, and such a corner is most often a hand's or a covered card's
(alone, they are the only evidence of the far cards, and all count)."""
_DISMISSED = 0.9
"""Beside the geometry, a first look's corner that the reader calls ``none`` this surely where that look
puts it is no reason for the closer look: the backs of face-down cards, handed on as index corners, took
most of a 15-card frame's closer look (models/MODEL_CARD.md)."""
_TABLE_CARD = 0.45
"""No card on a table is wider than this share of the picture's long side (a table's straight rim
would otherwise pass for one); a wider card is looked for only where none is found (a close-up)."""
_MAX_CORNERS = 1500
"""Corners measured against each other, at most (the shared photos' most cluttered showed 1,350;
a frame of noise 2,600, and two seconds' work)."""
_MIN_IN_FRAME = 0.3
"""A card the geometry proposed from its own corners must lie this much within the picture: a corner
that the picture's edge cuts through bright stuff is most often that edge, not a card's.  A learned
corner is a card's wherever its card lies (the detector learned tables cut by the picture's edge): a
row or a fan running out of the picture shows only its index corners."""
_BODY = np.array([[x, y, 1.0] for x in np.linspace(0, CARD_SIZE[0], 5) for y in np.linspace(0, CARD_SIZE[1], 7)]).T
_CARD_CORNERS = np.array([[0, 0, 1], [CARD_SIZE[0], 0, 1], [CARD_SIZE[0], CARD_SIZE[1], 1], [0, CARD_SIZE[1], 1]],
                         np.float64).T


class FrameError(ValueError):
    """A frame the recogniser cannot look at: not an image, the wrong shape or type, or empty."""


class Classifier(Protocol):
    """What the recogniser needs from a classifier (``CardClassifier`` or a test double)."""

    def classify(self, patches: np.ndarray) -> np.ndarray: ...


class Corners(Protocol):
    """What the recogniser needs from a corner detector (``CardDetector`` or a test double):
    ``unseen`` keeps the corners of cards not read already, where it may look more closely, as about
    ``also``, the places of cards read in doubt; ``everywhere`` looks more closely at the whole frame."""

    def find(self, frame_bgr: np.ndarray, *, unseen: Callable[[list[CardCorner]], list[CardCorner]] | None = None,
             also: Sequence[CardCorner] = (), everywhere: bool = False) -> list[CardCorner]: ...


class _NoCards:
    """A classifier that sees no card anywhere (for doctests and geometry-only checks)."""

    def classify(self, patches: np.ndarray) -> np.ndarray:
        out = np.zeros((len(patches), len(CLASSES)), np.float32)
        out[:, _NONE] = 1.0
        return out


class _Looks(NamedTuple):
    """A frame's card hypotheses, in the order they are read until one reads a card."""

    table: list[_detect.Hypothesis]
    """At the scene's card widths, and the picture itself as one card."""
    close_up: Callable[[], list[_detect.Hypothesis]]
    """One card seen close up (worked out only where asked for)."""
    value: np.ndarray | None
    """The working whiteness, for :func:`~vision._detect.snap_edges` (None without the geometry)."""
    to_frame: np.ndarray
    """The map from working to frame pixels."""


@dataclass(frozen=True)
class _Candidate:
    code: int
    confidence: float
    probs: np.ndarray          # combined distribution over the 53 codes
    card_to_frame: np.ndarray
    centre: np.ndarray
    width: float
    reads: int                 # index corners and face read (1 to 3)
    agreed: bool               # two of them read as the same card
    by_face: bool              # the face was among them
    read_at: tuple[tuple[float, float], ...]   # where in the frame the corners that read this code lie
    corners: tuple[np.ndarray, np.ndarray]     # the two index corners' reads, for the face to join later


def check_frame(frame_bgr: object) -> np.ndarray:
    """The frame itself if it is a non-empty ``(h, w, 3)`` uint8 BGR image, else :class:`FrameError`."""
    if frame_bgr is None:
        raise FrameError("no frame (got None): the camera returned nothing")
    if not isinstance(frame_bgr, np.ndarray):
        raise FrameError(f"frame must be a numpy array, got {type(frame_bgr).__name__}")
    if frame_bgr.dtype != np.uint8:
        raise FrameError(f"frame must be uint8, got {frame_bgr.dtype}")
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise FrameError(f"frame must be (height, width, 3) BGR, got shape {frame_bgr.shape}")
    if min(frame_bgr.shape[:2]) < 16:
        raise FrameError(f"frame is empty or too small to hold a card: {frame_bgr.shape[1]}x{frame_bgr.shape[0]}")
    return frame_bgr


class Recognizer:
    """Finds and reads every face-up card in a BGR frame of any size.

    ``classifier`` defaults to the shipped model (``models/cards-int8.onnx``,
    one thread).  ``min_confidence`` is the probability below which a card is not
    reported.  ``work_size`` is the long side, in pixels, at which the frame's
    geometry is analysed (larger frames are shrunk, tiny ones enlarged);
    patches are always cut from the full-resolution frame.  ``read_again``:
    a card read with a probability between 0.3 and 0.9 is read again at four
    places a pixel aside and the reads averaged, which drops most chance
    likenesses in clutter, for about a tenth more time at fifteen cards
    (turn it off for a classifier that reads an index only where it lies
    exactly, such as a template matcher).  ``faces`` reads the whole face
    of a card seen whole (a close-up, a photo of one card, each card that
    lies whole in a table's picture) as a third opinion beside its two
    corners; it defaults to the shipped face reader
    when ``classifier`` is the shipped corner reader too, and to none beside
    any other classifier (a test double's reads stay its own).  ``detector``
    (such as :class:`vision.detector.CardDetector`) adds the corners it finds
    where the geometry read no card surely, each read as the geometry's are but
    only where read surely: the cards of a table whose look the geometry's
    whiteness does not fit, or that it sized or framed wrong.  It defaults to the
    shipped detector beside the shipped corner reader, and to none beside
    any other classifier.
    ``geometry=False`` leaves the frame's geometry out: the detector's corners
    (and the picture itself as one card) are then the only hypotheses, each
    read as surely as the geometry's own.  That measures how far the detector
    alone finds the cards (``companion eval --no-geometry``).
    """

    def __init__(self, *, classifier: Classifier | None = None, faces: Classifier | None = None,
                 detector: Corners | None = None, min_confidence: float = 0.6, work_size: int = 960,
                 read_again: bool = True, geometry: bool = True) -> None:
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be within [0, 1], got {min_confidence!r}")
        if not isinstance(work_size, int) or work_size < 320:
            raise ValueError(f"work_size must be an int of at least 320 pixels, got {work_size!r}")
        self.classifier: Classifier = classifier if classifier is not None else CardClassifier()
        self.faces: Classifier | None = faces if faces is not None or classifier is not None else FaceReader()
        self.detector = detector if detector is not None or classifier is not None else CardDetector()
        self.min_confidence = float(min_confidence)
        self.work_size = work_size
        self.read_again = bool(read_again)
        self.geometry = bool(geometry)
        if not self.geometry and self.detector is None:
            raise ValueError("geometry=False needs a detector: nothing else would propose a card")

    def detect(self, frame_bgr: np.ndarray) -> list[Detection]:
        """The face-up cards in ``frame_bgr``, most confident first, each code once (one pack holds
        each card once: of two reads of a code, the surer is the card), and none far narrower than the
        surest unless read surely (a pack's cards are one size).

        Each detection's outline is the whole card as estimated from what is
        visible (for a covered card it reaches under the covering one), in
        the frame's own pixel coordinates.
        """
        frame = check_frame(frame_bgr)
        looks = self._hypotheses(frame)
        candidates, whole = self._candidates(frame, looks.table, looks.value, looks.to_frame)
        if self.detector is not None and self.geometry:
            read = [c for c in candidates if c.confidence >= self.min_confidence]
            doubted = [c for c in candidates if _DOUBTED <= c.confidence < self.min_confidence]
            if read:
                # The learned corners where the geometry read no card surely: a proposal that read nothing
                # or little (a far card sized as the near ones, an outline askew) leaves its card to them.
                # On a table as white as its cards the geometry reads few of them, and the detector's
                # first look misses small ones: its closer look then takes in the whole frame.
                value = looks.value
                learned = self._learned(frame, looks.to_frame, beside=read, doubted=doubted,
                                        everywhere=value is not None and _detect.as_white_as_cards(value))
            else:
                # The geometry read no card at all: it has nothing to second (a frame out of focus, a
                # desk as white as the cards), so the frame is read as the detector alone reads it
                # (no corner moved onto edges), the places it doubts looked at closely all the same.
                learned, value = self._learned(frame, looks.to_frame, doubted=doubted), None
            candidates += self._candidates(frame, learned, value, looks.to_frame)[0]
        picture = {id(c) for c in whole}   # the readings of the picture's own frame as one card
        if not any(c.confidence >= self.min_confidence for c in candidates):
            # Nothing read at a table's card sizes: perhaps one card seen close up, wider
            # than any card on a table can be (a photo of a card, a card held to the camera).
            more, more_whole = self._candidates(frame, looks.close_up(), looks.value, looks.to_frame)
            candidates += more
            whole += more_whole
        elif whole and self.faces is not None and not any(c.by_face for c in whole):
            # The picture read as one card but not its face: the card may lie inside the picture
            # (a photo of a card on a cloth, turned), whose corners hold the card's indices.  Its
            # own outline is read too, face and all (only the outlines seen whole: the close-up's cards
            # grown from a corner could only be reported as table cards, and none is wanted here).
            quads = [h for h in looks.close_up() if h.corner < 0]
            whole += self._candidates(frame, quads, looks.value, looks.to_frame)[1]
        whole = [c for c in whole if c.code != _JOKER or _a_joker(c)]
        if whole:
            # A card filling the picture: both frame corners read as the same card,
            # fairly surely; or read (one of them surely) and no card seen by its own corners read
            # more surely (a table's picture can have cards at its corners).
            # Nothing else fits then.  A picture whose face was read surely is the card: no outline
            # found inside it outranks its readings, even one whose corners agree (corners in doubt,
            # a little inside the card, can agree on a look-alike: a 6S of a deck with its rank top
            # right read 5S).  Not the other way round: an outline inside read by its face may be a
            # pip's or a printed frame's, whose face reads as an ace.
            framed = [c for c in whole if id(c) in picture]
            best = max(framed if any(c.by_face for c in framed) else whole,
                       key=lambda c: (c.agreed, c.reads, c.confidence))
            # Not where other cards are read surely beside it: a table, one of whose cards seen whole
            # was read, and its dark cloth's corners as a card.
            if (((best.agreed and best.confidence >= _AGREED) or all(c.confidence <= best.confidence for c in candidates))
                    and not _a_table_beside(best, candidates)):
                return [self._detection(best)]
        return [self._detection(c) for c in _one_size(_once_each([
            c for c in self._by_face(frame, self._suppress(candidates))
            if c.confidence >= self.min_confidence and (c.code != _JOKER or _a_joker(c))]))]

    def _candidates(self, frame: np.ndarray, hyps: list[_detect.Hypothesis], value: np.ndarray | None,
                    to_frame: np.ndarray) -> tuple[list[_Candidate], list[_Candidate]]:
        """The hypotheses read: cards seen by their own corners, and cards filling the picture.

        The detector hands on a corner in up to four takes (measured by its
        card's next corner first, then its own look, each at the table's
        width too: :func:`~vision.detector.paired`, :func:`~vision.detector.sized_alike`).
        The later takes are read only where no sure card of the table's width
        (:func:`_table_sized`) read an index at that corner already: one
        printed index is one card's, and of one card's reads only the surest
        is kept (:meth:`_suppress`).  At a table of fifteen cards that reads
        two patches in five fewer.
        """
        first, later = _first_takes(hyps)
        candidates, whole = self._read_hypotheses(frame, first, value, to_frame)
        if later and (places := [(p, c.width) for c in _table_sized(candidates, _typical_width(candidates))
                                 for p in c.read_at]):
            at = np.array([(to_frame @ h.card_to_work[:, 2])[:2] for h in later]).reshape(-1, 2)
            read = np.array([p for p, _ in places], np.float64)
            near = _apart(at, read) < _SAME_INDEX * np.array([w for _, w in places], np.float64)[None, :]
            later = [h for h, row in zip(later, near) if not row.any()]
        more, more_whole = self._read_hypotheses(frame, later, value, to_frame)
        return candidates + more, whole + more_whole

    def _read_hypotheses(self, frame: np.ndarray, hyps: list[_detect.Hypothesis], value: np.ndarray | None,
                         to_frame: np.ndarray) -> tuple[list[_Candidate], list[_Candidate]]:
        """:meth:`_candidates` for every one of ``hyps``."""
        if not hyps:
            return [], []
        mats = [to_frame @ h.card_to_work for h in hyps]
        own = self._read(frame, mats)
        # A hypothesis moved onto the card's edges replaces the original where it reads a card better
        # (tried only where the original's read is in doubt, and only beside the geometry: alone, the
        # detector's corners lie on the card's corner already, and moved along a row's edges they read
        # the next card's index askew; ``value`` is None then).
        moved: list[tuple[int, _detect.Hypothesis]] = []
        if value is not None:
            doubt = [i for i, h in enumerate(hyps) if h.corner >= 0 and float(own[i, :_NONE].max()) < _DECISIVE]
            moved = [(i, s) for i, s in zip(doubt, _detect.snap_edges([hyps[i] for i in doubt], value)) if s is not None]
        if moved:
            alt_mats = [to_frame @ s.card_to_work for _, s in moved]
            alt = self._read(frame, alt_mats)
            for k, (i, s) in enumerate(moved):
                if float(alt[k, :_NONE].max()) > float(own[i, :_NONE].max()):
                    hyps[i], mats[i], own[i] = s, alt_mats[k], alt[k]
        # The opposite index corner of every hypothesis the first look did not rule out.
        # A hypothesis whose own corner is covered is still read at its other corner where it is
        # a card for sure: the other way round proposed too (twin), or an edge measured corner to corner.
        solid = [h.corner < 0 or h.twin or h.measured >= 1 for h in hyps]
        keep = [i for i in range(len(hyps)) if solid[i] or own[i, _NONE] < 0.6]
        if not keep:
            return [], []
        # A corner read beyond doubt needs no second look (it halves the classifier's work).
        second = [k for k, i in enumerate(keep)
                  if hyps[i].corner < 0 or (solid[i] and own[i, _NONE] >= 0.6)
                  or float(own[i, :_NONE].max()) < _DECISIVE]
        other = np.zeros((len(keep), len(CLASSES)), np.float32)
        other[:, _NONE] = 1.0
        if second:
            other[second] = self._read(frame, [rotate_180(mats[keep[k]]) for k in second])
        px = math.sqrt(abs(float(np.linalg.det(to_frame[:2, :2]))))   # frame px per working px
        # A card seen whole is read by its face too (nothing lies over it).
        seen_whole = [k for k, i in enumerate(keep) if hyps[i].corner < 0]
        face: list[np.ndarray | None] = [None] * len(keep)
        if seen_whole and self.faces is not None:
            read = self.faces.classify(extract_faces(frame, [mats[keep[k]] for k in seen_whole]))
            for k, p in zip(seen_whole, read):
                face[k] = p if float(p[:_NONE].max()) >= _FACE_SURE else None
        combined = [self._combine(own[i], other[k], mats[i], hyps[i].width * px, face[k])
                    for k, i in enumerate(keep)]
        unsure = [(k, i) for k, i in enumerate(keep) if self.read_again and (c := combined[k]) is not None
                  and _UNSURE[0] <= c.confidence < _UNSURE[1]]
        if unsure:
            own, other = self._read_again(frame, mats, own, other, unsure, set(second))
            for k, i in unsure:
                combined[k] = self._combine(own[i], other[k], mats[i], hyps[i].width * px, face[k])
        # A card seen whole (both its edges measured, lying wholly in the picture) whose corners read nothing
        # is read by its face, which alone must be sure (``_SURE``): its index blurred past reading, printed
        # where no corner reader looks or in a font no deck it learned has, while its pips and figure show.
        # Not as a Joker: an unfamiliar picture of a card's shape lands there (a postcard's owl, at 0.90).
        h, w = frame.shape[:2]
        blind = [k for k, i in enumerate(keep) if hyps[i].measured >= 2 and hyps[i].corner >= 0
                 and ((c := combined[k]) is None or c.confidence < _DOUBTED) and _in_frame(mats[i], w, h) == 1.0]
        if blind and self.faces is not None:
            for k, p in zip(blind, self.faces.classify(extract_faces(frame, [mats[keep[k]] for k in blind]))):
                if float(p[:_NONE].max()) >= _SURE and int(np.argmax(p[:_NONE])) != _JOKER:
                    combined[k] = self._combine(own[keep[k]], other[k], mats[keep[k]], hyps[keep[k]].width * px, p)
        # A learned corner beside the geometry's cards must read surely, and its face, where it lies whole
        # in the picture, is part of that read (a lone card whose corner the geometry put a little aside,
        # read in doubt there, is then read surely at the detector's corner).  Not the geometry's own
        # doubtful hypotheses, grown at a width guessed: with their faces, a webcam frame seen at an angle
        # gained a false card (models/MODEL_CARD.md).
        short = [(k, c) for k, i in enumerate(keep) if hyps[i].learned and hyps[i].doubtful
                 and (c := combined[k]) is not None and _DOUBTED <= c.confidence < _LEARNED_SURE]
        for (k, _), faced in zip(short, self._faced(frame, [c for _, c in short])):
            combined[k] = faced
        candidates, whole = [], []
        for k, i in enumerate(keep):
            c = combined[k]
            if c is None:
                continue
            if hyps[i].doubtful and c.confidence < (_LEARNED_SURE if hyps[i].learned else _SURE):
                continue
            if hyps[i].corner >= 0:
                if hyps[i].learned or _in_frame(c.card_to_frame, frame.shape[1], frame.shape[0]) >= _MIN_IN_FRAME:
                    candidates.append(c)
            elif (c.reads >= 2 and c.confidence >= self.min_confidence) or c.confidence >= _SURE:
                whole.append(c)
        return candidates, whole

    def _by_face(self, frame: np.ndarray, cards: list[_Candidate]) -> list[_Candidate]:
        """``cards`` (one candidate per card), each that lies whole in the picture read by its face too.

        An index out of focus loses what tells a rank from its look-alikes
        while the pips stay plain: blurred by 1.5 px, ``webcam-frames`` read
        every 8 as a 6 at up to 0.99, where the face reader reads eight pips
        at 0.96 or more.  So every card not read by its face yet, and read
        at least in doubt, has its face read as a third opinion, which
        counts where it is sure, as for a card seen whole (the face reader's
        ``none`` covers a face half under another card).  Surest first: a
        read moved onto the code of a surer card is then dropped as a second
        read of that code (:func:`_once_each`).
        """
        cards = [*self._faced(frame, [c for c in cards if c.confidence >= _DOUBTED]),
                 *(c for c in cards if c.confidence < _DOUBTED)]
        return sorted(cards, key=lambda c: -c.confidence)

    def _faced(self, frame: np.ndarray, cards: list[_Candidate]) -> list[_Candidate]:
        """``cards``, each that lies whole in the picture and was not read by its face yet read by it
        too, where the face reader is sure (at ``_FACE_SURE``, as for a card filling the picture)."""
        if self.faces is None:
            return cards
        h, w = frame.shape[:2]
        look = [k for k, c in enumerate(cards) if not c.by_face and _in_frame(c.card_to_frame, w, h) == 1.0]
        if not look:
            return cards
        cards = list(cards)
        for k, face in zip(look, self.faces.classify(extract_faces(frame, [cards[k].card_to_frame for k in look]))):
            c = cards[k]
            read = self._combine(*c.corners, c.card_to_frame, c.width, face) if face[:_NONE].max() >= _FACE_SURE else c
            cards[k] = read if read is not None else c
        return cards

    def _read(self, frame: np.ndarray, cards_to_frame: list[np.ndarray]) -> np.ndarray:
        """The classifier's probabilities for the index corner of each card homography."""
        return self.classifier.classify(extract_patches(frame, cards_to_frame))

    def _read_again(self, frame: np.ndarray, mats: list[np.ndarray], own: np.ndarray, other: np.ndarray,
                    unsure: list[tuple[int, int]], second: set[int]) -> tuple[np.ndarray, np.ndarray]:
        """``own`` and ``other`` with each unsure card's corners averaged over four more reads, shifted.

        One read can hang on where a pixel falls: clutter read as a card at
        0.65, or a blurred card at 0.55.  A true index reads alike a pixel
        aside; a chance likeness mostly does not (on ``scene-photos/train``
        this took precision from 0.91 to 0.97).  ``unsure`` holds (index
        into ``other``, index into ``own``) pairs; the opposite corner is
        read again only where it was read (``second``).
        """
        jobs = [(corner, k, i) for k, i in unsure for corner in ((0, 1) if k in second else (0,))]
        reads = self._read(frame, [(mats[i] if corner == 0 else rotate_180(mats[i])) @ shift
                                   for corner, k, i in jobs for shift in _SHIFTS])
        reads = reads.reshape(len(jobs), len(_SHIFTS), -1).sum(axis=1)
        own, other = own.copy(), other.copy()
        for (corner, k, i), more in zip(jobs, reads):
            if corner == 0:
                own[i] = (own[i] + more) / (1 + len(_SHIFTS))
            else:
                other[k] = (other[k] + more) / (1 + len(_SHIFTS))
        return own, other

    def propose(self, frame_bgr: np.ndarray) -> list[np.ndarray]:
        """Every card hypothesis as a card-units-to-frame homography, before the classifier looks.

        For tuning and for tests of the detection half: a card the recogniser
        misses but whose index corner is proposed here was misread, not unseen.
        ``models.data`` mines the table's false alarms from these.  Beside the
        geometry, every learned corner is among them: which are read depends
        on what the geometry's hypotheses read (:meth:`detect`).
        """
        frame = check_frame(frame_bgr)
        looks = self._hypotheses(frame)
        hyps = looks.table + looks.close_up()
        if self.detector is not None and self.geometry:
            hyps += self._learned(frame, looks.to_frame, beside=[])
        snapped = [] if looks.value is None else _detect.snap_edges([h for h in hyps if h.corner >= 0], looks.value)
        return [looks.to_frame @ h.card_to_work for h in hyps + [s for s in snapped if s is not None]]

    def _hypotheses(self, frame: np.ndarray) -> _Looks:
        """Card hypotheses in working pixels, those at the table's sizes at once and the others
        as they are asked for."""
        h, w = frame.shape[:2]
        scale = min(1.0, self.work_size / max(h, w))
        if max(h, w) * scale < 480:
            scale = 480 / max(h, w)   # enlarge thumbnails so that pixel tolerances stay meaningful
        ww, wh = max(1, round(w * scale)), max(1, round(h * scale))
        sx, sy = ww / w, wh / h
        # Pixel centres: frame x = (work x + 0.5) / sx - 0.5.
        to_frame = np.array([[1 / sx, 0, 0.5 / sx - 0.5], [0, 1 / sy, 0.5 / sy - 0.5], [0, 0, 1]])
        if not self.geometry:
            # The learned corners alone, read as surely as any card: there is no frame geometry to
            # second (__init__ refuses geometry=False without a detector), nor a working image to make.
            learned = self._learned(frame, to_frame)
            return _Looks(learned + _detect.frame_hypotheses(ww, wh), list, None, to_frame)
        # Area averaging only where it matters (big photos): a camera frame shrunk
        # by a quarter loses nothing to bilinear sampling, which costs far less.
        work = frame if scale == 1.0 else cv2.resize(
            frame, (ww, wh), interpolation=cv2.INTER_AREA if scale < 0.6 else cv2.INTER_LINEAR)
        long_side = max(wh, ww)
        lit = _detect.brightened(work)
        value = _detect.evened(_detect.whiteness(lit), lit)
        mask = _detect.card_mask(value)
        min_edge, epsilon = 0.009 * long_side, max(1.5, 0.0022 * long_side)
        found = _detect.outlines(mask)
        filled = _detect.fill_holes(mask, found)
        outer = _detect.find_corners(mask, min_edge=min_edge, epsilon=epsilon, found=found)
        grad = _detect.sharpness(value)
        outer = _detect.longest_edged(_detect.contrasted(outer, value, grad, min_contrast=12, edges=2), _MAX_CORNERS)
        _detect.measure_edges(outer, min_length=0.04 * long_side)
        max_width = _TABLE_CARD * long_side
        widths = _detect.scene_card_widths(outer, max_width=max_width)
        # Cards beneath cards: cut the blobs along the straight lines inside them
        # (not a lone card's blob: nothing hides there).  Only long edges count
        # inside, card prints have short ones aplenty; and the pieces are
        # measured on their own, so that a print's frame inside a card cannot
        # pass for the far end of the card's own edge.
        if len(widths.likely) == 1:
            others = cv2.bitwise_not(_detect.lone_cards(mask, widths.likely[0]))
            mask_in, filled_in = cv2.bitwise_and(mask, others), cv2.bitwise_and(filled, others)
        else:
            mask_in, filled_in = mask, filled
        cut = _detect.split_overlaps(value, mask_in, filled_in, min_line=3 * min_edge)
        inner = _detect.find_corners(cut, min_edge=2 * min_edge, epsilon=epsilon)
        inner = _detect.longest_edged(_detect.contrasted(inner, value, grad, min_contrast=12, edges=1), _MAX_CORNERS)
        _detect.measure_edges(inner, min_length=0.04 * long_side)
        if not widths.likely:
            widths = _detect.scene_card_widths(inner, max_width=max_width)
        else:
            widths = widths.confirmed_by(_detect.seen_whole(inner, max_width=max_width))
        corners, min_width = outer + inner, 0.04 * long_side
        hyps = [h for width in widths.likely or (None,) for h in _detect.hypotheses(corners, width, min_width=min_width)]
        hyps += [replace(h, doubtful=True) for width in widths.doubtful
                 for h in _detect.hypotheses(corners, width, min_width=min_width, measured_only=True)]

        def screened(found: list[_detect.Hypothesis]) -> list[_detect.Hypothesis]:
            """Those lying on bright blobs and looking like an index there, each card once."""
            return _detect.unique(_detect.look_like_index(_detect.on_cards(found, filled), value, mask))

        hyps = screened(hyps)

        def close_up() -> list[_detect.Hypothesis]:
            """One card close up, wider than a table's cards can be: sized by its own measured edges
            (any size), grown only from the corners with such an edge, reported only when read surely.
            Worked out only where asked for: most frames read cards at a table's sizes."""
            big = _detect.scene_card_widths(outer, max_width=long_side)
            if not big.likely:
                big = _detect.scene_card_widths(inner, max_width=long_side)
            return screened([replace(h, doubtful=True) for width in big.likely + big.doubtful if width > max_width
                             for h in _detect.hypotheses(corners, width, min_width=min_width, measured_only=True)]
                            ) + _detect.card_quads(filled)

        return _Looks(hyps + _detect.frame_hypotheses(ww, wh), close_up, value, to_frame)

    def _learned(self, frame: np.ndarray, to_frame: np.ndarray, *, beside: list[_Candidate] | None = None,
                 doubted: Sequence[_Candidate] = (), everywhere: bool = False) -> list[_detect.Hypothesis]:
        """The learned detector's corners as hypotheses in working pixels, each taken as a card's
        top-left one.

        The detector hands on only the corners its index map says hold an index.  Beside the geometry
        (``beside``: the cards it read), none of a card read surely (``_KNOWN``) already, each card
        once (with its later takes, :func:`_first_takes`), each read surely, the closer look taking
        in the places of the cards it read in doubt (``doubted``): the detector sees cards where the
        geometry's whiteness cannot (a white card on a white desk, a glossy cloth, the far side of a
        table seen at an angle), so no mask may hold them back.  Alone (no ``beside``): every one,
        and those of the places of ``doubted``.  Either way, those of a close-up's looks too (a
        blurred close-up gives the geometry no edge), and each at the table's card width too
        (:func:`~vision.detector.sized_alike`): a card beneath another shows one corner, whose look
        can size it a third off.
        """
        assert self.detector is not None
        back = np.linalg.inv(to_frame)
        sx = 1.0 / float(to_frame[0, 0])   # working px per frame px

        def hypotheses(corners: list[CardCorner], doubtful: bool) -> list[_detect.Hypothesis]:
            return [_detect.Hypothesis(back @ c.card_to_frame(), c.width * sx, i, measured=1, doubtful=doubtful,
                                       learned=True) for i, c in enumerate(corners)]

        also = [CardCorner(float(c.centre[0]), float(c.centre[1]), 0.0, c.width, c.confidence) for c in doubted]
        if beside is None:
            # Every corner handed on is read, and each variant of it (paired, at the table's width): the
            # reader's none answers for those that hold no index after all, and of alike variants the surest
            # read wins.
            return hypotheses(sized_alike(self.detector.find(frame, also=also)), doubtful=False)

        # The cards read surely, in working pixels: a corner at one of theirs is a card read already.  A card
        # read less surely leaves its corners to be read again where the detector puts them, and of the two
        # reads the surer stands (the table photos shaken: a 6H the geometry read 5H, read 6H there).
        known = [_detect.Hypothesis(back @ c.card_to_frame, c.width * sx, -1) for c in beside if c.confidence >= _KNOWN]

        def unseen(corners: list[CardCorner]) -> list[CardCorner]:
            sure = [c for c in corners if c.score >= _WORTH_A_LOOK]
            new = [sure[h.corner] for h in _detect.new_to(hypotheses(sure, True), known, anyhow=True)]
            if not new:
                return new
            # A corner the reader dismisses where the first look puts it is most often a face-down card's.
            reads = self._read(frame, [c.card_to_frame() for c in new])
            return [c for c, p in zip(new, reads[:, _NONE].tolist()) if p < _DISMISSED]

        found = sized_alike(self.detector.find(frame, unseen=unseen, also=also, everywhere=everywhere))
        # Each new corner once, with its later takes, which are read as alone where no sure card of the
        # table's width read that corner (:meth:`_candidates`): a row's KH, whose first take a neighbour's
        # corner measured 16 degrees askew, read nothing there.
        first, later = _first_takes(hypotheses(found, True))
        new = _detect.new_to(_detect.unique(first), known)
        taken = {_origin(h) for h in new}
        return new + _detect.new_to([h for h in later if _origin(h) in taken], known)

    @staticmethod
    def _combine(own: np.ndarray, other: np.ndarray, card_to_frame: np.ndarray, width: float,
                 face: np.ndarray | None = None) -> _Candidate | None:
        """One card's verdict from its two index corners, and its face where that was read.

        A read of ``none`` (a covered corner, one off the picture, a face the
        face reader cannot make out) adds nothing; the others' distributions
        multiply, so a 7 that one corner confuses with a 1 is settled by the
        other, and a corner printed where no corner reader looks by the pips;
        unless one names another card outright (``_CONTRADICTS``), when the
        surest read decides alone.  Nor may the product overturn a read that
        names a card (half or more) with a card no read names first: the
        surest read decides alone then too (an 8H read 8H at 0.55 and 5H at
        0.44, both with 6H next, made a 6H at 0.73).
        """
        heard = [p for p in (own, other, face) if _heard(p)]
        verdict = _verdict(heard)
        if (verdict is not None and verdict[2] not in {int(np.argmax(p[:_NONE])) for p in heard}
                and any(float(p[:_NONE].max()) >= 0.5 for p in heard)):
            heard = [_surest(heard)]
            verdict = _verdict(heard)
        if verdict is None:
            return None
        read, q, top = verdict
        seen = 1.0 - min(float(p[_NONE]) for p in read)
        centre = (card_to_frame @ np.array([CARD_SIZE[0] / 2, CARD_SIZE[1] / 2, 1.0]))
        agreed = sum(int(np.argmax(p[:_NONE])) == top for p in read) >= 2
        # The corners that vouch for the verdict (a covered corner's read of the covering card does not).
        at = card_to_frame @ np.array([[0.0, CARD_SIZE[0]], [0.0, CARD_SIZE[1]], [1.0, 1.0]])
        read_at = tuple((float(at[0, i] / at[2, i]), float(at[1, i] / at[2, i])) for i, p in enumerate((own, other))
                        if any(p is r for r in heard) and int(np.argmax(p[:_NONE])) == top)
        return _Candidate(top, float(q[top]) * seen, q * seen, card_to_frame, centre[:2] / centre[2], width,
                          len(read), agreed, _heard(face), read_at, (own, other))

    @staticmethod
    def _suppress(candidates: list[_Candidate]) -> list[_Candidate]:
        """One candidate per card: drop any that repeats a more confident one.

        Two candidates are the same card when their centres nearly coincide
        (a card found from its top-left and from its bottom-right corner), or
        when they name the same code within a card's width of each other (one
        card found at two sizes; a second copy of a card so close is no
        single-deck game).  But a card read surely at its own corner, lying at
        an angle to the other, is a card of its own even there: one card
        dropped askew on another leaves their centres close; and so is a card
        read at ``_PEEKS_OUT`` whose index, where it was read, lies off every
        card kept: slid under another, it shows only that.  Two candidates that read an index
        corner at the same place are the same card, whatever else differs:
        one printed index is one card's (a corner put on a false edge reads
        a real index at the wrong angle, often as another rank).  That holds
        for the repeats dropped too: where a surer repeat of a kept card read
        an index, a box a third of the card's width reading it as another
        suit is that card's print again (a read of the same code stays: a
        card wrongly taken for a repeat is still reported by its next read).
        Of two sure reads of one card, the one of the size most of the
        frame's sure cards have is kept, however slightly surer the other is
        (of two codes read at one printed index too: a box grown half as
        wide again shrinks the index it reads, a 5 into a 6).
        The grown read still rules out what lies within it, except a card
        read surely that the kept read does not cover.  And first of all, a
        box narrower than a sure card of that size, lying wholly on it, is
        no card (:func:`_framed_by`).
        """
        typical = _typical_width(candidates)
        if typical is not None:
            # A box narrower than a sure card of the table's size, lying wholly on it, is no card: one
            # deck's cards are one size, so a card over another shows beyond it (a court card's frame).
            framed = _framed_by(candidates, _table_sized(candidates, typical))
            candidates = [c for c, f in zip(candidates, framed) if not f]
        ordered = sorted(candidates, key=lambda c: -c.confidence)
        n = len(ordered)
        # Every pair measured at once (a frame holds some fifty candidates, most of them one card's reads
        # from its variants): ``[i, j]`` compares ``ordered[i]`` with ``ordered[j]``.
        centre = np.array([c.centre for c in ordered], np.float64).reshape(n, 2)
        width = np.array([c.width for c in ordered], np.float64)
        code = np.array([c.code for c in ordered])
        sure = np.array([c.confidence >= _DISTINCT for c in ordered], bool)
        apart = _apart(centre, centre)
        size = np.maximum(width[:, None], width[None, :])
        axis = np.array([c.card_to_frame[:2, 0] for c in ordered], np.float64).reshape(n, 2)
        axis /= np.hypot(axis[:, 0], axis[:, 1])[:, None] + 1e-12
        same = code[:, None] == code[None, :]
        printed = _one_printed_index(ordered)
        # A sure read at its own corner, at an angle to the other, is a card of its own however near.
        askew = (np.abs(axis @ axis.T) < _PARALLEL) & np.array([s and _read_at_its_corner(c)
                                                                 for s, c in zip(sure, ordered)], bool)[:, None]
        close = (apart < 0.25 * size) & ~askew
        alike = _copies(ordered) | ((apart < 2.5 * size) & printed)   # one code close by, or one index
        # ``[i, j]``: ``ordered[i]`` is the card ``ordered[j]`` is (in the loop below, where the centres'
        # nearness is all there is, unless :func:`peeks_out` says ``ordered[i]`` is a card of its own).
        repeats = close | alike
        # ``[i, j]``: ``ordered[i]`` is ``ordered[j]``'s card read surely at the size the table's other
        # cards have, and ``ordered[j]`` that card grown (along a row's straight edge, say).
        if typical is None:
            stands_in = one_index = np.zeros((n, n), bool)
        else:
            grown = _of_the_tables_size(ordered, typical)[:, None] \
                & (_TABLE_SIZE * typical < 0.6 * np.abs(width - typical))[None, :]
            stands_in = grown & same
            one_index = grown & (same | printed)   # a box grown half as wide again shrinks the index it reads
        to_card = np.linalg.inv(np.stack([c.card_to_frame for c in ordered])) if ordered else np.zeros((0, 3, 3))
        uncovered: dict[int, bool] = {}

        def peeks_out(i: int) -> bool:
            """Whether ``ordered[i]``, read at ``_PEEKS_OUT``, has its index on no card kept so far: the one corner
            another card leaves showing (worked out once, and only where a centre lies near a kept one)."""
            if i not in uncovered:
                uncovered[i] = (ordered[i].confidence >= _PEEKS_OUT
                                and all(_peeks_out(ordered[i], to_card[j]) for j, _ in kept))
            return uncovered[i]

        def stand_in_of(j: int) -> int | None:
            """The surest read standing in for ``ordered[j]``: of its own code if any, else of the index it read."""
            for held in (stands_in, one_index):
                later = np.flatnonzero(held[j + 1:, j] & repeats[j + 1:, j])
                if len(later):
                    return j + 1 + int(later[0])
            return None

        # Each grown read's stand-in, found first: a grown read surer than its stand-in is looked at
        # first, and what it covers beyond the stand-in must not wait on the stand-in to be seen.
        stand_in = [stand_in_of(j) for j in range(n)]
        # Every candidate kept suppresses the rest; ``shown[slot]`` is the one reported for its card.
        kept: list[tuple[int, int]] = []
        shown: list[_Candidate] = []
        # The candidates dropped as a kept one's repeats: where they read an index as their code, no other
        # code is read (the same code may be a card wrongly taken for a repeat, read again).
        repeated: list[int] = []
        for i, c in enumerate(ordered):
            duplicate = False
            for j, slot in kept:
                if not (alike[i, j] or (close[i, j] and not peeks_out(i))):
                    continue
                r = stand_in[j]
                if r is not None and r != i and not same[i, j] and sure[i] and not repeats[i, r]:
                    continue   # within a grown read only, not within its stand-in: a card of its own
                duplicate = True
                if stands_in[i, j] or r == i:
                    shown[slot] = c
                    kept.append((i, slot))
                else:
                    repeated.append(i)
                break
            if duplicate or any(printed[i, m] and not same[i, m] for m in repeated):
                continue
            kept.append((i, len(shown)))
            shown.append(c)
        return shown

    @staticmethod
    def annotate(frame_bgr: np.ndarray, detections: list[Detection]) -> np.ndarray:
        """See :func:`annotate`."""
        return annotate(frame_bgr, detections)

    @staticmethod
    def _detection(c: _Candidate) -> Detection:
        pts = c.card_to_frame @ _CARD_CORNERS
        outline = (pts[:2] / pts[2]).T.astype(np.float32)
        order = np.argsort(-c.probs)
        alternatives = tuple((_CODES[j], round(float(c.probs[j]), 4)) for j in order[1:4] if c.probs[j] > 0.01)
        return Detection(_CODES[c.code], round(c.confidence, 4), outline, alternatives)


def _a_joker(c: _Candidate) -> bool:
    """Whether a candidate read as the Joker is read as a Joker must be (``_JOKER_CONFIDENCE``): by two
    reads, or by its face where neither corner read anything (a face overruled by a corner is no second)."""
    return c.confidence >= _JOKER_CONFIDENCE and (
        c.agreed or (c.by_face and not any(_heard(p) for p in c.corners)))


def _heard(read: np.ndarray | None) -> TypeGuard[np.ndarray]:
    """Whether a corner's or a face's read names a card at all (its ``none`` under a half): only such
    reads take part in a card's verdict."""
    return read is not None and float(read[_NONE]) < 0.5


def _verdict(read: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray, int] | None:
    """The reads that decide, their distributions (``none`` left out) multiplied, and the code they
    name; the surest read alone where another names another card outright (``_CONTRADICTS``).  None
    where there is no read, or the reads flatly contradict each other."""
    if not read:
        return None
    shares = [_share(p) for p in read]
    q = np.prod(shares, axis=0)
    total = float(q.sum())
    if total <= 1e-12:
        return None
    q = q / total
    top = int(np.argmax(q))
    if len(read) > 1 and any(float(v[top]) < _CONTRADICTS and float(v.max()) >= 0.5 for v in shares):
        # One read names another card outright: it is that card's (a covered corner reads the card over
        # it; a corner sized too wide reaches the next card's index).  The surest read decides alone.
        surest = _surest(read)
        share = _share(surest)
        q = share / float(share.sum())
        return [surest], q, int(np.argmax(q))
    return read, q, top


def _share(read: np.ndarray) -> np.ndarray:
    """A read's distribution over the codes, its ``none`` left out."""
    return read[:_NONE] / max(1e-6, 1.0 - float(read[_NONE]))


def _surest(reads: list[np.ndarray]) -> np.ndarray:
    """The read that names its code most surely (``none`` left out): the one that decides alone."""
    return max(reads, key=lambda p: float(_share(p).max()))


def _a_table_beside(card: _Candidate, candidates: list[_Candidate]) -> bool:
    """Whether ``_A_TABLE`` or more cards of other codes than ``card``'s are read surely with their
    centres off it (a card inside a close-up's picture, a court's frame or a pip, lies on it), or
    more surely than it anywhere (four cards photographed close fill the picture, whose corners
    read as one of them)."""
    to_card = np.linalg.inv(card.card_to_frame)
    beside = set()
    for c in candidates:
        if c.confidence >= _DISTINCT and c.code != card.code:
            u, v, w = (to_card @ np.array([c.centre[0], c.centre[1], 1.0])).tolist()
            if c.confidence > card.confidence or w <= 0 or not (0 <= u / w <= CARD_SIZE[0] and 0 <= v / w <= CARD_SIZE[1]):
                beside.add(c.code)
    return len(beside) >= _A_TABLE


def _once_each(cards: list[_Candidate]) -> list[_Candidate]:
    """``cards`` (surest first), each code's surest only: a pack holds each card once, so a code read
    again elsewhere in the frame is a misread (most often a box astride two cards, or one grown past
    its card onto another's index)."""
    kept: dict[int, _Candidate] = {}
    for c in cards:
        kept.setdefault(c.code, c)
    return list(kept.values())


def _one_size(cards: list[_Candidate]) -> list[_Candidate]:
    """``cards`` (surest first) less those far narrower than the surest and read in doubt (``_ONE_SIZE``):
    a pack's cards are one size, so such a read is of clutter or of a box grown on a card's print."""
    if not cards:
        return cards
    share, sure = _ONE_SIZE
    return [c for c in cards if c.width >= share * cards[0].width or c.confidence >= sure]


def _one_printed_index(cards: list[_Candidate]) -> np.ndarray:
    """``[i, j]``: whether ``cards[i]`` and ``cards[j]`` read an index corner at the same place (within
    ``_SAME_INDEX`` of the wider card), every pair at once."""
    owner = np.array([k for k, c in enumerate(cards) for _ in c.read_at], np.intp)
    at = np.array([p for c in cards for p in c.read_at], np.float64).reshape(-1, 2)
    gaps = np.full((len(cards), len(cards)), np.inf)   # the least distance between their index corners
    if len(at):
        np.minimum.at(gaps, (owner[:, None], owner[None, :]), _apart(at, at))
    width = np.array([c.width for c in cards], np.float64)
    return gaps < _SAME_INDEX * np.maximum(width[:, None], width[None, :])


def _peeks_out(a: _Candidate, frame_to_b: np.ndarray) -> bool:
    """Whether ``a`` was read at the corner that proposed it, and every index corner that reads it lies
    off card ``b`` (``frame_to_b``: frame px -> its card units) by more than ``_SAME_INDEX`` of its
    width: ``a`` is then a card of its own (all but that index under ``b``, say), not ``b`` misread.  A
    read at the far corner alone does not count: a corner of ``b`` grown too wide reaches the next
    card's index with it."""
    if not _read_at_its_corner(a):
        return False
    margin = _SAME_INDEX * CARD_SIZE[0]
    at = frame_to_b @ np.array([[x, y, 1.0] for x, y in a.read_at]).T
    u, v = at[0] / at[2], at[1] / at[2]
    return bool(np.all((at[2] > 0) & ((u < -margin) | (u > CARD_SIZE[0] + margin)
                                      | (v < -margin) | (v > CARD_SIZE[1] + margin))))


def _read_at_its_corner(a: _Candidate) -> bool:
    """Whether ``a``'s code was read at the corner that proposed it, not only at its far corner (a box
    grown too wide, or turned about that corner, reaches print that is no index with its far corner)."""
    origin = a.card_to_frame[:2, 2] / a.card_to_frame[2, 2]
    return any(math.hypot(x - origin[0], y - origin[1]) < 1e-6 * (1 + abs(x) + abs(y)) for x, y in a.read_at)


def _first_takes(hyps: list[_detect.Hypothesis]) -> tuple[list[_detect.Hypothesis], list[_detect.Hypothesis]]:
    """``hyps`` split into the first take of each learned corner (and every other hypothesis), and the
    later takes of a learned corner: those grown from the same point (:meth:`Recognizer._candidates`)."""
    first: list[_detect.Hypothesis] = []
    later: list[_detect.Hypothesis] = []
    taken: set[tuple[float, float]] = set()
    for h in hyps:
        at = _origin(h)
        (later if h.learned and at in taken else first).append(h)
        if h.learned:
            taken.add(at)
    return first, later


def _origin(h: _detect.Hypothesis) -> tuple[float, float]:
    """Where ``h`` puts its card's top-left corner (working px): a learned corner's takes share it."""
    return float(h.card_to_work[0, 2]), float(h.card_to_work[1, 2])


def _typical_width(cards: list[_Candidate]) -> float | None:
    """The median width of the cards read surely (``_DISTINCT``), where three or more are: the table's."""
    widths = sorted(c.width for c in cards if c.confidence >= _DISTINCT)
    return widths[len(widths) // 2] if len(widths) >= 3 else None


def _table_sized(cards: list[_Candidate], typical: float | None) -> list[_Candidate]:
    """The cards read surely whose width is the table's, ``typical`` (:func:`_of_the_tables_size`); none
    where the table has no width yet (:func:`_typical_width` gave None)."""
    return [] if typical is None else [c for c, t in zip(cards, _of_the_tables_size(cards, typical)) if t]


def _of_the_tables_size(cards: list[_Candidate], typical: float) -> np.ndarray:
    """``[i]``: whether ``cards[i]`` was read surely (``_DISTINCT``) and is as wide as the table's cards
    (within ``_TABLE_SIZE`` of ``typical``, their :func:`_typical_width`)."""
    return np.array([c.confidence >= _DISTINCT and abs(c.width - typical) < _TABLE_SIZE * typical for c in cards],
                    bool)


def _framed_by(cards: list[_Candidate], frames: list[_Candidate]) -> np.ndarray:
    """``[i]``: whether ``cards[i]`` lies wholly on one of ``frames`` of another code, and is narrower
    than it by more than ``_TABLE_SIZE``."""
    if not cards or not frames:
        return np.zeros(len(cards), bool)
    outline = np.stack([c.card_to_frame for c in cards]) @ _CARD_CORNERS                        # card, xyw, corner
    at = np.einsum("fij,cjk->fcik", np.linalg.inv(np.stack([f.card_to_frame for f in frames])), outline)
    u, v = at[:, :, 0] / at[:, :, 2], at[:, :, 1] / at[:, :, 2]
    on = np.all((u >= 0) & (u <= CARD_SIZE[0]) & (v >= 0) & (v <= CARD_SIZE[1]), axis=2)        # frame, card
    code, width = np.array([c.code for c in cards]), np.array([c.width for c in cards], np.float64)
    narrower = (code[None, :] != np.array([f.code for f in frames])[:, None]) \
        & (width[None, :] < (1 - _TABLE_SIZE) * np.array([f.width for f in frames], np.float64)[:, None])
    return np.asarray((on & narrower).any(axis=0))


def _copies(cards: list[_Candidate]) -> np.ndarray:
    """``[i, j]``: whether ``cards[i]`` and ``cards[j]`` name one code within a card's width of each
    other, every pair at once: one card found at two sizes or places (a second copy of a card so close
    is no single-deck game)."""
    centre = np.array([c.centre for c in cards], np.float64).reshape(-1, 2)
    width = np.array([c.width for c in cards], np.float64)
    code = np.array([c.code for c in cards])
    apart = _apart(centre, centre)
    return (code[:, None] == code[None, :]) & (apart < np.maximum(width[:, None], width[None, :]))


def _apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``[i, j]``: the distance from point ``a[i]`` to point ``b[j]`` (``(n, 2)`` and ``(m, 2)`` arrays)."""
    return np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])


def _in_frame(card_to_frame: np.ndarray, width: int, height: int) -> float:
    """The share of the card (a 5x7 grid over it) that lies within a ``width`` x ``height`` picture."""
    p = card_to_frame @ _BODY
    with np.errstate(divide="ignore", invalid="ignore"):
        x, y = p[0] / p[2], p[1] / p[2]
    return float(np.mean((x >= 0) & (x <= width) & (y >= 0) & (y <= height)))


def annotate(frame_bgr: np.ndarray, detections: list[Detection]) -> np.ndarray:
    """A copy of the frame with each detection's outline and code drawn on it (the calibration view)."""
    out = check_frame(frame_bgr).copy()
    thick = max(1, round(max(out.shape[:2]) / 640))
    for d in detections:
        pts = np.round(d.outline).astype(np.int32)
        colour = (0, 200, 0) if d.confidence >= 0.8 else (0, 200, 255)
        cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in pts[0]), 2 * thick + 1, colour, -1, cv2.LINE_AA)
        x, y = (int(v) for v in d.centre)
        label = f"{d.code} {d.confidence:.2f}"
        scale = 0.5 * thick
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        cv2.rectangle(out, (x - tw // 2 - 2, y - th - 4), (x + tw // 2 + 2, y + 4), (0, 0, 0), -1)
        cv2.putText(out, label, (x - tw // 2, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    return out
