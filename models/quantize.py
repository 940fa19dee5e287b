"""Quantise the corner reader to 8 bits: ``models/cards-int8.onnx``, the model the recogniser runs.

``python -m models.quantize`` (part of ``make train``, after ``models.train``):
the trained ``cards.onnx`` stays as it is (a later run trains on from it),
and its copy with 8-bit activations and 7-bit weights (per channel) reads a
patch faster on a core with 8-bit dot products (``MODEL_CARD.md``).
The weights keep to 7 bits (``WEIGHT_LIMIT``) so that every processor reads
the model alike: an x86 core without VNNI multiplies 8-bit activations by
8-bit weights in pairs summed into 16 bits, and full-range weights overflow
that sum.  Each activation's range is measured on synthetic patches of every
deck, cards and ``none`` alike, drawn afresh from a fixed seed: what the
reader is trained to read, and the same ranges on every run.  It prints how
often the two models agree on held-out patches, and fails where they agree
less than ``AGREEMENT``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from models.data import Synth
from models.decks import load_all
from models.train import OUTPUT as TRAINED
from vision.classifier import DEFAULT_MODEL, CardClassifier

AGREEMENT = 0.99
"""The least share of held-out patches both models must read as the same class."""
PERCENTILE = 99.999
"""Each activation's range is this percentile of its values: the rare largest left out keep a finer step
for the rest (on held-out patches, every layer in 8 bits, the two models then agree on 0.993, against
0.989 over the whole range)."""
WEIGHT_LIMIT = 64
"""The largest weight, in steps (``reduce_range``): two products of an 8-bit activation by it
(2 x 255 x 64) still fit the 16 bits an x86 core without VNNI sums them in."""
_BATCH = 256


def quantize(source: Path, output: Path, calibration: np.ndarray) -> None:
    """``source`` (a float corner reader) as an 8-bit model at ``output``, each activation's range the
    one it takes on ``calibration`` (``N x H x W x 3`` uint8 patches); ``source``'s metadata is kept."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Batches(CalibrationDataReader):
        """Whole batches only: the percentile's histograms take batches of one size."""

        def __init__(self) -> None:
            self.left = iter(range(0, len(calibration) - _BATCH + 1, _BATCH))

        def get_next(self) -> dict[str, np.ndarray] | None:
            start = next(self.left, None)
            return None if start is None else {"patches": calibration[start:start + _BATCH].astype(np.float32)}

    prepared = output.with_suffix(".prepared.onnx")
    try:
        # Every shape but the batch's is fixed: ONNX's own shape inference does (the symbolic one needs sympy).
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        # The last layer and the softmax stay float: with 8-bit logits, reads of 0.97 came out at 1.0,
        # and the recogniser weighs such confidences against each other; for no time worth having.
        # reduce_range: 7-bit weights (WEIGHT_LIMIT).
        nodes = onnx.load(str(prepared)).graph.node
        last = max(i for i, n in enumerate(nodes) if n.op_type == "Gemm")
        quantize_static(str(prepared), str(output), Batches(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=True,
                        nodes_to_exclude=[n.name for n in nodes[last:]],
                        calibrate_method=CalibrationMethod.Percentile, extra_options={"CalibPercentile": PERCENTILE})
    finally:
        prepared.unlink(missing_ok=True)
    model, meta = onnx.load(str(output)), onnx.load(str(source)).metadata_props
    del model.metadata_props[:]
    model.metadata_props.extend(meta)
    onnx.save(model, str(output))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=TRAINED, help="the float corner reader (default: models/cards.onnx)")
    parser.add_argument("--output", type=Path, default=DEFAULT_MODEL,
                        help="where to write the 8-bit one (default: models/cards-int8.onnx)")
    parser.add_argument("--per-code", type=int, default=30, help="calibration corners per card code (and as many again held out)")
    parser.add_argument("--negatives", type=int, default=1000, help="calibration 'none' patches (and as many again held out)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    t0 = time.time()
    print("1/3 drawing patches of every deck", flush=True)
    decks = load_all(verbose=False)
    calibration = Synth(decks, args.seed).make(args.per_code, args.negatives)
    held = Synth(decks, args.seed + 1).make(args.per_code, args.negatives)
    print(f"2/3 quantising {args.source} on {len(calibration.y)} patches ({time.time() - t0:.0f}s)", flush=True)
    quantize(args.source, args.output, calibration.x)
    print(f"3/3 comparing on {len(held.y)} held-out patches ({time.time() - t0:.0f}s)", flush=True)
    float_read = CardClassifier(args.source).classify(held.x)
    int8_read = CardClassifier(args.output).classify(held.x)
    agree = float((float_read.argmax(1) == int8_read.argmax(1)).mean())
    right = [float((p.argmax(1) == held.y).mean()) for p in (float_read, int8_read)]
    print(f"    agree on {agree:.4f} of them; right: float {right[0]:.4f}, 8-bit {right[1]:.4f}; "
          f"{args.output.stat().st_size / 1024:.0f} KiB; done in {time.time() - t0:.0f}s", flush=True)
    if agree < AGREEMENT:
        print(f"quantize: the 8-bit model agrees with the float one on {agree:.4f} of the patches, "
              f"under {AGREEMENT}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
