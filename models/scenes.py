"""Whole synthetic tables for the card detector, drawn by domain randomisation.

A scene is a square piece of table seen by some camera: a surface drawn from
every kind a card table has (plain light greys and whites, the hardest case;
dark cloth, felt, wood, patterned cloths, glossy laminate, and GIMP's
photographic wood, stone, paper and fabric patterns), cards laid out as at a
table (scattered, in overlapping rows, fanned, piled), face-down cards, chips
and hands over them, all seen in perspective up to 35 degrees from vertical,
then lit unevenly, shaded, blurred, noised and JPEG-compressed.

What the detector learns is each face-up card's four *corners*, each seen
as if it were the card's top-left one: where it lies, the direction of the
edge that leaves it clockwise (for the top-left corner, the card's x axis),
the card's width, and whether it is one of the two that hold an index (the
top-left and bottom-right), so that the corner reader is asked only about
those.
A corner whose ``CORNER_BOX`` is less than ``SEEN`` visible is no target; one
between ``HIDDEN`` and ``SEEN`` is neither target nor background (no detector
can be asked to say either way), nor is a face-down card's: at a corner a back
cut by its white margin looks as a face does (``MODEL_CARD.md``).

>>> from models.decks import Deck
>>> face = np.full((350, 250, 4), 255, np.uint8)
>>> synth = SceneSynth([Deck("plain", {"AS": face}, None)], seed=1)
>>> image, targets, unsure = synth.draw(160)
>>> image.shape, targets.shape[1], unsure.shape[1]
((160, 160, 3), 5, 3)
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from models.data import CH, CW, FacePyramid, Textures, _composite, _draw_chips, _photometric
from models.decks import Deck

CORNER_BOX = (6.0, 6.0, 46.0, 46.0)
"""Card units, from the corner: the part of the card whose visible share decides a target (inside
the rounding of the corner itself, which no deck leaves square)."""
SEEN = 0.85
HIDDEN = 0.5
GIMP_PATTERNS = Path("/usr/share/gimp/2.0/patterns")
"""gimp-data's photographic patterns (wood, stone, paper, fabric, leather)."""
MAX_TILT = 35.0
"""Degrees from vertical: the most oblique camera the scenes show."""

_BOX_GRID = np.array([[x, y, 1.0] for x in np.linspace(CORNER_BOX[0], CORNER_BOX[2], 5)
                      for y in np.linspace(CORNER_BOX[1], CORNER_BOX[3], 5)]).T
AS_TOP_LEFT = (
    np.eye(3),
    np.array([[0.0, -1.0, CW], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    np.array([[-1.0, 0.0, CW], [0.0, -1.0, CH], [0.0, 0.0, 1.0]]),
    np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, CH], [0.0, 0.0, 1.0]]),
)
"""Card units with each corner in turn (top-left, top-right, bottom-right, bottom-left) as the origin
and the edge leaving it clockwise as the x axis -> the card's own units."""
INDEX_CORNERS = (0, 2)
"""Of ``AS_TOP_LEFT``, the corners a deck prints its index at (top-left, bottom-right)."""
T = TypeVar("T")


def read_gimp_pattern(path: Path) -> np.ndarray | None:
    """A GIMP ``.pat`` file as BGR (its header, then raw grey, grey-alpha, RGB or RGBA rows); None if
    it is no such file."""
    data = path.read_bytes()
    if len(data) < 24:
        return None
    header, _version, width, height, depth = struct.unpack(">5I", data[:20])
    if data[20:24] != b"GPAT" or depth not in (1, 2, 3, 4) or header > len(data):
        return None
    pixels = np.frombuffer(data[header:header + width * height * depth], np.uint8)
    if pixels.size != width * height * depth:
        return None
    image = pixels.reshape(height, width, depth)
    if depth <= 2:
        return cv2.cvtColor(image[..., 0], cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(image[..., :3], cv2.COLOR_RGB2BGR)


def photo_textures() -> list[np.ndarray]:
    """The photographic patterns of the installed gimp-data at least 64 px square (none without it)."""
    found = []
    for path in sorted(GIMP_PATTERNS.glob("*/*.pat")):
        image = read_gimp_pattern(path)
        if image is not None and min(image.shape[:2]) >= 64 and image.std() > 4:
            found.append(image)
    return found


class Surfaces:
    """Table surfaces of every kind, each drawn fresh at the size asked for."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.procedural = Textures(rng, count=18)
        self.photos = photo_textures()

    def draw(self, n: int) -> np.ndarray:
        rng = self.rng
        kind = rng.random()
        if kind < 0.3:
            image = self._plain(n, light=rng.random() < 0.7)
        elif kind < 0.45:
            image = self._pattern(n)
        elif kind < 0.7 and self.photos:
            image = self._photo(n)
        else:
            image = cv2.resize(self.procedural.crop(rng, 384), (n, n), interpolation=cv2.INTER_LINEAR)
        if rng.random() < 0.15:   # glossy laminate: a broad soft sheen across it
            yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n
            a = rng.uniform(0, math.pi)
            band = np.exp(-((xx * math.cos(a) + yy * math.sin(a) - rng.uniform(0, 1)) ** 2) / rng.uniform(0.005, 0.05))
            image = (image + band[..., None] * rng.uniform(30, 110)).clip(0, 255).astype(np.uint8)
        return image

    def _plain(self, n: int, *, light: bool) -> np.ndarray:
        """A desk, a paper cloth or a dark cloth: one colour, a faint texture, a gradient."""
        rng = self.rng
        if light:   # light grey and white desks, the colour of the cards themselves
            level = rng.uniform(150, 250)
            colour = level + rng.normal(0, 6, 3)
        else:       # black and dark cloth, dark grey desks
            colour = rng.uniform(5, 70) + rng.normal(0, 8, 3)
        image = np.empty((n, n, 3), np.float32)
        image[:] = colour
        fine = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), rng.uniform(0.5, 2.0))
        coarse = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (n, n), interpolation=cv2.INTER_CUBIC)
        image += (fine * rng.uniform(1, 8) + coarse * rng.uniform(0, 10))[..., None]
        return image.clip(0, 255).astype(np.uint8)

    def _pattern(self, n: int) -> np.ndarray:
        """A patterned tablecloth: checks, stripes or dots in two or three colours."""
        rng = self.rng
        colours = rng.integers(0, 256, (3, 3)).astype(np.float32)
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        a = rng.uniform(0, math.pi)
        u, v = xx * math.cos(a) + yy * math.sin(a), -xx * math.sin(a) + yy * math.cos(a)
        period = rng.uniform(6, 60)
        kind = rng.integers(3)
        if kind == 0:      # gingham
            pick = ((u // period) % 2 + (v // period) % 2).astype(np.int64)
        elif kind == 1:    # stripes
            pick = ((u // period) % 3).astype(np.int64)
        else:              # dots
            pick = (((u % period) - period / 2) ** 2 + ((v % period) - period / 2) ** 2 < (period / 4) ** 2)
            pick = pick.astype(np.int64)
        image = colours[pick]
        return cv2.GaussianBlur(image, (0, 0), 0.7).clip(0, 255).astype(np.uint8)

    def _photo(self, n: int) -> np.ndarray:
        rng = self.rng
        tile = self.photos[int(rng.integers(len(self.photos)))]
        zoom = rng.uniform(0.5, 2.5)
        tile = cv2.resize(tile, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_LINEAR)
        reps = (n // tile.shape[0] + 2, n // tile.shape[1] + 2, 1)
        big = np.tile(tile, reps)
        y, x = rng.integers(0, tile.shape[0]), rng.integers(0, tile.shape[1])
        image = np.ascontiguousarray(np.rot90(big[y:y + n, x:x + n], int(rng.integers(4))))
        gains = rng.uniform(0.6, 1.3, 3)
        return (image * gains).clip(0, 255).astype(np.uint8)


def _turn(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _card_at(centre: np.ndarray, angle: float, width: float) -> np.ndarray:
    """Card units -> table px: an upright card ``width`` px wide, turned ``angle`` about its middle."""
    k = width / CW
    rot = _turn(angle) * k
    offset = centre - rot @ np.array([CW / 2, CH / 2])
    return np.array([[rot[0, 0], rot[0, 1], offset[0]], [rot[1, 0], rot[1, 1], offset[1]], [0, 0, 1.0]])


class SceneSynth:
    """Draws labelled scenes from a set of decks (see the module's docstring)."""

    def __init__(self, decks: list[Deck], seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.surfaces = Surfaces(self.rng)
        self.faces = [FacePyramid(f) for d in decks for f in d.faces.values()]
        self.backs = [FacePyramid(d.back) for d in decks if d.back is not None]

    def _layout(self, n: int, width: float) -> list[np.ndarray]:
        """Card placements (card units -> table px) as players lay them, in drawing order."""
        rng = self.rng
        placed: list[np.ndarray] = []
        groups = int(rng.integers(1, 5))
        for _ in range(groups):
            kind = rng.random()
            centre = rng.uniform(-0.1 * n, 1.1 * n, 2)
            angle = rng.uniform(0, 2 * math.pi)
            w = width * rng.uniform(0.92, 1.08)
            if kind < 0.3:   # scattered cards
                for _ in range(int(rng.integers(1, 6))):
                    at = centre + rng.normal(0, 1.2 * w, 2)
                    placed.append(_card_at(at, rng.uniform(0, 2 * math.pi), w))
            elif kind < 0.65:   # a row, overlapping or apart, sometimes two
                step = w * rng.uniform(0.18, 1.25)
                along = _turn(angle) @ np.array([1.0, 0.0])
                across = _turn(angle) @ np.array([0.0, 1.0])
                rows = 1 if rng.random() < 0.7 else 2
                count = int(rng.integers(2, 9))
                for r in range(rows):
                    for i in range(count):
                        at = centre + along * step * (i - count / 2) + across * r * w * rng.uniform(1.1, 1.6)
                        placed.append(_card_at(at + rng.normal(0, 0.03 * w, 2),
                                               angle + rng.normal(0, 0.05) + (math.pi if rng.random() < 0.15 else 0), w))
            elif kind < 0.85:   # a fan about a pivot below the cards
                count = int(rng.integers(3, 10))
                spread = rng.uniform(0.08, 0.3)
                radius = w * rng.uniform(1.0, 2.2)
                for i in range(count):
                    a = angle + spread * (i - count / 2)
                    at = centre + _turn(a) @ np.array([0.0, -radius * 0.5])
                    placed.append(_card_at(at, a, w))
            else:   # a pile, squared or messy
                for _ in range(int(rng.integers(2, 8))):
                    at = centre + rng.normal(0, 0.12 * w, 2)
                    placed.append(_card_at(at, angle + rng.normal(0, 0.4), w))
        return placed

    def _camera(self, n: int) -> np.ndarray:
        """Table px -> image px: the camera turned and tilted up to ``MAX_TILT`` from vertical."""
        rng = self.rng
        tilt = math.radians(rng.uniform(0, MAX_TILT)) if rng.random() < 0.6 else 0.0
        # The far edge of a table tilted by ``tilt`` looks this much narrower (a 60-degree lens).
        shrink = 1.0 - 0.9 * math.tan(tilt) * math.tan(math.radians(30))
        inset = (1 - shrink) * n / 2
        src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        dst = np.array([[inset, 0], [n - inset, 0], [n, n], [0, n]], np.float32)
        centre = n / 2
        a = rng.uniform(0, 2 * math.pi)
        dst = (dst - centre) @ _turn(a).T.astype(np.float32) + centre
        return cv2.getPerspectiveTransform(dst, src).astype(np.float64)

    def lay(self, n: int, width: float, pick: Callable[[], tuple[FacePyramid, T] | None], *, restyled: float = 0.0,
            strength: tuple[float, float] = (0.3, 1.2)) -> tuple[np.ndarray, np.ndarray, list[tuple[int, np.ndarray, T]]]:
        """An ``n`` x ``n`` table seen by a camera drawn here, cards ``width`` px wide laid on it as players
        lay them, each face from ``pick`` (the face and a tag; None: no more cards), a share ``restyled``
        printed differently; then hands and chips over them, a shadow and the camera's changes at a
        ``strength`` drawn in that range.  Returns the picture, which card (by laying order) shows at
        each pixel (-1 the table, -2 a hand or a chip), and each card's (order, card units -> picture
        px, tag)."""
        rng = self.rng
        camera = self._camera(n)
        table = self.surfaces.draw(n)
        canvas = cv2.warpPerspective(table, camera, (n, n), borderMode=cv2.BORDER_REFLECT)
        owner = np.full((n, n), -1, np.int32)
        cards: list[tuple[int, np.ndarray, T]] = []
        for i, placed in enumerate(self._layout(n, width)):
            picked = pick()
            if picked is None:
                break
            face, tag = picked
            h = camera @ placed
            alpha = _composite(canvas, face, h, rng, shadow=rng.random() < 0.8,
                               restyled=restyled > 0 and rng.random() < restyled)
            owner[alpha > 0.5] = i
            cards.append((i, h, tag))
        for _ in range(int(rng.integers(0, 3))):
            self._distractor(canvas, owner, width)
        canvas = self._shade(canvas)
        return _photometric(canvas, rng, strength=rng.uniform(*strength)), owner, cards

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """An ``n`` x ``n`` scene; its targets ``(k, 5)``: x, y (image px), the angle of the edge
        leaving the corner clockwise (radians), the card's width (px) and 1 for an index corner (0 for
        a plain one) at each visible corner of a face-up card; and its unsure corners ``(m, 3)``: x, y
        and width, to be left out of the loss."""
        rng = self.rng
        width = math.exp(rng.uniform(math.log(0.06 * n), math.log(0.8 * n)))

        def pick() -> tuple[FacePyramid, bool]:
            face_up = rng.random() > 0.12
            pool = self.faces if face_up or not self.backs else self.backs
            return pool[int(rng.integers(len(pool)))], face_up

        canvas, owner, cards = self.lay(n, width, pick, restyled=0.15)
        targets, unsure = [], []
        for i, h, face_up in cards:
            for k, ((x, y, angle, w), seen) in enumerate(corner_views(h, owner, i)):
                if not (0 <= x < n and 0 <= y < n):
                    continue
                if face_up and seen >= SEEN and w >= 10:
                    targets.append((x, y, angle, w, float(k in INDEX_CORNERS)))
                elif seen > HIDDEN:
                    unsure.append((x, y, w))
        return (canvas, np.array(targets, np.float32).reshape(-1, 5), np.array(unsure, np.float32).reshape(-1, 3))

    def _distractor(self, canvas: np.ndarray, owner: np.ndarray, width: float) -> None:
        """A hand, a chip stack or a restyled card face half turned: something over the cards."""
        rng = self.rng
        n = canvas.shape[0]
        mask = np.zeros((n, n), np.uint8)
        if rng.random() < 0.5:
            tone = np.array([120, 160, 215]) * rng.uniform(0.4, 1.15) + rng.normal(0, 12, 3)
            colour = tuple(int(v) for v in tone.clip(0, 255))
            c = rng.uniform(0, n, 2)
            for _ in range(int(rng.integers(1, 4))):
                at = tuple(int(v) for v in c + rng.normal(0, 0.5 * width, 2))
                axes = (int(width * rng.uniform(0.15, 0.5)) + 1, int(width * rng.uniform(0.4, 1.2)) + 1)
                ang = float(rng.uniform(0, 180))
                cv2.ellipse(canvas, at, axes, ang, 0, 360, colour, -1, cv2.LINE_AA)
                cv2.ellipse(mask, at, axes, ang, 0, 360, 255, -1)
        else:
            mask = (_draw_chips(canvas, rng, radius=(0.1 * width, 0.3 * width)) > 0.5).astype(np.uint8)
        owner[mask > 0] = -2

    def _shade(self, canvas: np.ndarray) -> np.ndarray:
        """The soft shadow of a head or an arm across the table, sometimes."""
        rng = self.rng
        if rng.random() > 0.3:
            return canvas
        n = canvas.shape[0]
        mask: np.ndarray = np.zeros((n, n), np.float32)
        c = tuple(int(v) for v in rng.uniform(0, n, 2))
        axes = (int(rng.uniform(0.1, 0.5) * n), int(rng.uniform(0.1, 0.6) * n))
        cv2.ellipse(mask, c, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(0.02, 0.1) * n)
        dark = 1 - mask * rng.uniform(0.2, 0.6)
        return (canvas * dark[..., None]).clip(0, 255).astype(np.uint8)


def corner_pose(card_to_image: np.ndarray) -> tuple[float, float, float, float]:
    """Where card point (0, 0) lands, the card's x-axis angle there and its width (px) at that scale."""
    k = np.array([0.0, 0.0, 1.0])
    pts = card_to_image @ np.stack([k, k + [1, 0, 0], k + [0, 1, 0]], axis=1)
    pts = pts[:2] / pts[2]
    p, ux, uy = pts[:, 0], pts[:, 1] - pts[:, 0], pts[:, 2] - pts[:, 0]
    scale = math.sqrt(abs(ux[0] * uy[1] - ux[1] * uy[0]))
    return float(p[0]), float(p[1]), math.atan2(ux[1], ux[0]), scale * CW


def corner_views(card_to_image: np.ndarray, owner: np.ndarray,
                 index: int) -> list[tuple[tuple[float, float, float, float], float]]:
    """Each of a card's four corners (top-left, top-right, bottom-right, bottom-left; ``INDEX_CORNERS``
    hold its index), taken as the card's top-left one: its pose (:func:`corner_pose`) and the share of
    its ``CORNER_BOX`` that shows where ``owner`` holds the card ``index``."""
    return [(corner_pose(card_to_image @ turn), _seen(card_to_image @ turn, owner, index)) for turn in AS_TOP_LEFT]


def _seen(card_to_image: np.ndarray, owner: np.ndarray, index: int) -> float:
    """The share of the corner's box that shows: inside the picture and not covered."""
    pts = card_to_image @ _BOX_GRID
    x, y = pts[0] / pts[2], pts[1] / pts[2]
    n = owner.shape[0]
    inside = (x >= 0) & (x < n) & (y >= 0) & (y < n)
    xi, yi = np.clip(x.astype(np.int64), 0, n - 1), np.clip(y.astype(np.int64), 0, n - 1)
    return float(np.mean(inside & (owner[yi, xi] == index)))

