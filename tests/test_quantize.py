"""The 8-bit corner reader: the shipped one reads as the trained float model does, and
``models.quantize`` makes one the recogniser loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.rules.cards import ALL_CODES
from models.train import OUTPUT as TRAINED
from vision.classifier import CARD_SIZE, CLASSES, DEFAULT_MODEL, CardClassifier, extract_patches, rotate_180
from vision.render import card_face, table_background


def _corners(codes: list[str]) -> np.ndarray:
    """Both index corners of each card of the demo's deck, cut from its face."""
    patches = []
    for code in codes:
        face = card_face(code)
        to_face = np.diag([face.shape[1] / CARD_SIZE[0], face.shape[0] / CARD_SIZE[1], 1.0])
        patches.append(extract_patches(face, [to_face, rotate_180(to_face)]))
    return np.concatenate(patches)


def _table(count: int) -> np.ndarray:
    """Patches of bare table, which read ``none``."""
    rng = np.random.default_rng(3)
    table = table_background((640, 480), style="felt", seed=1)
    mats = [np.array([[0.5, 0.0, rng.uniform(0, 500)], [0.0, 0.5, rng.uniform(0, 300)], [0.0, 0.0, 1.0]])
            for _ in range(count)]
    return extract_patches(table, mats)


def test_the_shipped_8_bit_reader_reads_every_corner_as_the_trained_one_does() -> None:
    """Quantised from the shipped ``cards.onnx``: a reader retrained but not quantised again would
    read the demo's cards differently, or less surely, here."""
    patches = np.concatenate([_corners(list(ALL_CODES[:52])), _table(40)])
    want = [CLASSES.index(c) for c in ALL_CODES[:52] for _ in range(2)] + [len(CLASSES) - 1] * 40
    trained, shipped = CardClassifier(TRAINED).classify(patches), CardClassifier(DEFAULT_MODEL).classify(patches)
    assert trained.argmax(1).tolist() == want
    assert shipped.argmax(1).tolist() == want
    assert np.abs(shipped - trained).max() < 0.05


def _largest_weight(path: Path) -> int:
    """The largest 8-bit weight of a quantised model, in steps."""
    import onnx
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer
               if t.data_type == onnx.TensorProto.INT8]
    return max(int(np.abs(w.astype(np.int32)).max()) for w in weights)


def test_the_shipped_8_bit_reader_reads_alike_on_every_processor() -> None:
    """Its weights keep to 7 bits: with full 8-bit weights an x86 core without VNNI, whose 16-bit
    sums of products overflow, read the demo's corners 0.09 off the float model, a VNNI core 0.014."""
    pytest.importorskip("onnx")
    from models.quantize import WEIGHT_LIMIT

    assert 0 < _largest_weight(DEFAULT_MODEL) <= WEIGHT_LIMIT


def test_a_reader_quantised_keeps_its_metadata_and_reads_alike(tmp_path: Path) -> None:
    """``models.quantize.quantize`` on a float reader: the recogniser loads the result (its classes and
    patch shape come with it), it reads the demo's corners as the float model does, and its weights keep
    to 7 bits."""
    pytest.importorskip("onnx")
    from models.quantize import WEIGHT_LIMIT, quantize

    calibration = np.concatenate([_corners(list(ALL_CODES[:52:3])), _table(220)])
    quantize(TRAINED, tmp_path / "cards-int8.onnx", calibration)
    patches = _corners(["QS", "7D", "10H", "AC"])
    quantised = CardClassifier(tmp_path / "cards-int8.onnx")
    assert quantised.classify(patches).argmax(1).tolist() == CardClassifier(TRAINED).classify(patches).argmax(1).tolist()
    assert (tmp_path / "cards-int8.onnx").stat().st_size < TRAINED.stat().st_size / 2
    assert _largest_weight(tmp_path / "cards-int8.onnx") <= WEIGHT_LIMIT
