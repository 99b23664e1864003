"""A paywall's name is its draft document's (issue 20, item 3): PATCH /v1/paywalls/{id} renames it, and
saving a draft with another `name` renames it too; published versions keep theirs."""
import asyncio

from test_mcp import mcp_session


def names(app):
    return {p["id"]: p["name"] for p in app.dashboard.get("/v1/paywalls").json()["items"]}


def test_rename_sets_the_summary_and_the_drafts_name(app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    r = app.dashboard.request("PATCH", f"/v1/paywalls/{pw}", json_body={"name": "Spring sale"})
    assert r.status_code == 200 and r.json()["name"] == "Spring sale", r.text
    assert names(app)[pw] == "Spring sale"
    draft, etag = app.draft(pw)
    assert draft["document"]["name"] == "Spring sale" and draft["revision"] == 2
    # The live version keeps the name it was published with, until the next publish.
    assert app.dashboard.get(f"/v1/paywalls/{pw}/versions/1").json()["document"]["name"] != "Spring sale"
    # With If-Match, a stale draft is refused and nothing changes.
    stale = app.dashboard.request("PATCH", f"/v1/paywalls/{pw}", json_body={"name": "Lost"}, headers={"If-Match": '"r1"'})
    assert stale.status_code == 412 and names(app)[pw] == "Spring sale"
    current = app.dashboard.request("PATCH", f"/v1/paywalls/{pw}", json_body={"name": "Summer"}, headers={"If-Match": etag})
    assert current.status_code == 200 and names(app)[pw] == "Summer"
    for body in ({"name": ""}, {"name": "x" * 201}, {"name": 7}, {}):
        bad = app.dashboard.request("PATCH", f"/v1/paywalls/{pw}", json_body=body)
        assert bad.status_code == 422 and bad.json()["errors"][0]["path"] == "$.name", body
    assert app.dashboard.request("PATCH", "/v1/paywalls/pw_missing", json_body={"name": "x"}).status_code == 404


def test_saving_a_draft_with_another_name_renames_the_paywall(app):
    pw = app.create_paywall("clean")
    draft, etag = app.draft(pw)
    document = dict(draft["document"], name="From the editor")
    assert app.dashboard.put(f"/v1/paywalls/{pw}/draft", document, headers={"If-Match": etag}).status_code == 200
    assert names(app)[pw] == "From the editor"
    # A name the validator refuses is reported there and leaves the summary as it was.
    draft, etag = app.draft(pw)
    saved = app.dashboard.put(f"/v1/paywalls/{pw}/draft", dict(draft["document"], name=""), headers={"If-Match": etag})
    assert saved.status_code == 200 and names(app)[pw] == "From the editor"


def test_agents_rename_too(server, app):
    pw = app.create_paywall("clean")

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            renamed = await s.call_tool("rename_paywall", {"paywallId": pw, "name": "Agent named"})
            assert renamed.structured_content["name"] == "Agent named"
            stale = await s.call_tool("rename_paywall", {"paywallId": pw, "name": "Late", "revision": 1})
            assert stale.is_error and "draft_revision_mismatch" in stale.content[0].text
    asyncio.run(flow())
    assert names(app)[pw] == "Agent named"
