"""Synthetic card-table pictures: card faces, table textures, whole scenes.

Tests, the demo's synthetic camera and CI draw their frames here, so nothing
needs a camera or a Debian card package: one deck's faces ship in the package
as a small sprite sheet (``vision/assets/cards.png``, the GPL "Anglo" deck of
gnome-cards-data, drawn by ``python -m models.make_assets``).

Coordinates are frame pixels, x right and y down.  A card's outline is its
four corners clockwise *starting at the card's own top-left corner* (where
its index is printed), so ``cv2.getPerspectiveTransform`` from the card-unit
corners ``(0,0), (250,0), (250,350), (0,350)`` to the outline is the card's
homography.  ``angle_deg`` turns a card counter-clockwise as seen on screen.

>>> frame, outlines = render_scene([PlacedCard("QS", (200, 150), 30, 100)], size=(400, 300))
>>> frame.shape, outlines[0].shape
((300, 400, 3), (4, 2))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.cards import ALL_CODES, Card

ASSET = Path(__file__).resolve().parent / "assets" / "cards.png"
SHEET_ORDER: tuple[str, ...] = ALL_CODES + ("back",)
"""The sprite sheet's cells, row by row, ``SHEET_COLUMNS`` to a row."""
SHEET_COLUMNS = 9
CARD_ASPECT = 350 / 250
STYLES = ("wood", "light_wood", "dark_wood", "felt", "blue_felt", "cloth")


@dataclass(frozen=True)
class PlacedCard:
    """A card lying on the table: its code, centre (px), turn (degrees, counter-clockwise),
    width (px) and whether its face shows."""

    code: str
    centre: tuple[float, float]
    angle_deg: float = 0.0
    width_px: float = 100.0
    face_up: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", str(Card.parse(self.code)))
        if not (isinstance(self.width_px, (int, float)) and 4 <= self.width_px <= 4000):
            raise ValueError(f"width_px must be between 4 and 4000 pixels, got {self.width_px!r}")
        x, y = self.centre
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(self.angle_deg)):
            raise ValueError(f"centre and angle must be finite, got {self.centre}, {self.angle_deg}")

    def outline(self) -> np.ndarray:
        """Corners (4, 2) float32, clockwise from the card's own top-left corner."""
        w = float(self.width_px)
        h = w * CARD_ASPECT
        corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        a = math.radians(self.angle_deg)
        # Counter-clockwise on screen with y pointing down.
        rot = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
        return (corners @ rot.T + np.asarray(self.centre, dtype=np.float64)).astype(np.float32)


@lru_cache(maxsize=1)
def _sheet() -> tuple[np.ndarray, int, int]:
    sheet = cv2.imread(str(ASSET), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        raise FileNotFoundError(f"card sprite sheet missing or not BGRA: {ASSET}")
    rows = math.ceil(len(SHEET_ORDER) / SHEET_COLUMNS)
    return sheet, sheet.shape[1] // SHEET_COLUMNS, sheet.shape[0] // rows


def _cell(name: str) -> np.ndarray:
    """The BGRA cell for a code or ``"back"`` (transparent outside the rounded corners)."""
    sheet, cw, ch = _sheet()
    i = SHEET_ORDER.index(name)
    r, c = divmod(i, SHEET_COLUMNS)
    return sheet[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw]


def card_face(code: str) -> np.ndarray:
    """The face of ``code`` (any form ``Card.parse`` reads), upright, BGR, on white corners.

    >>> card_face("10h").shape[2]
    3
    """
    cell = _cell(str(Card.parse(code)))
    alpha = cell[..., 3:].astype(np.float32) / 255
    return (cell[..., :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def card_back() -> np.ndarray:
    """The shipped deck's back, upright, BGR."""
    cell = _cell("back")
    alpha = cell[..., 3:].astype(np.float32) / 255
    return (cell[..., :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: int) -> np.ndarray:
    """Value noise in [0, 1]: random values on a coarse grid, smoothly enlarged."""
    h, w = shape
    coarse = rng.random((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def table_background(size: tuple[int, int], *, style: str = "wood", seed: int = 0) -> np.ndarray:
    """A procedural table top, ``size`` = (width, height), BGR.

    ``style`` is one of ``STYLES``: wood grains run along x with darker
    and lighter streaks; felt and cloth are an even colour with fine fibres.
    Each (size, style, seed) is drawn once and then copied, so a synthetic
    camera can redraw its scene every frame cheaply.
    """
    return _background(tuple(size), style, seed).copy()


@lru_cache(maxsize=16)
def _background(size: tuple[int, int], style: str, seed: int) -> np.ndarray:
    w, h = size
    if not (isinstance(w, int) and isinstance(h, int) and 1 <= w <= 10000 and 1 <= h <= 10000):
        raise ValueError(f"size must be (width, height) in pixels, got {size!r}")
    if style not in STYLES:
        raise ValueError(f"unknown table style {style!r}; choose one of {', '.join(STYLES)}")
    rng = np.random.default_rng(seed)
    if style.endswith("wood"):
        base = {"wood": (95, 140, 185), "light_wood": (140, 185, 215), "dark_wood": (40, 65, 100)}[style]
        warp = _smooth_noise(rng, (h, w), 90) * 25
        y = np.arange(h, dtype=np.float32)[:, None] + warp
        period = rng.uniform(9, 16)
        grain = 0.5 + 0.5 * np.sin(2 * np.pi * y / period + 3 * _smooth_noise(rng, (h, w), 200))
        fibre = cv2.resize(rng.random((h, max(2, w // 40))).astype(np.float32), (w, h))
        shade = 0.80 + 0.12 * grain + 0.08 * fibre + 0.12 * (_smooth_noise(rng, (h, w), 160) - 0.5)
        image = np.asarray(base, np.float32)[None, None, :] * shade[..., None]
    else:
        base = {"felt": (60, 110, 30), "blue_felt": (110, 60, 25), "cloth": (170, 175, 180)}[style]
        fibre = rng.normal(0, 1, (h, w)).astype(np.float32)
        fibre = cv2.GaussianBlur(fibre, (0, 0), 0.8) * 0.06
        shade = 1.0 + fibre + 0.10 * (_smooth_noise(rng, (h, w), 250) - 0.5)
        image = np.asarray(base, np.float32)[None, None, :] * shade[..., None]
    return image.clip(0, 255).astype(np.uint8)


def _draw_card(frame: np.ndarray, image: np.ndarray, alpha: np.ndarray, outline: np.ndarray) -> None:
    """Composite one BGRA-derived card image onto the frame inside its outline's bounding box."""
    fh, fw = frame.shape[:2]
    x0, y0 = np.floor(outline.min(axis=0)).astype(int) - 3
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 4
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, fw), min(y1, fh)
    if x0 >= x1 or y0 >= y1:
        return
    ih, iw = image.shape[:2]
    src = np.array([[0, 0], [iw, 0], [iw, ih]], np.float32)
    m: np.ndarray = cv2.getAffineTransform(src, (outline[:3] - [x0, y0]).astype(np.float32))  # float64
    # Pixel-centre convention: image pixel i covers [i, i+1).
    m[:, 2] += m[:, :2] @ [0.5, 0.5] - 0.5
    size = (x1 - x0, y1 - y0)
    scale = math.hypot(*m[:, 0])
    interp = cv2.INTER_AREA if scale < 0.8 else cv2.INTER_LINEAR
    if scale < 0.8:  # shrink in one step first so the affine warp does not alias
        k = max(scale, 1e-3)
        small = cv2.resize(np.dstack([image, alpha]), None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        m = m @ np.array([[1 / k, 0, 0.5 / k - 0.5], [0, 1 / k, 0.5 / k - 0.5], [0, 0, 1]])
        image, alpha = small[..., :3], small[..., 3]
        interp = cv2.INTER_LINEAR
    warped = cv2.warpAffine(image, m, size, flags=interp, borderMode=cv2.BORDER_CONSTANT)
    a = cv2.warpAffine(alpha, m, size, flags=interp, borderMode=cv2.BORDER_CONSTANT)
    roi = frame[y0:y1, x0:x1]
    # A soft shadow a few pixels down-right, then the card over it (cv2 blends: fast).
    shadow = cv2.GaussianBlur(a, (0, 0), 2.0)
    shadow = np.roll(shadow, (2, 2), axis=(0, 1))
    darken = 1.0 - shadow.astype(np.float32) * (0.35 / 255)
    shaded = cv2.blendLinear(roi, np.zeros_like(roi), darken, 1.0 - darken)
    weight = a.astype(np.float32) * (1 / 255)
    roi[:] = cv2.blendLinear(warped, shaded, weight, 1.0 - weight)


def render_scene(cards: Sequence[PlacedCard], *, size: tuple[int, int] = (1280, 720),
                 background: np.ndarray | str | None = None, seed: int = 0, noise: float = 0.0,
                 blur: float = 0.0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Draw ``cards`` in order (later on top) onto a table; return the BGR frame and outlines.

    ``background`` is a BGR image of ``size``, a ``STYLES`` name, or None for
    light wood.  ``noise`` is the standard deviation of Gaussian sensor noise
    in grey levels and ``blur`` a Gaussian blur sigma in pixels; both are
    seeded by ``seed`` so a scene is reproducible.
    """
    w, h = size
    if background is None or isinstance(background, str):
        frame = table_background(size, style=background or "wood", seed=seed)
    else:
        if not (isinstance(background, np.ndarray) and background.shape == (h, w, 3)
                and background.dtype == np.uint8):
            raise ValueError(f"background must be a ({h}, {w}, 3) uint8 image or a style name")
        frame = background.copy()
    if noise < 0 or blur < 0:
        raise ValueError(f"noise and blur must be >= 0, got {noise}, {blur}")
    outlines = []
    for card in cards:
        if not isinstance(card, PlacedCard):
            raise TypeError(f"expected PlacedCard, got {type(card).__name__}")
        cell = _cell(card.code if card.face_up else "back")
        outline = card.outline()
        _draw_card(frame, cell[..., :3], cell[..., 3], outline)
        outlines.append(outline)
    if blur > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
    if noise > 0:
        # A slice of one cached noise field, shifted by the seed: drawing fresh
        # Gaussian noise for every frame would cost more than the whole scene.
        field = _noise_field(h, w)
        dy, dx = divmod(seed % (_NOISE_PAD * _NOISE_PAD), _NOISE_PAD)
        grain = field[dy:dy + h, dx:dx + w]
        frame = cv2.addWeighted(frame, 1.0, grain, noise / _NOISE_SCALE, 0.0, dtype=cv2.CV_8U)
    return frame, outlines


_NOISE_PAD = 64
_NOISE_SCALE = 16.0


@lru_cache(maxsize=4)
def _noise_field(h: int, w: int) -> np.ndarray:
    """Gaussian noise of standard deviation ``_NOISE_SCALE``, a little larger than the frame."""
    rng = np.random.default_rng(12345)
    field = rng.normal(0, _NOISE_SCALE, (h + _NOISE_PAD, w + _NOISE_PAD, 3))
    return field.clip(-127, 127).astype(np.int16)


def draw_hand(frame: np.ndarray, at: tuple[float, float], *, size: float = 160.0) -> np.ndarray:
    """Draw a hand reaching in from the bottom edge, palm centred on ``at``; ``size`` is the palm width.

    Draws in place (and returns ``frame``) so a tracker test can cover cards
    for a few frames and see the tracker hold its state.
    """
    if not (isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.dtype == np.uint8):
        raise ValueError("frame must be a (height, width, 3) uint8 image")
    if size <= 0:
        raise ValueError(f"size must be positive, got {size}")
    h = frame.shape[0]
    x, y = float(at[0]), float(at[1])
    skin, shade = (120, 160, 215), (95, 130, 185)
    s = size
    arm_w = int(round(s * 0.7))
    cv2.line(frame, (int(x), int(y + s * 0.4)), (int(x + s * 0.3), int(h + s)), shade, arm_w, cv2.LINE_AA)
    cv2.ellipse(frame, (int(x), int(y)), (int(s / 2), int(s * 0.6)), 0, 0, 360, skin, -1, cv2.LINE_AA)
    for i, (dx, length) in enumerate(((-0.38, 0.55), (-0.13, 0.7), (0.12, 0.68), (0.35, 0.55))):
        fx = int(x + dx * s)
        cv2.ellipse(frame, (fx, int(y - s * 0.55)), (int(s * 0.1), int(s * length / 2)), 0, 0, 360,
                    skin if i % 2 else shade, -1, cv2.LINE_AA)
    cv2.ellipse(frame, (int(x - s * 0.55), int(y + s * 0.05)), (int(s * 0.28), int(s * 0.1)), -35,
                0, 360, skin, -1, cv2.LINE_AA)
    return frame
