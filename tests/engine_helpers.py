"""Small builders shared by the engine tests: a new game, events in record form, feeding them."""

from __future__ import annotations

from typing import Any

from companion.rules.game import Game

FOUR = ("Ann", "Bob", "Cy", "Dee")
NINE = ("A", "B", "C", "D", "E", "F", "G", "H", "I")
NEXT = {"type": "next"}


def new_game(variant: str = "michigan-1939", players: tuple[str, ...] = FOUR, chips: int = 100, **options: Any) -> Game:
    game = Game()
    first: dict[str, Any] = {"type": "game", "variant": variant, "players": list(players), "chips": chips}
    if options:
        first["options"] = options
    game.push(first)
    return game


def feed(game: Game, *events: dict[str, Any]) -> None:
    for event in events:
        game.push(event)


def play(player: str, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


def plays(player: str, cards: str) -> list[dict[str, Any]]:
    return [play(player, c) for c in cards.split()]


def show(player: str, *cards: str) -> dict[str, Any]:
    """``show("Ann", "QS JD")`` or ``show("Ann", "QS", "JD")``."""
    listed = cards[0].split() if len(cards) == 1 else list(cards)
    return {"type": "show", "player": player, "cards": listed}
