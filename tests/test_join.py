"""The tablets' way in: the scoreboard's address as a QR code that decodes to it, in the console and on the referee page."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from web.join import console_join, lan_address, qr_terminal, reachable_from_tablets, scoreboard_url

ROOT = Path(__file__).resolve().parent.parent
HALVES = {"█": (255, 255), "▀": (255, 0), "▄": (0, 255), " ": (0, 0)}  # light modules are drawn, for a dark console


def decode_console(text: str) -> str:
    """Read a console QR code back, as a phone's camera would."""
    rows = [line for line in text.splitlines() if line and set(line) <= set(HALVES)]
    width = max(len(r) for r in rows)
    grid = np.zeros((2 * len(rows), width), np.uint8)
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            grid[2 * y, x], grid[2 * y + 1, x] = HALVES[ch]
    image = cv2.resize(np.pad(grid, 4, constant_values=255), None, fx=10, fy=10, interpolation=cv2.INTER_NEAREST)
    decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return decoded


@pytest.mark.parametrize("url", ["http://192.168.1.20:8080/", "http://table-companion.local:8080/"])
def test_the_console_code_decodes_to_the_address(url: str) -> None:
    assert decode_console(qr_terminal(url)) == url


def test_a_server_for_every_interface_shows_this_machines_network_address() -> None:
    url = scoreboard_url("0.0.0.0", 8080)
    assert url == f"http://{lan_address()}:8080/" and "0.0.0.0" not in url and "127.0.0.1" not in url
    text = console_join("0.0.0.0", 8080, how="never shown")
    assert decode_console(text) == url and text.rstrip().endswith(url)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_a_server_for_this_machine_only_says_how_to_open_it_and_draws_no_code(host: str) -> None:
    assert not reachable_from_tablets(host)
    text = console_join(host, 8080, how="start with --host 0.0.0.0")
    assert text.count("\n") == 0 and "--host 0.0.0.0" in text and "█" not in text


def test_companion_web_prints_the_way_in_at_start(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "companion", "web", "--record", str(tmp_path / "g.jsonl"), "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        lines = [proc.stdout.readline() for _ in range(3)]  # the PIN, the address, the way in
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
    assert lines[1].startswith("Scoreboard: http://127.0.0.1:")
    assert lines[2].startswith("Only this machine can open") and "--host 0.0.0.0" in lines[2]
