"""A live `xizor serve` on a loopback port with a temporary data directory, and a small client.

Fixtures: `server` (a fresh server), `app` (an app created through the admin API on it).
"""
import json
import os
import signal
import subprocess
import threading

import pytest
import requests

from conftest import BIN, ROOT
from drivers import storage_env

ADMIN_TOKEN = "xa_test_admin_token_0123456789abcdef"
EVENTS_MAX_AGE_MS = 100 * 365 * 86_400_000


class XizorServer:
    """Starts `xizor serve --port 0`, reads the `listening` line, and stops with SIGTERM."""

    def __init__(self, data_dir, extra_env=None, args=()):
        env = dict(os.environ)
        env.update({"XIZOR_ADMIN_TOKEN": ADMIN_TOKEN, "XIZOR_LOG_LEVEL": "warning", "XIZOR_ACCESS_LOG": "false",
                    # The suites' events carry fixed timestamps (late 2026), which must stay inside the
                    # window whenever the tests run; the window itself is tested with its defaults.
                    "XIZOR_EVENTS_MAX_AGE_MS": str(EVENTS_MAX_AGE_MS),
                    # Every test client is 127.0.0.1: the suites send hundreds of deliberately wrong
                    # keys; the failure limit itself is tested with its defaults.
                    "XIZOR_RATE_LIMITS_AUTH_FAILURES_PER_SECOND": "0"})
        env.update(storage_env(data_dir))
        for name, value in (extra_env or {}).items():
            if value is None:
                env.pop(name, None)  # None removes a variable
            else:
                env[name] = value
        self.data_dir = data_dir
        self.process = subprocess.Popen(
            [BIN, "serve", "--port", "0", "--data-dir", str(data_dir), *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"server did not start: {self.process.stderr.read()}")
        event = json.loads(line)
        assert event["event"] == "listening"
        self.port = event["port"]
        self.base = f"http://127.0.0.1:{self.port}"
        self.stderr_lines = []
        self._reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._reader.start()

    def _drain_stderr(self):
        for line in self.process.stderr:
            self.stderr_lines.append(line)

    def stop(self, timeout=20):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise
        return self.process.returncode


class Client:
    """requests with a base URL and a bearer key; JSON in, `requests.Response` out."""

    def __init__(self, base, key=None):
        self.base = base
        self.key = key
        self.session = requests.Session()

    def request(self, method, path, json_body=None, headers=None, key=..., data=None, params=None):
        h = {}
        k = self.key if key is ... else key
        if k:
            h["Authorization"] = f"Bearer {k}"
        if json_body is not None:
            data = json.dumps(json_body)
        if data is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        return self.session.request(method, self.base + path, data=data, headers=h, params=params, timeout=30)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, json_body=None, **kw):
        return self.request("POST", path, json_body=json_body, **kw)

    def put(self, path, json_body=None, **kw):
        return self.request("PUT", path, json_body=json_body, **kw)

    def patch(self, path, json_body=None, **kw):
        return self.request("PATCH", path, json_body=json_body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


@pytest.fixture
def server(tmp_path):
    s = XizorServer(tmp_path / "data")
    yield s
    assert s.stop() == 0


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    """One server for every test of a module (for modules whose tests never disturb each other)."""
    s = XizorServer(tmp_path_factory.mktemp("server") / "data")
    yield s
    assert s.stop() == 0


def create_app(base, name="Test app"):
    r = Client(base, ADMIN_TOKEN).post("/v1/apps", {"name": name})
    assert r.status_code == 201, r.text
    return r.json()


class App:
    def __init__(self, server, created):
        self.server = server
        self.id = created["appId"]
        self.secret_key = created["secretKey"]
        self.public_key = created["publicKey"]
        self.dashboard = Client(server.base, self.secret_key)
        self.sdk = Client(server.base, self.public_key)

    def create_paywall(self, template="clean", **extra):
        r = self.dashboard.post("/v1/paywalls", {"template": template, **extra})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def publish(self, paywall_id, force=True, **kw):
        """A new version, whether or not the draft changed (`force`: the suites publish unchanged drafts to
        make versions; test_versions.py covers the no-op publish itself)."""
        if force and "json_body" not in kw and "data" not in kw:
            kw["json_body"] = {"force": True}
        r = self.dashboard.post(f"/v1/paywalls/{paywall_id}/publish", **kw)
        assert r.status_code == 201, r.text
        return r.json()

    def assign(self, key, paywall_id):
        r = self.dashboard.put(f"/v1/placements/{key}", {"paywallId": paywall_id})
        assert r.status_code == 200, r.text
        return r.json()

    def draft(self, paywall_id):
        r = self.dashboard.get(f"/v1/paywalls/{paywall_id}/draft")
        assert r.status_code == 200, r.text
        return r.json(), r.headers["ETag"]

    def save_draft(self, paywall_id, document, etag):
        return self.dashboard.put(f"/v1/paywalls/{paywall_id}/draft", document, headers={"If-Match": etag})


@pytest.fixture
def app(server):
    return App(server, create_app(server.base))
