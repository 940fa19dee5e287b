"""Decks whose indices are set in the machine's fonts: how the corner reader reads an index it never saw.

The Debian decks print their indices in a few dozen glyph shapes, most of
them large; a player's deck brings its own, and some print a small one. A
font deck is a plain white card whose rank is set in a system font (DejaVu
and Liberation: sans, serif, mono, condensed, bold, italic, light), at a
size from a small index to a jumbo one, inset by a little or a lot, its
suit below or beside it in one of several fonts' shapes, filled or in
outline, in two colours or four, with pips or a framed court in the middle.
``python -m models.evaluate`` reads them band by band of the rank's height
(``BANDS``): what a deck's index size does to the reader, apart from its
design.

>>> decks = font_decks(2, seed=1)
>>> [len(d.faces) for d in decks], decks[0].faces["TS"].shape[2]
([52, 52], 4)
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from companion.rules.cards import ALL_CODES
from models.decks import FACE_HEIGHT, Deck
from vision.classifier import CORNER_BOX

if TYPE_CHECKING:  # Pillow comes with the test and training extras
    from PIL import Image, ImageFont

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
"""fonts-dejavu-core and fonts-liberation (Debian); their ``.ttf`` files set the ranks."""
SUIT_FONT = FONT_DIRS[0] / "DejaVuSans.ttf"
"""The font that draws the middle's pips, and the index's suit where no other font draws it."""
SUIT_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif.ttf", "DejaVuMathTeXGyre.ttf",
              "LiberationSans-Regular.ttf", "LiberationSerif-Bold.ttf")
"""Fonts whose suit symbols differ in shape: the index's suit is set in one of them."""
SUITS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
HOLLOW_SUITS = {"C": "\u2667", "D": "\u2662", "H": "\u2661", "S": "\u2664"}
"""The same suits drawn in outline, as some decks print them (DejaVu's fonts have them)."""
FOUR_COLOURS = {"C": (20, 120, 40, 255), "D": (20, 70, 190, 255)}
"""RGBA: a four-colour deck's green clubs and blue diamonds."""
BANDS = ((20.0, 26.0), (26.0, 32.0), (32.0, 38.0), (38.0, 44.0), (44.0, 50.0))
"""The rank glyph's height, card units (of 350; 4 a millimetre on a poker card): a small index (5 to
6.5 mm) up to a jumbo one (11 to 12.5 mm)."""


def fonts() -> list[Path]:
    """Every font that sets the ranks (not DejaVu's maths font, which is for formulae)."""
    return sorted(p for d in FONT_DIRS if d.is_dir() for p in d.glob("*.ttf") if "Math" not in p.name)


def font_decks(count: int, *, seed: int, rank_height: tuple[float, float] = (BANDS[0][0], BANDS[-1][1])) -> list[Deck]:
    """``count`` decks, each in a font and an index layout drawn at random, the rank ``rank_height`` card
    units tall (none if no font is installed)."""
    found = fonts()
    if not found or not SUIT_FONT.is_file():
        return []
    rng = np.random.default_rng(seed)
    return [_deck(found[int(rng.integers(len(found)))], rng, f"font-{seed}-{i}", rank_height) for i in range(count)]


def _deck(font: Path, rng: np.random.Generator, name: str, rank_height: tuple[float, float]) -> Deck:
    import cv2
    from PIL import Image, ImageDraw, ImageFont

    height = FACE_HEIGHT
    width = round(height * 250 / 350)
    unit = width / 250
    rank_px = rng.uniform(*rank_height) * unit
    inset = rng.uniform(5, 14, 2) * unit
    beside = rng.random() < 0.15
    squeeze_ten = rng.random() < 0.5
    red = (int(rng.uniform(150, 230)), int(rng.uniform(0, 40)), int(rng.uniform(0, 50)), 255)
    black = tuple(int(v) for v in rng.uniform(0, 40, 3)) + (255,)
    colours = {"C": black, "D": red, "H": red, "S": black}
    if rng.random() < 0.1:
        colours.update(FOUR_COLOURS)
    suit_fonts = [p for name in SUIT_FONTS for p in (FONT_DIRS[0] / name, FONT_DIRS[1] / name) if p.is_file()]
    suit_file = suit_fonts[int(rng.integers(len(suit_fonts)))]
    symbols = HOLLOW_SUITS if "DejaVu" in suit_file.name and rng.random() < 0.25 else SUITS
    paper = tuple(int(v) for v in rng.uniform(238, 255, 3)) + (255,)
    rank_font = ImageFont.truetype(str(font), size=max(8, int(rank_px * 1.35)))
    suit_font = ImageFont.truetype(str(suit_file), size=max(6, int(rank_px * 1.35 * rng.uniform(0.55, 1.0))))
    corner = int(rng.uniform(6, 16) * unit)
    faces = {}
    for code in ALL_CODES:
        if code == "JK":
            continue
        rank, suit = code[0], code[1]
        ink = colours[suit]
        card = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        ImageDraw.Draw(card).rounded_rectangle((0, 0, width - 1, height - 1), radius=corner, fill=paper,
                                               outline=(120, 120, 120, 255), width=2)
        card.alpha_composite(_middle(rank, suit, ink, width, height))
        index = Image.new("RGBA", (width, height), (0, 0, 0, 0))
        draw = ImageDraw.Draw(index)
        text = "10" if rank == "T" else rank
        box = draw.textbbox((0, 0), text, font=rank_font)
        tw, th = round(box[2] - box[0]), round(box[3] - box[1])
        if text == "10" and squeeze_ten:  # many decks set a narrow "10" to keep the index narrow
            glyphs = Image.new("RGBA", (tw + 4, th + 4), (0, 0, 0, 0))
            ImageDraw.Draw(glyphs).text((2 - box[0], 2 - box[1]), text, font=rank_font, fill=ink)
            tw = max(1, int(tw * 0.7))
            index.alpha_composite(glyphs.resize((tw, th + 4)), (int(inset[0]), int(inset[1])))
        else:
            draw.text((inset[0] - box[0], inset[1] - box[1]), text, font=rank_font, fill=ink)
        sbox = draw.textbbox((0, 0), symbols[suit], font=suit_font)
        sw, sh = sbox[2] - sbox[0], sbox[3] - sbox[1]
        if beside:
            at = (inset[0] + tw + 2 * unit, inset[1] + (th - sh) / 2)
        else:
            at = (inset[0] + (tw - sw) / 2, inset[1] + th + rng.uniform(2, 6) * unit)
        draw.text((at[0] - sbox[0], at[1] - sbox[1]), symbols[suit], font=suit_font, fill=ink)
        index = _within_box(index, unit)
        card.alpha_composite(index)
        card.alpha_composite(index.rotate(180))
        faces[code] = cv2.cvtColor(np.asarray(card), cv2.COLOR_RGBA2BGRA)
    return Deck(name, faces, None)


def _within_box(index: Image.Image, unit: float) -> Image.Image:
    """The index shrunk about its top-left where it reaches beyond ``CORNER_BOX`` (a wide "10" with its
    suit beside it): the corner reader is told that what lies in the box names the card."""
    from PIL import Image

    left, top, right, bottom = index.getbbox() or (0, 0, 1, 1)
    fit = min(1.0, (CORNER_BOX[2] - 3) * unit / right, (CORNER_BOX[3] - 3) * unit / bottom)
    if fit >= 1.0:
        return index
    part = index.crop((left, top, right, bottom))
    part = part.resize((max(1, int(part.width * fit)), max(1, int(part.height * fit))), Image.Resampling.LANCZOS)
    out = Image.new("RGBA", index.size, (0, 0, 0, 0))
    out.alpha_composite(part, (int(left * fit), int(top * fit)))
    return out


@functools.cache
def _pip_font(size: int) -> ImageFont.FreeTypeFont:
    """``SUIT_FONT`` at ``size`` px, loaded once: a deck sets its pips at three sizes, on every face."""
    from PIL import ImageFont

    return ImageFont.truetype(str(SUIT_FONT), size=size)


def _middle(rank: str, suit: str, ink: tuple[int, ...], width: int, height: int) -> Image.Image:
    """The middle of the face: pips in two columns, one large pip for an ace, a framed pip for a court."""
    from PIL import Image, ImageDraw

    layer = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)

    def pip(cx: float, cy: float, size: float) -> None:
        face = _pip_font(max(6, int(size)))
        box = draw.textbbox((0, 0), SUITS[suit], font=face)
        draw.text((cx - (box[0] + box[2]) / 2, cy - (box[1] + box[3]) / 2), SUITS[suit], font=face, fill=ink)

    if rank in "JQK":
        draw.rectangle((width * 0.25, height * 0.22, width * 0.75, height * 0.78), outline=ink, width=3)
        pip(width / 2, height / 2, height * 0.25)
    elif rank == "A":
        pip(width / 2, height / 2, height * 0.3)
    else:
        n = 10 if rank == "T" else int(rank)
        columns = 1 if n <= 3 else 2
        rows = math.ceil(n / columns)
        for i in range(n):
            cx = width * (0.5 if columns == 1 else (0.34 if i % columns == 0 else 0.66))
            cy = height * (0.25 + 0.5 * (i // columns + 0.5) / rows)
            pip(cx, cy, height * 0.1)
    return layer
