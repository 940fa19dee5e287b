"""Draw the shipped sprite sheet ``vision/assets/cards.png`` from Debian's "Anglo" deck.

``python -m models.make_assets`` (needs gnome-cards-data and cairosvg, i.e.
the ``train`` extra).  The sheet holds the 53 faces and the back in
``vision.render.SHEET_ORDER``, ``SHEET_COLUMNS`` to a row, each cell
``CELL`` pixels with the card's rounded corners transparent.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from models.decks import AISLERIOT, cache_deck, load_deck
from vision.render import ASSET, SHEET_COLUMNS, SHEET_ORDER

CELL = (120, 168)  # (w, h): the card-unit aspect 250:350
DECK = "anglo"


def main() -> int:
    deck = load_deck(cache_deck(AISLERIOT / f"{DECK}.svgz"))
    faces = dict(deck.faces)
    if deck.back is None:
        raise SystemExit(f"deck {DECK} has no back")
    faces["back"] = deck.back
    cw, ch = CELL
    rows = math.ceil(len(SHEET_ORDER) / SHEET_COLUMNS)
    sheet = np.zeros((rows * ch, SHEET_COLUMNS * cw, 4), np.uint8)
    for i, name in enumerate(SHEET_ORDER):
        r, c = divmod(i, SHEET_COLUMNS)
        sheet[r * ch:(r + 1) * ch, c * cw:(c + 1) * cw] = cv2.resize(faces[name], CELL,
                                                                     interpolation=cv2.INTER_AREA)
    ASSET.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(ASSET), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {ASSET} ({ASSET.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
