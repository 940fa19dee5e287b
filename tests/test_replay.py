"""``companion replay FILE --json`` exactly as docs/record.md says: keys, line numbers, refusals, exit codes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.app.cli import main

REPO = Path(__file__).resolve().parents[1]
KEYS = ["variant", "hands", "phase", "balances", "board", "rejected", "flags"]

EXAMPLE = """\
{"type":"game","variant":"michigan-1939","players":["Ann","Bob","Cy"],"chips":100}
{"type":"deal","dealer":"Ann"}
{"type":"widow","action":"keep"}
{"type":"bet","player":"Ann","chips":2}
{"type":"bet","player":"Bob","chips":2}
{"type":"fold","player":"Cy"}
{"type":"show","player":"Ann","cards":["9S","9H","4C","4D","KS"]}
{"type":"show","player":"Bob","cards":["2C","3C","4H","5S","6D"]}
{"type":"next"}
{"type":"play","player":"Ann","card":"5H"}
{"type":"play","player":"Cy","card":"6H"}
"""

EXAMPLE_SUMMARY = {
    "variant": "michigan-1939",
    "hands": 1,
    "phase": "run",
    "balances": {"Ann": 80, "Bob": 97, "Cy": 91},
    "board": {"AH": 4, "KC": 4, "QH": 4, "JS": 4, "TH": 4, "QH-KH": 4, "7-8-9": 4, "poker": 0, "pot": 4},
    "rejected": [],
    "flags": [],
}


def write(tmp_path: Path, text: str | bytes, name: str = "game.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def replay_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["replay", str(path), "--json"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1, "one JSON object on one line"
    return code, json.loads(out)


def lines(*events: dict[str, Any] | str) -> str:
    return "".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events)


GAME = {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100}


def test_the_example_of_record_md(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = replay_json(write(tmp_path, EXAMPLE), capsys)
    assert code == 0
    assert list(summary) == KEYS
    assert summary == EXAMPLE_SUMMARY


def test_line_numbers_count_blank_lines_which_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lines(
        "",
        GAME,
        "",
        "   ",
        {"type": "deal", "dealer": "Ann"},
        {"type": "bet", "player": "Bob", "chips": 1},  # line 6: the widow comes first
        "",
        {"type": "widow", "action": "keep"},
        {"type": "bet", "player": "Zed", "chips": 1},  # line 9
    )
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [6, 9]
    assert all(isinstance(r["reason"], str) and r["reason"] for r in summary["rejected"])
    assert "Zed" in summary["rejected"][1]["reason"]
    assert summary["phase"] == "poker" and summary["hands"] == 1


def test_refused_lines_of_every_kind_and_the_replay_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lines(
        GAME,
        "this is not JSON",  # 2
        "[1, 2, 3]",  # 3
        {"type": "shuffle"},  # 4
        {"dealer": "Ann"},  # 5
        {"type": "deal"},  # 6
        {"type": "deal", "dealer": "Ann"},
        {"type": "widow", "action": "keep"},
        {"type": "bet", "player": "Ann", "chips": 2.0},  # 9
        {"type": "bet", "player": "Ann", "chips": "3"},  # 10
        {"type": "bet", "player": "Ann", "chips": True},  # 11
        {"type": "show", "player": "Ann", "cards": ["9S", "9H", "4C", "4D", "XX"]},  # 12
        GAME,  # 13: a second game line
        {"type": "next", "note": "fields a type does not use are ignored"},
        {"type": "play", "player": "Ann", "card": "JK"},  # 15: no Joker in Michigan
        {"type": "play", "player": "Ann", "card": "5H"},
        {"type": "play", "player": "Ann", "card": "5H"},  # 17: already played
    )
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 15, 17]
    assert summary["phase"] == "run"
    assert summary["balances"] == {"Ann": 82, "Bob": 91, "Cy": 91}


def test_flags_with_their_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = lines(
        GAME,
        {"type": "deal", "dealer": "Ann"},
        {"type": "widow", "action": "keep"},
        {"type": "next"},
        {"type": "play", "player": "Ann", "card": "5H"},
        {"type": "play", "player": "Bob", "card": "6H"},
        {"type": "play", "player": "Bob", "card": "2C"},  # 7H passed over
        "",
        {"type": "play", "player": "Cy", "card": "3C"},
        {"type": "play", "player": "Cy", "card": "7H"},  # 10: withheld, refused
        {"type": "play", "player": "Cy", "card": "2H"},
        {"type": "play", "player": "Ann", "card": "3H"},  # 12: not-lowest, stands
    )
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [10]
    assert summary["flags"] == [
        {"line": 10, "kind": "withheld", "players": ["Cy"], "cards": ["7H"]},
        {"line": 12, "kind": "not-lowest", "players": ["Ann"], "cards": ["5H", "3H"]},
    ]


def test_undo_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = EXAMPLE + lines({"type": "undo"}, {"type": "undo"}, {"type": "play", "player": "Bob", "card": "5H"})
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [14]  # Ann leads again after two undos
    text = lines(GAME, {"type": "undo"})
    code, summary = replay_json(write(tmp_path, text, "undo.jsonl"), capsys)
    assert code == 0 and [r["line"] for r in summary["rejected"]] == [2]


def test_windows_line_endings_and_a_missing_last_newline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = EXAMPLE.replace("\n", "\r\n").rstrip("\r\n")
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0 and summary == EXAMPLE_SUMMARY


def test_a_corrupt_record_is_replayed_as_far_as_it_goes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torn = EXAMPLE.encode() + b'{"type":"play","player":"Bob","ca'
    code, summary = replay_json(write(tmp_path, torn), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [12]
    assert summary["balances"] == EXAMPLE_SUMMARY["balances"]
    garbage = EXAMPLE.encode().replace(b'{"type":"next"}', b'\x00\x01{"type":"ne\x7f')
    code, summary = replay_json(write(tmp_path, garbage, "garbage.jsonl"), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [9]
    assert summary["phase"] == "run"  # the next was lost: Ann's play closes poker itself
    assert summary["balances"] == EXAMPLE_SUMMARY["balances"]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n\n",
        b"not json\n",
        b'{"type":"deal","dealer":"Ann"}\n',
        b'{"type":"game","variant":"michigan-1939","players":["Ann"],"chips":100}\n',
        b'{"type":"game","variant":"michigan-1939","players":["Ann","Bob"],"chips":100,"options":{"reopen":"up"}}\n',
        b'{"type":"game","variant":"whist","players":["Ann","Bob"],"chips":100}\n',
        b'{"type":"game","variant":"bonanza","players":["Ann","Bob"],"chips":100,"options":{"card_penalty":false}}\n',
        b"\xff\xfe\x00garbage",
    ],
)
def test_exit_2_when_the_file_cannot_be_replayed(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    code = main(["replay", str(write(tmp_path, content)), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.strip()


def test_exit_2_for_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path), "--json"]) == 2
    assert capsys.readouterr().out == ""


def test_exit_2_for_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nowhere.jsonl"), "--json"]) == 2
    assert capsys.readouterr().out == ""


def test_blank_lines_before_the_game_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, summary = replay_json(write(tmp_path, "\n\n" + EXAMPLE), capsys)
    assert code == 0 and summary == EXAMPLE_SUMMARY


def test_the_readable_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, EXAMPLE + lines({"type": "bet", "player": "Ann", "chips": 1}))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Michigan Rummy" in out and "line 12: refused" in out and "Bob 97" in out


def test_the_installed_command_in_a_subprocess(tmp_path: Path) -> None:
    path = write(tmp_path, EXAMPLE)
    result = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(path), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == EXAMPLE_SUMMARY
    bad = subprocess.run(
        [sys.executable, "-m", "companion", "replay", str(tmp_path / "missing.jsonl"), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )
    assert bad.returncode == 2 and bad.stdout == ""


def test_only_newline_ends_a_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = {"type": "game", "variant": "tripoley", "players": ["Ann", "Bo\u2028b", "C\x85y"], "chips": 20}
    text = json.dumps(first, ensure_ascii=False) + "\n" + json.dumps({"type": "deal", "dealer": "Bo\u2028b"}, ensure_ascii=False) + "\n"
    code, summary = replay_json(write(tmp_path, text), capsys)
    assert code == 0 and summary["rejected"] == [] and summary["hands"] == 1
    assert summary["balances"] == {"Ann": 11, "Bo\u2028b": 11, "C\x85y": 11}


def test_bonanza_stops_as_rules_md_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rule 4 and "A stop is known": reopens by other players in the other colour, no pass, the
    passed-over cards withheld; the same colour only from the stop player; after an Ace at once."""
    game: dict[str, Any] = {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob", "Cy", "Dee"], "chips": 100}
    opening = [game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}] + [{"type": "next"}] * 5
    run = [
        {"type": "play", "player": "Ann", "card": "5H"},  # 9: the lead
        {"type": "play", "player": "Bob", "card": "6H"},
        {"type": "play", "player": "Cy", "card": "2D"},  # 11: red after hearts, not the stop player: refused
        {"type": "play", "player": "Dee", "card": "2S"},  # 12: black from another player: 6H a stop, 7H passed over
        {"type": "play", "player": "Cy", "card": "7H"},  # 13: withheld
        {"type": "play", "player": "Cy", "card": "3D"},  # 14: at once another: 2S a stop, 3S passed over
        {"type": "play", "player": "Bob", "card": "4D"},
        {"type": "play", "player": "Ann", "card": "KS"},  # 16: black from another: 4D a stop, 5D passed over
        {"type": "play", "player": "Cy", "card": "AS"},  # 17: pays AS; an Ace: the stop is known at once
        {"type": "play", "player": "Bob", "card": "2C"},  # 18: black again, not the stop player: refused
        {"type": "play", "player": "Dee", "card": "2H"},  # 19: red from another
        {"type": "play", "player": "Dee", "card": "2D"},  # 20: red again from the stop player of 2H; 3D was played: a stop
        {"type": "play", "player": "Bob", "card": "3S"},  # 21: withheld
        {"type": "pass", "player": "Dee"},  # 22: a pass is still accepted from the player whose turn it is
        {"type": "play", "player": "Dee", "card": "4H"},  # 23: he passed: refused until the next card
        {"type": "play", "player": "Ann", "card": "8C"},  # 24: Ann had not passed: black after diamonds
    ]
    code, summary = replay_json(write(tmp_path, lines(*opening, *run)), capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [11, 13, 18, 21, 23]
    assert [(f["line"], f["kind"], f["cards"]) for f in summary["flags"]] == [(13, "withheld", ["7H"]), (21, "withheld", ["3S"])]
    assert summary["board"]["AS"] == 0 and summary["balances"]["Cy"] == 100 - 10 + 4
    assert summary["phase"] == "run"


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_any_unicode_in_a_name_is_printed_safely(tmp_path: Path, flag: list[str]) -> None:
    record = tmp_path / "odd.jsonl"
    record.write_text('{"type":"game","variant":"bonanza","players":["\\ud800","Bob"],"chips":50}\n', encoding="utf-8")
    for encoding in ("utf-8", "ascii"):
        run = subprocess.run([sys.executable, "-m", "companion", "replay", str(record), *flag], capture_output=True,
                             timeout=60, cwd=Path(__file__).parents[1], env={**os.environ, "PYTHONIOENCODING": encoding})
        assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr  # before: UnicodeEncodeError
        if flag:
            assert json.loads(run.stdout)["balances"] == {"\ud800": 50, "Bob": 50}
        else:
            assert b"\\ud800 50" in run.stdout


def test_a_byte_order_mark_is_accepted_as_the_api_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.encode("utf-8"))
    code, summary = replay_json(path, capsys)
    assert code == 0 and summary == replay_json(write(tmp_path, EXAMPLE), capsys)[1]
def test_a_game_store_replays_as_its_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``companion replay demo.sqlite``: the store is told by its header, whatever its name, and left unchanged."""
    from companion.table import Table

    store = tmp_path / "demo.sqlite"
    with Table.open(store) as table:
        for line in EXAMPLE.splitlines():
            table.submit(json.loads(line))
    before = store.read_bytes()
    code, summary = replay_json(store, capsys)
    assert code == 0 and summary == EXAMPLE_SUMMARY
    renamed = tmp_path / "tonight.bak"
    renamed.write_bytes(before)
    code, summary = replay_json(renamed, capsys)
    assert code == 0 and summary == EXAMPLE_SUMMARY
    assert store.read_bytes() == before


def test_a_stores_bad_rows_are_refused_at_their_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "game.sqlite"
    with sqlite3.connect(store) as conn:
        conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, event TEXT NOT NULL, at TEXT NOT NULL)")
        rows = EXAMPLE.splitlines()[:3] + ["not json", "[1]"] + EXAMPLE.splitlines()[3:]
        conn.executemany("INSERT INTO events VALUES (?, ?, '')", enumerate(rows, start=1))
    conn.close()
    code, summary = replay_json(store, capsys)
    assert code == 0
    assert [r["line"] for r in summary["rejected"]] == [4, 5]
    assert summary["balances"] == EXAMPLE_SUMMARY["balances"]


@pytest.mark.parametrize("schema", ["", "CREATE TABLE scores (name TEXT)"])
def test_exit_2_for_an_sqlite_file_that_is_not_a_game_store(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             schema: str) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute(schema or "CREATE TABLE events (seq INTEGER PRIMARY KEY, event TEXT NOT NULL, at TEXT NOT NULL)")
    conn.close()
    assert main(["replay", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and str(path) in captured.err
