"""The pages: the scoreboard, the referee's sign-in and page, the camera page, the language switcher.

Each page is rendered in the reader's language (the ``lang`` cookie, else the
browser's ``Accept-Language``) and carries its first view as boot JSON, so it
shows the game before its script has asked for anything.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import time
from typing import Any

from flask import Blueprint, g, make_response, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue

from companion.rules.events import MAX_CHIPS
from web.guard import csrf_ok, csrf_token, signed_in
from web.i18n import LANGUAGES, Catalog, negotiate
from web.state import camera, current, referee_pin, table

blueprint = Blueprint("pages", __name__)

_LOCAL_PATH = re.compile(r"/(?![/\\])[!#-\[\]-~]*")
"""A path on this site: no second slash or backslash after the first, no space, tab, newline or other
control character (browsers drop those, so ``/\t/evil.example`` would become ``//evil.example``)."""


@blueprint.get("/")
def scoreboard() -> str:
    return _page("scoreboard.html", boot={"view": table().view()})


@blueprint.get("/referee")
def referee() -> ResponseReturnValue:
    if not signed_in():
        return redirect(url_for("pages.login"))
    return _page("referee.html", join=current().join, boot={"view": table().view(), "csrf": csrf_token()})


@blueprint.route("/referee/login", methods=["GET", "POST"])
def login() -> ResponseReturnValue:
    message, status = None, 200
    if request.method == "POST":
        limiter, sessions = current().limiter, current().sessions
        client = request.remote_addr or "?"
        wait = limiter.retry_after(client)
        if wait:
            response = make_response(_page("login.html", message=_catalog().ui("too_many_tries")), 429)
            response.headers["Retry-After"] = str(wait)
            return response
        if not csrf_ok(request.form.get("csrf_token")):
            message, status = _catalog().ui("session_expired"), 403
        elif hmac.compare_digest(request.form.get("pin", "").strip().encode(), referee_pin().encode()):
            limiter.succeeded(client)
            sessions.remove(session.get("sid"))
            session.clear()
            session.permanent = True
            session["referee_at"] = time.time()
            session["sid"] = sessions.add()
            session["csrf"] = secrets.token_urlsafe(32)
            target = request.args.get("next", "")
            return redirect(target if target in ("/camera", "/referee") else url_for("pages.referee"))
        else:
            limiter.failed(client)
            message, status = _catalog().ui("wrong_pin"), 401
    elif session.get("referee_at") is not None and not signed_in():
        message = _catalog().ui("session_expired")
    return make_response(_page("login.html", message=message), status)


@blueprint.post("/referee/logout")
def logout() -> ResponseReturnValue:
    if csrf_ok(request.form.get("csrf_token")):
        current().sessions.remove(session.get("sid"))  # the cookie is worthless from now on, wherever a copy of it is
        session.clear()
    return redirect(url_for("pages.scoreboard"))


@blueprint.get("/camera")
def camera_page() -> ResponseReturnValue:
    if not signed_in():
        return redirect(url_for("pages.login", next="/camera"))
    view = camera()
    zones = view.zones() if view is not None else {}
    return _page("camera.html", has_camera=view is not None,
                 boot={"zones": zones, "players": [p["name"] for p in table().view()["players"]], "csrf": csrf_token()})


@blueprint.get("/lang/<code>")
def choose_language(code: str) -> ResponseReturnValue:
    target = request.args.get("next", "/")
    if not _LOCAL_PATH.fullmatch(target):  # only this site's own pages
        target = "/"
    response = redirect(target)
    if code in LANGUAGES:
        response.set_cookie("lang", code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True)
    return response


def _catalog() -> Catalog:
    """The reader's catalog, chosen once a request."""
    if "catalog" not in g:
        chosen = request.cookies.get("lang")
        g.catalog = Catalog.load(chosen if chosen in LANGUAGES else negotiate(request.headers.get("Accept-Language")))
    catalog: Catalog = g.catalog
    return catalog


def _page(template: str, *, boot: dict[str, Any] | None = None, **context: Any) -> str:
    """``template`` in the reader's language, with the header's languages and sign-out form,
    and ``boot`` (with the catalogs) as the page's boot JSON."""
    cat = _catalog()
    return render_template(
        template,
        _=cat.ui,
        lang=cat.code,
        languages=[(code, Catalog.load(code).data["language"]) for code in LANGUAGES],
        csrf=csrf_token(),
        signed_in=signed_in(),
        max_chips=MAX_CHIPS,
        boot=_script_json({"lang": cat.code, "i18n": cat.data, "fallback": Catalog.load("en").data, **(boot or {})}),
        **context,
    )


def _script_json(data: object) -> str:
    """JSON that is safe inside ``<script>``: no ``<``, ``>`` or ``&`` at all, so no name
    (``</script>``, ``<!--<script>``) can end the element or change how the browser reads it.

    >>> print(_script_json({"name": "<!--<script>&"}))
    {"name": "\\u003c!--\\u003cscript\\u003e\\u0026"}
    """
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
