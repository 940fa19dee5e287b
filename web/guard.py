"""What a request is checked against before a route acts on it: the referee's session, the
CSRF token, the page it comes from, and the size and depth of a JSON body.

A request refused here changes nothing and says why; an API refusal is JSON
``{"error": ...}`` (:func:`api_error`).
"""

from __future__ import annotations

import hmac
import json
import secrets
import time
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from flask import Response, abort, jsonify, request, session

from companion.rules.events import MAX_JSON_DEPTH, json_depth
from web.state import current

MAX_EVENT_BODY = 16 * 1024


def api_error(status: int, message: str) -> Response:
    """The JSON answer of a refused API request."""
    response = jsonify(error=message)
    response.status_code = status
    return response


def csrf_token() -> str:
    """The CSRF token kept in the signed cookie, made on first use."""
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    token: str = session["csrf"]
    return token


def csrf_ok(sent: str | None) -> bool:
    token = session.get("csrf")
    return bool(token and sent and hmac.compare_digest(str(sent), token))


def signed_in() -> bool:
    """Whether this request comes from a referee whose sign-in has neither expired nor been signed out."""
    sessions = current().sessions
    at = session.get("referee_at")
    return (isinstance(at, (int, float)) and 0 <= time.time() - at < sessions.lifetime_s
            and sessions.valid(session.get("sid")))


def same_origin() -> bool:
    """A browser names the page a POST comes from; it must be one of ours (no Origin: not a browser)."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == request.host


def referee_api(fn: Callable[..., Response]) -> Callable[..., Response]:
    """PIN session for every referee call; the CSRF header as well for those that change things."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Response:
        if not signed_in():
            return api_error(401, "enter the referee PIN first (your session may have expired)")
        if request.method == "POST" and not csrf_ok(request.headers.get("X-CSRF-Token")):
            return api_error(403, "missing or wrong X-CSRF-Token header; reload the referee page")
        return fn(*args, **kwargs)

    return wrapper


def json_body() -> Any:
    """The request's JSON body: at most ``MAX_EVENT_BODY`` bytes of UTF-8, nesting no deeper than
    ``MAX_JSON_DEPTH`` (checked before parsing); 413 or 400 otherwise."""
    if request.content_length is not None and request.content_length > MAX_EVENT_BODY:
        abort(413)
    raw = request.get_data(cache=False)
    if len(raw) > MAX_EVENT_BODY:
        abort(413)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        abort(400, description="the body is not valid JSON (not UTF-8)")
    if json_depth(text) > MAX_JSON_DEPTH:
        abort(400, description=f"the body nests deeper than {MAX_JSON_DEPTH} levels; no request does")
    try:
        return json.loads(text)
    except ValueError:
        abort(400, description="the body is not valid JSON")
