import subprocess

from conftest import run_cli


def test_version_prints_a_version():
    out = run_cli("version").stdout.strip()
    assert out.startswith("xizor ")


def listed_commands():
    """The lines of `xizor --help`'s command list, and the command each names."""
    listed = run_cli("--help").stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return listed, [line.split()[0] for line in listed]


def test_help_lists_every_command_apart_from_its_summary():
    listed, names = listed_commands()
    assert "serve" in names and "version" in names and "signing-keys" in names
    # One column for the names, and at least two spaces before every summary, the longest name's too.
    starts = {len(line) - len(line[2:].split("  ", 1)[1].lstrip()) for line in listed}
    assert len(starts) == 1, listed
    for line, name in zip(listed, names):
        assert line.startswith("  " + name + "  "), line


def test_unknown_command_fails_with_usage():
    proc = run_cli("frobnicate", check=False)
    assert proc.returncode == 64
    assert "unknown command" in proc.stderr


import json
import shutil
import sqlite3

import pytest

import drivers

from conftest import BIN, ROOT
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app


def test_every_command_has_help():
    _, commands = listed_commands()
    assert len(commands) >= 16, commands
    for command in commands:
        proc = run_cli(command, "--help")
        assert "Usage: xizor " + command in proc.stdout, command


@pytest.mark.sqlite_only  # inspects or backs up the SQLite file (PostgreSQL: test_postgres.py)
def test_migrate_applies_once_and_reports(data_dir):
    first = run_cli("migrate", "--data-dir", str(data_dir)).stdout
    assert "applied 0001_initial.sql" in first and "applied 0002_experiments.sql" in first
    again = run_cli("migrate", "--data-dir", str(data_dir)).stdout
    assert "is up to date" in again
    names = [r[0] for r in sqlite3.connect(data_dir / "xizor.sqlite").execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == ["0001_initial.sql", "0002_experiments.sql", "0003_changes.sql", "0004_version_notes.sql",
                     "0005_translation_memory.sql", "0006_key_labels.sql", "0007_assets.sql",
                     "0008_targeting.sql", "0009_integrations.sql", "0010_events_by_hour.sql", "0011_presentations.sql", "0012_webhook_health.sql",
                     "0013_idempotency_hash.sql", "0014_subscriber_changes.sql", "0015_event_rollups.sql",
                     "0016_event_retention.sql", "0017_events_unused_indexes.sql", "0018_events_by_month.sql",
                     "0019_verified_revenue.sql", "0020_teams.sql", "0021_sketches_uncompressed.sql"]


def test_a_changed_migration_stops_start_up(tmp_path, data_dir):
    """A database whose history records a different checksum for a migration than the binary
    carries (it was migrated by a binary built from another file) is refused before listening."""
    run_cli("migrate", "--data-dir", str(data_dir))
    changed = "UPDATE schema_migrations SET checksum = '" + "0" * 64 + "' WHERE name = '0001_initial.sql'"
    if drivers.DRIVER == "sqlite":
        db = sqlite3.connect(data_dir / "xizor.sqlite")
        db.execute(changed)
        db.commit()
        db.close()
    else:
        subprocess.run(["psql", drivers.database_url(data_dir), "-qc", changed], check=True, capture_output=True)
    proc = run_cli("serve", "--port", "0", "--data-dir", str(data_dir), check=False, timeout=30)
    assert proc.returncode != 0
    assert "0001_initial.sql was changed after it was applied" in proc.stderr
    assert proc.stdout == ""  # never listened


def test_serve_refuses_pending_migrations_when_not_migrating_on_start(tmp_path, data_dir):
    proc = run_cli("serve", "--port", "0", "--data-dir", str(data_dir), env={"XIZOR_MIGRATE_ON_START": "false"}, check=False, timeout=30)
    assert proc.returncode != 0 and "pending migration" in proc.stderr and "xizor migrate" in proc.stderr


@pytest.mark.sqlite_only  # inspects or backs up the SQLite file (PostgreSQL: test_postgres.py)
def test_apps_create_prints_the_keys_once(data_dir):
    created = json.loads(run_cli("apps", "create", "Demo Co", "--data-dir", str(data_dir)).stdout)
    assert set(created) == {"appId", "secretKey", "publicKey"}
    assert created["secretKey"].startswith("sk_") and created["publicKey"].startswith("pk_")
    # Only hashes are stored.
    db = sqlite3.connect(data_dir / "xizor.sqlite")
    stored = [r[0] for r in db.execute("SELECT hash FROM api_keys")]
    assert all(isinstance(h, bytes) and len(h) == 32 for h in stored)
    assert created["secretKey"].encode() not in b"".join(stored)
    assert run_cli("apps", "rename", "--data-dir", str(data_dir), check=False).returncode == 64


def test_demo_publishes_the_three_templates_on_their_placements(tmp_path):
    data = tmp_path / "demo"
    created = json.loads(run_cli("demo", "--data-dir", str(data)).stdout)
    assert "curl" in created["try"] and created["publicKey"] in created["try"]
    server = XizorServer(data)
    try:
        sdk = Client(server.base, created["publicKey"])
        served = {key: sdk.get(f"/v1/sdk/placements/{key}/paywall").json()["document"]["name"] for key in ["onboarding", "upsell", "settings"]}
        assert served == {"onboarding": "Cinematic", "upsell": "Clean", "settings": "Lottie Delight"}
    finally:
        assert server.stop() == 0


def test_serve_generates_an_admin_token_once_when_none_is_configured(tmp_path):
    data = tmp_path / "fresh"
    server = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": None, "XIZOR_LOG_LEVEL": "info"})
    try:
        import time
        deadline = time.time() + 5
        while time.time() < deadline and not any("adminToken" in l for l in server.stderr_lines):
            time.sleep(0.05)
        line = next(json.loads(l) for l in server.stderr_lines if "adminToken" in l)
        token = line["adminToken"]
        assert Client(server.base, token).post("/v1/apps", {"name": "via generated token"}).status_code == 201
    finally:
        assert server.stop() == 0
    again = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": None, "XIZOR_LOG_LEVEL": "info"})
    try:
        import time
        time.sleep(0.3)
        assert not any("adminToken" in l for l in again.stderr_lines)
        assert Client(again.base, token).post("/v1/apps", {"name": "still valid"}).status_code == 201
    finally:
        assert again.stop() == 0


def test_a_first_run_prints_a_short_summary_once(tmp_path):
    """`make run`'s first start: URL, the credentials shown only now and a curl that works, as a few readable
    lines beside the JSON logs (issue 20, item 12); a second start prints none of it."""
    import shlex
    import time
    data = tmp_path / "first"
    server = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": None, "XIZOR_LOG_LEVEL": "info"}, args=("--demo-if-empty",))
    try:
        deadline = time.time() + 5
        while time.time() < deadline and not any(l.startswith("  docs") for l in server.stderr_lines):
            time.sleep(0.05)
        text = "".join(server.stderr_lines)
        assert f"Xizor is serving http://127.0.0.1:{server.port}\n" in text
        fields = {l.split()[0] + " " + l.split()[1]: l.split()[2] for l in server.stderr_lines
                  if l.startswith("  ") and len(l.split()) > 2 and l.split()[1] in ("token", "key")}
        logged = next(json.loads(l) for l in server.stderr_lines if "adminToken" in l)["adminToken"]
        assert fields["admin token"] == logged
        assert Client(server.base, fields["secret key"]).get("/v1/paywalls").status_code == 200
        curl = next(l.split("try", 1)[1].strip() for l in server.stderr_lines if l.startswith("  try"))
        assert fields["public key"] in curl
        answer = subprocess.run(shlex.split(curl) + ["-s", "-o", "/dev/null", "-w", "%{http_code}"], capture_output=True, text=True)
        assert answer.stdout == "200"
    finally:
        assert server.stop() == 0
    again = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": None, "XIZOR_LOG_LEVEL": "info"}, args=("--demo-if-empty",))
    try:
        time.sleep(0.3)
        assert not any("Xizor is serving" in l for l in again.stderr_lines)
    finally:
        assert again.stop() == 0


@pytest.mark.sqlite_only  # inspects or backs up the SQLite file (PostgreSQL: test_postgres.py)
def test_backup_of_a_live_server_and_check(tmp_path):
    server = XizorServer(tmp_path / "live")
    try:
        admin = Client(server.base, ADMIN_TOKEN)
        assert admin.post("/v1/apps", {"name": "backed up"}).status_code == 201
        out = tmp_path / "copy.sqlite"
        result = json.loads(run_cli("backup", str(out), "--data-dir", str(tmp_path / "live")).stdout)
        assert result == {"database": str(out), "integrity": "ok"}
        assert json.loads(run_cli("backup", str(out), "--check").stdout)["integrity"] == "ok"
        names = [r[0] for r in sqlite3.connect(out).execute("SELECT name FROM apps")]
        assert names == ["backed up"]
    finally:
        assert server.stop() == 0
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    assert run_cli("backup", str(broken), "--check", check=False).returncode != 0


def test_a_configured_admin_token_replaces_earlier_ones(tmp_path):
    data = tmp_path / "rotate"
    first = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": "xa_old_token_000000000000000000000"})
    first.stop()
    second = XizorServer(data, extra_env={"XIZOR_ADMIN_TOKEN": "xa_new_token_111111111111111111111"})
    try:
        assert Client(second.base, "xa_old_token_000000000000000000000").post("/v1/apps", {"name": "x"}).status_code == 401
        assert Client(second.base, "xa_new_token_111111111111111111111").post("/v1/apps", {"name": "y"}).status_code == 201
    finally:
        assert second.stop() == 0


def test_a_short_admin_token_is_refused_before_anything_is_created(tmp_path):
    data = tmp_path / "short"
    proc = run_cli("serve", "--port", "0", "--data-dir", str(data), env={"XIZOR_ADMIN_TOKEN": "x" * 31}, check=False, timeout=30)
    assert proc.returncode == 78 and "at least 32" in proc.stderr, proc.stderr
    assert not data.exists()


@pytest.mark.parametrize("env, words", [
    ({"XIZOR_RENDERER_MEDIA_ORIGINS": "https://cdn.example.com; script-src *"}, "renderer.mediaOrigins"),
    ({"XIZOR_RENDERER_MEDIA_ORIGINS": "http:"}, "renderer.mediaOrigins"),
    ({"XIZOR_HTTP_MAX_BUFFERED_BODY_BYTES": "1000", "XIZOR_HTTP_MAX_BODY_BYTES": "2000"}, "maxBufferedBodyBytes"),
])
def test_settings_that_would_weaken_or_break_serving_are_refused_at_start(tmp_path, env, words):
    data = tmp_path / "refused"
    proc = run_cli("serve", "--port", "0", "--data-dir", str(data), env={"XIZOR_ADMIN_TOKEN": "x" * 40} | env, check=False, timeout=30)
    assert proc.returncode == 78 and words in proc.stderr, proc.stderr
    assert not data.exists()


def test_media_origins_reach_every_page_policy(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RENDERER_MEDIA_ORIGINS": "https://cdn.example.com,https://img.example.org"})
    try:
        a = App(s, create_app(s.base))
        pw = a.create_paywall("clean")
        a.publish(pw)
        a.assign("onboarding", pw)
        page = a.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "text/html"}).text
        # The configured origins, and the page's own origin for this server's assets (no publicURL set).
        assert "img-src &#39;self&#39; https://cdn.example.com https://img.example.org data: blob:" in page
        preview = a.dashboard.get(f"/v1/paywalls/{pw}/preview").text
        assert "media-src &#39;self&#39; https://cdn.example.com https://img.example.org blob:" in preview
    finally:
        assert s.stop() == 0


def test_apps_list_prints_one_app_per_line(data_dir):
    first = json.loads(run_cli("apps", "create", "First", "--data-dir", str(data_dir)).stdout)
    second = json.loads(run_cli("apps", "create", "Second", "--data-dir", str(data_dir)).stdout)
    lines = [json.loads(line) for line in run_cli("apps", "list", "--data-dir", str(data_dir)).stdout.splitlines()]
    assert [(a["id"], a["name"], a["archived"]) for a in lines] == [(first["appId"], "First", False), (second["appId"], "Second", False)]
    assert "secretKey" not in str(lines)
    wrong = run_cli("apps", "list", "extra", "--data-dir", str(data_dir), check=False)
    assert wrong.returncode == 64 and "xizor apps list" in wrong.stderr
