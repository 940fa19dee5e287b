"""The ``[board]`` table of the config: which GPIO drives what, and the wheel's calibration.

The defaults are a Raspberry Pi 4/5 wiring (BCM numbers) that leaves the I2C
(GPIO 2, 3), SPI0 (GPIO 7-11), UART (GPIO 14, 15) and HAT EEPROM (GPIO 0, 1)
pins free, so a display or sensor can still be added; ``docs/wiring.md``
draws it. Every key is optional; a wrong one is a :class:`ConfigError` naming
it, and nothing is half-applied.

>>> cfg = BoardConfig.from_dict({"servo_pin": 4, "angles": {"bonanza": {"centre": 0}}})
>>> cfg.servo_pin, cfg.angle("bonanza", "centre"), cfg.angle("bonanza", "joker")
(4, 0.0, -80.0)
>>> BoardConfig.from_dict({"full_chips": 0})
Traceback (most recent call last):
...
hardware.config.ConfigError: board.full_chips: must be at least 1, got 0
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from companion.rules.variants import VARIANTS


class _OfEachVariant(Mapping[str, Any]):
    """One setting of every variant in ``companion.rules.variants.VARIANTS``, read when asked, so a
    game registered there has its board here too."""

    def __init__(self, setting: str) -> None:
        self._setting = setting

    def __getitem__(self, variant: str) -> Any:
        return getattr(VARIANTS[variant], self._setting)

    def __iter__(self) -> Iterator[str]:
        return iter(VARIANTS)

    def __len__(self) -> int:
        return len(VARIANTS)


VARIANT_SECTIONS: Mapping[str, tuple[str, ...]] = _OfEachVariant("sections")
"""Every section of each variant's board, in board order (the LED order too)."""
CENTRE_SECTION: Mapping[str, str] = _OfEachVariant("centre")
"""The section paid to whoever goes out."""
POKER_SECTION: Mapping[str, str] = _OfEachVariant("poker_section")
"""The section the poker round plays for."""

#: GPIO numbers a Pi 4/5 header offers (BCM 0-27).
GPIO_RANGE = range(0, 28)

BUZZER_KINDS = ("active", "tonal")


class ConfigError(ValueError):
    """A ``[board]`` value that cannot be used; the message starts with its key."""


def default_angles(sections: tuple[str, ...], *, low: float = -80.0, high: float = 80.0) -> dict[str, float]:
    """Spread a board's sections evenly over the wheel, in board order.

    A starting point only: each board is calibrated by setting the angles in
    the config after watching ``companion hardware-test``.

    >>> default_angles(("a", "b", "c"))
    {'a': -80.0, 'b': 0.0, 'c': 80.0}
    """
    n = len(sections)
    if n == 1:
        return {sections[0]: (low + high) / 2}
    return {s: round(low + (high - low) * i / (n - 1), 3) for i, s in enumerate(sections)}


def _default_angle_table() -> dict[str, dict[str, float]]:
    return {v: default_angles(s) for v, s in VARIANT_SECTIONS.items()}


@dataclass(frozen=True)
class BoardConfig:
    """Pins (BCM numbers) and calibration of the board. Frozen: build a new one to change it."""

    #: One LED per section, in board order; a variant with more sections than
    #: LEDs leaves the last ones dark.
    led_pins: tuple[int, ...] = (5, 6, 12, 13, 19, 16, 26, 20, 21, 25)
    status_led_pin: int = 23
    servo_pin: int = 18
    confirm_pin: int = 17
    undo_pin: int = 27
    next_pin: int = 22
    buzzer_pin: int = 24
    #: "active" (a buzzer with its own oscillator: on/off) or "tonal" (a
    #: passive piezo driven with a tone, through ``TonalBuzzer``).
    buzzer: str = "active"
    #: Chips on a section at which its LED reaches full brightness.
    full_chips: int = 20
    #: Pulse widths for the servo's two ends (ms), and the angles they mean.
    servo_min_pulse_ms: float = 0.5
    servo_max_pulse_ms: float = 2.5
    servo_min_angle: float = -90.0
    servo_max_angle: float = 90.0
    #: Top turning speed of the wheel (degrees per second); moves are stepped at this pace.
    servo_speed: float = 120.0
    #: Seconds to keep driving the servo after the last step before detaching it.
    servo_settle_s: float = 0.6
    #: Seconds undo must be held before it fires.
    undo_hold_s: float = 1.0
    #: Button debounce (seconds), or None to leave debouncing off.
    bounce_s: float | None = 0.05
    #: Wheel angle (degrees) of each section, per variant.
    angles: Mapping[str, Mapping[str, float]] = field(default_factory=_default_angle_table)

    def __post_init__(self) -> None:
        # Freeze the containers too, so a config shared by the loop and the board cannot drift.
        object.__setattr__(self, "led_pins", tuple(self.led_pins))
        object.__setattr__(self, "angles", MappingProxyType(
            {v: MappingProxyType(dict(a)) for v, a in self.angles.items()}))
        _validate(self)

    def angle(self, variant: str, section: str) -> float:
        """The wheel angle that turns *section* of *variant* towards the table."""
        try:
            return float(self.angles[variant][section])
        except KeyError:
            raise KeyError(f"no angle for section {section!r} of variant {variant!r}") from None

    def pins(self) -> dict[str, int]:
        """Every pin the board uses, by config key (LEDs as ``led_pins[i]``)."""
        out = {f"led_pins[{i}]": p for i, p in enumerate(self.led_pins)}
        for name in ("status_led_pin", "servo_pin", "confirm_pin", "undo_pin", "next_pin", "buzzer_pin"):
            out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BoardConfig:
        """Read the ``[board]`` table (as ``tomllib`` returns it); missing keys keep their defaults.

        ``angles`` is merged per section over the defaults, so calibrating one
        section does not require listing the others.
        """
        if not isinstance(d, Mapping):
            raise ConfigError(f"board: expected a table, got {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ConfigError(f"board.{unknown[0]}: unknown key (known: {', '.join(sorted(known))})")
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in d:
                continue
            value = d[f.name]
            key = f"board.{f.name}"
            if f.name == "led_pins":
                kwargs[f.name] = _led_pins(value)
            elif f.name == "angles":
                kwargs[f.name] = _angles(value)
            elif f.name == "buzzer":
                if value not in BUZZER_KINDS:
                    raise ConfigError(f"{key}: must be one of {', '.join(BUZZER_KINDS)}, got {value!r}")
                kwargs[f.name] = value
            elif f.name.endswith("_pin"):
                kwargs[f.name] = _pin(key, value)
            elif f.name == "full_chips":
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError(f"{key}: expected a whole number of chips, got {value!r}")
                kwargs[f.name] = value
            elif f.name == "bounce_s" and value is False:
                kwargs[f.name] = None  # TOML has no null: `bounce_s = false` turns debouncing off
            else:
                kwargs[f.name] = _number(key, value)
        return cls(**kwargs)


def _pin(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in GPIO_RANGE:
        raise ConfigError(f"{key}: expected a BCM GPIO number 0-27, got {value!r}")
    return value


def _number(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{key}: expected a number, got {value!r}")
    return float(value)


def _led_pins(value: Any) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ConfigError(f"board.led_pins: expected a list of GPIO numbers, got {value!r}")
    return tuple(_pin(f"board.led_pins[{i}]", p) for i, p in enumerate(value))


def _angles(value: Any) -> dict[str, dict[str, float]]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"board.angles: expected a table of variants, got {value!r}")
    table = _default_angle_table()
    for variant, per_section in value.items():
        key = f"board.angles.{variant}"
        if variant not in VARIANT_SECTIONS:
            raise ConfigError(f"{key}: unknown variant (known: {', '.join(VARIANT_SECTIONS)})")
        if not isinstance(per_section, Mapping):
            raise ConfigError(f"{key}: expected a table of section = angle, got {per_section!r}")
        for section, angle in per_section.items():
            if section not in VARIANT_SECTIONS[variant]:
                raise ConfigError(f"{key}.{section}: no such section on the {variant} board "
                                  f"(sections: {' '.join(VARIANT_SECTIONS[variant])})")
            table[variant][section] = _number(f"{key}.{section}", angle)
    return table


def _validate(cfg: BoardConfig) -> None:
    """Cross-field checks, shared by the constructor and :meth:`BoardConfig.from_dict`."""
    if not 1 <= len(cfg.led_pins) <= max(len(s) for s in VARIANT_SECTIONS.values()):
        raise ConfigError(f"board.led_pins: expected 1 to 10 pins, got {len(cfg.led_pins)}")
    seen: dict[int, str] = {}
    for key, pin in cfg.pins().items():
        _pin(f"board.{key}", pin)
        if pin in seen:
            raise ConfigError(f"board.{key}: GPIO{pin} is already used by board.{seen[pin]}")
        seen[pin] = key
    if cfg.buzzer not in BUZZER_KINDS:
        raise ConfigError(f"board.buzzer: must be one of {', '.join(BUZZER_KINDS)}, got {cfg.buzzer!r}")
    if cfg.full_chips < 1:
        raise ConfigError(f"board.full_chips: must be at least 1, got {cfg.full_chips}")
    if not 0 < cfg.servo_min_pulse_ms < cfg.servo_max_pulse_ms < 20:
        raise ConfigError("board.servo_max_pulse_ms: pulse widths must satisfy "
                          f"0 < servo_min_pulse_ms < servo_max_pulse_ms < 20, got "
                          f"{cfg.servo_min_pulse_ms} and {cfg.servo_max_pulse_ms}")
    if cfg.servo_min_angle == cfg.servo_max_angle:
        raise ConfigError("board.servo_max_angle: must differ from servo_min_angle")
    if cfg.servo_speed <= 0:
        raise ConfigError(f"board.servo_speed: must be positive, got {cfg.servo_speed}")
    for key in ("servo_settle_s", "undo_hold_s"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"board.{key}: must not be negative, got {getattr(cfg, key)}")
    if cfg.bounce_s is not None and cfg.bounce_s <= 0:
        raise ConfigError(f"board.bounce_s: must be positive (or false for none), got {cfg.bounce_s}")
    lo, hi = sorted((cfg.servo_min_angle, cfg.servo_max_angle))
    for variant, sections in VARIANT_SECTIONS.items():
        table = cfg.angles.get(variant, {})
        for section in sections:
            if section not in table:
                raise ConfigError(f"board.angles.{variant}.{section}: missing")
            if not lo <= table[section] <= hi:
                raise ConfigError(f"board.angles.{variant}.{section}: {table[section]} is outside the "
                                  f"servo's range {lo} to {hi}")
