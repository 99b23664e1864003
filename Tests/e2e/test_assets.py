"""Media assets (issue 20, item 7): uploads content-addressed by their bytes, served without a key under
immutable caching with byte ranges; the templates' media bundled in the binary and served by the server,
so a fresh install shows complete paywalls; media on reserved hosts warned about."""
import base64
import hashlib
import json
import re

import pytest
import requests

from conftest import ROOT
from test_authorization_matrix import MCP_HEADERS
from xizor_server import App, XizorServer, create_app

BUNDLED = ROOT / "Sources" / "XizorDomain" / "Assets" / "Bundled"
PNG = (BUNDLED / "clean-header.png").read_bytes()
JPEG = (BUNDLED / "cinematic-hero-poster.jpg").read_bytes()
MP4 = (BUNDLED / "clean-sync-demo.mp4").read_bytes()
LOTTIE = (BUNDLED / "lottie-delight-mascot-wave.json").read_bytes()
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def upload(app, body, content_type="application/octet-stream", name=None, key=...):
    return app.dashboard.request("POST", "/v1/assets", data=body, headers={"Content-Type": content_type},
                                 params={"name": name} if name else None, key=key)


def public(server, path, **headers):
    return requests.get(server.base + path, headers=headers, timeout=30)


def test_an_upload_is_content_addressed_and_served_immutable_with_ranges(server, app):
    r = upload(app, PNG, "image/png", name="header.png")
    assert r.status_code == 201, r.text
    asset = r.json()
    sha = hashlib.sha256(PNG).hexdigest()
    assert asset["id"] == sha and asset["kind"] == "image" and asset["contentType"] == "image/png" and asset["size"] == len(PNG)
    assert asset["path"] == f"/v1/assets/{app.id}/{sha}.png" and asset["url"] == "https://xizor.localhost" + asset["path"]
    assert asset["name"] == "header.png" and r.headers["Location"] == f"/v1/assets/{sha}"
    again = upload(app, PNG)
    assert again.status_code == 200 and again.json()["id"] == sha and again.json()["name"] == "header.png"
    assert app.dashboard.get(f"/v1/assets/{sha}").json() == asset

    served = public(server, asset["path"])
    assert served.status_code == 200 and served.content == PNG
    assert served.headers["Content-Type"] == "image/png" and served.headers["ETag"] == f'"{sha}"'
    assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable" and served.headers["Accept-Ranges"] == "bytes"
    assert public(server, asset["path"], **{"If-None-Match": f'"{sha}"'}).status_code == 304
    part = public(server, asset["path"], Range="bytes=8-15")
    assert part.status_code == 206 and part.content == PNG[8:16] and part.headers["Content-Range"] == f"bytes 8-15/{len(PNG)}"
    tail = public(server, asset["path"], Range="bytes=-4")
    assert tail.status_code == 206 and tail.content == PNG[-4:]
    past = public(server, asset["path"], Range=f"bytes={len(PNG)}-")
    assert past.status_code == 416 and past.headers["Content-Range"] == f"bytes */{len(PNG)}"
    assert public(server, asset["path"], Range="bytes=0-1,4-5").content == PNG   # several ranges: the whole file
    # Another app neither sees it nor serves it from its folder; a wrong extension or id is a 404.
    other = App(server, create_app(server.base, "Other"))
    assert other.dashboard.get(f"/v1/assets/{sha}").status_code == 404
    assert public(server, f"/v1/assets/{other.id}/{sha}.png").status_code == 404
    assert public(server, f"/v1/assets/{app.id}/{sha}.jpg").status_code == 404
    assert public(server, f"/v1/assets/{app.id}/{'0' * 64}.png").status_code == 404
    # The list, a page at a time.
    upload(app, JPEG)
    upload(app, MP4)
    first = app.dashboard.get("/v1/assets", params={"limit": 2}).json()
    second = app.dashboard.get("/v1/assets", params={"limit": 2, "cursor": first["nextCursor"]}).json()
    listed = [a["contentType"] for a in first["items"] + second["items"]]
    assert listed == ["image/png", "image/jpeg", "video/mp4"] and second["nextCursor"] is None


def test_the_bytes_decide_the_type(server, app):
    lottie = upload(app, LOTTIE, "application/json")
    assert lottie.status_code == 201 and lottie.json()["kind"] == "lottie" and lottie.json()["path"].endswith(".json")
    assert upload(app, MP4, "video/mp4").json()["kind"] == "video"
    cases = [
        (SVG, "image/svg+xml", 415, "unsupported_media_type"),
        (b'{"not": "a lottie"}', "application/json", 415, "unsupported_media_type"),
        (JPEG, "image/png", 415, "content_type_mismatch"),
        (b"", "image/png", 400, "missing_body"),
    ]
    for body, content_type, status, code in cases:
        r = upload(app, body, content_type)
        assert r.status_code == status and r.json()["code"] == code, (content_type, r.text)
        assert r.headers["Content-Type"] == "application/problem+json"
    # The public key and no key at all cannot upload.
    assert upload(app, PNG, key=app.public_key).status_code == 403
    assert upload(app, PNG, key=None).status_code == 401


def test_size_limits_and_the_quota_per_app(tmp_path):
    server = XizorServer(tmp_path / "data", extra_env={"XIZOR_ASSETS_MAX_IMAGE_BYTES": str(len(PNG) - 1),
                                                       "XIZOR_ASSETS_MAX_BYTES_PER_APP": str(len(JPEG) + len(LOTTIE))})
    try:
        app = App(server, create_app(server.base))
        too_large = upload(app, PNG)
        assert too_large.status_code == 413 and too_large.json()["code"] == "asset_too_large", too_large.text
        assert upload(app, JPEG).status_code == 201 and upload(app, LOTTIE).status_code == 201
        over = upload(app, MP4)
        assert over.status_code == 413 and over.json()["code"] == "asset_quota_exceeded", over.text
        # Another app has its own quota.
        assert App(server, create_app(server.base, "B")).dashboard.request(
            "POST", "/v1/assets", data=MP4, headers={"Content-Type": "video/mp4"}).status_code == 201
    finally:
        assert server.stop() == 0


def test_a_fresh_install_serves_the_templates_media_and_pages_load_it(server, app):
    pw = app.create_paywall("clean")
    draft, _ = app.draft(pw)
    urls = re.findall(r'"(https://xizor\.localhost/v1/assets/templates/[^"]+)"', json.dumps(draft))
    assert len(urls) == 3, urls   # header image, demo video and its poster
    validation = app.dashboard.post("/v1/validate", draft["document"]).json()
    assert validation["ok"] and not [w for w in validation["warnings"] if w["code"] == "unreachable_media_host"]
    for url in urls:
        path = url.removeprefix("https://xizor.localhost")
        served = public(server, path)
        assert served.status_code == 200 and len(served.content) > 1000, path
        assert served.headers["ETag"] == '"%s"' % hashlib.sha256(served.content).hexdigest()
    assert public(server, "/v1/assets/templates/nope.png").status_code == 404
    app.publish(pw)
    app.assign("onboarding", pw)
    page = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "text/html"}).text
    # Without server.publicURL the page loads them from its own origin.
    assert 'src="/v1/assets/templates/clean-header.png"' in page and "xizor.localhost" not in page
    assert "img-src &#39;self&#39; https:" in page, page[:600]
    document = app.sdk.get("/v1/sdk/placements/onboarding/paywall").json()["document"]
    assert "https://xizor.localhost/v1/assets/templates/clean-header.png" in json.dumps(document)


def test_an_uploaded_image_in_a_document_and_the_public_url(tmp_path):
    server = XizorServer(tmp_path / "data", extra_env={"XIZOR_PUBLIC_URL": "https://paywalls.acme.dev"})
    try:
        app = App(server, create_app(server.base))
        asset = upload(app, PNG, "image/png").json()
        assert asset["url"] == "https://paywalls.acme.dev" + asset["path"]
        pw = app.create_paywall("clean")
        draft, etag = app.draft(pw)
        document = draft["document"]
        document["root"]["children"][1]["src"] = asset["url"]
        assert app.dashboard.put(f"/v1/paywalls/{pw}/draft", {"document": document}, headers={"If-Match": etag}).status_code == 200
        app.publish(pw)
        app.assign("onboarding", pw)
        answer = json.dumps(app.sdk.get("/v1/sdk/placements/onboarding/paywall").json()["document"])
        # The SDK's JSON names every media of this server at the public URL, the templates' too.
        assert asset["url"] in answer and "https://paywalls.acme.dev/v1/assets/templates/clean-sync-demo.mp4" in answer
        assert "xizor.localhost" not in answer
        bundle = app.sdk.get("/v1/sdk/fallback-bundle").text
        assert asset["url"] in bundle and "xizor.localhost" not in bundle
        page = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "text/html"}).text
        assert f'src="{asset["url"]}"' in page and "&#39;self&#39;" not in page
    finally:
        assert server.stop() == 0


def test_media_on_reserved_hosts_is_warned_about(app):
    pw = app.create_paywall("clean")
    draft, _ = app.draft(pw)
    document = draft["document"]
    document["root"]["children"][1]["src"] = "https://cdn.example.com/paywalls/clean/header@3x.png"
    warnings = app.dashboard.post("/v1/validate", document).json()["warnings"]
    assert {"path": "$.root.children[1].src", "code": "unreachable_media_host"} in [
        {"path": w["path"], "code": w["code"]} for w in warnings], warnings


def test_a_bad_public_url_is_refused_at_start(tmp_path):
    from conftest import run_cli
    data = tmp_path / "refused"
    for value in ["http://paywalls.acme.dev", "https://paywalls.acme.dev/path"]:
        proc = run_cli("serve", "--port", "0", "--data-dir", str(data), env={"XIZOR_ADMIN_TOKEN": "x" * 40, "XIZOR_PUBLIC_URL": value},
                       check=False, timeout=30)
        assert proc.returncode == 78 and "publicURL" in proc.stderr, proc.stderr
    assert not data.exists()


def test_agents_upload_and_list_media_over_mcp(server, app):
    headers = dict(MCP_HEADERS, Authorization=f"Bearer {app.secret_key}", **{"Content-Type": "application/json"})

    def call(name, arguments):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        return requests.post(server.base + "/mcp", data=json.dumps(message), headers=headers, timeout=30).json()["result"]

    uploaded = call("upload_asset", {"data": base64.b64encode(LOTTIE).decode(), "name": "mascot.json"})
    assert not uploaded.get("isError"), uploaded
    asset = uploaded["structuredContent"]
    assert asset["created"] is True and asset["kind"] == "lottie" and asset["id"] == hashlib.sha256(LOTTIE).hexdigest()
    assert public(server, asset["path"]).content == LOTTIE
    assert call("upload_asset", {"data": base64.b64encode(LOTTIE).decode()})["structuredContent"]["created"] is False
    refused = call("upload_asset", {"data": base64.b64encode(SVG).decode()})
    assert refused["isError"] is True and "unsupported_media_type" in json.dumps(refused)
    assert call("upload_asset", {"data": "not base64 at all!"})["isError"] is True
    listed = call("list_assets", {})["structuredContent"]
    assert [a["id"] for a in listed["items"]] == [asset["id"]] and listed["nextCursor"] is None
