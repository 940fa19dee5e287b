"""``companion backup``: a whole copy of a store, taken while the table writes, or a one-line refusal."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from companion.app.cli import main
from companion.store import (
    DamagedStore,
    StoreError,
    TargetExists,
    backup_store,
    open_store,
)
from server_helpers import flip_bytes

GAME = {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50}


def _bets(n: int) -> list[dict]:
    return [GAME] + [{"type": "bet", "player": "Ann", "chips": i + 1} for i in range(n - 1)]


def _closed_store(path: Path, n: int) -> None:
    with open_store(path) as store:
        store.replace(_bets(n))  # one transaction: fast, whatever n


def _user_version(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[60:64], "big")


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["backup", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_running_store_is_copied_with_what_its_log_holds(tmp_path: Path) -> None:
    source = tmp_path / "game.sqlite"
    store = open_store(source)  # left open, as the running table leaves it
    for event in _bets(6):
        store.append(event)
    assert (tmp_path / "game.sqlite-wal").stat().st_size > 0  # the events are still in the log
    assert backup_store(source, tmp_path / "copy" / "backup.sqlite") == 6
    assert _user_version(source) == 1  # the table's store is not marked closed by the copy
    assert store.append({"type": "deal", "dealer": "Ann"}) == 7  # and it goes on
    store.close()
    copy = tmp_path / "copy" / "backup.sqlite"
    assert _user_version(copy) == 0 and sorted(p.name for p in copy.parent.iterdir()) == ["backup.sqlite"]
    with open_store(copy) as restored:
        assert restored.events() == _bets(6)


def test_each_copy_taken_while_events_arrive_is_a_whole_prefix(tmp_path: Path) -> None:
    source = tmp_path / "game.sqlite"
    store = open_store(source)
    store.append(GAME)
    done = threading.Event()

    def write() -> None:
        for i in range(40):
            store.append({"type": "bet", "player": "Bob", "chips": i + 1})
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    counts = []
    for k in range(6):
        counts.append(backup_store(source, tmp_path / f"b{k}.sqlite"))
    writer.join()
    final = store.events()
    store.close()
    for k, count in enumerate(counts):
        with open_store(tmp_path / f"b{k}.sqlite") as copy:
            assert copy.events() == final[:count]
    assert counts == sorted(counts) and done.is_set()


def test_the_command_copies_and_says_how_many_events(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _closed_store(tmp_path / "game.sqlite", 12)
    code, out, err = _cli(capsys, str(tmp_path / "game.sqlite"), str(tmp_path / "usb" / "tonight.sqlite"))
    assert (code, err) == (0, "") and "12 events" in out
    with open_store(tmp_path / "usb" / "tonight.sqlite") as copy:
        assert len(copy) == 12


def test_an_existing_target_is_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _closed_store(tmp_path / "game.sqlite", 3)
    target = tmp_path / "old.sqlite"
    _closed_store(target, 9)
    before = target.read_bytes()
    code, out, err = _cli(capsys, str(tmp_path / "game.sqlite"), str(target))
    assert code == 2 and out == "" and "already exists" in err and "--force" in err
    assert len(err.strip().splitlines()) == 1 and target.read_bytes() == before
    code, out, err = _cli(capsys, str(tmp_path / "game.sqlite"), str(target), "--force")
    assert code == 0 and "3 events" in out
    with open_store(target) as copy:
        assert len(copy) == 3
    with pytest.raises(TargetExists):
        backup_store(tmp_path / "game.sqlite", target)
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_store_itself_is_never_the_target(tmp_path: Path) -> None:
    _closed_store(tmp_path / "game.sqlite", 3)
    with pytest.raises(StoreError, match="the store itself"):
        backup_store(tmp_path / "game.sqlite", tmp_path / "." / "game.sqlite", force=True)
    with open_store(tmp_path / "game.sqlite") as store:
        assert len(store) == 3


def test_a_target_with_a_log_beside_it_is_refused_even_forced(tmp_path: Path) -> None:
    _closed_store(tmp_path / "game.sqlite", 3)
    other = open_store(tmp_path / "other.sqlite")  # a store open there: its -wal would be applied to the copy
    other.append(GAME)
    with pytest.raises(StoreError, match=r"other\.sqlite-wal lies beside"):
        backup_store(tmp_path / "game.sqlite", tmp_path / "other.sqlite", force=True)
    assert len(other) == 1
    other.close()


@pytest.mark.parametrize("damage", ["missing", "empty", "flipped", "log deleted", "foreign"])
def test_a_missing_or_damaged_source_is_one_line_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str) -> None:
    source = tmp_path / "game.sqlite"
    if damage != "missing":
        _closed_store(source, 300)
    if damage == "empty":
        source.write_bytes(b"")
    elif damage == "flipped":
        flip_bytes(source)
    elif damage == "log deleted":
        data = bytearray(source.read_bytes())
        data[60:64] = (1).to_bytes(4, "big")  # marked open, as a store the power cut left with its -wal
        source.write_bytes(bytes(data))
    elif damage == "foreign":
        source.unlink()
        with sqlite3.connect(source) as conn:
            conn.execute("CREATE TABLE photos (id INTEGER)")
    code, out, err = _cli(capsys, str(source), str(tmp_path / "backup.sqlite"))
    expected = {"missing": "there is no store at", "empty": "is empty", "flipped": "is damaged",
                "log deleted": "write-ahead log game.sqlite-wal is missing", "foreign": "without an events table"}
    assert code == 2 and out == "" and expected[damage] in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not [p.name for p in tmp_path.iterdir() if "backup" in p.name]


def test_a_flipped_source_raises_damaged_store(tmp_path: Path) -> None:
    source = tmp_path / "game.sqlite"
    _closed_store(source, 300)
    flip_bytes(source)
    with pytest.raises(DamagedStore):
        backup_store(source, tmp_path / "backup.sqlite")


def test_a_json_lines_record_is_copied_up_to_its_last_whole_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "game.jsonl"
    with open_store(source) as store:
        for event in _bets(4):
            store.append(event)
    with open(source, "ab") as f:
        f.write(b'{"type":"bet","play')  # a line still being written: not stored yet
    code, out, _ = _cli(capsys, str(source), str(tmp_path / "copy.jsonl"))
    assert code == 0 and "4 events" in out
    with open_store(tmp_path / "copy.jsonl") as copy:
        assert copy.events() == _bets(4)


def test_a_json_lines_record_with_a_bad_line_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "game.jsonl"
    source.write_text('{"type":"game"}\n{"type":\n{"type":"deal","dealer":"Ann"}\n', encoding="utf-8")
    with pytest.raises(StoreError, match="line 2 is not JSON"):
        backup_store(source, tmp_path / "copy.jsonl")
    assert not (tmp_path / "copy.jsonl").exists()


def test_a_backup_keeps_the_kind_of_store(tmp_path: Path) -> None:
    _closed_store(tmp_path / "game.sqlite", 3)
    with pytest.raises(StoreError, match="a backup keeps the kind"):
        backup_store(tmp_path / "game.sqlite", tmp_path / "game.jsonl")
    assert not (tmp_path / "game.jsonl").exists()


def test_a_target_folder_without_hard_links_still_gets_the_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def no_links(*_: object) -> None:
        raise PermissionError(1, "Operation not permitted")  # as on a FAT memory stick

    _closed_store(tmp_path / "game.sqlite", 4)
    monkeypatch.setattr(os, "link", no_links)
    assert backup_store(tmp_path / "game.sqlite", tmp_path / "stick" / "game.sqlite") == 4
    with pytest.raises(TargetExists):
        backup_store(tmp_path / "game.sqlite", tmp_path / "stick" / "game.sqlite")
    assert sorted(p.name for p in (tmp_path / "stick").iterdir()) == ["game.sqlite"]
