"""Cards found and false over the validation folders, as taken and changed: the figure a change is chosen by.

    python scripts/eval_validation.py [--data ../shared/data] [--workers 2] [--json]
                                      [companion eval's recogniser options, such as --no-geometry]

Every validation folder of ``scripts/eval_sources.py``'s sources (never a
``test`` folder) is read as taken, and some again under
``scripts/eval_conditions.py``'s changes (``CHANGES``): the table photos
under every one, the webcam frames and ``scene-photos/train`` under those
their cameras meet.  Each such job prints the cards found and the false
ones; the last line sums them over every job, with the F1 of those sums.
One card is about 0.0002 of that F1: a change that moves it by less than
a few cards has not shown anything (retraining one recipe moves it by ten).
The jobs run in ``--workers`` processes, each with its own recogniser.
``--against`` takes an earlier run's ``--json`` output (another checkout's,
say) and prints its figures beside each job's, then every image read
otherwise: what a change won and lost, card by card.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eval_conditions import CONDITIONS, Changed
from eval_sources import DATA, SOURCES, choosable
from vision.evaluate import LabelsError, add_recognizer_arguments, evaluate, make_recognizer, read_labels

AS_TAKEN = "as taken"
CHANGES: dict[str, tuple[str, ...]] = {
    "table-photos": tuple(c for c in CONDITIONS if c != AS_TAKEN),
    "webcam-frames": ("oblique", "blur", "motion", "dim"),
    "scene-photos/train": ("oblique", "blur", "motion"),
}
"""The changes each source is read under besides as taken: the table photos are a table's own view, so
every change; the webcam frames and the phone photos of ``scene-photos`` those of a camera's tilt, focus,
shake and light; a card photo (``card-crops``) is a close-up that no table's change describes."""


def jobs(data: Path) -> list[tuple[str, str]]:
    """(source, change) for every validation folder present under ``data``, as taken first."""
    present = [s for s in SOURCES if choosable(s) and (data / s / "labels.csv").is_file()]
    return [(s, AS_TAKEN) for s in present] + [(s, c) for s in present for c in CHANGES.get(s, ())]


def f1(found: int, false: int, cards: int) -> float:
    """The F1 of summed counts: a card missed and a card made up weigh alike."""
    return 2 * found / (2 * found + false + (cards - found)) if cards or false else 1.0


def read_otherwise(old: dict, new: dict) -> list[str]:
    """The images of one job that two runs read differently, each as ``image: missing / extra -> missing /
    extra`` (``-`` for none), from the jobs' ``misses``.

    >>> read_otherwise({"misses": [{"image": "a.png", "missing": ["6H"], "extra": []}]},
    ...                {"misses": [{"image": "b.png", "missing": [], "extra": ["4C"]}]})
    ['a.png: 6H / - -> - / -', 'b.png: - / - -> - / 4C']
    """
    before = {m["image"]: m for m in old["misses"]}
    after = {m["image"]: m for m in new["misses"]}
    none: dict[str, list[str]] = {"missing": [], "extra": []}

    def said(m: dict) -> str:
        return " / ".join(" ".join(m[k]) or "-" for k in ("missing", "extra"))

    return [f"{image}: {said(before.get(image, none))} -> {said(after.get(image, none))}"
            for image in sorted(before.keys() | after.keys())
            if said(before.get(image, none)) != said(after.get(image, none))]


def _earlier(path: Path) -> dict:
    """An earlier run's ``--json`` output, checked enough to compare with."""
    try:
        earlier = json.loads(path.read_text())
        if not all(isinstance(j["found"], int) and isinstance(j["false"], int) and isinstance(j["misses"], list)
                   for j in earlier["jobs"].values()):
            raise TypeError("a job without found, false and misses")
        return earlier
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise LabelsError(f"--against {path}: not an earlier run's --json output ({exc})") from exc


def _run(job: tuple[argparse.Namespace, str, str]) -> tuple[str, str, dict]:
    args, source, change = job
    folder = args.data / source
    r = evaluate(folder, Changed(make_recognizer(args), CONDITIONS[change]), read_labels(folder))
    return source, change, {k: r[k] for k in ("images", "cards", "found", "false", "misses")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="the folder holding the sources")
    parser.add_argument("--workers", type=int, default=2, help="processes reading the jobs at once")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print every job's figures and misses as one JSON object")
    shown.add_argument("--against", type=Path, default=None, metavar="JSON",
                        help="an earlier run's --json output: its figures beside each job's, and every image read otherwise")
    add_recognizer_arguments(parser)
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    todo = jobs(args.data)
    try:
        if not todo:
            raise LabelsError(f"no labelled validation folder under {args.data}")
        make_recognizer(args)   # the models and options are checked once, before any process starts
        earlier = _earlier(args.against) if args.against is not None else None
    except (LabelsError, ValueError) as exc:   # ModelError is a ValueError too
        print(f"eval_validation: {exc}", file=sys.stderr)
        return 2
    with multiprocessing.get_context("spawn").Pool(min(args.workers, len(todo))) as pool:
        done = pool.map(_run, [(args, s, c) for s, c in todo], chunksize=1)
    found = sum(r["found"] for _, _, r in done)
    false = sum(r["false"] for _, _, r in done)
    cards = sum(r["cards"] for _, _, r in done)
    if args.json:
        print(json.dumps({"jobs": {f"{s}|{c}": r for s, c, r in done},
                          "found": found, "false": false, "cards": cards, "f1": round(f1(found, false, cards), 4)}))
        return 0
    then = earlier["jobs"] if earlier is not None else {}
    for source, change, r in done:
        was = then.get(f"{source}|{change}")
        print(f"{source:>20} {change:>10}: {r['found']:4d} of {r['cards']:4d} found, {r['false']:3d} false"
              + (f"   (was {was['found']:4d}, {was['false']:3d})" if was else ""))
    print(f"{'all':>20} {len(done):>4d} jobs: {found:4d} of {cards:4d} found, {false:3d} false, F1 {f1(found, false, cards):.4f}"
          + (f"   (was {earlier['found']:4d}, {earlier['false']:3d}, F1 {earlier['f1']:.4f})" if earlier else ""))
    for source, change, r in done:
        if f"{source}|{change}" in then:
            for line in read_otherwise(then[f"{source}|{change}"], r):
                print(f"  {source} {change} {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
