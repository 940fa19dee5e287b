"""What the tests of a running companion share: a free port, its state once it answers, a damaged store."""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any


class InThread:
    """A waitress server's loop run in a daemon thread, for a test to stop from its own.

    Closing the server's sockets from another thread can land under the
    loop's ``select``, which then sees a closed descriptor (waitress issue
    468): after :meth:`stop` that error is the expected end of the loop;
    before, it is raised.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.server.run()
        except OSError:
            if not self.stopping:
                raise

    def stop(self, close: Callable[[], None]) -> None:
        """Run ``close`` (what shuts the server's sockets) and wait for the loop to end."""
        self.stopping = True
        close()
        self.thread.join(timeout=5)


def closing(server: Any) -> Callable[[], None]:
    """What shuts a waitress ``server`` with no request half served, for :meth:`InThread.stop`: its handler
    threads finish first (stop the app's streams before), then its channels close, the listening one too.
    Closed under a handler still serving, the server's trigger is gone when that handler pulls it, and
    waitress prints the error (EBADF) as the tests end."""
    def close() -> None:
        server.task_dispatcher.shutdown(timeout=5)
        for channel in list(server._map.values()):
            channel.close()
    return close


def interruptible() -> None:
    """``preexec_fn`` for a server the test stops with SIGINT, as Ctrl-C would: the child takes SIGINT
    even where the suite was started with it ignored (a shell's background job), which the child
    would otherwise inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (free when asked)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def view_when(port: int, ready: Callable[[dict[str, Any]], bool] = lambda view: True, *, seconds: float = 10.0,
              timeout: float = 1.0) -> dict[str, Any] | None:
    """``/api/state`` of the server starting on ``port``, asked again until ``ready`` says so or
    ``seconds`` pass: the last view it gave (None if it never answered)."""
    deadline, view = time.monotonic() + seconds, None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=timeout) as r:
                view = json.load(r)
            if ready(view):
                return view
        except OSError:
            pass
        time.sleep(0.1)
    return view


def flip_bytes(path: Path, at: int = 8192, count: int = 8) -> None:
    """Damage a file as a failing card does: ``count`` bytes from ``at`` inverted (inside the second
    4 KiB page of an SQLite store, past its header)."""
    data = bytearray(path.read_bytes())
    data[at:at + count] = bytes(b ^ 0xFF for b in data[at:at + count])
    path.write_bytes(bytes(data))
