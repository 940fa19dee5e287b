"""`companion hardware-test` on mock pins: the whole walk, with and without simulated presses."""

from __future__ import annotations

import argparse
import io

import pytest

from companion.app import cli
from hardware import selftest
from hardware.config import VARIANT_SECTIONS


def run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    selftest.add_arguments(parser)
    out = io.StringIO()
    return selftest.run(parser.parse_args(["--mock", *argv]), out=out), out.getvalue()


def test_walks_everything_and_sees_every_simulated_press():
    rc, out = run("--simulate-presses")
    assert rc == 0, out
    assert "MOCK pins" in out
    assert out.count("LED ") >= 10 and "LED 10/10 on GPIO25" in out
    for variant, sections in VARIANT_SECTIONS.items():
        assert f"wheel ({variant})" in out
        assert all(f" {s} at " in out for s in sections)
    assert "wheel: detached (no pulses)" in out
    assert [line.strip() for line in out.splitlines() if line.strip().endswith(": OK")] == \
        ["CONFIRM: OK", "NEXT: OK", "UNDO: OK"]
    assert "Press and hold UNDO (GPIO27) for 1 s" in out
    assert out.rstrip().endswith("all buttons seen")


def test_without_presses_it_times_out_per_button_with_a_clear_message():
    rc, out = run("--timeout", "7", "--variant", "tripoley")
    assert rc == 1
    assert "wheel (bonanza)" not in out and "wheel (tripoley)" in out
    assert "CONFIRM: no press within 7 s — check GPIO17 -> button -> GND" in out
    assert "use --simulate-presses" in out
    assert "FAILED, no press seen from CONFIRM, NEXT, UNDO" in out


def test_reads_the_board_table_of_a_config_file(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[board]\nled_pins = [4, 5]\nbuzzer = "tonal"\nconfirm_pin = 6\n'
                    '[board.angles.bonanza]\ncentre = 12.5\n')
    rc, out = run("--config", str(path), "--simulate-presses", "--variant", "bonanza", "--dwell", "0")
    assert rc == 0, out
    assert "LED 2/2 on GPIO5" in out and "LED 3/" not in out
    assert "centre at   +12.5 deg" in out
    assert "buzzer (tonal)" in out and "Press CONFIRM (GPIO6)" in out


@pytest.mark.parametrize("text, message", [
    ("[board]\nservo_pin = 99\n", "board.servo_pin: expected a BCM GPIO number"),
    ("[board\n", "cannot use the config"),
])
def test_a_bad_config_is_reported_and_nothing_is_driven(tmp_path, text, message):
    path = tmp_path / "companion.toml"
    path.write_text(text)
    rc, out = run("--config", str(path))
    assert rc == 2 and message in out and "LED" not in out


def test_missing_config_file():
    rc, out = run("--config", "/nonexistent/companion.toml")
    assert rc == 2 and "No such file" in out


def test_routed_through_the_companion_cli(capsys):
    assert cli.main(["hardware-test", "--mock", "--simulate-presses", "--variant", "michigan-1939",
                     "--dwell", "0"]) == 0
    assert "all buttons seen" in capsys.readouterr().out
