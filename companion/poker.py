"""Poker hands and Bonanza sequences, ranked.

Five-card hands are ranked by pokerkit (pure Python, so it installs on a
Raspberry Pi's aarch64 without a compiler, and maintained; phevaluator needs a
C build there). The Joker is handled by substitution: it becomes, in turn,
every card not among the other four, and the best resulting hand counts.

>>> from companion.cards import parse_cards
>>> rank_hand(parse_cards("9S 9H 4C 4D KS")) > rank_hand(parse_cards("2C 3C 4H 5S 6D"))
False
>>> rank_hand(parse_cards("AS KS QS JS JK")).label
'Royal straight flush'
>>> best_sequence(parse_cards("QH KH JK")).top
14
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering
from typing import Iterable, Sequence

from pokerkit import StandardHighHand

from companion.cards import JOKER, RANKS, SUITS, Card, standard_deck
from companion.errors import BadCombination


def _pokerkit_text(cards: Iterable[Card]) -> str:
    return "".join(c.rank + c.suit.lower() for c in cards)


@total_ordering
@dataclass(frozen=True, eq=False)
class PokerHand:
    """A ranked five-card hand. Compares by poker value alone; a natural hand
    beats a Joker hand of exactly the same value (Bonanza's rule)."""

    cards: tuple[Card, ...]
    value: StandardHighHand
    natural: bool

    @property
    def label(self) -> str:
        label = self.value.entry.label.value
        if label == "Straight flush" and {c.rank for c in self.value.cards} == set("AKQJT"):
            return "Royal straight flush"
        return label

    def ties(self, other: PokerHand) -> bool:
        """Same poker value (suits never break a tie)."""
        return self.value == other.value

    def _key(self, other: PokerHand) -> int:
        if self.value == other.value:
            return (self.natural > other.natural) - (self.natural < other.natural)
        return 1 if self.value > other.value else -1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PokerHand) and self._key(other) == 0

    def __lt__(self, other: PokerHand) -> bool:
        return self._key(other) < 0

    def __str__(self) -> str:
        return f"{self.label} ({' '.join(map(str, self.cards))})"


def rank_hand(cards: Sequence[Card]) -> PokerHand:
    """Rank exactly five distinct cards, at most one of them the Joker."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise BadCombination(f"a poker hand is five different cards, not {' '.join(map(str, cards))}")
    others = [c for c in cards if not c.is_joker]
    if len(others) == 5:
        return PokerHand(tuple(cards), StandardHighHand(_pokerkit_text(cards)), True)
    best: StandardHighHand | None = None
    for stand_in in standard_deck():
        if stand_in in others:
            continue
        candidate = StandardHighHand(_pokerkit_text([*others, stand_in]))
        if best is None or candidate > best:
            best = candidate
    assert best is not None
    return PokerHand(tuple(cards), best, False)


@dataclass(frozen=True, order=True)
class Sequence3:
    """A Bonanza sequence, ordered as the call ranks them: top rank first,
    then natural over Joker, then the suit (S > H > D > C)."""

    top: int
    natural: bool
    suit_rank: int
    cards: tuple[Card, ...]


def _sequence_top(values: set[int]) -> int | None:
    """The top rank of three values in a row of one suit (A-2-3 tops at 3, K-A-2 is none)."""
    for top in range(3, 15):
        window = {top - 2, top - 1, top}
        if top == 3:
            window = {14, 2, 3}
        if values == window:
            return top
    return None


def best_sequence(cards: Sequence[Card]) -> Sequence3:
    """Rank three cards as a sequence; the Joker takes the place giving the highest top card."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise BadCombination(f"a sequence is three different cards, not {' '.join(map(str, cards))}")
    naturals = [c for c in cards if not c.is_joker]
    suits = {c.suit for c in naturals}
    if len(suits) != 1:
        raise BadCombination(f"a sequence is three cards of one suit, not {' '.join(map(str, cards))}")
    suit = suits.pop()
    values = {c.value for c in naturals}
    tops: list[int] = []
    if len(naturals) == 3:
        top = _sequence_top(values)
        if top is not None:
            tops.append(top)
    else:
        for rank in RANKS:
            stand_in = Card(rank, suit)
            if stand_in.value not in values:
                top = _sequence_top(values | {stand_in.value})
                if top is not None:
                    tops.append(top)
    if not tops:
        raise BadCombination(f"{' '.join(map(str, cards))} is not three cards in a row of one suit")
    return Sequence3(max(tops), JOKER not in cards, len(SUITS) - SUITS.index(suit), tuple(cards))
