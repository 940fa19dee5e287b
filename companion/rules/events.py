"""Game-record events (docs/record.md) as small frozen value types.

The camera, the tablet and the buttons all speak these. Parsing checks the
*shape* of an event (types, fields, card codes); whether it is allowed at
this point of the game is the engine's business (``companion.rules.game``).

>>> parse_event({"type": "play", "player": "Bob", "card": "10h"})
Play(player='Bob', card=Card.parse('TH'))
>>> parse_event({"type": "play", "player": "Bob", "card": "TH"}).to_dict()
{'type': 'play', 'player': 'Bob', 'card': 'TH'}
>>> parse_event({"type": "bet", "player": "Ann", "chips": 2.0})
Traceback (most recent call last):
...
companion.rules.errors.RecordError: bet: 'chips' must be a whole number of chips, not 2.0
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.cards import Card, CardError
from companion.rules.errors import RecordError
from companion.rules.variants import Variant, variant_class

MAX_CHIPS = 10**9
"""No table stakes a billion chips; anything above is a typing or reading error."""

MAX_PLAYERS = 9


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every record event; ``type`` is the name used in records."""

    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, Card):
                value = str(value)
            elif isinstance(value, tuple) and name == "cards":
                value = [str(c) for c in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class NewGame(Event):
    type: ClassVar[str] = "game"
    variant: str
    players: tuple[str, ...]
    chips: int
    options: Mapping[str, Any] | None = None

    def make_variant(self) -> Variant:
        return variant_class(self.variant)(options=self.options)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "game", "variant": self.variant, "players": list(self.players), "chips": self.chips}
        if self.options:
            out["options"] = dict(self.options)
        return out


@dataclass(frozen=True, slots=True)
class Deal(Event):
    type: ClassVar[str] = "deal"
    dealer: str


@dataclass(frozen=True, slots=True)
class Widow(Event):
    type: ClassVar[str] = "widow"
    action: str


@dataclass(frozen=True, slots=True)
class Bid(Event):
    type: ClassVar[str] = "bid"
    player: str
    chips: int


@dataclass(frozen=True, slots=True)
class Claim(Event):
    type: ClassVar[str] = "claim"
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Discard(Event):
    type: ClassVar[str] = "discard"
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Show(Event):
    type: ClassVar[str] = "show"
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Bet(Event):
    type: ClassVar[str] = "bet"
    player: str
    chips: int


@dataclass(frozen=True, slots=True)
class Fold(Event):
    type: ClassVar[str] = "fold"
    player: str


@dataclass(frozen=True, slots=True)
class Next(Event):
    type: ClassVar[str] = "next"


@dataclass(frozen=True, slots=True)
class Play(Event):
    type: ClassVar[str] = "play"
    player: str
    card: Card


@dataclass(frozen=True, slots=True)
class Pass(Event):
    type: ClassVar[str] = "pass"
    player: str


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    type: ClassVar[str] = "showdown"


@dataclass(frozen=True, slots=True)
class Undo(Event):
    type: ClassVar[str] = "undo"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (NewGame, Deal, Widow, Bid, Claim, Discard, Show, Bet, Fold, Next, Play, Pass, Showdown, Undo)
}


def _player(obj: Mapping[str, Any], kind: str, key: str = "player") -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RecordError(f"{kind}: {key!r} must be a player's name, not {value!r}")
    return value


def _chips(obj: Mapping[str, Any], kind: str) -> int:
    value = obj.get("chips")
    if type(value) is not int:
        raise RecordError(f"{kind}: 'chips' must be a whole number of chips, not {value!r}")
    if not 1 <= value <= MAX_CHIPS:
        raise RecordError(f"{kind}: 'chips' must be between 1 and {MAX_CHIPS}, not {value}")
    return value


def _card(value: Any, kind: str) -> Card:
    try:
        return Card.parse(value)
    except CardError as exc:
        raise RecordError(f"{kind}: {exc}") from None


def _cards(obj: Mapping[str, Any], kind: str) -> tuple[Card, ...]:
    value = obj.get("cards")
    if not isinstance(value, list) or not value:
        raise RecordError(f"{kind}: 'cards' must be a non-empty list of card codes, not {value!r}")
    cards = tuple(_card(v, kind) for v in value)
    if len(set(cards)) != len(cards):
        raise RecordError(f"{kind}: the same card is listed twice in {[str(c) for c in cards]}")
    return cards


def _parse_game(obj: Mapping[str, Any]) -> NewGame:
    variant = obj.get("variant")
    if not isinstance(variant, str):
        raise RecordError(f"game: 'variant' must be a variant name, not {variant!r}")
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
        raise RecordError("game: 'players' must be a list of names")
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise RecordError(f"game: 2 to {MAX_PLAYERS} players sit at the table, not {len(players)}")
    if len(set(players)) != len(players):
        raise RecordError("game: the players' names must be distinct")
    chips = _chips(obj, "game")
    options = obj.get("options")
    if options is not None and not isinstance(options, dict):
        raise RecordError(f"game: 'options' must be an object, not {options!r}")
    event = NewGame(variant, tuple(players), chips, options or None)
    board = event.make_variant().sections  # validates the variant name and the options
    clash = [p for p in players if p in board]
    if clash:  # chips move between players and sections by name: the two must not be confused
        raise RecordError(f"game: a player may not be named like a section of the board: {clash[0]!r}")
    return event


def parse_event(obj: Any) -> Event:
    """Check one decoded record line and turn it into its event.

    Raises :class:`RecordError` naming what is wrong; fields a type does not
    use are ignored, as docs/record.md says.
    """
    if not isinstance(obj, dict):
        raise RecordError(f"an event must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise RecordError(f"unknown event type {kind!r} (one of {', '.join(EVENT_TYPES)})")
    if kind == "game":
        return _parse_game(obj)
    if kind == "deal":
        return Deal(_player(obj, kind, "dealer"))
    if kind == "widow":
        action = obj.get("action")
        if action not in ("keep", "exchange", "sell"):
            raise RecordError(f"widow: 'action' must be keep, exchange or sell, not {action!r}")
        return Widow(action)
    if kind in ("bid", "bet"):
        return EVENT_TYPES[kind](_player(obj, kind), _chips(obj, kind))  # type: ignore[call-arg]
    if kind in ("claim", "discard", "show"):
        return EVENT_TYPES[kind](_player(obj, kind), _cards(obj, kind))  # type: ignore[call-arg]
    if kind in ("fold", "pass"):
        return EVENT_TYPES[kind](_player(obj, kind))  # type: ignore[call-arg]
    if kind == "play":
        return Play(_player(obj, kind), _card(obj.get("card"), kind))
    return EVENT_TYPES[kind]()


MAX_JSON_DEPTH = 32
"""Nesting deeper than any event needs; checked before parsing (deep nesting would exhaust Python's stack)."""
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> int:
    """How deeply the arrays and objects of the JSON ``text`` nest (brackets inside strings do not count).

    >>> json_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    for bracket in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        if bracket.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def parse_line(line: str) -> Event:
    """Decode one JSON Lines record line."""
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RecordError(f"not JSON: {exc}") from None
    return parse_event(obj)


def as_event(event: Event | Mapping[str, Any]) -> Event:
    """Accept either an event or its record dict."""
    return event if isinstance(event, Event) else parse_event(dict(event))
