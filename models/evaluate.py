"""Measure the shipped card models: ``python -m models.evaluate [--reader faces]``.

Prints top-1 accuracy on the decks held out of training (synthetic patches,
needs the deck cache or Debian's card packages and cairosvg); for the corner
reader, on decks whose index is set in the machine's fonts, band by band of
the rank's height (``models/fonts.py``, needs Pillow); on
``card-crops/valid`` and ``card-crops/test`` (for the corner reader the
top-left corner alone, and both corners' card probabilities multiplied, which
is what the recogniser does; for the face reader the face upright and turned
half round), and the model's time per patch on one core.  Uses onnxruntime only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from models.data import read_labelled, real_corners
from vision.classifier import CLASSES, CardClassifier, FaceReader, extract_faces, rotate_180

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "card-crops"


def photo_accuracy(model: CardClassifier, folder: Path) -> dict[str, float | int]:
    tl, br = real_corners(read_labelled(folder), None)
    p_tl, p_br = model.classify(tl.x), model.classify(br.x)
    cards = len(CLASSES) - 1
    both = np.log(p_tl[:, :cards] + 1e-6) + np.log(p_br[:, :cards] + 1e-6)
    best = np.where((p_tl[:, :cards].max(1) >= p_br[:, :cards].max(1)),
                    p_tl[:, :cards].argmax(1), p_br[:, :cards].argmax(1))
    return {"images": int(len(tl.y)),
            "top_left": round(float((p_tl.argmax(1) == tl.y).mean()), 4),
            "bottom_right": round(float((p_br.argmax(1) == br.y).mean()), 4),
            "best_corner": round(float((best == tl.y).mean()), 4),
            "both_corners": round(float((both.argmax(1) == tl.y).mean()), 4)}


def face_accuracy(model: FaceReader, folder: Path) -> dict[str, float | int]:
    """The face reader alone on a card-crops folder, each photo taken as the card, either way up."""
    import cv2

    from models.data import crop_homography

    upright, turned, y = [], [], []
    for path, code in read_labelled(folder):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            card = crop_homography(image)
            upright.append(extract_faces(image, [card])[0])
            turned.append(extract_faces(image, [rotate_180(card)])[0])
            y.append(CLASSES.index(code))
    labels = np.array(y)
    return {"images": len(y),
            "upright": round(float((model.classify(np.stack(upright)).argmax(1) == labels).mean()), 4),
            "turned": round(float((model.classify(np.stack(turned)).argmax(1) == labels).mean()), 4)}


def held_out_accuracy(model: CardClassifier) -> dict[str, str | float] | None:
    faces = isinstance(model, FaceReader)
    try:
        from models.decks import HELD_OUT, load_all
        from models.train import synthetic

        names = [d.name for d in load_all(verbose=False, faces=faces) if d.name in HELD_OUT]
        if not names:
            return None
        # As each training run draws its own held-out set.
        held = (synthetic(names, per_code=2, negatives=300, seed=10_000, workers=1, faces=True) if faces
                else synthetic(names, per_code=40, negatives=800, seed=10_000, workers=1))
    except (ImportError, OSError) as exc:
        print(f"held-out decks skipped: {exc}")
        return None
    pred = model.classify(held.x).argmax(1)
    cards = held.y != CLASSES.index("none")
    return {"decks": " ".join(names), "patches": int(len(held.y)),
            "top1": round(float((pred == held.y).mean()), 4),
            "top1_cards": round(float((pred[cards] == held.y[cards]).mean()), 4),
            "none_recall": round(float((pred[~cards] == held.y[~cards]).mean()), 4)}


def font_accuracy(model: CardClassifier, *, decks: int = 12, seed: int = 77) -> dict[str, dict[str, float | int]] | None:
    """Top-1 on the top-left corners of ``decks`` font decks in each of ``models.fonts.BANDS``, and how
    often the reader says ``none`` there (a readable index it does not see as one)."""
    try:
        from models.data import Synth
        from models.fonts import BANDS, font_decks
    except ImportError as exc:
        print(f"font decks skipped: {exc}")
        return None
    report = {}
    none = CLASSES.index("none")
    for low, high in BANDS:
        drawn = font_decks(decks, seed=seed, rank_height=(low, high))
        if not drawn:
            return None
        synth = Synth(drawn, seed=3)
        drawn_patches = (synth.positive(i, code) for i, deck in enumerate(drawn) for code in deck.faces)
        kept = [p for p in drawn_patches if p is not None and p[1] != none]   # a covered corner is no index
        x, y = np.stack([p[0] for p in kept]), np.array([p[1] for p in kept])
        pred = model.classify(x).argmax(1)
        report[f"rank_{low:.0f}_{high:.0f}_units"] = {"patches": int(len(y)),
                                                      "top1": round(float((pred == y).mean()), 4),
                                                      "none": round(float((pred == none).mean()), 4)}
    return report


def speed(model: CardClassifier, batch: int = 48, repeats: int = 200) -> dict[str, float]:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 256, (batch,) + model.shape + (3,), dtype=np.uint8)
    model.classify(x)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        model.classify(x)
        times.append(time.perf_counter() - t)
    ms = np.array(times) * 1000
    return {"batch": batch, "ms_per_batch_median": round(float(np.median(ms)), 3),
            "ms_per_patch_median": round(float(np.median(ms) / batch), 4)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("--reader", choices=("corners", "faces"), default="corners",
                        help="the corner reader (models/cards-int8.onnx) or the face reader (models/faces.onnx)")
    parser.add_argument("--model", type=Path, default=None, help="an ONNX file (default: the shipped one)")
    parser.add_argument("--data", type=Path, default=DATA, help="the card-crops folder")
    parser.add_argument("--no-synthetic", action="store_true", help="skip the held-out and the font decks")
    args = parser.parse_args(argv)
    faces = args.reader == "faces"
    model = (FaceReader if faces else CardClassifier)(args.model, threads=1)
    report: dict[str, object] = {"model": str(model.path), "size_kib": round(model.path.stat().st_size / 1024)}
    if not args.no_synthetic:
        report["held_out_decks"] = held_out_accuracy(model)
        if not faces:
            report["font_decks"] = font_accuracy(model)
    for split in ("valid", "test"):
        if (args.data / split / "labels.csv").exists():
            folder = args.data / split
            report[f"card_crops_{split}"] = (face_accuracy(model, folder) if isinstance(model, FaceReader)
                                             else photo_accuracy(model, folder))
    report["speed_one_core"] = speed(model)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
