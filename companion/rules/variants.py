"""The three games: one class each, holding its settings and its own rules.

Like python-chess's variants, a game is the shared mechanics of
:mod:`companion.rules.game` plus one class: everything a reader needs to know
about one game (its board, its antes, its phases, its defaults) sits in its
class settings, and where its rules differ (what pays in the run, what a call
asks to see, what a claim may hold) in the small methods it overrides.

>>> Michigan.sections
('AH', 'KC', 'QH', 'JS', 'TH', 'QH-KH', '7-8-9', 'poker', 'pot')
>>> variant_class("bonanza").centre
'centre'
>>> Michigan().play_wins(parse_cards("JS QH KH"), set())
[('QH-KH', 'plays QH-KH')]
>>> Bonanza().show_shape("TD-2S")
(2, (Card.parse('TD'), Card.parse('2S')))
>>> Bonanza().check_show("TD-2S", parse_cards("TD JK"))
>>> Bonanza().check_show("TD-2S", parse_cards("TD 3S"))
Traceback (most recent call last):
...
companion.rules.errors.BadCombination: the TD-2S call asks for 2S and TD (the Joker may stand for one)
>>> Tripoley().best_claim(parse_cards("2C 8S 9S TS QH"))
[Card.parse('QH'), Card.parse('8S'), Card.parse('9S'), Card.parse('TS')]
>>> Tripoley(options={"card_penalty": False}).options["card_penalty"]
False
>>> Michigan(options={"reopen": "sideways"})
Traceback (most recent call last):
...
companion.rules.errors.RecordError: option 'reopen' must be one of 'other-suit', 'other-colour', not 'sideways'
>>> Bonanza(options={"card_penalty": False})
Traceback (most recent call last):
...
companion.rules.errors.RecordError: option 'card_penalty' is always true in Bonanza: its rules always make the loser pay per card

A game of one's own is one more subclass; records name it once it is in
:data:`VARIANTS` under its :attr:`~Variant.name`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any, ClassVar

from companion.rules.cards import JOKER, RANKS, SUITS, Card, parse_cards
from companion.rules.errors import BadCombination, RecordError
from companion.rules.poker import Sequence3, best_sequence

OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "widow_position": ("last", "first"),
    "reopen": ("other-suit", "other-colour"),
    "card_penalty": (True, False),
}
"""Every table option of docs/rules.md and the values it may take."""


class Variant:
    """One game of the Michigan family: settings and rule hooks that subclasses change.

    The hooks' defaults are a game with pay cards in the run (:attr:`play_pays`),
    no calls, no claims and a five-card poker hand.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    sections: ClassVar[tuple[str, ...]]
    """The board, in the order the wheel shows it."""
    section_titles: ClassVar[dict[str, str]]
    jokers: ClassVar[int] = 0
    ante: ClassVar[int] = 1
    dealer_ante: ClassVar[int] = 1
    widow_actions: ClassVar[frozenset[str]] = frozenset({"keep", "exchange", "sell"})
    play_pays: ClassVar[dict[str, str]] = {}
    """Cards that win a section when played in the run: card code -> section (see :meth:`play_wins`)."""
    calls: ClassVar[tuple[str, ...]] = ()
    """The sections called in order before the run (Bonanza's upper half); the call of
    :attr:`poker_section` is the poker round, the others are answered by a show
    (see :meth:`show_shape`)."""
    has_claims: ClassVar[bool] = False
    """Whether pay cards are claimed before poker (see :meth:`check_claim`) instead of won in the run."""
    poker_section: ClassVar[str]
    centre: ClassVar[str]
    """The section the first player out takes."""
    leader: ClassVar[str] = "dealer"
    """Who leads the run: ``"dealer"`` or ``"left"`` (of the dealer)."""
    reopen_turns: ClassVar[str] = "stop-player"
    """Who may reopen after a stop: ``"stop-player"`` only (Michigan), the turn
    passing left with a chip to the kitty on each pass (``"rotate"``, Tripoley),
    or ``"anyone"`` who has not passed, the stop player in any suit (Bonanza)."""
    pass_penalty: ClassVar[int] = 0
    defaults: ClassVar[dict[str, Any]] = {
        "widow_position": "last",
        "reopen": "other-suit",
        "card_penalty": True,
    }
    fixed_options: ClassVar[dict[str, tuple[Any, str]]] = {}
    """Options this game's rules settle for good: name -> (the only value, why)."""

    def __init__(self, *, options: Mapping[str, Any] | None = None) -> None:
        merged = dict(self.defaults)
        for key, value in (options or {}).items():
            if key not in OPTION_VALUES:
                raise RecordError(f"unknown option {key!r} (options are {', '.join(OPTION_VALUES)})")
            allowed = OPTION_VALUES[key]
            if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
                shown = ", ".join(repr(a).lower() if isinstance(a, bool) else repr(a) for a in allowed)
                raise RecordError(f"option {key!r} must be one of {shown}, not {value!r}")
            if key in self.fixed_options and value != self.fixed_options[key][0]:
                only, why = self.fixed_options[key]
                shown = repr(only).lower() if isinstance(only, bool) else repr(only)
                raise RecordError(f"option {key!r} is always {shown} in {self.title}: {why}")
            merged[key] = value
        self.options: dict[str, Any] = merged

    @property
    def pack_size(self) -> int:
        return 52 + self.jokers

    def __repr__(self) -> str:
        return f"{type(self).__name__}(options={self.options!r})"

    # ------------------------------------------------------------ the run

    def play_wins(self, streak: Sequence[Card], won: Set[str]) -> list[tuple[str, str]]:
        """The sections won by the card just played, as ``(section, why)`` in the order they pay.

        ``streak`` is the cards its player has laid one after the other, the
        card just played last; ``won`` the sections won in the run of this hand
        so far, for a section that only the first to make it takes.
        """
        card = streak[-1]
        section = self.play_pays.get(card.code)
        return [(section, f"plays {card}")] if section else []

    # -------------------------------------------------- calls and poker

    def show_shape(self, call: str) -> tuple[int, tuple[Card, ...]]:
        """How many cards a show at ``call`` holds, and the cards it names (none: any such).

        ``call`` is one of :attr:`calls`, ``"poker"`` or ``"showdown"``; poker and
        the showdown take five cards.
        """
        return 5, ()

    def check_show(self, call: str, cards: Sequence[Card]) -> None:
        """Raise :class:`BadCombination` unless ``cards`` are a show that ``call`` asks for."""
        if len(cards) != 5:
            raise BadCombination(f"a poker hand is five cards, not {len(cards)}")

    def call_winners(self, call: str, shows: Mapping[str, Sequence[Card]]) -> list[str]:
        """Who shares ``call``'s section among the players who answered it (``shows``): all of them."""
        return list(shows)

    def best_show(self, call: str, hand: Sequence[Card]) -> list[Card] | None:
        """The best show ``hand`` can make at ``call`` without the Joker standing in, or None:
        what a simple player shows."""
        return None

    # ----------------------------------------------------------- claims

    def check_claim(self, claimed: Set[Card]) -> None:
        """Raise :class:`BadCombination` unless one player may claim ``claimed`` together."""
        if claimed:
            raise BadCombination(f"nothing is claimed in {self.title}")

    def claim_wins(self, claims: Mapping[str, Set[Card]], players: Sequence[str]) -> list[tuple[str, list[str], str]]:
        """What the ``claims`` (player -> cards) win once they close, as ``(section, winners, why)``
        in the order they pay; the winners of a section share it."""
        return []

    def best_claim(self, hand: Sequence[Card]) -> list[Card]:
        """Everything ``hand`` may claim, in the order it is laid down: what a simple player claims."""
        return []


class Michigan(Variant):
    """Michigan Rummy on the 1939 board: pay cards in the run, a poker pool, the centre pot."""

    name = "michigan-1939"
    title = "Michigan Rummy (1939)"
    sections: ClassVar[tuple[str, ...]] = ("AH", "KC", "QH", "JS", "TH", "QH-KH", "7-8-9", "poker", "pot")
    section_titles: ClassVar[dict[str, str]] = {
        "AH": "Ace of hearts", "KC": "King of clubs", "QH": "Queen of hearts",
        "JS": "Jack of spades", "TH": "Ten of hearts", "QH-KH": "Queen-King of hearts",
        "7-8-9": "Seven-Eight-Nine", "poker": "Poker pool", "pot": "Michigan Rummy pot",
    }
    dealer_ante = 2
    play_pays: ClassVar[dict[str, str]] = {"AH": "AH", "KC": "KC", "QH": "QH", "JS": "JS", "TH": "TH"}
    poker_section = "poker"
    centre = "pot"

    def play_wins(self, streak: Sequence[Card], won: Set[str]) -> list[tuple[str, str]]:
        """Also QH-KH, to one player laying QH then KH, and 7-8-9, to the first to lay 7-8-9 of a suit."""
        wins = super().play_wins(streak, won)
        if [c.code for c in streak[-2:]] == ["QH", "KH"]:
            wins.append(("QH-KH", "plays QH-KH"))
        last = streak[-3:]
        if "7-8-9" not in won and [c.rank for c in last] == ["7", "8", "9"] and len({c.suit for c in last}) == 1:
            wins.append(("7-8-9", "plays 7-8-9"))
        return wins


class Bonanza(Variant):
    """Parker Brothers' Bonanza wheel: five calls with a wild Joker, then the run."""

    name = "bonanza"
    title = "Bonanza"
    sections: ClassVar[tuple[str, ...]] = ("joker", "QS-JD", "sequence", "TD-2S", "poker", "AS", "KH", "QD", "JC", "centre")
    section_titles: ClassVar[dict[str, str]] = {
        "joker": "Joker", "QS-JD": "Queen-Jack", "sequence": "Sequence", "TD-2S": "Ten-Two",
        "poker": "Poker", "AS": "Ace of spades", "KH": "King of hearts",
        "QD": "Queen of diamonds", "JC": "Jack of clubs", "centre": "Bonanza",
    }
    jokers = 1
    widow_actions = frozenset({"exchange", "sell"})
    play_pays: ClassVar[dict[str, str]] = {"AS": "AS", "KH": "KH", "QD": "QD", "JC": "JC"}
    calls: ClassVar[tuple[str, ...]] = ("joker", "QS-JD", "sequence", "TD-2S", "poker")
    pair_calls: ClassVar[dict[str, tuple[str, ...]]] = {"QS-JD": ("QS", "JD"), "TD-2S": ("TD", "2S")}
    """The calls answered by showing the cards they name, the Joker standing for one of them."""
    poker_section = "poker"
    centre = "centre"
    reopen_turns = "anyone"
    defaults: ClassVar[dict[str, Any]] = {**Variant.defaults, "reopen": "other-colour"}
    fixed_options: ClassVar[dict[str, tuple[Any, str]]] = {"card_penalty": (True, "its rules always make the loser pay per card")}

    def show_shape(self, call: str) -> tuple[int, tuple[Card, ...]]:
        """The Joker alone at the Joker call, three cards at the sequence, a pair call's two cards."""
        if call == "joker":
            return 1, (JOKER,)
        if call == "sequence":
            return 3, ()
        if call in self.pair_calls:
            named = tuple(parse_cards(self.pair_calls[call]))
            return len(named), named
        return super().show_shape(call)

    def check_show(self, call: str, cards: Sequence[Card]) -> None:
        if call == "joker":
            if list(cards) != [JOKER]:
                raise BadCombination("at the Joker call the Joker is shown alone (cards: [\"JK\"])")
        elif call in self.pair_calls:
            named = frozenset(self.show_shape(call)[1])
            naturals = {c for c in cards if not c.is_joker}
            if len(cards) != len(named) or not naturals <= named or not naturals:
                want = " and ".join(sorted(map(str, named)))
                raise BadCombination(f"the {call} call asks for {want} (the Joker may stand for one)")
        elif call == "sequence":
            best_sequence(cards)
        else:
            super().check_show(call, cards)

    def call_winners(self, call: str, shows: Mapping[str, Sequence[Card]]) -> list[str]:
        """The best sequence takes the sequence call (equal ones share it); every other call is shared."""
        if call != "sequence":
            return super().call_winners(call, shows)
        ranked = {p: best_sequence(cs) for p, cs in shows.items()}
        best = max(ranked.values())
        return [p for p, seq in ranked.items() if seq == best]

    def best_show(self, call: str, hand: Sequence[Card]) -> list[Card] | None:
        held = set(hand)
        if call == "joker":
            return [JOKER] if JOKER in held else None
        if call in self.pair_calls:
            pair = sorted(self.show_shape(call)[1])
            return pair if set(pair) <= held else None
        if call == "sequence":
            best: Sequence3 | None = None
            for suit in SUITS:
                for top in range(3, 15):
                    values = [top - 2, top - 1, top] if top > 3 else [14, 2, 3]
                    cards = [Card(RANKS[v - 2], suit) for v in values]
                    if set(cards) <= held:
                        seq = best_sequence(cards)
                        best = seq if best is None or seq > best else best
            return list(best.cards) if best else None
        return super().best_show(call, hand)


class Tripoley(Variant):
    """Cadaco's Tripoley: heart honours and 8-9-10s claimed, poker, then the run."""

    name = "tripoley"
    title = "Tripoley"
    sections: ClassVar[tuple[str, ...]] = ("AH", "KH", "QH", "JH", "TH", "KH-QH", "8-9-10", "kitty", "pot")
    section_titles: ClassVar[dict[str, str]] = {
        "AH": "Ace of hearts", "KH": "King of hearts", "QH": "Queen of hearts",
        "JH": "Jack of hearts", "TH": "Ten of hearts", "KH-QH": "King-Queen of hearts",
        "8-9-10": "Eight-Nine-Ten", "kitty": "Kitty", "pot": "Pot",
    }
    has_claims = True
    honours: ClassVar[tuple[str, ...]] = ("AH", "KH", "QH", "JH", "TH")
    """The heart honours, each claimed alone for the section of its name."""
    poker_section = "pot"
    centre = "kitty"
    leader = "left"
    reopen_turns = "rotate"
    pass_penalty = 1

    def check_claim(self, claimed: Set[Card]) -> None:
        """A claim holds the heart honours and whole 8-9-10s of one suit."""
        for card in claimed:
            if card.code in self.honours:
                continue
            triple = {Card(r, card.suit) for r in "89T"}
            if card.rank not in "89T" or not triple <= claimed:
                raise BadCombination(
                    f"{card} cannot be claimed: a claim holds the heart honours and whole 8-9-10s of one suit"
                )

    def claim_wins(self, claims: Mapping[str, Set[Card]], players: Sequence[str]) -> list[tuple[str, list[str], str]]:
        """Each honour to its claimer, KH-QH to one claimer of both, 8-9-10 shared by every claimer of one."""
        wins: list[tuple[str, list[str], str]] = []
        for card in parse_cards(self.honours):
            holder = next((p for p, cs in claims.items() if card in cs), None)
            if holder:
                wins.append((card.code, [holder], f"claims {card}"))
        king_queen = set(parse_cards("KH QH"))
        both = next((p for p, cs in claims.items() if king_queen <= cs), None)
        if both:
            wins.append(("KH-QH", [both], "claims KH-QH"))
        triples = [p for p in players if any(c.rank == "8" for c in claims.get(p, ()))]
        if triples:
            wins.append(("8-9-10", triples, "claims 8-9-10"))
        return wins

    def best_claim(self, hand: Sequence[Card]) -> list[Card]:
        held = set(hand)
        claim = [c for c in parse_cards(self.honours) if c in held]
        for suit in SUITS:
            triple = [Card(r, suit) for r in "89T"]
            if set(triple) <= held:
                claim += [c for c in triple if c not in claim]
        return claim


VARIANTS: dict[str, type[Variant]] = {v.name: v for v in (Michigan, Bonanza, Tripoley)}
"""Every game a record may name, by :attr:`Variant.name`: a new subclass joins by its name."""


def variant_class(name: str) -> type[Variant]:
    """The variant called ``name`` in records (``michigan-1939``, ``bonanza``, ``tripoley``)."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise RecordError(f"unknown variant {name!r} (one of {', '.join(VARIANTS)})") from None
