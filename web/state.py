"""What the routes reach on the app: the table, the camera, the stream hub, the referee's sign-in.

``create_app`` builds one :class:`WebState` and keeps it in ``app.extensions``;
a route reaches it through the accessors here, in the app handling the request.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app

from web.auth import LoginLimiter, SessionRegistry
from web.camera import CameraView
from web.stream import StreamHub
from web.table import TableService

KEY = "companion"


@dataclass(frozen=True, slots=True, kw_only=True)
class WebState:
    """Everything one app serves and guards with."""

    table: TableService
    camera: CameraView | None
    """None where no camera is connected (``companion web``)."""
    hub: StreamHub
    limiter: LoginLimiter
    sessions: SessionRegistry
    join: dict[str, str | None]
    """The scoreboard's address and its QR code, for the referee page (``web.join.tablet_join``)."""


def state_of(app: Flask) -> WebState:
    state: WebState = app.extensions[KEY]
    return state


def current() -> WebState:
    """The state of the app handling this request."""
    return state_of(current_app)


def table() -> TableService:
    return current().table


def camera() -> CameraView | None:
    return current().camera


def referee_pin() -> str:
    """The PIN the referee signs in with (``app.config["REFEREE_PIN"]``, configured or made up)."""
    pin: str = current_app.config["REFEREE_PIN"]
    return pin
