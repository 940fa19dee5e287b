"""Precision and recall on synthetic tables laid with decks no model trained on.

    python scripts/eval_synthetic.py [--scenes 60] [--seed 21] [--model PATH] [--decks face-only]
                                     [--no-geometry | --no-detector]
    python scripts/eval_synthetic.py --corners [--scenes 60] [--seed 21] [--model PATH]

Each scene is one of the held-out decks (``models.decks.HELD_OUT``), dealt
without repeats onto a table of ``models.scenes``' kinds (plain greys and
whites, dark cloth, patterns, photographic textures), in rows, fans and
piles, seen by a camera up to 35 degrees from vertical, at 640x480, 1280x720,
1920x1080 or 4032x2268. A card counts when one of its index corners shows
(``SEEN``) at 22 px wide or more; a card reported that shows less is neither
found nor false. The figures are split by frame size, and between cards
seen whole and cards partly covered: a player's table is none of these, and
a deck never seen is what every table brings. The last line says how many
of the cards missed the corner reader reads at their true outlines: those
were lost where their corners were put, not to the deck. Needs the
training extra and Debian's decks (models/README.md).

``--decks face-only`` deals the decks whose index the corner reader never
learned (``models.decks.FACE_ONLY_DECKS``: a French R, D, V, a rank printed
top right only) instead: the face reader learned them, so what it measures
is how far a card's face stands in for an index no corner reads.

``--corners`` says where such cards are lost, corner by corner: of the
index corners that show, how many the learned detector finds (its own
``find``, within ``NEAR`` of the corner and turned within ``ALIKE``), how
many of those the corner reader reads right at the detector's corner, at
that corner turned to the card's true angle, and at the card's true
outline (also a tenth narrower and wider, ``WIDTH_OFF``); and how far the
detector's turn is off, in degrees. A reader that reads more at the true
angle than at the detector's is held back by the detector's turn; one that
misreads at the true outline, by the deck.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.data import CH, CW, FacePyramid
from models.decks import FACE_ONLY_DECKS, HELD_OUT, load_all
from models.scenes import AS_TOP_LEFT, INDEX_CORNERS, SEEN, SceneSynth, corner_pose, corner_views
from vision.classifier import CLASSES, CardClassifier, FaceReader, extract_patches
from vision.detector import CardDetector
from vision.evaluate import match
from vision.recognizer import Classifier, Corners, Recognizer

SIZES = (((640, 480), 0.3), ((1280, 720), 0.35), ((1920, 1080), 0.2), ((4032, 2268), 0.15))
"""Frame sizes and how often each is drawn: a webcam, a Pi camera, a phone's video and its photo."""
LEAST_WIDTH = 22.0
"""Frame px: a card narrower at its index corner is not asked for (its index is a few pixels)."""
NEAR = 0.15
"""``--corners``: a detector corner this near an index corner (a share of the card's width) ..."""
ALIKE = math.radians(20)
"""... and turned this close to it is that corner found."""


class Table:
    """One synthetic frame: the codes that must be found (with how much of each card shows), the
    codes that show too little to ask for but are no false card either, and each index corner that
    shows: its card's code and the card units -> frame px homography with that corner as the
    top-left one (what the corner reader reads at a perfect corner)."""

    def __init__(self, frame: np.ndarray, wanted: list[tuple[str, float]], optional: list[str],
                 corners: list[tuple[str, np.ndarray]]) -> None:
        self.frame, self.wanted, self.optional, self.corners = frame, wanted, optional, corners


def draw_table(synth: SceneSynth, deck: dict[str, FacePyramid], back: FacePyramid | None) -> Table:
    """A frame of one deck's cards, dealt without repeats, laid as :meth:`SceneSynth.lay` lays them."""
    rng = synth.rng
    (width, height) = SIZES[int(rng.choice(len(SIZES), p=[p for _, p in SIZES]))][0]
    n = max(width, height)
    codes = list(deck)
    rng.shuffle(codes)
    card_px = math.exp(rng.uniform(math.log(0.045 * n), math.log(0.3 * n)))

    def deal() -> tuple[FacePyramid, str | None] | None:
        """The next card: face up (its code) or, now and then, a back (None); None once the deck is out."""
        if back is not None and rng.random() <= 0.12:
            return back, None
        return (deck[codes[-1]], codes.pop()) if codes else None

    canvas, owner, cards = synth.lay(n, card_px, deal, strength=(0.3, 1.0))
    owner[height:], owner[:, width:] = -3, -3
    wanted, optional, corners = [], [], []
    outline = np.array([[[0, 0], [CW, 0], [CW, CH], [0, CH]]], np.float64)
    for i, card_to_frame, code in cards:
        if code is None:
            continue
        views = corner_views(card_to_frame, owner, i)
        shown = [k for k in INDEX_CORNERS if views[k][0][3] >= LEAST_WIDTH and views[k][1] >= SEEN]
        if shown:
            area = abs(cv2.contourArea(cv2.perspectiveTransform(outline, card_to_frame)[0].astype(np.float32)))
            wanted.append((code, float((owner == i).sum()) / max(area, 1.0)))
            corners += [(code, card_to_frame @ AS_TOP_LEFT[k]) for k in shown]
        elif max(seen for _, seen in views) > 0:
            optional.append(code)
    return Table(np.ascontiguousarray(canvas[:height, :width]), wanted, optional, corners)


WIDTH_OFF = (0.9, 1.1)
"""``--corners``: the true outline is read at these shares of the card's width too (about its corner), as
far off as a detector's width often is."""


class CornerReads:
    """``--corners``' tallies over the tables: index corners shown, found by the detector, read right
    at the detector's corner, at it turned to the true angle, at the true outline (and at it a tenth
    narrower and wider, ``WIDTH_OFF``); and the detector's turn error (degrees) at each found."""

    def __init__(self) -> None:
        self.shown = self.found = self.at_detector = self.at_true_angle = self.at_true_outline = 0
        self.at_width_off = [0] * len(WIDTH_OFF)
        self.turn_off: list[float] = []

    def add(self, table: Table, detector: Corners, classifier: Classifier) -> None:
        """Reads ``table``'s shown index corners and adds them to the tallies."""
        if not table.corners:
            return
        found = detector.find(table.frame)
        homographies: list[np.ndarray] = []
        asked: list[tuple[str, int, int | None]] = []   # code, where its true outline's read is, and its found corner's
        for code, to_frame in table.corners:
            x, y, angle, width = corner_pose(to_frame)
            near = [c for c in found if math.hypot(c.x - x, c.y - y) < NEAR * width
                    and abs(math.remainder(c.angle - angle, 2 * math.pi)) < ALIKE]
            true = len(homographies)   # the true outline's read, then the width-off ones after it
            homographies += [to_frame] + [to_frame @ np.diag([k, k, 1.0]) for k in WIDTH_OFF]
            if not near:
                asked.append((code, true, None))
                continue
            best = min(near, key=lambda c: math.hypot(c.x - x, c.y - y))
            self.turn_off.append(math.degrees(math.remainder(best.angle - angle, 2 * math.pi)))
            asked.append((code, true, len(homographies)))
            homographies += [best.card_to_frame(), best._replace(angle=angle).card_to_frame()]
        read = [CLASSES[k] for k in classifier.classify(extract_patches(table.frame, homographies)).argmax(axis=1)]
        for code, true, at in asked:
            self.shown += 1
            self.at_true_outline += read[true] == code
            for k in range(len(WIDTH_OFF)):
                self.at_width_off[k] += read[true + 1 + k] == code
            if at is not None:
                self.found += 1
                self.at_detector += read[at] == code
                self.at_true_angle += read[at + 1] == code

    def report(self) -> list[str]:
        """The tallies as lines of text."""
        def share(k: int, n: int) -> str:
            return f"{k} of {n} ({k / max(1, n):.3f})"

        lines = [f"index corners shown       {self.shown}",
                 f"found by the detector     {share(self.found, self.shown)}",
                 f"read right at its corner  {share(self.at_detector, self.found)}",
                 f"  turned to the true angle {share(self.at_true_angle, self.found)}",
                 f"read right at the true outline {share(self.at_true_outline, self.shown)}"]
        lines += [f"  {k:.1f} times as wide        {share(n, self.shown)}" for k, n in zip(WIDTH_OFF, self.at_width_off)]
        if self.turn_off:
            tenth, quarter, half, three, ninth = np.percentile(self.turn_off, [10, 25, 50, 75, 90])
            lines.append(f"detector's turn off (degrees): 10th {tenth:+.1f}, 25th {quarter:+.1f}, median {half:+.1f}, "
                         f"75th {three:+.1f}, 90th {ninth:+.1f} percentile")
        return lines


def read_at_outlines(table: Table, codes: list[str], classifier: Classifier, least: float) -> int:
    """How many of ``codes`` (cards of ``table`` the recogniser missed) the corner reader reads right,
    at ``least`` or more, at one of their shown index corners' true outlines: those were lost where
    their corners were put, the others to the deck, the light or too little of the index showing."""
    corners = [(code, to_frame) for code, to_frame in table.corners if code in codes]
    if not corners:
        return 0
    probs = classifier.classify(extract_patches(table.frame, [to_frame for _, to_frame in corners]))
    return len({code for (code, _), p in zip(corners, probs) if p[CLASSES.index(code)] >= least})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--model", type=Path, default=None, help="corner reader (default: models/cards-int8.onnx)")
    finder = parser.add_mutually_exclusive_group()
    finder.add_argument("--no-geometry", action="store_true", help="the learned corner detector alone")
    finder.add_argument("--no-detector", action="store_true", help="the frame's geometry alone")
    finder.add_argument("--corners", action="store_true",
                        help="where cards are lost, index corner by index corner (the module's docstring)")
    parser.add_argument("--decks", choices=("held-out", "face-only"), default="held-out",
                        help="the decks no model learned (default), or those only the face reader learned")
    args = parser.parse_args(argv)

    face_only = args.decks == "face-only"
    names = FACE_ONLY_DECKS if face_only else HELD_OUT
    decks = [d for d in load_all(verbose=False, faces=face_only) if d.name in names]
    if not decks:
        print(f"no {args.decks} deck is installed (models/README.md: Debian's card decks)", file=sys.stderr)
        return 2
    synth = SceneSynth(decks, seed=args.seed)
    pyramids = [({c: FacePyramid(f) for c, f in d.faces.items() if c != "JK"},
                 FacePyramid(d.back) if d.back is not None else None) for d in decks]

    def tables() -> Iterator[Table]:
        """``--scenes`` tables, each of one of the decks, the count on stderr as each is done with."""
        for number in range(args.scenes):
            faces, back = pyramids[int(synth.rng.integers(len(pyramids)))]
            yield draw_table(synth, faces, back)
            print(f"\r{number + 1}/{args.scenes} tables", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)

    classifier = CardClassifier(args.model)
    if args.corners:
        corners, detector = CornerReads(), CardDetector()
        for table in tables():
            corners.add(table, detector, classifier)
        print("\n".join(corners.report()))
        return 0
    recognizer = Recognizer(classifier=classifier, faces=FaceReader(),
                            detector=None if args.no_detector else CardDetector(), geometry=not args.no_geometry)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])   # cards, found, false
    readable = 0   # missed cards read right at their true outlines
    for table in tables():
        reported = [d.code for d in recognizer.detect(table.frame)]
        _, missing, extra = match(reported, [c for c, _ in table.wanted])
        readable += read_at_outlines(table, missing, classifier, recognizer.min_confidence)
        _, _, false = match(extra, table.optional)
        size = "{}x{}".format(*table.frame.shape[1::-1])
        counts[size][2] += len(false)
        for code, shows in table.wanted:
            found = code not in missing
            if not found:
                missing.remove(code)
            for key in (size, "seen whole" if shows > 0.9 else "partly covered", "all"):
                counts[key][0] += 1
                counts[key][1] += int(found)
        counts["all"][2] += len(false)
    for key in ("all", "seen whole", "partly covered", *(f"{w}x{h}" for (w, h), _ in SIZES)):
        n_cards, n_found, n_false = counts[key]
        precision = f"precision {n_found / (n_found + n_false):.3f}, " if key == "all" and n_found + n_false else ""
        false_text = f", {n_false} false" if key not in ("seen whole", "partly covered") else ""
        print(f"{key:15s} {precision}recall {n_found / max(1, n_cards):.3f} ({n_found} of {n_cards}{false_text})")
    n_cards, n_found, _ = counts["all"]
    print(f"missed          {n_cards - n_found}, of which {readable} read right at their true outlines "
          f"(at {recognizer.min_confidence} or more: lost where their corners were put)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
