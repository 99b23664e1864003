"""Issue 35, finding 7: a scoped key cannot lock the owner out, and the operator can always mint a
full-access key again (admin token over REST, `xizor keys create` without the server), audited."""
import json

from conftest import run_cli
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app


def problem(r, status, code):
    assert r.status_code == status and r.headers["Content-Type"].startswith("application/problem+json"), (r.status_code, r.text)
    assert r.json()["code"] == code, r.text


def key_id(app, key):
    return next(k["id"] for k in app.dashboard.get("/v1/keys").json()["keys"] if key.startswith(k["prefix"]) and k["revokedAt"] is None)


def test_a_scoped_key_cannot_revoke_the_last_full_access_key(app):
    keeper = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["keys"]}).json()
    scoped = Client(app.server.base, keeper["key"])
    owner = key_id(app, app.secret_key)
    problem(scoped.delete(f"/v1/keys/{owner}"), 409, "last_full_access_key")
    assert app.dashboard.get("/v1/keys").status_code == 200, "the owner's key still works"
    second = app.dashboard.post("/v1/keys", {"kind": "secret"}).json()
    assert scoped.delete(f"/v1/keys/{owner}").status_code == 204, "one of two full-access keys may go"
    problem(scoped.delete(f"/v1/keys/{second['id']}"), 409, "last_full_access_key")
    # The owner's last key may revoke itself; the admin token then mints a new one.
    owner_client = Client(app.server.base, second["key"])
    assert owner_client.delete(f"/v1/keys/{second['id']}").status_code == 204
    assert owner_client.get("/v1/keys").status_code == 401


def test_the_admin_token_mints_a_full_access_key_past_the_cap_and_it_is_audited(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_KEYS_MAX_PER_APP": "2"})
    try:
        app = App(s, create_app(s.base))
        problem(app.dashboard.post("/v1/keys", {"kind": "public"}), 409, "key_limit_reached")
        admin = Client(s.base, ADMIN_TOKEN)
        r = admin.post(f"/v1/apps/{app.id}/keys", {"label": "recovered"}, headers={"X-Request-Id": "recover-1"})
        assert r.status_code == 201, r.text
        minted = r.json()
        assert minted["key"].startswith("sk_") and minted["fullAccess"] is True and minted["label"] == "recovered"
        recovered = Client(s.base, minted["key"])
        entries = recovered.get("/v1/audit-log", params={"action": "key.created"}).json()["entries"]
        entry = next(e for e in entries if e["target"]["id"] == minted["id"])
        assert entry["actor"]["kind"] == "admin" and entry["actor"]["via"] == "rest" and entry["requestId"] == "recover-1"
        # With no live key at all (the owner revoked everything), and with an empty body, still minted.
        for k in recovered.get("/v1/keys").json()["keys"]:
            if k["revokedAt"] is None and k["id"] != minted["id"]:
                assert recovered.delete(f"/v1/keys/{k['id']}").status_code == 204
        assert recovered.delete(f"/v1/keys/{minted['id']}").status_code == 204
        again = admin.post(f"/v1/apps/{app.id}/keys")
        assert again.status_code == 201 and Client(s.base, again.json()["key"]).get("/v1/keys").status_code == 200
        # Only the admin token; bad input is a problem with its path; unknown and archived apps are refused.
        assert Client(s.base, again.json()["key"]).post(f"/v1/apps/{app.id}/keys", {}).status_code == 403
        bad = admin.post(f"/v1/apps/{app.id}/keys", {"label": ""})
        problem(bad, 422, "validation_failed")
        assert bad.json()["errors"][0]["path"] == "$.label"
        problem(admin.post("/v1/apps/app_nope/keys", {}), 404, "app_not_found")
        assert admin.delete(f"/v1/apps/{app.id}").status_code == 204
        problem(admin.post(f"/v1/apps/{app.id}/keys", {}), 409, "app_archived")
    finally:
        assert s.stop() == 0


def test_the_cli_mints_a_full_access_key_offline(data_dir):
    created = json.loads(run_cli("apps", "create", "Locked out", "--data-dir", str(data_dir)).stdout)
    out = json.loads(run_cli("keys", "create", created["appId"], "--label", "from the cli", "--data-dir", str(data_dir)).stdout)
    assert out["appId"] == created["appId"] and out["secretKey"].startswith("sk_")
    missing = run_cli("keys", "create", "app_nope", "--data-dir", str(data_dir), check=False)
    assert missing.returncode == 1 and "app_nope" in missing.stderr
    assert run_cli("keys", "delete", created["appId"], "--data-dir", str(data_dir), check=False).returncode == 64
    s = XizorServer(data_dir)
    try:
        app = Client(s.base, out["secretKey"])
        listed = {k["id"]: k for k in app.get("/v1/keys").json()["keys"]}
        assert listed[out["keyId"]]["fullAccess"] is True and listed[out["keyId"]]["label"] == "from the cli"
        entries = app.get("/v1/audit-log", params={"action": "key.created"}).json()["entries"]
        assert next(e for e in entries if e["target"]["id"] == out["keyId"])["actor"] == {"kind": "cli", "keyId": None, "via": "cli"}
    finally:
        assert s.stop() == 0
