"""The companion's voice: what it says about a game, in four languages, without ever holding up the table.

The texts and the queue are tested with a fake speaker; espeak-ng itself by rendering announcements to WAV
files (skipped, with the reason, where it is not installed: ``make test`` installs it).
"""

from __future__ import annotations

import array
import json
import logging
import math
import shutil
import stat
import subprocess
import threading
import time
import wave
from pathlib import Path
from typing import Any

import pytest

from companion.app import voice as voice_module
from companion.app.config import VoiceConfig
from companion.app.voice import Espeak, EspeakMissing, Speaker, Voice, announcements, open_voice
from companion.table import Table
from web.i18n import LANGUAGES, Catalog

EXAMPLES = Path(__file__).resolve().parents[1] / "companion" / "examples"
KINDS = ("call", "win", "stop", "reopen", "michigan", "out", "refused")
ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (make test installs Debian's espeak-ng)")


class FakeSay:
    """Records what it is asked to say; ``hold`` makes every call wait until released."""

    def __init__(self, *, hold: bool = False) -> None:
        self.said: list[str] = []
        self.release = threading.Event()
        self.started = threading.Event()
        if not hold:
            self.release.set()

    def __call__(self, text: str) -> None:
        self.started.set()
        self.release.wait(timeout=5)
        self.said.append(text)


def settle(speaker: Speaker, timeout_s: float = 5.0) -> None:
    """Wait until the speaker has said everything queued."""
    deadline = time.monotonic() + timeout_s
    while not speaker.idle:
        assert time.monotonic() < deadline, "the speaker did not finish"
        time.sleep(0.01)


def record(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def played(tmp_path: Path, name: str, *, language: str = "en") -> tuple[list[str], Table]:
    """Everything the voice says while the example record ``name`` is entered event by event."""
    table = Table.open(tmp_path / "game.sqlite")
    say = FakeSay()
    with Voice(table, say, language=language, queue_size=10_000) as v:
        for event in record(name):
            table.submit(event)
        settle(v.speaker)
    return say.said, table


# ---- what is said --------------------------------------------------------------------------------


def test_every_language_words_every_announcement():
    entry = {"call": "QS-JD", "player": "Ann", "section": "AH", "chips": 12, "card": "QS"}
    for code in LANGUAGES:
        catalog = Catalog.load(code)
        assert set(catalog.data["voice"]) == set(KINDS), code
        for kind in KINDS:
            text = catalog.describe({"kind": kind, **entry}, "voice")
            assert text and "{" not in text, (code, kind, text)
    said = {code: Catalog.load(code).describe({"kind": "win", **entry}, "voice") for code in LANGUAGES}
    assert said == {"en": "Ann takes Ace of hearts: 12 chips", "ko": "Ann: 하트 에이스 획득, 12칩",
                    "fr": "Ann prend as de cœur : 12 jetons", "de": "Ann erhält Herz-Ass: 12 Chips"}


def test_bonanza_calls_each_win_and_the_stops_are_said(tmp_path):
    said, table = played(tmp_path, "bonanza.jsonl")
    game = table.game
    calls = [s for s in said if s.endswith("!") and s[:-1] in Catalog.load("en").data["calls"].values()]
    assert calls[:5] == ["Joker!", "Queen-Jack!", "Sequence!", "Ten-Two!", "Poker!"]
    wins = [e for e in game.view(log_size=10_000)["log"] if e["kind"] == "win"]
    assert [s for s in said if " takes " in s] == [
        f"{w['player']} takes {Catalog.load('en').section_name(w['section'])}: {w['chips']} chips" for w in wins]
    stops = [s for s in said if s.startswith("Stop at ")]
    assert stops and all(s.endswith(" reopens.") for s in stops), stops
    table.close()


def test_michigan_is_called_when_a_player_goes_out(tmp_path):
    said, table = played(tmp_path, "michigan-1939.jsonl", language="de")
    outs = [e["player"] for e in table.game.view(log_size=10_000)["log"] if e["kind"] == "out"]
    assert outs, "the example record has nobody going out"
    assert [s for s in said if s.startswith("Michigan!")] == [f"Michigan! {p} ist draußen." for p in outs]
    table.close()


def test_in_tripoley_a_pass_says_who_reopens_and_going_out_is_no_michigan(tmp_path):
    said, table = played(tmp_path, "tripoley.jsonl", language="fr")
    log = table.game.view(log_size=10_000)["log"]
    assert not any("Michigan" in s for s in said)
    assert [s for s in said if s.endswith("est sorti !")] == [f"{e['player']} est sorti !" for e in log if e["kind"] == "out"]
    passed = [e["player"] for e in log if e["kind"] == "pass"]
    assert passed, "the example record has no pass"
    assert 1 <= len([s for s in said if s.startswith("À ") and s.endswith(" de relancer.")]) <= len(passed)
    assert any(s.startswith("Bob prend Pot du poker : ") for s in said)  # Tripoley's own word for its pot
    table.close()


def test_a_refused_play_is_said_and_an_undo_says_nothing_again(tmp_path):
    table = Table.open(tmp_path / "game.sqlite")
    events = record("michigan-1939.jsonl")
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    for event in events[:first_play + 1]:
        table.submit(event)
    other = next(p for p in table.game.players if p != events[first_play]["player"])
    say = FakeSay()
    with Voice(table, say, language="en", queue_size=100) as v:
        with pytest.raises(ValueError):  # neither the next card nor its last player's reopen
            table.submit({"type": "play", "player": other, "card": "KS"}, announce=True)
        table.submit({"type": "undo"})
        settle(v.speaker)
    assert say.said == [f"{other}: King of spades is refused."]
    table.close()


def test_a_new_game_and_an_unchanged_view_say_nothing():
    view = {"phase": "run", "call": None, "log": [{"n": 40, "kind": "win", "player": "Ann", "section": "AH", "chips": 3}],
            "run": {"stops": ["AH"], "to_reopen": "Ann", "last_player": "Ann"}, "notice": None}
    assert announcements(view, view, variant="michigan-1939") == []
    fresh: dict[str, Any] = {"phase": "setup", "call": None, "log": [{"n": 0, "kind": "game"}], "run": {"stops": []}, "notice": None}
    assert announcements(view, fresh, variant="michigan-1939") == []


# ---- muting and never blocking -------------------------------------------------------------------


def test_muted_it_says_nothing_and_forgets_what_waited(tmp_path):
    table = Table.open(tmp_path / "game.sqlite")
    say = FakeSay(hold=True)
    events = record("bonanza.jsonl")
    run = next(i for i, e in enumerate(events) if e["type"] == "play")
    with Voice(table, say, language="en", queue_size=100) as v:
        assert table.view()["voice"] == "on"
        for event in events[:5]:  # the deal, the widow, the Joker shown and its call closed
            table.submit(event)
        assert say.started.wait(5)  # "Joker!" is being said; its win and "Queen-Jack!" wait
        table.set_voice("muted")
        assert v.speaker.waiting() == []
        for event in events[5:12]:  # three more calls close, unheard
            table.submit(event)
        assert v.speaker.waiting() == []
        table.set_voice("on")
        unmuted = max(e["n"] for e in table.view()["log"])
        for event in events[12:run]:  # the poker call closes
            table.submit(event)
        say.release.set()
        settle(v.speaker)
    later = [e for e in table.view()["log"] if e["n"] > unmuted and e["kind"] == "win"]
    assert later
    assert say.said == ["Joker!"] + [f"{w['player']} takes Poker: {w['chips']} chips" for w in later]
    table.close()


def test_the_table_never_waits_for_the_voice_and_a_full_queue_drops_the_oldest(tmp_path):
    say = FakeSay(hold=True)  # a speaker that never finishes until released
    with Speaker(say, queue_size=3) as speaker:
        speaker.speak("first")
        assert say.started.wait(5)  # "first" is being said
        started = time.monotonic()
        for n in range(2, 11):
            speaker.speak(f"text {n}")
        assert time.monotonic() - started < 1.0  # nothing waited for the speech
        assert speaker.waiting() == ["text 8", "text 9", "text 10"]
        assert speaker.dropped == 6
        say.release.set()
        settle(speaker)
    assert say.said == ["first", "text 8", "text 9", "text 10"]


def test_a_submit_returns_while_the_voice_is_stuck(tmp_path):
    table = Table.open(tmp_path / "game.sqlite")
    say = FakeSay(hold=True)
    with Voice(table, say, language="en", queue_size=2):
        done = threading.Event()

        def enter() -> None:
            for event in record("bonanza.jsonl")[:20]:
                table.submit(event)
            done.set()

        threading.Thread(target=enter, daemon=True).start()
        assert done.wait(10), "the table waited for the voice"
        say.release.set()
    table.close()


def test_a_failing_speaker_warns_once_and_goes_on(caplog):
    calls: list[str] = []

    def broken(text: str) -> None:
        calls.append(text)
        raise RuntimeError("no sound card")

    caplog.set_level(logging.DEBUG, logger="companion.app.voice")
    with Speaker(broken) as speaker:
        for text in ("one", "two", "three"):
            speaker.speak(text)
            deadline = time.monotonic() + 5
            while text not in calls:
                assert time.monotonic() < deadline
                time.sleep(0.01)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert calls == ["one", "two", "three"] and len(warnings) == 1 and "no sound card" in warnings[0].getMessage()


def test_a_hung_espeak_is_killed_after_its_timeout(tmp_path):
    hung = tmp_path / "espeak-ng"
    hung.write_text("#!/bin/sh\nsleep 30\n")
    hung.chmod(hung.stat().st_mode | stat.S_IXUSR)
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        Espeak("en", program=str(hung), timeout_s=0.3)("Joker!")
    assert time.monotonic() - started < 5


# ---- the config and a missing espeak-ng ----------------------------------------------------------


def test_off_by_default_the_table_has_no_voice(tmp_path):
    table = Table.open(tmp_path / "game.sqlite")
    with open_voice(VoiceConfig(), table) as v:
        assert v is None and table.view()["voice"] is None
    table.close()


def test_without_espeak_ng_one_warning_and_the_voice_is_off(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(voice_module.shutil, "which", lambda name: None)
    with pytest.raises(EspeakMissing, match="apt install espeak-ng"):
        Espeak("en")
    table = Table.open(tmp_path / "game.sqlite")
    with caplog.at_level(logging.WARNING, logger="companion.app.voice"), open_voice(VoiceConfig(enabled=True), table) as v:
        assert v is None and table.view()["voice"] is None
    assert [r.getMessage() for r in caplog.records if r.name == "companion.app.voice"] == [
        "[voice] is enabled but espeak-ng is not installed (sudo apt install espeak-ng): the companion stays silent"]
    table.close()


def test_a_bad_queue_size_is_refused():
    with pytest.raises(ValueError, match="queue_size"):
        Speaker(FakeSay(), queue_size=0)


# ---- espeak-ng itself ----------------------------------------------------------------------------


def speech(path: Path) -> tuple[float, float]:
    """A WAV file's length in seconds and its loudness (RMS of its 16-bit samples)."""
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth()) == (1, 2)
        samples = array.array("h", w.readframes(w.getnframes()))
        seconds = w.getnframes() / w.getframerate()
    return seconds, math.sqrt(sum(s * s for s in samples) / max(1, len(samples)))


@needs_espeak
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_announcement_renders_as_speech_in_each_language(tmp_path, language):
    catalog = Catalog.load(language)
    for kind, entry in (("call", {"call": "QS-JD"}), ("michigan", {"player": "Ann"}),
                        ("win", {"player": "Bob", "section": "QD", "chips": 14})):
        text = catalog.describe({"kind": kind, **entry}, "voice")
        wav = tmp_path / f"{kind}.wav"
        Espeak(language, rate=VoiceConfig.rate).render(text, wav)
        seconds, rms = speech(wav)
        assert 0.3 <= seconds <= 5.0, (text, seconds)
        assert rms > 500, (text, rms)  # speech is some 2000-3000; silence 0


def test_the_wav_check_tells_silence_from_speech(tmp_path):
    """The loudness floor above can fail: a second of silence is speech-length but silent."""
    with wave.open(str(tmp_path / "silence.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(22050)
        w.writeframes(bytes(2 * 22050))
    seconds, rms = speech(tmp_path / "silence.wav")
    assert seconds == 1.0 and rms < 500
