"""`xizor backup` of a live server, restored by the procedure in docs/operations.md: a second server
on the copy answers the same placements, versions and SDK representations."""
import json
import os
import shutil
import subprocess
import threading
import uuid

from conftest import BIN, ROOT
from xizor_server import App, XizorServer, create_app

import pytest
# The SQLite file's online backup and its restore (PostgreSQL's: test_postgres.py, pg_dump).
pytestmark = pytest.mark.sqlite_only

PLACEMENTS = {"onboarding": "clean", "upsell": "cinematic", "settings": "lottie_delight"}


def state(app, paywalls):
    """What must survive a restore: placements, every version of every paywall, the SDK answers."""
    placements = app.dashboard.get("/v1/placements").json()
    versions = {pw: app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"] for pw in paywalls}
    sdk = {}
    for key in PLACEMENTS:
        r = app.sdk.get(f"/v1/sdk/placements/{key}/paywall", headers={"Accept": "application/json"})
        assert r.status_code == 200, r.text
        sdk[key] = (r.headers["ETag"], r.json()["version"], r.json()["document"])
    return placements, versions, sdk


def test_backup_of_a_live_server_restores_placements_and_versions(tmp_path):
    live_dir = tmp_path / "live"
    live = XizorServer(live_dir)
    try:
        app = App(live, create_app(live.base))
        paywalls = []
        for key, template in PLACEMENTS.items():
            pw = app.create_paywall(template)
            app.publish(pw)
            app.publish(pw)
            app.assign(key, pw)
            paywalls.append(pw)
        expected = state(app, paywalls)

        # Writes keep going while the backup runs: events, and drafts saved on a fourth paywall.
        busy = app.create_paywall()
        stop = threading.Event()
        written = [0]
        errors = []

        def writer():
            from xizor_server import Client
            sdk, dashboard = Client(live.base, app.public_key), Client(live.base, app.secret_key)
            while not stop.is_set():
                events = [{"id": str(uuid.uuid4()), "name": "paywall_open", "timestamp": 1_796_000_000_000,
                           "placement": "onboarding", "paywallId": paywalls[0], "version": 2} for _ in range(20)]
                r = sdk.post("/v1/sdk/events", {"events": events})
                draft = dashboard.get(f"/v1/paywalls/{busy}/draft")
                s = dashboard.put(f"/v1/paywalls/{busy}/draft", draft.json()["document"], headers={"If-Match": draft.headers["ETag"]})
                if r.status_code != 202 or s.status_code != 200:
                    errors.append((r.status_code, s.status_code))
                written[0] += 1

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            while written[0] < 3:
                stop.wait(0.05)
            backup = tmp_path / "backups" / "xizor-backup.sqlite"
            backup.parent.mkdir()
            proc = subprocess.run([BIN, "backup", str(backup), "--data-dir", str(live_dir)],
                                  capture_output=True, text=True, cwd=ROOT, timeout=60)
            assert proc.returncode == 0, proc.stderr
            assert json.loads(proc.stdout) == {"database": str(backup), "integrity": "ok"}
        finally:
            stop.set()
            thread.join()
        assert errors == [] and written[0] >= 3, "the live server kept serving writes around the backup"
        assert state(app, paywalls) == expected
    finally:
        assert live.stop() == 0

    # The backup is one self-contained file (no -wal beside it) that passes the check.
    assert not os.path.exists(str(backup) + "-wal")
    check = subprocess.run([BIN, "backup", "--check", str(backup)], capture_output=True, text=True, cwd=ROOT)
    assert check.returncode == 0 and json.loads(check.stdout)["integrity"] == "ok"

    # Restore into a new data directory (docs/operations.md, "Restore"): copy the file in as xizor.sqlite.
    restored_dir = tmp_path / "restored"
    restored_dir.mkdir()
    shutil.copyfile(backup, restored_dir / "xizor.sqlite")
    restored = XizorServer(restored_dir)
    try:
        same_keys = App(restored, {"appId": app.id, "secretKey": app.secret_key, "publicKey": app.public_key})
        assert state(same_keys, paywalls) == expected
        assert (restored_dir / "xizor.initialized").exists()
    finally:
        assert restored.stop() == 0

    # Restore in place over the original directory: stop, move the old files aside (the -wal and
    # -shm too: a stale WAL beside a restored file would be replayed into it), copy, start.
    aside = tmp_path / "replaced"
    aside.mkdir()
    for name in ("xizor.sqlite", "xizor.sqlite-wal", "xizor.sqlite-shm"):
        if (live_dir / name).exists():
            shutil.move(str(live_dir / name), str(aside / name))
    shutil.copyfile(backup, live_dir / "xizor.sqlite")
    again = XizorServer(live_dir)
    try:
        assert state(App(again, {"appId": app.id, "secretKey": app.secret_key, "publicKey": app.public_key}), paywalls) == expected
    finally:
        assert again.stop() == 0
