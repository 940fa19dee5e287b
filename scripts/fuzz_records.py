"""Mutated game records through ``companion replay`` and ``/api/import``: no traceback, no hang.

``python scripts/fuzz_records.py [--records 2000] [--seed 0]``

Each record is a real one (a simulated Bonanza, Michigan or Tripoley hand)
with a few random mutations: bytes flipped, inserted or deleted, a line cut,
doubled or swapped, deep nesting, huge numbers, odd Unicode (lone
surrogates, a byte-order mark, line separators). Every record goes through
``replay_file`` and ``describe`` (as ``companion replay`` prints it) and is
posted to ``/api/import`` by a signed-in referee. A refusal is fine
(``UnreadableRecord``, a 4xx); any other exception, a 5xx, or a record that
takes over 5 s is counted and shown.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.app.simulate import SimulatedTable
from companion.replay import UnreadableRecord, describe, replay_file
from companion.table import Table
from web.app import create_app
from web.config import WebConfig

ODD = ['"\\ud800"', "\ufeff", "\u2028", '"<!--<script>"', "[" * 3000, "9" * 400, "-0", "1e999", "null", "{}", '"\\u0000"']


def mutate(text: str, rng: random.Random) -> bytes:
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            data[at:at] = rng.choice(ODD).encode("utf-8", "surrogatepass")
        elif kind == 2:
            del data[at:at + rng.randint(1, 20)]
        else:
            lines = bytes(data).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 3:
                lines.insert(i, lines[j])
            elif kind == 4:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
            data = bytearray(b"\n".join(lines))
    return bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sources = []
    for variant in ("bonanza", "michigan-1939", "tripoley"):
        sim = SimulatedTable(variant, ("Ann", "Bob", "Cy"), seed=args.seed)
        sources.append("".join(json.dumps(e) + "\n" for e in sim.play(hands=1)))
    folder = Path(tempfile.mkdtemp(prefix="fuzz-records-"))
    table = Table.open(folder / "game.sqlite")
    client = create_app(table, config=WebConfig(pin="246813"), data_dir=folder).test_client()
    client.get("/referee/login")
    with client.session_transaction() as s:
        token = s["csrf"]
    client.post("/referee/login", data={"pin": "246813", "csrf_token": token})
    with client.session_transaction() as s:
        headers = {"X-CSRF-Token": s["csrf"], "Content-Type": "application/jsonl"}
    problems: list[str] = []
    outcomes = {"replayed": 0, "unreadable": 0, "imported": 0, "refused": 0}
    slowest = 0.0
    record = folder / "record.jsonl"
    for n in range(args.records):
        data = mutate(rng.choice(sources), rng)
        record.write_bytes(data)
        started = time.monotonic()
        try:
            game = replay_file(record)
            describe(game)
            json.dumps(game.summary())
            outcomes["replayed"] += 1
        except UnreadableRecord:
            outcomes["unreadable"] += 1
        except Exception as exc:  # any exception is what the fuzz looks for
            problems.append(f"record {n}: replay: {type(exc).__name__}: {exc}")
        r = client.post("/api/import", data=data, headers=headers)
        if r.status_code >= 500:
            problems.append(f"record {n}: /api/import answered {r.status_code}")
        outcomes["imported" if r.status_code == 200 else "refused"] += 1
        took = time.monotonic() - started
        slowest = max(slowest, took)
        if took > 5:
            problems.append(f"record {n}: took {took:.1f} s")
    table.close()
    print(f"{args.records} mutated records: replay {outcomes['replayed']} replayed, {outcomes['unreadable']} unreadable; "
          f"/api/import {outcomes['imported']} imported, {outcomes['refused']} refused; "
          f"{len(problems)} problems; slowest record {slowest * 1000:.0f} ms")
    for p in problems[:20]:
        print(f"  {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
