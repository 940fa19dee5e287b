"""Timed actions for the board: a real clock thread, and a hand-cranked one for tests.

Everything on the board that unfolds over time (the servo's stepped moves, its
detach once idle, the win pulse, the blinking status LED, the reject beeps) is
a chain of callbacks scheduled on one :class:`Scheduler`. On the table that is
a :class:`ThreadScheduler` (one daemon thread, monotonic clock); in tests and
doctests it is a :class:`ManualScheduler`, whose clock only moves when
:meth:`ManualScheduler.advance` is called, so a two-second servo sweep is
checked step by step without sleeping.

>>> clock = ManualScheduler()
>>> seen = []
>>> job = Steps(clock, [(0.0, lambda: seen.append("a")), (0.5, lambda: seen.append("b"))])
>>> seen
['a']
>>> clock.advance(0.4); seen
['a']
>>> clock.advance(0.1); seen
['a', 'b']
>>> job.done
True
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Protocol

log = logging.getLogger(__name__)

Action = Callable[[], None]


class Timer(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """What the board's devices need from a clock."""

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        ...

    def call_later(self, delay: float, action: Action) -> Timer:
        """Run *action* once, *delay* seconds from now (0 = as soon as possible)."""
        ...

    def close(self) -> None:
        """Drop every pending action; later calls are ignored."""
        ...


class _Entry:
    __slots__ = ("action", "cancelled", "seq", "when")

    def __init__(self, when: float, seq: int, action: Action) -> None:
        self.when = when
        self.seq = seq
        self.action = action
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def __lt__(self, other: _Entry) -> bool:
        return (self.when, self.seq) < (other.when, other.seq)


def _run(entry: _Entry) -> None:
    try:
        entry.action()
    except Exception:  # one broken animation must not stop the clock for the others
        log.exception("board timer action failed")


class ManualScheduler:
    """A clock that only moves when told: deterministic timing for tests.

    Actions due at the same instant run in the order they were scheduled;
    actions scheduled while advancing run too if they fall inside the window.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._heap: list[_Entry] = []
        self._seq = itertools.count()
        self._closed = False

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, action: Action) -> Timer:
        entry = _Entry(self._now + max(0.0, delay), next(self._seq), action)
        if not self._closed:
            heapq.heappush(self._heap, entry)
        return entry

    def advance(self, seconds: float) -> None:
        """Move the clock forward, running every action that falls due on the way."""
        if seconds < 0:
            raise ValueError(f"cannot advance a clock backwards ({seconds} s)")
        end = self._now + seconds
        while self._heap and self._heap[0].when <= end + 1e-9:
            entry = heapq.heappop(self._heap)
            if entry.cancelled:
                continue
            self._now = max(self._now, entry.when)
            _run(entry)
        self._now = end

    @property
    def pending(self) -> int:
        """How many actions are still waiting (cancelled ones excluded)."""
        return sum(1 for e in self._heap if not e.cancelled)

    def close(self) -> None:
        self._closed = True
        self._heap.clear()


class ThreadScheduler:
    """One daemon thread running actions at their time, on a monotonic clock.

    Actions run on that thread, one at a time, so an action must be short
    (set a pin, schedule the next step) and take its device's lock.
    """

    def __init__(self, *, name: str = "board-timer") -> None:
        self._heap: list[_Entry] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, action: Action) -> Timer:
        entry = _Entry(time.monotonic() + max(0.0, delay), next(self._seq), action)
        with self._cond:
            if not self._closed:
                heapq.heappush(self._heap, entry)
                self._cond.notify()
        return entry

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._closed:
                    if self._heap and self._heap[0].cancelled:
                        heapq.heappop(self._heap)
                        continue
                    wait = self._heap[0].when - time.monotonic() if self._heap else None
                    if wait is not None and wait <= 0:
                        break
                    self._cond.wait(wait)
                if self._closed:
                    return
                entry = heapq.heappop(self._heap)
            _run(entry)  # outside the lock, so the action may schedule more

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._heap.clear()
            self._cond.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=1.0)


class Steps:
    """A cancellable chain of actions at offsets (seconds) from its start.

    Each step is scheduled only when the previous one has run, so cancelling
    leaves nothing behind on the scheduler. Offsets must not decrease.

    *lock* is the owning device's lock (re-entrant): each step is checked and
    run while holding it, so a chain cancelled under that lock never runs
    another step, even one already handed to the clock thread.

    When the clock thread runs late (a busy Pi), *catch_up* runs the missed
    steps at once, keeping the chain's end on time (fine for a lamp); without
    it the rest of the chain slides later instead, so steps are never closer
    together than planned (a servo must not skip ahead).
    """

    def __init__(self, scheduler: Scheduler, steps: Iterable[tuple[float, Action]], *,
                 lock: AbstractContextManager[object] | None = None, catch_up: bool = True) -> None:
        self._scheduler = scheduler
        self._catch_up = catch_up
        self._lock: AbstractContextManager[object] = contextlib.nullcontext() if lock is None else lock
        self._steps = list(steps)
        if any(b[0] < a[0] for a, b in zip(self._steps, self._steps[1:])):
            raise ValueError("step offsets must not decrease")
        self._index = 0
        self._timer: Timer | None = None
        self._cancelled = False
        self._start = scheduler.now()
        self._schedule_next()

    @property
    def done(self) -> bool:
        """True once every step has run or the chain was cancelled."""
        return self._cancelled or self._index >= len(self._steps)

    def cancel(self) -> None:
        self._cancelled = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _schedule_next(self) -> None:
        """Run every step already due (in this thread), then book the next one."""
        while True:
            with self._lock:
                if self.done:
                    return
                offset, action = self._steps[self._index]
                delay = self._start + offset - self._scheduler.now()
                if delay > 1e-9:
                    self._timer = self._scheduler.call_later(delay, self._fire)
                    return
                if delay < 0 and not self._catch_up:
                    self._start -= delay  # late: slide the rest of the chain by the lateness
                self._index += 1
                action()

    def _fire(self) -> None:
        self._timer = None
        self._schedule_next()
