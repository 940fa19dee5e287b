"""The pages' four languages: catalogs, the browser's choice, card and log wording.

Each language is one JSON catalog in ``web/i18n/`` with the same keys; the
browser scripts receive the same catalog and word things the same way, so
the scoreboard reads alike whether drawn here or there. Log entries are
worded from their ``kind`` and fields, by the first template of that kind
whose fields are all present; an entry no template fits keeps the engine's text.

>>> en, ko, fr, de = (Catalog.load(code) for code in LANGUAGES)
>>> [c.card_name("QS") for c in (en, ko, fr, de)]
['Queen of spades', '스페이드 퀸', 'dame de pique', 'Pik-Dame']
>>> fr.describe({"kind": "win", "player": "Bob", "section": "KC", "chips": 14, "text": "Bob takes 14 from KC"})
'Bob prend 14 jetons sur roi de trèfle'
>>> en.describe({"kind": "mystery", "text": "Something else"})
'Something else'
>>> negotiate("de-CH,de;q=0.9,en;q=0.5")
'de'
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "ko", "fr", "de")
DEFAULT = "en"
_DIR = Path(__file__).with_name("i18n")
_FORMATTER = string.Formatter()


def negotiate(accept_language: str | None) -> str:
    """The best of our languages for an ``Accept-Language`` header (English if none fits)."""
    best, best_q = DEFAULT, 0.0
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                continue
        code = tag.strip().lower().split("-")[0]
        if code in LANGUAGES and q > best_q:
            best, best_q = code, q - i * 1e-6  # equal q: the earlier one wins
    return best


class Catalog:
    """One language's words, with English filling any gap."""

    def __init__(self, code: str, data: Mapping[str, Any], fallback: Catalog | None = None) -> None:
        self.code = code
        self.data = data
        self.fallback = fallback

    @classmethod
    def load(cls, code: str) -> Catalog:
        return _load(code)

    def ui(self, key: str) -> str:
        """A page string; the key itself when no catalog knows it, so a gap shows rather than crashes."""
        value = self.data.get("ui", {}).get(key)
        if value is None:
            return self.fallback.ui(key) if self.fallback else key
        return value

    def _get(self, group: str, key: str) -> str | None:
        value = self.data.get(group, {}).get(key)
        if value is None and self.fallback:
            return self.fallback._get(group, key)
        return value

    def card_name(self, code: str) -> str:
        if code == "JK":
            return self.data.get("joker") or "Joker"
        rank, suit = self._get("ranks", code[:1]), self._get("suits", code[1:])
        if rank is None or suit is None or len(code) != 2:
            return code
        return self.data["card"].format(rank=rank, suit=suit)

    def section_name(self, name: str, variant: str | None = None) -> str:
        """A board section by name; ``variant`` picks a game's own word where it differs (Tripoley's pot)."""
        named = self._get("sections", f"{variant}:{name}") if variant else None
        named = named if named is not None else self._get("sections", name)
        return named if named is not None else self.card_name(name)

    def chips(self, n: int) -> str:
        forms = self.data["chips"]
        one = n == 1 if self.code != "fr" else n in (0, 1)
        return (forms.get("one") if one and "one" in forms else forms["other"]).format(n=n)

    def field(self, name: str, value: Any, *, variant: str | None = None) -> str:
        """One log field in words: cards by name, sections by name (``variant``'s own word first), chips counted."""
        if name == "card":
            return self.card_name(value)
        if name == "cards":
            return ", ".join(self.card_name(c) for c in value)
        if name == "section":
            return self.section_name(value, variant)
        if name == "chips":
            return self.chips(value)
        if name == "players":
            return ", ".join(map(str, value))
        if name == "variant":
            return self._get("variants", value) or str(value)
        if name == "call":
            return self._get("calls", value) or str(value)
        if name == "action":
            return self._get("actions", value) or str(value)
        return str(value)

    def describe(self, entry: Mapping[str, Any], group: str = "log", *, variant: str | None = None) -> str:
        """A log entry (or, with ``group="expect"``, one of the view's ``expect``
        entries; with ``group="voice"``, an announcement of ``companion.app.voice``)
        in this language, by the module docstring's rule; ``variant`` is the
        game's, for the sections it names its own way (as the pages do)."""
        templates = self.data.get(group, {}).get(entry.get("kind"), [])
        for template in templates:
            names = [f for _, f, _, _ in _FORMATTER.parse(template) if f]
            if all(entry.get(n) not in (None, "", []) for n in names):
                try:
                    return template.format(**{n: self.field(n, entry[n], variant=variant) for n in names})
                except (TypeError, ValueError, KeyError, AttributeError):
                    break  # a field of an unexpected shape: the engine's own words are safer
        return str(entry.get("text", ""))


@cache
def _load(code: str) -> Catalog:
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r} (known: {', '.join(LANGUAGES)})")
    data = json.loads((_DIR / f"{code}.json").read_text(encoding="utf-8"))
    return Catalog(code, data, None if code == DEFAULT else _load(DEFAULT))
