"""The JSON API: the view and its live stream (open), and the referee's calls that change the game.

Every referee call needs the PIN session, and a POST its ``X-CSRF-Token``
(:func:`web.guard.referee_api`). A refusal changes nothing: 400 for a body or
event that is not well-formed (the message names the field), 409 for a game in
progress, 422 for the engine's refusal, with its reason (``web/openapi.yaml``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from flask import Blueprint, Response, jsonify, request

from companion.rules.cards import Card, CardError
from web.config import is_whole
from web.events import EventError, check_event
from web.guard import api_error, json_body, referee_api
from web.state import current, table
from web.stream import STREAM_RETRY_S, stream

blueprint = Blueprint("api", __name__)


@blueprint.get("/api/state")
def state() -> Response:
    response = jsonify(table().view())
    response.headers["Cache-Control"] = "no-store"
    return response


@blueprint.get("/api/events")
def events() -> Response:
    hub = current().hub
    last_id = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
    client = request.remote_addr or "?"
    if not hub.admit(client):
        response = api_error(503, f"too many live streams are open; poll /api/state, or try again in {STREAM_RETRY_S} s")
        response.headers["Retry-After"] = str(STREAM_RETRY_S)
        return response
    # waitress reads on while the stream runs (channel_request_lookahead), so a closed socket is seen at once
    disconnected: Callable[[], bool] = request.environ.get("waitress.client_disconnected", lambda: False)
    response = Response(stream(table(), hub, last_id=last_id, disconnected=disconnected), mimetype="text/event-stream")
    released = threading.Event()

    def release() -> None:  # once, whether or not the stream ever started
        if not released.is_set():
            released.set()
            hub.release(client)

    response.call_on_close(release)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@blueprint.post("/api/event")
@referee_api
def post_event() -> Response:
    try:
        event = check_event(json_body())
    except EventError as e:
        return api_error(400, str(e))
    if event["type"] == "game" and _has_game():
        return api_error(409, "a game is in progress: use /api/new-game with \"replace\": true to replace it")
    return _submit(event)


@blueprint.post("/api/undo")
@referee_api
def undo() -> Response:
    return _submit({"type": "undo"})


@blueprint.post("/api/new-game")
@referee_api
def new_game() -> Response:
    body = json_body()
    if not isinstance(body, dict) or not isinstance(body.get("replace", False), bool):
        return api_error(400, "send {\"game\": {...the game event...}, \"replace\": true|false}")
    try:
        event = check_event(body.get("game"))
    except EventError as e:
        return api_error(400, str(e))
    if event["type"] != "game":
        return api_error(400, "a new game starts with a game event")
    if _has_game() and not body.get("replace"):
        return api_error(409, "a game is in progress: export it, then confirm replacing it")
    try:
        return jsonify(table().start(event))  # keeps the replaced game's record beside the store
    except ValueError as e:
        return api_error(422, str(e))


@blueprint.post("/api/confirm")
@referee_api
def confirm() -> Response:
    body = json_body()
    if not isinstance(body, dict) or not is_whole(body.get("id")):
        return api_error(400, "send {\"id\": <pending id>, \"code\": null or a card code}")
    code = body.get("code")
    if code is not None:
        try:
            code = str(Card.parse(code))
        except CardError as e:
            return api_error(400, str(e))
    try:
        return jsonify(table().confirm(body["id"], code))
    except ValueError as e:
        return api_error(422, str(e))


@blueprint.post("/api/dismiss")
@referee_api
def dismiss() -> Response:
    body = json_body()
    if not isinstance(body, dict) or not is_whole(body.get("id")):
        return api_error(400, "send {\"id\": <pending id>}")
    try:
        return jsonify(table().dismiss(body["id"]))
    except ValueError as e:
        return api_error(422, str(e))


@blueprint.post("/api/import")
@referee_api
def import_record() -> Response:
    """Replace the game with the record in the body (checked whole first); the table archives the old one."""
    raw = request.get_data(cache=False)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return api_error(400, "the record is not UTF-8 text")
    if not text.strip():
        return api_error(400, "the record is empty")
    try:
        table().replace_from_jsonl(text)
    except ValueError as e:
        return api_error(422, str(e))
    return jsonify(table().view())


@blueprint.get("/api/export")
@referee_api
def export() -> Response:
    view = table().view()
    name = f"{view.get('variant') or 'game'}-{time.strftime('%Y%m%d-%H%M')}.jsonl"
    response = Response(table().export_jsonl(), mimetype="application/jsonl")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@blueprint.post("/api/voice")
@referee_api
def voice() -> Response:
    body = json_body()
    if not isinstance(body, dict) or not isinstance(body.get("muted"), bool):
        return api_error(400, "send {\"muted\": true} or {\"muted\": false}")
    if table().view()["voice"] is None:
        return api_error(404, "this table does not speak: set [voice] enabled = true in the config (and install espeak-ng)")
    table().set_voice("muted" if body["muted"] else "on")
    return jsonify(table().view())


def _submit(event: dict[str, object]) -> Response:
    try:
        view = table().submit(event)
    except ValueError as e:  # RuleError and RecordError: the engine's reason, nothing changed
        return api_error(422, str(e))
    return jsonify(view)


def _has_game() -> bool:
    return bool(table().view().get("players"))

