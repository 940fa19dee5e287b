"""The board the players look at: section LEDs, the wheel, the buttons, the buzzer, the status LED.

:class:`Board` is what the loop holds. It reads only the engine's JSON-able
*view* (no import of the engine): ``update(view)`` after each applied event,
``reject()`` when a play is refused, ``camera_ok(bool)`` as the camera gains
or loses the table; button presses come back through ``on_event``.

>>> from hardware.pins import mock_factory
>>> from hardware.timing import ManualScheduler
>>> events, clock = [], ManualScheduler()
>>> view = {"variant": "tripoley", "phase": "claims", "call": None, "out": None,
...         "sections": [{"name": n, "chips": 4} for n in VARIANT_SECTIONS["tripoley"]],
...         "won": [{"section": "KH", "player": "Bob", "chips": 4}]}
>>> view["sections"][1]["chips"] = 0
>>> with Board(BoardConfig(), on_event=events.append, pin_factory=mock_factory(), scheduler=clock) as board:
...     shown = board.update(view)
...     clock.advance(0.25)
...     during = board.leds.values[:3]
...     clock.advance(2.0)
...     after = board.leds.values[:3]
...     faces = board.wheel.angle == board.config.angle("tripoley", "KH")
>>> shown.face, during, after, faces
('KH', (0.392, 1.0, 0.392), (0.392, 0.0, 0.392), True)
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import FrameType
from typing import Any, TypeVar

from gpiozero.pins import Factory

from hardware.buttons import Buttons, EventSink
from hardware.buzzer import RejectBuzzer
from hardware.config import CENTRE_SECTION, POKER_SECTION, VARIANT_SECTIONS, BoardConfig
from hardware.device import Device
from hardware.leds import SectionLEDs, StatusLED
from hardware.pins import choose_pin_factory, is_mock
from hardware.timing import Scheduler, ThreadScheduler
from hardware.wheel import Wheel

log = logging.getLogger(__name__)

_D = TypeVar("_D", bound=Device)


class ViewError(ValueError):
    """A view the board cannot show (wrong variant, unknown section, bad chip count)."""


@dataclass(frozen=True)
class Display:
    """What the board should show for one view: the board's reading of it, free of pins.

    ``chips`` are in board order; ``pulse`` holds the board-order indexes of
    the sections just won; ``face`` is the section the wheel turns to the
    table, or None to leave the wheel where it is.
    """

    variant: str | None
    chips: tuple[int, ...]
    pulse: tuple[int, ...]
    face: str | None

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Display:
        """Check *view* and read it; a :class:`ViewError` names the first bad field.

        The wheel faces, in order of precedence: the centre section when
        someone went out; the section just won (the richest, if one event won
        several); the section being called (Bonanza's upper half); the poker
        section during the poker round; otherwise it stays put.

        >>> view = {"variant": "bonanza", "phase": "calls", "call": "sequence", "out": None, "won": [],
        ...         "sections": [{"name": n, "chips": 3} for n in VARIANT_SECTIONS["bonanza"]]}
        >>> Display.from_view(view)
        Display(variant='bonanza', chips=(3, 3, 3, 3, 3, 3, 3, 3, 3, 3), pulse=(), face='sequence')
        >>> Display.from_view(dict(view, out="Bob")).face
        'centre'
        >>> Display.from_view({"variant": None})  # the table's view before any game
        Display(variant=None, chips=(), pulse=(), face=None)
        >>> Display.from_view(dict(view, variant="canasta"))
        Traceback (most recent call last):
        ...
        hardware.board.ViewError: view.variant: unknown variant 'canasta' (known: michigan-1939, bonanza, tripoley)
        """
        if not isinstance(view, Mapping):
            raise ViewError(f"view: expected a dict, got {type(view).__name__}")
        variant = view.get("variant")
        if variant is None:
            return cls(variant=None, chips=(), pulse=(), face=None)  # no game yet: a dark board
        if variant not in VARIANT_SECTIONS:
            raise ViewError(f"view.variant: unknown variant {variant!r} (known: {', '.join(VARIANT_SECTIONS)})")
        order = VARIANT_SECTIONS[variant]
        index = {name: i for i, name in enumerate(order)}

        sections = view.get("sections")
        if not isinstance(sections, (list, tuple)):
            raise ViewError(f"view.sections: expected a list, got {sections!r}")
        chips: dict[str, int] = {}
        for i, s in enumerate(sections):
            name = s.get("name") if isinstance(s, Mapping) else None
            if name not in index:
                raise ViewError(f"view.sections[{i}].name: {name!r} is not a section of the {variant} board")
            if name in chips:
                raise ViewError(f"view.sections[{i}].name: {name!r} is listed twice")
            chips[name] = _chips(f"view.sections[{i}].chips", s.get("chips"))
        missing = [n for n in order if n not in chips]
        if missing:
            raise ViewError(f"view.sections: missing {', '.join(missing)}")

        won = view.get("won") or []
        if not isinstance(won, (list, tuple)):
            raise ViewError(f"view.won: expected a list, got {won!r}")
        won_chips: dict[str, int] = {}
        for i, w in enumerate(won):
            name = w.get("section") if isinstance(w, Mapping) else None
            if name not in index:
                raise ViewError(f"view.won[{i}].section: {name!r} is not a section of the {variant} board")
            won_chips[name] = won_chips.get(name, 0) + _chips(f"view.won[{i}].chips", w.get("chips"))

        out = view.get("out")
        if out is not None and not isinstance(out, str):
            raise ViewError(f"view.out: expected a player name or None, got {out!r}")
        call = view.get("call")
        if call is not None and call not in index:
            raise ViewError(f"view.call: {call!r} is not a section of the {variant} board")
        phase = view.get("phase")
        if not isinstance(phase, str):
            raise ViewError(f"view.phase: expected a string, got {phase!r}")

        if out is not None:
            face: str | None = CENTRE_SECTION[variant]
        elif won_chips:
            face = max(won_chips, key=lambda n: (won_chips[n], -index[n]))
        elif call is not None:
            face = call
        elif phase == "poker":
            face = POKER_SECTION[variant]
        else:
            face = None
        return cls(variant=variant, chips=tuple(chips[n] for n in order),
                   pulse=tuple(sorted(index[n] for n in won_chips)), face=face)


def _chips(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ViewError(f"{key}: expected a chip count (a whole number, 0 or more), got {value!r}")
    return value


class Board(Device):
    """Every device of the board, built from a :class:`BoardConfig`.

    *pin_factory* defaults to :func:`hardware.pins.choose_pin_factory` (the
    Pi's GPIO, or mock pins elsewhere); a factory chosen here is closed with
    the board, one passed in is left open. *scheduler* defaults to a
    :class:`~hardware.timing.ThreadScheduler`; tests pass a
    :class:`~hardware.timing.ManualScheduler`.

    At start the LEDs are dark, the status LED is off until the first
    ``camera_ok``, and the wheel turns (unstepped, once) to the middle of the
    servo's range, then detaches.
    """

    def __init__(self, config: BoardConfig, *, on_event: EventSink, pin_factory: Factory | None = None,
                 scheduler: Scheduler | None = None) -> None:
        self.config = config
        self._own_factory = pin_factory is None
        self.pin_factory = choose_pin_factory() if pin_factory is None else pin_factory
        self._own_scheduler = scheduler is None
        self.scheduler: Scheduler = ThreadScheduler() if scheduler is None else scheduler
        self._lock = threading.RLock()
        self._last: Display | None = None
        self._parts: list[Device] = []
        self._warned: set[str | None] = set()
        f = self.pin_factory
        try:
            self.leds = self._part(SectionLEDs(config.led_pins, full_chips=config.full_chips,
                                               scheduler=self.scheduler, pin_factory=f))
            self.status = self._part(StatusLED(config.status_led_pin, scheduler=self.scheduler, pin_factory=f))
            self.wheel = self._part(Wheel(
                config.servo_pin, scheduler=self.scheduler, pin_factory=f,
                min_angle=config.servo_min_angle, max_angle=config.servo_max_angle,
                min_pulse_width=config.servo_min_pulse_ms / 1000, max_pulse_width=config.servo_max_pulse_ms / 1000,
                speed=config.servo_speed, settle_s=config.servo_settle_s,
                initial_angle=(config.servo_min_angle + config.servo_max_angle) / 2))
            self.buzzer = self._part(RejectBuzzer(config.buzzer_pin, kind=config.buzzer,
                                                  scheduler=self.scheduler, pin_factory=f))
            self.buttons = self._part(Buttons(config.confirm_pin, config.undo_pin, config.next_pin,
                                              on_event=on_event, hold_time=config.undo_hold_s,
                                              bounce_time=config.bounce_s, pin_factory=f))
        except BaseException:
            self.close()
            raise

    def _part(self, device: _D) -> _D:
        self._parts.append(device)
        return device

    @property
    def is_mock(self) -> bool:
        """True when nothing physical is driven (gpiozero's mock pins)."""
        return is_mock(self.pin_factory)

    def update(self, view: Mapping[str, Any]) -> Display:
        """Show *view*: LED levels, a pulse for each section just won, the wheel turned to the section in play.

        Call it after every applied event. The same view twice in a row
        changes nothing (no second pulse). A bad view raises
        :class:`ViewError` and leaves the board as it was.
        """
        display = Display.from_view(view)
        with self._lock:
            if self._closed:
                raise RuntimeError("the board is closed")
            if display == self._last:
                return display
            self._last = display
            if len(display.chips) > len(self.leds) and display.variant not in self._warned:
                self._warned.add(display.variant)
                log.warning("board: %d LEDs wired for the %d sections of %s; the last ones stay dark",
                            len(self.leds), len(display.chips), display.variant)
            self.leds.show(display.chips)
            for i in display.pulse:
                self.leds.pulse(i)
            if display.face is not None and display.variant is not None:
                self.wheel.turn_to(self.config.angle(display.variant, display.face))
        return display

    def reject(self) -> None:
        """Sound the buzzer: the last play was refused."""
        with self._lock:
            if not self._closed:
                self.buzzer.reject()

    def camera_ok(self, ok: bool) -> None:
        """Status LED steady (camera sees the table) or blinking (it does not)."""
        with self._lock:
            if not self._closed:
                self.status.camera_ok(bool(ok))

    def _release(self) -> None:
        """LEDs off, buzzer silent, servo detached, every pin released."""
        with self._lock:
            for part in reversed(self._parts):  # buttons first: no new events during shutdown
                try:
                    part.close()
                except Exception:
                    log.exception("board: closing %s failed", type(part).__name__)
            if self._own_scheduler:
                self.scheduler.close()
            if self._own_factory:
                self.pin_factory.close()


def close_on_sigterm(board: Board) -> Callable[[], None]:
    """Make SIGTERM (systemd's stop) close *board* before the process exits.

    Installs a handler in the calling (main) thread; call it from the serve
    loop, never at import. The handler closes the board, then does what the
    previous handler would have done (exit with status 143 for the default).
    Returns a function that puts the previous handler back.
    """
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: FrameType | None) -> None:
        board.close()
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:
            raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore
