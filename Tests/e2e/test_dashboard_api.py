"""The dashboard API over real sockets: apps and keys, paywalls, drafts, publishing, placements."""
import concurrent.futures
import json
import threading

import pytest

from xizor_server import ADMIN_TOKEN, App, Client, create_app


def problem(r, status, code):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"] == "application/problem+json"
    body = r.json()
    assert body["status"] == status and body["code"] == code, body
    return body


# --- auth matrix -----------------------------------------------------------------------------

def test_creating_an_app_needs_the_admin_token(server):
    anonymous = Client(server.base)
    problem(anonymous.post("/v1/apps", {"name": "x"}), 401, "missing_api_key")
    problem(Client(server.base, "xa_wrong").post("/v1/apps", {"name": "x"}), 401, "invalid_api_key")
    created = create_app(server.base)
    assert created["secretKey"].startswith("sk_") and created["publicKey"].startswith("pk_")
    assert len(created["secretKey"]) >= 3 + 22  # ≥ 128 bits of base-62
    problem(Client(server.base, created["secretKey"]).post("/v1/apps", {"name": "y"}), 403, "admin_token_required")


def test_key_kinds_other_apps_and_revocation(app, server):
    pw = app.create_paywall()
    problem(app.sdk.get("/v1/paywalls"), 403, "secret_key_required")
    problem(app.dashboard.get("/v1/paywalls", key=None), 401, "missing_api_key")
    problem(app.dashboard.get("/v1/paywalls", headers={"Authorization": "Basic abc"}, key=None), 401, "invalid_authorization")
    other = App(server, create_app(server.base, "Other"))
    # Another app's ids answer 404, never 403.
    problem(other.dashboard.get(f"/v1/paywalls/{pw}"), 404, "paywall_not_found")
    problem(other.dashboard.post(f"/v1/paywalls/{pw}/publish"), 404, "paywall_not_found")
    # A new key works, a revoked one stops at once; listings show prefixes only.
    r = app.dashboard.post("/v1/keys", {"kind": "secret"})
    assert r.status_code == 201, r.text
    new_key = r.json()["key"]
    assert Client(server.base, new_key).get(f"/v1/paywalls/{pw}").status_code == 200
    keys = app.dashboard.get("/v1/keys").json()["keys"]
    assert all("key" not in k and len(k["prefix"]) == 12 for k in keys)
    assert {k["kind"] for k in keys} == {"secret", "public"}
    assert app.dashboard.delete(f"/v1/keys/{r.json()['id']}").status_code == 204
    problem(Client(server.base, new_key).get(f"/v1/paywalls/{pw}"), 401, "invalid_api_key")
    problem(other.dashboard.delete(f"/v1/keys/{r.json()['id']}"), 404, "key_not_found")


# --- paywalls --------------------------------------------------------------------------------

def test_create_blank_template_and_document(app):
    blank = app.dashboard.post("/v1/paywalls", {"name": "Blank one"})
    assert blank.status_code == 201 and blank.json()["name"] == "Blank one"
    assert blank.headers["Location"] == f"/v1/paywalls/{blank.json()['id']}"
    draft, _ = app.draft(blank.json()["id"])
    assert draft["document"]["id"] == blank.json()["id"]
    from_template = app.create_paywall("cinematic")
    template_doc = app.dashboard.get("/v1/templates/cinematic").json()["document"]
    doc = dict(template_doc, name="From a document")
    from_document = app.dashboard.post("/v1/paywalls", {"document": doc})
    assert from_document.status_code == 201 and from_document.json()["name"] == "From a document"
    assert app.draft(from_template)[0]["validation"]["ok"] is True
    problem(app.dashboard.post("/v1/paywalls", {"template": "nope"}), 422, "validation_failed")
    problem(app.dashboard.post("/v1/paywalls", {"template": "clean", "document": {}}), 422, "validation_failed")
    problem(app.dashboard.post("/v1/paywalls", data="{not json"), 400, "invalid_json")
    r = app.dashboard.request("POST", "/v1/paywalls", data="{}", headers={"Content-Type": "text/plain"})
    problem(r, 415, "unsupported_media_type")


def test_list_paginates_with_a_cursor_and_hides_archived(app):
    ids = [app.dashboard.post("/v1/paywalls", {"name": f"p{i}"}).json()["id"] for i in range(5)]
    seen, cursor = [], None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = app.dashboard.get("/v1/paywalls", params=params).json()
        seen += [p["id"] for p in page["items"]]
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert seen == ids
    archived = app.dashboard.delete(f"/v1/paywalls/{ids[0]}").json()
    assert archived["archived"] is True
    assert ids[0] not in [p["id"] for p in app.dashboard.get("/v1/paywalls").json()["items"]]
    problem(app.dashboard.get("/v1/paywalls", params={"limit": 0}), 400, "invalid_limit")
    problem(app.dashboard.get("/v1/paywalls", params={"cursor": "garbage"}), 400, "invalid_cursor")


def test_archived_paywall_cannot_be_published_but_keeps_serving(app):
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)
    archived = app.dashboard.delete(f"/v1/paywalls/{pw}").json()
    assert archived["placements"] == ["onboarding"] and "keep serving" in archived["warning"]
    problem(app.dashboard.post(f"/v1/paywalls/{pw}/publish"), 409, "paywall_archived")
    resolved = app.dashboard.get("/v1/placements/onboarding/resolve").json()
    assert resolved["paywallId"] == pw and resolved["paywallArchived"] is True
    problem(app.dashboard.put("/v1/placements/upsell", {"paywallId": pw}), 422, "validation_failed")


def test_an_archived_paywall_is_listed_apart_and_unarchived(app):
    pw = app.create_paywall()
    app.publish(pw)
    app.assign("onboarding", pw)
    live = app.create_paywall()
    assert app.dashboard.delete(f"/v1/paywalls/{pw}").status_code == 200
    archived = app.dashboard.get("/v1/paywalls", params={"archived": "true"}).json()
    assert [p["id"] for p in archived["items"]] == [pw] and archived["items"][0]["archived"] is True
    assert archived["items"][0]["placements"] == ["onboarding"], "the placements that still serve it"
    assert [p["id"] for p in app.dashboard.get("/v1/paywalls", params={"archived": "false"}).json()["items"]] == [live]
    problem(app.dashboard.get("/v1/paywalls", params={"archived": "yes"}), 400, "invalid_archived")

    restored = app.dashboard.post(f"/v1/paywalls/{pw}/unarchive")
    assert restored.status_code == 200, restored.text
    assert restored.json()["archived"] is False and restored.json()["archivedAt"] is None
    assert [p["id"] for p in app.dashboard.get("/v1/paywalls").json()["items"]] == [pw, live]
    assert app.dashboard.get("/v1/paywalls", params={"archived": "true"}).json()["items"] == []
    # Live again in every way: published, targeted, not flagged by the resolver.
    assert app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True}).status_code == 201
    assert app.dashboard.put("/v1/placements/upsell", {"paywallId": pw}).status_code == 200
    assert app.dashboard.get("/v1/placements/onboarding/resolve").json()["paywallArchived"] is False
    assert app.sdk.get("/v1/sdk/placements/onboarding/paywall").json()["version"] == 2
    # Unarchiving a live paywall changes nothing; another app's or an unknown id is a 404.
    before = app.dashboard.get(f"/v1/paywalls/{pw}").json()
    again = app.dashboard.post(f"/v1/paywalls/{pw}/unarchive")
    assert again.status_code == 200 and again.json() == before
    problem(app.dashboard.post("/v1/paywalls/pw_unknown/unarchive"), 404, "paywall_not_found")


# --- drafts ----------------------------------------------------------------------------------

def test_draft_needs_if_match_and_answers_validation(app):
    pw = app.create_paywall()
    draft, etag = app.draft(pw)
    assert etag in ('"r1"', '"r1-gzip"')  # the gzip representation has its own strong tag
    problem(app.dashboard.put(f"/v1/paywalls/{pw}/draft", draft["document"]), 428, "if_match_required")
    broken = dict(draft["document"], defaultLocale="fr")
    r = app.save_draft(pw, broken, etag)
    assert r.status_code == 200 and r.headers["ETag"] in ('"r2"', '"r2-gzip"')
    assert r.json()["validation"]["ok"] is False
    assert any(e["path"] == "$.defaultLocale" for e in r.json()["validation"]["errors"])
    problem(app.save_draft(pw, draft["document"], etag), 412, "draft_revision_mismatch")
    problem(app.save_draft(pw, draft["document"], 'W/"r2"'), 412, "draft_revision_mismatch")
    problem(app.save_draft(pw, [1, 2], '"r2"'), 422, "validation_failed")
    assert app.save_draft(pw, draft["document"], "*").status_code == 200


def test_the_draft_round_trip_stores_the_document_not_its_envelope(app):
    """Saving what GET …/draft answered (envelope and all) and sending it back stores its document;
    /v1/validate reads the same envelope (issue 20, item 2)."""
    pw = app.create_paywall()
    r = app.dashboard.get(f"/v1/paywalls/{pw}/draft")
    saved = r.json()
    saved["document"]["name"] = "Round trip"
    r = app.save_draft(pw, saved, r.headers["ETag"])
    assert r.status_code == 200 and r.json()["validation"]["ok"] is True, r.text
    stored = app.dashboard.get(f"/v1/paywalls/{pw}/draft").json()["document"]
    assert stored["name"] == "Round trip" and "document" not in stored and stored["schemaVersion"] == saved["document"]["schemaVersion"]
    assert app.dashboard.post("/v1/validate", saved).json()["ok"] is True
    # A document that merely has a "document" key among its own is not an envelope.
    odd = dict(saved["document"], document={"x": 1})
    r = app.save_draft(pw, odd, "*")
    assert r.status_code == 200 and r.json()["document"]["document"] == {"x": 1}


def test_two_racing_editors_exactly_one_wins(app):
    pw = app.create_paywall()
    draft, etag = app.draft(pw)
    barrier = threading.Barrier(8)

    def edit(i):
        barrier.wait()
        return app.save_draft(pw, dict(draft["document"], name=f"editor {i}"), etag).status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(edit, range(8)))
    assert sorted(statuses) == [200] + [412] * 7
    final, final_etag = app.draft(pw)
    assert final_etag in ('"r2"', '"r2-gzip"')


def test_texts_view_and_setting_a_new_locale(app):
    pw = app.create_paywall("clean")
    texts = app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts")
    assert texts.status_code == 200
    body = texts.json()
    assert body["texts"] and all(t["path"].startswith("$.") for t in body["texts"])
    assert "fr" not in body["locales"]
    first = body["texts"][0]["path"]
    r = app.dashboard.put(f"/v1/paywalls/{pw}/draft/texts/fr", {"texts": {first: "Bonjour"}}, headers={"If-Match": texts.headers["ETag"]})
    assert r.status_code == 200, r.text
    assert "fr" in r.json()["document"]["locales"]
    after = app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts").json()
    entry = next(t for t in after["texts"] if t["path"] == first)
    assert entry["values"]["fr"] == "Bonjour"
    problem(app.dashboard.put(f"/v1/paywalls/{pw}/draft/texts/fr", {"texts": {"$.nope": "x"}}, headers={"If-Match": r.headers["ETag"]}),
            422, "validation_failed")
    problem(app.dashboard.put(f"/v1/paywalls/{pw}/draft/texts/fr", {"texts": {first: "x"}}), 428, "if_match_required")
    problem(app.dashboard.put(f"/v1/paywalls/{pw}/draft/texts/not a tag", {"texts": {first: "x"}}, headers={"If-Match": "*"}),
            422, "validation_failed")


# --- publishing ------------------------------------------------------------------------------

def test_publish_validates_strictly_with_every_error(app):
    pw = app.create_paywall()
    draft, etag = app.draft(pw)
    doc = dict(draft["document"], defaultLocale="fr", schemaVersion=9)
    app.save_draft(pw, doc, etag)
    body = problem(app.dashboard.post(f"/v1/paywalls/{pw}/publish"), 422, "validation_failed")
    paths = {e["path"] for e in body["errors"]}
    assert "$.schemaVersion" in paths
    assert app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"] == []


# Schema version 1, so publishing migrates nothing down: only the strict validator can object.
STRICT_ONLY_INVALID = {
    "schemaVersion": 1, "id": "pw_strict", "name": "Strict", "locales": ["en", "de"], "defaultLocale": "en",
    "theme": {"colors": {"bg": "#FFFFFF"}},
    "products": [{"slot": "monthly", "storeProductId": "com.example.strict.monthly"}],
    "settings": {"dismissable": False, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
    "root": {"type": "stack", "direction": "vertical", "children": [
        {"type": "text", "text": {"en": "Only {{products.weekly.price}} a week", "de": "Hallo {{user.name}}"}},
        {"type": "purchase_button", "productSlot": "weekly", "label": {"en": "Buy", "de": "Kaufen"}},
        {"type": "footer_links", "privacyUrl": "https://example.com/privacy", "termsUrl": "https://example.com/terms"},
    ]},
}


def test_publish_refuses_a_draft_only_the_strict_validator_rejects(app):
    # Guards the strict validation in PaywallService.publish (`guard draft.validation.isValid`): a
    # v1 draft is not down-migrated, so without that guard the broken slot references would go live.
    r = app.dashboard.post("/v1/paywalls", {"document": STRICT_ONLY_INVALID})
    assert r.status_code == 201, r.text
    pw = r.json()["id"]
    expected = {("$.root.children[0].text.en", "broken_slot_reference"), ("$.root.children[0].text.de", "unknown_variable"),
                ("$.root.children[1].productSlot", "broken_slot_reference")}
    validation = app.draft(pw)[0]["validation"]
    assert validation["ok"] is False
    assert {(e["path"], e["code"]) for e in validation["errors"]} == expected
    body = problem(app.dashboard.post(f"/v1/paywalls/{pw}/publish"), 422, "validation_failed")
    assert {(e["path"], e["code"]) for e in body["errors"]} == expected
    assert "draft has 3 validation error" in body["detail"]      # the draft's own errors, not a served form's
    assert app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"] == []
    assert app.dashboard.get(f"/v1/paywalls/{pw}").json()["latestVersion"] is None
    app.assign("onboarding", pw)
    problem(app.sdk.get("/v1/sdk/placements/onboarding/paywall"), 404, "no_published_paywall")
    # The same draft, repaired, publishes (nothing else about it was in the way).
    fixed = json.loads(json.dumps(STRICT_ONLY_INVALID))
    fixed["products"].append({"slot": "weekly", "storeProductId": "com.example.strict.weekly"})
    fixed["root"]["children"][0]["text"]["de"] = "Hallo {{context.name}}"
    _, etag = app.draft(pw)
    assert app.save_draft(pw, fixed, etag).status_code == 200
    assert app.publish(pw)["version"] == 1
    assert app.sdk.get("/v1/sdk/placements/onboarding/paywall").json()["paywallId"] == pw


def test_versions_are_numbered_immutable_and_idempotent(app):
    pw = app.create_paywall()
    v1 = app.publish(pw, headers={"Idempotency-Key": "k-1"})
    # The same request again (app.publish sends {"force": true}); another body would be 422 (test_patch_limits.py).
    again = app.dashboard.post(f"/v1/paywalls/{pw}/publish", {"force": True}, headers={"Idempotency-Key": "k-1"})
    assert again.status_code == 201 and again.json()["version"] == v1["version"] == 1
    assert again.headers.get("Idempotent-Replayed") == "true"
    v2 = app.publish(pw)
    assert v2["version"] == 2 and v2["contentHash"] == v1["contentHash"]
    listed = app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]
    assert [v["version"] for v in listed] == [2, 1]
    one = app.dashboard.get(f"/v1/paywalls/{pw}/versions/1")
    assert one.status_code == 200 and one.json()["document"]["id"] == pw
    problem(app.dashboard.get(f"/v1/paywalls/{pw}/versions/9"), 404, "version_not_found")


def test_concurrent_publishes_with_one_key_make_one_version(app):
    pw = app.create_paywall()
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: app.dashboard.post(f"/v1/paywalls/{pw}/publish", headers={"Idempotency-Key": "same"}), range(6)))
    assert {r.status_code for r in results} == {201}
    assert {r.json()["version"] for r in results} == {1}
    assert len(app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]) == 1


def test_rollback_republishes_an_old_document(app):
    pw = app.create_paywall()
    app.publish(pw)
    draft, etag = app.draft(pw)
    app.save_draft(pw, dict(draft["document"], name="Second"), etag)
    app.publish(pw)
    r = app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": 1})
    assert r.status_code == 201, r.text
    assert r.json()["version"] == 3 and r.json()["rolledBackFrom"] == 1
    v1 = app.dashboard.get(f"/v1/paywalls/{pw}/versions/1").json()
    v3 = app.dashboard.get(f"/v1/paywalls/{pw}/versions/3").json()
    assert v3["contentHash"] == v1["contentHash"] and v3["document"] == v1["document"]
    problem(app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": 7}), 404, "version_not_found")
    problem(app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": "1"}), 422, "validation_failed")


# --- placements and rules --------------------------------------------------------------------

def test_placements_assign_reassign_and_delete(app):
    a, b = app.create_paywall(), app.create_paywall()
    app.publish(a)
    app.publish(b)
    app.assign("onboarding", a)
    assert app.dashboard.get("/v1/placements/onboarding/resolve").json()["paywallId"] == a
    app.assign("onboarding", b)
    assert app.dashboard.get("/v1/placements/onboarding/resolve").json()["paywallId"] == b
    assert [p["key"] for p in app.dashboard.get("/v1/placements").json()["items"]] == ["onboarding"]
    problem(app.dashboard.put("/v1/placements/onboarding", {"paywallId": "pw_nope"}), 422, "validation_failed")
    problem(app.dashboard.put("/v1/placements/bad key!", {"paywallId": a}), 422, "validation_failed")
    assert app.dashboard.delete("/v1/placements/onboarding").status_code == 204
    problem(app.dashboard.get("/v1/placements/onboarding"), 404, "placement_not_found")
    problem(app.dashboard.get("/v1/placements/onboarding/resolve"), 404, "placement_not_found")


def test_placement_without_published_paywall(app):
    pw = app.create_paywall()
    app.assign("upsell", pw)
    problem(app.dashboard.get("/v1/placements/upsell/resolve"), 404, "no_published_paywall")


def test_rules_are_validated_with_paths(app):
    pw = app.create_paywall()
    app.assign("onboarding", pw)
    body = problem(app.dashboard.put("/v1/placements/onboarding/rules", {"rules": [
        {"when": {"key": "x", "op": "matches", "value": 1}, "paywallId": pw},
        {"when": {"key": "x", "op": "in", "value": 3}, "paywallId": pw},
        {"when": {"all": [{"key": "x", "op": "exists", "value": 1}]}, "paywallId": "pw_missing"},
        {"when": {"key": "x", "op": "gt", "value": True}, "paywallId": pw, "extra": 1},
        # `between` is an operator since issue 19: it takes [low, high].
        {"when": {"key": "x", "op": "between", "value": 1}, "paywallId": pw},
    ]}), 422, "validation_failed")
    paths = {e["path"]: e["code"] for e in body["errors"]}
    assert paths["$.rules[0].when.op"] == "invalid_operator"
    assert paths["$.rules[1].when.value"] == "type_mismatch"
    assert paths["$.rules[2].when.all[0].value"] == "unexpected_value"
    assert paths["$.rules[2].paywallId"] == "unknown_paywall"
    assert paths["$.rules[3].when.value"] == "type_mismatch"
    assert paths["$.rules[3].extra"] == "unknown_property"
    assert paths["$.rules[4].when.value"] == "type_mismatch"
    problem(app.dashboard.put("/v1/placements/none/rules", {"rules": []}), 404, "placement_not_found")


RESOLUTION_TABLE = [
    # (query context, expected target)
    ({}, "default"),
    ({"context.wasReferred": "true"}, "referred"),
    ({"context.wasReferred": "false"}, "default"),
    ({"context.wasReferred": "yes"}, "default"),           # a string never equals a boolean
    ({"context.tier": "free", "context.sessions": "3"}, "default"),
    ({"context.tier": "free", "context.sessions": "5"}, "engaged_free"),
    ({"context.tier": "free", "context.sessions": "5.5"}, "engaged_free"),
    ({"context.tier": "plus", "context.sessions": "50"}, "default"),
    ({"context.country": "DE"}, "dach"),
    ({"context.country": "CH"}, "dach"),
    ({"context.country": "FR"}, "default"),
    ({"context.offerStage": "exit50"}, "exit"),           # exists
    ({"context.offerStage": "exit50", "context.wasReferred": "true"}, "referred"),  # first match wins
    ({"context.trial": "false"}, "no_trial"),            # not + eq
    ({"context.trial": "true"}, "default"),
]


def test_rule_resolution_table(app):
    targets = {}
    for name in ["default", "referred", "engaged_free", "dach", "exit", "no_trial", "unpublished"]:
        targets[name] = app.create_paywall()
        if name != "unpublished":
            app.publish(targets[name])
    app.assign("onboarding", targets["default"])
    rules = [
        {"when": {"key": "anything", "op": "exists"}, "paywallId": targets["unpublished"]},  # skipped: no version
        {"when": {"key": "wasReferred", "op": "eq", "value": True}, "paywallId": targets["referred"]},
        {"when": {"all": [{"key": "tier", "op": "eq", "value": "free"}, {"key": "sessions", "op": "gte", "value": 5}]},
         "paywallId": targets["engaged_free"]},
        {"when": {"key": "country", "op": "in", "value": ["DE", "AT", "CH"]}, "paywallId": targets["dach"]},
        {"when": {"key": "offerStage", "op": "exists"}, "paywallId": targets["exit"]},
        {"when": {"all": [{"key": "trial", "op": "exists"}, {"not": {"key": "trial", "op": "eq", "value": True}}]},
         "paywallId": targets["no_trial"]},
    ]
    r = app.dashboard.put("/v1/placements/onboarding/rules", {"rules": rules})
    assert r.status_code == 200, r.text
    assert len(r.json()["rules"]) == len(rules)
    names = {v: k for k, v in targets.items()}
    for query, expected in RESOLUTION_TABLE:
        got = app.dashboard.get("/v1/placements/onboarding/resolve", params=query).json()
        assert names[got["paywallId"]] == expected, (query, got)


def test_scheduled_rules_apply_only_inside_their_window(app):
    default, campaign = app.create_paywall(), app.create_paywall()
    app.publish(default)
    app.publish(campaign)
    app.assign("onboarding", default)
    always = {"key": "x", "op": "exists"}
    past = [{"when": always, "paywallId": campaign, "activeFrom": 1_000, "activeUntil": 2_000}]
    assert app.dashboard.put("/v1/placements/onboarding/rules", {"rules": past}).status_code == 200
    assert app.dashboard.get("/v1/placements/onboarding/resolve", params={"context.x": "1"}).json()["paywallId"] == default
    current = [{"when": always, "paywallId": campaign, "activeFrom": 1_000, "activeUntil": 4_102_444_800_000}]
    assert app.dashboard.put("/v1/placements/onboarding/rules", {"rules": current}).status_code == 200
    assert app.dashboard.get("/v1/placements/onboarding/resolve", params={"context.x": "1"}).json()["paywallId"] == campaign
    bad = [{"when": always, "paywallId": campaign, "activeFrom": 5, "activeUntil": 5}]
    problem(app.dashboard.put("/v1/placements/onboarding/rules", {"rules": bad}), 422, "validation_failed")


def test_validate_endpoint_never_stores(app):
    doc = app.dashboard.get("/v1/templates/clean").json()["document"]
    ok = app.dashboard.post("/v1/validate", doc).json()
    assert ok["ok"] is True and ok["warnings"] == []
    bad = app.dashboard.post("/v1/validate", {"document": dict(doc, locales=[])}).json()
    assert bad["ok"] is False and bad["errors"]
    assert app.dashboard.get("/v1/paywalls").json()["items"] == []
    names = [t["name"] for t in app.dashboard.get("/v1/templates").json()["templates"]]
    assert names == ["cinematic", "clean", "lottie_delight"]
    problem(app.dashboard.get("/v1/templates/nope"), 404, "template_not_found")


# --- CORS ------------------------------------------------------------------------------------

def test_cors_for_configured_dashboard_origins(tmp_path):
    from xizor_server import XizorServer
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_CORS_ALLOWED_ORIGINS": "https://dash.example, https://other.example"})
    try:
        app = App(s, create_app(s.base))
        pw = app.create_paywall()
        preflight = app.dashboard.request("OPTIONS", f"/v1/paywalls/{pw}/draft", key=None, headers={
            "Origin": "https://dash.example", "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "authorization, if-match, content-type"})
        assert preflight.status_code == 204
        assert preflight.headers["Access-Control-Allow-Origin"] == "https://dash.example"
        assert "PUT" in preflight.headers["Access-Control-Allow-Methods"]
        assert "If-Match" in preflight.headers["Access-Control-Allow-Headers"]
        assert "Access-Control-Allow-Credentials" not in preflight.headers
        r = app.dashboard.get(f"/v1/paywalls/{pw}/draft", headers={"Origin": "https://dash.example"})
        assert r.headers["Access-Control-Allow-Origin"] == "https://dash.example"
        assert "ETag" in r.headers["Access-Control-Expose-Headers"]
        foreign = app.dashboard.get(f"/v1/paywalls/{pw}/draft", headers={"Origin": "https://evil.example"})
        assert foreign.status_code == 200 and "Access-Control-Allow-Origin" not in foreign.headers
        denied = app.dashboard.request("OPTIONS", f"/v1/paywalls/{pw}/draft", key=None, headers={
            "Origin": "https://evil.example", "Access-Control-Request-Method": "PUT"})
        assert "Access-Control-Allow-Origin" not in denied.headers
        # An answer with its own Vary (the SDK's cached representation) keeps it and gains Origin.
        app.publish(pw)
        app.assign("onboarding", pw)
        sdk = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Origin": "https://dash.example"})
        assert sdk.status_code == 200
        vary = [v.strip().lower() for v in sdk.headers["Vary"].split(",")]
        assert {"accept", "accept-language", "origin", "accept-encoding"} <= set(vary) and len(vary) == len(set(vary))
    finally:
        assert s.stop() == 0


def test_the_admin_lists_apps_a_page_at_a_time_and_the_cli_too(server):
    """GET /v1/apps (admin token) and `xizor apps list` (issue 20, item 11): every app, archived ones
    flagged, in creation order; never a key."""
    admin = Client(server.base, ADMIN_TOKEN)
    created = [create_app(server.base, f"Listed {i}") for i in range(5)]
    assert admin.delete(f"/v1/apps/{created[1]['appId']}").status_code == 204
    seen, cursor = [], None
    while True:
        page = admin.get("/v1/apps", params={"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
        assert len(page["apps"]) <= 2
        seen += page["apps"]
        cursor = page["nextCursor"]
        if not cursor:
            break
    ours = [a for a in seen if a["id"] in {c["appId"] for c in created}]
    assert [a["name"] for a in ours] == [f"Listed {i}" for i in range(5)]
    assert [a["archived"] for a in ours] == [False, True, False, False, False]
    assert "secretKey" not in str(seen) and "publicKey" not in str(seen)
    assert Client(server.base, created[0]["secretKey"]).get("/v1/apps").status_code == 403


def test_an_unquoted_if_match_says_how_to_quote_it(app):
    pw = app.create_paywall()
    draft, _ = app.draft(pw)
    r = app.save_draft(pw, draft["document"], "r1")
    problem(r, 412, "draft_revision_mismatch")
    assert 'send If-Match: "r1"' in r.json()["detail"]


def test_a_version_number_past_32_bits_is_not_found_on_either_database(app):
    """Schemathesis found a rollback to version 3,025,677,882 answering 503 on PostgreSQL (an INTEGER
    column): every integer column is 64-bit there too, so it is simply a version that does not exist."""
    pw = app.create_paywall()
    app.publish(pw)
    big = 3_025_677_882
    problem(app.dashboard.post(f"/v1/paywalls/{pw}/rollback", {"version": big}), 404, "version_not_found")
    problem(app.dashboard.get(f"/v1/paywalls/{pw}/versions/{big}"), 404, "version_not_found")
    r = app.sdk.post("/v1/sdk/events", {"events": [{"id": "big", "name": "paywall_open", "timestamp": 1796000000000,
                                                     "paywallId": pw, "version": big}]})
    assert r.status_code == 202 and r.json()["rejected"][0]["errors"][0]["code"] == "unknown_paywall", r.text
