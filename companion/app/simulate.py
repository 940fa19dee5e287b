"""A simulated table: real shuffled hands, legal play, the record it makes.

The demo renders these games for the camera pipeline, the benchmark replays
them, and the property tests check that any such game conserves chips. The
players are honest and simple: they lead and reopen with their lowest card,
bet a little, show a random five, and always play the next card if they hold it.
Their run moves are drawn from what the referee accepts (``Game.legal_plays``)
and their claims and shows from what the variant says a hand can make
(``Variant.best_claim``, ``Variant.best_show``), so the simulation keeps no
copy of the rules.

>>> table = SimulatedTable("michigan-1939", ["Ann", "Bob", "Cy"], seed=1)
>>> events = list(table.play(hands=2))
>>> events[0]["type"], sum(e["type"] == "deal" for e in events)
('game', 2)
>>> events = list(SimulatedTable("bonanza", ["Ann", "Bob"], seed=1).play(hands=1, showdown=True))
>>> events[-1]["type"], sum(e["type"] == "show" for e in events[-4:])
('next', 2)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from companion.rules.cards import JOKER, Card, standard_deck
from companion.rules.game import Game
from companion.rules.legal import NextCard, PassTurn, Reopen
from companion.rules.variants import Variant


@dataclass
class SimulatedHand:
    """What the simulation knows and the engine does not: who holds what."""

    dealer: str
    hands: dict[str, list[Card]]
    widow: list[Card]


class SimulatedTable:
    """Deals and plays whole hands, yielding record events (dicts)."""

    def __init__(
        self,
        variant: str = "michigan-1939",
        players: Sequence[str] = ("Ann", "Bob", "Cy", "Dee"),
        *,
        chips: int = 100,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.players = list(players)
        self.chips = chips
        self.rng = random.Random(seed)
        self.talk = random.Random(seed)
        """Whether a player who need not pass (where anyone may reopen) says so: apart from ``rng``, so it changes no deal."""
        self.game = Game()
        first = {"type": "game", "variant": variant, "players": self.players, "chips": chips}
        if options:
            first["options"] = options
        self._first = first
        self.game.push(first)
        self.hand: SimulatedHand | None = None

    @property
    def variant(self) -> Variant:
        return self.game.variant

    def _emit(self, event: dict[str, Any]) -> dict[str, Any]:
        self.game.push(event)  # the simulation never makes an illegal move: a refusal here is a bug
        return event

    def play(self, *, hands: int, showdown: bool = False) -> Iterator[dict[str, Any]]:
        """The ``game`` line, then ``hands`` whole hands; with ``showdown``, then the end of the game."""
        yield self._first
        dealer = self.rng.choice(self.players)
        for _ in range(hands):
            yield from self.play_hand(dealer)
            dealer = self.players[(self.players.index(dealer) + 1) % len(self.players)]
        if showdown:
            yield from self.showdown()

    def showdown(self) -> Iterator[dict[str, Any]]:
        """The end of the game (docs/rules.md): every chip on the board to the best five cards of a fresh deal."""
        yield self._emit({"type": "showdown"})
        deck = standard_deck(jokers=self.variant.jokers)
        self.rng.shuffle(deck)
        for p in self.players:
            dealt, deck = deck[:5], deck[5:]
            yield self._emit({"type": "show", "player": p, "cards": [str(c) for c in dealt]})
        yield self._emit({"type": "next"})

    def play_hand(self, dealer: str) -> Iterator[dict[str, Any]]:
        yield self._emit({"type": "deal", "dealer": dealer})
        self._deal(dealer)
        yield from self._widow()
        yield from self._before_run()
        yield from self._run()

    # ------------------------------------------------------------ the deal

    def _deal(self, dealer: str) -> None:
        deck = standard_deck(jokers=self.variant.jokers)
        self.rng.shuffle(deck)
        s = self.game.state
        hands: dict[str, list[Card]] = {}
        for p in self.players:
            size = s.hand_size[p]
            hands[p], deck = deck[:size], deck[size:]
        self.hand = SimulatedHand(dealer, {p: sorted(cs) for p, cs in hands.items()}, deck)

    def _widow(self) -> Iterator[dict[str, Any]]:
        h = self.hand
        assert h is not None
        actions = sorted(self.variant.widow_actions)
        action = self.rng.choice(actions)
        if action == "sell":
            bidders = [p for p in self.players if p != h.dealer]
            price = 0
            for p in self.rng.sample(bidders, k=self.rng.randint(0, len(bidders))):
                price += self.rng.randint(1, 3)
                yield self._emit({"type": "bid", "player": p, "chips": price})
        high_bidder = self.game.state.bids[-1][0] if self.game.state.bids else None
        yield self._emit({"type": "widow", "action": action})
        buyer = {"exchange": h.dealer, "sell": high_bidder}.get(action)
        if buyer:
            h.hands[buyer], h.widow = sorted(h.widow), h.hands[buyer]

    # --------------------------------------------------- claims, calls, poker

    def _before_run(self) -> Iterator[dict[str, Any]]:
        h = self.hand
        assert h is not None
        v = self.variant
        if v.has_claims:
            for p in self.players:
                claim = v.best_claim(h.hands[p])
                if claim:
                    yield self._emit({"type": "claim", "player": p, "cards": [str(c) for c in claim]})
            yield self._emit({"type": "next"})
        for call in v.calls:
            if call == v.poker_section:
                yield from self._poker()
                continue
            for p in self.players:
                combo = self._combination(call, h.hands[p])
                if combo:
                    yield self._emit({"type": "show", "player": p, "cards": [str(c) for c in combo]})
                    if JOKER in combo:
                        h.hands[p].remove(JOKER)
            yield self._emit({"type": "next"})
        if not v.calls:
            yield from self._poker()
        for p in self.players:
            if JOKER in h.hands[p]:
                h.hands[p].remove(JOKER)
                yield self._emit({"type": "discard", "player": p, "cards": ["JK"]})

    def _combination(self, call: str, hand: list[Card]) -> list[Card] | None:
        """The variant's best show at ``call``; the Joker alone only half the time."""
        combo = self.variant.best_show(call, hand)
        if combo == [JOKER] and self.rng.random() >= 0.5:
            return None
        return combo

    def _poker(self) -> Iterator[dict[str, Any]]:
        h = self.hand
        assert h is not None
        order = self.players[self.players.index(h.dealer):] + self.players[: self.players.index(h.dealer)]
        for p in order:
            if len(h.hands[p]) < 5 or self.rng.random() < 0.25:
                yield self._emit({"type": "fold", "player": p})
            elif self.rng.random() < 0.7:
                yield self._emit({"type": "bet", "player": p, "chips": self.rng.randint(1, 3)})
        for p in order:
            if p not in self.game.state.folded and len(h.hands[p]) >= 5:
                shown = self.rng.sample(h.hands[p], 5)
                yield self._emit({"type": "show", "player": p, "cards": [str(c) for c in shown]})
                if JOKER in shown:
                    h.hands[p].remove(JOKER)
        yield self._emit({"type": "next"})

    # --------------------------------------------------------------- the run

    def _holder(self, card: Card) -> str | None:
        h = self.hand
        assert h is not None
        return next((p for p, cs in h.hands.items() if card in cs), None)

    def _play(self, player: str, card: Card) -> dict[str, Any]:
        h = self.hand
        assert h is not None
        h.hands[player].remove(card)
        return self._emit({"type": "play", "player": player, "card": str(card)})

    def _run(self) -> Iterator[dict[str, Any]]:
        """Each move drawn from what the referee accepts now (``Game.legal_plays``)."""
        h = self.hand
        assert h is not None
        while self.game.phase == "run":
            plays = self.game.legal_plays()
            following = next((p for p in plays if isinstance(p, NextCard)), None)
            holder = self._holder(following.card) if following else None
            if following and holder:
                yield self._play(holder, following.card)
                continue
            reopens = [p for p in plays if isinstance(p, Reopen)]
            if reopens[0].reason == "lead":
                leader = reopens[0].players[0]
                suit = self.rng.choice(sorted({c.suit for c in h.hands[leader]}))
                yield self._play(leader, min(c for c in h.hands[leader] if c.suit == suit))
                continue
            yield self._reopen(reopens, next((p for p in plays if isinstance(p, PassTurn)), None))

    def _reopen(self, reopens: list[Reopen], turn: PassTurn | None) -> dict[str, Any]:
        """Round the table from the stop player: the first who can reopen by the rule does, with his
        lowest such card; one who cannot says so (a ``pass``) where he must, or now and then where he
        need not; when nobody can, the stop player opens in any suit (where the variant lets him)."""
        h = self.hand
        assert h is not None
        by_rule = next((r for r in reopens if r.reason != "any-suit"), None)
        for player in by_rule.players if by_rule else ():
            options = [c for c in h.hands[player] if c.suit in by_rule.suits]  # type: ignore[union-attr]
            if options:
                return self._play(player, min(options, key=lambda c: (c.value, c.suit)))
            if turn and turn.player == player and (len(by_rule.players) == 1 or self.talk.random() < 0.5):  # type: ignore[union-attr]
                return self._emit({"type": "pass", "player": player})
        fallback = next((r for r in reopens if r.reason == "any-suit"), None)
        if fallback is not None:
            player = fallback.players[0]
            return self._play(player, min(h.hands[player], key=lambda c: (c.value, c.suit)))
        assert turn is not None, "nobody can reopen and nobody may pass"
        return self._emit({"type": "pass", "player": turn.player})
