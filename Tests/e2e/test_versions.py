"""Versions (issue 20, item 8): a no-op publish makes no version, notes and the publishing key are
kept, any two versions (or a version and the draft) diff as RFC 6902 operations, and the draft takes
precise edits as a JSON Patch with `test` operations — through REST and MCP."""
import asyncio
import json

import pytest

from test_mcp import mcp_session

JSON_PATCH = "application/json-patch+json"


def secret_key_id(app):
    keys = app.dashboard.get("/v1/keys").json()["keys"]
    return next(k["id"] for k in keys if k["kind"] == "secret" and app.secret_key.startswith(k["prefix"]))


def patch_draft(app, pw, operations, etag, content_type=JSON_PATCH):
    return app.dashboard.request("PATCH", f"/v1/paywalls/{pw}/draft", data=json.dumps(operations),
                                 headers={"Content-Type": content_type, "If-Match": etag})


def set_title(app, pw, title):
    draft, etag = app.draft(pw)
    r = patch_draft(app, pw, [{"op": "replace", "path": "/name", "value": title}], etag)
    assert r.status_code == 200, r.text
    return r


def test_publishing_an_unchanged_draft_creates_nothing_unless_forced(app):
    pw = app.create_paywall("clean")
    first = app.publish(pw)
    assert first["version"] == 1 and first["note"] is None
    again = app.dashboard.post(f"/v1/paywalls/{pw}/publish")
    assert again.status_code == 200, again.text
    body = again.json()
    assert body["unchanged"] is True and body["version"] == 1 and body["contentHash"] == first["contentHash"]
    assert again.headers["Location"] == f"/v1/paywalls/{pw}/versions/1"
    assert [v["version"] for v in app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [1]
    forced = app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True, "note": "re-publish to bust caches"})
    assert forced.status_code == 201 and forced.json()["version"] == 2 and "unchanged" not in forced.json()
    assert forced.json()["contentHash"] == first["contentHash"]
    # A changed draft publishes as usual; an Idempotency-Key replay still answers the first result.
    set_title(app, pw, "Spring sale")
    created = app.dashboard.post(f"/v1/paywalls/{pw}/publish", headers={"Idempotency-Key": "k1"})
    replay = app.dashboard.post(f"/v1/paywalls/{pw}/publish", headers={"Idempotency-Key": "k1"})
    assert created.status_code == replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert created.json()["version"] == replay.json()["version"] == 3


def test_notes_and_the_publishing_key_are_kept(app):
    pw = app.create_paywall("clean")
    r = app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"note": "Launch: yearly plan first"})
    assert r.status_code == 201
    listed = app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"][0]
    assert listed["note"] == "Launch: yearly plan first" and listed["publishedBy"] == secret_key_id(app)
    assert app.dashboard.get(f"/v1/paywalls/{pw}/versions/1").json()["note"] == "Launch: yearly plan first"
    for body, path in (({"note": "x" * 501}, "$.note"), ({"note": ""}, "$.note"), ({"note": 5}, "$.note"),
                       ({"force": "yes"}, "$.force")):
        bad = app.dashboard.post(f"/v1/paywalls/{pw}/publish", body)
        assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == path, bad.text
    assert app.dashboard.post(f"/v1/paywalls/{pw}/publish", data="[]").status_code == 422


def test_rollback_to_what_is_live_is_a_no_op_and_takes_a_note(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    set_title(app, pw, "Version two")
    app.publish(pw)
    same = app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": 2})
    assert same.status_code == 200 and same.json()["unchanged"] is True and same.json()["version"] == 2
    back = app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": 1, "note": "v2 converts worse"})
    assert back.status_code == 201
    assert back.json()["version"] == 3 and back.json()["rolledBackFrom"] == 1
    assert back.json()["note"] == "v2 converts worse" and back.json()["publishedBy"] == secret_key_id(app)


def test_diffs_are_patches_from_one_side_to_the_other(app):
    pw = app.create_paywall("clean")
    # Before the first publish the diff starts from {}: every member is added.
    first = app.dashboard.get(f"/v1/paywalls/{pw}/diff").json()
    assert first["from"] is None and first["to"] == "draft"
    assert {op["op"] for op in first["operations"]} == {"add"}
    app.publish(pw)
    assert app.dashboard.get(f"/v1/paywalls/{pw}/diff").json() == {"paywallId": pw, "from": 1, "to": "draft", "operations": []}
    set_title(app, pw, "Summer sale")
    pending = app.dashboard.get(f"/v1/paywalls/{pw}/diff").json()
    assert pending["operations"] == [{"op": "replace", "path": "/name", "value": "Summer sale"}]
    app.publish(pw)
    # Version 1 → 2 as a patch, applied through PATCH to a draft that holds version 1's document, gives version 2.
    v1 = app.dashboard.get(f"/v1/paywalls/{pw}/versions/1").json()["document"]
    v2 = app.dashboard.get(f"/v1/paywalls/{pw}/versions/2").json()["document"]
    ops = app.dashboard.get(f"/v1/paywalls/{pw}/diff", params={"from": 1, "to": 2}).json()["operations"]
    back = app.dashboard.get(f"/v1/paywalls/{pw}/diff", params={"from": 2, "to": 1}).json()["operations"]
    assert ops == [{"op": "replace", "path": "/name", "value": "Summer sale"}] and back[0]["value"] == v1["name"]
    _, etag = app.draft(pw)
    assert app.dashboard.put(f"/v1/paywalls/{pw}/draft", v1, headers={"If-Match": etag}).status_code == 200
    _, etag = app.draft(pw)
    assert patch_draft(app, pw, ops, etag).status_code == 200
    assert app.draft(pw)[0]["document"] == v2
    # Bad sides are 400 with where; unknown versions 404.
    bad = app.dashboard.get(f"/v1/paywalls/{pw}/diff", params={"to": "latest"})
    assert bad.status_code == 422
    assert bad.json()["errors"][0]["path"] == "$.query.to"
    assert app.dashboard.get(f"/v1/paywalls/{pw}/diff", params={"from": 9}).json()["code"] == "version_not_found"


def test_json_patch_edits_the_draft_all_or_nothing(app):
    pw = app.create_paywall("clean")
    draft, etag = app.draft(pw)
    name = draft["document"]["name"]
    ok = patch_draft(app, pw, [{"op": "test", "path": "/name", "value": name},
                               {"op": "replace", "path": "/name", "value": "Precise"},
                               {"op": "add", "path": "/locales/-", "value": "fr"}], etag)
    assert ok.status_code == 200 and ok.headers["ETag"] != etag
    assert ok.json()["document"]["name"] == "Precise" and ok.json()["document"]["locales"][-1] == "fr"
    etag = ok.headers["ETag"]
    # A failed test: 409, where, and nothing written (the ETag still matches).
    failed = patch_draft(app, pw, [{"op": "replace", "path": "/name", "value": "Lost"},
                                   {"op": "test", "path": "/name", "value": "Somebody else's"}], etag)
    assert failed.status_code == 409 and failed.json()["code"] == "patch_test_failed"
    assert failed.json()["errors"][0]["path"] == "$[1].value"
    assert app.draft(pw)[1] == etag and app.draft(pw)[0]["document"]["name"] == "Precise"
    unresolvable = patch_draft(app, pw, [{"op": "remove", "path": "/nothing/here"}], etag)
    assert unresolvable.status_code == 422 and unresolvable.json()["errors"][0]["path"] == "$[0].path"
    malformed = patch_draft(app, pw, [{"op": "rename", "path": "/name"}], etag)
    assert malformed.status_code == 400 and malformed.json()["code"] == "invalid_patch"
    assert malformed.json()["errors"][0]["path"] == "$[0].op"
    assert patch_draft(app, pw, {"op": "remove"}, etag).status_code == 400
    # The draft's usual guards, and merge patches by their own content type.
    assert patch_draft(app, pw, [], "\"stale\"").status_code == 412
    no_match = app.dashboard.request("PATCH", f"/v1/paywalls/{pw}/draft", data="[]", headers={"Content-Type": JSON_PATCH})
    assert no_match.status_code == 428
    assert patch_draft(app, pw, [], etag, content_type="application/json").status_code == 415
    merged = patch_draft(app, pw, {"name": "Merged"}, etag, content_type="application/merge-patch+json")
    assert merged.status_code == 200 and merged.json()["document"]["name"] == "Merged"


def test_agents_have_the_same_powers(server, app):
    pw = app.create_paywall("clean")
    app.publish(pw)

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            names = {t.name: t for t in (await s.list_tools()).tools}
            assert {"rollback_paywall", "diff_versions", "patch_paywall_draft"} <= set(names)
            assert names["rollback_paywall"].annotations.destructive_hint is True
            assert names["update_paywall_draft"].annotations.destructive_hint is True
            assert names["diff_versions"].annotations.read_only_hint is True
            same = await s.call_tool("publish_paywall", {"paywallId": pw})
            assert same.structured_content["unchanged"] is True and same.structured_content["version"] == 1
            got = await s.call_tool("get_paywall", {"paywallId": pw})
            revision = got.structured_content["draft"]["revision"]
            refused = await s.call_tool("patch_paywall_draft", {"paywallId": pw, "revision": revision, "patch": [
                {"op": "test", "path": "/name", "value": "not the name"}, {"op": "replace", "path": "/name", "value": "x"}]})
            assert refused.is_error and "patch_test_failed" in refused.content[0].text and "$.patch[0].value" in refused.content[0].text
            edited = await s.call_tool("patch_paywall_draft", {"paywallId": pw, "revision": revision, "patch": [
                {"op": "replace", "path": "/name", "value": "Agent edit"}]})
            assert not edited.is_error and edited.structured_content["document"]["name"] == "Agent edit"
            pending = await s.call_tool("diff_versions", {"paywallId": pw})
            assert pending.structured_content["operations"] == [{"op": "replace", "path": "/name", "value": "Agent edit"}]
            published = await s.call_tool("publish_paywall", {"paywallId": pw, "note": "agent"})
            assert published.structured_content["version"] == 2 and published.structured_content["unchanged"] is False
            rolled = await s.call_tool("rollback_paywall", {"paywallId": pw, "version": 1, "note": "undo"})
            assert rolled.structured_content["version"] == 3 and rolled.structured_content["rolledBackFrom"] == 1
            between = await s.call_tool("diff_versions", {"paywallId": pw, "from": 2, "to": 3})
            assert between.structured_content["operations"][0]["path"] == "/name"
    asyncio.run(flow())
    versions = app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]
    assert [(v["version"], v["note"]) for v in versions] == [(3, "undo"), (2, "agent"), (1, None)]
    assert versions[0]["publishedBy"] == secret_key_id(app)
