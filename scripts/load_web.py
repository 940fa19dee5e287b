"""Load the web server: N event streams plus M requests a second for T seconds, on 127.0.0.1.

``python scripts/load_web.py [--streams 200] [--rate 20] [--seconds 60] [--addresses 50]``

Starts ``companion web`` on a fresh record (its own process, so its memory and
file descriptors can be read from ``/proc``), then, all at once:

- ``--streams`` raw sockets each ask for ``/api/events`` and read what comes,
  spread over ``--addresses`` loopback source addresses (127.0.0.2 ...), as
  that many tablets would be; a stream the server refuses (503) is asked for
  again after its ``Retry-After``, as the page does;
- ``--rate`` ``GET /api/state`` a second, each on its own connection;
- one referee request a second (a signed-in ``POST /api/event`` or
  ``/api/undo``), each a change that every open stream is sent.

It prints the latency of the requests (p50, p99, max), every one that failed
or timed out, how many streams were open and refused, the server's resident
memory and open file descriptors before, at the peak and after, and how long
the descriptors took to come back to the baseline once the clients dropped.
Everything is bounded: every socket has a timeout and the run ends after T s.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = "246813"
TIMEOUT_S = 5.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@dataclass
class Stream:
    """One event stream's socket, which of the ``--streams`` it is, what it has read, and its HTTP status."""

    sock: socket.socket
    i: int
    buf: bytes = b""
    status: int | None = None


class Streams:
    """Raw-socket event streams on one selector thread: open, read, and reopen after a refusal."""

    def __init__(self, port: int, count: int, addresses: int) -> None:
        self.port, self.count, self.addresses = port, count, addresses
        self.selector = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.open_now = 0
        self.peak_open = 0
        self.refused = 0
        self.failed = 0
        self.events = 0
        self._retry: list[tuple[float, int]] = []
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        for i in range(self.count):
            self._connect(i)
        self._thread.start()

    def _connect(self, i: int) -> None:
        s = socket.socket()
        s.setblocking(False)
        s.bind((f"127.0.0.{2 + i % self.addresses}", 0))
        s.connect_ex(("127.0.0.1", self.port))
        self.selector.register(s, selectors.EVENT_WRITE, Stream(s, i))

    def _run(self) -> None:
        while not self.stop.is_set():
            now = time.monotonic()
            for due, i in [r for r in self._retry if r[0] <= now]:
                self._retry.remove((due, i))
                self._connect(i)
            for key, mask in self.selector.select(timeout=0.2):
                stream: Stream = key.data
                s = stream.sock
                if mask & selectors.EVENT_WRITE:
                    try:
                        s.send(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                    except OSError:
                        self._drop(stream, failed=True)
                        continue
                    self.selector.modify(s, selectors.EVENT_READ, stream)
                    continue
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self._drop(stream, failed=stream.status is None)
                    continue
                stream.buf += data
                if stream.status is None and b"\r\n\r\n" in stream.buf:
                    head, _, stream.buf = stream.buf.partition(b"\r\n\r\n")
                    stream.status = int(head.split()[1])
                    if stream.status == 200:
                        self.open_now += 1
                        self.peak_open = max(self.peak_open, self.open_now)
                    else:
                        self.refused += 1
                        wait = re.search(rb"(?i)retry-after:\s*(\d+)", head)
                        self._drop(stream, failed=False, retry_s=int(wait.group(1)) if wait else 2)
                        continue
                self.events += stream.buf.count(b"\nid: ") + stream.buf.startswith(b"id: ")
                stream.buf = stream.buf[-8:]

    def _drop(self, stream: Stream, *, failed: bool, retry_s: float = 2.0) -> None:
        self.selector.unregister(stream.sock)
        stream.sock.close()
        if stream.status == 200:
            self.open_now -= 1
        if failed:
            self.failed += 1
        self._retry.append((time.monotonic() + retry_s, stream.i))

    def close(self) -> None:
        self.stop.set()
        self._thread.join(timeout=5)
        for key in list(self.selector.get_map().values()):
            key.data.sock.close()
        self.selector.close()


def get_state(port: int) -> tuple[float, str | None]:
    started = time.perf_counter()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        conn.request("GET", "/api/state")
        r = conn.getresponse()
        r.read()
        conn.close()
        error = None if r.status == 200 else f"status {r.status}"
    except OSError as exc:
        error = type(exc).__name__
    return time.perf_counter() - started, error


def _found(pattern: bytes, page: bytes) -> bytes:
    """The first group of ``pattern`` in ``page`` (dots match newlines); an error names what the page lacks."""
    match = re.search(pattern, page, re.S)
    if match is None:
        raise RuntimeError(f"the server's page has no {pattern!r}")
    return match.group(1)


class Referee:
    """A signed-in referee that deals and takes the deal back, one request a second."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        self.cookie, self.csrf, self.turn = "", "", 0
        self._sign_in()

    def _request(self, method: str, path: str, body: str | None = None,
                 headers: dict[str, str] | None = None) -> tuple[http.client.HTTPResponse, bytes]:
        self.conn.request(method, path, body=body, headers={"Cookie": self.cookie, **(headers or {})})
        r = self.conn.getresponse()
        data = r.read()
        for value in r.headers.get_all("Set-Cookie") or []:
            self.cookie = value.split(";", 1)[0]
        return r, data

    def _sign_in(self) -> None:
        _, page = self._request("GET", "/referee/login")
        token = _found(rb'name="csrf_token" value="([^"]+)"', page).decode()
        r, _ = self._request("POST", "/referee/login", f"pin={PIN}&csrf_token={token}",
                             {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"http://127.0.0.1:{self.port}"})
        assert r.status == 302, r.status
        _, page = self._request("GET", "/referee")
        boot = _found(rb'<script id="boot" type="application/json">(.*?)</script>', page)
        self.csrf = json.loads(boot)["csrf"]

    def act(self) -> tuple[float, str | None]:
        started = time.perf_counter()
        path, body = ("/api/event", '{"type":"deal","dealer":"Ann"}') if self.turn % 2 == 0 else ("/api/undo", "")
        self.turn += 1
        try:
            r, data = self._request("POST", path, body, {"Content-Type": "application/json", "X-CSRF-Token": self.csrf,
                                                         "Origin": f"http://127.0.0.1:{self.port}"})
            error = None if r.status == 200 else f"status {r.status}: {data[:80]!r}"
        except OSError as exc:
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
            error = type(exc).__name__
        return time.perf_counter() - started, error


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--rate", type=float, default=20.0, help="GET /api/state a second")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--addresses", type=int, default=50, help="loopback source addresses the streams come from")
    args = parser.parse_args()

    record = Path(tempfile.mkdtemp(prefix="load-web-")) / "game.jsonl"
    record.write_text('{"type":"game","variant":"bonanza","players":["Ann","Bob","Cy"],"chips":50}\n', encoding="utf-8")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "companion", "web", "--record", str(record), "--port", str(port), "--pin", PIN],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(200):
            if get_state(port)[1] is None:
                break
            time.sleep(0.1)
        referee = Referee(port)
        time.sleep(0.5)
        base_rss, base_fds = rss_mb(server.pid), fds(server.pid)
        peak_rss, peak_fds = base_rss, base_fds
        streams = Streams(port, args.streams, args.addresses)
        streams.start()
        latencies: list[float] = []
        referee_latencies: list[float] = []
        errors: list[str] = []
        started = time.monotonic()
        futures, referee_futures = [], []
        acting = None
        with ThreadPoolExecutor(max_workers=64) as pool:
            n = 0
            while (now := time.monotonic()) - started < args.seconds:
                due = started + n / args.rate
                if now < due:
                    time.sleep(min(due - now, 0.05))
                    continue
                futures.append(pool.submit(get_state, port))
                n += 1
                if n % max(1, round(args.rate)) == 0:  # once a second
                    if acting is None or acting.done():
                        acting = pool.submit(referee.act)
                        referee_futures.append(acting)
                    peak_rss, peak_fds = max(peak_rss, rss_mb(server.pid)), max(peak_fds, fds(server.pid))
            for f in referee_futures:
                latency, error = f.result()
                referee_latencies.append(latency)
                if error:
                    errors.append(f"referee: {error}")
            for f in futures:
                latency, error = f.result()
                latencies.append(latency)
                if error:
                    errors.append(f"state: {error}")
        open_at_end, peak_open, refused, failed, events = (
            streams.open_now, streams.peak_open, streams.refused, streams.failed, streams.events)
        streams.close()
        referee.conn.close()
        dropped = time.monotonic()
        back_after = None
        while time.monotonic() - dropped < 30:
            if fds(server.pid) <= base_fds:
                back_after = time.monotonic() - dropped
                break
            time.sleep(0.1)
        end_rss, end_fds = rss_mb(server.pid), fds(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
    ms = [x * 1000 for x in latencies]
    rms = [x * 1000 for x in referee_latencies]
    print(f"{args.streams} streams from {args.addresses} addresses + {args.rate:g} req/s for {args.seconds:g} s")
    print(f"/api/state: {len(ms)} sent, {sum(e.startswith('state') for e in errors)} failed; "
          f"p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms")
    print(f"referee:    {len(rms)} sent, {sum(e.startswith('referee') for e in errors)} failed; "
          f"p50 {statistics.median(rms):.1f} ms, p99 {percentile(rms, 99):.1f} ms, max {max(rms):.1f} ms")
    print(f"streams:    {peak_open} open at most ({open_at_end} at the end), {refused} refusals (503), "
          f"{failed} failed connections, {events} events delivered")
    print(f"server RSS: {base_rss:.1f} MB before, {peak_rss:.1f} MB peak, {end_rss:.1f} MB after "
          f"(growth {peak_rss - base_rss:+.1f} MB)")
    print(f"server FDs: {base_fds} before, {peak_fds} peak, {end_fds} after; "
          + (f"back to the baseline {back_after:.1f} s after the clients dropped" if back_after is not None
             else "NOT back to the baseline within 30 s"))
    for e in errors[:10]:
        print(f"  error: {e}")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
