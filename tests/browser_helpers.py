"""What the tests of the pages in a real Chromium share: the app under waitress, the browser, a page
that records its script errors, and signing in as the referee.

tests/conftest.py loads the fixtures as a plugin; importing this module skips the modules that do
where Chromium is not installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import pytest

from companion.table import Table
from server_helpers import InThread, closing
from web.app import create_app, stream_hub
from web.camera import MemoryCameraView
from web.config import WebConfig

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (the Makefile installs it: apt-get install chromium)", allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

PIN = "1357"
SHOTS = Path(__file__).parent / "screenshots"
GAME: dict[str, Any] = {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy", "Dora"], "chips": 100}


class Server:
    """The app under waitress in a background thread, as ``companion web`` runs it."""

    def __init__(self, table: Table, port: int = 0, camera: MemoryCameraView | None = None) -> None:
        from waitress import create_server

        self.app = create_app(table, config=WebConfig(pin=PIN), camera=camera, heartbeat_s=15.0)
        self.server = create_server(self.app, host="127.0.0.1", port=port, threads=8)
        self.port = self.server.effective_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.loop = InThread(self.server)

    def stop(self) -> None:
        stream_hub(self.app).stop()
        self.loop.stop(closing(self.server))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        yield browser
        browser.close()


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table.open(tmp_path / "game.sqlite")


@pytest.fixture
def server(table: Table) -> Iterator[Server]:
    s = Server(table)
    yield s
    s.stop()


def page_of(browser: Browser, width: int = 1280, height: int = 800, locale: str = "en-GB") -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    _errors[page] = errors
    return page


_errors: WeakKeyDictionary[Page, list[str]] = WeakKeyDictionary()


def page_errors(page: Page) -> list[str]:
    """The script errors and Content Security Policy refusals of a page from :func:`page_of`, so far."""
    return _errors[page]


def sign_in(page: Page, url: str) -> None:
    page.goto(url + "/referee/login")
    page.fill('input[name="pin"]', PIN)
    page.click('button[type="submit"]')
    page.wait_for_url("**/referee")
