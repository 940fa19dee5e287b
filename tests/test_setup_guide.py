"""docs/setup.md: every picture it shows is there and small, and its marker sheet is what ``companion markers`` prints."""

from __future__ import annotations

import re
from pathlib import Path

from vision.markers import sheet_svg

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_picture_of_the_guide_is_there_and_small() -> None:
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", (DOCS / "setup.md").read_text())
    assert len(pictures) >= 8
    for picture in pictures:
        path = DOCS / picture
        assert path.is_file(), picture
        assert path.stat().st_size < 200_000, picture


def test_the_guides_marker_sheet_is_the_commands_default() -> None:
    assert (DOCS / "images" / "markers.svg").read_text() == sheet_svg([0, 1, 2, 3], size_mm=40.0)
