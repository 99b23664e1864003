"""A binary that runs anywhere (issue 15): `xizor` copied alone into an empty directory, run from
there with no repository, no Config/ and no Migrations/ beside it, does everything an operator
needs: migrate, serve, healthcheck, apps, backup, a clean stop. A configuration mistake exits 78
before anything is created; a wrong command line exits 64 (docs/operations.md, "Exit statuses")."""
import json
import os
import shutil
import signal
import subprocess

import requests

from conftest import BIN

TOKEN = "xa_" + "anywhere" * 5


def alone(tmp_path):
    """The binary in a directory of its own, and an empty working directory elsewhere."""
    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir()
    work.mkdir()
    binary = bin_dir / "xizor"
    shutil.copy2(BIN, binary)
    # No XIZOR_* from the test runner's environment, nothing but PATH and the admin token.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "XIZOR_ADMIN_TOKEN": TOKEN}
    return str(binary), work, env


def run(binary, work, env, *args, timeout=60):
    return subprocess.run([binary, *args], cwd=work, env=env, capture_output=True, text=True, timeout=timeout)


def test_the_binary_alone_migrates_serves_checks_and_backs_up(tmp_path):
    binary, work, env = alone(tmp_path)
    migrated = run(binary, work, env, "migrate", "--data-dir", "data")
    assert migrated.returncode == 0, migrated.stderr
    assert "0001_initial.sql" in migrated.stdout  # the embedded migrations
    created = run(binary, work, env, "apps", "create", "Anywhere", "--data-dir", "data")
    assert created.returncode == 0, created.stderr
    keys = json.loads(created.stdout)

    server = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", "data"], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line, server.stderr.read()
        port = json.loads(line)["port"]
        health = run(binary, work, env, "healthcheck", "--port", str(port), "--path", "/readyz")
        assert health.returncode == 0, health.stderr
        r = requests.get(f"http://127.0.0.1:{port}/v1/paywalls", headers={"Authorization": f"Bearer {keys['secretKey']}"}, timeout=10)
        assert r.status_code == 200
        backup = run(binary, work, env, "backup", "copy.sqlite", "--data-dir", "data")
        assert backup.returncode == 0 and '"integrity":"ok"' in backup.stdout, backup.stderr
        assert (work / "copy.sqlite").stat().st_size > 0
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    # Only what was asked for was created in the working directory.
    assert sorted(p.name for p in work.iterdir()) == ["copy.sqlite", "data"]
    assert run(binary, work, env, "healthcheck", "--port", str(port)).returncode == 1  # stopped: no answer


def test_a_configuration_mistake_exits_78_before_creating_anything(tmp_path):
    binary, work, env = alone(tmp_path)
    for mistake in [{"XIZOR_ADMIN_TOKEN": "short"}, {"XIZOR_HTTP_MAX_BUFFERED_BODY_BYTES": "1"},
                    {"XIZOR_PORT": "eighty"}, {"XIZOR_RENDERER_MEDIA_ORIGINS": "http://cdn.example.com"}]:
        for command in (["serve", "--port", "0"], ["migrate"], ["apps", "create", "X"]):
            proc = run(binary, work, {**env, **mistake}, *command, "--data-dir", "data")
            assert proc.returncode == 78, (mistake, command, proc.returncode, proc.stderr)
            assert not (work / "data").exists(), (mistake, command)
    missing = run(binary, work, env, "serve", "--config", "nowhere.json", "--data-dir", "data")
    assert missing.returncode == 78 and "nowhere.json does not exist" in missing.stderr
    assert run(binary, work, env, "serve", "--no-such-flag").returncode == 64
    assert run(binary, work, env, "no-such-command").returncode == 64
    assert list(work.iterdir()) == []
