"""The four catalogs: complete, alike in shape, and wording cards and log entries."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest

from web.i18n import LANGUAGES, Catalog, negotiate

CATALOGS = Path(__file__).parents[1] / "web" / "i18n"
RANKS = "23456789TJQKA"
SUITS = "SHDC"


def load(code: str) -> dict[str, Any]:
    return json.loads((CATALOGS / f"{code}.json").read_text(encoding="utf-8"))


def keys(d: dict[str, Any], prefix: str = "") -> set[str]:
    out: set[str] = set()
    for k, v in d.items():
        out |= keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k}
    return out


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_every_catalog_has_the_english_keys(code):
    english, other = keys(load("en")), keys(load(code))
    missing = {k for k in english - other if not k.startswith("chips.")}  # plural forms differ by language
    assert not missing, missing
    assert not other - english - {"log.end"}, other - english  # English words the end of a hand with the reason


@pytest.mark.parametrize("code", LANGUAGES)
def test_placeholders_are_the_same_as_in_english(code):
    english, other = load("en")["ui"], load(code)["ui"]
    for key, text in english.items():
        fields = {f for _, f, _, _ in string.Formatter().parse(text) if f}
        assert {f for _, f, _, _ in string.Formatter().parse(other[key]) if f} == fields, key


@pytest.mark.parametrize("code, queen_of_spades, ten_of_diamonds", [
    ("en", "Queen of spades", "Ten of diamonds"),
    ("ko", "스페이드 퀸", "다이아몬드 10"),
    ("fr", "dame de pique", "dix de carreau"),
    ("de", "Pik-Dame", "Karo-Zehn"),
])
def test_card_names(code, queen_of_spades, ten_of_diamonds):
    cat = Catalog.load(code)
    assert cat.card_name("QS") == queen_of_spades
    assert cat.card_name("TD") == ten_of_diamonds
    names = {cat.card_name(r + s) for r in RANKS for s in SUITS}
    assert len(names) == 52  # no two cards share a name
    assert cat.card_name("JK") != "JK"


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_section_of_every_variant_has_a_name(code):
    cat = Catalog.load(code)
    sections = ["AH", "KC", "QH", "JS", "TH", "QH-KH", "7-8-9", "poker", "pot", "joker", "QS-JD", "sequence", "TD-2S", "AS", "KH",
                "QD", "JC", "centre", "JH", "KH-QH", "8-9-10", "kitty"]
    for name in sections:
        assert cat.section_name(name) not in ("", name) or name in ("7-8-9", "8-9-10"), name
    assert cat.section_name("pot", "tripoley") != cat.section_name("pot", "michigan-1939")


LOG: list[dict[str, Any]] = [
    {"kind": "deal", "player": "Ann", "text": "Ann deals (hand 1)"},
    {"kind": "ante", "player": "Ann", "chips": 18, "text": "Ann antes 18"},
    {"kind": "widow", "action": "sell", "text": "Nobody bids: the widow is dead"},
    {"kind": "widow", "player": "Bob", "chips": 3, "action": "sell", "text": "Bob buys the widow from Ann for 3"},
    {"kind": "widow", "player": "Ann", "action": "keep", "text": "Ann keeps his hand"},
    {"kind": "bet", "player": "Ann", "chips": 2, "section": "poker", "text": "Ann bets 2"},
    {"kind": "show", "player": "Ann", "cards": ["9S", "9H"], "text": "Ann shows 9S 9H"},
    {"kind": "play", "player": "Bob", "card": "KC", "opening": False, "text": "Bob plays KC"},
    {"kind": "win", "player": "Bob", "section": "KC", "chips": 14, "text": "Bob takes 14 from KC"},
    {"kind": "penalty", "player": "Cy", "to": "Bob", "chips": 1, "text": "Cy pays Bob 1 for cards left"},
    {"kind": "penalty", "player": "Cy", "chips": 1, "section": "kitty", "text": "Cy pays 1 to kitty"},
    {"kind": "out", "player": "Bob", "text": "Bob is out!"},
    {"kind": "poker", "players": ["Bob"], "hand": "Straight", "text": "Best hand: Straight"},
]


@pytest.mark.parametrize("code", LANGUAGES)
def test_log_entries_are_worded_from_their_fields(code):
    cat = Catalog.load(code)
    for entry in LOG:
        text = cat.describe(entry)
        assert text and "{" not in text, (entry, text)
        for name in ("player", "to"):
            if name in entry:
                assert entry[name] in text, (entry, text)
    assert cat.card_name("KC") in cat.describe(LOG[7])


def test_english_log_reads_naturally():
    en = Catalog.load("en")
    assert en.describe(LOG[8]) == "Bob takes 14 chips from King of clubs"
    assert en.describe(LOG[9]) == "Cy pays Bob 1 chip for cards left"
    assert en.describe(LOG[3]) == "Bob buys the widow for 3 chips"
    assert en.describe(LOG[2]) == "Nobody bids: the widow is dead"


def test_unknown_kinds_and_odd_fields_keep_the_engines_text():
    en = Catalog.load("en")
    assert en.describe({"kind": "end", "reason": "nobody could reopen", "text": "The hand ends: nobody could reopen"}) \
        == "The hand ends: nobody could reopen"
    assert en.describe({"kind": "play", "player": "Bob", "card": 7, "text": "Bob plays ?"}) == "Bob plays ?"


def test_french_counts_zero_and_one_as_singular():
    fr, en = Catalog.load("fr"), Catalog.load("en")
    assert (fr.chips(0), fr.chips(1), fr.chips(2)) == ("0 jeton", "1 jeton", "2 jetons")
    assert (en.chips(0), en.chips(1)) == ("0 chips", "1 chip")
    assert Catalog.load("ko").chips(1) == "1칩"


@pytest.mark.parametrize("header, code", [
    ("ko-KR,ko;q=0.9,en-US;q=0.8", "ko"), ("en-GB,fr;q=0.9", "en"), ("es,fr;q=0.5,de;q=0.7", "de"),
    ("", "en"), (None, "en"), ("*", "en"), ("fr;q=abc,de", "de"), ("zh-CN", "en"),
])
def test_negotiate(header, code):
    assert negotiate(header) == code


def test_every_expectation_the_engine_makes_is_worded_in_every_language():
    """Each kind of ``view()["expect"]`` over whole simulated games has a template in every catalog;
    the English one, where it names no card and at most one player, is the engine's own line."""
    from companion.app.simulate import SimulatedTable

    seen: dict[str, dict] = {}
    for variant in ("michigan-1939", "bonanza", "tripoley"):
        table = SimulatedTable(variant, ["Ann", "Bob", "Cy"], seed=3)
        for event in table.play(hands=2):
            if event["type"] != "game":
                for entry in table.game.view()["expect"]:
                    seen.setdefault(entry["kind"], entry)
    assert {"next_card", "reopen-lead", "reopen-other-suit", "reopen-other-colour", "show", "show_hand", "betting"} <= set(seen)
    for code in LANGUAGES:
        templates = load(code)["expect"]
        for kind, entry in seen.items():
            assert kind in templates, (code, kind)
            assert Catalog.load(code).describe(entry, "expect"), (code, kind)
    english = Catalog.load("en")
    for kind, entry in seen.items():
        if not {"card", "cards", "call"} & set(entry) and len(entry.get("players", ())) <= 1:
            assert english.describe(entry, "expect") == entry["text"], kind
