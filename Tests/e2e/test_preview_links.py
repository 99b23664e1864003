"""Issue 35, finding 8: a preview link ends with the key that made it, its paywall and its app; its
token never reaches the access log; only this server's own pages (the console) may frame it."""
import json

from xizor_server import ADMIN_TOKEN, App, Client, XizorServer, create_app


def link(client, paywall):
    r = client.post(f"/v1/paywalls/{paywall}/preview-link", {"locale": "en"})
    assert r.status_code == 201, r.text
    return r.json()["url"]


def gone(base, url):
    r = Client(base).get(url)
    return r.status_code == 404 and r.json()["code"] == "preview_link_not_found"


def test_a_link_ends_with_its_key_its_paywall_and_its_app(app):
    base = app.server.base
    reader = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read"]}).json()
    first, second = app.create_paywall(), app.create_paywall()
    by_reader, by_owner = link(Client(base, reader["key"]), first), link(app.dashboard, first)
    assert Client(base).get(by_reader).status_code == 200
    assert app.dashboard.delete(f"/v1/keys/{reader['id']}").status_code == 204
    assert gone(base, by_reader), "the revoked key's link is gone at once"
    assert Client(base).get(by_owner).status_code == 200, "another key's link still works"
    other = link(app.dashboard, second)
    assert app.dashboard.delete(f"/v1/paywalls/{first}").status_code in (200, 204)
    assert gone(base, by_owner), "an archived paywall's link is gone"
    assert Client(base).get(other).status_code == 200
    assert Client(base, ADMIN_TOKEN).delete(f"/v1/apps/{app.id}").status_code == 204
    assert gone(base, other), "an archived app's link is gone"


def test_a_link_may_be_framed_only_by_this_servers_own_pages(app):
    r = Client(app.server.base).get(link(app.dashboard, app.create_paywall()))
    assert r.status_code == 200
    policy = r.headers["Content-Security-Policy"]
    assert "," not in policy, "one policy, not two"
    meta = r.text.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0].replace("&#39;", "'")
    assert policy == meta + "; frame-ancestors 'self'", (policy, meta)
    assert r.headers["X-Frame-Options"] == "SAMEORIGIN" and r.headers["X-Content-Type-Options"] == "nosniff"


def test_the_access_log_writes_a_link_without_its_token(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_ACCESS_LOG": "true", "XIZOR_LOG_LEVEL": "info"})
    try:
        app = App(s, create_app(s.base))
        url = link(app.dashboard, app.create_paywall())
        token = url.rsplit("/", 1)[1]
        assert Client(s.base).get(url).status_code == 200
        assert Client(s.base).get(url + "x").status_code == 404
    finally:
        assert s.stop() == 0
    lines = [json.loads(line) for line in s.stderr_lines if line.strip()]
    paths = [l["path"] for l in lines if l["message"] == "request" and l["path"].startswith("/v1/previews/")]
    assert paths == ["/v1/previews/…", "/v1/previews/…"], paths
    assert not [l for l in s.stderr_lines if token in l], "the token is nowhere in the logs"
