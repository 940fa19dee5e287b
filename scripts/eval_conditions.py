"""Precision and recall of the recogniser when the photos are taken otherwise.

    python scripts/eval_conditions.py FOLDER [--only dim,warm] [--json] [companion eval's recogniser options]

Every image of a labelled folder (``docs/labels.md``) is read as it is, then
again under one change at a time, each a thing a real table does to a camera.
The recogniser is the one ``companion eval`` builds from the same options
(``--no-geometry``: the detector alone; ``--no-detector``: the geometry
alone; ``--min-confidence``, ``--model``, ``--faces``, ``--detector``):

* ``dim``: 55% of the light (an evening kitchen);
* ``warm``: blue down, red up (a tungsten lamp);
* ``shade``: full light on the left falling to 45% on the right (a lamp to one side);
* ``lamp``: full light below a lamp over one side, falling with the distance
  from it to about half at the far corner (light that no plane describes);
* ``portrait``: turned a quarter (a camera mounted the other way);
* ``camera``: shrunk to 1280 pixels wide (the live frame's size);
* ``webcam``: shrunk to 1280 and saved as JPEG at quality 40 (a cheap webcam);
* ``blur``: out of focus (a Gaussian of 2.5 pixels);
* ``motion``: shaken during the exposure: smeared along a line 1/250 of the
  picture's long side (12 pixels of a 3000-pixel photo: a phone held in a
  dim room);
* ``glare``: two lamps' hot spots on a glossy table and its cards, up to 120
  levels of light added in spots 6% of the picture's long side across;
* ``shadow``: the shadow of an arm reaching in from the near side to the
  middle, 55% of the light taken, its edges soft;
* ``lens``: a wide lens's barrel distortion (k1 = -0.22 at a focal length of
  the picture's width, a webcam's or a phone's wide camera): straight edges
  bow, most at the picture's corners;
* ``night``: an evening room and a webcam at its highest gain: shrunk to 1280
  pixels wide, 30% of the light, the sensor's noise (6 of 255 levels) and
  JPEG at quality 70;
* ``far``: seen from higher up, or through a wider lens: shrunk to 1280
  pixels wide, then the table in the middle three quarters of the picture,
  the room round it out of focus (the picture itself, blurred); the table
  photos' cards are then about 65 pixels wide, the least docs/setup.md
  asks for;
* ``small``: shrunk to 640 pixels wide, as a 640x480 webcam sees
  a whole table: the table photos' cards are then about 44 pixels wide,
  under what docs/setup.md asks for;
* ``desk``: a white desk (the hardest table: cards as white as it): every pixel
  of the table's own colour (that of the picture's median) loses it and is
  lifted until the table stands at 97% of the cards' white (the brightest
  pixels); the cards' print and the pips keep theirs.  For a coloured table,
  as the table photos' wood: a grey or black table's colour is the cards'
  own, and lifting it would wash out their print;
* ``bright``: over-exposed by a third of a stop (1.26 times the light, clipped
  at white), as a camera metering the dark floor round a light table
  exposes it: the cards' white and the table's lightest clip together, and
  a thin index's strokes thin out;
* ``oblique``: seen from a camera tilted away from vertical, as from a shelf
  beside the table (the far edge 0.6 as wide as the near one, the depth
  foreshortened to 0.8);
* ``oblique90``, ``oblique180``, ``oblique270``: the same from the table's
  other sides (the picture turned that far clockwise first).

A recogniser tuned to the development photos' light and framing falls
apart under these; the figures show how far it depends on them.  Labels
name cards, not places, so every change keeps them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.detection import Detection
from vision.evaluate import LabelsError, add_arguments, evaluate, make_recognizer, read_labels

if TYPE_CHECKING:  # built in main(), once the arguments are read
    from vision.recognizer import Recognizer


def _shrunk(frame: np.ndarray, width: int) -> np.ndarray:
    h, w = frame.shape[:2]
    return frame if w <= width else cv2.resize(frame, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def _camera(frame: np.ndarray) -> np.ndarray:
    return _shrunk(frame, 1280)


def _jpeg(frame: np.ndarray, quality: int) -> np.ndarray:
    _, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert image is not None  # a JPEG just encoded decodes
    return image


def _webcam(frame: np.ndarray) -> np.ndarray:
    return _jpeg(_camera(frame), 40)


def _gain(frame: np.ndarray, bgr: tuple[float, float, float]) -> np.ndarray:
    return np.clip(frame * np.array(bgr, np.float32), 0, 255).astype(np.uint8)


def _shade(frame: np.ndarray) -> np.ndarray:
    light = np.linspace(1.0, 0.45, frame.shape[1], dtype=np.float32)[None, :, None]
    return (frame * light).astype(np.uint8)


def _lamp(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    light = np.clip(1.0 - 0.6 * np.hypot(xs / w - 0.3, (ys - 0.2 * h) / w), 0.4, 1.0)
    return (frame * light[..., None]).astype(np.uint8)


def _night(frame: np.ndarray) -> np.ndarray:
    noise = np.random.default_rng(0).normal(0.0, 6.0, frame.shape)
    return _jpeg(np.clip(frame * 0.3 + noise, 0, 255).astype(np.uint8), 70)


def _motion(frame: np.ndarray) -> np.ndarray:
    n = max(3, round(max(frame.shape[:2]) / 250))
    kernel = np.zeros((n, n), np.float32)
    kernel[n // 2, :] = 1.0 / n
    return cv2.filter2D(frame, -1, kernel)


def _glare(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    sigma = 0.06 * max(h, w)
    spots = np.zeros((h, w), np.float32)
    for x, y in ((0.42, 0.38), (0.7, 0.65)):
        spots += np.exp(-((xs - x * w) ** 2 + (ys - y * h) ** 2) / (2 * sigma ** 2))
    return np.clip(frame + 120 * np.clip(spots, 0, 1)[..., None], 0, 255).astype(np.uint8)


def _shadow(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    outline = np.zeros((h, w), np.float32)
    cv2.fillPoly(outline, [np.array([[0.3 * w, h], [0.45 * w, 0.45 * h], [0.6 * w, 0.4 * h], [0.65 * w, h]], np.int32)], 1.0)
    arm = cv2.GaussianBlur(outline, (0, 0), max(h, w) / 150)
    return (frame * (1 - 0.55 * arm[..., None])).astype(np.uint8)


def _lens(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    camera = np.array([[w, 0, w / 2], [0, w, h / 2], [0, 0, 1]], np.float64)
    bend = np.array([-0.22, 0, 0, 0], np.float64)
    # Each pixel of the bent picture shows the straight picture where the lens took its light from.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    grid = np.dstack([xs, ys]).reshape(-1, 1, 2)
    source = cv2.undistortPoints(grid, camera, bend, P=camera).reshape(h, w, 2).astype(np.float32)
    return cv2.remap(frame, source[..., 0], source[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _far(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    table = cv2.resize(frame, (round(w * 0.75), round(h * 0.75)), interpolation=cv2.INTER_AREA)
    room = cv2.GaussianBlur(frame, (0, 0), max(h, w) / 40)
    top, left = (h - table.shape[0]) // 2, (w - table.shape[1]) // 2
    room[top:top + table.shape[0], left:left + table.shape[1]] = table
    return room


def _desk(frame: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    light, a, b = lab[..., 0], lab[..., 1] - 128, lab[..., 2] - 128
    # How much of the table's own colour a pixel has: 1 on the table, none on a card's white or print.
    table = np.exp(-((a - np.median(a)) ** 2 + (b - np.median(b)) ** 2) / (2 * 14.0 ** 2))
    gain = 0.97 * float(np.percentile(light, 99.5)) / max(1.0, float(np.median(light)))
    lab = np.stack([light * (1 + (gain - 1) * table), 128 + a * (1 - table), 128 + b * (1 - table)], axis=-1)
    return cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)


def _oblique(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    seen = np.array([[0.2 * w, 0.2 * h], [0.8 * w, 0.2 * h], [w, h], [0, h]], np.float32)
    warp = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), seen)
    return cv2.warpPerspective(frame, warp, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


CONDITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "as taken": lambda f: f,
    "dim": lambda f: _gain(f, (0.55, 0.55, 0.55)),
    "warm": lambda f: _gain(f, (0.75, 0.95, 1.1)),
    "shade": _shade,
    "lamp": _lamp,
    "portrait": lambda f: cv2.rotate(f, cv2.ROTATE_90_CLOCKWISE),
    "camera": _camera,
    "webcam": _webcam,
    "blur": lambda f: cv2.GaussianBlur(f, (0, 0), 2.5),
    "motion": _motion,
    "glare": _glare,
    "shadow": _shadow,
    "lens": _lens,
    "night": lambda f: _night(_camera(f)),
    "far": lambda f: _far(_camera(f)),
    "small": lambda f: _shrunk(f, 640),
    "desk": _desk,
    "bright": lambda f: _gain(f, (1.26, 1.26, 1.26)),
    "oblique": _oblique,
    "oblique90": lambda f: _oblique(cv2.rotate(f, cv2.ROTATE_90_CLOCKWISE)),
    "oblique180": lambda f: _oblique(cv2.rotate(f, cv2.ROTATE_180)),
    "oblique270": lambda f: _oblique(cv2.rotate(f, cv2.ROTATE_90_COUNTERCLOCKWISE)),
}


class Changed:
    """A recogniser that sees every frame through one of the ``CONDITIONS``."""

    def __init__(self, recognizer: Recognizer, change: Callable[[np.ndarray], np.ndarray]) -> None:
        self.recognizer, self.change = recognizer, change

    def detect(self, frame: np.ndarray) -> list[Detection]:
        return self.recognizer.detect(self.change(frame))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.add_argument("--only", default=",".join(CONDITIONS),
                        help="comma-separated conditions (default: all): " + ", ".join(CONDITIONS))
    args = parser.parse_args(argv)
    chosen = [c.strip() for c in args.only.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in CONDITIONS]
    if unknown:
        parser.error(f"unknown condition(s) {', '.join(unknown)}; choose from {', '.join(CONDITIONS)}")

    try:
        labels = read_labels(args.folder)
        recognizer = make_recognizer(args)
    except (LabelsError, ValueError) as exc:   # ModelError is a ValueError too
        print(f"eval_conditions: {exc}", file=sys.stderr)
        return 2
    results = {}
    for name in chosen:
        r = evaluate(args.folder, Changed(recognizer, CONDITIONS[name]), labels)
        results[name] = {k: r[k] for k in ("images", "cards", "precision", "recall", "exact")}
        if not args.json:
            print(f"{name:9s} precision {r['precision']:.3f}   recall {r['recall']:.3f}   "
                  f"exact {r['exact']:.3f}   ({r['images']} images, {r['cards']} cards)", flush=True)
    if args.json:
        print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
