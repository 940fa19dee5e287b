"""Choosing the pin backend: the Pi's own GPIO when there is one, gpiozero's mock pins otherwise.

The same board code runs on the table and on a laptop: on a Pi the default
gpiozero factory is used (lgpio on a Pi 5, which also serves a Pi 4), and
anywhere else a ``MockFactory`` with PWM-capable mock pins, so the LEDs'
brightness and the servo's pulse width can be read back. One log line says which.

>>> factory = mock_factory()
>>> is_mock(factory), factory.pin(18).frequency is None
(True, True)
"""

from __future__ import annotations

import logging
import os
import warnings

from gpiozero import Device
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

log = logging.getLogger(__name__)


def mock_factory() -> MockFactory:
    """A fresh mock GPIO header whose pins all support PWM."""
    return MockFactory(pin_class=MockPWMPin)


def is_mock(factory: Factory) -> bool:
    """True for gpiozero's mock pins (nothing physical moves)."""
    return isinstance(factory, MockFactory)


def choose_pin_factory() -> Factory:
    """The real GPIO factory if this machine has one, else mock pins; logs the choice.

    gpiozero's own preference order is kept (lgpio, RPi.GPIO, pigpio), and so
    is ``GPIOZERO_PIN_FACTORY`` if set. Its fallback warnings are folded into
    the one log line instead of being printed one by one. gpiozero's last
    resort, the native factory, has no PWM, so it counts as no GPIO (with a
    warning saying what to install).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            factory = Device._default_pin_factory()
        except Exception as exc:  # BadPinFactory, or an import error from a named factory
            reasons = "; ".join(str(w.message) for w in caught) or str(exc)
            log.info("board: no GPIO here (%s); using mock pins, nothing physical will move", reasons)
            return mock_factory()
    if type(factory).__name__ == "NativeFactory" and "GPIOZERO_PIN_FACTORY" not in os.environ:
        # gpiozero's last resort has no PWM: the lamps and the servo could not work at all
        factory.close()
        log.warning("board: this Pi has no usable GPIO library (only gpiozero's native factory, which has no "
                    "PWM); install lgpio (pip install lgpio, or apt install python3-lgpio with a "
                    "--system-site-packages venv). Using mock pins, nothing physical will move")
        return mock_factory()
    if is_mock(factory):
        if not issubclass(factory.pin_class, MockPWMPin):
            factory = mock_factory()  # the LEDs and the servo need PWM, which plain MockPin lacks
        log.info("board: using mock pins (GPIOZERO_PIN_FACTORY=mock); nothing physical will move")
    else:
        log.info("board: using GPIO through %s", type(factory).__name__)
    return factory
