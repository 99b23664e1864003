"""Per-app limits hold under concurrent writers on two replicas (issue 35, finding 4).

Every limited write counts what the app has, then adds: two writers interleaving would both pass the
count. On SQLite the one writer runs them one at a time; on PostgreSQL replicas (and each replica's
connections) write at once, so each such write first locks the app's row (`AppStore.lockForLimits`,
docs/scaling.md). Here two servers share one data directory, which in the PostgreSQL pass is one
database (drivers.py): replicas. 50 writers start together, half on each, and what was stored is
counted: never more than the limit, and every writer is answered the limit's own refusal or success,
never a 5xx or a constraint violation. Limits are lowered by configuration where there is one, so
each race takes a moment.
"""
import concurrent.futures
import sqlite3
import subprocess
import threading

import pytest

import drivers
from conftest import ROOT
from xizor_server import App, Client, XizorServer, create_app

WRITERS = 50
MAX_KEYS = 10
MAX_WEBHOOKS = 5
PNG = (ROOT / "Sources" / "XizorDomain" / "Assets" / "Bundled" / "clean-header.png").read_bytes()
ASSET_SIZE = len(PNG) + 4
MAX_ASSETS = 5
AUDIENCES_MAX = 500      # AudienceService.maxPerApp, not configurable
MAX_RULES = 100          # PlacementService.maxRules, per placement
LIMITS = {"XIZOR_KEYS_MAX_PER_APP": str(MAX_KEYS), "XIZOR_WEBHOOKS_MAX_ENDPOINTS_PER_APP": str(MAX_WEBHOOKS),
          "XIZOR_ASSETS_MAX_BYTES_PER_APP": str(MAX_ASSETS * ASSET_SIZE)}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    data = tmp_path_factory.mktemp("replicas") / "data"
    first = XizorServer(data, extra_env=LIMITS)
    second = XizorServer(data, extra_env=LIMITS)
    yield first, second
    assert second.stop() == 0
    assert first.stop() == 0


@pytest.fixture
def app(replicas):
    return App(replicas[0], create_app(replicas[0].base, "Limits"))


def race(replicas, key, write):
    """Runs `write(client, i)` for i in 0..<WRITERS at once, alternating replicas; answers the responses."""
    clients = [Client(replicas[i % 2].base, key) for i in range(WRITERS)]
    start = threading.Barrier(WRITERS)

    def one(i):
        start.wait()
        return write(clients[i], i)

    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        return list(pool.map(one, range(WRITERS)))


def outcomes(responses, refusal):
    """How many writers succeeded; fails on any answer but success or the limit's refusal."""
    created = 0
    for r in responses:
        if r.status_code in (200, 201):
            created += 1
        else:
            assert (r.status_code, r.json().get("code")) == refusal, r.text
    return created


def test_keys_stay_within_keys_max_per_app(replicas, app):
    responses = race(replicas, app.secret_key, lambda c, i: c.post("/v1/keys", {"kind": "public", "label": f"writer {i}"}))
    created = outcomes(responses, (409, "key_limit_reached"))
    keys = app.dashboard.get("/v1/keys", params={"limit": 200}).json()["keys"]
    live = [k for k in keys if k["revokedAt"] is None]
    assert len(live) == MAX_KEYS, f"{len(live)} live keys of {MAX_KEYS}"
    assert created == MAX_KEYS - 2   # the app was made with a secret and a public key


def test_webhook_endpoints_stay_within_the_limit(replicas, app):
    responses = race(replicas, app.secret_key,
                     lambda c, i: c.post("/v1/webhooks", {"url": f"https://hooks.example.com/{i}", "enabled": False}))
    created = outcomes(responses, (409, "webhook_limit_reached"))
    stored = app.dashboard.get("/v1/webhooks").json()["items"]
    assert len(stored) == MAX_WEBHOOKS, f"{len(stored)} endpoints of {MAX_WEBHOOKS}"
    assert created == MAX_WEBHOOKS


def fill_audiences(replica, app_id, count):
    """Stores `count` audiences straight into the database: the limit (500) is not configurable, and as
    many PUTs would take seconds of this test; the race below goes through the API."""
    sql = ("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
           "INSERT INTO audiences (app_id, id, name, condition, created_at, updated_at) "
           "SELECT '%s', 'filled' || i, 'filled' || i, '{\"key\":\"context.tier\",\"op\":\"eq\",\"value\":\"gold\"}', 1, 1 FROM n"
           % (count - 1, app_id))
    if drivers.DRIVER == "sqlite":
        with sqlite3.connect(replica.data_dir / "xizor.sqlite", timeout=10) as db:
            db.execute(sql)
    else:
        subprocess.run(["psql", drivers.database_url(replica.data_dir), "-v", "ON_ERROR_STOP=1", "-qc", sql], check=True, capture_output=True)


def test_audiences_stay_within_the_limit(replicas, app):
    fill_audiences(replicas[0], app.id, AUDIENCES_MAX - 10)
    condition = {"key": "context.tier", "op": "eq", "value": "gold"}
    responses = race(replicas, app.secret_key, lambda c, i: c.put(f"/v1/audiences/race{i}", {"condition": condition}))
    created = outcomes(responses, (409, "too_many_audiences"))
    stored = app.dashboard.get("/v1/audiences").json()["items"]
    assert len(stored) == AUDIENCES_MAX, f"{len(stored)} audiences of {AUDIENCES_MAX}"
    assert created == 10


def test_asset_bytes_stay_within_the_quota(replicas, app):
    def upload(client, i):
        return client.request("POST", "/v1/assets", data=PNG + i.to_bytes(4, "big"), headers={"Content-Type": "image/png"})

    created = outcomes(race(replicas, app.secret_key, upload), (413, "asset_quota_exceeded"))
    items = app.dashboard.get("/v1/assets", params={"limit": 200}).json()["items"]
    total = sum(item["size"] for item in items)
    assert total <= MAX_ASSETS * ASSET_SIZE, f"{total} bytes stored of a {MAX_ASSETS * ASSET_SIZE}-byte quota"
    assert len(items) == created == MAX_ASSETS


def test_concurrent_rule_replacements_leave_one_writers_whole_list(replicas, app):
    """Rules are replaced whole (at most 100 per placement; there is no per-app count of placements or
    rules): racing replacements each succeed, and what is stored is exactly one writer's list."""
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)

    def rules(i):
        return [{"when": {"key": "context.writer", "op": "eq", "value": f"{i}-{n}"}, "paywallId": pw}
                for n in range(MAX_RULES - i)]

    responses = race(replicas, app.secret_key, lambda c, i: c.put("/v1/placements/onboarding/rules", {"rules": rules(i)}))
    assert [r.status_code for r in responses] == [200] * WRITERS, [r.text for r in responses if r.status_code != 200][:3]
    stored = [rule["when"]["value"] for rule in app.dashboard.get("/v1/placements/onboarding").json()["rules"]]
    writer = int(stored[0].split("-")[0])
    assert stored == [f"{writer}-{n}" for n in range(MAX_RULES - writer)], f"{len(stored)} rules, mixed: {stored[:3]}…"
