"""Playing cards as small value types.

A card is written rank + suit (``QS``, ``TD``) or ``JK`` for the Joker; input
is forgiving (``10D``, ``q♠``) and output is always canonical.

>>> Card.parse("10d")
Card.parse('TD')
>>> str(Card.parse("q♠"))
'QS'
>>> Card.parse("JK").is_joker
True
>>> Card.parse("AS") > Card.parse("KS")
True
>>> Card.parse("1X")
Traceback (most recent call last):
...
companion.rules.cards.CardError: not a card: '1X' (write rank + suit, e.g. QS, TD, 10H, or JK)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import total_ordering
from itertools import pairwise
from typing import Any

RANKS = "23456789TJQKA"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_NAMES = {
    "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six", "7": "Seven",
    "8": "Eight", "9": "Nine", "T": "Ten", "J": "Jack", "Q": "Queen", "K": "King", "A": "Ace",
}
JOKER_CODE = "JK"


class CardError(ValueError):
    """Raised for text that is not a playing card."""


@total_ordering
@dataclass(frozen=True, slots=True)
class Card:
    """One card: ``rank`` in ``RANKS`` and ``suit`` in ``SUITS``, or the Joker (both ``""``).

    Cards order by rank (Ace high), then suit, so that sorting a hand reads well;
    the Joker sorts last.
    """

    rank: str
    suit: str
    code: str = field(init=False, repr=False, compare=False)
    """The canonical text (``QS``, ``JK``), kept because records and logs ask for it all the time."""
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        code = self.rank + self.suit or JOKER_CODE
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "_hash", hash(code))

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card from the forms players type: ``QS``, ``10H``, ``q♠``, ``jk``."""
        try:
            card = _CANONICAL.get(text)
        except TypeError:  # unhashable (a JSON list or object): not a card either
            card = None
        if card is not None:
            return card
        if not isinstance(text, str):
            raise CardError(f"not a card: {text!r} (expected text such as 'QS')")
        t = text.strip().upper()
        for symbol, letter in SUIT_SYMBOLS.items():
            t = t.replace(symbol, letter)
        if t in ("JK", "JOKER", "*"):
            return JOKER
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) == 2 and t[0] in RANKS and t[1] in SUITS:
            return _CANONICAL[t]
        raise CardError(f"not a card: {text!r} (write rank + suit, e.g. QS, TD, 10H, or JK)")

    @property
    def is_joker(self) -> bool:
        return self.rank == ""

    @property
    def value(self) -> int:
        """Rank value, 2..14 with the Ace high; 15 for the Joker."""
        return _VALUES[self.rank]

    @property
    def colour(self) -> str:
        """``"red"`` or ``"black"`` (the Joker has neither: ``""``)."""
        if self.is_joker:
            return ""
        return "red" if self.suit in RED_SUITS else "black"

    def next_higher(self) -> Card | None:
        """The card the run expects after this one, or None after the Ace."""
        return _NEXT.get(self)

    def name(self) -> str:
        """English name, e.g. ``Queen of spades``."""
        if self.is_joker:
            return "Joker"
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit]}"

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self  # immutable: a game's snapshots share their cards

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return (self.value, SUITS.index(self.suit) if self.suit else 4) < (
            other.value,
            SUITS.index(other.suit) if other.suit else 4,
        )


JOKER = Card("", "")
_CANONICAL: dict[str, Card] = {r + s: Card(r, s) for s in SUITS for r in RANKS} | {JOKER_CODE: JOKER}
"""One shared object per card, so that parsing a record allocates nothing."""
_VALUES: dict[str, int] = {rank: value for value, rank in enumerate(RANKS, start=2)} | {"": 15}
_NEXT: dict[Card, Card] = {
    _CANONICAL[low + suit]: _CANONICAL[high + suit] for suit in SUITS for low, high in pairwise(RANKS)
}


def parse_cards(items: Iterable[str] | str) -> list[Card]:
    """Parse a list of codes, or one space-separated string of them."""
    if isinstance(items, str):
        items = items.split()
    return [Card.parse(item) for item in items]


def standard_deck(*, jokers: int = 0) -> list[Card]:
    """The 52-card pack in a fixed order, plus ``jokers`` Jokers."""
    deck = [_CANONICAL[rank + suit] for suit in SUITS for rank in RANKS]
    return deck + [JOKER] * jokers


ALL_CODES: tuple[str, ...] = tuple(str(card) for card in standard_deck(jokers=1))
"""The 53 class labels of the card recogniser, in a fixed order."""
