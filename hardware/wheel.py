"""The wheel: an ``AngularServo`` that turns the section in play towards the table.

Two things keep a hobby servo from being a nuisance at a card table: it never
jumps (each move is stepped at ``speed`` degrees per second, one step per
servo frame), and it is detached once it has arrived (no pulses, so it does
not hum or jitter while the hand is played). A hobby servo cannot report its
position, so the only unstepped move is the first one, when the wheel is
created at ``initial_angle``.

>>> from hardware.pins import mock_factory
>>> from hardware.timing import ManualScheduler
>>> clock = ManualScheduler()
>>> with Wheel(18, speed=100, settle_s=0.5, initial_angle=0, scheduler=clock,
...            pin_factory=mock_factory()) as wheel:
...     seconds = wheel.turn_to(10)
...     clock.advance(0.04); first = wheel.servo_angle
...     clock.advance(seconds); last = wheel.servo_angle
...     clock.advance(0.5); idle = wheel.attached
>>> seconds, first, last, idle
(0.08, 6.0, 10.0, False)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from gpiozero import AngularServo
from gpiozero.pins import Factory

from hardware.device import Device
from hardware.timing import Scheduler, Steps

#: One step per servo frame (the servo takes a new position every 20 ms anyway).
STEP_S = 0.02


def step_angles(start: float, target: float, *, speed: float, step_s: float = STEP_S) -> list[float]:
    """The angles of a stepped move, one per ``step_s``, each at most ``speed * step_s`` from the last.

    >>> step_angles(0, 10, speed=100)
    [2.0, 4.0, 6.0, 8.0, 10.0]
    >>> step_angles(5, 5, speed=100)
    []
    """
    if speed <= 0 or step_s <= 0:
        raise ValueError("speed and step_s must be positive")
    delta = target - start
    n = math.ceil(abs(delta) / (speed * step_s) - 1e-9)
    return [round(start + delta * k / n, 4) for k in range(1, n + 1)]


class Wheel(Device):
    """A stepped, self-detaching ``AngularServo``.

    Actions run on *scheduler*: :meth:`turn_to` sets the first step at once
    and returns; the rest follow one frame apart, then the servo is detached
    ``settle_s`` after the last step (long enough for it to get there). A new
    :meth:`turn_to` during a move continues from the angle reached so far.
    """

    def __init__(self, pin: int, *, scheduler: Scheduler, min_angle: float = -90, max_angle: float = 90,
                 min_pulse_width: float = 0.5 / 1000, max_pulse_width: float = 2.5 / 1000,
                 speed: float = 120, settle_s: float = 0.6, initial_angle: float | None = 0.0,
                 pin_factory: Factory | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        if settle_s < 0:
            raise ValueError(f"settle_s must not be negative, got {settle_s}")
        self._low, self._high = sorted((min_angle, max_angle))
        if initial_angle is not None:
            self._check(initial_angle)
        self._servo = AngularServo(pin, initial_angle=initial_angle, min_angle=min_angle, max_angle=max_angle,
                                   min_pulse_width=min_pulse_width, max_pulse_width=max_pulse_width,
                                   pin_factory=pin_factory)
        self._scheduler = scheduler
        self._speed = speed
        self._settle = settle_s
        self._lock = threading.RLock()
        self._angle = initial_angle
        self._target = initial_angle
        self._job: Steps | None = None
        if initial_angle is not None:
            self._job = Steps(scheduler, [(settle_s + 1.0, self._detach)], lock=self._lock)  # a first move may be a long one

    @property
    def angle(self) -> float | None:
        """The angle last commanded (kept while detached); None before the first move."""
        return self._angle

    @property
    def target(self) -> float | None:
        """Where the current (or last) move ends."""
        return self._target

    @property
    def servo_angle(self) -> float | None:
        """The angle the servo's pulses encode now; None while detached."""
        angle = self._servo.angle
        return None if angle is None else round(angle, 4)

    @property
    def attached(self) -> bool:
        """True while pulses are being sent."""
        return self._servo.value is not None

    def _check(self, angle: float) -> None:
        if not self._low <= angle <= self._high:
            raise ValueError(f"angle {angle} is outside the servo's range {self._low} to {self._high}")

    def turn_to(self, angle: float) -> float:
        """Start a stepped move to *angle*; returns the seconds until the last step."""
        self._check(angle)
        with self._lock:
            if self._job is not None:
                self._job.cancel()
            self._target = angle
            # nowhere known to step from: straight to the target
            path = [float(angle)] if self._angle is None else step_angles(self._angle, angle, speed=self._speed)
            if not path:
                if self.attached:  # already there: restart the settle countdown only
                    self._job = Steps(self._scheduler, [(self._settle, self._detach)], lock=self._lock)
                return 0.0
            steps = [(k * STEP_S, self._stepper(a)) for k, a in enumerate(path)]
            steps.append(((len(path) - 1) * STEP_S + self._settle, self._detach))
            self._job = Steps(self._scheduler, steps, lock=self._lock, catch_up=False)
            return round((len(path) - 1) * STEP_S, 4)

    def _stepper(self, angle: float) -> Callable[[], None]:
        def action() -> None:
            with self._lock:
                if not self._servo.closed:
                    self._servo.angle = angle
                    self._angle = angle
        return action

    def _detach(self) -> None:
        with self._lock:
            if not self._servo.closed:
                self._servo.detach()

    def detach(self) -> None:
        """Stop any move and stop sending pulses; the wheel stays where it is."""
        with self._lock:
            if self._job is not None:
                self._job.cancel()
                self._job = None
            self._target = self._angle
            self._detach()

    def _release(self) -> None:
        """Detach and release the pin."""
        with self._lock:
            self.detach()
            self._servo.close()
