"""Teams, part 1 (issue 37): people sign in as themselves; keys stay for machines.

Proven here, on a live server, by plain HTTP (the cookie header set by hand: Python's cookie jar sends no
`Secure` cookie over http):

- POST /v1/session answers 201 with `Set-Cookie: __Host-xizor_session=xs_…` carrying exactly Path=/,
  HttpOnly, Secure, SameSite=Lax and Max-Age (the absolute lifetime), no Domain; the body names the user,
  the session, the CSRF token and the memberships; GET /v1/session answers the same. A wrong password and
  an unknown email get the same 401 `invalid_credentials`. Users are validated (422 `password_too_short`
  at `$.password`, 422 at `$.email`, 409 `email_taken`) and never show a password.
- Lock-out: after `auth.lockoutThreshold` consecutive failures 429 `account_locked` with Retry-After,
  even with the right password, until `auth.lockoutSeconds` passed; a success resets the count; the
  per-address failure bucket answers 429 `rate_limited` past its burst.
- Sessions end when idle, at their absolute end, at sign-out, when revoked from GET /v1/me/sessions
  (one, or all: everywhere), when their user is removed from an app, re-roled or disabled; sign-in
  never keeps the session cookie sent with it (fixation).
- Unsafe requests made with the cookie need `X-Xizor-CSRF` (403 `csrf_token_invalid`) and a same-origin
  `Origin` (403 `csrf_origin_mismatch`); GETs need neither; bearer-key requests ignore the cookie.
- Roles: for every operation of GET /openapi.json secured by the secret key (POST /mcp aside) a
  viewer, editor, admin and owner session is refused with 403 `missing_scope` naming the operation's
  scope exactly when the role's scopes lack it; an instance admin is never refused. Every admin-token
  operation takes an instance admin's session and refuses anyone else's with 403 `admin_required`.
- Membership: 400 `app_required` without X-Xizor-App-Id, 403 `not_a_member`; the last owner stays (409
  `last_owner`); writes through a session are audited with actor kind `user`.
- CLI: `xizor users create EMAIL [--admin] [--password-stdin]` and `xizor demo`'s person sign in.

The cross-origin check in a real browser (Chromium) is elsewhere, not here.
"""
import base64
import http.cookiejar
import json
import os
import re
import secrets
import subprocess
import time
import uuid
from datetime import datetime

import pytest
import requests

from conftest import BIN, ROOT, run_cli
from drivers import storage_env
from test_scopes import dummy_body, dummy_path
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app

COOKIE = "__Host-xizor_session"
TOKEN_SHAPE = re.compile(r"xs_[A-Za-z0-9_-]{43}")
PASSWORD = "correct horse battery staple"
UNSAFE = ("POST", "PUT", "PATCH", "DELETE")
HTTP_METHODS = ("get", "post", "put", "delete", "patch")
DEFAULT_MAX_SECONDS = 1_209_600
DEFAULT_IDLE_SECONDS = 86_400
SCOPES = ("read", "drafts", "publish", "placements", "experiments", "analytics", "keys", "webhooks", "members")
VIEWER = {"read", "analytics"}
EDITOR = VIEWER | {"drafts"}
ADMIN = EDITOR | {"publish", "placements", "experiments", "webhooks"}
OWNER = ADMIN | {"keys", "members"}
ROLE_SCOPES = {"viewer": VIEWER, "editor": EDITOR, "admin": ADMIN, "owner": OWNER}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}

# One connection pool, and a cookie jar that keeps nothing: every cookie here is sent by hand.
HTTP = requests.Session()
HTTP.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


# --- helpers ---------------------------------------------------------------------------------------

def unique_email(tag="person"):
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.com"


def admin(base):
    return Client(base, ADMIN_TOKEN)


def problem(response, status, code):
    """The problem body of `response`, asserted to be `status` with `code` as application/problem+json."""
    where = f"{response.request.method} {response.request.url}"
    assert response.status_code == status, f"{where}: {response.status_code} {response.text[:400]}, expected {status} {code}"
    assert response.headers.get("Content-Type") == "application/problem+json", (where, response.headers.get("Content-Type"))
    body = response.json()
    assert body.get("code") == code, f"{where}: code {body.get('code')!r}, expected {code!r}: {body}"
    return body


def ok(response, *statuses):
    assert response.status_code in statuses, \
        f"{response.request.method} {response.request.url}: {response.status_code} {response.text[:400]}, expected {statuses}"
    return response.json() if response.content else None


def create_user(base, email=None, password=PASSWORD, instance_admin=None, tag="person"):
    body = {"email": email or unique_email(tag), "password": password}
    if instance_admin is not None:
        body["instanceAdmin"] = instance_admin
    return ok(admin(base).post("/v1/users", body), 201)


def add_member(base, app_id, user_id, role):
    """PUT /v1/apps/{appId}/members/{userId} with the admin token (200)."""
    return ok(admin(base).put(f"/v1/apps/{app_id}/members/{user_id}", {"role": role}), 200)


def new_app(server, name="Teams"):
    full = f"{name} {uuid.uuid4().hex[:8]}"
    app = App(server, create_app(server.base, full))
    app.name = full
    return app


def post_session(base, email, password, headers=None):
    h = {"Content-Type": "application/json", **(headers or {})}
    return HTTP.post(base + "/v1/session", data=json.dumps({"email": email, "password": password}), headers=h, timeout=30)


def set_cookie_headers(response):
    return response.raw.headers.getlist("Set-Cookie")


def session_cookie(response):
    """(name, value, attributes as written) of the one Set-Cookie of `response`."""
    headers = set_cookie_headers(response)
    assert len(headers) == 1, f"expected one Set-Cookie, got {headers}"
    first, *attributes = [part.strip() for part in headers[0].split(";")]
    name, _, value = first.partition("=")
    return name, value, attributes


def max_age(attributes):
    ages = [a for a in attributes if a.lower().startswith("max-age=")]
    assert len(ages) == 1, attributes
    return int(ages[0].split("=", 1)[1])


def sign_in(base, email, password, extra_headers=None):
    """(session token, CSRF token, body) of a successful POST /v1/session."""
    r = post_session(base, email, password, extra_headers)
    assert r.status_code == 201, f"sign-in of {email}: {r.status_code} {r.text}"
    name, token, _ = session_cookie(r)
    assert name == COOKIE, name
    body = r.json()
    return token, body["csrfToken"], body


def with_session(base, method, path, token, csrf=None, origin=None, app_id=None, json_body=None, headers=None, params=None,
                 data=None):
    """A request carrying `Cookie: __Host-xizor_session=TOKEN` (when a token is given) and exactly the other headers asked for."""
    h = {}
    if token is not None:
        h["Cookie"] = f"{COOKIE}={token}"
    if csrf is not None:
        h["X-Xizor-CSRF"] = csrf
    if origin is not None:
        h["Origin"] = origin
    if app_id is not None:
        h["X-Xizor-App-Id"] = app_id
    if json_body is not None:
        data = json.dumps(json_body)
    if data is not None:
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    return HTTP.request(method, base + path, data=data, headers=h, params=params, timeout=30)


class Person:
    """A signed-in user: requests with the session cookie, and on unsafe methods the CSRF token and the
    server's own origin (unless told otherwise: `csrf=None`, `origin=None`)."""

    def __init__(self, base, user, password=PASSWORD, app_id=None, headers=None):
        self.base, self.user, self.app_id = base, user, app_id
        self.token, self.csrf, self.signed_in = sign_in(base, user["email"], password, headers)

    @property
    def id(self):
        return self.user["id"]

    @property
    def session_id(self):
        return self.signed_in["session"]["id"]

    def request(self, method, path, json_body=None, csrf=..., origin=..., app_id=..., headers=None, params=None, data=None):
        unsafe = method in UNSAFE
        return with_session(self.base, method, path, self.token,
                            csrf=(self.csrf if unsafe else None) if csrf is ... else csrf,
                            origin=(self.base if unsafe else None) if origin is ... else origin,
                            app_id=self.app_id if app_id is ... else app_id,
                            json_body=json_body, headers=headers, params=params, data=data)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, json_body=None, **kw):
        return self.request("POST", path, json_body, **kw)

    def put(self, path, json_body=None, **kw):
        return self.request("PUT", path, json_body, **kw)

    def patch(self, path, json_body=None, **kw):
        return self.request("PATCH", path, json_body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def alive(self):
        """True when GET /v1/session answers 200; False on 401 `invalid_session` (anything else fails)."""
        r = with_session(self.base, "GET", "/v1/session", self.token)
        if r.status_code == 200:
            return True
        problem(r, 401, "invalid_session")
        return False


def seconds(value):
    """A timestamp of the API (epoch milliseconds, or an ISO 8601 string) in seconds."""
    if isinstance(value, (int, float)):
        return value / 1000
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def without_request_ids(response):
    request_id = response.headers.get("X-Request-Id")
    return {k: v for k, v in response.json().items() if k not in ("requestId", "instance") and v != request_id}


def who(body):
    """The spec's members of a sign-in body's `user` (it may say more: createdAt, disabledAt)."""
    return {k: body["user"].get(k) for k in ("id", "email", "instanceAdmin")}


def made_up_token():
    return "xs_" + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


# --- signing in ------------------------------------------------------------------------------------

def test_sign_in_sets_the_cookie_and_answers_who_where_and_what(module_server):
    base = module_server.base
    app = new_app(module_server, "Sign-in")
    user = create_user(base, tag="signin")
    assert user["instanceAdmin"] is False and user["disabledAt"] is None and user["email"].endswith("@example.com"), user
    assert {"id", "email", "instanceAdmin", "createdAt", "disabledAt"} <= set(user), user
    add_member(base, app.id, user["id"], "owner")

    r = post_session(base, user["email"], PASSWORD)
    assert r.status_code == 201, r.text
    name, token, attributes = session_cookie(r)
    assert name == COOKIE
    assert TOKEN_SHAPE.fullmatch(token), token
    assert not any(a.lower().startswith("domain") for a in attributes), attributes
    assert sorted(a for a in attributes if not a.startswith("Max-Age=")) == sorted(["Path=/", "HttpOnly", "Secure", "SameSite=Lax"]), attributes
    assert len(attributes) == 5, attributes
    body = r.json()
    assert token not in r.text, "the token is in the cookie only"
    assert PASSWORD not in r.text
    assert who(body) == {"id": user["id"], "email": user["email"], "instanceAdmin": False}, body
    session = body["session"]
    assert {"id", "createdAt", "expiresAt", "idleExpiresAt"} <= set(session), session
    assert isinstance(body["csrfToken"], str) and len(body["csrfToken"]) >= 16 and body["csrfToken"] != token, body
    lifetime = seconds(session["expiresAt"]) - seconds(session["createdAt"])
    assert abs(lifetime - DEFAULT_MAX_SECONDS) <= 1, session
    assert abs(max_age(attributes) - DEFAULT_MAX_SECONDS) <= 1, attributes
    assert abs(seconds(session["idleExpiresAt"]) - seconds(session["createdAt"]) - DEFAULT_IDLE_SECONDS) <= 5, session
    assert abs(seconds(session["createdAt"]) - time.time()) < 120, session
    assert body["memberships"] == [{"appId": app.id, "appName": app.name, "role": "owner"}], body

    # GET /v1/session: the same answer, no new cookie.
    again = with_session(base, "GET", "/v1/session", token)
    assert again.status_code == 200, again.text
    assert set_cookie_headers(again) == [], set_cookie_headers(again)
    same = again.json()
    assert (same["user"], same["csrfToken"], same["memberships"]) == (body["user"], body["csrfToken"], body["memberships"])
    assert {k: same["session"][k] for k in ("id", "createdAt", "expiresAt")} == {k: session[k] for k in ("id", "createdAt", "expiresAt")}
    problem(with_session(base, "GET", "/v1/session", None), 401, "session_required")
    problem(with_session(base, "GET", "/v1/session", made_up_token()), 401, "invalid_session")

    # The session works on the app's routes, naming the app.
    listed = with_session(base, "GET", "/v1/paywalls", token, app_id=app.id)
    assert listed.status_code == 200, listed.text


def test_a_wrong_password_and_an_unknown_email_are_the_same_401(module_server):
    base = module_server.base
    user = create_user(base, tag="wrong")
    wrong = post_session(base, user["email"], PASSWORD + "!")
    unknown = post_session(base, unique_email("nobody"), PASSWORD)
    for r in (wrong, unknown):
        problem(r, 401, "invalid_credentials")
        assert set_cookie_headers(r) == [], set_cookie_headers(r)
    assert without_request_ids(wrong) == without_request_ids(unknown), (wrong.text, unknown.text)
    # Two failures lock nothing (the default threshold is 5).
    sign_in(base, user["email"], PASSWORD)


def test_users_are_validated_and_never_show_a_password(module_server):
    base = module_server.base
    r = admin(base).post("/v1/users", {"email": unique_email("short"), "password": "x" * 11})
    assert r.status_code == 422, r.text
    assert ("$.password", "password_too_short") in {(e["path"], e["code"]) for e in r.json()["errors"]}, r.text
    assert r.headers["Content-Type"] == "application/problem+json"
    twelve = create_user(base, password="y" * 12, tag="twelve")  # 12 is enough
    sign_in(base, twelve["email"], "y" * 12)
    r = admin(base).post("/v1/users", {"email": "not-an-email", "password": PASSWORD})
    assert r.status_code == 422, r.text
    assert "$.email" in {e["path"] for e in r.json()["errors"]}, r.text
    problem(admin(base).post("/v1/users", {"email": twelve["email"], "password": PASSWORD}), 409, "email_taken")
    users, cursor = [], None
    while True:
        page = ok(admin(base).get("/v1/users", params={"limit": 200, **({"cursor": cursor} if cursor else {})}), 200)
        users += page["users"]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert twelve["id"] in {u["id"] for u in users}
    assert PASSWORD not in json.dumps(users) and "y" * 12 not in json.dumps(users)
    assert not [k for u in users for k in u if "hash" in k.lower() or k.lower() == "password"], users[0]
    # Users are the admin's: a secret key is refused as before.
    app = new_app(module_server)
    problem(app.dashboard.post("/v1/users", {"email": unique_email(), "password": PASSWORD}), 403, "admin_token_required")


# --- lock-out and the address bucket ---------------------------------------------------------------

def test_an_account_locks_after_consecutive_failures_and_unlocks(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_AUTH_LOCKOUT_THRESHOLD": "3", "XIZOR_AUTH_LOCKOUT_SECONDS": "3"})
    try:
        base = s.base
        user = create_user(base, tag="lock")
        other = create_user(base, tag="unlocked")
        for _ in range(2):
            # Failures broken by a success are not consecutive: 2 + 2 never reach 3.
            for _ in range(2):
                problem(post_session(base, user["email"], "wrong password!"), 401, "invalid_credentials")
            sign_in(base, user["email"], PASSWORD)
        for _ in range(3):
            problem(post_session(base, user["email"], "wrong password!"), 401, "invalid_credentials")
        locked_at = time.monotonic()
        r = post_session(base, user["email"], PASSWORD)
        problem(r, 429, "account_locked")
        assert 1 <= int(r.headers["Retry-After"]) <= 3, r.headers
        assert set_cookie_headers(r) == []
        sign_in(base, other["email"], PASSWORD)  # one account's lock is its own
        time.sleep(max(0.0, locked_at + 3.5 - time.monotonic()))
        sign_in(base, user["email"], PASSWORD)
        # ... and that success reset the count.
        for _ in range(2):
            problem(post_session(base, user["email"], "wrong password!"), 401, "invalid_credentials")
        sign_in(base, user["email"], PASSWORD)
    finally:
        assert s.stop() == 0


def test_failed_sign_ins_take_from_the_address_failure_bucket(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND": "1",
                                                  "XIZOR_RATE_LIMITS_AUTH_FAILURES_BURST": "3"})
    try:
        # One after another (at once, the bound on concurrent password checks would answer 503 signin_busy
        # first); a failed sign-in takes tens of milliseconds, the bucket refills at 1 a second.
        started = time.monotonic()
        answers = [post_session(s.base, unique_email("bucket"), PASSWORD) for _ in range(8)]
        elapsed = time.monotonic() - started
        codes = [(r.status_code, r.json().get("code")) for r in answers]
        assert codes[:3] == [(401, "invalid_credentials")] * 3, codes
        assert set(codes[3:]) <= {(401, "invalid_credentials"), (429, "rate_limited")}, codes
        assert codes.count((401, "invalid_credentials")) <= 3 + int(elapsed) + 1, (codes, elapsed)
        assert (429, "rate_limited") in codes, codes
        refused = next(r for r in answers if r.status_code == 429)
        assert int(refused.headers["Retry-After"]) >= 1
    finally:
        assert s.stop() == 0


# --- expiry, revocation, fixation ------------------------------------------------------------------

def use_until(person, deadline, every=0.5):
    """GET /v1/session every `every` s until `deadline` (monotonic); the seconds since the call at which the
    session was first found ended, or None. An ended session must stay ended."""
    started, ended = time.monotonic(), None
    while time.monotonic() < deadline:
        alive = person.alive()
        if ended is None and not alive:
            ended = time.monotonic() - started
        assert alive or ended is not None
        assert ended is None or not alive, "an ended session came back"
        time.sleep(every)
    return ended


def test_a_session_unused_past_the_idle_limit_ends_and_a_used_one_lives_on(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_AUTH_SESSION_IDLE_SECONDS": "2"})
    try:
        base = s.base
        user = create_user(base, tag="idle")
        idle = Person(base, user)
        busy = Person(base, user)
        t0 = time.monotonic()
        created = busy.signed_in["session"]
        assert abs(seconds(created["idleExpiresAt"]) - seconds(created["createdAt"]) - 2) <= 1, created
        ended = use_until(busy, t0 + 4)  # twice the idle limit, used every half second
        assert ended is None, f"a session used every 0.5 s ended {ended:.1f} s after sign-in (idle limit 2 s, never unused 2 s)"
        later = ok(with_session(base, "GET", "/v1/session", busy.token), 200)["session"]
        assert seconds(later["idleExpiresAt"]) > seconds(created["idleExpiresAt"]) + 1, (created, later)
        listed = ok(busy.get("/v1/me/sessions"), 200)["sessions"]
        assert [x["id"] for x in listed] == [busy.session_id], "an idle-ended session is not listed"
        assert not idle.alive(), "a session unused for 4 s outlived its 2 s idle limit"
    finally:
        assert s.stop() == 0


def test_a_session_ends_at_its_absolute_end_however_used(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_AUTH_SESSION_MAX_SECONDS": "3"})
    try:
        base = s.base
        user = create_user(base, tag="absolute")
        r = post_session(base, user["email"], PASSWORD)
        assert r.status_code == 201, r.text
        assert max_age(session_cookie(r)[2]) == 3
        busy = Person(base, user)
        created = busy.signed_in["session"]
        assert abs(seconds(created["expiresAt"]) - seconds(created["createdAt"]) - 3) <= 1, created
        ended = use_until(busy, time.monotonic() + 5)
        assert ended is not None, "a session used every 0.5 s outlived its 3 s absolute limit"
        assert 2 <= ended <= 4.5, f"ended {ended:.1f} s after sign-in, its absolute limit is 3 s"
        sign_in(base, user["email"], PASSWORD)
    finally:
        assert s.stop() == 0


def test_sessions_are_listed_and_revoked_one_or_all(module_server):
    base = module_server.base
    user = create_user(base, tag="revoke")
    other = Person(base, create_user(base, tag="bystander"))
    a = Person(base, user, headers={"User-Agent": "teams-test/a"})
    b = Person(base, user, headers={"User-Agent": "teams-test/b"})
    for me, them in ((a, b), (b, a)):
        listed = ok(me.get("/v1/me/sessions"), 200)["sessions"]
        assert sorted(x["id"] for x in listed) == sorted([a.session_id, b.session_id]), listed
        by_id = {x["id"]: x for x in listed}
        assert by_id[me.session_id]["current"] is True and by_id[them.session_id]["current"] is False, listed
        for x, agent in ((by_id[a.session_id], "teams-test/a"), (by_id[b.session_id], "teams-test/b")):
            assert {"id", "createdAt", "lastSeenAt", "expiresAt", "address", "userAgent", "current"} <= set(x), x
            assert x["userAgent"] == agent and x["address"] == "127.0.0.1", x
    # Only one's own sessions.
    problem(a.delete(f"/v1/me/sessions/{other.session_id}"), 404, "session_not_found")
    problem(a.delete(f"/v1/me/sessions/{made_up_token()}"), 404, "session_not_found")
    assert other.alive()
    # One: the other one of mine.
    assert a.delete(f"/v1/me/sessions/{b.session_id}").status_code == 204
    assert not b.alive() and a.alive()
    assert [x["id"] for x in ok(a.get("/v1/me/sessions"), 200)["sessions"]] == [a.session_id]
    # Sign-out: CSRF-protected like every unsafe request, then the cookie is cleared and the token dead.
    problem(a.delete("/v1/session", csrf=None), 403, "csrf_token_invalid")
    assert a.alive()
    out = a.delete("/v1/session")
    assert out.status_code == 204, out.text
    name, value, attributes = session_cookie(out)
    assert (name, value) == (COOKIE, ""), set_cookie_headers(out)
    assert max_age(attributes) == 0 and "Path=/" in attributes and "Secure" in attributes, attributes
    assert not a.alive()
    # Everywhere: every session of the user, the current one too; nobody else's.
    c, d = Person(base, user), Person(base, user)
    assert c.delete("/v1/me/sessions").status_code == 204
    assert not c.alive() and not d.alive()
    assert other.alive()
    assert Person(base, user).alive()


def test_signing_in_never_keeps_the_session_cookie_sent_with_it(module_server):
    base = module_server.base
    user = create_user(base, tag="fixation")
    old_token, _, old = sign_in(base, user["email"], PASSWORD)
    sent = {"Cookie": f"{COOKIE}={old_token}", "Origin": base}
    new_token, _, new = sign_in(base, user["email"], PASSWORD, sent)
    assert new_token != old_token and new["session"]["id"] != old["session"]["id"]
    problem(with_session(base, "GET", "/v1/session", old_token), 401, "invalid_session")
    assert ok(with_session(base, "GET", "/v1/session", new_token), 200)["session"]["id"] == new["session"]["id"]
    # A made-up value is never taken as the session's token.
    planted = made_up_token()
    token, _, body = sign_in(base, user["email"], PASSWORD, {"Cookie": f"{COOKIE}={planted}", "Origin": base})
    assert token != planted and TOKEN_SHAPE.fullmatch(token)
    problem(with_session(base, "GET", "/v1/session", planted), 401, "invalid_session")
    assert ok(with_session(base, "GET", "/v1/session", token), 200)["session"]["id"] == body["session"]["id"]
    assert ok(with_session(base, "GET", "/v1/session", new_token), 200), "a made-up cookie revoked nothing"


# --- CSRF --------------------------------------------------------------------------------------------

def test_unsafe_requests_by_cookie_need_the_csrf_token_and_the_same_origin(module_server):
    base, port = module_server.base, module_server.port
    app = new_app(module_server, "CSRF")
    owner = create_user(base, tag="csrf")
    second = create_user(base, tag="csrf2")
    for u in (owner, second):
        add_member(base, app.id, u["id"], "owner")
    p = Person(base, owner, app_id=app.id)
    q = Person(base, second, app_id=app.id)
    body = {"template": "clean"}

    refused = [
        ({"csrf": None}, "csrf_token_invalid"),
        ({"csrf": "not-the-token"}, "csrf_token_invalid"),
        ({"csrf": ""}, "csrf_token_invalid"),
        ({"csrf": q.csrf}, "csrf_token_invalid"),  # another session's token
        ({"origin": f"http://127.0.0.2:{port}"}, "csrf_origin_mismatch"),
        ({"origin": None}, "csrf_origin_mismatch"),
        ({"origin": f"http://127.0.0.1:{port + 1}"}, "csrf_origin_mismatch"),
        ({"origin": "null"}, "csrf_origin_mismatch"),
        ({"origin": "http://evil.example"}, "csrf_origin_mismatch"),
    ]
    for changes, code in refused:
        problem(p.post("/v1/paywalls", body, **changes), 403, code)
    created = ok(p.post("/v1/paywalls", body), 201)["id"]
    # GET needs neither; and the refused requests created nothing.
    listed = ok(p.get("/v1/paywalls"), 200)["items"]
    assert [x["id"] for x in listed] == [created], listed
    # PUT, PATCH and DELETE too.
    problem(p.put("/v1/placements/onboarding", {"paywallId": created}, csrf=None), 403, "csrf_token_invalid")
    problem(p.put("/v1/placements/onboarding", {"paywallId": created}, origin=None), 403, "csrf_origin_mismatch")
    problem(p.patch(f"/v1/paywalls/{created}", {"name": "Renamed"}, csrf=None), 403, "csrf_token_invalid")
    problem(p.delete(f"/v1/paywalls/{created}", origin=f"http://127.0.0.2:{port}"), 403, "csrf_origin_mismatch")
    assert {x["id"]: x["name"] for x in ok(p.get("/v1/paywalls"), 200)["items"]}[created] != "Renamed"
    ok(p.put("/v1/placements/onboarding", {"paywallId": created}), 200)
    ok(p.patch(f"/v1/paywalls/{created}", {"name": "Renamed"}), 200)
    # A bearer-key request is a key request: the cookie beside it is ignored, no CSRF asked.
    r = app.dashboard.post("/v1/paywalls", body, headers={"Cookie": f"{COOKIE}={p.token}", "Origin": "http://evil.example"})
    assert r.status_code == 201, r.text


# --- roles and scopes against the route table -------------------------------------------------------

def security_names(spec):
    return [name for requirement in spec.get("security") or [] for name in requirement]


def operations(document, scheme):
    """(method, path, operationId, x-xizor-scope) of every operation whose security names `scheme`."""
    ops = []
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            spec = item.get(method)
            if spec is not None and scheme in security_names(spec):
                ops.append((method.upper(), path, spec.get("operationId"), spec.get("x-xizor-scope")))
    return ops


@pytest.fixture(scope="module")
def document(module_server):
    r = HTTP.get(module_server.base + "/openapi.json", timeout=30)
    assert r.status_code == 200
    return r.json()


@pytest.fixture(scope="module")
def team(module_server):
    """An app with a signed-in person per role, an instance admin (no member) and an outsider (a member elsewhere)."""
    base = module_server.base
    app = new_app(module_server, "Roles")
    people = {}
    for role in ROLE_SCOPES:
        user = create_user(base, tag=role)
        add_member(base, app.id, user["id"], role)
        people[role] = Person(base, user, app_id=app.id)
    people["instance admin"] = Person(base, create_user(base, tag="root", instance_admin=True), app_id=app.id)
    elsewhere = new_app(module_server, "Elsewhere")
    outsider = create_user(base, tag="outsider")
    add_member(base, elsewhere.id, outsider["id"], "owner")
    people["outsider"] = Person(base, outsider, app_id=app.id)
    return app, people


def test_the_members_scope_is_declared(document):
    scopes = {(m, p): s for m, p, _, s in operations(document, "secretKey")}
    assert scopes.get(("GET", "/v1/members")) == "read", scopes.get(("GET", "/v1/members"))
    assert scopes.get(("PUT", "/v1/members/{userId}")) == "members", scopes.get(("PUT", "/v1/members/{userId}"))
    assert scopes.get(("DELETE", "/v1/members/{userId}")) == "members", scopes.get(("DELETE", "/v1/members/{userId}"))
    unknown = {f"{m} {p}": s for (m, p), s in scopes.items() if p != "/mcp" and s not in SCOPES}
    assert not unknown, f"scopes no role table knows: {unknown}"


def test_each_role_is_refused_exactly_the_operations_of_scopes_it_lacks(module_server, document, team):
    app, people = team
    failures, checked = [], 0
    for method, path, operation_id, scope in operations(document, "secretKey"):
        if path == "/mcp":
            continue  # its tools check their own
        checked += 1
        for who, person in people.items():
            if who == "outsider":
                continue
            r = person.request(method, dummy_path(path), dummy_body(method, operation_id))
            allowed = who == "instance admin" or scope in ROLE_SCOPES[who]
            where = f"{method} {path} (scope {scope}) as {who}"
            if allowed:
                if r.status_code in (401, 403):
                    failures.append(f"{where}: got {r.status_code} {r.text[:200]}, expected not refused")
            elif r.status_code != 403 or r.headers.get("Content-Type") != "application/problem+json":
                failures.append(f"{where}: got {r.status_code} {r.text[:200]}, expected 403 missing_scope")
            elif (r.json().get("code"), r.json().get("scope")) != ("missing_scope", scope):
                failures.append(f"{where}: got 403 {r.json()}, expected code missing_scope naming {scope!r}")
    assert not failures, "\n".join(failures)
    assert checked > 40, f"only {checked} secret operations"


def test_admin_operations_take_an_instance_admins_session_only(module_server, document, team):
    app, people = team
    ops = operations(document, "adminToken")
    paths = {(m, p) for m, p, _, _ in ops}
    assert {("GET", "/v1/apps"), ("POST", "/v1/users"), ("GET", "/v1/users"), ("PATCH", "/v1/users/{userId}"),
            ("PUT", "/v1/apps/{appId}/members/{userId}")} <= paths, sorted(paths)
    failures = []
    for method, path, operation_id, _ in ops:
        for who, person in people.items():
            r = person.request(method, dummy_path(path), dummy_body(method, operation_id), app_id=None)
            where = f"{method} {path} as {who}"
            if who == "instance admin":
                if r.status_code in (401, 403):
                    failures.append(f"{where}: got {r.status_code} {r.text[:200]}, expected not refused")
            elif r.status_code != 403 or r.headers.get("Content-Type") != "application/problem+json" \
                    or r.json().get("code") != "admin_required":
                failures.append(f"{where}: got {r.status_code} {r.text[:200]}, expected 403 admin_required")
    assert not failures, "\n".join(failures)
    # The admin token's own refusal is unchanged for keys.
    problem(app.dashboard.get("/v1/apps"), 403, "admin_token_required")


def test_mcp_by_session_lists_the_tools_of_the_role(module_server, team):
    app, people = team

    def tools(person):
        headers = {**MCP_HEADERS}
        init = person.post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                    "params": {"protocolVersion": MCP_HEADERS["MCP-Protocol-Version"], "capabilities": {},
                                               "clientInfo": {"name": "teams-test", "version": "1"}}}, headers=headers)
        assert init.status_code == 200, init.text
        note = person.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        assert note.status_code == 202, note.text
        listed = person.post("/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}, headers=headers)
        assert listed.status_code == 200, listed.text
        return {t["name"] for t in listed.json()["result"]["tools"]}

    viewer, owner = tools(people["viewer"]), tools(people["owner"])
    assert "list_paywalls" in viewer and not {"publish_paywall", "create_paywall"} & viewer, viewer
    assert {"list_paywalls", "publish_paywall", "create_paywall"} <= owner, owner
    problem(people["viewer"].post("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, csrf=None, headers=MCP_HEADERS),
            403, "csrf_token_invalid")


# --- membership --------------------------------------------------------------------------------------

def test_a_session_names_an_app_it_is_a_member_of(module_server, team):
    app, people = team
    base = module_server.base
    outsider = people["outsider"]
    problem(outsider.get("/v1/paywalls"), 403, "not_a_member")
    problem(outsider.post("/v1/paywalls", {"template": "clean"}), 403, "not_a_member")
    problem(outsider.get("/v1/paywalls", app_id="app_doesnotexist000000"), 403, "not_a_member")
    problem(outsider.get("/v1/paywalls", app_id=None), 400, "app_required")
    problem(people["viewer"].get("/v1/paywalls", app_id=None), 400, "app_required")
    assert ok(outsider.get("/v1/paywalls", app_id=outsider.signed_in["memberships"][0]["appId"]), 200)["items"] == []
    # A non-admin session on an admin route.
    problem(people["owner"].get("/v1/apps", app_id=None), 403, "admin_required")
    problem(outsider.post("/v1/users", {"email": unique_email(), "password": PASSWORD}, app_id=None), 403, "admin_required")
    # An instance admin: any app, and the admin routes.
    root = people["instance admin"]
    assert root.signed_in["user"]["instanceAdmin"] is True and root.signed_in["memberships"] == []
    pw = ok(root.post("/v1/paywalls", {"template": "clean"}), 201)["id"]
    assert pw in {x["id"] for x in ok(app.dashboard.get("/v1/paywalls"), 200)["items"]}
    other = new_app(module_server, "Any app")
    assert ok(root.get("/v1/paywalls", app_id=other.id), 200)["items"] == []
    apps = ok(root.get("/v1/apps", app_id=None, params={"limit": 200}), 200)
    assert other.id in json.dumps(apps)
    made = ok(root.post("/v1/users", {"email": unique_email("made-by-root"), "password": PASSWORD}, app_id=None), 201)
    sign_in(base, made["email"], PASSWORD)


def test_members_are_listed_removed_and_re_roled_and_their_sessions_end(module_server):
    base = module_server.base
    app = new_app(module_server, "Members")
    owner_user, editor_user, viewer_user = (create_user(base, tag=t) for t in ("owner", "editor", "viewer"))
    add_member(base, app.id, owner_user["id"], "owner")
    add_member(base, app.id, editor_user["id"], "editor")
    add_member(base, app.id, viewer_user["id"], "viewer")
    owner = Person(base, owner_user, app_id=app.id)
    editor = Person(base, editor_user, app_id=app.id)
    viewer = Person(base, viewer_user, app_id=app.id)
    members = ok(owner.get("/v1/members"), 200)["members"]
    assert {(m["userId"], m["email"], m["role"]) for m in members} == {
        (owner_user["id"], owner_user["email"], "owner"), (editor_user["id"], editor_user["email"], "editor"),
        (viewer_user["id"], viewer_user["email"], "viewer")}, members
    assert all("createdAt" in m for m in members)
    # Only a holder of `members` changes them.
    r = editor.delete(f"/v1/members/{viewer_user['id']}")
    assert problem(r, 403, "missing_scope")["scope"] == "members"
    assert viewer.alive()

    # Removal: 204, and the session ends at once (every route).
    assert owner.delete(f"/v1/members/{editor_user['id']}").status_code == 204
    assert not editor.alive()
    assert editor.get("/v1/paywalls").status_code == 401
    assert owner.alive()
    assert {m["userId"] for m in ok(owner.get("/v1/members"), 200)["members"]} == {owner_user["id"], viewer_user["id"]}
    again = Person(base, editor_user, app_id=app.id)
    assert again.signed_in["memberships"] == []
    problem(again.get("/v1/paywalls"), 403, "not_a_member")

    # A changed role: 200 member, the user's sessions end; the new role holds at the next sign-in.
    changed = ok(owner.put(f"/v1/members/{viewer_user['id']}", {"role": "editor"}), 200)
    assert changed["userId"] == viewer_user["id"] and changed["role"] == "editor", changed
    assert not viewer.alive()
    promoted = Person(base, viewer_user, app_id=app.id)
    assert [m["role"] for m in promoted.signed_in["memberships"]] == ["editor"]
    ok(promoted.post("/v1/paywalls", {"template": "clean"}), 201)

    # The last owner stays: neither removed nor demoted, by a session or by a key.
    problem(owner.delete(f"/v1/members/{owner_user['id']}"), 409, "last_owner")
    problem(owner.put(f"/v1/members/{owner_user['id']}", {"role": "admin"}), 409, "last_owner")
    problem(app.dashboard.delete(f"/v1/members/{owner_user['id']}"), 409, "last_owner")
    problem(app.dashboard.put(f"/v1/members/{owner_user['id']}", {"role": "viewer"}), 409, "last_owner")
    assert owner.alive(), "a refused change ends nothing"
    # With a second owner the first may go.
    ok(app.dashboard.put(f"/v1/members/{promoted.id}", {"role": "owner"}), 200)
    second_owner = Person(base, viewer_user, app_id=app.id)
    ok(second_owner.put(f"/v1/members/{owner_user['id']}", {"role": "admin"}), 200)
    assert not owner.alive()
    problem(second_owner.delete(f"/v1/members/{second_owner.id}"), 409, "last_owner")


def test_a_disabled_user_is_signed_out_and_cannot_sign_in(module_server):
    base = module_server.base
    user = create_user(base, tag="disabled")
    a, b = Person(base, user), Person(base, user)
    bystander = Person(base, create_user(base, tag="bystander"))
    changed = ok(admin(base).patch(f"/v1/users/{user['id']}", {"disabled": True}), 200)
    assert changed["id"] == user["id"] and changed["disabledAt"] is not None, changed
    assert not a.alive() and not b.alive()
    assert bystander.alive()
    r = post_session(base, user["email"], PASSWORD)
    problem(r, 403, "user_disabled")
    assert set_cookie_headers(r) == []
    problem(post_session(base, user["email"], "wrong password!"), 401, "invalid_credentials")
    back = ok(admin(base).patch(f"/v1/users/{user['id']}", {"disabled": False}), 200)
    assert back["disabledAt"] is None, back
    c = Person(base, user)
    assert c.alive() and not a.alive()


# --- audit -------------------------------------------------------------------------------------------

def test_a_write_through_a_session_is_audited_as_the_user(module_server):
    base = module_server.base
    app = new_app(module_server, "Audit")
    user = create_user(base, tag="audited")
    add_member(base, app.id, user["id"], "owner")
    p = Person(base, user, app_id=app.id)
    request_id = f"teams-{uuid.uuid4().hex}"
    r = p.post("/v1/paywalls", {"template": "clean"}, headers={"X-Request-Id": request_id})
    pw = ok(r, 201)["id"]
    log = ok(p.get("/v1/audit-log", params={"limit": 200}), 200)["entries"]
    found = [e for e in log if e.get("requestId") == request_id and e.get("action") == "paywall.created"]
    assert len(found) == 1, log[:5]
    e = found[0]
    assert e["target"] == {"kind": "paywall", "id": pw}, e
    assert e["actor"] == {"kind": "user", "userId": user["id"], "email": user["email"], "sessionId": p.session_id,
                          "keyId": None, "via": "rest"}, e["actor"]


# --- CLI ---------------------------------------------------------------------------------------------

def run_cli_with_input(stdin, *args):
    env = dict(os.environ)
    env.update(storage_env(args[args.index("--data-dir") + 1]))
    return subprocess.run([BIN, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)


def one_json_line(stdout):
    lines = stdout.strip().splitlines()
    assert len(lines) == 1, stdout
    return json.loads(lines[0])


def test_the_cli_creates_users_who_sign_in(data_dir):
    root_email, own_email = unique_email("cli-root"), unique_email("cli-own")
    root = one_json_line(run_cli("users", "create", root_email, "--admin", "--data-dir", str(data_dir)).stdout)
    assert root["email"] == root_email and root["id"], root
    assert isinstance(root["password"], str) and len(root["password"]) >= 12, root
    own_password = "my own password, from stdin"
    proc = run_cli_with_input(own_password + "\n", "users", "create", own_email, "--password-stdin", "--data-dir", str(data_dir))
    assert proc.returncode == 0, proc.stderr
    own = one_json_line(proc.stdout)
    assert own["email"] == own_email and own["id"] != root["id"], own
    short = run_cli_with_input("short\n", "users", "create", unique_email("cli-short"), "--password-stdin", "--data-dir", str(data_dir))
    assert short.returncode != 0, short.stdout
    taken = run_cli("users", "create", own_email, "--data-dir", str(data_dir), check=False)
    assert taken.returncode != 0, taken.stdout
    s = XizorServer(data_dir)
    try:
        _, _, body = sign_in(s.base, root_email, root["password"])
        assert who(body) == {"id": root["id"], "email": root_email, "instanceAdmin": True}, body
        _, _, body = sign_in(s.base, own_email, own_password)
        assert who(body) == {"id": own["id"], "email": own_email, "instanceAdmin": False}, body
        problem(post_session(s.base, own_email, own_password + "\n"), 401, "invalid_credentials")
        # The --admin one is an instance admin on the admin routes.
        root_session = Person(s.base, {"id": root["id"], "email": root_email}, password=root["password"])
        ok(root_session.get("/v1/apps"), 200)
    finally:
        assert s.stop() == 0


def test_demo_creates_a_person_owning_the_demo_app(tmp_path):
    data = tmp_path / "demo"
    created = json.loads(run_cli("demo", "--data-dir", str(data)).stdout)
    assert created["userEmail"] == "demo@xizor.dev" and len(created["userPassword"]) >= 12, created
    s = XizorServer(data)
    try:
        _, _, body = sign_in(s.base, created["userEmail"], created["userPassword"])
        assert [(m["appId"], m["role"]) for m in body["memberships"]] == [(created["appId"], "owner")], body
    finally:
        assert s.stop() == 0


def test_the_instance_log_records_sign_ins_for_the_admin(module_server):
    """GET /v1/instance/audit-log (the admin token, or an instance admin's session): sign-ins, failed
    sign-ins and account changes, which belong to no app; an app's key and a non-admin person are refused."""
    base = module_server.base
    user = create_user(base, tag="logged")
    problem(post_session(base, user["email"], "not the password!"), 401, "invalid_credentials")
    person = Person(base, user)
    entries = ok(admin(base).get("/v1/instance/audit-log", params={"targetId": user["id"]}), 200)["entries"]
    actions = [e["action"] for e in entries]
    assert actions[:2] == ["user.sign_in_failed", "user.created"] or "user.sign_in_failed" in actions, actions
    failed = next(e for e in entries if e["action"] == "user.sign_in_failed")
    assert failed["actor"] == {**failed["actor"], "kind": "user", "userId": user["id"], "email": user["email"], "sessionId": None}
    signed = ok(admin(base).get("/v1/instance/audit-log", params={"action": "user.signed_in", "targetId": person.session_id}), 200)
    assert [e["actor"]["sessionId"] for e in signed["entries"]] == [person.session_id], signed
    # Nothing of an app is in it, and it is the admin's alone.
    app = new_app(module_server)
    assert all(e["action"] not in ("app.created", "paywall.created") for e in ok(admin(base).get("/v1/instance/audit-log"), 200)["entries"])
    problem(app.dashboard.get("/v1/instance/audit-log"), 403, "admin_token_required")
    problem(person.get("/v1/instance/audit-log"), 403, "admin_required")


@pytest.mark.skipif(__import__("drivers").DRIVER != "postgres", reason="replicas share a PostgreSQL database")
def test_a_session_works_on_every_replica_and_ends_on_all(tmp_path):
    """Two servers on one PostgreSQL database (replicas behind a load balancer): a session made on one is
    good on the other, and revoked on the other it ends on the first at once (each request reads it back)."""
    data = tmp_path / "data"
    data.mkdir()
    first = XizorServer(data)
    second = XizorServer(data)
    try:
        user = create_user(first.base, tag="replica")
        token, csrf, _ = sign_in(first.base, user["email"], PASSWORD)
        ok(with_session(second.base, "GET", "/v1/session", token), 200)
        assert with_session(second.base, "DELETE", "/v1/session", token, csrf=csrf, origin=second.base).status_code == 204
        problem(with_session(first.base, "GET", "/v1/session", token), 401, "invalid_session")
    finally:
        assert second.stop() == 0 and first.stop() == 0
