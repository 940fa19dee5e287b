"""Writes ``companion/examples/``: one game record per variant and a tiny labelled photo folder.

    .venv/bin/python scripts/make_examples.py [--check]

The records are whole simulated games (``companion.app.simulate``: two hands and
the end-of-game showdown, four players), so ``companion replay`` and
``companion web --record`` have something real to show. The photos are
tables drawn by the demo's renderer (``vision.render``) with their
``labels.csv`` (docs/labels.md), so ``companion eval`` has a folder to read on
a fresh clone. Everything is seeded: running it again writes the same files.
``--check`` writes nothing and exits 1 when a record or a label differs from
what is shipped (the photos' bytes depend on the JPEG library, so only their
names and labels are compared).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.app.simulate import SimulatedTable
from companion.store import canonical_json
from vision.render import PlacedCard, draw_hand, render_scene

EXAMPLES = Path(__file__).resolve().parent.parent / "companion" / "examples"
PLAYERS = ("Ann", "Bob", "Cy", "Dee")
VARIANTS = ("michigan-1939", "bonanza", "tripoley")
SEED = 28
HANDS = 2
SIZE = (960, 540)
JPEG_QUALITY = 82


def record(variant: str) -> str:
    """A whole game of ``variant`` as JSON Lines."""
    table = SimulatedTable(variant, PLAYERS, seed=SEED)
    return "".join(canonical_json(e) + "\n" for e in table.play(hands=HANDS, showdown=True))


def _row(codes: list[str], *, y: float, angle: float, width: float, start: float = 120.0) -> list[PlacedCard]:
    """Cards side by side along a row, a little apart, as a run is laid."""
    return [PlacedCard(c, (start + i * width * 1.18, y), angle, width) for i, c in enumerate(codes)]


def scenes() -> list[tuple[str, list[PlacedCard], str, bool]]:
    """(file name, cards, table style, a hand in the picture); the labels are the face-up cards."""
    w = SIZE[0] / 15 * 1.2  # a little bigger than the demo's cards: the photos are smaller than its frames
    run = _row(["5H", "6H", "7H", "8H", "9H", "TH"], y=150, angle=0, width=w) + \
        _row(["2C", "3C", "4C"], y=390, angle=0, width=w, start=520)
    turned = [PlacedCard(c, (170 + i * 150, 270 + 70 * math.sin(i)), 25 * (i - 2), w)
              for i, c in enumerate(["AS", "KD", "QC", "JS", "JK"])]
    two_seats = _row(["QH", "KH", "AH"], y=120, angle=180, width=w, start=300) + \
        _row(["7S", "8S", "9S"], y=420, angle=0, width=w, start=300) + [PlacedCard("2D", (820, 270), 0, w, face_up=False)]
    return [
        ("run-of-hearts.jpg", run, "wood", False),
        ("turned-cards.jpg", turned, "felt", False),
        ("two-seats.jpg", two_seats, "dark_wood", True),
        ("empty-table.jpg", [], "light_wood", False),
    ]


def labels() -> str:
    lines = ["image,cards"]
    for name, cards, _, _ in scenes():
        lines.append(f"{name},{' '.join(c.code for c in cards if c.face_up)}")
    return "\n".join(lines) + "\n"


def write(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for variant in VARIANTS:
        (folder / f"{variant}.jsonl").write_text(record(variant), encoding="utf-8")
    photos = folder / "photos"
    photos.mkdir(exist_ok=True)
    for seed, (name, cards, style, hand) in enumerate(scenes()):
        image, _ = render_scene(cards, size=SIZE, background=style, seed=seed, noise=3.0)
        if hand:
            draw_hand(image, at=(860, 470), size=min(SIZE) * 0.3)
        cv2.imwrite(str(photos / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    (photos / "labels.csv").write_text(labels(), encoding="utf-8")


def stale(folder: Path) -> list[str]:
    """The shipped files that differ from what this script writes."""
    wrong = [f"{v}.jsonl" for v in VARIANTS
             if not (folder / f"{v}.jsonl").is_file() or (folder / f"{v}.jsonl").read_text(encoding="utf-8") != record(v)]
    photos = folder / "photos"
    if not (photos / "labels.csv").is_file() or (photos / "labels.csv").read_text(encoding="utf-8") != labels():
        wrong.append("photos/labels.csv")
    wrong += [f"photos/{name}" for name, *_ in scenes() if not (photos / name).is_file()]
    return wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the shipped examples are stale")
    args = parser.parse_args(argv)
    if args.check:
        wrong = stale(EXAMPLES)
        for name in wrong:
            print(f"stale: companion/examples/{name}", file=sys.stderr)
        return 1 if wrong else 0
    write(EXAMPLES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
