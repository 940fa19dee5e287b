"""What the players see at the table, in a real Chromium: the end of the game at the three screen
sizes, the camera's state, the camera page's labels, and pages that show no internal numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from browser_helpers import GAME, PIN, SHOTS, Server, page_errors, page_of, sign_in
from companion.app.simulate import SimulatedTable
from companion.table import Table
from web.camera import MemoryCameraView
from web.i18n import Catalog

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parent.parent / "companion" / "examples"
SIZES = [(1280, 800), (800, 1280), (390, 844)]
NINE = ["Ann", "Bob", "Cy", "Dora", "Eli", "Fay", "Gus", "Hal", "Ida"]


def inside(page: Any, selector: str) -> list[str]:
    """The elements matching ``selector`` that are not wholly on the screen (cut off, or beyond an edge)."""
    return page.evaluate("""(selector) => [...document.querySelectorAll(selector)].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width === 0 || r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5;
    }).map((e) => e.textContent)""", selector)


def game_over(table: Table, players: list[str], variant: str = "michigan-1939") -> dict[str, Any]:
    sim = SimulatedTable(variant, players, seed=9)
    table.replace_from_jsonl("".join(__import__("json").dumps(e) + "\n" for e in sim.play(hands=1, showdown=True)))
    return table.view()


@pytest.mark.parametrize("players", [4, 9])
def test_the_end_of_the_game_shows_standings_and_settlement_whole_at_every_size(browser, server, table, players):
    view = game_over(table, NINE[:players])
    final = view["final"]
    assert view["over"] and final["settlement"]
    page = page_of(browser, *SIZES[0])
    page.goto(server.url + "/")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        assert page.locator("#banner").inner_text() == "Game over"
        rows = page.locator("#final tbody tr")
        assert rows.count() == players
        assert rows.first.locator("td.name").inner_text() == final["standings"][0]["name"]
        assert page.locator("#settlement li").count() == len(final["settlement"])
        assert page.locator("#wheel").is_hidden() and page.locator("#players").is_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if players == 4 or height >= 800:
            assert inside(page, "#final tr, #settlement h2, #settlement li, #banner") == [], (width, height)
        else:  # a phone scrolls to the rest; nothing may be cut off on the way
            assert page.evaluate("document.documentElement.scrollHeight") > height
            page.locator("#settlement li").last.scroll_into_view_if_needed()
            assert inside(page, "#settlement li:last-child") == []
        page.screenshot(path=str(SHOTS / f"over-{players}-{width}x{height}.png"))
    assert page_errors(page) == []


def test_the_shipped_records_end_as_over_on_the_scoreboard(browser, server, table):
    """``companion web --record companion/examples/...``: each variant's example is a finished game."""
    page = page_of(browser)
    for record in sorted(EXAMPLES.glob("*.jsonl")):
        table.replace_from_jsonl(record.read_text())
        page.goto(server.url + "/")
        assert page.locator("#banner").inner_text() == "Game over", record.name
        assert page.locator("#final tbody tr").count() == 4
    assert page_errors(page) == []


@pytest.mark.parametrize("lang", ["en", "ko", "fr", "de"])
def test_the_end_of_the_game_in_every_language(browser, server, table, lang):
    game_over(table, NINE[:4])
    page = page_of(browser)
    page.goto(server.url + f"/lang/{lang}?next=/")
    ui = Catalog.load(lang).data["ui"]
    assert page.locator("#final h2").text_content() == ui["final_standings"]
    assert page.locator("#final th").all_text_contents() == [ui["place"], ui["player"], ui["balance"], ui["net"]]
    assert page.locator("#settlement h2").text_content() == ui["settle_up"]


# ---- the camera's state --------------------------------------------------------------------------


def test_the_scoreboard_says_when_the_camera_has_no_picture_or_has_lost_the_table(browser, server, table):
    table.submit(GAME)
    page = page_of(browser)
    page.goto(server.url + "/")
    expect(page.locator("#camera-state")).to_be_hidden()  # a table with no camera says nothing of one
    ui = Catalog.load("en").data["ui"]
    for state in ("no-picture", "lost"):
        table.set_camera(state)
        expect(page.locator("#camera-alert strong")).to_have_text(ui[f"camera_{state}"])
        expect(page.locator("#camera-alert")).to_be_visible()
        expect(page.locator("#camera-state")).to_have_text(ui[f"camera_{state}"])
        page.screenshot(path=str(SHOTS / f"scoreboard-camera-{state}.png"))
    table.set_camera("reading")
    expect(page.locator("#camera-alert")).to_be_hidden()
    expect(page.locator("#camera-state")).to_have_text(ui["camera_reading"])
    assert page_errors(page) == []


def rendered_table() -> tuple[bytes, list[Any]]:
    """A demo-like frame: a run of overlapping cards in a row, and two lying on one another."""
    import cv2

    from vision.detection import Detection
    from vision.render import PlacedCard, render_scene

    codes = ["9C", "TC", "JC", "QC", "KC", "AC", "2H", "3H", "4H", "5H"]
    cards = [PlacedCard(c, (150 + i * 47, 220), 0, 85) for i, c in enumerate(codes)]
    cards += [PlacedCard("7D", (900, 500), 10, 85), PlacedCard("8D", (906, 504), 12, 85)]
    image, outlines = render_scene(cards, size=(1280, 720), background="wood", seed=1)
    detections = [Detection(c.code, 0.9 - 0.01 * i, o) for i, (c, o) in enumerate(zip(cards, outlines))]
    return cv2.imencode(".jpg", image)[1].tobytes(), detections


def test_camera_labels_never_overlap_and_every_card_is_listed_beside_the_picture(browser, table):
    jpeg, detections = rendered_table()
    camera = MemoryCameraView(jpeg=jpeg, size=(1280, 720), detections=detections)
    table.submit(GAME)
    server = Server(table, camera=camera)
    try:
        page = page_of(browser)
        sign_in(page, server.url)
        page.goto(server.url + "/camera")
        expect(page.locator("#overlay .det")).to_have_count(len(detections))
        expect(page.locator("#seen li")).to_have_count(len(detections))
        boxes = page.evaluate("""() => [...document.querySelectorAll("#overlay .det-label")].map((t) => {
            const r = t.getBoundingClientRect();
            const card = document.querySelector(`#overlay .det[data-card="${t.dataset.card}"]`).getBoundingClientRect();
            return {l: r.left, t: r.top, r: r.right, b: r.bottom, card: [card.left, card.top, card.right, card.bottom]};
        })""")
        assert len(boxes) >= 6  # the row keeps a name on every other card at least
        for i, a in enumerate(boxes):
            assert a["l"] >= a["card"][0] and a["r"] <= a["card"][2] and a["t"] >= a["card"][1] and a["b"] <= a["card"][3]
            for b in boxes[i + 1:]:
                assert a["r"] <= b["l"] or b["r"] <= a["l"] or a["b"] <= b["t"] or b["b"] <= a["t"], (a, b)
        item = page.locator('#seen li[data-card="3"]')
        assert "Queen of clubs" in item.inner_text()
        item.hover()
        expect(page.locator('#overlay .det[data-card="3"]')).to_have_class("det hot")
        page.screenshot(path=str(SHOTS / "camera-labels-1280x800.png"))
        assert page_errors(page) == []
    finally:
        server.stop()


def test_no_picture_is_a_placeholder_and_the_cameras_state(browser, table):
    table.submit(GAME)
    table.set_camera("no-picture")
    server = Server(table, camera=MemoryCameraView())
    try:
        page = page_of(browser, 390, 844)
        sign_in(page, server.url)
        page.goto(server.url + "/camera")
        expect(page.locator("#no-frame")).to_be_visible()
        expect(page.locator("#frame")).to_be_hidden()  # never the broken-image icon
        expect(page.locator("#camera-state")).to_have_text(Catalog.load("en").data["ui"]["camera_no-picture"])
        expect(page.locator("#seen li")).to_have_text([Catalog.load("en").data["ui"]["no_cards_seen"]])
        page.screenshot(path=str(SHOTS / "camera-no-picture-390x844.png"), full_page=True)
        assert page_errors(page) == []
    finally:
        server.stop()


# ---- no internal numbers, whole backgrounds -------------------------------------------------------


def test_the_referee_page_shows_no_event_number_and_numbers_no_log_line(browser, server, table):
    view = game_over(table, NINE[:4])
    page = page_of(browser)
    sign_in(page, server.url)
    expect(page.locator("#ref-log li").first).to_be_visible()
    text = page.locator("body").inner_text()
    assert str(view["version"]) not in text and str(view["version"])[:6] not in text
    markers = page.eval_on_selector_all("#ref-log li", "ls => ls.map((l) => getComputedStyle(l).listStyleType)")
    assert markers and not any(m in ("decimal", "decimal-leading-zero") for m in markers)


@pytest.mark.parametrize("path", ["/referee/login", "/"])
def test_the_background_has_no_edge_on_a_tall_page(browser, server, table, path):
    """The felt runs down the whole page: the colour just below the content is the colour just above it."""
    import cv2
    import numpy as np

    table.submit(GAME)
    page = page_of(browser, 390, 1800)
    page.goto(server.url + path)
    bottom = int(page.evaluate("Math.ceil(document.body.getBoundingClientRect().bottom)"))
    image = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    shot = image.astype(int)
    if bottom + 3 >= shot.shape[0]:
        pytest.skip("the content fills this page")
    above, below = shot[bottom - 3, 5], shot[bottom + 3, 5]
    assert np.abs(above - below).max() <= 6, (bottom, above, below)


# ---- joining from a tablet -------------------------------------------------------------------------


class NetworkServer(Server):
    """The app configured for the whole network (``host = "0.0.0.0"``), listening here on 127.0.0.1 only."""

    def __init__(self, table: Table) -> None:
        from waitress import create_server

        from server_helpers import InThread
        from web.app import create_app
        from web.config import WebConfig

        self.app = create_app(table, config=WebConfig(pin=PIN, host="0.0.0.0", port=8080))
        self.server = create_server(self.app, host="127.0.0.1", port=0, threads=8)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"
        self.loop = InThread(self.server)


def test_the_referee_page_shows_the_scoreboards_address_as_a_code_that_decodes(browser, table):
    import cv2
    import numpy as np

    from web.join import scoreboard_url

    table.submit(GAME)
    server = NetworkServer(table)
    try:
        page = page_of(browser, 800, 1280)
        sign_in(page, server.url)
        code = page.locator("#join img.join-qr")
        expect(code).to_be_visible()
        shot = cv2.imdecode(np.frombuffer(code.screenshot(), np.uint8), cv2.IMREAD_COLOR)
        assert shot is not None
        decoded, _, _ = cv2.QRCodeDetector().detectAndDecode(shot)
        assert decoded == scoreboard_url("0.0.0.0", 8080)
        expect(page.locator("#join a")).to_have_text(decoded)
        page.locator("#join").screenshot(path=str(SHOTS / "referee-join.png"))
        assert page_errors(page) == []
    finally:
        server.stop()


def test_a_server_for_this_machine_only_says_so_on_the_referee_page(browser, server, table):
    table.submit(GAME)
    page = page_of(browser)
    sign_in(page, server.url)
    expect(page.locator("#join img")).to_have_count(0)
    expect(page.locator("#join p")).to_contain_text(Catalog.load("en").data["ui"]["join_local_only"])
