"""``companion eval FOLDER``: how well the recogniser reads a labelled image folder.

The folder format and the figures are those of ``docs/labels.md``: every
image listed in ``labels.csv`` goes once through the same :class:`Recognizer`
the live companion uses, and its reported cards are matched one to one with
the label (an exact code first, then a rank-only ``K?`` entry of the same
rank).

>>> match(["AS", "KH", "7C"], ["K?", "AS", "2D"])
(2, ['2D'], ['7C'])
>>> match(["KH", "KD"], ["K?", "KD"])
(2, [], [])
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from companion.rules.cards import RANKS, Card, CardError
from vision.sources import IMAGE_SUFFIXES


class LabelsError(ValueError):
    """A labelled folder that cannot be read at all: no folder, no ``labels.csv``, or no header."""


@dataclass(frozen=True)
class Problem:
    """Something in the folder that was skipped: its path, the labels line (if any) and why."""

    path: str
    line: int | None
    error: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.error}" if self.line else f"{self.path}: {self.error}"


@dataclass
class Labels:
    """The parsed ``labels.csv``: image path -> (line number, expected codes), and what was skipped."""

    entries: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def parse_label(text: str) -> str:
    """One label entry in canonical form: a card code (``QS``, ``JK``) or a rank alone (``Q?``).

    >>> parse_label("10d"), parse_label("k?")
    ('TD', 'K?')
    >>> parse_label("Z?")
    Traceback (most recent call last):
    ...
    companion.rules.cards.CardError: not a card: 'Z?' (a rank-only entry is a rank and '?', e.g. K?)
    """
    t = text.strip().upper()
    if t.endswith("?"):
        rank = "T" if t[:-1] == "10" else t[:-1]
        if len(rank) == 1 and rank in RANKS:
            return rank + "?"
        raise CardError(f"not a card: {text!r} (a rank-only entry is a rank and '?', e.g. K?)")
    return str(Card.parse(t))


def read_labels(folder: Path) -> Labels:
    """Parse ``folder/labels.csv``; bad lines become problems, an unreadable file a :class:`LabelsError`."""
    if not folder.is_dir():
        raise LabelsError(f"{folder}: not a folder")
    path = folder / "labels.csv"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LabelsError(f"{path}: no labels.csv in the folder (see docs/labels.md)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelsError(f"{path}: cannot read: {exc}") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip().lower() for c in rows[0]] != ["image", "cards"]:
        raise LabelsError(f"{path}:1: the header must be 'image,cards'")
    labels = Labels()
    for number, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2 or not row[0].strip():
            labels.problems.append(Problem(str(path), number, f"expected 'image,cards', got {','.join(row)!r}"))
            continue
        image = row[0].strip()
        try:
            codes = [parse_label(t) for t in row[1].split()]
        except CardError as exc:
            labels.problems.append(Problem(str(path), number, str(exc)))
            continue
        if image in labels.entries:
            labels.problems.append(Problem(str(path), number, f"{image} is labelled twice "
                                                                f"(first on line {labels.entries[image][0]})"))
            continue
        labels.entries[image] = (number, codes)
    return labels


def match(reported: Sequence[str], expected: Sequence[str]) -> tuple[int, list[str], list[str]]:
    """One-to-one matching: (matched count, labelled entries missed, reported codes extra).

    Exact codes pair first, so a rank-only entry never takes a card that an
    exact entry needed; the leftovers then pair by rank with ``?`` entries.
    """
    want = Counter(expected)
    extra: list[str] = []
    unmatched: list[str] = []
    matched = 0
    for code in reported:
        if want[code] > 0:
            want[code] -= 1
            matched += 1
        else:
            unmatched.append(code)
    for code in unmatched:
        key = code[0] + "?" if code != "JK" else None
        if key is not None and want[key] > 0:
            want[key] -= 1
            matched += 1
        else:
            extra.append(code)
    missing = []
    for code in expected:
        if want[code] > 0:
            want[code] -= 1
            missing.append(code)
    return matched, missing, extra


def files_in(folder: Path) -> set[str]:
    """The files under ``folder`` as paths relative to it, subfolders reached through symbolic links
    included (a data set is often linked in rather than copied); a link back up is walked once."""
    found: set[str] = set()
    walked: set[str] = set()
    for root, subfolders, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in walked:
            subfolders.clear()
            continue
        walked.add(real)
        for name in files:
            path = Path(root) / name
            if path.is_file():
                found.add(path.relative_to(folder).as_posix())
    return found


def evaluate(folder: Path, recognizer: Any, labels: Labels | None = None) -> dict[str, Any]:
    """The docs/labels.md figures for ``folder``, plus ``errors`` listing whatever was skipped.

    ``recognizer`` is anything with ``detect(frame) -> [Detection]``;
    ``ms_per_image`` times that call alone (not the image decoding).
    """
    import cv2

    labels = labels if labels is not None else read_labels(folder)
    problems = list(labels.problems)
    on_disk = files_in(folder)
    n_images = n_cards = n_reported = n_matched = n_exact = 0
    times: list[float] = []
    misses: list[dict[str, Any]] = []
    for image, (number, expected) in labels.entries.items():
        path = folder / image
        if image not in on_disk:
            problems.append(Problem(str(path), number, "listed in labels.csv but not a file in the folder"))
            continue
        # Any file the labels name is read, whatever its suffix: OpenCV tells an image by its content.
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            problems.append(Problem(str(path), number, f"unreadable image (OpenCV reads {', '.join(IMAGE_SUFFIXES)}; "
                                                       "convert a HEIC photo to JPEG)"))
            continue
        start = time.perf_counter()
        detections = recognizer.detect(frame)
        times.append((time.perf_counter() - start) * 1000)
        reported = [d.code for d in detections]
        matched, missing, extra = match(reported, expected)
        n_images += 1
        n_cards += len(expected)
        n_reported += len(reported)
        n_matched += matched
        if not missing and not extra:
            n_exact += 1
        else:
            misses.append({"image": image, "missing": missing, "extra": extra})
    unlabelled = sorted(p for p in on_disk - labels.entries.keys() if Path(p).suffix.lower() in IMAGE_SUFFIXES)
    for image in unlabelled:
        problems.append(Problem(str(folder / image), None, "image not listed in labels.csv (not evaluated)"))
    return {
        "images": n_images,
        "cards": n_cards,
        "found": n_matched,
        "false": n_reported - n_matched,
        "precision": round(n_matched / n_reported, 4) if n_reported else 1.0,
        "recall": round(n_matched / n_cards, 4) if n_cards else 1.0,
        "exact": round(n_exact / n_images, 4) if n_images else 0.0,
        "ms_per_image": {"median": round(float(np.median(times)), 1) if times else 0.0,
                         "p90": round(float(np.percentile(times, 90)), 1) if times else 0.0},
        "misses": misses,
        "errors": [{"path": p.path, "line": p.line, "error": p.error} for p in problems],
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", type=Path, help="a labelled image folder (docs/labels.md)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    add_recognizer_arguments(parser)


def add_recognizer_arguments(parser: argparse.ArgumentParser) -> None:
    """The options :func:`make_recognizer` reads: which models, and which of them find the cards."""
    parser.add_argument("--model", type=Path, default=None, help="card model (default: models/cards-int8.onnx)")
    faces = parser.add_mutually_exclusive_group()
    faces.add_argument("--faces", type=Path, default=None,
                       help="face model for cards seen whole (default: models/faces.onnx)")
    faces.add_argument("--no-faces", action="store_true", help="read cards seen whole by their corners alone")
    corners = parser.add_mutually_exclusive_group()
    corners.add_argument("--detector", type=Path, default=None, metavar="PATH",
                         help="corner detector model (default: models/detector.onnx)")
    corners.add_argument("--no-detector", action="store_true", help="find cards by the frame's geometry alone")
    parser.add_argument("--no-geometry", action="store_true",
                        help="find cards by the learned corner detector alone, without the frame's geometry")
    parser.add_argument("--min-confidence", type=float, default=None,
                        help="report cards at or above this probability (default: the recogniser's)")


def make_recognizer(args: argparse.Namespace) -> Any:
    """The recogniser the live companion uses, with the model and threshold from the command line."""
    from vision.classifier import CardClassifier, FaceReader
    from vision.detector import DEFAULT_DETECTOR, CardDetector
    from vision.recognizer import Recognizer

    options: dict[str, Any] = {} if args.min_confidence is None else {"min_confidence": args.min_confidence}
    if args.no_geometry and args.no_detector:
        raise ValueError("--no-geometry and --no-detector leave nothing to find the cards")
    faces = None if args.no_faces else FaceReader(args.faces)
    detector = None if args.no_detector else CardDetector(args.detector or DEFAULT_DETECTOR)
    return Recognizer(classifier=CardClassifier(args.model), faces=faces, detector=detector,
                      geometry=not args.no_geometry, **options)


def run(args: argparse.Namespace) -> int:
    try:
        labels = read_labels(args.folder)
        recognizer = make_recognizer(args)
    except (LabelsError, ValueError) as exc:   # ModelError is a ValueError too
        print(f"companion eval: {exc}", file=sys.stderr)
        return 2
    result = evaluate(args.folder, recognizer, labels)
    if not result["images"]:
        first = next((f" (first: {Problem(e['path'], e['line'], e['error'])})" for e in result["errors"]), "")
        print(f"companion eval: {args.folder / 'labels.csv'} names no readable image, so nothing was measured"
              f"{first}", file=sys.stderr)
        return 2
    for e in result["errors"]:
        print(f"companion eval: {Problem(e['path'], e['line'], e['error'])}", file=sys.stderr)
    print(json.dumps(result) if args.json else summary(result))
    return 0


def summary(result: dict[str, Any]) -> str:
    """The figures as a few lines for a person at a terminal."""
    lines = [
        f"{result['images']} images, {result['cards']} labelled cards",
        f"precision {result['precision']:.3f}   recall {result['recall']:.3f}   "
        f"exact {result['exact']:.3f}",
        f"time per image: median {result['ms_per_image']['median']:.1f} ms, "
        f"p90 {result['ms_per_image']['p90']:.1f} ms",
    ]
    if result["misses"]:
        lines.append(f"{len(result['misses'])} images not read exactly:")
        for m in result["misses"][:20]:
            lines.append(f"  {m['image']}: missing {' '.join(m['missing']) or '-'}; "
                         f"extra {' '.join(m['extra']) or '-'}")
        if len(result["misses"]) > 20:
            lines.append(f"  ... and {len(result['misses']) - 20} more (use --json for all)")
    if result["errors"]:
        lines.append(f"{len(result['errors'])} problems skipped (listed on stderr)")
    return "\n".join(lines)
