"""``companion web``: serves a stored record with waitress, and refuses bad flags clearly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from server_helpers import free_port, interruptible, view_when

ROOT = Path(__file__).parents[1]


def test_companion_web_serves_a_record_and_stops_on_interrupt(tmp_path):
    record = tmp_path / "game.jsonl"
    record.write_text(json.dumps({"type": "game", "variant": "tripoley", "players": ["Ann", "Bob"], "chips": 30}) + "\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "web", "--record", str(record), "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=interruptible)
    try:
        view = view_when(port)
        assert view is not None and view["variant"] == "tripoley" and view["balances"] == {"Ann": 30, "Bob": 30}
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
            assert r.headers["Server"] == "table-companion"  # waitress, not Flask's debug server
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0, out
    assert "Referee PIN for this run:" in out  # no --pin: one was made up and shown


def test_companion_web_refuses_a_bad_port(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "companion", "web", "--record", str(tmp_path / "g.jsonl"), "--port", "70000"],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "web.port" in proc.stderr


def test_companion_web_says_how_to_go_on_from_a_damaged_store_and_does_so(tmp_path):
    import sqlite3

    record = tmp_path / "game.sqlite"
    with sqlite3.connect(record) as conn:
        conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, event TEXT NOT NULL, at TEXT NOT NULL)")
        conn.execute("""INSERT INTO events VALUES (1, '{"type":"game","variant":"bonanza","players":["Ann","Bob"],"chips":50}', 'x'),
                        (2, '{"type":"deal","dealer":"Anx"}', 'x')""")
    refused = subprocess.run([sys.executable, "-m", "companion", "web", "--record", str(record)],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--new-game" in refused.stderr and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and sorted(p.name for p in tmp_path.iterdir()) == ["game.sqlite"]
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "web", "--record", str(record), "--port", str(port),
                             "--new-game"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=interruptible)
    try:
        view = view_when(port)
        assert view is not None and view["phase"] == "none"
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=10)
    assert proc.returncode == 0 and "moved it aside to game-damaged-" in out, out
    assert len(list(tmp_path.glob("game-damaged-*.sqlite"))) == 1
