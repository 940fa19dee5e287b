"""``companion web``: the scoreboard and referee pages for a stored game, without camera or GPIO.

Useful to referee a game by hand from a tablet, or to look back at a record.
"""

from __future__ import annotations

import argparse
import errno
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from web.config import WebConfig, WebConfigError

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)

API_THREADS = 12
"""Threads for the pages, the API and the camera page; the event streams have threads of their own on top."""
CONNECTION_LIMIT = 400  # well under select()'s 1024 descriptors
IDLE_TIMEOUT_S = 30


class ListenError(OSError):
    """The pages cannot be served at the configured address: the port is taken, privileged or not here."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", required=True, type=Path, metavar="FILE",
                        help="the game store: *.sqlite or a *.jsonl game record (created if missing)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the whole network)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    parser.add_argument("--pin", help="referee PIN (default: a new one, printed at start)")
    parser.add_argument("--new-game", action="store_true",
                        help="the store is damaged: move it aside (kept, never deleted) and start a new game")
    parser.add_argument("--session-hours", type=float, default=12.0, help="how long a referee stays signed in (default 12)")


def run(args: argparse.Namespace) -> int:
    try:
        config = WebConfig(host=args.host, port=args.port, pin=args.pin, session_hours=args.session_hours)
    except WebConfigError as e:
        log.error("%s", e)
        return 2
    from companion.table import Table

    from companion.store import DAMAGED_HINT, DamagedStore

    created = not args.record.exists()
    try:
        table = Table.open(args.record, new_game=args.new_game)
    except DamagedStore as e:
        log.error("%s; %s", e, DAMAGED_HINT)
        return 2
    except (OSError, ValueError) as e:
        log.error("cannot open %s: %s", args.record, e)
        return 2
    from web.app import create_app

    app = create_app(table, config=config, data_dir=args.record.resolve().parent)
    try:
        server = listen(app, config)
    except ListenError as e:
        print(f"companion web: {e}; choose another with --port", file=sys.stderr)
        table.close()
        if created:
            args.record.unlink()  # a refused start leaves nothing behind
        return 2
    if app.config["PIN_GENERATED"]:
        print(f"Referee PIN for this run: {app.config['REFEREE_PIN']}", flush=True)
    from web.join import console_join

    print(f"Scoreboard: http://{config.host}:{config.port}/", flush=True)
    print(console_join(config.host, config.port, how="start with --host 0.0.0.0"), flush=True)
    serve(app, server)
    return 0


def make_server(app: Flask, *, host: str, port: int) -> Any:
    """A waitress server for ``app``: a thread for each stream slot on top of ``API_THREADS``,
    request bodies capped before the app (and its PIN check) sees them, and a client's
    hang-up noticed while its request runs."""
    from waitress import create_server

    from web.app import MAX_BODY, stream_hub

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
    from web.app import stream_hub

    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        stream_hub(app).stop()
        server.close()
