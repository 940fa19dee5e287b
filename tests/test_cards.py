"""The card value type: parsing every form players type, order, colour, the run's next card."""

from __future__ import annotations

import pytest

from companion.rules.cards import ALL_CODES, JOKER, RANKS, SUITS, Card, CardError, parse_cards, standard_deck


@pytest.mark.parametrize(
    "text, code",
    [("QS", "QS"), ("qs", "QS"), ("10H", "TH"), ("10h", "TH"), ("th", "TH"), ("Q♠", "QS"), ("k♥", "KH"),
     ("2♦", "2D"), ("A♣", "AC"), ("a♤", "AS"), ("J♡", "JH"), ("9♢", "9D"), ("T♧", "TC"), (" 7c ", "7C"),
     ("JK", "JK"), ("jk", "JK"), ("joker", "JK")],
)
def test_parse_accepts_the_forms_of_rules_md(text: str, code: str) -> None:
    assert str(Card.parse(text)) == code


@pytest.mark.parametrize("text", ["", "1S", "11H", "QX", "Q", "SQ", "QSS", "10", "JKK", "ZZ", "0H"])
def test_parse_refuses_what_is_not_a_card(text: str) -> None:
    with pytest.raises(CardError):
        Card.parse(text)


@pytest.mark.parametrize("value", [None, 10, 2.0, True, ["QS"], b"QS"])
def test_parse_refuses_non_text_with_a_value_error(value: object) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(value)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)


def test_canonical_round_trip_for_every_code() -> None:
    for code in ALL_CODES:
        card = Card.parse(code)
        assert str(card) == code
        assert Card.parse(code.lower()) == card
        assert eval(repr(card)) == card  # repr is Card.parse('..')


def test_all_codes_is_the_53_card_pack_once_each() -> None:
    assert len(ALL_CODES) == 53 == len(set(ALL_CODES))
    assert ALL_CODES[-1] == "JK"
    assert set(ALL_CODES[:-1]) == {r + s for r in RANKS for s in SUITS}


def test_standard_deck_sizes() -> None:
    assert len(standard_deck()) == 52 == len(set(standard_deck()))
    assert standard_deck(jokers=1).count(JOKER) == 1
    assert len(standard_deck(jokers=1)) == 53


def test_values_aces_high() -> None:
    assert [Card.parse(r + "S").value for r in RANKS] == list(range(2, 15))
    assert JOKER.value == 15
    assert Card.parse("AS") > Card.parse("KS") > Card.parse("2S")


def test_colours() -> None:
    assert {Card.parse("2" + s).colour for s in "SC"} == {"black"}
    assert {Card.parse("2" + s).colour for s in "HD"} == {"red"}
    assert JOKER.colour == ""
    assert JOKER.is_joker and not Card.parse("JS").is_joker


def test_next_higher_follows_the_suit_and_stops_at_the_ace() -> None:
    assert Card.parse("9H").next_higher() == Card.parse("TH")
    assert Card.parse("KC").next_higher() == Card.parse("AC")
    assert Card.parse("AC").next_higher() is None
    assert JOKER.next_higher() is None


def test_sorting_reads_well_and_the_joker_is_last() -> None:
    hand = parse_cards("JK AS 2C 2S TH")
    assert [str(c) for c in sorted(hand)] == ["2S", "2C", "TH", "AS", "JK"]


def test_parse_cards_from_list_or_string() -> None:
    assert parse_cards("10h q♠ JK") == parse_cards(["TH", "QS", "jk"])


def test_names() -> None:
    assert Card.parse("QS").name() == "Queen of spades"
    assert Card.parse("TD").name() == "Ten of diamonds"
    assert JOKER.name() == "Joker"


def test_cards_are_hashable_values() -> None:
    assert Card.parse("10D") is Card.parse("TD")
    assert len({Card.parse("TD"), Card.parse("td"), Card.parse("10♦")}) == 1
