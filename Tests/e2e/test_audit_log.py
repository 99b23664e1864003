"""The audit log (docs/integrations.md, "Audit log").

Every write through REST, MCP or the CLI leaves one entry: the actor (`kind`, `keyId`, `via`), the
action, the target, the request's `X-Request-Id` and the content's SHA-256 before and after. A
write that fails leaves none. GET /v1/audit-log (scope `keys`) answers newest first, filtered and
paged, and only ever the caller's own app.
"""
import json
import re
import time
import uuid

import pytest
import requests

from conftest import ROOT, run_cli
from test_scopes import Mcp, create_key, key_id_of, listed_keys, missing_scope, new_app
from xizor_server import ADMIN_TOKEN, App, Client, XizorServer

HEX64 = re.compile(r"[0-9a-f]{64}")
PNG = ROOT / "Sources" / "XizorDomain" / "Assets" / "Bundled" / "clean-header.png"


def rid():
    return f"audit-{uuid.uuid4().hex}"


def send(client, method, path, body=None, headers=None, data=None):
    """(response, the X-Request-Id sent with it)."""
    request_id = rid()
    r = client.request(method, path, json_body=body, data=data, headers={"X-Request-Id": request_id, **(headers or {})})
    assert r.headers.get("X-Request-Id") == request_id, r.headers
    return r, request_id


def entries(client, **params):
    """Every entry (every page), newest first."""
    out, cursor = [], None
    while True:
        query = {"limit": 200, **params, **({"cursor": cursor} if cursor else {})}
        r = client.get("/v1/audit-log", params=query)
        assert r.status_code == 200, r.text
        body = r.json()
        out += body["entries"]
        cursor = body["nextCursor"]
        if not cursor:
            return out


def hash_or_null(value):
    return value is None or (isinstance(value, str) and HEX64.fullmatch(value) is not None)


def the_entry(log, request_id, action):
    found = [e for e in log if e.get("requestId") == request_id and e.get("action") == action]
    assert len(found) == 1, f"{action} with request id {request_id}: {len(found)} entries; entries of that request: " \
                            f"{[e for e in log if e.get('requestId') == request_id]}"
    return found[0]


def ok(response, *statuses):
    assert response.status_code in statuses, f"{response.request.method} {response.request.url}: {response.status_code} {response.text}"
    return response.json() if response.content else None


@pytest.fixture
def app(module_server):
    return new_app(module_server, "Audit")


def test_every_rest_write_is_recorded_with_actor_target_request_and_hashes(app, module_server):
    c = app.dashboard
    key_id = key_id_of(app, app.secret_key)
    done = []  # (request id, action, target kind, target id)

    def write(method, path, body=None, action=None, target=None, statuses=(200, 201, 202, 204), headers=None, data=None):
        r, request_id = send(c, method, path, body, headers, data)
        answer = ok(r, *statuses)
        target_id = target(answer) if callable(target) else target
        done.append((request_id, action, action.split(".")[0], target_id))
        return answer

    pw = write("POST", "/v1/paywalls", {"template": "clean", "name": "Audited"}, "paywall.created", lambda a: a["id"])["id"]
    draft, etag = app.draft(pw)
    document = draft["document"]
    document["name"] = "Audited, edited"
    write("PUT", f"/v1/paywalls/{pw}/draft", document, "paywall.draft_updated", pw, headers={"If-Match": etag})
    draft, etag = app.draft(pw)
    document = draft["document"]
    document["name"] = "Audited, edited twice"
    write("PUT", f"/v1/paywalls/{pw}/draft", document, "paywall.draft_updated", pw, headers={"If-Match": etag})
    write("PATCH", f"/v1/paywalls/{pw}", {"name": "Audited, renamed"}, "paywall.renamed", pw)
    write("POST", f"/v1/paywalls/{pw}/publish", {"force": True}, "paywall.published", pw)
    write("POST", f"/v1/paywalls/{pw}/publish", {"force": True}, "paywall.published", pw)
    write("PUT", "/v1/placements/onboarding", {"paywallId": pw}, "placement.updated", "onboarding")
    audience = {"name": "iOS", "condition": {"key": "device.platform", "op": "eq", "value": "ios"}}
    write("PUT", "/v1/audiences/aud-audit", audience, "audience.updated", "aud-audit")
    write("PUT", "/v1/audiences/aud-audit", dict(audience, condition={"key": "device.platform", "op": "eq", "value": "android"}),
          "audience.updated", "aud-audit")
    write("PUT", "/v1/placements/onboarding/rules", {"rules": [{"when": {"audience": "aud-audit"}, "paywallId": pw}]},
          "placement.updated", "onboarding")
    other = app.create_paywall("cinematic")
    app.publish(other)
    exp = write("POST", "/v1/experiments", {"name": "Audited test", "variants": [{"paywallId": pw, "weight": 50},
                                                                                  {"paywallId": other, "weight": 50}]},
                "experiment.created", lambda a: a["id"])["id"]
    write("POST", f"/v1/experiments/{exp}/start", None, "experiment.started", exp)
    write("PUT", f"/v1/experiments/{exp}/weights", {"weights": [30, 70]}, "experiment.reweighted", exp)
    write("POST", f"/v1/experiments/{exp}/stop", None, "experiment.stopped", exp)
    minted = write("POST", "/v1/keys", {"kind": "public", "label": "audited"}, "key.created", lambda a: a["id"])
    new_key = minted["id"]
    write("DELETE", f"/v1/keys/{new_key}", None, "key.revoked", new_key)
    write("PUT", "/v1/placements/onboarding/rules", {"rules": []}, "placement.updated", "onboarding")
    write("DELETE", "/v1/audiences/aud-audit", None, "audience.deleted", "aud-audit")
    webhook = write("POST", "/v1/webhooks", {"url": "https://hooks.example.com/xizor", "eventTypes": ["paywall.published"],
                                             "description": "audited", "enabled": False}, "webhook.created", lambda a: a["id"])
    hook = webhook["id"]
    write("PATCH", f"/v1/webhooks/{hook}", {"description": "audited, changed"}, "webhook.updated", hook)
    rotated = write("POST", f"/v1/webhooks/{hook}/rotate-secret", None, "webhook.secret_rotated", hook)
    write("DELETE", f"/v1/webhooks/{hook}", None, "webhook.deleted", hook)
    asset = write("POST", "/v1/assets", None, "asset.uploaded", lambda a: a["id"], headers={"Content-Type": "image/png"},
                  data=PNG.read_bytes() + uuid.uuid4().bytes)["id"]
    ok(app.sdk.put("/v1/sdk/subscribers/sub-audit/attributes", {"attributes": {"plan": "pro"}}), 200)
    write("DELETE", "/v1/subscribers/sub-audit/attributes", None, "subscriber.attributes_deleted", "sub-audit")
    # A subscriber deletion is recorded when it deleted something (one that found nothing changed nothing).
    ok(app.sdk.put("/v1/sdk/subscribers/sub-audit/attributes", {"attributes": {"plan": "pro"}}), 200)
    write("DELETE", "/v1/subscribers/sub-audit", None, "subscriber.deleted", "sub-audit")
    before = len(app.dashboard.get("/v1/audit-log", params={"action": "subscriber.deleted"}).json()["entries"])
    ok(app.dashboard.delete("/v1/subscribers/sub-audit"), 200)
    assert len(app.dashboard.get("/v1/audit-log", params={"action": "subscriber.deleted"}).json()["entries"]) == before
    spare = app.create_paywall("clean")
    write("DELETE", f"/v1/paywalls/{spare}", None, "paywall.archived", spare)
    archived_before = len(app.dashboard.get("/v1/audit-log", params={"action": "paywall.archived"}).json()["entries"])
    ok(app.dashboard.delete(f"/v1/paywalls/{spare}"), 200)
    assert len(app.dashboard.get("/v1/audit-log", params={"action": "paywall.archived"}).json()["entries"]) == archived_before, "an archived paywall: nothing recorded"
    write("POST", f"/v1/paywalls/{spare}/unarchive", None, "paywall.unarchived", spare)
    before = len(app.dashboard.get("/v1/audit-log", params={"action": "paywall.unarchived"}).json()["entries"])
    ok(app.dashboard.post(f"/v1/paywalls/{spare}/unarchive"), 200)
    assert len(app.dashboard.get("/v1/audit-log", params={"action": "paywall.unarchived"}).json()["entries"]) == before, "a live paywall: nothing recorded"
    write("DELETE", "/v1/placements/onboarding", None, "placement.deleted", "onboarding")
    assert asset

    log = entries(c)
    # Never a secret: not the minted key, not the webhook's signing secrets.
    text = c.get("/v1/audit-log", params={"limit": 200}).text
    for secret in (minted["key"], webhook["secret"], rotated["secret"], app.secret_key):
        assert secret not in text
    failures = []
    for request_id, action, kind, target_id in done:
        try:
            e = the_entry(log, request_id, action)
        except AssertionError as error:
            failures.append(str(error))
            continue
        where = f"{action} ({request_id})"
        if e.get("target") != {"kind": kind, "id": target_id}:
            failures.append(f"{where}: target {e.get('target')}, expected {{kind: {kind}, id: {target_id}}}")
        if e.get("actor") != {"kind": "secret", "keyId": key_id, "via": "rest"}:
            failures.append(f"{where}: actor {e.get('actor')}, expected {{kind: secret, keyId: {key_id}, via: rest}}")
        if not (hash_or_null(e.get("beforeHash")) and hash_or_null(e.get("afterHash"))) or "beforeHash" not in e or "afterHash" not in e:
            failures.append(f"{where}: hashes {e.get('beforeHash')!r} {e.get('afterHash')!r}, expected 64 hex digits or null")
        if action.endswith(".created") and e.get("beforeHash") is not None:
            failures.append(f"{where}: nothing was there before a creation, yet beforeHash is {e.get('beforeHash')!r}")
        if action == "paywall.created" and e.get("afterHash") is None:
            failures.append(f"{where}: a created paywall has content, yet afterHash is null")
        if action.endswith(".deleted") and kind in ("audience", "placement") and e.get("afterHash") is not None:
            failures.append(f"{where}: nothing is left after a deletion, yet afterHash is {e.get('afterHash')!r}")
    assert not failures, "\n".join(failures)

    # A draft update changes the content: before and after differ, and successive updates chain.
    first, second = [the_entry(log, r, a) for r, a, _, _ in done if a == "paywall.draft_updated"]
    assert first["beforeHash"] and first["afterHash"] and first["beforeHash"] != first["afterHash"]
    assert second["beforeHash"] == first["afterHash"] and second["afterHash"] != second["beforeHash"]
    updated = [the_entry(log, r, a) for r, a, _, _ in done if a == "audience.updated"]
    assert updated[0]["beforeHash"] is None and updated[1]["beforeHash"] == updated[0]["afterHash"] != updated[1]["afterHash"]
    # Newest first: our writes appear in the reverse of the order they were made.
    mine = [e["requestId"] for e in log if e.get("requestId") in {d[0] for d in done}]
    ordered = list(dict.fromkeys(mine))
    assert ordered == list(dict.fromkeys(d[0] for d in reversed(done))), "entries are newest first"


def test_a_rollback_is_recorded(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    draft, etag = app.draft(pw)
    ok(app.save_draft(pw, dict(draft["document"], name="Second"), etag), 200)
    app.publish(pw, force=False)
    r, request_id = send(app.dashboard, "POST", f"/v1/paywalls/{pw}/rollback", {"version": 1})
    assert ok(r, 200, 201)["version"] == 3
    e = the_entry(entries(app.dashboard), request_id, "paywall.rolled_back")
    assert e["target"] == {"kind": "paywall", "id": pw}
    assert e["actor"] == {"kind": "secret", "keyId": key_id_of(app, app.secret_key), "via": "rest"}
    assert hash_or_null(e["beforeHash"]) and hash_or_null(e["afterHash"])


def test_the_app_created_with_the_admin_token_is_recorded_as_the_admins(module_server):
    request_id = rid()
    r = Client(module_server.base, ADMIN_TOKEN).post("/v1/apps", {"name": "Admin-made"}, headers={"X-Request-Id": request_id})
    assert r.status_code == 201, r.text
    created = App(module_server, r.json())
    e = the_entry(entries(created.dashboard), request_id, "app.created")
    assert e["target"] == {"kind": "app", "id": created.id}
    assert e["actor"]["kind"] == "admin" and e["actor"]["via"] == "rest", e


def test_a_key_used_is_the_actor(app, module_server):
    """A scoped key's write names that key, not the app's first one."""
    drafter = create_key(app, ["drafts"])
    client = Client(module_server.base, drafter["key"])
    r, request_id = send(client, "POST", "/v1/paywalls", {"template": "clean"})
    pw = ok(r, 201)["id"]
    e = the_entry(entries(app.dashboard), request_id, "paywall.created")
    assert e["actor"] == {"kind": "secret", "keyId": drafter["id"], "via": "rest"}
    assert key_id_of(app, drafter["key"]) == drafter["id"]
    assert e["target"] == {"kind": "paywall", "id": pw}


def test_writes_through_mcp_are_recorded_as_mcp(app, module_server):
    key = create_key(app, ["read", "drafts", "publish"])
    mcp = Mcp(module_server.base, key["key"])
    created_rid, renamed_rid, published_rid = rid(), rid(), rid()
    created = mcp.call("create_paywall", {"template": "clean", "name": "Agent-made"}, headers={"X-Request-Id": created_rid})
    assert created.get("isError") is False, created
    pw = created["structuredContent"]["id"]
    assert mcp.call("rename_paywall", {"paywallId": pw, "name": "Agent-renamed"},
                    headers={"X-Request-Id": renamed_rid}).get("isError") is False
    assert mcp.call("publish_paywall", {"paywallId": pw}, headers={"X-Request-Id": published_rid}).get("isError") is False
    log = entries(app.dashboard)
    for request_id, action in ((created_rid, "paywall.created"), (renamed_rid, "paywall.renamed"), (published_rid, "paywall.published")):
        e = the_entry(log, request_id, action)
        assert e["actor"] == {"kind": "secret", "keyId": key["id"], "via": "mcp"}, e
        assert e["target"] == {"kind": "paywall", "id": pw}, e
    assert the_entry(log, created_rid, "paywall.created")["beforeHash"] is None
    # A refused tool call (no scope for it) writes nothing and records nothing.
    refused_rid = rid()
    refused = mcp.call("assign_placement", {"placement": "onboarding", "paywallId": pw}, headers={"X-Request-Id": refused_rid})
    assert refused.get("isError") is True
    assert not [e for e in entries(app.dashboard) if e.get("requestId") == refused_rid]


def test_a_cli_write_is_recorded_as_the_cli(data_dir):
    created = json.loads(run_cli("apps", "create", "CLI-made", "--data-dir", str(data_dir)).stdout)
    server = XizorServer(data_dir)
    try:
        made = App(server, created)
        log = entries(made.dashboard)
        apps = [e for e in log if e["action"] == "app.created"]
        assert len(apps) == 1, log
        assert apps[0]["target"] == {"kind": "app", "id": made.id}
        assert apps[0]["actor"]["kind"] == "cli" and apps[0]["actor"]["via"] == "cli", apps[0]
        assert all(e["actor"]["kind"] == "cli" and e["actor"]["via"] == "cli" for e in log), log
    finally:
        assert server.stop() == 0


def test_a_write_that_fails_leaves_no_entry(app):
    c = app.dashboard
    pw = app.create_paywall("clean")
    other = app.create_paywall("cinematic")
    app.publish(pw)
    app.publish(other)
    exp = ok(c.post("/v1/experiments", {"variants": [{"paywallId": pw, "weight": 50}, {"paywallId": other, "weight": 50}]}), 201)["id"]
    ok(c.put("/v1/audiences/aud-used", {"name": "used", "condition": {"key": "device.platform", "op": "eq", "value": "ios"}}), 201)
    app.assign("onboarding", pw)
    ok(c.put("/v1/placements/onboarding/rules", {"rules": [{"when": {"audience": "aud-used"}, "paywallId": other}]}), 200)
    _, stale = app.draft(pw)
    draft, etag = app.draft(pw)
    ok(app.save_draft(pw, dict(draft["document"], name="moved on"), etag), 200)
    before = entries(c)

    failed = []
    for method, path, body, headers, status in [
        ("PATCH", f"/v1/paywalls/{pw}", {"name": ""}, None, 422),
        ("POST", "/v1/paywalls", {"template": "clean", "document": {}}, None, 422),
        ("PUT", f"/v1/paywalls/{pw}/draft", draft["document"], {"If-Match": stale}, 412),
        ("POST", f"/v1/experiments/{exp}/stop", None, None, 409),
        ("DELETE", "/v1/audiences/aud-used", None, None, 409),
        ("PUT", "/v1/placements/upsell", {"paywallId": "pw_nowhere"}, None, 422),
        ("POST", "/v1/keys", {"kind": "secret", "scopes": ["bogus"]}, None, 422),
        ("POST", "/v1/webhooks", {"url": "http://127.0.0.1:9/hook"}, None, 422),
        ("POST", f"/v1/paywalls/{pw}/rollback", {"version": 99}, None, (404, 409, 422)),
    ]:
        r, request_id = send(c, method, path, body, headers)
        expected = status if isinstance(status, tuple) else (status,)
        assert r.status_code in expected, f"{method} {path}: {r.status_code} {r.text}"
        failed.append(request_id)
    after = entries(c)
    assert not [e for e in after if e.get("requestId") in failed], "a failed write left an entry"
    assert after == before, "nothing was recorded by the failed writes"


def test_filters_and_pages(app, module_server):
    c = app.dashboard
    scoped = create_key(app, ["drafts", "publish"])
    sc = Client(module_server.base, scoped["key"])
    order = []

    def write(client, method, path, body=None):
        r, request_id = send(client, method, path, body)
        answer = ok(r, 200, 201, 204)
        order.append(request_id)
        return answer

    first = write(c, "POST", "/v1/paywalls", {"template": "clean", "name": "First"})["id"]
    second = write(c, "POST", "/v1/paywalls", {"template": "clean", "name": "Second"})["id"]
    write(c, "POST", f"/v1/paywalls/{first}/publish", {"force": True})
    write(c, "PATCH", f"/v1/paywalls/{second}", {"name": "Second, renamed"})
    write(c, "PUT", "/v1/placements/onboarding", {"paywallId": first})
    time.sleep(0.05)
    middle = int(time.time() * 1000)
    time.sleep(0.05)
    early = list(order)
    third = write(sc, "POST", "/v1/paywalls", {"template": "clean", "name": "Third"})["id"]
    write(sc, "POST", f"/v1/paywalls/{third}/publish", {"force": True})
    write(c, "PUT", "/v1/placements/upsell", {"paywallId": third})
    late = order[len(early):]

    everything = entries(c)
    ids = lambda log: [e["requestId"] for e in log]  # noqa: E731
    assert set(order) <= set(ids(everything))

    published = entries(c, action="paywall.published")
    assert published and all(e["action"] == "paywall.published" for e in published)
    assert {e["target"]["id"] for e in published} == {first, third}
    placements = entries(c, targetKind="placement")
    assert placements and all(e["target"]["kind"] == "placement" for e in placements)
    assert {e["target"]["id"] for e in placements} == {"onboarding", "upsell"}
    about_second = entries(c, targetId=second)
    assert {e["action"] for e in about_second} >= {"paywall.created", "paywall.renamed"}
    assert all(e["target"]["id"] == second for e in about_second)
    by_scoped = entries(c, keyId=scoped["id"])
    assert sorted(ids(by_scoped)) == sorted(order[len(early):len(early) + 2])
    assert all(e["actor"]["keyId"] == scoped["id"] for e in by_scoped)
    both = entries(c, action="paywall.published", targetId=third)
    assert [e["target"]["id"] for e in both] == [third]

    # Time: milliseconds and RFC 3339.
    after_middle = set(ids(entries(c, **{"from": middle})))
    assert set(late) <= after_middle and not set(early) & after_middle
    before_middle = set(ids(entries(c, to=middle)))
    assert set(early) <= before_middle and not set(late) & before_middle
    assert set(order) <= set(ids(entries(c, **{"from": "2000-01-01T00:00:00Z", "to": "2100-01-01T00:00:00Z"})))
    assert entries(c, **{"from": "2100-01-01T00:00:00Z"}) == []
    assert entries(c, to="2000-01-01T00:00:00Z") == []
    bad = c.get("/v1/audit-log", params={"from": "yesterday"})
    assert bad.status_code in (400, 422) and bad.headers["Content-Type"] == "application/problem+json", bad.text

    # Pages of two, newest first, together the whole log.
    pages, cursor = [], None
    while True:
        r = c.get("/v1/audit-log", params={"limit": 2, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        body = r.json()
        assert len(body["entries"]) <= 2
        pages.append(body["entries"])
        cursor = body["nextCursor"]
        if not cursor:
            break
        assert len(pages) < 200, "the pages never end"
    assert [e for page in pages for e in page] == everything
    assert len(pages) >= len(everything) // 2
    mine = [i for i in ids(everything) if i in set(order)]
    assert list(dict.fromkeys(mine)) == list(reversed(order)), "newest first"
    first_page = c.get("/v1/audit-log", params={"limit": 3}).json()
    assert first_page["entries"] == everything[:3] and first_page["nextCursor"]


def test_the_audit_log_needs_scope_keys(app, module_server):
    app.create_paywall("clean")
    reader = Client(module_server.base, create_key(app, ["read"])["key"])
    assert missing_scope(reader.get("/v1/audit-log"), "keys") is None
    keeper = Client(module_server.base, create_key(app, ["keys"])["key"])
    r = keeper.get("/v1/audit-log", params={"limit": 200})
    assert r.status_code == 200 and r.json()["entries"] == entries(app.dashboard)
    assert app.sdk.get("/v1/audit-log").status_code == 403, "a public key reads no audit log"


def test_another_apps_key_sees_none_of_this_apps_entries(app, module_server):
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    mine = entries(app.dashboard)
    assert len(mine) >= 3
    other = new_app(module_server, "Audit other")
    other.create_paywall("clean")
    theirs = entries(other.dashboard)
    assert theirs, "the other app has entries of its own"
    secrets = {app.id, pw, *(k["id"] for k in listed_keys(app.dashboard)), *(e["requestId"] for e in mine if e.get("requestId"))}
    shown = [e for e in theirs if any(s in str(e) for s in secrets)]
    assert not shown, shown
    assert not {e.get("requestId") for e in mine if e.get("requestId")} & {e.get("requestId") for e in theirs}
    assert entries(other.dashboard, targetId=pw) == []
    assert entries(other.dashboard, keyId=key_id_of(app, app.secret_key)) == []
    assert entries(other.dashboard, targetId=app.id) == []


def test_the_documented_actions_are_the_ones_the_api_records(module_server):
    # docs/integrations.md lists the actions; the OpenAPI document's enum is the server's AuditAction.
    doc = (ROOT / "docs" / "integrations.md").read_text()
    listed = doc.split("Actions: ", 1)[1].split("\n\n", 1)[0]
    documented = set(re.findall(r"`([a-z_]+\.[a-z_]+)`", listed))
    spec = requests.get(module_server.base + "/openapi.json", timeout=10).json()
    entry = spec["components"]["schemas"]["AuditEntry"]["properties"]["action"]["enum"]
    assert documented == set(entry), (sorted(documented - set(entry)), sorted(set(entry) - documented))


def test_an_apps_event_retention_is_the_operators_setting(app, module_server):
    """PATCH /v1/apps/{appId} (admin token only) sets how long the app's raw events are kept
    (docs/analytics.md, "Retention"): bounded, reset by null, listed with the app, recorded as
    app.updated; the app's own secret key cannot lengthen it."""
    admin = Client(module_server.base, ADMIN_TOKEN)
    request_id = rid()
    r = admin.patch(f"/v1/apps/{app.id}", {"eventRetentionDays": 30}, headers={"X-Request-Id": request_id})
    assert r.status_code == 200 and r.json()["eventRetentionDays"] == 30, r.text
    listed = {a["id"]: a for a in admin.get("/v1/apps", params={"limit": 200}).json()["apps"]}
    assert listed[app.id]["eventRetentionDays"] == 30
    e = the_entry(entries(app.dashboard), request_id, "app.updated")
    assert e["target"] == {"kind": "app", "id": app.id} and e["actor"]["kind"] == "admin", e
    for bad, path in ((0, "$.eventRetentionDays"), (36_501, "$.eventRetentionDays"), ("30", "$.eventRetentionDays")):
        r = admin.patch(f"/v1/apps/{app.id}", {"eventRetentionDays": bad})
        assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json"), r.text
        assert path in r.text
    assert admin.patch(f"/v1/apps/{app.id}", {}).status_code == 422
    assert app.dashboard.patch(f"/v1/apps/{app.id}", {"eventRetentionDays": 36_500}).status_code == 403
    assert admin.patch("/v1/apps/app_missing", {"eventRetentionDays": 5}).status_code == 404
    r = admin.patch(f"/v1/apps/{app.id}", {"eventRetentionDays": None})
    assert r.status_code == 200 and r.json()["eventRetentionDays"] is None, r.text
