"""Durable, ordered storage for game-record events.

Every event the table accepts is written to disk, and forced past the
operating system's cache, *before* it is acknowledged: a power cut at the card
table may lose the event being written, never one the players were told about.
The store knows nothing of the rules; it keeps docs/record.md events (plain
JSON-able dicts with a ``"type"``) in the order they came.

Two backends behind one interface, chosen by the file's suffix:

* :class:`SqliteStore` (``.sqlite``, ``.db``): one table in WAL mode with
  ``synchronous=FULL``, one transaction per event. Safe for several threads.
* :class:`JsonlStore` (``.jsonl``, ``.json``, ``.txt``): the game record file
  of docs/record.md itself, one line per event, ``fsync`` after each line. A last
  line torn by a power cut is dropped, with a warning, when the file is opened.

>>> import pathlib, tempfile
>>> folder = tempfile.mkdtemp()
>>> with open_store(pathlib.Path(folder) / "tonight.jsonl") as store:
...     store.append({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
...     store.append({"type": "deal", "dealer": "Ann"})
1
2
>>> with open_store(pathlib.Path(folder) / "tonight.jsonl") as store:
...     [event["type"] for event in store.events()]
['game', 'deal']
>>> open_store(pathlib.Path(folder) / "tonight.csv")
Traceback (most recent call last):
...
companion.store.StoreError: cannot tell the store kind from 'tonight.csv': use .sqlite or .db (SQLite), .jsonl, .json or .txt (JSON Lines)
"""

from __future__ import annotations

import contextlib
import errno
import io
import itertools
import json
import logging
import os
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Protocol, runtime_checkable

from companion.rules.events import MAX_JSON_DEPTH, json_depth

__all__ = [
    "DAMAGED_HINT",
    "DamagedStore",
    "EventStore",
    "JsonlStore",
    "SqliteStore",
    "StoreError",
    "StoreWriteError",
    "TargetExists",
    "backup_store",
    "canonical_json",
    "export_jsonl",
    "import_jsonl",
    "open_store",
    "set_aside",
]

log = logging.getLogger(__name__)

SQLITE_SUFFIXES = frozenset({".sqlite", ".db"})
JSONL_SUFFIXES = frozenset({".jsonl", ".json", ".txt"})
_SQLITE_COLUMNS = ["seq", "event", "at"]
_LINE_BREAKS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


class StoreError(ValueError):
    """Raised for an event, file or database the store cannot accept; nothing was changed."""


class StoreWriteError(StoreError):
    """The event could not be written (a full, read-only or failing disk); nothing was stored."""


class TargetExists(StoreError):
    """A backup would replace a file that is already there; nothing was written."""


class DamagedStore(StoreError):
    """The file cannot be trusted to hold the whole game (damaged, emptied, its log deleted); it was left as it is."""


DAMAGED_HINT = ("to go on, start again with --new-game: the file is moved aside whole (kept for a repair, "
                "never deleted) and a new game begins; a record exported earlier can then be imported from the referee page")


def canonical_json(event: Any) -> str:
    """One event as the single line the store writes: compact, ``"type"`` first, other keys sorted.

    A fixed form makes files diffable and lets a test compare stored bytes.
    Raises :class:`StoreError` for anything that is not a JSON object with a
    ``"type"`` string, or that JSON cannot hold exactly (NaN, sets, objects).

    >>> canonical_json({"player": "Ann", "type": "bet", "chips": 2})
    '{"type":"bet","chips":2,"player":"Ann"}'
    >>> canonical_json({"type": "bet", "chips": float("nan")})
    Traceback (most recent call last):
    ...
    companion.store.StoreError: event cannot be stored as JSON: Out of range float values are not JSON compliant
    """
    if not isinstance(event, dict):
        raise StoreError(f"an event must be a JSON object (dict), not {type(event).__name__}")
    kind = event.get("type")
    if not isinstance(kind, str) or not kind:
        raise StoreError(f'an event needs a "type" string, got {kind!r}')
    ordered = {"type": kind, **{k: event[k] for k in sorted(event, key=str) if k != "type"}}
    try:
        text = json.dumps(ordered, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        text.encode("utf-8")
        # Characters that str.splitlines() breaks on stay escaped, so every reader sees one event per line.
        text = text.translate(_LINE_BREAKS)
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise StoreError(f"event cannot be stored as JSON: {exc}") from None
    return text


def _parse_event(text: str, where: str) -> dict[str, Any]:
    """Reads one stored or imported line back, insisting on an object with a ``"type"`` string."""
    if json_depth(text) > MAX_JSON_DEPTH:
        raise StoreError(f"{where} nests deeper than {MAX_JSON_DEPTH} levels; no event does")
    try:
        event = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{where} is not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(event, dict):
        raise StoreError(f"{where} is not a JSON object")
    if not isinstance(event.get("type"), str) or not event["type"]:
        raise StoreError(f'{where} has no "type" string')
    return event


def _fsync_dir(folder: Path) -> None:
    """Makes a file's creation or rename itself durable (the entry lives in the folder)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@runtime_checkable
class EventStore(Protocol):
    """What the table needs from storage: append durably, read back in order, replace on import."""

    path: Path

    def append(self, event: dict[str, Any]) -> int:
        """Stores one event durably, then returns its 1-based sequence number."""
        ...

    def events(self) -> list[dict[str, Any]]:
        """All stored events, oldest first (fresh dicts; changing them changes nothing stored)."""
        ...

    def __len__(self) -> int: ...

    def replace(self, events: Iterable[dict[str, Any]]) -> None:
        """Replaces the whole game at once (an import): all events or, on any error, none."""
        ...

    def checkpoint(self) -> None:
        """Makes the file itself hold every event so far (SQLite's write-ahead log); a no-op where it always does."""
        ...

    def close(self) -> None:
        """Releases the file; further use raises :class:`StoreError`. Closing twice is harmless."""
        ...

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class SqliteStore(EventStore):
    """Events in one SQLite table, ``events(seq INTEGER PRIMARY KEY, event TEXT, at TEXT)``.

    WAL with ``synchronous=FULL`` makes each committed event survive a power
    cut; one connection behind a lock serves the camera loop, the web server
    and the button threads alike. ``at`` is the UTC time the event was stored.

    The database's ``user_version`` is 1 while a store has it open and 0
    after a clean close. Events since the last checkpoint live only in the
    ``-wal`` file beside it, so a store that was not closed cleanly and has no
    ``-wal`` file has lost them: opening it fails rather than show an older game.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            self._create()
        _check_sqlite_file(self.path, writable=True)
        try:
            conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path} as SQLite: {exc}") from None
        try:
            _check_schema(conn, self.path)
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode != "wal":
                log.warning("%s: SQLite refused WAL (journal_mode=%s); events stay durable but writes are slower", self.path, mode)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS events ("
                "seq INTEGER PRIMARY KEY, event TEXT NOT NULL, at TEXT NOT NULL)"
            )
            conn.execute("PRAGMA user_version=1")
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")  # the main file itself now says: in use
        except sqlite3.Error as exc:
            conn.close()
            raise _sqlite_error(self.path, exc) from None
        except StoreError:
            conn.close()
            raise
        self._conn: sqlite3.Connection | None = conn

    def _create(self) -> None:
        """A new, empty store, made under another name and renamed into place whole, so that
        an empty file at ``path`` is always damage, never a store that was just being made."""
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        os.close(fd)
        try:
            conn = sqlite3.connect(temp, isolation_level=None)
            try:
                conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, event TEXT NOT NULL, at TEXT NOT NULL)")
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            os.replace(temp, self.path)
        except (OSError, sqlite3.Error) as exc:
            Path(temp).unlink(missing_ok=True)
            raise StoreWriteError(f"cannot create {self.path}: {exc}") from None
        _fsync_dir(self.path.parent)

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"{self.path}: the store is closed")
        return self._conn

    @staticmethod
    def _now() -> str:
        return datetime.now(UTC).isoformat(timespec="milliseconds")

    def _write(self, statements: Callable[[sqlite3.Connection], Any]) -> Any:
        """Run ``statements`` in one immediate transaction: all of it, or (with a StoreError) none."""
        with self._lock:
            conn = self._connection()
            try:
                conn.execute("BEGIN IMMEDIATE")
                result = statements(conn)
                conn.execute("COMMIT")
                return result
            except BaseException as exc:
                if conn.in_transaction:  # SQLite may have rolled back already (a full disk does)
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _sqlite_error(self.path, exc) from None
                raise

    def append(self, event: dict[str, Any]) -> int:
        text = canonical_json(event)

        def insert(conn: sqlite3.Connection) -> int:
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events").fetchone()[0]
            conn.execute("INSERT INTO events (seq, event, at) VALUES (?, ?, ?)", (seq, text, self._now()))
            return int(seq)

        return int(self._write(insert))

    def _read(self, sql: str) -> list[Any]:
        with self._lock:
            try:
                return self._connection().execute(sql).fetchall()
            except sqlite3.Error as exc:
                raise _sqlite_error(self.path, exc) from None

    def events(self) -> list[dict[str, Any]]:
        rows = self._read("SELECT seq, event FROM events ORDER BY seq")
        return [_parse_event(text, f"{self.path}: event {seq}") for seq, text in rows]

    def __len__(self) -> int:
        return int(self._read("SELECT COUNT(*) FROM events")[0][0])

    def replace(self, events: Iterable[dict[str, Any]]) -> None:
        texts = [canonical_json(event) for event in events]
        at = self._now()

        def swap(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM events")
            conn.executemany(
                "INSERT INTO events (seq, event, at) VALUES (?, ?, ?)",
                ((seq, text, at) for seq, text in enumerate(texts, start=1)),
            )

        self._write(swap)
        self.checkpoint()

    def checkpoint(self) -> None:
        """Copy the events in the write-ahead log into the database file itself (after each hand),
        so a copy of the file alone, or the loss of the log, costs at most the current hand."""
        with self._lock:
            try:
                self._connection().execute("PRAGMA wal_checkpoint(PASSIVE)")
            except sqlite3.Error as exc:
                log.warning("%s: checkpoint failed: %s", self.path, exc)

    def backup(self, target: str | os.PathLike[str], *, force: bool = False) -> int:
        """Copy the whole store, write-ahead log included, to ``target`` through SQLite's backup API,
        as a store closed cleanly; returns the number of events copied. An existing ``target`` is
        refused unless ``force``."""
        with self._lock:
            return _backup_sqlite(self._connection(), self.path, Path(target), force=force)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.execute("PRAGMA user_version=0")
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                except sqlite3.Error as exc:  # left marked in use: the -wal file still holds the events
                    log.warning("%s: could not mark the store closed: %s", self.path, exc)
                self._conn.close()
                self._conn = None

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"


def _check_sqlite_file(path: Path, *, writable: bool) -> None:
    """Refuses, before SQLite sees it, a store that cannot be written (when ``writable``) or has lost part of the game."""
    if writable:
        try:
            os.close(os.open(path, os.O_RDWR))
        except OSError as exc:
            raise StoreWriteError(
                f"cannot write to {path} ({exc.strerror}): it is read-only or immutable; "
                "check its owner and mode (ls -l) and its attributes (lsattr)"
            ) from None
    wal = path.with_name(path.name + "-wal")
    if path.stat().st_size == 0 and not (wal.exists() and wal.stat().st_size):
        raise DamagedStore(f"{path} is empty (0 bytes): the game it held is gone (a failed copy or "
                           "a full disk?); it was left as it is")
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from None
    if len(header) == 100 and header.startswith(b"SQLite format 3\0") and not wal.exists():
        in_use = int.from_bytes(header[60:64], "big")  # user_version
        if in_use:
            raise DamagedStore(
                f"{path} was not closed cleanly and its write-ahead log {wal.name} is missing: "
                "the events since its last checkpoint are lost; put the -wal file back beside it "
                "(a backup must copy both, or use companion backup)"
            )


def _check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuses a database that is not ours, or is damaged, before anything is written to it or copied from it."""
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not an SQLite database ({exc}); it was left untouched") from None
    if not tables:
        return
    if "events" not in tables:
        raise StoreError(
            f"{path} is an SQLite database without an events table "
            f"(has: {', '.join(sorted(tables))}); it was left untouched"
        )
    columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
    if columns != _SQLITE_COLUMNS:
        raise StoreError(
            f"{path}: the events table has columns {columns}, expected {_SQLITE_COLUMNS}; it was left untouched"
        )
    problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise DamagedStore(f"{path} is damaged ({problems[0]}); it was left as it is")


def _sqlite_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """SQLite's error in words a person at the table can act on."""
    name = getattr(exc, "sqlite_errorname", "")
    if name == "SQLITE_FULL":
        return StoreWriteError(f"the disk is full: {path} could not store the event; nothing was stored (free some space)")
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")):
        return StoreWriteError(f"cannot write to {path} ({exc}): check its owner, mode and attributes (lsattr); "
                               "nothing was stored")
    if name.startswith("SQLITE_IOERR"):
        return StoreWriteError(f"the disk failed to write {path} ({exc}): is the disk full or failing? nothing was stored")
    if name in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return DamagedStore(f"{path} is damaged ({exc}); it was left as it is")
    return StoreError(f"{path}: {exc}")


def _write_error(path: Path, exc: OSError) -> StoreWriteError:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return StoreWriteError(f"the disk is full: {path} could not store the event ({exc.strerror}); "
                               "nothing was stored (free some space)")
    return StoreWriteError(f"cannot write to {path} ({exc.strerror}); nothing was stored")


class JsonlStore(EventStore):
    """A game record file (docs/record.md), appended one ``fsync``-ed line per event.

    The file stays a valid game record at every moment, so ``companion replay``
    and a text editor can read it directly. A last line without its newline is
    either a whole event whose newline was lost (kept, newline added) or a
    write torn by a power cut (cut off, with a warning naming the bytes); it is
    never merged with the next event. A bad line anywhere else means the file
    is not a record this store wrote, and opening it fails.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        try:
            # Unbuffered: a line the disk refused must not linger in a buffer and be written with the next one.
            handle = open(self.path, "a+b", buffering=0)  # noqa: SIM115 - held open for the store's life
        except OSError as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        try:
            self._lines = self._load(handle)
        except BaseException:
            handle.close()
            raise
        if created:
            _fsync_dir(self.path.parent)
        self._file: io.FileIO | None = handle
        self._size = handle.seek(0, io.SEEK_END)

    def _load(self, handle: io.FileIO) -> list[str]:
        """Reads the events already in the file, repairing only a torn last line."""
        handle.seek(0)
        data = handle.read()
        body, newline, tail = data.rpartition(b"\n")
        if not newline:
            body, tail = b"", data
        lines: list[str] = []
        for number, raw in enumerate(body.split(b"\n") if newline else [], start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise StoreError(f"{self.path}: line {number} is not UTF-8 text") from None
            if text.strip():
                _parse_event(text, f"{self.path}: line {number}")
                lines.append(text)
        if tail.strip():
            number = data.count(b"\n") + 1
            try:
                text = tail.decode("utf-8")
                _parse_event(text, "last line")
            except (UnicodeDecodeError, StoreError):
                log.warning(
                    "%s: line %d was cut off mid-write (%d bytes: %r); dropping it",
                    self.path, number, len(tail), tail[:80],
                )
                handle.truncate(len(data) - len(tail))
            else:
                log.info("%s: line %d had no final newline; adding it", self.path, number)
                handle.write(b"\n")
                lines.append(text)
            handle.flush()
            os.fsync(handle.fileno())
        return lines

    def _handle(self) -> io.FileIO:
        if self._file is None:
            raise StoreError(f"{self.path}: the store is closed")
        return self._file

    def append(self, event: dict[str, Any]) -> int:
        text = canonical_json(event)
        line = (text + "\n").encode("utf-8")
        with self._lock:
            handle = self._handle()
            try:
                written = 0
                while written < len(line):
                    written += handle.write(line[written:]) or 0
                os.fsync(handle.fileno())
            except OSError as exc:
                # A half-written line (disk full, I/O error) must not join the next event.
                os.ftruncate(handle.fileno(), self._size)
                raise _write_error(self.path, exc) from None
            self._size += len(line)
            self._lines.append(text)
            return len(self._lines)

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            self._handle()
            lines = list(self._lines)
        return [json.loads(text) for text in lines]

    def __len__(self) -> int:
        with self._lock:
            self._handle()
            return len(self._lines)

    def replace(self, events: Iterable[dict[str, Any]]) -> None:
        texts = [canonical_json(event) for event in events]
        with self._lock:
            old = self._handle()
            data = "".join(text + "\n" for text in texts).encode("utf-8")
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(data)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temp, self.path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
            _fsync_dir(self.path.parent)
            old.close()
            self._file = open(self.path, "ab", buffering=0)  # noqa: SIM115
            self._size = len(data)
            self._lines = texts

    def checkpoint(self) -> None:
        """Every line is in the file already."""

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __repr__(self) -> str:
        return f"JsonlStore({str(self.path)!r})"


def open_store(path: str | os.PathLike[str]) -> EventStore:
    """Opens (creating if needed, with its folders) the store the suffix names."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in SQLITE_SUFFIXES:
        return SqliteStore(p)
    if suffix in JSONL_SUFFIXES:
        return JsonlStore(p)
    raise StoreError(
        f"cannot tell the store kind from {p.name!r}: use .sqlite or .db (SQLite), .jsonl, .json or .txt (JSON Lines)"
    )


def export_jsonl(store: EventStore, file: str | os.PathLike[str] | IO[str]) -> int:
    """Writes the store's events as a game record (to a path, atomically, or to an open text file).

    Returns the number of events written.
    """
    lines = [canonical_json(event) + "\n" for event in store.events()]
    if not isinstance(file, (str, os.PathLike)):
        file.writelines(lines)
        return len(lines)
    write_whole(Path(file), "".join(lines))
    return len(lines)


def write_whole(target: Path, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as they are) to ``target`` whole or not at all: a new file beside
    it, flushed to disk, then renamed over it, so that a pulled plug leaves the old file or the new."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def import_jsonl(file: str | os.PathLike[str] | IO[str]) -> list[dict[str, Any]]:
    """Reads a game record for :meth:`EventStore.replace`, checking every line first.

    Blank lines are skipped (line numbers still count them, as in docs/record.md);
    any other line must be a JSON object with a ``"type"`` string, else
    :class:`StoreError` names the line. Whether the events make a legal game
    is the referee's business, not the store's.

    >>> import io
    >>> import_jsonl(io.StringIO('{"type":"game"}\\n\\n{"type":"deal","dealer":"Ann"}\\n'))
    [{'type': 'game'}, {'type': 'deal', 'dealer': 'Ann'}]
    >>> import_jsonl(io.StringIO('{"type":"game"}\\n[1, 2]\\n'))
    Traceback (most recent call last):
    ...
    companion.store.StoreError: line 2 is not a JSON object
    """
    if isinstance(file, (str, os.PathLike)):
        try:
            text = Path(file).read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise StoreError(f"{file} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
        except OSError as exc:
            raise StoreError(f"cannot read {file}: {exc.strerror}") from None
    else:
        text = file.read()
    events = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            events.append(_parse_event(line, f"line {number}"))
    return events


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in SQLITE_SUFFIXES:
        return "SQLite"
    if suffix in JSONL_SUFFIXES:
        return "JSON Lines"
    raise StoreError(
        f"cannot tell the store kind from {path.name!r}: use .sqlite or .db (SQLite), .jsonl, .json or .txt (JSON Lines)"
    )


def _check_target(source: Path, dest: Path, *, force: bool) -> None:
    """Refuses a copy that would overwrite something unasked, or the store itself."""
    if _kind(source) != _kind(dest):
        raise StoreError(f"{source.name} is a {_kind(source)} store and {dest.name} names a {_kind(dest)} one; "
                         "a backup keeps the kind (the referee page's export gives a JSON Lines record)")
    if dest.exists() or dest.is_symlink():
        if dest.resolve() == source.resolve():
            raise StoreError(f"{dest} is the store itself; choose another name for the backup")
        if not force:
            raise TargetExists(f"{dest} already exists; choose a new name for the backup (or replace it with --force)")
        if not dest.is_file():
            raise StoreError(f"{dest} is not a file; it was left as it is")
    for log_file in (dest.with_name(dest.name + "-wal"), dest.with_name(dest.name + "-journal")):
        if log_file.exists():  # SQLite would apply it to the copy put in its place
            raise StoreError(f"{log_file} lies beside {dest.name}: a store is open there or was not closed cleanly; "
                             "choose another name for the backup")


def _place(temp: Path, dest: Path, *, force: bool) -> None:
    """Puts the finished, fsynced copy ``temp`` at ``dest`` whole; without ``force`` never over a file
    that appeared meanwhile (a hard link fails where a rename would overwrite)."""
    exists = TargetExists(f"{dest} already exists; choose a new name for the backup (or replace it with --force)")
    try:
        if force:
            os.replace(temp, dest)
        else:
            try:
                os.link(temp, dest)  # the temporary name goes in the finally below
            except FileExistsError:
                raise exists from None
            except OSError:  # no hard links there (a FAT memory stick): checked, then renamed
                if dest.exists():
                    raise exists from None
                os.rename(temp, dest)
    except OSError as exc:
        raise StoreWriteError(f"cannot write the backup {dest} ({exc.strerror}); nothing was written") from None
    finally:
        temp.unlink(missing_ok=True)
    _fsync_dir(dest.parent)


def _temp_beside(dest: Path) -> Path:
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    except OSError as exc:
        raise StoreWriteError(f"cannot write the backup {dest} ({exc.strerror}); nothing was written") from None
    os.close(fd)
    return Path(temp)


def _backup_sqlite(source: sqlite3.Connection, path: Path, dest: Path, *, force: bool) -> int:
    """Copies the database behind ``source`` (its write-ahead log included) to ``dest`` through SQLite's
    backup API, as one file marked closed; returns the number of events, every one of them read back."""
    _check_target(path, dest, force=force)
    temp = _temp_beside(dest)
    try:
        copy = sqlite3.connect(temp, isolation_level=None)
        try:
            source.backup(copy)
            copy.execute("PRAGMA user_version=0")
            copy.execute("PRAGMA journal_mode=DELETE")  # one file, whole: nothing lives beside it
            rows = copy.execute("SELECT seq, event FROM events ORDER BY seq").fetchall()
        finally:
            copy.close()
        for seq, text in rows:
            _parse_event(text, f"{path}: event {seq}")
        with open(temp, "rb") as f:
            os.fsync(f.fileno())
    except sqlite3.Error as exc:
        temp.unlink(missing_ok=True)
        damaged = getattr(exc, "sqlite_errorname", "") in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
        raise _sqlite_error(path if damaged else dest, exc) from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _place(temp, dest, force=force)
    return len(rows)


def backup_store(source: str | os.PathLike[str], target: str | os.PathLike[str], *, force: bool = False) -> int:
    """Copies the game stored at ``source`` to ``target`` whole, while a table may be writing to it;
    returns the number of events copied.

    SQLite goes through the backup API on a read-only connection (the store is not marked, locked
    for long, or checkpointed), so the copy holds every committed event, those still in the
    write-ahead log too, as one file marked closed. A JSON Lines record is copied up to its last
    whole line (a line being written is not yet stored). A missing, damaged or foreign source, or an
    existing ``target`` without ``force``, is refused with :class:`StoreError` and nothing is written.
    """
    src, dest = Path(source), Path(target)
    kind = _kind(src)
    if not src.is_file():
        raise StoreError(f"there is no store at {src}" if not src.exists() else f"{src} is not a file")
    if kind == "SQLite":
        _check_sqlite_file(src, writable=False)
        try:
            conn = sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        except sqlite3.Error as exc:
            raise _sqlite_error(src, exc) from None
        try:
            _check_schema(conn, src)
            if not conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'events'").fetchone()[0]:
                raise StoreError(f"{src} holds no game (no events table); nothing was written")
            return _backup_sqlite(conn, src, dest, force=force)
        except sqlite3.Error as exc:
            raise _sqlite_error(src, exc) from None
        finally:
            conn.close()
    try:
        data = src.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {src}: {exc.strerror}") from None
    _check_target(src, dest, force=force)
    whole = data[: data.rfind(b"\n") + 1]  # a last line without its newline is still being written
    try:
        text = whole.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DamagedStore(f"{src}: byte {exc.start} is not UTF-8 text; it was left as it is") from None
    lines = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            _parse_event(line, f"{src}: line {number}")
            lines.append(line)
    temp = _temp_beside(dest)
    try:
        with open(temp, "wb") as out:
            out.write("".join(line + "\n" for line in lines).encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise _write_error(dest, exc) from None
    _place(temp, dest, force=force)
    return len(lines)


def set_aside(path: str | os.PathLike[str]) -> Path:
    """Renames a store that cannot be used, with its SQLite ``-wal`` and ``-shm`` files, to
    ``NAME-damaged-YYYYmmdd-HHMMSS.SUFFIX`` beside it (kept whole for a repair, never deleted),
    so that a new game can start at ``path``; returns the new name."""
    p = Path(path)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for n in itertools.count(1):
        aside = p.with_name(f"{p.stem}-damaged-{stamp}{'' if n == 1 else f'-{n}'}{p.suffix}")
        companions = [aside.with_name(aside.name + tail) for tail in ("-wal", "-shm")]
        if not any(q.exists() for q in (aside, *companions)):
            break
    try:
        for tail in ("-wal", "-shm", ""):  # the log first: a new store must never find an old one beside it
            moving = p.with_name(p.name + tail)
            if moving.exists():
                os.rename(moving, aside.with_name(aside.name + tail))
    except OSError as exc:
        raise StoreWriteError(f"cannot move {p} aside ({exc.strerror}); it was left where it is") from None
    _fsync_dir(p.parent)
    return aside
