"""MCP at POST /mcp, driven by the official MCP Python SDK (and raw JSON-RPC for the protocol edges).

The agent flow: initialize, list tools, create from `clean`, localize to German in both steps,
validate, publish, assign, set rules, then fetch the placement through the SDK endpoint with
matching context and see the German text.
"""
import asyncio
import copy
import json
import time
from contextlib import asynccontextmanager

import pytest
import requests

from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client  # the SDK's own client (its default timeouts)
from mcp.shared.exceptions import MCPError
from mcp.types.version import LATEST_HANDSHAKE_VERSION

from xizor_server import App, XizorServer, create_app

TOOLS = {
    "create_paywall", "update_paywall_draft", "localize_paywall", "publish_paywall", "validate_paywall_document",
    "set_placement_rules", "list_paywalls", "get_paywall", "list_versions", "assign_placement", "list_placements",
    "resolve_placement", "get_paywall_analytics", "list_templates",
    "create_experiment", "start_experiment", "stop_experiment", "get_experiment_results",
    "rollback_paywall", "diff_versions", "patch_paywall_draft", "set_paywall_texts",
    "list_experiments", "get_experiment", "set_experiment_weights", "promote_experiment", "archive_paywall", "unarchive_paywall", "rename_paywall",
    "preview_paywall", "upload_asset", "list_assets",
    "list_audiences", "set_audience", "delete_audience",
    "get_revenue", "get_revenue_settings", "update_revenue_settings",
}
HEADLINE_EN = "Think clearly with **Notes Pro**"
HEADLINE_DE = "Klarer denken mit **Notes Pro**"


def mcp_http(key, exchanges=None):
    """The SDK's HTTP client with the key as bearer; `exchanges`, a list, collects (JSON-RPC method, HTTP
    status) of every POST."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    if exchanges is not None:
        async def record(response):
            exchanges.append((json.loads(response.request.content).get("method"), response.status_code))
        http.event_hooks = {"response": [record]}
    return http


@asynccontextmanager
async def mcp_session(server, key, exchanges=None):
    """A ClientSession (not initialized) over the SDK's Streamable HTTP transport."""
    async with mcp_http(key, exchanges) as http, streamable_http_client(f"{server.base}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            yield session


def supported_versions(server, key):
    """The protocol versions the server speaks, newest first, as it lists them when refusing a header."""
    r = rpc(server, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, key, {"MCP-Protocol-Version": "1999-01-01"})
    assert r.status_code == 400, r.text
    return r.json()["error"]["data"]["supported"]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=60))


def leaves(error):
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def call(session, name, arguments, expect_error=False):
    """Calls a tool and checks the result's two forms agree; answers structuredContent."""
    result = await session.call_tool(name, arguments)
    assert result.is_error == expect_error, result
    assert result.content and result.content[0].type == "text"
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def rpc(server, body, key, headers=None):
    """A raw POST /mcp (body: a JSON value, or bytes sent as is)."""
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if key:
        h["Authorization"] = f"Bearer {key}"
    h.update(headers or {})
    return requests.post(f"{server.base}/mcp", data=data, headers=h, timeout=30)


def strip_locale(value, locale):
    """Removes `locale` from every locale map of a document (in place)."""
    if isinstance(value, dict):
        if "en" in value and all(isinstance(v, str) for v in value.values()):
            value.pop(locale, None)
        for child in value.values():
            strip_locale(child, locale)
    elif isinstance(value, list):
        for child in value:
            strip_locale(child, locale)


def english_to(value, locale, into):
    """Collects {english text: translation} from every locale map of a document."""
    if isinstance(value, dict):
        if isinstance(value.get("en"), str) and isinstance(value.get(locale), str):
            into[value["en"]] = value[locale]
        for child in value.values():
            english_to(child, locale, into)
    elif isinstance(value, list):
        for child in value:
            english_to(child, locale, into)
    return into


def sdk_fetch(app, placement, **params):
    r = requests.get(f"{app.server.base}/v1/sdk/placements/{placement}/paywall", params=params, timeout=30,
                     headers={"Authorization": f"Bearer {app.public_key}", "Accept": "application/json",
                              "Accept-Encoding": "identity"})
    assert r.status_code == 200, r.text
    return r.json()


# --- the agent flow ------------------------------------------------------------------------------

def test_agent_creates_localizes_publishes_and_routes_a_paywall(app, server):
    state = {}

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            init = await s.initialize()
            # The SDK offers its newest handshake version (its LATEST_PROTOCOL_VERSION, 2026-07-28, is the
            # initialize-less revision we do not speak); the server accepts it as offered.
            assert init.protocol_version == LATEST_HANDSHAKE_VERSION
            assert init.protocol_version in supported_versions(server, app.secret_key)
            assert init.server_info.name == "xizor" and init.server_info.version
            assert init.capabilities.tools is not None

            listed = (await s.list_tools()).tools
            assert {t.name for t in listed} == TOOLS
            for tool in listed:
                assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False, tool.name
                assert isinstance(tool.input_schema.get("required"), list), tool.name
                assert len(tool.description) > 60, tool.name

            templates = await call(s, "list_templates", {})
            assert {t["name"] for t in templates["templates"]} == {"cinematic", "clean", "lottie_delight"}

            created = await call(s, "create_paywall", {"template": "clean", "name": "MCP clean"})
            pw = created["id"]
            assert created["name"] == "MCP clean" and created["latestVersion"] is None

            # The clean template ships German; drop it with a whole-document save so the agent adds it back.
            read = await call(s, "get_paywall", {"paywallId": pw})
            original = read["draft"]["document"]
            german = english_to(original, "de", {})
            assert german[HEADLINE_EN] == HEADLINE_DE
            english_only = copy.deepcopy(original)
            strip_locale(english_only, "de")
            english_only["locales"] = ["en"]
            saved = await call(s, "update_paywall_draft",
                               {"paywallId": pw, "revision": read["draft"]["revision"], "document": english_only})
            assert saved["validation"]["ok"], saved["validation"]
            assert saved["revision"] == read["draft"]["revision"] + 1

            # A merge patch: members replace, null deletes, the rest stays.
            patched = await call(s, "update_paywall_draft", {"paywallId": pw, "revision": saved["revision"],
                                                            "mergePatch": {"name": "MCP clean (de)", "settings": {"dismissable": None}}})
            assert patched["document"]["name"] == "MCP clean (de)"
            assert "dismissable" not in patched["document"]["settings"]
            assert patched["document"]["settings"]["safeArea"] == english_only["settings"]["safeArea"]
            assert patched["document"]["root"] == english_only["root"]
            assert ("$.settings.dismissable", "missing_required_field") in {
                (e["path"], e["code"]) for e in patched["validation"]["errors"]}
            restored = await call(s, "update_paywall_draft", {"paywallId": pw, "revision": patched["revision"],
                                                             "mergePatch": {"settings": {"dismissable": True}}})
            assert restored["validation"]["ok"] and restored["document"]["settings"]["dismissable"] is True
            # A stale revision loses, and says so.
            stale = await call(s, "update_paywall_draft", {"paywallId": pw, "revision": patched["revision"],
                                                          "mergePatch": {"name": "lost"}}, expect_error=True)
            assert stale["error"]["code"] == "draft_revision_mismatch" and stale["error"]["status"] == 412

            # localize, step 1: every text with its source and what to keep.
            work = await call(s, "localize_paywall", {"paywallId": pw, "locale": "de"})
            assert work["sourceLocale"] == "en" and work["locale"] == "de" and work["complete"] is False
            by_source = {t["source"]: t for t in work["texts"]}
            assert by_source[HEADLINE_EN]["boldPairs"] == 1 and by_source[HEADLINE_EN]["variables"] == []
            trial = by_source["Try {{product.trialDays}} days free"]
            assert trial["variables"] == ["product.trialDays"] and trial["translation"] is None
            assert set(work["missing"]) == {t["path"] for t in work["texts"]}

            # step 2, a translation that drops a variable: rejected by path, nothing written.
            bad = await call(s, "localize_paywall", {"paywallId": pw, "locale": "de",
                                                     "translations": {trial["path"]: "Tage kostenlos testen"}}, expect_error=True)
            assert bad["error"]["status"] == 422
            assert {(e["path"], e["code"]) for e in bad["error"]["errors"]} == {(f'$.translations["{trial["path"]}"]', "missing_variable")}
            again = await call(s, "localize_paywall", {"paywallId": pw, "locale": "de"})
            assert again["revision"] == work["revision"] and again["missing"] == work["missing"]

            # step 2 in two halves: the answer says what is still missing.
            translations = {t["path"]: german[t["source"]] for t in work["texts"]}
            paths = sorted(translations)
            first = {p: translations[p] for p in paths[: len(paths) // 2]}
            half = await call(s, "localize_paywall", {"paywallId": pw, "locale": "de", "translations": first,
                                                      "revision": work["revision"]})
            assert sorted(half["written"]) == sorted(first)
            assert set(half["missing"]) == set(paths) - set(first) and half["complete"] is False
            assert half["locales"] == ["en", "de"]
            rest = {p: translations[p] for p in half["missing"]}
            done = await call(s, "localize_paywall", {"paywallId": pw, "locale": "de", "translations": rest})
            assert done["missing"] == [] and done["complete"] is True
            assert done["validation"]["ok"], done["validation"]

            checked = await call(s, "validate_paywall_document", {"paywallId": pw})
            assert checked["ok"] is True
            published = await call(s, "publish_paywall", {"paywallId": pw, "idempotencyKey": "mcp-flow-1"})
            assert published["version"] == 1 and published["replayed"] is False
            replay = await call(s, "publish_paywall", {"paywallId": pw, "idempotencyKey": "mcp-flow-1"})
            assert replay["version"] == 1 and replay["replayed"] is True
            versions = await call(s, "list_versions", {"paywallId": pw})
            assert [v["version"] for v in versions["items"]] == [1]

            # The placement's own paywall, and a rule that sends referred users to the German-ready one.
            fallback = (await call(s, "create_paywall", {"template": "cinematic"}))["id"]
            await call(s, "publish_paywall", {"paywallId": fallback})
            placement = await call(s, "assign_placement", {"placement": "onboarding", "paywallId": fallback})
            assert placement["paywallId"] == fallback and placement["rules"] == []
            ruled = await call(s, "set_placement_rules", {"placement": "onboarding", "rules": [
                {"when": {"all": [{"key": "wasReferred", "op": "eq", "value": True}, {"not": {"key": "plan", "op": "exists"}}]},
                 "paywallId": pw}]})
            assert ruled["rules"][0]["paywallId"] == pw
            hit = await call(s, "resolve_placement", {"placement": "onboarding", "context": {"wasReferred": True}})
            assert hit["paywallId"] == pw and hit["matchedRule"] == 0 and hit["version"] == 1
            miss = await call(s, "resolve_placement", {"placement": "onboarding", "context": {"wasReferred": "true"}})
            assert miss["paywallId"] == fallback and miss["matchedRule"] is None

            listed_pw = await call(s, "list_paywalls", {"limit": 1})
            assert len(listed_pw["items"]) == 1 and listed_pw["nextCursor"]
            page2 = await call(s, "list_paywalls", {"cursor": listed_pw["nextCursor"]})
            assert {p["id"] for p in listed_pw["items"] + page2["items"]} == {pw, fallback}
            placements = await call(s, "list_placements", {})
            assert [p["key"] for p in placements["items"]] == ["onboarding"]
            funnel = await call(s, "get_paywall_analytics", {"paywallId": pw})
            assert [v["version"] for v in funnel["versions"]] == [1] and funnel["versions"][0]["impressions"] == 0
            cut = await call(s, "get_paywall_analytics", {"paywallId": pw, "from": "2020-01-01T00:00:00Z", "to": 4102444800000,
                                                          "placement": "onboarding", "context": {"wasReferred": True}})
            assert [v["version"] for v in cut["versions"]] == [1]
            bad_time = await call(s, "get_paywall_analytics", {"paywallId": pw, "from": "yesterday"}, expect_error=True)
            assert bad_time["error"]["code"] == "invalid_time" and bad_time["error"]["status"] == 400
            state["pw"], state["fallback"] = pw, fallback

    run(flow())

    served = sdk_fetch(app, "onboarding", locale="de", **{"context.wasReferred": "true"})
    assert served["paywallId"] == state["pw"] and served["locale"] == "de" and served["version"] == 1
    assert HEADLINE_DE in json.dumps(served["document"], ensure_ascii=False)
    assert served["document"]["name"] == "MCP clean (de)"
    other = sdk_fetch(app, "onboarding", locale="de")
    assert other["paywallId"] == state["fallback"]


def test_a_dual_era_client_falls_back_to_initialize(app, server):
    """mcp.Client (the SDK's high-level client, as in docs/mcp.md) first probes the initialize-less
    2026-07-28 revision with server/discover; the server refuses it with a plain 400 / -32600, and the
    client negotiates 2025-11-25 with initialize and calls tools as usual."""
    exchanges = []

    async def flow():
        async with mcp_http(app.secret_key, exchanges) as http, \
                Client(streamable_http_client(f"{server.base}/mcp", http_client=http)) as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info.name == "xizor"
            created = await client.call_tool("create_paywall", {"template": "clean"})
            assert not created.is_error and created.structured_content["id"].startswith("pw_")

    run(flow())
    assert exchanges[:3] == [("server/discover", 400), ("initialize", 200), ("notifications/initialized", 202)]
    assert ("tools/call", 200) in exchanges[3:]  # (the SDK may also list the tools to check the output schema)


# --- tool failures are tool results --------------------------------------------------------------

def test_service_failures_come_back_as_tool_errors_with_paths(app, server):
    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            await s.initialize()
            pw = (await call(s, "create_paywall", {"name": "Broken"}))["id"]
            draft = (await call(s, "get_paywall", {"paywallId": pw}))["draft"]
            broken = await call(s, "update_paywall_draft", {"paywallId": pw, "revision": draft["revision"], "mergePatch": {
                "root": {"children": [{"type": "purchase_button", "productSlot": "yearly", "label": {"en": "Buy"}}]}}})
            assert broken["validation"]["ok"] is False
            paths = {e["path"] for e in broken["validation"]["errors"]}
            assert "$.root.children[0].productSlot" in paths, paths

            refused = await call(s, "publish_paywall", {"paywallId": pw}, expect_error=True)
            assert refused["error"]["status"] == 422 and refused["error"]["code"] == "validation_failed"
            assert "$.root.children[0].productSlot" in {e["path"] for e in refused["error"]["errors"]}

            checked = await call(s, "validate_paywall_document", {"document": {"schemaVersion": 1}})
            assert checked["ok"] is False and checked["errors"]

            missing = await call(s, "get_paywall", {"paywallId": "pw_nope"}, expect_error=True)
            assert missing["error"] == {"status": 404, "code": "paywall_not_found", "detail": missing["error"]["detail"]}

            rules = await call(s, "set_placement_rules", {"placement": "nowhere", "rules": []}, expect_error=True)
            assert rules["error"]["code"] == "placement_not_found"
            good = (await call(s, "create_paywall", {"template": "clean"}))["id"]
            await call(s, "assign_placement", {"placement": "upsell", "paywallId": good})
            unknown = await call(s, "set_placement_rules", {"placement": "upsell", "rules": [
                {"when": {"key": "a", "op": "eq", "value": 1}, "paywallId": "pw_unknown"}]}, expect_error=True)
            assert [(e["path"], e["code"]) for e in unknown["error"]["errors"]] == [("$.rules[0].paywallId", "unknown_paywall")]
            same_locale = await call(s, "localize_paywall", {"paywallId": good, "locale": "en"}, expect_error=True)
            assert same_locale["error"]["code"] == "validation_failed"
            assert same_locale["error"]["errors"][0]["code"] == "locale_is_source"
            unresolved = await call(s, "resolve_placement", {"placement": "upsell"}, expect_error=True)
            assert unresolved["error"]["code"] == "no_published_paywall"

    run(flow())


def test_other_apps_ids_are_not_found(app, server):
    other = App(server, create_app(server.base, "Other"))
    pw = other.create_paywall("clean")

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            await s.initialize()
            answer = await call(s, "get_paywall", {"paywallId": pw}, expect_error=True)
            assert answer["error"]["code"] == "paywall_not_found"

    run(flow())


# --- invalid arguments ---------------------------------------------------------------------------

def test_invalid_arguments_are_tool_errors_from_2025_11_25(app, server):
    """Negotiated 2025-11-25 (the SDK's latest): schema failures are isError results (SEP-1303)."""
    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            init = await s.initialize()
            assert init.protocol_version == "2025-11-25"
            wrong = await call(s, "create_paywall", {"template": "fancy", "colour": "red"}, expect_error=True)
            assert wrong["error"]["code"] == "invalid_arguments"
            assert {(e["path"], e["code"]) for e in wrong["error"]["errors"]} == {
                ("$.template", "not_in_enum"), ("$.colour", "unknown_property")}
            both = await call(s, "update_paywall_draft", {"paywallId": "pw_x", "revision": "3", "document": {}, "mergePatch": {}},
                              expect_error=True)
            codes = {(e["path"], e["code"]) for e in both["error"]["errors"]}
            assert ("$.revision", "type_mismatch") in codes and ("$", "mutually_exclusive_fields") in codes
            missing = await call(s, "publish_paywall", {}, expect_error=True)
            assert [(e["path"], e["code"]) for e in missing["error"]["errors"]] == [("$.paywallId", "missing_required_field")]
            bad_rule = await call(s, "set_placement_rules", {"placement": "x", "rules": [{"when": {"key": "a", "op": "like"}, "paywallId": "p"}]},
                                  expect_error=True)
            assert ("$.rules[0].when.op", "not_in_enum") in {(e["path"], e["code"]) for e in bad_rule["error"]["errors"]}
            with pytest.raises(MCPError) as unknown:
                await s.call_tool("delete_everything", {})
            assert unknown.value.error.code == -32602

    run(flow())


def test_invalid_arguments_are_protocol_errors_before_2025_11_25(app, server):
    headers = {"MCP-Protocol-Version": "2025-06-18"}
    r = rpc(server, {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                     "params": {"name": "publish_paywall", "arguments": {"paywallId": 42}}}, app.secret_key, headers)
    assert r.status_code == 200
    error = r.json()["error"]
    assert r.json()["id"] == 7 and error["code"] == -32602
    assert error["data"]["errors"] == [{"path": "$.paywallId", "code": "type_mismatch", "message": "Expected string, got integer."}]
    r = rpc(server, {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "nope"}}, app.secret_key, headers)
    assert r.json()["error"]["code"] == -32602 and "create_paywall" in r.json()["error"]["data"]["tools"]
    r = rpc(server, {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_placements", "arguments": []}},
            app.secret_key, headers)
    assert r.json()["error"]["code"] == -32602


# --- the protocol edges, raw ---------------------------------------------------------------------

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def test_initialize_negotiates_the_version_and_is_stateless(app, server):
    r = rpc(server, INIT, app.secret_key)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert "Mcp-Session-Id" not in r.headers
    result = r.json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "xizor"
    older = dict(INIT, params=dict(INIT["params"], protocolVersion="2024-11-05"))
    assert rpc(server, older, app.secret_key).json()["result"]["protocolVersion"] == "2025-11-25"
    future = dict(INIT, params=dict(INIT["params"], protocolVersion="2099-01-01"))
    assert rpc(server, future, app.secret_key).json()["result"]["protocolVersion"] == "2025-11-25"
    no_version = dict(INIT, params={"capabilities": {}})
    assert rpc(server, no_version, app.secret_key).json()["error"]["code"] == -32602
    # initialized notification: 202, no body; ping answers {}.
    note = rpc(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, app.secret_key, {"MCP-Protocol-Version": "2025-06-18"})
    assert note.status_code == 202 and note.content == b""
    ping = rpc(server, {"jsonrpc": "2.0", "id": "p", "method": "ping"}, app.secret_key, {"MCP-Protocol-Version": "2025-06-18"})
    assert ping.json() == {"jsonrpc": "2.0", "id": "p", "result": {}}
    # A session id we never issued is ignored (stateless).
    listed = rpc(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, app.secret_key,
                 {"MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "whatever"})
    assert {t["name"] for t in listed.json()["result"]["tools"]} == TOOLS


def test_malformed_json_rpc(app, server):
    key = app.secret_key
    bad_json = rpc(server, b'{"jsonrpc": "2.0", "id": 1, "method": ', key)
    assert bad_json.status_code == 400
    assert bad_json.json()["error"]["code"] == -32700 and bad_json.json()["id"] is None
    assert rpc(server, b"", key).json()["error"]["code"] == -32700
    for shape, expected_id in [('"hello"', None), ({"jsonrpc": "1.0", "id": 3, "method": "ping"}, 3),
                               ({"jsonrpc": "2.0", "id": 4}, 4), ({"jsonrpc": "2.0", "id": 5, "method": 12}, 5),
                               ({"jsonrpc": "2.0", "id": None, "method": "ping"}, None),
                               ({"jsonrpc": "2.0", "id": 6, "method": "ping", "params": "x"}, 6)]:
        r = rpc(server, shape, key)
        assert r.status_code == 400, shape
        assert r.json()["error"]["code"] == -32600 and r.json()["id"] == expected_id, (shape, r.json())
    unknown = rpc(server, {"jsonrpc": "2.0", "id": 9, "method": "resources/list"}, key, {"MCP-Protocol-Version": "2025-06-18"})
    assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32601 and unknown.json()["id"] == 9
    # A response from the client (we never ask) and an unknown notification are accepted silently.
    assert rpc(server, {"jsonrpc": "2.0", "id": 1, "result": {}}, key).status_code == 202
    assert rpc(server, {"jsonrpc": "2.0", "method": "notifications/whatever"}, key).status_code == 202
    assert rpc(server, INIT, key, {"Content-Type": "text/plain"}).status_code == 415
    assert rpc(server, INIT, key, {"Accept": "text/html"}).status_code == 406


def test_batches_only_where_the_version_allows_them(app, server):
    key = app.secret_key
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "nope"}, 17]
    for headers in ({}, {"MCP-Protocol-Version": "2025-03-26"}):
        r = rpc(server, batch, key, headers)
        assert r.status_code == 200
        answers = r.json()
        assert answers[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
        assert answers[1]["id"] == 2 and answers[1]["error"]["code"] == -32601
        assert answers[2]["id"] is None and answers[2]["error"]["code"] == -32600
        assert len(answers) == 3
    only_notes = rpc(server, [{"jsonrpc": "2.0", "method": "notifications/initialized"}], key)
    assert only_notes.status_code == 202 and only_notes.content == b""
    assert rpc(server, [], key).json()["error"]["code"] == -32600
    in_batch = rpc(server, [INIT], key).json()
    assert in_batch[0]["error"]["code"] == -32600
    for version in ("2025-06-18", "2025-11-25"):
        r = rpc(server, batch, key, {"MCP-Protocol-Version": version})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32600


def test_every_message_of_a_batch_pays_its_own_write_token(tmp_path):
    # One POST used to pay one token however many tools/call it held: a 1/s, burst-2 limit let one
    # batch create 300 paywalls.
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "1",
                                                 "XIZOR_RATE_LIMITS_WRITES_BURST": "4"})
    try:
        key = App(s, create_app(s.base, "batches")).secret_key
        create = [{"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": "create_paywall", "arguments": {"name": f"p{i}"}}} for i in range(5)]
        old = {"MCP-Protocol-Version": "2025-03-26"}
        paywalls = lambda: requests.get(f"{s.base}/v1/paywalls", headers={"Authorization": f"Bearer {key}"}, timeout=10).json()["items"]
        # Five messages need five tokens; the bucket holds four: refused whole, nothing created.
        refused = rpc(s, create, key, old)
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited", refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        time.sleep(1.2)  # the bucket is full again (four)
        accepted = rpc(s, create[:4], key, old)
        assert accepted.status_code == 200 and all(not a["result"]["isError"] for a in accepted.json()), accepted.text
        assert rpc(s, create[:1], key, old).status_code == 429, "the four messages used the four tokens"
        assert sorted(p["name"] for p in paywalls()) == ["p0", "p1", "p2", "p3"]
    finally:
        assert s.stop() == 0


def test_a_batch_over_the_cap_is_refused_whole(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_MCP_MAX_BATCH_MESSAGES": "3"})
    try:
        key = App(s, create_app(s.base, "cap")).secret_key
        pings = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(4)]
        r = rpc(s, pings, key, {"MCP-Protocol-Version": "2025-03-26"})
        assert r.status_code == 400 and r.json()["error"]["code"] == -32600
        assert "at most 3 messages" in r.json()["error"]["message"]
        assert rpc(s, pings[:3], key, {"MCP-Protocol-Version": "2025-03-26"}).status_code == 200
    finally:
        assert s.stop() == 0


def test_protocol_version_header(app, server):
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = rpc(server, listing, app.secret_key, {"MCP-Protocol-Version": "1999-01-01"})
    assert r.status_code == 400 and "2025-06-18" in r.json()["error"]["data"]["supported"]
    assert rpc(server, listing, app.secret_key, {"MCP-Protocol-Version": "2025-06-18"}).status_code == 200
    assert rpc(server, listing, app.secret_key).status_code == 200  # absent: 2025-03-26 assumed
    # initialize is answered whatever the header says (the version is negotiated in its body).
    assert rpc(server, INIT, app.secret_key, {"MCP-Protocol-Version": "1999-01-01"}).status_code == 200


def test_keys_origins_and_methods(app, server):
    def problem(r, status, code):
        assert r.status_code == status, r.text
        assert r.headers["Content-Type"] == "application/problem+json" and r.json()["code"] == code

    problem(rpc(server, INIT, None), 401, "missing_api_key")
    problem(rpc(server, INIT, "sk_wrong"), 401, "invalid_api_key")
    problem(rpc(server, INIT, app.public_key), 403, "secret_key_required")
    problem(rpc(server, INIT, app.secret_key, {"Origin": "https://evil.example"}), 403, "origin_not_allowed")

    exchanges = []

    async def wrong_key():
        async with mcp_session(server, "sk_wrong", exchanges) as s:
            await s.initialize()

    # The SDK reports an HTTP error without a JSON-RPC body as MCPError -32603 (raised inside its task
    # groups), so the status comes from the HTTP client: the one request, initialize, answered 401.
    with pytest.raises(BaseException) as failure:
        run(wrong_key())
    assert [type(e) for e in leaves(failure.value)] == [MCPError], repr(failure.value)
    assert exchanges == [("initialize", 401)]

    get = requests.get(f"{server.base}/mcp", headers={"Authorization": f"Bearer {app.secret_key}",
                                                      "Accept": "text/event-stream"}, timeout=10)
    assert get.status_code == 405 and "POST" in get.headers["Allow"]
    delete = requests.delete(f"{server.base}/mcp", headers={"Authorization": f"Bearer {app.secret_key}"}, timeout=10)
    assert delete.status_code == 405


def test_configured_origins_may_call(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_CORS_ALLOWED_ORIGINS": "https://dash.example"})
    try:
        app = App(s, create_app(s.base))
        ok = rpc(s, INIT, app.secret_key, {"Origin": "https://dash.example"})
        assert ok.status_code == 200 and ok.json()["result"]["protocolVersion"] == "2025-06-18"
        assert rpc(s, INIT, app.secret_key, {"Origin": "https://other.example"}).status_code == 403
    finally:
        assert s.stop() == 0


def test_placements_and_rules_can_target_an_experiment(app, server):
    control, challenger = app.create_paywall("clean"), app.create_paywall("cinematic")
    app.publish(control)
    app.publish(challenger)
    r = app.dashboard.post("/v1/experiments", {"name": "Price test", "variants": [
        {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50, "name": "cinematic"}]})
    assert r.status_code == 201, r.text
    experiment = r.json()["id"]
    assert app.dashboard.post(f"/v1/experiments/{experiment}/start").status_code == 200

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            await s.initialize()
            placed = await call(s, "assign_placement", {"placement": "upsell", "experimentId": experiment})
            assert placed["experimentId"] == experiment and placed["paywallId"] == control
            neither = await call(s, "assign_placement", {"placement": "upsell"}, expect_error=True)
            assert neither["error"]["errors"] == [{"path": "$", "code": "missing_required_field",
                                                   "message": "Give at least one of paywallId, experimentId."}]
            variants = set()
            for i in range(24):
                dry = await call(s, "resolve_placement", {"placement": "upsell", "subscriberId": f"s-{i}"})
                assert dry["experiment"]["id"] == experiment and dry["experiment"]["assignment"] == "bucket"
                assert dry["paywallId"] == (control if dry["experiment"]["variant"] == "control" else challenger)
                variants.add(dry["experiment"]["variant"])
                sdk = sdk_fetch(app, "upsell", subscriberId=f"s-{i}")
                assert sdk["paywallId"] == dry["paywallId"]
            assert variants == {"control", "cinematic"}
            # A rule can send a context to the experiment while the placement shows a plain paywall.
            await call(s, "assign_placement", {"placement": "onboarding", "paywallId": challenger})
            ruled = await call(s, "set_placement_rules", {"placement": "onboarding", "rules": [
                {"when": {"key": "country", "op": "in", "value": ["DE", "AT"]}, "experimentId": experiment}]})
            assert ruled["rules"][0]["experimentId"] == experiment
            hit = await call(s, "resolve_placement", {"placement": "onboarding", "context": {"country": "AT"}, "subscriberId": "s-1"})
            assert hit["matchedRule"] == 0 and hit["experiment"]["id"] == experiment
            miss = await call(s, "resolve_placement", {"placement": "onboarding", "context": {"country": "FR"}})
            assert miss["matchedRule"] is None and miss["paywallId"] == challenger and miss["experiment"] is None

    run(flow())


def test_experiment_tools_run_an_experiment_end_to_end(app, server):
    control, challenger = app.create_paywall("clean"), app.create_paywall("cinematic")
    app.publish(control)

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            await s.initialize()
            created = await call(s, "create_experiment", {"name": "Via MCP", "holdoutWeight": 0, "variants": [
                {"paywallId": control, "weight": 1}, {"paywallId": challenger, "weight": 1, "name": "bold"}]})
            exp = created["id"]
            assert created["status"] == "draft" and [v["name"] for v in created["variants"]] == ["control", "bold"]
            # The challenger is unpublished: starting fails as a tool error with the variant's path.
            failed = await call(s, "start_experiment", {"experimentId": exp}, expect_error=True)
            assert failed["error"]["errors"][0]["path"] == "$.variants[1].paywallId"
            app.publish(challenger)
            assert (await call(s, "start_experiment", {"experimentId": exp}))["status"] == "running"
            await call(s, "assign_placement", {"placement": "paywall", "experimentId": exp})
            seen = {sdk_fetch(app, "paywall", subscriberId=f"m-{i}")["experiment"]["variant"] for i in range(20)}
            assert seen == {"control", "bold"}
            results = await call(s, "get_experiment_results", {"experimentId": exp})
            assert [v["name"] for v in results["variants"]] == ["control", "bold"]
            assert results["variants"][0]["impressions"] == 0 and results["variants"][0]["conversionRate"] is None
            assert (await call(s, "stop_experiment", {"experimentId": exp}))["status"] == "stopped"
            assert "experiment" not in sdk_fetch(app, "paywall", subscriberId="m-1")
            bad = await call(s, "create_experiment", {"variants": [{"paywallId": control, "weight": 1}]}, expect_error=True)
            assert bad["error"]["code"] in ("invalid_arguments", "validation_failed")

    run(flow())
