"""``companion hardware-test``: check a freshly soldered board, one device at a time.

It lights each section LED in turn (then all of them, dimmest to brightest),
sweeps the wheel through every section of each variant (so the calibrated
angles can be checked against the printed board), blinks the status LED,
sounds the reject buzzer, and then asks for each button in turn, waiting up
to ``--timeout`` seconds for each. The exit status is 0 only if every
button was seen.

Off a Pi it runs on gpiozero's mock pins and says so; time is then simulated
(nothing to watch) and ``--simulate-presses`` presses the buttons itself, so
the whole walk can be tested anywhere.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from hardware.board import Board
from hardware.config import VARIANT_SECTIONS, BoardConfig, ConfigError
from hardware.leds import brightness
from hardware.pins import choose_pin_factory, is_mock, mock_factory
from hardware.timing import ManualScheduler, Scheduler, ThreadScheduler

#: Seconds each LED stays lit, and each section faces the table, during the walk.
DWELL_S = 0.5

#: Buttons in the order they are asked for: (name, config key, the request, the event expected).
BUTTONS: tuple[tuple[str, str, str, str], ...] = (
    ("CONFIRM", "confirm_pin", "Press CONFIRM (GPIO{pin})", "confirm"),
    ("NEXT", "next_pin", "Press NEXT (GPIO{pin})", "next"),
    ("UNDO", "undo_pin", "Press and hold UNDO (GPIO{pin}) for {hold:g} s", "undo"),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, metavar="TOML",
                        help="config file whose [board] table to use (default: the built-in wiring)")
    parser.add_argument("--variant", choices=sorted(VARIANT_SECTIONS), action="append",
                        help="sweep the wheel for this variant only (repeatable; default: all three)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="seconds to wait for each button (default 30)")
    parser.add_argument("--dwell", type=float, default=DWELL_S, metavar="S",
                        help=f"seconds per LED and per wheel position (default {DWELL_S})")
    parser.add_argument("--mock", action="store_true", help="use mock pins even on a Pi")
    parser.add_argument("--simulate-presses", action="store_true",
                        help="with mock pins: press each button automatically (for testing this command)")


def load_board_config(path: Path | None) -> BoardConfig:
    """The ``[board]`` table of *path* (TOML), or the defaults without a path."""
    if path is None:
        return BoardConfig()
    with path.open("rb") as f:
        data = tomllib.load(f)
    return BoardConfig.from_dict(data.get("board", {}))


def run(args: argparse.Namespace, *, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    try:
        config = load_board_config(args.config)
    except (OSError, tomllib.TOMLDecodeError, ConfigError) as exc:
        say(f"hardware-test: cannot use the config: {exc}")
        return 2
    if args.timeout <= 0 or args.dwell < 0:
        say("hardware-test: --timeout must be positive and --dwell not negative")
        return 2

    factory = mock_factory() if args.mock else choose_pin_factory()
    mock = is_mock(factory)
    if args.simulate_presses and not mock:
        say("hardware-test: --simulate-presses only works on mock pins (add --mock); real buttons must be pressed")
        factory.close()
        return 2
    scheduler: Scheduler
    wait: Callable[[float], None]
    if mock:
        say("hardware-test: no GPIO here (or --mock): running on gpiozero's MOCK pins, "
            "time is simulated and nothing physical moves")
        clock = ManualScheduler()
        scheduler, wait = clock, clock.advance
    else:
        say(f"hardware-test: driving the real board through {type(factory).__name__}")
        scheduler, wait = ThreadScheduler(), time.sleep

    events: queue.Queue[dict] = queue.Queue()
    try:
        board = Board(config, on_event=events.put, pin_factory=factory, scheduler=scheduler)
    except Exception as exc:  # a pin in use, a missing GPIO library: say which and stop
        say(f"hardware-test: cannot open the board: {exc}")
        factory.close()
        return 1
    try:
        with board:
            _walk_leds(board, say, wait, args.dwell)
            _sweep_wheel(board, say, wait, args.dwell, args.variant or list(VARIANT_SECTIONS))
            _status_and_buzzer(board, say, wait)
            missing = _buttons(board, config, say, events, args.timeout, args.simulate_presses, wait)
    finally:
        scheduler.close()
        factory.close()
    if missing:
        say(f"hardware-test: FAILED, no press seen from {', '.join(missing)}")
        return 1
    say("hardware-test: all devices walked, all buttons seen")
    return 0


def _walk_leds(board: Board, say: Callable[[str], None], wait: Callable[[float], None], dwell: float) -> None:
    pins = board.config.led_pins
    for i, pin in enumerate(pins):
        say(f"LED {i + 1}/{len(pins)} on GPIO{pin}: full brightness (all others dark)")
        board.leds.set(i, 1.0)
        wait(dwell)
        board.leds.set(i, 0.0)
    full = board.config.full_chips
    say(f"all LEDs: 1 chip (dimmest) on LED 1 up to {full} chips (full) on LED {len(pins)}")
    for i in range(len(pins)):
        chips = 1 + round((full - 1) * i / max(1, len(pins) - 1))
        board.leds.set(i, brightness(chips, full))
    wait(dwell * 2)
    board.leds.off()


def _sweep_wheel(board: Board, say: Callable[[str], None], wait: Callable[[float], None], dwell: float,
                 variants: list[str]) -> None:
    for variant in variants:
        say(f"wheel ({variant}): each section should face the table in turn")
        for section in VARIANT_SECTIONS[variant]:
            angle = board.config.angle(variant, section)
            seconds = board.wheel.turn_to(angle)
            say(f"  {section:>8} at {angle:+7.1f} deg")
            wait(seconds + dwell)
    wait(board.config.servo_settle_s)
    say(f"wheel: detached ({'no pulses' if not board.wheel.attached else 'STILL DRIVEN'})")


def _status_and_buzzer(board: Board, say: Callable[[str], None], wait: Callable[[float], None]) -> None:
    say("status LED: blinking (camera lost), then steady (camera sees the table)")
    board.camera_ok(False)
    wait(2.0)
    board.camera_ok(True)
    wait(1.0)
    say(f"buzzer ({board.config.buzzer}): the reject sound")
    board.reject()
    wait(0.5)


def _buttons(board: Board, config: BoardConfig, say: Callable[[str], None], events: queue.Queue[dict],
             timeout: float, simulate: bool, wait: Callable[[float], None]) -> list[str]:
    """Ask for each button; returns the names of those never seen within *timeout*."""
    missing = []
    for name, key, request, expected in BUTTONS:
        pin = getattr(config, key)
        say(f"{request.format(pin=pin, hold=config.undo_hold_s)}, within {timeout:g} s...")
        _drain(events)
        if simulate:
            _simulate_press(board, pin, config.undo_hold_s if expected == "undo" else 0.0)
        elif board.is_mock:
            wait(timeout)  # nobody can press a mock button: the timeout passes in simulated time
        found, others = _wait_for(events, expected, 0.0 if board.is_mock and not simulate else timeout)
        if others:
            say(f"  (meanwhile {', '.join(sorted(set(others)))} fired: are two buttons' wires swapped?)")
        if found:
            say(f"  {name}: OK")
        else:
            say(f"  {name}: no press within {timeout:g} s — check GPIO{pin} -> button -> GND"
                + (" (mock pins: nobody can press; use --simulate-presses)" if board.is_mock and not simulate
                   else ""))
            missing.append(name)
    return missing


def _simulate_press(board: Board, pin: int, hold_s: float) -> None:
    """Press a mock button (pulled up: pressing drives it low), holding it long enough to count as held."""
    mock_pin = board.pin_factory.pin(pin)
    mock_pin.drive_low()
    if hold_s:
        # gpiozero times holds on its own thread, in real time; wait for it (bounded by 3x the hold time)
        deadline = time.monotonic() + hold_s * 3 + 0.5
        while not board.buttons.undo.is_held and time.monotonic() < deadline:
            time.sleep(0.02)
    mock_pin.drive_high()


def _wait_for(events: queue.Queue[dict], expected: str, timeout: float) -> tuple[bool, list[str]]:
    """Wait for an event of type *expected*; also returns the other buttons' events seen meanwhile."""
    deadline = time.monotonic() + timeout
    others: list[str] = []
    while True:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return False, others
        if event.get("type") == expected:
            return True, others
        others.append(str(event.get("type")).upper())


def _drain(events: queue.Queue[dict]) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return
