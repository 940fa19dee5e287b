"""The table: events applied, stored before they are acknowledged, announced; refusals change nothing."""

import json
from pathlib import Path
from typing import Any

import pytest

from companion.rules.errors import RecordError, RuleError
from companion.table import Table

GAME: dict[str, Any] = {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100}
OPENING: list[dict[str, Any]] = [GAME, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, {"type": "next"}]


@pytest.fixture(params=["game.sqlite", "game.jsonl"])
def table(tmp_path: Path, request: pytest.FixtureRequest) -> Table:
    t = Table.open(tmp_path / request.param)
    for event in OPENING:
        t.submit(event)
    return t


def test_accepted_events_are_stored_and_survive_a_reopen(table: Table) -> None:
    table.submit({"type": "play", "player": "Ann", "card": "5H"})
    path = table.store.path
    table.close()
    again = Table.open(path)
    assert again.view()["run"]["played"]["Ann"] == ["5H"]
    assert again.view()["balances"] == table.view()["balances"]


def test_a_refused_event_changes_nothing(table: Table) -> None:
    before, stored = table.view(), len(table.store)
    with pytest.raises(RuleError, match="Ann leads"):
        table.submit({"type": "play", "player": "Bob", "card": "9C"})
    with pytest.raises(RecordError):
        table.submit({"type": "bet", "player": "Bob", "chips": "3"})
    assert table.view() == before and len(table.store) == stored


def test_an_announced_refusal_is_shown_until_cleared(table: Table) -> None:
    with pytest.raises(RuleError):
        table.submit({"type": "play", "player": "Bob", "card": "9C"}, announce=True)
    notice = table.view()["notice"]
    assert notice["kind"] == "rejected" and notice["card"] == "9C" and "Bob" in notice["text"]
    table.clear_notice()
    assert table.view()["notice"] is None


def test_undo_is_stored_and_replayed(table: Table) -> None:
    table.submit({"type": "play", "player": "Ann", "card": "5H"})
    table.submit({"type": "undo"})
    assert table.view()["run"]["played"]["Ann"] == []
    assert Table.open(table.store.path).view()["run"]["played"]["Ann"] == []


def test_watchers_hear_every_change(table: Table) -> None:
    q = table.subscribe()
    heard: list[int] = []
    table.add_listener(lambda view: heard.append(view["version"]))
    table.submit({"type": "play", "player": "Ann", "card": "5H"})
    assert q.get_nowait()["run"]["last_card"] == "5H"
    assert heard == [table.view()["version"]]
    table.unsubscribe(q)


def test_uncertain_reads_wait_for_confirmation(table: Table) -> None:
    first = table.hold(action="play", player="Ann", candidates=[("5H", 0.6), ("5D", 0.3)])
    second = table.hold(action="play", player="Cy", candidates=[("QS", 0.5)])
    assert [p["id"] for p in table.view()["pending"]] == [first, second]
    table.confirm()  # the board's button: the oldest, its best candidate
    assert table.view()["run"]["played"]["Ann"] == ["5H"]
    with pytest.raises(RuleError):
        table.confirm(second, "9C")  # a correction that the rules refuse keeps the read waiting
    assert [p["id"] for p in table.view()["pending"]] == [second]
    table.dismiss(second)
    with pytest.raises(RecordError):
        table.confirm(second)


def test_a_held_read_says_why_and_a_nonsense_reason_holds_nothing(table: Table) -> None:
    held = table.hold(action="play", player="Bob", candidates=[("7C", 0.98)], reason="unmoved")
    assert table.view()["pending"] == [{"id": held, "action": "play", "player": "Bob",
                                        "candidates": [["7C", 0.98]], "reason": "unmoved"}]
    version = table.view()["version"]
    with pytest.raises(ValueError, match="reason"):
        table.hold(action="play", player="Bob", candidates=[("7C", 0.98)], reason="because")
    assert len(table.view()["pending"]) == 1 and table.view()["version"] == version


def test_a_new_game_archives_the_old_one(table: Table) -> None:
    table.start({**GAME, "variant": "tripoley"})
    assert table.view()["variant"] == "tripoley" and len(table.store) == 1
    archived = list(table.store.path.parent.glob("game-*.jsonl"))
    assert len(archived) == 1 and len(archived[0].read_text().splitlines()) == len(OPENING)


def test_games_replaced_within_a_second_are_each_archived(table: Table) -> None:
    """A new game and an import a moment apart: one archive policy, and no archive written over another."""
    first = table.export_jsonl()
    table.start({**GAME, "variant": "tripoley"})
    second = table.export_jsonl()
    table.replace_from_jsonl(first)
    table.replace_from_jsonl(second)
    kept = sorted(p.read_text() for p in table.store.path.parent.glob("game-*.jsonl"))
    assert kept == sorted([first, second, first])


def test_import_checks_every_line_first(table: Table) -> None:
    exported = table.export_jsonl()
    bad = exported + json.dumps({"type": "play", "player": "Zed", "card": "5H"}) + "\n"
    before = table.view()
    with pytest.raises(RecordError, match="line 5"):
        table.replace_from_jsonl(bad)
    assert table.view() == before
    table.replace_from_jsonl(exported + json.dumps({"type": "play", "player": "Ann", "card": "5H"}) + "\n")
    assert table.view()["run"]["last_card"] == "5H"


def test_a_stored_event_the_referee_refuses_stops_the_start(tmp_path):
    import sqlite3

    from companion.store import DamagedStore

    path = tmp_path / "game.sqlite"
    with Table.open(path) as table:
        table.submit({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
        table.submit({"type": "deal", "dealer": "Ann"})
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE events SET event = replace(event, '"Ann"', '"Anx"') WHERE seq = 2""")  # one character
    conn.commit()
    conn.close()
    with pytest.raises(DamagedStore, match="stored event 2 is refused"):
        Table.open(path)  # before: a WARNING, and balances other than the table was told


def test_each_hand_is_checkpointed_into_the_database_file(tmp_path):
    import shutil
    import sqlite3

    table = Table.open(tmp_path / "game.sqlite")
    table.submit({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
    table.submit({"type": "deal", "dealer": "Ann"})  # a new hand: the one before is over
    (tmp_path / "alone").mkdir()
    shutil.copy(tmp_path / "game.sqlite", tmp_path / "alone" / "game.sqlite")  # the file alone, no -wal
    conn = sqlite3.connect(tmp_path / "alone" / "game.sqlite")
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 2
    conn.close()
    table.close()


# ---- --new-game: the way on from a damaged store ----------------------------------------------------

def _damaged_game(path: Path) -> None:
    """A stored game whose second event was changed by hand: the referee refuses it on the rebuild."""
    import sqlite3

    with Table.open(path) as table:
        table.submit({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
        table.submit({"type": "deal", "dealer": "Ann"})
    conn = sqlite3.connect(path)
    conn.execute("""UPDATE events SET event = replace(event, '"Ann"', '"Anx"') WHERE seq = 2""")
    conn.commit()
    conn.close()


def test_new_game_moves_a_damaged_store_aside_whole_and_starts_empty(tmp_path):
    from companion.store import DamagedStore

    path = tmp_path / "game.sqlite"
    _damaged_game(path)
    with Table.open(path, new_game=True) as table:
        assert table.view()["phase"] == "none" and len(table.store) == 0
        table.submit({"type": "game", "variant": "tripoley", "players": ["Cy", "Dee"], "chips": 30})
    (aside,) = tmp_path.glob("game-damaged-*.sqlite")
    with pytest.raises(DamagedStore, match="stored event 2 is refused"):
        Table.open(aside)  # the damaged game, kept as it was for a repair
    with Table.open(path) as table:
        assert table.view()["variant"] == "tripoley"


def test_new_game_refuses_a_sound_game_and_moves_nothing(tmp_path):
    from companion.table import GameInProgress

    path = tmp_path / "game.sqlite"
    with Table.open(path) as table:
        table.submit({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})
    with pytest.raises(GameInProgress, match="sound game"):
        Table.open(path, new_game=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.sqlite"]
    with Table.open(path) as table:
        assert table.view()["variant"] == "bonanza"
    with Table.open(tmp_path / "new.jsonl", new_game=True) as table:  # nothing stored yet: nothing to refuse
        assert len(table.store) == 0


def test_set_aside_takes_the_log_along_and_never_overwrites(tmp_path):
    from companion.store import set_aside

    path = tmp_path / "game.sqlite"
    files = {"game.sqlite": b"main", "game.sqlite-wal": b"log", "game.sqlite-shm": b"shm"}
    names = []
    for _ in range(2):  # twice within the second: the second name gets a counter
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        names.append(set_aside(path).name)
    assert names[0] != names[1] and not path.exists() and not (tmp_path / "game.sqlite-wal").exists()
    for name in names:
        assert name.startswith("game-damaged-") and name.endswith(".sqlite")
        assert {tail: (tmp_path / (name + tail)).read_bytes() for tail in ("", "-wal", "-shm")} == {
            "": b"main", "-wal": b"log", "-shm": b"shm"}
