"""``companion replay FILE [--json]``: apply a game record and report the board.

The output keys, line numbers and exit codes are those of docs/record.md: exit 0
whenever the file could be read, 2 when it cannot be read or its first line
(the first that is not blank) is not a valid ``game``.

``FILE`` is a JSON Lines record or a game store (``game.sqlite``,
``demo.sqlite``): a store is told by its SQLite header, whatever its name, and
is opened read-only, so a replay never changes the game it looks at. A
store's event ``n`` is replayed as line ``n``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from companion.rules.events import NewGame, parse_line
from companion.rules.game import Game


class UnreadableRecord(ValueError):
    """The record cannot be replayed at all (missing, not text, no game line)."""


SQLITE_HEADER = b"SQLite format 3\x00"


def record_lines(path: str | Path) -> list[str]:
    """The record's lines: those of a JSON Lines file, or a game store's events in order."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            header = f.read(len(SQLITE_HEADER))
        if header == SQLITE_HEADER:
            return _store_lines(p)
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark, as /api/import accepts
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableRecord(f"cannot read {path}: {exc}") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _store_lines(path: Path) -> list[str]:
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise UnreadableRecord(f"cannot open {path} as a game store: {exc}") from None
    try:
        rows = conn.execute("SELECT event FROM events ORDER BY seq").fetchall()
    except sqlite3.Error as exc:
        raise UnreadableRecord(f"{path} is an SQLite database but not a game store ({exc})") from None
    finally:
        conn.close()
    return [str(text) for (text,) in rows]  # a row that is not JSON text is refused at its line, like a bad line


def replay_file(path: str | Path) -> Game:
    """Replay the record at ``path``; refused lines are listed in ``game.rejected``."""
    lines = record_lines(path)
    game = Game()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if not game.started:
            try:
                first = parse_line(line)
            except ValueError as exc:
                raise UnreadableRecord(f"{path}:{number}: the first line is not a valid game line: {exc}") from None
            if not isinstance(first, NewGame):
                raise UnreadableRecord(f"{path}:{number}: the first line must be a game line, not {first.type!r}")
        game.push_line(line, line=number)
    if not game.started:
        raise UnreadableRecord(f"{path}: the record is empty")
    return game


def describe(game: Game) -> str:
    """A readable summary: the board, the balances, and what was refused or flagged."""
    summary = game.summary()
    s = game.state
    out = [f"{s.variant.title}: {summary['hands']} hand(s), phase {summary['phase']}"]
    out.append("Board:    " + "  ".join(f"{name} {chips}" for name, chips in summary["board"].items()))
    out.append("Balances: " + "  ".join(f"{name} {chips}" for name, chips in summary["balances"].items()))
    for r in summary["rejected"]:
        out.append(f"line {r['line']}: refused: {r['reason']}")
    for f in summary["flags"]:
        out.append(f"line {f['line']}: flag {f['kind']}: {', '.join(f['players'])} ({' '.join(f['cards'])})")
    return "\n".join(out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a game record (JSON Lines) or a game store (.sqlite)")
    parser.add_argument("--json", action="store_true", help="print the summary of docs/record.md as one JSON object")


def run(args: argparse.Namespace) -> int:
    try:
        game = replay_file(args.file)
    except UnreadableRecord as exc:
        print(f"companion replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        text = json.dumps(game.summary(), ensure_ascii=False)
        if not _encodable(text):  # a lone surrogate, or a terminal that is not UTF-8: JSON's own escapes
            text = json.dumps(game.summary())
        print(text)
    else:
        text = describe(game)
        encoding = sys.stdout.encoding or "utf-8"
        print(text if _encodable(text) else text.encode(encoding, "backslashreplace").decode(encoding))
    return 0


def _encodable(text: str) -> bool:
    """Whether ``text`` can be written to stdout as it is (a name may hold any code point, even ``\\ud800``)."""
    try:
        text.encode(sys.stdout.encoding or "utf-8")
    except UnicodeEncodeError:
        return False
    return True
