"""Webhooks between tenants (issue 35, "No tenant can slow down another"; docs/integrations.md,
"Fairness between apps" and "Failing endpoints"), against real receivers on loopback.

The servers run with the fast settings of test_webhooks.py (retries from 200 ms, `timeoutMs` 2000)
and the default four senders and per-app cap of two.
"""
import time

import pytest

from test_webhooks import FAST, PRIVATE_OK, check_request, create_endpoint, listed, send_test, wait_log
from webhook_receiver import HANG, Receiver
from xizor_server import App, XizorServer, create_app

DELIVERY_S = 10


@pytest.fixture
def server(tmp_path):
    started = []

    def start(**env):
        s = XizorServer(tmp_path / f"data-{len(started)}", extra_env={**FAST, **PRIVATE_OK, **env})
        started.append(s)
        return s

    yield start
    codes = [s.stop() for s in started]
    assert all(code == 0 for code in codes), (codes, [s.stderr_lines[-20:] for s in started])


@pytest.fixture
def receivers():
    made = []

    def make(**kwargs):
        made.append(Receiver(**kwargs))
        return made[-1]

    yield make
    for r in made:
        r.stop()


def test_one_apps_hanging_endpoints_do_not_delay_another_apps_delivery(server, receivers):
    s = server()
    noisy, quiet = App(s, create_app(s.base, "Noisy")), App(s, create_app(s.base, "Quiet"))
    hanging, answering = receivers(hang_seconds=6), receivers()
    hanging.fail_always(HANG)   # 20 endpoints that never answer in time
    for n in range(20):
        create_endpoint(noisy, hanging.url(f"/noisy/{n}"), eventTypes=["key.created"])
    secret = create_endpoint(quiet, answering.url("/quiet"), eventTypes=["key.created"])["secret"]

    assert noisy.dashboard.post("/v1/keys", {"kind": "public"}).status_code == 201   # 20 deliveries, all older
    hanging.wait_until(lambda rs: len(rs) >= 2, DELIVERY_S, "the noisy app's first attempts")

    r = quiet.dashboard.post("/v1/keys", {"kind": "public"})
    written = time.time()
    assert r.status_code == 201, r.text
    arrived = answering.wait_for_events(1, timeout=DELIVERY_S)[0]
    check_request(arrived, secret, quiet)
    assert arrived.at - written < 1.0, f"the quiet app's delivery arrived {arrived.at - written:.2f} s after its write"
    # Meanwhile the noisy app had its cap in flight, no more (its attempts hang for timeoutMs, 2 s).
    assert len(hanging.all()) == 2, hanging.all()


def test_an_endpoint_that_keeps_failing_is_disabled_with_an_event_and_an_audit_entry(server, receivers):
    s = server(XIZOR_WEBHOOKS_DISABLE_AFTER_MS="1000")
    app = App(s, create_app(s.base, "Failing"))
    failing, watching = receivers(), receivers()
    failing.fail_always()   # 500 to everything
    dead = create_endpoint(app, failing.url("/dead"))
    watcher = create_endpoint(app, watching.url("/watch"), eventTypes=["webhook.disabled"])
    delivery = send_test(app, dead["id"])

    deadline = time.monotonic() + DELIVERY_S
    while (got := app.dashboard.get(f"/v1/webhooks/{dead['id']}").json())["enabled"]:
        assert time.monotonic() < deadline, got
        time.sleep(0.05)
    assert got["disabledReason"] == "failing" and isinstance(got["failingSince"], int), got
    assert len(failing.all()) >= 3, "retried with backoff before it was disabled"

    entries = app.dashboard.get("/v1/audit-log", params={"action": "webhook.disabled"}).json()["entries"]
    assert [(e["target"]["kind"], e["target"]["id"], e["actor"]["kind"]) for e in entries] == [("webhook", dead["id"], "system")], entries
    event = check_request(watching.wait_for_events(1, timeout=DELIVERY_S)[0], watcher["secret"], app)
    assert event["type"] == "webhook.disabled" and event["data"]["webhookId"] == dead["id"], event
    assert event["data"]["failingSince"] == got["failingSince"] and "500" in event["data"]["lastError"], event

    # Nothing more is sent to it; its delivery waits, pending, for a person.
    sent = len(failing.all())
    log = listed(app.dashboard.get(f"/v1/webhooks/{dead['id']}/deliveries").json())
    assert [(d["id"], d["state"]) for d in log] == [(delivery["id"], "pending")], log
    assert len(failing.all()) == sent

    failing.recover()
    r = app.dashboard.request("PATCH", f"/v1/webhooks/{dead['id']}", json_body={"enabled": True})
    assert r.status_code == 200 and r.json()["enabled"] is True, r.text
    assert r.json()["failingSince"] is None and r.json()["disabledReason"] is None, r.text
    wait_log(app, dead["id"], lambda log: log and log[0]["state"] == "delivered", what="the delivery after enabling")
