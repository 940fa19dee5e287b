"""Engine speed: replay a long simulated record and print events per second.

``python -m companion.app.bench [--hands N] [--variant NAME]`` (``make bench``).
The record is made first (not timed), then replayed line by line as
``companion replay`` does: JSON decoding, checks and chip movements included.
Timed in CPU seconds of this process, so other load on the machine does not count.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from companion.app.simulate import SimulatedTable
from companion.rules.game import replay


def make_record(variant: str, hands: int, seed: int = 7) -> list[str]:
    table = SimulatedTable(variant, ["Ann", "Bob", "Cy", "Dee"], chips=10_000, seed=seed)
    return [json.dumps(e) for e in table.play(hands=hands)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--variant", default="all")
    args = parser.parse_args(argv)
    variants = ["michigan-1939", "bonanza", "tripoley"] if args.variant == "all" else [args.variant]
    for variant in variants:
        lines = make_record(variant, args.hands)
        rates = []
        for _ in range(args.repeat):
            start = time.process_time()
            game = replay(lines)
            rates.append(len(lines) / (time.process_time() - start))
        assert not game.rejected, game.rejected[:3]
        print(f"{variant:14s} {len(lines):7d} events  median {statistics.median(rates):9.0f} events/s  best {max(rates):9.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
