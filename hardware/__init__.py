"""The board the players look at: section LEDs, the servo-turned wheel, buttons, buzzer (gpiozero).

One module per family of devices (:mod:`hardware.leds`, :mod:`hardware.wheel`,
:mod:`hardware.buttons`, :mod:`hardware.buzzer`), the ``[board]`` config
(:mod:`hardware.config`), the pin backend (:mod:`hardware.pins`), timing
(:mod:`hardware.timing`), what every part shares (:mod:`hardware.device`:
closed once, a context manager), the whole board (:mod:`hardware.board`) and
the ``companion hardware-test`` subcommand (:mod:`hardware.selftest`).
"""

from hardware.board import Board, Display, ViewError, close_on_sigterm
from hardware.config import CENTRE_SECTION, VARIANT_SECTIONS, BoardConfig, ConfigError
from hardware.pins import choose_pin_factory, is_mock, mock_factory

__all__ = [
    "CENTRE_SECTION", "VARIANT_SECTIONS", "Board", "BoardConfig", "ConfigError", "Display", "ViewError",
    "choose_pin_factory", "close_on_sigterm", "is_mock", "mock_factory",
]
