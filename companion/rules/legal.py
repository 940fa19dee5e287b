"""What the referee would accept next, as small frozen values.

:meth:`companion.rules.game.Game.legal_plays` answers with these, so that the
scoreboard can say what the table waits for, the camera loop can settle an
unsure read by the only card the game allows, and the simulator can play
without rules of its own. Each value's ``str`` is its English line for the
scoreboard; :meth:`to_dict` is the same for the pages, worded by ``kind``.

>>> from companion.rules.cards import Card
>>> str(NextCard(Card.parse("5D"), ("Ann", "Bob", "Cy")))
'Next: 5♦'
>>> summary([NextCard(Card.parse("5D"), ("Ann", "Bob", "Cy")), Reopen(("Cy",), frozenset("SHC"), "other-suit")])
'Next: 5♦, or Cy reopens in another suit'
>>> Reopen(("Bob", "Dee"), frozenset("HD"), "other-colour").allows("Dee", Card.parse("2D"))
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.cards import RANK_NAMES, SUIT_SYMBOLS, SUITS, Card

SYMBOL = {letter: symbol for symbol, letter in list(SUIT_SYMBOLS.items())[:4]}
CALL_TITLES = {"sequence": "Sequence", "poker": "Poker", "showdown": "Showdown"}
"""The shows that name no cards; one that names them is called by their ranks (``Queen-Jack``)."""
REOPEN_WORDS = {
    "lead": "leads",
    "other-suit": "reopens in another suit",
    "other-colour": "reopens in the other colour",
    "any-suit": "reopens in any suit",
}


def short(card: Card) -> str:
    """``5♦``: the scoreboard's way of writing a card."""
    return "JK" if card.is_joker else card.rank + SYMBOL[card.suit]


def names(players: Iterable[str]) -> str:
    """``Ann``, ``Ann or Bob``, ``Ann, Bob or Cy``."""
    listed = list(players)
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"


class _Plain:
    """The view's form: ``kind``, the fields, and the English ``text``."""

    kind: ClassVar[str]
    headline: ClassVar[bool] = True
    """Whether the scoreboard's line names it (a pass or a ``next`` goes without saying)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for name, value in vars(self).items():
            if isinstance(value, Card):
                value = value.code
            elif isinstance(value, frozenset):
                value = sorted((c.code if isinstance(c, Card) else c for c in value), key=_order)
            elif isinstance(value, tuple):
                value = [c.code if isinstance(c, Card) else c for c in value]
            out[name] = value
        out["headline"] = self.headline
        out["text"] = str(self)
        return out


def _order(code: str) -> tuple[int, str]:
    return (SUITS.index(code), code) if code in SUITS else (0, code)


@dataclass(frozen=True)
class NextCard(_Plain):
    """The run's next card; ``players`` are those who may hold it (one, if he showed it)."""

    card: Card
    players: tuple[str, ...]
    kind: ClassVar[str] = "next_card"

    def allows(self, player: str, card: Card) -> bool:
        return card == self.card and player in self.players

    def __str__(self) -> str:
        return f"Next: {short(self.card)}"


@dataclass(frozen=True)
class Reopen(_Plain):
    """``players`` may open the run with their lowest card of one of ``suits``.

    ``reason`` is ``lead`` (the first card of the run), ``other-suit``,
    ``other-colour`` (the two ``reopen`` options) or ``any-suit`` (the stop
    player, where the game lets him reopen in any suit).
    """

    players: tuple[str, ...]
    suits: frozenset[str]
    reason: str

    @property
    def kind(self) -> str:  # type: ignore[override]
        return f"reopen-{self.reason}"

    def allows(self, player: str, card: Card) -> bool:
        return player in self.players and card.suit in self.suits

    def __str__(self) -> str:
        return f"{names(self.players)} {REOPEN_WORDS[self.reason]}"


@dataclass(frozen=True)
class PassTurn(_Plain):
    """``player`` may say he cannot reopen (a ``pass``, docs/rules.md)."""

    player: str
    kind: ClassVar[str] = "pass"
    headline: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"{self.player} may pass"


@dataclass(frozen=True)
class LayAside(_Plain):
    """``player`` holds the unshown Joker and lays it aside (a ``discard``)."""

    players: tuple[str, ...]
    kind: ClassVar[str] = "lay_aside"
    headline: ClassVar[bool] = False

    def allows(self, player: str, card: Card) -> bool:
        return card.is_joker and player in self.players

    def __str__(self) -> str:
        return f"{names(self.players)} may lay the Joker aside"


@dataclass(frozen=True)
class ShowCards(_Plain):
    """At ``call``, ``players`` may show ``count`` cards; ``cards`` are the ones it
    asks for, as the call names them (empty: any), the Joker standing for one where ``wild``."""

    call: str
    count: int
    cards: tuple[Card, ...]
    wild: bool
    players: tuple[str, ...]

    @property
    def kind(self) -> str:  # type: ignore[override]
        """``show`` (of the named cards), ``show_sequence`` or ``show_hand`` (five cards)."""
        return "show" if self.cards else "show_sequence" if self.call == "sequence" else "show_hand"

    @property
    def headline(self) -> bool:  # type: ignore[override]
        return self.call != "poker"  # at poker the betting is the news

    def __str__(self) -> str:
        if self.cards:
            title = "-".join("Joker" if c.is_joker else RANK_NAMES[c.rank] for c in self.cards)
            return f"{title}: show {' and '.join(c.code for c in self.cards)}"
        title = CALL_TITLES[self.call]
        if self.call == "sequence":
            return f"{title}: show three cards of one suit in a row"
        return f"{title}: five cards each"


@dataclass(frozen=True)
class Betting(_Plain):
    """``players`` (those who have not folded) may bet into ``section`` or fold;
    ``turn`` is the first from the dealer who has neither bet, folded nor shown."""

    section: str
    players: tuple[str, ...]
    turn: str | None
    kind: ClassVar[str] = "betting"

    def __str__(self) -> str:
        return f"Poker: {self.turn} to bet" if self.turn else "Poker: bets are in"


@dataclass(frozen=True)
class WidowChoice(_Plain):
    """The dealer's widow decision (one of ``actions``), and who may still bid."""

    dealer: str
    actions: frozenset[str]
    bidders: tuple[str, ...]
    kind: ClassVar[str] = "widow"

    def __str__(self) -> str:
        return f"Widow: {self.dealer} decides"


@dataclass(frozen=True)
class Claiming(_Plain):
    """Tripoley's claims are open to every player."""

    players: tuple[str, ...]
    kind: ClassVar[str] = "claims"

    def __str__(self) -> str:
        return "Claims: show the heart honours and 8-9-10s"


@dataclass(frozen=True)
class NextDeal(_Plain):
    """Who may deal now: anyone before the first hand, then the player left of the last dealer."""

    players: tuple[str, ...]
    kind: ClassVar[str] = "deal"

    def __str__(self) -> str:
        return f"{names(self.players)} to deal"


@dataclass(frozen=True)
class Showdown(_Plain):
    """Between hands the table may end the game with the showdown."""

    kind: ClassVar[str] = "showdown"
    headline: ClassVar[bool] = False

    def __str__(self) -> str:
        return "or the showdown"


@dataclass(frozen=True)
class Close(_Plain):
    """``next`` closes the open ``what`` (a call, the claims, poker, the showdown)."""

    what: str
    kind: ClassVar[str] = "next"
    headline: ClassVar[bool] = False

    def __str__(self) -> str:
        return f"next closes {self.what}"


LegalPlay = NextCard | Reopen | PassTurn | LayAside | ShowCards | Betting | WidowChoice | Claiming | NextDeal | Showdown | Close


def summary(plays: Iterable[LegalPlay]) -> str:
    """The scoreboard's line: what the table waits for, the alternatives joined by "or"."""
    return ", or ".join(str(p) for p in plays if p.headline)


def allowed_cards(plays: Iterable[LegalPlay], player: str, cards: Iterable[Card]) -> list[Card]:
    """Those of ``cards`` that one of ``plays`` lets ``player`` lay in the run."""
    run = [p for p in plays if isinstance(p, (NextCard, Reopen, LayAside))]
    return [c for c in cards if any(p.allows(player, c) for p in run)]
