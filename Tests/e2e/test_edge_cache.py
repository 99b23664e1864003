"""Edge delivery (issue 40) through Varnish with the VCL operators are given (Config/varnish/xizor.vcl),
in front of a real `xizor serve` whose purges (`cache.purgeURLs`) go to that Varnish.

Done when: a second device's request for a placement nothing of the subscriber decides is a cache
hit; two apps with the same placement key never see each other's answer; a publish is visible
through the cache within a second (purge), and within s-maxage when purges are lost; with the origin
stopped the cache keeps answering (stale-if-error); subscriber-dependent answers are never cached; an
experiment's variants are served from the cache to clients that bucket themselves, with the server's
split; Vary names only what decided the answer; answers are signed and the signature verifies with
the published keys (on a 304 too).

Hits are read from Varnish's `X-Varnish` (two ids on a hit) and the VCL's `X-Cache`; what reached
the origin from its own /metrics (`xizor_http_requests_total` of the path form's route).
"""
import base64
import hashlib
import re
import time
import uuid

import pytest
import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from conftest import run_cli
from varnish import free_port, running_varnish
from xizor_server import ADMIN_TOKEN, App, Client, create_app
from edge_cache import (EDGE_PATH, JSON, SHORT_S_MAXAGE, SHORT_SWR, Edge, edge_server, hit, placed_app,
                        published, set_rules, until, vary)


@pytest.fixture(scope="module")
def edge(tmp_path_factory):
    """The defaults (s-maxage 60, stale-while-revalidate 30, stale-if-error 86400), purges to Varnish.
    Every test makes apps of its own, so they share this one server and cache."""
    directory, port = tmp_path_factory.mktemp("edge"), free_port()
    server = edge_server(directory, port)
    try:
        with running_varnish(directory / "varnish", server.port, port=port) as varnish:
            yield Edge(server, varnish)
    finally:
        assert server.stop() == 0


@pytest.fixture
def short_edge(tmp_path, varnish_in_front):
    """s-maxage 2 and stale-while-revalidate 1, and every purge lost: the purge URL is a closed port."""
    port, closed = free_port(), free_port()
    assert closed != port
    server = edge_server(tmp_path, port, {"XIZOR_CACHE_PURGE_URLS": f"http://127.0.0.1:{closed}/",
                                          "XIZOR_CACHE_SHARED_MAX_AGE_SECONDS": str(SHORT_S_MAXAGE),
                                          "XIZOR_CACHE_STALE_WHILE_REVALIDATE_SECONDS": str(SHORT_SWR)})
    try:
        yield Edge(server, varnish_in_front(server, port=port), purging=False)
    finally:
        assert server.stop() == 0


# --- (a) a second device is a hit -----------------------------------------------------------------

def test_a_second_device_is_answered_from_the_cache(edge):
    app = placed_app(edge)
    before, hits = edge.origin_requests(), edge.varnish.stats()["MAIN.cache_hit"]
    first = edge.get(app, subscriber="device-1")
    assert first.status_code == 200, first.text
    assert first.headers["Cache-Control"] == "public, max-age=0, s-maxage=60, stale-while-revalidate=30, stale-if-error=86400"
    assert first.headers["X-Xizor-App"] == app.id and first.headers["X-Xizor-Placement"] == "onboarding"
    assert first.json()["paywallId"] == app.paywall and not hit(first) and first.headers["X-Cache"] == "MISS"
    # Another subscriber, an SDK that also sends its key, no subscriber at all: the same stored answer.
    for headers in [{"X-Xizor-Subscriber-Id": "device-2"},
                    {"X-Xizor-Subscriber-Id": "device-3", "Authorization": f"Bearer {app.public_key}"}, {}]:
        again = edge.get(app, headers=headers)
        assert again.status_code == 200 and hit(again) and again.headers["X-Cache"] == "HIT", again.headers
        assert again.content == first.content and again.headers["ETag"] == first.headers["ETag"]
        assert again.headers["X-Xizor-Signature"] == first.headers["X-Xizor-Signature"]
    assert edge.origin_requests() == before + 1, "only the first request reached the origin"
    # Varnish's own counters (workers add theirs to the totals when idle, so not at once).
    until(lambda: edge.varnish.stats()["MAIN.cache_hit"] >= hits + 3, within=5, step=0.2)
    # The old endpoint is passed (Authorization-keyed, `no-cache`): every request reaches the origin.
    old = [edge.old(app, subscriberId=f"device-{i}") for i in range(2)]
    assert all(r.status_code == 200 and not hit(r) and r.headers["Cache-Control"] == "no-cache" for r in old)


# --- (b) apps never see each other's answers ------------------------------------------------------

def test_two_apps_with_one_placement_key_never_share_an_answer(edge):
    alpha, beta = placed_app(edge, "Alpha"), placed_app(edge, "Beta")
    assert alpha.paywall != beta.paywall
    for i in range(3):
        for app in (alpha, beta):
            r = edge.get(app, subscriber=f"s-{i}")
            assert r.status_code == 200 and r.json()["paywallId"] == app.paywall, (app.id, r.text)
            assert r.headers["X-Xizor-App"] == app.id
            assert hit(r) == (i > 0)
    # The key in Authorization is ignored on the path form (and dropped by the VCL): the path decides.
    crossed = edge.get(beta, headers={"Authorization": f"Bearer {alpha.public_key}"})
    assert crossed.json()["paywallId"] == beta.paywall and hit(crossed)
    # A path naming no app's key is the origin's 401, never a stored answer.
    forged = edge.session.get(edge.varnish.base + EDGE_PATH.format(alpha.public_key[:-2] + "zz", "onboarding"),
                              headers=JSON, timeout=30)
    assert forged.status_code == 401 and alpha.paywall not in forged.text
    # Alpha's publish purges Alpha only: Beta's answer is still a hit.
    sent = edge.purges("sent")
    version = alpha.publish(alpha.paywall)["version"]
    until(lambda: edge.get(alpha).json()["version"] == version, within=1)
    assert edge.purges("sent") > sent
    still = edge.get(beta)
    assert hit(still) and still.json()["paywallId"] == beta.paywall and still.json()["version"] == 1


# --- (c) changes are visible: purged at once, or within s-maxage ----------------------------------

def test_a_publish_is_visible_through_the_cache_within_a_second(edge):
    with edge.settled():
        app = placed_app(edge)
        app.assign("settings", app.paywall)
        other = published(app, "cinematic", name="Other")
    home = {"context.screen": "home"}
    for placement, params in [("onboarding", None), ("settings", None), ("onboarding", home)]:
        assert edge.get(app, placement, params=params).json()["version"] == 1
        assert hit(edge.get(app, placement, params=params))
    # A publish: every placement of the app is purged.
    mark = edge.mark()
    version = app.publish(app.paywall)["version"]
    until(lambda: edge.get(app).json()["version"] == version, within=1)
    assert edge.get(app, "settings").json()["version"] == version
    edge.settle(mark)
    # A placement moved to another paywall: visible as fast; only that placement was purged.
    assert hit(edge.get(app)) and hit(edge.get(app, "settings"))
    mark = edge.mark()
    app.assign("settings", other)
    until(lambda: edge.get(app, "settings").json()["paywallId"] == other, within=1)
    edge.settle(mark)
    assert hit(edge.get(app)), "a change to one placement purges that placement (X-Xizor-Placement)"
    # Rules: a context rule added to onboarding routes its stored answers within a second.
    assert edge.get(app, params=home).json()["paywallId"] == app.paywall
    set_rules(app, [{"when": {"key": "context.screen", "op": "eq", "value": "home"}, "paywallId": other}])
    until(lambda: edge.get(app, params=home).json()["paywallId"] == other, within=1)
    assert edge.get(app).json()["paywallId"] == app.paywall
    # A placement that did not exist: its 404 is not kept (the VCL stores only what says how long),
    # so the placement created next is served at once.
    assert [edge.get(app, "later").status_code for _ in range(2)] == [404, 404]
    app.assign("later", other)
    assert edge.get(app, "later").json()["paywallId"] == other


def test_an_archived_apps_answers_leave_the_cache_within_a_second(edge):
    app = placed_app(edge)
    edge.get(app)
    assert hit(edge.get(app))
    assert Client(edge.server.base, ADMIN_TOKEN).delete(f"/v1/apps/{app.id}").status_code == 204
    until(lambda: edge.get(app).status_code == 401, within=1)


def test_with_purges_lost_a_publish_is_visible_within_s_maxage(short_edge):
    edge = short_edge
    app = placed_app(edge)
    first = edge.get(app)
    assert first.headers["Cache-Control"].startswith(f"public, max-age=0, s-maxage={SHORT_S_MAXAGE}, "
                                                     f"stale-while-revalidate={SHORT_SWR}, ")
    # Past s-maxage and stale-while-revalidate, with the origin up, the cache asks before answering:
    # the first request sees the publish (the VCL caps the grace at the answer's own window).
    time.sleep(SHORT_S_MAXAGE + SHORT_SWR + 0.3)
    version = app.publish(app.paywall)["version"]
    fresh = edge.get(app)
    assert fresh.json()["version"] == version and fresh.headers["X-Cache"] == "MISS", fresh.headers
    cached_at, old = time.monotonic(), version
    version = app.publish(app.paywall)["version"]
    # The purge went to a closed port (the server counts it failed, to retry): the cache still serves
    # the previous version...
    stale = edge.get(app)
    assert hit(stale) and stale.json()["version"] == old
    until(lambda: edge.purges("failed") > 0, within=2)
    assert edge.purges("sent") == 0
    # ...until s-maxage runs out: then at most one request within stale-while-revalidate gets the old
    # answer while Varnish asks the origin again.
    until(lambda: edge.get(app).json()["version"] == version, within=SHORT_S_MAXAGE + SHORT_SWR + 1)
    assert time.monotonic() - cached_at <= SHORT_S_MAXAGE + 1.0


# --- (d) the origin stopped: stale-if-error -------------------------------------------------------

def test_with_the_origin_stopped_the_cache_keeps_answering(short_edge):
    edge = short_edge
    app = placed_app(edge)
    first = edge.get(app)
    dark = edge.get(app, params={"colorScheme": "dark"})
    assert first.status_code == dark.status_code == 200
    # Past s-maxage and stale-while-revalidate: a request now would wait for the origin.
    time.sleep(SHORT_S_MAXAGE + SHORT_SWR + 0.3)
    assert edge.server.stop() == 0
    # At once, before the probe can have noticed: the fetch fails and the stale answer is served.
    r = edge.get(app, subscriber="after-stop")
    assert r.status_code == 200 and r.content == first.content and r.headers["X-Cache"] == "HIT-STALE", r.headers
    edge.varnish.wait_backend(healthy=False, timeout=5)
    for i in range(5):
        r = edge.get(app, subscriber=f"d-{i}")
        assert r.status_code == 200 and r.content == first.content and hit(r)
    assert edge.get(app, params={"colorScheme": "dark"}).content == dark.content
    # What was never stored cannot be served.
    assert edge.get(app, params={"colorScheme": "light", "locale": "de"}).status_code == 503


# --- (e) subscriber-dependent answers are never stored --------------------------------------------

def rollout_bucket(seed, subscriber):
    digest = hashlib.sha256(f"rollout:{seed}:{subscriber}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000


@pytest.mark.parametrize("kind", ["subscriber_attribute", "frequency_cap", "rollout"])
def test_subscriber_dependent_answers_are_never_cached(edge, kind):
    app = placed_app(edge)
    special = published(app, "cinematic", name="Special")
    params = None
    if kind == "subscriber_attribute":
        set_rules(app, [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": special}])
        assert app.sdk.put("/v1/sdk/subscribers/pro-1/attributes", {"attributes": {"plan": "pro"}}).status_code == 200
        inside, outside = "pro-1", "free-1"
    elif kind == "frequency_cap":
        params = {"context.screen": "home"}
        set_rules(app, [{"when": {"key": "context.screen", "op": "eq", "value": "home"}, "paywallId": special,
                         "frequencyCap": {"count": 1, "per": "day"}}])
        outside, inside = "capped-1", "fresh-1"
        r = app.sdk.post("/v1/sdk/events", {"events": [{
            "id": str(uuid.uuid4()), "name": "paywall_open", "timestamp": int(time.time() * 1000) - 1000,
            "placement": "onboarding", "paywallId": special, "version": 1, "subscriberId": outside}]})
        assert r.status_code == 202, r.text
    else:
        seed = set_rules(app, [{"when": {"rollout": {"percent": 50}}, "paywallId": special}])["rules"][0]["when"]["rollout"]["seed"]
        candidates = [f"r-{i}" for i in range(100)]
        inside = next(s for s in candidates if rollout_bucket(seed, s) < 5_000)
        outside = next(s for s in candidates if rollout_bucket(seed, s) >= 5_000)
    before = edge.origin_requests()
    # No subscriber first: whatever it is answered must not be stored for the subscribers after it.
    sequence = [None, inside, outside, inside, outside, None]
    answers = [edge.get(app, subscriber=s, params=params) for s in sequence]
    for subscriber, r in zip(sequence, answers):
        assert r.status_code == 200, r.text
        assert not hit(r) and r.headers["X-Cache"] in ("MISS", "PASS"), (kind, subscriber, r.headers)
        assert r.headers["Cache-Control"] == "private, no-cache", (kind, subscriber, r.headers)
        if subscriber == inside:
            assert r.json()["paywallId"] == special, (kind, subscriber)
        elif subscriber == outside:
            assert r.json()["paywallId"] == app.paywall, (kind, subscriber)
    assert edge.origin_requests() == before + len(sequence), "every request reached the origin"


# --- (f) experiments: a cached allocation, cached variants, the server's split ---------------------

def client_bucket(experiment_id, subscriber):
    """XizorKit's bucket (the server's Allocation.bucket): SHA-256("<experimentId>:<subscriberId>"),
    the first 8 bytes big-endian, mod 10,000."""
    digest = hashlib.sha256(f"{experiment_id}:{subscriber}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000


def variant_of(allocation, bucket):
    for r in allocation["ranges"]:
        if r["from"] <= bucket < r["to"]:
            return r["variant"]
    raise AssertionError(f"no range holds bucket {bucket}: {allocation['ranges']}")


def test_experiment_variants_are_served_from_the_cache_with_the_servers_split(edge):
    with edge.settled():
        app = App(edge.server, create_app(edge.server.base, "Experiment at the edge"))
        control, challenger = published(app, "clean", name="Control"), published(app, "cinematic", name="B")
        exp = app.dashboard.post("/v1/experiments", {"name": "Edge split", "holdoutWeight": 1, "variants": [
            {"paywallId": control, "weight": 2}, {"paywallId": challenger, "weight": 1, "name": "b"}]}).json()
        app.assign("onboarding", control)
        assert app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp["id"]}).status_code == 200
        assert app.dashboard.post(f"/v1/experiments/{exp['id']}/start").json()["status"] == "running"
    before = edge.origin_requests()

    first = edge.get(app, subscriber="alloc-1")
    assert first.status_code == 200, first.text
    assert first.headers["X-Xizor-Allocation"] == "1" and first.headers["X-Xizor-Experiment"] == exp["id"]
    assert first.headers["Cache-Control"].startswith("public, max-age=0, s-maxage=60")
    body = first.json()
    assert body["placement"] == "onboarding" and set(body) == {"placement", "allocation"}
    allocation = body["allocation"]
    assert allocation["experimentId"] == exp["id"] and allocation["buckets"] == 10_000
    ranges = allocation["ranges"]
    assert ranges[0]["from"] == 0 and ranges[-1]["to"] == 10_000
    assert all(a["to"] == b["from"] for a, b in zip(ranges, ranges[1:])), ranges
    assert {r["variant"] for r in ranges} == {"control", "b", None}
    paywall_of = {v["name"]: v["paywallId"] for v in allocation["variants"]}
    assert paywall_of == {"control": control, "b": challenger}
    assert hit(edge.get(app, subscriber="alloc-2")) and hit(edge.get(app))

    shown = {"control": 0, "b": 0, None: 0}
    for i in range(200):
        subscriber = f"edge-sub-{i}"
        variant = variant_of(allocation, client_bucket(exp["id"], subscriber))
        shown[variant] += 1
        # The server's own assignment (old endpoint, the subscriber in the query).
        server = edge.old(app, subscriberId=subscriber)
        if variant is None:
            assert server.status_code == 204 and server.headers["X-Xizor-Holdout"] == exp["id"], (subscriber, server.text)
            continue
        assert server.status_code == 200 and server.json()["experiment"]["variant"] == variant, (subscriber, server.text)
        # The client's own request for its variant: the client's params, then experiment, variant.
        r = edge.get(app, subscriber=subscriber, params=[("experiment", exp["id"]), ("variant", variant)])
        assert r.status_code == 200, r.text
        served = r.json()
        assert served["paywallId"] == paywall_of[variant] == server.json()["paywallId"]
        assert served["experiment"] == {"id": exp["id"], "variant": variant, "holdout": False, "assignment": "client"}
        assert r.headers["X-Xizor-Experiment"] == exp["id"] and r.headers["X-Xizor-Variant"] == variant
        assert r.headers["Cache-Control"].startswith("public, ")
    assert all(n > 20 for n in shown.values()), shown  # 50 / 25 / 25 of 200, loosely
    # The origin answered the allocation once and each variant once; everything else was the cache's.
    assert edge.origin_requests() == before + 3
    # The subscriber in a header on the old endpoint is the same subscriber (spec: also accepted there).
    some = next(f"edge-sub-{i}" for i in range(200) if variant_of(allocation, client_bucket(exp["id"], f"edge-sub-{i}")))
    by_header = edge.old(app, headers={"X-Xizor-Subscriber-Id": some})
    assert by_header.json()["experiment"]["variant"] == variant_of(allocation, client_bucket(exp["id"], some))
    missing = edge.get(app, params=[("experiment", exp["id"]), ("variant", "nope")])
    assert missing.status_code == 404 and missing.json()["code"] == "variant_not_found"


# --- (g) Vary names only what decided the answer ---------------------------------------------------

def test_vary_names_only_what_decided_the_answer(edge):
    with edge.settled():
        app = placed_app(edge)
        ios = published(app, "cinematic", name="iOS")
    pinned = {"locale": "en", "colorScheme": "light"}
    plain = edge.get(app, params=pinned, headers={"X-Xizor-Platform": "ios"})
    assert plain.status_code == 200, plain.text
    assert vary(plain) - {"accept-encoding"} == {"accept", "x-xizor-schema-version"}, plain.headers["Vary"]
    # Without `locale` and `colorScheme` in the URL, the headers standing for them decide (several locales).
    negotiated = edge.get(app)
    assert {"accept-language", "sec-ch-prefers-color-scheme"} <= vary(negotiated)
    assert "x-xizor-platform" not in vary(negotiated) and "x-xizor-subscriber-id" not in vary(negotiated)
    # A device.platform rule: now the platform decides, and each platform is stored apart.
    with edge.settled():
        set_rules(app, [{"when": {"key": "device.platform", "op": "eq", "value": "ios"}, "paywallId": ios}])

    def routed_to_ios():
        r = edge.get(app, params=pinned, headers={"X-Xizor-Platform": "iOS"})
        return r if r.json()["paywallId"] == ios else None

    routed, _ = until(routed_to_ios, within=1)
    assert vary(routed) - {"accept-encoding"} == {"accept", "x-xizor-schema-version", "x-xizor-platform"}, routed.headers["Vary"]
    assert routed.headers["Cache-Control"].startswith("public, ")
    # "IOS" and "ios" are one stored answer (the VCL lower-cases the header); android is another.
    same = edge.get(app, params=pinned, headers={"X-Xizor-Platform": "ios"})
    assert hit(same) and same.json()["paywallId"] == ios
    android = edge.get(app, params=pinned, headers={"X-Xizor-Platform": "android"})
    assert not hit(android) and android.json()["paywallId"] == app.paywall
    assert hit(edge.get(app, params=pinned, headers={"X-Xizor-Platform": "Android"}))
    assert edge.get(app, params=pinned).json()["paywallId"] == app.paywall


# --- (h) signed answers ----------------------------------------------------------------------------

def signing_keys(edge):
    r = edge.session.get(edge.varnish.base + "/v1/sdk/signing-keys", timeout=30)
    assert r.status_code == 200, r.text
    assert "public" in r.headers["Cache-Control"]
    keys = r.json()["keys"]
    assert sum(k["status"] == "current" for k in keys) == 1 and {k["status"] for k in keys} <= {"current", "next", "previous"}
    published_keys = {}
    for k in keys:
        raw = base64.b64decode(k["publicKey"], validate=True)
        assert len(raw) == 32 and k["kid"] == hashlib.sha256(raw).digest()[:8].hex()
        published_keys[k["kid"]] = (k["status"], Ed25519PublicKey.from_public_bytes(raw))
    assert hit(edge.session.get(edge.varnish.base + "/v1/sdk/signing-keys", timeout=30)), "keys are cached"
    return published_keys


def parse_signature(header):
    fields = dict(part.split("=", 1) for part in header.split(";"))
    assert set(fields) == {"kid", "t", "sig"} and re.fullmatch(r"[0-9a-f]{16}", fields["kid"]), header
    assert re.fullmatch(r"[0-9]+", fields["t"]) and "=" not in fields["sig"], header
    sig = base64.urlsafe_b64decode(fields["sig"] + "=" * (-len(fields["sig"]) % 4))
    assert len(sig) == 64
    return fields["kid"], fields["t"], sig


def verify(keys, header, public_key, placement, status, body, nonce=""):
    """The spec's message, verified with the published key the header names (the current one)."""
    kid, t, sig = parse_signature(header)
    status_name, key = keys[kid]
    assert status_name == "current"
    message = "\n".join(["xizor-sdk-signature-v1", public_key, placement, str(status),
                         hashlib.sha256(body).hexdigest(), t, nonce])
    key.verify(sig, message.encode())  # raises InvalidSignature
    return int(t)


def test_answers_are_signed_with_the_published_keys(edge):
    keys = signing_keys(edge)
    app = placed_app(edge)
    # Through the cache, identity and gzip (requests decodes: the signature covers the identity body).
    for encoding in ["identity", "gzip"]:
        r = edge.get(app, headers={"Accept-Encoding": encoding})
        assert r.status_code == 200
        t = verify(keys, r.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, r.content)
        assert abs(t - time.time()) < 120
        # Tampering with any part fails.
        with pytest.raises(InvalidSignature):
            verify(keys, r.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, r.content + b" ")
        with pytest.raises(InvalidSignature):
            verify(keys, r.headers["X-Xizor-Signature"], app.public_key, "upsell", 200, r.content)
        # A 304 repeats the signature of the 200 it confirms: from the cache, and from the origin.
        cached_304 = edge.get(app, headers={"Accept-Encoding": encoding, "If-None-Match": r.headers["ETag"]})
        assert cached_304.status_code == 304 and hit(cached_304) and cached_304.content == b"", (encoding, r.headers, cached_304.headers)
        verify(keys, cached_304.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, r.content)
        origin = requests.get(edge.server.base + EDGE_PATH.format(app.public_key, "onboarding"),
                              headers={**JSON, "Accept-Encoding": encoding}, timeout=30)
        origin_304 = requests.get(edge.server.base + EDGE_PATH.format(app.public_key, "onboarding"),
                                  headers={**JSON, "Accept-Encoding": encoding, "If-None-Match": origin.headers["ETag"]}, timeout=30)
        assert origin_304.status_code == 304
        verify(keys, origin_304.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, origin.content)
    # A nonce is signed in: that answer is the request's own, passed by the cache, never stored.
    nonced = [edge.get(app, headers={"X-Xizor-Nonce": f"nonce-{i}"}) for i in range(2)]
    for i, r in enumerate(nonced):
        assert r.status_code == 200 and not hit(r) and r.headers["Cache-Control"] == "private, no-cache"
        verify(keys, r.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, r.content, nonce=f"nonce-{i}")
    # The old endpoint signs with the key the request used; a holdout's 204 signs the empty body.
    old = edge.old(app)
    verify(keys, old.headers["X-Xizor-Signature"], app.public_key, "onboarding", 200, old.content)
    a, b = published(app, name="A"), published(app, name="B")
    exp = app.dashboard.post("/v1/experiments", {"holdoutWeight": 98, "variants": [
        {"paywallId": a, "weight": 1}, {"paywallId": b, "weight": 1}]}).json()
    app.dashboard.put("/v1/placements/upsell", {"experimentId": exp["id"]})
    app.dashboard.post(f"/v1/experiments/{exp['id']}/start")
    held = next(r for r in (edge.old(app, "upsell", subscriberId=f"h-{i}") for i in range(50)) if r.status_code == 204)
    verify(keys, held.headers["X-Xizor-Signature"], app.public_key, "upsell", 204, b"")


def test_a_rotation_purges_the_published_keys_from_the_cache(edge):
    """`xizor signing-keys rotate` (another process, on the same database) reaches the server through the
    change feed, and its purge evicts the cached keys: apps see the new current key at once, not when
    the keys' max-age (300 s) runs out."""
    def current(keys):
        return next(kid for kid, (status, _) in keys.items() if status == "current")
    before = signing_keys(edge)          # cached: the second read was a hit
    r = edge.session.get(edge.varnish.base + "/v1/sdk/signing-keys", timeout=30)
    assert r.headers["X-Xizor-App"] == "_signing-keys", "tagged for the VCL's bans"
    run_cli("signing-keys", "rotate", "--data-dir", str(edge.server.data_dir))
    until(lambda: current({k["kid"]: (k["status"], None) for k in
                           edge.session.get(edge.varnish.base + "/v1/sdk/signing-keys", timeout=30).json()["keys"]})
          != current(before), within=5)
    after = signing_keys(edge)
    assert after[current(before)][0] == "previous", "the old current key stays published as previous"


# --- the VCL's BAN ---------------------------------------------------------------------------------

def ban(edge, **headers):
    return edge.session.request("BAN", edge.varnish.base + "/", headers={k.replace("_", "-"): v for k, v in headers.items()},
                                timeout=30)


def test_the_vcl_bans_by_app_by_placement_and_everything(edge):
    """What the server's purges rely on: BAN with X-Xizor-App (+ X-Xizor-Placement) evicts exactly
    those answers; `X-Xizor-App: *` evicts every app's; anything else is refused."""
    alpha, beta = placed_app(edge, "Ban alpha"), placed_app(edge, "Ban beta")
    with edge.settled():
        alpha.assign("settings", alpha.paywall)
    stored = [(alpha, "onboarding"), (alpha, "settings"), (beta, "onboarding")]

    def hits():
        return [hit(edge.get(app, placement)) for app, placement in stored]

    hits()
    assert hits() == [True, True, True]
    assert ban(edge, X_Xizor_App=alpha.id, X_Xizor_Placement="settings").status_code == 200
    assert hits() == [True, False, True]
    assert ban(edge, X_Xizor_App=alpha.id).status_code == 200
    assert hits() == [False, False, True]
    assert ban(edge, X_Xizor_App="*").status_code == 200
    assert hits() == [False, False, False]
    assert hits() == [True, True, True]
    for bad in [{}, {"X_Xizor_App": "app x"}, {"X_Xizor_App": "a == b"}, {"X_Xizor_App": alpha.id, "X_Xizor_Placement": "a b"}]:
        assert ban(edge, **bad).status_code == 400, bad
    assert hits() == [True, True, True]
