"""The buzzer: a short, unmistakable "no" when the referee rejects a play.

Two kinds are supported, because both are sold as "buzzer": an *active*
buzzer has its own oscillator and sounds when powered (``Buzzer``, two short
beeps); a *passive* piezo needs a tone (``TonalBuzzer``, a falling two-note
"uh-oh"). Either way the sound is scheduled, so :meth:`RejectBuzzer.reject`
returns at once.

>>> from hardware.pins import mock_factory
>>> from hardware.timing import ManualScheduler
>>> clock = ManualScheduler()
>>> with RejectBuzzer(24, kind="active", scheduler=clock, pin_factory=mock_factory()) as buzzer:
...     buzzer.reject()
...     heard = [buzzer.sounding]
...     clock.advance(0.12); heard.append(buzzer.sounding)
...     clock.advance(0.08); heard.append(buzzer.sounding)
...     clock.advance(0.12); heard.append(buzzer.sounding)
>>> heard
[True, False, True, False]
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gpiozero import Buzzer, TonalBuzzer
from gpiozero.pins import Factory

from hardware.device import Device
from hardware.timing import Scheduler, Steps

#: Active buzzer: on/off times (seconds from the rejection) of two short beeps.
BEEPS: tuple[tuple[float, bool], ...] = ((0.0, True), (0.12, False), (0.2, True), (0.32, False))

#: Passive buzzer: notes (or None for silence) at offsets: a falling "uh-oh".
NOTES: tuple[tuple[float, str | None], ...] = ((0.0, "E4"), (0.15, "A3"), (0.4, None))


class RejectBuzzer(Device):
    """A ``Buzzer`` (kind ``"active"``) or ``TonalBuzzer`` (kind ``"tonal"``) that sounds a rejection."""

    def __init__(self, pin: int, *, kind: str = "active", scheduler: Scheduler,
                 pin_factory: Factory | None = None) -> None:
        if kind not in ("active", "tonal"):
            raise ValueError(f"kind must be 'active' or 'tonal', got {kind!r}")
        self.kind = kind
        self._device: Buzzer | TonalBuzzer = (
            Buzzer(pin, pin_factory=pin_factory) if kind == "active" else TonalBuzzer(pin, pin_factory=pin_factory))
        self._scheduler = scheduler
        self._lock = threading.RLock()
        self._job: Steps | None = None

    @property
    def sounding(self) -> bool:
        """True while the buzzer makes a sound."""
        if self.kind == "active":
            return bool(self._device.value)
        return self._device.value is not None

    def reject(self) -> None:
        """Sound the rejection (restarting it if one is still playing)."""
        with self._lock:
            if self._job is not None:
                self._job.cancel()
            if self.kind == "active":
                steps = [(t, self._action(self._device.on if on else self._device.off)) for t, on in BEEPS]
            else:
                steps = [(t, self._action(self._note(n))) for t, n in NOTES]
            self._job = Steps(self._scheduler, steps, lock=self._lock)

    def _note(self, note: str | None) -> Callable[[], None]:
        device = self._device
        assert isinstance(device, TonalBuzzer)
        return device.stop if note is None else (lambda: device.play(note))

    def _action(self, fn: Callable[[], None]) -> Callable[[], None]:
        def action() -> None:
            with self._lock:
                if not self._device.closed:
                    fn()
        return action

    def off(self) -> None:
        """Silence now."""
        with self._lock:
            if self._job is not None:
                self._job.cancel()
                self._job = None
            if not self._device.closed:
                if self.kind == "active":
                    self._device.off()
                else:
                    self._device.stop()

    def _release(self) -> None:
        with self._lock:
            self.off()
            self._device.close()
