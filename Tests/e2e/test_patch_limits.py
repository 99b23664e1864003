"""No tenant can slow down another (issue 35): a patch obeys the limits of what it produces, a draft
stored over them can always be replaced, and an Idempotency-Key names one request. Through REST and
MCP, against the real server and database."""
import asyncio
import json
import re
import sqlite3
import subprocess
import time

import drivers
import requests

from test_mcp import mcp_session
from xizor_server import App, Client, XizorServer, create_app

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
# The patch of the issue: /root into a list, then the list into itself 14 times (2^14 trees, 56 MB).
AMPLIFY = ([{"op": "add", "path": "/bomb", "value": []}, {"op": "copy", "from": "/root", "path": "/bomb/-"}]
           + [{"op": "copy", "from": "/bomb", "path": "/bomb/-"}] * 14)


def patch(app, pw, body, etag, content_type=JSON_PATCH):
    return app.dashboard.request("PATCH", f"/v1/paywalls/{pw}/draft", data=json.dumps(body),
                                 headers={"Content-Type": content_type, "If-Match": etag})


def problem(r, status, code):
    assert r.status_code == status, r.text[:500]
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.json()
    return r.json()


def spacers(n):
    return [{"type": "spacer"} for _ in range(n)]


def test_a_copying_patch_stops_at_its_budget_and_nothing_is_stored(app):
    pw = app.create_paywall("clean")
    before, etag = app.draft(pw)
    started = time.monotonic()
    body = problem(patch(app, pw, AMPLIFY, etag), 413, "patch_too_large")
    assert time.monotonic() - started < 2, "the copies ran on"
    assert len(json.dumps(AMPLIFY)) < 1000
    [issue] = body["errors"]
    index = int(re.fullmatch(r"\$\[(\d+)\]", issue["path"]).group(1))
    assert 2 < index < len(AMPLIFY) and issue["code"] == "patch_too_large"
    assert "1048576 bytes" in body["detail"]
    after, same = app.draft(pw)
    assert same == etag and after["document"] == before["document"]


def test_edits_may_not_grow_a_draft_past_a_document_limit_or_the_body_limit(app):
    pw = app.create_paywall("clean")
    _, etag = app.draft(pw)
    grow = [{"op": "add", "path": "/root/children/-", "value": {"type": "stack", "direction": "vertical", "children": spacers(600)}}]
    body = problem(patch(app, pw, grow, etag), 422, "draft_limit_exceeded")
    assert [(e["path"], e["code"]) for e in body["errors"]] == [("$.root", "too_many_nodes")]
    merge = {"root": {"children": spacers(600)}}
    problem(patch(app, pw, merge, etag, MERGE_PATCH), 422, "draft_limit_exceeded")
    assert app.draft(pw)[1] == etag, "a refused edit stored something"
    # A draft put whole may be invalid (over the node limit); an edit may shrink it, not grow it.
    doc, _ = app.draft(pw)
    doc = doc["document"] | {"root": {"type": "stack", "direction": "vertical", "children": spacers(510)}}
    r = app.save_draft(pw, doc, etag)
    assert r.status_code == 200, r.text
    etag = r.headers["ETag"]
    shrink = patch(app, pw, [{"op": "remove", "path": "/root/children/0"}], etag)
    assert shrink.status_code == 200, shrink.text
    etag = shrink.headers["ETag"]
    problem(patch(app, pw, [{"op": "copy", "from": "/root/children/0", "path": "/root/children/-"}], etag), 422, "draft_limit_exceeded")
    # The body limit holds for what a merge patch produces: 700 kB stored, 500 kB more refused.
    r = patch(app, pw, {"notes": "x" * 700_000}, etag, MERGE_PATCH)
    assert r.status_code == 200, r.text
    etag = r.headers["ETag"]
    body = problem(patch(app, pw, {"moreNotes": "y" * 500_000}, etag, MERGE_PATCH), 413, "draft_too_large")
    assert body["errors"][0]["path"] == "$" and "1048576" in body["detail"]
    assert app.draft(pw)[1] == etag


def test_agents_are_held_to_the_same_limits(server, app):
    pw = app.create_paywall("clean")

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            revision = (await s.call_tool("get_paywall", {"paywallId": pw})).structured_content["draft"]["revision"]
            refused = await s.call_tool("patch_paywall_draft", {"paywallId": pw, "revision": revision, "patch": AMPLIFY})
            assert refused.is_error and "patch_too_large" in refused.content[0].text
            assert re.search(r"\$\.patch\[\d+\]", refused.content[0].text), refused.content[0].text
            merged = await s.call_tool("update_paywall_draft", {"paywallId": pw, "revision": revision,
                                                                "mergePatch": {"root": {"children": spacers(600)}}})
            assert merged.is_error and "draft_limit_exceeded" in merged.content[0].text and "too_many_nodes" in merged.content[0].text
            after = await s.call_tool("get_paywall", {"paywallId": pw})
            assert after.structured_content["draft"]["revision"] == revision
    asyncio.run(asyncio.wait_for(flow(), timeout=60))


def test_an_idempotency_key_reused_for_another_request_is_refused(server, app):
    pw = app.create_paywall("clean")
    first = app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"note": "spring"}, headers={"Idempotency-Key": "k-35"})
    assert first.status_code == 201, first.text
    again = app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"note": "spring"}, headers={"Idempotency-Key": "k-35"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["version"] == first.json()["version"]
    body = problem(app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"note": "summer"}, headers={"Idempotency-Key": "k-35"}),
                   422, "idempotency_key_mismatch")
    assert f"version {first.json()['version']}" in body["detail"]
    problem(app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"note": "spring", "force": True}, headers={"Idempotency-Key": "k-35"}),
            422, "idempotency_key_mismatch")

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            same = await s.call_tool("publish_paywall", {"paywallId": pw, "note": "spring", "idempotencyKey": "k-35"})
            assert not same.is_error and same.structured_content["version"] == first.json()["version"]
            other = await s.call_tool("publish_paywall", {"paywallId": pw, "note": "autumn", "idempotencyKey": "k-35"})
            assert other.is_error and "idempotency_key_mismatch" in other.content[0].text
    asyncio.run(asyncio.wait_for(flow(), timeout=60))
    assert len(app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]) == 1


def damage(data, sql_sqlite, params, sql_postgres):
    """Writes straight into the stopped server's database, as an older build or a hand-made fix would."""
    if drivers.DRIVER == "sqlite":
        db = sqlite3.connect(data / "xizor.sqlite")
        db.execute(sql_sqlite, params)
        db.commit()
        db.close()
    else:
        subprocess.run(["psql", drivers.database_url(data), "-v", "ON_ERROR_STOP=1", "-qc", sql_postgres], check=True, capture_output=True)


def test_a_draft_stored_over_the_limits_answers_clearly_and_put_repairs_it(tmp_path):
    data = tmp_path / "data"
    s = XizorServer(data)
    a = App(s, create_app(s.base))
    pw = a.create_paywall("clean")
    good, _ = a.draft(pw)
    legacy = a.create_paywall("clean")
    a.publish(legacy)
    assert s.stop() == 0
    # 9 MB of valid JSON: over the parser's 8 MiB, as the issue's 56 MB draft was.
    size = 9_000_000
    damage(data, "UPDATE paywalls SET draft = ? WHERE id = ?", ('{"x":"' + "a" * size + '"}', pw),
           f"UPDATE paywalls SET draft = '{{\"x\":\"' || repeat('a', {size}) || '\"}}' WHERE id = '{pw}'")
    # A keyed version published before request hashes were stored (versions are immutable: added).
    copy = ("INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at, idempotency_key)"
            " SELECT paywall_id, 2, document, schema_version, content_hash, published_at, 'k-old' FROM paywall_versions"
            " WHERE version = 1 AND paywall_id = ")
    damage(data, copy + "?", (legacy,), copy + f"'{legacy}'")
    s = XizorServer(data)
    a.dashboard = Client(s.base, a.secret_key)
    try:
        body = problem(a.dashboard.get(f"/v1/paywalls/{pw}/draft"), 409, "stored_draft_too_large")
        assert "PUT" in body["detail"]
        problem(patch(a, pw, [{"op": "remove", "path": "/x"}], '"r1"'), 409, "stored_draft_too_large")
        r = a.dashboard.put(f"/v1/paywalls/{pw}/draft", good["document"], headers={"If-Match": "*"})
        assert r.status_code == 200, r.text
        repaired, _ = a.draft(pw)
        assert repaired["document"] == good["document"]
        assert a.dashboard.delete(f"/v1/paywalls/{pw}").status_code == 200
        metrics = requests.get(s.base + "/metrics", timeout=10).text
        assert re.search(r'xizor_data_failures_total\{kind="stored_document"\} [1-9]', metrics)
        # The old row has no hash: a retry replays as before, whatever its body.
        again = a.dashboard.post(f"/v1/paywalls/{legacy}/publish", {"note": "other"}, headers={"Idempotency-Key": "k-old"})
        assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true", again.text
        assert again.json()["version"] == 2
    finally:
        assert s.stop() == 0
