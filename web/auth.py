"""The referee's sign-in: a wrong-PIN budget per client address, and the sessions the server knows."""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

LOGIN_FREE_TRIES = 5
SESSIONS_FILE = "web-sessions.json"


class LoginLimiter:
    """A wrong-PIN budget per client address: ``free`` tries, then a wait that doubles with
    every further wrong PIN, up to ``longest_s``; forgotten after a right PIN or a day of none.

    At most about 24 guesses a day from one address once the waits are long: a 6-digit PIN
    holds for decades. Other addresses, the referee's own tablet among them, are not held up.
    """

    def __init__(self, *, free: int = LOGIN_FREE_TRIES, first_wait_s: float = 2.0, longest_s: float = 3600.0,
                 forget_s: float = 24 * 3600.0) -> None:
        self.free, self.first_wait_s, self.longest_s, self.forget_s = free, first_wait_s, longest_s, forget_s
        self._failures: dict[str, tuple[int, float]] = {}  # client -> (wrong PINs, when the last was)
        self._lock = threading.Lock()

    def wait_s(self, failures: int) -> float:
        """The wait after ``failures`` wrong PINs in a row."""
        if failures < self.free:
            return 0.0
        return min(self.longest_s, self.first_wait_s * 2 ** (failures - self.free))

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try again; 0 when it may try now."""
        now = time.monotonic()
        with self._lock:
            count, last = self._failures.get(client, (0, now))
            if now - last > self.forget_s:
                self._failures.pop(client, None)
                return 0
            left = self.wait_s(count) - (now - last)
            return math.ceil(left) if left > 0 else 0

    def failed(self, client: str) -> None:
        with self._lock:
            count, _ = self._failures.get(client, (0, 0.0))
            self._failures[client] = (count + 1, time.monotonic())
            if len(self._failures) > 10_000:  # a flood of addresses: keep the worst, not every one
                for key, _ in sorted(self._failures.items(), key=lambda kv: kv[1][0])[:5_000]:
                    del self._failures[key]

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


class SessionRegistry:
    """The referee sessions signed in and not signed out, by id, kept in the data folder.

    A session cookie is signed, so only the server can revoke it: signing out deletes
    its id here, and the cookie is worthless from then on, though it has not expired.
    """

    def __init__(self, path: Path | None, *, lifetime_s: float) -> None:
        self.path, self.lifetime_s = path, lifetime_s
        self._lock = threading.Lock()
        self._ids: dict[str, float] = {}
        if path is not None and path.exists():
            try:
                loaded = json.loads(path.read_text(encoding="utf-8"))
                self._ids = {str(k): float(v) for k, v in loaded.items()}
            except (OSError, ValueError, AttributeError, TypeError):
                log.warning("%s is unreadable: every referee signs in again", path)

    def add(self) -> str:
        """A new session's id."""
        sid = secrets.token_urlsafe(24)
        with self._lock:
            now = time.time()
            self._ids = {k: at for k, at in self._ids.items() if now - at < self.lifetime_s}
            self._ids[sid] = now
            self._save()
        return sid

    def valid(self, sid: object) -> bool:
        with self._lock:
            at = self._ids.get(sid) if isinstance(sid, str) else None
            return at is not None and time.time() - at < self.lifetime_s

    def remove(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str) and self._ids.pop(sid, None) is not None:
                self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self._ids, f)
        os.replace(temp, self.path)
