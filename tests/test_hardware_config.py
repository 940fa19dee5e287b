"""BoardConfig: defaults, the [board] TOML table, and validation errors that name the key."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from hardware.config import CENTRE_SECTION, POKER_SECTION, VARIANT_SECTIONS, BoardConfig, ConfigError, default_angles

#: Pins a Pi HAT, I2C, SPI0 or the UART would want: the defaults keep off them.
RESERVED = {0, 1, 2, 3, 7, 8, 9, 10, 11, 14, 15}


def test_defaults_use_distinct_pins_away_from_i2c_spi_uart():
    pins = list(BoardConfig().pins().values())
    assert len(pins) == 16
    assert len(set(pins)) == len(pins)
    assert not set(pins) & RESERVED
    assert all(0 <= p <= 27 for p in pins)


def test_defaults_have_an_angle_for_every_section_inside_the_servo_range():
    cfg = BoardConfig()
    for variant, sections in VARIANT_SECTIONS.items():
        angles = [cfg.angle(variant, s) for s in sections]
        assert angles == sorted(angles) and len(set(angles)) == len(angles)
        assert all(cfg.servo_min_angle <= a <= cfg.servo_max_angle for a in angles)
        assert CENTRE_SECTION[variant] in sections and POKER_SECTION[variant] in sections


def test_sections_are_the_boards_of_docs_rules():
    assert " ".join(VARIANT_SECTIONS["michigan-1939"]) == "AH KC QH JS TH QH-KH 7-8-9 poker pot"
    assert " ".join(VARIANT_SECTIONS["bonanza"]) == "joker QS-JD sequence TD-2S poker AS KH QD JC centre"
    assert " ".join(VARIANT_SECTIONS["tripoley"]) == "AH KH QH JH TH KH-QH 8-9-10 kitty pot"


def test_from_toml_board_table_merges_angles_over_defaults():
    text = """
    [board]
    led_pins = [5, 6, 12, 13, 19, 16, 26, 20, 21]
    servo_pin = 4
    buzzer = "tonal"
    full_chips = 12
    servo_min_pulse_ms = 0.6
    servo_max_pulse_ms = 2.4
    bounce_s = false

    [board.angles.michigan-1939]
    pot = 0
    7-8-9 = 42.5
    """
    cfg = BoardConfig.from_dict(tomllib.loads(text)["board"])
    assert cfg.led_pins == (5, 6, 12, 13, 19, 16, 26, 20, 21)
    assert (cfg.servo_pin, cfg.buzzer, cfg.full_chips, cfg.bounce_s) == (4, "tonal", 12, None)
    assert (cfg.servo_min_pulse_ms, cfg.servo_max_pulse_ms) == (0.6, 2.4)
    assert cfg.angle("michigan-1939", "pot") == 0.0
    assert cfg.angle("michigan-1939", "7-8-9") == 42.5
    assert cfg.angle("michigan-1939", "AH") == default_angles(VARIANT_SECTIONS["michigan-1939"])["AH"]
    assert cfg.angle("bonanza", "centre") == BoardConfig().angle("bonanza", "centre")


def test_empty_table_is_the_defaults():
    assert BoardConfig.from_dict({}) == BoardConfig()


def test_config_is_frozen_all_the_way_down():
    cfg = BoardConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.servo_pin = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        cfg.angles["bonanza"]["centre"] = 0  # type: ignore[index]


@pytest.mark.parametrize("table, key", [
    ({"servo_pni": 4}, "board.servo_pni"),
    ({"servo_pin": 28}, "board.servo_pin"),
    ({"servo_pin": "GPIO18"}, "board.servo_pin"),
    ({"servo_pin": True}, "board.servo_pin"),
    ({"confirm_pin": 18}, "board.confirm_pin"),                 # the servo's pin already
    ({"led_pins": [5, 6, 12, "x"]}, "board.led_pins[3]"),
    ({"led_pins": "5,6"}, "board.led_pins"),
    ({"led_pins": []}, "board.led_pins"),
    ({"led_pins": list(range(4, 15))}, "board.led_pins"),
    ({"buzzer": "loud"}, "board.buzzer"),
    ({"full_chips": 0}, "board.full_chips"),
    ({"full_chips": 2.5}, "board.full_chips"),
    ({"servo_speed": 0}, "board.servo_speed"),
    ({"servo_speed": "fast"}, "board.servo_speed"),
    ({"servo_min_pulse_ms": 2.5, "servo_max_pulse_ms": 0.5}, "board.servo_max_pulse_ms"),
    ({"servo_max_angle": -90}, "board.servo_max_angle"),
    ({"undo_hold_s": -1}, "board.undo_hold_s"),
    ({"bounce_s": 0}, "board.bounce_s"),
    ({"angles": {"canasta": {}}}, "board.angles.canasta"),
    ({"angles": {"bonanza": {"pot": 0}}}, "board.angles.bonanza.pot"),
    ({"angles": {"bonanza": {"centre": 95}}}, "board.angles.bonanza.centre"),
    ({"angles": {"bonanza": {"centre": "up"}}}, "board.angles.bonanza.centre"),
    ({"angles": {"bonanza": 3}}, "board.angles.bonanza"),
    ({"angles": [1, 2]}, "board.angles"),
])
def test_bad_values_raise_config_error_naming_the_key(table, key):
    with pytest.raises(ConfigError) as err:
        BoardConfig.from_dict(table)
    assert str(err.value).startswith(key + ":"), str(err.value)
    assert isinstance(err.value, ValueError)


def test_duplicate_pin_names_both_keys():
    with pytest.raises(ConfigError, match=r"board.buzzer_pin: GPIO5 is already used by board.led_pins\[0\]"):
        BoardConfig.from_dict({"buzzer_pin": 5})


def test_not_a_table():
    with pytest.raises(ConfigError, match=r"^board: expected a table"):
        BoardConfig.from_dict([("servo_pin", 4)])  # type: ignore[arg-type]


def test_reversed_servo_range_accepts_angles_inside_it():
    cfg = BoardConfig(servo_min_angle=90, servo_max_angle=-90)
    assert cfg.angle("tripoley", "AH") == -80.0


def test_unknown_section_lookup_is_a_key_error():
    with pytest.raises(KeyError, match="no angle for section 'kitty' of variant 'bonanza'"):
        BoardConfig().angle("bonanza", "kitty")
