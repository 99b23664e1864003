"""No tenant can slow down another (issue 35): each finding played by a noisy app with nothing but its
own keys, while a quiet app's SDK revalidation and /healthz are timed from another thread.

For every case: the noisy app's configuration is refused when written with a clear 422/413/429, or
its own requests answer within 250 ms; and the quiet app's SDK request and /healthz answer with a p99
under 50 ms (no single answer over 250 ms) while it happens. Runs on both databases (the PostgreSQL pass runs it again).

Cases: the audience fan-out (1), frequency caps counted over a flood (2), JSON Patch amplification
(3), racing per-app limits (4) and a lock-out attempt (7), internal webhook URLs and a replayed
Idempotency-Key (10, with 5's URL side; the deliveries' fairness is test_webhook_fairness.py), a
read-only key's dry run (6), a preview link outliving its key (8), a subscriber with many events
deleted (9), a subscriber-attribute placement hammered and unknown keys (11: off the I/O loop, in the
app's share of the threads). The race across two replicas is test_limits_under_concurrency.py.
"""
import concurrent.futures
import json
import subprocess
import sys
import threading
import time
import uuid

import pytest
import requests

from xizor_server import App, create_app

QUIET_BOUND_S = 0.050
QUIET_WORST_S = 0.250
NOISY_BOUND_S = 0.250


PROBE = r"""
import http.client, json, sys, time
port, key, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
conn.request("GET", "/v1/sdk/placements/home/paywall", headers={"Authorization": "Bearer " + key})
first = conn.getresponse()
first.read()
etag = first.getheader("ETag")
samples, failures = [], []
print("ready", flush=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline and not failures:
    for path, expected, headers in (("/v1/sdk/placements/home/paywall", 304, {"Authorization": "Bearer " + key, "If-None-Match": etag}),
                                    ("/healthz", 200, {})):
        started = time.perf_counter()
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        r.read()
        samples.append(time.perf_counter() - started)
        if r.status != expected:
            failures.append([path, r.status])
    if sys.stdin in __import__("select").select([sys.stdin], [], [], 0.002)[0]:
        break
print(json.dumps({"samples": samples, "failures": failures}), flush=True)
"""


class QuietProbe:
    """Revalidates the quiet app's paywall and asks /healthz, one after the other, for as long as the
    `with` block runs; `worst` is the slowest answer seen. It runs in a process of its own, so the
    test's own client threads (and Python's interpreter lock) cannot delay it: what it times is the
    server."""

    def __init__(self, quiet):
        self.quiet = quiet

    def __enter__(self):
        self._process = subprocess.Popen([sys.executable, "-c", PROBE, str(self.quiet.server.port), self.quiet.public_key, "120"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout.readline().strip() == "ready"
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        time.sleep(0.05)
        out, _ = self._process.communicate("stop\n", timeout=60)
        result = json.loads(out.strip().splitlines()[-1])
        self.samples = result["samples"]
        print(f"quiet worst {max(self.samples) * 1000:.1f} ms over {len(self.samples)}")
        if exc[0] is not None:
            return
        assert not result["failures"], result["failures"]
        assert len(self.samples) >= 10, "the probe did not run"
        # The p99 is held to the 50 ms; a single sample may meet the scheduler of a 2-core
        # machine running PostgreSQL, the server and both clients of a debug build (77 ms once in
        # CI), so the worst is held to 250 ms: the stalls this suite guards against were seconds.
        ranked = sorted(self.samples)
        p99 = ranked[len(ranked) * 99 // 100]
        assert p99 < QUIET_BOUND_S, f"the quiet app's p99 was {p99 * 1000:.1f} ms ({len(self.samples)} samples)"
        assert self.worst < QUIET_WORST_S, f"the quiet app waited {self.worst * 1000:.1f} ms ({len(self.samples)} samples)"

    @property
    def worst(self):
        return max(self.samples)


@pytest.fixture
def tenants(server):
    quiet = App(server, create_app(server.base, "Quiet"))
    pw = quiet.create_paywall()
    quiet.publish(pw)
    quiet.assign("home", pw)
    noisy = App(server, create_app(server.base, "Noisy"))
    noisy.paywall = noisy.create_paywall()
    noisy.publish(noisy.paywall)
    noisy.assign("home", noisy.paywall)
    return quiet, noisy


def timed(call):
    started = time.perf_counter()
    r = call()
    return r, time.perf_counter() - started


def test_an_audience_fan_out_is_refused_when_written(tenants):
    """Finding 1: a 920 KB audience of 20,000 comparisons, and rules naming one audience 5,000 times."""
    quiet, noisy = tenants
    huge = {"any": [{"key": f"k{i}", "op": "eq", "value": "x"} for i in range(20_000)]}  # ~840 KB
    with QuietProbe(quiet):
        r = noisy.dashboard.put("/v1/audiences/huge", {"condition": huge})
        assert r.status_code == 422 and {e["code"] for e in r.json()["errors"]} == {"evaluation_budget_exceeded"}, r.text[:300]
        ok = noisy.dashboard.put("/v1/audiences/small", {"condition": {"key": "a", "op": "eq", "value": 1}})
        assert ok.status_code in (200, 201), ok.text
        rules = [{"when": {"any": [{"audience": "small"}] * 5_000}, "paywallId": noisy.paywall}]
        r = noisy.dashboard.put("/v1/placements/home/rules", {"rules": rules})
        assert r.status_code == 422 and r.json()["errors"][0]["code"] == "evaluation_budget_exceeded", r.text[:300]
        assert "budget is 10000" in r.json()["errors"][0]["message"]
    # What the budget allows answers the noisy app's own request within bound.
    allowed = [{"when": {"any": [{"audience": "small"}] * 1_200}, "paywallId": noisy.paywall}]
    assert noisy.dashboard.put("/v1/placements/home/rules", {"rules": allowed}).status_code == 200
    r, took = timed(lambda: noisy.sdk.get("/v1/sdk/placements/home/paywall", params={"context.a": "2"}))
    assert r.status_code == 200 and took < NOISY_BOUND_S


def test_a_flood_of_presentations_is_refused_and_caps_read_at_most_their_count(tenants):
    """Finding 2: 100 capped rules, the public key flooding one subscriber with paywall_open events."""
    quiet, noisy = tenants
    rules = [{"when": {"key": "promo", "op": "exists"}, "paywallId": noisy.paywall, "frequencyCap": {"count": 100, "per": "week"}}
             for _ in range(100)]
    r = noisy.dashboard.put("/v1/placements/home/rules", {"rules": rules})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "evaluation_budget_exceeded", r.text[:300]
    rules = [{**rule, "frequencyCap": {"count": 2, "per": "week"}} for rule in rules]
    assert noisy.dashboard.put("/v1/placements/home/rules", {"rules": rules}).status_code == 200
    now = int(time.time() * 1000)

    def batch():
        return {"events": [{"id": uuid.uuid4().hex, "name": "paywall_open", "timestamp": now, "placement": "home",
                            "paywallId": noisy.paywall, "version": 1, "subscriberId": "flood"} for _ in range(500)]}
    with QuietProbe(quiet):
        answers = [noisy.sdk.post("/v1/sdk/events", batch()) for _ in range(4)]
        assert [a.status_code for a in answers[:2]] == [202, 429]
        assert {a.status_code for a in answers[2:]} == {429}
        assert answers[-1].json()["code"] == "subscriber_rate_limited"
        for _ in range(5):
            r, took = timed(lambda: noisy.sdk.get("/v1/sdk/placements/home/paywall",
                                                  params={"subscriberId": "flood", "context.promo": "1"}))
            assert r.status_code == 200 and took < NOISY_BOUND_S, took
    trace = noisy.dashboard.get("/v1/placements/home/resolve", params={"subscriberId": "flood", "context.promo": "1"}).json()["trace"]
    assert trace[0]["outcome"] == "capped" and trace[0]["presentations"] == 2


def test_a_patch_that_amplifies_is_refused_before_it_grows(tenants):
    """Finding 3: copy /root into a list, then the list into itself, fourteen times."""
    quiet, noisy = tenants
    draft = noisy.dashboard.get(f"/v1/paywalls/{noisy.paywall}/draft")
    assert draft.status_code == 200
    patch = [{"op": "add", "path": "/x", "value": []}, {"op": "copy", "from": "/root", "path": "/x/-"}]
    patch += [{"op": "copy", "from": "/x", "path": "/x/-"} for _ in range(14)]
    with QuietProbe(quiet):
        # Its cost, not a scheduler's pause, is what the bound is about: the best of three refusals
        # (each stores nothing). A patch that grew before it was refused would be slow all three times.
        tries = [timed(lambda: noisy.dashboard.request("PATCH", f"/v1/paywalls/{noisy.paywall}/draft", json_body=patch,
                                                      headers={"If-Match": draft.headers["ETag"],
                                                               "Content-Type": "application/json-patch+json"}))
                 for _ in range(3)]
        for r, _ in tries:
            assert r.status_code in (413, 422), r.text[:300]
        assert min(took for _, took in tries) < NOISY_BOUND_S, [took for _, took in tries]
    assert noisy.dashboard.get(f"/v1/paywalls/{noisy.paywall}/draft").headers["ETag"] == draft.headers["ETag"], "nothing stored"


def test_subscriber_attribute_rules_leave_the_io_loop_and_take_only_their_apps_share(tenants):
    """Finding 11: every request of a placement whose rules read stored attributes reads the database;
    hammered from 16 connections, they run on the handler pool in the noisy app's share, not on the I/O
    loops the quiet app's requests are answered on."""
    quiet, noisy = tenants
    rules = [{"when": {"key": f"subscriber.k{i}", "op": "eq", "value": i}, "paywallId": noisy.paywall} for i in range(50)]
    assert noisy.dashboard.put("/v1/placements/home/rules", {"rules": rules}).status_code == 200
    for i in range(20):
        assert noisy.sdk.put(f"/v1/sdk/subscribers/s{i}/attributes", {"attributes": {"k49": 49}}).status_code == 200
    stop = threading.Event()
    slowest = []

    def hammer(worker):
        session = requests.Session()
        headers = {"Authorization": f"Bearer {noisy.public_key}"}
        while not stop.is_set():
            r, took = timed(lambda: session.get(noisy.server.base + "/v1/sdk/placements/home/paywall",
                                                params={"subscriberId": f"s{worker}"}, headers=headers, timeout=10))
            assert r.status_code == 200
            slowest.append(took)

    with QuietProbe(quiet):
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            futures = [pool.submit(hammer, w) for w in range(16)]
            time.sleep(1.5)
            stop.set()
            for f in futures:
                f.result()
    assert len(slowest) > 50 and sorted(slowest)[len(slowest) * 99 // 100] < NOISY_BOUND_S


def test_deleting_a_subscriber_with_many_events_does_not_hold_the_writer(tenants):
    """Finding 9: 5,000 events of one subscriber deleted in chunks while the quiet app keeps writing."""
    quiet, noisy = tenants
    now = int(time.time() * 1000)
    for b in range(10):
        events = [{"id": uuid.uuid4().hex, "name": "paywall_open", "timestamp": now - i, "placement": "home",
                   "paywallId": noisy.paywall, "version": 1, "subscriberId": f"heavy-{b}"} for i in range(500)]
        assert noisy.sdk.post("/v1/sdk/events", {"events": events}).status_code == 202
    writes = []
    stop = threading.Event()

    def quiet_writes():
        while not stop.is_set():
            r, took = timed(lambda: quiet.sdk.put(f"/v1/sdk/subscribers/q-{uuid.uuid4().hex[:6]}/attributes", {"attributes": {"a": 1}}))
            assert r.status_code == 200
            writes.append(took)

    with QuietProbe(quiet):
        writer = threading.Thread(target=quiet_writes, daemon=True)
        writer.start()
        for b in range(10):
            r = noisy.dashboard.delete(f"/v1/subscribers/heavy-{b}")
            assert r.status_code == 200 and r.json()["events"] == 500
        stop.set()
        writer.join(timeout=30)
    assert writes and max(writes) < NOISY_BOUND_S


def test_racing_replicas_and_lock_out_attempts_cost_the_quiet_app_nothing(tenants):
    """Findings 4 and 7: 50 key creations at once past keys.maxPerApp (held: at most 50 live), and a
    `keys`-scoped key revoking every full-access key (the last one is refused, 409)."""
    quiet, noisy = tenants
    scoped = noisy.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["keys"]}).json()
    with QuietProbe(quiet):
        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            codes = list(pool.map(lambda _: noisy.dashboard.post("/v1/keys", {"kind": "public"}).status_code, range(50)))
        assert set(codes) <= {201, 409} and codes.count(409) >= 1
        keys = noisy.dashboard.get("/v1/keys", params={"limit": 200}).json()["keys"]
        live = [k for k in keys if not k.get("revokedAt")]
        assert len(live) <= 50
        full = [k for k in live if k["kind"] == "secret" and k.get("fullAccess")]
        answers = [noisy.dashboard.delete(f"/v1/keys/{k['id']}", key=scoped["key"]).status_code for k in full]
        assert answers[-1] == 409 and all(a == 204 for a in answers[:-1]), answers


def test_hanging_webhooks_internal_urls_and_replayed_keys_are_refused_cheaply(tenants):
    """Findings 5 and 10: internal webhook targets in other spellings refused when written (422), an
    Idempotency-Key reused for another request refused (422), while the quiet app is timed."""
    quiet, noisy = tenants
    with QuietProbe(quiet):
        for url in ["http://127.1/hook", "http://2130706433/hook", "http://0x7f000001/hook", "http://foo.localhost/hook"]:
            r = noisy.dashboard.post("/v1/webhooks", {"url": url, "eventTypes": ["key.created"]})
            assert r.status_code == 422 and r.json()["errors"][0]["code"] == "private_webhook_target", r.text
        first = noisy.dashboard.post(f"/v1/paywalls/{noisy.paywall}/publish", {"force": True}, headers={"Idempotency-Key": "k-1"})
        assert first.status_code == 201, first.text
        again = noisy.dashboard.post(f"/v1/paywalls/{noisy.paywall}/publish", {"note": "other"}, headers={"Idempotency-Key": "k-1"})
        assert again.status_code == 422 and again.json()["code"] == "idempotency_key_mismatch", again.text


def test_subscriber_data_links_and_unknown_keys_cost_the_quiet_app_nothing(tenants):
    """Findings 6, 8 and 11: a read-only key's dry runs (no subscriber values shown), a preview link that
    died with its key, and 300 unknown keys (each caught up off the I/O loop) while the quiet app is timed."""
    quiet, noisy = tenants
    rules = [{"when": {"key": "subscriber.plan", "op": "eq", "value": "pro"}, "paywallId": noisy.paywall}]
    assert noisy.dashboard.put("/v1/placements/home/rules", {"rules": rules}).status_code == 200
    assert noisy.sdk.put("/v1/sdk/subscribers/u-1/attributes", {"attributes": {"plan": "free"}}).status_code == 200
    reader = noisy.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read"]}).json()["key"]
    maker = noisy.dashboard.post("/v1/keys", {"kind": "secret"}).json()
    link = noisy.dashboard.post(f"/v1/paywalls/{noisy.paywall}/preview-link", {}, key=maker["key"])
    assert link.status_code == 201, link.text
    with QuietProbe(quiet):
        trace = noisy.dashboard.get("/v1/placements/home/resolve", params={"subscriberId": "u-1"}, key=reader).json()["trace"]
        assert trace[0]["failed"]["reason"] == "hidden" and "free" not in json.dumps(trace)
        assert requests.get(noisy.server.base + link.json()["url"], timeout=10).status_code == 200
        assert noisy.dashboard.delete(f"/v1/keys/{maker['id']}").status_code == 204
        assert requests.get(noisy.server.base + link.json()["url"], timeout=10).status_code == 404
        session = requests.Session()
        for i in range(300):
            r = session.get(noisy.server.base + "/v1/paywalls", headers={"Authorization": f"Bearer sk_{uuid.uuid4().hex}"}, timeout=10)
            assert r.status_code == 401
