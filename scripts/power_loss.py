"""Power cuts during ``companion demo --data DIR``: SIGKILL at random moments, restart, count what was lost.

``python scripts/power_loss.py [--kills 10] [--hands 2] [--seed 7] [--max-delay 6] [--no-finish]``

Each life of the demo (``--no-serve --speed 0``, the same ``--data`` every time)
is killed with SIGKILL a random 0 to ``--max-delay`` seconds after it stored
its first new event (for a restart: the proof that it went on with the stored
game), then started again. Just before each kill the store is read (a
read-only SQLite connection, as ``companion backup`` reads it): every event
committed then must still be there, in order, after the kill (none lost). The
game the store makes (undone events taken out) must be the simulation's own
events so far, each once (none duplicated, none missing). Without
``--no-finish`` a last life plays the game to its end, whose store must be the
whole simulated game and whose balances the simulation's.

It prints one line a life and the figures; exit 1 if anything was lost,
duplicated or not resumed.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.app.demo import PLAYERS  # noqa: E402
from companion.app.simulate import SimulatedTable  # noqa: E402
from companion.rules.events import as_event  # noqa: E402
from companion.rules.game import Game  # noqa: E402
from companion.store import canonical_json  # noqa: E402

START_TIMEOUT_S = 180.0


def stored(db: Path) -> list[str]:
    """The events committed in ``db`` now (canonical JSON), read without marking or locking the store."""
    if not db.exists():
        return []
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        return [text for (text,) in conn.execute("SELECT event FROM events ORDER BY seq")]
    except sqlite3.OperationalError:  # the store is still being made
        return []
    finally:
        conn.close()


def effective(events: list[str]) -> list[str]:
    """The game the stored events make, undone events taken out (the referee's corrections of misreads)."""
    game = Game()
    for number, text in enumerate(events, start=1):
        game.push(as_event(json.loads(text)), line=number)
    return [canonical_json(e.to_dict()) for e in game.events]


def truth(variant: str, seed: int, hands: int) -> list[str]:
    """The simulation's events: what the demo's table must end up holding, each once."""
    sim = SimulatedTable(variant, PLAYERS, seed=seed)
    return [canonical_json(as_event(e).to_dict()) for e in sim.play(hands=hands)]


def compare(got: list[str], want: list[str]) -> tuple[int, int]:
    """(missing, extra): events of ``want`` not in ``got``, and events of ``got`` beyond ``want``'s."""
    missing = extra = 0
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(a=want, b=got, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            missing += a2 - a1
        if op in ("insert", "replace"):
            extra += b2 - b1
    return missing, extra


def common_prefix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


class Life:
    """One run of the demo, its output kept for the report."""

    def __init__(self, data: Path, args: argparse.Namespace) -> None:
        command = [sys.executable, "-m", "companion", "demo", "--data", str(data), "--no-serve", "--speed", "0",
                   "--hands", str(args.hands), "--variant", args.variant, "--seed", str(args.seed)]
        self.proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.output: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line.rstrip("\n"))

    def wait_for_new_event(self, db: Path, before: int) -> bool:
        """True once this life stored an event of its own; False if it ended or took too long first."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and self.proc.poll() is None:
            if len(stored(db)) > before:
                return True
            time.sleep(0.05)
        return len(stored(db)) > before

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._reader.join(timeout=5)

    def finish(self) -> int:
        code = self.proc.wait(timeout=3600)
        self._reader.join(timeout=5)
        return code

    def tail(self) -> str:
        return " | ".join(line for line in self.output[-3:] if "INFO" not in line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--variant", default="michigan-1939", choices=["michigan-1939", "bonanza", "tripoley"])
    parser.add_argument("--seed", type=int, default=7, help="the shuffle, and (with --rng) the kill moments")
    parser.add_argument("--rng", type=int, default=None, help="seed for the kill moments (default: random)")
    parser.add_argument("--max-delay", type=float, default=6.0, help="a kill comes 0 to this many seconds into a life")
    parser.add_argument("--data", type=Path, default=None, help="the demo's data folder (default: a new temporary one)")
    parser.add_argument("--no-finish", action="store_true", help="stop after the kills, without playing the game out")
    args = parser.parse_args(argv)

    data = args.data or Path(tempfile.mkdtemp(prefix="power-loss-"))
    db = data / "demo.sqlite"
    rng = random.Random(args.rng)
    want = truth(args.variant, args.seed, args.hands)
    print(f"{args.kills} SIGKILLs of companion demo --data {data} --hands {args.hands} --seed {args.seed}; "
          f"the simulated game has {len(want)} events", flush=True)
    lost = duplicated = restarts = resumed = 0
    for k in range(1, args.kills + 1):
        before = len(stored(db))
        restarts += before > 0
        life = Life(data, args)
        if not life.wait_for_new_event(db, before):
            life.kill()
            print(f"kill {k}: the demo stored nothing new (exit {life.proc.returncode}): {life.tail()}", flush=True)
            continue
        delay = rng.uniform(0, args.max_delay)
        time.sleep(delay)
        committed = stored(db)
        life.kill()
        after = stored(db)
        lost_now = len(committed) - common_prefix(committed, after)
        missing, extra = compare(effective(after), want[:len(effective(after))])
        lost, duplicated = lost + lost_now, duplicated + extra
        resumed += before > 0
        print(f"kill {k}: {delay:.2f} s in, {before} -> {len(after)} events stored; {len(committed)} committed "
              f"before the kill, {lost_now} of them lost; the game so far: {missing} missing, {extra} extra", flush=True)
    if args.no_finish:
        final_ok = True
    else:
        restarts += 1
        life = Life(data, args)
        code = life.finish()
        got = effective(stored(db))
        missing, extra = compare(got, want)
        lost, duplicated = lost + missing, duplicated + extra
        equal = any("equal)" in line for line in life.output)
        final_ok = code == 0 and equal and not missing and not extra
        resumed += final_ok
        print(f"last life: exit {code}; {len(got)} events in the game (the simulation: {len(want)}), "
              f"{missing} missing, {extra} extra; balances {'equal to' if equal else 'NOT'} the simulation's"
              + ("" if final_ok else f": {life.tail()}"), flush=True)
    print(f"{args.kills} kills: {lost} events lost, {duplicated} duplicated; the game resumed {resumed} "
          f"of {restarts} restarts", flush=True)
    return 0 if not (lost or duplicated) and resumed == restarts and final_ok else 1


if __name__ == "__main__":
    sys.exit(main())
