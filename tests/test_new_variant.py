"""A game of one's own: one :class:`Variant` subclass, named in :data:`VARIANTS`, is refereed and
simulated like the three built in, with no change to the engine or the simulated players."""

from __future__ import annotations

import json
from collections.abc import Sequence, Set
from typing import ClassVar

import pytest

from companion.app.simulate import SimulatedTable
from companion.rules import errors
from companion.rules.cards import Card
from companion.rules.game import Game, replay
from companion.rules.variants import VARIANTS, Bonanza, variant_class
from engine_helpers import FOUR, NEXT, feed, new_game, play, show
from hardware.board import Board
from hardware.config import VARIANT_SECTIONS, BoardConfig
from hardware.pins import mock_factory


class AceKing(Bonanza):
    """Bonanza with an Ace-King call in place of Ten-Two, and a section for one player laying KH then AH."""

    name = "ace-king"
    title = "Ace-King Bonanza"
    sections = ("joker", "QS-JD", "sequence", "AD-KC", "poker", "AS", "KH", "QD", "JC", "KH-AH", "centre")
    section_titles: ClassVar[dict[str, str]] = {
        **{n: t for n, t in Bonanza.section_titles.items() if n != "TD-2S"},
        "AD-KC": "Ace-King", "KH-AH": "King-Ace of hearts",
    }
    calls = ("joker", "QS-JD", "sequence", "AD-KC", "poker")
    pair_calls: ClassVar[dict[str, tuple[str, ...]]] = {"QS-JD": ("QS", "JD"), "AD-KC": ("AD", "KC")}

    def play_wins(self, streak: Sequence[Card], won: Set[str]) -> list[tuple[str, str]]:
        wins = super().play_wins(streak, won)
        if [c.code for c in streak[-2:]] == ["KH", "AH"]:
            wins.append(("KH-AH", "plays KH-AH"))
        return wins


TOTAL = 100 * len(FOUR)


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry is the game's own business: the variant is in it for each test and gone after."""
    monkeypatch.setitem(VARIANTS, AceKing.name, AceKing)


def conserved(game: Game) -> bool:
    return sum(game.balances.values()) + sum(game.board.values()) == TOTAL


def at_ace_king_call() -> Game:
    game = new_game(AceKing.name)
    feed(game, {"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "exchange"}, NEXT, NEXT, NEXT)
    assert game.view()["call"] == "AD-KC"
    return game


def test_a_record_names_it_once_it_is_registered() -> None:
    game = new_game(AceKing.name)
    assert variant_class("ace-king") is AceKing and type(game.variant) is AceKing
    assert list(game.board) == list(AceKing.sections)
    assert [s["title"] for s in game.view()["sections"]][3] == "Ace-King"


def test_the_new_call_asks_for_its_cards_and_pays_who_shows_them() -> None:
    game = at_ace_king_call()
    assert "Ace-King: show AD and KC" in [p["text"] for p in game.view()["expect"]]
    with pytest.raises(errors.BadCombination, match="the AD-KC call asks for AD and KC"):
        game.push(show("Bob", "AD KD"))
    on_call = game.board["AD-KC"]
    feed(game, show("Bob", "AD JK"), NEXT)  # the Joker stands for KC
    assert game.board["AD-KC"] == 0 and game.balances["Bob"] == 100 - len(AceKing.sections) + on_call
    assert conserved(game)


def test_the_new_section_of_the_run_is_paid_by_the_variants_hook() -> None:
    game = at_ace_king_call()
    feed(game, NEXT, NEXT)  # nobody shows Ace-King, then poker
    assert game.phase == "run"
    king, pair = game.board["KH"], game.board["KH-AH"]
    feed(game, play("Ann", "KH"), play("Ann", "AH"))
    assert [(w["section"], w["chips"]) for w in game.view()["won"]] == [("KH-AH", pair)]
    assert game.balances["Ann"] == 100 - len(AceKing.sections) + king + pair
    assert conserved(game)


def test_a_simulated_game_conserves_chips_and_pays_the_new_sections() -> None:
    table = SimulatedTable(AceKing.name, FOUR, seed=2)
    events = list(table.play(hands=12, showdown=True))
    game = Game()
    for event in events:
        game.push(event)
        assert conserved(game)
    assert game.phase == "over"
    paid = {m.source for m in game.movements if m.target in FOUR}
    assert {"AD-KC", "KH-AH"} <= paid
    again = replay(json.dumps(e) for e in events)
    assert not again.rejected and again.balances == game.balances


def test_the_board_lights_and_turns_to_its_sections() -> None:
    """The board takes its sections from the rules, so it drives the new game's board unchanged."""
    assert VARIANT_SECTIONS[AceKing.name] == AceKing.sections
    game = at_ace_king_call()
    config = BoardConfig(led_pins=tuple(range(4, 4 + len(AceKing.sections))))
    with Board(config, on_event=print, pin_factory=mock_factory()) as board:
        board.update(game.view())
        assert board.wheel.target == config.angle(AceKing.name, "AD-KC")
