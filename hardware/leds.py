"""The lamps: one dimmable LED per board section, and the status LED.

A section's LED tells the table at a glance how rich it is: dark when empty,
brighter with every chip, saturating at the configured "full" amount (see
:func:`brightness`). When a section is won its LED pulses, then settles at
the section's new level.

>>> from hardware.pins import mock_factory
>>> from hardware.timing import ManualScheduler
>>> clock = ManualScheduler()
>>> with SectionLEDs((5, 6, 12), full_chips=20, scheduler=clock, pin_factory=mock_factory()) as leds:
...     leds.show((0, 20, 5))
...     leds.values
(0.0, 1.0, 0.4656)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from gpiozero import LED, PWMLED
from gpiozero.pins import Factory

from hardware.device import Device
from hardware.timing import Scheduler, Steps, Timer

#: Brightness of a section holding a single chip: dim, but clearly not empty.
MIN_LEVEL = 0.05

#: The win pulse: this many rise-and-fall cycles of this many seconds, drawn in frames of FRAME_S.
PULSE_CYCLES = 2
PULSE_PERIOD_S = 0.5
FRAME_S = 0.05


def brightness(chips: int, full: int) -> float:
    """PWM level (0-1) for *chips* on a section, saturating at *full* chips.

    The curve is an ease-out parabola from ``MIN_LEVEL`` (one chip) to 1
    (``full`` chips or more): ``MIN_LEVEL + (1 - MIN_LEVEL) * (1 - (1 - f)**2)``
    with ``f = chips / full``. The first chips change the light most, which is
    what the eye notices; piles beyond ``full`` all look full. Rounded to 4
    places so pin values compare exactly.

    >>> [brightness(c, 20) for c in (0, 1, 5, 10, 20, 50)]
    [0.0, 0.1426, 0.4656, 0.7625, 1.0, 1.0]
    >>> brightness(-1, 20)
    Traceback (most recent call last):
    ...
    ValueError: chips must not be negative, got -1
    """
    if chips < 0:
        raise ValueError(f"chips must not be negative, got {chips}")
    if full < 1:
        raise ValueError(f"full must be at least 1, got {full}")
    if chips == 0:
        return 0.0
    f = min(chips, full) / full
    return round(MIN_LEVEL + (1 - MIN_LEVEL) * (1 - (1 - f) ** 2), 4)


def pulse_frames() -> list[float]:
    """The LED levels of one win pulse, one per ``FRAME_S``: rise to full and fall to dark, twice.

    >>> pulse_frames()[:6]
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> len(pulse_frames()) * FRAME_S
    1.0
    """
    per_cycle = round(PULSE_PERIOD_S / FRAME_S)
    half = per_cycle / 2
    cycle = [round(1 - abs(i - half) / half, 4) for i in range(per_cycle)]
    return cycle * PULSE_CYCLES


class SectionLEDs(Device):
    """One ``PWMLED`` per section, in board order.

    ``show`` sets every section's steady level from its chips; ``pulse``
    flashes one section and then returns it to its steady level. Sections
    beyond the wired LEDs are ignored; LEDs beyond the variant's sections stay dark.
    """

    def __init__(self, pins: Sequence[int], *, full_chips: int, scheduler: Scheduler,
                 pin_factory: Factory | None = None) -> None:
        self._full = full_chips
        self._scheduler = scheduler
        self._lock = threading.RLock()
        self._leds: list[PWMLED] = []
        self._steady: list[float] = []
        self._pulses: dict[int, Steps] = {}
        try:
            for pin in pins:
                self._leds.append(PWMLED(pin, pin_factory=pin_factory))
        except BaseException:
            self.close()
            raise
        self._steady = [0.0] * len(self._leds)

    def __len__(self) -> int:
        return len(self._leds)

    @property
    def values(self) -> tuple[float, ...]:
        """Current PWM level of each LED (rounded to 4 places)."""
        return tuple(round(led.value, 4) for led in self._leds)

    @property
    def pulsing(self) -> frozenset[int]:
        """Indexes of the LEDs whose win pulse is still running."""
        with self._lock:
            return frozenset(i for i, p in self._pulses.items() if not p.done)

    def show(self, chips: Sequence[int]) -> None:
        """Set each LED's steady level from the chips on its section (board order)."""
        levels = [brightness(c, self._full) for c in chips[: len(self._leds)]]
        levels += [0.0] * (len(self._leds) - len(levels))
        with self._lock:
            self._steady = levels
            pulsing = self.pulsing  # those settle at their new level when the pulse ends
            for i, level in enumerate(levels):
                if i not in pulsing:
                    self._leds[i].value = level

    def set(self, index: int, level: float) -> None:
        """Drive one LED directly (the self-test's walk), stopping its pulse."""
        with self._lock:
            self._stop_pulse(index)
            self._leds[index].value = level

    def pulse(self, index: int) -> None:
        """Flash LED *index* (``PULSE_CYCLES`` rise-and-falls), then return it to its steady level."""
        if not 0 <= index < len(self._leds):
            return  # a section with no LED wired
        with self._lock:
            self._stop_pulse(index)
            led = self._leds[index]
            steps = [(k * FRAME_S, self._setter(led, level)) for k, level in enumerate(pulse_frames())]
            steps.append((len(steps) * FRAME_S, lambda: self._settle(index)))
            self._pulses[index] = Steps(self._scheduler, steps, lock=self._lock)

    def _setter(self, led: PWMLED, level: float) -> Callable[[], None]:
        def action() -> None:
            with self._lock:
                if not led.closed:
                    led.value = level
        return action

    def _settle(self, index: int) -> None:
        with self._lock:
            self._pulses.pop(index, None)
            if not self._leds[index].closed:
                self._leds[index].value = self._steady[index]

    def _stop_pulse(self, index: int) -> None:
        job = self._pulses.pop(index, None)
        if job is not None:
            job.cancel()

    def off(self) -> None:
        """Every LED dark, pulses stopped; the steady levels are forgotten."""
        with self._lock:
            for i in list(self._pulses):
                self._stop_pulse(i)
            self._steady = [0.0] * len(self._leds)
            for led in self._leds:
                if not led.closed:
                    led.off()

    def _release(self) -> None:
        """Dark, then release every pin."""
        with self._lock:
            self.off()
            for led in self._leds:
                led.close()


class StatusLED(Device):
    """The camera lamp: steady when the camera sees the table, blinking when it does not.

    >>> from hardware.pins import mock_factory
    >>> from hardware.timing import ManualScheduler
    >>> clock = ManualScheduler()
    >>> with StatusLED(23, scheduler=clock, pin_factory=mock_factory()) as lamp:
    ...     lamp.camera_ok(False)
    ...     seen = [lamp.is_lit]
    ...     clock.advance(0.5); seen.append(lamp.is_lit)
    ...     clock.advance(0.5); seen.append(lamp.is_lit)
    ...     lamp.camera_ok(True)
    ...     clock.advance(0.5); seen.append(lamp.is_lit)
    >>> seen
    [True, False, True, True]
    """

    def __init__(self, pin: int, *, scheduler: Scheduler, blink_period_s: float = 1.0,
                 pin_factory: Factory | None = None) -> None:
        if blink_period_s <= 0:
            raise ValueError(f"blink_period_s must be positive, got {blink_period_s}")
        self._led = LED(pin, pin_factory=pin_factory)
        self._scheduler = scheduler
        self._half = blink_period_s / 2
        self._lock = threading.RLock()
        self._timer: Timer | None = None
        self._mode = "off"

    @property
    def mode(self) -> str:
        """``"off"``, ``"steady"`` or ``"blinking"``."""
        return self._mode

    @property
    def is_lit(self) -> bool:
        return bool(self._led.value)

    def camera_ok(self, ok: bool) -> None:
        """Steady if the camera sees the table, blinking if not. Repeating a state keeps the rhythm."""
        with self._lock:
            if ok and self._mode != "steady":
                self._stop()
                self._mode = "steady"
                self._led.on()
            elif not ok and self._mode != "blinking":
                self._stop()
                self._mode = "blinking"
                self._led.on()
                self._timer = self._scheduler.call_later(self._half, self._toggle)

    def _toggle(self) -> None:
        with self._lock:
            if self._mode != "blinking" or self._led.closed:
                return
            self._led.toggle()
            self._timer = self._scheduler.call_later(self._half, self._toggle)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def off(self) -> None:
        with self._lock:
            self._stop()
            self._mode = "off"
            if not self._led.closed:
                self._led.off()

    def _release(self) -> None:
        with self._lock:
            self.off()
            self._led.close()
