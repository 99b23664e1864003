"""Schema version 3: a product slot's id per store (`storeProductIds: {appStore?, googlePlay?}`).

A v3 draft (the `clean` template with `yearly` sold in both stores and `monthly` in the App Store only)
is validated (`store_product_missing` warns about the slot without a Google Play id), published and
served: a client reading version 3 gets it as it is; an older client (`X-Xizor-Schema-Version` 2, 1 or
none) gets one `storeProductId` per slot, its platform's store's (`X-Xizor-Platform: android` → Google
Play, anything else or nothing → App Store), or the other store's when the slot names only that one.
The forms, their ETags and 304s are per platform only where the form differs; the fallback bundle and
the page (its `#xz-config` and, in a real browser, the purchase message) follow the same rule.
See docs/schema.md, "Schema versions".
"""
import copy
import gzip
import json
import re
import shutil
import time

import jsonschema
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from conftest import run_cli
from test_openapi import component_validator, fetch_document
from xizor_server import Client, XizorServer

PATH = "/v1/sdk/placements/{}/paywall"
BUNDLE = "/v1/sdk/fallback-bundle"
IDENTITY = {"Accept-Encoding": "identity"}
HTML = {"Accept": "text/html"}

YEARLY = {"appStore": "com.example.notes.ios.yearly", "googlePlay": "com.example.notes.play.yearly"}
MONTHLY = {"appStore": "com.example.notes.ios.monthly"}
V3_PRODUCTS = [{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductIds": MONTHLY}]

# What an older client is sold, per X-Xizor-Platform (None: no header).
APP_STORE_FORM = [{"slot": "yearly", "storeProductId": YEARLY["appStore"]}, {"slot": "monthly", "storeProductId": MONTHLY["appStore"]}]
# Android gets Google Play's yearly; monthly names only the App Store, so that id.
GOOGLE_PLAY_FORM = [{"slot": "yearly", "storeProductId": YEARLY["googlePlay"]}, {"slot": "monthly", "storeProductId": MONTHLY["appStore"]}]
PLATFORMS = [("android", GOOGLE_PLAY_FORM), ("Android", GOOGLE_PLAY_FORM), ("ios", APP_STORE_FORM),
             ("macos", APP_STORE_FORM), ("web", APP_STORE_FORM), (None, APP_STORE_FORM)]

MONTHLY_WARNING = {
    "code": "store_product_missing", "path": "$.products[1].storeProductIds",
    "message": "no googlePlay id while other slots have one: on googlePlay devices this slot offers the appStore product",
}


def as_v3(document, products):
    """`document` (a template's, version 2) as version 3 with `products`."""
    doc = copy.deepcopy(document)
    doc["schemaVersion"] = 3
    doc["products"] = copy.deepcopy(products)
    return doc


def platform_headers(platform):
    return {"X-Xizor-Platform": platform} if platform else {}


def schema_headers(schema):
    return {"X-Xizor-Schema-Version": schema} if schema else {}


def fetch(app, headers=None, params=None, placement="onboarding"):
    """The SDK endpoint with the app's public key; `raw_bytes` is the body exactly as sent."""
    r = app.sdk.session.get(app.server.base + PATH.format(placement), params=params, stream=True, timeout=30,
                            headers={"Authorization": f"Bearer {app.public_key}", **IDENTITY, **(headers or {})})
    r.raw_bytes = r.raw.read(decode_content=False)
    return r


def body(r):
    data = gzip.decompress(r.raw_bytes) if r.headers.get("Content-Encoding") == "gzip" else r.raw_bytes
    return json.loads(data)


def vary(r):
    return [v.strip().lower() for v in r.headers["Vary"].split(",")]


def page_config(html):
    """The runtime configuration a page embeds (`<script type="application/json" id="xz-config">`)."""
    found = re.findall(r'<script type="application/json" id="xz-config">(.*?)</script>', html, re.S)
    assert len(found) == 1, html[:500]
    return json.loads(found[0])


def collapsed(colors, scheme):
    """Theme colours as schema version 1 has them: each {light, dark} pair reduced to `scheme`'s colour."""
    return {name: value[scheme] if isinstance(value, dict) else value for name, value in colors.items()}


def schema_validator(version):
    return jsonschema.Draft202012Validator(json.loads(run_cli("schema", "--version", str(version)).stdout))


@pytest.fixture
def v3(app):
    """`onboarding` → a published `clean` paywall turned into version 3 (yearly: both stores; monthly: App
    Store only). `app.template` is the template's document, `app.saved` the draft PUT's answer."""
    pw = app.create_paywall("clean")
    draft, etag = app.draft(pw)
    app.template = draft["document"]
    r = app.save_draft(pw, as_v3(app.template, V3_PRODUCTS), etag)
    assert r.status_code == 200, r.text
    app.saved = r
    app.published = app.publish(pw)
    app.assign("onboarding", pw)
    app.paywall = pw
    return app


# ---- validation ----

def test_v3_draft_saves_with_the_store_product_missing_warning(v3):
    """The PUT answer and GET …/draft carry the v3 document as sent, valid, with one warning: monthly
    has no Google Play id while yearly has one. The draft's ETag moves to the new revision."""
    saved = v3.saved.json()
    assert saved["revision"] == 2
    assert saved["validation"] == {"ok": True, "warnings": [MONTHLY_WARNING]}
    draft, etag = v3.draft(v3.paywall)
    assert draft["document"]["schemaVersion"] == 3
    assert draft["document"]["products"] == V3_PRODUCTS
    assert draft["validation"] == {"ok": True, "warnings": [MONTHLY_WARNING]}
    assert etag == v3.saved.headers["ETag"]


@pytest.mark.parametrize("products,warnings", [
    # Every slot in both stores, or every slot in one store only: nothing uneven, no warning.
    ([{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductIds": dict(MONTHLY, googlePlay="play.m")}], []),
    ([{"slot": "yearly", "storeProductIds": {"appStore": "a.y"}}, {"slot": "monthly", "storeProductIds": {"appStore": "a.m"}}], []),
    ([{"slot": "yearly", "storeProductIds": {"googlePlay": "g.y"}}, {"slot": "monthly", "storeProductIds": {"googlePlay": "g.m"}}], []),
    # The App Store left out of the first slot: said about that slot.
    ([{"slot": "yearly", "storeProductIds": {"googlePlay": "g.y"}}, {"slot": "monthly", "storeProductIds": {"appStore": "a.m", "googlePlay": "g.m"}}],
     [{"code": "store_product_missing", "path": "$.products[0].storeProductIds",
       "message": "no appStore id while other slots have one: on appStore devices this slot offers the googlePlay product"}]),
    # Each slot in a different store: both are warned.
    ([{"slot": "yearly", "storeProductIds": {"googlePlay": "g.y"}}, {"slot": "monthly", "storeProductIds": {"appStore": "a.m"}}],
     [{"code": "store_product_missing", "path": "$.products[0].storeProductIds",
       "message": "no appStore id while other slots have one: on appStore devices this slot offers the googlePlay product"},
      {"code": "store_product_missing", "path": "$.products[1].storeProductIds",
       "message": "no googlePlay id while other slots have one: on googlePlay devices this slot offers the appStore product"}]),
], ids=["both-everywhere", "app-store-only", "google-play-only", "first-lacks-app-store", "crossed"])
def test_store_coverage_warnings(app, products, warnings):
    """POST /v1/validate on v3 documents: `store_product_missing` only where a slot lacks a store another slot names."""
    template = app.dashboard.get("/v1/templates/clean").json()["document"]
    r = app.dashboard.post("/v1/validate", as_v3(template, products))
    assert r.status_code == 200
    assert r.json() == {"ok": True, "warnings": warnings}


INVALID = [
    ("empty-object", 3, [{"slot": "yearly", "storeProductIds": {}}, {"slot": "monthly", "storeProductIds": MONTHLY}],
     [("missing_required_field", "$.products[0].storeProductIds")]),
    ("unknown-store", 3, [{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductIds": dict(MONTHLY, amazon="amz.m")}],
     [("unknown_property", "$.products[1].storeProductIds.amazon")]),
    ("empty-id", 3, [{"slot": "yearly", "storeProductIds": {"appStore": ""}}, {"slot": "monthly", "storeProductIds": MONTHLY}],
     [("empty_string", "$.products[0].storeProductIds.appStore")]),
    ("not-a-string", 3, [{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductIds": {"googlePlay": 5}}],
     [("type_mismatch", "$.products[1].storeProductIds.googlePlay")]),
    ("not-an-object", 3, [{"slot": "yearly", "storeProductIds": "com.example.y"}, {"slot": "monthly", "storeProductIds": MONTHLY}],
     [("type_mismatch", "$.products[0].storeProductIds")]),
    # Version 3 has no `storeProductId`; version 2 has no `storeProductIds`.
    ("v3-with-v2-id", 3, [{"slot": "yearly", "storeProductId": "com.example.y"}, {"slot": "monthly", "storeProductIds": MONTHLY}],
     [("unknown_property", "$.products[0].storeProductId"), ("missing_required_field", "$.products[0].storeProductIds")]),
    ("v2-with-v3-ids", 2, [{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductId": "com.example.m"}],
     [("unknown_property", "$.products[0].storeProductIds"), ("missing_required_field", "$.products[0].storeProductId")]),
]


@pytest.mark.parametrize("version,products,expected", [case[1:] for case in INVALID], ids=[case[0] for case in INVALID])
def test_invalid_store_product_ids_fail_validation_with_paths(app, version, products, expected):
    """POST /v1/validate (bare and as `{"document": …}`): each mistake is an error at its exact path."""
    template = app.dashboard.get("/v1/templates/clean").json()["document"]
    doc = dict(as_v3(template, products), schemaVersion=version)
    for sent in (doc, {"document": doc}):
        r = app.dashboard.post("/v1/validate", sent)
        assert r.status_code == 200
        result = r.json()
        assert result["ok"] is False
        assert [(e["code"], e["path"]) for e in result["errors"]] == expected


def test_invalid_v3_draft_reports_paths_and_does_not_publish(v3):
    """A draft with `storeProductIds: {}` and an unknown store is saved with its errors; publishing it is a
    422 naming the same paths, and the SDK keeps serving version 1."""
    draft, etag = v3.draft(v3.paywall)
    bad = as_v3(v3.template, [{"slot": "yearly", "storeProductIds": {}},
                              {"slot": "monthly", "storeProductIds": dict(MONTHLY, amazon="amz.m")}])
    r = v3.save_draft(v3.paywall, bad, etag)
    assert r.status_code == 200, r.text
    expected = [{"code": "missing_required_field", "path": "$.products[0].storeProductIds",
                 "message": 'needs at least 1 of "appStore", "googlePlay"'},
                {"code": "unknown_property", "path": "$.products[1].storeProductIds.amazon", "message": 'unknown property "amazon"'}]
    assert r.json()["validation"] == {"ok": False, "errors": expected, "warnings": []}
    assert v3.draft(v3.paywall)[0]["validation"] == {"ok": False, "errors": expected, "warnings": []}
    published = v3.dashboard.post(f"/v1/paywalls/{v3.paywall}/publish", {"force": True})
    assert published.status_code == 422
    assert published.json()["code"] == "validation_failed"
    assert [(e["code"], e["path"]) for e in published.json()["errors"]] == [(e["code"], e["path"]) for e in expected]
    served = fetch(v3, headers={"X-Xizor-Schema-Version": "3"})
    assert served.status_code == 200 and body(served)["version"] == 1
    assert body(served)["document"]["products"] == V3_PRODUCTS


# ---- the SDK's JSON ----

def test_publish_records_schema_version_3(v3):
    """The published version records the document's schema version, 3."""
    assert v3.published["schemaVersion"] == 3 and v3.published["version"] == 1


@pytest.mark.parametrize("schema", ["3", "4", "99"])
def test_schema_3_client_gets_the_document_as_published(v3, schema):
    """A client reading version 3 (or newer than the server) gets `storeProductIds` as written, colour pairs
    kept, the same bytes whatever its platform."""
    answers = [fetch(v3, headers={"X-Xizor-Schema-Version": schema} | platform_headers(p)) for p in ("android", "ios", None)]
    for r in answers:
        assert r.status_code == 200
        assert r.headers["X-Xizor-Schema-Version"] == "3"
        served = body(r)
        assert served["schemaVersion"] == 3 and served["document"]["schemaVersion"] == 3
        assert served["document"]["products"] == V3_PRODUCTS
        assert served["document"]["theme"]["colors"] == v3.template["theme"]["colors"]
    assert answers[0].raw_bytes == answers[1].raw_bytes == answers[2].raw_bytes
    assert answers[0].headers["ETag"] == answers[1].headers["ETag"] == answers[2].headers["ETag"]
    schema_validator(3).validate(body(answers[0])["document"])


@pytest.mark.parametrize("platform,products", PLATFORMS, ids=[p or "none" for p, _ in PLATFORMS])
def test_schema_2_products_follow_the_platform(v3, platform, products):
    """Version 2: one `storeProductId` per slot, the platform's store's (monthly, App Store only, keeps that
    id on Android); colour pairs stay (version 2 has them); the form is a valid version 2 document."""
    r = fetch(v3, headers={"X-Xizor-Schema-Version": "2"} | platform_headers(platform))
    assert r.status_code == 200
    assert r.headers["X-Xizor-Schema-Version"] == "2"
    served = body(r)
    assert served["schemaVersion"] == 2 and served["document"]["schemaVersion"] == 2
    assert served["document"]["products"] == products
    assert "storeProductIds" not in json.dumps(served)
    assert served["document"]["theme"]["colors"] == v3.template["theme"]["colors"]
    schema_validator(2).validate(served["document"])


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("schema", [None, "1"])
@pytest.mark.parametrize("platform,products", PLATFORMS, ids=[p or "none" for p, _ in PLATFORMS])
def test_schema_1_products_follow_the_platform_and_colours_collapse(v3, platform, products, schema, scheme):
    """Version 1 (header 1 or none): the platform's product ids as in version 2, and each colour pair reduced
    to the asked appearance; the form is a valid version 1 document."""
    r = fetch(v3, headers=schema_headers(schema) | platform_headers(platform), params={"colorScheme": scheme})
    assert r.status_code == 200
    assert r.headers["X-Xizor-Schema-Version"] == "1"
    served = body(r)
    assert served["schemaVersion"] == 1 and served["document"]["schemaVersion"] == 1
    assert served["document"]["products"] == products
    colors = served["document"]["theme"]["colors"]
    assert colors == collapsed(v3.template["theme"]["colors"], scheme)
    assert colors["bg"] == {"light": "#FFFFFF", "dark": "#0B0B0C"}[scheme]
    schema_validator(1).validate(served["document"])


def test_a_slot_only_in_google_play_is_sold_there_on_every_platform(app):
    """The mirror case: monthly names only Google Play, so an App Store client (or one naming no platform)
    gets the Google Play id for it; the draft warns that monthly lacks an App Store id."""
    pw = app.create_paywall("clean")
    draft, etag = app.draft(pw)
    products = [{"slot": "yearly", "storeProductIds": YEARLY}, {"slot": "monthly", "storeProductIds": {"googlePlay": "com.example.notes.play.monthly"}}]
    saved = app.save_draft(pw, as_v3(draft["document"], products), etag)
    assert saved.json()["validation"]["warnings"] == [{
        "code": "store_product_missing", "path": "$.products[1].storeProductIds",
        "message": "no appStore id while other slots have one: on appStore devices this slot offers the googlePlay product"}]
    app.publish(pw)
    app.assign("upsell", pw)
    for platform, yearly in [("ios", YEARLY["appStore"]), (None, YEARLY["appStore"]), ("android", YEARLY["googlePlay"])]:
        for schema in ("2", "1"):
            served = body(fetch(app, placement="upsell", headers={"X-Xizor-Schema-Version": schema} | platform_headers(platform)))
            assert served["document"]["products"] == [{"slot": "yearly", "storeProductId": yearly},
                                                      {"slot": "monthly", "storeProductId": "com.example.notes.play.monthly"}], (platform, schema)
    page = fetch(app, placement="upsell", headers=HTML | {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "ios"})
    assert page_config(page.raw_bytes.decode())["products"][1] == {
        "slot": "monthly", "storeProductId": "com.example.notes.play.monthly",
        "storeProductIds": {"googlePlay": "com.example.notes.play.monthly"}}


# ---- ETags, 304 and Vary ----

@pytest.mark.parametrize("schema", ["2", "1", None])
def test_older_forms_have_a_tag_per_store_and_revalidate_per_platform(v3, schema):
    """Android's and iOS's forms differ, so do their strong tags; a platform not named is iOS's form. Each tag
    revalidates (304) for its own platform only: sent by the other platform it answers 200 with that form."""
    headers = schema_headers(schema)
    android = fetch(v3, headers=headers | {"X-Xizor-Platform": "android"})
    ios = fetch(v3, headers=headers | {"X-Xizor-Platform": "ios"})
    none = fetch(v3, headers=headers)
    assert android.headers["ETag"] != ios.headers["ETag"]
    assert ios.headers["ETag"] == none.headers["ETag"] and ios.raw_bytes == none.raw_bytes
    for r in (android, ios):
        assert r.headers["ETag"].startswith('"') and not r.headers["ETag"].startswith("W/")
    again = fetch(v3, headers=headers | {"X-Xizor-Platform": "android", "If-None-Match": android.headers["ETag"]})
    assert again.status_code == 304 and again.raw_bytes == b""
    assert again.headers["ETag"] == android.headers["ETag"] and "x-xizor-platform" in vary(again)
    assert fetch(v3, headers=headers | {"X-Xizor-Platform": "ios", "If-None-Match": ios.headers["ETag"]}).status_code == 304
    assert fetch(v3, headers=headers | {"If-None-Match": ios.headers["ETag"]}).status_code == 304
    crossed = fetch(v3, headers=headers | {"X-Xizor-Platform": "ios", "If-None-Match": android.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.headers["ETag"] == ios.headers["ETag"]
    assert body(crossed)["document"]["products"] == APP_STORE_FORM
    crossed = fetch(v3, headers=headers | {"X-Xizor-Platform": "android", "If-None-Match": ios.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.headers["ETag"] == android.headers["ETag"]
    assert body(crossed)["document"]["products"] == GOOGLE_PLAY_FORM


def test_gzip_tags_are_per_store_too(v3):
    """The gzip representation of each store's form has its own tag, and decompresses to that form."""
    headers = {"X-Xizor-Schema-Version": "2", "Accept-Encoding": "gzip"}
    android = fetch(v3, headers=headers | {"X-Xizor-Platform": "android"})
    ios = fetch(v3, headers=headers | {"X-Xizor-Platform": "ios"})
    assert android.headers["Content-Encoding"] == ios.headers["Content-Encoding"] == "gzip"
    assert android.headers["ETag"] != ios.headers["ETag"]
    assert body(android)["document"]["products"] == GOOGLE_PLAY_FORM and body(ios)["document"]["products"] == APP_STORE_FORM
    assert fetch(v3, headers=headers | {"X-Xizor-Platform": "android", "If-None-Match": android.headers["ETag"]}).status_code == 304
    assert fetch(v3, headers=headers | {"X-Xizor-Platform": "ios", "If-None-Match": android.headers["ETag"]}).status_code == 200


def test_a_v3_client_revalidates_across_platforms(v3):
    """Version 3 is one form for every store: Android's tag is iOS's, and revalidates for either."""
    android = fetch(v3, headers={"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "android"})
    r = fetch(v3, headers={"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "ios", "If-None-Match": android.headers["ETag"]})
    assert r.status_code == 304 and r.headers["ETag"] == android.headers["ETag"]


def test_v2_documents_are_one_form_for_every_store(app):
    """A template (version 2, one `storeProductId`) is served the same to Android and iOS at every client
    version: the store only splits the forms of a version 3 document."""
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    for schema in ("3", "2", "1", None):
        android = fetch(app, headers=schema_headers(schema) | {"X-Xizor-Platform": "android"}, params={"colorScheme": "dark"})
        ios = fetch(app, headers=schema_headers(schema) | {"X-Xizor-Platform": "ios"}, params={"colorScheme": "dark"})
        assert android.status_code == ios.status_code == 200
        assert android.raw_bytes == ios.raw_bytes and android.headers["ETag"] == ios.headers["ETag"], schema
        assert body(android)["document"]["products"] == [{"slot": "yearly", "storeProductId": "com.example.notes.pro.yearly"},
                                                         {"slot": "monthly", "storeProductId": "com.example.notes.pro.monthly"}]


@pytest.mark.parametrize("accept", [None, "text/html"])
def test_vary_names_the_platform(v3, accept):
    """Every SDK answer (JSON and page, 200 and 304) says it varies with X-Xizor-Platform, so a shared cache
    never hands Android's form to iOS."""
    headers = {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android"} | ({"Accept": accept} if accept else {})
    r = fetch(v3, headers=headers)
    assert r.status_code == 200
    assert {"x-xizor-platform", "x-xizor-schema-version", "accept", "accept-encoding"} <= set(vary(r))
    again = fetch(v3, headers=headers | {"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Vary"] == r.headers["Vary"]


def test_answers_conform_to_the_openapi_document(v3):
    """The served OpenAPI document describes every form: the SDK answer and the bundle validate as `SDKPaywall`
    and `FallbackBundle`, their documents as `PaywallDocumentV<n>` of the version served and not as the other."""
    openapi = fetch_document(v3.server.base).json()
    v3_root, v2_root, v1_root = (component_validator(openapi, f"PaywallDocumentV{n}") for n in (3, 2, 1))
    for headers, root, others in [({"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "android"}, v3_root, (v2_root, v1_root)),
                                  ({"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android"}, v2_root, (v3_root,)),
                                  ({"X-Xizor-Platform": "android"}, v1_root, (v3_root, v2_root))]:
        served = body(fetch(v3, headers=headers))
        component_validator(openapi, "SDKPaywall").validate(served)
        root.validate(served["document"])
        assert not any(other.is_valid(served["document"]) for other in others), headers
        answer = bundle(v3, headers).json()
        component_validator(openapi, "FallbackBundle").validate(answer)
        root.validate(answer["placements"]["onboarding"]["document"])


# ---- the fallback bundle ----

def bundle(app, headers=None, params=None):
    return app.sdk.get(BUNDLE, headers=IDENTITY | (headers or {}), params=params)


def test_fallback_bundle_follows_the_platform(v3):
    """The bundle's v3 paywall: as published for a version 3 client; for older clients each slot's id is the
    platform's store's (monthly: the App Store's only id), colours collapsed at version 1."""
    placement = lambda r: r.json()["placements"]["onboarding"]
    v3_answer = bundle(v3, {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "android"})
    assert v3_answer.status_code == 200
    assert placement(v3_answer)["schemaVersion"] == 3 and placement(v3_answer)["version"] == 1
    assert placement(v3_answer)["paywallId"] == v3.paywall
    assert placement(v3_answer)["document"]["products"] == V3_PRODUCTS
    assert bundle(v3, {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "ios"}).content == v3_answer.content
    for platform, products in PLATFORMS:
        for schema in ("2", "1"):
            r = bundle(v3, {"X-Xizor-Schema-Version": schema} | platform_headers(platform), params={"colorScheme": "dark"})
            assert r.status_code == 200
            served = placement(r)
            assert served["schemaVersion"] == int(schema) and served["document"]["schemaVersion"] == int(schema)
            assert served["document"]["products"] == products, (platform, schema)
            expected_colors = v3.template["theme"]["colors"] if schema == "2" else collapsed(v3.template["theme"]["colors"], "dark")
            assert served["document"]["theme"]["colors"] == expected_colors
    unversioned = placement(bundle(v3, {"X-Xizor-Platform": "android"}))
    assert unversioned["schemaVersion"] == 1 and unversioned["document"]["products"] == GOOGLE_PLAY_FORM


def test_fallback_bundle_tags_and_304_per_platform(v3):
    """Android's and iOS's bundles differ, and so do their tags; each revalidates for its own platform, and
    the answers vary with X-Xizor-Platform."""
    android = bundle(v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android"})
    ios = bundle(v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "ios"})
    none = bundle(v3, {"X-Xizor-Schema-Version": "2"})
    assert android.headers["ETag"] != ios.headers["ETag"] == none.headers["ETag"]
    assert "x-xizor-platform" in vary(android)
    again = bundle(v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android", "If-None-Match": android.headers["ETag"]})
    assert again.status_code == 304 and again.headers["ETag"] == android.headers["ETag"]
    assert bundle(v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "ios", "If-None-Match": ios.headers["ETag"]}).status_code == 304
    crossed = bundle(v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "ios", "If-None-Match": android.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.json()["placements"]["onboarding"]["document"]["products"] == APP_STORE_FORM
    # Version 3: one bundle for both platforms.
    v3_android = bundle(v3, {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "android"})
    assert bundle(v3, {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "ios",
                       "If-None-Match": v3_android.headers["ETag"]}).status_code == 304


# ---- another process ----

def test_a_process_that_loads_the_version_serves_the_same_forms(v3):
    """A second server on the same database loads the published version without rebuilding its forms and
    builds them on first request: the same bytes (so the same tags) per platform as the publishing process."""
    asks = [({"X-Xizor-Schema-Version": s} | platform_headers(p), {"colorScheme": c})
            for s in ("3", "2", "1") for p in ("android", "ios", None) for c in ("light", "dark")]
    first = [fetch(v3, headers=h, params=q) for h, q in asks]
    other = XizorServer(v3.server.data_dir)
    try:
        second = Client(other.base, v3.public_key)
        for (h, q), expected in zip(asks, first):
            r = second.get(PATH.format("onboarding"), headers=IDENTITY | h, params=q)
            assert r.status_code == 200
            assert r.headers["ETag"] == expected.headers["ETag"], (h, q)
            assert r.content == expected.raw_bytes
        android = second.get(BUNDLE, headers=IDENTITY | {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android"})
        assert android.json()["placements"]["onboarding"]["document"]["products"] == GOOGLE_PLAY_FORM
    finally:
        assert other.stop() == 0


# ---- pages ----

def test_v3_page_config_carries_store_product_ids(v3):
    """A version 3 page's `#xz-config` names each slot's ids per store next to its default `storeProductId`
    (the App Store's, else the only one), the same page for every platform."""
    pages = [fetch(v3, headers=HTML | {"X-Xizor-Schema-Version": "3"} | platform_headers(p)) for p in ("android", "ios")]
    for r in pages:
        assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
        assert r.headers["X-Xizor-Schema-Version"] == "3"
        config = page_config(r.raw_bytes.decode())
        assert config["schemaVersion"] == 3
        assert config["products"] == [
            {"slot": "yearly", "storeProductId": YEARLY["appStore"], "storeProductIds": YEARLY},
            {"slot": "monthly", "storeProductId": MONTHLY["appStore"], "storeProductIds": MONTHLY},
        ]
    assert pages[0].headers["ETag"] == pages[1].headers["ETag"]


def test_the_draft_preview_carries_store_product_ids(v3):
    """The dashboard's preview of a version 3 draft is a page whose config names the ids per store."""
    r = v3.dashboard.get(f"/v1/paywalls/{v3.paywall}/preview")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    config = page_config(r.text)
    assert config["schemaVersion"] == 3
    assert config["products"] == [
        {"slot": "yearly", "storeProductId": YEARLY["appStore"], "storeProductIds": YEARLY},
        {"slot": "monthly", "storeProductId": MONTHLY["appStore"], "storeProductIds": MONTHLY},
    ]


@pytest.mark.parametrize("schema", ["2", None])
def test_older_pages_name_the_platforms_product(v3, schema):
    """A page in an older form names one id per slot, the platform's store's, and no `storeProductIds`;
    Android's page and iOS's page are different representations."""
    android = fetch(v3, headers=HTML | schema_headers(schema) | {"X-Xizor-Platform": "android"})
    ios = fetch(v3, headers=HTML | schema_headers(schema) | {"X-Xizor-Platform": "ios"})
    expected_version = int(schema or 1)
    for r, products in ((android, GOOGLE_PLAY_FORM), (ios, APP_STORE_FORM)):
        assert r.status_code == 200 and r.headers["X-Xizor-Schema-Version"] == str(expected_version)
        config = page_config(r.raw_bytes.decode())
        assert config["schemaVersion"] == expected_version
        assert config["products"] == products
    assert android.headers["ETag"] != ios.headers["ETag"]
    assert fetch(v3, headers=HTML | schema_headers(schema) | {"X-Xizor-Platform": "android",
                                                              "If-None-Match": android.headers["ETag"]}).status_code == 304
    assert fetch(v3, headers=HTML | schema_headers(schema) | {"X-Xizor-Platform": "ios",
                                                              "If-None-Match": android.headers["ETag"]}).status_code == 200


# The iOS host bridge, recording what the page posts (as in test_render_browser.py).
BRIDGE_STUB = """
window.__xz = [];
window.webkit = { messageHandlers: { xizor: { postMessage: function (m) { window.__xz.push(JSON.parse(JSON.stringify(m))); } } } };
"""
ENTRANCES_DONE = """return document.getAnimations().every(a =>
    a.effect.getComputedTiming().iterations === Infinity || a.playState === "finished")"""


def wait_for(predicate, timeout=5.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver_path, "chromium and chromium-driver must be installed (make deps)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BRIDGE_STUB})
    driver.execute_cdp_cmd("Network.enable", {})
    yield driver
    driver.quit()


def purchases(driver, app, headers):
    """Opens the placement's page as an app's web view would (public key and `headers` on the request), taps
    the yearly purchase button and the monthly one, and answers the purchase messages and the
    `purchase_started` events' properties the page posted."""
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": f"Bearer {app.public_key}"} | headers})
    driver.get(app.server.base + PATH.format("onboarding"))
    wait_for(lambda: any(m.get("name") == "paywall_open" for m in driver.execute_script("return window.__xz || []")), what="paywall_open")
    wait_for(lambda: driver.execute_script(ENTRANCES_DONE), what="entrance animations")
    driver.find_element(By.CSS_SELECTOR, ".xz-purchase-button").click()
    driver.find_element(By.CSS_SELECTOR, "button[data-a=purchase][data-slot=monthly]").click()
    posted = driver.execute_script("return window.__xz || []")
    return ([m for m in posted if m.get("type") == "purchase"],
            [m["properties"] for m in posted if m.get("type") == "event" and m.get("name") == "purchase_started"])


def test_v3_page_purchase_message_carries_store_product_ids(v3, browser):
    """In a browser, a version 3 page's purchase message names the slot's ids per store (the host picks its
    store's); `storeProductId` is the App Store's, else the only one. `purchase_started` keeps slot and id."""
    sent, started = purchases(browser, v3, {"X-Xizor-Schema-Version": "3", "X-Xizor-Platform": "android"})
    assert sent == [
        {"type": "purchase", "slot": "yearly", "storeProductId": YEARLY["appStore"], "storeProductIds": YEARLY},
        {"type": "purchase", "slot": "monthly", "storeProductId": MONTHLY["appStore"], "storeProductIds": MONTHLY},
    ]
    assert started == [{"slot": "yearly", "storeProductId": YEARLY["appStore"]},
                       {"slot": "monthly", "storeProductId": MONTHLY["appStore"]}]


def test_older_page_purchase_message_names_the_platforms_product(v3, browser):
    """A version 2 page served to Android posts Google Play's yearly id (monthly: its only id) and no
    `storeProductIds`."""
    sent, started = purchases(browser, v3, {"X-Xizor-Schema-Version": "2", "X-Xizor-Platform": "android"})
    assert sent == [{"type": "purchase", **GOOGLE_PLAY_FORM[0]}, {"type": "purchase", **GOOGLE_PLAY_FORM[1]}]
    assert started == GOOGLE_PLAY_FORM
