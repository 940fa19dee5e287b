"""The pages in a real Chromium (Playwright), against waitress on 127.0.0.1.

Screenshots of the scoreboard land in tests/screenshots/ (git-ignored) for
people to look at.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from browser_helpers import CHROMIUM, GAME, PIN, SHOTS, Server, page_errors, page_of, sign_in
from web.camera import MemoryCameraView

pytestmark = pytest.mark.browser

HAND = [
    {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"},
    {"type": "bet", "player": "Ann", "chips": 2}, {"type": "bet", "player": "Bob", "chips": 3},
    {"type": "fold", "player": "Cy"}, {"type": "bet", "player": "Dora", "chips": 3},
    {"type": "show", "player": "Ann", "cards": ["9S", "9H", "4C", "4D", "KS"]},
    {"type": "show", "player": "Bob", "cards": ["2C", "3C", "4H", "5S", "6D"]},
    {"type": "show", "player": "Dora", "cards": ["2D", "2S", "8C", "JD", "3H"]},
    {"type": "next"},
    {"type": "play", "player": "Ann", "card": "5H"}, {"type": "play", "player": "Cy", "card": "6H"},
    {"type": "play", "player": "Cy", "card": "7H"}, {"type": "play", "player": "Bob", "card": "8H"},
    {"type": "play", "player": "Ann", "card": "9H"}, {"type": "play", "player": "Cy", "card": "TH"},
    {"type": "play", "player": "Dora", "card": "JH"}, {"type": "play", "player": "Ann", "card": "QH"},
    {"type": "play", "player": "Ann", "card": "KH"}, {"type": "play", "player": "Cy", "card": "AH"},
    {"type": "play", "player": "Cy", "card": "4S"},
]


def balance(page: Page, name: str):
    return page.locator(f'#players tr[data-player="{name}"] td.balance')


def test_the_scoreboard_updates_live_within_a_second(browser, server, table):
    table.submit(GAME)
    table.submit(HAND[0])
    page = page_of(browser)
    page.goto(server.url + "/")
    expect(page.locator("#conn.on")).to_be_visible(timeout=5000)
    start = table.view()["balances"]["Ann"]
    expect(balance(page, "Ann")).to_have_text(str(start))
    table.submit(HAND[1])
    table.submit(HAND[2])  # Ann bets 2
    expect(balance(page, "Ann")).to_have_text(str(start - 2), timeout=1000)
    expect(page.locator("#log li.newest")).to_have_text("Ann bets 2 chips", timeout=1000)
    expect(page.locator('#wheel [data-section="poker"] .sec-chips')).to_have_text(str(table.view()["board"]["poker"]))
    assert page_errors(page) == []


def test_the_scoreboard_comes_back_after_a_server_restart(browser, table):
    table.submit(GAME)
    first = Server(table)
    page = page_of(browser)
    page.goto(first.url + "/")
    expect(page.locator("#conn.on")).to_be_visible(timeout=5000)
    first.stop()
    expect(page.locator("#conn.off")).to_be_visible(timeout=5000)
    second = None
    for _ in range(50):  # the port may linger a moment
        try:
            second = Server(table, port=first.port)
            break
        except OSError:
            time.sleep(0.1)
    assert second is not None
    try:
        table.submit(HAND[0])
        expect(balance(page, "Ann")).to_have_text(str(table.view()["balances"]["Ann"]), timeout=8000)
        expect(page.locator("#conn.on")).to_be_visible(timeout=8000)
    finally:
        second.stop()


def test_the_referee_starts_a_game_plays_and_undoes(browser, server, table):
    page = page_of(browser)
    page.goto(server.url + "/referee")
    page.fill('input[name="pin"]', "0000")
    page.click('button[type="submit"]')
    expect(page.locator(".message.error")).to_contain_text("Wrong PIN")
    page.fill('input[name="pin"]', PIN)
    page.click('button[type="submit"]')
    page.wait_for_url("**/referee")

    form = page.locator("#new-game")
    form.locator('select[name="variant"]').select_option("michigan-1939")
    form.locator('textarea[name="players"]').fill("Ann\nBob\nCy")
    form.locator('input[name="chips"]').fill("50")
    form.locator('select[name="card_penalty"]').select_option("false")
    form.locator('button[type="submit"]').click()
    expect(page.locator("#message.ok")).to_be_visible()
    assert [p["name"] for p in table.view()["players"]] == ["Ann", "Bob", "Cy"]

    page.locator("#deal-form select").select_option("Ann")
    page.locator("#deal-form button").click()
    expect(page.locator("#ref-status")).to_contain_text("Ann")
    page.click('form[data-type="widow"] button[value="keep"]')
    page.click('button[data-simple="next"]')
    expect(page.locator("#ref-status")).to_contain_text("Run")

    play = page.locator("#play-form")
    play.locator("select").select_option("Bob")
    play.locator('input[name="card"]').fill("5h")
    play.locator("button").click()
    expect(page.locator("#message.error")).to_be_visible()  # the dealer leads: the engine's reason shows
    assert table.view()["run"]["last_card"] is None

    play.locator("select").select_option("Ann")
    play.locator('input[name="card"]').fill("5h")
    play.locator("button").click()
    expect(page.locator("#ref-log li").first).to_have_text("Ann plays Five of hearts")
    assert table.view()["run"]["last_card"] == "5H"

    chips = page.locator('form[data-type="bet"] input[name="chips"]')
    chips.fill("2.5")
    page.locator('form[data-type="bet"] select').select_option("Bob")
    page.locator('form[data-type="bet"] button').click()
    assert table.view()["run"]["last_card"] == "5H"  # the browser itself refused 2.5 chips

    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "referee-1280x800-en.png"), full_page=True)
    page.click("#undo")
    expect(page.locator("#ref-log li").first).not_to_have_text("Ann plays Five of hearts")
    assert table.view()["run"]["last_card"] is None
    assert page_errors(page) == []


@pytest.mark.parametrize("locale, sizes", [
    ("en-GB", [(1280, 800), (800, 1280), (390, 844)]),
    ("fr-FR", [(1280, 800)]),
    ("ko-KR", [(1280, 800)]),
])
def test_scoreboard_screenshots(browser, server, table, locale, sizes):
    table.submit(GAME)
    for event in HAND:
        table.submit(event)
    width, height = sizes[0]
    page = page_of(browser, width, height, locale=locale)
    page.goto(server.url + "/")
    expect(page.locator("#conn.on")).to_be_visible(timeout=5000)
    newest = {"en-GB": "Cy plays Four of spades", "fr-FR": "Cy joue : quatre de pique", "ko-KR": "Cy: 스페이드 4"}[locale]
    expect(page.locator("#log li.newest")).to_have_text(newest)
    SHOTS.mkdir(exist_ok=True)
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing wider than the screen
        page.screenshot(path=str(SHOTS / f"scoreboard-{width}x{height}-{locale[:2]}.png"), full_page=True)
    assert page_errors(page) == []


def test_seat_zones_are_dragged_and_saved(browser, table):
    import cv2
    import numpy as np

    from vision.detection import Detection

    frame = np.full((480, 640, 3), (40, 110, 60), np.uint8)
    cv2.rectangle(frame, (300, 200), (360, 290), (250, 250, 250), -1)
    jpeg = cv2.imencode(".jpg", frame)[1].tobytes()
    outline = np.array([[300, 200], [360, 200], [360, 290], [300, 290]], np.float32)
    camera = MemoryCameraView(jpeg=jpeg, size=(640, 480), detections=[Detection("QS", 0.9, outline)],
                              zones={"Ann": [[0, 0], [200, 0], [200, 150], [0, 150]]})
    table.submit(GAME)
    server = Server(table, camera=camera)
    try:
        page = page_of(browser)
        sign_in(page, server.url)
        page.goto(server.url + "/camera")
        expect(page.locator("#overlay .det")).to_have_count(1)
        expect(page.locator("#overlay .corner")).to_have_count(4)
        page.fill('#add-zone input[name="name"]', "Bob")
        page.click("#add-zone button")
        expect(page.locator("#overlay .zone")).to_have_count(2)
        corner = page.locator('#overlay .corner[data-zone="Bob"][data-corner="2"]')
        box = corner.bounding_box()
        stage = page.locator("#overlay").bounding_box()
        assert box is not None and stage is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        target = (stage["x"] + stage["width"] * 0.75, stage["y"] + stage["height"] * 0.6)  # (480, 288) in the frame
        page.mouse.move(*target, steps=5)
        page.mouse.up()
        page.click("#save-zones")
        expect(page.locator("#message.ok")).to_be_visible()
        zones = camera.zones()
        assert set(zones) == {"Ann", "Bob"} and zones["Ann"][2] == [200.0, 150.0]
        x, y = zones["Bob"][2]
        assert abs(x - 480) < 4 and abs(y - 288) < 4, zones["Bob"]
        SHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SHOTS / "camera-1280x800-en.png"), full_page=True)
        assert page_errors(page) == []
    finally:
        server.stop()


@pytest.mark.parametrize("variant", ["bonanza", "tripoley"])
def test_every_variants_wheel_shows_every_section(browser, server, table, variant):
    table.submit({**GAME, "variant": variant})
    table.submit({"type": "deal", "dealer": "Bob"})
    page = page_of(browser)
    page.goto(server.url + "/")
    view = table.view()
    for section in view["sections"]:
        name = section["name"]
        chips = page.locator(f'#wheel [data-section="{name}"] .sec-chips')
        expect(chips).to_have_text(str(section["chips"]))
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"scoreboard-1280x800-en-{variant}.png"))
    assert page_errors(page) == []


def test_the_scoreboard_draws_every_part_of_the_view(browser, server, table):
    """Settlement, notice, pending reads, poker bets, widow bids and the end, as the engine reports them."""
    table.submit(GAME)
    table.submit(HAND[0])
    page = page_of(browser, locale="de-DE")
    page.goto(server.url + "/")
    expect(page.locator("#conn.on")).to_be_visible(timeout=5000)
    view = table.view()
    view.update(
        version=view["version"] + 100, call="QS-JD", out="Bob",
        settlement=[{"from": "Cy", "to": "Bob", "chips": 3}, {"from": "Ann", "to": "Bob", "chips": 1}],
        notice={"kind": "rejected", "text": "Bob cannot play 9H: the run expects 7H", "player": "Bob", "card": "9H"},
        poker={"section": "poker", "bets": {"Ann": 2, "Dora": 4}, "folded": ["Cy"], "shown": {}},
        widow={"bids": [{"player": "Dora", "chips": 3}]},
        won=[{"section": "KC", "player": "Bob", "chips": 14}],
        flags=[{"line": 12, "kind": "not-lowest", "players": ["Ann"], "cards": ["5H", "3H"]},
               {"line": 15, "kind": "withheld", "players": ["Cy"], "cards": ["7S"]}],
        expect=[{"kind": "next_card", "card": "5D", "headline": True, "text": "Next: 5♦"},
                {"kind": "reopen-other-suit", "players": ["Cy"], "headline": True, "text": "Cy reopens in another suit"},
                {"kind": "pass", "player": "Cy", "headline": False, "text": "Cy may pass"}],
    )
    page.evaluate("view => render(view)", view)
    expect(page.locator("#expect")).to_have_text("Als Nächstes: Karo-Fünf, oder Cy eröffnet in einer anderen Farbe neu")
    expect(page.locator("#settlement")).to_contain_text("Cy zahlt Bob 3 Chips")
    expect(page.locator("#settlement")).to_contain_text("Ann zahlt Bob 1 Chip")
    expect(page.locator("#notice")).to_contain_text("Bob cannot play 9H")
    expect(page.locator("#banner")).to_have_text("Bob ist draußen!")
    expect(page.locator("#status .call")).to_contain_text("Dame-Bube")
    expect(page.locator("#extra")).to_contain_text("Dora 4")
    expect(page.locator("#extra")).to_contain_text("Dora 3")
    expect(page.locator('#players tr[data-player="Cy"] .badge.folded')).to_be_visible()
    expect(page.locator('#wheel .section.won[data-section="KC"]')).to_have_count(1)
    expect(page.locator("#flags li").first).to_have_text("\u2691 Cy hielt Pik-Sieben zurück (als Stopper übergangen)")
    expect(page.locator("#flags li").nth(1)).to_contain_text("Ann eröffnete mit Herz-Fünf, hatte aber die niedrigere Herz-Drei")
    view.update(version=view["version"] + 1, over=True, out=None, notice=None)
    page.evaluate("view => render(view)", view)
    expect(page.locator("#banner")).to_have_text("Spiel beendet")
    expect(page.locator("#expect")).to_be_hidden()
    expect(page.locator("#notice")).to_be_hidden()
    assert page_errors(page) == []


def test_the_page_scripts_word_cards_and_log_as_web_i18n_does(browser, server):
    """The scoreboard words things in the browser; web/i18n.py is the reference for the same catalogs."""
    from web.i18n import LANGUAGES, Catalog

    entries: list[dict[str, Any]] = [
        {"kind": "deal", "player": "Ann", "text": "Ann deals (hand 1)"},
        {"kind": "widow", "action": "sell", "text": "Nobody bids: the widow is dead"},
        {"kind": "widow", "player": "Bob", "chips": 3, "action": "sell", "text": "Bob buys the widow from Ann for 3"},
        {"kind": "widow", "player": "Ann", "action": "keep", "text": "Ann keeps his hand"},
        {"kind": "show", "player": "Ann", "cards": ["9S", "TH", "JK"], "text": "Ann shows 9S TH JK"},
        {"kind": "win", "player": "Bob", "section": "QH-KH", "chips": 1, "text": "Bob takes 1 from QH-KH"},
        {"kind": "penalty", "player": "Cy", "to": "Bob", "chips": 0, "text": "Cy pays Bob 0"},
        {"kind": "end", "reason": "nobody could reopen", "text": "The hand ends: nobody could reopen"},
        {"kind": "play", "player": "Bob", "card": 7, "text": "Bob plays ?"},
    ]
    page = page_of(browser)
    for code in LANGUAGES:
        page.goto(f"{server.url}/lang/{code}?next=/referee/login")
        catalog = Catalog.load(code)
        worded = page.evaluate("entries => entries.map(describe)", entries)
        assert worded == [catalog.describe(e) for e in entries], code
        cards = ["QS", "TD", "AH", "2C", "JK"]
        assert page.evaluate("codes => codes.map(cardName)", cards) == [catalog.card_name(c) for c in cards]


def test_the_referee_lays_the_joker_aside_without_typing_it(browser, server, table):
    table.submit({**GAME, "variant": "bonanza"})
    for event in [{"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}] + [{"type": "next"}] * 5:
        table.submit(event)
    assert table.view()["phase"] == "run"
    page = page_of(browser)
    sign_in(page, server.url)
    form = page.locator('form[data-type="show"]')
    form.locator("select").select_option("Bob")
    form.locator('button[value="discard"]').click()
    expect(page.locator("#ref-log li").first).to_have_text("Bob lays the Joker aside")
    assert table.view()["log"][-1]["kind"] == "discard"
    form.locator("select").select_option("Cy")
    form.locator('input[name="cards"]').fill("QS 1X")
    form.locator('button[value="show"]').click()
    expect(page.locator("#message.error")).to_have_text("Enter one or more card codes such as QS JD.")


def test_a_slow_answer_neither_covers_the_next_refusal_nor_clears_what_was_typed_since(browser, server, table):
    """A tablet on a slow network: the answer to laying the Joker aside arrives after the referee has typed
    the next show and been refused it.  The refusal stays in sight, and the cards typed stay in the box."""
    table.submit({**GAME, "variant": "bonanza"})
    for event in [{"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}] + [{"type": "next"}] * 5:
        table.submit(event)
    page = page_of(browser)
    sign_in(page, server.url)
    held: list[Any] = []
    page.route("**/api/event", lambda route: held.append(route))
    form = page.locator('form[data-type="show"]')
    form.locator("select").select_option("Bob")
    form.locator('button[value="discard"]').click()
    deadline = time.monotonic() + 5
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert held, "the discard was never posted"
    form.locator("select").select_option("Cy")
    form.locator('input[name="cards"]').fill("QS 1X")
    form.locator('button[value="show"]').click()
    refusal = "Enter one or more card codes such as QS JD."
    expect(page.locator("#message.error")).to_have_text(refusal)
    with page.expect_response("**/api/event"):
        held[0].continue_()
    expect(page.locator("#ref-log li").first).to_have_text("Bob lays the Joker aside")
    page.wait_for_timeout(300)   # the answer's handling, which must say and clear nothing
    expect(page.locator("#message.error")).to_have_text(refusal)
    expect(form.locator('input[name="cards"]')).to_have_value("QS 1X")
    assert table.view()["log"][-1]["kind"] == "discard"


def test_the_referee_sees_why_the_camera_asks_and_dismisses_a_card_that_lies_nowhere(browser, server, table):
    table.submit(GAME)
    for event in [{"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, {"type": "next"}]:
        table.submit(event)
    unsure = table.hold(action="play", player="Ann", candidates=[("5H", 0.55), ("5D", 0.3)])
    unmoved = table.hold(action="play", player="Bob", candidates=[("7C", 0.98)], reason="unmoved")
    page = page_of(browser)
    sign_in(page, server.url)
    items = page.locator("#pending .pending-item")
    expect(items).to_have_count(2)
    expect(items.nth(0)).not_to_contain_text("nothing had moved")
    expect(items.nth(1)).to_contain_text("nothing had moved there")
    items.nth(1).locator("button.danger").click()
    expect(items).to_have_count(1)
    assert [p["id"] for p in table.view()["pending"]] == [unsure] and unmoved != unsure
    assert table.view()["run"]["played"]["Bob"] == []


def test_the_referee_sees_what_the_table_waits_for_and_reads_the_game_settled(browser, server, table):
    table.submit(GAME)
    for event in [{"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, {"type": "next"},
                  {"type": "play", "player": "Ann", "card": "4D"}]:
        table.submit(event)
    player = GAME["players"][1]
    assert table.settle(player, ["5D", "5H"]) == "5D"  # 5H would be a reopen, and only Ann may reopen
    table.submit({"type": "play", "player": player, "card": "5D"})
    page = page_of(browser)
    sign_in(page, server.url)
    status = page.locator("#ref-status")
    expect(status.locator(".expect")).to_have_text(f"Next: Six of diamonds, or {player} reopens in another suit")
    expect(status.locator(".settled")).to_have_text(f"\u2713 {player}: settled as 5D: the only legal card among 5D/5H")
    assert page_errors(page) == []


HANGUL = re.compile(r"[\uac00-\ud7a3]")
"""The Hangul syllables block: every Korean word on the pages is written in it."""


def hangul_glyphs(page: Page) -> tuple[list[str], list[bytes]]:
    """Up to 12 distinct Hangul syllables of the page's own text, each drawn alone in the page's font."""
    chars = sorted(set(HANGUL.findall(page.inner_text("body"))))[:12]
    page.evaluate("""chars => {
      const box = document.createElement("div");
      box.id = "glyphs";
      Object.assign(box.style, {position: "fixed", top: "0", left: "0", zIndex: "99", background: "#000", color: "#fff", fontSize: "32px"});
      for (const c of chars) {
        const s = document.createElement("span");
        s.textContent = c;
        Object.assign(s.style, {display: "block", width: "48px", height: "48px", textAlign: "center", lineHeight: "48px"});
        box.append(s);
      }
      document.body.append(box);
    }""", chars)
    spans = page.locator("#glyphs span")
    return chars, [spans.nth(i).screenshot() for i in range(len(chars))]


def korean_scoreboard(browser: Browser, server: Server) -> Page:
    page = page_of(browser, locale="ko-KR")
    page.goto(server.url + "/")
    expect(page.locator("html")).to_have_attribute("lang", "ko")
    return page


def test_the_korean_page_draws_hangul_not_boxes(browser, server, table, tmp_path):
    """A missing glyph is drawn as the same box whatever the character, so distinct syllables drawn
    alike mean no Korean font (Debian's fonts-noto-cjk, which ``make test`` installs)."""
    table.submit(GAME)
    page = korean_scoreboard(browser, server)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "scoreboard-setup-1280x800-ko.png"))
    chars, images = hangul_glyphs(page)
    assert len(chars) >= 8, chars
    assert len(set(images)) == len(chars), (
        f"{len(chars)} distinct Hangul syllables drew as {len(set(images))} distinct images: "
        "no Korean font (apt-get install fonts-noto-cjk)")

    # The same check on a Chromium that sees no CJK font must fail, or it would prove nothing.
    latin = sorted(d for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation") if os.path.isdir(d))
    (tmp_path / "fonts.conf").write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        + "".join(f"<dir>{d}</dir>" for d in latin) + f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>")
    bare = browser.browser_type.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"],
                                       env={**os.environ, "FONTCONFIG_FILE": str(tmp_path / "fonts.conf")})
    try:
        tofu_chars, tofu = hangul_glyphs(korean_scoreboard(bare, server))
    finally:
        bare.close()
    assert tofu_chars == chars
    assert len(set(tofu)) == 1, "without a CJK font the syllables should all be the same box"


def test_the_referee_mutes_the_voice_and_every_page_hears_of_it(browser, server, table):
    table.submit(GAME)
    page = page_of(browser)
    sign_in(page, server.url)
    expect(page.locator("#voice-row")).to_be_hidden()  # this table does not speak
    table.set_voice("on")  # as companion.app.voice.Voice does once espeak-ng is found
    button = page.locator("#voice-toggle")
    expect(button).to_have_text("Mute the voice")
    button.click()
    expect(button).to_have_text("Unmute the voice")
    expect(button).to_have_attribute("aria-pressed", "true")
    assert table.view()["voice"] == "muted"
    other = page_of(browser, locale="de-DE")  # another tablet, signed in afresh, sees the table's state
    sign_in(other, server.url)
    expect(other.locator("#voice-toggle")).to_have_text("Stimme einschalten")
    button.click()
    expect(other.locator("#voice-toggle")).to_have_text("Stimme stumm schalten")
    assert table.view()["voice"] == "on"
    assert page_errors(page) == [] and page_errors(other) == []
