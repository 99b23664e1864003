"""Event export (issue 21, in part): GET /v1/events/export streams an app's events as NDJSON,
chunked, gzip when accepted, cut by time; `xizor events export` writes the same lines from the
database. Pages of 1,000 are read one at a time, so the 2,500 events here cross page boundaries."""
import gzip
import json
import subprocess
import uuid

import requests

from conftest import BIN
from drivers import storage_env

T0 = 1_796_000_000_000


def post_events(app, count, paywall):
    sent = []
    for start in range(0, count, 500):
        batch = [{"id": f"ev-{uuid.uuid4()}", "name": "paywall_open" if i % 3 else "purchase_completed", "timestamp": T0 + i * 1000,
                  "placement": "onboarding", "paywallId": paywall, "version": 1, "subscriberId": f"s{i % 40}",
                  "context": {"country": "DE", "n": i}, "properties": {"price": 9.99, "currency": "EUR"} if i % 3 == 0 else None}
                 for i in range(start, min(start + 500, count))]
        for event in batch:
            if event["properties"] is None:
                del event["properties"]
        r = app.sdk.post("/v1/sdk/events", {"events": batch})
        assert r.status_code == 202 and r.json()["accepted"] == len(batch), r.text
        sent += batch
    return sent


def export(app, **params):
    return requests.get(app.dashboard.base + "/v1/events/export", params=params, timeout=30,
                        headers={"Authorization": f"Bearer {app.secret_key}", "Accept-Encoding": "identity"})


def test_every_event_once_with_its_fields_in_id_order(app):
    paywall = app.create_paywall("clean")
    app.publish(paywall)
    sent = post_events(app, 2_500, paywall)
    r = export(app)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-ndjson"
    assert r.headers.get("Transfer-Encoding") == "chunked" and "Content-Encoding" not in r.headers
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert [e["id"] for e in lines] == sorted(e["id"] for e in sent), "each event once, by id"
    by_id = {e["id"]: e for e in lines}
    for event in sent[:50] + sent[-50:]:
        got = by_id[event["id"]]
        assert {k: got[k] for k in event} == event
        assert got["receivedAt"] >= T0 and "experimentId" not in got


def test_a_time_range_and_gzip(app):
    paywall = app.create_paywall("clean")
    app.publish(paywall)
    sent = post_events(app, 1_200, paywall)
    # from in milliseconds, to as an RFC 3339 date-time (T0 + 300 s): [T0 + 100 s, T0 + 300 s).
    plain = export(app, **{"from": T0 + 100_000, "to": "2026-11-30T00:58:20Z"})
    assert plain.status_code == 200
    ids = [json.loads(line)["id"] for line in plain.text.splitlines()]
    assert ids == sorted(e["id"] for e in sent if T0 + 100_000 <= e["timestamp"] < T0 + 300_000) and len(ids) == 200
    r = requests.get(app.dashboard.base + "/v1/events/export", params={"from": T0 + 100_000, "to": T0 + 200_000}, timeout=30,
                     headers={"Authorization": f"Bearer {app.secret_key}", "Accept-Encoding": "gzip"}, stream=True)
    assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in r.headers["Vary"]
    raw = r.raw.read(decode_content=False)
    body = gzip.decompress(raw).decode()
    ids = [json.loads(line)["id"] for line in body.splitlines()]
    assert ids == sorted(e["id"] for e in sent if T0 + 100_000 <= e["timestamp"] < T0 + 200_000) and len(ids) == 100
    assert export(app, **{"from": "yesterday"}).status_code == 400
    assert export(app, **{"from": T0 + 10_000_000}).text == "", "nothing in the range: an empty body"


def test_the_command_line_writes_the_same_lines(server, app):
    paywall = app.create_paywall("clean")
    app.publish(paywall)
    post_events(app, 1_100, paywall)
    over_http = export(app).text
    env = storage_env(server.data_dir)
    cli = subprocess.run([BIN, "events", "export", app.id, "--data-dir", str(server.data_dir)], capture_output=True, text=True,
                         timeout=60, env={**__import__("os").environ, **env})
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == over_http and cli.stdout.count("\n") == 1_100
    ranged = subprocess.run([BIN, "events", "export", app.id, "--data-dir", str(server.data_dir), "--from", str(T0 + 1_000_000)],
                            capture_output=True, text=True, timeout=60, env={**__import__("os").environ, **env})
    assert ranged.stdout.count("\n") == 100
    unknown = subprocess.run([BIN, "events", "export", "app_nope", "--data-dir", str(server.data_dir)], capture_output=True, text=True,
                             timeout=60, env={**__import__("os").environ, **env})
    assert unknown.returncode != 0 and "no app 'app_nope'" in unknown.stderr


def test_the_public_key_cannot_export(app):
    r = requests.get(app.dashboard.base + "/v1/events/export", headers={"Authorization": f"Bearer {app.public_key}"}, timeout=10)
    assert r.status_code == 403
