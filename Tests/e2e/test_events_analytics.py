"""Funnel events (idempotent, durable, per-event errors), analytics per version, timer starts."""
import concurrent.futures
import threading
import time
import uuid

import pytest

from xizor_server import App, Client, XizorServer, create_app


def event(name, pw, version, subscriber=None, placement="onboarding", context=None, ts=1_796_000_000_000, id=None):
    e = {"id": id or str(uuid.uuid4()), "name": name, "timestamp": ts, "placement": placement, "paywallId": pw, "version": version}
    if subscriber:
        e["subscriberId"] = subscriber
    if context is not None:
        e["context"] = context
    return e


@pytest.fixture
def published(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.publish(pw)  # versions 1 and 2
    app.assign("onboarding", pw)
    app.paywall = pw
    return app


def send(app, events):
    return app.sdk.post("/v1/sdk/events", {"events": events})


def test_batches_are_idempotent_by_id_under_retries_and_concurrency(published):
    pw = published.paywall
    batch = [event("paywall_open", pw, 1, f"s{i}") for i in range(50)]
    first = send(published, batch)
    assert first.status_code == 202, first.text
    assert first.json() == {"accepted": 50, "duplicates": 0, "rejected": []}
    retry = send(published, batch)
    assert retry.json() == {"accepted": 0, "duplicates": 50, "rejected": []}
    overlapping = [event("paywall_open", pw, 1, f"t{i}") for i in range(100)]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: send(published, overlapping).json(), range(6)))
    assert sum(r["accepted"] for r in results) == 100
    assert sum(r["duplicates"] for r in results) == 500
    funnel = published.dashboard.get(f"/v1/paywalls/{pw}/analytics").json()
    v1 = next(v for v in funnel["versions"] if v["version"] == 1)
    assert v1["impressions"] == 150 and v1["uniqueSubscribers"] == 150


def test_per_event_errors_keep_the_valid_ones(published):
    pw = published.paywall
    events = [
        event("paywall_open", pw, 1),
        {"id": "bad-1", "name": "paywall_open", "timestamp": "yesterday"},
        event("paywall_open", "pw_unknown", 1, id="bad-2"),
        event("paywall_open", pw, 99, id="bad-3"),
        {"id": "bad-4", "name": "not a name!", "timestamp": 1},
        event("my_custom.step", pw, 2),
        {"name": "paywall_close", "timestamp": "2026-11-30T10:00:00Z", "bogus": 1},
        event("paywall_close", pw, 2, context={"nested": {"no": 1}}, id="bad-6"),
        dict(event("paywall_open", pw, 1, id="bad-8"), timestamp="1969-12-31T23:59:59Z"),
        dict(event("paywall_open", pw, 1, id="bad-9"), timestamp="2026-02-29T12:00:00Z"),
        dict(event("paywall_open", pw, 1, id="ok-10"), timestamp="2026-11-30T11:00:00.250+01:00"),
    ]
    r = send(published, events)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["accepted"] == 3
    rejected = {x["index"]: {e["path"]: e["code"] for e in x["errors"]} for x in body["rejected"]}
    assert rejected[1] == {"$.events[1].timestamp": "invalid_date_time"}
    assert rejected[2] == {"$.events[2].paywallId": "unknown_paywall"}
    assert rejected[3] == {"$.events[3].paywallId": "unknown_paywall"}
    assert rejected[4] == {"$.events[4].name": "invalid_event_name"}
    assert rejected[6] == {"$.events[6].bogus": "unknown_property", "$.events[6].id": "missing_required_field"}
    assert rejected[7] == {"$.events[7].context": "type_mismatch"}
    assert rejected[8] == {"$.events[8].timestamp": "invalid_date_time"}  # before 1970
    assert rejected[9] == {"$.events[9].timestamp": "invalid_date_time"}  # no 29 February in 2026
    assert 10 not in rejected


def test_batch_limits(published, server):
    too_many = [event("paywall_open", published.paywall, 1) for _ in range(501)]
    r = send(published, too_many)
    assert r.status_code == 413 and r.json()["code"] == "batch_too_large"
    huge = published.sdk.post("/v1/sdk/events", data='{"events": [' + ",".join(['{"x": "' + "y" * 1000 + '"}'] * 1200) + "]}")
    assert huge.status_code == 413
    assert send(published, []).json() == {"accepted": 0, "duplicates": 0, "rejected": []}
    assert published.sdk.post("/v1/sdk/events", {"nope": []}).status_code == 422
    assert published.dashboard.post("/v1/sdk/events", {"events": []}).status_code == 403


def test_analytics_against_a_known_event_set(published):
    pw = published.paywall
    known = []
    # Version 1: 4 opens by 3 subscribers, 2 closes, 2 starts, 1 completed, 1 failed, 1 restore.
    for s in ["a", "b", "c", "a"]:
        known.append(event("paywall_open", pw, 1, s, context={"wasReferred": s == "a", "tier": "free", "sessions": 3}))
    known += [event("paywall_close", pw, 1, "b"), event("paywall_close", pw, 1, "c"),
              event("purchase_started", pw, 1, "a"), event("purchase_started", pw, 1, "b"),
              event("purchase_completed", pw, 1, "a"), event("purchase_failed", pw, 1, "b"),
              event("restore_completed", pw, 1, "c")]
    # Version 2: 2 opens, 1 cancelled, 2 completed, on another placement, later.
    known += [event("paywall_open", pw, 2, "d", placement="upsell", ts=1_796_100_000_000),
              event("paywall_open", pw, 2, "e", placement="upsell", ts=1_796_100_000_000),
              event("purchase_cancelled", pw, 2, "d", placement="upsell", ts=1_796_100_000_000),
              event("purchase_completed", pw, 2, "e", placement="upsell", ts=1_796_100_000_000),
              event("purchase_completed", pw, 2, "d", placement="upsell", ts=1_796_100_000_000)]
    assert send(published, known).json()["accepted"] == len(known)
    funnel = published.dashboard.get(f"/v1/paywalls/{pw}/analytics").json()
    by = {v["version"]: v for v in funnel["versions"]}
    assert by[1] == {"version": 1, "impressions": 4, "uniqueSubscribers": 3, "closes": 2, "purchaseStarted": 2,
                     "purchaseCompleted": 1, "purchaseFailed": 1, "purchaseCancelled": 0, "restores": 1,
                     "conversions": 1, "conversion": 1 / 3, "purchasesPerImpression": 0.25, "revenue": [],
                     # No store notification: the stores' verified figures are zero beside the app's own.
                     "verified": {"trialStarts": 0, "trialConversions": 0, "paidConversions": 0, "renewals": 0,
                                  "refunds": 0, "revenue": [], "revenuePerSubscriber": []}}
    assert by[2]["impressions"] == 2 and by[2]["purchaseCompleted"] == 2 and by[2]["purchaseCancelled"] == 1
    # One definition of conversion (issue 20, item 9): subscribers who bought ÷ subscribers who saw it.
    assert by[2]["conversions"] == 2 and by[2]["conversion"] == 1.0 and by[2]["purchasesPerImpression"] == 1.0
    only_upsell = published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"placement": "upsell"}).json()
    assert {v["version"]: v["impressions"] for v in only_upsell["versions"]} == {1: 0, 2: 2}
    early = published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"to": "2026-11-30T16:00:00Z", "from": 1_795_000_000_000}).json()
    assert {v["version"]: v["impressions"] for v in early["versions"]} == {1: 4, 2: 0}
    referred = published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"context.wasReferred": "true"}).json()
    # Issue 20, item 9: the 12 events sent without any context are not dropped silently: the answer counts them.
    assert referred["eventsWithoutContext"] == len(known) - 4, referred
    assert "eventsWithoutContext" not in funnel
    assert {v["version"]: v["impressions"] for v in referred["versions"]} == {1: 2, 2: 0}
    typed = published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"context.sessions": "3", "context.tier": "free"}).json()
    assert {v["version"]: v["impressions"] for v in typed["versions"]}[1] == 4
    string_three = published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"context.tier": "3"}).json()
    assert {v["version"]: v["impressions"] for v in string_three["versions"]}[1] == 0
    assert published.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"from": "soon"}).status_code == 400
    assert published.dashboard.get("/v1/paywalls/pw_missing/analytics").status_code == 404


def test_timer_start_first_write_wins_under_concurrency(published):
    body = {"subscriberId": "sub-1", "paywallId": published.paywall, "nodeId": "launch_offer"}
    barrier = threading.Barrier(8)

    def start(_):
        barrier.wait()
        return published.sdk.post("/v1/sdk/timers", body)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(start, range(8)))
    assert sorted(r.status_code for r in results) == [200] * 7 + [201]
    assert len({r.json()["startedAt"] for r in results}) == 1
    other = published.sdk.post("/v1/sdk/timers", dict(body, subscriberId="sub-2"))
    assert other.status_code == 201
    bad = published.sdk.post("/v1/sdk/timers", {"subscriberId": "", "paywallId": "pw_x"})
    assert bad.status_code == 422
    paths = {e["path"] for e in bad.json()["errors"]}
    assert paths == {"$.subscriberId", "$.nodeId"}
    assert published.sdk.post("/v1/sdk/timers", dict(body, paywallId="pw_missing")).status_code == 422


def test_lengths_are_counted_as_the_database_counts_them(published):
    pw = published.paywall
    combining = "e\u0301" * 120            # 120 characters, 240 Unicode scalars: over the 200 limit
    events = [event("paywall_open", pw, 1, id="\u0000x"), event("paywall_open", pw, 1, id=combining),
              event("paywall_open", pw, 1, id="fine-1")]
    r = send(published, events)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["accepted"] == 1
    assert {x["index"] for x in body["rejected"]} == {0, 1}
    assert all(x["errors"][0]["path"].endswith(".id") for x in body["rejected"])
    timer = published.sdk.post("/v1/sdk/timers", {"subscriberId": combining, "paywallId": pw, "nodeId": "n"})
    assert timer.status_code == 422 and timer.json()["errors"][0]["path"] == "$.subscriberId"


def test_a_context_key_sqlite_cannot_address_is_a_clear_400(published):
    r = published.dashboard.get(f"/v1/paywalls/{published.paywall}/analytics", params={'context.a"b': "1"})
    assert r.status_code == 400 and r.json()["code"] == "invalid_context_key"


def test_timestamps_outside_the_window_and_unknown_attribution_are_rejected(tmp_path):
    # The configured window, not the suites' wide one: a timestamp in 2100 or 40 days old is refused.
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_EVENTS_MAX_AGE_MS": None})
    try:
        app = App(s, create_app(s.base))
        pw = app.create_paywall("clean")
        other = app.create_paywall("cinematic")
        app.publish(pw)
        app.publish(other)
        exp = app.dashboard.post("/v1/experiments", {"variants": [{"paywallId": pw, "weight": 50},
                                                                   {"paywallId": other, "weight": 50, "name": "bold"}]}).json()["id"]
        now = int(time.time() * 1000)
        day = 86_400_000
        events = [
            event("paywall_open", pw, 1, ts=now),
            event("paywall_open", pw, 1, ts=4_102_444_800_000, id="in-2100"),
            event("paywall_open", pw, 1, ts=now - 40 * day, id="forty-days-old"),
            event("paywall_open", pw, 1, ts=now - 29 * day),
            event("paywall_open", pw, 1, ts=now + 3_600_000),
            dict(event("paywall_open", pw, 1, ts=now), experimentId=exp, variant="bold"),
            dict(event("paywall_open", pw, 1, ts=now), experimentId=exp, variant="holdout"),
            dict(event("paywall_open", pw, 1, ts=now, id="no-such-variant"), experimentId=exp, variant="loud"),
            dict(event("paywall_open", pw, 1, ts=now, id="no-such-experiment"), experimentId="exp_nowhere", variant="bold"),
        ]
        body = send(app, events).json()
        rejected = {x["id"]: {e["path"]: e["code"] for e in x["errors"]} for x in body["rejected"]}
        assert rejected == {
            "in-2100": {"$.events[1].timestamp": "timestamp_in_future"},
            "forty-days-old": {"$.events[2].timestamp": "timestamp_too_old"},
            "no-such-variant": {"$.events[7].variant": "unknown_variant"},
            "no-such-experiment": {"$.events[8].experimentId": "unknown_experiment"},
        }, body
        assert body["accepted"] == 5
    finally:
        assert s.stop() == 0
