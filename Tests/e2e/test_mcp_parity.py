"""Every dashboard capability has an MCP tool (issue 20, item 10): experiments list/get/re-weight/promote,
texts by path in any locale, and merge patches that would throw away more than they name say so."""
import asyncio

from test_mcp import mcp_session

PAYWALL = "/v1/sdk/placements/onboarding/paywall"


def test_experiments_are_run_end_to_end_by_an_agent(server, app):
    control, challenger = app.create_paywall("clean"), app.create_paywall("cinematic")
    app.publish(control)
    app.publish(challenger)

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert tools["promote_experiment"].annotations.destructive_hint is True
            assert tools["set_placement_rules"].annotations.destructive_hint is True
            assert tools["list_experiments"].annotations.read_only_hint is True
            created = await s.call_tool("create_experiment", {"variants": [
                {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50, "name": "cinematic"}]})
            exp = created.structured_content["id"]
            await s.call_tool("assign_placement", {"placement": "onboarding", "experimentId": exp})
            await s.call_tool("start_experiment", {"experimentId": exp})
            listed = await s.call_tool("list_experiments", {})
            assert [e["id"] for e in listed.structured_content["items"]] == [exp]
            got = await s.call_tool("get_experiment", {"experimentId": exp})
            assert got.structured_content["status"] == "running"
            weighted = await s.call_tool("set_experiment_weights", {"experimentId": exp, "weights": [0, 100]})
            assert not weighted.is_error and [v["weight"] for v in weighted.structured_content["variants"]] == [0, 100]
            bad = await s.call_tool("set_experiment_weights", {"experimentId": exp, "weights": [1, 2, 3]})
            assert bad.is_error
            # With all the weight on the challenger, every subscriber sees it: live on the next request.
            assert app.sdk.get(PAYWALL, params={"subscriberId": "s-1"}).json()["paywallId"] == challenger
            promoted = await s.call_tool("promote_experiment", {"experimentId": exp, "variant": "cinematic"})
            assert promoted.structured_content["status"] == "stopped"
            unknown = await s.call_tool("promote_experiment", {"experimentId": exp, "variant": "nope"})
            assert unknown.is_error
    asyncio.run(flow())
    served = app.sdk.get(PAYWALL, params={"subscriberId": "s-2"}).json()
    assert served["paywallId"] == challenger and "experiment" not in served


def test_texts_of_any_locale_by_path_and_merge_patch_warnings(server, app):
    pw = app.create_paywall("clean")

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            got = (await s.call_tool("get_paywall", {"paywallId": pw})).structured_content["draft"]
            document, revision = got["document"], got["revision"]
            children = document["root"]["children"]
            texts = app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts").json()["texts"]
            path = texts[0]["path"]
            # The default locale's text, by path: nothing else changes.
            edited = await s.call_tool("set_paywall_texts", {"paywallId": pw, "revision": revision, "locale": "en",
                                                             "texts": {path: "New **headline**"}})
            assert not edited.is_error, edited.content[0].text
            after = edited.structured_content["document"]
            assert len(after["root"]["children"]) == len(children) and "editWarnings" not in edited.structured_content
            values = {t["path"]: t["values"] for t in app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts").json()["texts"]}
            assert values[path]["en"] == "New **headline**"
            unknown = await s.call_tool("set_paywall_texts", {"paywallId": pw, "revision": edited.structured_content["revision"],
                                                              "locale": "en", "texts": {"$.nowhere": "x"}})
            assert unknown.is_error and "unknown_text_path" in unknown.content[0].text
            # The example: a merge patch with one child replaces the whole array, and says so.
            wiped = await s.call_tool("update_paywall_draft", {"paywallId": pw, "revision": edited.structured_content["revision"],
                                                               "mergePatch": {"root": {"children": [{"type": "text", "text": "Hi"}]}}})
            warnings = wiped.structured_content["editWarnings"]
            assert [w["path"] for w in warnings] == ["$.root.children"] and warnings[0]["code"] == "merge_patch_replaced"
            assert f"had {len(children)} item(s) and now has 1" in warnings[0]["message"]
    asyncio.run(flow())


def test_archive_warns_about_placements_still_serving(server, app):
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert tools["archive_paywall"].annotations.destructive_hint is True
            archived = await s.call_tool("archive_paywall", {"paywallId": pw})
            assert archived.structured_content["archived"] is True
            assert "onboarding" in archived.structured_content["warning"]
            listed = await s.call_tool("list_paywalls", {})
            assert pw not in [p["id"] for p in listed.structured_content["items"]]
            refused = await s.call_tool("publish_paywall", {"paywallId": pw, "force": True})
            assert refused.is_error and "paywall_archived" in refused.content[0].text
            # Found among the archived ones, and made live again.
            gone = await s.call_tool("list_paywalls", {"archived": True})
            assert [p["id"] for p in gone.structured_content["items"]] == [pw]
            restored = await s.call_tool("unarchive_paywall", {"paywallId": pw})
            assert restored.structured_content["archived"] is False
            assert pw in [p["id"] for p in (await s.call_tool("list_paywalls", {})).structured_content["items"]]
            assert (await s.call_tool("list_paywalls", {"archived": True})).structured_content["items"] == []
            published = await s.call_tool("publish_paywall", {"paywallId": pw, "force": True})
            assert not published.is_error, published.content[0].text
            assert tools["unarchive_paywall"].annotations.destructive_hint is not True
    asyncio.run(flow())
    # Still served while archived, as the warning says; v2 once published again.
    assert app.sdk.get(PAYWALL).json()["paywallId"] == pw
