"""SIGKILLs during ``companion demo --data`` (scripts/power_loss.py): nothing committed is lost, nothing doubled, the game goes on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_three_kills_of_the_demo_lose_and_double_nothing_and_it_resumes(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "power_loss.py"), "--kills", "3", "--hands", "1",
                          "--max-delay", "1.5", "--no-finish", "--rng", "5", "--data", str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 kills: 0 events lost, 0 duplicated; the game resumed 2 of 2 restarts" in run.stdout, run.stdout


def test_the_count_sees_a_doubled_or_missing_event() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("power_loss", ROOT / "scripts" / "power_loss.py")
    assert spec is not None and spec.loader is not None
    power_loss = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(power_loss)
    want = power_loss.truth("michigan-1939", 7, 1)
    assert power_loss.compare(want[:9] + want[8:20], want[:20]) == (0, 1)  # one doubled
    assert power_loss.compare(want[:5] + want[6:20], want[:20]) == (1, 0)
    assert power_loss.compare(power_loss.effective(want[:12] + ['{"type":"undo"}'] + want[11:20]), want[:20]) == (0, 0)
