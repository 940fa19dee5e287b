"""What the players see at the table, in a real Chromium: the end of the game at the three screen
sizes, the camera's state, the camera page's labels, and pages that show no internal numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.simulate import SimulatedTable
from companion.table import Table
from web.i18n import Catalog
from test_web_browser import PIN, SHOTS, Server, browser, page_of, server, table  # noqa: F401  (fixtures)

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
    assert page.errors == []


def test_the_shipped_records_end_as_over_on_the_scoreboard(browser, server, table):
    """``companion web --record companion/examples/...``: each variant's example is a finished game."""
    page = page_of(browser)
    for record in sorted(EXAMPLES.glob("*.jsonl")):
        table.replace_from_jsonl(record.read_text())
        page.goto(server.url + "/")
        assert page.locator("#banner").inner_text() == "Game over", record.name
        assert page.locator("#final tbody tr").count() == 4
    assert page.errors == []


@pytest.mark.parametrize("lang", ["en", "ko", "fr", "de"])
def test_the_end_of_the_game_in_every_language(browser, server, table, lang):
    game_over(table, NINE[:4])
    page = page_of(browser)
    page.goto(server.url + f"/lang/{lang}?next=/")
    ui = Catalog.load(lang).data["ui"]
    assert page.locator("#final h2").text_content() == ui["final_standings"]
    assert page.locator("#final th").all_text_contents() == [ui["place"], ui["player"], ui["balance"], ui["net"]]
    assert page.locator("#settlement h2").text_content() == ui["settle_up"]
