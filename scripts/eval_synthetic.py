"""Precision and recall on synthetic tables laid with decks no model trained on.

    python scripts/eval_synthetic.py [--scenes 60] [--seed 21] [--model PATH] [--no-geometry | --no-detector]

Each scene is one of the held-out decks (``models.decks.HELD_OUT``), dealt
without repeats onto a table of ``models.scenes``' kinds (plain greys and
whites, dark cloth, patterns, photographic textures), in rows, fans and
piles, seen by a camera up to 35 degrees from vertical, at 640x480, 1280x720,
1920x1080 or 4032x2268. A card counts when one of its index corners shows
(``SEEN``) at 22 px wide or more; a card reported that shows less is neither
found nor false. The figures are split by frame size, and between cards
seen whole and cards partly covered: a player's table is none of these, and
a deck never seen is what every table brings. Needs the training extra and
Debian's decks (models/README.md).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.data import CH, CW, FacePyramid
from models.decks import HELD_OUT, load_all
from models.scenes import INDEX_CORNERS, SEEN, SceneSynth, corner_views
from vision.evaluate import match

SIZES = (((640, 480), 0.3), ((1280, 720), 0.35), ((1920, 1080), 0.2), ((4032, 2268), 0.15))
"""Frame sizes and how often each is drawn: a webcam, a Pi camera, a phone's video and its photo."""
LEAST_WIDTH = 22.0
"""Frame px: a card narrower at its index corner is not asked for (its index is a few pixels)."""


class Table:
    """One synthetic frame: the codes that must be found (with how much of each card shows), and the
    codes that show too little to ask for but are no false card either."""

    def __init__(self, frame: np.ndarray, wanted: list[tuple[str, float]], optional: list[str]) -> None:
        self.frame, self.wanted, self.optional = frame, wanted, optional


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
    wanted, optional = [], []
    outline = np.array([[[0, 0], [CW, 0], [CW, CH], [0, CH]]], np.float64)
    for i, card_to_frame, code in cards:
        if code is None:
            continue
        views = corner_views(card_to_frame, owner, i)
        index = max((views[k][1] for k in INDEX_CORNERS if views[k][0][3] >= LEAST_WIDTH), default=0.0)
        if index >= SEEN:
            area = abs(cv2.contourArea(cv2.perspectiveTransform(outline, card_to_frame)[0].astype(np.float32)))
            wanted.append((code, float((owner == i).sum()) / max(area, 1.0)))
        elif max(seen for _, seen in views) > 0:
            optional.append(code)
    return Table(np.ascontiguousarray(canvas[:height, :width]), wanted, optional)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=60)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--model", type=Path, default=None, help="corner reader (default: models/cards-int8.onnx)")
    finder = parser.add_mutually_exclusive_group()
    finder.add_argument("--no-geometry", action="store_true", help="the learned corner detector alone")
    finder.add_argument("--no-detector", action="store_true", help="the frame's geometry alone")
    args = parser.parse_args(argv)

    from vision.classifier import CardClassifier, FaceReader
    from vision.detector import CardDetector
    from vision.recognizer import Recognizer

    recognizer = Recognizer(classifier=CardClassifier(args.model), faces=FaceReader(),
                            detector=None if args.no_detector else CardDetector(), geometry=not args.no_geometry)
    decks = [d for d in load_all(verbose=False) if d.name in HELD_OUT]
    if not decks:
        print("no held-out deck is installed (models/README.md: Debian's card decks)", file=sys.stderr)
        return 2
    synth = SceneSynth(decks, seed=args.seed)
    pyramids = [({c: FacePyramid(f) for c, f in d.faces.items() if c != "JK"},
                 FacePyramid(d.back) if d.back is not None else None) for d in decks]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])   # cards, found, false
    for number in range(args.scenes):
        faces, back = pyramids[int(synth.rng.integers(len(pyramids)))]
        table = draw_table(synth, faces, back)
        reported = [d.code for d in recognizer.detect(table.frame)]
        _, missing, extra = match(reported, [c for c, _ in table.wanted])
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
        print(f"\r{number + 1}/{args.scenes} tables", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    for key in ("all", "seen whole", "partly covered", *(f"{w}x{h}" for (w, h), _ in SIZES)):
        n_cards, n_found, n_false = counts[key]
        precision = f"precision {n_found / (n_found + n_false):.3f}, " if key == "all" and n_found + n_false else ""
        false_text = f", {n_false} false" if key not in ("seen whole", "partly covered") else ""
        print(f"{key:15s} {precision}recall {n_found / max(1, n_cards):.3f} ({n_found} of {n_cards}{false_text})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
