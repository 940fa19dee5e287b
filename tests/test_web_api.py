"""The web app's endpoints through Flask's test client, against the real Table.

Every refusal must be a 4xx with a message and leave the game as it was
(the view's version unchanged); every answer must match web/openapi.yaml.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import yaml
from flask import request
from openapi_spec_validator import validate as validate_spec
from werkzeug.test import TestResponse

from companion.table import Table
from vision.detection import Detection
from web.app import create_app, stream_hub
from web.camera import MemoryCameraView
from web.config import WebConfig, WebConfigError

PIN = "2468"
GAME = {"type": "game", "variant": "michigan-1939", "players": ["Ann", "Bob", "Cy"], "chips": 100}
SPEC = yaml.safe_load((Path(__file__).parents[1] / "web" / "openapi.yaml").read_text(encoding="utf-8"))


def schema(name: str) -> dict:
    """One component schema, resolvable on its own (its $refs point into the spec)."""
    return {**SPEC["components"]["schemas"][name], "components": SPEC["components"]}


def check(instance: object, name: str) -> None:
    jsonschema.validate(instance, schema(name), cls=jsonschema.Draft202012Validator)


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table.open(tmp_path / "game.sqlite")


@pytest.fixture
def camera() -> MemoryCameraView:
    outline = np.array([[100, 100], [160, 100], [160, 190], [100, 190]], dtype=np.float32)
    return MemoryCameraView(jpeg=b"\xff\xd8\xff\xe0fake-jpeg\xff\xd9", size=(640, 480),
                            detections=[Detection("QS", 0.93, outline, (("QC", 0.04),))])


def spec_node(ref: str) -> dict:
    node = SPEC
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def body(response: TestResponse) -> Any:
    """The JSON a response carries (it must carry some)."""
    data = response.get_json()
    assert data is not None, response.data
    return data


def boot_script(page: bytes) -> bytes:
    """The text of a page's boot JSON element."""
    found = re.search(rb'<script id="boot" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None, "the page has no boot JSON"
    return found.group(1)


def conformance_error(path: str, method: str, response) -> str | None:
    """Why ``response`` does not match what web/openapi.yaml documents for it, or None."""
    operation = SPEC["paths"].get(path, {}).get(method.lower())
    if operation is None:
        return f"{method} {path} is not documented"
    documented = operation["responses"].get(str(response.status_code))
    if documented is None:
        return f"{method} {path} answered {response.status_code}, which is not documented"
    if "$ref" in documented:
        documented = spec_node(documented["$ref"])
    content = documented.get("content", {})
    if response.mimetype not in content:
        return f"{method} {path} {response.status_code} answered {response.mimetype}, documented {sorted(content)}"
    if response.mimetype == "application/json":
        try:
            jsonschema.validate(response.get_json(), {**content["application/json"]["schema"], "components": SPEC["components"]},
                                cls=jsonschema.Draft202012Validator)
        except jsonschema.ValidationError as e:
            return f"{method} {path} {response.status_code}: {e.message}"
    return None


@pytest.fixture
def app(table: Table, camera: MemoryCameraView, tmp_path: Path):
    app = create_app(table, config=WebConfig(pin=PIN, session_hours=1), camera=camera, data_dir=tmp_path / "data",
                     heartbeat_s=0.2, max_stream_s=5)
    problems: list[str] = []

    @app.after_request
    def conforms(response):  # every API answer in every test is checked against the spec
        if request.path.startswith(("/api/", "/camera/")):
            rule = request.url_rule.rule if request.url_rule else request.path
            problem = conformance_error(rule, request.method, response)
            if problem:
                problems.append(problem)
        return response

    yield app
    stream_hub(app).stop()
    assert problems == [], problems


@pytest.fixture
def client(app):
    return app.test_client()


def csrf_of(client) -> str:
    with client.session_transaction() as s:
        return s.get("csrf", "")


def sign_in(client) -> dict[str, str]:
    """Log in as the referee; returns the headers an API POST needs."""
    client.get("/referee/login")
    r = client.post("/referee/login", data={"pin": PIN, "csrf_token": csrf_of(client)})
    assert r.status_code == 302, r.data
    return {"X-CSRF-Token": csrf_of(client)}


@pytest.fixture
def referee(client):
    headers = sign_in(client)
    return client, headers


@pytest.fixture
def started(referee):
    client, headers = referee
    r = client.post("/api/event", json=GAME, headers=headers)
    assert r.status_code == 200, r.json
    return client, headers


def version(client) -> int:
    return client.get("/api/state").json["version"]


def refused(response, status: int, client, before: int) -> str:
    assert response.status_code == status, (response.status_code, response.data)
    body = response.get_json()
    check(body, "Error")
    assert body["error"].strip()
    assert version(client) == before, "a refused request changed the game"
    return body["error"]


# ---- spec --------------------------------------------------------------------------------------

def test_the_openapi_document_is_valid_openapi_3_1():
    validate_spec(SPEC)
    assert SPEC["openapi"].startswith("3.1")


def test_every_api_route_is_documented(app):
    routes = {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r.rule) for r in app.url_map.iter_rules()
              if r.rule.startswith(("/api/", "/camera/"))}
    assert routes == set(SPEC["paths"])


# ---- reading -----------------------------------------------------------------------------------

def test_state_matches_the_view_schema_before_and_during_a_game(started):
    client, headers = started
    check(client.get("/api/state").json, "View")
    client.post("/api/event", json={"type": "deal", "dealer": "Ann"}, headers=headers)
    view = client.get("/api/state").json
    check(view, "View")
    assert view["dealer"] == "Ann" and [p["name"] for p in view["players"]] == ["Ann", "Bob", "Cy"]


def test_the_scoreboard_is_open_and_carries_the_view(client):
    r = client.get("/")
    assert r.status_code == 200
    boot = json.loads(boot_script(r.data))
    assert boot["view"]["version"] == version(client)
    assert "Content-Security-Policy" in r.headers


@pytest.mark.parametrize("name", ["<!--<script>", "</script><b>", "a&b>c"])
def test_a_name_in_the_boot_json_cannot_change_the_page(referee, name):
    client, headers = referee
    game = {**GAME, "players": [name, "Bob"]}
    assert client.post("/api/new-game", json={"game": game}, headers=headers).status_code == 200
    for path in ("/", "/referee"):
        page = client.get(path).data
        script = boot_script(page)
        assert not set(b"<>&") & set(script), path  # before: "<!--<script>" kept the element open to the page's end
        assert json.loads(script)["view"]["players"][0]["name"] == name


def test_static_files_need_no_cdn(client):
    pages = [client.get("/").data, client.get("/referee/login").data]
    for page in pages:
        for url in re.findall(rb'(?:src|href)="([^"]+)"', page):
            assert not url.startswith((b"http:", b"https:", b"//")), url
    for name in ("style.css", "common.js", "scoreboard.js", "referee.js", "camera.js"):
        assert client.get(f"/static/{name}").status_code == 200


# ---- the referee's session ---------------------------------------------------------------------

def test_referee_pages_and_api_need_the_pin(client):
    assert client.get("/referee").status_code == 302
    assert client.get("/camera").status_code == 302
    before = version(client)
    refused(client.post("/api/event", json=GAME), 401, client, before)
    refused(client.get("/api/export"), 401, client, before)
    refused(client.get("/camera/frame.jpg"), 401, client, before)


def test_wrong_pin_is_refused_and_rate_limited(client):
    client.get("/referee/login")
    token = csrf_of(client)
    for _ in range(5):
        r = client.post("/referee/login", data={"pin": "0000", "csrf_token": token})
        assert r.status_code == 401 and b"Wrong PIN" in r.data
    r = client.post("/referee/login", data={"pin": PIN, "csrf_token": token})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert client.get("/referee").status_code == 302  # the right PIN did not get in while blocked


def test_other_clients_are_not_blocked_by_one_clients_wrong_pins(app):
    a, b = app.test_client(), app.test_client()
    a.get("/referee/login")
    for _ in range(6):
        a.post("/referee/login", data={"pin": "0000", "csrf_token": csrf_of(a)}, environ_base={"REMOTE_ADDR": "10.0.0.5"})
    b.get("/referee/login")
    r = b.post("/referee/login", data={"pin": PIN, "csrf_token": csrf_of(b)}, environ_base={"REMOTE_ADDR": "10.0.0.6"})
    assert r.status_code == 302


def test_login_form_needs_its_csrf_token(client):
    client.get("/referee/login")
    r = client.post("/referee/login", data={"pin": PIN, "csrf_token": "forged"})
    assert r.status_code == 403
    assert client.get("/referee").status_code == 302


def test_api_posts_need_the_csrf_header(referee):
    client, _ = referee
    before = version(client)
    refused(client.post("/api/event", json=GAME), 403, client, before)
    refused(client.post("/api/event", json=GAME, headers={"X-CSRF-Token": "wrong"}), 403, client, before)


def test_sessions_expire(referee):
    client, headers = referee
    with client.session_transaction() as s:
        s["referee_at"] = time.time() - 3601  # the app was built with session_hours=1
    before = version(client)
    refused(client.post("/api/event", json=GAME, headers=headers), 401, client, before)
    assert "session has ended" in client.get("/referee/login").get_data(as_text=True)
    assert client.get("/referee").status_code == 302


def test_logout_ends_the_session(referee):
    client, headers = referee
    client.post("/referee/logout", data={"csrf_token": headers["X-CSRF-Token"]})
    assert client.get("/referee").status_code == 302


def test_the_secret_key_is_kept_in_the_data_folder(table, tmp_path):
    one = create_app(table, config=WebConfig(pin=PIN), data_dir=tmp_path)
    two = create_app(table, config=WebConfig(pin=PIN), data_dir=tmp_path)
    assert one.secret_key is not None and one.secret_key == two.secret_key and len(one.secret_key) >= 32
    assert (tmp_path / "web-secret-key").stat().st_mode & 0o077 == 0


def test_without_a_configured_pin_one_is_made_up(table):
    app = create_app(table, config=WebConfig())
    assert app.config["PIN_GENERATED"] and re.fullmatch(r"\d{6}", app.config["REFEREE_PIN"])


# ---- events ------------------------------------------------------------------------------------

def test_a_game_is_played_through_the_api(started):
    client, headers = started
    for event in ({"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}):
        r = client.post("/api/event", json=event, headers=headers)
        assert r.status_code == 200, r.json
        check(r.json, "View")
    assert r.json["phase"] != "setup" and r.json["hands"] == 1


@pytest.mark.parametrize("chips", [2.0, "3", True, 0, -4, 10**12, None])
def test_chips_must_be_a_sane_whole_number(started, chips):
    client, headers = started
    client.post("/api/event", json={"type": "deal", "dealer": "Ann"}, headers=headers)
    client.post("/api/event", json={"type": "widow", "action": "keep"}, headers=headers)
    before = version(client)
    message = refused(client.post("/api/event", json={"type": "bet", "player": "Ann", "chips": chips}, headers=headers),
                      400, client, before)
    assert "chips" in message


def test_the_forms_chip_limit_is_the_records(referee):
    """One limit for chips, the game record's: the referee's forms offer no more and the API takes no more."""
    from companion.rules.events import MAX_CHIPS
    from web.events import EventError, check_event

    client, _ = referee
    page = client.get("/referee").get_data(as_text=True)
    assert set(re.findall(r'name="chips"[^>]*max="(\d+)"', page)) == {str(MAX_CHIPS)}
    assert check_event({"type": "bet", "player": "Ann", "chips": MAX_CHIPS})["chips"] == MAX_CHIPS
    with pytest.raises(EventError, match="chips"):
        check_event({"type": "bet", "player": "Ann", "chips": MAX_CHIPS + 1})


@pytest.mark.parametrize("event, words", [
    ({"type": "deal", "dealer": "Zed"}, "Zed"),
    ({"type": "play", "player": "Ann", "card": "KC"}, ""),
])
def test_the_engines_reason_comes_back(started, event, words):
    client, headers = started
    before = version(client)
    message = refused(client.post("/api/event", json=event, headers=headers), 422, client, before)
    assert words in message


@pytest.mark.parametrize("body", [
    {"type": "fly"},
    {"player": "Ann"},
    {"type": "bet", "player": 7, "chips": 2},
    {"type": "play", "player": "Ann", "card": "1X"},
    {"type": "play", "player": "Ann"},
    {"type": "show", "player": "Ann", "cards": "QS JD"},
    {"type": "widow", "action": "burn"},
    ["type", "next"],
    "next",
])
def test_malformed_events_are_refused_with_a_reason(started, body):
    client, headers = started
    before = version(client)
    refused(client.post("/api/event", json=body, headers=headers), 400, client, before)


@pytest.mark.parametrize("players, words", [
    (["Ann", "B" * 25], "'players'"),   # the pages' limits: what the scoreboard has room for
    (["Ann", "Bo\tb"], "'players'"),
    (["Ann", "ANN"], "'players'"),
    (["Ann", "Ann"], "distinct"),       # the record's own rules, from its parser
    (["Ann", "pot"], "section"),
    (["Ann"], "2 to 9 players"),
])
def test_a_new_games_names_are_refused_with_the_field(referee, players, words):
    client, headers = referee
    before = version(client)
    game = {**GAME, "players": players}
    assert words in refused(client.post("/api/new-game", json={"game": game}, headers=headers), 400, client, before)


def test_names_are_stripped_and_a_card_listed_twice_is_malformed(started):
    client, headers = started
    r = client.post("/api/event", json={"type": "deal", "dealer": " Ann "}, headers=headers)
    assert r.status_code == 200 and r.json["dealer"] == "Ann"
    before = version(client)
    show = {"type": "show", "player": "Bob", "cards": ["QS", "qs"]}
    assert "twice" in refused(client.post("/api/event", json=show, headers=headers), 400, client, before)


def test_a_record_with_a_longer_name_than_the_forms_allow_still_imports(referee):
    """The name limit is the pages', not the record's: a record from elsewhere replays and imports."""
    client, headers = referee
    long = "Bartholomew Fitzgerald-Smythe"
    record = json.dumps({**GAME, "players": ["Ann", long]}) + "\n"
    r = client.post("/api/import", data=record, headers=headers)
    assert r.status_code == 200, r.json
    assert [p["name"] for p in r.json["players"]] == ["Ann", long]


def test_the_table_is_what_the_pages_expect(table):
    from web.table import TableService

    assert isinstance(table, TableService)


def test_bad_json_and_huge_bodies_are_refused(started):
    client, headers = started
    before = version(client)
    h = {**headers, "Content-Type": "application/json"}
    assert "JSON" in refused(client.post("/api/event", data=b"{type: next", headers=h), 400, client, before)
    refused(client.post("/api/event", data=b"\xff\xfe", headers=h), 400, client, before)
    refused(client.post("/api/event", data=b"9" * 5000, headers=h), 400, client, before)
    big = json.dumps({"type": "next", "pad": "x" * 20000})
    refused(client.post("/api/event", data=big, headers=h), 413, client, before)
    refused(client.post("/api/import", data=b"x" * (3 * 1024 * 1024), headers=h), 413, client, before)


def test_a_second_game_line_needs_new_game_with_replace(started, tmp_path):
    client, headers = started
    before = version(client)
    refused(client.post("/api/event", json=GAME, headers=headers), 409, client, before)
    other = {**GAME, "players": ["Dee", "Eve"]}
    refused(client.post("/api/new-game", json={"game": other}, headers=headers), 409, client, before)
    refused(client.post("/api/new-game", json={"game": other, "replace": "yes"}, headers=headers), 400, client, before)
    refused(client.post("/api/new-game", json={"game": {"type": "next"}, "replace": True}, headers=headers), 400, client, before)
    r = client.post("/api/new-game", json={"game": other, "replace": True}, headers=headers)
    assert r.status_code == 200 and [p["name"] for p in r.json["players"]] == ["Dee", "Eve"]
    kept = list(tmp_path.glob("game-*.jsonl"))  # Table.start keeps the replaced game beside the store
    assert len(kept) == 1 and '"Ann"' in kept[0].read_text(encoding="utf-8")


def test_new_game_with_options(referee):
    client, headers = referee
    game = {**GAME, "variant": "bonanza", "options": {"card_penalty": True, "widow_position": "first"}}
    r = client.post("/api/new-game", json={"game": game}, headers=headers)
    assert r.status_code == 200, r.json
    assert r.json["variant"] == "bonanza"
    before = version(client)
    bad = {**GAME, "options": {"card_penalty": "yes"}}
    refused(client.post("/api/new-game", json={"game": bad, "replace": True}, headers=headers), 400, client, before)
    no_penalty = {**GAME, "variant": "bonanza", "options": {"card_penalty": False}}
    r = client.post("/api/new-game", json={"game": no_penalty, "replace": True}, headers=headers)
    assert "always true in Bonanza" in refused(r, 400, client, before)  # the record's parser refuses it, as replay does


def test_undo_takes_back_the_last_event(started):
    client, headers = started
    client.post("/api/event", json={"type": "deal", "dealer": "Ann"}, headers=headers)
    assert client.get("/api/state").json["dealer"] == "Ann"
    r = client.post("/api/undo", headers=headers)
    assert r.status_code == 200, r.json
    assert r.json["dealer"] is None and r.json["hands"] == 0


def test_the_wait_after_wrong_pins_doubles_and_a_right_pin_clears_it():
    from web.auth import LoginLimiter

    limiter = LoginLimiter(free=2, first_wait_s=0.1, longest_s=0.4)
    assert [limiter.wait_s(n) for n in range(7)] == [0, 0, 0.1, 0.2, 0.4, 0.4, 0.4]
    limiter.failed("a")
    assert limiter.retry_after("a") == 0
    limiter.failed("a")
    assert limiter.retry_after("a") == 1 and limiter.retry_after("b") == 0
    time.sleep(0.15)
    assert limiter.retry_after("a") == 0
    limiter.succeeded("a")
    limiter.failed("a")
    assert limiter.retry_after("a") == 0  # the count started again


def test_a_wrong_pin_guesser_gets_a_few_dozen_tries_a_day():
    from web.auth import LoginLimiter

    limiter, spent, tries = LoginLimiter(), 0.0, 0
    while spent < 24 * 3600:
        spent += limiter.wait_s(tries)
        tries += 1
    assert tries < 40  # before: 5 a minute, 7200 a day: a 4-digit PIN in about 33 h


def test_logout_revokes_the_session_cookie_everywhere(referee, app):
    client, headers = referee
    with client.session_transaction() as s:
        stolen = dict(s)
    client.post("/referee/logout", data={"csrf_token": headers["X-CSRF-Token"]})
    thief = app.test_client()
    with thief.session_transaction() as s:
        s.update(stolen)  # the old cookie, copied before the logout
    before = version(thief)
    refused(thief.post("/api/event", json=GAME, headers=headers), 401, thief, before)  # before: accepted for 12 h
    assert thief.get("/api/export").status_code == 401


def test_sessions_survive_a_restart_but_not_a_logout(table, tmp_path):
    config = WebConfig(pin=PIN, secret_key="k" * 32)
    first = create_app(table, config=config, data_dir=tmp_path).test_client()
    headers = sign_in(first)
    again = create_app(table, config=config, data_dir=tmp_path).test_client()
    with first.session_transaction() as s, again.session_transaction() as t:
        t.update(s)
    assert again.get("/api/export").status_code == 200
    again.post("/referee/logout", data={"csrf_token": headers["X-CSRF-Token"]})
    third = create_app(table, config=config, data_dir=tmp_path).test_client()  # and another restart
    with first.session_transaction() as s, third.session_transaction() as t:
        t.update(s)
    assert third.get("/api/export").status_code == 401


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost.evil.example"])
def test_a_post_from_another_sites_page_is_refused(referee, origin):
    client, headers = referee
    before = version(client)
    refused(client.post("/api/event", json=GAME, headers={**headers, "Origin": origin}), 403, client, before)
    refused(client.post("/api/event", json=GAME, headers={**headers, "Referer": origin + "/x"}), 403, client, before)
    assert client.post("/referee/logout", data={"csrf_token": headers["X-CSRF-Token"]},
                       headers={"Origin": origin}).status_code == 403
    assert client.get("/api/export").status_code == 200  # still signed in: the forged logout did nothing


def test_a_post_from_our_own_page_is_accepted(referee):
    client, headers = referee
    r = client.post("/api/event", json=GAME, headers={**headers, "Origin": "http://localhost"})
    assert r.status_code == 200


def test_export_and_import_round_trip(started, tmp_path):
    client, headers = started
    client.post("/api/event", json={"type": "deal", "dealer": "Bob"}, headers=headers)
    r = client.get("/api/export")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    record = r.get_data(as_text=True)
    lines = [json.loads(line) for line in record.splitlines() if line.strip()]
    assert lines[0]["type"] == "game" and lines[-1] == {"type": "deal", "dealer": "Bob"}
    r = client.post("/api/import", data=record.encode(), headers={**headers, "Content-Type": "application/jsonl"})
    assert r.status_code == 200, r.json
    assert r.json["dealer"] == "Bob"
    kept = list(tmp_path.glob("game-*.jsonl"))   # archived beside the store, as a new game's is
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == record


def test_an_invalid_import_names_the_line_and_changes_nothing(started):
    client, headers = started
    before = version(client)
    record = json.dumps(GAME) + "\n" + '{"type": "deal", "dealer": "Ann"}\nnot json\n'
    message = refused(client.post("/api/import", data=record, headers=headers), 422, client, before)
    assert "3" in message
    refused(client.post("/api/import", data=b"  \n", headers=headers), 400, client, before)


def to_the_run(client, headers) -> None:
    for event in ({"type": "deal", "dealer": "Ann"}, {"type": "widow", "action": "keep"}, {"type": "next"}):
        r = client.post("/api/event", json=event, headers=headers)
        assert r.status_code == 200, (event, r.json)
    assert r.json["phase"] == "run"


def test_an_uncertain_read_is_confirmed_corrected_or_dismissed(started, table):
    client, headers = started
    to_the_run(client, headers)
    first = table.hold(action="play", player="Ann", candidates=[("5H", 0.61), ("5D", 0.3)])
    view = client.get("/api/state").json
    check(view, "View")
    assert [p["id"] for p in view["pending"]] == [first]
    r = client.post("/api/confirm", json={"id": first, "code": "5d"}, headers=headers)
    assert r.status_code == 200, r.json
    assert r.json["run"]["last_card"] == "5D" and r.json["pending"] == []
    second = table.hold(action="play", player="Bob", candidates=[("6D", 0.55)])
    r = client.post("/api/dismiss", json={"id": second}, headers=headers)
    assert r.status_code == 200 and r.json["pending"] == [] and r.json["run"]["last_card"] == "5D"
    before = version(client)
    refused(client.post("/api/dismiss", json={"id": second}, headers=headers), 422, client, before)


def test_confirm_of_an_unknown_read_is_refused(started):
    client, headers = started
    before = version(client)
    refused(client.post("/api/confirm", json={"id": 99}, headers=headers), 422, client, before)
    refused(client.post("/api/confirm", json={"id": "1"}, headers=headers), 400, client, before)
    refused(client.post("/api/confirm", json={"id": 1, "code": "ZZ"}, headers=headers), 400, client, before)


# ---- server-sent events ------------------------------------------------------------------------

def read_sse(response, want: int, limit_s: float = 5.0) -> list[str]:
    """The first ``want`` SSE blocks of a streamed response."""
    blocks, buffer, deadline = [], "", time.monotonic() + limit_s
    for chunk in response.response:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            blocks.append(block)
        if len(blocks) >= want or time.monotonic() > deadline:
            break
    return blocks


def test_events_stream_the_view_then_each_change_then_heartbeats(started, app):
    client, _ = started
    stream = client.get("/api/events", buffered=False)
    assert stream.mimetype == "text/event-stream"
    first = read_sse(stream, 2)
    assert first[0].startswith("retry:")
    v0 = version(client)
    assert first[1].splitlines()[0] == f"id: {v0}"
    assert json.loads(first[1].splitlines()[1][len("data: "):])["version"] == v0
    other = app.test_client()
    sign_in(other)
    other.post("/api/event", json={"type": "deal", "dealer": "Ann"}, headers={"X-CSRF-Token": csrf_of(other)})
    change, beat = read_sse(stream, 2)
    data = json.loads(change.splitlines()[1][len("data: "):])
    assert change.startswith(f"id: {v0 + 1}\n") and data["dealer"] == "Ann"
    assert beat.startswith(":")
    stream.close()


def test_events_honour_last_event_id(started):
    client, _ = started
    v = version(client)
    stream = client.get("/api/events", headers={"Last-Event-ID": str(v)}, buffered=False)
    blocks = read_sse(stream, 2)
    assert blocks[0].startswith("retry:") and blocks[1].startswith(":")  # no repeat of what it has: a heartbeat
    stream.close()
    stream = client.get("/api/events", headers={"Last-Event-ID": str(v - 1)}, buffered=False)
    assert read_sse(stream, 2)[1].startswith(f"id: {v}\n")
    stream.close()


def test_a_closed_stream_unsubscribes(started, table):
    client, _ = started
    stream = client.get("/api/events", buffered=False)
    read_sse(stream, 2)
    stream.close()
    before = version(client)
    client.post("/api/event", json={"type": "deal", "dealer": "Ann"}, headers={"X-CSRF-Token": csrf_of(client)})
    assert version(client) == before + 1  # the table still notifies happily with the stream gone


# ---- languages ---------------------------------------------------------------------------------

@pytest.mark.parametrize("header, word", [("ko-KR,ko;q=0.9", "점수판"), ("fr-FR", "Tableau"), ("de", "Anzeigetafel"), ("es", "Scoreboard")])
def test_the_browser_language_is_used(client, header, word):
    page = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
    assert word in page


def test_the_language_switcher_sets_a_cookie(client):
    r = client.get("/lang/de?next=/referee/login")
    assert r.status_code == 302 and r.headers["Location"].endswith("/referee/login")
    assert "Schiedsrichter" in client.get("/referee/login", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert client.get("/lang/de?next=//evil.example").headers["Location"] == "/"
    assert client.get("/lang/de?next=/%5Cevil.example").headers["Location"] == "/"


# ---- camera ------------------------------------------------------------------------------------

def test_camera_frame_and_detections(referee):
    client, _ = referee
    r = client.get("/camera/frame.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data.startswith(b"\xff\xd8")
    d = client.get("/camera/detections.json").json
    check(d, "Detections")
    assert d["width"] == 640 and d["detections"][0]["code"] == "QS"
    assert d["detections"][0]["outline"][0] == [100.0, 100.0]
    assert "Seat zones" in client.get("/camera").get_data(as_text=True)


def test_zones_are_checked_then_saved(referee, camera):
    client, headers = referee
    good = {"Ann": [[0, 0], [320, 0], [320, 240], [0, 240]]}
    r = client.post("/api/zones", json={"zones": good}, headers=headers)
    assert r.status_code == 200 and camera.zones() == {"Ann": [[0.0, 0.0], [320.0, 0.0], [320.0, 240.0], [0.0, 240.0]]}
    check(client.get("/api/zones").json["zones"], "Zones")
    bad: object
    for bad in ({"Ann": [[0, 0], [700, 0], [0, 240]]}, {"Ann": [[0, 0], [10, 10], [10, 0], [0, 10]]},
                {"Ann": [[0, 0], [1, 1]]}, {"Ann": [[0, 0], [True, 0], [0, 5]]}, {"": [[0, 0], [9, 0], [0, 9]]}, []):
        r = client.post("/api/zones", json={"zones": bad}, headers=headers)
        assert r.status_code == 400 and r.json["error"], bad
    assert camera.zones()["Ann"][1] == [320.0, 0.0]


def test_zones_that_cannot_be_saved_are_refused_and_not_used(table, tmp_path):
    from companion.app.config import Config
    from companion.app.serve import LatestFrame
    from vision.zones import ZoneMap

    (tmp_path / "ro").write_text("a file where the data folder should be")
    config = Config.from_dict({"data_dir": str(tmp_path / "ro" / "data")})
    camera = LatestFrame(ZoneMap.from_dict({"Ann": [[0, 0], [320, 0], [320, 240]]}), save_zones=config.save_zones)
    client = create_app(table, config=WebConfig(pin=PIN), camera=camera).test_client()
    headers = sign_in(client)
    r = client.post("/api/zones", json={"zones": {"Bob": [[0, 0], [320, 0], [0, 240]]}}, headers=headers)
    assert r.status_code == 503 and "could not be saved" in body(r)["error"]
    assert conformance_error("/api/zones", "POST", r) is None
    assert list(body(client.get("/api/zones"))["zones"]) == ["Ann"]  # before: Bob in memory, lost at the restart


def test_without_a_camera_the_page_says_so(table):
    app = create_app(table, config=WebConfig(pin=PIN))
    client = app.test_client()
    headers = sign_in(client)
    assert "No camera" in client.get("/camera").get_data(as_text=True)
    assert client.get("/camera/frame.jpg").status_code == 404
    assert client.post("/api/zones", json={"zones": {}}, headers=headers).status_code == 404


# ---- config ------------------------------------------------------------------------------------

def test_web_config_from_toml_table():
    c = WebConfig.from_dict({"host": "0.0.0.0", "port": 80, "pin": 2468, "session_hours": 2, "secret_key": "k" * 32})
    assert (c.host, c.port, c.pin, c.session_hours) == ("0.0.0.0", 80, "2468", 2)


@pytest.mark.parametrize("table_, key", [
    ({"port": 0}, "web.port"), ({"port": True}, "web.port"), ({"host": "my pi"}, "web.host"),
    ({"pin": "12"}, "web.pin"), ({"session_hours": 0}, "web.session_hours"), ({"session_hours": "12"}, "web.session_hours"),
    ({"secret_key": "short"}, "web.secret_key"), ({"debug": True}, "web.debug"),
])
def test_web_config_names_the_bad_key(table_, key):
    with pytest.raises(WebConfigError, match=re.escape(key)):
        WebConfig.from_dict(table_)


# ---- hardening ---------------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["/%09/evil.example/", "/%0a/evil.example/", "%0a", "/\\evil.example", "//evil.example",
                                    "https://evil.example/", "/%20/evil.example", "/%0d%0aSet-Cookie:x=1"])
def test_the_language_switcher_goes_only_to_this_sites_pages(client, target):
    r = client.get(f"/lang/en?next={target}")
    assert r.status_code == 302 and r.headers["Location"] == "/"  # before: Location //evil.example/, or a 500


def test_the_language_switcher_keeps_a_local_page(client):
    assert client.get("/lang/fr?next=/referee%3Fx%3D1").headers["Location"] == "/referee?x=1"


@pytest.mark.parametrize("path", ["/api/event", "/api/zones", "/api/confirm"])
def test_deep_nesting_is_refused_before_parsing(started, path):
    client, headers = started
    before = version(client)
    r = client.post(path, data="[" * 5000 + "]" * 5000, headers={**headers, "Content-Type": "application/json"})
    assert r.status_code == 400 and "nests deeper" in r.json["error"]  # before: RecursionError, a 500
    assert version(client) == before


def test_a_deeply_nested_import_line_is_named(started):
    client, headers = started
    body = json.dumps(GAME) + "\n" + '{"type":"deal","x":' + "[" * 5000 + "]" * 5000 + "}\n"
    r = client.post("/api/import", data=body, headers={**headers, "Content-Type": "application/jsonl"})
    assert r.status_code == 422 and "line 2 nests deeper" in r.json["error"]


def test_a_huge_zone_coordinate_is_refused(referee, camera):
    client, headers = referee
    body = '{"zones": {"Ann": [[0, 0], [' + "9" * 400 + ', 0], [0, 240]]}}'
    r = client.post("/api/zones", data=body, headers={**headers, "Content-Type": "application/json"})
    assert r.status_code == 400 and "corner 2" in r.json["error"]  # before: OverflowError, a 500


@pytest.mark.parametrize("zones", [{}, {"centre": [[0, 0], [320, 0], [320, 240]]}])
def test_a_zone_map_without_a_seat_is_refused(referee, camera, zones):
    client, headers = referee
    before = camera.zones()
    r = client.post("/api/zones", json={"zones": zones}, headers=headers)
    assert r.status_code == 400 and "at least one seat" in r.json["error"]
    assert camera.zones() == before


# ---- the voice ---------------------------------------------------------------------------------


def test_the_voice_is_muted_and_unmuted_on_the_table(started, table):
    client, headers = started
    table.set_voice("on")  # as companion.app.voice.Voice does once it can speak
    r = client.post("/api/voice", json={"muted": True}, headers=headers)
    assert r.status_code == 200 and r.json["voice"] == "muted"
    assert client.get("/api/state").json["voice"] == "muted"  # every page sees it, not only this one
    r = client.post("/api/voice", json={"muted": False}, headers=headers)
    assert r.status_code == 200 and table.view()["voice"] == "on"


@pytest.mark.parametrize("body", [{}, {"muted": "yes"}, {"muted": 1}, [True], "muted"])
def test_a_nonsense_mute_is_refused(started, table, body):
    client, headers = started
    table.set_voice("on")
    before = version(client)
    assert "muted" in refused(client.post("/api/voice", json=body, headers=headers), 400, client, before)
    assert table.view()["voice"] == "on"


def test_muting_a_table_that_does_not_speak_says_how_to_make_it_speak(started):
    client, headers = started
    before = version(client)
    assert "[voice]" in refused(client.post("/api/voice", json={"muted": True}, headers=headers), 404, client, before)


def test_muting_needs_the_referee(client, table):
    table.set_voice("on")
    assert client.post("/api/voice", json={"muted": True}).status_code == 401
    assert table.view()["voice"] == "on"
