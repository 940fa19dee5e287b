"""Training patches for the face reader: whole card faces, synthetic and photographed.

The face reader (:class:`vision.classifier.FaceReader`) sees the card's
whole face at ``FACE_SHAPE``, cut by the same
:func:`vision.classifier.extract_faces` the recogniser calls, either way up
(the recogniser cannot tell a card seen whole from itself turned half a turn).
Its data mirrors the corner reader's (:mod:`models.data`): one card on a
piece of table, in perspective, lit, blurred and compressed, sometimes
covered; the labelled photos of ``card-crops/train``; and ``none`` for what
a face it cannot read looks like: a card back, the bare table, a box astride
a card's edge or across it, a face more than a third covered, and a whole
photo of a table, which the recogniser also proposes as one card filling
the picture.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from companion.rules.cards import ALL_CODES
from models.data import (
    CH,
    CW,
    NONE,
    RESTYLED,
    FacePyramid,
    Patches,
    Synth,
    _box_mask,
    _card_under,
    _composite,
    _cover,
    _draw_chips,
    _none,
    _photometric,
    _photometric_light,
    boxed_photos,
    card_homography,
    crop_homography,
    drawn,
    jitter,
)
from vision.classifier import CLASSES, FACE_BOX, extract_faces, rotate_180

COVERED = (0.06, 0.3)
"""A face covered less than the first share is read; more than the second, ``none``; between, not used."""


class FaceSynth(Synth):
    """Draws labelled face patches from a set of decks: :class:`models.data.Synth` drawing whole faces."""

    backs_share = 0.3

    def _face_scene(self, face: FacePyramid | None, *, occlude: bool) -> tuple[np.ndarray, np.ndarray, float]:
        """A canvas with ``face`` in its middle (0.17 to 0.75 px per card unit, any turn); returns the
        canvas after the camera's changes, the card's homography and the share of the face covered."""
        rng = self.rng
        scale = math.exp(rng.uniform(math.log(0.17), math.log(0.75)))
        n = int(min(384, 440 * scale + 30))
        canvas = self.textures.crop(rng, n)
        if rng.random() < 0.15:
            _draw_chips(canvas, rng)
        at = (n / 2 + rng.normal(0, 3), n / 2 + rng.normal(0, 3))
        h = card_homography(rng, scale=scale, angle=rng.uniform(0, 360), anchor=(CW / 2, CH / 2), at=at, tilt=0.05)
        if rng.random() < 0.2:   # another card underneath
            _card_under(canvas, rng, self._random_face, scale=scale)
        if face is not None:
            _composite(canvas, face, h, rng, restyled=rng.random() < RESTYLED)
        covered = 0.0
        if occlude:
            cover = _cover(canvas, rng, self._random_face, scale=scale, shares=(0.5, 0.8), margin=0.1,
                           chips=(0.1 * n, 0.25 * n))
            mask = _box_mask(h, n, FACE_BOX)
            covered = float(cover[mask].mean()) if mask.any() else 1.0
        return _photometric(canvas, rng), h, covered

    def positive(self, deck_index: int, code: str) -> tuple[np.ndarray, int] | None:
        """The face of ``code``, either way up; ``none`` when a third of it is covered, None between."""
        rng = self.rng
        canvas, h, covered = self._face_scene(self.faces[deck_index][code], occlude=rng.random() < 0.3)
        if COVERED[0] < covered <= COVERED[1]:
            return None
        label = NONE if covered > COVERED[1] else CLASSES.index(code)
        if rng.random() < 0.5:
            h = rotate_180(h)
        return extract_faces(canvas, [jitter(rng, h, amount=1.0 if rng.random() < 0.6 else 2.5)])[0], label

    def negative(self) -> tuple[np.ndarray, int]:
        """A face the reader cannot read: the table, a back, a box astride a face's edge, a face read across."""
        rng = self.rng
        kind = rng.random()
        if kind < 0.2:
            canvas, h, _ = self._face_scene(None, occlude=rng.random() < 0.5)
        elif kind < 0.45 and self.backs:
            canvas, h, _ = self._face_scene(self.backs[int(rng.integers(len(self.backs)))], occlude=rng.random() < 0.3)
        else:
            canvas, h, _ = self._face_scene(self._random_face(), occlude=False)
            if kind < 0.8:   # a third to a whole card aside
                a, r = rng.uniform(0, 2 * math.pi), rng.uniform(0.35, 1.0)
                h = h @ np.array([[1, 0, r * CW * math.cos(a)], [0, 1, r * CH * math.sin(a)], [0, 0, 1.0]])
            else:   # turned a quarter: a card's face read across
                c = np.array([[1, 0, CW / 2], [0, 1, CH / 2], [0, 0, 1.0]])
                h = h @ c @ np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]]) @ np.linalg.inv(c)
        return extract_faces(canvas, [jitter(rng, h)])[0], NONE

    def make(self, per_face: int, negatives: int, *, progress: str = "") -> Patches:
        """``per_face`` patches of every face of every deck and ``negatives`` ``none`` patches;
        prints progress when ``progress`` names the set."""
        codes = [(d, c) for d in range(len(self.faces)) for c in self.faces[d]]
        return drawn(codes, per_face, self.positive, negatives, self.negative, progress=progress, every=200)


def real_faces(items: list[tuple[Path, str]], rng: np.random.Generator | None, *, copies: int = 1,
               inside: dict[Path, np.ndarray] | None = None) -> Patches:
    """The face of every photo (``inside`` as :func:`models.data.real_corners` takes it): upright and
    unchanged without ``rng``, else ``copies`` times, jittered, either way up, the light varied."""
    xs, ys = [], []
    for path, code in items:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        card = inside[path] if inside is not None and path in inside else crop_homography(image)
        for _ in range(copies if rng is not None else 1):
            if rng is None:
                xs.append(extract_faces(image, [card])[0])
            else:
                h = rotate_180(card) if rng.random() < 0.5 else card
                src = _photometric_light(image, rng) if rng.random() < 0.7 else image
                xs.append(extract_faces(src, [jitter(rng, h, amount=2.0)])[0])
            ys.append(CLASSES.index(code))
    return Patches(np.stack(xs), np.array(ys, np.int64)) if xs else Patches.concat([])


def _as_one_card(image: np.ndarray, rng: np.random.Generator, *, light: bool) -> np.ndarray:
    """The face patch of ``image`` read as one card filling it, as the recogniser proposes it (any of
    :func:`vision._detect.frame_hypotheses`), jittered; with ``light``, its light varied half the time."""
    from vision._detect import frame_hypotheses

    whole = frame_hypotheses(image.shape[1], image.shape[0])
    card = whole[int(rng.integers(len(whole)))].card_to_work
    if light and rng.random() < 0.5:
        image = _photometric_light(image, rng)
    return extract_faces(image, [jitter(rng, card, amount=2.0)])[0]


def picture_negatives(folder: Path, rng: np.random.Generator, *, copies: int = 2) -> Patches:
    """``none`` faces: whole photos of tables, read as one card filling the picture.

    The recogniser proposes any picture not much longer than a card as a
    card seen whole (a close-up crop), so the face reader sees whole table
    photos too and must call them ``none``.  Every photo of ``folder``
    (``scene-photos/train``: cards on carpet, wood, paper) whose boxed cards
    all cover less than half of it gives ``copies`` patches, upright or
    sideways as the picture's shape has it, either way up, jittered.
    """
    from vision._detect import frame_hypotheses

    out = []
    for image, boxes in boxed_photos(folder):
        h, w = image.shape[:2]
        if any((x1 - x0) * (y1 - y0) >= 0.5 * w * h for x0, y0, x1, y1 in boxes):
            continue
        for _ in range(copies if frame_hypotheses(w, h) else 0):
            out.append(_as_one_card(image, rng, light=True))
    return _none(out)


def rendered_tables(frames: int, rng: np.random.Generator) -> Patches:
    """``none`` faces: whole synthetic tables of 3:2 or 4:3 (a few cards, some face down), read as one
    card filling the picture, as a camera's still of the table would be."""
    from vision.render import STYLES, PlacedCard, render_scene

    out = []
    for i in range(frames):
        size = (900, 600) if i % 2 else (800, 600)
        width = rng.uniform(60, 140)
        codes = rng.permutation(ALL_CODES[:52])[:int(rng.integers(0, 9))]
        cards = [PlacedCard(str(code), (rng.uniform(60, size[0] - 60), rng.uniform(60, size[1] - 60)),
                            rng.uniform(0, 360), width, face_up=rng.random() < 0.8) for code in codes]
        frame, _ = render_scene(cards, size=size, background=STYLES[i % len(STYLES)],
                                seed=int(rng.integers(1 << 30)), noise=float(rng.uniform(0, 4)))
        out.append(_as_one_card(frame, rng, light=False))
    return _none(out)
