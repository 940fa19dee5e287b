"""Reads an event from the referee's forms: the engine's own parsing, then the pages' limits.

``companion.rules.events.parse_event`` decides whether an event is well-formed
(docs/record.md: its type's fields, whole chips, card codes, the variant and its
options); the rules engine then decides whether it is allowed. The copy returned
is the record's canonical form (``Event.to_dict``): card codes written
canonically, no stray field from a browser.

The pages add limits of their own, for what a referee types, not for records:
names are stripped of the spaces a form leaves around them, have 1 to 24
printable characters (what the scoreboard has room for) and differ from each
other whatever their case, and a form sends at most 14 cards at once. A record
from elsewhere with a longer name still replays and imports; the referee's
forms just cannot start one.

>>> check_event({"type": "bet", "player": "Ann ", "chips": 2, "note": "x"})
{'type': 'bet', 'player': 'Ann', 'chips': 2}
>>> check_event({"type": "play", "player": "Bob", "card": "10h"})
{'type': 'play', 'player': 'Bob', 'card': 'TH'}
>>> check_event({"type": "bet", "player": "Ann", "chips": "3"})
Traceback (most recent call last):
...
web.events.EventError: bet: 'chips' must be a whole number of chips, not '3'
>>> check_event({"type": "game", "variant": "tripoley", "players": ["Ann", "ANN"], "chips": 50})
Traceback (most recent call last):
...
web.events.EventError: game: 'players' must differ from each other whatever their case, not ['Ann', 'ANN']
"""

from __future__ import annotations

from typing import Any

from companion.rules.errors import RecordError
from companion.rules.events import parse_event

MAX_NAME = 24
MAX_CARDS = 14
_NAMED = ("player", "dealer")
"""The fields that name one player; ``players`` names them all."""


class EventError(ValueError):
    """An event from a form that is not well-formed, or is beyond the pages' limits; the message names the field."""


def check_event(event: object) -> dict[str, Any]:
    """The canonical record copy of ``event``, or ``EventError``."""
    try:
        clean = parse_event(_stripped(event)).to_dict()
    except RecordError as e:
        raise EventError(str(e)) from None
    kind = clean["type"]
    names = [(field, clean[field]) for field in _NAMED if field in clean]
    names += [("players", name) for name in clean.get("players", ())]
    for field, name in names:
        if len(name) > MAX_NAME or not name.isprintable():
            raise EventError(f"{kind}: {field!r} must be a name of 1 to {MAX_NAME} printable characters, not {name!r}")
    players = clean.get("players", [])
    if len({name.casefold() for name in players}) != len(players):
        raise EventError(f"{kind}: 'players' must differ from each other whatever their case, not {players!r}")
    if len(clean.get("cards", ())) > MAX_CARDS:
        raise EventError(f"{kind}: 'cards' must list at most {MAX_CARDS} cards, not {len(clean['cards'])}")
    return clean


def _stripped(event: object) -> object:
    """``event`` with the names in it stripped; anything else as it came, for the parser to judge."""
    if not isinstance(event, dict):
        return event
    out = dict(event)
    for field in _NAMED:
        if isinstance(out.get(field), str):
            out[field] = out[field].strip()
    if isinstance(out.get("players"), list):
        out["players"] = [name.strip() if isinstance(name, str) else name for name in out["players"]]
    return out
