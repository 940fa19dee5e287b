"""The Flask app: the scoreboard, the referee and camera pages, and their JSON API.

One app serves one table (:class:`web.table.TableService`). Reads (``/``,
``/api/state``, ``/api/events``) are open to the local network; everything that
changes the game, and the camera, sits behind the referee PIN, a session that
expires, and a CSRF token (a hidden field in forms, the ``X-CSRF-Token`` header
for the API). A request the app refuses changes nothing and says why, as JSON
``{"error": ...}``.

The routes are three blueprints: ``web.pages`` (the HTML pages), ``web.api``
(the JSON API and the event stream) and ``web.camera_routes`` (the camera page's
frame, detections and zones); what they serve is the app's
:class:`web.state.WebState`. This module builds the app and adds what holds for
every route: the JSON errors of the API, the refusal of other sites' POSTs, and
the security headers.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
from pathlib import Path

from flask import Flask, Response, abort, request
from flask.json.provider import DefaultJSONProvider
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from web import api, camera_routes, pages
from web.auth import SESSIONS_FILE, LoginLimiter, SessionRegistry
from web.camera import CameraView
from web.config import WebConfig
from web.guard import MAX_EVENT_BODY, api_error, same_origin
from web.join import tablet_join
from web.state import KEY, WebState, state_of
from web.stream import MAX_STREAMS, STREAMS_PER_CLIENT, StreamHub
from web.table import TableService

MAX_BODY = 2 * 1024 * 1024  # an imported record; a real game is a few tens of kilobytes
SECRET_FILE = "web-secret-key"
_API = ("/api/", "/camera/")
"""The paths whose answers, refusals included, are JSON (or a camera frame), never a page."""


class _JSON(DefaultJSONProvider):
    """Answers keep their keys in the order the table builds them and names as written, not ``\\u`` escaped."""

    sort_keys = False
    ensure_ascii = False


def create_app(
    table: TableService,
    *,
    config: WebConfig,
    camera: CameraView | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    heartbeat_s: float = 15.0,
    max_stream_s: float = 600.0,
    max_streams: int = MAX_STREAMS,
    streams_per_client: int = STREAMS_PER_CLIENT,
) -> Flask:
    """Build the app for ``table`` (a ``companion.table.Table``, which is a :class:`web.table.TableService`).

    ``data_dir`` keeps the generated session key (so a restart does not log the
    referee out) and a copy of any game an import replaces (a new game's
    replaced record is kept by ``Table.start`` beside the store). Without a
    configured PIN one is made up: ``app.config["REFEREE_PIN"]``, with
    ``app.config["PIN_GENERATED"]`` set, for the caller to show.
    A stream ends after ``max_stream_s`` and the browser reconnects, so no
    forgotten tablet holds a server thread for ever; at most ``max_streams``
    are open at once, ``streams_per_client`` from one address (see
    :class:`web.stream.StreamHub`).
    """
    app = Flask(__name__)
    data_path = Path(data_dir) if data_dir is not None else None
    app.config.update(
        SECRET_KEY=config.secret_key or _secret_key(data_path),
        MAX_CONTENT_LENGTH=MAX_BODY,
        PERMANENT_SESSION_LIFETIME=dt.timedelta(hours=config.session_hours),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="companion_session",
        REFEREE_PIN=config.pin or _generated_pin(),
        PIN_GENERATED=config.pin is None,
    )
    app.json = _JSON(app)
    app.extensions[KEY] = WebState(
        table=table,
        camera=camera,
        hub=StreamHub(heartbeat_s=heartbeat_s, max_stream_s=max_stream_s, max_streams=max_streams,
                      per_client=streams_per_client),
        limiter=LoginLimiter(),
        sessions=SessionRegistry(data_path / SESSIONS_FILE if data_path is not None else None,
                                 lifetime_s=config.session_hours * 3600),
        join=tablet_join(config.host, config.port),
    )
    app.register_error_handler(HTTPException, _http_error)
    app.before_request(_refuse_other_origins)
    app.after_request(_security_headers)
    for module in (pages, api, camera_routes):
        app.register_blueprint(module.blueprint)
    return app


def stream_hub(app: Flask) -> StreamHub:
    """The app's stream hub (to stop the SSE streams before a server shuts down)."""
    return state_of(app).hub


def _http_error(e: HTTPException) -> ResponseReturnValue:
    """An API path's error as JSON ``{"error": ...}``; a page's as Flask's page."""
    if request.path.startswith(_API):
        messages = {413: f"the request body is too large (at most {MAX_EVENT_BODY // 1024} KiB for an event, "
                         f"{MAX_BODY // (1024 * 1024)} MiB for an import)"}
        message = messages.get(e.code or 500) or e.description or e.name
        return api_error(e.code or 500, message)
    return e.get_response()


def _refuse_other_origins() -> Response | None:
    if request.method in ("GET", "HEAD", "OPTIONS") or same_origin():
        return None
    if request.path.startswith(_API):
        return api_error(403, "a request from another site's page is refused")
    abort(403)


def _security_headers(response: Response) -> Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
    )
    return response


def _generated_pin() -> str:
    return f"{secrets.randbelow(10**6):06d}"


def _secret_key(data_path: Path | None) -> str:
    """The session key kept in the data folder (created on first use, readable by the owner only)."""
    if data_path is None:
        return secrets.token_hex(32)
    path = data_path / SECRET_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) >= 32:
            return key
    except FileNotFoundError:
        pass
    data_path.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")
    return key
