"""``companion demo``: a whole table on any machine, no camera, no Pi.

A simulated game (real shuffled hands, legal plays) is drawn frame by frame
as an overhead view of a table: each card of the run slides into its
player's zone under a hand, overlapping the cards before it, with some
camera noise. Every frame goes through the REAL recogniser and tracker (the
same ``vision.pipeline.FrameStep`` as ``serve``), and what they report goes
to the referee (stored, as in ``serve``), the mock board and the
scoreboard. What a camera cannot see (the deal, the widow, bets, shows) is
entered as a referee would on the tablet.

The demo plays a careful referee too: when the camera is unsure of a card
that the game cannot settle (more than one of its readings could be played)
it confirms the true one (as the confirm button would), when it misses one it
enters it by hand, and when it misreads one it undoes that and enters the
right card. At the end it prints how the vision did against the truth.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import math
import random
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from companion.app.config import VOICE_LANGUAGES, VoiceConfig
from companion.app.serve import LatestFrame, TableLoop, table_tracker
from companion.app.simulate import SimulatedTable
from companion.app.voice import open_voice
from companion.table import READING, Table
from hardware.board import Board
from hardware.config import BoardConfig
from hardware.pins import mock_factory
from vision.pipeline import Detect, FrameStep
from vision.recognizer import Recognizer
from vision.render import PlacedCard, draw_hand, render_scene, table_background
from vision.zones import ZoneMap
from web.app import create_app
from web.config import WebConfig, WebConfigError
from web.join import console_join
from web.server import ListenError, listen

log = logging.getLogger(__name__)

PLAYERS = ("Ann", "Bob", "Cy", "Dee")


@dataclass
class VisionScore:
    """The camera's plays against the simulation's truth."""

    plays: int = 0
    """Cards played in the simulation (each one a chance for the camera)."""
    read_right: int = 0
    """Camera plays that were the right card at the right seat."""
    read_wrong: int = 0
    """Camera plays that were not (misreads, a card reported twice, a card at the wrong seat)."""
    settled: int = 0
    """Cards the camera was unsure of and the game settled: the only legal one among the readings."""
    uncertain: int = 0
    """Cards the camera was unsure of and the referee confirmed."""
    dismissed: int = 0
    """Reads the camera was unsure of and the referee dismissed: no card was played there."""
    missed: int = 0
    """Cards the referee had to enter by hand."""
    frames: int = 0
    seconds: float = 0.0
    wrong: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        reported = self.read_right + self.read_wrong
        return self.read_right / reported if reported else 1.0

    @property
    def recall(self) -> float:
        return self.read_right / self.plays if self.plays else 1.0

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds else 0.0


class DemoTable:
    """Draws the simulated game for the camera and referees what the camera misses."""

    def __init__(
        self,
        table: Table,
        *,
        variant: str = "michigan-1939",
        players: tuple[str, ...] = PLAYERS,
        seed: int = 0,
        size: tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        speed: float = 1.0,
        board: Any | None = None,
        detect: Detect | None = None,
        hold_frames: int = 8,
        every_frame: bool = False,
    ) -> None:
        self.table = table
        self.sim = SimulatedTable(variant, players, seed=seed)
        self.rng = random.Random(seed)
        self.size = size
        self.card_width = size[0] / 15
        """Pixels across a card lying on the drawn table (a fifteenth of the frame)."""
        self.frame_time = 0.0 if speed <= 0 else 1.0 / (fps * speed)
        self.hold_frames = hold_frames
        self.zones = ZoneMap.around_table(list(players), size)
        self.view = LatestFrame(self.zones)
        self.tracker = table_tracker(table)
        self.step = FrameStep(detect or Recognizer().detect, self.tracker, skip_still=not every_frame, zones=self.view.show)
        self.loop = TableLoop(table, board=board, tracker=self.tracker)
        self.background = table_background(size, style="wood", seed=seed)
        self.cards: list[PlacedCard] = []
        self.score = VisionScore()
        self._frame_index = 0
        self._stop = threading.Event()

    # --------------------------------------------------------------- layout

    def _seat_geometry(self, player: str) -> tuple[np.ndarray, np.ndarray, float]:
        """The middle of ``player``'s first row of cards, its direction, and the card angle facing him.

        The player sits where his seat's direction meets the table's edge, so
        his row runs along that edge (a seat towards a corner, at a table of
        three, lays along the top or bottom edge, not diagonally off the picture).
        """
        players = self.sim.players
        w, h = self.size
        step = 2 * math.pi / len(players)
        theta = math.pi / 2 + players.index(player) * step  # the seat's direction from the centre, on screen
        to_long_edge = min(w, h) * 0.34 / max(abs(math.sin(theta)), 1e-6)
        to_short_edge = w * 0.36 / max(abs(math.cos(theta)), 1e-6)
        reach = min(to_long_edge, to_short_edge)
        anchor = np.array([w / 2 + math.cos(theta) * reach, h / 2 + math.sin(theta) * reach])
        if to_long_edge <= to_short_edge:
            facing = math.pi / 2 if math.sin(theta) > 0 else 3 * math.pi / 2
        else:
            facing = 0.0 if math.cos(theta) > 0 else math.pi
        along = np.array([math.sin(facing), -math.cos(facing)])  # each card to the right of the last, as he sees it
        return anchor, along, math.degrees(facing) - 90.0

    def _spot(self, player: str, k: int) -> tuple[tuple[float, float], float]:
        """Where ``player``'s ``k``-th card of the hand lies: rows of 9, then 7, 5...

        A seat's zone narrows towards the middle of the table, so each row
        nearer the middle is shorter and stays in the player's own zone.
        """
        anchor, along, angle = self._seat_geometry(player)
        row, col = 0, k
        while col >= (per_row := max(1, 9 - 2 * row)):
            col -= per_row
            row += 1
        width = self.card_width
        towards_centre = -np.array([math.cos(math.radians(angle + 90)), math.sin(math.radians(angle + 90))])
        pos = anchor + along * (col - (per_row - 1) / 2) * width * 0.55 + towards_centre * row * width * 0.9
        jitter = self.rng.uniform(-6, 6)
        return (float(pos[0]), float(pos[1])), angle + jitter

    # ---------------------------------------------------------------- frames

    def _frame(self, hand_at: tuple[float, float] | None = None) -> None:
        started = time.perf_counter()
        image, _ = render_scene(self.cards, size=self.size, background=self.background, seed=self._frame_index, noise=4.0)
        if hand_at is not None:
            draw_hand(image, at=hand_at, size=min(self.size) * 0.3)
        self.loop.handle(self.step(image, self._frame_index), self._frame_index)
        self._frame_index += 1
        self.score.frames += 1
        spent = time.perf_counter() - started
        self.score.seconds += spent
        if self.frame_time > spent:
            self._stop.wait(self.frame_time - spent)

    def _lay(self, player: str, code: str) -> None:
        """Slide ``code`` into ``player``'s zone under a hand, then let it lie."""
        width = self.card_width
        k = len(self.table.view()["run"]["played"].get(player, []))
        (x, y), angle = self._spot(player, k)
        start = np.array([self.size[0] / 2, self.size[1] / 2])
        end = np.array([x, y])
        for t in (0.35, 0.7):
            at = start + (end - start) * t
            self.cards.append(PlacedCard(code, (float(at[0]), float(at[1])), angle, width))
            self._frame(hand_at=(float(at[0]), float(at[1]) + width))
            self.cards.pop()
        self.cards.append(PlacedCard(code, (x, y), angle, width))
        for _ in range(self.hold_frames):
            self._frame()

    def _clear_table(self) -> None:
        self.cards = []
        for _ in range(self.tracker.remove_frames + 2):
            self._frame()

    # ------------------------------------------------------------- the game

    def _referee_play(self, event: dict[str, Any], applied_before: int, refused_before: int, settled_before: int) -> None:
        """Make sure the table has this play, as a careful referee would."""
        camera = self.loop.applied[applied_before:]
        self.score.settled += len(self.loop.settled[settled_before:])
        refused = self.loop.refused_events[refused_before:]
        self.score.read_right += sum(e == event for e in camera)
        wrong = [e for e in camera + refused if e != event]
        self.score.read_wrong += len(wrong)
        self.score.wrong += [f"{e.get('card')}@{e.get('player')} for {event['card']}@{event['player']}" for e in wrong]
        pending = self.table.view()["pending"]
        if camera != [event]:
            for _ in camera:  # a misread was applied: take the camera's plays back, enter the right one
                self.table.submit({"type": "undo"})
            unsure = [p for p in pending if p["player"] == event["player"]]
            if unsure:
                self.score.uncertain += 1
                self.table.confirm(unsure[-1]["id"], event["card"])
            else:
                self.score.missed += 1
                self.table.submit(event)
        for p in self.table.view()["pending"]:
            self.score.dismissed += 1
            self.table.dismiss(p["id"])

    def play(self, hands: int) -> VisionScore:
        """Play ``hands`` hands and the showdown that ends the game; the table's final balances equal
        the simulation's.

        A table that already holds a game (``demo --data`` again) goes on from
        where it stopped: that game must be this simulation's (same shuffle)
        up to some event, else ``CannotResume`` says why.
        """
        events: Iterator[dict[str, Any]] = self.sim.play(hands=hands, showdown=True)
        self.table.set_camera(READING)  # the drawn camera always has a picture
        first = next(events)
        if self.table.view()["variant"] is None:
            self.table.start(first)
        else:
            events = self._resume(events)
        for event in events:
            if self._stop.is_set():
                break
            if event["type"] in ("deal", "showdown") and self.cards:
                self._clear_table()  # the cards are gathered for the next deal
            if event["type"] != "play":
                self.table.submit(event)
                continue
            self.score.plays += 1
            before = (len(self.loop.applied), len(self.loop.refused_events), len(self.loop.settled))
            self._lay(event["player"], event["card"])
            self._referee_play(event, *before)
        return self.score

    def _resume(self, events: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """The simulation's events after the point the stored game has reached.

        The store holds the referee's corrections too (a misread undone), so the
        point is found by the game's position, not by counting events.
        """
        stored = self.table.game
        if stored.state.variant.name != self.sim.variant.name or list(stored.players) != self.sim.players:
            raise CannotResume(f"the stored game is {stored.state.variant.name} for {', '.join(stored.players)}, "
                               f"not this demo's {self.sim.variant.name} for {', '.join(self.sim.players)}")
        target = _position(stored)
        found = _position(self.sim.game) == target
        seen: list[dict[str, Any]] = []  # the simulation's events since the last point that matched
        for event in events:
            seen.append(event)
            if self.sim.game.state.hands > stored.state.hands:
                break
            if _position(self.sim.game) == target:
                found, seen = True, []
        if not found:
            raise CannotResume("the stored game is not one this demo's shuffle plays to (another --seed, a game "
                               "changed by hand, or a stop between a misread and its correction)")
        self._redraw()
        return itertools.chain(seen, events)

    def _redraw(self) -> None:
        """Lay the cards this hand has played back on the drawn table, where they lay."""
        view = self.table.view()
        if view["phase"] != "run":
            return
        for player, cards in view["run"]["played"].items():
            for k, code in enumerate(cards):
                (x, y), angle = self._spot(player, k)
                self.cards.append(PlacedCard(code, (x, y), angle, self.card_width))

    def stop(self) -> None:
        self._stop.set()


class CannotResume(ValueError):
    """The game in the demo's data folder is not where this demo's simulation goes; nothing was changed."""


def _position(game: Any) -> dict[str, Any]:
    """Where a game stands, whatever way it got there (the log of undone events aside)."""
    view = game.view()
    view.pop("log", None)
    return view


def _hand_count(text: str) -> int:
    """``--hands``: a whole number, one hand at least."""
    try:
        hands = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of hands, not {text!r}") from None
    if hands < 1:
        raise argparse.ArgumentTypeError(f"at least 1 hand, not {hands}")
    return hands


def _speed(text: str) -> float:
    """``--speed``: 0 (as fast as possible) or more."""
    try:
        speed = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not math.isfinite(speed) or speed < 0:
        raise argparse.ArgumentTypeError(f"0 (as fast as possible) or more, not {text}")
    return speed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=_hand_count, default=3, help="hands to play before the showdown ends the game (default 3)")
    parser.add_argument("--variant", default="michigan-1939", choices=["michigan-1939", "bonanza", "tripoley"])
    parser.add_argument("--speed", type=_speed, default=1.0, help="1 = a watchable pace, 4 = four times faster, 0 = as fast as possible")
    parser.add_argument("--seed", type=int, default=None, help="the shuffle (default: a new one each time)")
    parser.add_argument("--no-serve", action="store_true", help="do not serve the scoreboard; exit when the game ends")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to serve on (default 127.0.0.1; 0.0.0.0 lets the tablets on the network join)")
    parser.add_argument("--port", type=int, default=8080, help="scoreboard port (default 8080)")
    parser.add_argument("--pin", default="2468", help="referee PIN for the demo's pages (default 2468)")
    parser.add_argument("--data", type=Path, default=None,
                        help="keep the demo's game store in this folder (default: a temporary one, removed at the end)")
    parser.add_argument("--voice", choices=VOICE_LANGUAGES, default=None,
                        help="say the table's news aloud in this language through espeak-ng (default: silent)")
    parser.add_argument("--every-frame", action="store_true",
                        help="read every frame, even of a table that has stopped changing")


def run(args: argparse.Namespace) -> int:
    if args.data is not None:
        return _play(args, args.data)
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as folder:  # the store goes with it
        return _play(args, Path(folder))


def _play(args: argparse.Namespace, data: Path) -> int:
    try:
        table = Table.open(data / "demo.sqlite")
    except OSError as exc:
        print(f"companion demo: cannot keep the game in {data}: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # a damaged store
        print(f"companion demo: {exc}", file=sys.stderr)
        return 2
    try:
        seed = _shuffle(data, args.seed, resuming=bool(len(table.store)))
    except CannotResume as exc:
        print(f"companion demo: {exc}", file=sys.stderr)
        table.close()
        return 2
    demo: DemoTable
    speak = VoiceConfig(enabled=args.voice is not None, language=args.voice or VoiceConfig.language)
    with (table, Board(BoardConfig(), on_event=lambda e: demo.loop.on_button(e), pin_factory=mock_factory()) as board,
          open_voice(speak, table)):
        demo = DemoTable(table, variant=args.variant, seed=seed, speed=args.speed, board=board,
                         every_frame=args.every_frame)
        server = None
        if not args.no_serve:
            try:
                server = _serve(table, demo.view, args, data)
            except (ListenError, WebConfigError) as exc:
                print(f"companion demo: {exc}; choose another with --port", file=sys.stderr)
                return 2
        kept = "" if args.data is not None else " (removed at the end: --data FOLDER keeps it)"
        print(f"Playing {args.hands} hand(s) of {args.variant}, shuffle {seed}, store {data / 'demo.sqlite'}{kept}", flush=True)
        try:
            score = demo.play(args.hands)
        except KeyboardInterrupt:
            demo.stop()
            score = demo.score
        except CannotResume as exc:
            print(f"companion demo: cannot go on with the game in {data}: {exc}; use another --data folder",
                  file=sys.stderr)
            return 2
        _report(table, demo, score)
        if server is not None:
            ended = "The game is over" if table.view()["over"] else "The demo stopped before the end of the game"
            print(f"{ended}; the scoreboard stays up. Press Ctrl-C to stop.", flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                threading.Event().wait()
            server.close()
    return 0 if table.view()["balances"] == demo.sim.game.balances else 1


def _shuffle(data: Path, seed: int | None, *, resuming: bool) -> int:
    """The shuffle to play: kept in ``demo.json`` beside the store, so that ``--data`` again goes on with it."""
    kept = data / "demo.json"
    if resuming:
        try:
            stored = json.loads(kept.read_text(encoding="utf-8"))["seed"]
        except (OSError, ValueError, KeyError, TypeError):
            raise CannotResume(f"{kept} does not say which shuffle the stored game was dealt from") from None
        if seed is not None and seed != stored:
            raise CannotResume(f"the game in {data} was dealt from shuffle {stored}, not {seed}")
        return int(stored)
    seed = seed if seed is not None else random.randrange(1 << 30)
    kept.write_text(json.dumps({"seed": seed}) + "\n", encoding="utf-8")
    return seed


def _serve(table: Table, camera: LatestFrame, args: argparse.Namespace, data: Path) -> Any:
    config = WebConfig(host=args.host, port=args.port, pin=args.pin)
    app = create_app(table, config=config, camera=camera, data_dir=data)
    server = listen(app, config)
    threading.Thread(target=server.run, name="web", daemon=True).start()
    print(f"Scoreboard: http://{config.host}:{config.port}/   referee: /referee (PIN {args.pin})   camera: /camera", flush=True)
    print(console_join(config.host, config.port, how="start the demo with --host 0.0.0.0"), flush=True)
    return server


def _report(table: Table, demo: DemoTable, score: VisionScore) -> None:
    view = table.view()
    truth = demo.sim.game.balances
    print(f"Final balances: {view['balances']}  (simulation: {truth}, {'equal' if view['balances'] == truth else 'DIFFERENT'})")
    if view["final"]:
        print("Final standings: " + ", ".join(f"{p['place']}. {p['name']} {p['balance']} ({p['net']:+d})"
                                              for p in view["final"]["standings"]))
        print("To settle up: " + (", ".join(f"{p['from']} pays {p['to']} {p['chips']}" for p in view["final"]["settlement"])
                                  or "everyone is even"))
    print(
        f"Vision: {score.plays} cards played; camera read {score.read_right} right, {score.read_wrong} wrong, "
        f"{score.settled} unsure and settled by the game, {score.uncertain} unsure and confirmed, "
        f"{score.dismissed} unsure and dismissed, {score.missed} entered by hand; "
        f"precision {score.precision:.3f}, recall {score.recall:.3f}; {score.fps:.1f} frames/s over {score.frames} frames"
    )
    still = demo.step.still
    if still is not None:
        print(f"Frames read: {still.frames_read}; {still.frames_skipped} showed a still table already "
              "read and were answered from those reads (--every-frame reads them all)")
    for line in score.wrong[:10]:
        print(f"  misread: {line}")
