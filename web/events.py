"""Checks the shape of record events that arrive from the referee's forms.

The rules engine decides whether an event is *allowed*; this module only makes
sure it is *well-formed* (docs/record.md field values) before it gets there, so the
message a referee sees says which field is wrong, and a stray field from a
browser never lands in the game record. Card codes are written canonically.

>>> check_event({"type": "bet", "player": "Ann", "chips": 2, "note": "x"})
{'type': 'bet', 'player': 'Ann', 'chips': 2}
>>> check_event({"type": "play", "player": "Bob", "card": "10h"})
{'type': 'play', 'player': 'Bob', 'card': 'TH'}
>>> check_event({"type": "bet", "player": "Ann", "chips": "3"})
Traceback (most recent call last):
...
web.events.EventError: chips must be a whole number (not text, 2.0 or true), not '3'
"""

from __future__ import annotations

from typing import Any, Callable

from companion.rules.cards import Card, CardError
from companion.rules.events import MAX_CHIPS
from companion.rules.variants import OPTION_VALUES as OPTIONS
from companion.rules.variants import VARIANTS

MAX_NAME = 24
MAX_CARDS = 14


class EventError(ValueError):
    """An event that is not well-formed; the message names the field."""


def check_event(event: object) -> dict[str, Any]:
    """Return a clean copy of ``event`` (only the fields its type uses), or raise ``EventError``."""
    if not isinstance(event, dict):
        raise EventError("an event must be a JSON object such as {\"type\": \"next\"}")
    kind = event.get("type")
    if kind not in _FIELDS:
        known = ", ".join(_FIELDS)
        raise EventError(f"type must be one of {known}, not {kind!r}")
    clean: dict[str, Any] = {"type": kind}
    for name, check in _FIELDS[kind]:
        if name == "options" and name not in event:
            continue
        if name not in event or event[name] is None:
            raise EventError(f"a {kind} event needs {name!r}")
        clean[name] = check(event[name])
    return clean


def _chips(value: object, *, lowest: int = 1) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise EventError(f"chips must be a whole number (not text, 2.0 or true), not {value!r}")
    if not lowest <= value <= MAX_CHIPS:
        raise EventError(f"chips must be from {lowest} to {MAX_CHIPS}, not {value}")
    return value


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError(f"a player is named by text, not {value!r}")
    name = value.strip()
    if len(name) > MAX_NAME or not name.isprintable():
        raise EventError(f"a player's name is 1 to {MAX_NAME} printable characters, not {value!r}")
    return name


def _card(value: object) -> str:
    try:
        return str(Card.parse(value))  # type: ignore[arg-type]
    except CardError as e:
        raise EventError(str(e)) from None


def _cards(value: object) -> list[str]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_CARDS:
        raise EventError(f"cards must be a list of 1 to {MAX_CARDS} card codes such as [\"QS\", \"JD\"]")
    return [_card(c) for c in value]


def _players(value: object) -> list[str]:
    if not isinstance(value, list) or not 2 <= len(value) <= 9:
        raise EventError("players must be a list of 2 to 9 names, in seating order")
    names = [_name(v) for v in value]
    seen = {n.casefold() for n in names}
    if len(seen) != len(names):
        raise EventError("players must have different names")
    return names


def _variant(value: object) -> str:
    if value not in VARIANTS:
        raise EventError(f"variant must be one of {', '.join(VARIANTS)}, not {value!r}")
    return value  # type: ignore[return-value]


def _options(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EventError("options must be an object such as {\"card_penalty\": false}")
    for key, val in value.items():
        if key not in OPTIONS:
            raise EventError(f"unknown option {key!r} (known: {', '.join(OPTIONS)})")
        if not any(val is v if isinstance(v, bool) else val == v for v in OPTIONS[key]):
            allowed = ", ".join(repr(v).lower() if isinstance(v, bool) else repr(v) for v in OPTIONS[key])
            raise EventError(f"option {key} must be one of {allowed}, not {val!r}")
    return dict(value)


def _action(value: object) -> str:
    if value not in ("keep", "exchange", "sell"):
        raise EventError(f"the widow action must be keep, exchange or sell, not {value!r}")
    return value  # type: ignore[return-value]


_FIELDS: dict[str, tuple[tuple[str, Callable[[Any], Any]], ...]] = {
    "game": (("variant", _variant), ("players", _players), ("chips", _chips), ("options", _options)),
    "deal": (("dealer", _name),),
    "widow": (("action", _action),),
    "bid": (("player", _name), ("chips", _chips)),
    "claim": (("player", _name), ("cards", _cards)),
    "discard": (("player", _name), ("cards", _cards)),
    "show": (("player", _name), ("cards", _cards)),
    "bet": (("player", _name), ("chips", _chips)),
    "fold": (("player", _name),),
    "next": (),
    "play": (("player", _name), ("card", _card)),
    "pass": (("player", _name),),
    "showdown": (),
    "undo": (),
}
