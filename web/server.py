"""The waitress server for the pages: its threads, its limits, and a port that is taken told in one line."""

from __future__ import annotations

import errno
import logging
from typing import TYPE_CHECKING, Any

from web.app import MAX_BODY, stream_hub
from web.config import WebConfig

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

API_THREADS = 12
"""Threads for the pages, the API and the camera page; the event streams have threads of their own on top."""
CONNECTION_LIMIT = 400  # well under select()'s 1024 descriptors
IDLE_TIMEOUT_S = 30


class ListenError(OSError):
    """The pages cannot be served at the configured address: the port is taken, privileged or not here."""


def make_server(app: Flask, *, host: str, port: int) -> Any:
    """A waitress server for ``app``: a thread for each stream slot on top of ``API_THREADS``,
    request bodies capped before the app (and its PIN check) sees them, and a client's
    hang-up noticed while its request runs."""
    from waitress import create_server

    return create_server(
        app, host=host, port=port, ident="table-companion",
        threads=API_THREADS + stream_hub(app).max_streams,
        max_request_body_size=MAX_BODY + 1,  # waitress refuses bodies >= this with 413, before reading them
        channel_request_lookahead=1,
        connection_limit=CONNECTION_LIMIT,
        channel_timeout=IDLE_TIMEOUT_S,
    )


def listen(app: Flask, config: WebConfig) -> Any:
    """:func:`make_server` at the configured address, already listening: a port that is taken fails
    here, as a :class:`ListenError` in one line, before anything says that the pages are up."""
    try:
        return make_server(app, host=config.host, port=config.port)
    except OSError as e:
        why = {
            errno.EADDRINUSE: "the port is in use, by another companion or server",
            errno.EACCES: "permission denied (ports below 1024 need root)",
            errno.EADDRNOTAVAIL: "this machine has no such address",
        }.get(e.errno or 0, e.strerror or str(e))
        raise ListenError(f"cannot serve the pages on {config.host}:{config.port}: {why}") from None


def serve(app: Flask, server: Any) -> None:
    """Run ``server`` (from :func:`listen`) until interrupted (no debugger, no reloader), then end the streams."""
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stream_hub(app).stop()
        server.close()
