"""Name a card from its index corner.

Every common deck prints the rank and a small suit in the top-left corner
(and again, turned 180°, in the bottom-right), so the classifier never looks at
the whole face: the recogniser maps the card's outline to a homography from
*card units* (an upright card of ``CARD_SIZE``) to frame pixels, and
:func:`extract_patch` warps the ``CORNER_BOX`` of that card into a small
``PATCH_SHAPE`` patch.  :class:`CardClassifier` turns a batch of such patches
into probabilities over ``CLASSES`` — the 53 card codes and ``"none"`` for
anything that is not a card index (chips, card backs, wood, hands, clutter).

The model is a small CNN in ONNX run by onnxruntime; its normalisation lives
inside the graph, so callers pass plain BGR ``uint8`` patches.
:class:`FaceReader` is the same kind of model reading the whole face
(``FACE_BOX`` at ``FACE_SHAPE``), which the recogniser asks about a card seen
whole.

>>> import numpy as np
>>> frame = np.full((720, 1280, 3), 200, np.uint8)
>>> card_to_frame = np.array([[0.4, 0, 100], [0, 0.4, 50], [0, 0, 1]])
>>> extract_patch(frame, card_to_frame).shape == PATCH_SHAPE + (3,)
True
>>> len(CLASSES), CLASSES[0], CLASSES[-1]
(54, '2S', 'none')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from companion.rules.cards import ALL_CODES

CARD_SIZE: tuple[int, int] = (250, 350)
"""The canonical upright card, (width, height) in card units (about 4 units per mm)."""

CORNER_BOX: tuple[int, int, int, int] = (0, 0, 80, 120)
"""(x0, y0, x1, y1) in card units: the top-left index corner.

Wide and tall enough for jumbo-index decks (rank and suit reach about 32 mm
down a poker card), and starting at the card's very edge so that a slightly
inset outline still keeps the whole index.
"""

PATCH_SHAPE: tuple[int, int] = (48, 32)
"""(height, width) in pixels of the model's input: 0.4 patch px per card unit,
about what a 1280x720 camera gives a card 100 px wide."""

CLASSES: tuple[str, ...] = ALL_CODES + ("none",)
"""The model's outputs in order: the 53 card codes, then ``"none"``."""

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "cards-int8.onnx"
"""The shipped corner reader: ``cards.onnx`` quantised to 8 bits (``models/quantize.py``)."""
DEFAULT_FACE_MODEL = DEFAULT_MODEL.with_name("faces.onnx")

_MAX_SUPERSAMPLE = 6


class ModelError(ValueError):
    """The model file is missing, unreadable, or not a card classifier of this version."""


class PatchError(ValueError):
    """A frame, homography or patch batch that the classifier cannot use."""


FACE_BOX: tuple[int, int, int, int] = (0, 0) + CARD_SIZE
"""The whole card in card units: what :class:`FaceReader` reads."""

FACE_SHAPE: tuple[int, int] = (84, 60)
"""(height, width) in pixels of the face reader's input: 0.24 px per card unit, pips 8 to 10 px wide,
enough to count them and tell a club from a spade."""


def corner_to_card(box: tuple[int, int, int, int] = CORNER_BOX, shape: tuple[int, int] = PATCH_SHAPE) -> np.ndarray:
    """The affine map from patch pixel coordinates to card units (3x3).

    Patch pixel ``(u, v)`` is the centre of a cell of ``box``, so the
    patch covers exactly that box however large it is drawn.
    """
    x0, y0, x1, y1 = box
    h, w = shape
    kx, ky = (x1 - x0) / w, (y1 - y0) / h
    return np.array([[kx, 0.0, x0 + 0.5 * kx], [0.0, ky, y0 + 0.5 * ky], [0.0, 0.0, 1.0]])


_CORNER_TO_CARD = corner_to_card()


def _check_frame(frame_bgr: np.ndarray) -> None:
    if not isinstance(frame_bgr, np.ndarray) or frame_bgr.dtype != np.uint8:
        raise PatchError(f"frame must be a uint8 numpy array, got {type(frame_bgr).__name__}"
                         f"{'' if not isinstance(frame_bgr, np.ndarray) else ' of ' + str(frame_bgr.dtype)}")
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or min(frame_bgr.shape[:2]) < 1:
        raise PatchError(f"frame must be (height, width, 3) BGR, got shape {frame_bgr.shape}")


def _checked_homographies(cards_to_frame: Sequence[np.ndarray]) -> np.ndarray:
    """``cards_to_frame`` as one ``(N, 3, 3)`` float array, or :class:`PatchError` naming the first bad one."""
    try:
        mats = np.array(cards_to_frame, dtype=np.float64)
    except ValueError:
        mats = np.zeros(0)
    if mats.ndim != 3 or mats.shape[1:] != (3, 3):
        raise PatchError(f"card_to_frame must be a 3x3 homography, got shapes "
                         f"{sorted({np.shape(m) for m in cards_to_frame})}")
    finite = np.isfinite(mats).all(axis=(1, 2))
    if not finite.all():
        raise PatchError(f"card_to_frame {int(np.argmin(finite))} is not finite")
    singular = np.flatnonzero(np.abs(np.linalg.det(mats)) < 1e-12)
    if len(singular):
        raise PatchError(f"card_to_frame {int(singular[0])} is singular: the card's outline has collapsed")
    return mats


def extract_patch(frame_bgr: np.ndarray, card_to_frame: np.ndarray) -> np.ndarray:
    """Warp the ``CORNER_BOX`` of a card out of a frame into a ``PATCH_SHAPE + (3,)`` patch.

    ``card_to_frame`` maps card units (x right, y down, upright card) to frame
    pixels; pass the homography of the card turned 180° to read the
    bottom-right index.  Parts of the box outside the frame repeat the frame's
    edge.  When the card is drawn much larger than the patch the box is
    sampled finely and then area-averaged, so a high-resolution photo gives
    the same smooth patch as a camera frame rather than an aliased one.
    """
    return extract_patches(frame_bgr, [card_to_frame])[0]


def extract_patches(frame_bgr: np.ndarray, cards_to_frame: Sequence[np.ndarray], *,
                    box: tuple[int, int, int, int] = CORNER_BOX, shape: tuple[int, int] = PATCH_SHAPE) -> np.ndarray:
    """:func:`extract_patch` for many cards of one frame: ``(N, *shape, 3)`` uint8.

    The same patches, checked and mapped all at once: the recogniser reads
    some sixty corners a frame, and per-patch checks cost a third as much as
    the warps themselves.  ``box`` and ``shape`` name another part of the
    card and its patch size (``FACE_BOX`` and ``FACE_SHAPE`` for the face reader).
    """
    _check_frame(frame_bgr)
    h, w = shape
    out = np.empty((len(cards_to_frame), h, w, 3), np.uint8)
    if not len(cards_to_frame):
        return out
    to_card = _CORNER_TO_CARD if (box, shape) == (CORNER_BOX, PATCH_SHAPE) else corner_to_card(box, shape)
    patches_to_frame = _checked_homographies(cards_to_frame) @ to_card
    u, v = (w - 1) / 2, (h - 1) / 2
    for patch, patch_to_frame, ((a, b, c), (d, e, f), (g, i, j)) in zip(out, patches_to_frame,
                                                                      patches_to_frame.tolist()):
        # Frame pixels per patch pixel at the box centre, from the Jacobian there (plain floats:
        # numpy's per-call cost on 3-vectors was half of a patch's time).
        px, py, pz = a * u + b * v + c, d * u + e * v + f, g * u + i * v + j
        if abs(pz) < 1e-12:
            raise PatchError("card_to_frame sends the corner to infinity")
        x, y = px / pz, py / pz
        j00, j01, j10, j11 = (a - x * g) / pz, (b - x * i) / pz, (d - y * g) / pz, (e - y * i) / pz
        scale = math.sqrt(abs(j00 * j11 - j01 * j10))
        k = int(min(_MAX_SUPERSAMPLE, max(1, math.floor(scale + 0.5)))) if math.isfinite(scale) else 1
        if k > 1:
            fine = np.array([[1 / k, 0, 0.5 / k - 0.5], [0, 1 / k, 0.5 / k - 0.5], [0, 0, 1]])
            big = cv2.warpPerspective(frame_bgr, patch_to_frame @ fine, (w * k, h * k),
                                      flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                      borderMode=cv2.BORDER_REPLICATE)
            cv2.resize(big, (w, h), dst=patch, interpolation=cv2.INTER_AREA)
        else:
            cv2.warpPerspective(frame_bgr, patch_to_frame, (w, h), dst=patch,
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    return out


def extract_faces(frame_bgr: np.ndarray, cards_to_frame: Sequence[np.ndarray]) -> np.ndarray:
    """The whole face of each card (``FACE_BOX`` at ``FACE_SHAPE``): what :class:`FaceReader` reads."""
    return extract_patches(frame_bgr, cards_to_frame, box=FACE_BOX, shape=FACE_SHAPE)


def rotate_180(card_to_frame: np.ndarray) -> np.ndarray:
    """The homography of the same card turned half a turn: its bottom-right index becomes top-left.

    >>> m = rotate_180(np.eye(3))
    >>> (m @ [0, 0, 1]).tolist()
    [250.0, 350.0, 1.0]
    """
    cw, ch = CARD_SIZE
    flip = np.array([[-1.0, 0.0, cw], [0.0, -1.0, ch], [0.0, 0.0, 1.0]])
    return np.asarray(card_to_frame, dtype=np.float64) @ flip


class CardClassifier:
    """The corner-patch CNN, loaded once and run on batches.

    ``threads`` is onnxruntime's intra-op thread count: one by default, since
    the Pi's other cores serve the camera and the web view.
    """

    default_path: Path = DEFAULT_MODEL
    """The shipped model this kind of classifier loads when no path is given."""
    shape: tuple[int, int] = PATCH_SHAPE
    """(height, width) of the patches it reads (cut by ``extract_patches``)."""

    def __init__(self, path: str | Path | None = None, *, threads: int = 1) -> None:
        import onnxruntime as ort

        self.path = Path(path) if path is not None else self.default_path
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        if not self.path.is_file():
            raise ModelError(f"no card model at {self.path} (run `make train` to build one)")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(self.path), sess_options=options,
                                                 providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(f"cannot load card model {self.path}: {exc}") from exc
        inputs, outputs = self._session.get_inputs(), self._session.get_outputs()
        if len(inputs) != 1 or len(outputs) != 1:
            raise ModelError(f"{self.path} is not a card classifier: expected one input and one output")
        shape = inputs[0].shape
        if len(shape) != 4 or tuple(shape[1:]) != self.shape + (3,):
            raise ModelError(f"{self.path} takes input {shape}, expected (N, {self.shape[0]}, "
                             f"{self.shape[1]}, 3)")
        meta = self._session.get_modelmeta().custom_metadata_map
        classes = tuple(meta.get("classes", "").split())
        if classes != CLASSES:
            raise ModelError(f"{self.path} has classes {classes[:4]}..., not this version's CLASSES")
        self._input = inputs[0].name
        self._output = outputs[0].name

    def classify(self, patches: np.ndarray) -> np.ndarray:
        """Probabilities ``(N, len(CLASSES))`` for ``(N, *shape, 3)`` uint8 BGR patches."""
        if not isinstance(patches, np.ndarray) or patches.dtype != np.uint8:
            raise PatchError("patches must be a uint8 numpy array from extract_patch")
        if patches.ndim != 4 or patches.shape[1:] != self.shape + (3,):
            raise PatchError(f"patches must have shape (N, {self.shape[0]}, {self.shape[1]}, 3), "
                             f"got {patches.shape}")
        if len(patches) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        (probs,) = self._session.run([self._output], {self._input: patches.astype(np.float32)})
        return probs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"


class FaceReader(CardClassifier):
    """The whole-face CNN: the same kind of model, reading the card's whole face.

    A second opinion for a card seen whole: its pips can be counted and its
    court figure seen where the index corner is printed somewhere the corner
    reader does not look (a rank top right only), faint on textured stock, or
    in a font no training deck has.  Its ``none`` covers a face it cannot read:
    covered, a card's back, the table, a box astride a card's edge.
    """

    default_path = DEFAULT_FACE_MODEL
    shape = FACE_SHAPE
