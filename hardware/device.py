"""What every part of the board shares: it holds pins until it is closed, once.

As gpiozero's own devices do, each part releases its pins with
:meth:`Device.close` (safe to call again, from any thread) or at the end of a
``with`` block, and says whether it has with :attr:`Device.closed`.  A part
says only how it goes quiet and lets go, in ``_release``.

>>> class Lamp(Device):
...     def _release(self) -> None:
...         print("dark, pin released")
>>> with Lamp() as lamp:
...     lamp.closed
False
dark, pin released
>>> lamp.close()   # the second time does nothing
>>> lamp.closed
True
"""

from __future__ import annotations

import threading
from typing import Self

_closing = threading.Lock()
"""Guards each part's closed flag, so that two threads closing one part release it once."""


class Device:
    """A part of the board that holds pins (see the module's docstring)."""

    _closed = False

    @property
    def closed(self) -> bool:
        """Whether the part has released its pins."""
        return self._closed

    def close(self) -> None:
        """Go quiet and release the pins. Safe to call twice."""
        with _closing:
            if self._closed:
                return
            self._closed = True
        self._release()

    def _release(self) -> None:
        """Go quiet, then release every pin (called once, by :meth:`close`)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
