"""Rules common to the three games (docs/rules.md "What every game shares", "What the referee refuses and flags").

Deal sizes, antes, the deal passing left, the end-of-game showdown, undo,
options, refusals that change nothing, and the two flags.
"""

from __future__ import annotations

from typing import Any

import pytest

from companion.rules import errors
from companion.rules.errors import RecordError, RuleError
from companion.rules.game import Game, replay
from engine_helpers import feed, new_game, play, show

start = new_game

FOUR = ("Ann", "Bob", "Cy", "Dee")
NINE = ("A", "B", "C", "D", "E", "F", "G", "H", "I")


def deal(dealer: str) -> dict[str, Any]:
    return {"type": "deal", "dealer": dealer}


KEEP = {"type": "widow", "action": "keep"}
EXCHANGE = {"type": "widow", "action": "exchange"}
NEXT = {"type": "next"}
UNDO = {"type": "undo"}


def to_run(game: Game, dealer: str) -> None:
    """Deal, settle the widow, close every call or claim phase without a show."""
    variant = game.variant.name
    feed(game, deal(dealer), EXCHANGE if variant == "bonanza" else KEEP)
    while game.phase != "run":
        game.push(NEXT)


def to_run_from_widow(game: Game) -> None:
    """Keep the widow and close every phase up to the run."""
    game.push(KEEP)
    while game.phase != "run":
        game.push(NEXT)


def total(game: Game) -> int:
    return sum(game.balances.values()) + sum(game.board.values())


def refused(game: Game, event: dict[str, Any], kind: type[ValueError]) -> ValueError:
    """Push ``event``, expect the refusal ``kind``, and check it changed nothing."""
    before = game.view()
    events_before = game.events
    with pytest.raises(kind) as info:
        game.push(event)
    assert game.view() == before
    assert game.events == events_before
    return info.value


# ------------------------------------------------------------------ the deal


def test_four_players_52_cards_11_11_10_10_widow_10_widow_last() -> None:
    game = start()
    game.push(deal("Dee"))  # Ann sits left of Dee, so she is dealt first
    assert game.state.hand_size == {"Ann": 11, "Bob": 11, "Cy": 10, "Dee": 10}
    assert game.state.widow_size == 10


def test_widow_first_takes_the_first_extra_card() -> None:
    game = start(widow_position="first")
    game.push(deal("Dee"))
    assert game.state.widow_size == 11
    assert game.state.hand_size == {"Ann": 11, "Bob": 10, "Cy": 10, "Dee": 10}


def test_bonanza_deals_53_cards() -> None:
    game = start("bonanza")
    game.push(deal("Dee"))
    assert game.state.hand_size == {"Ann": 11, "Bob": 11, "Cy": 11, "Dee": 10}
    assert game.state.widow_size == 10
    game = start("bonanza", widow_position="first")
    game.push(deal("Dee"))
    assert game.state.widow_size == 11
    assert game.state.hand_size == {"Ann": 11, "Bob": 11, "Cy": 10, "Dee": 10}


@pytest.mark.parametrize("variant, pack", [("michigan-1939", 52), ("bonanza", 53), ("tripoley", 52)])
@pytest.mark.parametrize("n", range(2, 10))
@pytest.mark.parametrize("position", ["last", "first"])
def test_every_table_size_deals_the_whole_pack(variant: str, pack: int, n: int, position: str) -> None:
    players = NINE[:n]
    game = start(variant, players, widow_position=position)
    dealer = players[1 % n]
    game.push(deal(dealer))
    s = game.state
    order = [players[(players.index(dealer) + i) % n] for i in range(1, n + 1)]
    hands = [s.widow_size] + [s.hand_size[p] for p in order] if position == "first" else [
        s.hand_size[p] for p in order
    ] + [s.widow_size]
    assert sum(hands) == pack
    extra = pack % (n + 1)
    assert hands == [pack // (n + 1) + 1] * extra + [pack // (n + 1)] * (n + 1 - extra)


def test_two_players_michigan_18_17_widow_17() -> None:
    game = start(players=("Ann", "Bob"))
    game.push(deal("Ann"))
    assert game.state.hand_size == {"Bob": 18, "Ann": 17}
    assert game.state.widow_size == 17


# ------------------------------------------------------------------ antes


def test_michigan_dealer_antes_two_on_each_section() -> None:
    game = start()
    game.push(deal("Ann"))
    assert game.board == {section: 2 + 3 for section in game.variant.sections}
    assert game.balances == {"Ann": 100 - 18, "Bob": 91, "Cy": 91, "Dee": 91}


@pytest.mark.parametrize("variant, sections", [("bonanza", 10), ("tripoley", 9)])
def test_bonanza_and_tripoley_everyone_antes_one_on_each_section(variant: str, sections: int) -> None:
    game = start(variant)
    game.push(deal("Ann"))
    assert len(game.board) == sections
    assert set(game.board.values()) == {4}
    assert set(game.balances.values()) == {100 - sections}


def test_unwon_chips_stay_and_the_next_ante_adds_to_them() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "2H"), {"type": "pass", "player": "Ann"})  # Michigan: the hand ends, nobody wins
    assert game.phase == "between"
    game.push(deal("Bob"))
    assert game.board == {section: 10 for section in game.variant.sections}
    assert game.balances == {"Ann": 100 - 18 - 9, "Bob": 91 - 18, "Cy": 82, "Dee": 82}
    assert total(game) == 400


# ------------------------------------------------------- the deal passes left


def test_first_deal_may_name_anyone_later_deals_pass_left() -> None:
    game = start()
    game.push(deal("Cy"))
    refused(game, deal("Dee"), errors.WrongPhase)  # mid-hand
    to_run_from_widow(game)
    feed(game, play("Cy", "4D"), {"type": "pass", "player": "Cy"})
    refused(game, deal("Cy"), errors.OutOfTurn)
    refused(game, deal("Ann"), errors.OutOfTurn)
    game.push(deal("Dee"))
    to_run_from_widow(game)
    feed(game, play("Dee", "4D"), {"type": "pass", "player": "Dee"})
    game.push(deal("Ann"))  # round the ring
    assert game.state.dealer == "Ann" and game.state.hands == 3


def test_deal_by_a_stranger_is_refused() -> None:
    game = start()
    refused(game, deal("Zed"), errors.UnknownPlayer)


# ------------------------------------------------------------------ showdown


def ended_michigan_hand() -> Game:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "2H"), {"type": "pass", "player": "Ann"})
    assert game.phase == "between"
    return game


def test_showdown_moves_every_chip_to_poker_and_the_best_hand_takes_all() -> None:
    game = ended_michigan_hand()
    on_board = sum(game.board.values())
    game.push({"type": "showdown"})
    assert game.phase == "showdown"
    assert game.board["poker"] == on_board
    assert sum(game.board.values()) == on_board
    # fresh cards: 2H was played in the hand, it may be dealt again
    feed(
        game,
        show("Ann", "2H", "2S", "2D", "7C", "9C"),
        show("Bob", "AS", "AH", "KD", "KC", "3S"),
        show("Cy", "QS", "QH", "QD", "4C", "4D"),
        show("Dee", "5S", "6H", "7D", "8S", "TC"),
        NEXT,
    )
    assert game.phase == "over"
    assert game.board["poker"] == 0 and sum(game.board.values()) == 0
    balances_before_winner = {"Ann": 82, "Bob": 91, "Cy": 91, "Dee": 91}
    assert game.balances == {**balances_before_winner, "Cy": 91 + on_board}
    assert total(game) == 400
    for event in (deal("Bob"), {"type": "showdown"}, NEXT, show("Ann", "2C", "3C", "4C", "5C", "7S"), play("Bob", "3H")):
        refused(game, event, errors.WrongPhase)


def test_showdown_before_the_first_deal_and_an_exact_tie_splits_leaving_the_odd_chip() -> None:
    game = start(players=("Ann", "Bob", "Cy"), chips=10)
    game.push({"type": "showdown"})
    assert game.board["poker"] == 0
    feed(game, show("Ann", "AS", "KS", "9D", "7C", "4H"), show("Bob", "AH", "KH", "9C", "7D", "4S"), NEXT)
    assert game.phase == "over"

    game = ended_michigan_hand()
    game.push({"type": "showdown"})
    pot = game.board["poker"]
    assert pot % 2 == 1  # 45 chips of antes: an odd chip must stay
    feed(
        game,
        show("Ann", "AS", "KS", "9D", "7C", "4H"),
        show("Bob", "AH", "KH", "9C", "7D", "4S"),  # the same hand: suits never break a tie
        show("Cy", "2S", "3D", "5C", "8H", "JD"),
        NEXT,
    )
    assert game.board["poker"] == 1
    assert game.balances["Ann"] == 82 + pot // 2 and game.balances["Bob"] == 91 + pot // 2


def test_showdown_refusals() -> None:
    game = start()
    to_run(game, "Ann")
    refused(game, {"type": "showdown"}, errors.WrongPhase)  # only between hands
    game = ended_michigan_hand()
    game.push({"type": "showdown"})
    game.push(show("Ann", "AS", "KS", "9D", "7C", "4H"))
    refused(game, show("Bob", "AS", "QS", "9S", "7S", "4S"), errors.CardUnavailable)  # dealt to Ann
    refused(game, show("Bob", "JK", "QS", "9S", "7S", "4S"), errors.CardNotInPack)
    refused(game, show("Bob", "QS", "9S", "7S", "4S"), errors.BadCombination)
    refused(game, show("Ann", "2S", "3S", "5D", "8C", "JD"), errors.OutOfTurn)  # one show each
    refused(game, {"type": "bet", "player": "Bob", "chips": 3}, errors.WrongPhase)


def test_bonanza_showdown_with_the_joker_wild() -> None:
    game = start("bonanza", players=("Ann", "Bob"))
    game.push({"type": "showdown"})
    feed(game, show("Ann", "JK", "AS", "AH", "KD", "KC"), show("Bob", "QS", "QH", "QD", "2C", "2D"), NEXT)
    assert game.balances == {"Ann": 100, "Bob": 100}  # nothing on the wheel before the first deal
    assert game.phase == "over"


# ------------------------------------------------------------------ undo


def test_each_undo_takes_back_one_more_and_restores_the_view() -> None:
    game = start()
    views = [game.view()]
    for event in (deal("Ann"), KEEP, {"type": "bet", "player": "Bob", "chips": 3}, show("Bob", "9S", "9H", "4C", "4D", "KS"), NEXT,
                  play("Ann", "5H")):
        game.push(event)
        views.append(game.view())
    for expected in reversed(views[:-1]):
        game.push(UNDO)
        assert game.view() == expected
    assert game.phase == "setup"
    refused(game, UNDO, errors.WrongPhase)  # the game line cannot be undone
    assert game.started and game.events[0].type == "game"


def test_undo_takes_back_the_winnings_of_the_undone_play() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "9H"))
    before = game.view()
    game.push(play("Ann", "TH"))
    assert game.balances["Ann"] == before["balances"]["Ann"] + 5
    game.push(UNDO)
    assert game.view() == before


def test_pop_returns_the_event_taken_back() -> None:
    game = start()
    game.push(deal("Ann"))
    assert game.pop().type == "deal"
    with pytest.raises(errors.WrongPhase):
        game.pop()


def test_undo_in_a_replay_counts_back_over_refused_lines() -> None:
    lines = [
        '{"type":"game","variant":"michigan-1939","players":["Ann","Bob","Cy"],"chips":100}',
        '{"type":"deal","dealer":"Ann"}',
        '{"type":"widow","action":"keep"}',
        '{"type":"bet","player":"Bob","chips":4}',
        '{"type":"bet","player":"Zed","chips":4}',
        '{"type":"undo"}',
        '{"type":"undo"}',
    ]
    game = replay(lines)
    assert game.phase == "widow"
    assert game.board["poker"] == 4
    assert [r["line"] for r in game.summary()["rejected"]] == [5]


# ------------------------------------------------------------------ options


@pytest.mark.parametrize(
    "options",
    [
        {"widow": "last"},
        {"widow_position": "middle"},
        {"widow_position": None},
        {"reopen": "sideways"},
        {"reopen": "other-suit", "colour": True},
        {"card_penalty": 1},
        {"card_penalty": "true"},
        {"card_penalty": None},
    ],
)
def test_bad_options_make_the_game_line_invalid(options: dict[str, Any]) -> None:
    game = Game()
    with pytest.raises(RecordError):
        game.push({"type": "game", "variant": "tripoley", "players": ["Ann", "Bob"], "chips": 10, "options": options})
    assert not game.started


@pytest.mark.parametrize(
    "first",
    [
        {"type": "game", "variant": "gin", "players": ["Ann", "Bob"], "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann"], "chips": 10},
        {"type": "game", "variant": "bonanza", "players": list("ABCDEFGHIJ"), "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Ann"], "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann", ""], "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 0},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 2.0},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": "3"},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": True},
        {"type": "game", "variant": "bonanza", "players": "Ann Bob", "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "Bob"], "chips": 10, "options": ["reopen"]},
        {"type": "deal", "dealer": "Ann"},
        {"type": "game", "variant": "michigan-1939", "players": ["Ann", "pot"], "chips": 10},
        {"type": "game", "variant": "tripoley", "players": ["kitty", "Bob"], "chips": 10},
        {"type": "game", "variant": "bonanza", "players": ["Ann", "QS-JD"], "chips": 10},
    ],
)
def test_bad_first_lines_start_no_game(first: dict[str, Any]) -> None:
    game = Game()
    with pytest.raises(ValueError):
        game.push(first)
    assert not game.started


@pytest.mark.parametrize(
    "options, key, value",
    [
        ({}, "widow_position", "last"),
        ({"widow_position": "first"}, "widow_position", "first"),
        ({"reopen": "other-colour"}, "reopen", "other-colour"),
        ({"card_penalty": False}, "card_penalty", False),
    ],
)
def test_good_options_are_kept(options: dict[str, Any], key: str, value: Any) -> None:
    game = start(**options)
    assert game.variant.options[key] == value


def test_variant_defaults() -> None:
    assert start().variant.options == {"widow_position": "last", "reopen": "other-suit", "card_penalty": True}
    assert start("bonanza").variant.options["reopen"] == "other-colour"
    assert start("bonanza").variant.options["card_penalty"] is True
    assert start("tripoley").variant.options["reopen"] == "other-suit"


def test_a_second_game_line_is_refused() -> None:
    game = start()
    refused(game, {"type": "game", "variant": "bonanza", "players": ["X", "Y"], "chips": 5}, errors.WrongPhase)


# -------------------------------------------------- refusals change nothing


def test_refusals_in_each_phase_change_nothing() -> None:
    game = start()
    refused(game, play("Ann", "2H"), errors.WrongPhase)
    refused(game, KEEP, errors.WrongPhase)
    game.push(deal("Ann"))
    refused(game, {"type": "bet", "player": "Bob", "chips": 1}, errors.WrongPhase)  # widow first
    refused(game, {"type": "bid", "player": "Zed", "chips": 1}, errors.UnknownPlayer)
    refused(game, {"type": "claim", "player": "Bob", "cards": ["AH"]}, errors.WrongPhase)  # not Tripoley
    game.push(KEEP)
    refused(game, {"type": "bid", "player": "Bob", "chips": 1}, errors.WrongPhase)
    refused(game, show("Bob", "JK", "2S", "3S", "4S", "5S"), errors.CardNotInPack)
    refused(game, show("Bob", "2S", "3S", "4S", "5S"), errors.BadCombination)
    refused(game, {"type": "pass", "player": "Ann"}, errors.WrongPhase)
    refused(game, {"type": "discard", "player": "Ann", "cards": ["JK"]}, errors.WrongPhase)
    game.push(NEXT)
    refused(game, {"type": "bet", "player": "Bob", "chips": 1}, errors.WrongPhase)  # poker is over
    refused(game, NEXT, errors.WrongPhase)
    refused(game, play("Bob", "2H"), errors.OutOfTurn)  # Ann leads
    refused(game, play("Ann", "JK"), errors.CardNotInPack)
    refused(game, {"type": "pass", "player": "Ann"}, errors.OutOfTurn)  # nothing to pass at the lead


@pytest.mark.parametrize(
    "event",
    [
        {"type": "bet", "player": "Bob", "chips": 0},
        {"type": "bet", "player": "Bob", "chips": -2},
        {"type": "bet", "player": "Bob", "chips": 2.0},
        {"type": "bet", "player": "Bob", "chips": "3"},
        {"type": "bet", "player": "Bob", "chips": True},
        {"type": "bet", "player": "Bob"},
        {"type": "bet", "player": 7, "chips": 2},
        {"type": "show", "player": "Bob", "cards": "9S 9H 4C 4D KS"},
        {"type": "show", "player": "Bob", "cards": ["9S", "9S", "4C", "4D", "KS"]},
        {"type": "show", "player": "Bob", "cards": ["9S", "9H", "4C", "4D", "1S"]},
        {"type": "show", "player": "Bob", "cards": []},
        {"type": "show", "player": "Bob", "cards": [["9S"]]},
        {"type": "fold"},
        {"type": "tip", "player": "Bob"},
        {"player": "Bob"},
    ],
)
def test_malformed_events_are_record_errors_and_change_nothing(event: dict[str, Any]) -> None:
    game = start()
    feed(game, deal("Ann"), KEEP)
    refused(game, event, RecordError)


def test_every_refusal_is_a_value_error_with_a_reason() -> None:
    for cls in (errors.RecordError, errors.RuleError, errors.WrongPhase, errors.UnknownPlayer, errors.OutOfTurn,
                errors.CardNotInPack, errors.CardUnavailable, errors.NotNextCard, errors.BadAmount,
                errors.TooManyCards, errors.BadCombination, errors.Withheld):
        assert issubclass(cls, ValueError)
    game = start()
    with pytest.raises(RuleError, match="Zed"):
        game.push(deal("Zed"))


# ----------------------------------------------- what the engine learns


def test_a_card_shown_by_bob_cannot_be_shown_or_played_by_ann() -> None:
    game = start()
    feed(game, deal("Ann"), KEEP, show("Bob", "9S", "9H", "4C", "4D", "KS"))
    error = refused(game, show("Ann", "9S", "2H", "3H", "5H", "6H"), errors.CardUnavailable)
    assert "Bob" in str(error)
    game.push(NEXT)
    refused(game, play("Ann", "9S"), errors.CardUnavailable)
    game.push(play("Ann", "8S"))
    refused(game, play("Ann", "9S"), errors.CardUnavailable)
    game.push(play("Bob", "9S"))  # his own card he may play
    refused(game, play("Cy", "9S"), errors.CardUnavailable)  # and now it is played


def test_a_card_already_played_is_refused() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "5H"), play("Bob", "6H"))
    refused(game, play("Cy", "6H"), errors.CardUnavailable)
    refused(game, play("Cy", "5H"), errors.CardUnavailable)


def test_a_card_not_in_the_pack_is_refused() -> None:
    game = start()
    to_run(game, "Ann")
    refused(game, play("Ann", "JK"), errors.CardNotInPack)


# ------------------------------------------------------------------ flags


def withheld_game() -> Game:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "5H"), play("Cy", "6H"), play("Cy", "3C"))  # Cy reopens: 7H was passed over
    return game


def test_withheld_card_played_later_is_refused_and_flagged_on_its_line() -> None:
    game = withheld_game()
    assert game.state.stops[-1].rank == "6"
    game.push(play("Cy", "4C"))
    before = game.view()
    assert game.push_line({"type": "play", "player": "Bob", "card": "7H"}, line=42) is False
    assert game.rejected[-1]["line"] == 42 and "7H" in game.rejected[-1]["reason"]
    assert game.flags == [{"line": 42, "kind": "withheld", "players": ["Bob"], "cards": ["7H"]}]
    after = game.view()
    assert {k: v for k, v in after.items() if k not in ("rejected", "flags")} == {
        k: v for k, v in before.items() if k not in ("rejected", "flags")
    }
    with pytest.raises(errors.Withheld):
        game.push(play("Ann", "7H"))


def test_withheld_after_a_michigan_pass() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "5H"), {"type": "pass", "player": "Ann"})  # 6H passed over, the hand ends
    assert game.phase == "between"
    assert "6H" in {str(c) for c in game.state.passed_over}


def test_not_lowest_flags_the_opener_and_the_play_stands() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "5H"), play("Bob", "6H"), play("Bob", "2C"), play("Cy", "3C"), play("Cy", "2H"))
    assert game.flags == []
    game.push(play("Ann", "3H"), line=77)
    assert game.flags == [{"line": 77, "kind": "not-lowest", "players": ["Ann"], "cards": ["5H", "3H"]}]
    assert "3H" in game.view()["run"]["played"]["Ann"]
    game.push(play("Ann", "4H"))  # the run goes on: 4H is next, 5H already played
    assert len(game.flags) == 2 and game.flags[1]["cards"] == ["5H", "4H"]


def test_not_lowest_for_a_reopened_suit_but_not_for_another_player() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "2H"), play("Ann", "3H"), play("Ann", "8C"))  # Ann reopens clubs with 8C
    feed(game, play("Ann", "9C"), play("Bob", "TC"), play("Bob", "2S"), play("Cy", "3S"), play("Cy", "5C"))
    # Cy opened spades, not clubs: 5C below Ann's 8C is not Cy's fault
    assert game.flags == []
    game.push(play("Cy", "6C"))
    game.push(play("Ann", "7C"))
    assert game.flags[-1]["players"] == ["Ann"] and game.flags[-1]["cards"] == ["8C", "7C"]


def test_a_flag_raised_by_an_undone_event_goes_with_it() -> None:
    game = start()
    to_run(game, "Ann")
    feed(game, play("Ann", "5H"), play("Bob", "6H"), play("Bob", "2C"), play("Cy", "3C"), play("Cy", "2H"), play("Ann", "3H"))
    assert len(game.flags) == 1
    game.push(UNDO)
    assert game.flags == []


# ------------------------------------------------------------------ chips


def test_chips_are_conserved_through_a_busy_hand() -> None:
    game = start()
    feed(
        game,
        deal("Ann"),
        {"type": "bid", "player": "Bob", "chips": 3},
        {"type": "bid", "player": "Cy", "chips": 5},
        {"type": "widow", "action": "sell"},
        {"type": "bet", "player": "Ann", "chips": 7},
        {"type": "bet", "player": "Bob", "chips": 2},
        show("Ann", "AS", "AD", "4C", "4D", "KS"),
        show("Bob", "2C", "3C", "4H", "5S", "6D"),
        NEXT,
        play("Ann", "9H"),
        play("Bob", "TH"),
    )
    assert total(game) == 400
    assert all(m.chips > 0 for m in game.movements)


def test_balances_may_go_below_zero() -> None:
    game = start(players=("Ann", "Bob", "Cy"), chips=5)
    game.push(deal("Ann"))
    assert game.balances == {"Ann": 5 - 18, "Bob": 5 - 9, "Cy": 5 - 9}
    assert total(game) == 15
