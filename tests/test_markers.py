"""``companion markers``: the printed sheet holds the markers the zones read (DICT_4X4_50), readable by OpenCV."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.app.cli import main
from vision.markers import MarkerSheetError, sheet_svg


def rasterise(svg: str, px_per_mm: float = 4.0) -> np.ndarray:
    """The sheet's black squares drawn on white, as a printer would (the text is left out)."""
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert box is not None
    width, height = (float(v) for v in box.groups())
    page = np.full((int(height * px_per_mm), int(width * px_per_mm)), 255, np.uint8)
    for x, y, w, h in re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#000"/>', svg):
        x0, y0 = round(float(x) * px_per_mm), round(float(y) * px_per_mm)
        page[y0:round((float(y) + float(h)) * px_per_mm), x0:round((float(x) + float(w)) * px_per_mm)] = 0
    return page


def test_the_sheet_prints_markers_opencv_reads_as_their_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "markers.svg"
    assert main(["markers", "--out", str(out), "--count", "6", "--size-mm", "45"]) == 0
    assert "print at 100 %" in capsys.readouterr().out
    svg = out.read_text()
    assert 'width="210mm" height="297mm"' in svg
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(rasterise(svg))
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3, 4, 5]
    side_px = np.linalg.norm(corners[0][0][0] - corners[0][0][1])
    assert side_px == pytest.approx(45 * 4, rel=0.03)  # printed at the size asked for


@pytest.mark.parametrize(("ids", "size", "says"), [([], 40, "at least one"), ([50], 40, "0 to 49"),
                                                  (list(range(40)), 40, "do not fit"), ([0], 0, "10 to 180 mm")])
def test_a_sheet_that_cannot_be_drawn_is_refused(ids: list[int], size: float, says: str) -> None:
    with pytest.raises(MarkerSheetError, match=says):
        sheet_svg(ids, size_mm=size)


def test_the_command_refuses_in_one_line_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "markers.svg"
    assert main(["markers", "--out", str(out), "--count", "0"]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not out.exists()
