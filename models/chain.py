"""Train the corner reader by the shipped weights' recipe, then quantise it.

``python -m models.chain`` (part of ``make train``) runs ``STAGES``, chained runs of
``models.train``, then ``models.quantize``.  Each stage after the
first starts from the weights the one before left in ``models/cache``, and
a stage that keeps the seed of the one before reuses its synthetic set (and,
in this process, its photos and mined patches).  48 minutes on two
cores once the decks are rasterised; ``MODEL_CARD.md`` says what each
stage's set holds and why the reader is trained in stages.
"""

from __future__ import annotations

import argparse
import time

from models import quantize, train

FROM_LAST = ("--init", str(train.CACHE / "last-corners.pt"))
"""What every stage after the first adds: the weights the stage before saved (``models/cache/last-corners.pt``)."""

STAGES: tuple[str, ...] = (
    "--epochs 5 --tables 0 --rows 0 --scenes /dev/null",
    "--epochs 8 --lr 2e-3 --real-copies 3 --tables 0 --rows 0 --scenes /dev/null",
    "--epochs 3 --lr 1e-3 --per-code 150 --negatives 3000 --seed 3 --tables 0 --rows 0 --scenes /dev/null",
    "--epochs 6 --lr 1.5e-3 --seed 5 --real-copies 3 --tables 0 --rows 0 --scenes /dev/null",
    "--epochs 4 --lr 1e-3 --seed 5 --real-copies 3 --tables 0 --rows 0",
    "--epochs 4 --lr 1e-3 --seed 7 --real-copies 3 --tables 0 --rows 0",
    "--epochs 6 --lr 8e-4 --seed 7 --real-copies 3 --tables 0 --rows 0",
    "--epochs 6 --lr 8e-4 --seed 13 --real-copies 3 --tables 0 --rows 0",
    "--epochs 5 --lr 5e-4 --seed 13 --real-copies 3 --tables 0 --rows 0",
    "--epochs 6 --lr 6e-4 --seed 15 --real-copies 3 --tables 0 --rows 0",
    "--epochs 4 --lr 3e-4 --seed 15 --real-copies 3",
)
"""Each stage's options to ``python -m models.train`` (``MODEL_CARD.md`` tabulates them)."""


def stage_argv(i: int, extra: list[str] | None = None) -> list[str]:
    """The command line of stage ``i`` (from 0), ``extra`` (such as ``--workers``) appended."""
    return STAGES[i].split() + (list(FROM_LAST) if i else []) + (extra or [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.chain", description=__doc__.splitlines()[0])
    parser.add_argument("--from-stage", type=int, default=1, metavar="N",
                        help="start at stage N (its weights from the stage before, in models/cache), e.g. after a stop")
    parser.add_argument("--workers", type=int, default=2, help="processes and threads, as models.train takes them")
    args = parser.parse_args(argv)
    if not 1 <= args.from_stage <= len(STAGES):
        parser.error(f"--from-stage must be 1 to {len(STAGES)}")
    t0 = time.time()
    for i in range(args.from_stage - 1, len(STAGES)):
        print(f"=== stage {i + 1}/{len(STAGES)}: models.train {' '.join(stage_argv(i))} "
              f"[{(time.time() - t0) / 60:.0f} min]", flush=True)
        code = train.main(stage_argv(i, ["--workers", str(args.workers)]))
        if code:
            return code
    print(f"=== quantizing [{(time.time() - t0) / 60:.0f} min]", flush=True)
    return quantize.main([])


if __name__ == "__main__":
    raise SystemExit(main())
