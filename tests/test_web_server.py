"""The app under waitress, driven with raw sockets as a stranger on the Wi-Fi would.

Streams must never take the threads the API and the referee need, a hang-up
must free its stream at once, and an oversized body is refused before it is
read.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.table import Table
from server_helpers import InThread, closing, free_port
from web.app import create_app, stream_hub
from web.config import WebConfig
from web.server import make_server

GAME = {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50}


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[tuple[int, object, Table]]:
    """A game served by waitress on a free port, 4 stream slots, 2 an address: (port, app, table)."""
    table = Table.open(folder / "game.sqlite")
    table.submit(GAME)
    app = create_app(table, config=WebConfig(pin="246813"), data_dir=folder, max_streams=4, streams_per_client=2)
    port = free_port()
    server = make_server(app, host="127.0.0.1", port=port)
    loop = InThread(server)
    try:
        yield port, app, table
    finally:
        stream_hub(app).stop()
        loop.stop(closing(server))
        table.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, object]]:
    with serving(tmp_path) as (port, app, _):
        yield port, app


def open_stream(port: int, source: str) -> tuple[socket.socket, int, bytes]:
    """A raw ``GET /api/events`` from ``source``; returns the socket, the status and the response head."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            break
        head += chunk
    return s, int(head.split()[1]), head


def get_state(port: int) -> float:
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    conn.request("GET", "/api/state")
    r = conn.getresponse()
    assert r.status == 200 and json.loads(r.read())["variant"] == "bonanza"
    conn.close()
    return time.monotonic() - started


def wait_for(condition, limit_s: float) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < limit_s, f"not within {limit_s} s"
        time.sleep(0.05)
    return time.monotonic() - started


def test_streams_beyond_the_limit_are_refused_and_the_api_stays_free(served):
    port, _ = served
    streams = [open_stream(port, f"127.0.0.{2 + i % 10}") for i in range(30)]
    try:
        statuses = [status for _, status, _ in streams]
        assert statuses.count(200) == 4 and statuses.count(503) == 26
        refused = next(head for _, status, head in streams if status == 503)
        assert b"Retry-After: 10" in refused
        assert max(get_state(port) for _ in range(10)) < 1.0  # before the fix: every one timed out
    finally:
        for s, _, _ in streams:
            s.close()


def test_one_address_gets_only_its_share_of_streams(served):
    port, _ = served
    streams = [open_stream(port, "127.0.0.7") for _ in range(3)]
    try:
        assert [status for _, status, _ in streams] == [200, 200, 503]
        other, status, _ = open_stream(port, "127.0.0.8")  # another tablet still gets one
        other.close()
        assert status == 200
    finally:
        for s, _, _ in streams:
            s.close()


def test_a_hang_up_frees_its_stream_within_a_second(served):
    port, app = served
    streams = [open_stream(port, f"127.0.0.{20 + i}") for i in range(4)]
    hub = stream_hub(app)
    assert hub.open_streams() == 4
    for s, _, _ in streams:
        s.close()
    assert wait_for(lambda: hub.open_streams() == 0, 1.5) < 1.5  # not at the next 15 s heartbeat
    s, status, _ = open_stream(port, "127.0.0.20")
    s.close()
    assert status == 200


def test_an_unauthenticated_huge_body_is_refused_before_it_is_read(served, tmp_path):
    port, _ = served
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"POST /api/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/jsonl\r\n"
              b"Content-Length: 314572800\r\n\r\n" + b"x" * 65536)
    started = time.monotonic()
    answer = s.recv(4096)
    s.close()
    assert answer.startswith(b"HTTP/1.1 413") and time.monotonic() - started < 2


def test_a_change_is_encoded_once_for_every_open_stream(tmp_path: Path, monkeypatch) -> None:
    import web.stream

    encoded: list[int] = []
    real = web.stream._sse

    def counted(view: dict[str, Any]) -> str:
        encoded.append(view["version"])
        return real(view)

    monkeypatch.setattr(web.stream, "_sse", counted)
    with serving(tmp_path) as (port, _, table):
        streams = [open_stream(port, source)[0] for source in ("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3")]
        wait_for(lambda: len(encoded) == 4, 5)  # each stream's first view, its own
        encoded.clear()
        view = table.submit({"type": "deal", "dealer": "Ann"})
        for s in streams:
            received = b""
            while f"id: {view['version']}".encode() not in received:
                received += s.recv(65536)
            s.close()
        assert encoded == [view["version"]]  # before: one encoding per stream
