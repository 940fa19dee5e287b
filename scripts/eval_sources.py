"""Precision and recall on every real source, each judged as a table never seen.

    python scripts/eval_sources.py [--data ../shared/data] [--thresholds 0.5,0.6,0.7] [--detector PATH] [--json]

Each labelled folder of the data folder (``table-photos``, ``webcam-frames``,
``scene-photos/train`` and ``/test``, ``card-crops/valid`` and ``/test``) is
a *source*.  The recogniser is run on every source with the frame's geometry
alone (``companion eval --no-detector``), and at each detector threshold both
with the geometry (the shipped recogniser) and without it, the detector alone
(``--no-geometry``).  Then, leaving one source out at a time, the threshold
with the best F1 on the other sources' validation folders (never a
``test`` folder) is the one whose figures that source reports, for each of
the two: the choice never sees the source it is judged on.  The detector itself learns from no
photograph, so every source is new to it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.evaluate import evaluate, read_labels

SOURCES = ("table-photos", "webcam-frames", "scene-photos/train", "scene-photos/test",
           "card-crops/valid", "card-crops/test")
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _f1(result: dict) -> float:
    p, r = result["precision"], result["recall"]
    return 2 * p * r / (p + r) if p + r else 0.0


def choosable(source: str) -> bool:
    """A folder a threshold may be chosen on: anything but a test split."""
    return not source.endswith("/test")


ALONE = "alone "
"""The prefix of a figure's name read by the detector alone, ``"alone 0.7"`` beside ``"0.7"``."""


def leave_one_out(figures: dict[str, dict[str, dict]], thresholds: list[str]) -> dict[str, dict]:
    """For each source, the figures at the threshold that does best (summed F1) on the other
    sources' validation folders.

    >>> figs = {"a": {"0.2": {"precision": 1.0, "recall": 0.5}, "0.4": {"precision": 0.9, "recall": 0.9}},
    ...         "b": {"0.2": {"precision": 1.0, "recall": 0.9}, "0.4": {"precision": 0.5, "recall": 0.5}}}
    >>> {k: v["threshold"] for k, v in leave_one_out(figs, ["0.2", "0.4"]).items()}
    {'a': '0.2', 'b': '0.4'}
    """
    out = {}
    for source in figures:
        others = [s for s in figures if s != source and choosable(s)]
        best = max(thresholds, key=lambda t: sum(_f1(figures[s][t]) for s in others))
        out[source] = {"threshold": best, **figures[source][best]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="the folder holding the sources")
    parser.add_argument("--thresholds", default="0.5,0.6,0.7", help="detector thresholds to choose among")
    parser.add_argument("--detector", type=Path, default=None, metavar="PATH",
                        help="corner detector model (default: models/detector.onnx)")
    parser.add_argument("--only", default=None, help="comma-separated sources (default: every one present)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    from vision.classifier import CardClassifier, FaceReader
    from vision.detector import DEFAULT_DETECTOR, CardDetector
    from vision.recognizer import Recognizer

    thresholds = [t.strip() for t in args.thresholds.split(",") if t.strip()]
    wanted = args.only.split(",") if args.only else SOURCES
    sources = [s for s in wanted if (args.data / s / "labels.csv").is_file()]
    if not sources:
        print(f"eval_sources: no labelled source under {args.data}", file=sys.stderr)
        return 2
    classifier, faces = CardClassifier(), FaceReader()
    settings = {t: CardDetector(args.detector or DEFAULT_DETECTOR, threshold=float(t)) for t in thresholds}
    figures: dict[str, dict[str, dict]] = {}
    for source in sources:
        labels = read_labels(args.data / source)
        figures[source] = {}
        runs = [("geometry", None, True), *((t, d, True) for t, d in settings.items()),
                *((ALONE + t, d, False) for t, d in settings.items())]
        for name, detector, geometry in runs:
            recognizer = Recognizer(classifier=classifier, faces=faces, detector=detector, geometry=geometry)
            r = evaluate(args.data / source, recognizer, labels)
            figures[source][name] = {k: r[k] for k in ("images", "cards", "precision", "recall", "exact")}
            figures[source][name]["ms_median"] = r["ms_per_image"]["median"]
            print(f"{source:>20} {name:>9}: precision {r['precision']:.3f}  recall {r['recall']:.3f}  "
                  f"({r['images']} images, {r['cards']} cards, {r['ms_per_image']['median']:.0f} ms)",
                  file=sys.stderr, flush=True)
    chosen = leave_one_out(figures, thresholds)
    alone = leave_one_out(figures, [ALONE + t for t in thresholds])
    if args.json:
        print(json.dumps({"figures": figures, "leave_one_out": chosen, "leave_one_out_alone": alone}))
    else:
        print("leave one source out (threshold chosen on the others' validation folders), precision / recall:")
        columns = ("source", "shipped (threshold)", "geometry alone", "detector alone (threshold)")
        print("  " + "  ".join(f"{c:>{max(20, len(c))}}" for c in columns))
        for source, r in chosen.items():
            g, a = figures[source]["geometry"], alone[source]
            cells = (source, f"{r['precision']:.3f} / {r['recall']:.3f} ({r['threshold']})",
                     f"{g['precision']:.3f} / {g['recall']:.3f}",
                     f"{a['precision']:.3f} / {a['recall']:.3f} ({a['threshold'][len(ALONE):]})")
            print("  " + "  ".join(f"{v:>{max(20, len(c))}}" for c, v in zip(columns, cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
