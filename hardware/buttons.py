"""The three buttons: confirm, undo (held), next — turned into the referee page's events.

Each button is wired from its GPIO to GND and read with the Pi's internal
pull-up, so a press pulls the pin low. Undo must be *held* (``hold_time``,
one second by default) because it takes back a recorded play: a brush of the
hand must not do that. Confirm and next act on the press.

The events are dicts, fresh for each press: ``{"type": "next"}`` and
``{"type": "undo"}`` are record events; ``{"type": "confirm"}`` is a UI
action (accept the uncertain read the loop is holding). ``on_event`` is called
from gpiozero's pin-watching thread, so it must be thread-safe (e.g. put the
event on a queue).

>>> from hardware.pins import mock_factory
>>> factory, events = mock_factory(), []
>>> with Buttons(17, 27, 22, on_event=events.append, pin_factory=factory):
...     factory.pin(22).drive_low(); factory.pin(22).drive_high()
...     factory.pin(17).drive_low(); factory.pin(17).drive_high()
>>> events
[{'type': 'next'}, {'type': 'confirm'}]
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from gpiozero import Button
from gpiozero.pins import Factory

from hardware.device import Device

log = logging.getLogger(__name__)

EventSink = Callable[[dict], None]


class Buttons(Device):
    """confirm (press), undo (hold ``hold_time`` s), next (press), delivered to ``on_event``."""

    def __init__(self, confirm_pin: int, undo_pin: int, next_pin: int, *, on_event: EventSink,
                 hold_time: float = 1.0, bounce_time: float | None = None,
                 pin_factory: Factory | None = None) -> None:
        self._on_event = on_event
        self._buttons: list[Button] = []
        try:
            self.confirm = self._add(confirm_pin, bounce_time, pin_factory)
            self.undo = self._add(undo_pin, bounce_time, pin_factory, hold_time=hold_time)
            self.next = self._add(next_pin, bounce_time, pin_factory)
        except BaseException:
            self.close()
            raise
        self.confirm.when_pressed = lambda: self._emit("confirm")
        self.undo.when_held = lambda: self._emit("undo")
        self.next.when_pressed = lambda: self._emit("next")

    def _add(self, pin: int, bounce_time: float | None, pin_factory: Factory | None,
             hold_time: float = 1.0) -> Button:
        button = Button(pin, pull_up=True, bounce_time=bounce_time, hold_time=hold_time,
                        pin_factory=pin_factory)
        self._buttons.append(button)
        return button

    def _emit(self, kind: str) -> None:
        try:
            self._on_event({"type": kind})
        except Exception:  # a failing handler must not kill the pin-watching thread
            log.exception("board: handling the %s button failed", kind)

    def _release(self) -> None:
        """Release the pins; no more events."""
        for button in self._buttons:
            button.close()
