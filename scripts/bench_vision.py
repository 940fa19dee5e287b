"""Milliseconds per 1280x720 frame for the card recogniser, on one core.

    python scripts/bench_vision.py [--frames 40] [--best-of 1] [--against DIR] [--model PATH] [--proposals-only]
                                   [--no-detector | --no-geometry]
                                   [--still] [--stages] [--json]

Synthetic tables from ``vision.render`` with 0, 5 and 15 face-up cards (plus
two face-down ones and a hand in the picture), light and dark tables in turn.
OpenCV and onnxruntime each get one thread, as on the Pi.  Wall-clock and the
thread's CPU time are both printed: on a shared machine the CPU time is the
figure that depends least on the neighbours; ``--best-of K`` passes over
the frames K times and counts each frame's fastest run, since neighbours
only ever add time (to the CPU time too: they share the core's caches).
``--stages`` also says where this checkout's time goes, frame by frame
(median ms): the geometry's proposals, the detector's looks, the corner
reader (and how many patches it reads), the face reader, and the rest
(combining and suppressing reads, cutting patches).
``--against DIR`` times another checkout's recogniser (an older commit,
say: ``git worktree add /tmp/old HEAD~3``) on the same frames, frame by
frame in turn, so that a neighbour's busy spell slows both alike: on a
shared machine two separate runs differ by more than most changes.
``--proposals-only`` times the geometry's proposals alone (no model
needed): everything up to the patches.  ``--no-detector`` leaves out the
learned corner detector (``vision.detector``), which the recogniser runs by
default; ``--no-geometry`` leaves out the frame's geometry, the detector's
corners alone proposing cards.
``--still`` also times a table that has stopped changing, through
:class:`vision.still.StillFrames` (the live loop's default) once it has read
the table: the cost of a frame not read again.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.rules.cards import ALL_CODES
from vision.classifier import ModelError
from vision.detection import Detection
from vision.recognizer import Recognizer
from vision.render import PlacedCard, draw_hand, render_scene, table_background
from vision.still import StillFrames

STYLES = ("light_wood", "felt", "wood", "dark_wood")


def scene(n_cards: int, seed: int, noise_seed: int | None = None) -> np.ndarray:
    """A 1280x720 table with ``n_cards`` face-up cards, some overlapping in pairs; ``noise_seed``
    draws the camera's noise afresh on the same table (default: ``seed``)."""
    rng = np.random.default_rng(seed)
    codes = rng.permutation(ALL_CODES[:52])[:n_cards]
    cards: list[PlacedCard] = []
    for i, code in enumerate(codes):
        if i % 3 == 1:   # every third card overlaps the one before, as players' pairs do
            prev = cards[-1]
            centre = (prev.centre[0] + rng.uniform(25, 40), prev.centre[1] + rng.uniform(-15, 25))
            cards.append(PlacedCard(str(code), centre, prev.angle_deg + rng.uniform(-15, 15), 90))
        else:
            centre = (rng.uniform(120, 1160), rng.uniform(110, 610))
            cards.append(PlacedCard(str(code), centre, rng.uniform(0, 360), 90))
    cards += [PlacedCard("AS", (rng.uniform(120, 1160), rng.uniform(110, 610)), rng.uniform(0, 360), 90,
                         face_up=False) for _ in range(2)]
    table = table_background((1280, 720), style=STYLES[seed % len(STYLES)], seed=seed)
    frame, _ = render_scene(cards, background=table, seed=seed if noise_seed is None else noise_seed, noise=3)
    return draw_hand(frame, (rng.uniform(200, 1000), 650), size=150)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=40, help="frames per card count (default 40)")
    parser.add_argument("--best-of", type=int, default=1, metavar="K",
                        help="pass over the frames K times, each frame's fastest run counting (default 1)")
    parser.add_argument("--against", type=Path, default=None, metavar="DIR",
                        help="also time the recogniser of the checkout in DIR, frame by frame in turn")
    parser.add_argument("--model", type=Path, default=None,
                        help="card model (default: each checkout's models/cards-int8.onnx)")
    parser.add_argument("--proposals-only", action="store_true", help="time the geometry's proposals only")
    finders = parser.add_mutually_exclusive_group()
    finders.add_argument("--no-detector", action="store_true",
                         help="find cards by the frame's geometry alone, without the learned corner detector")
    finders.add_argument("--no-geometry", action="store_true",
                         help="find cards by the learned corner detector alone, without the frame's geometry")
    parser.add_argument("--still", action="store_true",
                        help="also time a still table's frames through vision.still.StillFrames, once it has been read")
    parser.add_argument("--stages", action="store_true",
                        help="also time each stage of this checkout's recogniser: proposals, detector, readers")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.best_of < 1:
        parser.error(f"--best-of must be at least 1, got {args.best_of}")
    if args.still and args.proposals_only:
        parser.error("--still times the cards found: it cannot go with --proposals-only")
    if args.stages and args.proposals_only:
        parser.error("--stages times the readers too: it cannot go with --proposals-only")

    if args.against is not None and not (args.against / "vision" / "recognizer.py").is_file():
        parser.error(f"--against {args.against}: no vision/recognizer.py there")

    cv2.setNumThreads(1)
    try:
        options = {"proposals_only": args.proposals_only, "detector": not args.no_detector,
                   "geometry": not args.no_geometry}
        runs = [_run_of(None, args.model, **options)]
        if args.against is not None:
            runs.append(_run_of(args.against, args.model, **options))
    except ModelError as exc:
        print(f"bench_vision: {exc} (or use --proposals-only)", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"bench_vision: {exc}", file=sys.stderr)
        return 2
    run = runs[0]
    results = {}
    for n in (0, 5, 15):
        frames = [scene(n, seed) for seed in range(args.frames)]
        for warm_up in runs:
            warm_up(frames[0])  # onnxruntime allocates on first use
        timed = _timed(runs, frames, best_of=args.best_of)
        results[f"{n}_cards"] = timed[0]
        if args.against is not None:
            results[f"{n}_cards_against"] = timed[1]
        if args.stages:
            recognizer = getattr(run, "__self__", None)   # run is this checkout's Recognizer.detect
            assert isinstance(recognizer, Recognizer)
            results[f"{n}_stages"] = _stages(recognizer, frames)
        if args.still:
            # One table, the camera's noise drawn afresh each frame: read settle_reads times, then skipped.
            still = StillFrames(cast("Callable[[np.ndarray], Sequence[Detection]]", run))  # detect: not --proposals-only
            for k in range(still.settle_reads):
                still(scene(n, 0, noise_seed=k))
            frames = [scene(n, 0, noise_seed=k) for k in range(still.settle_reads, still.settle_reads + args.frames)]
            results[f"{n}_still"] = _timed([still], frames)[0] | {"frames_read": still.frames_read}
    if args.json:
        print(json.dumps(results))
    else:
        what = "proposals" if args.proposals_only else "cards found"
        for key, r in results.items():
            if key.endswith("_stages"):
                print(f"{key:>15}: " + "   ".join(f"{stage} {ms:.1f}" if stage != "patches" else f"({ms:.0f} patches)"
                                                  for stage, ms in r.items()))
                continue
            print(f"{key:>15}: median {r['median_ms']:6.1f} ms   p90 {r['p90_ms']:6.1f} ms   "
                  f"(CPU {r['cpu_median_ms']:.1f} / {r['cpu_p90_ms']:.1f} ms)   mean {what} {r['mean_found']}"
                  + (f"   read {r['frames_read']} of {args.frames + 5} frames" if "frames_read" in r else "")
                  + (f"   (this checkout {r['saving_pct']}% faster frame by frame)" if "saving_pct" in r else ""))
    return 0


def _run_of(root: Path | None, model: Path | None, *, proposals_only: bool,
            detector: bool = True, geometry: bool = True) -> Callable[[np.ndarray], Sequence[object]]:
    """``detect`` (``propose`` with ``proposals_only``) of a recogniser built from the checkout at ``root``
    (None: this one), whose modules are then set aside so that each checkout keeps its own; with
    ``detector``, the learned corner detector's corners join the geometry's, and without ``geometry``
    they alone propose cards."""
    mine = ("vision", "companion")
    kept = {name: mod for name, mod in sys.modules.items() if name.split(".")[0] in mine}
    if root is not None:
        for name in kept:
            del sys.modules[name]
        sys.path.insert(0, str(root.resolve()))
    try:
        recognizer_module = importlib.import_module("vision.recognizer")
        classifier_module = importlib.import_module("vision.classifier")
        if proposals_only:
            return recognizer_module.Recognizer(classifier=recognizer_module._NoCards()).propose
        try:
            classifier = classifier_module.CardClassifier(model, threads=1)
            if not hasattr(classifier_module, "FaceReader"):   # a checkout without the face reader reads corners only
                return recognizer_module.Recognizer(classifier=classifier).detect
            faces = classifier_module.FaceReader(threads=1)
            if not detector or importlib.util.find_spec("vision.detector") is None:   # a checkout without the detector
                return recognizer_module.Recognizer(classifier=classifier, faces=faces).detect
            corners = importlib.import_module("vision.detector").CardDetector(threads=1)
        except classifier_module.ModelError as exc:   # the other checkout's own class
            raise ModelError(str(exc)) from exc
        alone = {} if geometry else {"geometry": False}
        if alone and "geometry" not in inspect.signature(recognizer_module.Recognizer).parameters:
            raise ValueError(f"the recogniser at {root} cannot leave the geometry out (--no-geometry)")
        return recognizer_module.Recognizer(classifier=classifier, faces=faces, detector=corners, **alone).detect
    finally:
        if root is not None:
            sys.path.remove(str(root.resolve()))
            for name in [name for name in sys.modules if name.split(".")[0] in mine]:
                del sys.modules[name]
            sys.modules.update(kept)


def _stages(recognizer: Recognizer, frames: list[np.ndarray]) -> dict[str, float]:
    """Median milliseconds per frame that ``recognizer`` spends in each stage, each counting only its
    own time (the detector's looks are not the proposals' though the detector alone proposes by
    them), and the mean patches its corner reader reads per frame."""
    spent: dict[str, float] = {}
    inside: list[float] = [0.0]   # the time of the stages called within the one running

    def timed(stage: str, call: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            inside.append(0.0)
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                took = time.perf_counter() - start
                spent[stage] = spent.get(stage, 0.0) + took - inside.pop()
                inside[-1] += took
        return run

    patches = [0]

    def counted(classify: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        def read(batch: np.ndarray) -> np.ndarray:
            patches[0] += len(batch)
            return classify(batch)
        return read

    stages = {"proposals": (recognizer, "_hypotheses"), "detector": (recognizer.detector, "find"),
              "corner reader": (recognizer.classifier, "classify"), "face reader": (recognizer.faces, "classify")}
    stages = {stage: place for stage, place in stages.items() if place[0] is not None}
    own = {stage: name in vars(owner) for stage, (owner, name) in stages.items()}   # set on the object itself
    kept = {stage: getattr(owner, name) for stage, (owner, name) in stages.items()}
    per_frame: dict[str, list[float]] = {stage: [] for stage in (*stages, "rest")}
    counts = []
    try:
        for stage, (owner, name) in stages.items():
            call = counted(kept[stage]) if stage == "corner reader" else kept[stage]
            setattr(owner, name, timed(stage, call))
        recognizer.detect(frames[0])
        for frame in frames:
            spent.clear()
            patches[0] = 0
            start = time.perf_counter()
            recognizer.detect(frame)
            total = time.perf_counter() - start
            for stage in stages:
                per_frame[stage].append(spent.get(stage, 0.0) * 1000)
            per_frame["rest"].append((total - sum(spent.values())) * 1000)
            counts.append(patches[0])
    finally:
        for stage, (owner, name) in stages.items():
            if own[stage]:
                setattr(owner, name, kept[stage])
            else:
                delattr(owner, name)
    out = {stage: round(float(np.median(ms)), 1) for stage, ms in per_frame.items()}
    out["patches"] = round(float(np.mean(counts)), 1)
    return out


def _timed(runs: Sequence[Callable[[np.ndarray], Sequence[object]]], frames: list[np.ndarray], *,
           best_of: int = 1) -> list[dict[str, float]]:
    """For each of ``runs``: median and 90th percentile of wall-clock and thread CPU milliseconds per
    frame (each frame's fastest of ``best_of`` passes over all the frames), and the mean found; after
    the first, how much faster the first was, frame by frame (the median of the shares saved).

    The runs take each frame in turn, the first going first on every other frame."""
    times = np.full((len(runs), len(frames)), np.inf)
    cpu = np.full((len(runs), len(frames)), np.inf)
    found = np.zeros((len(runs), len(frames)))
    for p in range(best_of):
        # Whole passes, not one frame K times in a row: a neighbour's busy spell lasts seconds.
        for k, frame in enumerate(frames):
            order = range(len(runs)) if (p + k) % 2 == 0 else reversed(range(len(runs)))
            for i in order:
                start, start_cpu = time.perf_counter(), time.thread_time()
                seen = runs[i](frame)
                cpu[i, k] = min(cpu[i, k], (time.thread_time() - start_cpu) * 1000)
                times[i, k] = min(times[i, k], (time.perf_counter() - start) * 1000)
                found[i, k] = len(seen)
    out = [{"median_ms": round(float(np.median(times[i])), 1), "p90_ms": round(float(np.percentile(times[i], 90)), 1),
            "cpu_median_ms": round(float(np.median(cpu[i])), 1),
            "cpu_p90_ms": round(float(np.percentile(cpu[i], 90)), 1),
            "mean_found": round(float(np.mean(found[i])), 2)} for i in range(len(runs))]
    for i in range(1, len(runs)):
        out[i]["saving_pct"] = round(float(np.median((cpu[i] - cpu[0]) / cpu[i])) * 100, 1)
    return out

if __name__ == "__main__":
    sys.exit(main())
