"""Bonanza (docs/rules.md, variant ``bonanza``): the widow, the five calls, the wild Joker, the run."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from companion.rules import errors
from companion.rules.cards import parse_cards
from companion.rules.game import Game
from companion.rules.poker import best_sequence, rank_hand
from engine_helpers import feed, new_game, play, plays, show

start = partial(new_game, "bonanza")

FOUR = ("Ann", "Bob", "Cy", "Dee")
NINE = ("A", "B", "C", "D", "E", "F", "G", "H", "I")
EXCHANGE = {"type": "widow", "action": "exchange"}
NEXT = {"type": "next"}
CALLS = ["joker", "QS-JD", "sequence", "TD-2S", "poker"]


def pass_(player: str) -> dict[str, Any]:
    return {"type": "pass", "player": player}


def discard(player: str) -> dict[str, Any]:
    return {"type": "discard", "player": player, "cards": ["JK"]}


def refused(game: Game, event: dict[str, Any], kind: type[ValueError]) -> None:
    before = game.view()
    with pytest.raises(kind):
        game.push(event)
    assert game.view() == before


def at_call(call: str, players: tuple[str, ...] = FOUR, dealer: str = "Ann") -> Game:
    game = start(players)
    feed(game, {"type": "deal", "dealer": dealer}, EXCHANGE)
    while game.view()["call"] != call:
        game.push(NEXT)
    return game


def in_run(players: tuple[str, ...] = FOUR, dealer: str = "Ann", **options: Any) -> Game:
    game = start(players, **options)
    feed(game, {"type": "deal", "dealer": dealer}, EXCHANGE, *[NEXT] * 5)
    assert game.phase == "run"
    return game


# ------------------------------------------------------------------ widow


def test_the_dealer_may_not_keep_his_hand() -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Ann"})
    refused(game, {"type": "widow", "action": "keep"}, errors.RuleError)
    game.push(EXCHANGE)
    assert game.phase == "calls" and game.view()["call"] == "joker"


def test_the_widow_is_sold_to_the_highest_bidder() -> None:
    game = start()
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "bid", "player": "Bob", "chips": 2})
    refused(game, {"type": "bid", "player": "Ann", "chips": 3}, errors.OutOfTurn)
    refused(game, {"type": "bid", "player": "Cy", "chips": 2}, errors.BadAmount)
    feed(game, {"type": "bid", "player": "Cy", "chips": 4})
    balances = game.balances
    game.push({"type": "widow", "action": "sell"})
    assert game.balances == {**balances, "Cy": balances["Cy"] - 4, "Ann": balances["Ann"] + 4}
    assert game.state.hand_size["Cy"] == game.state.widow_size == 10


def test_no_bid_the_widow_is_dead() -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Ann"})
    balances, sizes = game.balances, dict(game.state.hand_size)
    game.push({"type": "widow", "action": "sell"})
    assert game.balances == balances and game.state.hand_size == sizes


# ------------------------------------------------------------------ calls


def test_the_calls_come_in_order_and_an_unanswered_call_leaves_its_chips() -> None:
    game = at_call("joker")
    seen = []
    while game.phase == "calls":
        seen.append(game.view()["call"])
        game.push(NEXT)
    assert seen == CALLS
    assert game.phase == "run"
    assert all(game.board[c] == 4 for c in CALLS)


def test_the_joker_call_takes_the_joker_alone() -> None:
    game = at_call("joker")
    refused(game, show("Bob", "JK QS"), errors.BadCombination)
    refused(game, show("Bob", "QS"), errors.BadCombination)
    feed(game, show("Bob", "JK"))
    refused(game, show("Cy", "JK"), errors.CardUnavailable)
    left = game.cards_left("Bob")
    game.push(NEXT)
    assert game.board["joker"] == 0 and game.balances["Bob"] == 90 + 4
    assert game.cards_left("Bob") == left == game.state.hand_size["Bob"] - 1


def test_the_joker_is_dead_once_shown() -> None:
    game = at_call("joker")
    feed(game, show("Bob", "JK"), NEXT)
    refused(game, show("Bob", "JK JD"), errors.CardUnavailable)
    refused(game, show("Cy", "JK JD"), errors.CardUnavailable)
    feed(game, NEXT, NEXT, NEXT, NEXT)
    refused(game, discard("Bob"), errors.CardUnavailable)
    refused(game, play("Ann", "JK"), errors.CardUnavailable)


def test_the_joker_kept_for_one_later_call() -> None:
    game = at_call("joker")
    game.push(NEXT)  # nobody shows at the Joker call
    assert game.board["joker"] == 4
    feed(game, show("Cy", "JK QS"), NEXT)  # Queen-Jack with the Joker as JD
    assert game.board["QS-JD"] == 0 and game.balances["Cy"] == 94
    refused(game, show("Cy", "JK TC 9C"), errors.CardUnavailable)  # wild for one call only
    game.push(NEXT)
    refused(game, show("Cy", "JK TD"), errors.CardUnavailable)
    assert game.cards_left("Cy") == game.state.hand_size["Cy"] - 1
    game.push(NEXT)
    game.push(show("Cy", "QS AS KS QD JD"))  # QS shown earlier went back to Cy's hand
    assert game.board["joker"] == 4  # the Joker section stays


@pytest.mark.parametrize(
    "call, cards, ok",
    [
        ("QS-JD", "QS JD", True), ("QS-JD", "JD JK", True), ("QS-JD", "QS JK", True), ("QS-JD", "JK", False),
        ("QS-JD", "QS QH", False), ("QS-JD", "QS JD TD", False), ("QS-JD", "QS", False),
        ("TD-2S", "TD 2S", True), ("TD-2S", "2S JK", True), ("TD-2S", "TD 2C", False), ("TD-2S", "QS JD", False),
    ],
)
def test_pair_calls_want_their_two_cards_the_joker_standing_for_one(call: str, cards: str, ok: bool) -> None:
    game = at_call(call)
    if not ok:
        refused(game, show("Dee", cards), errors.BadCombination)
        return
    feed(game, show("Dee", cards), NEXT)
    assert game.board[call] == 0 and game.balances["Dee"] == 94


def test_one_show_per_player_per_call_and_shown_cards_return_to_the_hand() -> None:
    game = at_call("QS-JD")
    feed(game, show("Dee", "QS JD"))
    refused(game, show("Dee", "QS JD"), errors.OutOfTurn)
    refused(game, show("Bob", "QS JK"), errors.CardUnavailable)  # QS is Dee's
    game.push(NEXT)
    game.push(show("Dee", "QS KS AS"))  # the sequence call: QS is back in her hand
    game.push(NEXT)
    assert game.balances["Dee"] == 90 + 8


def sequence_winner(*shows: tuple[str, str]) -> list[str]:
    game = at_call("sequence")
    for player, cards in shows:
        game.push(show(player, cards))
    balances = game.balances
    game.push(NEXT)
    return [p for p in FOUR if game.balances[p] > balances[p]]


def test_sequence_higher_top_rank_wins() -> None:
    assert sequence_winner(("Ann", "AS 2S 3S"), ("Bob", "2H 3H 4H")) == ["Bob"]  # A-2-3 tops at 3
    assert sequence_winner(("Ann", "QD KD AD"), ("Bob", "JS QS KS")) == ["Ann"]  # Q-K-A tops at A


def test_sequence_natural_beats_joker_on_equal_top_whatever_the_suit() -> None:
    assert sequence_winner(("Ann", "JK 8S 9S"), ("Bob", "8C 9C TC")) == ["Bob"]
    assert sequence_winner(("Ann", "8C 9C TC"), ("Bob", "9S TS JK")) == ["Bob"]  # JK as JS tops at J


def test_sequence_joker_on_a_higher_top_beats_a_natural() -> None:
    assert sequence_winner(("Ann", "JK QC KC"), ("Bob", "JS QS KS")) == ["Ann"]  # JK as AC


def test_sequence_suit_decides_between_naturals() -> None:
    shows = [("Ann", "5C 6C 7C"), ("Bob", "5D 6D 7D"), ("Cy", "5H 6H 7H"), ("Dee", "5S 6S 7S")]
    assert sequence_winner(*shows) == ["Dee"]
    assert sequence_winner(*shows[:3]) == ["Cy"]
    assert sequence_winner(*shows[:2]) == ["Bob"]


@pytest.mark.parametrize("cards", ["KS AS 2S", "2S 3S 5S", "2S 3S 4H", "2S 3S", "2S 3S 4S 5S", "JK KH 3H"])
def test_not_a_sequence(cards: str) -> None:
    game = at_call("sequence")
    refused(game, show("Ann", cards), errors.BadCombination)


@pytest.mark.parametrize(
    "cards, top, natural",
    [("AH 2H 3H", 3, True), ("QH KH AH", 14, True), ("JK KH AH", 14, False), ("JK AH 2H", 3, False),
     ("JK 2H 3H", 4, False), ("JK 5C 7C", 7, False)],
)
def test_sequence_tops(cards: str, top: int, natural: bool) -> None:
    seq = best_sequence(parse_cards(cards))
    assert (seq.top, seq.natural) == (top, natural)


# ------------------------------------------------------------------ the poker call


def test_poker_call_bets_folds_and_the_best_hand() -> None:
    game = at_call("poker")
    feed(game, {"type": "bet", "player": "Ann", "chips": 2}, {"type": "fold", "player": "Dee"})
    refused(game, {"type": "bet", "player": "Dee", "chips": 1}, errors.OutOfTurn)
    refused(game, show("Dee", "2S 3S 4S 5S 7D"), errors.OutOfTurn)
    feed(game, show("Ann", "JK 2S 3S 4S 5S"), show("Bob", "AS AH AD AC KC"))
    balances = game.balances
    game.push(NEXT)
    assert game.phase == "run"
    assert game.balances["Ann"] == balances["Ann"] + 6  # straight flush, the Joker as 6S
    assert game.cards_left("Ann") == game.state.hand_size["Ann"] - 1


def test_bets_belong_to_the_poker_call_only() -> None:
    game = at_call("sequence")
    refused(game, {"type": "bet", "player": "Ann", "chips": 2}, errors.WrongPhase)
    refused(game, {"type": "fold", "player": "Ann"}, errors.WrongPhase)


def test_a_joker_hand_loses_an_exact_tie_to_a_natural_hand() -> None:
    game = at_call("poker")
    feed(game, show("Ann", "JK AH KD QC JS"), show("Bob", "AS KH QD JC TD"))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Bob"] == balances["Bob"] + 4
    assert game.balances["Ann"] == balances["Ann"]


def test_two_natural_hands_tie_and_split_leaving_the_odd_chip() -> None:
    game = at_call("poker")
    game.push({"type": "bet", "player": "Cy", "chips": 1})
    feed(game, show("Ann", "AH KD QC JS TD"), show("Bob", "AS KH QD JC TC"))
    balances = game.balances
    game.push(NEXT)
    assert game.board["poker"] == 1
    assert game.balances["Ann"] == balances["Ann"] + 2 and game.balances["Bob"] == balances["Bob"] + 2


def test_no_five_of_a_kind_the_joker_stands_for_a_card_not_among_the_other_four() -> None:
    assert rank_hand(parse_cards("JK AS AH AD AC")).label == "Four of a kind"
    game = at_call("poker")
    feed(game, show("Ann", "JK AS AH AD AC"), show("Bob", "KS KH KD KC QS"))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Ann"] == balances["Ann"] + 4
    assert rank_hand(parse_cards("JK KS QS JS TS")).label == "Royal straight flush"
    assert rank_hand(parse_cards("JK 2S 3D 4C 5H")).label == "Straight"


def test_all_but_one_fold_at_the_poker_call() -> None:
    game = at_call("poker")
    feed(game, *({"type": "fold", "player": p} for p in ("Ann", "Bob", "Dee")))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Cy"] == balances["Cy"] + 4


def test_a_show_holds_no_more_cards_than_the_hand() -> None:
    game = at_call("joker", NINE, dealer="I")
    assert game.state.hand_size["I"] == 5  # 53 cards, 10 hands: A, B, C hold 6
    feed(game, show("I", "JK"), NEXT, NEXT, NEXT, NEXT)
    refused(game, show("I", "2S 3S 4S 5S 6S"), errors.TooManyCards)


def test_a_play_while_calls_are_open_settles_them_in_order() -> None:
    game = at_call("joker")
    feed(game, show("Bob", "JK"))
    balances = game.balances
    game.push(play("Ann", "2C"))
    assert game.phase == "run"
    assert game.balances["Bob"] == balances["Bob"] + 4


# ------------------------------------------------------------------ the Joker laid aside


def test_an_unshown_joker_is_laid_aside_once_the_run_has_begun() -> None:
    game = at_call("poker")
    refused(game, discard("Bob"), errors.WrongPhase)
    game.push(NEXT)
    refused(game, {"type": "discard", "player": "Bob", "cards": ["2S"]}, errors.BadCombination)
    refused(game, {"type": "discard", "player": "Bob", "cards": ["JK", "2S"]}, errors.BadCombination)
    size = game.cards_left("Bob")
    assert size is not None
    game.push(discard("Bob"))
    assert game.cards_left("Bob") == size - 1
    refused(game, discard("Cy"), errors.CardUnavailable)
    refused(game, discard("Bob"), errors.CardUnavailable)


def test_a_discard_shortens_the_hand_so_its_holder_goes_out_sooner() -> None:
    game = in_run(NINE, dealer="I")
    feed(game, play("I", "2S"), discard("I"), *plays("I", "3S 4S"))
    assert game.phase == "run"
    game.push(play("I", "5S"))
    assert game.phase == "between" and game.view()["out"] == "I"


def test_discard_is_not_a_michigan_event() -> None:
    game = Game()
    game.push({"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob"], "chips": 10})
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, NEXT)
    refused(game, discard("Bob"), errors.BadCombination)


# ------------------------------------------------------------------ the run


def after_ace() -> Game:
    """Ann leads QH, plays KH; Bob plays AH: the stop is known, Bob is the stop player."""
    game = in_run()
    feed(game, play("Ann", "QH"), play("Ann", "KH"), play("Bob", "AH"))
    assert game.view()["run"]["to_reopen"] == "Bob"
    return game


def test_the_dealer_leads_and_pays_the_four_cards() -> None:
    game = in_run()
    refused(game, play("Bob", "2C"), errors.OutOfTurn)
    for card, section in (("AS", "AS"), ("KH", "KH"), ("QD", "QD"), ("JC", "JC")):
        game = in_run()
        balances = game.balances
        game.push(play("Ann", card))
        assert game.board[section] == 0 and game.balances["Ann"] == balances["Ann"] + 4


def test_anyone_may_reopen_in_the_other_colour() -> None:
    for player in ("Cy", "Dee", "Ann"):
        game = after_ace()
        game.push(play(player, "2S"))
        assert game.view()["run"]["last_player"] == player


def test_only_the_stop_player_may_reopen_in_the_same_colour() -> None:
    game = after_ace()
    refused(game, play("Cy", "2D"), errors.NotNextCard)
    refused(game, play("Cy", "2H"), errors.NotNextCard)
    game.push(play("Bob", "2D"))


def test_the_stop_player_reopening_before_the_stop_is_known() -> None:
    game = in_run()
    feed(game, play("Ann", "5H"), play("Bob", "6H"))
    game.push(play("Bob", "3D"))  # the same colour: only the stop player may
    assert "7H" in {str(c) for c in game.state.passed_over}
    game.push(play("Bob", "4D"))


def test_another_player_reopening_in_the_other_colour_makes_the_stop_known() -> None:
    """Rule 4: no pass is needed; the passed-over card counts as a stop and is withheld."""
    game = in_run()
    feed(game, play("Ann", "5H"), play("Bob", "6H"))
    game.push(play("Dee", "2S"))  # nobody passed: Dee reopens in black as it comes
    assert [str(c) for c in game.state.stops] == ["6H"]
    assert {str(c) for c in game.state.passed_over} == {"7H"}
    assert game.view()["run"]["suit"] == "S" and game.view()["log"][-1]["opening"]
    with pytest.raises(errors.Withheld):
        game.push(play("Cy", "7H"))


def test_another_player_may_not_end_the_run_in_the_same_colour() -> None:
    game = in_run()
    feed(game, play("Ann", "5H"), play("Bob", "6H"))
    with pytest.raises(errors.NotNextCard, match="the run expects 7H, or a reopen in a suit of the other colour"):
        game.push(play("Cy", "2D"))
    refused(game, play("Cy", "2H"), errors.NotNextCard)


def test_after_a_pass_the_others_still_reopen_without_passing() -> None:
    game = in_run()
    feed(game, play("Ann", "5H"), play("Bob", "6H"), pass_("Bob"))
    refused(game, play("Bob", "2S"), errors.OutOfTurn)  # he passed
    game.push(play("Dee", "2S"))  # Cy, whose turn it was, said nothing: Dee may reopen all the same


def test_a_whole_hand_with_two_reopens_by_other_players_in_a_row() -> None:
    game = in_run(NINE, dealer="I")
    sizes = dict(game.state.hand_size)
    feed(game, play("I", "5H"), play("A", "6H"))
    game.push(play("B", "2S"))  # 7H passed over: A's 6H was a stop
    game.push(play("C", "9H"))  # straight away another: 3S passed over, B's 2S a stop
    refused(game, play("A", "7H"), errors.Withheld)
    refused(game, play("D", "3S"), errors.Withheld)
    balances = game.balances
    feed(game, play("D", "TH"), play("E", "JH"), play("F", "QH"), play("G", "KH"), play("H", "AH"))
    assert game.balances["G"] == balances["G"] + 9  # KH pays
    game.push(play("I", "7C"))  # after the Ace anyone reopens in black
    feed(game, *plays("I", "8C 9C TC"))
    assert game.phase == "between" and game.view()["out"] == "I"
    assert [str(c) for c in game.state.stops] == ["6H", "2S", "AH"]
    assert {str(c) for c in game.state.passed_over} == {"7H", "3S"}
    left = {p: sizes[p] - 1 for p in NINE if p != "I"}
    assert {s["from"]: s["chips"] for s in game.view()["settlement"]} == left
    assert [f["kind"] for f in game.flags] == []  # refused withheld plays are flagged by replays, not by push


def test_card_penalty_off_is_not_a_bonanza_game() -> None:
    with pytest.raises(errors.RecordError, match="always true in Bonanza: its rules always make the loser pay"):
        start(card_penalty=False)
    assert start(card_penalty=True).variant.options["card_penalty"] is True


def test_pass_moves_the_turn_left_and_a_passed_player_may_not_reopen() -> None:
    game = after_ace()
    refused(game, pass_("Cy"), errors.OutOfTurn)
    game.push(pass_("Bob"))
    refused(game, play("Bob", "2S"), errors.OutOfTurn)  # passed, until the next card is played
    refused(game, play("Bob", "2D"), errors.OutOfTurn)
    refused(game, pass_("Bob"), errors.OutOfTurn)
    game.push(pass_("Cy"))
    refused(game, play("Cy", "2S"), errors.OutOfTurn)
    game.push(play("Ann", "2C"))  # Ann has not passed: she may reopen in the other colour
    assert game.state.passed == set()


def test_everybody_passing_the_stop_player_opens_any_suit() -> None:
    game = after_ace()
    feed(game, pass_("Bob"), pass_("Cy"), pass_("Dee"))
    refused(game, play("Ann", "2D"), errors.NotNextCard)  # red: Ann has not passed, but must reopen black
    game.push(pass_("Ann"))
    assert game.state.fallback
    refused(game, play("Cy", "2S"), errors.OutOfTurn)
    refused(game, pass_("Bob"), errors.OutOfTurn)
    game.push(play("Bob", "2H"))  # hearts again: any suit now
    feed(game, play("Bob", "3H"), play("Bob", "2S"))  # the next stop changes colour again
    assert game.view()["run"]["suit"] == "S"


def test_after_a_fallback_the_next_stop_asks_for_the_other_colour_again() -> None:
    game = after_ace()
    feed(game, pass_("Bob"), pass_("Cy"), pass_("Dee"), pass_("Ann"), play("Bob", "2D"), play("Cy", "3D"), play("Cy", "AD"))
    refused(game, play("Dee", "2H"), errors.NotNextCard)  # diamonds ended: black now
    game.push(play("Dee", "2C"))


def test_going_out_ends_the_hand_whatever_pay_cards_remain_and_the_penalty_is_always_on() -> None:
    game = in_run(NINE, dealer="I")
    sizes = dict(game.state.hand_size)
    assert sizes["I"] == 5 and sizes["A"] == sizes["B"] == sizes["C"] == 6
    balances = game.balances
    feed(game, *plays("I", "2S 3S 4S 5S 6S"))
    assert game.phase == "between"
    penalty = {p: sizes[p] for p in NINE if p != "I"}
    assert game.balances == {**{p: balances[p] - penalty[p] for p in penalty}, "I": balances["I"] + 9 + sum(penalty.values())}
    for section in ("AS", "KH", "QD", "JC"):
        assert game.board[section] == 9
    refused(game, play("A", "7S"), errors.WrongPhase)


def test_reopen_other_suit_option_in_bonanza() -> None:
    game = in_run(reopen="other-suit")
    feed(game, play("Ann", "QH"), play("Ann", "KH"), play("Bob", "AH"))
    refused(game, play("Cy", "2H"), errors.NotNextCard)
    game.push(play("Cy", "2D"))  # another suit, the same colour: fine under other-suit
