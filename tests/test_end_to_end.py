"""The whole table: simulated hands drawn as frames, read by the real recogniser, refereed, shown on the web."""

import json
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.app.demo import DemoTable
from companion.table import Table
from server_helpers import free_port
from web.app import create_app
from web.config import WebConfig

pytestmark = pytest.mark.slow


def test_a_simulated_hand_read_by_the_camera_ends_with_the_simulations_balances(tmp_path: Path) -> None:
    table = Table.open(tmp_path / "demo.sqlite")
    demo = DemoTable(table, seed=11, speed=0, players=("Ann", "Bob", "Cy"), hold_frames=6)
    score = demo.play(hands=1)
    truth = demo.sim.game.balances
    assert table.view()["balances"] == truth
    assert score.plays > 0 and score.read_right >= 0.8 * score.plays, score
    still = demo.step.still
    assert still is not None and still.frames_skipped > 0   # the still table between plays is not read again
    state = create_app(table, config=WebConfig(pin="2468"), data_dir=tmp_path).test_client().get("/api/state").get_json()
    assert state["balances"] == truth and state["hands"] == 1
    assert state["over"] and state["phase"] == "over"  # the showdown ended the game, as the console says
    assert state["camera"] == "reading" and not any(state["board"].values())


def _plays(store: Path) -> list[str]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT event FROM events ORDER BY seq").fetchall()
    return [json.loads(r[0])["card"] for r in rows if json.loads(r[0])["type"] == "play"]


def _serve(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "companion", "serve", "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait(predicate, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_serve_killed_mid_hand_resumes_without_replaying_anything(tmp_path: Path) -> None:
    players = ["Ann", "Bob", "Cy", "Dee"]
    store = tmp_path / "game.sqlite"
    opening: list[dict[str, Any]] = [
        {"type": "game", "variant": "michigan-1939", "players": players, "chips": 100},
        {"type": "deal", "dealer": "Ann"},
        {"type": "widow", "action": "keep"},
        {"type": "next"},
    ]
    with Table.open(store) as table:
        for event in opening:
            table.submit(event)
    port = free_port()
    config = tmp_path / "config.toml"
    config.write_text(
        f'data_dir = "{tmp_path}"\n[camera]\nsource = "demo"\nfps = 10\n'
        f'[web]\nport = {port}\npin = "2468"\n[game]\nplayers = {json.dumps(players)}\n'
    )
    # The demo camera lays 5H 6H 7H 8H 9H TH JH QH round the table, one every 1.5 s: a legal run led by Ann.
    first = _serve(config)
    assert first.stderr is not None
    try:
        assert _wait(lambda: len(_plays(store)) >= 3, 60), first.stderr.read() if first.poll() is not None else "too slow"
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    before = _plays(store)
    second = _serve(config)
    try:
        assert _wait(lambda: len(_plays(store)) == 8, 60), _plays(store)
        state = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).read())
    finally:
        second.terminate()
        second.wait(timeout=10)
    after = _plays(store)
    assert after[: len(before)] == before
    assert after == ["5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
    with Table.open(store) as table:
        assert state["balances"] == table.view()["balances"]
        assert table.game.rejected == []
