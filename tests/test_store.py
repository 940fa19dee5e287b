"""The event store: round trips, durability under SIGKILL, torn lines, corrupt files, threads."""

from __future__ import annotations

import io
import json
import logging
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.store import (
    DamagedStore,
    EventStore,
    JsonlStore,
    SqliteStore,
    StoreError,
    StoreWriteError,
    canonical_json,
    export_jsonl,
    import_jsonl,
    open_store,
)
from server_helpers import flip_bytes

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = [".sqlite", ".jsonl"]

GAME: dict[str, Any] = {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100}
HAND: list[dict[str, Any]] = [
    GAME,
    {"type": "deal", "dealer": "Ann"},
    {"type": "widow", "action": "keep"},
    {"type": "bet", "player": "Ann", "chips": 2},
    {"type": "show", "player": "Ann", "cards": ["9S", "9H", "4C", "4D", "KS"]},
    {"type": "next"},
    {"type": "play", "player": "Ann", "card": "5H"},
    {"type": "undo"},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
events_strategy = st.builds(
    lambda kind, fields: {**fields, "type": kind},
    st.text(min_size=1, max_size=10),
    st.dictionaries(st.text(max_size=8), json_values, max_size=5),
)


@pytest.fixture(params=SUFFIXES)
def store_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return tmp_path / "games" / f"tonight{request.param}"


def test_open_store_picks_the_backend_by_suffix(tmp_path: Path) -> None:
    for name, kind in [("a.sqlite", SqliteStore), ("b.db", SqliteStore), ("c.jsonl", JsonlStore),
                       ("d.json", JsonlStore), ("e.TXT", JsonlStore)]:
        with open_store(tmp_path / "deep" / "folder" / name) as store:
            assert type(store) is kind
            assert isinstance(store, EventStore)
            assert store.path == tmp_path / "deep" / "folder" / name
    with pytest.raises(StoreError, match=r"suffix|kind"):
        open_store(tmp_path / "game.csv")


def test_round_trip_survives_reopening(store_path: Path) -> None:
    with open_store(store_path) as store:
        assert len(store) == 0 and store.events() == []
        assert [store.append(e) for e in HAND] == list(range(1, len(HAND) + 1))
        assert store.events() == HAND
    with open_store(store_path) as store:
        assert len(store) == len(HAND)
        assert store.events() == HAND
        assert store.append({"type": "pass", "player": "Bob"}) == len(HAND) + 1


def test_events_are_copies(store_path: Path) -> None:
    with open_store(store_path) as store:
        store.append({"type": "show", "player": "Ann", "cards": ["AS"]})
        store.events()[0]["cards"].append("KS")
        assert store.events() == [{"type": "show", "player": "Ann", "cards": ["AS"]}]


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(events_strategy, max_size=6))
def test_any_json_event_round_trips(tmp_path: Path, events: list[dict]) -> None:
    for suffix in SUFFIXES:
        path = tmp_path / f"h{suffix}"
        path.unlink(missing_ok=True)
        with open_store(path) as store:
            store.replace([])
            for e in events:
                store.append(e)
        with open_store(path) as store:
            assert store.events() == events
            out = io.StringIO()
            assert export_jsonl(store, out) == len(events)
            assert import_jsonl(io.StringIO(out.getvalue())) == events


def test_jsonl_file_is_a_game_record(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    with open_store(path) as store:
        for e in HAND[:2]:
            store.append(e)
        store.append({"type": "note", "text": "line\u2028break\x85here"})
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == '{"type":"game","chips":100,"players":["Ann","Bob","Cy"],"variant":"michigan-1939"}'
    assert lines[1] == '{"type":"deal","dealer":"Ann"}'
    assert lines[3] == "" and len(path.read_text(encoding="utf-8").splitlines()) == 3


@pytest.mark.parametrize(
    "bad, reason",
    [
        (["deal"], "JSON object"),
        ({"dealer": "Ann"}, '"type"'),
        ({"type": ""}, '"type"'),
        ({"type": 3}, '"type"'),
        ({"type": "bet", "chips": float("inf")}, "JSON"),
        ({"type": "bet", "chips": {1, 2}}, "JSON"),
        ({"type": "note", "text": "\ud800"}, "JSON"),
    ],
)
def test_bad_events_are_refused_and_change_nothing(store_path: Path, bad: object, reason: str) -> None:
    with open_store(store_path) as store:
        store.append(GAME)
        with pytest.raises(StoreError, match=reason):
            store.append(bad)  # type: ignore[arg-type]
        with pytest.raises(StoreError, match=reason):
            store.replace([GAME, bad])  # type: ignore[list-item]
        assert store.events() == [GAME]
    with open_store(store_path) as store:
        assert store.events() == [GAME]


def test_replace_swaps_the_whole_game(store_path: Path) -> None:
    with open_store(store_path) as store:
        for e in HAND:
            store.append(e)
        store.replace(HAND[:2])
        assert store.events() == HAND[:2] and len(store) == 2
        assert store.append({"type": "next"}) == 3
    with open_store(store_path) as store:
        assert store.events() == [*HAND[:2], {"type": "next"}]
    assert [p.name for p in store_path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_closed_store_refuses_use(store_path: Path) -> None:
    store = open_store(store_path)
    store.close()
    store.close()
    for use in (lambda: store.append(GAME), store.events, lambda: len(store), lambda: store.replace([])):
        with pytest.raises(StoreError, match="closed"):
            use()


def test_concurrent_appends_keep_order_and_count(store_path: Path) -> None:
    threads, per_thread = 4, 25
    acked: dict[int, dict] = {}
    lock = threading.Lock()
    with open_store(store_path) as store:

        def writer(t: int) -> None:
            for i in range(per_thread):
                event = {"type": "bet", "player": f"T{t}", "chips": i + 1}
                seq = store.append(event)
                with lock:
                    acked[seq] = event

        workers = [threading.Thread(target=writer, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        stored = store.events()
    assert sorted(acked) == list(range(1, threads * per_thread + 1))
    assert stored == [acked[seq] for seq in sorted(acked)]
    for t in range(threads):  # each thread's own events stay in its order
        assert [e["chips"] for e in stored if e["player"] == f"T{t}"] == list(range(1, per_thread + 1))
    with open_store(store_path) as store:
        assert store.events() == stored


WRITER = """
import sys
from companion.store import open_store
with open_store(sys.argv[1]) as store:
    n = len(store)
    while True:
        n += 1
        seq = store.append({"type": "bet", "player": "Ann", "chips": n})
        print(seq, flush=True)
"""


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_sigkill_loses_no_acknowledged_event(tmp_path: Path, suffix: str) -> None:
    """A writer killed at a random moment keeps every event it acknowledged, plus at most the one in flight."""
    path = tmp_path / f"killed{suffix}"
    rng = random.Random(20261129)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(4):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        first = child.stdout.readline()  # the writer is appending now
        assert first.strip().isdigit(), first
        time.sleep(rng.uniform(0.0, 0.15))
        child.send_signal(signal.SIGKILL)
        rest = child.stdout.read()
        child.wait()
        assert child.returncode == -signal.SIGKILL
        acked = [int(line) for line in (first + rest).split()]
        assert acked == list(range(acked[0], acked[-1] + 1))
        with open_store(path) as store:
            stored = store.events()
        assert len(stored) in (acked[-1], acked[-1] + 1)
        assert stored == [{"type": "bet", "player": "Ann", "chips": n} for n in range(1, len(stored) + 1)]


def test_torn_last_line_is_dropped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "torn.jsonl"
    whole = canonical_json(HAND[1])
    path.write_bytes((canonical_json(GAME) + "\n" + whole[:-7]).encode())
    with caplog.at_level(logging.WARNING, logger="companion.store"):
        store = JsonlStore(path)
    with store:
        assert "line 2" in caplog.text and "cut off" in caplog.text
        assert store.events() == [GAME]
        assert store.append(HAND[2]) == 2  # starts on a line of its own, never merged
    assert path.read_text().split("\n") == [canonical_json(GAME), canonical_json(HAND[2]), ""]


LAST = {"type": "show", "player": "Zoë", "cards": ["9S", "9H"], "note": "naïve ♠"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(min_value=0, max_value=len((canonical_json(LAST) + "\n").encode())))
def test_a_last_line_cut_anywhere_is_kept_whole_or_dropped(tmp_path: Path, cut: int) -> None:
    """Wherever a power cut stops the last write, reopening keeps that event only if all of it is there."""
    path = tmp_path / f"cut{cut}.jsonl"
    head = (canonical_json(GAME) + "\n").encode()
    last = (canonical_json(LAST) + "\n").encode()
    path.write_bytes(head + last[:cut])
    expected = [GAME, LAST] if cut >= len(last) - 1 else [GAME]
    with JsonlStore(path) as store:
        assert store.events() == expected
        store.append({"type": "next"})
    with JsonlStore(path) as store:
        assert store.events() == [*expected, {"type": "next"}]
    assert import_jsonl(path) == [*expected, {"type": "next"}]


def test_torn_multibyte_character_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "torn.jsonl"
    path.write_bytes(canonical_json(GAME).encode() + b"\n" + '{"type":"note","text":"é'.encode()[:-1])
    with JsonlStore(path) as store:
        assert store.events() == [GAME]


def test_complete_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "edited.jsonl"
    path.write_text('{"type": "game", "chips": 5}\n\n{"type": "deal", "dealer": "Ann"}')
    with JsonlStore(path) as store:
        assert store.events() == [{"type": "game", "chips": 5}, {"type": "deal", "dealer": "Ann"}]
        assert store.append({"type": "next"}) == 3
    assert import_jsonl(path)[-1] == {"type": "next"}


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"type":"game"}\nnot json\n{"type":"deal"}\n', "line 2 is not JSON"),
        ('{"type":"game"}\n[1]\n', "line 2 is not a JSON object"),
        ('{"type":"game"}\n{"dealer":"Ann"}\n', 'line 2 has no "type"'),
    ],
)
def test_corrupt_jsonl_is_refused_and_left_alone(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(StoreError, match=message):
        JsonlStore(path)
    assert path.read_text() == content


def test_non_sqlite_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "game.db"
    content = b'{"type":"game"}\n' * 100
    path.write_bytes(content)
    with pytest.raises(StoreError, match="not an SQLite database"):
        open_store(path)
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.db"]


@pytest.mark.parametrize(
    "schema, message",
    [
        ("CREATE TABLE scores (name TEXT, points INTEGER)", "without an events table"),
        ("CREATE TABLE events (id INTEGER PRIMARY KEY, body TEXT)", "columns"),
    ],
)
def test_wrong_schema_is_refused_and_left_alone(tmp_path: Path, schema: str, message: str) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(schema)
    before = path.read_bytes()
    with pytest.raises(StoreError, match=message):
        open_store(path)
    assert path.read_bytes() == before


def test_sqlite_uses_wal_and_records_utc_time(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with open_store(path) as store:
        store.append(GAME)
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            seq, text, at = conn.execute("SELECT seq, event, at FROM events").fetchone()
    assert (seq, json.loads(text)) == (1, GAME)
    assert at.endswith("+00:00")


def test_export_import_through_files(store_path: Path, tmp_path: Path) -> None:
    with open_store(store_path) as store:
        for e in HAND:
            store.append(e)
        assert export_jsonl(store, tmp_path / "out" / "record.jsonl") == len(HAND)
    assert import_jsonl(tmp_path / "out" / "record.jsonl") == HAND


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"type":"game"}\n\n{"type":"deal"\n', "line 3 is not JSON"),
        ('{"type":"game"}\n"deal"\n', "line 2 is not a JSON object"),
        ('{"type":"game"}\n{"type":null}\n', 'line 2 has no "type"'),
    ],
)
def test_import_names_the_bad_line_and_changes_nothing(store_path: Path, tmp_path: Path, content: str, message: str) -> None:
    record = tmp_path / "import.jsonl"
    record.write_text(content)
    with open_store(store_path) as store:
        store.append(GAME)
        with pytest.raises(StoreError, match=message):
            store.replace(import_jsonl(record))
        assert store.events() == [GAME]


def test_import_of_unreadable_file_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot read"):
        import_jsonl(tmp_path / "missing.jsonl")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"type":"note","text":"\xe9"}\n')
    with pytest.raises(StoreError, match="not UTF-8"):
        import_jsonl(tmp_path / "latin1.jsonl")


# ---- a full disk ---------------------------------------------------------------------------------
# RLIMIT_FSIZE makes write() fail past a size as a full disk does, in a child process of its own.

FULL_DISK_CHILD = r"""
import json, resource, signal, sys
from pathlib import Path
from companion.store import StoreError, open_store

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
path = Path(sys.argv[1])
store = open_store(path)
store.append({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
store.append({"type": "deal", "dealer": "Ann"})
grown = path.stat().st_size + (path.with_name(path.name + "-wal").stat().st_size if path.suffix == ".sqlite" else 0)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (max(path.stat().st_size, grown) + 100, hard))
failures = []
for _ in range(3):
    try:
        store.append({"type": "bet", "player": "Ann", "chips": 1, "note": "x" * 20000})
    except (OSError, StoreError) as exc:
        failures.append(f"{type(exc).__name__}: {exc}")
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
store.append({"type": "deal", "dealer": "Bob"})
store.close()
print(json.dumps(failures))
"""


@pytest.mark.parametrize("suffix", [".jsonl", ".sqlite"])
def test_a_full_disk_refuses_the_event_and_stores_the_next_once(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"game{suffix}"
    child = subprocess.run([sys.executable, "-c", FULL_DISK_CHILD, str(path)], capture_output=True, text=True,
                           timeout=60, cwd=Path(__file__).parents[1])
    assert child.returncode == 0, child.stderr
    failures = json.loads(child.stdout)
    assert len(failures) == 3 and all(f.startswith("StoreWriteError") for f in failures), failures
    assert all("nothing was stored" in f and "disk" in f and str(path) in f for f in failures), failures
    with open_store(path) as store:  # before: game, deal, deal (the refused line, or the good one, written twice)
        assert [(e["type"], e.get("dealer")) for e in store.events()] == [("game", None), ("deal", "Ann"), ("deal", "Bob")]


# ---- stores that refuse, never guess ---------------------------------------------------------------

def _store_with(path: Path, n: int) -> None:
    with open_store(path) as store:
        store.append({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
        for i in range(n - 1):
            store.append({"type": "bet", "player": "Ann", "chips": i + 1})


def test_flipped_bytes_are_refused_as_damage_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    _store_with(path, 300)
    flip_bytes(path)
    damaged = path.read_bytes()
    with pytest.raises(DamagedStore, match="is damaged"):
        open_store(path)
    assert path.read_bytes() == damaged
    cli = subprocess.run([sys.executable, "-m", "companion", "web", "--record", str(path)], capture_output=True,
                         text=True, timeout=60, cwd=Path(__file__).parents[1])
    assert cli.returncode == 2 and "Traceback" not in cli.stderr and "is damaged" in cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1, cli.stderr


def test_an_emptied_store_is_refused_not_opened_as_a_new_game(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    _store_with(path, 300)
    path.write_bytes(b"")
    with pytest.raises(DamagedStore, match="empty"):
        open_store(path)
    assert path.stat().st_size == 0


CRASH_CHILD = r"""
import os, sys
from companion.store import open_store
store = open_store(sys.argv[1])
store.append({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
for i in range(169):
    store.append({"type": "bet", "player": "Ann", "chips": i + 1})
os._exit(0)  # as a power cut or SIGKILL: no close, the events since the checkpoint are in the -wal file
"""


def test_a_store_whose_log_was_deleted_after_a_crash_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    subprocess.run([sys.executable, "-c", CRASH_CHILD, str(path)], check=True, timeout=60, cwd=Path(__file__).parents[1])
    wal = tmp_path / "game.sqlite-wal"
    kept = wal.read_bytes()
    wal.unlink()
    (tmp_path / "game.sqlite-shm").unlink(missing_ok=True)
    with pytest.raises(DamagedStore, match=r"write-ahead log game\.sqlite-wal is missing"):
        open_store(path)  # before: opened with the 0 events of the last checkpoint, and no word
    wal.write_bytes(kept)
    with open_store(path) as store:
        assert len(store) == 170


def test_a_clean_close_leaves_one_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    _store_with(path, 5)
    assert not (tmp_path / "game.sqlite-wal").exists()
    copy = tmp_path / "copy" / "game.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(path.read_bytes())
    with open_store(copy) as store:
        assert len(store) == 5


def test_backup_copies_what_the_log_holds_too(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    store = open_store(path)
    store.append({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
    store.append({"type": "deal", "dealer": "Ann"})
    assert isinstance(store, SqliteStore) and store.backup(tmp_path / "backup.sqlite") == 2
    with pytest.raises(StoreError, match="already exists"):
        store.backup(tmp_path / "backup.sqlite")
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("backup")) == ["backup.sqlite"]
    with open_store(tmp_path / "backup.sqlite") as copy:
        assert [e["type"] for e in copy.events()] == ["game", "deal"]


def test_a_store_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    _store_with(path, 3)
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not allowed here")
    else:
        path.chmod(0o444)
    try:
        with pytest.raises(StoreWriteError, match="read-only or immutable"):
            open_store(path)  # before: "not an SQLite database"
    finally:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        path.chmod(0o644)
