"""Measure the board's timing on the real clock thread: ``python -m hardware.bench``.

Runs on mock pins (or, with ``--real``, the Pi's GPIO, where the wheel really
turns) and prints figures: how long ``Board.update`` takes the caller, and how
evenly the wheel's steps reach the servo pin during a full swing (the mock
pin records the time of every change). On a busy machine late steps show up
as long gaps; the move then slides later rather than bunching steps.
"""

from __future__ import annotations

import argparse
import statistics
import time

from hardware.board import Board
from hardware.config import VARIANT_SECTIONS, BoardConfig
from hardware.pins import choose_pin_factory, is_mock, mock_factory

VARIANT = "michigan-1939"


def _view(won: str) -> dict:
    return {"variant": VARIANT, "phase": "run", "call": None, "out": None,
            "sections": [{"name": n, "chips": 0} for n in VARIANT_SECTIONS[VARIANT]],
            "won": [{"section": won, "player": "bench", "chips": 1}]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swings", type=int, default=3, help="full swings to time (default 3)")
    parser.add_argument("--real", action="store_true", help="use the Pi's GPIO if there is one")
    args = parser.parse_args()
    cfg = BoardConfig()
    factory = choose_pin_factory() if args.real else mock_factory()
    first, last = VARIANT_SECTIONS[VARIANT][0], VARIANT_SECTIONS[VARIANT][-1]
    span = abs(cfg.angle(VARIANT, last) - cfg.angle(VARIANT, first))
    print(f"pins: {'mock' if is_mock(factory) else type(factory).__name__}; swing {span:g} deg at "
          f"{cfg.servo_speed:g} deg/s, planned {span / cfg.servo_speed:.3f} s")
    calls: list[float] = []
    with Board(cfg, on_event=lambda e: None, pin_factory=factory) as board:
        board.update(_view(first))
        time.sleep(span / cfg.servo_speed + cfg.servo_settle_s + 1.5)
        for k in range(args.swings):
            target = last if k % 2 == 0 else first
            pin = factory.pin(cfg.servo_pin) if is_mock(factory) else None
            if pin is not None:
                pin.clear_states()
            t0 = time.perf_counter()
            board.update(_view(target))
            calls.append(time.perf_counter() - t0)
            time.sleep(span / cfg.servo_speed + cfg.servo_settle_s + 0.5)
            if pin is not None:
                gaps = [s.timestamp for s in pin.states[2:]]  # seconds since the previous change
                steps, settle = gaps[:-1], gaps[-1]           # the last change is the detach
                print(f"swing {k + 1}: {len(steps) + 1} steps in {sum(steps):.3f} s; gap mean "
                      f"{statistics.mean(steps) * 1000:.2f} ms, min {min(steps) * 1000:.2f}, max "
                      f"{max(steps) * 1000:.2f}; detached {settle * 1000:.0f} ms after the last step: "
                      f"{not board.wheel.attached}")
    factory.close()
    print(f"update() in the caller: mean {statistics.mean(calls) * 1000:.2f} ms, max {max(calls) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
