"""Why the referee refused something.

Every refusal is a ``ValueError`` so that callers can catch one type, and a
precise subclass so that tests and pages can tell the reasons apart. The
message is written for the people at the table.
"""

from __future__ import annotations

from typing import Any


class RecordError(ValueError):
    """A line or event that is not a well-formed record event (docs/record.md)."""


class RuleError(ValueError):
    """An event that is well formed but cannot be right at this point of the game.

    ``flag`` is set when the refusal is also something the table should see
    afterwards (a ``withheld`` card); it is the flag's dict without its line.
    """

    flag: dict[str, Any] | None = None


class WrongPhase(RuleError):
    """The event does not belong in the current phase (a bet during the run, a deal mid-hand)."""


class UnknownPlayer(RuleError):
    """The event names somebody who is not at the table."""


class OutOfTurn(RuleError):
    """Somebody acts whose turn it is not (a later deal not passing left, a pass by the wrong player)."""


class CardNotInPack(RuleError):
    """The card is not in this variant's pack (a Joker in Michigan)."""


class CardUnavailable(RuleError):
    """The card was already played, is dead, or another player showed or claimed it."""


class NotNextCard(RuleError):
    """A run card that is neither the next card of the suit nor a legal reopen."""


class BadAmount(RuleError):
    """A bid or bet that is not a positive whole number of chips, or does not top the last bid."""


class TooManyCards(RuleError):
    """The player has no card left for this (his hand is smaller than what he played and showed)."""


class BadCombination(RuleError):
    """A show or claim that is not the combination the call or claim asks for."""


class Withheld(NotNextCard):
    """A card passed over as a stop, played later: refused and flagged."""


class ConservationError(AssertionError):
    """Chips were created or destroyed: a bug in the engine, never a player's mistake."""
