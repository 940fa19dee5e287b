"""The companion speaks: the table's news said aloud through espeak-ng, off unless ``[voice]`` asks.

What is said comes from the table's views, as every other watcher's news
does (the rules engine knows nothing of it): each new view is compared with
the one before, and :func:`announcements` lists what changed that players
want to hear: a Bonanza call, a section won with its chips, a stop and who
reopens, "Michigan!" when a player goes out, a refused play. The words are
the pages' catalogs (``web/i18n``, group ``voice``), so card and section
names read as the scoreboard writes them.

Speaking never holds up the table: the listener only queues texts, a
:class:`Speaker` thread says them one at a time, and a full queue drops its
oldest text (news that is late is no news). Each text is one espeak-ng run
with a time limit.

>>> before = {"phase": "calls", "call": "joker", "log": [], "run": {"stops": [], "to_reopen": None}, "notice": None}
>>> after = dict(before, call="QS-JD", log=[{"n": 7, "kind": "win", "player": "Ann", "section": "joker", "chips": 12}])
>>> [Catalog.load("en").describe(a, "voice") for a in announcements(before, after, variant="bonanza")]
['Ann takes Joker: 12 chips', 'Queen-Jack!']
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from companion.app.config import VoiceConfig
from companion.table import MUTED, SPEAKING, Table
from web.i18n import Catalog

log = logging.getLogger(__name__)

QUEUE_SIZE = 6
"""Texts waiting to be said; a seventh drops the oldest (some 6 to 20 s of speech)."""
SPEAK_TIMEOUT_S = 10.0
"""The longest one espeak-ng run may take: the longest text measured 3.9 s of speech (Korean, at 160 words a minute)."""


def announcements(before: dict[str, Any], after: dict[str, Any], *, variant: str | None) -> list[dict[str, Any]]:
    """What to say about the change from view ``before`` to view ``after``: entries with a ``kind``
    and the fields its template words (``Catalog.describe(entry, "voice")``), in the order to say them.

    Log entries count as new when their event number ``n`` is above every one before: an undo
    (which takes entries back and replays the rest) and a new game say nothing of the log.
    """
    said: list[dict[str, Any]] = []
    seen = max((e["n"] for e in before.get("log") or []), default=-1)
    for entry in after.get("log") or []:
        if entry["n"] <= seen:
            continue
        if entry["kind"] == "win":
            said.append({"kind": "win", "player": entry["player"], "section": entry["section"], "chips": entry["chips"]})
        elif entry["kind"] == "out":
            said.append({"kind": "michigan" if variant == "michigan-1939" else "out", "player": entry["player"]})
    run_before, run_after = before.get("run") or {}, after.get("run") or {}
    stops_before, stops = run_before.get("stops") or [], run_after.get("stops") or []
    if after.get("phase") == "run" and len(stops) > len(stops_before) and stops_before == stops[: len(stops_before)]:
        # the stop player reopens; in Bonanza a stop is known once somebody has reopened, the run's last player
        who = run_after.get("to_reopen") or run_after.get("last_player")
        said.append({"kind": "stop", "card": stops[-1], "player": who})
    elif after.get("phase") == "run" and stops and run_after.get("to_reopen") not in (None, run_before.get("to_reopen")):
        said.append({"kind": "reopen", "player": run_after["to_reopen"]})  # a pass: the turn to reopen moves on
    if after.get("call") and after.get("call") != before.get("call"):
        said.append({"kind": "call", "call": after["call"]})
    notice = after.get("notice")
    if notice and notice.get("kind") == "rejected" and notice != before.get("notice"):
        said.append({"kind": "refused", "player": notice.get("player"), "card": notice.get("card")})
    return said


class Speaker:
    """Says texts one at a time in a thread of its own, never making the caller wait.

    ``say(text)`` speaks one text and returns when it has been said (:class:`Espeak`, or a
    fake in tests). A text queued while ``queue_size`` wait drops the oldest (:attr:`dropped`).
    """

    def __init__(self, say: Callable[[str], None], *, queue_size: int = QUEUE_SIZE) -> None:
        if type(queue_size) is not int or queue_size < 1:
            raise ValueError(f"queue_size must be a whole number of at least 1, not {queue_size!r}")
        self._say = say
        self._queue: deque[str] = deque(maxlen=queue_size)
        self._ready = threading.Condition()
        self._closing = False
        self._failed = False
        self._busy = False
        self.spoken = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._work, name="voice", daemon=True)
        self._thread.start()

    def speak(self, text: str) -> None:
        """Queue ``text`` and return at once."""
        with self._ready:
            if self._closing:
                return
            if len(self._queue) == self._queue.maxlen:
                self.dropped += 1
            self._queue.append(text)
            self._ready.notify()

    def clear(self) -> None:
        """Forget what is still waiting (muted: old news should not follow when unmuted)."""
        with self._ready:
            self._queue.clear()

    def waiting(self) -> list[str]:
        with self._ready:
            return list(self._queue)

    @property
    def idle(self) -> bool:
        """Nothing is being said and nothing waits."""
        with self._ready:
            return not self._queue and not self._busy

    def _work(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._queue or self._closing)
                if self._closing:
                    return
                text = self._queue.popleft()
                self._busy = True
            try:
                self._say(text)
                self.spoken += 1
            except Exception as exc:  # a missing sound card, a hung espeak-ng: the table goes on in silence
                (log.debug if self._failed else log.warning)("the voice could not say %r: %s", text, exc)
                self._failed = True
            finally:
                with self._ready:
                    self._busy = False

    def close(self, *, timeout_s: float = SPEAK_TIMEOUT_S) -> None:
        """Stop after the text being said (what waits is dropped)."""
        with self._ready:
            self._closing = True
            self._queue.clear()
            self._ready.notify_all()
        self._thread.join(timeout=timeout_s)

    def __enter__(self) -> Speaker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EspeakMissing(RuntimeError):
    """espeak-ng is not installed (Debian's package ``espeak-ng``)."""


class Espeak:
    """espeak-ng speaking ``language`` (its voices ``en``, ``ko``, ``fr``, ``de``), one run per text.

    The text goes in on stdin, so no player's name is read as an option; a run
    longer than ``timeout_s`` is killed (``subprocess.TimeoutExpired``).
    """

    def __init__(self, language: str, *, rate: int = VoiceConfig.rate, timeout_s: float = SPEAK_TIMEOUT_S,
                 program: str | None = None) -> None:
        found = program or shutil.which("espeak-ng")
        if found is None:
            raise EspeakMissing("espeak-ng is not installed (sudo apt install espeak-ng)")
        self.program, self.language, self.rate, self.timeout_s = found, language, rate, timeout_s

    def _run(self, text: str, *extra: str) -> None:
        done = subprocess.run([self.program, "-v", self.language, "-s", str(self.rate), *extra, "--stdin"],
                              input=text.encode("utf-8"), capture_output=True, timeout=self.timeout_s)
        if done.returncode:
            raise RuntimeError(f"espeak-ng exited with {done.returncode}: {done.stderr.decode(errors='replace').strip()}")

    def __call__(self, text: str) -> None:
        """Say ``text`` on the sound card; returns once it has been said."""
        self._run(text)

    def render(self, text: str, path: str | Path) -> None:
        """Write ``text`` spoken to the WAV file ``path`` instead (tests, and trying voices)."""
        self._run(text, "-w", str(path))


class Voice:
    """The table's voice: listens to ``table``, words its news in ``language``, hands it to a
    :class:`Speaker`. The view's ``voice`` is ``on`` while it speaks, ``muted`` when the referee
    page has muted it (:meth:`companion.table.Table.set_voice`); muted, nothing is queued."""

    def __init__(self, table: Table, say: Callable[[str], None], *, language: str,
                 queue_size: int = QUEUE_SIZE) -> None:
        self.catalog = Catalog.load(language)
        self.speaker = Speaker(say, queue_size=queue_size)
        self._closed = False
        table.set_voice(SPEAKING)
        self._before = table.view()
        table.add_listener(self._on_view)

    def _on_view(self, view: dict[str, Any]) -> None:
        """Called in the changing thread with the table locked: words and queues, nothing slower."""
        before, self._before = self._before, view
        if self._closed:
            return
        if view.get("voice") == MUTED:
            if before.get("voice") != MUTED:
                self.speaker.clear()
            return
        for entry in announcements(before, view, variant=view.get("variant")):
            self.speaker.speak(self.catalog.describe(entry, "voice", variant=view.get("variant")))

    def close(self) -> None:
        self._closed = True
        self.speaker.close()

    def __enter__(self) -> Voice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def open_voice(config: VoiceConfig, table: Table) -> Iterator[Voice | None]:
    """The voice ``config`` asks for, or None: ``[voice]`` off, or espeak-ng missing (one warning)."""
    if not config.enabled:
        yield None
        return
    try:
        say = Espeak(config.language, rate=config.rate)
    except EspeakMissing as exc:
        log.warning("[voice] is enabled but %s: the companion stays silent", exc)
        yield None
        return
    with Voice(table, say, language=config.language) as voice:
        log.info("the companion speaks %s (mute it on the referee page)", config.language)
        yield voice
