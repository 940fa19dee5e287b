"""The board on gpiozero's mock pins: what each pin does for given board states, over simulated time."""

from __future__ import annotations

import doctest
import importlib
import itertools
import logging
import math
import os
import signal
import threading
import time
from typing import Any

import pytest
from gpiozero.exc import GPIOPinInUse
from gpiozero.pins.mock import MockPWMPin

from hardware.board import Board, Display, ViewError, close_on_sigterm
from hardware.config import CENTRE_SECTION, VARIANT_SECTIONS, BoardConfig
from hardware.leds import FRAME_S, MIN_LEVEL, brightness, pulse_frames
from hardware.pins import choose_pin_factory, is_mock, mock_factory
from hardware.timing import ManualScheduler, Steps, ThreadScheduler
from hardware.wheel import STEP_S

CFG = BoardConfig()


def view(variant="michigan-1939", *, chips=None, won=(), out=None, call=None, phase="run"):
    names = VARIANT_SECTIONS[variant]
    chips = chips or {}
    return {
        "variant": variant, "phase": phase, "call": call, "out": out,
        "sections": [{"name": n, "chips": chips.get(n, 0)} for n in names],
        "won": [{"section": s, "player": "Bob", "chips": c} for s, c in won],
    }


@pytest.fixture
def rig():
    """A board on fresh mock pins and a hand-cranked clock; yields (board, factory, clock, events)."""
    factory, clock = mock_factory(), ManualScheduler()
    events: list[dict[str, Any]] = []
    board = Board(CFG, on_event=events.append, pin_factory=factory, scheduler=clock)
    clock.advance(5.0)  # let the start-up wheel move settle and detach
    yield board, factory, clock, events
    board.close()


def arrive(board, clock):
    """Advance frame by frame until the wheel's pulses reach its target (still attached, before it detaches)."""
    for _ in range(200):
        if board.wheel.servo_angle is not None and board.wheel.servo_angle == pytest.approx(board.wheel.target):
            return
        clock.advance(STEP_S)
    raise AssertionError(f"the wheel never reached {board.wheel.target}")


def led_states(factory, cfg=CFG):
    return [round(factory.pin(p).state, 4) for p in cfg.led_pins]


def servo_angle(factory, cfg=CFG):
    """The angle the servo pin's pulses encode, computed from the pin (not from gpiozero's servo)."""
    pin = factory.pin(cfg.servo_pin)
    if pin.frequency is None:
        return None
    assert pin.frequency == 50
    pulse_ms = pin.state * 20.0
    span = cfg.servo_max_pulse_ms - cfg.servo_min_pulse_ms
    return cfg.servo_min_angle + (pulse_ms - cfg.servo_min_pulse_ms) / span * (cfg.servo_max_angle - cfg.servo_min_angle)


# --- LEDs -----------------------------------------------------------------------------------------

def test_empty_board_is_dark(rig):
    board, factory, clock, _ = rig
    board.update(view(chips={}))
    clock.advance(2)
    assert led_states(factory) == [0.0] * 10


def test_one_rich_section_lights_only_its_led(rig):
    board, factory, _, _ = rig
    board.update(view(chips={"QH-KH": 7}))
    expected = [0.0] * 10
    expected[5] = brightness(7, CFG.full_chips)
    assert led_states(factory) == expected
    assert 0.3 < expected[5] < 1.0


def test_brightness_grows_with_chips_and_saturates_at_full():
    levels = [brightness(c, 20) for c in range(0, 41)]
    assert levels[0] == 0.0 and levels[1] == pytest.approx(MIN_LEVEL + 0.95 * (1 - 0.95 ** 2), abs=1e-4)
    assert all(a < b for a, b in itertools.pairwise(levels[:21]))
    assert levels[20:] == [1.0] * 21
    assert brightness(3, 3) == 1.0 and brightness(1, 1) == 1.0


def test_full_chips_is_configurable():
    factory, clock = mock_factory(), ManualScheduler()
    with Board(BoardConfig(full_chips=5), on_event=print, pin_factory=factory, scheduler=clock) as board:
        board.update(view(chips={"AH": 5, "KC": 4}))
        assert led_states(factory)[:2] == [1.0, brightness(4, 5)]


def test_win_pulse_rises_falls_then_settles_at_the_new_level(rig):
    board, factory, clock, _ = rig
    board.update(view(chips={"AH": 6, "KC": 3}))
    board.update(view(chips={"AH": 0, "KC": 3}, won=[("AH", 6)]))
    seen = []
    for _ in range(len(pulse_frames())):
        seen.append(led_states(factory)[0])
        clock.advance(FRAME_S)
    assert seen == pulse_frames()
    assert seen.count(1.0) == 2 and min(seen) == 0.0
    assert led_states(factory)[:2] == [0.0, brightness(3, CFG.full_chips)]
    assert board.leds.pulsing == frozenset()


def test_pulse_settles_at_the_latest_level_even_if_chips_change_during_it(rig):
    board, factory, clock, _ = rig
    board.update(view(chips={"TH": 1}, won=[("TH", 4)]))
    clock.advance(0.3)
    board.update(view(chips={"TH": 9}))       # an ante lands mid-pulse
    assert 4 in board.leds.pulsing
    clock.advance(1.0)
    assert led_states(factory)[4] == brightness(9, CFG.full_chips)


def test_same_view_twice_pulses_once(rig):
    board, factory, clock, _ = rig
    v = view(won=[("KC", 5)])
    board.update(v)
    clock.advance(2)
    board.update(v)
    assert board.leds.pulsing == frozenset()
    assert led_states(factory)[1] == 0.0


def test_variant_with_fewer_leds_than_sections_warns_once(caplog):
    factory, clock = mock_factory(), ManualScheduler()
    cfg = BoardConfig(led_pins=(5, 6, 12, 13, 19, 16, 26, 20, 21))
    with Board(cfg, on_event=print, pin_factory=factory, scheduler=clock) as board, \
            caplog.at_level(logging.WARNING, logger="hardware.board"):
        board.update(view("bonanza", chips={"centre": 20, "JC": 20}))
        board.update(view("bonanza", chips={"centre": 19, "JC": 20}))
        assert led_states(factory, cfg) == [0.0] * 8 + [1.0]
    assert len([r for r in caplog.records if "stay dark" in r.message]) == 1


# --- the wheel ------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", sorted(VARIANT_SECTIONS))
def test_wheel_faces_each_section_at_its_calibrated_angle(rig, variant):
    board, factory, clock, _ = rig
    for section in VARIANT_SECTIONS[variant]:
        board.update(view(variant, won=[(section, 3)], chips={section: 0}))
        arrive(board, clock)
        assert board.wheel.servo_angle == pytest.approx(CFG.angle(variant, section), abs=1e-6)
        assert servo_angle(factory) == pytest.approx(CFG.angle(variant, section), abs=1e-6)
        board.update(view(variant))  # the next event wins nothing: the wheel stays
        clock.advance(0.5)
        assert board.wheel.angle == pytest.approx(CFG.angle(variant, section))


def test_calibrated_angles_and_pulse_widths_reach_the_pin():
    cfg = BoardConfig(servo_min_pulse_ms=0.6, servo_max_pulse_ms=2.4, servo_min_angle=-80, servo_max_angle=80,
                      angles={**BoardConfig().angles, "bonanza": {**BoardConfig().angles["bonanza"], "centre": 33}})
    factory, clock = mock_factory(), ManualScheduler()
    with Board(cfg, on_event=print, pin_factory=factory, scheduler=clock) as board:
        board.update(view("bonanza", out="Ann"))
        arrive(board, clock)
        assert servo_angle(factory, cfg) == pytest.approx(33)
        assert factory.pin(cfg.servo_pin).state * 20 == pytest.approx(0.6 + (33 + 80) / 160 * 1.8)


def test_wheel_moves_in_small_even_steps_one_frame_apart(rig):
    board, factory, clock, _ = rig
    start = CFG.angle("michigan-1939", "AH")
    board.update(view(won=[("AH", 2)]))
    clock.advance(2)
    board.update(view(out="Ann"))                 # all the way across, to the pot
    target = CFG.angle("michigan-1939", "pot")
    path: list[float] = []
    while servo_angle(factory) is not None and (not path or path[-1] != pytest.approx(target)):
        path.append(servo_angle(factory))
        clock.advance(STEP_S)
    max_step = CFG.servo_speed * STEP_S
    steps = [b - a for a, b in zip([start] + path, path)]
    assert len(path) == math.ceil((target - start) / max_step)
    assert all(0 < s <= max_step + 1e-6 for s in steps)
    assert path[-1] == pytest.approx(target)


def test_wheel_detaches_when_idle_and_keeps_its_angle(rig):
    board, factory, clock, _ = rig
    board.update(view(phase="poker"))
    assert factory.pin(CFG.servo_pin).frequency == 50
    seconds = abs(CFG.angle("michigan-1939", "poker")) / CFG.servo_speed
    clock.advance(seconds + CFG.servo_settle_s - 0.05)
    assert board.wheel.attached
    clock.advance(0.1)
    assert factory.pin(CFG.servo_pin).frequency is None
    assert not board.wheel.attached and board.wheel.servo_angle is None
    assert board.wheel.angle == pytest.approx(CFG.angle("michigan-1939", "poker"))


def test_start_up_homes_the_wheel_to_mid_range_then_detaches():
    factory, clock = mock_factory(), ManualScheduler()
    with Board(CFG, on_event=print, pin_factory=factory, scheduler=clock):
        assert servo_angle(factory) == pytest.approx(0.0)
        clock.advance(5)
        assert factory.pin(CFG.servo_pin).frequency is None


def test_a_new_target_mid_move_continues_from_where_the_wheel_is(rig):
    board, factory, clock, _ = rig
    board.update(view(won=[("pot", 9)]))
    clock.advance(0.3)
    reached = servo_angle(factory)
    assert 0 < reached < CFG.angle("michigan-1939", "pot")
    board.update(view(won=[("AH", 9)]))
    assert abs(servo_angle(factory) - reached) <= CFG.servo_speed * STEP_S + 1e-6
    clock.advance(2)
    assert board.wheel.angle == pytest.approx(CFG.angle("michigan-1939", "AH"))


def test_what_the_wheel_faces():
    base = view("bonanza", phase="calls", call="TD-2S")
    assert Display.from_view(base).face == "TD-2S"
    assert Display.from_view(dict(base, out="Ann", won=[{"section": "JC", "chips": 40}])).face == "centre"
    won = [{"section": "AS", "chips": 3}, {"section": "KH", "chips": 5}, {"section": "QD", "chips": 5}]
    assert Display.from_view(dict(base, won=won)).face == "KH"          # richest, first in board order
    assert Display.from_view(view("tripoley", phase="poker")).face == "pot"
    assert Display.from_view(view("michigan-1939", phase="poker")).face == "poker"
    assert Display.from_view(view("michigan-1939", phase="run")).face is None
    for variant, centre in CENTRE_SECTION.items():
        assert Display.from_view(view(variant, out="Bob")).face == centre


@pytest.mark.parametrize("patch, field", [
    ({"variant": "canasta"}, "view.variant"),
    ({"sections": "AH"}, "view.sections"),
    ({"sections": [{"name": "AH", "chips": 1}]}, "view.sections"),
    ({"won": [{"section": "kitty", "chips": 1}]}, "view.won[0].section"),
    ({"won": [{"section": "AH", "chips": -1}]}, "view.won[0].chips"),
    ({"call": "sequence"}, "view.call"),
    ({"out": 3}, "view.out"),
    ({"phase": None}, "view.phase"),
])
def test_bad_view_is_refused_and_changes_nothing(rig, patch, field):
    board, factory, clock, _ = rig
    board.update(view(chips={"AH": 4}))
    clock.advance(2)
    before = (led_states(factory), board.wheel.angle, board.leds.pulsing)
    with pytest.raises(ViewError, match="^" + field.replace("[", r"\[").replace("]", r"\]")):
        board.update({**view(chips={"AH": 9}, won=[("KC", 3)], out="Bob"), **patch})
    clock.advance(2)
    assert (led_states(factory), board.wheel.angle, board.leds.pulsing) == before


def test_bad_chip_counts_are_refused(rig):
    board, _, _, _ = rig
    v = view()
    v["sections"][2]["chips"] = 1.5
    with pytest.raises(ViewError, match=r"view.sections\[2\].chips"):
        board.update(v)
    v["sections"][2]["chips"] = True
    with pytest.raises(ViewError):
        board.update(v)


# --- buttons --------------------------------------------------------------------------------------

def press(factory, pin):
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_confirm_and_next_fire_on_press(rig):
    _, factory, _, events = rig
    press(factory, CFG.next_pin)
    press(factory, CFG.confirm_pin)
    press(factory, CFG.next_pin)
    assert events == [{"type": "next"}, {"type": "confirm"}, {"type": "next"}]


def wait_until(predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_undo_fires_only_after_being_held_one_second(rig):
    board, factory, _, events = rig
    assert board.buttons.undo.hold_time == 1.0
    pin = factory.pin(CFG.undo_pin)
    pin.drive_low()
    t0 = time.monotonic()
    assert wait_until(lambda: events, 3.0)
    held_for = time.monotonic() - t0
    pin.drive_high()
    assert events == [{"type": "undo"}]
    assert 0.95 <= held_for < 2.0


def test_a_short_press_of_undo_does_nothing(rig):
    _, factory, _, events = rig
    pin = factory.pin(CFG.undo_pin)
    pin.drive_low()
    time.sleep(0.3)
    pin.drive_high()
    time.sleep(1.0)     # past the hold time: a held-press event would have fired by now
    assert events == []


def test_a_failing_event_handler_does_not_break_the_buttons(caplog):
    factory, seen = mock_factory(), []

    def handler(event):
        seen.append(event)
        raise RuntimeError("queue full")

    with Board(CFG, on_event=handler, pin_factory=factory, scheduler=ManualScheduler()):
        press(factory, CFG.next_pin)
        press(factory, CFG.next_pin)
    assert seen == [{"type": "next"}] * 2
    assert "handling the next button failed" in caplog.text


# --- buzzer and status LED ------------------------------------------------------------------------

def test_active_buzzer_beeps_twice_on_a_rejection(rig):
    board, factory, clock, _ = rig
    pin = factory.pin(CFG.buzzer_pin)
    assert pin.state == 0
    board.reject()
    trace = []
    for _ in range(20):
        trace.append(int(pin.state))
        clock.advance(0.02)
    assert trace[0] == 1 and trace[-1] == 0
    assert sum(1 for a, b in itertools.pairwise(trace) if (a, b) == (0, 1)) == 1   # on, off, on, off
    assert sum(trace) * 0.02 == pytest.approx(0.24)


def test_tonal_buzzer_plays_a_falling_pair_of_notes():
    factory, clock = mock_factory(), ManualScheduler()
    cfg = BoardConfig(buzzer="tonal")
    with Board(cfg, on_event=print, pin_factory=factory, scheduler=clock) as board:
        pin = factory.pin(cfg.buzzer_pin)
        assert pin.frequency is None
        board.reject()
        first = pin.frequency
        clock.advance(0.2)
        second = pin.frequency
        clock.advance(0.3)
        assert pin.frequency is None
    assert first == pytest.approx(329.63, abs=0.01) and second == pytest.approx(220.0)


def test_status_led_steady_when_camera_sees_the_table_blinking_when_not(rig):
    board, factory, clock, _ = rig
    pin = factory.pin(CFG.status_led_pin)
    assert pin.state == 0      # off until the loop says how the camera is doing
    board.camera_ok(True)
    lit = []
    for _ in range(8):
        lit.append(int(pin.state))
        clock.advance(0.25)
    assert lit == [1] * 8
    board.camera_ok(False)
    lit = []
    for _ in range(8):
        lit.append(int(pin.state))
        clock.advance(0.25)
    assert lit == [1, 1, 0, 0, 1, 1, 0, 0]
    assert board.status.mode == "blinking"
    board.camera_ok(False)      # repeating the state keeps the rhythm
    assert int(pin.state) == 1
    board.camera_ok(True)
    clock.advance(3)
    assert pin.state == 1 and board.status.mode == "steady"


# --- shutdown -------------------------------------------------------------------------------------

def test_close_darkens_detaches_silences_and_releases_every_pin():
    factory, clock = mock_factory(), ManualScheduler()
    board = Board(CFG, on_event=print, pin_factory=factory, scheduler=clock)
    board.update(view(chips={n: 30 for n in VARIANT_SECTIONS["michigan-1939"]}, won=[("AH", 3)], out="Bob"))
    board.camera_ok(False)
    board.reject()
    clock.advance(0.1)          # mid-pulse, mid-move, mid-beep
    assert factory.pin(CFG.servo_pin).frequency == 50
    board.close()
    assert led_states(factory) == [0.0] * 10
    assert factory.pin(CFG.servo_pin).frequency is None
    assert factory.pin(CFG.buzzer_pin).state == 0 and factory.pin(CFG.status_led_pin).state == 0
    clock.advance(5)            # nothing left scheduled touches a pin
    assert led_states(factory) == [0.0] * 10 and factory.pin(CFG.status_led_pin).state == 0
    assert clock.pending == 0
    # every pin is free again: a second board claims them all without GPIOPinInUse
    with Board(CFG, on_event=print, pin_factory=factory, scheduler=ManualScheduler()):
        pass
    board.close()               # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        board.update(view())


def test_every_part_of_the_board_is_a_device_closed_once_whoever_closes_it():
    """Each part holds pins as a :class:`hardware.device.Device`: closed by the board, by a ``with``
    block or by two threads at once, it releases them once."""
    from hardware.device import Device

    with Board(CFG, on_event=print, pin_factory=mock_factory(), scheduler=ManualScheduler()) as board:
        parts = [board.leds, board.status, board.wheel, board.buzzer, board.buttons]
        assert all(isinstance(p, Device) and not p.closed for p in parts + [board])
    assert board.closed and all(p.closed for p in parts)

    released = []

    class Slow(Device):
        def _release(self) -> None:
            time.sleep(0.05)
            released.append(1)

    slow = Slow()
    closers = [threading.Thread(target=slow.close) for _ in range(4)]
    for t in closers:
        t.start()
    for t in closers:
        t.join()
    assert released == [1] and slow.closed


def test_pins_in_use_by_another_board_are_refused_and_the_partial_board_released():
    factory, clock = mock_factory(), ManualScheduler()
    with Board(CFG, on_event=print, pin_factory=factory, scheduler=clock), pytest.raises(GPIOPinInUse):
        Board(CFG, on_event=print, pin_factory=factory, scheduler=clock)
    other = BoardConfig(led_pins=(4,), status_led_pin=5, servo_pin=6, confirm_pin=12, undo_pin=13,
                        next_pin=19, buzzer_pin=18)
    with Board(CFG, on_event=print, pin_factory=factory, scheduler=clock):
        with pytest.raises(GPIOPinInUse):
            Board(other, on_event=print, pin_factory=factory, scheduler=clock)   # GPIO4 was free, 5 is not
        assert factory.pin(4).function == "input"


def test_sigterm_closes_the_board_then_exits():
    factory = mock_factory()
    board = Board(CFG, on_event=print, pin_factory=factory, scheduler=ManualScheduler())
    board.update(view(chips={"AH": 20}))
    restore = close_on_sigterm(board)
    try:
        with pytest.raises(SystemExit) as exit_info:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs in this (main) thread at the next bytecode
        assert exit_info.value.code == 143
        assert board.closed and led_states(factory)[0] == 0.0
    finally:
        restore()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_sigterm_chains_to_the_previous_handler():
    calls = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: calls.append(s))
    try:
        board = Board(CFG, on_event=print, pin_factory=mock_factory(), scheduler=ManualScheduler())
        restore = close_on_sigterm(board)
        os.kill(os.getpid(), signal.SIGTERM)
        assert wait_until(lambda: calls, 1.0)
        assert board.closed and calls == [signal.SIGTERM]
        restore()
    finally:
        signal.signal(signal.SIGTERM, previous)


# --- pin factory, timing, doctests ----------------------------------------------------------------

def test_no_gpio_falls_back_to_pwm_capable_mock_pins_with_one_log_line(monkeypatch, caplog):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    with caplog.at_level(logging.INFO, logger="hardware.pins"):
        factory = choose_pin_factory()
    assert is_mock(factory) and issubclass(factory.pin_class, MockPWMPin)
    lines = [r for r in caplog.records if r.name == "hardware.pins"]
    assert len(lines) == 1 and "mock pins" in lines[0].message
    factory.close()


def test_gpiozero_mock_env_still_gets_pwm_pins(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    factory = choose_pin_factory()
    assert is_mock(factory) and issubclass(factory.pin_class, MockPWMPin)
    factory.close()


def test_thread_scheduler_runs_actions_in_time_order_and_cancels():
    clock, seen = ThreadScheduler(), []
    try:
        Steps(clock, [(0.0, lambda: seen.append("a")), (0.05, lambda: seen.append("b"))])
        late = clock.call_later(0.02, lambda: seen.append("cancelled"))
        clock.call_later(0.01, lambda: seen.append("c"))
        late.cancel()
        assert wait_until(lambda: len(seen) >= 3, 2.0)
        time.sleep(0.05)
        assert seen == ["a", "c", "b"]
    finally:
        clock.close()
    clock.call_later(0, lambda: seen.append("after close"))
    time.sleep(0.02)
    assert "after close" not in seen


def test_board_on_the_real_clock_thread_settles(monkeypatch):
    factory = mock_factory()
    with Board(BoardConfig(servo_speed=2000, servo_settle_s=0.05), on_event=print, pin_factory=factory) as board:
        board.update(view(won=[("pot", 4)]))
        assert wait_until(lambda: not board.wheel.attached and not board.leds.pulsing, 3.0)
        assert board.wheel.angle == CFG.angle("michigan-1939", "pot")


def test_manual_clock_refuses_to_go_backwards():
    with pytest.raises(ValueError):
        ManualScheduler().advance(-1)


@pytest.mark.parametrize("module", ["timing", "config", "pins", "device", "leds", "wheel", "buttons", "buzzer", "board"])
def test_docstring_examples(module):
    """The modules' examples run here too, since `make test` collects only tests/."""
    result = doctest.testmod(importlib.import_module(f"hardware.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_a_chain_cancelled_under_its_lock_runs_no_further_step_even_one_already_due():
    clock, lock, seen = ThreadScheduler(), threading.RLock(), []
    try:
        with lock:
            job = Steps(clock, [(0.01, lambda: seen.append("stale"))], lock=lock)
            time.sleep(0.1)   # the clock thread has picked the step up and waits for the lock
            job.cancel()
        time.sleep(0.05)
        assert seen == [] and job.done
    finally:
        clock.close()


def test_no_game_yet_is_a_dark_board_and_the_wheel_stays(rig):
    board, factory, clock, _ = rig
    board.update(view(chips={"AH": 9}))
    before = board.wheel.angle
    board.update({"variant": None, "phase": "none", "sections": [], "won": [], "out": None, "call": None})
    clock.advance(2)
    assert led_states(factory) == [0.0] * 10 and board.wheel.angle == before


@pytest.mark.parametrize("variant", sorted(VARIANT_SECTIONS))
def test_simulated_games_from_the_rules_engine_drive_the_board(variant):
    """Every view of real simulated hands is accepted; lamps follow the chips, the wheel what was won."""
    from companion.app import simulate
    table = simulate.SimulatedTable(variant, ["Ann", "Bob", "Cy"], seed=7)
    factory, clock = mock_factory(), ManualScheduler()
    moves = 0
    with Board(CFG, on_event=print, pin_factory=factory, scheduler=clock) as board:
        for _ in table.play(hands=2):
            v = table.game.view()
            shown = board.update(v)
            clock.advance(1.5)    # past every pulse and move
            assert led_states(factory)[:len(v["sections"])] == [brightness(s["chips"], CFG.full_chips)
                                                                 for s in v["sections"]]
            if shown.face is not None:
                moves += 1
                assert board.wheel.angle == pytest.approx(CFG.angle(variant, shown.face))
            if v["out"]:
                assert shown.face == CENTRE_SECTION[variant]
    assert moves > 0


class _LateClock:
    """A clock whose thread is late: the test fires each booked action itself, at a time of its choosing."""

    def __init__(self):
        self.t, self.booked = 0.0, []

    def now(self):
        return self.t

    def call_later(self, delay, action):
        self.booked.append((self.t + delay, action))
        return ManualScheduler().call_later(0, lambda: None)   # a cancellable handle

    def fire_late(self, lateness):
        when, action = self.booked.pop(0)
        self.t = when + lateness
        action()

    def close(self):
        pass


@pytest.mark.parametrize("catch_up, expected", [
    (True, [0.0, 0.07, 0.07, 0.07, 0.08]),     # late by 50 ms: the missed steps run at once, the end is on time
    (False, [0.0, 0.07, 0.09, 0.11, 0.13]),    # the rest slides: steps stay 20 ms apart
])
def test_late_clock_catch_up_or_slide(catch_up, expected):
    clock, ran = _LateClock(), []
    Steps(clock, [(k * 0.02, lambda: ran.append(round(clock.t, 4))) for k in range(5)], catch_up=catch_up)
    clock.fire_late(0.05)
    while clock.booked:
        clock.fire_late(0.0)
    assert ran == expected


def test_gpiozeros_pwm_less_native_fallback_counts_as_no_gpio(monkeypatch, caplog):
    class NativeFactory:        # stands in for gpiozero.pins.native.NativeFactory, found on a Pi without lgpio
        closed = False

        def close(self):
            self.closed = True

    native = NativeFactory()
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr("gpiozero.Device._default_pin_factory", staticmethod(lambda: native))
    with caplog.at_level(logging.INFO, logger="hardware.pins"):
        factory = choose_pin_factory()
    assert is_mock(factory) and native.closed
    assert "install lgpio" in caplog.text and caplog.records[-1].levelno == logging.WARNING
    factory.close()
