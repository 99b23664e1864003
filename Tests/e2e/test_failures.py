"""Failure behaviour: a full disk turns writes into 503s while the SDK keeps serving from memory and
nothing is half-written; a lost, emptied or damaged database refuses to start (exit 3) instead of
serving an empty dataset."""
import errno
import os
import random
import sqlite3
import subprocess

import pytest

import drivers
import requests

from conftest import BIN, ROOT
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app

# Most of these are about the SQLite file (missing, emptied, damaged, full) and the data directory's
# guard: marked sqlite_only one by one. Unreadable stored data runs on both databases.
SQLITE_FILE = pytest.mark.sqlite_only

SDK_PATH = "/v1/sdk/placements/onboarding/paywall"


def problem(r, status, code):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.json()
    return r.json()


# --- disk full -------------------------------------------------------------------------------

@pytest.fixture
def small_filesystem(tmp_path):
    """A 24 MiB tmpfs: a disk that can really fill up (chmod does not stop root)."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m,mode=0755", "tmpfs", str(mount_point)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a size-limited tmpfs here (needs root and CAP_SYS_ADMIN): {r.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def fill(directory):
    """Writes a filler file until the file system refuses (ENOSPC); returns its path."""
    path = directory / "filler"
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 4096, 1):
            chunk = b"\0" * size
            while True:
                try:
                    f.write(chunk)
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
                    break
    return path


@SQLITE_FILE
def test_full_disk_refuses_writes_serves_reads_and_recovers(small_filesystem):
    data = small_filesystem / "data"
    s = XizorServer(data)
    try:
        a = App(s, create_app(s.base))
        pw = a.create_paywall("cinematic")
        a.publish(pw)
        a.assign("onboarding", pw)
        served = a.sdk.get(SDK_PATH, headers={"Accept": "application/json"})
        assert served.status_code == 200
        draft, etag = a.draft(pw)
        assert requests.get(s.base + "/readyz", timeout=10).status_code == 200

        filler = fill(small_filesystem)

        # Writes: 503 storage_unavailable, whatever their size.
        bigger = dict(draft["document"], notes="x" * 200_000)
        problem(a.save_draft(pw, bigger, etag), 503, "storage_unavailable")
        problem(a.dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True}), 503, "storage_unavailable")
        event = {"id": "e1", "name": "paywall_open", "timestamp": 1_796_000_000_000, "placement": "onboarding",
                 "paywallId": pw, "version": 1}
        problem(a.sdk.post("/v1/sdk/events", {"events": [event]}), 503, "storage_unavailable")
        problem(a.dashboard.post("/v1/paywalls", {"template": "clean"}), 503, "storage_unavailable")
        ready = problem(requests.get(s.base + "/readyz", timeout=10), 503, "disk_full")
        assert "free" in ready["detail"]

        # Reads: the SDK answer comes from memory, unchanged; revalidation still 304.
        again = a.sdk.get(SDK_PATH, headers={"Accept": "application/json"})
        assert again.status_code == 200 and again.content == served.content
        assert a.sdk.get(SDK_PATH, headers={"Accept": "application/json", "If-None-Match": served.headers["ETag"]}).status_code == 304
        # Nothing half-written: the draft and the versions are as before.
        assert a.draft(pw) == (draft, etag)
        assert [v["version"] for v in a.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [1]

        # Space again: the same writes succeed, numbered as if the failures never happened.
        os.remove(filler)
        assert requests.get(s.base + "/readyz", timeout=10).status_code == 200
        saved = a.save_draft(pw, draft["document"], etag)
        assert saved.status_code == 200, saved.text
        assert a.publish(pw)["version"] == 2
        assert a.sdk.post("/v1/sdk/events", {"events": [event]}).json()["accepted"] == 1
        assert a.sdk.get(SDK_PATH, headers={"Accept": "application/json"}).json()["version"] == 2
    finally:
        assert s.stop() == 0
    # The file passes the integrity check and reopens with everything that was answered 2xx.
    check = subprocess.run([BIN, "backup", "--check", str(data / "xizor.sqlite")], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0, check.stderr
    s = XizorServer(data)
    try:
        assert [v["version"] for v in App(s, {"appId": a.id, "secretKey": a.secret_key, "publicKey": a.public_key})
                .dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [2, 1]
    finally:
        assert s.stop() == 0


# --- refusing to start -----------------------------------------------------------------------

def initialised(tmp_path):
    """A data directory with an app and a published paywall, server stopped."""
    data = tmp_path / "data"
    s = XizorServer(data)
    a = App(s, create_app(s.base))
    pw = a.create_paywall()
    a.publish(pw)
    a.assign("onboarding", pw)
    assert s.stop() == 0
    assert (data / "xizor.initialized").exists()
    return data


def serve(data, *args, **extra_env):
    """Runs `xizor serve` expecting it to refuse; a server that starts instead fails the test by timeout."""
    env = dict(os.environ, XIZOR_ADMIN_TOKEN=ADMIN_TOKEN, **extra_env)
    return subprocess.run([BIN, *(args or ("serve", "--port", "0")), "--data-dir", str(data)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=30)


def assert_refused(proc, words):
    assert proc.returncode == 3, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "", "nothing was served"
    for word in words:
        assert word in proc.stderr.lower(), proc.stderr


@SQLITE_FILE
def test_deleted_database_refuses_to_start(tmp_path):
    data = initialised(tmp_path)
    for name in ("xizor.sqlite", "xizor.sqlite-wal", "xizor.sqlite-shm"):
        if (data / name).exists():
            os.remove(data / name)
    assert_refused(serve(data), ["missing", "restore", "xizor.initialized"])
    assert not (data / "xizor.sqlite").exists(), "no empty database was created"
    assert_refused(serve(data, "migrate"), ["missing"])


@SQLITE_FILE
def test_emptied_database_refuses_to_start(tmp_path):
    data = initialised(tmp_path)
    open(data / "xizor.sqlite", "wb").close()
    assert_refused(serve(data), ["empty", "restore"])


@SQLITE_FILE
def test_corrupted_database_refuses_to_start(tmp_path):
    data = initialised(tmp_path)
    assert not (data / "xizor.sqlite-wal").exists() or os.path.getsize(data / "xizor.sqlite-wal") == 0
    size = os.path.getsize(data / "xizor.sqlite")
    assert size >= 8 * 4096
    rng = random.Random(9)
    with open(data / "xizor.sqlite", "r+b") as f:
        f.seek(2 * 4096)  # page 3 onwards: tables and indexes, not the header
        f.write(bytes(rng.randrange(256) for _ in range(4 * 4096)))
    proc = serve(data)
    assert_refused(proc, ["xizor.sqlite"])
    assert "damaged" in proc.stderr or "cannot" in proc.stderr


def damage_table(data, table):
    """Overwrites the root page of `table` and of each of its indexes with noise."""
    with sqlite3.connect(data / "xizor.sqlite") as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        roots = [r for (r,) in db.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = ? AND rootpage > 0", (table,))]
    assert roots, table
    rng = random.Random(table)
    with open(data / "xizor.sqlite", "r+b") as f:
        for root in roots:
            f.seek((root - 1) * page_size)
            f.write(bytes(rng.randrange(256) for _ in range(page_size)))


@SQLITE_FILE
def test_the_default_check_leaves_the_history_out_and_file_or_full_reads_it(tmp_path):
    """`storage.startupCheck=quick` checks every table but the events and their rollups, whose size
    is the apps' history (a damaged page of theirs fails what reads them, not a paywall); `file` and
    `full` read them."""
    data = initialised(tmp_path)
    damage_table(data, "events")
    damage_table(data, "experiment_subscribers")
    for check in ("file", "full"):
        proc = serve(data, XIZOR_STORAGE_STARTUP_CHECK=check)
        assert_refused(proc, ["xizor.sqlite", "restore"])
        assert "damaged" in proc.stderr or "malformed" in proc.stderr, (check, proc.stderr)
    s = XizorServer(data)
    try:
        assert requests.get(s.base + "/readyz", timeout=10).status_code == 200
        assert requests.get(s.base + "/v1/apps", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
                            timeout=10).status_code == 200
    finally:
        s.stop()
    # Any other table is checked before serving.
    damage_table(data, "paywalls")
    assert_refused(serve(data), ["paywalls", "restore"])


@SQLITE_FILE
def test_a_file_that_is_not_a_database_refuses_to_start(tmp_path):
    data = initialised(tmp_path)
    with open(data / "xizor.sqlite", "wb") as f:
        f.write(b"this is not a database\n" * 1000)
    assert_refused(serve(data), ["xizor.sqlite"])


@SQLITE_FILE
def test_a_fresh_directory_starts_and_records_the_marker(tmp_path):
    data = tmp_path / "fresh"
    s = XizorServer(data)
    assert requests.get(s.base + "/readyz", timeout=10).status_code == 200
    assert s.stop() == 0
    assert (data / "xizor.initialized").exists()


# --- stored data that no longer reads ----------------------------------------------------------

def test_unreadable_stored_data_answers_500_never_a_default(tmp_path):
    # A rule that cannot be read is not skipped (that would silently retarget the placement) and a
    # draft that is not JSON is not shown as {}: both answer a 500 problem and are counted.
    data = tmp_path / "data"
    s = XizorServer(data)
    a = App(s, create_app(s.base))
    pw = a.create_paywall("clean")
    a.publish(pw)
    a.assign("onboarding", pw)
    a.assign("upsell", pw)
    assert a.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"key": "tier", "op": "eq", "value": "pro"}, "paywallId": pw}]}).status_code == 200
    assert s.stop() == 0
    if drivers.DRIVER == "sqlite":
        db = sqlite3.connect(data / "xizor.sqlite")
        db.execute("UPDATE placement_rules SET condition = ? WHERE placement_key = 'onboarding'",
                   ('{"key": "tier", "op": "resembles", "value": "pro"}',))
        db.execute("PRAGMA ignore_check_constraints = ON")  # the schema keeps JSON valid; stands for a damaged restore
        db.execute("UPDATE paywalls SET draft = '{not json' WHERE id = ?", (pw,))
        db.commit()
        db.close()
    else:
        # The same damage on PostgreSQL: the check that keeps drafts JSON dropped, as by a bad restore.
        subprocess.run(["psql", drivers.database_url(data), "-v", "ON_ERROR_STOP=1", "-qc",
                        "UPDATE placement_rules SET condition = '{\"key\": \"tier\", \"op\": \"resembles\", \"value\": \"pro\"}' "
                        "WHERE placement_key = 'onboarding'; ALTER TABLE paywalls DROP CONSTRAINT paywalls_draft_check; "
                        f"UPDATE paywalls SET draft = '{{not json' WHERE id = '{pw}'"], check=True, capture_output=True)
    s = XizorServer(data)
    try:
        r = Client(s.base, a.public_key).get(SDK_PATH, headers={"Accept": "application/json"})
        problem(r, 500, "internal_error")
        # The other placement, without that rule, still serves.
        upsell = Client(s.base, a.public_key).get("/v1/sdk/placements/upsell/paywall")
        assert upsell.status_code == 200
        problem(Client(s.base, a.secret_key).get(f"/v1/paywalls/{pw}/draft"), 500, "internal_error")
        metrics = requests.get(s.base + "/metrics", timeout=10).text
        assert 'xizor_data_failures_total{kind="stored_rule"}' in metrics
        counts = {line.split("}")[0] + "}": float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("xizor_data_failures_total{")}
        assert counts['xizor_data_failures_total{kind="stored_rule"}'] >= 2  # at load, and the request that reached it
        assert counts['xizor_data_failures_total{kind="stored_document"}'] >= 1
    finally:
        assert s.stop() == 0
