"""Training patches: synthetic corners from Debian decks, real corners from card photos.

Every patch goes through :func:`vision.classifier.extract_patch`, the very
function the recogniser calls, with a homography jittered the way a
detector's corner estimate is off (a few card units of shift, a few per cent
of scale and perspective), so the model learns to read an imprecisely
framed index.

A synthetic sample draws a small piece of table around one card corner: a
procedural texture, the card in perspective at 0.25..1.5 px per card unit,
its shadow, sometimes a second card, a hand or chips drawn over it, then
uneven light, a glare spot, blur, sensor noise and JPEG.  A corner more than
half covered is labelled ``"none"``; one between 15 % and 50 % covered is
not used at all (a reader cannot be expected to say either way).
"""

from __future__ import annotations

import csv
import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.rules.cards import ALL_CODES
from models.decks import Deck
from vision.classifier import CARD_SIZE, CLASSES, CORNER_BOX, PATCH_SHAPE, extract_patch, rotate_180
from vision.render import STYLES, table_background

if TYPE_CHECKING:
    from vision.recognizer import Recognizer

NONE = CLASSES.index("none")
CANVAS = 256
INDEX_CORE = (4, 4, 52, 104)  # card units: where the rank and small suit sit on most decks
RESTYLED = 0.2  # share of cards drawn on black, tinted or textured stock
CW, CH = CARD_SIZE
CARD_CORNERS = np.array([[0, 0], [CW, 0], [CW, CH], [0, CH]], np.float32)
"""A card's corners in card units, clockwise from its top-left: what an outline's corners map from."""


@dataclass
class Patches:
    """A labelled batch: ``x`` (N, h, w, 3) uint8 BGR, ``y`` (N,) class indices."""

    x: np.ndarray
    y: np.ndarray

    @staticmethod
    def concat(parts: list[Patches]) -> Patches:
        parts = [p for p in parts if len(p.y)]
        if not parts:
            return Patches(np.zeros((0,) + PATCH_SHAPE + (3,), np.uint8), np.zeros(0, np.int64))
        return Patches(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]))


class Textures:
    """A bank of table surfaces to crop backgrounds from: the renderer's styles, recoloured."""

    def __init__(self, rng: np.random.Generator, count: int = 24) -> None:
        self.images = []
        for i in range(count):
            style = STYLES[i % len(STYLES)]
            image = table_background((384, 384), style=style, seed=int(rng.integers(1 << 30)))
            gains = rng.uniform(0.6, 1.4, 3)
            image = (image * gains).clip(0, 255).astype(np.uint8)
            if i % 6 == 5:  # a plain cloth or paper colour
                image[:] = rng.integers(20, 240, 3)
                image = cv2.add(image, rng.normal(0, 6, image.shape).astype(np.int16), dtype=cv2.CV_8U)
            self.images.append(image)

    def crop(self, rng: np.random.Generator, size: int) -> np.ndarray:
        image = self.images[int(rng.integers(len(self.images)))]
        y, x = rng.integers(0, image.shape[0] - size + 1, 2)
        out = image[y:y + size, x:x + size]
        k = int(rng.integers(4))
        return np.ascontiguousarray(np.rot90(out, k))


class FacePyramid:
    """Each face at a few sizes, so a small card is warped from a small image (no aliasing)."""

    def __init__(self, face: np.ndarray) -> None:
        self.levels = [face]
        while self.levels[-1].shape[0] > 60:
            self.levels.append(cv2.pyrDown(self.levels[-1]))

    def pick(self, height_px: float) -> np.ndarray:
        for level in reversed(self.levels):
            if level.shape[0] >= height_px * 1.2:
                return level
        return self.levels[0]


def _face_to_card(face: np.ndarray) -> np.ndarray:
    """Face pixel (centre) coordinates -> card units: the face image is the whole card."""
    h, w = face.shape[:2]
    return np.array([[CW / w, 0, 0.5 * CW / w], [0, CH / h, 0.5 * CH / h], [0, 0, 1.0]])


def card_homography(rng: np.random.Generator, *, scale: float, angle: float, anchor: tuple[float, float],
                    at: tuple[float, float], tilt: float) -> np.ndarray:
    """Card units -> canvas px: the card point ``anchor`` lands on ``at``, turned and tilted."""
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * scale
    mapped = (CARD_CORNERS.astype(np.float64) - anchor) @ rot.T + at
    mapped += rng.normal(0, tilt * scale * CW, mapped.shape)
    return cv2.getPerspectiveTransform(CARD_CORNERS, mapped.astype(np.float32)).astype(np.float64)


def jitter(rng: np.random.Generator, card_to_frame: np.ndarray, *, amount: float = 1.0) -> np.ndarray:
    """The homography a detector might report: corners off by a few card units, size by a few %."""
    grow = rng.normal(1.0, 0.03 * amount)
    centre = np.array([CW / 2, CH / 2])
    moved = (CARD_CORNERS - centre) * grow + centre + rng.normal(0, 4.0 * amount, 2)
    moved += rng.normal(0, 3.0 * amount, moved.shape)
    shifted = cv2.getPerspectiveTransform(CARD_CORNERS, moved.astype(np.float32))
    return card_to_frame @ shifted


def restyle(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The same card printed differently: on black stock (greys inverted, colours kept,
    as some novelty decks are), on tinted stock (cream, grey, pastel), or on textured
    stock (old paper, linen, a coloured board: mottled, striped, grainy, the ink faded)."""
    kind = rng.random()
    if kind < 0.6:
        bgr = face[..., :3].astype(np.float32)
        grey = bgr.mean(axis=2, keepdims=True)
        saturation = (bgr.max(axis=2, keepdims=True) - bgr.min(axis=2, keepdims=True)) / 255
        neutral = np.clip(1 - 3 * saturation, 0, 1)  # 1 on white/black/grey ink, 0 on red
        if kind < 0.35:
            styled = bgr + neutral * (255 - 2 * grey)
        else:
            tint = rng.uniform(0.55, 1.0, 3).astype(np.float32)
            styled = bgr * (1 - neutral * (1 - tint) * grey / 255)
    else:
        styled = textured(face[..., :3], rng)
    out = face.copy()
    out[..., :3] = styled.clip(0, 255).astype(np.uint8)
    return out


def textured(bgr: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``bgr`` printed on textured stock, float32: ink and paper multiply, as print does.

    The paper is a colour (mostly parchment, sometimes any colour) times a
    texture: blotches a few per card wide, sometimes fine stripes as on linen
    or canvas, and grain.  The ink is faded towards white first (old print).
    """
    h, w = bgr.shape[:2]
    if rng.random() < 0.6:   # parchment, sepia, old cream
        colour = np.array([rng.uniform(0.4, 0.85), rng.uniform(0.6, 0.92), rng.uniform(0.75, 1.0)], np.float32)
    else:
        colour = rng.uniform(0.35, 1.0, 3).astype(np.float32)
    blotches = rng.normal(0, 1, (int(rng.integers(3, 10)), int(rng.integers(3, 10)))).astype(np.float32)
    texture = 1 + rng.uniform(0.04, 0.22) * cv2.resize(blotches, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.4:   # linen, canvas: fine stripes at some angle
        theta = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        period = h / rng.uniform(30, 120)
        texture += rng.uniform(0.04, 0.14) * np.sin(2 * math.pi * (xx * math.cos(theta) + yy * math.sin(theta))
                                                      / period).astype(np.float32)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    texture += rng.uniform(0.0, 0.1) * grain
    paper = colour * np.clip(texture, 0.3, 1.2)[..., None]
    ink = bgr.astype(np.float32)
    ink = ink + rng.uniform(0.0, 0.35) * (255 - ink)
    return ink * paper


def _composite(canvas: np.ndarray, face: FacePyramid, card_to_canvas: np.ndarray,
               rng: np.random.Generator, *, shadow: bool = True, restyled: bool = False) -> np.ndarray:
    """Draw a BGRA face onto the canvas in place; return its coverage mask (float32, 0..1)."""
    scale = math.sqrt(abs(np.linalg.det(card_to_canvas[:2, :2])))
    image = face.pick(CH * scale)
    if restyled:
        image = restyle(image, rng)
    m = card_to_canvas @ _face_to_card(image)
    size = (canvas.shape[1], canvas.shape[0])
    bgr = cv2.warpPerspective(image[..., :3], m, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(image[..., 3], m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    if shadow:
        offset = rng.normal(0, 3, 2)
        sh = cv2.warpAffine(alpha, np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32), size)
        sh = 1 - cv2.GaussianBlur(sh, (0, 0), rng.uniform(1, 5)) * np.float32(rng.uniform(0.1, 0.5))
        canvas[:] = cv2.blendLinear(canvas, np.zeros_like(canvas), sh, 1 - sh)
    canvas[:] = cv2.blendLinear(bgr, canvas, alpha, 1 - alpha)
    return alpha


def _draw_chips(canvas: np.ndarray, rng: np.random.Generator, *,
                radius: tuple[float, float] | None = None) -> np.ndarray:
    """One to three chips anywhere on ``canvas``, ``radius`` px (default: small against the canvas);
    returns where they lie."""
    mask = np.zeros(canvas.shape[:2], np.uint8)
    h, w = canvas.shape[:2]
    for _ in range(int(rng.integers(1, 4))):
        c = tuple(int(v) for v in rng.integers(0, (w, h)))
        r = int(rng.integers(h // 20 + 3, h // 6 + 5)) if radius is None else max(3, round(rng.uniform(*radius)))
        white = rng.random() < 0.3   # a white chip, its marks coloured
        colour = tuple(int(v) for v in (rng.integers(215, 250, 3) if white else rng.integers(0, 256, 3)))
        mark = tuple(int(v) for v in rng.integers(0, 200, 3)) if white else (235, 235, 235)
        cv2.circle(canvas, c, r, colour, -1, cv2.LINE_AA)
        cv2.circle(mask, c, r, 255, -1)
        if rng.random() < 0.5:
            for k in range(6):  # the edge stripes of a poker chip
                a0 = k * 60 + rng.uniform(0, 10)
                cv2.ellipse(canvas, c, (r - 2, r - 2), 0, a0, a0 + 18, mark, max(2, r // 5))
        else:
            for k in range(int(rng.integers(4, 9))):  # or the spots along its rim, like pips
                a = math.radians(k * 360 / 8 + rng.uniform(0, 10))
                p = (int(c[0] + 0.8 * r * math.cos(a)), int(c[1] + 0.8 * r * math.sin(a)))
                cv2.circle(canvas, p, max(1, r // 9), mark, -1, cv2.LINE_AA)
        cv2.circle(canvas, c, int(r * 0.6), tuple(min(255, v + 40) for v in colour), 2, cv2.LINE_AA)
    return mask.astype(np.float32) / 255


def _draw_hand(canvas: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    mask = np.zeros(canvas.shape[:2], np.uint8)
    tone = np.array([120, 160, 215]) * rng.uniform(0.5, 1.15) + rng.normal(0, 10, 3)
    colour = tuple(int(v) for v in tone.clip(0, 255))
    n = canvas.shape[0]
    for _ in range(int(rng.integers(1, 4))):
        c = tuple(int(v) for v in rng.integers(-n // 6, n + n // 6, 2))
        axes = (int(rng.integers(n // 16 + 2, n // 4 + 3)), int(rng.integers(n // 6 + 2, n // 2 + 3)))
        angle = float(rng.uniform(0, 180))
        cv2.ellipse(canvas, c, axes, angle, 0, 360, colour, -1, cv2.LINE_AA)
        cv2.ellipse(mask, c, axes, angle, 0, 360, 255, -1)
    return mask.astype(np.float32) / 255


def _photometric(canvas: np.ndarray, rng: np.random.Generator, *, strength: float = 1.0) -> np.ndarray:
    """Uneven light, colour cast, glare, blur, noise and JPEG, as a cheap camera does."""
    n = canvas.shape[0]
    ramp = np.linspace(-0.5, 0.5, n, dtype=np.float32)
    g = rng.normal(0, 0.35 * strength, 2).astype(np.float32)
    light = 1 + g[0] * ramp[None, :] + g[1] * ramp[:, None]
    light *= np.float32(rng.uniform(1 - 0.45 * strength, 1 + 0.25 * strength))
    gains = rng.uniform(1 - 0.15 * strength, 1 + 0.15 * strength, 3).astype(np.float32)
    img = canvas * light[..., None] * gains
    if rng.random() < 0.2 * strength:  # over-exposed: the ink washes out towards the paper's white
        img = 255 - (255 - img) * np.float32(rng.uniform(0.35, 0.75))
    if rng.random() < 0.15 * strength:  # a pale, greyish camera: colours fade
        grey = img.mean(axis=2, keepdims=True)
        img = grey + (img - grey) * np.float32(rng.uniform(0.3, 0.7))
    if rng.random() < 0.3 * strength:  # a glare spot from a lamp
        c = rng.uniform(-0.5, 0.5, 2)
        r = rng.uniform(0.05, 0.4)
        spot = np.exp(-((ramp[None, :] - c[0]) ** 2 + (ramp[:, None] - c[1]) ** 2) / (2 * r * r))
        img += (spot * np.float32(rng.uniform(60, 220)))[..., None]
    img = img.clip(0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        sigma = rng.uniform(0.2, 1.6 * strength + 0.2)
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < 0.1 * strength:  # motion blur
        k = int(rng.integers(3, 9))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        img = cv2.filter2D(img, -1, cv2.warpAffine(kernel, rot, (k, k)))
    if rng.random() < 0.7:
        noise = rng.normal(0, rng.uniform(1, 9 * strength + 1), img.shape).astype(np.int16)
        img = cv2.add(img, noise, dtype=cv2.CV_8U)
    if rng.random() < 0.6:
        img = _jpeg(img, int(rng.integers(30, 95)))
    return img


def _jpeg(image: np.ndarray, quality: int) -> np.ndarray:
    """``image`` after a round trip through a JPEG of ``quality`` (1-100), as a camera's stream leaves it."""
    _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert out is not None  # a JPEG just encoded decodes
    return out


def _card_under(canvas: np.ndarray, rng: np.random.Generator, pick: Callable[[], FacePyramid], *,
                scale: float) -> None:
    """A card ``pick`` draws, at ``scale`` px per card unit, anywhere on ``canvas`` and turned any way."""
    n = canvas.shape[0]
    under = card_homography(rng, scale=scale, angle=rng.uniform(0, 360),
                            anchor=(rng.uniform(0, CW), rng.uniform(0, CH)), at=tuple(rng.uniform(0, n, 2)), tilt=0.04)
    _composite(canvas, pick(), under, rng)


def _cover(canvas: np.ndarray, rng: np.random.Generator, pick: Callable[[], FacePyramid], *, scale: float,
           shares: tuple[float, float] = (0.6, 0.85), margin: float = 0.15,
           chips: tuple[float, float] | None = None) -> np.ndarray:
    """Something over the middle of ``canvas``: a card ``pick`` draws (``shares[0]`` of the time, its
    middle at least ``margin`` of the canvas in from its edges), a hand (up to ``shares[1]``), or
    chips (``chips``: their radius in px, default small); returns where it lies (0..1)."""
    n = canvas.shape[0]
    kind = rng.random()
    if kind < shares[0]:
        over = card_homography(rng, scale=scale * rng.uniform(0.9, 1.1), angle=rng.uniform(0, 360),
                               anchor=(rng.uniform(0, CW), rng.uniform(0, CH)),
                               at=tuple(rng.uniform(margin * n, (1 - margin) * n, 2)), tilt=0.04)
        return _composite(canvas, pick(), over, rng)
    if kind < shares[1]:
        return _draw_hand(canvas, rng)
    return _draw_chips(canvas, rng, radius=chips)


def _box_mask(card_to_canvas: np.ndarray, n: int, box: tuple[int, int, int, int] = INDEX_CORE) -> np.ndarray:
    """Where ``box`` (card units) of the card lies on an ``n`` x ``n`` canvas."""
    x0, y0, x1, y1 = box
    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32).reshape(-1, 1, 2)
    poly = cv2.perspectiveTransform(pts, card_to_canvas).reshape(-1, 2)
    mask = np.zeros((n, n), np.uint8)
    cv2.fillConvexPoly(mask, np.round(poly).astype(np.int32), 1)
    return mask.astype(bool)


class Synth:
    """Draws labelled corner patches from a set of decks."""

    backs_share = 0.25
    """How often a card drawn beside or over the one read is a back."""

    def __init__(self, decks: list[Deck], seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.textures = Textures(self.rng)
        self.decks = decks
        self.faces = [{c: FacePyramid(f) for c, f in d.faces.items()} for d in decks]
        self.backs = [FacePyramid(d.back) for d in decks if d.back is not None]

    def _random_face(self) -> FacePyramid:
        if self.backs and self.rng.random() < self.backs_share:
            return self.backs[int(self.rng.integers(len(self.backs)))]
        faces = self.faces[int(self.rng.integers(len(self.faces)))]
        return list(faces.values())[int(self.rng.integers(len(faces)))]

    def _scene(self, face: FacePyramid | None, *, anchor: tuple[float, float], angle: float,
               occlude: bool) -> tuple[np.ndarray, np.ndarray, float]:
        """A canvas with ``face`` placed so card point ``anchor`` is near the middle;
        returns the canvas, the card's homography and the index core's covered fraction."""
        rng = self.rng
        scale = math.exp(rng.uniform(math.log(0.25), math.log(1.5)))
        # Just big enough for the corner box at any turn, with a margin for the jitter.
        n = int(min(CANVAS, 160 * scale + 40))
        canvas = self.textures.crop(rng, n)
        if rng.random() < 0.15:
            _draw_chips(canvas, rng)
        at = (n / 2 + rng.normal(0, 3), n / 2 + rng.normal(0, 3))
        h = card_homography(rng, scale=scale, angle=angle, anchor=anchor, at=at, tilt=0.04)
        if rng.random() < 0.2:  # another card underneath, peeking out
            _card_under(canvas, rng, self._random_face, scale=scale)
        if face is not None:
            _composite(canvas, face, h, rng, restyled=rng.random() < RESTYLED)
        covered = 0.0
        if occlude:
            cover = _cover(canvas, rng, self._random_face, scale=scale)
            core = _box_mask(h, n)
            covered = float(cover[core].mean()) if core.any() else 1.0
        return canvas, h, covered

    def positive(self, deck_index: int, code: str) -> tuple[np.ndarray, int] | None:
        """The top-left corner of ``code``; None when an occluder half-covered it."""
        rng = self.rng
        face = self.faces[deck_index][code]
        canvas, h, covered = self._scene(face, anchor=(40, 60), angle=rng.uniform(0, 360),
                                         occlude=rng.random() < 0.3)
        if 0.15 < covered <= 0.5:
            return None
        label = NONE if covered > 0.5 else CLASSES.index(code)
        canvas = _photometric(canvas, rng)
        # Now and then the detector's framing is off by twice as much (a ragged outline on a light table).
        return extract_patch(canvas, jitter(rng, h, amount=1.0 if rng.random() < 0.7 else 1.8)), label

    def negative(self) -> tuple[np.ndarray, int]:
        """Something that is not a readable upright index: table, back, card middle, a turned index."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.2:  # bare table with clutter
            canvas, h, _ = self._scene(None, anchor=(40, 60), angle=rng.uniform(0, 360),
                                       occlude=rng.random() < 0.5)
        elif kind < 0.4 and self.backs:  # the corner of a card back
            back = self.backs[int(rng.integers(len(self.backs)))]
            canvas, h, _ = self._scene(back, anchor=(40, 60), angle=rng.uniform(0, 360), occlude=False)
        else:
            faces = self.faces[int(rng.integers(len(self.faces)))]
            face = list(faces.values())[int(rng.integers(len(faces)))]
            if kind < 0.85:  # the middle of a face, or a corner box straddling its edge
                dx, dy = rng.uniform(-60, 170), rng.uniform(-80, 230)
                if dx < 25 and dy < 40:
                    dx += 60
                canvas, h, _ = self._scene(face, anchor=(40 + dx, 60 + dy), angle=rng.uniform(0, 360),
                                           occlude=False)
                shift = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
                canvas = _photometric(canvas, rng)
                return extract_patch(canvas, jitter(rng, h @ shift)), NONE
            # The index read a quarter or half turn wrong: the recogniser's framing is off.
            canvas, h, _ = self._scene(face, anchor=(40, 60), angle=rng.uniform(0, 360), occlude=False)
            turn = float(rng.choice([90, 180, 270]))
            c = np.array([[1, 0, 40], [0, 1, 60], [0, 0, 1.0]])
            a = math.radians(turn)
            r = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
            h = h @ c @ r @ np.linalg.inv(c)
        canvas = _photometric(canvas, rng)
        return extract_patch(canvas, jitter(rng, h)), NONE

    def make(self, positives_per_code: int, negatives: int, *, progress: str = "") -> Patches:
        """``positives_per_code`` top-left corners of each code (spread over the decks) and
        ``negatives`` "none" patches; prints progress when ``progress`` names the set."""
        codes = [(d, c) for d in range(len(self.decks)) for c in self.decks[d].faces]
        per = max(1, round(positives_per_code * len(ALL_CODES) / max(1, len(codes))))
        return drawn(codes, per, self.positive, negatives, self.negative, progress=progress, every=100)


def drawn(codes: list[tuple[int, str]], per: int, positive: Callable[[int, str], tuple[np.ndarray, int] | None],
          negatives: int, negative: Callable[[], tuple[np.ndarray, int]], *, progress: str = "",
          every: int = 100) -> Patches:
    """``per`` samples of ``positive`` for each (deck index, code) of ``codes`` (a None is left out),
    then ``negatives`` of ``negative``; prints progress every ``every`` codes when ``progress`` names the set."""
    xs, ys = [], []
    for i, (d, c) in enumerate(codes):
        for _ in range(per):
            sample = positive(d, c)
            if sample is not None:
                xs.append(sample[0])
                ys.append(sample[1])
        if progress and i % every == every - 1:
            print(f"  {progress}: {i + 1}/{len(codes)} faces, {len(xs)} patches", flush=True)
    for _ in range(negatives):
        x, y = negative()
        xs.append(x)
        ys.append(y)
    return Patches(np.stack(xs), np.array(ys, np.int64))


def read_labelled(folder: Path) -> list[tuple[Path, str]]:
    """(image, code) pairs of a card-crops folder's labels.csv (one card per image)."""
    out = []
    with open(folder / "labels.csv", newline="") as f:
        for row in csv.DictReader(f):
            codes = row["cards"].split()
            if len(codes) == 1 and codes[0] in ALL_CODES:
                out.append((folder / row["image"], codes[0]))
    return out


def crop_homography(image: np.ndarray) -> np.ndarray:
    """A whole-card crop taken as the card itself: card units stretched onto the image."""
    h, w = image.shape[:2]
    return np.array([[w / CW, 0, -0.5], [0, h / CH, -0.5], [0, 0, 1.0]])


INSIDE = 0.8
"""A card found covering less than this share of its photo lies inside the picture, not filling it."""


def found_inside(items: list[tuple[Path, str]], recognizer: Recognizer) -> dict[Path, np.ndarray]:
    """The card-to-photo homography of every photo whose labelled card the recogniser finds lying
    inside the picture (held in a hand, turned on a table) rather than filling it.

    ``card-crops`` labels every photo as the card itself; for the few
    where the card lies in the picture, the picture's corners are a hand or
    the table, and cut as the card's they teach the classifier to call a
    bare corner a card.  Only a find of the labelled code is trusted: any
    other photo is taken whole, as before.
    """
    inside = {}
    for path, code in items:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        area = image.shape[0] * image.shape[1]
        for d in recognizer.detect(image):
            if d.code == code and abs(cv2.contourArea(d.outline)) < INSIDE * area:
                inside[path] = cv2.getPerspectiveTransform(CARD_CORNERS, d.outline.astype(np.float32))
                break
    return inside


def real_corners(items: list[tuple[Path, str]], rng: np.random.Generator | None, *,
                 copies: int = 1, negatives: float = 0.0,
                 inside: dict[Path, np.ndarray] | None = None) -> tuple[Patches, Patches]:
    """Both index corners of every photo (top-left, and bottom-right turned upright).

    With ``rng`` the homographies are jittered and the light varied, ``copies``
    times per corner; ``negatives`` adds that many middle-of-card "none" patches per image.
    ``inside`` gives the card's homography in the photos where it does not fill the picture
    (:func:`found_inside`); the others are taken whole.
    Returns (top-left patches, bottom-right patches) in the order of ``items``.
    """
    tl: list[np.ndarray] = []
    br: list[np.ndarray] = []
    ty: list[int] = []
    neg_x: list[np.ndarray] = []
    for path, code in items:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h = inside[path] if inside is not None and path in inside else crop_homography(image)
        for _ in range(copies):
            for corner, out in ((h, tl), (rotate_180(h), br)):
                if rng is None:
                    out.append(extract_patch(image, corner))
                    continue
                src = image
                if rng.random() < 0.7:
                    src = _photometric_light(image, rng)
                out.append(extract_patch(src, jitter(rng, corner, amount=1.5)))
            ty.append(CLASSES.index(code))
        if rng is not None and rng.random() < negatives:
            dx, dy = rng.uniform(60, 170), rng.uniform(90, 230)
            shift = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
            neg_x.append(extract_patch(image, jitter(rng, h @ shift)))
    y = np.array(ty, np.int64)
    neg = Patches(np.stack(neg_x), np.full(len(neg_x), NONE, np.int64)) if neg_x else Patches.concat([])
    return Patches.concat([Patches(np.stack(tl), y), neg]), Patches(np.stack(br), y.copy())


def _boxes(xml_path: Path) -> list[tuple[float, float, float, float]]:
    """The Pascal VOC boxes (xmin, ymin, xmax, ymax) of an annotation file."""
    root = ET.parse(xml_path).getroot()
    return [tuple(float(b.findtext(k, "nan")) for k in ("xmin", "ymin", "xmax", "ymax"))  # type: ignore[misc]
            for b in root.iter("bndbox")]


def boxed_photos(folder: Path) -> Iterator[tuple[np.ndarray, list[tuple[float, float, float, float]]]]:
    """Each readable photo of a Pascal VOC folder (``IMG.JPG`` or ``.jpg`` beside ``IMG.xml``) with its boxes."""
    for xml_path in sorted(folder.glob("*.xml")):
        image = next((cv2.imread(str(p)) for p in (xml_path.with_suffix(".JPG"), xml_path.with_suffix(".jpg"))
                      if p.is_file()), None)
        if image is not None:
            yield image, _boxes(xml_path)


def _clear_of(boxes: list[tuple[float, float, float, float]]) -> Callable[[np.ndarray], bool]:
    """Whether points (``(n, 2)``) lie wholly outside every one of ``boxes`` (x0, y0, x1, y1)."""
    return lambda pts: all(
        pts[:, 0].max() < bx0 or pts[:, 0].min() > bx1 or pts[:, 1].max() < by0 or pts[:, 1].min() > by1
        for bx0, by0, bx1, by1 in boxes)


def scene_negatives(folder: Path, rng: np.random.Generator, *, per_image: int = 40) -> Patches:
    """``none`` patches where the recogniser's own geometry proposes an index on real clutter.

    The photos of ``scene-photos/train`` have every card boxed; a hypothesis
    whose corner box (either corner) lies wholly outside every box, grown by
    a tenth, is carpet, wood or furniture that the detector took for a card's
    corner: the very false alarms the classifier must learn to refuse.
    """
    from vision.recognizer import Recognizer, _NoCards

    rec = Recognizer(classifier=_NoCards())
    out = []
    for image, labelled in boxed_photos(folder):
        boxes = []
        for bx0, by0, bx1, by1 in labelled:
            gx, gy = 0.1 * (bx1 - bx0), 0.1 * (by1 - by0)
            boxes.append((bx0 - gx, by0 - gy, bx1 + gx, by1 + gy))
        found = proposed_outside(rec, image, _clear_of(boxes))
        for k in rng.permutation(len(found))[:per_image].tolist():
            src = _photometric_light(image, rng) if rng.random() < 0.5 else image
            out.append(extract_patch(src, jitter(rng, found[k])))
    return _none(out)


CHIP_RADIUS = (65.0, 90.0)
"""Card units: a poker chip is 39 mm across, a card 57 to 63 mm wide; a chip can fill a corner box."""


def table_negatives(frames: int, rng: np.random.Generator, *, per_frame: int = 40) -> Patches:
    """``none`` patches where the recogniser's own geometry proposes an index on synthetic tables
    strewn with chips.

    A white chip with coloured spots along its rim, filling a corner box
    framed on its own edge, reads like a card's pips; drawn onto small
    patches at random, a chip rarely lands so.  Each frame (1280x720, a
    few cards face up and down at 70 to 130 px wide, three to nine chips
    at a real chip's size, sometimes a hand) is proposed on like a camera
    frame, and every hypothesis whose corner box lies wholly outside the
    face-up cards (grown by a tenth) gives a patch, either corner.
    """
    from vision.recognizer import Recognizer, _NoCards
    from vision.render import PlacedCard, draw_hand, render_scene

    rec = Recognizer(classifier=_NoCards())
    out = []
    for i in range(frames):
        width = rng.uniform(70, 130)
        codes = rng.permutation(ALL_CODES[:52])[:int(rng.integers(0, 7))]
        cards = [PlacedCard(str(code), (rng.uniform(80, 1200), rng.uniform(80, 640)), rng.uniform(0, 360), width,
                            face_up=k >= 2 or rng.random() < 0.5) for k, code in enumerate(codes)]
        frame, outlines = render_scene(cards, background=STYLES[i % len(STYLES)], seed=int(rng.integers(1 << 30)),
                                       noise=float(rng.uniform(0, 4)))
        scale = width / CW
        for _ in range(3):
            _draw_chips(frame, rng, radius=(CHIP_RADIUS[0] * scale, CHIP_RADIUS[1] * scale))
        if rng.random() < 0.3:
            draw_hand(frame, (rng.uniform(100, 1180), rng.uniform(500, 700)), size=1.5 * width)
        found = proposed_outside(rec, frame, off_cards([o for card, o in zip(cards, outlines) if card.face_up]))
        out += _sampled(frame, found, rng, per_frame)
    return _none(out)


def row_negatives(decks: list[Deck], frames: int, rng: np.random.Generator, *, per_frame: int = 40) -> Patches:
    """``none`` patches where the recogniser's own geometry proposes an index across rows of played cards.

    Cards played in rows, each laid half over the last, are the companion's
    own view, and a corner box put across two of them, or on one card's
    pips, can read as a card by chance (an 8S's pips above a 5H's rim read
    TS at 0.9, and the tracker reported a TS that lay nowhere).  Each frame
    (:func:`played_rows`) is proposed on like a camera frame; every
    hypothesis whose corner box keeps off the readable index corners
    (:func:`off_indices`) gives a patch, either corner.
    """
    from vision.recognizer import Recognizer, _NoCards

    rec = Recognizer(classifier=_NoCards())
    out = []
    for i in range(frames):
        canvas, placed = played_rows(decks[int(rng.integers(len(decks)))], rng, style=STYLES[i % len(STYLES)])
        found = proposed_outside(rec, canvas, off_indices(placed))
        out += _sampled(canvas, found, rng, per_frame)
    return _none(out)


def _sampled(frame: np.ndarray, found: list[np.ndarray], rng: np.random.Generator, per_frame: int) -> list[np.ndarray]:
    """Up to ``per_frame`` of the ``found`` corners, cut (jittered) from the frame, its light changed half the time."""
    src = _photometric_light(frame, rng) if rng.random() < 0.5 else frame
    return [extract_patch(src, jitter(rng, found[k])) for k in rng.permutation(len(found))[:per_frame].tolist()]


def _none(patches: list[np.ndarray]) -> Patches:
    """The mined patches, every one labelled ``none``."""
    return Patches(np.stack(patches), np.full(len(patches), NONE, np.int64)) if patches else Patches.concat([])


def played_rows(deck: Deck, rng: np.random.Generator, *,
                style: str = "wood") -> tuple[np.ndarray, list[tuple[np.ndarray, bool]]]:
    """A 1280x720 table with rows of one deck's cards as a game leaves them; returns the frame and each
    card's (card units -> frame homography, face up), in drawing order.

    One to three groups of one or two rows, three to eight cards each, 70 to
    130 px wide, each card half over the last (a third to three quarters of
    its width on) and turned a few degrees; a second row half over the
    first; then a few loose cards, some face down.
    """
    canvas = table_background((1280, 720), style=style, seed=int(rng.integers(1 << 30)))
    canvas = (canvas * rng.uniform(0.7, 1.3, 3)).clip(0, 255).astype(np.uint8)
    codes = list(deck.faces)
    scale = rng.uniform(70, 130) / CW
    middle = (CW / 2, CH / 2)
    placed: list[tuple[np.ndarray, bool]] = []
    for _ in range(int(rng.integers(1, 4))):
        angle = rng.uniform(0, 360)
        a = math.radians(angle)
        along, up = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        start = rng.uniform((150, 150), (1130, 570))
        step = rng.uniform(0.35, 0.75) * CW * scale
        for row in range(int(rng.integers(1, 3))):
            for k in range(int(rng.integers(3, 9))):
                at = start + along * k * step + up * row * rng.uniform(0.55, 0.9) * CH * scale
                placed.append((card_homography(rng, scale=scale, angle=angle + rng.uniform(-6, 6), anchor=middle,
                                               at=tuple(at), tilt=0.02), True))
    for _ in range(int(rng.integers(0, 4))):
        placed.append((card_homography(rng, scale=scale, angle=rng.uniform(0, 360), anchor=middle,
                                       at=tuple(rng.uniform((60, 60), (1220, 660))), tilt=0.02),
                       deck.back is None or rng.random() < 0.6))
    for h, face_up in placed:
        image = deck.faces[codes[int(rng.integers(len(codes)))]] if face_up or deck.back is None else deck.back
        _composite(canvas, FacePyramid(image), h, rng, shadow=rng.random() < 0.5)
    return canvas, placed


def off_indices(placed: list[tuple[np.ndarray, bool]], *, overlap: float = 0.1) -> Callable[[np.ndarray], bool]:
    """A test for :func:`proposed_outside`: the corner box covers under ``overlap`` of its area of any
    index corner (either end of a face-up card) that the cards drawn after it leave at least half uncovered.

    Such a box is no card's index, nor part of one: what it reads is chance.
    A box on a half-readable index is neither a card nor ``none`` and is left out.
    """
    x0, y0, x1, y1 = CORNER_BOX
    box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32).reshape(-1, 1, 2)
    grid = np.array([[x, y] for x in np.linspace(x0 + 8, x1 - 8, 4) for y in np.linspace(y0 + 8, y1 - 8, 5)],
                    np.float32).reshape(-1, 1, 2)
    body = np.array([[0, 0], [CW, 0], [CW, CH], [0, CH]], np.float32).reshape(-1, 1, 2)
    outlines = [cv2.perspectiveTransform(body, h).reshape(-1, 2) for h, _ in placed]
    indices = []
    for k, (h, face_up) in enumerate(placed):
        for corner in ((h, rotate_180(h)) if face_up else ()):
            pts = cv2.perspectiveTransform(grid, corner).reshape(-1, 2)
            covered = np.mean([any(cv2.pointPolygonTest(o, (float(x), float(y)), False) >= 0 for o in outlines[k + 1:])
                               for x, y in pts])
            if covered <= 0.5:
                indices.append(cv2.perspectiveTransform(box, corner).reshape(-1, 2))

    def clear(pts: np.ndarray) -> bool:
        quad = np.ascontiguousarray(pts[:4], np.float32)
        area = abs(cv2.contourArea(quad))
        return area > 0 and all(cv2.intersectConvexConvex(quad, q)[0] < overlap * area for q in indices)

    return clear


def off_cards(outlines: list[np.ndarray], *, grow: float = 1.1) -> Callable[[np.ndarray], bool]:
    """A test for :func:`proposed_outside`: no point within any of the card ``outlines`` grown ``grow`` times."""
    grown = [((o - o.mean(axis=0)) * grow + o.mean(axis=0)).astype(np.float32) for o in outlines]
    return lambda pts: not any(cv2.pointPolygonTest(card, (float(x), float(y)), False) >= 0
                               for card in grown for x, y in pts)


def proposed_outside(recognizer: Recognizer, frame: np.ndarray,
                     outside: Callable[[np.ndarray], bool]) -> list[np.ndarray]:
    """The index corners (card-units-to-frame homographies, both corners of each hypothesis) that
    ``recognizer`` proposes in ``frame`` where ``outside`` accepts the corner box's four corners and
    middle (a (5, 2) array of frame pixels): what the detector takes for a card where there is none."""
    x0, y0, x1, y1 = CORNER_BOX
    box = np.array([[x0, y0, 1], [x1, y0, 1], [x1, y1, 1], [x0, y1, 1], [(x0 + x1) / 2, (y0 + y1) / 2, 1]],
                   np.float64).T
    found = []
    for m in recognizer.propose(frame):
        for corner in (m, rotate_180(m)):
            q = corner @ box
            if not np.any(np.abs(q[2]) < 1e-9) and outside((q[:2] / q[2]).T):
                found.append(corner)
    return found


def _photometric_light(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    img: np.ndarray = image.astype(np.float32) * rng.uniform(0.6, 1.2) * rng.uniform(0.85, 1.15, 3)
    img = (img - 128) * rng.uniform(0.7, 1.2) + 128
    img = img.clip(0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    if rng.random() < 0.4:
        img = _jpeg(img, int(rng.integers(30, 90)))
    return img
