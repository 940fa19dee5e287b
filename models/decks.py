"""Card faces rasterised from Debian's SVG decks, cached as PNGs.

Two packages ship decks: gnome-cards-data (``/usr/share/aisleriot/cards``)
as sprite sheets of 13 columns (A, 2..10, J, Q, K) by 5 rows (clubs,
diamonds, hearts, spades, then black Joker, red Joker, back), and
kdegames-card-data-kf5 (``/usr/share/carddecks/svg-*``) as one drawing whose
element ids name each card (``king_club``, ``1_spade``, ``back``).  Both are
rasterised with cairosvg (pure Python over libcairo, so a dev machine needs no
extra Debian package) and cached under ``models/cache/faces/DECK/CODE.png``,
each face upright with its alpha channel, ``FACE_HEIGHT`` pixels tall.

Only decks with English indices (A K Q J 10) teach the corner reader: it
reads the index, and a French ``R D V`` or German ``K O U`` index would teach
it wrong labels.  The face reader reads pips and court figures, so it also
learns from ``FACE_ONLY_DECKS``.
"""

from __future__ import annotations

import copy
import gzip
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.rules.cards import ALL_CODES

CACHE = Path(__file__).resolve().parent / "cache" / "faces"
FACE_HEIGHT = 420
AISLERIOT = Path("/usr/share/aisleriot/cards")
CARDDECKS = Path("/usr/share/carddecks")

# English-index decks only (checked by eye on a contact sheet of every deck).
AISLERIOT_DECKS = (
    "anglo", "anglo_bitmap", "anglo_modern", "anglo_modern_4_color", "anglo_poker", "atlasnye",
    "bellot", "dondorf", "gnomangelo", "gnomangelo_bitmap", "neoclassical", "neoclassical_4_color",
    "orell", "ornamental", "paris", "plastic", "simplistic", "tango", "tango_nuevo", "tigullio",
)
KDE_DECKS = ("svg-standard", "svg-konqi-modern", "svg-penguins")
# Left out: svg-future (cairosvg draws too few of its faces); svg-oxygen, -oxygen-air and
# -oxygen-white (the rank is printed top right, the suit alone top left: not the index corner
# the model reads); svg-tigullio-international (its elements are not named by card);
# svg-xskat-* (French and German indices); svg-dondorf (the aisleriot sheet has it).
# svg-nicu-white, -nicu-ornamental, -jolly-royal, -ancient-egyptians and -gm-paris have English
# indices, but runs 9 and 10 trained with them read the table photos worse (MODEL_CARD.md).
FACE_ONLY_DECKS = (
    "svg-oxygen", "svg-oxygen-air", "svg-oxygen-white", "svg-nicu-white", "svg-nicu-ornamental",
    "svg-ancient-egyptians", "svg-gm-paris", "svg-xskat-french", "ancient_french", "guyenne-classic",
)
"""Decks the face reader learns from and the corner reader does not: a French index (R D V), the rank
printed top right only (oxygen), or corners that read the table photos worse.  Pips and court figures
name a card whatever its index says."""
HELD_OUT = ("tango", "plastic", "svg-penguins")
"""Whole deck designs kept out of training, to measure how the model reads a deck it never saw."""
SHEET_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SHEET_SUITS = ("C", "D", "H", "S")
KDE_RANKS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
KDE_SUITS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
SVG_NS = "http://www.w3.org/2000/svg"
XLINK = "{http://www.w3.org/1999/xlink}href"


@dataclass(frozen=True)
class Deck:
    """One cached deck: ``faces`` maps card codes to BGRA images; ``back`` may be None."""

    name: str
    faces: dict[str, np.ndarray]
    back: np.ndarray | None


def _render(svg: bytes, width: int) -> np.ndarray:
    import cairosvg

    png = cairosvg.svg2png(bytestring=svg, output_width=width)
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ValueError("cairosvg returned no RGBA image")
    return image


def _trim(cell: np.ndarray) -> np.ndarray | None:
    """Crop a rendered cell to its opaque part, upright, ``FACE_HEIGHT`` tall."""
    ys, xs = np.nonzero(cell[..., 3] > 32)
    if len(xs) < 100:
        return None
    face = cell[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    h, w = face.shape[:2]
    if not 1.2 < h / w < 1.75:  # not a card-shaped cell (landscape art, an empty slot)
        return None
    return cv2.resize(face, (round(w * FACE_HEIGHT / h), FACE_HEIGHT), interpolation=cv2.INTER_AREA)


def _aisleriot(path: Path) -> dict[str, np.ndarray]:
    sheet = _render(gzip.decompress(path.read_bytes()) if path.suffix == ".svgz" else path.read_bytes(),
                    13 * 300)
    h, w = sheet.shape[:2]
    cw, ch = w / 13, h / 5
    faces: dict[str, np.ndarray] = {}

    def cell(col: int, row: int) -> np.ndarray | None:
        return _trim(sheet[round(row * ch): round((row + 1) * ch), round(col * cw): round((col + 1) * cw)])

    for row, suit in enumerate(SHEET_SUITS):
        for col, rank in enumerate(SHEET_RANKS):
            face = cell(col, row)
            if face is not None:
                faces[rank + suit] = face
    for col, name in ((0, "JK"), (1, "JK_red"), (2, "back")):
        face = cell(col, 4)
        if face is not None:
            faces[name] = face
    return faces


def _length_px(text: str) -> float:
    """An SVG length (``936``, ``1683.7795pt``, ``780mm``) in CSS pixels; 0 if unreadable."""
    match = re.fullmatch(r"\s*([0-9.]+)\s*(px|pt|mm|cm|in)?\s*", text or "")
    if not match:
        return 0.0
    return float(match.group(1)) * {"pt": 4 / 3, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}.get(
        match.group(2) or "px", 1.0)


def _kde_ids(code: str) -> tuple[str, ...]:
    if code == "JK":
        return ("black_joker", "joker", "red_joker")
    return (f"{KDE_RANKS.get(code[0], code[0])}_{KDE_SUITS[code[1]]}",)


def _kde(path: Path) -> dict[str, np.ndarray]:
    """Render each card alone: every other element moves into <defs>, where
    ``<use>`` references still find it but nothing draws it."""
    root = ET.fromstring(gzip.decompress(path.read_bytes()))
    parents = {child: parent for parent in root.iter() for child in parent}
    by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
    width = _length_px(root.get("width", "")) or 1000.0
    faces: dict[str, np.ndarray] = {}
    for code in ALL_CODES + ("back",):
        ids = ("back",) if code == "back" else _kde_ids(code)
        target = next((by_id[i] for i in ids if i in by_id), None)
        if target is None:
            continue
        keep = {target}
        node = target
        while node in parents:
            node = parents[node]
            keep.add(node)
        doc = copy.deepcopy(root)
        # Map the original tree onto the copy by walking both in step.
        mapping = dict(zip(root.iter(), doc.iter()))
        defs = ET.SubElement(mapping[root], f"{{{SVG_NS}}}defs")
        for original in keep - {target}:
            for child in list(original):
                tag = child.tag if isinstance(child.tag, str) else ""
                if child in keep or tag.endswith("defs") or tag.endswith("style"):
                    continue
                mapping[original].remove(mapping[child])
                defs.append(mapping[child])
        image = _render(ET.tostring(doc), int(width * 1.5))
        face = _trim(image)
        if face is not None:
            faces[code] = face
    return faces


def cache_deck(source: Path) -> Path:
    """Rasterise one deck into the cache (once) and return its folder."""
    name = source.stem if source.is_file() else source.name
    folder = CACHE / name
    if (folder / "done").exists():
        return folder
    faces = _aisleriot(source) if source.is_file() else _kde(next(source.glob("*.svg*")))
    folder.mkdir(parents=True, exist_ok=True)
    for code, face in faces.items():
        cv2.imwrite(str(folder / f"{code}.png"), face)
    (folder / "done").write_text(f"{len(faces)} faces from {source}\n")
    return folder


def deck_sources(*, faces: bool = False) -> list[Path]:
    """The installed English-index decks, aisleriot sheets first; with ``faces`` the ``FACE_ONLY_DECKS`` too."""
    names = AISLERIOT_DECKS + KDE_DECKS + (FACE_ONLY_DECKS if faces else ())
    found = [AISLERIOT / f"{n}.svgz" for n in names if (AISLERIOT / f"{n}.svgz").exists()]
    found += [CARDDECKS / n for n in names if (CARDDECKS / n).is_dir()]
    return found


def _read_png(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"{path}: not a readable image (remove {path.parent} to render the deck again)")
    return image


def load_deck(folder: Path) -> Deck:
    faces = {p.stem: _read_png(p) for p in folder.glob("*.png")}
    back = faces.pop("back", None)
    if "JK" not in faces and "JK_red" in faces:
        faces["JK"] = faces["JK_red"]
    faces.pop("JK_red", None)
    return Deck(folder.name, {c: f for c, f in faces.items() if c in ALL_CODES}, back)


def load_all(*, verbose: bool = True, faces: bool = False) -> list[Deck]:
    """Every installed English-index deck (with ``faces``, the face reader's decks), rasterising any not
    yet cached."""
    decks = []
    for source in deck_sources(faces=faces):
        if verbose:
            print(f"deck {source.name} ...", end=" ", flush=True, file=sys.stderr)
        try:
            deck = load_deck(cache_deck(source))
        except Exception as exc:  # a deck cairosvg cannot draw is skipped, not fatal
            if verbose:
                print(f"skipped ({exc})", file=sys.stderr)
            continue
        if verbose:
            print(f"{len(deck.faces)} faces", file=sys.stderr)
        if len(deck.faces) >= 40:
            decks.append(deck)
    return decks


if __name__ == "__main__":
    load_all()
