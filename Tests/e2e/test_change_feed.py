"""One source of truth (issue 15): every process on a data directory sees every other process's
writes within the change feed's poll interval (`changes.pollIntervalMs`, 50 ms by default). Keys
made by the CLI beside a running server work; two servers on one data directory serve each other's
publishes, placements and revocations; both report the same feed position in /metrics."""
import json
import time

import pytest
import requests

from conftest import run_cli
from xizor_server import App, Client, XizorServer, create_app

PAYWALL = "/v1/sdk/placements/onboarding/paywall"


def eventually(check, timeout=2.0):
    """Polls `check` until it returns a truthy value (the value) or `timeout` passes (the last value)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


def sequence(server):
    for line in requests.get(server.base + "/metrics", timeout=10).text.splitlines():
        if line.startswith("xizor_change_feed_sequence "):
            return int(float(line.split()[1]))
    raise AssertionError("no xizor_change_feed_sequence in /metrics")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    data = tmp_path_factory.mktemp("feed") / "data"
    first = XizorServer(data)
    second = XizorServer(data)
    yield first, second
    assert second.stop() == 0
    assert first.stop() == 0


def test_keys_made_by_the_cli_work_on_the_running_server(pair):
    server, _ = pair
    created = json.loads(run_cli("apps", "create", "From the CLI", "--data-dir", str(server.data_dir)).stdout)
    started = time.monotonic()
    answer = eventually(lambda: Client(server.base, created["secretKey"]).get("/v1/paywalls").status_code == 200)
    assert answer, "the CLI's key was refused for 2 s"
    assert time.monotonic() - started < 1.0


def test_a_key_made_elsewhere_works_on_its_first_request_whatever_the_poll_interval(tmp_path):
    """A load balancer sends the request that follows an app's creation to another replica: that replica
    does not refuse the new key until its next poll, it catches up on the unknown key's (rate-limited) path."""
    data = tmp_path / "data"
    slow = {"XIZOR_CHANGES_POLL_INTERVAL_MS": "5000"}   # far longer than the requests below take
    first, second = XizorServer(data, extra_env=slow), XizorServer(data, extra_env=slow)
    try:
        for i in range(5):
            created = create_app(first.base, f"Balanced {i}")
            r = Client(second.base, created["secretKey"]).post("/v1/paywalls", {"template": "clean"})
            assert r.status_code == 201, r.text
            assert Client(second.base, created["publicKey"]).get(PAYWALL).status_code == 404   # known: nothing published yet
        assert Client(second.base, "sk_" + "x" * 32).get("/v1/paywalls").status_code == 401
    finally:
        assert second.stop() == 0 and first.stop() == 0


def test_two_servers_serve_each_others_publishes_and_revocations(pair):
    first, second = pair
    app = App(first, create_app(first.base, "Two servers"))
    on_second = Client(second.base, app.public_key)
    assert eventually(lambda: on_second.get(PAYWALL).status_code == 404), "the app created on the first server is known on the second"
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)
    served = eventually(lambda: (lambda r: r.status_code == 200 and r)(on_second.get(PAYWALL)))
    assert served and served.json()["version"] == 1 and served.json()["paywallId"] == pw

    # A publish through the second server is served by the first.
    Client(second.base, app.secret_key).post(f"/v1/paywalls/{pw}/publish", {"force": True})
    assert eventually(lambda: app.sdk.get(PAYWALL).json().get("version") == 2)
    assert eventually(lambda: sequence(first) == sequence(second)), "both applied the same changes"

    # A key revoked on the first stops working on the second.
    keys = app.dashboard.get("/v1/keys").json()["keys"]
    public = next(k for k in keys if k["kind"] == "public")
    assert app.dashboard.delete(f"/v1/keys/{public['id']}").status_code == 204
    assert eventually(lambda: on_second.get(PAYWALL).status_code == 401)


@pytest.mark.sqlite_only  # reads the SQLite file's last sequence
def test_a_writer_killed_mid_change_leaves_every_process_consistent(tmp_path):
    """A second server publishing in a loop is SIGKILLed at random moments, five times. A write
    and its change commit together or not at all, so the first server ends at the database's last
    sequence and serves what a process started afresh serves: nothing skipped, nothing half-applied."""
    import random
    import signal
    import sqlite3
    import threading

    data = tmp_path / "data"
    first = XizorServer(data)
    try:
        app = App(first, create_app(first.base, "Killed writer"))
        pw = app.create_paywall()
        app.publish(pw)
        app.assign("onboarding", pw)
        rng = random.Random(15)
        for _ in range(5):
            writer = XizorServer(data)
            stop = threading.Event()

            def publish_forever():
                client = Client(writer.base, app.secret_key)
                while not stop.is_set():
                    try:
                        client.post(f"/v1/paywalls/{pw}/publish", {"force": True})
                    except Exception:  # the process is gone
                        return

            thread = threading.Thread(target=publish_forever)
            thread.start()
            try:
                time.sleep(rng.uniform(0.2, 0.6))
                writer.process.send_signal(signal.SIGKILL)
                writer.process.wait(timeout=10)
            finally:
                stop.set()
                thread.join(timeout=10)

        db = sqlite3.connect(data / "xizor.sqlite")
        last = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").fetchone()[0]
        newest = db.execute("SELECT max(version) FROM paywall_versions WHERE paywall_id = ?", (pw,)).fetchone()[0]
        db.close()
        assert newest > 5, "the killed writers published"
        assert eventually(lambda: sequence(first) == last), (sequence(first), last)
        served = app.sdk.get(PAYWALL)
        assert served.json()["version"] == newest
        fresh = XizorServer(data)
        try:
            again = Client(fresh.base, app.public_key).get(PAYWALL)
            assert again.json()["version"] == newest and again.headers["ETag"] == served.headers["ETag"]
        finally:
            assert fresh.stop() == 0
    finally:
        assert first.stop() == 0
