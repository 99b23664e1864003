"""Scoped secret keys (docs/integrations.md, "Scoped keys").

The operations come from the served OpenAPI document, as in test_authorization_matrix.py: every
operation secured by the secret key declares its scope as `x-xizor-scope` (POST /mcp excepted: its
tools check their own), and for every one of them a key holding every scope but that one is refused
with 403 `missing_scope` naming it, while a key holding only that scope is not refused (its dummy ids
may well answer 404 or 422). Then: full-access keys, scopes listed on GET /v1/keys, the 422s for
unknown scopes and for scopes on a public key, 403 `scope_escalation`, and MCP's tools/list and
tools/call per scope (raw JSON-RPC and the official SDK).
"""
import asyncio
import json
import uuid
from contextlib import asynccontextmanager

import pytest
import requests

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from xizor_server import App, Client, create_app

SCOPES = ("read", "drafts", "publish", "placements", "experiments", "analytics", "keys", "webhooks", "members")
HTTP_METHODS = ("get", "post", "put", "delete", "patch")
MCP_VERSION = "2025-11-25"
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MCP_VERSION}
# Path parameters of the dummy calls: ids that exist nowhere (a 404 is as good an answer as any but 403).
DUMMY = {"n": "1", "locale": "de", "name": "no-such-template"}
SESSION = requests.Session()


# --- helpers shared with test_audit_log.py and test_sandbox.py -------------------------------------

def new_app(server, name="Scopes"):
    return App(server, create_app(server.base, f"{name} {uuid.uuid4().hex[:8]}"))


def create_key(app, scopes=None, kind="secret", **extra):
    """POST /v1/keys with the app's full-access key; answers the created key (201)."""
    body = {"kind": kind, **extra}
    if scopes is not None:
        body["scopes"] = list(scopes)
    r = app.dashboard.post("/v1/keys", body)
    assert r.status_code == 201, r.text
    return r.json()


def listed_keys(client):
    """Every key GET /v1/keys lists (every page)."""
    keys, cursor = [], None
    while True:
        r = client.get("/v1/keys", params={"limit": 200, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        keys += r.json()["keys"]
        cursor = r.json()["nextCursor"]
        if not cursor:
            return keys


def key_id_of(app, key):
    """The id of `key` (the secret itself), found on GET /v1/keys by its 12-character prefix."""
    matches = [k["id"] for k in listed_keys(app.dashboard) if k["prefix"] == key[:12]]
    assert len(matches) == 1, (key[:12], matches)
    return matches[0]


def problem(response):
    assert response.headers.get("Content-Type") == "application/problem+json", (response.status_code, response.text)
    return response.json()


def missing_scope(response, scope):
    """None when `response` is 403 `missing_scope` naming `scope`, else what it is instead."""
    if response.status_code != 403:
        return f"got {response.status_code} {response.text[:200]}, expected 403 missing_scope"
    if response.headers.get("Content-Type") != "application/problem+json":
        return f"got 403 as {response.headers.get('Content-Type')}, expected application/problem+json"
    body = response.json()
    if body.get("code") != "missing_scope" or body.get("scope") != scope:
        return f"got 403 {body}, expected code missing_scope and scope {scope!r}"
    return None


class Mcp:
    """Raw JSON-RPC over POST /mcp with one key (initialized first; the server is stateless)."""

    def __init__(self, base, key, headers=None):
        self.base, self.key, self.ids, self.headers = base, key, 0, dict(headers or {})
        r = self.post("initialize", {"protocolVersion": MCP_VERSION, "capabilities": {},
                                     "clientInfo": {"name": "scopes-test", "version": "1"}})
        assert r.status_code == 200 and r.json()["result"]["protocolVersion"] == MCP_VERSION, r.text
        assert self.post("notifications/initialized", notification=True).status_code == 202

    def post(self, method, params=None, notification=False, headers=None):
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        if not notification:
            self.ids += 1
            message["id"] = self.ids
        h = {"Content-Type": "application/json", "Authorization": f"Bearer {self.key}", **MCP_HEADERS, **self.headers, **(headers or {})}
        return SESSION.post(self.base + "/mcp", data=json.dumps(message), headers=h, timeout=30)

    def tools(self):
        r = self.post("tools/list", {})
        assert r.status_code == 200, r.text
        return r.json()["result"]["tools"]

    def call(self, name, arguments, headers=None):
        """The tools/call result (a JSON-RPC error fails the test)."""
        r = self.post("tools/call", {"name": name, "arguments": arguments}, headers=headers)
        assert r.status_code == 200, f"tools/call {name}: {r.status_code} {r.text}"
        message = r.json()
        assert "result" in message, f"tools/call {name}: {message}"
        return message["result"]


def tool_names(tools):
    return {t["name"] for t in tools}


def read_only(tool):
    return (tool.get("annotations") or {}).get("readOnlyHint") is True


# --- the route table -------------------------------------------------------------------------------

def secret_operations(document):
    """(method, path, operationId, x-xizor-scope) of every operation secured by the secret key."""
    ops = []
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            spec = item.get(method)
            if spec is None:
                continue
            names = [name for requirement in spec.get("security") or [] for name in requirement]
            if names == ["secretKey", "session"]:
                ops.append((method.upper(), path, spec.get("operationId"), spec.get("x-xizor-scope")))
    return ops


def dummy_path(path):
    out = []
    for segment in path.split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            name = segment[1:-1]
            segment = DUMMY.get(name, f"dummy-{name}-{uuid.uuid4().hex[:6]}")
        out.append(segment)
    return "/".join(out)


def dummy_body(method, operation_id):
    """A body for the dummy call: `{}` for writes, except POST /v1/keys, which asks for a `keys`-only key (so its
    `keys`-only caller escalates nothing)."""
    if operation_id == "createKey":
        return {"kind": "secret", "scopes": ["keys"], "label": "scope matrix"}
    return {} if method in ("POST", "PUT", "PATCH") else None


@pytest.fixture(scope="module")
def document(module_server):
    r = SESSION.get(module_server.base + "/openapi.json", timeout=30)
    assert r.status_code == 200
    return r.json()


@pytest.fixture(scope="module")
def scoped(module_server):
    """An app with, per scope, a key holding every other scope and a key holding only it."""
    app = new_app(module_server, "Scope matrix")
    without = {s: create_key(app, [x for x in SCOPES if x != s], label=f"all but {s}") for s in SCOPES}
    only = {s: create_key(app, [s], label=f"only {s}") for s in SCOPES}
    return app, without, only


def test_every_secret_operation_declares_one_known_scope(document):
    ops = secret_operations(document)
    assert len(ops) > 40, ops
    problems = []
    for method, path, operation_id, scope in ops:
        if (method, path) == ("POST", "/mcp"):
            if scope is not None:
                problems.append(f"POST /mcp declares x-xizor-scope {scope!r}: its tools check their own, every key may call it")
        elif scope not in SCOPES:
            problems.append(f"{method} {path} ({operation_id}): x-xizor-scope is {scope!r}, expected one of {SCOPES}")
    assert not problems, "\n".join(problems)
    declared = {scope for method, path, _, scope in ops if path != "/mcp"}
    assert declared == set(SCOPES), f"scopes no route declares: {set(SCOPES) - declared}"


def test_admin_and_public_routes_have_no_scope(document):
    """The admin token and public keys have no scopes: what they may do is decided by their kind."""
    scoped_elsewhere = [f"{method.upper()} {path}" for path, item in document["paths"].items() for method in HTTP_METHODS
                        if method in item and "x-xizor-scope" in item[method]
                        and [n for r in item[method].get("security") or [] for n in r] != ["secretKey", "session"]]
    assert not scoped_elsewhere, scoped_elsewhere


def test_some_known_routes_have_the_documented_scope(document):
    """Spot checks against the table of docs/integrations.md."""
    scopes = {(m, p): s for m, p, _, s in secret_operations(document)}
    expected = {("GET", "/v1/paywalls"): "read", ("GET", "/v1/paywalls/{id}/draft"): "read",
                ("GET", "/v1/placements/{key}/resolve"): "read", ("GET", "/v1/templates"): "read",
                ("POST", "/v1/paywalls"): "drafts", ("PUT", "/v1/paywalls/{id}/draft"): "drafts",
                ("PATCH", "/v1/paywalls/{id}"): "drafts", ("POST", "/v1/assets"): "drafts",
                ("POST", "/v1/paywalls/{id}/publish"): "publish", ("POST", "/v1/paywalls/{id}/rollback"): "publish",
                ("DELETE", "/v1/paywalls/{id}"): "publish",
                ("PUT", "/v1/placements/{key}"): "placements", ("PUT", "/v1/placements/{key}/rules"): "placements",
                ("PUT", "/v1/audiences/{id}"): "placements", ("GET", "/v1/targeting/keys"): "read",
                ("POST", "/v1/experiments"): "experiments", ("POST", "/v1/experiments/{id}/start"): "experiments",
                ("GET", "/v1/paywalls/{id}/analytics"): "analytics", ("GET", "/v1/experiments/{id}/results"): "analytics",
                ("GET", "/v1/events/export"): "analytics", ("DELETE", "/v1/subscribers/{id}"): "analytics",
                ("GET", "/v1/keys"): "keys", ("POST", "/v1/keys"): "keys", ("DELETE", "/v1/keys/{keyId}"): "keys",
                ("GET", "/v1/audit-log"): "keys",
                ("GET", "/v1/webhooks"): "webhooks", ("POST", "/v1/webhooks"): "webhooks"}
    wrong = {op: (scopes.get(op, "no such operation"), want) for op, want in expected.items() if scopes.get(op) != want}
    assert not wrong, "\n".join(f"{m} {p}: declared {got!r}, documented {want!r}" for (m, p), (got, want) in wrong.items())


def test_a_key_without_the_scope_is_refused_on_every_operation(module_server, document, scoped):
    app, without, _ = scoped
    failures, checked = [], 0
    for method, path, operation_id, scope in secret_operations(document):
        if path == "/mcp" or scope not in SCOPES:
            continue  # test_every_secret_operation_declares_one_known_scope says why
        checked += 1
        body = dummy_body(method, operation_id)
        key = without[scope]
        r = Client(module_server.base, key["key"]).request(method, dummy_path(path), json_body=body)
        wrong = missing_scope(r, scope)
        if wrong is None:
            has = r.json().get("keyScopes")
            if sorted(has or []) != sorted(x for x in SCOPES if x != scope):
                wrong = f"keyScopes is {has}, expected every scope but {scope!r}"
        if wrong:
            failures.append(f"{method} {path} (scope {scope}) with a key of every other scope: {wrong}")
    assert not failures, "\n".join(failures)
    assert checked > 40, f"only {checked} operations declare a scope"


def test_a_key_with_only_the_scope_is_let_through_on_every_operation(module_server, document, scoped):
    app, _, only = scoped
    failures, checked = [], 0
    for method, path, operation_id, scope in secret_operations(document):
        if path == "/mcp" or scope not in SCOPES:
            continue
        checked += 1
        r = Client(module_server.base, only[scope]["key"]).request(method, dummy_path(path), json_body=dummy_body(method, operation_id))
        if r.status_code in (401, 403):
            failures.append(f"{method} {path} (scope {scope}) with a key of only that scope: got {r.status_code} {r.text[:200]}")
        elif method == "GET" and "{" not in path and not 200 <= r.status_code < 300:
            failures.append(f"{method} {path} (scope {scope}) with a key of only that scope: got {r.status_code} {r.text[:200]}, "
                            f"expected 2xx (a list)")
    assert not failures, "\n".join(failures)
    assert checked > 40, f"only {checked} operations declare a scope"


def test_the_scope_is_checked_before_the_body_is_read(module_server, scoped):
    """Checked at admission: a malformed body from a key without the scope is still 403 missing_scope."""
    app, without, _ = scoped
    r = Client(module_server.base, without["drafts"]["key"]).request("POST", "/v1/paywalls", data="{not json")
    assert missing_scope(r, "drafts") is None
    r = Client(module_server.base, without["publish"]["key"]).request("POST", "/v1/paywalls/pw_nowhere/publish", data="[")
    assert missing_scope(r, "publish") is None


def test_scopes_and_full_access_are_listed(module_server):
    app = new_app(module_server)
    full = create_key(app, label="full")
    assert full["key"].startswith("sk_")
    ci = create_key(app, ["read", "drafts", "publish"], label="CI")
    public = create_key(app, kind="public")
    listed = {k["id"]: k for k in listed_keys(app.dashboard)}
    assert listed[full["id"]]["fullAccess"] is True
    assert listed[key_id_of(app, app.secret_key)]["fullAccess"] is True, "the app's first secret key has every scope"
    assert listed[ci["id"]]["fullAccess"] is False
    assert sorted(listed[ci["id"]]["scopes"]) == ["drafts", "publish", "read"]
    assert ci["key"] not in json.dumps(listed) and full["key"] not in json.dumps(listed), "never the keys themselves"
    # What the listed scopes allow.
    c = Client(module_server.base, ci["key"])
    assert c.get("/v1/paywalls").status_code == 200
    pw = c.post("/v1/paywalls", {"template": "clean"})
    assert pw.status_code == 201, pw.text
    assert c.post(f"/v1/paywalls/{pw.json()['id']}/publish", {"force": True}).status_code == 201
    assert missing_scope(c.put("/v1/placements/onboarding", {"paywallId": pw.json()["id"]}), "placements") is None
    assert missing_scope(c.get("/v1/keys"), "keys") is None
    # A full-access key does everything, the new one included.
    f = Client(module_server.base, full["key"])
    assert f.get("/v1/keys").status_code == 200
    assert f.put("/v1/placements/onboarding", {"paywallId": pw.json()["id"]}).status_code == 200
    assert public["id"] in listed


def test_unknown_scopes_and_scopes_on_a_public_key_are_422(module_server):
    app = new_app(module_server)
    r = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["bogus"]})
    assert r.status_code == 422, r.text
    assert ("$.scopes[0]", "invalid_enum_value") in {(e["path"], e["code"]) for e in problem(r)["errors"]}
    r = app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["read", "admin"]})
    assert r.status_code == 422, r.text
    assert ("$.scopes[1]", "invalid_enum_value") in {(e["path"], e["code"]) for e in problem(r)["errors"]}
    r = app.dashboard.post("/v1/keys", {"kind": "public", "scopes": ["read"]})
    assert r.status_code == 422, r.text
    body = problem(r)
    assert "scopes_on_public_key" in {body.get("code"), *(e.get("code") for e in body.get("errors") or [])}, body
    before = len(listed_keys(app.dashboard))
    assert before == 2, "none of the refused keys was created"


def test_a_key_cannot_create_a_key_with_scopes_it_lacks(module_server):
    app = new_app(module_server)
    keys_only = Client(module_server.base, create_key(app, ["keys"])["key"])
    for body in ({"kind": "secret", "scopes": ["keys", "publish"]}, {"kind": "secret"}, {"kind": "secret", "scopes": list(SCOPES)}):
        r = keys_only.post("/v1/keys", body)
        assert r.status_code == 403, (body, r.text)
        assert problem(r)["code"] == "scope_escalation", (body, r.text)
    assert len(listed_keys(app.dashboard)) == 3, "no key was created by the refused requests"
    # Its own scopes (or fewer) are fine, and a public key has no scopes to escalate.
    same = keys_only.post("/v1/keys", {"kind": "secret", "scopes": ["keys"]})
    assert same.status_code == 201, same.text
    reader = Client(module_server.base, create_key(app, ["keys", "read"])["key"])
    made = reader.post("/v1/keys", {"kind": "secret", "scopes": ["read"]})
    assert made.status_code == 201, made.text
    listed = {k["id"]: k for k in listed_keys(app.dashboard)}
    assert listed[made.json()["id"]]["scopes"] == ["read"] and listed[made.json()["id"]]["fullAccess"] is False
    made_client = Client(module_server.base, made.json()["key"])
    assert made_client.get("/v1/paywalls").status_code == 200
    assert missing_scope(made_client.get("/v1/keys"), "keys") is None
    # A full-access key may mint anything.
    assert app.dashboard.post("/v1/keys", {"kind": "secret", "scopes": ["publish"]}).status_code == 201


def test_a_keys_key_may_create_public_keys(module_server):
    """Public keys have no scopes ("what they may do is decided by their kind"), so minting one asks for no scope the
    creating key lacks: a `keys`-only key can make the app's public and sandbox keys."""
    app = new_app(module_server)
    keys_only = Client(module_server.base, create_key(app, ["keys"])["key"])
    for body in ({"kind": "public"}, {"kind": "public", "environment": "sandbox"}):
        r = keys_only.post("/v1/keys", body)
        assert r.status_code == 201, (body, r.status_code, r.text)


# --- MCP -------------------------------------------------------------------------------------------

def test_mcp_lists_only_the_tools_of_the_keys_scopes(module_server):
    app = new_app(module_server)
    everything = tool_names(Mcp(module_server.base, app.secret_key).tools())
    assert {"list_paywalls", "publish_paywall", "set_placement_rules", "create_paywall"} <= everything
    full = tool_names(Mcp(module_server.base, create_key(app)["key"]).tools())
    assert full == everything, "a new full-access key lists every tool"
    all_scopes = tool_names(Mcp(module_server.base, create_key(app, SCOPES)["key"]).tools())
    assert all_scopes == everything, "a key holding every scope lists every tool"

    reader = Mcp(module_server.base, create_key(app, ["read"])["key"]).tools()
    names = tool_names(reader)
    assert "list_paywalls" in names and "get_paywall" in names and "list_placements" in names
    assert not {"publish_paywall", "set_placement_rules", "create_paywall", "update_paywall_draft", "assign_placement",
                "rollback_paywall", "archive_paywall", "unarchive_paywall", "create_experiment", "start_experiment", "set_audience"} & names, names
    writes = [t["name"] for t in reader if not read_only(t)]
    assert not writes, f"a read-only key is offered tools that are not read-only: {writes}"
    # Analytics and experiment results are scope `analytics`, not `read`.
    assert not {"get_paywall_analytics", "get_experiment_results"} & names, names
    assert names < everything

    publisher = tool_names(Mcp(module_server.base, create_key(app, ["read", "publish"])["key"]).tools())
    assert {"publish_paywall", "rollback_paywall", "archive_paywall", "unarchive_paywall", "list_paywalls"} <= publisher
    assert not {"create_paywall", "set_placement_rules", "update_paywall_draft"} & publisher, publisher
    analyst = tool_names(Mcp(module_server.base, create_key(app, ["analytics"])["key"]).tools())
    assert {"get_paywall_analytics", "get_experiment_results"} <= analyst
    assert not {"publish_paywall", "list_paywalls"} & analyst, analyst
    # Every key may speak MCP, whatever its scopes.
    for scope in SCOPES:
        assert isinstance(Mcp(module_server.base, create_key(app, [scope])["key"]).tools(), list)


def test_mcp_calls_of_a_hidden_tool_are_missing_scope_errors(module_server):
    app = new_app(module_server)
    pw = app.create_paywall("clean")
    reader = Mcp(module_server.base, create_key(app, ["read"])["key"])
    for name, arguments, scope in (("publish_paywall", {"paywallId": pw}, "publish"),
                                   ("set_placement_rules", {"placement": "onboarding", "rules": []}, "placements"),
                                   ("create_paywall", {"template": "clean"}, "drafts"),
                                   ("get_paywall_analytics", {"paywallId": pw}, "analytics")):
        result = reader.call(name, arguments)
        assert result.get("isError") is True, (name, result)
        text = " ".join(c.get("text", "") for c in result["content"])
        assert "missing_scope" in text, (name, result)
        structured = result.get("structuredContent")
        if structured is not None:
            # The same problem as REST's: the scope it needs, and what the key has.
            error = structured["error"]
            assert (error["code"], error.get("scope"), error.get("keyScopes")) == ("missing_scope", scope, ["read"]), (name, error)
    assert app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"] == [], "the refused publish published nothing"
    assert [p["id"] for p in app.dashboard.get("/v1/paywalls").json()["items"]] == [pw], "the refused create created nothing"
    # A visible tool works; with publish, publishing does.
    assert reader.call("list_paywalls", {}).get("isError") is False
    publisher = Mcp(module_server.base, create_key(app, ["read", "publish"])["key"])
    published = publisher.call("publish_paywall", {"paywallId": pw})
    assert published.get("isError") is False, published
    assert [v["version"] for v in app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [1]


@asynccontextmanager
async def sdk_session(base, key):
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http, \
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def test_the_official_sdk_sees_the_same_scopes(module_server):
    app = new_app(module_server)
    pw = app.create_paywall("clean")
    key = create_key(app, ["read"])["key"]

    async def flow():
        async with sdk_session(module_server.base, key) as s:
            tools = (await s.list_tools()).tools
            names = {t.name for t in tools}
            assert "list_paywalls" in names and "publish_paywall" not in names
            assert all(t.annotations and t.annotations.read_only_hint for t in tools), [t.name for t in tools]
            refused = await s.call_tool("publish_paywall", {"paywallId": pw})
            assert refused.is_error is True
            assert "missing_scope" in refused.content[0].text
            listed = await s.call_tool("list_paywalls", {})
            assert listed.is_error is False and pw in listed.content[0].text

    asyncio.run(asyncio.wait_for(flow(), timeout=60))
