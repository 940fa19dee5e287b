"""``Game.legal_plays()``: what the referee would accept now, written out from docs/rules.md by hand."""

from __future__ import annotations

from companion.rules.cards import Card, parse_cards
from companion.rules.game import Game
from companion.rules.legal import Betting, Close, LayAside, NextCard, NextDeal, PassTurn, Reopen, ShowCards, Showdown, WidowChoice, summary
from engine_helpers import NEXT, feed, new_game, play

FOUR = ("Ann", "Bob", "Cy", "Dee")
EVERY = frozenset("SHDC")


def lines(game: Game) -> str:
    return summary(game.legal_plays())


def michigan_run() -> Game:
    game = new_game("michigan-1939")
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, NEXT)
    return game


def test_before_a_deal_anyone_deals_then_the_deal_passes_left() -> None:
    game = new_game("michigan-1939")
    assert game.legal_plays() == (NextDeal(FOUR), Showdown())
    feed(game, {"type": "deal", "dealer": "Bob"})
    assert game.legal_plays() == (WidowChoice("Bob", frozenset({"keep", "exchange", "sell"}), ("Ann", "Cy", "Dee")),)


def test_the_michigan_run_the_next_card_or_the_last_player_reopens() -> None:
    game = michigan_run()
    assert game.legal_plays() == (Reopen(("Ann",), EVERY, "lead"),)
    feed(game, play("Ann", "4D"), play("Cy", "5D"))
    assert game.legal_plays() == (NextCard(Card.parse("6D"), FOUR), Reopen(("Cy",), frozenset("SHC"), "other-suit"), PassTurn("Cy"))
    feed(game, play("Ann", "6D"))
    assert lines(game) == "Next: 7♦, or Ann reopens in another suit"


def test_after_an_ace_the_stop_is_known_and_only_the_reopen_remains() -> None:
    game = michigan_run()
    feed(game, play("Ann", "KH"), play("Bob", "AH"))
    assert game.legal_plays() == (Reopen(("Bob",), frozenset("SDC"), "other-suit"), PassTurn("Bob"))


def test_tripoley_the_turn_passes_left_after_a_pass() -> None:
    game = new_game("tripoley")
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, NEXT, NEXT)
    assert game.legal_plays()[0] == Reopen(("Bob",), EVERY, "lead")  # left of the dealer leads
    feed(game, play("Bob", "KS"), play("Cy", "AS"), {"type": "pass", "player": "Cy"})
    assert game.legal_plays() == (Reopen(("Dee",), frozenset("HDC"), "other-suit"), PassTurn("Dee"))


def bonanza_run() -> Game:
    game = new_game("bonanza")
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}, *[NEXT] * 5)
    return game


def test_bonanza_anyone_reopens_in_the_other_colour_the_stop_player_in_any_suit() -> None:
    game = bonanza_run()
    feed(game, play("Ann", "8S"), play("Dee", "9S"))
    assert game.legal_plays() == (
        NextCard(Card.parse("TS"), FOUR),
        Reopen(("Dee", "Ann", "Bob", "Cy"), frozenset("HD"), "other-colour"),
        Reopen(("Dee",), EVERY, "any-suit"),
        PassTurn("Dee"),
        LayAside(FOUR),
    )
    assert lines(game) == "Next: T♠, or Dee, Ann, Bob or Cy reopens in the other colour, or Dee reopens in any suit"


def test_bonanza_passed_players_drop_out_and_after_all_passed_only_the_stop_player_opens() -> None:
    game = bonanza_run()
    feed(game, play("Ann", "KD"), play("Bob", "AD"), *({"type": "pass", "player": p} for p in ("Bob", "Cy")))
    assert game.legal_plays()[:2] == (Reopen(("Dee", "Ann"), frozenset("SC"), "other-colour"), PassTurn("Dee"))
    feed(game, *({"type": "pass", "player": p} for p in ("Dee", "Ann")))
    assert game.legal_plays()[:1] == (Reopen(("Bob",), EVERY, "any-suit"),)


def test_bonanza_calls_say_the_shapes_of_a_show() -> None:
    game = new_game("bonanza")
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"})
    assert game.legal_plays() == (ShowCards("joker", 1, tuple(parse_cards("JK")), False, FOUR), Close("joker"))
    feed(game, NEXT)
    assert lines(game) == "Queen-Jack: show QS and JD"
    show = game.legal_plays()[0]
    assert isinstance(show, ShowCards) and show.wild  # the Joker may stand for one
    feed(game, NEXT)
    assert lines(game) == "Sequence: show three cards of one suit in a row"


def test_poker_who_may_still_bet_or_show() -> None:
    game = new_game("michigan-1939")
    feed(game, {"type": "deal", "dealer": "Bob"}, {"type": "widow", "action": "keep"})
    assert lines(game) == "Poker: Bob to bet"  # the dealer starts
    feed(game, {"type": "bet", "player": "Bob", "chips": 2}, {"type": "fold", "player": "Cy"})
    betting, show, close = game.legal_plays()
    assert betting == Betting("poker", ("Bob", "Dee", "Ann"), "Dee")
    assert show == ShowCards("poker", 5, (), False, ("Bob", "Dee", "Ann")) and close == Close("poker")


def test_the_view_carries_them_for_the_pages() -> None:
    game = michigan_run()
    feed(game, play("Ann", "4D"))
    expect = game.view()["expect"]
    assert expect[0] == {"kind": "next_card", "card": "5D", "players": list(FOUR), "headline": True, "text": "Next: 5♦"}
    assert expect[1]["kind"] == "reopen-other-suit" and expect[1]["suits"] == ["S", "H", "C"]
