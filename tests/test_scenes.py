"""The detector's synthetic tables: what they label as a card's corner, and what they leave out.

Drawn from the demo's own card sheet (vision/assets), so no Debian deck is needed here."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.decks import Deck
from models.detector import encode
from models.scenes import SceneSynth, _seen, corner_pose, read_gimp_pattern
from vision.detector import STRIDE
from vision.render import card_face


def _deck() -> Deck:
    faces = {}
    for code in ("AS", "7H", "QD", "TC"):
        bgr = card_face(code)
        faces[code] = np.dstack([bgr, np.full(bgr.shape[:2], 255, np.uint8)])
    return Deck("demo", faces, None)


def test_scenes_label_each_visible_corner_and_draw_the_same_for_a_seed() -> None:
    a = SceneSynth([_deck()], seed=5)
    b = SceneSynth([_deck()], seed=5)
    for _ in range(6):
        image, targets, unsure = a.draw(192)
        again, targets_b, _ = b.draw(192)
        assert image.shape == (192, 192, 3) and image.dtype == np.uint8
        assert np.array_equal(image, again) and np.array_equal(targets, targets_b)
        assert np.all((targets[:, :2] >= 0) & (targets[:, :2] < 192))
        assert np.all(targets[:, 3] >= 10)   # too small a card is left out, not taught
        assert set(targets[:, 4].tolist()) <= {0.0, 1.0}   # an index corner or a plain one
        assert unsure.shape[1] == 3


def test_of_a_cards_four_corners_the_top_left_and_bottom_right_hold_its_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone upright card wholly in the picture: four targets, clockwise from its top-left, each
    pointing along the edge leaving it clockwise; the first and third are its index corners."""
    synth = SceneSynth([_deck()], seed=3)
    width = 60.0
    monkeypatch.setattr(synth, "_layout", lambda n, w: [np.array([[width / 250, 0, 50.0], [0, width / 250, 40.0], [0, 0, 1.0]])])
    monkeypatch.setattr(synth, "_camera", lambda n: np.eye(3))
    synth.rng = np.random.default_rng(11)   # a face-up card, no hand or chip over it
    for _ in range(20):
        _, targets, _ = synth.draw(192)
        if len(targets) == 4:
            break
    assert len(targets) == 4
    assert np.allclose(targets[:, :2], [(50, 40), (110, 40), (110, 124), (50, 124)], atol=0.5)
    assert np.allclose(np.degrees(targets[:, 2]) % 360, (0, 90, 180, 270), atol=0.5)
    assert targets[:, 4].tolist() == [1.0, 0.0, 1.0, 0.0]


def test_a_covered_corner_is_not_seen() -> None:
    card_to_image = np.array([[0.4, 0, 20], [0, 0.4, 30], [0, 0, 1.0]])
    owner = np.full((200, 200), -1, np.int32)
    x, y, angle, width = corner_pose(card_to_image)
    assert (round(x, 3), round(y, 3), angle, round(width, 6)) == (20.0, 30.0, 0.0, 100.0)
    assert _seen(card_to_image, owner, 3) == 0.0       # nothing of card 3 drawn there
    owner[:, :] = 3
    assert _seen(card_to_image, owner, 3) == 1.0
    owner[30:40, 20:60] = -2                            # a chip over the top of the corner
    assert 0.2 < _seen(card_to_image, owner, 3) < 0.8


def test_targets_encode_as_index_regions_that_vote_for_their_pose() -> None:
    """A corner whose clockwise edge points down the frame, of a card 64 px wide: the cells about it
    are corner cells, each pointing back to the corner and saying it holds an index; a plain corner's
    cells say it holds none; an unsure corner's cells weigh nothing."""
    targets = np.array([[41.5, 21.5, math.pi / 2, 64.0, 1.0], [81.5, 61.5, 0.0, 64.0, 0.0]], np.float32)
    unsure = np.array([[100.0, 100.0, 60.0]], np.float32)
    heat, weight, reg = encode(targets, unsure, 128)
    g = 128 // STRIDE
    assert heat.shape == weight.shape == (g, g) and reg.shape == (6, g, g)
    assert heat[5, 10] == heat[5, 11] == heat[6, 10] == 1.0
    assert heat[5, 13] == heat[8, 10] == 0.0
    assert np.allclose(reg[:, 5, 10], (0.0, 0.0, 0.0, 1.0, math.log(2.0), 1.0), atol=1e-6)
    assert reg[5, 15, 20] == 0.0
    assert np.allclose(reg[:2, 5, 11], (-1.0, 0.0), atol=1e-6)
    assert weight[24, 24] == 0.0 and weight[0, 0] == 1.0
    assert np.isnan(reg[0, 0, 0])


def test_gimp_patterns_are_read_and_anything_else_refused(tmp_path: Path) -> None:
    rgb = np.zeros((70, 80, 3), np.uint8)
    rgb[..., 0] = 200   # red
    name = b"test\0"
    header = struct.pack(">5I", 24 + len(name), 1, 80, 70, 3) + b"GPAT" + name
    (tmp_path / "red.pat").write_bytes(header + rgb.tobytes())
    image = read_gimp_pattern(tmp_path / "red.pat")
    assert image is not None and image.shape == (70, 80, 3) and tuple(image[0, 0]) == (0, 0, 200)
    (tmp_path / "junk.pat").write_bytes(b"GPAT" * 10)
    assert read_gimp_pattern(tmp_path / "junk.pat") is None
    _, png = cv2.imencode(".png", rgb)
    (tmp_path / "png.pat").write_bytes(png.tobytes())
    assert read_gimp_pattern(tmp_path / "png.pat") is None


@pytest.mark.slow
def test_a_training_step_and_the_export_run_on_the_device_given(tmp_path: Path) -> None:
    """One step on ``cpu`` (the device the trainer's ``--device`` names), then the export: onnxruntime
    runs the exported file as ``vision.detector`` does, without touching the net being trained.
    (Needs the training extra: skipped without torch and onnx.)"""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.detector import SCENE, build_net, encode, export, loss_of
    from vision.detector import CardDetector

    device = torch.device("cpu")
    net = build_net((8, 16, 24)).to(device)
    heat, weight, reg = (torch.from_numpy(m)[None].to(device)
                         for m in encode(np.array([[40.0, 50.0, 0.3, 64.0, 1.0]]), np.zeros((0, 3)), SCENE))
    x = torch.rand(1, SCENE, SCENE, 3, device=device) * 255
    loss = loss_of(net(x), heat, weight, reg)
    loss.backward()
    assert torch.isfinite(loss) and net.training
    export(net, tmp_path / "detector.onnx", 64)
    assert net.training and next(net.parameters()).device == device
    frame = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    assert isinstance(CardDetector(tmp_path / "detector.onnx", threshold=0.5).find(frame), list)


def test_an_exported_detector_trains_on_from_its_own_weights(tmp_path: Path) -> None:
    """``--init``: the exported model, batch norms folded in, loads back into the network and gives
    the same maps; frozen norms stay as loaded while it trains; another width is refused.
    (Needs the training extra.)"""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models.detector import build_net, export, load_shipped
    from models.train import freeze_norms

    torch.manual_seed(0)
    trained = build_net((8, 16, 24))
    with torch.no_grad():   # norms that are not the identity, as after training
        for m in trained.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    trained.eval()
    export(trained, tmp_path / "detector.onnx", 64)
    net = build_net((8, 16, 24))
    load_shipped(net, tmp_path / "detector.onnx")
    x = torch.rand(1, 64, 96, 3) * 255
    with torch.no_grad():
        assert torch.allclose(net.eval()(x), trained(x), atol=1e-4)
    net.train()
    freeze_norms(net)
    norm = next(m for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d))
    before = norm.running_mean.clone()
    net(x).sum().backward()
    assert net.training and not norm.training and torch.equal(norm.running_mean, before) and norm.weight.grad is None
    with pytest.raises(ValueError, match="do not fit"):
        load_shipped(build_net((8, 16, 32)), tmp_path / "detector.onnx")


def test_a_rooms_light_tints_and_shades_windows_each_its_own_way() -> None:
    """``--room-light``: a lamp's colour shifts red against blue, a lamp to one side darkens one part of
    a window more than another; values stay 0..255. (Needs the training extra.)"""
    torch = pytest.importorskip("torch")
    from models.detector import _room_light

    torch.manual_seed(0)
    x = torch.full((400, 32, 32, 3), 200.0)
    lit = _room_light(x)
    assert lit.shape == x.shape and float(lit.min()) >= 0 and float(lit.max()) <= 255
    red_over_blue = lit[..., 2].mean(dim=(1, 2)) / lit[..., 0].mean(dim=(1, 2))
    assert float(red_over_blue.max()) > 1.5 and float(red_over_blue.min()) < 0.95
    assert (red_over_blue - 1).abs().lt(1e-6).float().mean().item() > 0.25   # four in ten keep their colour
    spread = lit.amax(dim=(1, 2, 3)) / lit.amin(dim=(1, 2, 3)).clamp(min=1)
    assert 0.15 < (spread > 1.3).float().mean().item() < 0.5


def test_a_detector_exported_pixel_by_pixel_is_not_trained_on(tmp_path: Path) -> None:
    """``--init`` from a model that takes the frame as height x width x 3 (an earlier version's): its
    stem's weights mean something else, so it is refused, not loaded askew.  (Needs the training extra.)"""
    pytest.importorskip("torch")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from models.detector import build_net, load_shipped

    graph = helper.make_graph(
        [helper.make_node("Transpose", ["frame"], ["maps"], perm=[0, 3, 1, 2])], "pixels",
        [helper.make_tensor_value_info("frame", TensorProto.FLOAT, [1, "h", "w", 3])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 3, "h", "w"])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(tmp_path / "pixels.onnx"))
    with pytest.raises(ValueError, match="earlier version"):
        load_shipped(build_net((8, 16, 24)), tmp_path / "pixels.onnx")


def test_a_detector_made_before_the_index_map_trains_on_with_its_maps_and_even_odds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--init`` from a model of six maps: those six come back as they were, and the index map starts
    at even odds everywhere.  (Needs the training extra.)"""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import models.detector
    from models.detector import build_net, export, load_shipped

    torch.manual_seed(0)
    with monkeypatch.context() as m:
        m.setattr(models.detector, "OUTPUTS", 6)
        before = build_net((8, 16, 24))
        with torch.no_grad():   # norms that are not the identity, as after training
            for norm in (n for n in before.modules() if isinstance(n, torch.nn.BatchNorm2d)):
                norm.running_var.uniform_(0.5, 2.0)
                norm.bias.uniform_(-0.2, 0.2)
        export(before.eval(), tmp_path / "six.onnx", 64)
    net = build_net((8, 16, 24))
    load_shipped(net, tmp_path / "six.onnx")
    x = torch.rand(1, 64, 96, 3) * 255
    with torch.no_grad():
        got, want = net.eval()(x), before(x)
    assert got.shape[1] == 7 and want.shape[1] == 6
    assert torch.allclose(got[:, :6], want, atol=1e-4) and torch.allclose(got[:, 6], torch.full_like(got[:, 6], 0.5))
