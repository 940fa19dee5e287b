"""``companion markers``: a printable A4 sheet of the ArUco markers the seat zones follow.

The zones can follow a camera that is knocked (``vision.zones.MarkerAnchors``,
``DICT_4X4_50``): tape these markers to the table's edge where the camera sees
them. The sheet is an SVG of black squares, one per marker module, so it
prints sharp at any size; print it at 100 % ("actual size"), not "fit to page".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DICTIONARY = "DICT_4X4_50"
"""The dictionary ``vision.zones.MarkerAnchors`` reads by default."""
MODULES = 6
"""A 4x4 marker's side in modules: its 4 data bits and the black border round them."""
PAGE_MM = (210.0, 297.0)
MARGIN_MM = 15.0
GAP_MM = 12.0


class MarkerSheetError(ValueError):
    """A sheet that cannot be drawn: no markers, an id outside the dictionary, markers too big for the page."""


def marker_bits(marker_id: int) -> list[list[bool]]:
    """The marker's modules, row by row, True where black (border included)."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY))
    image = cv2.aruco.generateImageMarker(dictionary, marker_id, MODULES)
    return [[bool(v < 128) for v in row] for row in image]


def sheet_svg(ids: list[int], *, size_mm: float = 40.0) -> str:
    """An A4 page with each marker of ``ids``, ``size_mm`` wide, its id printed under it."""
    if not ids:
        raise MarkerSheetError("name at least one marker")
    if not 10 <= size_mm <= 180:
        raise MarkerSheetError(f"a marker's side is 10 to 180 mm, not {size_mm:g}")
    if any(not 0 <= i < 50 for i in ids):
        raise MarkerSheetError(f"{DICTIONARY} has markers 0 to 49, not {', '.join(str(i) for i in ids if not 0 <= i < 50)}")
    width, height = PAGE_MM
    per_row = int((width - 2 * MARGIN_MM + GAP_MM) // (size_mm + GAP_MM))
    rows = -(-len(ids) // max(per_row, 1))
    cell_h = size_mm + GAP_MM
    if per_row < 1 or MARGIN_MM * 2 + rows * cell_h - GAP_MM + 8 > height:
        raise MarkerSheetError(f"{len(ids)} markers of {size_mm:g} mm do not fit on one A4 page")
    module = size_mm / MODULES
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}mm" height="{height:g}mm" viewBox="0 0 {width:g} {height:g}">',
        f'<rect width="{width:g}" height="{height:g}" fill="#fff"/>',
        f'<text x="{MARGIN_MM:g}" y="{MARGIN_MM - 5:g}" font-family="sans-serif" font-size="4">'
        f"Table Companion: ArUco {DICTIONARY}, {size_mm:g} mm. Print at 100 %; tape flat where the camera sees them.</text>",
    ]
    for n, marker_id in enumerate(ids):
        x0 = MARGIN_MM + (n % per_row) * (size_mm + GAP_MM)
        y0 = MARGIN_MM + (n // per_row) * cell_h
        parts.append(f'<g class="marker" data-id="{marker_id}">')
        for r, row in enumerate(marker_bits(marker_id)):
            for c, black in enumerate(row):
                if black:
                    parts.append(f'<rect x="{x0 + c * module:.3f}" y="{y0 + r * module:.3f}" '
                                 f'width="{module:.3f}" height="{module:.3f}" fill="#000"/>')
        parts.append(f'<text x="{x0 + size_mm / 2:.3f}" y="{y0 + size_mm + 5:.3f}" font-family="sans-serif" '
                     f'font-size="4" text-anchor="middle">{marker_id}</text></g>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=Path("markers.svg"), help="the SVG to write (default markers.svg)")
    parser.add_argument("--count", type=int, default=4, help="markers 0 to COUNT-1 (default 4: one for each corner of the table)")
    parser.add_argument("--size-mm", type=float, default=40.0, help="each marker's side in millimetres (default 40)")


def run(args: argparse.Namespace) -> int:
    try:
        svg = sheet_svg(list(range(args.count)), size_mm=args.size_mm)
        args.out.write_text(svg, encoding="utf-8")
    except (MarkerSheetError, OSError) as exc:
        print(f"companion markers: {exc}", file=sys.stderr)
        return 2
    print(f"Wrote markers 0 to {args.count - 1} ({args.size_mm:g} mm, {DICTIONARY}) to {args.out}: print at 100 %")
    return 0
