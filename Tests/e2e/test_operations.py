"""Operations: /metrics parsed by prometheus_client, /readyz, logs, per-key rate limits."""
import json
import time
import uuid

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app

SDK_ROUTE = "/v1/sdk/placements/:key/paywall"


def scrape(base, token=None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = requests.get(base + "/metrics", headers=headers, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return {family.name: family for family in text_string_to_metric_families(r.text)}


def value(families, family, sample_name=None, **labels):
    """The value of the one sample of `family` named `sample_name` whose labels include `labels`."""
    matches = [s.value for s in families[family].samples
               if s.name == (sample_name or family) and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(matches) == 1, (family, sample_name, labels, families[family].samples)
    return matches[0]


def event(pw, version):
    return {"id": str(uuid.uuid4()), "name": "paywall_open", "timestamp": 1_796_000_000_000,
            "placement": "onboarding", "paywallId": pw, "version": version, "subscriberId": "s1"}


def test_metrics_count_what_the_server_did(app, server):
    started = time.time()
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)
    path = "/v1/sdk/placements/onboarding/paywall"
    first = app.sdk.get(path, headers={"Accept": "application/json"})
    assert first.status_code == 200
    for _ in range(3):
        again = app.sdk.get(path, headers={"Accept": "application/json", "If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304
    assert app.sdk.post("/v1/sdk/events", {"events": [event(pw, 1), event(pw, 1)]}).status_code == 202
    assert app.sdk.get("/v1/no/such/path").status_code == 404

    m = scrape(server.base)
    # Prometheus' parser strips `_total` from counter family names.
    assert value(m, "xizor_http_requests", "xizor_http_requests_total", route=SDK_ROUTE, method="GET", status="200") == 1
    assert value(m, "xizor_http_requests", "xizor_http_requests_total", route=SDK_ROUTE, method="GET", status="304") == 3
    assert value(m, "xizor_http_requests", "xizor_http_requests_total", route="/v1/sdk/events", method="POST", status="202") == 1
    assert value(m, "xizor_http_requests", "xizor_http_requests_total", route="/v1/paywalls/:id/publish", method="POST", status="201") == 1
    assert value(m, "xizor_http_requests", "xizor_http_requests_total", route="(unmatched)", method="GET", status="404") == 1

    histogram = m["xizor_http_request_duration_seconds"]
    assert histogram.type == "histogram"
    sdk = [s for s in histogram.samples if s.labels.get("route") == SDK_ROUTE]
    buckets = [s for s in sdk if s.name.endswith("_bucket")]
    counts = [s.value for s in buckets]
    assert counts == sorted(counts), "buckets are cumulative"
    assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value == 4
    assert value(m, "xizor_http_request_duration_seconds", "xizor_http_request_duration_seconds_count", route=SDK_ROUTE) == 4
    assert 0 < value(m, "xizor_http_request_duration_seconds", "xizor_http_request_duration_seconds_sum", route=SDK_ROUTE) < 4

    assert value(m, "xizor_http_connections_open") >= 1
    assert value(m, "xizor_http_connections", "xizor_http_connections_total") >= 2
    # The access log's drops are exposed (zero here: the writer keeps up).
    assert value(m, "xizor_http_access_log_lines_dropped", "xizor_http_access_log_lines_dropped_total") == 0
    assert value(m, "xizor_representation_cache_misses", "xizor_representation_cache_misses_total", cause="absent") >= 1
    assert value(m, "xizor_representation_cache_hits", "xizor_representation_cache_hits_total") >= 3
    assert value(m, "xizor_publishes", "xizor_publishes_total") == 1
    assert value(m, "xizor_events_ingested", "xizor_events_ingested_total") == 2
    writes = value(m, "xizor_storage_writes", "xizor_storage_writes_total", outcome="committed")
    assert writes >= 4  # app, paywall, publish, placement, events
    assert value(m, "xizor_storage_write_duration_seconds", "xizor_storage_write_duration_seconds_count") >= writes
    assert value(m, "xizor_storage_busy_retries", "xizor_storage_busy_retries_total") == 0
    assert value(m, "process_resident_memory_bytes") > 1_000_000
    assert value(m, "process_virtual_memory_bytes") >= value(m, "process_resident_memory_bytes")
    assert time.time() - 120 < value(m, "process_start_time_seconds") < started

    # Counters only grow: a later scrape sees the first one counted. A request is counted once its
    # answer is written, so a scrape sent the moment the first answer arrived may run before that on
    # another event loop (seen on a loaded machine): look again for up to 5 s.
    deadline = time.time() + 5
    while True:
        again = scrape(server.base)
        samples = [s for s in again["xizor_http_requests"].samples if s.name == "xizor_http_requests_total"
                   and s.labels.get("route") == "/metrics" and s.labels.get("status") == "200"]
        if samples or time.time() > deadline:
            break
        time.sleep(0.05)
    assert value(again, "xizor_http_requests", "xizor_http_requests_total", route="/metrics", method="GET", status="200") >= 1


def test_metrics_token_when_configured(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_METRICS_TOKEN": "mt_secret"})
    try:
        r = requests.get(s.base + "/metrics", timeout=10)
        assert r.status_code == 401 and r.json()["code"] == "metrics_token_required"
        assert requests.get(s.base + "/metrics", headers={"Authorization": "Bearer wrong"}, timeout=10).status_code == 401
        scrape(s.base, token="mt_secret")
    finally:
        assert s.stop() == 0


def test_readyz_and_healthz(server):
    r = requests.get(server.base + "/readyz", timeout=10)
    assert r.status_code == 200 and r.json() == {"status": "ready"}
    assert r.headers["Cache-Control"] == "no-store"
    assert requests.get(server.base + "/healthz", timeout=10).json() == {"status": "ok"}


# --- durability as applied -------------------------------------------------------------------

def diagnostics(s):
    r = requests.get(s.base + "/v1/diagnostics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers["Cache-Control"] == "no-store"
    return r.json()


@pytest.mark.sqlite_only  # SQLite's pragmas as the writer applies them (PostgreSQL's diagnostics: test_postgres.py)
def test_the_running_server_applies_full_durability(tmp_path):
    # Guards the server's storage wiring (XizorCLI/Environment.swift): a weakened `synchronous` there
    # would break "every 2xx survives power loss" while the storage layer's own default stays FULL.
    s = XizorServer(tmp_path / "a", extra_env={"XIZOR_LOG_LEVEL": "info"})
    try:
        body = diagnostics(s)
        assert body["storage"] == {"driver": "sqlite", "journalMode": "wal", "synchronous": "full", "foreignKeys": True,
                                   "busyTimeoutMs": 5000, "readConnections": 4, "writerCacheBytes": 67108864,
                                   "walAutocheckpointPages": 10000}
        assert body["version"]
        secret = create_app(s.base)["secretKey"]
        for key in (None, secret, "xa_forged_0123456789abcdef0123456789"):
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            assert requests.get(s.base + "/v1/diagnostics", headers=headers, timeout=10).status_code in (401, 403)
    finally:
        assert s.stop() == 0
    opened = [l for l in log_lines(s) if l["message"] == "storage opened"]
    assert len(opened) == 1 and opened[0]["synchronous"] == "full" and opened[0]["journalMode"] == "wal", opened
    assert opened[0]["path"].endswith("xizor.sqlite") and opened[0]["foreignKeys"] is True


@pytest.mark.sqlite_only
def test_the_writer_cache_and_checkpoint_interval_come_from_the_configuration(tmp_path):
    # Guards the wiring of storage.writerCacheBytes and storage.walAutocheckpointPages (read back from
    # the writer connection, not from the configuration).
    s = XizorServer(tmp_path / "a", extra_env={"XIZOR_STORAGE_WRITER_CACHE_BYTES": "3145728",
                                               "XIZOR_STORAGE_WAL_AUTOCHECKPOINT_PAGES": "100"})
    try:
        storage = diagnostics(s)["storage"]
        assert (storage["writerCacheBytes"], storage["walAutocheckpointPages"]) == (3145728, 100), storage
    finally:
        assert s.stop() == 0


@pytest.mark.sqlite_only  # SQLite's pragmas as the writer applies them (PostgreSQL's diagnostics: test_postgres.py)
def test_diagnostics_show_what_the_connection_runs_with_not_a_constant(tmp_path):
    s = XizorServer(tmp_path / "a", extra_env={"XIZOR_STORAGE_SYNCHRONOUS": "extra", "XIZOR_STORAGE_BUSY_TIMEOUT_MS": "750"})
    try:
        storage = diagnostics(s)["storage"]
        assert (storage["synchronous"], storage["busyTimeoutMs"]) == ("extra", 750)
    finally:
        assert s.stop() == 0


# --- logs ------------------------------------------------------------------------------------

def log_lines(s):
    return [json.loads(line) for line in s.stderr_lines if line.strip()]


def test_logs_are_json_lines_with_access_log_and_level_from_config(tmp_path):
    s = XizorServer(tmp_path / "a", extra_env={"XIZOR_ACCESS_LOG": "true", "XIZOR_LOG_LEVEL": "info"})
    requests.get(s.base + "/healthz", headers={"X-Request-Id": "req-123"}, timeout=10)
    assert s.stop() == 0
    lines = log_lines(s)
    for line in lines:
        assert {"level", "time", "message"} <= line.keys()
        assert line["level"] in ("debug", "info", "warning", "error")
    access = [l for l in lines if l["message"] == "request"]
    assert len(access) == 1
    assert access[0] | {"micros": 0, "time": "", "remote": ""} == {
        "level": "info", "time": "", "message": "request", "method": "GET", "path": "/healthz", "status": 200,
        "bytes": 15, "micros": 0, "requestId": "req-123", "remote": ""}
    assert any(l["message"] == "stopped" for l in lines)

    # Access log off: no request lines, other info lines still there.
    s = XizorServer(tmp_path / "b", extra_env={"XIZOR_ACCESS_LOG": "false", "XIZOR_LOG_LEVEL": "info"})
    requests.get(s.base + "/healthz", timeout=10)
    assert s.stop() == 0
    lines = log_lines(s)
    assert not [l for l in lines if l["message"] == "request"]
    assert any(l["message"] == "stopped" for l in lines)

    # Level error: nothing below it, the access log included.
    s = XizorServer(tmp_path / "c", extra_env={"XIZOR_ACCESS_LOG": "true", "XIZOR_LOG_LEVEL": "error"})
    requests.get(s.base + "/healthz", timeout=10)
    assert s.stop() == 0
    assert [l for l in log_lines(s) if l["level"] != "error"] == []


# --- rate limits -----------------------------------------------------------------------------

LIMITS = {"XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "1", "XIZOR_RATE_LIMITS_WRITES_BURST": "3",
          "XIZOR_RATE_LIMITS_EVENTS_PER_SECOND": "2", "XIZOR_RATE_LIMITS_EVENTS_BURST": "2"}


def assert_limited(r):
    assert r.status_code == 429, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == "rate_limited" and r.json()["status"] == 429
    assert int(r.headers["Retry-After"]) >= 1


def test_writes_and_events_are_limited_per_key(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env=LIMITS)
    try:
        a = App(s, create_app(s.base, "a"))
        b = App(s, create_app(s.base, "b"))
        # a's bucket of 3 writes (the admin token's own bucket paid for the two app creations).
        pw = a.create_paywall()
        a.publish(pw)
        a.assign("onboarding", pw)
        limited = a.dashboard.post("/v1/paywalls", {"template": "clean"})
        assert_limited(limited)
        assert a.dashboard.get("/v1/paywalls").status_code == 200, "reads are not limited"
        assert a.sdk.get("/v1/sdk/placements/onboarding/paywall").status_code == 200, "the SDK read is not limited"
        assert b.dashboard.post("/v1/paywalls", {"template": "clean"}).status_code == 201, "another key has its own bucket"
        # Bad keys are refused by authentication, not counted.
        assert Client(s.base, "sk_unknown").post("/v1/paywalls", {}).status_code == 401

        # Events: a burst of 2 batches per public key.
        assert a.sdk.post("/v1/sdk/events", {"events": [event(pw, 1)]}).status_code == 202
        assert a.sdk.post("/v1/sdk/events", {"events": [event(pw, 1)]}).status_code == 202
        assert_limited(a.sdk.post("/v1/sdk/events", {"events": [event(pw, 1)]}))
        # A subscriber's attributes are an SDK write too: the same bucket.
        assert_limited(a.sdk.put("/v1/sdk/subscribers/u-1/attributes", {"attributes": {"plan": "pro"}}))

        time.sleep(int(limited.headers["Retry-After"]) + 0.1)
        assert a.dashboard.post("/v1/paywalls", {"template": "clean"}).status_code == 201, "the bucket refilled"
        m = scrape(s.base)
        assert value(m, "xizor_rate_limited", "xizor_rate_limited_total", limit="writes") == 1
        assert value(m, "xizor_rate_limited", "xizor_rate_limited_total", limit="events") == 2
    finally:
        assert s.stop() == 0


def test_events_are_limited_per_subscriber_whatever_key_sends_them(tmp_path):
    """rateLimits.eventsPerSubscriberPerMinute: a batch that would take one subscriber past it is refused
    whole (429 subscriber_rate_limited, Retry-After, nothing stored), counted, and other subscribers of the
    app are unaffected; the sandbox key shares the subscriber's bucket."""
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RATE_LIMITS_EVENTS_PER_SUBSCRIBER_PER_MINUTE": "5"})
    try:
        a = App(s, create_app(s.base, "a"))
        pw = a.create_paywall()
        a.publish(pw)

        def batch(subscriber, n):
            return {"events": [{**event(pw, 1), "subscriberId": subscriber} for _ in range(n)]}
        assert a.sdk.post("/v1/sdk/events", batch("u-1", 4)).json()["accepted"] == 4
        refused = a.sdk.post("/v1/sdk/events", batch("u-1", 2))
        assert refused.status_code == 429 and refused.json()["code"] == "subscriber_rate_limited", refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        assert a.sdk.post("/v1/sdk/events", batch("u-2", 5)).json()["accepted"] == 5
        assert a.sdk.post("/v1/sdk/events", batch("u-1", 1)).json()["accepted"] == 1
        sandbox = a.dashboard.post("/v1/keys", {"kind": "public", "environment": "sandbox"}).json()["key"]
        assert Client(s.base, sandbox).post("/v1/sdk/events", batch("u-1", 1)).status_code == 429
        m = scrape(s.base)
        assert value(m, "xizor_events_subscriber_limited", "xizor_events_subscriber_limited_total") == 2
        exported = a.dashboard.get("/v1/events/export").text.splitlines()
        assert sum('"u-1"' in line for line in exported) == 5
    finally:
        assert s.stop() == 0


def test_zero_rate_disables_the_limit(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "0", "XIZOR_RATE_LIMITS_WRITES_BURST": "1"})
    try:
        a = App(s, create_app(s.base))
        for _ in range(5):
            a.create_paywall()
    finally:
        assert s.stop() == 0


# --- signals ---------------------------------------------------------------------------------

def test_sigterm_right_after_the_listening_line_drains_and_exits_0(tmp_path):
    """The signal handler is in place before `listening` is printed: an orchestrator may stop the
    server the moment it is up, and a lost SIGTERM would mean a SIGKILL after the grace period."""
    for i in range(15):
        s = XizorServer(tmp_path / f"d{i}")
        assert s.stop(timeout=10) == 0


def test_failed_authentications_are_limited_per_client_address(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND": "1",
                                                 "XIZOR_RATE_LIMITS_AUTH_FAILURES_BURST": "5"})
    try:
        app = App(s, create_app(s.base))
        assert app.dashboard.get("/v1/paywalls").status_code == 200  # verified once: remembered
        forged = Client(s.base, app.secret_key[:12] + "x" * (len(app.secret_key) - 12))
        for _ in range(5):
            assert forged.get("/v1/paywalls").json()["code"] == "invalid_api_key"
        limited = forged.get("/v1/paywalls")
        assert_limited(limited)
        assert "failed authentications from this address" in limited.json()["detail"]
        assert_limited(Client(s.base).get("/v1/paywalls"))  # no key at all: the same bucket
        # A key this server has verified before still works from the same address.
        assert app.dashboard.get("/v1/paywalls").status_code == 200
        assert value(scrape(s.base), "xizor_rate_limited", "xizor_rate_limited_total", limit="auth_failures") >= 2
        time.sleep(1.2)
        assert forged.get("/v1/paywalls").json()["code"] == "invalid_api_key", "a token is back after a second"
    finally:
        assert s.stop() == 0
