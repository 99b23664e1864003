"""Targeting (issue 19) through the real server: operators, request and subscriber attributes,
audiences, rollouts, frequency caps, the dry run's trace, write warnings and archive summaries.

Every routing assertion is made through the SDK endpoint (`GET /v1/sdk/placements/{key}/paywall`
with the public key) or the dashboard's dry run, and names the exact paywall that must answer.
"""
import hashlib
import re
import time
import uuid

import jsonschema
import pytest
import requests

from test_mcp import call, mcp_session, run
from xizor_server import App, XizorServer, create_app

SDK_PATH = "/v1/sdk/placements/{}/paywall"
DAY_MS = 86_400_000
DEVICE_HEADERS = ["X-Xizor-Platform", "X-Xizor-App-Version", "X-Xizor-SDK-Version", "X-Xizor-OS-Version", "X-Xizor-Device-Locale"]


# --- helpers -------------------------------------------------------------------------------------

def now_ms():
    return int(time.time() * 1000)


def published(app, name):
    """A paywall with version 1 published."""
    pw = app.create_paywall("clean", name=name)
    app.publish(pw)
    return pw


def sdk(app, placement="onboarding", headers=None, **params):
    """The SDK request (public key), JSON answer."""
    return requests.get(app.server.base + SDK_PATH.format(placement), params=params, timeout=30,
                        headers={"Authorization": f"Bearer {app.public_key}", "Accept": "application/json", **(headers or {})})


def served(app, placement="onboarding", headers=None, **params):
    """The paywall id the SDK endpoint answers."""
    r = sdk(app, placement, headers, **params)
    assert r.status_code == 200, r.text
    return r.json()["paywallId"]


def dry(app, placement="onboarding", **params):
    """The dashboard's dry run (`context.X`, `device.X`, `subscriberId` as query parameters), each
    failure's `message` left out (the structured fields are compared here; the words have a test of
    their own: test_a_trace_failure_says_in_words_what_was_compared)."""
    r = app.dashboard.get(f"/v1/placements/{placement}/resolve", params=params)
    assert r.status_code == 200, r.text
    return without_messages(r.json())


def without_messages(value):
    """A dry run's answer without the failures' `message` (every failure has one: checked, then removed)."""
    if isinstance(value, list):
        return [without_messages(v) for v in value]
    if isinstance(value, dict):
        if "reason" in value and "path" in value:
            assert isinstance(value.get("message"), str) and value["message"], value
        return {k: without_messages(v) for k, v in value.items() if not (k == "message" and "reason" in value)}
    return value


def set_rules(app, rules, placement="onboarding"):
    r = app.dashboard.put(f"/v1/placements/{placement}/rules", {"rules": rules})
    assert r.status_code == 200, r.text
    return r.json()


def problem(r, status, code):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == "application/problem+json", r.headers
    body = r.json()
    assert body["status"] == status and body["code"] == code, body
    return body


def errors(r):
    """{(path, code)} of a 422 validation_failed answer."""
    body = problem(r, 422, "validation_failed")
    return {(e["path"], e["code"]) for e in body["errors"]}


def metric(server, name):
    """The value of an unlabelled sample on /metrics."""
    text = requests.get(server.base + "/metrics", timeout=10).text
    match = re.search(rf"^{re.escape(name)} ([0-9.e+]+)$", text, re.M)
    assert match, f"{name} is not on /metrics"
    return float(match.group(1))


def open_event(pw, subscriber, ts, placement="onboarding", name="paywall_open", version=1):
    return {"id": str(uuid.uuid4()), "name": name, "timestamp": ts, "placement": placement, "paywallId": pw,
            "version": version, "subscriberId": subscriber}


def send_events(app, events):
    r = app.sdk.post("/v1/sdk/events", {"events": events})
    assert r.status_code == 202 and r.json()["accepted"] == len(events), r.text
    return r.json()


def rollout_bucket(seed, subscriber):
    """The documented bucket of a rollout: SHA-256("rollout:SEED:SUBSCRIBER"), first 8 bytes big-endian, mod 10,000."""
    digest = hashlib.sha256(f"rollout:{seed}:{subscriber}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000


def home(paywall, **extra):
    """A rule for context.screen=home."""
    return {"when": {"key": "context.screen", "op": "eq", "value": "home"}, "paywallId": paywall, **extra}


@pytest.fixture
def routed(app):
    """`onboarding` → a published fallback paywall, and two more published paywalls A and B."""
    app.fallback = published(app, "fallback")
    app.a = published(app, "A")
    app.b = published(app, "B")
    app.assign("onboarding", app.fallback)
    return app


# --- operators -----------------------------------------------------------------------------------

def test_semver_rule_on_the_app_version_header(routed, server):
    """`semver_gte 1.10.0` on device.appVersion, read from X-Xizor-App-Version on the SDK endpoint:
    numeric order (1.9.0 < 1.10.0), a pre-release below its release, "2.1" as 2.1.0, build metadata
    ignored; a value that is not a version is a non-match counted in /metrics, a missing header is not counted."""
    app = routed
    set_rules(app, [{"when": {"key": "device.appVersion", "op": "semver_gte", "value": "1.10.0"}, "paywallId": app.a}])
    before = metric(server, "xizor_rule_versions_not_parsed_total")
    table = [("1.9.0", app.fallback), ("1.10.0", app.a), ("1.10.1", app.a), ("1.10.0-rc.1", app.fallback),
             ("1.10.0+build.7", app.a), ("2.1", app.a), ("1.9", app.fallback), ("10.0.0", app.a), ("1.2.3.4", app.fallback)]
    for version, expected in table:
        assert served(app, headers={"X-Xizor-App-Version": version}) == expected, version
    assert served(app) == app.fallback
    # "1.2.3.4" was the only value that is not a version; the absent header is no parse failure.
    assert metric(server, "xizor_rule_versions_not_parsed_total") == before + 1
    assert served(app, headers={"X-Xizor-App-Version": "banana"}) == app.fallback
    assert metric(server, "xizor_rule_versions_not_parsed_total") == before + 2
    # The SDK's answer names the request attributes that decided it: the one its rule read, not the others.
    vary = {v.strip().lower() for v in sdk(app, headers={"X-Xizor-App-Version": "1.10.0"}).headers["Vary"].split(",")}
    assert "x-xizor-app-version" in vary, vary
    assert not {h.lower() for h in DEVICE_HEADERS if h != "X-Xizor-App-Version"} & vary, vary


def test_semver_and_key_errors_at_write_time(routed):
    """A semver rule's value must be a version (422 invalid_version at its value's path), and `device.NAME`
    must name a request attribute (422 unknown_attribute); nothing is stored."""
    app = routed
    set_rules(app, [{"when": {"key": "device.appVersion", "op": "semver_lt", "value": "2.0.0"}, "paywallId": app.a}])
    bad = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"key": "device.appVersion", "op": "semver_gt", "value": "v1.2"}, "paywallId": app.a},
        {"when": {"all": [{"key": "context.x", "op": "eq", "value": 1},
                          {"key": "device.appVersion", "op": "semver_eq", "value": "1.2.3.4"}]}, "paywallId": app.a},
        {"when": {"key": "device.foo", "op": "eq", "value": "x"}, "paywallId": app.a},
        {"when": {"key": "device.appVersion", "op": "semver_lte", "value": 2}, "paywallId": app.a},
    ]})
    assert errors(bad) == {("$.rules[0].when.value", "invalid_version"), ("$.rules[1].when.all[1].value", "invalid_version"),
                           ("$.rules[2].when.key", "unknown_attribute"), ("$.rules[3].when.value", "type_mismatch")}
    rules = app.dashboard.get("/v1/placements/onboarding").json()["rules"]
    assert [r["when"] for r in rules] == [{"key": "device.appVersion", "op": "semver_lt", "value": "2.0.0"}]
    # The dry run refuses an unknown device attribute too.
    assert ("device.foo", "unknown_attribute") in errors(app.dashboard.get("/v1/placements/onboarding/resolve",
                                                                            params={"device.foo": "1"}))


def test_starts_with_and_between(routed):
    """`starts_with` matches a string prefix (case-sensitive, strings only); `between` includes both ends,
    for numbers and for strings, and never matches across types."""
    app = routed
    set_rules(app, [
        {"when": {"key": "context.campaign", "op": "starts_with", "value": "spring_"}, "paywallId": app.a},
        {"when": {"key": "sessions", "op": "between", "value": [3, 5]}, "paywallId": app.b},
        {"when": {"key": "context.tier", "op": "between", "value": ["b", "d"]}, "paywallId": app.a},
    ])
    cases = [({"context.campaign": "spring_sale"}, app.a), ({"context.campaign": "spring_"}, app.a),
             ({"context.campaign": "Spring_sale"}, app.fallback), ({"context.campaign": "spring"}, app.fallback),
             ({"context.campaign": "12"}, app.fallback),
             ({"context.sessions": "3"}, app.b), ({"context.sessions": "4.5"}, app.b), ({"context.sessions": "5"}, app.b),
             ({"context.sessions": "2.99"}, app.fallback), ({"context.sessions": "6"}, app.fallback),
             ({"context.sessions": "four"}, app.fallback),
             ({"context.tier": "b"}, app.a), ({"context.tier": "c"}, app.a), ({"context.tier": "d"}, app.a),
             ({"context.tier": "da"}, app.fallback), ({"context.tier": "a"}, app.fallback), ({"context.tier": "3"}, app.fallback)]
    for params, expected in cases:
        assert served(app, **params) == expected, params
    bad = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"key": "n", "op": "between", "value": [5, 3]}, "paywallId": app.a},
        {"when": {"key": "n", "op": "between", "value": [1, "z"]}, "paywallId": app.a},
        {"when": {"key": "n", "op": "between", "value": [1]}, "paywallId": app.a},
        {"when": {"key": "n", "op": "starts_with", "value": ""}, "paywallId": app.a},
        {"when": {"key": "n", "op": "starts_with", "value": 5}, "paywallId": app.a},
    ]})
    assert errors(bad) == {("$.rules[0].when.value", "number_out_of_range"), ("$.rules[1].when.value", "type_mismatch"),
                           ("$.rules[2].when.value", "type_mismatch"), ("$.rules[3].when.value", "type_mismatch"),
                           ("$.rules[4].when.value", "type_mismatch")}


# --- request attributes ----------------------------------------------------------------------------

PLATFORM_AND_COUNTRY = {"all": [{"key": "device.platform", "op": "eq", "value": "ios"},
                                {"key": "device.country", "op": "in", "value": ["DE", "AT"]}]}


@pytest.fixture
def country_header_server(tmp_path):
    s = XizorServer(tmp_path / "cdn-data", extra_env={"XIZOR_TARGETING_COUNTRY_HEADER": "CF-IPCountry"})
    yield s
    assert s.stop() == 0


def test_platform_and_country_from_a_trusted_header(country_header_server):
    """With targeting.countryHeader = CF-IPCountry the header is the country, trusted over the `country`
    query parameter (which serves only when the header is absent or Cloudflare's "XX"); the platform is
    lower-cased and the country upper-cased before comparing; a malformed query country is a 400."""
    app = App(country_header_server, create_app(country_header_server.base))
    fallback, ios_dach = published(app, "fallback"), published(app, "iOS DACH")
    app.assign("onboarding", fallback)
    set_rules(app, [{"when": PLATFORM_AND_COUNTRY, "paywallId": ios_dach}])
    cases = [({"X-Xizor-Platform": "iOS", "CF-IPCountry": "de"}, {}, ios_dach),
             ({"X-Xizor-Platform": "android", "CF-IPCountry": "DE"}, {}, fallback),
             ({"X-Xizor-Platform": "ios", "CF-IPCountry": "FR"}, {"country": "DE"}, fallback),
             ({"X-Xizor-Platform": "ios", "CF-IPCountry": "AT"}, {"country": "FR"}, ios_dach),
             ({"X-Xizor-Platform": "ios", "CF-IPCountry": "XX"}, {"country": "at"}, ios_dach),
             ({"X-Xizor-Platform": "ios", "CF-IPCountry": "XX"}, {}, fallback),
             ({"X-Xizor-Platform": "ios"}, {"country": "DE"}, ios_dach),
             ({"X-Xizor-Platform": "ios"}, {}, fallback),
             ({"CF-IPCountry": "DE"}, {}, fallback)]
    for headers, params, expected in cases:
        assert served(app, headers=headers, **params) == expected, (headers, params)
    problem(sdk(app, headers={"X-Xizor-Platform": "ios"}, country="Germany"), 400, "invalid_country")


def test_without_the_setting_the_country_header_is_ignored(routed):
    """Without targeting.countryHeader no header is trusted: CF-IPCountry is ignored and the `country`
    query parameter is the country."""
    app = routed
    set_rules(app, [{"when": PLATFORM_AND_COUNTRY, "paywallId": app.a}])
    ios = {"X-Xizor-Platform": "ios"}
    assert served(app, headers=ios | {"CF-IPCountry": "FR"}, country="DE") == app.a
    assert served(app, headers=ios | {"CF-IPCountry": "DE"}) == app.fallback
    assert served(app, headers=ios | {"CF-IPCountry": "DE"}, country="FR") == app.fallback
    # The dry run states the request's attributes as device.NAME, normalised the same way.
    assert dry(app, **{"device.platform": "IOS", "device.country": "at"})["paywallId"] == app.a
    problem(app.dashboard.get("/v1/placements/onboarding/resolve", params={"device.country": "Austria"}), 400, "invalid_country")


def test_request_attribute_values_are_bounded_only_when_a_rule_reads_them(routed):
    """A device header over 64 bytes or with a control character is 400 invalid_request_attribute, but only
    for a placement whose rules read device attributes; other placements never look at the headers."""
    app = routed
    app.assign("plain", app.fallback)
    set_rules(app, [{"when": {"key": "context.x", "op": "eq", "value": 1}, "paywallId": app.a}], placement="plain")
    set_rules(app, [{"when": {"key": "device.osVersion", "op": "semver_gte", "value": "17"}, "paywallId": app.a}])
    long_value = "1" * 65
    assert served(app, "plain", headers={"X-Xizor-OS-Version": long_value}) == app.fallback
    assert served(app, headers={"X-Xizor-OS-Version": "1" * 64}) == app.fallback  # 64 bytes: taken (not a version)
    assert served(app, headers={"X-Xizor-OS-Version": "17.4"}) == app.a
    problem(sdk(app, headers={"X-Xizor-OS-Version": long_value}), 400, "invalid_request_attribute")
    # Any device header is checked once a rule reads one, not only the one it reads.
    problem(sdk(app, headers={"X-Xizor-OS-Version": "17.4", "X-Xizor-Device-Locale": "de\tDE"}), 400, "invalid_request_attribute")
    assert served(app, "plain", headers={"X-Xizor-Device-Locale": "de\tDE"}) == app.fallback


# --- subscriber attributes -------------------------------------------------------------------------

def test_subscriber_attributes_route_the_very_next_request(routed):
    """The SDK's PUT /v1/sdk/subscribers/{id}/attributes replaces the subscriber's attributes; a
    subscriber.plan rule sees them on the very next SDK request; the dashboard reads them back."""
    app = routed
    set_rules(app, [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": app.a},
                    {"when": {"key": "subscriber.sessions", "op": "gte", "value": 10}, "paywallId": app.b}])
    assert served(app, subscriberId="u-1") == app.fallback
    r = app.sdk.put("/v1/sdk/subscribers/u-1/attributes", {"attributes": {"plan": "pro", "sessions": 12, "beta": True}})
    assert r.status_code == 200, r.text
    stored = r.json()
    assert stored["subscriberId"] == "u-1" and stored["attributes"] == {"plan": "pro", "sessions": 12, "beta": True}
    assert isinstance(stored["updatedAt"], int)
    assert served(app, subscriberId="u-1") == app.a
    assert served(app, subscriberId="u-2") == app.fallback
    assert served(app) == app.fallback
    # A PUT replaces: "plan" is gone, so the second rule decides.
    assert app.sdk.put("/v1/sdk/subscribers/u-1/attributes", {"attributes": {"sessions": 10}}).status_code == 200
    assert served(app, subscriberId="u-1") == app.b
    read = app.dashboard.get("/v1/subscribers/u-1/attributes")
    assert read.status_code == 200 and read.json()["attributes"] == {"sessions": 10}
    assert app.dashboard.get("/v1/subscribers/nobody/attributes").json() == {"subscriberId": "nobody", "attributes": {}, "updatedAt": None}
    # The dry run reads them as the SDK does, and says what it saw.
    trace = dry(app, subscriberId="u-1")["trace"]
    assert trace[0] == {"rule": 0, "outcome": "not_matched", "failed": {
        "path": "$.rules[0].when", "reason": "missing", "key": "subscriber.plan", "op": "eq", "value": "pro", "saw": None}}
    assert trace[1] == {"rule": 1, "outcome": "matched"}
    # Keys: the SDK writes with the public key, the dashboard reads with the secret key.
    problem(app.dashboard.put("/v1/sdk/subscribers/u-1/attributes", {"attributes": {}}), 403, "public_key_required")
    problem(app.sdk.get("/v1/subscribers/u-1/attributes"), 403, "secret_key_required")



def attribute_cache(server):
    """(hits on the I/O loop, hits on the handler pool, misses) of the subscriber attribute cache."""
    text = requests.get(server.base + "/metrics", timeout=10).text
    def sample(pattern):
        match = re.search(rf"^{pattern} ([0-9.e+]+)$", text, re.M)
        assert match, f"{pattern} is not on /metrics"
        return float(match.group(1))
    return (sample(r'xizor_subscriber_attribute_cache_hits_total\{where="io_loop"\}'),
            sample(r'xizor_subscriber_attribute_cache_hits_total\{where="handler"\}'),
            sample("xizor_subscriber_attribute_cache_misses_total"))


def test_a_subscriber_attribute_rule_answers_inline_from_the_cache(routed, server):
    """A placement whose rules read only subscriber.* reads the database once per subscriber (the
    request that misses is offloaded and fills the cache); the next requests are answered on the
    I/O loop from the cache, and an attribute write is still seen by the very next request."""
    app = routed
    set_rules(app, [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": app.a}])
    assert app.sdk.put("/v1/sdk/subscribers/c-1/attributes", {"attributes": {"plan": "pro"}}).status_code == 200
    loop, handler, misses = attribute_cache(server)
    assert served(app, subscriberId="c-1") == app.a
    assert attribute_cache(server) == (loop, handler, misses + 1), "the first request reads the database"
    for _ in range(5):
        assert served(app, subscriberId="c-1") == app.a
    assert attribute_cache(server) == (loop + 5, handler, misses + 1), "then every request is answered inline"
    # A write drops the entry: the next request reads the new attributes (one more miss).
    assert app.sdk.put("/v1/sdk/subscribers/c-1/attributes", {"attributes": {"plan": "free"}}).status_code == 200
    assert served(app, subscriberId="c-1") == app.fallback
    assert served(app, subscriberId="c-1") == app.fallback
    assert attribute_cache(server) == (loop + 6, handler, misses + 2)
    # "No attributes" is cached too.
    assert served(app, subscriberId="c-none") == app.fallback and served(app, subscriberId="c-none") == app.fallback
    assert attribute_cache(server) == (loop + 7, handler, misses + 3)
    assert app.dashboard.delete("/v1/subscribers/c-1").status_code == 200
    assert served(app, subscriberId="c-1") == app.fallback
    assert attribute_cache(server)[2] == misses + 4, "the subscriber's deletion dropped the entry"
    # A frequency cap counts presentations in the database: a capped placement leaves the loop even
    # for a cached subscriber (its attributes are then a hit on the handler pool).
    pro = {"key": "subscriber.plan", "op": "eq", "value": "pro"}
    set_rules(app, [{"when": pro, "paywallId": app.a, "frequencyCap": {"count": 1, "per": "day"}}, {"when": pro, "paywallId": app.b}])
    assert app.sdk.put("/v1/sdk/subscribers/c-2/attributes", {"attributes": {"plan": "pro"}}).status_code == 200
    loop, handler, misses = attribute_cache(server)
    assert served(app, subscriberId="c-2") == app.a
    send_events(app, [open_event(app.a, "c-2", now_ms() - 1000)])
    assert served(app, subscriberId="c-2") == app.b
    assert attribute_cache(server) == (loop, handler + 1, misses + 1)


@pytest.mark.parametrize("subscriber", ["user@example.com", "a b", "a/b", "ü-1", "a+b", "50%"])
def test_a_subscriber_id_is_the_same_in_the_path_and_the_query(routed, subscriber):
    """The id in PUT /v1/sdk/subscribers/{id}/attributes and DELETE /v1/subscribers/{id} is percent-decoded
    into the same id the SDK sends as ?subscriberId= and in events: an e-mail address, a space, a slash."""
    app = routed
    set_rules(app, [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": app.a}])
    path = requests.utils.quote(subscriber, safe="")
    r = app.sdk.put(f"/v1/sdk/subscribers/{path}/attributes", {"attributes": {"plan": "pro"}})
    assert r.status_code == 200 and r.json()["subscriberId"] == subscriber, r.text
    assert served(app, subscriberId=subscriber) == app.a
    send_events(app, [open_event(app.a, subscriber, now_ms())])
    assert app.dashboard.delete(f"/v1/subscribers/{path}").json() == {"subscriberId": subscriber, "attributes": 1, "timers": 0, "events": 1}
    assert served(app, subscriberId=subscriber) == app.fallback

def test_subscriber_attribute_validation_errors_with_paths(routed):
    """Bad attributes are a 422 naming every bad one by path; nothing of the request is stored."""
    app = routed
    assert app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"attributes": {"plan": "pro"}}).status_code == 200
    bad = app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"attributes": {
        "plan": "free", "bad key": 1, "list": [1], "nothing": None, "object": {"a": 1}, "long": "x" * 257, "k" * 65: 1}})
    assert errors(bad) == {("$.attributes.bad key", "invalid_attribute_key"), ("$.attributes.list", "type_mismatch"),
                           ("$.attributes.nothing", "type_mismatch"), ("$.attributes.object", "type_mismatch"),
                           ("$.attributes.long", "string_too_long"), ("$.attributes." + "k" * 64, "invalid_attribute_key")}
    too_many = app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"attributes": {f"k{i}": i for i in range(51)}})
    assert errors(too_many) == {("$.attributes", "too_many_attributes")}
    assert errors(app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"plan": "pro"})) == {("$.attributes", "missing_required_field")}
    assert errors(app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"attributes": ["plan"]})) == {("$.attributes", "type_mismatch")}
    assert errors(app.sdk.put("/v1/sdk/subscribers/" + "s" * 201 + "/attributes", {"attributes": {}})) == {
        ("$.subscriberId", "invalid_subscriber_id")}
    assert app.dashboard.get("/v1/subscribers/v-1/attributes").json()["attributes"] == {"plan": "pro"}
    # The limits themselves are allowed: 50 keys of 64 bytes, strings of 256 bytes.
    edge = {("k" * 62) + f"{i:02d}": "x" * 256 for i in range(50)}
    ok = app.sdk.put("/v1/sdk/subscribers/v-1/attributes", {"attributes": edge})
    assert ok.status_code == 200 and ok.json()["attributes"] == edge


def test_deleting_a_subscriber_removes_attributes_timers_and_events(routed):
    """DELETE /v1/subscribers/{id} removes the subscriber's attributes, timer starts and events in one call,
    answering the counts; analytics recount without the events; other subscribers keep theirs."""
    app = routed
    ts = now_ms()
    send_events(app, [open_event(app.a, "gdpr-1", ts), open_event(app.a, "gdpr-1", ts + 1),
                      open_event(app.a, "gdpr-1", ts + 2, name="paywall_close"),
                      open_event(app.a, "keep-1", ts), open_event(app.a, "keep-1", ts + 1, name="purchase_completed")])
    for subscriber in ("gdpr-1", "keep-1"):
        assert app.sdk.put(f"/v1/sdk/subscribers/{subscriber}/attributes", {"attributes": {"plan": "pro"}}).status_code == 200
        timer = app.sdk.post("/v1/sdk/timers", {"subscriberId": subscriber, "paywallId": app.a, "nodeId": "offer"})
        assert timer.status_code == 201, timer.text
    funnel = app.dashboard.get(f"/v1/paywalls/{app.a}/analytics").json()["versions"][0]
    assert (funnel["impressions"], funnel["uniqueSubscribers"], funnel["closes"], funnel["purchaseCompleted"]) == (3, 2, 1, 1)

    r = app.dashboard.delete("/v1/subscribers/gdpr-1")
    assert r.status_code == 200, r.text
    assert r.json() == {"subscriberId": "gdpr-1", "attributes": 1, "timers": 1, "events": 3}
    funnel = app.dashboard.get(f"/v1/paywalls/{app.a}/analytics").json()["versions"][0]
    assert (funnel["impressions"], funnel["uniqueSubscribers"], funnel["closes"], funnel["purchaseCompleted"]) == (1, 1, 0, 1)
    assert app.dashboard.get("/v1/subscribers/gdpr-1/attributes").json() == {"subscriberId": "gdpr-1", "attributes": {}, "updatedAt": None}
    assert app.dashboard.get("/v1/subscribers/keep-1/attributes").json()["attributes"] == {"plan": "pro"}
    # The timer start is gone: starting again is a new start (201), the kept subscriber's is not (200).
    assert app.sdk.post("/v1/sdk/timers", {"subscriberId": "gdpr-1", "paywallId": app.a, "nodeId": "offer"}).status_code == 201
    assert app.sdk.post("/v1/sdk/timers", {"subscriberId": "keep-1", "paywallId": app.a, "nodeId": "offer"}).status_code == 200
    # Deleting again removes only what was stored since: the timer just started.
    again = app.dashboard.delete("/v1/subscribers/gdpr-1").json()
    assert again == {"subscriberId": "gdpr-1", "attributes": 0, "timers": 1, "events": 0}
    problem(app.sdk.delete("/v1/subscribers/keep-1"), 403, "secret_key_required")


# --- audiences -----------------------------------------------------------------------------------

DACH = {"key": "context.country", "op": "in", "value": ["DE", "AT", "CH"]}


def test_audience_crud_used_by_and_delete_in_use(routed):
    """PUT creates (201) then replaces (200); the list and GET carry `usedBy` ({placement, rule}); a rule
    naming an unknown audience is 422 unknown_audience; an audience naming another is 422 nested_audience;
    DELETE of one in use is 409 audience_in_use naming the rule, 204 once no rule uses it, then 404."""
    app = routed
    created = app.dashboard.put("/v1/audiences/dach", {"name": "DACH", "condition": DACH})
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["id"], body["name"], body["condition"], body["usedBy"]) == ("dach", "DACH", DACH, [])
    replaced = app.dashboard.put("/v1/audiences/dach", {"condition": DACH})
    assert replaced.status_code == 200 and replaced.json()["name"] == "dach"  # the name defaults to the id
    assert app.dashboard.put("/v1/audiences/ios", {"name": "iOS", "condition": {"key": "device.platform", "op": "eq", "value": "ios"}}).status_code == 201

    assert errors(app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"audience": "nobody"}, "paywallId": app.a}]})) == {("$.rules[0].when", "unknown_audience")}
    assert errors(app.dashboard.put("/v1/audiences/nested", {"condition": {"any": [{"audience": "dach"}, DACH]}})) == {
        ("$.condition.any[0].audience", "nested_audience")}
    assert errors(app.dashboard.put("/v1/audiences/empty", {"name": "x"})) == {("$.condition", "missing_required_field")}
    assert errors(app.dashboard.put("/v1/audiences/bad.id", {"condition": DACH})) == {("$.id", "invalid_audience_id")}

    set_rules(app, [{"when": {"key": "context.x", "op": "exists"}, "paywallId": app.b},
                    {"when": {"all": [{"audience": "dach"}, {"audience": "ios"}]}, "paywallId": app.a}])
    app.assign("upsell", app.fallback)
    set_rules(app, [{"when": {"not": {"audience": "dach"}}, "paywallId": app.b}], placement="upsell")
    listed = app.dashboard.get("/v1/audiences").json()["items"]
    assert {a["id"]: a["usedBy"] for a in listed} == {
        "dach": [{"placement": "onboarding", "rule": 1}, {"placement": "upsell", "rule": 0}],
        "ios": [{"placement": "onboarding", "rule": 1}]}
    assert app.dashboard.get("/v1/audiences/ios").json()["usedBy"] == [{"placement": "onboarding", "rule": 1}]

    in_use = problem(app.dashboard.delete("/v1/audiences/dach"), 409, "audience_in_use")
    assert "rule 1 of placement 'onboarding'" in in_use["detail"] and "rule 0 of placement 'upsell'" in in_use["detail"]
    assert app.dashboard.get("/v1/audiences/dach").status_code == 200
    set_rules(app, [], placement="upsell")
    set_rules(app, [{"when": {"audience": "ios"}, "paywallId": app.a}])
    assert app.dashboard.delete("/v1/audiences/dach").status_code == 204
    problem(app.dashboard.get("/v1/audiences/dach"), 404, "audience_not_found")
    problem(app.dashboard.delete("/v1/audiences/dach"), 404, "audience_not_found")
    assert [a["id"] for a in app.dashboard.get("/v1/audiences").json()["items"]] == ["ios"]


def test_an_audience_change_is_live_on_the_next_sdk_request(routed):
    """Replacing an audience's condition changes routing on the next SDK request, with no publish."""
    app = routed
    assert app.dashboard.put("/v1/audiences/dach", {"condition": {"key": "country", "op": "in", "value": ["DE", "AT"]}}).status_code == 201
    set_rules(app, [{"when": {"audience": "dach"}, "paywallId": app.a}])
    assert served(app, **{"context.country": "DE"}) == app.a
    assert served(app, **{"context.country": "CH"}) == app.fallback
    assert app.dashboard.put("/v1/audiences/dach", {"condition": DACH}).status_code == 200
    assert served(app, **{"context.country": "CH"}) == app.a
    assert app.dashboard.put("/v1/audiences/dach", {"condition": {"key": "country", "op": "eq", "value": "AT"}}).status_code == 200
    assert served(app, **{"context.country": "DE"}) == app.fallback
    # The dry run says which part of the audience failed, and what it saw.
    trace = dry(app, **{"context.country": "DE"})["trace"]
    assert trace == [{"rule": 0, "outcome": "not_matched", "failed": {
        "path": "$.rules[0].when", "reason": "audience_not_matched", "audience": "dach",
        "failures": [{"path": "$", "reason": "compared", "key": "country", "op": "eq", "value": "AT", "saw": "DE"}]}}]


# --- rollouts ------------------------------------------------------------------------------------

def test_rollout_seed_share_and_restart(tmp_path):
    """A rollout keeps a given seed and is given one when absent (answered and kept when written back);
    over 2,000 subscriber ids the dry run matches exactly those whose bucket is below the share (30 % within
    a few percent), the SDK agrees, no subscriber id is no match, and the answers survive a restart."""
    data = tmp_path / "data"
    server = XizorServer(data)
    try:
        app = App(server, create_app(server.base))
        fallback, a, b = published(app, "fallback"), published(app, "A"), published(app, "B")
        app.assign("onboarding", fallback)
        written = set_rules(app, [{"when": {"rollout": {"percent": 30, "seed": "spring-2026"}}, "paywallId": a},
                                  {"when": {"rollout": {"percent": 12.5}}, "paywallId": b}])["rules"]
        assert written[0]["when"] == {"rollout": {"percent": 30, "seed": "spring-2026"}}
        seed = written[1]["when"]["rollout"]["seed"]
        assert isinstance(seed, str) and 1 <= len(seed) <= 64 and written[1]["when"]["rollout"]["percent"] == 12.5
        read = app.dashboard.get("/v1/placements/onboarding").json()["rules"]
        assert [r["when"] for r in read] == [w["when"] for w in written]
        rewritten = set_rules(app, [{"when": r["when"], "paywallId": r["paywallId"]} for r in read])["rules"]
        assert rewritten[1]["when"]["rollout"]["seed"] == seed
        # Another write without a seed gets another one.
        other = set_rules(app, [{"when": {"rollout": {"percent": 30}}, "paywallId": a}], placement="onboarding")["rules"]
        assert other[0]["when"]["rollout"]["seed"] != seed
        set_rules(app, [{"when": r["when"], "paywallId": r["paywallId"]} for r in read])

        subscribers = [f"user-{i}" for i in range(2000)]
        expected = {}
        for s in subscribers:
            if rollout_bucket("spring-2026", s) < 3000:
                expected[s] = (0, a)
            elif rollout_bucket(seed, s) < 1250:
                expected[s] = (1, b)
            else:
                expected[s] = (None, fallback)
        answers = {s: (lambda d: (d["matchedRule"], d["paywallId"]))(dry(app, subscriberId=s)) for s in subscribers}
        assert answers == expected
        share = sum(1 for rule, _ in answers.values() if rule == 0) / len(subscribers)
        assert 0.27 <= share <= 0.33, share
        for s in subscribers[:40]:
            assert served(app, subscriberId=s) == expected[s][1], s
        outside = next(s for s in subscribers if expected[s][0] is None)
        assert dry(app, subscriberId=outside)["trace"][0] == {"rule": 0, "outcome": "not_matched", "failed": {
            "path": "$.rules[0].when", "reason": "outside_rollout", "saw": rollout_bucket("spring-2026", outside)}}
        nobody = dry(app)
        assert nobody["paywallId"] == fallback and nobody["fallback"] is True
        assert nobody["trace"][0] == {"rule": 0, "outcome": "not_matched", "failed": {"path": "$.rules[0].when", "reason": "no_subscriber"}}
        assert served(app) == fallback
    finally:
        assert server.stop() == 0

    again = XizorServer(data)
    try:
        app.server, app.dashboard.base, app.sdk.base = again, again.base, again.base
        after = {s: (lambda d: (d["matchedRule"], d["paywallId"]))(dry(app, subscriberId=s)) for s in subscribers}
        assert after == expected
        for s in subscribers[:40]:
            assert served(app, subscriberId=s) == expected[s][1], s
    finally:
        assert again.stop() == 0


def test_rollout_validation(routed):
    """A rollout's percent is 0–100 with at most two decimals and its seed 1–64 bytes (422 with paths)."""
    app = routed
    bad = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"rollout": {"percent": 33.333}}, "paywallId": app.a},
        {"when": {"rollout": {"percent": 101}}, "paywallId": app.a},
        {"when": {"rollout": {"percent": 5, "seed": ""}}, "paywallId": app.a},
        {"when": {"rollout": {"seed": "x"}}, "paywallId": app.a},
    ]})
    assert errors(bad) == {("$.rules[0].when.rollout.percent", "number_out_of_range"),
                           ("$.rules[1].when.rollout.percent", "number_out_of_range"),
                           ("$.rules[2].when.rollout.seed", "type_mismatch"),
                           ("$.rules[3].when.rollout.percent", "missing_required_field")}


# --- frequency caps ------------------------------------------------------------------------------

def test_frequency_cap_counts_paywall_open_events(routed, server):
    """A rule capped at 2 per day stops matching for a subscriber with 2 `paywall_open` events of its target
    on the placement in the last day, and the next rule serves; other subscribers, requests without a
    subscriberId, older events, other placements, other paywalls and other event names are not counted."""
    app = routed
    written = set_rules(app, [home(app.a, frequencyCap={"count": 2, "per": "day"}), home(app.b)])
    assert written["rules"][0]["frequencyCap"] == {"count": 2, "seconds": 86_400}
    assert "frequencyCap" not in written["rules"][1]
    screen = {"context.screen": "home"}
    ts = now_ms()
    capped_before = metric(server, "xizor_rules_capped_total")

    assert served(app, subscriberId="s-1", **screen) == app.a
    send_events(app, [open_event(app.a, "s-1", ts - 1000)])
    assert served(app, subscriberId="s-1", **screen) == app.a
    send_events(app, [open_event(app.a, "s-1", ts - 500)])
    assert served(app, subscriberId="s-1", **screen) == app.b
    assert metric(server, "xizor_rules_capped_total") == capped_before + 1

    resolved = dry(app, subscriberId="s-1", **screen)
    assert resolved["matchedRule"] == 1 and resolved["paywallId"] == app.b and resolved["fallback"] is False
    assert resolved["trace"] == [
        {"rule": 0, "outcome": "capped", "presentations": 2, "frequencyCap": {"count": 2, "seconds": 86_400}},
        {"rule": 1, "outcome": "matched"}]
    capped_before = metric(server, "xizor_rules_capped_total")

    # Not counted: another subscriber, no subscriber, events older than the interval, on another placement,
    # of another paywall, or not paywall_open.
    send_events(app, [open_event(app.a, "old", ts - DAY_MS - 60_000), open_event(app.a, "old", ts - DAY_MS - 30_000),
                      open_event(app.a, "elsewhere", ts, placement="upsell"), open_event(app.a, "elsewhere", ts, placement="upsell"),
                      open_event(app.b, "other-paywall", ts), open_event(app.b, "other-paywall", ts),
                      open_event(app.a, "closer", ts, name="paywall_close"), open_event(app.a, "closer", ts, name="paywall_close")])
    for subscriber in ("s-2", "old", "elsewhere", "other-paywall", "closer"):
        assert served(app, subscriberId=subscriber, **screen) == app.a, subscriber
    assert served(app, **screen) == app.a
    assert dry(app, **screen)["trace"][0] == {"rule": 0, "outcome": "matched", "frequencyCap": {"count": 2, "seconds": 86_400}}
    assert metric(server, "xizor_rules_capped_total") == capped_before

    # A cap in seconds: 1 per hour; an event two hours old does not count, one a minute old does.
    set_rules(app, [home(app.a, frequencyCap={"count": 1, "seconds": 3600}), home(app.b)])
    send_events(app, [open_event(app.a, "hourly", ts - 7_200_000)])
    assert served(app, subscriberId="hourly", **screen) == app.a
    send_events(app, [open_event(app.a, "hourly", ts - 60_000)])
    assert served(app, subscriberId="hourly", **screen) == app.b


def test_frequency_cap_validation(routed):
    """A cap is {count ≥ 1, per: hour|day|week} or {count, seconds ≥ 1}: anything else is 422 with its path."""
    app = routed
    bad = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        home(app.a, frequencyCap={"count": 0, "per": "day"}),
        home(app.a, frequencyCap={"count": 1, "per": "month"}),
        home(app.a, frequencyCap={"count": 1}),
        home(app.a, frequencyCap={"count": 1, "per": "day", "seconds": 60}),
        home(app.a, frequencyCap={"count": 1, "seconds": 0}),
        home(app.a, frequencyCap={"count": 1, "per": "day", "every": 2}),
    ]})
    assert errors(bad) == {("$.rules[0].frequencyCap.count", "number_out_of_range"),
                           ("$.rules[1].frequencyCap.per", "invalid_enum_value"),
                           ("$.rules[2].frequencyCap", "invalid_frequency_cap"),
                           ("$.rules[3].frequencyCap", "invalid_frequency_cap"),
                           ("$.rules[4].frequencyCap.seconds", "number_out_of_range"),
                           ("$.rules[5].frequencyCap.every", "unknown_property")}
    written = set_rules(app, [home(app.a, frequencyCap={"count": 3, "per": "week"}), home(app.b, frequencyCap={"count": 1, "per": "hour"})])
    assert [r["frequencyCap"] for r in written["rules"]] == [{"count": 3, "seconds": 604_800}, {"count": 1, "seconds": 3600}]


# --- the dry run's trace and write warnings ------------------------------------------------------

def test_the_trace_gives_every_outcome_in_order(routed):
    """One dry run meets each outcome: not_matched (with the failed part and the value it saw), inactive
    (activeFrom in the future), capped (with presentations), target_unpublished (a paywall created and never
    published, which the write warned about), matched, then not_reached."""
    app = routed
    unpublished = app.create_paywall("clean", name="never published")
    later = now_ms() + DAY_MS
    written = set_rules(app, [
        {"when": {"all": [{"key": "context.screen", "op": "exists"},
                          {"key": "device.appVersion", "op": "semver_gte", "value": "2.0.0"}]}, "paywallId": app.a},
        home(app.a, activeFrom=later),
        home(app.b, frequencyCap={"count": 1, "per": "week"}),
        home(unpublished),
        home(app.b),
        home(app.a),
    ])
    assert written["warnings"] == [{"path": "$.rules[3].paywallId", "code": "target_unpublished", "message": written["warnings"][0]["message"]}]
    assert unpublished in written["warnings"][0]["message"]
    assert written["rules"][1]["activeFrom"] == later
    send_events(app, [open_event(app.b, "t-1", now_ms() - 1000)])

    resolved = dry(app, subscriberId="t-1", **{"context.screen": "home", "device.appVersion": "1.5.0"})
    assert (resolved["matchedRule"], resolved["paywallId"], resolved["version"], resolved["fallback"]) == (4, app.b, 1, False)
    assert resolved["trace"] == [
        {"rule": 0, "outcome": "not_matched", "failed": {"path": "$.rules[0].when.all[1]", "reason": "compared",
                                                         "key": "device.appVersion", "op": "semver_gte", "value": "2.0.0", "saw": "1.5.0"}},
        {"rule": 1, "outcome": "inactive"},
        {"rule": 2, "outcome": "capped", "presentations": 1, "frequencyCap": {"count": 1, "seconds": 604_800}},
        {"rule": 3, "outcome": "target_unpublished"},
        {"rule": 4, "outcome": "matched"},
        {"rule": 5, "outcome": "not_reached"},
    ]
    # The SDK serves what the dry run says.
    assert served(app, subscriberId="t-1", headers={"X-Xizor-App-Version": "1.5.0"}, **{"context.screen": "home"}) == app.b
    # The failed part's other reasons: a missing value, a value that is not a version.
    missing = dry(app, **{"context.screen": "home"})["trace"][0]["failed"]
    assert missing == {"path": "$.rules[0].when.all[1]", "reason": "missing", "key": "device.appVersion", "op": "semver_gte",
                       "value": "2.0.0", "saw": None}
    not_a_version = dry(app, **{"context.screen": "home", "device.appVersion": "banana"})["trace"][0]["failed"]
    assert not_a_version["reason"] == "not_a_version" and not_a_version["saw"] == "banana"

    # Once published, the rule's target serves (live, no rule write).
    app.publish(unpublished)
    again = dry(app, subscriberId="t-1", **{"context.screen": "home"})
    assert (again["matchedRule"], again["paywallId"]) == (3, unpublished)
    assert [t["outcome"] for t in again["trace"]] == ["not_matched", "inactive", "capped", "matched", "not_reached", "not_reached"]
    assert "warnings" not in set_rules(app, [home(unpublished)])


def test_the_trace_of_any_not_and_the_fallback(routed):
    """`any` fails with every alternative's failure; `not` fails naming itself; with no rule winning the
    placement's own paywall answers with `fallback: true`."""
    app = routed
    set_rules(app, [
        {"when": {"any": [{"key": "tier", "op": "in", "value": ["gold", "silver"]}, {"key": "context.sessions", "op": "gt", "value": 10}]},
         "paywallId": app.a},
        {"when": {"not": {"key": "context.tier", "op": "starts_with", "value": "br"}}, "paywallId": app.b},
    ])
    resolved = dry(app, **{"context.tier": "bronze", "context.sessions": "3"})
    assert (resolved["matchedRule"], resolved["paywallId"], resolved["fallback"]) == (None, app.fallback, True)
    assert resolved["trace"] == [
        {"rule": 0, "outcome": "not_matched", "failed": {"path": "$.rules[0].when.any", "reason": "none_matched", "failures": [
            {"path": "$.rules[0].when.any[0]", "reason": "compared", "key": "tier", "op": "in", "value": ["gold", "silver"], "saw": "bronze"},
            {"path": "$.rules[0].when.any[1]", "reason": "compared", "key": "context.sessions", "op": "gt", "value": 10, "saw": 3}]}},
        {"rule": 1, "outcome": "not_matched", "failed": {"path": "$.rules[1].when.not", "reason": "negated_condition_matched"}},
    ]


def test_a_placement_targeting_an_unpublished_paywall_is_warned(routed):
    """PUT /v1/placements/{key} naming a paywall with nothing published answers 200 with a
    `target_unpublished` warning; the SDK answers 404 no_published_paywall until it is published."""
    app = routed
    draft_only = app.create_paywall("clean", name="draft only")
    r = app.dashboard.put("/v1/placements/later", {"paywallId": draft_only})
    assert r.status_code == 200, r.text
    warnings = r.json()["warnings"]
    assert [(w["path"], w["code"]) for w in warnings] == [("$.paywallId", "target_unpublished")]
    problem(sdk(app, "later"), 404, "no_published_paywall")
    app.publish(draft_only)
    assert served(app, "later") == draft_only
    assert "warnings" not in app.assign("later", draft_only)


# --- paywall summaries and archiving -------------------------------------------------------------

def test_archiving_a_paywall_targeted_by_rules_names_them(routed):
    """A paywall's summary lists the placements whose own target or rules target it (`placements`, each
    once) and each of them (`targetedBy`); archiving it answers a warning naming every placement and rule;
    the dry run marks a matched rule's archived target."""
    app = routed
    app.assign("upsell", app.a)
    set_rules(app, [{"when": {"key": "x", "op": "exists"}, "paywallId": app.a}, home(app.b)])
    set_rules(app, [home(app.b)], placement="upsell")
    summary = app.dashboard.get(f"/v1/paywalls/{app.b}").json()
    assert summary["placements"] == ["onboarding", "upsell"]
    assert summary["targetedBy"] == [{"placement": "onboarding", "rule": 1}, {"placement": "upsell", "rule": 0}]
    a_summary = app.dashboard.get(f"/v1/paywalls/{app.a}").json()
    assert a_summary["placements"] == ["onboarding", "upsell"]
    assert a_summary["targetedBy"] == [{"placement": "onboarding", "rule": 0}, {"placement": "upsell", "rule": None}]
    listed = {p["id"]: p for p in app.dashboard.get("/v1/paywalls").json()["items"]}
    assert listed[app.b]["placements"] == ["onboarding", "upsell"] and listed[app.b]["targetedBy"] == summary["targetedBy"]
    assert listed[app.fallback]["targetedBy"] == [{"placement": "onboarding", "rule": None}]

    archived = app.dashboard.delete(f"/v1/paywalls/{app.b}")
    assert archived.status_code == 200, archived.text
    body = archived.json()
    assert body["archived"] is True and body["targetedBy"] == summary["targetedBy"]
    assert body["warning"] == ("rule 1 of placement 'onboarding', rule 0 of placement 'upsell' keep serving this "
                               "paywall's last version until they target another paywall.")
    resolved = dry(app, "upsell", **{"context.screen": "home"})
    assert resolved["paywallId"] == app.b and resolved["paywallArchived"] is True
    assert resolved["trace"] == [{"rule": 0, "outcome": "matched", "targetArchived": True}]
    errors_ = errors(app.dashboard.put("/v1/placements/upsell/rules", {"rules": [home(app.b)]}))
    assert errors_ == {("$.rules[0].paywallId", "paywall_archived")}
    # A placement's own target and a rule, in one warning.
    assert app.dashboard.delete(f"/v1/paywalls/{app.a}").json()["warning"] == (
        "rule 0 of placement 'onboarding', placement 'upsell' keep serving this paywall's last version until they target another paywall.")
    # A paywall nothing targets: no warning.
    lone = published(app, "lone")
    assert "warning" not in app.dashboard.delete(f"/v1/paywalls/{lone}").json()


# --- MCP -----------------------------------------------------------------------------------------

def test_mcp_audiences_and_resolve_with_device_and_trace(routed, server):
    """Through the official MCP SDK: set_audience / list_audiences / delete_audience (in use: refused),
    set_placement_rules with an audience, a cap and a rollout, and resolve_placement with `device`
    answering the trace."""
    app = routed
    modern_ios = {"all": [{"key": "device.platform", "op": "eq", "value": "ios"},
                          {"key": "device.appVersion", "op": "semver_gte", "value": "2.0.0"}]}

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            await s.initialize()
            tools = {t.name for t in (await s.list_tools()).tools}
            assert {"list_audiences", "set_audience", "delete_audience"} <= tools
            created = await call(s, "set_audience", {"id": "modern-ios", "name": "Modern iOS", "condition": modern_ios})
            assert (created["id"], created["name"], created["condition"], created["usedBy"]) == ("modern-ios", "Modern iOS", modern_ios, [])
            nested = await call(s, "set_audience", {"id": "nested", "condition": {"not": {"audience": "modern-ios"}}}, expect_error=True)
            assert nested["error"]["status"] == 422
            assert {(e["path"], e["code"]) for e in nested["error"]["errors"]} == {("$.condition.not.audience", "nested_audience")}

            ruled = await call(s, "set_placement_rules", {"placement": "onboarding", "rules": [
                {"when": {"audience": "modern-ios"}, "paywallId": app.a, "frequencyCap": {"count": 3, "per": "week"}},
                {"when": {"rollout": {"percent": 100}}, "paywallId": app.b}]})
            assert ruled["rules"][0]["frequencyCap"] == {"count": 3, "seconds": 604_800}
            assert ruled["rules"][1]["when"]["rollout"]["percent"] == 100 and ruled["rules"][1]["when"]["rollout"]["seed"]
            listed = await call(s, "list_audiences", {})
            assert [(a["id"], a["usedBy"]) for a in listed["items"]] == [("modern-ios", [{"placement": "onboarding", "rule": 0}])]

            hit = await call(s, "resolve_placement", {"placement": "onboarding", "device": {"platform": "iOS", "appVersion": "2.1"}})
            assert (hit["matchedRule"], hit["paywallId"], hit["fallback"]) == (0, app.a, False)
            assert hit["trace"] == [{"rule": 0, "outcome": "matched", "frequencyCap": {"count": 3, "seconds": 604_800}},
                                    {"rule": 1, "outcome": "not_reached"}]
            miss = await call(s, "resolve_placement", {"placement": "onboarding", "subscriberId": "m-1",
                                                       "device": {"platform": "ios", "appVersion": "1.9.9"}})
            assert (miss["matchedRule"], miss["paywallId"], miss["fallback"]) == (1, app.b, False)
            assert without_messages(miss["trace"][0]) == {"rule": 0, "outcome": "not_matched", "failed": {
                "path": "$.rules[0].when", "reason": "audience_not_matched", "audience": "modern-ios",
                "failures": [{"path": "$.all[1]", "reason": "compared", "key": "device.appVersion", "op": "semver_gte",
                              "value": "2.0.0", "saw": "1.9.9"}]}}
            nobody = await call(s, "resolve_placement", {"placement": "onboarding", "device": {"platform": "android"}})
            assert (nobody["matchedRule"], nobody["paywallId"], nobody["fallback"]) == (None, app.fallback, True)
            assert without_messages(nobody["trace"][1]) == {"rule": 1, "outcome": "not_matched", "failed": {"path": "$.rules[1].when", "reason": "no_subscriber"}}
            bad_country = await call(s, "resolve_placement", {"placement": "onboarding", "device": {"country": "Germany"}}, expect_error=True)
            assert bad_country["error"]["code"] == "invalid_country" and bad_country["error"]["status"] == 400

            in_use = await call(s, "delete_audience", {"id": "modern-ios"}, expect_error=True)
            assert in_use["error"]["code"] == "audience_in_use" and in_use["error"]["status"] == 409
            await call(s, "set_placement_rules", {"placement": "onboarding", "rules": []})
            assert await call(s, "delete_audience", {"id": "modern-ios"}) == {"deleted": "modern-ios"}
            assert (await call(s, "list_audiences", {}))["items"] == []

    run(flow())
    # What MCP wrote is what REST reads.
    assert app.dashboard.get("/v1/audiences").json()["items"] == []
    assert app.dashboard.get("/v1/placements/onboarding").json()["rules"] == []


# --- OpenAPI conformance of the new answers ------------------------------------------------------

def component_validator(document, name):
    return jsonschema.Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": document["components"]})


def test_targeting_answers_match_their_documented_schemas(routed):
    """Real answers of the new and changed operations validate against the component schemas the server
    documents in GET /openapi.json: audiences, placements with warnings, caps and rollouts, a resolution
    whose trace holds every outcome and failure kind, subscriber attributes and deletion, paywall summaries."""
    app = routed
    document = app.dashboard.get("/openapi.json").json()

    def check(name, body):
        errors_ = sorted(e.message for e in component_validator(document, name).iter_errors(body))
        assert not errors_, (name, body, errors_)

    audience = app.dashboard.put("/v1/audiences/dach", {"name": "DACH", "condition": DACH})
    check("Audience", audience.json())
    unpublished = app.create_paywall("clean", name="unpublished")
    # A subscriber outside the fixed 50 % rollout: one dry run meets every outcome and most failure kinds.
    subscriber = next(f"c-{i}" for i in range(100) if rollout_bucket("fixed", f"c-{i}") >= 5000)
    written = set_rules(app, [
        {"when": {"audience": "dach"}, "paywallId": app.a},
        {"when": {"any": [{"key": "tier", "op": "in", "value": ["gold"]}, {"key": "device.appVersion", "op": "semver_gt", "value": "3.0"}]},
         "paywallId": app.a},
        {"when": {"rollout": {"percent": 50, "seed": "fixed"}}, "paywallId": app.a},
        home(app.a, activeFrom=now_ms() + DAY_MS, activeUntil=now_ms() + 2 * DAY_MS),
        home(app.b, frequencyCap={"count": 1, "per": "day"}),
        home(unpublished),
        home(app.fallback),
        {"when": {"rollout": {"percent": 12.5}}, "paywallId": app.a},
    ])
    check("Placement", written)
    assert [w["code"] for w in written["warnings"]] == ["target_unpublished"]
    check("Placement", app.dashboard.get("/v1/placements/onboarding").json())
    check("PlacementList", app.dashboard.get("/v1/placements").json())
    check("AudienceList", app.dashboard.get("/v1/audiences").json())
    check("Audience", app.dashboard.get("/v1/audiences/dach").json())
    send_events(app, [open_event(app.b, subscriber, now_ms() - 1000)])
    resolved = dry(app, subscriberId=subscriber, **{"context.country": "FR", "context.screen": "home", "device.appVersion": "2.0"})
    check("Resolution", resolved)
    assert [t["outcome"] for t in resolved["trace"]] == ["not_matched", "not_matched", "not_matched", "inactive", "capped",
                                                         "target_unpublished", "matched", "not_reached"], resolved["trace"]
    assert [t["failed"]["reason"] for t in resolved["trace"][:3]] == ["audience_not_matched", "none_matched", "outside_rollout"]
    nobody = dry(app, **{"context.screen": "home"})
    assert nobody["trace"][2]["failed"]["reason"] == "no_subscriber"
    check("Resolution", nobody)

    attributes = app.sdk.put("/v1/sdk/subscribers/c-1/attributes", {"attributes": {"plan": "pro", "n": 1.5, "beta": False}})
    check("SubscriberAttributes", attributes.json())
    check("SubscriberAttributes", app.dashboard.get("/v1/subscribers/c-1/attributes").json())
    check("SubscriberAttributes", app.dashboard.get("/v1/subscribers/nobody/attributes").json())
    check("SubscriberDeletion", app.dashboard.delete("/v1/subscribers/c-1").json())

    check("PaywallSummary", app.dashboard.get(f"/v1/paywalls/{app.a}").json())
    check("PaywallPage", app.dashboard.get("/v1/paywalls").json())
    archived = app.dashboard.delete(f"/v1/paywalls/{app.b}").json()
    assert "warning" in archived
    check("ArchivedPaywall", archived)
    check("Problem", app.dashboard.delete("/v1/audiences/dach").json())
    check("Problem", app.dashboard.put("/v1/audiences/x", {"condition": {"audience": "dach"}}).json())


def test_a_two_decimal_rollout_percent_matches_the_documented_schema(routed):
    """`percent` takes up to two decimals (33.33 is accepted and answered back as written); the answer must
    validate against the served Placement schema with a standard JSON Schema validator. (Fails while the
    schema says `multipleOf: 0.01`, which binary floating point makes false for 33.33, 0.07 or 0.29.)"""
    app = routed
    document = app.dashboard.get("/openapi.json").json()
    written = set_rules(app, [{"when": {"rollout": {"percent": 33.33, "seed": "s"}}, "paywallId": app.a},
                              {"when": {"rollout": {"percent": 0.07, "seed": "t"}}, "paywallId": app.a}])
    assert [r["when"]["rollout"]["percent"] for r in written["rules"]] == [33.33, 0.07]
    errors_ = sorted(e.message for e in component_validator(document, "Placement").iter_errors(written))
    assert not errors_, errors_


# --- what a dry run shows of a subscriber ----------------------------------------------------------

def test_a_dry_run_shows_subscriber_values_and_counts_only_to_an_analytics_key(routed, server):
    """A key that may not read a subscriber's attributes (`GET /v1/subscribers/…` needs `analytics`)
    does not read them through the dry run's trace either, nor how often the subscriber saw a paywall:
    the trace says which rule read them (`reason: hidden`, `hidden: analytics`). REST and MCP alike."""
    app = routed
    set_rules(app, [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": app.a},
                    {"when": {"any": [{"key": "subscriber.age", "op": "gte", "value": 30}, {"key": "context.promo", "op": "exists"}]},
                     "paywallId": app.b, "frequencyCap": {"count": 1, "per": "day"}}])
    assert app.sdk.put("/v1/sdk/subscribers/u-9/attributes", {"attributes": {"plan": "free", "age": 21}}).status_code == 200
    r = app.sdk.post("/v1/sdk/events", {"events": [{"id": uuid.uuid4().hex, "name": "paywall_open", "timestamp": now_ms(),
                                                    "placement": "onboarding", "paywallId": app.b, "version": 1, "subscriberId": "u-9"}]})
    assert r.status_code == 202 and r.json()["accepted"] == 1, r.text
    reader_key = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read"]}).json()["key"]
    analyst_key = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read", "analytics"]}).json()["key"]
    params = {"subscriberId": "u-9", "context.promo": "yes"}

    def traced(key):
        r = app.dashboard.get("/v1/placements/onboarding/resolve", params=params, key=key)
        assert r.status_code == 200, r.text
        return r.json()["trace"]

    seen = without_messages(traced(analyst_key))
    assert seen[0]["failed"] == {"path": "$.rules[0].when", "reason": "compared", "key": "subscriber.plan", "op": "eq",
                                 "value": "pro", "saw": "free"}
    assert seen[1] == {"rule": 1, "outcome": "capped", "presentations": 1, "frequencyCap": {"count": 1, "seconds": 86_400}}
    hidden = without_messages(traced(reader_key))
    assert hidden[0]["failed"] == {"path": "$.rules[0].when", "reason": "hidden", "key": "subscriber.plan", "op": "eq",
                                   "value": "pro", "hidden": "analytics"}
    assert hidden[1] == {"rule": 1, "outcome": "capped", "hidden": "analytics", "frequencyCap": {"count": 1, "seconds": 86_400}}
    assert "free" not in str(hidden) and "21" not in str(hidden)
    assert "free" not in str(traced(reader_key)), "nor in the words of the failure"
    # The answer itself (which paywall) is the same for both: only the subscriber's data is withheld.
    assert dry(app, **params)["paywallId"] == app.fallback

    async def flow():
        async with mcp_session(server, reader_key) as s:
            await s.initialize()
            out = await call(s, "resolve_placement", {"placement": "onboarding", "subscriberId": "u-9", "context": {"promo": "yes"}})
            assert without_messages(out["trace"]) == hidden
    run(flow())


# --- frictions of the console's rule builder (issue 36) ---------------------------------------------

def test_a_number_compared_with_a_device_attribute_is_warned_at_write_time(routed):
    """A request attribute is always a string, so `device.appVersion eq 2.1` (the number) can never
    match: the rules' and the audience's write answers say so (`never_matches`, at the value), while the
    same comparison with a string, a version operator or a context key draws no warning."""
    app = routed
    written = set_rules(app, [
        {"when": {"all": [{"key": "device.appVersion", "op": "eq", "value": 2.1},
                          {"key": "device.osVersion", "op": "in", "value": ["17", 18]},
                          {"key": "device.sdkVersion", "op": "between", "value": [1, 3]}]}, "paywallId": app.a},
        {"when": {"all": [{"key": "device.appVersion", "op": "eq", "value": "2.1"},
                          {"key": "device.appVersion", "op": "semver_gte", "value": "2.1"},
                          {"key": "context.visits", "op": "gt", "value": 3}]}, "paywallId": app.b}])
    warned = {(w["path"], w["code"]) for w in written["warnings"]}
    assert warned == {("$.rules[0].when.all[0].value", "never_matches"), ("$.rules[0].when.all[1].value", "never_matches"),
                      ("$.rules[0].when.all[2].value", "never_matches")}, written["warnings"]
    first = next(w for w in written["warnings"] if w["path"] == "$.rules[0].when.all[0].value")
    assert "device.appVersion" in first["message"] and '"2.1"' in first["message"], first
    # Stored as written (a warning, not a refusal), and it indeed never matches.
    assert dry(app, **{"device.appVersion": "2.1", "device.osVersion": "18", "device.sdkVersion": "2",
                       "context.visits": "4"})["matchedRule"] == 1

    r = app.dashboard.put("/v1/audiences/old_ios", {"condition": {"key": "device.osVersion", "op": "lt", "value": 16}})
    assert r.status_code == 201, r.text
    assert [(w["path"], w["code"]) for w in r.json()["warnings"]] == [("$.condition.value", "never_matches")]
    assert "warnings" not in app.dashboard.get("/v1/audiences/old_ios").json(), "a write's answer only"
    r = app.dashboard.put("/v1/audiences/old_ios", {"condition": {"key": "device.osVersion", "op": "semver_lt", "value": "16"}})
    assert r.status_code == 200 and "warnings" not in r.json(), r.text


def test_a_trace_failure_says_in_words_what_was_compared(routed):
    """Each failure of the dry run's trace keeps its fields (path, reason, key, op, value, saw) and adds
    `message`: the key, the operator, the expected value and the one the request had, in words."""
    app = routed
    set_rules(app, [{"when": {"all": [{"key": "context.screen", "op": "exists"},
                                      {"key": "device.appVersion", "op": "semver_gte", "value": "2.1"}]}, "paywallId": app.a},
                    {"when": {"key": "context.plan", "op": "eq", "value": "pro"}, "paywallId": app.b}])
    r = app.dashboard.get("/v1/placements/onboarding/resolve", params={"context.screen": "home", "device.appVersion": "2.0.9"})
    assert r.status_code == 200, r.text
    first, second = (step["failed"] for step in r.json()["trace"])
    assert first == {"path": "$.rules[0].when.all[1]", "reason": "compared", "key": "device.appVersion", "op": "semver_gte",
                     "value": "2.1", "saw": "2.0.9",
                     "message": 'device.appVersion semver_gte "2.1" did not hold: the request had "2.0.9".'}
    assert second["message"] == 'context.plan eq "pro" did not hold: the request has no context.plan.'


def test_the_targeting_keys_offer_device_attributes_audiences_and_the_keys_the_data_shows(routed):
    """GET /v1/targeting/keys: every device attribute, the app's audiences, and the subscriber attribute and
    context keys found in the app's stored data (sorted, namespaced) — none of another app's."""
    app = routed
    assert app.sdk.put("/v1/sdk/subscribers/k-1/attributes", {"attributes": {"tier": "gold", "sessions": 3}}).status_code == 200
    assert app.sdk.put("/v1/sdk/subscribers/k-2/attributes", {"attributes": {"beta": True}}).status_code == 200
    event = {**open_event(app.a, "k-1", now_ms(), name="paywall_close"), "context": {"cohort": "a", "screen": "home"}}
    send_events(app, [event])
    assert app.dashboard.put("/v1/audiences/dach", {"name": "German-speaking",
                                                    "condition": {"key": "device.country", "op": "in", "value": ["DE"]}}).status_code == 201
    other = App(app.server, create_app(app.server.base, "Keys elsewhere"))
    assert other.sdk.put("/v1/sdk/subscribers/x-1/attributes", {"attributes": {"secret_elsewhere": 1}}).status_code == 200

    r = app.dashboard.get("/v1/targeting/keys")
    assert r.status_code == 200, r.text
    assert r.json() == {
        "device": ["device.platform", "device.appVersion", "device.sdkVersion", "device.osVersion", "device.locale", "device.country"],
        "audiences": [{"id": "dach", "name": "German-speaking"}],
        "subscriber": ["subscriber.beta", "subscriber.sessions", "subscriber.tier"],
        "context": ["context.cohort", "context.screen"]}
    assert other.dashboard.get("/v1/targeting/keys").json()["subscriber"] == ["subscriber.secret_elsewhere"]


def test_a_paywall_served_through_an_experiment_is_targeted_by_it(routed):
    """A paywall that is a variant of an experiment a placement or rule runs is in its `targetedBy` (and
    `placements`), with the experiment named; the archive warning says "via experiment"; once the
    experiment is stopped only what targets the paywall itself remains."""
    app = routed
    challenger = published(app, "Challenger")
    exp = app.dashboard.post("/v1/experiments", {"name": "Spring test", "variants": [
        {"paywallId": app.a, "weight": 50}, {"paywallId": challenger, "weight": 50}]})
    assert exp.status_code == 201, exp.text
    exp_id = exp.json()["id"]
    assert app.dashboard.put("/v1/placements/upsell", {"experimentId": exp_id}).status_code == 200
    set_rules(app, [{"when": {"key": "context.screen", "op": "eq", "value": "home"}, "experimentId": exp_id}])
    via = {"experimentId": exp_id, "experimentName": "Spring test"}
    summary = app.dashboard.get(f"/v1/paywalls/{challenger}").json()
    assert summary["targetedBy"] == [{"placement": "onboarding", "rule": 0, **via}, {"placement": "upsell", "rule": None, **via}]
    assert summary["placements"] == ["onboarding", "upsell"]
    # The control: once per placement and rule, through the experiment.
    control = app.dashboard.get(f"/v1/paywalls/{app.a}").json()
    assert control["targetedBy"] == [{"placement": "onboarding", "rule": 0, **via}, {"placement": "upsell", "rule": None, **via}]
    listed = {p["id"]: p for p in app.dashboard.get("/v1/paywalls").json()["items"]}
    assert listed[challenger]["targetedBy"] == summary["targetedBy"]

    assert app.dashboard.post(f"/v1/experiments/{exp_id}/start").status_code == 200
    archived = app.dashboard.delete(f"/v1/paywalls/{challenger}")
    assert archived.status_code == 200, archived.text
    assert archived.json()["warning"] == ("rule 0 of placement 'onboarding' (via experiment 'Spring test'), placement 'upsell' "
                                          "(via experiment 'Spring test') keep serving this paywall's last version until they "
                                          "target another paywall.")
    assert app.dashboard.post(f"/v1/paywalls/{challenger}/unarchive").status_code == 200
    assert app.dashboard.post(f"/v1/experiments/{exp_id}/stop").status_code == 200
    assert app.dashboard.get(f"/v1/paywalls/{challenger}").json()["targetedBy"] == []
    assert app.dashboard.get(f"/v1/paywalls/{app.a}").json()["targetedBy"] == [
        {"placement": "onboarding", "rule": 0}, {"placement": "upsell", "rule": None}]
