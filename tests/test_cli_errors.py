"""Start-up errors through the real command: one clear line, a non-zero exit, no traceback, and
nothing that says it is running; a missing camera is one warning and the table goes on."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_helpers import free_port, interruptible, view_when

pytestmark = pytest.mark.slow  # each test starts the command in a subprocess

ROOT = Path(__file__).resolve().parent.parent


def companion(*args: str, tmp: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, TMPDIR=str(tmp))
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=timeout, check=False)


def demo_folders(tmp: Path) -> list[Path]:
    return list(tmp.glob("companion-demo-*"))


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--hands", "0", "at least 1 hand, not 0"),
    ("--hands", "-1", "at least 1 hand, not -1"),
    ("--hands", "two", "a whole number"),
    ("--speed", "-1", "0 (as fast as possible) or more, not -1"),
    ("--speed", "nan", "0 (as fast as possible) or more"),
])
def test_the_demo_refuses_a_bad_count_or_speed_before_it_plays(tmp_path: Path, option: str, value: str, says: str) -> None:
    result = companion("demo", option, value, "--no-serve", tmp=tmp_path)
    line = one_error_line(result)
    assert line.startswith(f"companion demo: argument {option}:") and says in line
    assert result.stdout == "" and demo_folders(tmp_path) == []


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_web_on_a_busy_port_says_so_and_leaves_no_record(tmp_path: Path, busy_port: int) -> None:
    record = tmp_path / "game.sqlite"
    result = companion("web", "--record", str(record), "--port", str(busy_port), tmp=tmp_path)
    line = one_error_line(result)
    assert f"127.0.0.1:{busy_port}: the port is in use" in line and "--port" in line
    assert result.stdout == ""  # no "Scoreboard: http://..." and no PIN: nothing claims to be running
    assert not record.exists()


def test_the_demo_on_a_busy_port_says_so_and_removes_its_store(tmp_path: Path, busy_port: int) -> None:
    result = companion("demo", "--hands", "1", "--speed", "0", "--port", str(busy_port), tmp=tmp_path)
    line = one_error_line(result)
    assert "the port is in use" in line and "Scoreboard" not in result.stdout and "Playing" not in result.stdout
    assert demo_folders(tmp_path) == []  # the temporary store is gone


def write_config(tmp_path: Path, *, port: int, source: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(f'data_dir = "{tmp_path}"\n[camera]\nsource = "{source}"\n[web]\nport = {port}\npin = "2468"\n')
    return config


def test_serve_on_a_busy_port_exits_before_it_says_it_serves(tmp_path: Path, busy_port: int) -> None:
    result = companion("serve", "--config", str(write_config(tmp_path, port=busy_port, source="demo")), tmp=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "the port is in use" in errors[0] and "[web] port" in errors[0]
    assert "scoreboard at" not in result.stderr


def test_serve_without_a_camera_warns_once_and_serves_the_table(tmp_path: Path) -> None:
    """``picamera`` on a machine without one (the default on a fresh Pi with no camera plugged in)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--config",
                             str(write_config(tmp_path, port=port, source="picamera"))],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)
    try:
        view = view_when(port, lambda view: view["camera"] is not None, seconds=60, timeout=2)
        assert view is not None and view["camera"] == "no-picture" and view["players"]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if " WARNING " in line]
    assert len(warnings) == 1 and "no picture from the camera" in warnings[0], err
