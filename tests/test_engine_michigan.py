"""Michigan Rummy on the 1939 board (docs/rules.md, variant ``michigan-1939``), hand by hand."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from companion.rules import errors
from companion.rules.errors import RecordError
from companion.rules.game import Game
from engine_helpers import feed, new_game, play, plays, show

start = partial(new_game, "michigan-1939")

FOUR = ("Ann", "Bob", "Cy", "Dee")
NINE = ("A", "B", "C", "D", "E", "F", "G", "H", "I")
KEEP = {"type": "widow", "action": "keep"}
NEXT = {"type": "next"}


def bet(player: str, chips: int) -> dict[str, Any]:
    return {"type": "bet", "player": player, "chips": chips}


def bid(player: str, chips: int) -> dict[str, Any]:
    return {"type": "bid", "player": player, "chips": chips}


def fold(player: str) -> dict[str, Any]:
    return {"type": "fold", "player": player}


def refused(game: Game, event: dict[str, Any], kind: type[ValueError]) -> None:
    before = game.view()
    with pytest.raises(kind):
        game.push(event)
    assert game.view() == before


def in_run(players: tuple[str, ...] = FOUR, dealer: str = "Ann", **options: Any) -> Game:
    game = start(players, **options)
    feed(game, {"type": "deal", "dealer": dealer}, KEEP, NEXT)
    assert game.phase == "run"
    return game


def total(game: Game) -> int:
    return sum(game.balances.values()) + sum(game.board.values())


# ------------------------------------------------------------------ widow


def test_keep_moves_on_to_poker_and_changes_no_size() -> None:
    game = start()
    feed(game, {"type": "deal", "dealer": "Dee"}, KEEP)
    assert game.phase == "poker"
    assert game.state.hand_size == {"Ann": 11, "Bob": 11, "Cy": 10, "Dee": 10}


def test_exchange_gives_the_dealer_the_widows_size() -> None:
    game = start(widow_position="first")
    feed(game, {"type": "deal", "dealer": "Dee"})
    assert game.state.hand_size["Dee"] == 10 and game.state.widow_size == 11
    game.push({"type": "widow", "action": "exchange"})
    assert game.state.hand_size["Dee"] == 11
    assert game.balances == {"Ann": 91, "Bob": 91, "Cy": 91, "Dee": 82}


def test_sell_bids_must_top_the_dealer_cannot_bid_the_buyer_pays_the_dealer() -> None:
    game = start()
    feed(game, {"type": "deal", "dealer": "Dee"}, bid("Bob", 2))
    refused(game, bid("Cy", 2), errors.BadAmount)
    refused(game, bid("Ann", 1), errors.BadAmount)
    refused(game, bid("Dee", 9), errors.OutOfTurn)
    feed(game, bid("Cy", 3), bid("Ann", 5))
    before = game.balances
    game.push({"type": "widow", "action": "sell"})
    assert game.balances == {**before, "Ann": before["Ann"] - 5, "Dee": before["Dee"] + 5}
    assert game.state.hand_size == {"Ann": 10, "Bob": 11, "Cy": 10, "Dee": 10}  # Ann holds the widow's 10
    assert game.phase == "poker"
    refused(game, bid("Bob", 9), errors.WrongPhase)


def test_buyer_of_a_larger_widow_holds_more_cards() -> None:
    game = start(widow_position="first")
    feed(game, {"type": "deal", "dealer": "Dee"}, bid("Cy", 1), {"type": "widow", "action": "sell"})
    assert game.state.hand_size["Cy"] == 11


def test_sell_without_a_bid_leaves_the_widow_dead_and_moves_no_chip() -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Dee"})
    before = game.balances, game.state.hand_size.copy()
    game.push({"type": "widow", "action": "sell"})
    assert (game.balances, game.state.hand_size) == before
    assert game.phase == "poker"


@pytest.mark.parametrize("action", ["keep", "exchange"])
def test_bids_lapse_when_the_dealer_keeps_or_exchanges(action: str) -> None:
    game = start()
    feed(game, {"type": "deal", "dealer": "Dee"}, bid("Bob", 4))
    before = game.balances
    game.push({"type": "widow", "action": action})
    assert game.balances == before
    assert game.state.hand_size["Bob"] == 11


@pytest.mark.parametrize("chips", [0, -1, 1.5, "2", True, None])
def test_a_bid_of_no_chips_is_malformed(chips: Any) -> None:
    game = start()
    game.push({"type": "deal", "dealer": "Dee"})
    refused(game, {"type": "bid", "player": "Bob", "chips": chips}, RecordError)


def test_a_widow_choice_outside_the_widow_phase_is_refused() -> None:
    game = start()
    refused(game, KEEP, errors.WrongPhase)
    feed(game, {"type": "deal", "dealer": "Dee"}, KEEP)
    refused(game, {"type": "widow", "action": "exchange"}, errors.WrongPhase)
    refused(game, {"type": "widow", "action": "swap"}, RecordError)


# ------------------------------------------------------------------ poker


def poker(players: tuple[str, ...] = FOUR) -> Game:
    game = start(players)
    feed(game, {"type": "deal", "dealer": "Ann"}, KEEP)
    assert game.phase == "poker"
    return game


def test_the_best_shown_hand_takes_the_poker_section_with_its_antes() -> None:
    game = poker()
    feed(game, bet("Ann", 3), bet("Bob", 3), fold("Cy"), bet("Dee", 3))
    assert game.board["poker"] == 5 + 9
    feed(game, show("Ann", "9S", "9H", "4C", "4D", "KS"), show("Bob", "2C", "3C", "4H", "5S", "6D"))
    feed(game, show("Dee", "AS", "AH", "QC", "JD", "7S"))
    balances = game.balances
    game.push(NEXT)
    assert game.phase == "run"
    assert game.board["poker"] == 0
    assert game.balances == {**balances, "Bob": balances["Bob"] + 14}  # the straight


def test_an_exact_tie_splits_and_the_odd_chip_stays() -> None:
    game = poker()
    feed(game, bet("Ann", 2), bet("Bob", 2), fold("Cy"), fold("Dee"))
    assert game.board["poker"] == 9
    feed(game, show("Ann", "AS", "KS", "9D", "7C", "4H"), show("Bob", "AH", "KH", "9C", "7D", "4S"))
    balances = game.balances
    game.push(NEXT)
    assert game.board["poker"] == 1
    assert game.balances == {**balances, "Ann": balances["Ann"] + 4, "Bob": balances["Bob"] + 4}
    assert total(game) == 400


def test_kickers_break_a_pair_tie_before_any_split() -> None:
    game = poker()
    feed(game, show("Ann", "AS", "AD", "9D", "7C", "4H"), show("Bob", "AH", "AC", "9C", "7D", "5S"))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Bob"] == balances["Bob"] + 5 and game.board["poker"] == 0


@pytest.mark.parametrize(
    "better, worse",
    [
        ("5S 4D 3C 2H AS", "KS KH KD 7C 2D"),  # the wheel is a straight
        ("6S 5D 4C 3H 2S", "5C 4H 3D 2D AH"),  # and the lowest one
        ("AS KS QS JS TS", "9H 9C 9D 9S 2C"),  # straight flush over four of a kind
        ("2C 2D 2H 3S 3C", "AC KC 9C 7C 5C"),  # full house over flush
        ("KS KH 4C 4D 2S", "QS QH JC JD AS"),  # the higher top pair
        ("KS KH 4C 4D 3S", "KD KC 4H 4S 2S"),  # the kicker
    ],
)
def test_poker_ranking(better: str, worse: str) -> None:
    game = poker()
    feed(game, show("Ann", *worse.split()), show("Bob", *better.split()))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Bob"] == balances["Bob"] + 5 and game.balances["Ann"] == balances["Ann"]


def test_all_but_one_fold_he_takes_it_unshown() -> None:
    game = poker()
    feed(game, bet("Ann", 2), fold("Bob"), fold("Cy"), fold("Dee"))
    balances = game.balances
    game.push(NEXT)
    assert game.balances["Ann"] == balances["Ann"] + 7
    assert game.board["poker"] == 0


def test_nobody_shows_the_chips_stay() -> None:
    game = poker()
    feed(game, bet("Ann", 2), bet("Bob", 2), NEXT)
    assert game.board["poker"] == 9
    assert game.phase == "run"


def test_everybody_folds_the_chips_stay() -> None:
    game = poker()
    feed(game, bet("Ann", 2), *(fold(p) for p in FOUR), NEXT)
    assert game.board["poker"] == 7


def test_a_folded_player_may_neither_bet_nor_show() -> None:
    game = poker()
    feed(game, fold("Cy"))
    refused(game, bet("Cy", 1), errors.OutOfTurn)
    refused(game, show("Cy", "AS", "KS", "9D", "7C", "4H"), errors.OutOfTurn)
    refused(game, fold("Cy"), errors.OutOfTurn)
    game.push(show("Bob", "AS", "KS", "9D", "7C", "4H"))
    refused(game, fold("Bob"), errors.OutOfTurn)  # a shown hand stays in
    refused(game, show("Bob", "2S", "3S", "5D", "8C", "JD"), errors.OutOfTurn)  # one show


def test_poker_refusals() -> None:
    game = poker()
    refused(game, bet("Zed", 1), errors.UnknownPlayer)
    refused(game, show("Ann", "AS", "KS", "9D", "7C"), errors.BadCombination)
    refused(game, show("Ann", "AS", "KS", "9D", "7C", "4H", "2H"), errors.BadCombination)
    refused(game, {"type": "bet", "player": "Ann", "chips": 0}, RecordError)


# ------------------------------------------------------------------ the run


def test_the_dealer_leads() -> None:
    game = in_run(dealer="Cy")
    assert game.view()["run"]["to_reopen"] == "Cy"
    refused(game, play("Ann", "2H"), errors.OutOfTurn)
    game.push(play("Cy", "2H"))


def test_anyone_holding_the_next_card_plays_it_in_any_seat_order() -> None:
    game = in_run()
    feed(game, play("Ann", "4D"), play("Dee", "5D"), play("Bob", "6D"), play("Bob", "7D"), play("Ann", "8D"))
    assert game.view()["run"]["next_card"] == "9D"
    refused(game, play("Cy", "TD"), errors.NotNextCard)


def test_after_a_stop_only_the_stop_player_reopens_in_another_suit() -> None:
    game = in_run()
    feed(game, play("Ann", "5H"), play("Bob", "6H"))
    refused(game, play("Cy", "2C"), errors.NotNextCard)  # wrong player
    refused(game, play("Bob", "9H"), errors.NotNextCard)  # same suit
    game.push(play("Bob", "2C"))  # 7H is now known passed over
    assert [str(c) for c in game.state.stops] == ["6H"]
    refused(game, play("Cy", "7H"), errors.Withheld)


def test_after_an_ace_the_stop_is_known_at_once() -> None:
    game = in_run()
    feed(game, *plays("Ann", "QS KS"), play("Bob", "AS"))
    assert game.view()["run"]["to_reopen"] == "Bob"
    refused(game, play("Cy", "2C"), errors.OutOfTurn)
    refused(game, play("Bob", "2S"), errors.NotNextCard)
    refused(game, {"type": "pass", "player": "Cy"}, errors.OutOfTurn)
    game.push(play("Bob", "2D"))
    assert game.state.passed_over == set()


def test_a_run_meeting_an_already_played_card_stops_at_once() -> None:
    game = in_run()
    feed(game, play("Ann", "5H"), play("Ann", "2C"), play("Bob", "3C"), play("Bob", "4H"))  # 4H: 5H is played
    assert game.view()["run"]["to_reopen"] == "Bob"
    assert {str(c) for c in game.state.passed_over} == {"6H", "4C"}  # by the two reopens, not 5H


def test_pass_ends_the_hand_nobody_takes_the_pot_pay_cards_stay_won() -> None:
    game = in_run()
    feed(game, play("Ann", "9H"), play("Bob", "TH"))
    assert game.board["TH"] == 0
    balances = game.balances
    pot = game.board["pot"]
    refused(game, {"type": "pass", "player": "Ann"}, errors.OutOfTurn)  # Bob played last
    game.push({"type": "pass", "player": "Bob"})
    assert game.phase == "between"
    assert game.board["pot"] == pot and game.balances == balances
    refused(game, play("Bob", "2C"), errors.WrongPhase)


def test_reopen_other_colour_option_in_michigan() -> None:
    game = in_run(reopen="other-colour")
    feed(game, play("Ann", "5H"))
    refused(game, play("Ann", "2D"), errors.NotNextCard)  # same colour
    game.push(play("Ann", "2C"))


# ------------------------------------------------------------- pay cards


@pytest.mark.parametrize("card, section", [("AH", "AH"), ("KC", "KC"), ("QH", "QH"), ("JS", "JS"), ("TH", "TH")])
def test_playing_a_pay_card_takes_its_section(card: str, section: str) -> None:
    game = in_run()
    on_section = game.board[section]
    balances = game.balances
    game.push(play("Ann", card))
    assert game.board[section] == 0
    assert game.balances["Ann"] == balances["Ann"] + on_section
    assert game.view()["won"] == [{"section": section, "player": "Ann", "chips": on_section}]


def test_queen_king_of_hearts_by_one_player() -> None:
    game = in_run()
    feed(game, play("Ann", "TH"), play("Bob", "JH"), play("Bob", "QH"))
    refused(game, play("Cy", "5S"), errors.NotNextCard)  # a refused input between does not break it
    game.push(play("Bob", "KH"))
    assert {w["section"] for w in game.view()["won"]} == {"QH-KH"}
    assert game.board["QH-KH"] == 0


def test_queen_king_of_hearts_split_between_players_wins_nothing() -> None:
    game = in_run()
    feed(game, play("Ann", "QH"), play("Bob", "KH"))
    assert game.board["QH-KH"] == 5


@pytest.mark.parametrize("cards", ["7C 8C 9C", "6C 7C 8C 9C", "5C 6C 7C 8C 9C TC"])
def test_seven_eight_nine_by_one_player_in_a_row(cards: str) -> None:
    game = in_run()
    balances = game.balances
    feed(game, *plays("Ann", cards))
    assert game.board["7-8-9"] == 0
    assert game.balances["Ann"] == balances["Ann"] + 5


def test_seven_eight_nine_survives_a_refused_input_between() -> None:
    game = in_run()
    feed(game, play("Ann", "7C"))
    for bad in (play("Bob", "9C"), play("Zed", "8C"), bet("Ann", 2)):
        with pytest.raises(ValueError):
            game.push(bad)
    feed(game, play("Ann", "8C"), play("Ann", "9C"))
    assert game.board["7-8-9"] == 0


def test_seven_eight_nine_broken_by_another_players_play() -> None:
    game = in_run()
    feed(game, play("Ann", "7C"), play("Bob", "8C"), play("Ann", "9C"))
    assert game.board["7-8-9"] == 5
    feed(game, play("Ann", "TC"), play("Ann", "7S"), play("Cy", "8S"), play("Cy", "9S"))
    assert game.board["7-8-9"] == 5  # 7S was Ann's; Cy played only 8-9


def test_seven_eight_nine_of_mixed_suits_wins_nothing() -> None:
    game = in_run()
    feed(game, play("Ann", "6C"), play("Ann", "7C"), play("Ann", "8S"), play("Ann", "9S"))  # 8S reopens spades
    assert game.board["7-8-9"] == 5


# ------------------------------------------------------------ going out


def nine_player_hand(**options: Any) -> Game:
    """Nine players: A and B hold 6 cards, C..I 5, the widow 5; I deals and leads."""
    game = in_run(NINE, dealer="I", **options)
    assert game.state.hand_size == {**{p: 5 for p in NINE}, "A": 6, "B": 6}
    return game


def test_going_out_takes_the_pot_and_a_chip_per_card_left() -> None:
    game = nine_player_hand()
    balances = game.balances
    pot = game.board["pot"]
    assert pot == 10
    feed(game, *plays("I", "2S 3S 4S 5S"))
    assert game.phase == "run"
    game.push(play("I", "6S"))
    assert game.phase == "between"
    assert game.view()["out"] == "I"
    penalties = {"A": 6, "B": 6, **{p: 5 for p in "CDEFGH"}}
    assert game.balances == {
        **{p: balances[p] - penalties[p] for p in penalties},
        "I": balances["I"] + pot + sum(penalties.values()),
    }
    assert game.board["pot"] == 0
    assert {(s["from"], s["chips"]) for s in game.view()["settlement"]} == set(penalties.items())
    refused(game, play("A", "7S"), errors.WrongPhase)  # the hand ended at once


def test_going_out_penalty_counts_only_the_cards_left() -> None:
    game = nine_player_hand()
    feed(game, play("I", "2S"), play("A", "3S"), play("A", "4S"), play("I", "5S"), play("I", "6S"), play("I", "7S"))
    balances = game.balances
    game.push(play("I", "8S"))
    assert game.balances["A"] == balances["A"] - 4


def test_card_penalty_off() -> None:
    game = nine_player_hand(card_penalty=False)
    balances = game.balances
    feed(game, *plays("I", "2S 3S 4S 5S 6S"))
    assert game.phase == "between"
    assert game.balances == {**balances, "I": balances["I"] + 10}


def test_after_an_exchange_the_dealer_goes_out_at_the_widows_size() -> None:
    game = start(NINE, widow_position="first")
    feed(game, {"type": "deal", "dealer": "I"}, {"type": "widow", "action": "exchange"}, NEXT)
    assert game.state.hand_size["I"] == 6
    feed(game, *plays("I", "2S 3S 4S 5S 6S"))
    assert game.phase == "run"
    game.push(play("I", "7S"))
    assert game.phase == "between" and game.view()["out"] == "I"


def test_a_play_while_poker_is_open_closes_it_first() -> None:
    game = poker()
    feed(game, fold("Bob"), fold("Cy"), fold("Dee"))
    balances = game.balances
    game.push(play("Ann", "2C"))
    assert game.phase == "run"
    assert game.balances["Ann"] == balances["Ann"] + 5


def test_a_refused_play_while_poker_is_open_leaves_poker_open() -> None:
    game = poker()
    feed(game, fold("Bob"), fold("Cy"), fold("Dee"))
    refused(game, play("Bob", "2C"), errors.OutOfTurn)
    assert game.phase == "poker"
