"""``companion eval``: the docs/labels.md figures on a tiny labelled folder built in ``tmp_path``.

The recogniser here is a stand-in that reports fixed cards per image (told
apart by their colour), so the matching, the figures and the error handling
are checked exactly; the real recogniser is measured by running the command.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.app import cli
from vision import evaluate as ev
from vision.detection import Detection

SQUARE = np.array([[0, 0], [10, 0], [10, 14], [0, 14]], np.float32)

# colour (B value) -> what the stand-in reports
REPORTS = {10: ["AS", "KH"], 20: ["7C", "7S"], 30: [], 40: ["QD", "2C"]}


class FakeRecognizer:
    def detect(self, frame: np.ndarray) -> list[Detection]:
        return [Detection(code, 0.9, SQUARE) for code in REPORTS[int(frame[0, 0, 0])]]


def image(path: Path, colour: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), np.full((40, 60, 3), colour, np.uint8))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    image(tmp_path / "a.jpg", 10)
    image(tmp_path / "sub" / "b.PNG", 20)
    image(tmp_path / "empty.JPEG", 30)
    image(tmp_path / "c.png", 40)
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg at all")
    image(tmp_path / "unlisted.jpg", 10)
    (tmp_path / "labels.csv").write_text(
        "image,cards\n"
        "a.jpg,AS KH\n"
        "sub/b.PNG,7? 7H\n"          # one rank-only entry matches 7C or 7S, the 7H is missed
        "empty.JPEG,\n"
        "c.png,QD\n"                 # 2C is reported but not there
        "broken.jpg,2D\n"
        "x.jpg,ZZ\n"                 # malformed code
        "missing.jpg,3C\n"           # no such image
        "too,many,fields\n"
    )
    return tmp_path


def test_figures_and_problems(folder: Path) -> None:
    result = ev.evaluate(folder, FakeRecognizer())
    assert set(result) == {"images", "cards", "found", "false", "precision", "recall", "exact", "ms_per_image",
                           "misses", "errors"}
    assert result["images"] == 4
    assert result["cards"] == 5                       # AS KH, 7? 7H, QD
    assert (result["found"], result["false"]) == (4, 2)
    assert result["recall"] == pytest.approx(4 / 5, abs=1e-4)   # the 7H is missed
    assert result["precision"] == pytest.approx(4 / 6, abs=1e-4)  # one 7 and the 2C are extra
    assert result["exact"] == pytest.approx(2 / 4, abs=1e-4)
    assert set(result["ms_per_image"]) == {"median", "p90"}
    misses = {m["image"]: m for m in result["misses"]}
    assert misses["sub/b.PNG"]["missing"] == ["7H"] and len(misses["sub/b.PNG"]["extra"]) == 1
    assert misses["c.png"] == {"image": "c.png", "missing": [], "extra": ["2C"]}
    errors = {(Path(e["path"]).name, e["line"]) for e in result["errors"]}
    assert ("broken.jpg", 6) in errors            # unreadable image, with its labels line
    assert ("labels.csv", 7) in errors            # malformed card code
    assert ("missing.jpg", 8) in errors
    assert ("labels.csv", 9) in errors            # wrong number of fields
    assert ("unlisted.jpg", None) in errors


def test_matching_prefers_exact_codes() -> None:
    assert ev.match(["KH", "KS"], ["K?", "KS"]) == (2, [], [])
    assert ev.match(["KS", "KH"], ["K?", "KS"]) == (2, [], [])
    assert ev.match(["JK", "JK"], ["JK"]) == (1, [], ["JK"])
    assert ev.match([], ["A?"]) == (0, ["A?"], [])


def test_cli_json_and_summary(folder: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ev, "make_recognizer", lambda args: FakeRecognizer())
    assert cli.main(["eval", str(folder), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["images"] == 4
    assert "broken.jpg:6: unreadable image" in err
    assert "labels.csv:7:" in err
    assert cli.main(["eval", str(folder)]) == 0
    out, _ = capsys.readouterr()
    assert "4 images, 5 labelled cards" in out and "recall 0.800" in out


def test_unreadable_folder_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(ev, "make_recognizer", lambda args: FakeRecognizer())
    args = argparse.Namespace(folder=tmp_path / "nowhere", json=True, model=None, min_confidence=None)
    assert ev.run(args) == 2
    assert "not a folder" in capsys.readouterr().err
    assert ev.run(argparse.Namespace(folder=tmp_path, json=True, model=None, min_confidence=None)) == 2
    assert "no labels.csv" in capsys.readouterr().err
    (tmp_path / "labels.csv").write_text("file,codes\n")
    assert ev.run(argparse.Namespace(folder=tmp_path, json=True, model=None, min_confidence=None)) == 2
    assert "header" in capsys.readouterr().err


def test_label_entries() -> None:
    assert ev.parse_label("10h") == "TH"
    assert ev.parse_label("a?") == "A?"
    with pytest.raises(ValueError):
        ev.parse_label("1?")


SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "table-photos"


@pytest.mark.skipif(not (SHARED / "labels.csv").is_file(), reason="shared photos not present")
def test_shared_labels_parse() -> None:
    """The real table photos' labels read without a problem (the photos themselves are not run here)."""
    labels = ev.read_labels(SHARED)
    assert labels.problems == [] and len(labels.entries) >= 1


def test_the_face_reader_is_chosen_on_the_command_line(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--faces PATH`` and ``--no-faces`` pick what reads a card seen whole; a face model that is not
    one is refused with exit 2, naming it."""
    from vision.classifier import FaceReader

    parser = argparse.ArgumentParser()
    ev.add_arguments(parser)
    assert isinstance(ev.make_recognizer(parser.parse_args([str(folder)])).faces, FaceReader)
    assert ev.make_recognizer(parser.parse_args([str(folder), "--no-faces"])).faces is None
    with pytest.raises(SystemExit):
        parser.parse_args([str(folder), "--no-faces", "--faces", "x.onnx"])
    assert cli.main(["eval", str(folder), "--faces", str(folder / "absent.onnx")]) == 2
    assert "absent.onnx" in capsys.readouterr().err


def test_the_detector_alone_is_chosen_on_the_command_line(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--no-geometry`` leaves the learned corners alone to find the cards; with ``--no-detector`` too
    nothing would, which is refused with exit 2."""
    parser = argparse.ArgumentParser()
    ev.add_arguments(parser)
    assert ev.make_recognizer(parser.parse_args([str(folder)])).geometry
    assert not ev.make_recognizer(parser.parse_args([str(folder), "--no-geometry"])).geometry
    assert cli.main(["eval", str(folder), "--no-geometry", "--no-detector"]) == 2
    assert "leave nothing to find the cards" in capsys.readouterr().err


def test_images_reached_through_a_symbolic_link_are_read(folder: Path, tmp_path_factory: pytest.TempPathFactory,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A subfolder linked in, rather than copied, is read like any other."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    image(elsewhere / "d.png", 10)
    (folder / "linked").symlink_to(elsewhere, target_is_directory=True)
    with open(folder / "labels.csv", "a") as f:
        f.write("linked/d.png,AS KH\n")
    result = ev.evaluate(folder, FakeRecognizer())
    assert result["images"] == 5
    assert not any("linked/d.png" in e["path"] for e in result["errors"])


def test_labels_naming_no_readable_image_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing measured is an error in one line, never 'precision 1.000, recall 1.000' on no image."""
    monkeypatch.setattr(ev, "make_recognizer", lambda args: FakeRecognizer())
    (tmp_path / "labels.csv").write_text("image,cards\ngone.jpg,AS\n")
    assert cli.main(["eval", str(tmp_path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "names no readable image, so nothing was measured" in err and "gone.jpg" in err


def test_a_link_back_up_the_folder_is_walked_once(folder: Path) -> None:
    (folder / "sub" / "loop").symlink_to(folder, target_is_directory=True)
    assert ev.files_in(folder) >= {"a.jpg", "sub/b.PNG"}
    assert not any(p.startswith("sub/loop/sub/loop") for p in ev.files_in(folder))


def test_every_kind_of_image_opencv_reads_is_measured(tmp_path: Path) -> None:
    """A phone or a converter may save WebP, BMP or TIFF, or name a JPEG oddly: a file the labels name is
    read by its content; one OpenCV cannot read (an iPhone's HEIC) is a problem on its line, not a card."""
    image(tmp_path / "a.webp", 10)
    image(tmp_path / "b.BMP", 20)
    image(tmp_path / "c.tif", 30)
    image(tmp_path / "not-listed.webp", 30)
    cv2.imwrite(str(tmp_path / "d.jpg"), np.full((40, 60, 3), 40, np.uint8))
    (tmp_path / "d.jpg").rename(tmp_path / "d.photo")
    (tmp_path / "e.heic").write_bytes(b"\0\0\0\x18ftypheic" + bytes(64))
    folder = tmp_path / "photos"
    for name in ("a.webp", "b.BMP", "c.tif", "not-listed.webp", "d.photo", "e.heic"):
        (folder / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).rename(folder / name)
    image(tmp_path / "outside.jpg", 10)   # beside the folder, not in it: no file of the folder's
    (folder / "labels.csv").write_text("image,cards\na.webp,AS KH\nb.BMP,7C 7S\nc.tif,\nd.photo,QD 2C\n"
                                       "e.heic,5H\n../outside.jpg,AS\n")
    result = ev.evaluate(folder, FakeRecognizer())
    assert (result["images"], result["cards"], result["found"], result["false"]) == (4, 6, 6, 0)
    errors = {Path(e["path"]).name: e for e in result["errors"]}
    assert set(errors) == {"e.heic", "not-listed.webp", "outside.jpg"}
    assert "not a file in the folder" in errors["outside.jpg"]["error"]
    assert errors["e.heic"]["line"] == 6 and "unreadable image" in errors["e.heic"]["error"]
    assert "not listed" in errors["not-listed.webp"]["error"]
