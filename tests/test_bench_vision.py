"""``scripts/bench_vision.py`` runs, and ``--against`` keeps each checkout's modules apart (no timing is judged)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_vision  # noqa: E402


def test_against_another_checkout_times_both_and_leaves_this_ones_modules(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    for package in ("vision", "companion"):
        shutil.copytree(ROOT / package, other / package, ignore=shutil.ignore_patterns("__pycache__"))
    # The other checkout's recogniser proposes nothing: its figures must be its own.
    recognizer = other / "vision" / "recognizer.py"
    recognizer.write_text(recognizer.read_text().replace(
        "    def propose(self, frame_bgr: np.ndarray) -> list[np.ndarray]:",
        "    def propose(self, frame_bgr: np.ndarray) -> list[np.ndarray]:\n        return []\n\n"
        "    def _propose_here(self, frame_bgr: np.ndarray) -> list[np.ndarray]:"))
    assert "_propose_here" in recognizer.read_text()
    before = sys.modules.get("vision.recognizer")
    assert bench_vision.main(["--frames", "2", "--proposals-only", "--against", str(other), "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert results["5_cards"]["mean_found"] > 0 and results["5_cards_against"]["mean_found"] == 0
    assert "saving_pct" in results["5_cards_against"] and "saving_pct" not in results["5_cards"]
    assert not any(str(other) in str(getattr(m, "__file__", "")) for m in list(sys.modules.values()))
    if before is not None:
        assert sys.modules["vision.recognizer"] is before
    # The copy has no models/cards-int8.onnx: a clear refusal, whichever checkout lacks it.
    assert bench_vision.main(["--frames", "1", "--against", str(other)]) == 2
    assert "no card model" in capsys.readouterr().err


def test_refuses_what_it_cannot_measure(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        bench_vision.main(["--against", str(tmp_path)])
    with pytest.raises(SystemExit):
        bench_vision.main(["--best-of", "0"])


def test_stages_split_a_frames_time_and_leave_the_recogniser_as_it_was() -> None:
    from vision.classifier import DEFAULT_MODEL
    from vision.recognizer import Recognizer

    if not DEFAULT_MODEL.is_file():
        pytest.skip("no trained model (models/cards-int8.onnx)")
    recognizer = Recognizer()
    assert recognizer.detector is not None and recognizer.faces is not None
    stages = bench_vision._stages(recognizer, [bench_vision.scene(5, 1)])
    assert set(stages) == {"proposals", "detector", "corner reader", "face reader", "rest", "patches"}
    assert all(ms >= 0 for ms in stages.values()) and stages["patches"] > 0 and stages["detector"] > 0
    assert "_hypotheses" not in vars(recognizer) and "find" not in vars(recognizer.detector)
    assert "classify" not in vars(recognizer.classifier) and "classify" not in vars(recognizer.faces)
    assert len(recognizer.detect(bench_vision.scene(5, 1))) >= 4   # reads as before
