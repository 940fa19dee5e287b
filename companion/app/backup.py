"""``companion backup``: a copy of a game store, taken whole, even while the table is running.

Copying ``game.sqlite`` with ``cp`` misses the events still in its write-ahead
log (``game.sqlite-wal``) and may catch a page half written; this goes through
SQLite's backup API instead (:func:`companion.store.backup_store`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.store import StoreError, backup_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", type=Path, metavar="STORE",
                        help="the game store to copy: *.sqlite or *.db, or a *.jsonl game record")
    parser.add_argument("target", type=Path, metavar="TARGET", help="the new file (the same kind as STORE)")
    parser.add_argument("--force", action="store_true", help="replace TARGET if it exists")


def run(args: argparse.Namespace) -> int:
    try:
        count = backup_store(args.store, args.target, force=args.force)
    except StoreError as exc:
        print(f"companion backup: {exc}", file=sys.stderr)
        return 2
    print(f"{args.target}: {count} events, copied from {args.store}", flush=True)
    return 0
