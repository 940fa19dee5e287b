"""``companion serve``: the whole table in one process.

camera → recogniser → tracker (one frame at a time through
``vision.pipeline.FrameStep``) → events → referee (stored in SQLite) → board
and scoreboard. The camera and the GPIO pins are owned here, once. Frames are
grabbed in one thread and recognised in another, always the newest: a frame
that comes while the last is still being read is dropped, never queued, so the
table never lags behind the cards. The web server runs in its own threads and
never waits on the camera.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.app.config import Config, ConfigError
from companion.app.voice import open_voice
from companion.rules.cards import JOKER_CODE
from companion.rules.game import CARD_PHASES
from companion.rules.variants import variant_class
from companion.store import DAMAGED_HINT, DamagedStore
from companion.table import LOST, NO_PICTURE, READING, Table
from hardware.board import Board, close_on_sigterm
from vision.detection import Detection
from vision.pipeline import Detect, FrameStep
from vision.recognizer import Recognizer
from vision.sources import CameraError, open_source
from vision.tracker import CardRemoved, CardSeen, RecordMapper, Tracker
from vision.zones import CENTRE, ZoneMap
from web.app import create_app
from web.camera import ZonesNotSaved
from web.join import console_join, scoreboard_url
from web.server import ListenError, listen, serve

log = logging.getLogger(__name__)



def cards_on_table(view: dict[str, Any]) -> set[str]:
    """Cards the referee already knows are lying face up this hand (after a restart, the tracker must not report them again)."""
    known = {c for cards in view["run"]["played"].values() for c in cards} if view["phase"] == "run" else set()
    if view.get("poker"):
        known |= {c for cards in view["poker"]["shown"].values() for c in cards}
    return known


def table_tracker(table: Table) -> Tracker:
    """A tracker for the table's camera that knows the cards already face up (:func:`cards_on_table`)."""
    return Tracker(known_cards=cards_on_table(table.view()))


class TableLoop:
    """Turns the tracker's sightings into record events for the table, and
    keeps the board in step with the table.

    A certain sighting in a seat's zone becomes a ``play`` (or a ``show``);
    an uncertain one waits in the table's ``pending`` list for the confirm
    button or the referee page, unless in the run exactly one of its
    candidates is a card that seat may legally lay now (``Table.settle``):
    then it is played as that card. A read where nothing had moved is not
    settled so (it may be no card at all), and a certain read is never
    changed: a clear illegal card is refused like any other. A refused play
    sounds the buzzer and shows why on the scoreboard; nothing is applied
    until the card is taken back or corrected. A Joker read in a game whose
    pack holds none is no card at all: nothing lying there is refused.
    """

    def __init__(self, table: Table, *, board: Any | None = None, tracker: Tracker | None = None,
                 settle_frames: int = 15) -> None:
        self.table = table
        self.board = board
        self.tracker = tracker
        self.mapper = RecordMapper("run", settle_frames=settle_frames)
        self.active = False
        self.refused: dict[str, str] = {}
        """Cards whose play was refused and that still lie on the table: code -> seat."""
        self.applied: list[dict[str, Any]] = []
        """Record events this loop made from camera sightings and the table accepted."""
        self.refused_events: list[dict[str, Any]] = []
        """Those the table refused."""
        self.settled: list[tuple[str, str]] = []
        """Unsure reads the game settled: (seat, card)."""
        self._sync_phase(table.view())
        table.add_listener(self._on_view)
        table.before_each(self._before)
        table.on_confirm(self._confirmed)

    def _confirmed(self, entry: dict[str, Any], card: str) -> None:
        """Teach the tracker a correction, so the corrected card is not reported again as new."""
        read = entry["candidates"][0][0]
        if self.tracker is not None and card != read:
            self.tracker.relabel(read, card)

    def _before(self, event: Any) -> None:
        """A call or phase is about to close (``next``, or a play closing them): send the shows laid out for it first."""
        if event.type in ("next", "play", "showdown") and self.mapper.phase != "run":
            for show in self.mapper.flush():
                self._submit(show)

    def _on_view(self, view: dict[str, Any]) -> None:
        self._sync_phase(view)
        if self.board is not None and view["variant"] is not None:
            self.board.update(view)

    def _sync_phase(self, view: dict[str, Any]) -> None:
        phase = view["phase"] if view["phase"] in CARD_PHASES else None
        self.active = phase is not None
        if phase is not None and phase != self.mapper.phase:
            for event in self.mapper.set_phase(phase):
                self._submit(event)

    def handle(self, events: Sequence[CardSeen | CardRemoved], frame_index: int) -> None:
        """Take the tracker's events for one frame."""
        in_pack = [p for p in (self._in_pack(e) for e in events) if p is not None]
        events = [self._settled(e) for e in in_pack if not self._found_again(e)]
        for e in events:
            if isinstance(e, CardRemoved) and self.refused.pop(e.code, None) is not None:
                self.table.clear_notice()
            if isinstance(e, CardSeen) and e.uncertain and self.active and e.seat not in (None, "centre"):
                action = "play" if self.mapper.phase == "run" else "show"
                self.table.hold(action=action, player=e.seat, candidates=list(e.candidates),
                                reason="unmoved" if e.unmoved else "unsure")
                log.info("%s laid a card the camera is unsure of (%s%s): waiting for confirmation", e.seat,
                         ", ".join(f"{c} {p:.0%}" for c, p in e.candidates[:3]),
                         "; nothing had moved there" if e.unmoved else "")
        if not self.active:
            return
        for event in self.mapper.update(events, frame_index):
            self._submit(event)

    def _settled(self, e: CardSeen | CardRemoved) -> CardSeen | CardRemoved:
        """An unsure read in the run with exactly one legal candidate, as that card; any other event as it is."""
        if not isinstance(e, CardSeen) or not e.uncertain or e.unmoved or self.mapper.phase != "run" or e.seat in (None, CENTRE):
            return e
        candidates = [code for code, _ in e.candidates]
        card = self.table.settle(e.seat, candidates)
        if card is None:
            return e
        log.info("%s: settled as %s: the only legal card among %s", e.seat, card, "/".join(candidates))
        self.settled.append((e.seat, card))
        if self.tracker is not None and card != e.code:
            self.tracker.relabel(e.code, card)
        return e.confirmed(card)

    def _in_pack(self, e: CardSeen | CardRemoved) -> CardSeen | CardRemoved | None:
        """``e`` as the game's pack allows: where it holds no Joker, a Joker read (print on a box, a
        score sheet) is no card, not a play to refuse, buzz at and wait on (None), and an unsure read
        is read among its other candidates."""
        candidates = e.candidates if isinstance(e, CardSeen) else ()
        if e.code != JOKER_CODE and all(code != JOKER_CODE for code, _ in candidates):
            return e
        variant = self.table.view()["variant"]
        if variant is None or variant_class(variant).jokers:
            return e
        others = tuple((code, p) for code, p in candidates if code != JOKER_CODE)
        if not isinstance(e, CardSeen) or not others or (e.code == JOKER_CODE and not e.uncertain):
            log.debug("camera: a Joker read at %s's place, and %s has none: not a card", e.seat, variant)
            return None
        return dataclasses.replace(e, code=others[0][0], confidence=others[0][1], candidates=others)

    def _found_again(self, e: CardSeen | CardRemoved) -> bool:
        """A card its player already played this hand, sighted again in his zone: the camera lost
        it for a while (hands, a card laid over it) and found it where it lay; no new play, no buzzer."""
        if not isinstance(e, CardSeen) or self.mapper.phase != "run" or e.seat in (None, CENTRE):
            return False
        view = self.table.view()
        if view["phase"] != "run" or e.code not in view["run"]["played"].get(e.seat, []):
            return False
        log.debug("camera: %s found again at %s's place, already played there", e.code, e.seat)
        return True

    def _submit(self, event: dict[str, Any]) -> None:
        try:
            self.table.submit(event, announce=True)
        except ValueError as exc:
            log.info("refused %s: %s", event, exc)
            self.refused_events.append(event)
            if event.get("card"):
                self.refused[event["card"]] = event.get("player", "")
            if self.board is not None:
                self.board.reject()
            return
        self.applied.append(event)
        log.info("camera: %s", _describe(event))

    def on_button(self, event: dict[str, Any]) -> None:
        """The board's buttons: confirm the oldest uncertain read, undo, next."""
        try:
            if event["type"] == "confirm":
                self.table.confirm()
            else:
                self.table.submit(event, announce=True)
            log.info("button: %s", event["type"])
        except ValueError as exc:
            log.info("button %s refused: %s", event["type"], exc)
            if self.board is not None:
                self.board.reject()


def _describe(event: dict[str, Any]) -> str:
    if event["type"] == "play":
        return f"{event['card']} appeared at {event['player']}'s place"
    return f"{event['player']} laid out {' '.join(event.get('cards', []))}"


class LatestFrame:
    """The newest recognised frame, as the camera page sees it (``web.camera.CameraView``)."""

    def __init__(self, zones: ZoneMap, *, save_zones: Callable[[dict[str, list[list[float]]]], None] = lambda z: None) -> None:
        self._lock = threading.Lock()
        self.zone_map = zones
        self._save_zones = save_zones
        self._shown: tuple[np.ndarray, Sequence[Detection]] | None = None

    def show(self, image: np.ndarray, detections: Sequence[Detection]) -> ZoneMap:
        """Keep this frame for the camera page; returns the zones to assign its cards with."""
        with self._lock:
            self._shown = (image, detections)
            return self.zone_map

    def latest_jpeg(self) -> bytes | None:
        with self._lock:
            shown = self._shown
        if shown is None:
            return None
        ok, data = cv2.imencode(".jpg", shown[0], [cv2.IMWRITE_JPEG_QUALITY, 80])  # the page draws cards and zones
        return data.tobytes() if ok else None

    def frame_size(self) -> tuple[int, int] | None:
        with self._lock:
            return None if self._shown is None else (self._shown[0].shape[1], self._shown[0].shape[0])

    def detections(self) -> Sequence[Detection]:
        with self._lock:
            return [] if self._shown is None else list(self._shown[1])

    def zones(self) -> dict[str, list[list[float]]]:
        with self._lock:
            return self.zone_map.to_dict()

    def set_zones(self, zones: dict[str, list[list[float]]]) -> None:
        """Save the zones first and use them only once they are kept, so a restart never brings back others."""
        zone_map = ZoneMap.from_dict(zones)
        try:
            self._save_zones(zone_map.to_dict())
        except OSError as exc:
            raise ZonesNotSaved(f"the zones could not be saved ({exc.strerror or exc}: {exc.filename}); "
                                "the zones in use are unchanged") from None
        with self._lock:
            self.zone_map = zone_map
        log.info("seat zones saved: %s", ", ".join(zone_map.seats))


class CameraWorker:
    """Reads the camera and the cards, newest frame first.

    One thread grabs frames, another puts the newest through the vision's
    :class:`~vision.pipeline.FrameStep` (``step``: ``detect``, the
    still-table skip with ``skip_still``, ``view``'s zones, ``tracker``) and
    gives the events to ``on_events``; a frame that arrives while the last
    is still being read replaces it (counted in ``frames_dropped``), so the
    table never lags behind the cards.  ``on_camera(state)`` hears each
    change of :data:`companion.table.CAMERA_STATES`: a camera that cannot be
    opened is one warning and ``no-picture``, and everything else (the
    referee, the pages) goes on without it.
    """

    def __init__(
        self,
        source: Iterable[Any],
        detect: Detect,
        tracker: Tracker,
        view: LatestFrame,
        *,
        skip_still: bool = False,
        on_events: Callable[[list[Any], int], None],
        on_camera: Callable[[str], None] = lambda state: None,
        lost_after_s: float = 3.0,
    ) -> None:
        self.source = source
        self.step = FrameStep(detect, tracker, skip_still=skip_still, zones=view.show)
        self.on_events = on_events
        self.on_camera = on_camera
        self.lost_after_s = lost_after_s
        self._fresh = threading.Condition()
        self._latest: Any = None
        self._stop = threading.Event()
        self._started_at = 0.0
        self._last_frame_at: float | None = None
        self._failed = False
        self._state_lock = threading.Lock()
        self.state: str | None = None
        """The latest of :data:`companion.table.CAMERA_STATES`; None until the camera has had time to show something."""
        self.frames_read = 0
        self.frames_dropped = 0
        self.frames_recognised = 0
        self._threads = [
            threading.Thread(target=self._grab, name="camera-grab", daemon=True),
            threading.Thread(target=self._recognise, name="camera-recognise", daemon=True),
        ]

    def start(self) -> CameraWorker:
        self._started_at = time.monotonic()
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._fresh:
            self._fresh.notify_all()
        close = getattr(self.source, "close", None)
        if close is not None:
            close()
        for t in self._threads:
            t.join(timeout=5)

    def _set_state(self, state: str, why: str) -> None:
        """Tell ``on_camera`` and the log about a change, once."""
        with self._state_lock:
            if state == self.state:
                return
            self.state = state
        if state == READING:
            log.info("the camera sees the table")
        else:
            log.warning("%s; the referee and the pages go on without it", why)
        self.on_camera(state)

    def _grab(self) -> None:
        try:
            for frame in self.source:
                if self._stop.is_set():
                    return
                with self._fresh:
                    if self._latest is not None:
                        self.frames_dropped += 1
                    self._latest = frame
                    self.frames_read += 1
                    self._fresh.notify()
        except CameraError as exc:
            self._failed = True
            self._set_state(NO_PICTURE, f"no picture from the camera: {str(exc).rstrip('.')}")
            return
        except Exception:
            log.exception("the camera stopped")
        log.info("the camera source has ended")

    def _watch(self, now: float) -> None:
        """The state from when the last frame came (the grab thread reports a camera that failed)."""
        if self._failed:
            return
        if self._last_frame_at is None:
            if now - self._started_at >= self.lost_after_s:
                self._set_state(NO_PICTURE, f"no picture from the camera after {self.lost_after_s:g} s")
        elif now - self._last_frame_at < self.lost_after_s:
            self._set_state(READING, "")
        else:
            self._set_state(LOST, f"the camera has lost the table: no picture for {self.lost_after_s:g} s")

    def _recognise(self) -> None:
        while not self._stop.is_set():
            with self._fresh:
                self._fresh.wait_for(lambda: self._latest is not None or self._stop.is_set(), timeout=1.0)
                frame, self._latest = self._latest, None
            if frame is not None:
                self._last_frame_at = time.monotonic()
            self._watch(time.monotonic())
            if frame is None:
                continue
            try:
                events = self.step(frame.image, frame.index)
            except ValueError as exc:
                log.warning("frame %d skipped: %s", frame.index, exc)
                continue
            self.frames_recognised += 1
            self.on_events(events, frame.index)  # a frame with no news still counts: a show settles after quiet frames


def open_table(config: Config, *, new_game: bool = False) -> Table:
    """The stored game of this table, or a fresh one of the config's ``[game]``
    (with ``new_game``, after a damaged store is moved aside: :meth:`Table.open`)."""
    config.data_dir.mkdir(parents=True, exist_ok=True)
    table = Table.open(config.data_dir / "game.sqlite", new_game=new_game)
    if not len(table.store):
        table.start(config.game.game_event())
        log.info("a new game: %s", ", ".join(config.game.players))
    else:
        view = table.view()
        log.info("resuming the stored game: %s, hand %d, %s", view["variant"], view["hands"], view["phase"])
    return table


def default_zones(config: Config, table: Table) -> ZoneMap:
    """The saved or configured zones (``Config.load``), or seats spread round the picture in seating order."""
    if config.zones:
        return ZoneMap.from_dict(config.zones)
    players = [p["name"] for p in table.view()["players"]] or list(config.game.players)
    return ZoneMap.around_table(players, config.camera.size)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="the TOML config (default: every default; see deploy/config.example.toml)")
    parser.add_argument("--new-game", action="store_true",
                        help="the stored game is damaged: move it aside (kept, never deleted) and start the config's game")


def run(args: argparse.Namespace) -> int:
    try:
        config = Config.load(args.config)
        table = open_table(config, new_game=args.new_game)
        options: dict[str, Any] = {"size": config.camera.size, "fps": config.camera.fps}
        if config.camera.source_spec in ("demo", "synthetic"):
            options["realtime"] = True  # drawn at the camera's pace, as a real camera delivers
        source = open_source(config.camera.source_spec, **options)
    except DamagedStore as exc:
        log.error("%s; %s", exc, DAMAGED_HINT)
        return 2
    except (ConfigError, OSError, ValueError, RuntimeError) as exc:
        log.error("%s", exc)
        return 2
    cv2.setNumThreads(1)
    tracker = table_tracker(table)
    loop: TableLoop
    with Board(config.board, on_event=lambda e: loop.on_button(e)) as board, open_voice(config.voice, table):
        restore = close_on_sigterm(board)
        loop = TableLoop(table, board=board, tracker=tracker)
        if table.view()["variant"]:
            board.update(table.view())
        view = LatestFrame(default_zones(config, table), save_zones=config.save_zones)
        app = create_app(table, config=config.web, camera=view, data_dir=config.data_dir)
        try:
            server = listen(app, config.web)
        except ListenError as exc:
            log.error("%s; set another [web] port in the config", exc)
            source.close()
            restore()
            table.close()
            return 2

        def camera_state(state: str) -> None:
            board.camera_ok(state == READING)
            table.set_camera(state)

        camera = CameraWorker(
            source, Recognizer(read_again=config.camera.read_again).detect, tracker, view,
            skip_still=config.camera.skip_still, on_events=loop.handle, on_camera=camera_state,
        ).start()
        if app.config["PIN_GENERATED"]:
            log.warning("referee PIN for this run: %s", app.config["REFEREE_PIN"])
        log.info("scoreboard at http://%s:%d/ (tablets: %s)", config.web.host, config.web.port,
                 scoreboard_url(config.web.host, config.web.port))
        if sys.stdout.isatty():  # run by hand: the code for the tablets (the service's journal gets the address)
            print(console_join(config.web.host, config.web.port, how="set [web] host = \"0.0.0.0\" in the config"), flush=True)
        try:
            serve(app, server)
        finally:
            camera.stop()
            restore()
            table.close()
    return 0
