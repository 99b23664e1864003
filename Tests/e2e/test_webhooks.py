"""Webhooks (docs/integrations.md, "Webhooks"), against real receivers on loopback in this process.

Every server here runs with fast retries (`webhooks.retryBaseMs` 200, `pollMs` 100, `timeoutMs`
2000), and, unless a test is about the refusal itself, with `webhooks.allowPrivateTargets` (the
receivers are on 127.0.0.1) and `webhooks.caFile` (the private CA of the HTTPS receiver).
Signatures are checked by `verify` below, written from the documented recipe, not from the server.

Where a test must show that something was *not* sent, it relies on the documented order instead of
a long sleep: an endpoint's deliveries go out one at a time in commit order, so once a later marker
(a test event, or a later change) has arrived, anything committed before it would have arrived
first; and the delivery log, written in the transaction of each change, must hold no row for it.

Delivery is at least once, and the tests that look at what events say take each event's first
arrival, de-duplicating on Xizor-Event-Id as the document tells receivers to; whether an answered
delivery is ever sent again (or a repeat arrives after a later event) is
test_an_answered_delivery_is_not_sent_again's question, and the tests that count attempts exactly
run with one delivery thread (`one_thread`).
"""
import asyncio
import hashlib
import hmac
import json
import pathlib
import re
import signal
import time
import uuid

import pytest

from drivers import DRIVER
from webhook_receiver import HANG, REDIRECT, Receiver, TestCertificates
from xizor_server import App, Client, XizorServer, create_app

FAST = {"XIZOR_WEBHOOKS_RETRY_BASE_MS": "200", "XIZOR_WEBHOOKS_POLL_MS": "100", "XIZOR_WEBHOOKS_TIMEOUT_MS": "2000"}
PRIVATE_OK = {"XIZOR_WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true"}
TOLERANCE_S = 300
PROBLEM = "application/problem+json"
# Deadlines (generous: the machine may be busy), never expectations of speed.
DELIVERY_S = 10


# --- the documented verification recipe, independently --------------------------------------------

def verify(secret, header, body, now=None, tolerance=TOLERANCE_S):
    """docs/integrations.md, "Verifying a signature": split on ',', take t and every v1, HMAC-SHA256
    over "{t}." + the raw body keyed with the whole whsec_ string, constant-time compare, and refuse
    a t more than `tolerance` seconds from our clock."""
    if not header:
        return False
    parts = [p.strip().split("=", 1) for p in header.split(",")]
    if any(len(p) != 2 for p in parts):
        return False
    stamps = [v for k, v in parts if k == "t"]
    signatures = [v for k, v in parts if k == "v1"]
    if len(stamps) != 1 or not stamps[0].isdigit() or not signatures:
        return False
    t = stamps[0]
    expected = hmac.new(secret.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
    matched = False
    for signature in signatures:
        matched |= hmac.compare_digest(signature, expected)
    return matched and abs((now if now is not None else time.time()) - int(t)) <= tolerance


@pytest.mark.driver_independent
def test_the_verifier_accepts_the_recipe_and_refuses_everything_else():
    # The vector is computed by another implementation: `printf '%s' '1764612000.{…}' | openssl dgst -sha256 -hmac whsec_vector`.
    body = b'{"id":"evt_x","type":"webhook.test"}'
    v1 = "649a66c30d4c3088d6026d1399c61a837eb510d6fd8816436d96474d39baff79"
    header = f"t=1764612000,v1={v1}"
    assert verify("whsec_vector", header, body, now=1764612000 + 299)
    assert verify("whsec_vector", f"t=1764612000,v1={'0' * 64},v1={v1}", body, now=1764612000)  # any v1 may match
    assert not verify("whsec_vectoR", header, body, now=1764612000)                             # another secret
    assert not verify("whsec_vector", header, body + b" ", now=1764612000)                      # another body
    assert not verify("whsec_vector", header, body, now=1764612000 + 301)                       # outside the window
    assert not verify("whsec_vector", header, body, now=1764612000 - 301)
    assert not verify("whsec_vector", f"t=1764612001,v1={v1}", body, now=1764612000)            # another t
    assert not verify("whsec_vector", f"t=1764612000,v0={v1}", body, now=1764612000)            # no v1
    assert not verify("whsec_vector", "", body, now=1764612000)


# --- fixtures and helpers --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return TestCertificates(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def start_server(tmp_path, certs):
    """start_server(private=True, data_dir=None, **env) → a XizorServer with fast webhook settings,
    stopped (and required to exit 0) at the end unless the test killed it."""
    started = []

    def start(private=True, ca=True, data_dir=None, **env):
        settings = dict(FAST)
        if private:
            settings.update(PRIVATE_OK)
        if ca:
            settings["XIZOR_WEBHOOKS_CA_FILE"] = certs.ca_file
        settings.update(env)
        s = XizorServer(data_dir or tmp_path / f"data-{len(started)}", extra_env=settings)
        started.append(s)
        return s

    yield start
    codes = {}
    for s in started:
        killed = s.process.poll() is not None
        code = s.stop()
        if not killed:
            codes[s.port] = code
    assert all(code == 0 for code in codes.values()), (codes, [s.stderr_lines[-20:] for s in started])


@pytest.fixture
def hooks(start_server):
    """An app on a server that may deliver to loopback."""
    return App(server := start_server(), create_app(server.base, "Webhooks"))


@pytest.fixture
def one_thread(start_server):
    """An app on a server with one delivery thread, for tests that count attempts exactly: whether
    several threads ever send one delivery twice is test_an_answered_delivery_is_not_sent_again's
    question, not theirs."""
    return App(server := start_server(XIZOR_WEBHOOKS_WORKERS="1"), create_app(server.base, "Webhooks"))


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


@pytest.fixture
def second_receiver():
    r = Receiver()
    yield r
    r.stop()


@pytest.fixture
def https_receiver(certs):
    r = Receiver(tls=certs)
    yield r
    r.stop()


def rid():
    return f"wh-test-{uuid.uuid4().hex[:16]}"


def problem(r, status, code=None):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"].split(";")[0] == PROBLEM, r.headers
    body = r.json()
    assert body["status"] == status, body
    if code is not None:
        assert body["code"] == code, body
    return body


def listed(body):
    """The list in a listing answer: {"items": [...], …}, the API's convention."""
    assert isinstance(body.get("items"), list), body
    return body["items"]


def member_names(value):
    """Every object member name at any depth."""
    if isinstance(value, dict):
        return set(value) | {n for v in value.values() for n in member_names(v)}
    if isinstance(value, list):
        return {n for v in value for n in member_names(v)}
    return set()


def secret_key_id(app):
    keys = app.dashboard.get("/v1/keys").json()["keys"]
    return next(k["id"] for k in keys if k["kind"] == "secret" and app.secret_key.startswith(k["prefix"]))


def create_endpoint(app, url, client=None, **fields):
    r = (client or app.dashboard).post("/v1/webhooks", {"url": url, **fields})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > len("whsec_") + 16, body
    assert body["url"] == url and body["id"], body
    return body


def deliveries(app, endpoint_id, **params):
    r = app.dashboard.get(f"/v1/webhooks/{endpoint_id}/deliveries", params=params or None)
    assert r.status_code == 200, r.text
    return listed(r.json())


def whole_log(app, endpoint_id):
    """Every row of the endpoint's delivery log, newest first, page after page."""
    rows, params = [], {"limit": 100}
    while True:
        r = app.dashboard.get(f"/v1/webhooks/{endpoint_id}/deliveries", params=params)
        assert r.status_code == 200, r.text
        rows += listed(r.json())
        if not r.json().get("nextCursor"):
            return rows
        params["cursor"] = r.json()["nextCursor"]


def wait_log(app, endpoint_id, predicate, timeout=DELIVERY_S, what="the delivery log"):
    """Polls the endpoint's delivery log (newest first) until predicate(log) holds; returns it."""
    deadline = time.monotonic() + timeout
    while True:
        log = whole_log(app, endpoint_id)
        if predicate(log):
            return log
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}: {json.dumps(log, indent=1)}")
        time.sleep(0.05)


def send_test(app, endpoint_id):
    r = app.dashboard.post(f"/v1/webhooks/{endpoint_id}/test")
    assert r.status_code == 202, r.text
    delivery = r.json()
    assert delivery["id"], delivery
    return delivery


def check_request(recorded, secret, app):
    """The documented request: POST, JSON, our User-Agent, headers that match the body, a valid
    signature. Returns the event."""
    assert recorded.method == "POST", recorded
    assert recorded.header("Content-Type").split(";")[0].strip() == "application/json"
    assert recorded.header("User-Agent") == "Xizor-Webhooks/1"
    event = recorded.json()
    assert event["id"].startswith("evt_") and recorded.header("Xizor-Event-Id") == event["id"], event
    assert recorded.header("Xizor-Event-Type") == event["type"], event
    assert recorded.header("Xizor-Delivery-Id"), recorded
    assert event["appId"] == app.id, event
    assert isinstance(event["createdAt"], int) and abs(event["createdAt"] - time.time() * 1000) < 120_000, event
    assert verify(secret, recorded.header("Xizor-Signature"), recorded.body, now=recorded.at), recorded.header("Xizor-Signature")
    return event


def first_occurrences(recorded):
    """Event ids of successful requests in the order they first arrived."""
    seen = []
    for r in recorded:
        if r.ok and r.header("Xizor-Event-Id") not in seen:
            seen.append(r.header("Xizor-Event-Id"))
    return seen


def kill(server):
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=10)


# --- endpoints ---------------------------------------------------------------------------------------

def test_endpoints_are_created_listed_changed_and_deleted_and_the_secret_is_shown_once(hooks, receiver):
    app = hooks
    created = create_endpoint(app, receiver.url("/a"), description="CDN purge")
    wid, secret = created["id"], created["secret"]
    assert created["eventTypes"] == ["*"] and created["enabled"] is True and created["description"] == "CDN purge"
    second = create_endpoint(app, receiver.url("/b"), eventTypes=["paywall.published"], enabled=False)
    assert second["eventTypes"] == ["paywall.published"] and second["enabled"] is False and second["secret"] != secret

    # Never again: not in the list, not in the endpoint, not under any name.
    listing = app.dashboard.get("/v1/webhooks")
    assert listing.status_code == 200, listing.text
    items = listed(listing.json())
    assert {e["id"] for e in items} == {wid, second["id"]}
    one = app.dashboard.get(f"/v1/webhooks/{wid}")
    assert one.status_code == 200, one.text
    for text, body in ((listing.text, listing.json()), (one.text, one.json())):
        assert secret not in text and second["secret"] not in text and "whsec_" not in text
        assert "secret" not in member_names(body)
    got = one.json()
    assert got["url"] == receiver.url("/a") and got["eventTypes"] == ["*"] and got["enabled"] is True
    assert got["description"] == "CDN purge"

    # PATCH changes what it names and keeps the rest.
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{wid}", json_body={"url": receiver.url("/c"), "description": "Chat"})
    assert r.status_code == 200, r.text
    assert r.json()["url"] == receiver.url("/c") and r.json()["description"] == "Chat" and r.json()["enabled"] is True
    assert "whsec_" not in r.text
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{wid}", json_body={"eventTypes": ["key.created", "key.revoked"]})
    assert r.status_code == 200 and sorted(r.json()["eventTypes"]) == ["key.created", "key.revoked"], r.text  # a set
    assert app.dashboard.get(f"/v1/webhooks/{wid}").json()["url"] == receiver.url("/c")

    # The changed URL is where deliveries go, still signed with the one secret.
    created_key = app.dashboard.post("/v1/keys", {"kind": "public"})
    assert created_key.status_code == 201
    arrived = receiver.wait_for_events(1)[0]
    assert arrived.path == "/c" and check_request(arrived, secret, app)["type"] == "key.created"

    # Another app sees none of it.
    other = App(app.server, create_app(app.server.base, "Other"))
    assert listed(other.dashboard.get("/v1/webhooks").json()) == []
    for method, path in (("GET", f"/v1/webhooks/{wid}"), ("PATCH", f"/v1/webhooks/{wid}"), ("DELETE", f"/v1/webhooks/{wid}"),
                         ("GET", f"/v1/webhooks/{wid}/deliveries"), ("POST", f"/v1/webhooks/{wid}/test"),
                         ("POST", f"/v1/webhooks/{wid}/rotate-secret")):
        r = other.dashboard.request(method, path, json_body={"enabled": False} if method == "PATCH" else None)
        problem(r, 404)
        assert receiver.url("/c") not in r.text and "CDN" not in r.text

    # DELETE removes the endpoint and its log.
    assert len(deliveries(app, wid)) == 1
    gone = app.dashboard.delete(f"/v1/webhooks/{wid}")
    assert gone.status_code in (200, 204), gone.text
    problem(app.dashboard.get(f"/v1/webhooks/{wid}"), 404)
    problem(app.dashboard.get(f"/v1/webhooks/{wid}/deliveries"), 404)
    problem(app.dashboard.delete(f"/v1/webhooks/{wid}"), 404)
    assert [e["id"] for e in listed(app.dashboard.get("/v1/webhooks").json())] == [second["id"]]


def test_at_most_max_endpoints_per_app(start_server, receiver):
    server = start_server(XIZOR_WEBHOOKS_MAX_ENDPOINTS_PER_APP="2")
    app = App(server, create_app(server.base))
    create_endpoint(app, receiver.url("/1"))
    create_endpoint(app, receiver.url("/2"))
    r = app.dashboard.post("/v1/webhooks", {"url": receiver.url("/3")})
    assert r.status_code in (409, 422), r.text
    problem(r, r.status_code)
    assert len(listed(app.dashboard.get("/v1/webhooks").json())) == 2
    other = App(server, create_app(server.base, "Other"))   # per app
    create_endpoint(other, receiver.url("/4"))


def test_invalid_endpoints_are_problems_with_paths(hooks):
    app = hooks
    url = "https://hooks.example.com/xizor"
    cases = [
        ({}, "$.url"),
        ({"url": 5}, "$.url"),
        ({"url": ""}, "$.url"),
        ({"url": "not a url"}, "$.url"),
        ({"url": "ftp://hooks.example.com/x"}, "$.url"),
        ({"url": "javascript:alert(1)"}, "$.url"),
        ({"url": "https://user:password@hooks.example.com/x"}, "$.url"),
        ({"url": "https://user@hooks.example.com/x"}, "$.url"),
        ({"url": "https://" + "a" * 2100 + ".example.com/"}, "$.url"),
        ({"url": url, "eventTypes": ["paywall.nope"]}, "$.eventTypes[0]"),
        ({"url": url, "eventTypes": ["paywall.published", "nope"]}, "$.eventTypes[1]"),
        ({"url": url, "eventTypes": [5]}, "$.eventTypes[0]"),
        ({"url": url, "eventTypes": "paywall.published"}, "$.eventTypes"),
        ({"url": url, "enabled": "yes"}, "$.enabled"),
        ({"url": url, "description": 5}, "$.description"),
        ({"url": url, "description": "x" * 201}, "$.description"),
    ]
    for body, path in cases:
        r = app.dashboard.post("/v1/webhooks", body)
        got = problem(r, 422)
        assert [e["path"] for e in got["errors"]][:1] == [path], (body, got)
    assert listed(app.dashboard.get("/v1/webhooks").json()) == []

    ok = create_endpoint(app, url, eventTypes=["paywall.published", "key.created"])
    for body, path in (({"url": "not a url"}, "$.url"), ({"eventTypes": ["paywall.nope"]}, "$.eventTypes[0]"),
                       ({"enabled": 1}, "$.enabled")):
        got = problem(app.dashboard.request("PATCH", f"/v1/webhooks/{ok['id']}", json_body=body), 422)
        assert got["errors"][0]["path"] == path, (body, got)
    # Nothing of the refused changes was written.
    after = app.dashboard.get(f"/v1/webhooks/{ok['id']}").json()
    assert after["url"] == url and sorted(after["eventTypes"]) == ["key.created", "paywall.published"] and after["enabled"] is True
    problem(app.dashboard.request("PATCH", "/v1/webhooks/wh_doesnotexist", json_body={"enabled": False}), 404)


def private_target_code(r):
    """422 private_webhook_target, as the problem's code or its error's (the doc names the code only)."""
    body = problem(r, 422)
    codes = {body.get("code")} | {e.get("code") for e in body.get("errors", [])}
    assert "private_webhook_target" in codes, body
    if body.get("errors"):
        assert body["errors"][0]["path"] == "$.url", body
    return body


def test_private_targets_are_refused_without_the_setting(start_server, receiver):
    server = start_server(private=False, XIZOR_WEBHOOKS_RETRY_FOR_MS="1500")
    app = App(server, create_app(server.base))
    port = receiver.port
    for url in (f"http://127.0.0.1:{port}/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/",
                f"http://[::1]:{port}/", "http://10.0.0.7/", "http://172.16.5.4/", "http://192.168.1.1/",
                "http://100.64.0.1/", "http://0.0.0.0/", "http://[fe80::1]/", "http://[fc00::1]/",
                "http://224.0.0.1/", "http://[::]/", f"http://[::ffff:127.0.0.1]:{port}/", "http://[::ffff:169.254.169.254]/"):
        private_target_code(app.dashboard.post("/v1/webhooks", {"url": url}))
    assert listed(app.dashboard.get("/v1/webhooks").json()) == []
    # A public address and a host name are accepted when written.
    public = create_endpoint(app, "https://93.184.216.34/hook")
    private_target_code(app.dashboard.request("PATCH", f"/v1/webhooks/{public['id']}", json_body={"url": f"http://127.0.0.1:{port}/"}))
    assert app.dashboard.get(f"/v1/webhooks/{public['id']}").json()["url"] == "https://93.184.216.34/hook"
    assert app.dashboard.delete(f"/v1/webhooks/{public['id']}").status_code in (200, 204)

    # A host name is checked against the address it resolved to, at every connection: a name that
    # resolves to loopback (but is not `localhost`, refused when written) is accepted, and its
    # delivery fails with private_address without reaching the receiver.
    local = create_endpoint(app, receiver.url("/local", host=loopback_name()))
    delivery = send_test(app, local["id"])
    log = wait_log(app, local["id"], lambda log: log and log[0]["state"] == "failed", what="the delivery to give up")
    assert log[0]["id"] == delivery["id"] and log[0]["attempts"] >= 1, log
    assert "private_address" in json.dumps(log[0]), log
    assert "Refused to connect to 127.0.0.1:" in json.dumps(log[0]), log  # the address, as inet_ntop wrote it
    assert receiver.all() == [] and receiver.tls_failures == 0


def loopback_name():
    """A host name other than `localhost` that this machine resolves to loopback only (its own name,
    or Debian's ip6-localhost), for the check made at connection time."""
    import socket
    for name in (socket.gethostname(), "ip6-localhost", "ip6-loopback"):
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(name, 80, proto=socket.IPPROTO_TCP)}
        except OSError:
            continue
        if addresses and name.rstrip(".").lower() != "localhost" and not name.lower().endswith(".localhost") \
                and all(a.startswith("127.") or a == "::1" for a in addresses):
            return name
    raise AssertionError("no host name resolves to loopback here: the connect-time check cannot be tested")


def test_addresses_spelled_otherwise_are_refused_when_written(start_server, receiver):
    """Every spelling inet_aton (and so the resolver) reads as an internal address, IPv6 forms with
    one inside, and localhost and names under it: 422 private_webhook_target at $.url when created or
    changed, never stored, never sent."""
    server = start_server(private=False)
    app = App(server, create_app(server.base))
    port = receiver.port
    spellings = ("127.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.1.", "0", "017700000001",
                 "0xa9.254.0251.0376", "10.1", "LOCALHOST", "localhost.", "foo.localhost", "Api.Foo.LocalHost.",
                 "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "[::ffff:a9fe:a9fe]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]",
                 "[0000:0000::0001]")
    for host in spellings:
        private_target_code(app.dashboard.post("/v1/webhooks", {"url": f"http://{host}:{port}/{host}"}))
    assert listed(app.dashboard.get("/v1/webhooks").json()) == []
    public = create_endpoint(app, "https://93.184.216.34/hook")
    for host in spellings:
        private_target_code(app.dashboard.request("PATCH", f"/v1/webhooks/{public['id']}", json_body={"url": f"http://{host}:{port}/"}))
    assert app.dashboard.get(f"/v1/webhooks/{public['id']}").json()["url"] == "https://93.184.216.34/hook"
    # Not an address, not a name: refused as a URL rather than left to a resolver.
    for host in ("256.1.1.1", "1.2.3.4.5", "0x100000000", "[::1%25lo]"):
        got = problem(app.dashboard.post("/v1/webhooks", {"url": f"http://{host}/"}), 422, None)
        assert got["errors"][0]["path"] == "$.url" and got["errors"][0]["code"] == "invalid_url", (host, got)
    assert receiver.all() == [], receiver.all()


def test_urls_are_stored_canonical_and_delivered_to(hooks, receiver):
    """With webhooks.allowPrivateTargets (as these tests run) the spellings are accepted, stored as
    the one canonical URL, and that is where deliveries go."""
    app = hooks
    port = receiver.port
    for written, stored in ((f"HTTP://0x7F.1:{port}/Canonical?x=1", f"http://127.0.0.1:{port}/Canonical?x=1"),
                            (f"http://2130706433:{port}/n", f"http://127.0.0.1:{port}/n"),
                            (f"http://[0:0::ffff:127.0.0.1]:{port}/v6", f"http://[::ffff:127.0.0.1]:{port}/v6"),
                            (f"http://LocalHost.:{port}/name", f"http://localhost:{port}/name")):
        r = app.dashboard.post("/v1/webhooks", {"url": written, "eventTypes": ["key.created"]})
        assert r.status_code == 201 and r.json()["url"] == stored, (written, r.text)
        assert app.dashboard.get(f"/v1/webhooks/{r.json()['id']}").json()["url"] == stored
    first = listed(app.dashboard.get("/v1/webhooks").json())[0]
    send_test(app, first["id"])
    arrived = receiver.wait_for_events(1)[0]
    assert arrived.path == "/Canonical?x=1", arrived


# --- one event per change -----------------------------------------------------------------------------

def test_every_change_announces_itself_once_with_its_actor(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url())
    wid, secret = endpoint["id"], endpoint["secret"]
    key_id = secret_key_id(app)
    d = app.dashboard
    expected = []  # (type, data that must be in the event's data, the request id)

    def act(method, path, body=None, status=(200, 201, 204), announces=None, data=None):
        request_id = rid()
        r = d.request(method, path, json_body=body, headers={"X-Request-Id": request_id})
        assert r.status_code in status, (method, path, r.status_code, r.text)
        if announces:
            expected.append((announces, data or {}, request_id))
        return r.json() if r.content else None

    a = app.create_paywall("clean")
    b = app.create_paywall("cinematic")
    c = app.create_paywall("clean")
    act("POST", f"/v1/paywalls/{a}/publish", {"note": "Summer prices"}, announces="paywall.published",
        data={"paywallId": a, "version": 1, "note": "Summer prices"})
    assert d.request("PATCH", f"/v1/paywalls/{a}", json_body={"name": "Summer sale"}).status_code == 200   # announces nothing
    act("POST", f"/v1/paywalls/{a}/publish", announces="paywall.published", data={"paywallId": a, "version": 2})
    act("POST", f"/v1/paywalls/{a}/rollback", {"version": 1, "note": "undo"}, announces="paywall.rolled_back",
        data={"paywallId": a, "version": 3, "rolledBackFrom": 1, "note": "undo"})
    act("POST", f"/v1/paywalls/{b}/publish", {"force": True}, announces="paywall.published", data={"paywallId": b, "version": 1})
    act("PUT", "/v1/placements/onboarding", {"paywallId": a}, announces="placement.updated",
        data={"placementKey": "onboarding", "deleted": False})
    act("PUT", "/v1/placements/onboarding/rules", {"rules": [{"when": {"key": "wasReferred", "op": "eq", "value": True}, "paywallId": b}]},
        announces="placement.updated", data={"placementKey": "onboarding", "deleted": False})
    exp = act("POST", "/v1/experiments", {"name": "Price test", "variants": [{"paywallId": a, "weight": 50},
                                                                            {"paywallId": b, "weight": 50, "name": "challenger"}]})
    e = exp["id"]
    act("POST", f"/v1/experiments/{e}/start", announces="experiment.started", data={"experimentId": e, "status": "running"})
    act("PUT", f"/v1/experiments/{e}/weights", {"weights": [70, 30]}, announces="experiment.reweighted",
        data={"experimentId": e, "status": "running"})
    act("POST", f"/v1/experiments/{e}/stop", announces="experiment.stopped", data={"experimentId": e, "status": "stopped"})
    e2 = act("POST", "/v1/experiments", {"variants": [{"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1, "name": "challenger"}]})["id"]
    act("POST", f"/v1/experiments/{e2}/start", announces="experiment.started", data={"experimentId": e2, "status": "running"})
    act("POST", f"/v1/experiments/{e2}/promote", {"variant": "challenger"}, announces="experiment.promoted",
        data={"experimentId": e2, "status": "stopped"})
    created = act("POST", "/v1/keys", {"kind": "public", "label": "Android"}, announces="key.created")
    expected[-1] = ("key.created", {"keyId": created["id"], "kind": "public"}, expected[-1][2])
    secret_created = act("POST", "/v1/keys", {"kind": "secret"}, announces="key.created")
    expected[-1] = ("key.created", {"keyId": secret_created["id"], "kind": "secret"}, expected[-1][2])
    act("DELETE", f"/v1/keys/{created['id']}", announces="key.revoked", data={"keyId": created["id"], "kind": "public"})
    act("DELETE", "/v1/placements/onboarding", announces="placement.updated", data={"placementKey": "onboarding", "deleted": True})
    act("DELETE", f"/v1/paywalls/{c}", announces="paywall.archived", data={"paywallId": c})
    act("POST", f"/v1/paywalls/{c}/unarchive", announces="paywall.unarchived", data={"paywallId": c})
    act("POST", f"/v1/paywalls/{c}/unarchive")   # already live: announces nothing
    # Writes that announce nothing: a draft edit, a paywall created, an experiment created (above), an endpoint.
    draft, etag = app.draft(a)
    assert app.save_draft(a, draft["document"], etag).status_code == 200
    create_endpoint(app, "https://hooks.example.com/unused", enabled=False)
    # The marker: sent by the test call, after every change above in this endpoint's order.
    request_id = rid()
    r = d.post(f"/v1/webhooks/{wid}/test", headers={"X-Request-Id": request_id})
    assert r.status_code == 202, r.text
    expected.append(("webhook.test", {}, request_id))

    arrived = receiver.wait_for_events(len(expected), timeout=20)
    assert all(r.ok for r in receiver.all()), receiver.all()   # (sent once each: test_an_answered_delivery_is_not_sent_again)
    events = [check_request(rec, secret, app) for rec in arrived]
    assert [ev["type"] for ev in events] == [t for t, _, _ in expected]
    assert len({ev["id"] for ev in events}) == len(events)
    for ev, (kind, data, request_id) in zip(events, expected):
        for name, value in data.items():
            assert ev["data"].get(name) == value, (kind, name, ev)
        assert ev["actor"] == {"kind": "secret", "keyId": key_id, "via": "rest"}, ev
        assert ev.get("requestId") == request_id, ev
    by_type = {ev["type"]: ev for ev in events}
    assert "weights" in by_type["experiment.reweighted"]["data"], by_type["experiment.reweighted"]
    assert "promoted" in by_type["experiment.promoted"]["data"], by_type["experiment.promoted"]
    assert events[1]["data"].get("note") is None  # no note given

    # The delivery log: newest first, one delivered row per event, ids as the headers said.
    log = wait_log(app, wid, lambda log: all(row["state"] == "delivered" for row in log))
    assert [row["eventId"] for row in reversed(log)] == [ev["id"] for ev in events]
    assert [row["id"] for row in reversed(log)] == [rec.header("Xizor-Delivery-Id") for rec in arrived]
    assert all(row["lastStatus"] == 200 and row["finishedAt"] for row in log), log
    assert r.json()["id"] == arrived[-1].header("Xizor-Delivery-Id")


def test_an_answered_delivery_is_not_sent_again(start_server, receiver):
    """At least once means again only when an answer was lost: a delivery answered 200 at once is one
    attempt, one request. Rounds of quick changes to four endpoints with 32 delivery threads, so that
    threads look at the outbox at the same moments; rounds go on for some seconds or until a delivery
    arrives twice."""
    server = start_server(XIZOR_WEBHOOKS_WORKERS="32")
    app = App(server, create_app(server.base))
    endpoints = [create_endpoint(app, receiver.url(f"/{i}")) for i in range(4)]
    pw = app.create_paywall()
    deadline, published = time.monotonic() + 9, 0
    while True:
        for _ in range(25):
            app.publish(pw)
        published += 25
        receiver.wait_until(lambda rs: len({(r.path, r.header("Xizor-Event-Id")) for r in rs if r.ok}) >= 4 * published, 20,
                            f"every endpoint's {published} deliveries")
        repeated = len(receiver.all()) - 4 * published
        if repeated or time.monotonic() > deadline:
            break
    assert all(r.ok for r in receiver.all())
    assert repeated == 0, f"{repeated} of {4 * published} deliveries answered 200 were sent again"
    for endpoint in endpoints:
        log = wait_log(app, endpoint["id"], lambda log: all(row["state"] == "delivered" for row in log))
        assert len(log) == published and all(row["attempts"] == 1 for row in log), [row for row in log if row["attempts"] != 1][:3]


def test_an_agents_change_is_announced_as_made_through_mcp(hooks, receiver):
    from test_mcp import mcp_session

    app = hooks
    endpoint = create_endpoint(app, receiver.url(), eventTypes=["paywall.published"])
    pw = app.create_paywall("clean")

    async def flow():
        async with mcp_session(app.server, app.secret_key) as s:
            published = await s.call_tool("publish_paywall", {"paywallId": pw, "note": "by an agent"})
            assert not published.is_error, published
    asyncio.run(asyncio.wait_for(flow(), timeout=60))
    [rec] = receiver.wait_for_events(1)
    event = check_request(rec, endpoint["secret"], app)
    assert event["type"] == "paywall.published" and event["data"]["paywallId"] == pw and event["data"]["note"] == "by an agent"
    assert event["actor"] == {"kind": "secret", "keyId": secret_key_id(app), "via": "mcp"}, event


def test_a_test_event_is_signed_and_a_wrong_secret_or_body_fails_verification(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url("/hooks/xizor?source=test"))
    delivery = send_test(app, endpoint["id"])
    [rec] = receiver.wait_for_events(1)
    assert rec.path == "/hooks/xizor?source=test"
    event = check_request(rec, endpoint["secret"], app)
    assert event["type"] == "webhook.test"
    assert rec.header("Xizor-Delivery-Id") == delivery["id"]
    if "eventId" in delivery:
        assert delivery["eventId"] == event["id"]
    # The verifier is not a yes-machine on a real delivery.
    header = rec.header("Xizor-Signature")
    assert not verify("whsec_" + "A" * 32, header, rec.body)
    assert not verify(endpoint["secret"] + "x", header, rec.body)
    assert not verify(endpoint["secret"], header, rec.body.replace(b"webhook.test", b"webhook.tesT"))
    reserialized = json.dumps(json.loads(rec.body), indent=2).encode()
    assert reserialized != rec.body and not verify(endpoint["secret"], header, reserialized)  # the raw body counts
    assert not verify(endpoint["secret"], header, rec.body, now=rec.at + TOLERANCE_S + 5)
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["id"] == delivery["id"] and row["attempts"] >= 1 and row["lastStatus"] == 200 and row["lastError"] is None, row


def test_https_endpoints_are_verified_against_the_ca_file(start_server, https_receiver):
    server = start_server()
    app = App(server, create_app(server.base))
    for host in ("127.0.0.1", "localhost"):
        endpoint = create_endpoint(app, https_receiver.url(f"/tls-{host}", host=host))
        send_test(app, endpoint["id"])
        rec = https_receiver.wait_for_events(1 if host == "127.0.0.1" else 2)[-1]
        assert rec.path == f"/tls-{host}"
        assert check_request(rec, endpoint["secret"], app)["type"] == "webhook.test"

    # A server that does not trust the private CA does not send a byte of the body.
    untrusting = start_server(ca=False, XIZOR_WEBHOOKS_RETRY_FOR_MS="1000")
    other = App(untrusting, create_app(untrusting.base))
    endpoint = create_endpoint(other, https_receiver.url("/untrusted"))
    before = len(https_receiver.all())
    send_test(other, endpoint["id"])
    [row] = wait_log(other, endpoint["id"], lambda log: log and log[0]["state"] == "failed", what="the untrusted delivery to give up")
    assert row["attempts"] >= 1 and row.get("lastError"), row
    assert len(https_receiver.all()) == before and https_receiver.tls_failures >= 1


def test_a_disabled_endpoint_gets_nothing_until_enabled(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url())
    wid = endpoint["id"]
    pw = app.create_paywall()
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{wid}", json_body={"enabled": False})
    assert r.status_code == 200 and r.json()["enabled"] is False, r.text
    app.publish(pw)                                                           # while disabled
    assert app.dashboard.post("/v1/keys", {"kind": "public"}).status_code == 201
    assert deliveries(app, wid) == []                                          # no outbox row was written
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{wid}", json_body={"enabled": True})
    assert r.status_code == 200 and r.json()["enabled"] is True
    second = app.publish(pw)                                                   # enabled again
    [rec] = receiver.wait_for_events(1)
    event = check_request(rec, endpoint["secret"], app)
    assert event["type"] == "paywall.published" and event["data"]["version"] == second["version"] == 2
    assert len(deliveries(app, wid)) == 1 and {r.header("Xizor-Event-Id") for r in receiver.all()} == {event["id"]}


def test_an_endpoint_gets_only_the_types_it_subscribes_to(hooks, receiver, second_receiver):
    app = hooks
    published_only = create_endpoint(app, receiver.url(), eventTypes=["paywall.published"])
    everything = create_endpoint(app, second_receiver.url())
    pw = app.create_paywall()
    key = app.dashboard.post("/v1/keys", {"kind": "public"}).json()
    assert app.dashboard.delete(f"/v1/keys/{key['id']}").status_code == 204
    app.publish(pw)
    assert app.dashboard.put("/v1/placements/onboarding", {"paywallId": pw}).status_code == 200
    app.publish(pw)
    # The subscribed endpoint's second publish is the marker for everything before it.
    got = receiver.wait_for_events(2)
    assert [check_request(r, published_only["secret"], app)["type"] for r in got] == ["paywall.published"] * 2
    assert [row["eventType"] for row in deliveries(app, published_only["id"])] == ["paywall.published"] * 2
    every = second_receiver.wait_for_events(5)
    assert [check_request(r, everything["secret"], app)["type"] for r in every] == [
        "key.created", "key.revoked", "paywall.published", "placement.updated", "paywall.published"]
    # The same event has the same id on every endpoint.
    assert [r.header("Xizor-Event-Id") for r in got] == [every[2].header("Xizor-Event-Id"), every[4].header("Xizor-Event-Id")]

    # Changing the subscription changes what later changes send.
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{published_only['id']}", json_body={"eventTypes": ["key.created"]})
    assert r.status_code == 200 and r.json()["eventTypes"] == ["key.created"], r.text
    app.publish(pw)
    key = app.dashboard.post("/v1/keys", {"kind": "public"}).json()
    got = receiver.wait_for_events(3)
    assert check_request(got[2], published_only["secret"], app)["data"]["keyId"] == key["id"]
    assert len(receiver.events()) == 3 and len(deliveries(app, published_only["id"])) == 3


def test_rotating_the_secret_signs_later_deliveries_with_the_new_one_only(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url())
    old = endpoint["secret"]
    send_test(app, endpoint["id"])
    [first] = receiver.wait_for_events(1)
    assert verify(old, first.header("Xizor-Signature"), first.body)

    r = app.dashboard.post(f"/v1/webhooks/{endpoint['id']}/rotate-secret")
    assert r.status_code in (200, 201), r.text
    new = r.json()["secret"]
    assert new.startswith("whsec_") and new != old
    shown = app.dashboard.get(f"/v1/webhooks/{endpoint['id']}").text + app.dashboard.get("/v1/webhooks").text
    assert new not in shown and old not in shown and "whsec_" not in shown

    send_test(app, endpoint["id"])
    app.publish(app.create_paywall())
    later = receiver.wait_for_events(3)[1:]
    for rec in later:
        check_request(rec, new, app)
        assert not verify(old, rec.header("Xizor-Signature"), rec.body), "still signed with the old secret"
        assert [k for k, _ in (p.split("=", 1) for p in rec.header("Xizor-Signature").split(","))].count("v1") >= 1
    # Rotating again: the secret before is retired too.
    newer = app.dashboard.post(f"/v1/webhooks/{endpoint['id']}/rotate-secret").json()["secret"]
    assert newer not in (old, new)
    send_test(app, endpoint["id"])
    last = receiver.wait_for_events(4)[-1]
    check_request(last, newer, app)
    assert not verify(new, last.header("Xizor-Signature"), last.body) and not verify(old, last.header("Xizor-Signature"), last.body)


def test_a_delivery_waiting_for_its_retry_is_signed_with_the_new_secret(one_thread, receiver):
    app = one_thread
    endpoint = create_endpoint(app, receiver.url())
    receiver.fail_always()
    send_test(app, endpoint["id"])
    receiver.wait_until(lambda rs: len(rs) >= 1, DELIVERY_S, "a failed attempt")
    r = app.dashboard.post(f"/v1/webhooks/{endpoint['id']}/rotate-secret")
    assert r.status_code in (200, 201), r.text
    new = r.json()["secret"]
    rotated = len(receiver.all())
    # The first attempt to arrive after the rotation may have started before it; the next one cannot.
    after = receiver.wait_until(lambda rs: len(rs) >= rotated + 2, DELIVERY_S, "two more attempts")[rotated + 1]
    receiver.recover()
    done = receiver.wait_for_events(1)[0]
    for rec in (after, done):
        assert verify(new, rec.header("Xizor-Signature"), rec.body), rec
        assert not verify(endpoint["secret"], rec.header("Xizor-Signature"), rec.body), "the old secret still signs"
    assert len({rec.header("Xizor-Event-Id") for rec in receiver.all()}) == 1


# --- retries -----------------------------------------------------------------------------------------

def test_failed_attempts_are_retried_with_the_same_event_until_delivered(one_thread, receiver):
    app = one_thread
    endpoint = create_endpoint(app, receiver.url())
    receiver.fail_next(3)
    pw = app.create_paywall()
    app.publish(pw)
    receiver.wait_for_successes(1)
    attempts = receiver.all()
    assert [r.status for r in attempts] == [500, 500, 500, 200]
    # Backing off: the n-th retry waits retryBaseMs × 2^(n−1) (200, 400, 800 ms) at least (ms clocks: 20 ms slack).
    waits = [later.at - earlier.at for earlier, later in zip(attempts, attempts[1:])]
    assert all(w >= 0.2 * 2 ** n - 0.02 for n, w in enumerate(waits)), waits
    assert len({r.header("Xizor-Event-Id") for r in attempts}) == 1
    assert len({r.header("Xizor-Delivery-Id") for r in attempts}) == 1
    assert len({r.body for r in attempts}) == 1, "every attempt sends the same event"
    for r in attempts:
        check_request(r, endpoint["secret"], app)   # each attempt signed (its own t)
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["attempts"] == 4 and row["lastStatus"] == 200 and row["eventId"] == attempts[0].header("Xizor-Event-Id"), row
    assert row.get("finishedAt"), row


def test_an_answer_after_the_timeout_is_a_failure_and_the_event_is_sent_again(one_thread, receiver):
    app = one_thread
    endpoint = create_endpoint(app, receiver.url())
    receiver.hang_seconds = 4.0   # past webhooks.timeoutMs (2 s)
    receiver.fail_next(1, mode=HANG)
    send_test(app, endpoint["id"])
    receiver.wait_for_successes(1)
    attempts = receiver.all()
    assert [r.status for r in attempts] == [None, 200], attempts
    assert attempts[0].header("Xizor-Event-Id") == attempts[1].header("Xizor-Event-Id")
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["attempts"] == 2, row


def test_redirects_are_not_followed(one_thread, receiver, second_receiver):
    app = one_thread
    endpoint = create_endpoint(app, receiver.url())
    receiver.redirect_to = second_receiver.url("/elsewhere")
    receiver.fail_next(2, mode=REDIRECT)
    send_test(app, endpoint["id"])
    receiver.wait_for_successes(1)
    assert [r.status for r in receiver.all()] == [307, 307, 200]
    assert second_receiver.all() == []
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["attempts"] == 3, row


def test_a_delivery_that_gave_up_can_be_retried_by_hand(start_server, receiver):
    server = start_server(XIZOR_WEBHOOKS_RETRY_FOR_MS="1500", XIZOR_WEBHOOKS_WORKERS="1")   # exact counts: see one_thread
    app = App(server, create_app(server.base))
    endpoint = create_endpoint(app, receiver.url())
    receiver.fail_always()
    delivery = send_test(app, endpoint["id"])
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "failed", what="the delivery to give up")
    assert row["id"] == delivery["id"] and row["lastStatus"] == 500 and row["attempts"] >= 2 and row.get("finishedAt"), row
    failed_attempts = len(receiver.all())
    assert failed_attempts == row["attempts"]
    assert deliveries(app, endpoint["id"], state="failed")[0]["id"] == delivery["id"]
    assert deliveries(app, endpoint["id"], state="pending") == []

    receiver.recover()
    r = app.dashboard.post(f"/v1/webhooks/{endpoint['id']}/deliveries/{delivery['id']}/retry")
    assert r.status_code in (200, 202), r.text
    assert r.json()["id"] == delivery["id"] and r.json()["state"] == "pending", r.json()
    receiver.wait_for_successes(1)
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["id"] == delivery["id"] and row["lastStatus"] == 200 and row["attempts"] == failed_attempts + 1, row
    assert len({r.header("Xizor-Event-Id") for r in receiver.all()}) == 1
    problem(app.dashboard.post(f"/v1/webhooks/{endpoint['id']}/deliveries/whd_doesnotexist/retry"), 404)


# --- order -------------------------------------------------------------------------------------------

def test_an_endpoints_deliveries_keep_commit_order_and_other_endpoints_do_not_wait(hooks, receiver, second_receiver):
    app = hooks
    good = create_endpoint(app, receiver.url())
    stuck = create_endpoint(app, second_receiver.url())
    second_receiver.fail_always()
    receiver.fail_next(3)
    pw = app.create_paywall()
    done = []   # what we did, in the order the server acknowledged it
    for i in range(10):
        if i % 2 == 0:
            done.append(("paywall.published", app.publish(pw)["version"]))
        else:
            r = app.dashboard.post("/v1/keys", {"kind": "public", "label": f"k{i}"})
            assert r.status_code == 201, r.text
            done.append(("key.created", r.json()["id"]))
    arrived = receiver.wait_for_events(10, timeout=20)
    events = [check_request(r, good["secret"], app) for r in arrived]
    assert [(e["type"], e["data"]["version"] if e["type"] == "paywall.published" else e["data"]["keyId"]) for e in events] == done
    assert [r.status for r in receiver.all()][:4] == [500, 500, 500, 200]
    log = whole_log(app, good["id"])
    assert [row["eventId"] for row in reversed(log)] == [e["id"] for e in events]

    # The stuck endpoint holds the same events, the first one being retried and the rest waiting behind it.
    stuck_log = whole_log(app, stuck["id"])
    assert [row["eventId"] for row in reversed(stuck_log)] == [e["id"] for e in events]
    assert all(row["state"] == "pending" for row in stuck_log), stuck_log
    assert stuck_log[-1]["attempts"] >= 1 and all(row["attempts"] == 0 for row in stuck_log[:-1]), stuck_log
    assert {r.header("Xizor-Event-Id") for r in second_receiver.all()} == {events[0]["id"]}


def test_a_change_that_rolled_back_sends_nothing(start_server, receiver):
    server = start_server(XIZOR_KEYS_MAX_PER_APP="3")
    app = App(server, create_app(server.base))
    from test_dashboard_api import STRICT_ONLY_INVALID
    a, b, c = app.create_paywall(), app.create_paywall("cinematic"), app.create_paywall()
    app.publish(a)
    app.publish(b)
    exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1}]}).json()
    invalid = app.dashboard.post("/v1/paywalls", {"document": STRICT_ONLY_INVALID}).json()["id"]
    endpoint = create_endpoint(app, receiver.url())
    wid = endpoint["id"]

    problem(app.dashboard.post(f"/v1/paywalls/{invalid}/publish"), 422, "validation_failed")
    problem(app.dashboard.post(f"/v1/paywalls/{a}/rollback", {"version": 7}), 404, "version_not_found")
    assert app.dashboard.post(f"/v1/experiments/{exp['id']}/start").status_code == 200          # experiment.started
    problem(app.dashboard.post(f"/v1/experiments/{exp['id']}/start"), 409)
    assert app.dashboard.delete(f"/v1/paywalls/{c}").status_code == 200                          # paywall.archived
    problem(app.dashboard.post(f"/v1/paywalls/{c}/publish", {"force": True}), 409, "paywall_archived")
    assert app.dashboard.post("/v1/keys", {"kind": "public"}).status_code == 201                 # key.created (3 of 3)
    problem(app.dashboard.post("/v1/keys", {"kind": "public"}), 409, "key_limit_reached")
    unknown = app.dashboard.put("/v1/placements/onboarding", {"paywallId": "pw_doesnotexist"})
    assert unknown.status_code in (404, 422), unknown.text
    bad_rules = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [{"when": {"key": "x", "op": "nope"}, "paywallId": a}]})
    problem(bad_rules, bad_rules.status_code)
    assert bad_rules.status_code in (404, 422), bad_rules.text
    # The delivery log is written with each change: it is complete now, no waiting needed.
    log = whole_log(app, wid)
    expected = ["experiment.started", "paywall.archived", "key.created"]
    assert [row["eventType"] for row in reversed(log)] == expected, log
    send_test(app, wid)
    arrived = receiver.wait_for_events(4)
    assert [check_request(r, endpoint["secret"], app)["type"] for r in arrived] == expected + ["webhook.test"]
    assert len(receiver.events()) == 4 and len(deliveries(app, wid)) == 4


# --- durability ---------------------------------------------------------------------------------------

def test_no_delivery_is_lost_when_the_server_is_killed(start_server, receiver, tmp_path):
    data = tmp_path / "killed"
    first = start_server(data_dir=data)
    app = App(first, create_app(first.base))
    endpoint = create_endpoint(app, receiver.url())
    receiver.stop()                                   # connections refused from now on
    pw = app.create_paywall()
    versions = [app.publish(pw)["version"] for _ in range(5)]
    assert versions == [1, 2, 3, 4, 5]
    log = wait_log(app, endpoint["id"], lambda log: len(log) == 5 and log[-1]["attempts"] >= 1,
                   what="a refused first attempt")
    assert all(row["state"] == "pending" for row in log), log
    kill(first)

    receiver.start()                                  # the same port
    second = start_server(data_dir=data)
    app.dashboard = Client(second.base, app.secret_key)
    receiver.wait_for_events(5, timeout=12)
    arrived = receiver.successes()
    ids = first_occurrences(arrived)
    assert len(ids) == 5
    events = {r.header("Xizor-Event-Id"): check_request(r, endpoint["secret"], app) for r in arrived}
    assert [events[i]["data"]["version"] for i in ids] == versions   # at least once, first arrivals in commit order
    log = wait_log(app, endpoint["id"], lambda log: all(row["state"] == "delivered" for row in log))
    assert [row["eventId"] for row in reversed(log)] == ids


def test_a_delivery_cut_by_a_kill_is_sent_again(start_server, receiver, tmp_path):
    data = tmp_path / "cut"
    first = start_server(data_dir=data)
    app = App(first, create_app(first.base))
    endpoint = create_endpoint(app, receiver.url())
    receiver.hang_seconds = 30
    receiver.fail_next(1, mode=HANG)
    delivery = send_test(app, endpoint["id"])
    receiver.wait_until(lambda rs: len(rs) == 1, DELIVERY_S, "the attempt in flight")
    kill(first)                                       # its answer is never read
    second = start_server(data_dir=data)
    app.dashboard = Client(second.base, app.secret_key)
    again = receiver.wait_for_events(1, timeout=12)[0]
    in_flight = receiver.all()[0]
    assert again.header("Xizor-Event-Id") == in_flight.header("Xizor-Event-Id")
    assert again.header("Xizor-Delivery-Id") == in_flight.header("Xizor-Delivery-Id") == delivery["id"]
    check_request(again, endpoint["secret"], app)
    [row] = wait_log(app, endpoint["id"], lambda log: log and log[0]["state"] == "delivered")
    assert row["attempts"] >= 2, row


# --- the log, the test call, deletion, scopes -------------------------------------------------------

def test_the_delivery_log_pages_newest_first_and_filters_by_state(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url())
    sent = [send_test(app, endpoint["id"])["id"] for _ in range(3)]
    receiver.wait_for_events(3)
    wait_log(app, endpoint["id"], lambda log: all(row["state"] == "delivered" for row in log))
    page = app.dashboard.get(f"/v1/webhooks/{endpoint['id']}/deliveries", params={"limit": 2})
    assert page.status_code == 200, page.text
    assert [row["id"] for row in listed(page.json())] == sent[:0:-1]
    cursor = page.json()["nextCursor"]
    assert cursor
    rest = app.dashboard.get(f"/v1/webhooks/{endpoint['id']}/deliveries", params={"limit": 2, "cursor": cursor}).json()
    assert [row["id"] for row in listed(rest)] == sent[:1] and rest.get("nextCursor") is None
    assert [row["id"] for row in deliveries(app, endpoint["id"], state="delivered")] == sent[::-1]
    assert deliveries(app, endpoint["id"], state="pending") == deliveries(app, endpoint["id"], state="failed") == []
    assert "whsec_" not in page.text and endpoint["secret"] not in json.dumps(whole_log(app, endpoint["id"]))
    bad = app.dashboard.get(f"/v1/webhooks/{endpoint['id']}/deliveries", params={"state": "lost"})
    assert bad.status_code in (400, 422) and bad.headers["Content-Type"].startswith(PROBLEM), bad.text


def test_a_deleted_endpoint_is_sent_nothing_more(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url())
    receiver.fail_always()
    send_test(app, endpoint["id"])
    receiver.wait_until(lambda rs: len(rs) >= 2, DELIVERY_S, "a retried attempt")
    assert app.dashboard.delete(f"/v1/webhooks/{endpoint['id']}").status_code in (200, 204)
    app.publish(app.create_paywall())
    settled = len(receiver.all())
    # A retry already in flight may land; then nothing (retries every ≤ 0.4 s had it survived).
    time.sleep(1.5)
    assert len(receiver.all()) <= settled + 1
    count = len(receiver.all())
    time.sleep(1.0)
    assert len(receiver.all()) == count
    assert all(r.header("Xizor-Event-Type") == "webhook.test" for r in receiver.all())


def test_webhook_routes_need_the_webhooks_scope(hooks, receiver):
    app = hooks
    endpoint = create_endpoint(app, receiver.url(), eventTypes=["paywall.published"])
    wid = endpoint["id"]
    read = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read"]})
    assert read.status_code == 201, read.text
    reader = Client(app.server.base, read.json()["key"])
    for method, path, body in (("GET", "/v1/webhooks", None), ("POST", "/v1/webhooks", {"url": receiver.url("/r")}),
                               ("GET", f"/v1/webhooks/{wid}", None), ("PATCH", f"/v1/webhooks/{wid}", {"enabled": False}),
                               ("DELETE", f"/v1/webhooks/{wid}", None), ("POST", f"/v1/webhooks/{wid}/rotate-secret", None),
                               ("GET", f"/v1/webhooks/{wid}/deliveries", None), ("POST", f"/v1/webhooks/{wid}/test", None),
                               ("POST", f"/v1/webhooks/{wid}/deliveries/whd_x/retry", None)):
        got = problem(reader.request(method, path, json_body=body), 403, "missing_scope")
        assert got["scope"] == "webhooks" and got["keyScopes"] == ["read"], got
    assert app.sdk.get("/v1/webhooks").status_code == 403          # a public key: the wrong kind
    # Nothing the reader asked for happened: still enabled, still listed alone.
    assert app.dashboard.get(f"/v1/webhooks/{wid}").json()["enabled"] is True
    assert [e["id"] for e in listed(app.dashboard.get("/v1/webhooks").json())] == [wid]
    assert deliveries(app, wid) == []

    only = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["webhooks"]})
    assert only.status_code == 201, only.text
    hooker = Client(app.server.base, only.json()["key"])
    assert listed(hooker.get("/v1/webhooks").json())[0]["id"] == wid
    mine = create_endpoint(app, receiver.url("/mine"), client=hooker)
    assert hooker.post(f"/v1/webhooks/{mine['id']}/test").status_code == 202
    problem(hooker.post(f"/v1/paywalls/{app.create_paywall()}/publish", {"force": True}), 403, "missing_scope")
    arrived = receiver.wait_until(lambda rs: any(r.path == "/mine" and r.ok for r in rs), DELIVERY_S, "the webhooks key's test event")
    rec = next(r for r in arrived if r.path == "/mine")
    event = check_request(rec, mine["secret"], app)
    assert event["type"] == "webhook.test" and event["actor"]["keyId"] == only.json()["id"], event


def test_the_documented_recipe_verifies_a_real_delivery(hooks, receiver):
    """The Python recipe printed in docs/integrations.md, taken from the document and run as it is,
    accepts a real delivery and refuses it under another secret or with another body."""
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    recipe = re.search(r"```python\n(.*?)```", text, re.S)
    assert recipe, "docs/integrations.md has no Python recipe"
    namespace = {}
    exec(recipe.group(1), namespace)
    documented = namespace["verify"]
    endpoint = hooks.dashboard.post("/v1/webhooks", {"url": receiver.url()}).json()
    assert hooks.dashboard.post(f"/v1/webhooks/{endpoint['id']}/test").status_code == 202
    [delivery] = receiver.wait_for_successes(1, timeout=DELIVERY_S)
    header = delivery.header("Xizor-Signature")
    assert documented(endpoint["secret"], header, delivery.body)
    assert verify(endpoint["secret"], header, delivery.body), "the recipe and this file's verifier agree"
    assert not documented("whsec_" + "x" * 32, header, delivery.body)
    assert not documented(endpoint["secret"], header, delivery.body + b" ")
