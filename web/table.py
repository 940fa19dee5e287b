"""What the pages need from the table service, as a protocol.

The web never imports the table service (``companion.table.Table``): it is
handed one by whoever starts it (``companion serve``, ``companion web``,
``companion demo``) and speaks to it only through these methods. Every method
that changes the game raises a ``ValueError`` naming the reason and changes
nothing when the engine refuses.
"""

from __future__ import annotations

import queue
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class TableService(Protocol):
    """One game, its record and its watchers (implemented by ``companion.table.Table``)."""

    def view(self) -> dict[str, Any]:
        """What the pages show: the board, the players, the phase, the version, the pending reads."""

    def submit(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """Apply and store one record event; the new view."""

    def start(self, game_event: Mapping[str, Any]) -> dict[str, Any]:
        """Begin a new game, keeping a copy of the one it replaces; the new view."""

    def confirm(self, pending_id: int, code: str | None) -> dict[str, Any]:
        """Accept an uncertain camera read, or correct it to the card ``code``; the new view."""

    def dismiss(self, pending_id: int) -> dict[str, Any]:
        """Drop an uncertain camera read that was no card at all; the new view."""

    def replace_from_jsonl(self, text: str) -> dict[str, Any]:
        """Replace the game with an imported JSON Lines record, checked whole first; the new view."""

    def export_jsonl(self) -> str:
        """The game record, one event a line."""

    def set_voice(self, state: str) -> None:
        """Speak (``"on"``) or be ``"muted"``."""

    def subscribe(self) -> queue.Queue[dict[str, Any]]:
        """A queue that receives the new view after every change."""

    def unsubscribe(self, q: queue.Queue[dict[str, Any]]) -> None:
        """Stop filling a queue from :meth:`subscribe`."""
