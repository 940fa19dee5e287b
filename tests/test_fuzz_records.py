"""Mutated records through replay and /api/import (scripts/fuzz_records.py): refused or replayed, never a traceback or a 500."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mutated_records_give_no_traceback_and_no_500() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz_records.py"), "--records", "300", "--seed", "3"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 problems" in run.stdout
