"""Poker hands and Bonanza sequences, ranked.

Five-card hands are ranked by pokerkit (pure Python, so it installs on a
Raspberry Pi's aarch64 without a compiler, and maintained; phevaluator needs a
C build there). The Joker is handled by substitution: it becomes, in turn,
each card not among the other four that could matter (one per rank, see
``_stand_ins``), and the best resulting hand counts.

>>> from companion.rules.cards import parse_cards
>>> rank_hand(parse_cards("9S 9H 4C 4D KS")) > rank_hand(parse_cards("2C 3C 4H 5S 6D"))
False
>>> rank_hand(parse_cards("AS KS QS JS JK")).label
'Royal straight flush'
>>> best_sequence(parse_cards("QH KH JK")).top
14
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pokerkit import StandardHighHand

from companion.rules.cards import JOKER, RANKS, SUITS, Card
from companion.rules.errors import BadCombination


def _pokerkit_text(cards: Iterable[Card]) -> str:
    return "".join(c.rank + c.suit.lower() for c in cards)


@dataclass(frozen=True, order=True)
class PokerHand:
    """A ranked five-card hand. Orders by poker value alone (suits never break
    a tie); a natural hand beats a Joker hand of exactly the same value
    (Bonanza's rule)."""

    strength: int
    """pokerkit's rank of the hand among all hands: higher is better."""
    natural: bool
    cards: tuple[Card, ...] = field(compare=False)
    value: StandardHighHand = field(compare=False, repr=False)

    @property
    def label(self) -> str:
        label = self.value.entry.label.value
        if label == "Straight flush" and {c.rank for c in self.value.cards} == set("AKQJT"):
            return "Royal straight flush"
        return label

    def __str__(self) -> str:
        return f"{self.label} ({' '.join(map(str, self.cards))})"


def rank_hand(cards: Sequence[Card]) -> PokerHand:
    """Rank exactly five distinct cards, at most one of them the Joker."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise BadCombination(f"a poker hand is five different cards, not {' '.join(map(str, cards))}")
    others = [c for c in cards if not c.is_joker]
    if len(others) == 5:
        value = StandardHighHand(_pokerkit_text(cards))
        return PokerHand(value.entry.index, True, tuple(cards), value)
    best = max((StandardHighHand(_pokerkit_text([*others, c])) for c in _stand_ins(others)), key=lambda h: h.entry.index)
    return PokerHand(best.entry.index, False, tuple(cards), best)


def _stand_ins(others: Sequence[Card]) -> list[Card]:
    """The cards worth trying for the Joker: one per rank, not among ``others``.

    A hand's value depends on its ranks and on whether all five share a suit,
    so per rank the flush suit (when the other four share one) is the best
    stand-in, and otherwise any free suit is as good as another.
    """
    suits = {c.suit for c in others}
    preferred = [suits.pop()] if len(suits) == 1 else []
    order = preferred + [s for s in SUITS if s not in preferred]
    taken = set(others)
    free = ([Card.parse(r + s) for s in order if Card.parse(r + s) not in taken] for r in RANKS)
    return [cards[0] for cards in free if cards]  # a rank with all four suits taken gives none: no five of a kind


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
