"""The authorization matrix, derived from the server's own route table and MCP tool list.

The operations are every path × method of `GET /openapi.json`, which is built from the same
declarations as the router, so a new route is covered without editing this file. An operation's
declared auth is its `security` (`adminToken`, `secretKey`, `publicKey`, or none). A path parameter
is named by the literal segment before it (`/v1/paywalls/{id}` → a paywall id, see PATH_ENTITIES);
an unknown security scheme or parameter fails `test_the_route_table_is_understood` until the matrix
is taught it.

Every operation is called with every kind of credential, against a "world": an app built through
the REST API with two published paywalls, a placement with rules using an audience, a subscriber
with attributes, a draft experiment, extra keys (revoked ones too), a webhook endpoint with a delivery
(its test event), and a random marker in every name and description and in a draft text.

| case                                          | secured operation             | open operation |
| --------------------------------------------- | ----------------------------- | -------------- |
| no Authorization                              | 401 missing_api_key           | not 401/403    |
| malformed (`Basic abc`, `Bearer` and nothing) | 401 invalid_authorization     | not 401/403    |
| forged: a real key's listed prefix + random   | 401 invalid_api_key           | not 401/403    |
| revoked keys, both keys of an archived app    | 401 invalid_api_key           | not 401/403    |
| a real key of another kind                    | 403 <its kind>_required       | not 401/403    |
| the right key on its own app's ids            | 2xx (a write without a recipe: not 401/403) | 2xx |

Writes with the right key run on a throwaway world each, so they disturb nothing else.

Another app (B), with its own key of the operation's kind, sends (1) the operation on A's ids, in
the path and in the body, and (2) its own valid request with one of its ids replaced by A's
counterpart, for each id the request names (so an id in a body is reached even when the path names
B's own placement, and each of several ids in a body is reached even if the server checks them in
order). Each call is compared with the same call naming ids that exist nowhere (the control):

- an A id in the path that must exist (all but the last segment of a PUT, which creates what it
  names) answers 404 `…_not_found` (problem+json);
- any other refusal says not found: 404 `…_not_found`, or 422 whose every error is `unknown_…`
  (the documented answer to a body naming nothing, e.g. rules with an unknown paywall);
- the answer equals the control's (ids aside): an id cannot be probed across apps;
- nothing of A (ids, keys, key prefixes, names, the marker) shows unless the request carried it.

A (2) whose control is not refused is skipped: that id is not looked up (a placement key B may
create, an event's placement) and A's would only become B's data. A (1) naming no A id but what a
PUT creates (`PUT /v1/audiences/{id}`, a subscriber's attributes) is left out: it would create B's
own, and its (2) covers it. Afterwards A's state (lists, drafts and their ETags, versions, analytics,
SDK answers, audiences, a subscriber's attributes, webhook endpoints and their deliveries, the audit
log) is unchanged, and B's lists (its GETs without path parameters, its read-only MCP tools without
arguments) show nothing of A.

MCP: every tool whose input schema names `paywallId`, `experimentId` or `placement` (at any depth)
gets the same two kinds of call with B's secret key (from `tools/list`, raw JSON-RPC, stateless);
(1) must be a result with `isError: true` whose `structuredContent.error` says not found. Other
required arguments come from TOOL_RECIPES; a required argument the matrix cannot fill fails.

Write operations get a valid body from RECIPES (so a 400/422 from body validation cannot hide a
missing ownership check); the right-key case proves each recipe valid by expecting 2xx.
"""
import functools
import json
import re
import secrets
import string
import time
from dataclasses import dataclass, field
from typing import Callable

import pytest
import requests

from conftest import ROOT
from xizor_server import ADMIN_TOKEN, App, create_app

HTTP_METHODS = ("get", "post", "put", "delete", "patch")
SCHEMES = {"adminToken": "admin", "secretKey": "secret", "publicKey": "public"}
# A person's session is the alternative every admin and secret route also takes (docs/teams.md); routes that
# take only a session (a person's own: /v1/session, /v1/me/sessions) have no key to try and are test_teams.py's.
SESSION_SCHEME = "session"
KINDS = ("admin", "secret", "public")
WRONG_KIND_CODE = {"admin": "admin_token_required", "secret": "secret_key_required", "public": "public_key_required"}
# The literal segment before a path parameter → what the parameter names.
PATH_ENTITIES = {"paywalls": "paywall", "experiments": "experiment", "placements": "placement", "keys": "key",
                 "apps": "app", "templates": "template", "versions": "version", "texts": "locale", "assets": "asset",
                 "audiences": "audience", "subscribers": "subscriber", "webhooks": "webhook",
                 "deliveries": "webhook delivery", "previews": "preview token", "users": "user", "members": "user",
                 "sessions": "session", "invitations": "invitation"}
# Parameters whose entity their name says better than the segment before them: an asset file's URL is
# /v1/assets/{folder}/{file}, the folder an app id.
PARAM_ENTITIES = {"folder": "app", "file": "asset file"}
# Parameters of one path whose names alone would mislead: the console's files are /console/v/{version}/{file},
# a file of the version its page names (any other version is 404).
PATH_PARAM_ENTITIES = {("/console/v/{version}/{file}", "version"): "console version",
                       ("/v1/sdk/apps/{publicKey}/placements/{key}/paywall", "publicKey"): "public key in path",
                       ("/console/v/{version}/{file}", "file"): "console file"}
APP_OWNED = {"paywall", "experiment", "placement", "key", "app", "asset", "audience", "webhook", "webhook delivery",
             # An app's member (a person, named by their user id): another app's key reaches them as not found.
             "user", "invitation"}
# The only operations anyone may call without a key. Opening another one is a decision this list
# must be edited for, never a slip in a route declaration (which the rest of the matrix would
# otherwise take as the expected behaviour).
OPEN_OPERATIONS = {"getHealth", "getReadiness", "getMetrics", "getOpenAPIDocument",
                   # Media files: pages load them with <img> and <video>, which send no key (the URL is the hash).
                   "getAssetFile",
                   # The console signs in with a key the user types; its page and assets are public static files.
                   "redirectToConsole", "getConsole", "getConsoleAsset",
                   # A preview link (`/v1/previews/{token}`) is its own proof: a frame cannot send a key; short-lived, signed.
                   "openPreviewLink",
                   # A built-in template's page (the console's gallery frames it): the same for every app, no tenant data.
                   "previewTemplate",
                   # The stores post without our keys: Apple's notifications prove themselves by their signature
                   # chain, RevenueCat's by the Authorization value the app configured (docs/revenue.md).
                   "receiveAppleNotification", "receiveRevenueCatWebhook",
                   # The SDK's cacheable path form names the app's public key in its path (a shared cache keys on the
                   # URL; docs/scaling.md, "Edge delivery"): the key is checked, just not from Authorization. And the
                   # public keys answers are signed with, published for apps to pin.
                   "getEdgePlacementPaywall", "getSigningKeys",
                   # Signing in as a person: the email and password in the body are the proof (docs/teams.md); failures
                   # draw from the address's bucket and lock the account.
                   "signIn", "getSignInMethods",
                   # Accepting an invitation: its single-use token is the proof (with the account's password, or the
                   # invited address's session). Single sign-on: the browser arrives without a session; the provider's
                   # signed ID token, the state and the cookie that binds the sign-in to the browser are the proof.
                   "acceptInvitation", "startSingleSignOn", "finishSingleSignOn"}
# MCP arguments that name an app-owned entity.
MCP_ID_ARGS = {"paywallId": "paywall", "experimentId": "experiment", "placement": "placement"}
MCP_VERSION = "2025-11-25"
BASE62 = string.ascii_letters + string.digits
SESSION = requests.Session()


def random_chars(n):
    return "".join(secrets.choice(BASE62) for _ in range(n))


def fake_like(real):
    """An id of the same shape that exists nowhere: its `pw_`/`plc-`… prefix kept, the rest random."""
    prefix = re.match(r"[A-Za-z]*[_-]?", real).group(0)
    return prefix + random_chars(len(real) - len(prefix))


def swap(text, replacements):
    for old, new in replacements.items():
        text = text.replace(old, new)
    return text


def unfaked(text, fakes):
    """`text` with the fake ids of `fakes` (real → fake) back to the real ones."""
    return swap(text, {fake: real for real, fake in fakes.items()})


def ok(response, status):
    assert response.status_code == status, f"{response.request.method} {response.request.url}: {response.status_code} {response.text}"
    return response.json() if response.content else None


def problem_code(response):
    try:
        return response.json().get("code")
    except (ValueError, AttributeError):
        return None


# --- the route table -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Operation:
    method: str
    path: str            # as in the document: /v1/paywalls/{id}
    operation_id: str
    auth: str | None     # admin, secret, public, or None when open
    problems: tuple = ()  # what the matrix does not understand about it

    def __str__(self):
        return f"{self.method} {self.path}"

    @property
    def parameters(self):
        """(name, entity) of each path parameter; entity None when the matrix does not know it."""
        segments = self.path.strip("/").split("/")
        return [(s[1:-1], PATH_PARAM_ENTITIES.get((self.path, s[1:-1])) or PARAM_ENTITIES.get(s[1:-1])
                 or (PATH_ENTITIES.get(segments[i - 1]) if i else None))
                for i, s in enumerate(segments) if s.startswith("{")]

    def must_exist(self, path):
        """The app-owned ids in `path` (a call of this operation) that must already exist: all but the last
        segment of a PUT, which creates or replaces what it names (`PUT /v1/placements/{key}`)."""
        template, actual = self.path.strip("/").split("/"), path.split("?")[0].strip("/").split("/")
        last = len(template) - 1
        return {value for i, (segment, value) in enumerate(zip(template, actual))
                if segment.startswith("{") and i and PATH_ENTITIES.get(template[i - 1]) in APP_OWNED
                and not (self.method == "PUT" and i == last)}

    def creates(self, path):
        """The ids in `path` (a call of this operation) that a PUT creates for its caller's app when they are new:
        the last segment (`PUT /v1/audiences/{id}`), and a subscriber id (`PUT /v1/sdk/subscribers/{id}/attributes`:
        subscribers are named by the app, never looked up)."""
        if self.method != "PUT":
            return set()
        template, actual = self.path.strip("/").split("/"), path.split("?")[0].strip("/").split("/")
        last = len(template) - 1
        return {value for i, (segment, value) in enumerate(zip(template, actual))
                if segment.startswith("{") and (i == last or (i and PATH_ENTITIES.get(template[i - 1]) == "subscriber"))}

    def url(self, world):
        path = self.path
        for name, entity in self.parameters:
            path = path.replace("{" + name + "}", world.entity(entity))
        return path


def load_operations(document):
    operations = []
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            if method not in item:
                continue
            spec, problems = item[method], []
            requirements = spec.get("security") or []
            names = [name for requirement in requirements for name in requirement]
            auth = None
            if names == [SESSION_SCHEME]:
                operations.append(Operation(method.upper(), path, spec.get("operationId", f"{method} {path}"), "session"))
                continue
            names = [name for name in names if name != SESSION_SCHEME]
            if len(names) > 1:
                problems.append(f"several security schemes {names}: teach the matrix which key they take")
            elif names and names[0] not in SCHEMES:
                problems.append(f"unknown security scheme {names[0]!r}: teach the matrix (SCHEMES)")
            elif names:
                auth = SCHEMES[names[0]]
            op = Operation(method.upper(), path, spec.get("operationId", f"{method} {path}"), auth)
            problems += [f"path parameter {{{name}}} names something the matrix does not know: teach it which entity "
                         f"the segment before it names (PATH_ENTITIES)" for name, entity in op.parameters if entity is None]
            operations.append(Operation(op.method, op.path, op.operation_id, auth, tuple(problems)))
    return operations


# --- a world: an app with something of everything ------------------------------------------------

@functools.cache
def console_version(base):
    """The version folder the console's page names (`/console/v/VERSION/app.js`)."""
    page = SESSION.get(base + "/console", timeout=30)
    assert page.status_code == 200, f"GET /console: {page.status_code} {page.text[:200]}"
    return re.search(r'/console/v/([^/"]+)/app\.js"', page.text).group(1)


def rules_body(world, paywall_id):
    """A rule naming one of the world's paywalls and its audience (so another app's audience is refused by id too)."""
    return {"rules": [{"when": {"all": [{"key": "country", "op": "in", "value": ["DE", "AT"]}, {"audience": world.audience}]},
                       "paywallId": paywall_id}]}


def audience_body(world):
    return {"name": f"{world.marker} audience", "condition": {"key": "device.platform", "op": "eq", "value": "ios"}}


def experiment_body(world):
    return {"name": f"{world.marker} experiment",
            "variants": [{"paywallId": world.paywalls[0], "weight": 50}, {"paywallId": world.paywalls[1], "weight": 50}]}


def webhook_body(world):
    # A host name, so it is accepted without `webhooks.allowPrivateTargets`; its deliveries fail DNS and are retried.
    return {"url": "https://hooks.example.com/xizor", "description": f"{world.marker} webhook"}


def events_body(world):
    return {"events": [{"id": f"evt-{random_chars(16)}", "name": "paywall_open", "timestamp": int(time.time() * 1000),
                        "placement": world.placement, "paywallId": world.paywalls[0], "version": 1,
                        "subscriberId": "matrix-subscriber"}]}


class World:
    """An app built through the REST API; its names, a draft text and the published version carry `marker`."""

    def __init__(self, server, label):
        self.server = server
        self.marker = "mx" + random_chars(14)
        self.app = App(server, create_app(server.base, f"Matrix {label} {self.marker}"))
        self.id = self.app.id
        a = self.app
        self.paywalls = [a.create_paywall("clean", name=f"{self.marker} first"),
                         a.create_paywall("cinematic", name=f"{self.marker} second")]
        self.text_path = self._mark_draft(self.paywalls[0])
        # Published with an Idempotency-Key, which the publish recipe replays: replays stay within their paywall.
        self.publish_key = f"publish-{self.marker}"
        for paywall in self.paywalls:
            a.publish(paywall, headers={"Idempotency-Key": self.publish_key})
        self.placement = "plc-" + random_chars(14)
        a.assign(self.placement, self.paywalls[0])
        # An audience the placement's rule uses, and a subscriber with attributes (the marker in one of them).
        self.audience = "aud-" + random_chars(14)
        ok(a.dashboard.put(f"/v1/audiences/{self.audience}", audience_body(self)), 201)
        ok(a.dashboard.put(f"/v1/placements/{self.placement}/rules", rules_body(self, self.paywalls[1])), 200)
        self.subscriber = "sub-" + random_chars(14)
        ok(a.sdk.put(f"/v1/sdk/subscribers/{self.subscriber}/attributes", {"attributes": {"plan": "pro", "note": self.marker}}), 200)
        self.experiment = ok(a.dashboard.post("/v1/experiments", experiment_body(self)), 201)["id"]
        # The key every `keys/{keyId}` call names: live, so revoking it is visible, and never the key the tests use.
        self.spare_key = self._new_key("secret")["id"]
        self.revoked_secret = self._revoked_key("secret", "/v1/paywalls")
        self.revoked_public = self._revoked_key("public", "/v1/sdk/fallback-bundle")
        assert ok(a.sdk.post("/v1/sdk/events", events_body(self)), 202)["accepted"] == 1
        self.keys = ok(a.dashboard.get("/v1/keys"), 200)["keys"]
        # A PNG of this world's own (the marker after the image's bytes): assets are content-addressed, so two
        # worlds uploading the same bytes would share an id.
        png = (ROOT / "Sources" / "XizorDomain" / "Assets" / "Bundled" / "clean-header.png").read_bytes() + self.marker.encode()
        self.asset = ok(a.dashboard.request("POST", "/v1/assets", data=png, headers={"Content-Type": "image/png"}), 201)["id"]
        # A webhook endpoint and a delivery of it (its test event), made last so that is its only delivery.
        webhook = ok(a.dashboard.post("/v1/webhooks", webhook_body(self)), 201)
        self.webhook, self.webhook_secret = webhook["id"], webhook["secret"]
        delivery = ok(a.dashboard.post(f"/v1/webhooks/{self.webhook}/test"), 202)
        self.delivery, self.webhook_event = delivery["id"], delivery["eventId"]
        # A person who is a member (an editor) of this app; their email carries the marker.
        self.member = ok(SESSION.post(server.base + "/v1/users", json={"email": f"{self.marker.lower()}@example.com",
                                                                       "password": "matrix password 1"},
                                      headers={"Authorization": bearer(ADMIN_TOKEN)}, timeout=30), 201)["id"]
        ok(SESSION.put(f"{server.base}/v1/apps/{self.id}/members/{self.member}", json={"role": "editor"},
                       headers={"Authorization": bearer(ADMIN_TOKEN)}, timeout=30), 200)
        # A pending invitation of this app (its email carries the marker).
        self.invitation = ok(a.dashboard.post("/v1/invitations", {"email": f"invited-{self.marker.lower()}@example.com",
                                                                  "role": "viewer"}), 201)["id"]
        # A preview link of the first paywall (valid for minutes: longer than the matrix runs).
        self.preview_token = ok(a.dashboard.post(f"/v1/paywalls/{self.paywalls[0]}/preview-link", {}), 201)["url"].rsplit("/", 1)[1]

    def _mark_draft(self, paywall_id):
        """Puts the marker into a German text of the draft; answers that text's path."""
        r = self.app.dashboard.get(f"/v1/paywalls/{paywall_id}/draft/texts")
        # A plain source (no {{variables}}, no **marks**), so the marker is a faithful translation of it.
        path = next(t["path"] for t in ok(r, 200)["texts"]
                    if t["path"].endswith(".text") and not any(c in t["values"].get("en", "") for c in "{*"))
        ok(self.app.dashboard.put(f"/v1/paywalls/{paywall_id}/draft/texts/de", {"texts": {path: f"Hallo {self.marker}"}},
                                  headers={"If-Match": r.headers["ETag"]}), 200)
        return path

    def _new_key(self, kind):
        return ok(self.app.dashboard.post("/v1/keys", {"kind": kind}), 201)

    def _revoked_key(self, kind, probe):
        """A key used once (so the server has seen it), then revoked."""
        created = self._new_key(kind)
        ok(SESSION.get(self.server.base + probe, headers={"Authorization": bearer(created["key"])}), 200)
        ok(self.app.dashboard.delete(f"/v1/keys/{created['id']}"), 204)
        return created["key"]

    def key(self, kind):
        return {"admin": ADMIN_TOKEN, "secret": self.app.secret_key, "public": self.app.public_key}[kind]

    def entity(self, entity):
        if entity == "console version":
            return console_version(self.server.base)
        return {"paywall": self.paywalls[0], "experiment": self.experiment, "placement": self.placement,
                "key": self.spare_key, "app": self.id, "template": "clean", "version": "1", "locale": "fr",
                "asset": self.asset, "asset file": self.asset + ".png", "audience": self.audience,
                "subscriber": self.subscriber, "webhook": self.webhook, "webhook delivery": self.delivery,
                "console file": "app.js", "preview token": self.preview_token, "user": self.member,
                "session": "ses_matrixNoSession0", "invitation": self.invitation,
                "public key in path": self.app.public_key}[entity]

    def draft(self):
        """(document, revision, ETag) of the first paywall's draft, read now."""
        r = self.app.dashboard.get(f"/v1/paywalls/{self.paywalls[0]}/draft")
        body = ok(r, 200)
        return body["document"], body["revision"], r.headers["ETag"]

    def start_experiment(self):
        ok(self.app.dashboard.post(f"/v1/experiments/{self.experiment}/start"), 200)

    def release_audience(self):
        """Rules without the audience, so it may be deleted (409 audience_in_use while a rule uses it)."""
        ok(self.app.dashboard.put(f"/v1/placements/{self.placement}/rules", {"rules": []}), 200)

    @property
    def owned_ids(self):
        """Every id of this app a request can name, in the same order for every world."""
        others = sorted((k for k in self.keys if k["id"] != self.spare_key), key=lambda k: (k["createdAt"], k["kind"]))
        return [self.id, *self.paywalls, self.experiment, self.placement, self.audience, self.subscriber, self.asset,
                self.webhook, self.delivery, self.spare_key, self.member, self.invitation, *(k["id"] for k in others)]

    def name_of(self, owned_id):
        return dict((text, what) for what, text in self.markers)[owned_id]

    @property
    def markers(self):
        """(what, text) of everything that must not show outside this app."""
        return [("app id", self.id), ("marker", self.marker), ("secret key", self.app.secret_key),
                ("public key", self.app.public_key), ("first paywall id", self.paywalls[0]),
                ("second paywall id", self.paywalls[1]), ("experiment id", self.experiment),
                ("placement key", self.placement), ("publish Idempotency-Key", self.publish_key), ("asset id", self.asset),
                ("audience id", self.audience), ("subscriber id", self.subscriber), ("webhook id", self.webhook),
                ("webhook secret", self.webhook_secret), ("webhook delivery id", self.delivery),
                ("webhook event id", self.webhook_event), ("preview link token", self.preview_token),
                ("member user id", self.member), ("member email", f"{self.marker.lower()}@example.com"),
                ("invitation id", self.invitation), ("invited email", f"invited-{self.marker.lower()}@example.com"),
                *((f"{k['kind']} key id", k["id"]) for k in self.keys),
                *((f"{k['kind']} key prefix", k["prefix"]) for k in self.keys)]

    def state(self):
        """What another app's calls must not change."""
        c, sdk = self.app.dashboard, self.app.sdk
        reads = {path: c.get(path) for path in ("/v1/paywalls?limit=200", "/v1/placements", "/v1/experiments", "/v1/keys", "/v1/assets",
                                                "/v1/audiences", f"/v1/subscribers/{self.subscriber}/attributes",
                                                "/v1/webhooks", "/v1/audit-log?limit=200")}
        for p in self.paywalls:
            for suffix in ("", "/draft", "/versions", "/analytics"):
                reads[f"/v1/paywalls/{p}{suffix}"] = c.get(f"/v1/paywalls/{p}{suffix}")
        reads["sdk paywall"] = sdk.get(f"/v1/sdk/placements/{self.placement}/paywall", headers={"Accept": "application/json"})
        reads["sdk fallback bundle"] = sdk.get("/v1/sdk/fallback-bundle")
        state = {what: (r.status_code, r.headers.get("ETag"), r.text) for what, r in reads.items()}
        # The deliveries by id, event and event type only: the dispatcher keeps attempting them (attempts, lastError,
        # nextAttemptAt change on their own), but another app's calls must neither add one nor remove one.
        r = c.get(f"/v1/webhooks/{self.webhook}/deliveries?limit=100")
        state["webhook deliveries"] = (r.status_code, None, json.dumps(
            [(d["id"], d["eventId"], d["eventType"]) for d in r.json()["items"]] if r.status_code == 200 else r.text))
        return state


def state_changes(before, after):
    """What differs between two `World.state()`s, each with the text around its first difference."""
    changes = []
    for what, (status, etag, text) in before.items():
        now_status, now_etag, now_text = after[what]
        if (status, etag, text) != (now_status, now_etag, now_text):
            i = next((k for k, (x, y) in enumerate(zip(text, now_text)) if x != y), min(len(text), len(now_text)))
            changes.append(f"{what}: {status} {etag} …{text[max(0, i - 80):i + 120]}… → "
                           f"{now_status} {now_etag} …{now_text[max(0, i - 80):i + 120]}…")
    return changes


def leaks(world, response_text, request_text):
    """What of `world` a response shows that the request did not itself carry."""
    return sorted({what for what, text in world.markers if text in response_text and text not in request_text})


# --- requests ------------------------------------------------------------------------------------

@dataclass
class Recipe:
    """How to call an operation (or an MCP tool) validly on a world: its body (or extra arguments), headers,
    and a step run first when it runs on a throwaway world (starting the experiment before stopping it)."""
    body: object = None
    headers: dict = field(default_factory=dict)
    prepare: Callable | None = None


def draft_write(body_of):
    """A draft write: `body_of(world)` under If-Match with the draft's current ETag."""
    return lambda w: Recipe(body_of(w), {"If-Match": w.draft()[2]})


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MCP_VERSION}

# operationId → Recipe for a valid request on a world. Without one a write sends `{}` and the right-key
# case only checks it is not refused for its key.
RECIPES = {
    "createApp": lambda w: Recipe({"name": f"Matrix extra {w.marker}"}),
    "createKey": lambda w: Recipe({"kind": "public"}),
    "createPaywall": lambda w: Recipe({"template": "clean", "name": f"{w.marker} third"}),
    "saveDraft": draft_write(lambda w: w.draft()[0]),
    "setDraftTexts": draft_write(lambda w: {"texts": {w.text_path: f"Bonjour {w.marker}"}}),
    "publishPaywall": lambda w: Recipe({"force": True}, headers={"Idempotency-Key": w.publish_key}),  # the request the world made
    "rollbackPaywall": lambda w: Recipe({"version": 1}),
    "renamePaywall": lambda w: Recipe({"name": f"{w.marker} renamed"}),
    "patchDraft": lambda w: Recipe([{"op": "replace", "path": "/name", "value": f"{w.marker} patched"}],
                                   {"If-Match": w.draft()[2], "Content-Type": "application/json-patch+json"}),
    "validateDocument": lambda w: Recipe({"document": w.draft()[0]}),
    "assignPlacement": lambda w: Recipe({"paywallId": w.paywalls[1]}),
    "setPlacementRules": lambda w: Recipe(rules_body(w, w.paywalls[1])),
    "putAudience": lambda w: Recipe(audience_body(w)),
    "deleteAudience": lambda w: Recipe(prepare=World.release_audience),
    "setSubscriberAttributes": lambda w: Recipe({"attributes": {"plan": "free", "note": w.marker}}),
    "createExperiment": lambda w: Recipe(experiment_body(w)),
    "setExperimentWeights": lambda w: Recipe({"weights": [30, 70]}),
    "startExperiment": lambda w: Recipe(),
    "stopExperiment": lambda w: Recipe(prepare=World.start_experiment),
    "promoteExperimentVariant": lambda w: Recipe({"variant": "control"}, prepare=World.start_experiment),
    "ingestEvents": lambda w: Recipe(events_body(w)),
    "startTimer": lambda w: Recipe({"subscriberId": "matrix-subscriber", "paywallId": w.paywalls[0], "nodeId": "matrix-node"}),
    "mcp": lambda w: Recipe({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, MCP_HEADERS),
    "getPlacementPaywall": lambda w: Recipe(headers={"Accept": "application/json"}),
    # No body needed: listed so the right-key case expects 2xx.
    "archivePaywall": lambda w: Recipe(), "deletePlacement": lambda w: Recipe(), "revokeKey": lambda w: Recipe(),
    "archiveApp": lambda w: Recipe(), "deleteSubscriber": lambda w: Recipe(), "createPreviewLink": lambda w: Recipe({}),
    "createWebhook": lambda w: Recipe(webhook_body(w)),
    "updateWebhook": lambda w: Recipe({"description": f"{w.marker} webhook renamed", "eventTypes": ["paywall.published"]}),
    "deleteWebhook": lambda w: Recipe(), "rotateWebhookSecret": lambda w: Recipe(), "testWebhook": lambda w: Recipe(),
    "createUser": lambda w: Recipe({"email": f"extra-{w.marker.lower()}@example.com", "password": "matrix password 2"}),
    "updateUser": lambda w: Recipe({"disabled": False}),
    "setAppMember": lambda w: Recipe({"role": "viewer"}), "setMember": lambda w: Recipe({"role": "viewer"}),
    "removeMember": lambda w: Recipe(),
    "createInvitation": lambda w: Recipe({"email": f"extra-invited-{w.marker.lower()}@example.com", "role": "editor"}),
    "revokeInvitation": lambda w: Recipe(),
    # retryWebhookDelivery has none: only a delivery that gave up (`webhooks.retryForMs` after its event, a day by
    # default) may be retried, and the world's is pending, so its own key gets 409 delivery_not_failed.
}


# Open operations a server without their settings answers with a problem, not a 2xx: the matrix's server has
# no identity provider (test_sso.py proves single sign-on against one).
UNCONFIGURED = {"startSingleSignOn": (404, "sso_not_configured"), "finishSingleSignOn": (404, "sso_not_configured")}


@dataclass
class Call:
    method: str
    path: str
    headers: dict
    data: str | None

    @property
    def text(self):
        return f"{self.path} {json.dumps(self.headers)} {self.data or ''}"

    def substituted(self, replacements):
        """This call with every occurrence of each id replaced (path, headers and body)."""
        return Call(self.method, swap(self.path, replacements), {k: swap(v, replacements) for k, v in self.headers.items()},
                    swap(self.data, replacements) if self.data is not None else None)

    def send(self, base, authorization):
        headers = dict(self.headers)
        if authorization is not None:
            headers["Authorization"] = authorization
        return SESSION.request(self.method, base + self.path, data=self.data, headers=headers, timeout=30)


def recipe(op, world):
    default = Recipe({} if op.method in ("POST", "PUT", "PATCH") else None)
    return RECIPES[op.operation_id](world) if op.operation_id in RECIPES else default


def call(op, world, how=None):
    how = how or recipe(op, world)
    headers = dict(how.headers)
    data = None
    if how.body is not None:
        data = json.dumps(how.body)
        headers.setdefault("Content-Type", "application/json")
    return Call(op.method, op.url(world), headers, data)


def bearer(key):
    return f"Bearer {key}"


def forged(key, prefix):
    """A key with a real key's listed prefix, the rest random characters of the same alphabet, as long as the real one."""
    assert key.startswith(prefix)
    return prefix + random_chars(len(key) - len(prefix))


# --- MCP: raw JSON-RPC and tool arguments -------------------------------------------------------

class Mcp:
    """Raw JSON-RPC over POST /mcp with one key: initialized once (sending back a session id if one is issued)."""

    def __init__(self, base, key):
        self.base, self.key, self.session_id, self.ids = base, key, None, 0
        r = self.post("initialize", {"protocolVersion": MCP_VERSION, "capabilities": {},
                                     "clientInfo": {"name": "authorization-matrix", "version": "1"}})
        assert r.status_code == 200 and r.json()["result"]["protocolVersion"] == MCP_VERSION, r.text
        self.session_id = r.headers.get("Mcp-Session-Id")
        assert self.post("notifications/initialized", notification=True).status_code == 202

    def post(self, method, params=None, notification=False):
        message = {"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})}
        if not notification:
            self.ids += 1
            message["id"] = self.ids
        headers = {"Content-Type": "application/json", "Authorization": bearer(self.key), **MCP_HEADERS}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return SESSION.post(self.base + "/mcp", data=json.dumps(message), headers=headers, timeout=30)

    def tools(self):
        r = self.post("tools/list", {})
        assert r.status_code == 200, r.text
        return r.json()["result"]["tools"]

    def call(self, name, arguments):
        """(the tool result, or the JSON-RPC error, as text; its parsed form)."""
        r = self.post("tools/call", {"name": name, "arguments": arguments})
        assert r.status_code == 200, f"tools/call {name}: {r.status_code} {r.text}"
        message = r.json()
        answer = message.get("result", message.get("error"))
        return json.dumps(answer, sort_keys=True), answer


# tool → Recipe of its other required arguments (the id arguments are filled from MCP_ID_ARGS).
TOOL_RECIPES = {
    "update_paywall_draft": lambda w: Recipe({"revision": w.draft()[1], "mergePatch": {"name": f"{w.marker} renamed"}}),
    "localize_paywall": lambda w: Recipe({"locale": "fr"}),
    "set_placement_rules": lambda w: Recipe(rules_body(w, w.paywalls[1])),
    "create_experiment": lambda w: Recipe(experiment_body(w)),
    "stop_experiment": lambda w: Recipe(prepare=World.start_experiment),
    "rollback_paywall": lambda w: Recipe({"version": 1}),
    "rename_paywall": lambda w: Recipe({"name": f"{w.marker} renamed"}),
    "patch_paywall_draft": lambda w: Recipe({"revision": w.draft()[1],
                                             "patch": [{"op": "replace", "path": "/name", "value": f"{w.marker} patched"}]}),
    "set_paywall_texts": lambda w: Recipe({"revision": w.draft()[1], "locale": "fr", "texts": {w.text_path: f"Bonjour {w.marker}"}}),
    "set_experiment_weights": lambda w: Recipe({"weights": [30, 70]}),
    "promote_experiment": lambda w: Recipe({"variant": "control"}, prepare=World.start_experiment),
}


def names_an_id(schema):
    """Whether an input schema has an id argument at any depth."""
    if isinstance(schema, dict):
        if any(name in MCP_ID_ARGS for name in schema.get("properties", {})):
            return True
        return any(names_an_id(value) for value in schema.values())
    if isinstance(schema, list):
        return any(names_an_id(value) for value in schema)
    return False


def tool_call(tool, world):
    """(arguments on `world`'s ids, Recipe, problems: required arguments the matrix cannot fill)."""
    schema = tool["inputSchema"]
    how = TOOL_RECIPES[tool["name"]](world) if tool["name"] in TOOL_RECIPES else Recipe({})
    arguments = {name: world.entity(MCP_ID_ARGS[name]) for name in schema.get("properties", {}) if name in MCP_ID_ARGS}
    arguments.update(how.body or {})
    problems = []
    for name in schema.get("required", []):
        if name in arguments:
            continue
        if name.endswith("Id") or name.lower().endswith("key"):
            problems.append(f"tool {tool['name']}: required id argument {name!r}: teach the matrix which entity it names (MCP_ID_ARGS)")
        else:
            problems.append(f"tool {tool['name']}: required argument {name!r}: teach the matrix a valid value (TOOL_RECIPES)")
    return arguments, how, problems


def is_read_only(tool):
    return (tool.get("annotations") or {}).get("readOnlyHint") is True


# --- fixtures ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def live(module_server):
    return module_server


@pytest.fixture(scope="module")
def operations(live):
    return load_operations(ok(SESSION.get(live.base + "/openapi.json"), 200))


@pytest.fixture(scope="module")
def covered(operations):
    """The operations the matrix understands (the rest fail test_the_route_table_is_understood), but a person's
    own routes, which take no key at all (test_teams.py)."""
    return [op for op in operations if not op.problems and op.auth != "session"]


@pytest.fixture(scope="module")
def world_a(live):
    return World(live, "A")


@pytest.fixture(scope="module")
def world_b(live):
    return World(live, "B")


@pytest.fixture(scope="module")
def archived(live):
    """A world whose app is archived (building it used both its keys, so the server has seen them)."""
    world = World(live, "archived")
    ok(SESSION.delete(f"{live.base}/v1/apps/{world.id}", headers={"Authorization": bearer(ADMIN_TOKEN)}), 204)
    return world


@pytest.fixture(scope="module")
def mcp_tools(live, world_a):
    tools = Mcp(live.base, world_a.app.secret_key).tools()
    assert tools, "tools/list answers no tools"
    return tools


@pytest.fixture(scope="module")
def id_tools(mcp_tools):
    return [t for t in mcp_tools if names_an_id(t["inputSchema"])]


# --- the checks ----------------------------------------------------------------------------------

def refused(response, status, code):
    """None when `response` is the problem `status`/`code`, else what it is."""
    if response.status_code == status and problem_code(response) == code \
            and response.headers.get("Content-Type") == "application/problem+json":
        return None
    return f"got {response.status_code} {problem_code(response)}, expected {status} {code}"


def not_refused(response):
    # A store's notification proves itself by its body (Apple's signature, RevenueCat's configured
    # Authorization): its 401 refuses the proof, not a missing key (docs/revenue.md, "Refusals").
    if response.status_code == 401 and problem_code(response) == "notification_refused":
        return None
    if response.status_code in (401, 403):
        return f"got {response.status_code} {problem_code(response)}, expected no 401/403 (the route is open)"
    return None


def check_credentials(live, world, ops, cases, failures):
    """Calls every op with each (case name, Authorization value, expected problem for a secured op)."""
    for op in ops:
        c = call(op, world)
        for case, authorization, status, code in cases:
            r = c.send(live.base, authorization)
            wrong = refused(r, status, code) if op.auth else not_refused(r)
            if wrong:
                failures.append(f"{op} {case}: {wrong}")


def says_not_found(status, body):
    """A problem saying a named thing does not exist: 404 `…not_found`, or 422 whose every error is `unknown_…`."""
    body = body if isinstance(body, dict) else {}
    if status == 404:
        return (body.get("code") or "").endswith("not_found")
    errors = body.get("errors") or []
    return status == 422 and bool(errors) and all(e.get("code", "").startswith("unknown_") for e in errors)


def json_or_text(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def ids_in(text, world):
    return [i for i in world.owned_ids if i in text]


def naming_variants(own_text, a, b):
    """(case, replacements): B's own request with one of B's ids replaced by A's counterpart, for each id it names."""
    counterpart = dict(zip(b.owned_ids, a.owned_ids))
    return [(f"in its own request naming this app's {b.name_of(i)}", {i: counterpart[i]}) for i in ids_in(own_text, b)]


def check_cross_app(live, op, case, c, authorization, a, always):
    """Failures of one call with B's key naming A's ids, compared with the same call naming ids that exist nowhere.

    Unless `always`, a call whose control is not refused is skipped: the id is then not something the
    server looks up (a name B may create, an event's placement), and A's id would only become B's data."""
    fakes = {i: fake_like(i) for i in ids_in(c.text, a)}
    control = c.substituted(fakes).send(live.base, authorization)
    if not always and control.status_code < 400:
        return []
    r = c.send(live.base, authorization)
    where, got, body = f"{op} with another app's key {case}", f"got {r.status_code} {problem_code(r)}", json_or_text(r.text)
    failures = []
    if set(fakes) & op.must_exist(c.path):
        if r.status_code != 404 or r.headers.get("Content-Type") != "application/problem+json" or not says_not_found(404, body):
            failures.append(f"{where}: {got}, expected 404 …_not_found")
    elif r.status_code >= 400 and not says_not_found(r.status_code, body):
        failures.append(f"{where}: {got} {r.text[:200]}, expected a problem saying not found")
    expected = unfaked(control.text, fakes)
    if (r.status_code, body) != (control.status_code, json_or_text(expected)):
        failures.append(f"{where}: {got} {r.text[:300]}, but for ids that exist nowhere {control.status_code} {expected[:300]}")
    shown = leaks(a, r.text + json.dumps(dict(r.headers)), c.text)
    if shown:
        failures.append(f"{where}: {got}, and the answer shows this app's {', '.join(shown)}")
    return failures


def list_failures(live, a, b, covered, mcp_list_tools=()):
    """B's lists (GETs of its key's kind without path parameters, and read-only MCP tools without arguments) show nothing of A."""
    failures = []
    for op in covered:
        if op.method != "GET" or op.parameters or op.auth not in ("secret", "public"):
            continue
        r = call(op, b).send(live.base, bearer(b.key(op.auth)))
        if not 200 <= r.status_code < 300:
            failures.append(f"{op} with another app's key: got {r.status_code} {problem_code(r)}, expected 2xx")
        shown = leaks(a, r.text, "")
        if shown:
            failures.append(f"{op} with another app's key: the answer shows this app's {', '.join(shown)}")
    if mcp_list_tools:
        other = Mcp(live.base, b.app.secret_key)
        for tool in mcp_list_tools:
            text, _ = other.call(tool["name"], {})
            shown = leaks(a, text, "")
            if shown:
                failures.append(f"tool {tool['name']} with another app's key: the answer shows this app's {', '.join(shown)}")
    return failures


def check_tool_cross_app(mcp, tool, case, arguments, a, always):
    """Failures of one tool call with B's key naming A's ids, compared with the same call naming ids that exist nowhere
    (skipped unless `always` when that control is not an error, as for REST calls)."""
    request = json.dumps(arguments)
    fakes = {i: fake_like(i) for i in ids_in(request, a)}
    control, control_answer = mcp.call(tool["name"], json.loads(swap(request, fakes)))
    if not always and not (isinstance(control_answer, dict) and control_answer.get("isError")):
        return []
    text, answer = mcp.call(tool["name"], arguments)
    where, failures = f"tool {tool['name']} with another app's key {case}", []
    error = ((answer if isinstance(answer, dict) else {}).get("structuredContent") or {}).get("error") or {}
    if not (isinstance(answer, dict) and answer.get("isError") is True and says_not_found(error.get("status"), error)):
        failures.append(f"{where}: {text[:300]}, expected isError saying not found")
    elif json.loads(answer["content"][0]["text"]) != answer["structuredContent"]:
        failures.append(f"{where}: content and structuredContent differ: {text[:300]}")
    if text != unfaked(control, fakes):
        failures.append(f"{where}: {text[:300]}, but for ids that exist nowhere {unfaked(control, fakes)[:300]}")
    shown = leaks(a, text, request)
    if shown:
        failures.append(f"{where}: the answer shows this app's {', '.join(shown)}")
    return failures


# --- the tests -----------------------------------------------------------------------------------

def test_the_route_table_is_understood(operations):
    assert operations, "GET /openapi.json declares no operations"
    problems = [f"{op}: {p}" for op in operations for p in op.problems]
    known = {op.operation_id for op in operations}
    problems += [f"RECIPES has {name!r}, which the route table no longer declares" for name in RECIPES if name not in known]
    problems += [f"{op} is open (no security): only {sorted(OPEN_OPERATIONS)} may be; declare its key, or add it to "
                 f"OPEN_OPERATIONS on purpose" for op in operations if op.auth is None and op.operation_id not in OPEN_OPERATIONS]
    assert not problems, "\n".join(problems)


def test_without_a_key(live, world_a, covered):
    failures = []
    check_credentials(live, world_a, covered, [("no key", None, 401, "missing_api_key")], failures)
    assert not failures, "\n".join(failures)


def test_a_malformed_authorization(live, world_a, covered):
    cases = [(f"malformed {value!r}", value, 401, "invalid_authorization") for value in ("Basic abc", "Bearer", "Bearer   ")]
    failures = []
    check_credentials(live, world_a, covered, cases, failures)
    assert not failures, "\n".join(failures)


def test_forged_keys_are_rejected(live, world_a, covered):
    listed = {k["kind"]: k["prefix"] for k in world_a.keys if k["revokedAt"] is None and k["id"] != world_a.spare_key}
    assert listed["secret"] == world_a.app.secret_key[:12] and listed["public"] == world_a.app.public_key[:12], listed
    prefixes = {"admin": ADMIN_TOKEN[:12], **listed}
    cases = [(f"forged {kind} key", bearer(forged(world_a.key(kind), prefixes[kind])), 401, "invalid_api_key") for kind in KINDS]
    failures = []
    check_credentials(live, world_a, covered, cases, failures)
    assert not failures, "\n".join(failures)


def test_revoked_keys_and_an_archived_apps_keys(live, world_a, archived, covered):
    cases = [("revoked secret key", bearer(world_a.revoked_secret), 401, "invalid_api_key"),
             ("revoked public key", bearer(world_a.revoked_public), 401, "invalid_api_key"),
             ("archived app's secret key", bearer(archived.app.secret_key), 401, "invalid_api_key"),
             ("archived app's public key", bearer(archived.app.public_key), 401, "invalid_api_key")]
    failures = []
    check_credentials(live, world_a, covered, cases, failures)
    assert not failures, "\n".join(failures)
    # The answer says why (issue 20, item 11): a revoked key is "unknown or revoked", an archived app's key says so.
    revoked = SESSION.get(live.base + "/v1/paywalls", headers={"Authorization": bearer(world_a.revoked_secret)}, timeout=30).json()
    archived_answer = SESSION.get(live.base + "/v1/paywalls", headers={"Authorization": bearer(archived.app.secret_key)}, timeout=30).json()
    assert revoked["detail"] == "The API key is unknown or revoked."
    assert "archived app" in archived_answer["detail"] and archived_answer["code"] == "invalid_api_key"


def test_a_key_of_the_wrong_kind(live, world_a, covered):
    failures = []
    for op in covered:
        c = call(op, world_a)
        for kind in KINDS:
            if kind == op.auth:
                continue
            r = c.send(live.base, bearer(world_a.key(kind)))
            wrong = refused(r, 403, WRONG_KIND_CODE[op.auth]) if op.auth else not_refused(r)
            if wrong:
                failures.append(f"{op} with the {kind} key: {wrong}")
    assert not failures, "\n".join(failures)


def test_the_right_key(live, world_a, covered):
    """GETs on A's world; writes on a throwaway world each, so they disturb nothing."""
    failures = []
    for op in covered:
        world = world_a if op.method == "GET" else World(live, "throwaway")
        how = recipe(op, world)
        if how.prepare and world is not world_a:
            how.prepare(world)
        r = call(op, world, how).send(live.base, bearer(world.key(op.auth)) if op.auth else None)
        checked = op.method == "GET" or op.operation_id in RECIPES
        if op.operation_id in UNCONFIGURED:
            wrong = refused(r, *UNCONFIGURED[op.operation_id])
            if wrong:
                failures.append(f"{op} on a server without its settings: {wrong}")
        elif checked and not 200 <= r.status_code < 300:
            failures.append(f"{op} with its own key: got {r.status_code} {problem_code(r)} {r.text[:200]}, expected 2xx")
        elif not checked and r.status_code in (401, 403) and not_refused(r):
            failures.append(f"{op} with its own key: got {r.status_code} {problem_code(r)}, expected no 401/403")
    assert not failures, "\n".join(failures)


def test_another_apps_key_on_this_apps_ids(live, world_a, world_b, covered):
    """B's key of the operation's kind, on A's ids (path and body), then on B's own request naming one A id at a time."""
    before = world_a.state()
    failures = []
    for op in covered:
        # Only app keys have an "other app". The admin token is global: DELETE /v1/apps/{appId} has no other
        # app's token to try (its 401/403 cases are above); open routes have no app at all.
        if op.auth not in ("secret", "public"):
            continue
        authorization = bearer(world_b.key(op.auth))
        plain = call(op, world_a)
        # A PUT naming no A id but what it creates (an audience id, a subscriber id) would create B's own, with A's
        # recipe body: left out, as B's own request naming that id is below (and skipped when its control is not refused).
        if set(ids_in(plain.text, world_a)) - op.creates(plain.path):
            failures += check_cross_app(live, op, "on this app's ids", plain, authorization, world_a, always=True)
        own = call(op, world_b)
        for case, replacements in naming_variants(own.text, world_a, world_b):
            failures += check_cross_app(live, op, case, call(op, world_b).substituted(replacements), authorization,
                                        world_a, always=False)
    failures += [f"this app's state changed after another app's calls: {change}" for change in state_changes(before, world_a.state())]
    failures += list_failures(live, world_a, world_b, covered)
    assert not failures, "\n".join(failures)


def test_another_apps_lists_show_nothing_of_this_app(live, world_a, world_b, covered, mcp_tools):
    list_tools = [t for t in mcp_tools if is_read_only(t) and not t["inputSchema"].get("required")]
    assert list_tools, "tools/list has no read-only tool without arguments (list_paywalls, …)"
    failures = list_failures(live, world_a, world_b, covered, list_tools)
    assert not failures, "\n".join(failures)


# --- MCP tools ------------------------------------------------------------------------------------

def test_mcp_tools_with_an_id_work_for_their_own_app(live, world_a, mcp_tools, id_tools):
    """Proves each tool's arguments valid: read-only tools on A's world, the others on a throwaway world each."""
    listed = {t["name"] for t in mcp_tools}
    failures = [f"TOOL_RECIPES has {name!r}, which tools/list no longer answers" for name in TOOL_RECIPES if name not in listed]
    for tool in id_tools:
        world = world_a if is_read_only(tool) else World(live, "throwaway")
        arguments, how, problems = tool_call(tool, world)
        failures += problems
        if problems:
            continue
        if how.prepare and world is not world_a:
            how.prepare(world)
        text, answer = Mcp(live.base, world.app.secret_key).call(tool["name"], arguments)
        if not isinstance(answer, dict) or answer.get("isError") is not False:
            failures.append(f"tool {tool['name']} with its own app's key: {text[:300]}, expected a result without isError")
    assert not failures, "\n".join(failures)


def test_mcp_tools_with_an_id_answer_not_found_to_another_app(live, world_a, world_b, covered, id_tools):
    """B's secret key on A's ids, then B's own arguments naming one A id at a time; A unchanged, B's lists clean."""
    before = world_a.state()
    other = Mcp(live.base, world_b.app.secret_key)
    failures = []
    for tool in id_tools:
        arguments, _, problems = tool_call(tool, world_a)
        failures += problems
        if problems:
            continue
        failures += check_tool_cross_app(other, tool, "on this app's ids", arguments, world_a, always=True)
        own = json.dumps(tool_call(tool, world_b)[0])
        for case, replacements in naming_variants(own, world_a, world_b):
            failures += check_tool_cross_app(other, tool, case, json.loads(swap(own, replacements)), world_a, always=False)
    failures += [f"this app's state changed after another app's tool calls: {change}" for change in state_changes(before, world_a.state())]
    failures += list_failures(live, world_a, world_b, covered)
    assert not failures, "\n".join(failures)
