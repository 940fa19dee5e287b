"""The scoreboard's live updates: server-sent event streams, bounded in number, one encoding per change."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from web.table import TableService

MAX_STREAMS = 32
STREAMS_PER_CLIENT = 4  # a tablet with a few tabs open
STREAM_RETRY_S = 10


class StreamHub:
    """Admits the server-sent-event streams, a bounded number in all and per client, and stops them.

    Every open stream holds a server thread, so the server runs ``max_streams``
    threads for streams on top of those for the pages and the API, and refuses
    a stream beyond the limits (the page then polls ``/api/state``): no number
    of tablets or strangers can take the threads the referee needs.
    """

    def __init__(self, *, heartbeat_s: float, max_stream_s: float, max_streams: int, per_client: int) -> None:
        self.heartbeat_s = heartbeat_s
        self.max_stream_s = max_stream_s
        self.max_streams = max_streams
        self.per_client = per_client
        self.stopping = threading.Event()
        self._open: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._encoded: tuple[dict[str, Any] | None, str] = (None, "")
        self._encode_lock = threading.Lock()

    def admit(self, client: str) -> bool:
        """Take a stream slot for ``client``; False when the server or this client has none left."""
        with self._lock:
            if sum(self._open.values()) >= self.max_streams or self._open[client] >= self.per_client:
                return False
            self._open[client] += 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())

    def message(self, view: dict[str, Any]) -> str:
        """The event-stream message for ``view``, encoded once however many streams send it.

        ``Table`` hands the same view object to every stream's queue, so after a change one
        stream encodes it and the others reuse the text: the CPU a change costs no longer grows
        with the streams open, and the referee's own request is not kept waiting by them.
        The object itself is the key (and is kept), never the version, which a read of a
        changed ``settled`` list can share.
        """
        with self._encode_lock:
            if self._encoded[0] is not view:
                self._encoded = (view, _sse(view))
            return self._encoded[1]

    def stop(self) -> None:
        """End every open stream within half a second (browsers reconnect by themselves)."""
        self.stopping.set()


def stream(table: TableService, hub: StreamHub, *, last_id: str | None,
           disconnected: Callable[[], bool]) -> Iterator[str]:
    """One client's event stream: the view now (unless ``last_id`` is its version), then each
    change's, a heartbeat when quiet; it ends when the hub stops, the client hangs up, or after
    ``hub.max_stream_s`` (the browser reconnects with ``Last-Event-ID``)."""
    q = table.subscribe()  # before reading the view, so no change falls between the two
    try:
        yield "retry: 2000\n\n"
        view = table.view()
        if str(view["version"]) != last_id:
            yield _sse(view)
        started = last_sent = time.monotonic()
        while not hub.stopping.is_set() and not disconnected() and time.monotonic() - started < hub.max_stream_s:
            try:
                view = q.get(timeout=min(0.5, hub.heartbeat_s))  # wakes to notice a stop or a hang-up
            except queue.Empty:
                if time.monotonic() - last_sent >= hub.heartbeat_s:
                    yield ": heartbeat\n\n"
                    last_sent = time.monotonic()
                continue
            while True:  # a burst of changes: only the newest view matters
                try:
                    view = q.get_nowait()
                except queue.Empty:
                    break
            yield hub.message(view)
            last_sent = time.monotonic()
    finally:
        table.unsubscribe(q)


def _sse(view: dict[str, Any]) -> str:
    """``view`` as one event-stream message, its version the event's id.

    >>> _sse({"version": 3, "name": "Zoë"})
    'id: 3\\ndata: {"version":3,"name":"Zoë"}\\n\\n'
    """
    return f"id: {view['version']}\ndata: {json.dumps(view, ensure_ascii=False, separators=(',', ':'))}\n\n"
