"""``scripts/eval_sources.py``: the leave-one-source-out choice, and a run over a tiny data folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vision.render import PlacedCard, render_scene

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import eval_sources


def test_a_source_is_judged_at_the_threshold_the_other_validation_folders_chose() -> None:
    good, poor = {"precision": 1.0, "recall": 1.0}, {"precision": 0.5, "recall": 0.5}
    figures = {
        "a": {"0.3": good, "0.5": poor},
        "b": {"0.3": poor, "0.5": good},
        "c/test": {"0.3": poor, "0.5": good},   # a test folder never chooses
    }
    chosen = eval_sources.leave_one_out(figures, ["0.3", "0.5"])
    assert {k: v["threshold"] for k, v in chosen.items()} == {"a": "0.5", "b": "0.3", "c/test": "0.3"}
    assert chosen["a"]["recall"] == 0.5


def test_a_run_reports_every_source_present(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2

    folder = tmp_path / "webcam-frames"
    folder.mkdir()
    frame, _ = render_scene([PlacedCard("QS", (300, 300), 0, 120)], size=(640, 480), background="felt")
    cv2.imwrite(str(folder / "a.png"), frame)
    (folder / "labels.csv").write_text("image,cards\na.png,QS\n")
    assert eval_sources.main(["--data", str(tmp_path), "--thresholds", "0.3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["figures"]["webcam-frames"]) == {"geometry", "0.3", "alone 0.3"}
    assert out["leave_one_out"]["webcam-frames"]["recall"] == out["leave_one_out_alone"]["webcam-frames"]["recall"] == 1.0
    assert eval_sources.main(["--data", str(tmp_path / "nothing")]) == 2
