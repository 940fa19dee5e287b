"""``companion web``: the scoreboard and referee pages for a stored game, without camera or GPIO.

Useful to referee a game by hand from a tablet, or to look back at a record.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from companion.store import DAMAGED_HINT, DamagedStore
from companion.table import Table
from web.app import create_app
from web.config import WebConfig, WebConfigError
from web.join import console_join
from web.server import ListenError, listen, serve

log = logging.getLogger(__name__)


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
    created = not args.record.exists()
    try:
        table = Table.open(args.record, new_game=args.new_game)
    except DamagedStore as e:
        log.error("%s; %s", e, DAMAGED_HINT)
        return 2
    except (OSError, ValueError) as e:
        log.error("cannot open %s: %s", args.record, e)
        return 2
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
    print(f"Scoreboard: http://{config.host}:{config.port}/", flush=True)
    print(console_join(config.host, config.port, how="start with --host 0.0.0.0"), flush=True)
    serve(app, server)
    return 0
