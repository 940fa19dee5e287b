"""One game at one table: the referee, its durable record, and who is watching.

The camera loop, the referee page and the board's buttons all hand events to
the same :class:`Table`; it applies each to the :class:`~companion.rules.game.Game`,
writes it to the store *before* answering, and tells every watcher (the
scoreboard's event stream, the board's LEDs) about the new view. A refused
event changes nothing, neither the game nor the store.

>>> import pathlib, tempfile
>>> table = Table.open(pathlib.Path(tempfile.mkdtemp()) / "game.sqlite")
>>> table.view()["phase"]
'none'
>>> table.submit({"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 50})["phase"]
'setup'
>>> table.submit({"type": "bet", "player": "Ann", "chips": 3})
Traceback (most recent call last):
...
companion.rules.errors.WrongPhase: a bet does not belong in the setup phase: deal first
>>> len(table.store)
1
"""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.rules.cards import Card
from companion.rules.errors import RecordError
from companion.rules.events import Event, NewGame, as_event
from companion.rules.game import Game
from companion.store import DamagedStore, EventStore, canonical_json, import_jsonl, open_store, set_aside, write_whole

log = logging.getLogger(__name__)

Listener = Callable[[dict[str, Any]], None]

READING, NO_PICTURE, LOST = "reading", "no-picture", "lost"
CAMERA_STATES = (READING, NO_PICTURE, LOST)
"""What the players are told about the camera (the view's ``camera``): frames come in and are
read; no frame has come (no camera, or it cannot be opened); frames came and have stopped (it
has lost the table). The view's ``camera`` is None at a table with no camera."""

SPEAKING, MUTED = "on", "muted"
VOICE_STATES = (SPEAKING, MUTED)
"""The view's ``voice``: the companion speaks, or the referee page has muted it; None at a table
that does not speak (``[voice]`` off, or no espeak-ng). Kept here, not in a browser, so every
page shows the same state and a restarted page cannot unmute it by accident."""

SETTLED_SHOWN = 5
"""How many of the latest reads settled by the game the view lists (newest last)."""


class GameInProgress(ValueError):
    """``--new-game`` was given for a store that is sound and holds a game; nothing was moved."""


def empty_view() -> dict[str, Any]:
    """The view before any game line: every key present, nothing in it."""
    return {
        "variant": None, "hands": 0, "phase": "none", "balances": {}, "board": {}, "rejected": [], "flags": [],
        "players": [], "dealer": None, "sections": [], "call": None,
        "run": {"suit": None, "last_card": None, "last_player": None, "next_card": None, "to_reopen": None, "stops": [], "played": {}},
        "poker": None, "widow": None, "won": [], "out": None, "settlement": [], "log": [], "over": False, "final": None, "title": None,
        "expect": [],
    }


class Table:
    """Thread-safe front of one game: engine + event store + watchers."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lock = threading.RLock()
        self._queues: list[queue.Queue[dict[str, Any]]] = []
        self._listeners: list[Listener] = []
        self._before: list[Callable[[Event], None]] = []
        self._on_confirm: list[Callable[[dict[str, Any], str], None]] = []
        self._pending: dict[int, dict[str, Any]] = {}
        self._pending_ids = itertools.count(1)
        self._notice: dict[str, Any] | None = None
        self._settled: deque[dict[str, Any]] = deque(maxlen=SETTLED_SHOWN)
        self._camera: str | None = None
        self._voice: str | None = None
        self.version = time.time_ns() // 1_000_000
        """Grows with every change, and across restarts too (a tablet's stream resumes by it)."""
        try:
            self.game = self._rebuild(store.events(), where=store.path)
        except BaseException:
            store.close()
            raise

    @classmethod
    def open(cls, path: str | Path, *, new_game: bool = False) -> Table:
        """Open (or create) the game stored at ``path`` (``.sqlite`` or ``.jsonl``).

        ``new_game`` (``--new-game``) is the way on from a :class:`DamagedStore`: the damaged
        file is moved aside whole (:func:`~companion.store.set_aside`, never deleted) and a
        new, empty store takes its place. A sound store that holds a game is refused with
        :class:`GameInProgress` instead, so the flag can never set a good game aside unasked.
        """
        if not new_game:
            return cls(open_store(path))
        try:
            table = cls(open_store(path))
        except DamagedStore as exc:
            aside = set_aside(path)
            log.warning("%s; moved it aside to %s (kept for a repair) and starting a new game", exc, aside.name)
            return cls(open_store(path))
        if len(table.store):
            count = len(table.store)
            table.close()
            raise GameInProgress(
                f"{path} holds a sound game ({count} events), so --new-game has nothing to set aside; "
                "start without it, and start a new game from the referee page (it keeps this one beside the store)"
            )
        return table

    @staticmethod
    def _rebuild(events: list[dict[str, Any]], *, where: Path) -> Game:
        """The game the stored events make. The store holds only events the table accepted, so one
        the referee refuses now means the file was changed or damaged: the balances would differ
        from what the table was told, and the start stops with the reason."""
        game = Game()
        for number, event in enumerate(events, start=1):
            try:
                game.push(event, line=number)
            except ValueError as exc:
                raise DamagedStore(f"{where}: stored event {number} is refused by the referee ({exc}); "
                                   "the file was changed or damaged, and was left as it is") from None
        return game

    # ---------------------------------------------------------------- events

    def submit(self, event: Event | Mapping[str, Any], *, announce: bool = False) -> dict[str, Any]:
        """Apply, store and announce one record event; returns the new view.

        Raises a ``ValueError`` subclass and changes nothing when the event is
        malformed or against the rules. With ``announce`` (the camera and the
        buttons, where nobody sees an error message) a refusal is also shown
        as the view's ``notice``.
        """
        with self._lock:
            try:
                ev = as_event(event)
                for hook in self._before:
                    hook(ev)
                hands_before = self.game.state.hands if self.game.started else 0
                self.game.push(ev, line=len(self.store) + 1)
            except ValueError as exc:
                if announce:
                    self._set_notice(exc, event)
                raise
            try:
                self.store.append(ev.to_dict())
            except Exception:
                log.error("could not store %s: taking it back", ev)
                self.game = self._rebuild(self.store.events(), where=self.store.path)
                raise
            if self.game.state.hands != hands_before:
                self.store.checkpoint()  # a hand is over: the database file itself now holds it
            self._notice = None
            return self._changed()

    def start(self, game_event: Mapping[str, Any]) -> dict[str, Any]:
        """Begin a new game. A game already stored is first archived (:meth:`_archive`), so that
        nothing is ever lost."""
        ev = as_event(game_event)
        if not isinstance(ev, NewGame):
            raise RecordError("a new game starts with a game line")
        with self._lock:
            self._archive()
            fresh = Game()
            fresh.push(ev, line=1)
            self.store.replace([ev.to_dict()])
            self.game = fresh
            self._pending.clear()
            self._settled.clear()
            self._notice = None
            return self._changed()

    def export_jsonl(self) -> str:
        """The game record as stored, one event a line."""
        with self._lock:
            return "".join(canonical_json(e) + "\n" for e in self.store.events())

    def replace_from_jsonl(self, text: str) -> dict[str, Any]:
        """Import a record: every line is checked first, and the first that the
        referee refuses is named; on any error nothing changes.  The game it
        replaces is archived first (:meth:`_archive`)."""
        events = import_jsonl(io.StringIO(text))
        if not events:
            raise RecordError("the record is empty")
        game = Game()
        for number, event in enumerate(events, start=1):
            try:
                game.push(event, line=number)
            except ValueError as exc:
                raise RecordError(f"line {number}: {exc}") from None
        with self._lock:
            self._archive()
            self.store.replace(events)
            self.game = game
            self._pending.clear()
            self._settled.clear()
            self._notice = None
            return self._changed()

    def _archive(self) -> None:
        """Keep the stored game, if any, as a JSON Lines record beside the store before it is
        replaced (a new game, an import): ``<store>-<UTC time>.jsonl``, never over another."""
        if not len(self.store):
            return
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        archive, n = self.store.path.with_name(f"{self.store.path.stem}-{stamp}.jsonl"), 2
        while archive.exists():
            archive, n = self.store.path.with_name(f"{self.store.path.stem}-{stamp}-{n}.jsonl"), n + 1
        write_whole(archive, self.export_jsonl())
        log.info("archived the previous game to %s", archive)

    # ------------------------------------------------- uncertain camera reads

    def hold(self, *, action: str, player: str, candidates: list[tuple[str, float]], reason: str = "unsure") -> int:
        """Keep an uncertain read (``action`` ``play`` or ``show``) until somebody confirms it.

        ``reason`` tells the referee why: ``unsure`` (the read itself) or
        ``unmoved`` (a card where nothing on the table had moved).
        """
        if reason not in ("unsure", "unmoved"):
            raise ValueError(f"reason must be 'unsure' or 'unmoved', not {reason!r}")
        with self._lock:
            pending_id = next(self._pending_ids)
            self._pending[pending_id] = {
                "id": pending_id, "action": action, "player": player,
                "candidates": [[code, round(float(p), 3)] for code, p in candidates], "reason": reason,
            }
            self._changed()
            return pending_id

    def confirm(self, pending_id: int | None = None, code: str | None = None) -> dict[str, Any]:
        """Accept (or correct to ``code``) an uncertain read: the oldest when
        ``pending_id`` is None, as the board's confirm button does."""
        with self._lock:
            if pending_id is None:
                if not self._pending:
                    raise RecordError("no camera read is waiting for confirmation")
                pending_id = min(self._pending)
            entry = self._pending.get(pending_id)
            if entry is None:
                raise RecordError(f"no camera read {pending_id} is waiting for confirmation")
            card = str(Card.parse(code)) if code is not None else entry["candidates"][0][0]
            event: dict[str, Any] = {"type": entry["action"], "player": entry["player"]}
            if entry["action"] == "play":
                event["card"] = card
            else:
                event["cards"] = [card]
            self.submit(event, announce=True)
            del self._pending[pending_id]
            for hook in self._on_confirm:
                hook(entry, card)
            return self._changed()

    def settle(self, player: str, candidates: list[str]) -> str | None:
        """The one card among an unsure read's ``candidates`` that ``player``
        may legally lay in the run now (:meth:`companion.rules.game.Game.settle`), or None.

        A settled read is listed in the view's ``settled``, so the referee sees
        that the game, not a person, chose the card.
        """
        with self._lock:
            card = self.game.settle(player, candidates) if self.game.started else None
            if card is None:
                return None
            self._settled.append({
                "player": player, "card": card.code, "candidates": list(candidates),
                "text": f"settled as {card.code}: the only legal card among {'/'.join(candidates)}",
            })
            return card.code

    def dismiss(self, pending_id: int) -> dict[str, Any]:
        """Drop an uncertain read that was no card at all."""
        with self._lock:
            if self._pending.pop(pending_id, None) is None:
                raise RecordError(f"no camera read {pending_id} is waiting for confirmation")
            return self._changed()

    # -------------------------------------------------------------- watching

    def view(self) -> dict[str, Any]:
        with self._lock:
            view = self.game.view() if self.game.started else empty_view()
            view["version"] = self.version
            view["pending"] = list(self._pending.values())
            view["settled"] = list(self._settled)
            view["notice"] = self._notice
            view["camera"] = self._camera
            view["voice"] = self._voice
            return view

    def set_camera(self, state: str) -> None:
        """Tell every watcher the camera's state, one of :data:`CAMERA_STATES` (the serve loop does this)."""
        if state not in CAMERA_STATES:
            raise ValueError(f"camera state must be one of {', '.join(CAMERA_STATES)}, not {state!r}")
        with self._lock:
            if state != self._camera:
                self._camera = state
                self._changed()

    def set_voice(self, state: str) -> None:
        """Speak or be muted, one of :data:`VOICE_STATES` (the voice says ``on`` once it can speak)."""
        if state not in VOICE_STATES:
            raise ValueError(f"voice state must be one of {', '.join(VOICE_STATES)}, not {state!r}")
        with self._lock:
            if state != self._voice:
                self._voice = state
                self._changed()

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        """A queue that receives the new view after every change (for the event stream)."""
        q: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=64)
        with self._lock:
            self._queues.append(q)
        return q

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        with self._lock:
            if q in self._queues:
                self._queues.remove(q)

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(view)`` after every change, in the changing thread (the board does this)."""
        with self._lock:
            self._listeners.append(listener)

    def clear_notice(self) -> None:
        """The refused card was taken back: stop showing why it was refused."""
        with self._lock:
            if self._notice is not None:
                self._notice = None
                self._changed()

    def on_confirm(self, hook: Callable[[dict[str, Any], str], None]) -> None:
        """Call ``hook(pending_entry, card)`` after an uncertain read is confirmed as ``card``."""
        with self._lock:
            self._on_confirm.append(hook)

    def before_each(self, hook: Callable[[Event], None]) -> None:
        """Call ``hook(event)`` before each event is applied (it may submit events of its own first)."""
        with self._lock:
            self._before.append(hook)

    def _set_notice(self, exc: Exception, event: Any) -> None:
        with self._lock:
            raw = event.to_dict() if isinstance(event, Event) else dict(event) if isinstance(event, Mapping) else {}
            self._notice = {
                "kind": "rejected",
                "text": str(exc),
                "player": raw.get("player"),
                "card": raw.get("card"),
                "flag": getattr(exc, "flag", None),
            }
            self._changed()

    def _changed(self) -> dict[str, Any]:
        self.version += 1
        view = self.view()
        for q in self._queues:
            if q.full():
                with contextlib.suppress(queue.Empty):
                    q.get_nowait()  # a slow watcher gets the newest views, not a backlog
            q.put_nowait(view)
        for listener in self._listeners:
            try:
                listener(view)
            except Exception:
                log.exception("a table listener failed")
        return view

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

