"""Invitations (issue 37): an owner invites an email with a role; the single-use link creates the account
(or signs the existing one in) and gives the role.

Proven here on a live server, by plain HTTP (the session cookie set by hand, as in test_teams.py):

- POST /v1/invitations (a key with scope `members`, or an owner's session) answers 201 with the token, a
  `link` of `<publicURL>/console#/invitation/<token>` (null without XIZOR_PUBLIC_URL) and `mail`; GET
  /v1/invitations lists them newest first with their state, never the token; DELETE revokes (404 when
  unknown or not pending); at most 100 pending per app (409 `invitation_limit_reached`).
- POST /v1/invitations/accept: a new account (password of 12 or more, else 422 at `$.password`), an
  existing one by its password (401 `invalid_credentials`, counted towards the lock-out) or by its session
  (CSRF and Origin as for any unsafe request; another person's session: 403 `invitation_email_mismatch`);
  201 with a session as POST /v1/session's; then the link is used (409 `invitation_used`); expired (the row
  rewritten in the database), revoked and unknown links are refused; a higher role is kept.
- The `members` scope guards the three routes, for keys and sessions.
- Mail through a real SMTP server (aiosmtpd on loopback): "sent" with the link, "failed" when the SMTP
  server cannot be reached (the invitation stands), "off" without a public URL.
- The audit log records invitation.created, invitation.revoked and invitation.accepted (actor: the user).
"""
import email
import email.policy
import email.utils
import re
import socket
import sqlite3
import subprocess
import uuid

import pytest
from aiosmtpd.controller import Controller

import drivers
from test_audit_log import entries, the_entry
from test_scopes import create_key, key_id_of, missing_scope
from test_teams import (COOKIE, PASSWORD, SCOPES, Person, add_member, create_user, new_app, ok, post_session,
                        problem, seconds, session_cookie, set_cookie_headers, sign_in, unique_email, with_session)
from xizor_server import Client, XizorServer

PUBLIC_URL = "https://xizor.example"
SMTP_FROM = "team@xizor.example"
WEEK_SECONDS = 7 * 86_400
LIMIT = 100
INVITATION_FIELDS = {"id", "email", "role", "state", "createdAt", "expiresAt", "acceptedAt", "token", "link", "mail"}
ID_SHAPE = re.compile(r"inv_[A-Za-z0-9]+")
TOKEN_SHAPE = re.compile(r"xi_[A-Za-z0-9_-]+")
SIGN_IN_FIELDS = {"user", "session", "csrfToken", "memberships"}


# --- helpers ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """One server with XIZOR_PUBLIC_URL (and no SMTP) for the tests that do not need their own."""
    s = XizorServer(tmp_path_factory.mktemp("invitations") / "data", extra_env={"XIZOR_PUBLIC_URL": PUBLIC_URL})
    yield s
    assert s.stop() == 0


def invite(client, address, role="editor", headers=None):
    """POST /v1/invitations by `client` (a key's Client or a Person): the 201 body."""
    return ok(client.post("/v1/invitations", {"email": address, "role": role}, headers=headers), 201)


def listed(client):
    """{id: invitation} of GET /v1/invitations (200), after checking no token is shown."""
    r = client.get("/v1/invitations")
    body = ok(r, 200)
    assert set(body) >= {"invitations"}, body
    for item in body["invitations"]:
        assert "token" not in item and "link" not in item, item
    return {item["id"]: item for item in body["invitations"]}


def state_of(client, invitation_id):
    return listed(client)[invitation_id]["state"]


def accept(base, token, password=None, headers=None):
    """POST /v1/invitations/accept without a session."""
    body = {"token": token}
    if password is not None:
        body["password"] = password
    return with_session(base, "POST", "/v1/invitations/accept", None, json_body=body, headers=headers)


class Accepted(Person):
    """The session a 201 of POST /v1/invitations/accept set (requests as a Person's)."""

    def __init__(self, base, response, app_id=None):
        assert response.status_code == 201, f"accept: {response.status_code} {response.text}"
        name, token, _ = session_cookie(response)
        assert name == COOKIE, name
        body = response.json()
        assert set(body) >= SIGN_IN_FIELDS, body
        self.base, self.app_id, self.user = base, app_id, body["user"]
        self.token, self.csrf, self.signed_in = token, body["csrfToken"], body


def owner_of(server, app, tag="owner"):
    user = create_user(server.base, tag=tag)
    add_member(server.base, app.id, user["id"], "owner")
    return Person(server.base, user, app_id=app.id)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expire(server, invitation_id):
    """Moves the invitation's expires_at into the past, straight in the running server's database."""
    assert ID_SHAPE.fullmatch(invitation_id), invitation_id
    sql = f"UPDATE invitations SET expires_at = created_at - 1 WHERE id = '{invitation_id}'"
    if drivers.DRIVER == "sqlite":
        db = sqlite3.connect(server.data_dir / "xizor.sqlite", timeout=10)
        try:
            assert db.execute(sql).rowcount == 1
            db.commit()
        finally:
            db.close()
    else:
        out = subprocess.run(["psql", drivers.database_url(server.data_dir), "-v", "ON_ERROR_STOP=1", "-Atc", sql],
                             check=True, capture_output=True, text=True).stdout
        assert out.strip() == "UPDATE 1", out


class Inbox:
    """An aiosmtpd handler keeping every message: (envelope sender, envelope recipients, raw bytes)."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    inbox.url = f"smtp://127.0.0.1:{controller.port}"
    try:
        yield inbox
    finally:
        controller.stop()


# --- creating and listing --------------------------------------------------------------------------

def check_created(inv, address, role, link_base=PUBLIC_URL, mail="off"):
    assert set(inv) == INVITATION_FIELDS, inv
    assert ID_SHAPE.fullmatch(inv["id"]), inv
    assert TOKEN_SHAPE.fullmatch(inv["token"]), inv
    assert (inv["email"], inv["role"], inv["state"], inv["acceptedAt"], inv["mail"]) == (address, role, "pending", None, mail), inv
    assert abs(seconds(inv["expiresAt"]) - seconds(inv["createdAt"]) - WEEK_SECONDS) < 0.01, inv
    expected_link = None if link_base is None else f"{link_base}/console#/invitation/{inv['token']}"
    assert inv["link"] == expected_link, inv


def test_an_owner_invites_by_key_and_by_session_and_the_list_shows_no_token(linked):
    app = new_app(linked, "Invite")
    by_key_email, by_session_email = unique_email("by-key"), unique_email("by-session")
    by_key = invite(app.dashboard, by_key_email, "editor")
    check_created(by_key, by_key_email, "editor")
    owner = owner_of(linked, app)
    by_session = invite(owner, by_session_email, "viewer")
    check_created(by_session, by_session_email, "viewer")
    assert by_key["id"] != by_session["id"] and by_key["token"] != by_session["token"]

    for client in (app.dashboard, owner):
        r = client.get("/v1/invitations")
        assert r.status_code == 200, r.text
        assert by_key["token"] not in r.text and by_session["token"] not in r.text, r.text
        items = r.json()["invitations"]
        assert [i["id"] for i in items] == [by_session["id"], by_key["id"]], items  # newest first
        for item, created in zip(items, (by_session, by_key)):
            assert "token" not in item, item
            assert {k: item[k] for k in ("id", "email", "role", "state", "createdAt", "expiresAt", "acceptedAt")} == \
                   {k: created[k] for k in ("id", "email", "role", "state", "createdAt", "expiresAt", "acceptedAt")}, item

    # Validation: 422 at the member at fault.
    r = app.dashboard.post("/v1/invitations", {"email": "not-an-email", "role": "editor"})
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", r.text
    assert [e["path"] for e in r.json()["errors"]] == ["$.email"], r.text
    r = app.dashboard.post("/v1/invitations", {"email": unique_email(), "role": "superuser"})
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", r.text
    assert [e["path"] for e in r.json()["errors"]] == ["$.role"], r.text
    assert len(listed(app.dashboard)) == 2, "a refused invitation is not stored"
    # Another app sees none of them.
    assert listed(new_app(linked, "Other").dashboard) == {}


def test_without_a_public_url_the_link_is_null(server):
    app = new_app(server, "No link")
    address = unique_email("nolink")
    inv = invite(app.dashboard, address, "admin")
    check_created(inv, address, "admin", link_base=None, mail="off")
    ok(accept(server.base, inv["token"], PASSWORD), 201)  # the token alone still works


# --- accepting -------------------------------------------------------------------------------------

def test_accepting_creates_the_account_with_the_role(linked):
    base = linked.base
    app = new_app(linked, "Accept")
    address = unique_email("new")
    inv = invite(app.dashboard, address, "editor")

    r = accept(base, inv["token"], "x" * 11)
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", r.text
    assert [e["path"] for e in r.json()["errors"]] == ["$.password"], r.text
    assert set_cookie_headers(r) == []
    problem(accept(base, inv["token"]), 422, "validation_failed")  # no password at all for a new account
    assert state_of(app.dashboard, inv["id"]) == "pending"
    problem(post_session(base, address, "x" * 11), 401, "invalid_credentials")  # no account was made

    r = accept(base, inv["token"], PASSWORD)
    person = Accepted(base, r, app_id=app.id)
    body = r.json()
    assert inv["token"] not in r.text and PASSWORD not in r.text
    assert body["user"]["email"] == address and body["user"]["instanceAdmin"] is False, body
    assert body["memberships"] == [{"appId": app.id, "appName": app.name, "role": "editor"}], body
    # The same body as GET /v1/session answers for that session.
    again = ok(with_session(base, "GET", "/v1/session", person.token), 200)
    assert (again["user"], again["csrfToken"], again["memberships"]) == (body["user"], body["csrfToken"], body["memberships"])
    assert again["session"]["id"] == body["session"]["id"]

    # The editor's session on the app: drafts yes, publish no.
    pw = ok(person.post("/v1/paywalls", {"template": "clean"}), 201)["id"]
    assert problem(person.post(f"/v1/paywalls/{pw}/publish", {"force": True}), 403, "missing_scope")["scope"] == "publish"
    problem(person.post("/v1/paywalls", {"template": "clean"}, csrf=None), 403, "csrf_token_invalid")

    # The password chosen signs in.
    sign_in(base, address, PASSWORD)
    members = ok(app.dashboard.get("/v1/members"), 200)["members"]
    assert [(m["userId"], m["role"]) for m in members if m["email"] == address] == [(body["user"]["id"], "editor")], members

    now = listed(app.dashboard)[inv["id"]]
    assert now["state"] == "accepted" and now["acceptedAt"] is not None, now
    assert seconds(inv["createdAt"]) <= seconds(now["acceptedAt"]) <= seconds(body["session"]["createdAt"]) + 1, now

    problem(app.dashboard.delete(f"/v1/invitations/{inv['id']}"), 404, "invitation_not_found")  # not pending
    assert state_of(app.dashboard, inv["id"]) == "accepted"
    r = accept(base, inv["token"], PASSWORD)
    problem(r, 409, "invitation_used")
    assert set_cookie_headers(r) == []
    problem(accept(base, inv["token"], "another long password"), 409, "invitation_used")
    problem(person.post("/v1/invitations/accept", {"token": inv["token"]}, app_id=None), 409, "invitation_used")


def test_an_existing_account_accepts_by_password(linked):
    base = linked.base
    app = new_app(linked, "Existing")
    user = create_user(base, tag="existing")
    inv = invite(app.dashboard, user["email"], "admin")

    r = accept(base, inv["token"], PASSWORD + "!")
    problem(r, 401, "invalid_credentials")
    assert set_cookie_headers(r) == []
    problem(accept(base, inv["token"]), 401, "invalid_credentials")  # no password for an existing account
    assert state_of(app.dashboard, inv["id"]) == "pending"

    person = Accepted(base, accept(base, inv["token"], PASSWORD), app_id=app.id)
    assert person.user["id"] == user["id"], person.signed_in
    assert person.signed_in["memberships"] == [{"appId": app.id, "appName": app.name, "role": "admin"}]
    pw = ok(person.post("/v1/paywalls", {"template": "clean"}), 201)["id"]
    ok(person.post(f"/v1/paywalls/{pw}/publish", {"force": True}), 201)  # admin: publish
    assert state_of(app.dashboard, inv["id"]) == "accepted"
    sign_in(base, user["email"], PASSWORD)  # the password is unchanged


def test_wrong_passwords_at_accept_count_towards_the_lock_out(linked):
    base = linked.base
    app = new_app(linked, "Lock")
    user = create_user(base, tag="lock")
    inv = invite(app.dashboard, user["email"], "viewer")
    for _ in range(5):  # auth.lockoutThreshold's default
        problem(accept(base, inv["token"], "wrong password!"), 401, "invalid_credentials")
    problem(post_session(base, user["email"], PASSWORD), 429, "account_locked")
    assert state_of(app.dashboard, inv["id"]) == "pending"


def test_a_signed_in_person_accepts_with_the_session(linked):
    base = linked.base
    app = new_app(linked, "Signed in")
    user, other = create_user(base, tag="invited"), create_user(base, tag="other")
    inv = invite(app.dashboard, user["email"], "editor")
    me, them = Person(base, user), Person(base, other)
    path, body = "/v1/invitations/accept", {"token": inv["token"]}

    problem(them.post(path, body), 403, "invitation_email_mismatch")
    problem(them.post(path, {**body, "password": PASSWORD}), 403, "invitation_email_mismatch")
    problem(me.post(path, body, csrf=None), 403, "csrf_token_invalid")
    problem(me.post(path, body, csrf="0" * 64), 403, "csrf_token_invalid")
    problem(me.post(path, body, origin=None), 403, "csrf_origin_mismatch")
    problem(me.post(path, body, origin="https://evil.example"), 403, "csrf_origin_mismatch")
    assert state_of(app.dashboard, inv["id"]) == "pending"
    assert them.signed_in["memberships"] == [] and me.alive() and them.alive()

    r = me.post(path, body)  # cookie + CSRF + Origin, no password
    now = Accepted(base, r, app_id=app.id)
    assert now.user["id"] == user["id"], r.text
    assert now.token != me.token, "a new session"
    assert now.signed_in["memberships"] == [{"appId": app.id, "appName": app.name, "role": "editor"}], r.text
    ok(now.post("/v1/paywalls", {"template": "clean"}), 201)
    assert state_of(app.dashboard, inv["id"]) == "accepted"
    problem(them.get("/v1/paywalls", app_id=app.id), 403, "not_a_member")


# --- refusals: expired, revoked, unknown ----------------------------------------------------------

def test_expired_revoked_and_unknown_invitations_are_refused(linked):
    base = linked.base
    app = new_app(linked, "Refusals")
    late, revoked = unique_email("late"), unique_email("revoked")
    old = invite(app.dashboard, late, "editor")
    expire(linked, old["id"])
    r = accept(base, old["token"], PASSWORD)
    problem(r, 403, "invitation_expired")
    assert set_cookie_headers(r) == []
    assert state_of(app.dashboard, old["id"]) == "expired"
    problem(app.dashboard.delete(f"/v1/invitations/{old['id']}"), 404, "invitation_not_found")  # not pending
    problem(post_session(base, late, PASSWORD), 401, "invalid_credentials")  # no account was made

    gone = invite(app.dashboard, revoked, "editor")
    r = app.dashboard.delete(f"/v1/invitations/{gone['id']}")
    assert r.status_code == 204 and not r.content, (r.status_code, r.text)
    problem(accept(base, gone["token"], PASSWORD), 403, "invitation_revoked")
    assert state_of(app.dashboard, gone["id"]) == "revoked"
    problem(app.dashboard.delete(f"/v1/invitations/{gone['id']}"), 404, "invitation_not_found")
    problem(post_session(base, revoked, PASSWORD), 401, "invalid_credentials")

    problem(accept(base, "xi_" + "A" * 43, PASSWORD), 404, "invitation_not_found")
    problem(accept(base, old["token"][:-1] + ("B" if old["token"][-1] != "B" else "C"), PASSWORD), 404, "invitation_not_found")
    problem(app.dashboard.delete("/v1/invitations/inv_doesnotexist0000"), 404, "invitation_not_found")
    # Another app's invitation is unknown here.
    elsewhere = invite(new_app(linked, "Elsewhere").dashboard, unique_email("elsewhere"))
    problem(app.dashboard.delete(f"/v1/invitations/{elsewhere['id']}"), 404, "invitation_not_found")


def test_a_member_keeps_a_higher_role(linked):
    base = linked.base
    app = new_app(linked, "Roles")
    owner_user, viewer_user = create_user(base, tag="owner"), create_user(base, tag="viewer")
    add_member(base, app.id, owner_user["id"], "owner")
    add_member(base, app.id, viewer_user["id"], "viewer")
    down = invite(app.dashboard, owner_user["email"], "viewer")
    up = invite(app.dashboard, viewer_user["email"], "admin")

    owner = Accepted(base, accept(base, down["token"], PASSWORD), app_id=app.id)
    assert owner.signed_in["memberships"] == [{"appId": app.id, "appName": app.name, "role": "owner"}], owner.signed_in
    ok(owner.get("/v1/invitations"), 200)  # still holds `members`
    promoted = Accepted(base, accept(base, up["token"], PASSWORD), app_id=app.id)
    assert promoted.signed_in["memberships"] == [{"appId": app.id, "appName": app.name, "role": "admin"}], promoted.signed_in
    roles = {m["userId"]: m["role"] for m in ok(app.dashboard.get("/v1/members"), 200)["members"]}
    assert (roles[owner_user["id"]], roles[viewer_user["id"]]) == ("owner", "admin"), roles
    assert state_of(app.dashboard, down["id"]) == "accepted"


# --- scope -----------------------------------------------------------------------------------------

def test_the_routes_need_the_members_scope(linked):
    base = linked.base
    app = new_app(linked, "Scope")
    inv = invite(app.dashboard, unique_email("scoped"))
    without = create_key(app, [s for s in SCOPES if s != "members"])
    only = create_key(app, ["members"])
    people = {}
    for role in ("editor", "admin", "viewer"):
        user = create_user(base, tag=role)
        add_member(base, app.id, user["id"], role)
        people[role] = Person(base, user, app_id=app.id)

    def calls(client):
        return {"POST": client.post("/v1/invitations", {"email": unique_email("nope"), "role": "viewer"}),
                "GET": client.get("/v1/invitations"),
                "DELETE": client.delete(f"/v1/invitations/{inv['id']}")}

    failures = []
    for who, client in [("key without members", Client(base, without["key"]))] + list(people.items()):
        for method, r in calls(client).items():
            wrong = missing_scope(r, "members")
            if wrong:
                failures.append(f"{method} /v1/invitations as {who}: {wrong}")
    assert not failures, "\n".join(failures)
    assert list(listed(app.dashboard)) == [inv["id"]] and state_of(app.dashboard, inv["id"]) == "pending"

    holder = Client(base, only["key"])
    assert list(listed(holder)) == [inv["id"]]
    ok(holder.post("/v1/invitations", {"email": unique_email("ok"), "role": "viewer"}), 201)
    assert holder.delete(f"/v1/invitations/{inv['id']}").status_code == 204


# --- mail ------------------------------------------------------------------------------------------

def test_an_invitation_is_mailed_with_its_link(tmp_path, smtp):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_SMTP_URL": smtp.url, "XIZOR_SMTP_FROM": SMTP_FROM,
                                                   "XIZOR_PUBLIC_URL": PUBLIC_URL})
    try:
        app = new_app(s, "Café Crème")
        address = unique_email("mailed")
        inv = invite(app.dashboard, address, "editor")
        check_created(inv, address, "editor", mail="sent")
        assert len(smtp.messages) == 1, smtp.messages
        sender, recipients, raw = smtp.messages[0]
        assert (sender, recipients) == (SMTP_FROM, [address]), (sender, recipients)
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert email.utils.parseaddr(str(message["From"]))[1] == SMTP_FROM, message["From"]
        assert email.utils.parseaddr(str(message["To"]))[1] == address, message["To"]
        assert str(message["Subject"]) == f"You are invited to {app.name} on Xizor", message["Subject"]
        assert message.get_content_type() == "text/plain" and message.get_content_charset() == "utf-8", message["Content-Type"]
        text = message.get_content()
        assert inv["link"] in text, text
        mailed = re.findall(r"#/invitation/(xi_[A-Za-z0-9_-]+)", text)
        assert mailed == [inv["token"]] or set(mailed) == {inv["token"]}, text

        person = Accepted(s.base, accept(s.base, mailed[0], PASSWORD), app_id=app.id)
        assert person.signed_in["memberships"] == [{"appId": app.id, "appName": app.name, "role": "editor"}]
        assert len(smtp.messages) == 1, "accepting sends nothing"
    finally:
        assert s.stop() == 0


def test_a_mail_that_cannot_be_sent_leaves_the_invitation_standing(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_SMTP_URL": f"smtp://127.0.0.1:{free_port()}",
                                                   "XIZOR_SMTP_FROM": SMTP_FROM, "XIZOR_PUBLIC_URL": PUBLIC_URL,
                                                   "XIZOR_SMTP_TIMEOUT_MS": "2000"})
    try:
        app = new_app(s, "Closed port")
        address = unique_email("unsent")
        inv = invite(app.dashboard, address, "viewer")
        check_created(inv, address, "viewer", mail="failed")
        assert listed(app.dashboard)[inv["id"]]["state"] == "pending"
        ok(accept(s.base, inv["token"], PASSWORD), 201)
    finally:
        assert s.stop() == 0


def test_without_a_public_url_no_mail_is_sent(tmp_path, smtp):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_SMTP_URL": smtp.url, "XIZOR_SMTP_FROM": SMTP_FROM,
                                                   "XIZOR_PUBLIC_URL": None})
    try:
        app = new_app(s, "No public URL")
        address = unique_email("unmailed")
        inv = invite(app.dashboard, address, "viewer")
        check_created(inv, address, "viewer", link_base=None, mail="off")
        assert smtp.messages == []
    finally:
        assert s.stop() == 0


# --- the limit -------------------------------------------------------------------------------------

def test_at_most_100_pending_invitations_per_app(linked):
    base = linked.base
    app = new_app(linked, "Limit")
    made = [invite(app.dashboard, f"limit-{i}-{uuid.uuid4().hex[:6]}@example.com", "viewer") for i in range(LIMIT)]
    assert len({m["id"] for m in made}) == LIMIT
    problem(app.dashboard.post("/v1/invitations", {"email": unique_email("over"), "role": "viewer"}), 409,
            "invitation_limit_reached")
    assert len(listed(app.dashboard)) == LIMIT
    invite(new_app(linked, "Limit elsewhere").dashboard, unique_email("elsewhere"))  # the limit is per app

    # Only pending ones count: a revoked one and an accepted one free a place each.
    assert app.dashboard.delete(f"/v1/invitations/{made[0]['id']}").status_code == 204
    invite(app.dashboard, unique_email("freed-by-revoke"))
    problem(app.dashboard.post("/v1/invitations", {"email": unique_email("over"), "role": "viewer"}), 409,
            "invitation_limit_reached")
    ok(accept(base, made[1]["token"], PASSWORD), 201)
    invite(app.dashboard, unique_email("freed-by-accept"))
    problem(app.dashboard.post("/v1/invitations", {"email": unique_email("over"), "role": "viewer"}), 409,
            "invitation_limit_reached")


# --- audit -----------------------------------------------------------------------------------------

def test_invitations_are_audited(linked):
    base = linked.base
    app = new_app(linked, "Audited")
    owner = owner_of(linked, app)
    key_id = key_id_of(app, app.secret_key)
    rid = lambda: f"inv-{uuid.uuid4().hex}"  # noqa: E731

    created_rid, session_rid, revoked_rid, accepted_rid = rid(), rid(), rid(), rid()
    address = unique_email("audited")
    inv = invite(app.dashboard, address, "editor", headers={"X-Request-Id": created_rid})
    by_owner = invite(owner, unique_email("audited-by-owner"), "viewer", headers={"X-Request-Id": session_rid})
    assert app.dashboard.delete(f"/v1/invitations/{by_owner['id']}", headers={"X-Request-Id": revoked_rid}).status_code == 204
    problem(accept(base, inv["token"], "short"), 422, "validation_failed")  # a failed accept leaves no entry
    r = accept(base, inv["token"], PASSWORD, headers={"X-Request-Id": accepted_rid})
    person = Accepted(base, r, app_id=app.id)

    log = entries(app.dashboard)
    e = the_entry(log, created_rid, "invitation.created")
    assert e["target"] == {"kind": "invitation", "id": inv["id"]}, e
    assert (e["actor"]["kind"], e["actor"]["keyId"], e["actor"]["via"]) == ("secret", key_id, "rest"), e["actor"]
    e = the_entry(log, session_rid, "invitation.created")
    assert e["target"] == {"kind": "invitation", "id": by_owner["id"]}, e
    assert e["actor"] == {"kind": "user", "userId": owner.id, "email": owner.user["email"], "sessionId": owner.session_id,
                          "keyId": None, "via": "rest"}, e["actor"]
    e = the_entry(log, revoked_rid, "invitation.revoked")
    assert e["target"] == {"kind": "invitation", "id": by_owner["id"]}, e
    assert (e["actor"]["kind"], e["actor"]["keyId"]) == ("secret", key_id), e["actor"]
    accepted = [x for x in log if x["action"] == "invitation.accepted"]
    assert len(accepted) == 1, accepted
    e = accepted[0]
    assert e["target"] == {"kind": "invitation", "id": inv["id"]}, e
    assert e["actor"] == {"kind": "user", "userId": person.user["id"], "email": address, "sessionId": person.session_id,
                          "keyId": None, "via": "rest"}, e["actor"]
    assert e["requestId"] == accepted_rid, f"invitation.accepted carries the request's X-Request-Id: {e}"
    assert {x["action"] for x in log if x["action"].startswith("invitation.")} == \
           {"invitation.created", "invitation.revoked", "invitation.accepted"}, log
