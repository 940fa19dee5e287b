"""Train the card-corner detector and export ``models/detector.onnx``.

``python -m models.detector`` (part of ``make train``): CPU torch, the Debian
decks, no photograph.  Steps, each printing its progress:

1. draw synthetic tables (``models/scenes.py``) from every English-index deck
   but ``HELD_OUT``, in two worker processes, and as many again from the
   held-out decks to validate on;
2. train a small fully convolutional network (AdamW, one-cycle schedule)
   that marks each visible card corner on a grid of ``STRIDE`` pixels: the
   cells about the corner (cross-entropy), and from each of them the offset
   to the corner, the direction of the edge leaving it clockwise as
   (cos, sin) and the log of the card's width (L1), so that every corner
   cell votes where its corner lies, and whether the corner is one that holds
   an index (cross-entropy), so that the reader reads only those;
3. report recall and precision of the corners found on the held-out decks'
   scenes after each epoch;
4. export to ONNX taking the frame's three planes, its normalisation folded
   into the stem (:func:`_on_planes`), and check that onnxruntime reproduces
   torch.

``--init`` trains on from an exported model's weights (its batch norms
frozen), ``--room-light`` puts each window under a room's light as it is
trained on; the shipped model is a run from scratch, then one with both
(``make train`` runs the two; ``MODEL_CARD.md`` says why).
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from models.decks import HELD_OUT, load_all
from models.train import CACHE, _in_workers, drawn_by, folded_weights, freeze_norms, predict, save_with_metadata, show_progress
from vision.detector import MAPS, STRIDE, WIDTH_UNIT, CardCorner, decode

if TYPE_CHECKING:  # torch is training-only: imported where it is used
    import torch
    from torch import nn

ROOT = Path(__file__).resolve().parent
OUTPUT = ROOT / "detector.onnx"
SCENE = 256
"""Training scenes are this many pixels square (the network is fully convolutional: any frame size runs)."""
OUTPUTS = MAPS
"""The maps the network gives (``vision.detector.MAPS`` says what each is)."""
REGION = (0.07, 0.07)
"""Half-extent of the region about a corner each cell of which is taught as that corner: shares of
the card's width along its two edges."""
POSITIVE_WEIGHT = 4.0
INDEX_WEIGHT = 2.0
"""The index map's cross-entropy in the loss, against the corner map's (weighted 20)."""


def _scene_worker(args: tuple[list[str], int, int]) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    names, seed, count = args
    from models.scenes import SceneSynth

    decks = [d for d in load_all(verbose=False) if d.name in names]
    synth = SceneSynth(decks, seed)
    images = np.zeros((count, SCENE, SCENE, 3), np.uint8)
    targets, unsure = [], []
    for i in range(count):
        images[i], t, u = synth.draw(SCENE)
        targets.append(t)
        unsure.append(u)
        if seed < 100 and i % 500 == 499:   # the first worker speaks for all
            print(f"    worker {seed}: {i + 1} of {count} scenes", file=sys.stderr, flush=True)
    return images, targets, unsure


def scenes(names: list[str], count: int, *, seed: int, workers: int) -> tuple[np.ndarray, list, list]:
    """``count`` scenes of the decks ``names``, kept in the cache (drawing them is the slow half) under
    a name that changes with the decks and with the code that draws them."""
    saved = CACHE / f"corners-{seed}-{count}-{SCENE}-{drawn_by(names, ROOT / 'scenes.py', ROOT / 'data.py')}.npz"
    if saved.exists():
        with np.load(saved, allow_pickle=True) as z:
            print(f"    reusing {saved.name}", flush=True)
            return z["images"], list(z["targets"]), list(z["unsure"])
    jobs = [(names, seed + 100 * i, count // workers) for i in range(workers)]
    parts = _in_workers(_scene_worker, jobs)
    images = np.concatenate([p[0] for p in parts])
    targets = [t for p in parts for t in p[1]]
    unsure = [u for p in parts for u in p[2]]
    saved.parent.mkdir(parents=True, exist_ok=True)
    np.savez(saved, images=images, targets=np.array(targets, dtype=object), unsure=np.array(unsure, dtype=object))
    return images, targets, unsure


def encode(targets: np.ndarray, unsure: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One scene's training maps on its ``size / STRIDE`` grid: the corner map (1 on the cells within
    ``REGION`` of a corner, along its edges; the nearest cell at least), the weight of each cell in its
    loss (0 around an unsure corner) and the targets on the corner cells (6 channels: the offset in
    cells to the corner, the edge's cos and sin, the log width, 1 for an index corner and 0 for a plain
    one; NaN elsewhere)."""
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    weight = np.ones((g, g), np.float32)
    reg = np.full((OUTPUTS - 1, g, g), np.nan, np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x, y, w in unsure:
        r = max(1.0, 0.2 * w / STRIDE)
        weight[(xx - (x + 0.5) / STRIDE + 0.5) ** 2 + (yy - (y + 0.5) / STRIDE + 0.5) ** 2 <= r * r] = 0.0
    for x, y, angle, w, index in targets:
        cx, cy = (x + 0.5) / STRIDE - 0.5, (y + 0.5) / STRIDE - 0.5
        c, s = math.cos(angle), math.sin(angle)
        u, v = (xx - cx) * c + (yy - cy) * s, -(xx - cx) * s + (yy - cy) * c
        a, b = (max(0.75, f * w / STRIDE) for f in REGION)
        inside = (u / a) ** 2 + (v / b) ** 2 <= 1.0
        ix, iy = int(round(cx)), int(round(cy))
        if 0 <= ix < g and 0 <= iy < g:
            inside[iy, ix] = True
        heat[inside] = 1.0
        weight[inside] = 1.0
        reg[0][inside], reg[1][inside] = cx - xx[inside], cy - yy[inside]
        reg[2][inside], reg[3][inside], reg[4][inside] = c, s, math.log(w / WIDTH_UNIT)
        reg[5][inside] = index
    return heat, weight, reg


def build_net(channels: tuple[int, int, int] = (24, 48, 96)) -> nn.Module:
    """A 4x4 patch stem straight to 1/4 (the output grid), depthwise-separable stages down to 1/32
    (a close card's index is large), then back up to 1/4 with each finer stage added in, and a 1x1
    head of ``OUTPUTS`` maps.  Cheap where the grid is finest: most of the work is at 1/8 and below."""
    import torch
    from torch import nn

    c1, c2, c3 = channels

    def sep(i: int, o: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        return nn.Sequential(
            nn.Conv2d(i, i, 3, stride, dilation, dilation=dilation, groups=i, bias=False), nn.BatchNorm2d(i),
            nn.ReLU(inplace=True), nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("scale", torch.tensor(1 / 255.0))
            self.stem = nn.Sequential(nn.Conv2d(3, c1, 4, 4, bias=False), nn.BatchNorm2d(c1), nn.ReLU(inplace=True))
            self.s4 = sep(c1, c1)
            self.s8 = nn.Sequential(sep(c1, c2, 2), sep(c2, c2))
            self.s16 = nn.Sequential(sep(c2, c3, 2), sep(c3, c3), sep(c3, c3, dilation=2))
            self.s32 = nn.Sequential(sep(c3, c3, 2), sep(c3, c3, dilation=2))
            self.up16 = sep(c3, c2)
            self.up8 = sep(c2, c1)
            self.up4 = sep(c1, c1)
            self.head = nn.Conv2d(c1, OUTPUTS, 1)
            with torch.no_grad():
                self.head.bias[0] = -4.0   # few cells hold a corner: start the heat low

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            # N x H x W x 3 BGR 0..255 in (as the scenes are kept), N x 7 x H/4 x W/4 out.
            return self.planes(x.permute(0, 3, 1, 2) * self.scale - 0.5)

        def planes(self, x: torch.Tensor) -> torch.Tensor:
            # N x 3 x H x W, normalised, in; the maps out (heat and index as probabilities).
            f4 = self.s4(self.stem(x))
            f8 = self.s8(f4)
            f16 = self.s16(f8)
            f32 = self.s32(f16)
            up = nn.functional.interpolate
            u16 = self.up16(f16 + up(f32, size=f16.shape[2:], mode="nearest"))
            u8 = self.up8(f8 + up(u16, size=f8.shape[2:], mode="nearest"))
            u4 = self.up4(f4 + up(u8, size=f4.shape[2:], mode="nearest"))
            out = self.head(u4)
            return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:6], torch.sigmoid(out[:, 6:])], dim=1)

    return Net()


def loss_of(out: torch.Tensor, heat: torch.Tensor, weight: torch.Tensor, reg: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy on the corner map (corner cells weigh ``POSITIVE_WEIGHT``: they are few),
    L1 on the regression and cross-entropy on the index map where a corner is."""
    import torch

    p = out[:, 0].clamp(1e-4, 1 - 1e-4)
    w = weight * (1 + (POSITIVE_WEIGHT - 1) * heat)
    bce = -(heat * torch.log(p) + (1 - heat) * torch.log(1 - p)) * w
    have = ~torch.isnan(reg[:, 0])
    r = out[:, 1:6].permute(0, 2, 3, 1)[have]
    t = reg[:, :5].permute(0, 2, 3, 1)[have]
    reg_loss = (r - t).abs().mean(dim=0) if len(t) else out.new_zeros(5)
    q, index = out[:, 6][have].clamp(1e-4, 1 - 1e-4), reg[:, 5][have]
    index_loss = -(index * torch.log(q) + (1 - index) * torch.log(1 - q)).mean() if len(t) else out.new_zeros(())
    return 20 * bce.sum() / w.sum() + reg_loss[:2].sum() * 0.5 + reg_loss[2:4].sum() + reg_loss[4] + INDEX_WEIGHT * index_loss


def score(found: list[list[CardCorner]], truth: list[np.ndarray]) -> dict[str, float]:
    """Recall and precision of found corners: a match lies within a fifth of the card's width, its
    angle within 20 degrees and its width within a quarter; and of the matches, the share whose
    index map (at 0.5) tells an index corner from a plain one rightly."""
    hits = tp = told = n_found = n_true = 0
    for f, t in zip(found, truth):
        n_found += len(f)
        n_true += len(t)
        used: set[int] = set()
        for x, y, angle, w, _, index in f:
            for j, (tx, ty, ta, tw, ti) in enumerate(t):
                d_angle = abs((angle - ta + math.pi) % (2 * math.pi) - math.pi)
                if (j not in used and math.hypot(x - tx, y - ty) < 0.2 * tw and d_angle < math.radians(20)
                        and abs(math.log(w / tw)) < math.log(1.25)):
                    used.add(j)
                    tp += 1
                    told += (index >= 0.5) == (ti >= 0.5)
                    break
        hits += len(used)
    return {"recall": hits / max(1, n_true), "precision": tp / max(1, n_found), "index": told / max(1, tp),
            "corners": n_true}


def export(net: nn.Module, path: Path, size: int) -> None:
    """``net`` as ONNX at ``path`` with free height and width, checked against torch."""
    import onnxruntime as ort
    import torch

    net = copy.deepcopy(net).cpu().eval()   # a CPU copy: the net being trained may be on another device
    sample = torch.rand(1, size, size * 3 // 2, 3) * 255
    planes = sample.permute(0, 3, 1, 2).contiguous()
    tmp = path.with_suffix(".tmp.onnx")
    torch.onnx.export(_on_planes(net), planes, str(tmp), input_names=["frame"], output_names=["maps"],
                      dynamic_axes={"frame": {2: "h", 3: "w"}, "maps": {2: "gh", 3: "gw"}},
                      opset_version=17, dynamo=False)
    save_with_metadata(tmp, path, {
        "stride": str(STRIDE), "width_unit": str(WIDTH_UNIT),
        "input": "1 x 3 x H x W float32: the frame's B, G and R planes, values 0..255 (normalised inside)",
        "output": "1 x 7 x H/4 x W/4: corner probability, dx, dy, cos, sin, log(width / width_unit), "
                  "index probability"})
    with torch.no_grad():
        want = net(sample).numpy()
    got = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"frame": planes.numpy()})[0]
    if not np.allclose(want, got, atol=1e-3):
        raise RuntimeError(f"onnxruntime differs from torch by {np.abs(want - got).max():.4f}")


def _on_planes(net: nn.Module) -> nn.Module:
    """A copy of ``net`` (in eval mode) on the frame as the runtime holds it, its B, G and R planes 0..255
    (``1 x 3 x H x W``): the scaling to -0.5..0.5 is folded into the stem's weights and norm, exact
    as the stem pads nothing, so that the exported graph neither transposes nor scales the frame (a
    seventh of the detector's time at 1280x736)."""
    import torch
    from torch import nn

    net = copy.deepcopy(net)
    stem, norm = net.stem[0], net.stem[1]
    with torch.no_grad():
        norm.running_mean += 0.5 * stem.weight.sum(dim=(1, 2, 3))
        stem.weight *= net.scale

    class OnPlanes(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net.planes(x)

    return OnPlanes()


def load_shipped(net: nn.Module, path: Path) -> None:
    """``net`` (of ``build_net``'s shape) set to the weights of the exported model at ``path``.

    The export folds each batch norm into its convolution, and the frame's scaling into the stem's
    (:func:`_on_planes`): the stem's weights are scaled back; the norms are set to pass the folded
    bias through, a fixed shift, and must keep those statistics while training on from here
    (:func:`~models.train.freeze_norms`).  A model with fewer maps than ``OUTPUTS`` (one made before
    the index map) gives the head's first maps; the others start at nothing, even odds.
    """
    import onnx
    import torch
    from torch import nn

    layout = [d.dim_value or d.dim_param for d in onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim]
    if layout[1] != 3:
        raise ValueError(f"{path}: it takes the frame as {layout}, not as its three planes: a model of an earlier "
                         "version (train one anew)")
    folded = folded_weights(path)["Conv"]
    scale = float(net.scale)
    w, b = folded[0]    # the stem, which takes the frame's 0..255: back to the network's -0.5..0.5
    folded[0] = (w / scale, b + 0.5 * (w / scale).sum(axis=(1, 2, 3)))
    modules = list(net.modules())
    convs = [(m, modules[i + 1] if i + 1 < len(modules) and isinstance(modules[i + 1], nn.BatchNorm2d) else None)
             for i, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    head = convs[-1][0].weight.shape
    if (len(folded) != len(convs) or any(c.weight.shape != w.shape for (c, _), (w, _) in zip(convs[:-1], folded))
            or folded[-1][0].shape[0] > head[0] or folded[-1][0].shape[1:] != head[1:]):
        raise ValueError(f"{path}: its convolutions do not fit a network of these channels")
    with torch.no_grad():
        for (conv, norm), (w, b) in zip(convs, folded):
            if norm is None:   # the head: its first maps, the rest at nothing
                conv.weight.zero_()
                conv.bias.zero_()
                conv.weight[:len(w)] = torch.tensor(w)
                conv.bias[:len(b)] = torch.tensor(b)
                continue
            conv.weight.copy_(torch.tensor(w))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.tensor(b))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.requires_grad_(False)


def _room_light(x: torch.Tensor) -> torch.Tensor:
    """Windows ``(b, h, w, 3)`` BGR under a room's light, each its own: six in ten under a lamp's
    colour left uncorrected (from a north window's blue to a tungsten bulb's orange, red over blue
    up to 1.8), three in ten beside a lamp whose light falls with the distance to 35-70 %."""
    import torch

    b, h, w, _ = x.shape
    dev = x.device
    warmth = torch.empty(b, 1, 1, 1, device=dev).uniform_(-0.5, 1.0) * (torch.rand(b, 1, 1, 1, device=dev) < 0.6)
    x = x * torch.exp(warmth * torch.tensor([-0.45, -0.1, 0.15], device=dev))
    ys = torch.linspace(0, 1, h, device=dev)[None, :, None]
    xs = torch.linspace(0, 1, w, device=dev)[None, None, :]
    lamp = torch.rand(b, 2, device=dev) * 1.6 - 0.3   # inside the window or beyond its edge
    distance = torch.hypot(xs - lamp[:, 0, None, None], ys - lamp[:, 1, None, None])
    fall = torch.empty(b, 1, 1, device=dev).uniform_(0.3, 1.0)
    floor = torch.empty(b, 1, 1, device=dev).uniform_(0.35, 0.7)
    light = torch.maximum(1 - fall * distance, floor)
    light = torch.where((torch.rand(b, device=dev) < 0.3)[:, None, None], light, torch.ones_like(light))
    return (x * light[..., None]).clamp(0, 255)


def _channels(text: str) -> tuple[int, int, int]:
    parts = tuple(int(v) for v in text.split(","))
    if len(parts) != 3 or min(parts) < 4:
        raise argparse.ArgumentTypeError(f"three channel counts, comma-separated, not {text!r}")
    return parts


def options() -> argparse.ArgumentParser:
    """The command line's options (a test checks that ``make train`` passes only these)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=12000, help="training scenes (default 12000)")
    parser.add_argument("--held", type=int, default=800, help="held-out decks' scenes (default 800)")
    parser.add_argument("--epochs", type=int, default=24, help="default 24, the shipped run's")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--crop", type=int, default=192, help="training window, px square (default 192)")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="processes drawing the scenes (default 2)")
    parser.add_argument("--device", default="auto",
                        help="torch device to train on: cpu, cuda, cuda:1 ... (default: cuda where there is one)")
    parser.add_argument("--channels", type=_channels, default=(24, 48, 96))
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--room-light", action="store_true",
                        help="each window under a room's light too: a lamp's colour, a lamp to one side")
    parser.add_argument("--init", type=Path, default=None,
                        help="train on from this exported model's weights, batch norms frozen (default: from scratch)")
    parser.add_argument("--report", type=int, default=0, metavar="N",
                        help="also score 200 held-out scenes every N steps (default: after each epoch only)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = options().parse_args(argv)

    import torch

    device = torch.device(args.device if args.device != "auto" else "cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    names = [d.name for d in load_all()]
    train_names = [n for n in names if n not in HELD_OUT]
    held_names = [n for n in names if n in HELD_OUT]
    print(f"1/4 scenes: {args.scenes} from {len(train_names)} decks, {args.held} from {held_names}", flush=True)
    t0 = time.time()
    images, targets, unsure = scenes(train_names, args.scenes, seed=args.seed, workers=args.workers)
    held_images, held_targets, _ = scenes(held_names, args.held, seed=args.seed + 7, workers=args.workers)
    print(f"    {time.time() - t0:.0f} s; encoding targets", flush=True)
    maps = [encode(t, u, SCENE) for t, u in zip(targets, unsure)]
    heat = torch.from_numpy(np.stack([m[0] for m in maps]))
    weight = torch.from_numpy(np.stack([m[1] for m in maps]))
    reg = torch.from_numpy(np.stack([m[2] for m in maps]))
    x_all = torch.from_numpy(images)

    net = build_net(args.channels)
    if args.init is not None:
        load_shipped(net, args.init)
        print(f"    starting from {args.init}, batch norms frozen", flush=True)
    net = net.to(device)

    def train_mode() -> None:
        net.train()
        if args.init is not None:
            freeze_norms(net)   # the loaded norms keep the statistics the export folded

    params = sum(p.numel() for p in net.parameters())
    steps = args.epochs * (len(images) // args.batch)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    print(f"2/4 training on {device}: {params} parameters, {args.epochs} epochs of {len(images) // args.batch} steps",
          flush=True)
    for epoch in range(args.epochs):
        train_mode()
        order = torch.from_numpy(rng.permutation(len(images)))
        t1, total = time.time(), 0.0
        n_steps = len(images) // args.batch
        for k in range(n_steps):
            idx = order[k * args.batch:(k + 1) * args.batch]
            # A random window of each batch, on whole cells: the scenes are drawn once, the windows vary.
            cy, cx = (int(v) * STRIDE for v in rng.integers(0, (SCENE - args.crop) // STRIDE + 1, 2))
            g0y, g0x, g = cy // STRIDE, cx // STRIDE, args.crop // STRIDE
            x = x_all[idx, cy:cy + args.crop, cx:cx + args.crop].to(device).float()
            # The room's light (where asked), brightness and contrast on the fly: the scenes are drawn once.
            if args.room_light:
                x = _room_light(x)
            x = (x * torch.empty(len(idx), 1, 1, 1, device=device).uniform_(0.7, 1.3)
                 + torch.empty(len(idx), 1, 1, 1, device=device).uniform_(-30, 30)).clamp(0, 255)
            cells = (slice(g0y, g0y + g), slice(g0x, g0x + g))
            loss = loss_of(net(x), heat[idx][:, cells[0], cells[1]].to(device),
                           weight[idx][:, cells[0], cells[1]].to(device), reg[idx][:, :, cells[0], cells[1]].to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            if args.report and k % args.report == args.report - 1:
                s = score([decode(m) for m in predict(net, held_images[:200], batch=64)], held_targets[:200])
                print(f"\n    step {k + 1}: held-out decks (200 scenes) recall {s['recall']:.3f} "
                      f"precision {s['precision']:.3f}", file=sys.stderr, flush=True)
                train_mode()
            show_progress(epoch, args.epochs, k, n_steps, total / (k + 1), t1)
        print(file=sys.stderr)
        found = [decode(m) for m in predict(net, held_images, batch=64)]
        s = score(found, held_targets)
        print(f"3/4 epoch {epoch + 1}: loss {total / n_steps:.3f}; held-out decks recall {s['recall']:.3f} "
              f"precision {s['precision']:.3f} index told {s['index']:.3f} ({s['corners']} corners)", flush=True)
        export(net, args.output, SCENE)   # each epoch's weights, so that a stopped run leaves a model
    print(f"4/4 exported {args.output}", flush=True)
    print(f"    done in {(time.time() - t0) / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
