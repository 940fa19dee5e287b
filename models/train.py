"""Train the corner-patch classifier and export ``models/cards.onnx``.

``python -m models.train`` (``make train`` chains runs of it: ``models.chain``): CPU only,
about eight minutes on two quiet cores (5 minutes of data, then 25-40 s an
epoch at the shipped width).  Steps, each printing its progress:

1. rasterise Debian's English-index decks into ``models/cache/faces`` (once);
2. draw synthetic corner patches from all decks but ``HELD_OUT`` (see
   ``models/data.py``), in two worker processes;
3. add both corners of every photo in ``card-crops/train`` (jittered, twice;
   cut at the card where the recogniser finds it inside the picture), and
   ``none`` patches mined from the boxed clutter of ``scene-photos/train``
   and synthetic tables, in two worker processes;
4. train a small CNN (AdamW, one-cycle schedule, label smoothing), reporting
   the held-out decks and ``card-crops/valid`` after each epoch;
5. export to ONNX with the input normalisation and softmax inside the graph
   and the class list in the model's metadata, then check onnxruntime
   reproduces torch's outputs.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import multiprocessing as mp
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from models.data import Patches, Synth, found_inside, read_labelled, real_corners, row_negatives, scene_negatives, table_negatives
from models.decks import HELD_OUT, load_all
from vision.classifier import CARD_SIZE, CLASSES, CORNER_BOX, DEFAULT_MODEL, FACE_BOX, FACE_SHAPE, PATCH_SHAPE

if TYPE_CHECKING:  # torch is training-only: imported where it is used
    from torch import nn

ROOT = Path(__file__).resolve().parent
DATA = ROOT.parent.parent / "shared" / "data" / "card-crops"
SCENES = ROOT.parent.parent / "shared" / "data" / "scene-photos" / "train"
OUTPUT = ROOT / "cards.onnx"
FACE_OUTPUT = ROOT / "faces.onnx"
FACE_POOLS = 4
"""The face network halves its grid once more before the dense layer: a face is larger than a corner."""
CACHE = ROOT / "cache"
T = TypeVar("T")
R = TypeVar("R")


def _synth_worker(args: tuple[list[str], int, int, int, bool]) -> tuple[np.ndarray, np.ndarray]:
    """One process's synthetic patches: corners (``per_code`` of each code over the decks) or, with
    ``faces``, faces (``per_code`` of each face of each deck)."""
    names, seed, per_code, negatives, faces = args
    decks = [d for d in load_all(verbose=False, faces=faces) if d.name in names]
    if faces:
        from models.faces import FaceSynth

        patches = FaceSynth(decks, seed).make(per_code, negatives, progress=f"worker {seed}")
    else:
        patches = Synth(decks, seed).make(per_code, negatives, progress=f"worker {seed}")
    return patches.x, patches.y


def _in_workers(worker: Callable[[T], R], jobs: list[T], *, processes: int | None = None) -> list[R]:
    """``worker`` over ``jobs`` in ``processes`` processes (default one a job; spawned: torch and
    OpenCV threads do not fork well), or in this process when there is one job or one process."""
    processes = min(processes or len(jobs), len(jobs))
    if processes <= 1:
        return [worker(job) for job in jobs]
    with mp.get_context("spawn").Pool(processes) as pool:
        return pool.map(worker, jobs, chunksize=1)


def synthetic(names: list[str], *, per_code: int, negatives: int, seed: int, workers: int,
              faces: bool = False) -> Patches:
    """Synthetic patches of the decks ``names``, drawn by ``workers`` processes (see :func:`_synth_worker`)."""
    jobs = [(names, seed + i, max(1, per_code // workers), negatives // workers, faces) for i in range(workers)]
    return Patches.concat([Patches(x, y) for x, y in _in_workers(_synth_worker, jobs)])


def _inside_worker(items: list[tuple[Path, str]]) -> dict[Path, np.ndarray]:
    """One process's share of :func:`photos_inside` (each loads its own recogniser: the corner reader
    alone, so that the cache's key, that model's digest, names all that found them)."""
    from vision.classifier import CardClassifier
    from vision.recognizer import Recognizer

    return found_inside(items, Recognizer(classifier=CardClassifier()))


def photos_inside(items: list[tuple[Path, str]], *, workers: int) -> dict[Path, np.ndarray]:
    """:func:`models.data.found_inside` with the shipped recogniser, kept in the cache under the model's
    digest (it reads every photo once: minutes)."""
    import hashlib
    import json

    digest = hashlib.sha256(DEFAULT_MODEL.read_bytes()).hexdigest()[:12]
    saved = CACHE / f"inside-{items[0][0].parent.parent.name if items else 'none'}-{len(items)}-{digest}.json"
    if saved.exists():
        return {Path(k): np.array(v) for k, v in json.loads(saved.read_text()).items()}
    parts = _in_workers(_inside_worker, [items[i::workers] for i in range(workers)])
    inside = {k: v for part in parts for k, v in part.items()}
    saved.parent.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps({str(k): v.tolist() for k, v in inside.items()}))
    return inside


def build_net(channels: tuple[int, int, int, int] = (16, 32, 64, 96),
              shape: tuple[int, int] = PATCH_SHAPE, *, pools: int = 3) -> nn.Module:
    import torch
    from torch import nn

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    class CornerNet(nn.Module):
        """BGR uint8-valued NHWC patches in, class probabilities out.

        Each patch is standardised by its own mean and spread, so a dim,
        bright or tinted corner reaches the convolutions looking the same.
        """

        def __init__(self) -> None:
            super().__init__()
            h, w = shape
            a, b, c, d = channels
            self.features = nn.Sequential(
                *block(3, a), nn.MaxPool2d(2), *block(a, b), nn.MaxPool2d(2),
                *block(b, c), nn.MaxPool2d(2), *block(c, d), *[nn.MaxPool2d(2)] * (pools - 3))
            cells = (h // 2 ** pools) * (w // 2 ** pools)
            self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(d * cells, 128),
                                      nn.ReLU(inplace=True), nn.Linear(128, len(CLASSES)))

        def logits(self, x: torch.Tensor) -> torch.Tensor:
            x = x.permute(0, 3, 1, 2)
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            std = x.std(dim=(1, 2, 3), keepdim=True)
            return self.head(self.features((x - mean) / (std + 8.0)))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.softmax(self.logits(x), dim=1)

    return CornerNet()


def folded_weights(path: Path) -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """The weight and bias of every convolution (``"Conv"``) and dense layer (``"Gemm"``) of the model
    exported at ``path``, in the graph's order; the export folded each batch norm into the
    convolution before it."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {"Conv": [], "Gemm": []}
    for n in model.graph.node:
        if n.op_type in layers:
            layers[n.op_type].append((values[n.input[1]], values[n.input[2]]))
    return layers


def load_shipped(net: nn.Module, path: Path) -> None:
    """Start ``net`` from an exported model's weights, widened where ``net`` is wider.

    Only the ONNX file ships (``models/cache`` is not kept), so this is how
    a later run continues from the shipped weights.  The export folded each
    batch norm into its convolution: the folded weights go into the
    convolution and the norm becomes a plain shift, which only holds while
    the norms keep those statistics (train with them frozen, see
    :func:`freeze_norms`).  A wider ``net`` keeps the old function exactly:
    its extra channels start small and random and every weight reading them
    starts at zero, so the added capacity is learned from where the shipped
    model stands.
    """
    import torch
    from torch import nn

    exported = folded_weights(path)
    convs, dense = exported["Conv"], exported["Gemm"]
    layers = [m for m in net.features if isinstance(m, nn.Conv2d)]
    norms = [m for m in net.features if isinstance(m, nn.BatchNorm2d)]
    linears = [m for m in net.head if isinstance(m, nn.Linear)]
    if len(convs) != len(layers) or len(dense) != len(linears):
        raise ValueError(f"{path}: {len(convs)} convolutions and {len(dense)} dense layers, "
                         f"the network has {len(layers)} and {len(linears)}")
    with torch.no_grad():
        for conv, norm, (w, b) in zip(layers, norms, convs):
            o, i = w.shape[:2]
            if conv.out_channels < o or conv.in_channels < i:
                raise ValueError(f"{path}: a convolution of {i}->{o} channels does not fit {conv}")
            conv.weight.mul_(0.1)
            conv.weight[:, i:] = 0.0      # the new input channels are not read yet
            conv.weight[:o, :i] = torch.tensor(w)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.weight.fill_(1.0)
            norm.bias.zero_()
            norm.bias[:o] = torch.tensor(b)
        # The first dense layer reads the last convolution's channels at every cell (channel-major).
        cells = linears[0].in_features // layers[-1].out_channels
        old = convs[-1][0].shape[0]
        for k, (linear, (w, b)) in enumerate(zip(linears, dense)):
            o, i = w.shape
            if linear.out_features < o or linear.in_features < i:
                raise ValueError(f"{path}: a dense layer of {i}->{o} does not fit {linear}")
            linear.weight.mul_(0.1)
            linear.bias.zero_()
            if k == 0:
                grid = linear.weight.view(linear.out_features, -1, cells)
                grid[:, old:] = 0.0
                grid[:o, :old] = torch.tensor(w).view(o, old, cells)
            else:
                linear.weight[:, i:] = 0.0
                linear.weight[:o, :i] = torch.tensor(w)
            linear.bias[:o] = torch.tensor(b)


def freeze_norms(net: nn.Module) -> None:
    """Keep every batch norm's statistics as they are (eval mode) while the rest trains."""
    from torch import nn

    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def combined_accuracy(p_tl: np.ndarray, p_br: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Top-1 on photos: top-left alone, and both corners' card probabilities multiplied."""
    cards = len(CLASSES) - 1
    both = np.log(p_tl[:, :cards] + 1e-6) + np.log(p_br[:, :cards] + 1e-6)
    return {"top_left": float((p_tl.argmax(1) == y).mean()), "both": float((both.argmax(1) == y).mean())}


def predict(net: nn.Module, x: np.ndarray, batch: int = 1024) -> np.ndarray:
    import torch

    net.eval()
    device = next(net.parameters()).device
    out = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            out.append(net(torch.from_numpy(x[i:i + batch]).to(device).float()).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)), np.float32)


def export(net: nn.Module, path: Path, sample: np.ndarray, *, box: tuple[int, int, int, int] = CORNER_BOX) -> None:
    """``net`` as ONNX at ``path``, with the class list, patch shape (``sample``'s) and ``box`` in its metadata."""
    import torch

    net.eval()
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(net, torch.from_numpy(sample[:2]).float(), str(tmp), input_names=["patches"],
                      output_names=["probabilities"], dynamic_axes={"patches": {0: "n"}, "probabilities": {0: "n"}},
                      opset_version=17, dynamo=False)
    save_with_metadata(tmp, path, {
        "classes": " ".join(CLASSES), "patch_shape": "x".join(map(str, sample.shape[1:3])),
        "corner_box": ",".join(map(str, box)), "card_size": "x".join(map(str, CARD_SIZE)),
        "input": "N x H x W x 3 float32, BGR values 0..255 (normalised inside)"})


def save_with_metadata(exported: Path, path: Path, meta: dict[str, str]) -> None:
    """The ONNX model torch exported at ``exported``, checked and saved at ``path`` with ``meta`` in its
    metadata (what the runtime checks on load); ``exported`` is removed."""
    import onnx

    model = onnx.load(str(exported))
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    exported.unlink()


def drawn_by(names: Iterable[str], *sources: Path) -> str:
    """Eight hex digits that change with the decks ``names`` and with the code in ``sources``: part of a
    cached set's name, so that a set of other decks, or drawn by other code, is drawn again, not reused."""
    digest = hashlib.sha256(" ".join(sorted(names)).encode())
    for source in sources:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:8]


def _cached(saved: Path, draw: Callable[[], tuple[Patches, Patches]]) -> tuple[Patches, Patches]:
    """The (training, held-out) synthetic patches kept at ``saved``, drawn and kept there the first time.

    Drawing them is the slow half of a run; a rerun with other training settings reuses them.
    """
    if saved.exists():
        with np.load(saved) as z:
            print(f"    reusing {saved.name}", flush=True)
            return Patches(z["x"], z["y"]), Patches(z["hx"], z["hy"])
    train, held = draw()
    saved.parent.mkdir(parents=True, exist_ok=True)
    np.savez(saved, x=train.x, y=train.y, hx=held.x, hy=held.y)
    return train, held


def corner_data(args: argparse.Namespace, train_names: list[str], held_names: list[str],
                t0: float) -> tuple[Patches, Patches, Patches, Callable[[object], str]]:
    """The corner reader's training, held-out and valid patches, and its valid report (steps 2 and 3)."""
    print(f"2/5 synthetic patches ({time.time() - t0:.0f}s)", flush=True)
    drawn = drawn_by(train_names + held_names, ROOT / "data.py")
    train, held = _cached(CACHE / f"synthetic-{args.per_code}-{args.negatives}-{args.seed}-{drawn}.npz",
                          lambda: (synthetic(train_names, per_code=args.per_code, negatives=args.negatives,
                                             seed=args.seed, workers=args.workers),
                                   synthetic(held_names, per_code=40, negatives=800, seed=10_000, workers=1)
                                   if held_names else Patches.concat([])))

    print(f"3/5 photo corners ({time.time() - t0:.0f}s)", flush=True)
    found = _photos_and_mined(args.data, args.real_copies, args.scenes, args.tables, args.rows, tuple(train_names),
                              seed=args.seed, workers=args.workers)
    valid_tl, valid_br = real_corners(read_labelled(args.data / "valid"), None)

    def report(net: object) -> str:
        acc = combined_accuracy(predict(net, valid_tl.x), predict(net, valid_br.x), valid_tl.y)
        return f"{acc['top_left']:.3f} (both corners {acc['both']:.3f})"

    return Patches.concat([train, found]), held, valid_tl, report


def _photo_corners(items: list[tuple[Path, str]], copies: int, inside: dict[Path, np.ndarray], *,
                   rng: np.random.Generator) -> Patches:
    """Both corners of ``items`` as :func:`models.data.real_corners` cuts them for training, with a
    middle-of-card ``none`` for half the photos."""
    tl, br = real_corners(items, rng, copies=copies, negatives=0.5, inside=inside)
    return Patches.concat([tl, br])


def _rows_of(names: tuple[str, ...], frames: int, *, rng: np.random.Generator) -> Patches:
    """:func:`models.data.row_negatives` with the decks named (a process loads its own faces)."""
    return row_negatives([d for d in load_all(verbose=False) if d.name in names], frames, rng)


def _drawn(job: tuple[Callable[..., Patches], tuple[object, ...], int]) -> tuple[np.ndarray, np.ndarray]:
    """One share of :func:`_photos_and_mined`: ``draw(*args)`` with a generator of its own seed."""
    draw, args, seed = job
    patches = draw(*args, rng=np.random.default_rng(seed))
    return patches.x, patches.y


@functools.lru_cache(maxsize=1)
def _photos_and_mined(data: Path, copies: int, scenes: Path, tables: int, rows: int, train_names: tuple[str, ...],
                      *, seed: int, workers: int) -> Patches:
    """The training photos' corners and the ``none`` patches mined on clutter, chips and rows, drawn in
    ``workers`` processes, each share from a seed of its own.

    Kept for the next call: a chain of runs (``models.chain``) often trains on the same set twice.
    """
    photos = read_labelled(data / "train")
    inside = photos_inside(photos, workers=workers)
    print(f"    {len(inside)} of {len(photos)} photos hold their card inside the picture, not filling it",
          flush=True)
    jobs: list[tuple[Callable[..., Patches], tuple[object, ...], int]] = []
    said: list[str] = []
    if rows > 0:
        jobs.append((_rows_of, (train_names, rows), seed * 100 + 90))
        said.append(f"proposed across rows of cards on {rows} synthetic tables")
    if tables > 0:
        jobs.append((table_negatives, (tables,), seed * 100 + 80))
        said.append(f"proposed on {tables} synthetic tables with chips")
    if scenes.is_dir():
        jobs.append((scene_negatives, (scenes,), seed * 100 + 70))
        said.append(f"mined from {scenes}")
    mined = len(jobs)
    jobs += [(_photo_corners, (photos[i::workers], copies, inside), seed * 100 + i) for i in range(workers)]
    parts = [Patches(x, y) for x, y in _in_workers(_drawn, jobs, processes=workers)]
    for part, where in zip(parts, said):
        print(f"    {len(part.y)} 'none' patches {where}", flush=True)
    return Patches.concat(parts[mined:] + parts[:mined])


def face_data(args: argparse.Namespace, train_names: list[str], held_names: list[str],
              t0: float) -> tuple[Patches, Patches, Patches, Callable[[object], str]]:
    """The face reader's training, held-out and valid patches, and its valid report (steps 2 and 3)."""
    from models.faces import picture_negatives, real_faces, rendered_tables

    print(f"2/5 synthetic faces ({time.time() - t0:.0f}s)", flush=True)
    shape = "x".join(map(str, FACE_SHAPE))
    drawn = drawn_by(train_names + held_names, ROOT / "faces.py", ROOT / "data.py")
    train, held = _cached(CACHE / f"faces-{shape}-{args.per_face}-{args.negatives}-{args.seed}-{drawn}.npz",
                          lambda: (synthetic(train_names, per_code=args.per_face, negatives=args.negatives,
                                             seed=args.seed, workers=args.workers, faces=True),
                                   synthetic(held_names, per_code=2, negatives=300, seed=10_000, workers=1, faces=True)
                                   if held_names else Patches.concat([])))

    print(f"3/5 photo faces ({time.time() - t0:.0f}s)", flush=True)
    rng = np.random.default_rng(args.seed)
    photos = read_labelled(args.data / "train")
    inside = photos_inside(photos, workers=args.workers)
    parts = [train, real_faces(photos, rng, copies=args.real_copies, inside=inside)]
    if args.scenes.is_dir():
        pictures = picture_negatives(args.scenes, rng)
        print(f"    {len(pictures.y)} 'none' faces from whole photos of {args.scenes}", flush=True)
        parts.append(pictures)
    if args.tables > 0:
        tables = rendered_tables(args.tables, rng)
        print(f"    {len(tables.y)} 'none' faces from whole synthetic tables", flush=True)
        parts.append(tables)
    valid = real_faces(read_labelled(args.data / "valid"), None)

    def report(net: object) -> str:
        return f"{(predict(net, valid.x).argmax(1) == valid.y).mean():.3f}"

    return Patches.concat(parts), held, valid, report


def show_progress(epoch: int, epochs: int, step: int, steps: int, loss: float, since: float) -> None:
    """Redraws an epoch's bar on stderr every 20 steps and at its last: an epoch on a CPU takes a minute."""
    if step % 20 == 0 or step == steps - 1:
        bar = "#" * int(30 * (step + 1) / steps)
        print(f"\r    epoch {epoch + 1}/{epochs} [{bar:<30}] loss {loss:.3f} {time.time() - since:.0f} s",
              end="", file=sys.stderr, flush=True)


def _channels(text: str) -> tuple[int, int, int, int]:
    parts = text.split(",")
    if len(parts) != 4 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"four positive widths separated by commas, got {text!r}")
    a, b, c, d = (int(p) for p in parts)
    return a, b, c, d


def options() -> argparse.ArgumentParser:
    """The command line's options (a test checks that ``make train`` passes only these)."""
    parser = argparse.ArgumentParser(prog="python -m models.train", description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--per-code", type=int, default=300, help="synthetic top-left corners per card code")
    parser.add_argument("--negatives", type=int, default=6000, help="synthetic 'none' patches")
    parser.add_argument("--real-copies", type=int, default=2, help="jittered copies of each photo corner")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reader", choices=("corners", "faces"), default="corners",
                        help="train the corner reader (models/cards.onnx) or the face reader (models/faces.onnx)")
    parser.add_argument("--per-face", type=int, default=10,
                        help="synthetic patches of each face of each deck (face reader)")
    parser.add_argument("--output", type=Path, default=None, help="where to export (default: the reader's model)")
    parser.add_argument("--init", type=Path, default=None,
                        help="start from these weights: a .pt of models/cache (last-corners.pt or last-faces.pt is "
                             "saved by every run), "
                             "or an exported .onnx such as the shipped models/cards.onnx (widened to --channels, "
                             "its batch norms then frozen)")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--channels", type=_channels, default=(16, 32, 64, 96),
                        help="the four convolution widths (default 16,32,64,96; the classifier's time grows with them)")
    parser.add_argument("--data", type=Path, default=DATA, help="the card-crops folder")
    parser.add_argument("--scenes", type=Path, default=SCENES,
                        help="boxed photos of cards on clutter, mined for 'none' patches (skipped if missing)")
    parser.add_argument("--tables", type=int, default=200,
                        help="synthetic tables with chips, mined for 'none' patches the same way (0: none)")
    parser.add_argument("--rows", type=int, default=200,
                        help="synthetic tables with rows of played cards, mined for 'none' patches (0: none)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = options().parse_args(argv)

    import torch
    from torch import nn

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.workers)
    t0 = time.time()
    faces = args.reader == "faces"
    print("1/5 rasterising decks", flush=True)
    decks = load_all(faces=faces)
    train_names = [d.name for d in decks if d.name not in HELD_OUT]
    held_names = [d.name for d in decks if d.name in HELD_OUT]
    print(f"    training decks: {', '.join(train_names)}\n    held out: {', '.join(held_names)}", flush=True)
    train, held, valid, report = (face_data if faces else corner_data)(args, train_names, held_names, t0)
    counts = np.bincount(train.y, minlength=len(CLASSES))
    print(f"    {len(train.y)} training patches ({counts[-1]} none, {counts[:-1].min()}-{counts[:-1].max()} "
          f"per card); {len(held.y)} held-out synthetic; {len(valid.y)} valid photos",
          flush=True)

    print(f"4/5 training ({time.time() - t0:.0f}s)", flush=True)
    net = build_net(args.channels, FACE_SHAPE if faces else PATCH_SHAPE, pools=FACE_POOLS if faces else 3)
    frozen = args.init is not None and args.init.suffix == ".onnx"
    if frozen:
        load_shipped(net, args.init)
        print(f"    starting from {args.init}, batch norms frozen", flush=True)
    elif args.init is not None:
        net.load_state_dict(torch.load(args.init))
        print(f"    starting from {args.init}", flush=True)
    x_all = torch.from_numpy(train.x)
    y_all = torch.from_numpy(train.y)
    batch = 256
    steps = args.epochs * (len(y_all) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    casts = np.random.default_rng(args.seed)  # seeded, as torch's draws are: a rerun gives the same weights
    for epoch in range(args.epochs):
        net.train()
        if frozen:
            freeze_norms(net)
        order = torch.randperm(len(y_all))
        seen = correct = 0
        total_loss = 0.0
        t1, n_steps = time.time(), len(y_all) // batch
        for i in range(n_steps):
            idx = order[i * batch:(i + 1) * batch]
            x = x_all[idx].float()
            if casts.random() < 0.5:  # colour-cast jitter, cheap and per batch row
                x = x * (1 + 0.1 * torch.randn(len(x), 1, 1, 3))
            y = y_all[idx]
            logits = net.logits(x)
            loss = loss_fn(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total_loss += loss.item() * len(y)
            seen += len(y)
            correct += int((logits.argmax(1) == y).sum())
            show_progress(epoch, args.epochs, i, n_steps, total_loss / seen, t1)
        print(file=sys.stderr)
        line = f"    epoch {epoch + 1}/{args.epochs}: loss {total_loss / seen:.3f}, train {correct / seen:.3f}"
        if len(held.y):
            line += f", held-out decks {(predict(net, held.x).argmax(1) == held.y).mean():.3f}"
        print(f"{line}, valid photos {report(net)} [{time.time() - t0:.0f}s]", flush=True)
        torch.save(net.state_dict(), CACHE / f"last-{args.reader}.pt")  # a run cut short still leaves its weights

    output = args.output or (FACE_OUTPUT if faces else OUTPUT)
    print(f"5/5 exporting {output} ({time.time() - t0:.0f}s)", flush=True)
    export(net, output, valid.x, box=FACE_BOX if faces else CORNER_BOX)
    from vision.classifier import CardClassifier, FaceReader

    check = (FaceReader if faces else CardClassifier)(output).classify(valid.x[:64])
    diff = float(np.abs(check - predict(net, valid.x[:64])).max())
    print(f"    onnxruntime vs torch max difference {diff:.2e}; {output.stat().st_size / 1024:.0f} KiB; "
          f"done in {time.time() - t0:.0f}s", flush=True)
    return 0 if diff < 1e-3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
