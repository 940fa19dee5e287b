#!/usr/bin/env python3
"""Measures how long a durable append takes on this machine's disk, for both store backends.

Every accepted event waits for an fsync before it is acknowledged, so the SD
card decides how quickly the table answers. Run it on the Pi, in the data
folder's file system:

    sudo -u companion /opt/table-companion/venv/bin/python deploy/bench-store.py /var/lib/table-companion
    .venv/bin/python deploy/bench-store.py /var/tmp --events 300
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from companion.store import open_store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a folder on the disk to measure (a temporary file is made and removed there)")
    parser.add_argument("--events", type=int, default=300, help="appends per backend (default 300)")
    args = parser.parse_args()
    if args.events < 1:
        parser.error("--events must be at least 1")
    for suffix in (".sqlite", ".jsonl"):
        with (
            tempfile.TemporaryDirectory(dir=args.folder, prefix="bench-store.") as folder,
            open_store(Path(folder) / f"bench{suffix}") as store,
        ):
            times = []
            for n in range(1, args.events + 1):
                start = time.perf_counter()
                store.append({"type": "bet", "player": "Ann", "chips": n})
                times.append(time.perf_counter() - start)
            start = time.perf_counter()
            assert len(store.events()) == args.events
            read = time.perf_counter() - start
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{suffix:8} {args.events} appends: median {statistics.median(times) * 1e3:.2f} ms, "
              f"95th percentile {p95 * 1e3:.2f} ms, max {times[-1] * 1e3:.2f} ms; reading all back {read * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
