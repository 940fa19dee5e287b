"""Tripoley (docs/rules.md, variant ``tripoley``): claims, poker into the pot, the run with its kitty."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from companion.rules import errors
from companion.rules.game import Game
from engine_helpers import feed, new_game, play

start = partial(new_game, "tripoley")

FOUR = ("Ann", "Bob", "Cy", "Dee")
NINE = ("A", "B", "C", "D", "E", "F", "G", "H", "I")
KEEP = {"type": "widow", "action": "keep"}
NEXT = {"type": "next"}
PAY_SECTIONS = ("AH", "KH", "QH", "JH", "TH", "KH-QH", "8-9-10")


def claim(player: str, cards: str) -> dict[str, Any]:
    return {"type": "claim", "player": player, "cards": cards.split()}


def pass_(player: str) -> dict[str, Any]:
    return {"type": "pass", "player": player}


def refused(game: Game, event: dict[str, Any], kind: type[ValueError]) -> None:
    before = game.view()
    with pytest.raises(kind):
        game.push(event)
    assert game.view() == before


def claims(players: tuple[str, ...] = FOUR, dealer: str = "Ann") -> Game:
    game = start(players)
    feed(game, {"type": "deal", "dealer": dealer}, KEEP)
    assert game.phase == "claims"
    return game


def in_run(players: tuple[str, ...] = FOUR, dealer: str = "Ann", **options: Any) -> Game:
    game = start(players, **options)
    feed(game, {"type": "deal", "dealer": dealer}, KEEP, NEXT, NEXT)
    assert game.phase == "run"
    return game


def gains(game: Game, event: dict[str, Any]) -> dict[str, int]:
    before = game.balances
    game.push(event)
    return {p: game.balances[p] - before[p] for p in before if game.balances[p] != before[p]}


# ------------------------------------------------------------------ claims


def test_antes_and_the_widow_as_michigan() -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Ann"})
    assert game.board == {s: 4 for s in (*PAY_SECTIONS, "kitty", "pot")}
    game.push({"type": "bid", "player": "Bob", "chips": 2})
    game.push({"type": "widow", "action": "sell"})
    assert game.state.hand_size["Bob"] == game.state.widow_size == 10


def test_each_heart_honour_claimed_takes_its_section() -> None:
    game = claims()
    feed(game, claim("Bob", "AH JH"), claim("Cy", "TH"))
    assert gains(game, NEXT) == {"Bob": 8, "Cy": 4}
    assert game.phase == "poker"
    assert game.board["AH"] == game.board["JH"] == game.board["TH"] == 0


def test_king_queen_of_hearts_on_top_of_the_single_sections() -> None:
    game = claims()
    feed(game, claim("Dee", "KH"), claim("Dee", "QH"))  # two claims add up
    assert gains(game, NEXT) == {"Dee": 12}
    assert game.board["KH-QH"] == 0


def test_king_and_queen_in_two_hands_win_no_pair() -> None:
    game = claims()
    feed(game, claim("Dee", "KH"), claim("Bob", "QH"))
    assert gains(game, NEXT) == {"Dee": 4, "Bob": 4}
    assert game.board["KH-QH"] == 4


def test_ten_of_hearts_serves_both_the_honour_and_the_eight_nine_ten() -> None:
    game = claims()
    game.push(claim("Cy", "8H 9H TH"))
    assert gains(game, NEXT) == {"Cy": 8}


@pytest.mark.parametrize("cards", ["8S 9S", "9S TS", "8S 9S TC", "2S", "AS", "8S 9S TS JS", "KC"])
def test_a_claim_holds_only_heart_honours_and_whole_eight_nine_tens(cards: str) -> None:
    game = claims()
    refused(game, claim("Bob", cards), errors.BadCombination)


def test_several_eight_nine_ten_claimants_split_evenly_the_odd_chip_stays() -> None:
    game = claims()
    feed(game, claim("Ann", "8S 9S TS"), claim("Bob", "8C 9C TC"), claim("Cy", "8D 9D TD 8H 9H TH"))
    assert gains(game, NEXT) == {"Ann": 1, "Bob": 1, "Cy": 1 + 4}  # one share each, Cy's TH besides
    assert game.board["8-9-10"] == 1


def test_two_claimants_split_the_eight_nine_ten_evenly() -> None:
    game = claims()
    feed(game, claim("Ann", "8S 9S TS"), claim("Dee", "8C 9C TC"))
    assert gains(game, NEXT) == {"Ann": 2, "Dee": 2}
    assert game.board["8-9-10"] == 0


def test_unclaimed_pay_cards_are_forfeited_for_the_hand() -> None:
    game = claims()
    feed(game, claim("Bob", "AH"), NEXT)
    refused(game, claim("Cy", "KH"), errors.WrongPhase)  # claims settled when poker started
    assert all(game.board[s] == 4 for s in PAY_SECTIONS if s != "AH")
    feed(game, NEXT)
    game.push(play("Bob", "KH"))  # playing it in the run pays nothing in Tripoley
    assert game.board["KH"] == 4


def test_a_claimed_card_belongs_to_its_claimant() -> None:
    game = claims()
    game.push(claim("Bob", "AH 8C 9C TC"))
    refused(game, claim("Cy", "AH"), errors.CardUnavailable)
    refused(game, claim("Cy", "8C 9C TC"), errors.CardUnavailable)
    game.push(claim("Bob", "AH"))  # his own again: no harm
    game.push(NEXT)
    refused(game, {"type": "show", "player": "Cy", "cards": ["AH", "2S", "3S", "4S", "6D"]}, errors.CardUnavailable)
    game.push({"type": "show", "player": "Bob", "cards": ["AH", "AS", "3S", "4S", "6D"]})
    game.push(NEXT)
    refused(game, play("Cy", "TC"), errors.CardUnavailable)


def test_a_claim_holds_no_more_cards_than_the_hand() -> None:
    game = claims(NINE, dealer="I")
    assert game.state.hand_size["I"] == 5
    refused(game, claim("I", "AH KH QH JH 8H 9H TH"), errors.TooManyCards)
    game.push(claim("I", "AH KH QH JH TH"))


def test_claims_need_the_claims_phase() -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Ann"})
    refused(game, claim("Bob", "AH"), errors.WrongPhase)
    game.push(KEEP)
    refused(game, {"type": "bet", "player": "Bob", "chips": 1}, errors.WrongPhase)  # next closes the claims first
    refused(game, claim("Zed", "AH"), errors.UnknownPlayer)


def test_a_play_during_claims_settles_claims_and_poker_first() -> None:
    game = claims()
    feed(game, claim("Cy", "AH"))
    assert gains(game, play("Bob", "2S")) == {"Cy": 4}
    assert game.phase == "run"


# ------------------------------------------------------------------ poker


def test_poker_goes_into_the_pot_section() -> None:
    game = claims()
    feed(game, NEXT, {"type": "bet", "player": "Bob", "chips": 3}, {"type": "fold", "player": "Cy"})
    assert game.board["pot"] == 7
    feed(game, {"type": "show", "player": "Bob", "cards": ["AS", "AD", "3S", "4S", "6D"]})
    feed(game, {"type": "show", "player": "Dee", "cards": ["KS", "KD", "3C", "4C", "6C"]})
    assert gains(game, NEXT) == {"Bob": 7}
    assert game.board["pot"] == 0 and game.board["kitty"] == 4


# ------------------------------------------------------------------ the run


def test_the_player_left_of_the_dealer_leads() -> None:
    game = in_run(dealer="Cy")
    assert game.view()["run"]["to_reopen"] == "Dee"
    refused(game, play("Cy", "2S"), errors.OutOfTurn)
    game.push(play("Dee", "2S"))


def test_the_stop_player_reopens_in_another_suit() -> None:
    game = in_run()
    feed(game, play("Bob", "5H"), play("Cy", "6H"))
    refused(game, play("Dee", "2C"), errors.NotNextCard)
    refused(game, play("Cy", "9H"), errors.NotNextCard)
    game.push(play("Cy", "2C"))
    assert "7H" in {str(c) for c in game.state.passed_over}


def test_a_pass_pays_the_kitty_and_the_turn_passes_left() -> None:
    game = in_run()
    feed(game, play("Bob", "5H"), play("Cy", "6H"))
    refused(game, pass_("Dee"), errors.OutOfTurn)
    kitty = game.board["kitty"]
    assert gains(game, pass_("Cy")) == {"Cy": -1}
    assert game.board["kitty"] == kitty + 1
    assert game.view()["run"]["to_reopen"] == "Dee"
    refused(game, play("Cy", "2C"), errors.OutOfTurn)
    refused(game, play("Ann", "2C"), errors.OutOfTurn)
    refused(game, play("Dee", "2H"), errors.NotNextCard)  # another suit than the one that ended
    refused(game, play("Dee", "7H"), errors.Withheld)
    game.push(play("Dee", "2C"))
    assert game.phase == "run" and game.board["kitty"] == kitty + 1


def test_back_to_the_stop_player_the_hand_ends_and_nobody_takes_the_kitty() -> None:
    game = in_run()
    feed(game, play("Bob", "KD"), play("Cy", "AD"))  # an Ace: the stop is known at once
    balances = game.balances
    kitty = game.board["kitty"]
    feed(game, pass_("Cy"), pass_("Dee"), pass_("Ann"))
    assert game.phase == "run"
    game.push(pass_("Bob"))
    assert game.phase == "between"
    assert game.board["kitty"] == kitty + 4
    assert game.balances == {p: balances[p] - 1 for p in FOUR}
    assert sum(game.balances.values()) + sum(game.board.values()) == 400
    refused(game, pass_("Cy"), errors.WrongPhase)
    game.push({"type": "deal", "dealer": "Bob"})
    assert game.board["kitty"] == kitty + 4 + 4


def test_going_out_takes_the_kitty_and_a_chip_per_card() -> None:
    game = in_run(NINE, dealer="I")
    assert game.view()["run"]["to_reopen"] == "A"
    sizes = dict(game.state.hand_size)
    assert sizes["A"] == 6
    balances = game.balances
    feed(game, *(play("A", c) for c in ["2S", "3S", "4S", "5S", "6S"]))
    assert game.phase == "run"
    game.push(play("A", "7S"))
    assert game.phase == "between" and game.view()["out"] == "A"
    penalty = {p: sizes[p] for p in NINE if p != "A"}
    assert game.balances == {**{p: balances[p] - penalty[p] for p in penalty}, "A": balances["A"] + 9 + sum(penalty.values())}


def test_going_out_without_the_card_penalty() -> None:
    game = in_run(NINE, dealer="I", card_penalty=False)
    balances = game.balances
    feed(game, *(play("A", c) for c in ["2S", "3S", "4S", "5S", "6S", "7S"]))
    assert game.balances == {**balances, "A": balances["A"] + 9}
