"""The shipped examples (``companion/examples/``): whole games that replay clean, photos that ``eval`` reads."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.replay import replay_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "companion" / "examples"
sys.path.insert(0, str(ROOT / "scripts"))
import make_examples  # noqa: E402


@pytest.mark.parametrize("variant", make_examples.VARIANTS)
def test_each_variants_record_is_a_whole_game_with_no_refused_line(variant: str) -> None:
    game = replay_file(EXAMPLES / f"{variant}.jsonl")
    summary = game.summary()
    assert summary["variant"] == variant and summary["hands"] == make_examples.HANDS
    assert summary["rejected"] == [] and summary["phase"] == "over"
    assert sum(summary["balances"].values()) == 100 * len(make_examples.PLAYERS)
    assert not any(summary["board"].values())  # the showdown took the whole board


def test_the_shipped_examples_are_what_the_script_writes() -> None:
    assert make_examples.stale(EXAMPLES) == []


def test_the_script_notices_a_stale_record(tmp_path: Path) -> None:
    make_examples.write(tmp_path)
    assert make_examples.stale(tmp_path) == []
    (tmp_path / "bonanza.jsonl").write_text(make_examples.record("bonanza").replace('"Ann"', '"Ana"'))
    (tmp_path / "photos" / "empty-table.jpg").unlink()
    assert make_examples.stale(tmp_path) == ["bonanza.jsonl", "photos/empty-table.jpg"]


def test_every_example_file_is_package_data() -> None:
    """``pip install .`` ships them: each file matches one of pyproject's package-data patterns."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["companion"]
    package = ROOT / "companion"
    shipped = {p for pattern in patterns for p in package.glob(pattern)}
    files = {p for p in EXAMPLES.rglob("*") if p.is_file()}
    assert len(files) == len(make_examples.VARIANTS) + len(make_examples.scenes()) + 1
    assert files <= shipped, sorted(str(p.relative_to(package)) for p in files - shipped)


def test_eval_reads_the_example_photos() -> None:
    """The real recogniser on the shipped folder, as the README shows it."""
    result = subprocess.run([sys.executable, "-m", "companion", "eval", str(EXAMPLES / "photos"), "--json"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["images"] == len(make_examples.scenes()) and figures["errors"] == []
    assert figures["precision"] >= 0.95 and figures["recall"] >= 0.95, figures["misses"]
