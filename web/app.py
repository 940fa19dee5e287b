"""The Flask app: the scoreboard, the referee and camera pages, and their JSON API.

One app serves one ``Table``. Reads (``/``, ``/api/state``, ``/api/events``)
are open to the local network; everything that changes the game, and the
camera, sits behind the referee PIN, a session that expires, and a CSRF token
(a hidden field in forms, the ``X-CSRF-Token`` header for the API). A request
the app refuses changes nothing and says why, as JSON ``{"error": ...}``.
"""

from __future__ import annotations

import datetime as dt
import hmac
import json
import logging
import math
import os
import queue
import re
import secrets
import threading
import time
from collections import defaultdict
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

from flask import (
    Flask, Response, abort, g, jsonify, make_response, redirect, render_template, request, session, url_for,
)
from werkzeug.exceptions import HTTPException

from companion.rules.events import MAX_JSON_DEPTH, json_depth
from web.camera import CameraView, ZoneError, ZonesNotSaved, validate_zones
from web.config import WebConfig
from web.events import MAX_CHIPS, EventError, check_event
from web.i18n import LANGUAGES, Catalog, negotiate
from web.join import tablet_join

log = logging.getLogger(__name__)

MAX_BODY = 2 * 1024 * 1024  # an imported record; a real game is a few tens of kilobytes
MAX_EVENT_BODY = 16 * 1024
MAX_STREAMS = 32
STREAMS_PER_CLIENT = 4  # a tablet with a few tabs open
STREAM_RETRY_S = 10
LOGIN_FREE_TRIES = 5
SECRET_FILE = "web-secret-key"
SESSIONS_FILE = "web-sessions.json"
_LOCAL_PATH = re.compile(r"/(?![/\\])[!#-\[\]-~]*")
"""A path on this site: no second slash or backslash after the first, no space, tab, newline or other
control character (browsers drop those, so ``/\t/evil.example`` would become ``//evil.example``)."""


class StreamHub:
    """Admits the server-sent-event streams, a bounded number in all and per client, and stops them.

    Every open stream holds a server thread, so the server runs ``max_streams``
    threads for streams on top of those for the pages and the API, and refuses
    a stream beyond the limits (the page then polls ``/api/state``): no number
    of tablets or strangers can take the threads the referee needs.
    """

    def __init__(self, *, heartbeat_s: float, max_stream_s: float, max_streams: int, per_client: int) -> None:
        self.heartbeat_s = heartbeat_s
        self.max_stream_s = max_stream_s
        self.max_streams = max_streams
        self.per_client = per_client
        self.stopping = threading.Event()
        self._open: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._encoded: tuple[dict[str, Any] | None, str] = (None, "")
        self._encode_lock = threading.Lock()

    def admit(self, client: str) -> bool:
        """Take a stream slot for ``client``; False when the server or this client has none left."""
        with self._lock:
            if sum(self._open.values()) >= self.max_streams or self._open[client] >= self.per_client:
                return False
            self._open[client] += 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if self._open[client] <= 0:
                del self._open[client]

    def open_streams(self) -> int:
        with self._lock:
            return sum(self._open.values())

    def message(self, view: dict[str, Any]) -> str:
        """The event-stream message for ``view``, encoded once however many streams send it.

        ``Table`` hands the same view object to every stream's queue, so after a change one
        stream encodes it and the others reuse the text: the CPU a change costs no longer grows
        with the streams open, and the referee's own request is not kept waiting by them.
        The object itself is the key (and is kept), never the version, which a read of a
        changed ``settled`` list can share.
        """
        with self._encode_lock:
            if self._encoded[0] is not view:
                self._encoded = (view, _sse(view))
            return self._encoded[1]

    def stop(self) -> None:
        """End every open stream within half a second (browsers reconnect by themselves)."""
        self.stopping.set()


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


def create_app(
    table: Any,
    *,
    config: WebConfig,
    camera: CameraView | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    heartbeat_s: float = 15.0,
    max_stream_s: float = 600.0,
    max_streams: int = MAX_STREAMS,
    streams_per_client: int = STREAMS_PER_CLIENT,
) -> Flask:
    """Build the app for ``table`` (a ``companion.table.Table``).

    ``data_dir`` keeps the generated session key (so a restart does not log the
    referee out) and a copy of any game an import replaces (a new game's
    replaced record is kept by ``Table.start`` beside the store). Without a
    configured PIN one is made up: ``app.config["REFEREE_PIN"]``, with
    ``app.config["PIN_GENERATED"]`` set, for the caller to show.
    A stream ends after ``max_stream_s`` and the browser reconnects, so no
    forgotten tablet holds a server thread for ever; at most ``max_streams``
    are open at once, ``streams_per_client`` from one address (see
    :class:`StreamHub`).
    """
    app = Flask(__name__)
    data_path = Path(data_dir) if data_dir is not None else None
    pin = config.pin or _generated_pin()
    app.config.update(
        SECRET_KEY=config.secret_key or _secret_key(data_path),
        MAX_CONTENT_LENGTH=MAX_BODY,
        PERMANENT_SESSION_LIFETIME=dt.timedelta(hours=config.session_hours),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="companion_session",
        REFEREE_PIN=pin,
        PIN_GENERATED=config.pin is None,
    )
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    hub = StreamHub(heartbeat_s=heartbeat_s, max_stream_s=max_stream_s, max_streams=max_streams,
                    per_client=streams_per_client)
    limiter = LoginLimiter()
    sessions = SessionRegistry(data_path / SESSIONS_FILE if data_path is not None else None,
                               lifetime_s=config.session_hours * 3600)
    app.extensions["companion"] = {"hub": hub}
    join = tablet_join(config.host, config.port)
    session_s = config.session_hours * 3600

    # ---- helpers -------------------------------------------------------------------------------

    def catalog() -> Catalog:
        if "catalog" not in g:
            chosen = request.cookies.get("lang")
            g.catalog = Catalog.load(chosen if chosen in LANGUAGES else negotiate(request.headers.get("Accept-Language")))
        return g.catalog

    def csrf_token() -> str:
        if "csrf" not in session:
            session["csrf"] = secrets.token_urlsafe(32)
        return session["csrf"]

    def signed_in() -> bool:
        at = session.get("referee_at")
        return isinstance(at, (int, float)) and 0 <= time.time() - at < session_s and sessions.valid(session.get("sid"))

    def same_origin() -> bool:
        """A browser names the page a POST comes from; it must be one of ours (no Origin: not a browser)."""
        origin = request.headers.get("Origin") or request.headers.get("Referer")
        if origin is None:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.netloc == request.host

    def csrf_ok(sent: str | None) -> bool:
        token = session.get("csrf")
        return bool(token and sent and hmac.compare_digest(str(sent), token))

    def api_error(status: int, message: str, **extra: Any) -> Response:
        response = jsonify(error=message, **extra)
        response.status_code = status
        return response

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

    def submit(event: dict[str, Any]) -> Response:
        try:
            view = table.submit(event)
        except ValueError as e:  # RuleError and RecordError: the engine's reason, nothing changed
            return api_error(422, str(e))
        return jsonify(view)

    def has_game(view: dict[str, Any]) -> bool:
        return bool(view.get("players"))

    def import_game(text: str) -> Response:
        """Replace the game with the record ``text`` (checked first); the table archives the old one."""
        try:
            table.replace_from_jsonl(text)
        except ValueError as e:
            return api_error(422, str(e))
        return jsonify(table.view())

    def page(template: str, **context: Any) -> str:
        cat = catalog()
        return render_template(
            template,
            _=cat.ui,
            lang=cat.code,
            languages=[(code, Catalog.load(code).data["language"]) for code in LANGUAGES],
            csrf=csrf_token(),
            signed_in=signed_in(),
            max_chips=MAX_CHIPS,
            boot=_script_json({"lang": cat.code, "i18n": cat.data, "fallback": Catalog.load("en").data, **context.pop("boot", {})}),
            **context,
        )

    # ---- errors and headers ------------------------------------------------------------------

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Response:
        if request.path.startswith(("/api/", "/camera/")):
            messages = {413: f"the request body is too large (at most {MAX_EVENT_BODY // 1024} KiB for an event, "
                             f"{MAX_BODY // (1024 * 1024)} MiB for an import)"}
            message = messages.get(e.code or 500) or e.description or e.name
            return api_error(e.code or 500, message)
        return e.get_response()

    @app.before_request
    def refuse_other_origins() -> Response | None:
        if request.method in ("GET", "HEAD", "OPTIONS") or same_origin():
            return None
        if request.path.startswith(("/api/", "/camera/")):
            return api_error(403, "a request from another site's page is refused")
        abort(403)

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
        )
        return response

    # ---- pages -------------------------------------------------------------------------------

    @app.get("/")
    def scoreboard() -> str:
        return page("scoreboard.html", boot={"view": table.view()})

    @app.get("/referee")
    def referee() -> Any:
        if not signed_in():
            return redirect(url_for("login"))
        return page("referee.html", join=join, boot={"view": table.view(), "csrf": csrf_token()})

    @app.route("/referee/login", methods=["GET", "POST"])
    def login() -> Any:
        message, status = None, 200
        if request.method == "POST":
            client = request.remote_addr or "?"
            wait = limiter.retry_after(client)
            if wait:
                response = make_response(page("login.html", message=catalog().ui("too_many_tries")), 429)
                response.headers["Retry-After"] = str(wait)
                return response
            if not csrf_ok(request.form.get("csrf_token")):
                message, status = catalog().ui("session_expired"), 403
            elif hmac.compare_digest(request.form.get("pin", "").strip().encode(), pin.encode()):
                limiter.succeeded(client)
                sessions.remove(session.get("sid"))
                session.clear()
                session.permanent = True
                session["referee_at"] = time.time()
                session["sid"] = sessions.add()
                session["csrf"] = secrets.token_urlsafe(32)
                target = request.args.get("next", "")
                return redirect(target if target in ("/camera", "/referee") else url_for("referee"))
            else:
                limiter.failed(client)
                message, status = catalog().ui("wrong_pin"), 401
        elif session.get("referee_at") is not None and not signed_in():
            message = catalog().ui("session_expired")
        return make_response(page("login.html", message=message), status)

    @app.post("/referee/logout")
    def logout() -> Any:
        if csrf_ok(request.form.get("csrf_token")):
            sessions.remove(session.get("sid"))  # the cookie is worthless from now on, wherever a copy of it is
            session.clear()
        return redirect(url_for("scoreboard"))

    @app.get("/camera")
    def camera_page() -> Any:
        if not signed_in():
            return redirect(url_for("login", next="/camera"))
        zones = camera.zones() if camera is not None else {}
        return page("camera.html", has_camera=camera is not None,
                    boot={"zones": zones, "players": [p["name"] for p in table.view()["players"]], "csrf": csrf_token()})

    @app.get("/lang/<code>")
    def choose_language(code: str) -> Any:
        target = request.args.get("next", "/")
        if not _LOCAL_PATH.fullmatch(target):  # only this site's own pages
            target = "/"
        response = redirect(target)
        if code in LANGUAGES:
            response.set_cookie("lang", code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
        return response

    # ---- read API (open) ---------------------------------------------------------------------

    @app.get("/api/state")
    def state() -> Response:
        response = jsonify(table.view())
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/api/events")
    def events() -> Response:
        last_id = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
        client = request.remote_addr or "?"
        if not hub.admit(client):
            response = api_error(503, f"too many live streams are open; poll /api/state, or try again in {STREAM_RETRY_S} s")
            response.headers["Retry-After"] = str(STREAM_RETRY_S)
            return response
        # waitress reads on while the stream runs (channel_request_lookahead), so a closed socket is seen at once
        disconnected: Callable[[], bool] = request.environ.get("waitress.client_disconnected", lambda: False)

        def stream() -> Iterator[str]:
            q = table.subscribe()  # before reading the view, so no change falls between the two
            try:
                yield "retry: 2000\n\n"
                view = table.view()
                if str(view["version"]) != last_id:
                    yield _sse(view)
                started = last_sent = time.monotonic()
                while not hub.stopping.is_set() and not disconnected() and time.monotonic() - started < hub.max_stream_s:
                    try:
                        view = q.get(timeout=min(0.5, hub.heartbeat_s))  # wakes to notice a stop or a hang-up
                    except queue.Empty:
                        if time.monotonic() - last_sent >= hub.heartbeat_s:
                            yield ": heartbeat\n\n"
                            last_sent = time.monotonic()
                        continue
                    while True:  # a burst of changes: only the newest view matters
                        try:
                            view = q.get_nowait()
                        except queue.Empty:
                            break
                    yield hub.message(view)
                    last_sent = time.monotonic()
            finally:
                table.unsubscribe(q)

        response = Response(stream(), mimetype="text/event-stream")
        released = threading.Event()

        def release() -> None:  # once, whether or not the stream ever started
            if not released.is_set():
                released.set()
                hub.release(client)

        response.call_on_close(release)
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Accel-Buffering"] = "no"
        return response

    # ---- referee API -------------------------------------------------------------------------

    @app.post("/api/event")
    @referee_api
    def post_event() -> Response:
        try:
            event = check_event(json_body())
        except EventError as e:
            return api_error(400, str(e))
        if event["type"] == "game" and has_game(table.view()):
            return api_error(409, "a game is in progress: use /api/new-game with \"replace\": true to replace it")
        return submit(event)

    @app.post("/api/undo")
    @referee_api
    def undo() -> Response:
        return submit({"type": "undo"})

    @app.post("/api/new-game")
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
        if has_game(table.view()) and not body.get("replace"):
            return api_error(409, "a game is in progress: export it, then confirm replacing it")
        try:
            return jsonify(table.start(event))  # keeps the replaced game's record beside the store
        except ValueError as e:
            return api_error(422, str(e))

    @app.post("/api/confirm")
    @referee_api
    def confirm() -> Response:
        body = json_body()
        if not isinstance(body, dict) or not _is_int(body.get("id")):
            return api_error(400, "send {\"id\": <pending id>, \"code\": null or a card code}")
        code = body.get("code")
        if code is not None:
            try:
                code = check_event({"type": "play", "player": "-", "card": code})["card"]
            except EventError as e:
                return api_error(400, str(e))
        try:
            return jsonify(table.confirm(body["id"], code))
        except ValueError as e:
            return api_error(422, str(e))

    @app.post("/api/dismiss")
    @referee_api
    def dismiss() -> Response:
        body = json_body()
        if not isinstance(body, dict) or not _is_int(body.get("id")):
            return api_error(400, "send {\"id\": <pending id>}")
        try:
            return jsonify(table.dismiss(body["id"]))
        except ValueError as e:
            return api_error(422, str(e))

    @app.post("/api/import")
    @referee_api
    def import_record() -> Response:
        raw = request.get_data(cache=False)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return api_error(400, "the record is not UTF-8 text")
        if not text.strip():
            return api_error(400, "the record is empty")
        return import_game(text)

    @app.get("/api/export")
    @referee_api
    def export() -> Response:
        view = table.view()
        name = f"{view.get('variant') or 'game'}-{time.strftime('%Y%m%d-%H%M')}.jsonl"
        response = Response(table.export_jsonl(), mimetype="application/jsonl")
        response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @app.post("/api/voice")
    @referee_api
    def voice() -> Response:
        body = json_body()
        if not isinstance(body, dict) or not isinstance(body.get("muted"), bool):
            return api_error(400, "send {\"muted\": true} or {\"muted\": false}")
        if table.view()["voice"] is None:
            return api_error(404, "this table does not speak: set [voice] enabled = true in the config (and install espeak-ng)")
        table.set_voice("muted" if body["muted"] else "on")
        return jsonify(table.view())

    @app.get("/api/zones")
    @referee_api
    def get_zones() -> Response:
        if camera is None:
            return api_error(404, "no camera is connected")
        return jsonify(zones=camera.zones())

    @app.post("/api/zones")
    @referee_api
    def set_zones() -> Response:
        if camera is None:
            return api_error(404, "no camera is connected")
        body = json_body()
        try:
            zones = validate_zones(body.get("zones") if isinstance(body, dict) else None, size=camera.frame_size())
            camera.set_zones(zones)
        except ZonesNotSaved as e:
            return api_error(503, str(e))
        except ZoneError as e:
            return api_error(400, str(e))
        return jsonify(zones=camera.zones())

    # ---- camera ------------------------------------------------------------------------------

    @app.get("/camera/frame.jpg")
    @referee_api
    def frame() -> Response:
        if camera is None:
            return api_error(404, "no camera is connected")
        jpeg = camera.latest_jpeg()
        if jpeg is None:
            return api_error(503, "no frame from the camera yet")
        response = Response(jpeg, mimetype="image/jpeg")
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/camera/detections.json")
    @referee_api
    def detections() -> Response:
        if camera is None:
            return api_error(404, "no camera is connected")
        size = camera.frame_size()
        if size is None:
            return jsonify(width=None, height=None, detections=[])
        width, height = size
        found = [
            {
                "code": d.code,
                "confidence": round(float(d.confidence), 3),
                "outline": [[round(float(x), 1), round(float(y), 1)] for x, y in d.outline.reshape(-1, 2)],
            }
            for d in camera.detections()
        ]
        return jsonify(width=width, height=height, detections=found)

    return app


def stream_hub(app: Flask) -> StreamHub:
    """The app's stream hub (to stop the SSE streams before a server shuts down)."""
    return app.extensions["companion"]["hub"]


def _script_json(data: object) -> str:
    """JSON that is safe inside ``<script>``: no ``<``, ``>`` or ``&`` at all, so no name
    (``</script>``, ``<!--<script>``) can end the element or change how the browser reads it.

    >>> print(_script_json({"name": "<!--<script>&"}))
    {"name": "\\u003c!--\\u003cscript\\u003e\\u0026"}
    """
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _sse(view: dict[str, Any]) -> str:
    return f"id: {view['version']}\ndata: {json.dumps(view, ensure_ascii=False, separators=(',', ':'))}\n\n"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
