"""``scripts/eval_validation.py``: which folders and changes make the validation figure, and a run over a
tiny data folder through the shipped models."""

from __future__ import annotations

import doctest
import json
import sys
from pathlib import Path

import cv2
import pytest

from vision.classifier import DEFAULT_MODEL
from vision.render import PlacedCard, render_scene

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import eval_validation


def _labelled(folder: Path, cards: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    rows = []
    for k, (name, code) in enumerate(cards.items()):
        frame, _ = render_scene([PlacedCard(code, (320, 240), 10, 120)], size=(640, 480), background="felt", seed=k)
        assert cv2.imwrite(str(folder / name), frame)
        rows.append(f"{name},{code}\n")
    (folder / "labels.csv").write_text("image,cards\n" + "".join(rows))


def test_every_validation_folder_is_read_as_taken_and_the_table_photos_under_every_change(tmp_path: Path) -> None:
    for source in ("table-photos", "webcam-frames", "card-crops/valid", "card-crops/test", "scene-photos/test"):
        (tmp_path / source).mkdir(parents=True)
        (tmp_path / source / "labels.csv").write_text("image,cards\n")
    jobs = eval_validation.jobs(tmp_path)
    assert jobs[:3] == [("table-photos", "as taken"), ("webcam-frames", "as taken"), ("card-crops/valid", "as taken")]
    assert [c for s, c in jobs if s == "table-photos"][1:] == [c for c in eval_validation.CONDITIONS if c != "as taken"]
    assert [c for s, c in jobs if s == "webcam-frames"][1:] == ["oblique", "blur", "motion", "dim"]
    assert [c for s, c in jobs if s == "card-crops/valid"] == ["as taken"]
    assert not any(s.endswith("/test") for s, _ in jobs)   # a test folder is read only after a choice


def test_the_f1_of_summed_counts_weighs_a_card_missed_as_a_card_made_up() -> None:
    assert eval_validation.f1(3, 2, 5) == pytest.approx(2 * 0.6 * 0.6 / 1.2)
    assert eval_validation.f1(0, 0, 0) == 1.0


def test_the_images_two_runs_read_otherwise_are_named_with_both_readings() -> None:
    old = {"misses": [{"image": "a.png", "missing": ["6H"], "extra": ["JS"]},
                      {"image": "b.png", "missing": ["K?"], "extra": []}]}
    new = {"misses": [{"image": "a.png", "missing": ["6H"], "extra": ["JS"]},
                      {"image": "c.png", "missing": [], "extra": ["4C", "4C"]}]}
    assert eval_validation.read_otherwise(old, new) == ["b.png: K? / - -> - / -", "c.png: - / - -> - / 4C 4C"]
    assert eval_validation.read_otherwise(new, new) == []
    result = doctest.testmod(eval_validation)
    assert result.attempted >= 1 and result.failed == 0


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no trained model (models/cards-int8.onnx)")
def test_a_run_sums_every_job_of_the_folders_present(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _labelled(tmp_path / "webcam-frames", {"a.png": "QS", "b.png": "7H"})
    assert eval_validation.main(["--data", str(tmp_path), "--workers", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["jobs"]) == ["webcam-frames|as taken", "webcam-frames|oblique", "webcam-frames|blur",
                                 "webcam-frames|motion", "webcam-frames|dim"]
    taken = out["jobs"]["webcam-frames|as taken"]
    assert (taken["images"], taken["cards"], taken["found"], taken["false"]) == (2, 2, 2, 0)
    assert out["cards"] == 10
    assert out["found"] == sum(j["found"] for j in out["jobs"].values())
    assert out["false"] == sum(j["false"] for j in out["jobs"].values())
    assert out["f1"] == round(eval_validation.f1(out["found"], out["false"], 10), 4)

    # Against an earlier run that missed the 7H as taken and made up a 2C: both figures, and the image.
    taken["misses"] = [m for m in taken["misses"] if m["image"] != "b.png"] + \
        [{"image": "b.png", "missing": ["7H"], "extra": ["2C"]}]
    taken["found"], taken["false"] = 1, 1
    (tmp_path / "old.json").write_text(json.dumps(out))
    assert eval_validation.main(["--data", str(tmp_path), "--against", str(tmp_path / "old.json")]) == 0
    text = capsys.readouterr().out
    assert "webcam-frames   as taken:    2 of    2 found,   0 false   (was    1,   1)" in text
    assert "  webcam-frames as taken b.png: 7H / 2C -> - / -" in text


def test_nothing_to_read_or_nothing_to_find_cards_with_is_refused(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert eval_validation.main(["--data", str(tmp_path)]) == 2
    assert "no labelled validation folder" in capsys.readouterr().err
    _labelled(tmp_path / "table-photos", {"a.png": "QS"})
    assert eval_validation.main(["--data", str(tmp_path), "--no-geometry", "--no-detector"]) == 2
    assert "leave nothing to find the cards" in capsys.readouterr().err
    for wrong in (["--workers", "0"], ["--json", "--against", str(tmp_path / "old.json")]):
        with pytest.raises(SystemExit):
            eval_validation.main(["--data", str(tmp_path), *wrong])
    (tmp_path / "old.json").write_text('{"jobs": {"table-photos|as taken": {"found": 1}}}')
    for against in (tmp_path / "old.json", tmp_path / "absent.json"):
        assert eval_validation.main(["--data", str(tmp_path), "--against", str(against)]) == 2
        assert "not an earlier run's --json output" in capsys.readouterr().err
