"""The ``[web]`` table of the configuration, checked once at start-up.

A mistake in the config file should stop the companion with a message that
names the key, not surface later as a 500 on a tablet.

>>> WebConfig.from_dict({"port": 8080, "pin": "2468"}).port
8080
>>> WebConfig.from_dict({"port": "80"})
Traceback (most recent call last):
...
web.config.WebConfigError: web.port must be an integer from 1 to 65535, not '80'
>>> WebConfig.from_dict({"colour": "red"})
Traceback (most recent call last):
...
web.config.WebConfigError: web.colour is not a known key (known: host, pin, port, secret_key, session_hours)
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeGuard


class WebConfigError(ValueError):
    """A ``[web]`` setting is missing its right type or range; the message names the key."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WebConfig:
    """Where the pages are served and how the referee pages are guarded.

    ``pin`` None means no PIN was configured: the app then makes up one at
    start and logs it, so the referee pages are never open by accident.
    ``secret_key`` None means: read (or create) one kept in the data folder.
    """

    host: str = "127.0.0.1"
    port: int = 8080
    pin: str | None = None
    session_hours: float = 12.0
    secret_key: str | None = None

    def __post_init__(self) -> None:
        _check_host(self.host)
        if not is_whole(self.port) or not 1 <= self.port <= 65535:
            raise WebConfigError(f"web.port must be an integer from 1 to 65535, not {self.port!r}")
        if self.pin is not None and (
            not isinstance(self.pin, str) or not 4 <= len(self.pin) <= 32 or not self.pin.isprintable() or self.pin.strip() != self.pin
        ):
            raise WebConfigError("web.pin must be text of 4 to 32 characters without leading or trailing spaces")
        hours = self.session_hours
        if isinstance(hours, bool) or not isinstance(hours, (int, float)) or not math.isfinite(hours) or not 0 < hours <= 24 * 30:
            raise WebConfigError(f"web.session_hours must be a number of hours above 0 and at most 720, not {hours!r}")
        if self.secret_key is not None and (not isinstance(self.secret_key, str) or len(self.secret_key) < 16):
            raise WebConfigError("web.secret_key must be text of at least 16 characters (or leave it out to have one generated)")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> WebConfig:
        """Build from the parsed ``[web]`` TOML table; unknown keys are an error, not ignored."""
        if not isinstance(d, Mapping):
            raise WebConfigError(f"[web] must be a table, not {type(d).__name__}")
        known = sorted(f.name for f in fields(cls))
        for key in d:
            if key not in known:
                raise WebConfigError(f"web.{key} is not a known key (known: {', '.join(known)})")
        values = dict(d)
        pin = values.get("pin")
        if is_whole(pin) and pin >= 0:
            values["pin"] = str(pin)  # `pin = 2468` in TOML reads as an integer
        return cls(**values)


def is_whole(value: object) -> TypeGuard[int]:
    """A whole number as JSON or TOML gives one: an int, and not ``True`` or ``False`` (which Python counts as ints)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_host(host: object) -> None:
    if not isinstance(host, str) or not host:
        raise WebConfigError(f"web.host must be an address such as '127.0.0.1' or '0.0.0.0', not {host!r}")
    if host == "localhost":
        return
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise WebConfigError(f"web.host must be an IP address such as '127.0.0.1' or '0.0.0.0' (or 'localhost'), not {host!r}") from None
