"""The three games as data: one class each, differing only in class settings.

Like python-chess's variants, a game is the base rules plus a handful of
settings; everything a reader needs to know about one game (its board, its
antes, its phases, its defaults) sits in its class below.

>>> Michigan.sections
('AH', 'KC', 'QH', 'JS', 'TH', 'QH-KH', '7-8-9', 'poker', 'pot')
>>> variant_class("bonanza").centre
'centre'
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
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from companion.rules.errors import RecordError

OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "widow_position": ("last", "first"),
    "reopen": ("other-suit", "other-colour"),
    "card_penalty": (True, False),
}
"""Every table option of docs/rules.md and the values it may take."""


class Variant:
    """Settings of one game of the Michigan family; subclasses change them."""

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
    """Cards that win a section when played in the run: card code -> section."""
    queen_king_section: ClassVar[str | None] = None
    """Section won by one player playing QH then KH as consecutive cards."""
    seven_eight_nine_section: ClassVar[str | None] = None
    """Section won by the first player playing 7-8-9 of a suit as consecutive cards."""
    calls: ClassVar[tuple[str, ...]] = ()
    """Bonanza's upper half: the sections called in order before the run."""
    has_claims: ClassVar[bool] = False
    """Tripoley: pay cards are claimed before poker instead of won in the run."""
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


class Michigan(Variant):
    """Michigan Rummy on the 1939 board: pay cards in the run, a poker pool, the centre pot."""

    name = "michigan-1939"
    title = "Michigan Rummy (1939)"
    sections = ("AH", "KC", "QH", "JS", "TH", "QH-KH", "7-8-9", "poker", "pot")
    section_titles = {
        "AH": "Ace of hearts", "KC": "King of clubs", "QH": "Queen of hearts",
        "JS": "Jack of spades", "TH": "Ten of hearts", "QH-KH": "Queen-King of hearts",
        "7-8-9": "Seven-Eight-Nine", "poker": "Poker pool", "pot": "Michigan Rummy pot",
    }
    dealer_ante = 2
    play_pays = {"AH": "AH", "KC": "KC", "QH": "QH", "JS": "JS", "TH": "TH"}
    queen_king_section = "QH-KH"
    seven_eight_nine_section = "7-8-9"
    poker_section = "poker"
    centre = "pot"


class Bonanza(Variant):
    """Parker Brothers' Bonanza wheel: five calls with a wild Joker, then the run."""

    name = "bonanza"
    title = "Bonanza"
    sections = ("joker", "QS-JD", "sequence", "TD-2S", "poker", "AS", "KH", "QD", "JC", "centre")
    section_titles = {
        "joker": "Joker", "QS-JD": "Queen-Jack", "sequence": "Sequence", "TD-2S": "Ten-Two",
        "poker": "Poker", "AS": "Ace of spades", "KH": "King of hearts",
        "QD": "Queen of diamonds", "JC": "Jack of clubs", "centre": "Bonanza",
    }
    jokers = 1
    widow_actions = frozenset({"exchange", "sell"})
    play_pays = {"AS": "AS", "KH": "KH", "QD": "QD", "JC": "JC"}
    calls = ("joker", "QS-JD", "sequence", "TD-2S", "poker")
    poker_section = "poker"
    centre = "centre"
    reopen_turns = "anyone"
    defaults = {**Variant.defaults, "reopen": "other-colour"}
    fixed_options = {"card_penalty": (True, "its rules always make the loser pay per card")}


class Tripoley(Variant):
    """Cadaco's Tripoley: heart honours and 8-9-10s claimed, poker, then the run."""

    name = "tripoley"
    title = "Tripoley"
    sections = ("AH", "KH", "QH", "JH", "TH", "KH-QH", "8-9-10", "kitty", "pot")
    section_titles = {
        "AH": "Ace of hearts", "KH": "King of hearts", "QH": "Queen of hearts",
        "JH": "Jack of hearts", "TH": "Ten of hearts", "KH-QH": "King-Queen of hearts",
        "8-9-10": "Eight-Nine-Ten", "kitty": "Kitty", "pot": "Pot",
    }
    has_claims = True
    poker_section = "pot"
    centre = "kitty"
    leader = "left"
    reopen_turns = "rotate"
    pass_penalty = 1


VARIANTS: dict[str, type[Variant]] = {v.name: v for v in (Michigan, Bonanza, Tripoley)}


def variant_class(name: str) -> type[Variant]:
    """The variant called ``name`` in records (``michigan-1939``, ``bonanza``, ``tripoley``)."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise RecordError(f"unknown variant {name!r} (one of {', '.join(VARIANTS)})") from None
