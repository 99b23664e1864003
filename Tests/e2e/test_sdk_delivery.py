"""The SDK endpoint: revalidation, schema downgrade, colour schemes, gzip, locales, routing, errors."""
import gzip
import json

import pytest

from xizor_server import ADMIN_TOKEN, App, Client, create_app

PATH = "/v1/sdk/placements/{}/paywall"
IDENTITY = {"Accept-Encoding": "identity"}
GZIP = {"Accept-Encoding": "gzip"}


def fetch(app, placement="onboarding", headers=None, params=None):
    r = app.sdk.session.get(app.server.base + PATH.format(placement), params=params, stream=True,
                            headers={"Authorization": f"Bearer {app.public_key}", **(headers or {})}, timeout=30)
    r.raw_bytes = r.raw.read(decode_content=False)
    return r


def body_json(r):
    data = r.raw_bytes
    if r.headers.get("Content-Encoding") == "gzip":
        data = gzip.decompress(data)
    return json.loads(data)


@pytest.fixture
def placed(app):
    """`onboarding` → a published `clean` paywall (schema version 2, with colour pairs)."""
    pw = app.create_paywall("clean")
    app.publish(pw)
    app.assign("onboarding", pw)
    app.paywall = pw
    return app


def republish_with_new_name(app, name):
    draft, etag = app.draft(app.paywall)
    assert app.save_draft(app.paywall, dict(draft["document"], name=name), etag).status_code == 200
    return app.publish(app.paywall)["version"]


@pytest.mark.parametrize("schema", [None, "1", "2"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_revalidation_cycle(placed, schema, scheme, encoding):
    headers = {"Accept-Encoding": encoding} | ({"X-Xizor-Schema-Version": schema} if schema else {})
    params = {"colorScheme": scheme}
    first = fetch(placed, headers=headers, params=params)
    assert first.status_code == 200
    assert first.headers["Cache-Control"] == "no-cache"
    assert first.headers.get("Content-Encoding") == ("gzip" if encoding == "gzip" else None)
    served = body_json(first)
    assert served["schemaVersion"] == int(schema or 1) == int(first.headers["X-Xizor-Schema-Version"])
    assert served["document"]["schemaVersion"] == served["schemaVersion"]
    etag = first.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    again = fetch(placed, headers=headers | {"If-None-Match": etag}, params=params)
    assert again.status_code == 304 and again.raw_bytes == b""
    assert again.headers["ETag"] == etag and "Vary" in again.headers and again.headers["Cache-Control"] == "no-cache"
    version = republish_with_new_name(placed, f"renamed {schema} {scheme} {encoding}")
    after = fetch(placed, headers=headers | {"If-None-Match": etag}, params=params)
    assert after.status_code == 200 and after.headers["ETag"] != etag
    assert body_json(after)["version"] == version
    assert body_json(after)["document"]["name"].startswith("renamed")


def test_schema_downgrade_collapses_colour_pairs_per_scheme(placed):
    v2 = body_json(fetch(placed, headers=IDENTITY | {"X-Xizor-Schema-Version": "2"}))
    pairs = {k: v for k, v in v2["document"]["theme"]["colors"].items() if isinstance(v, dict)}
    assert pairs, "the clean template uses appearance pairs"
    light = body_json(fetch(placed, headers=IDENTITY, params={"colorScheme": "light"}))["document"]["theme"]["colors"]
    dark = body_json(fetch(placed, headers=IDENTITY | {"Sec-CH-Prefers-Color-Scheme": '"dark"'}))["document"]["theme"]["colors"]
    for name, pair in pairs.items():
        assert light[name] == pair["light"] and dark[name] == pair["dark"]
    # A newer client than the server gets the newest form; v2 bytes don't depend on the scheme.
    newest = fetch(placed, headers=IDENTITY | {"X-Xizor-Schema-Version": "7"})
    assert newest.headers["X-Xizor-Schema-Version"] == "2"
    v2_dark = fetch(placed, headers=IDENTITY | {"X-Xizor-Schema-Version": "2"}, params={"colorScheme": "dark"})
    assert v2_dark.headers["ETag"] == newest.headers["ETag"]
    v1_light = fetch(placed, headers=IDENTITY)
    v1_dark = fetch(placed, headers=IDENTITY, params={"colorScheme": "dark"})
    assert v1_light.headers["ETag"] != v1_dark.headers["ETag"]


def test_etags_differ_per_representation_and_weak_comparison_applies(placed):
    plain = fetch(placed, headers=IDENTITY)
    zipped = fetch(placed, headers=GZIP)
    assert plain.headers["ETag"] != zipped.headers["ETag"]
    assert gzip.decompress(zipped.raw_bytes) == plain.raw_bytes
    tag = plain.headers["ETag"]
    for header in [tag, f'"other", {tag}', f"W/{tag}", "*"]:
        assert fetch(placed, headers=IDENTITY | {"If-None-Match": header}).status_code == 304, header
    assert fetch(placed, headers=IDENTITY | {"If-None-Match": '"other"'}).status_code == 200
    # The gzip tag does not validate the identity representation.
    assert fetch(placed, headers=IDENTITY | {"If-None-Match": zipped.headers["ETag"]}).status_code == 200


def test_vary_and_headers(placed):
    r = fetch(placed, headers=GZIP | {"Accept-Language": "de-CH, en;q=0.5"})
    vary = {v.strip().lower() for v in r.headers["Vary"].split(",")}
    assert {"accept", "accept-language", "x-xizor-schema-version", "sec-ch-prefers-color-scheme", "accept-encoding"} <= vary
    # No rule reads a request attribute here, so none of their headers is named (a client's cache honours Vary).
    assert not {v for v in vary if v.startswith("x-xizor-") and v != "x-xizor-schema-version"}, vary
    assert r.headers["Content-Language"] == "de"
    assert r.headers["Content-Type"] == "application/json"
    assert r.headers["X-Request-Id"]
    echo = fetch(placed, headers={"X-Request-Id": "req-123"})
    assert echo.headers["X-Request-Id"] == "req-123"
    # A 304 repeats the validators, Vary and Cache-Control, not the representation's metadata.
    again = fetch(placed, headers=GZIP | {"Accept-Language": "de-CH, en;q=0.5", "If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.headers["Vary"] == r.headers["Vary"]
    assert again.headers["ETag"] == r.headers["ETag"] and again.headers["Cache-Control"] == "no-cache"
    for absent in ["Content-Type", "Content-Language", "Content-Encoding", "X-Xizor-Schema-Version", "Content-Length"]:
        assert absent not in again.headers, absent
    body = body_json(r)
    assert set(body) == {"placement", "paywallId", "version", "schemaVersion", "locale", "document"}
    assert body["placement"] == "onboarding" and body["paywallId"] == placed.paywall and body["locale"] == "de"


LOCALE_TABLE = [
    # (locale parameter, Accept-Language, expected)
    (None, None, "en"),
    ("de", None, "de"),
    ("de-AT", None, "de"),
    ("DE_at", None, "de"),
    ("fr", None, "en"),
    ("fr", "de", "en"),                 # the parameter wins; no match falls back to the default
    (None, "de", "de"),
    (None, "fr-FR, de;q=0.8, en;q=0.9", "en"),
    (None, "fr-FR, de;q=0.9, en;q=0.8", "de"),
    (None, "de;q=0, en", "en"),
    (None, "fr, *;q=0.5", "en"),
    (None, "pt-BR", "en"),
]


@pytest.mark.parametrize("param,accept,expected", LOCALE_TABLE)
def test_locale_negotiation(placed, param, accept, expected):
    headers = IDENTITY | ({"Accept-Language": accept} if accept else {})
    r = fetch(placed, headers=headers, params={"locale": param} if param else None)
    assert r.status_code == 200
    assert body_json(r)["locale"] == expected == r.headers["Content-Language"]


def test_same_locale_same_etag(placed):
    a = fetch(placed, headers=IDENTITY | {"Accept-Language": "de-AT"})
    b = fetch(placed, headers=IDENTITY, params={"locale": "de"})
    assert a.headers["ETag"] == b.headers["ETag"]


def test_context_rules_route_through_the_endpoint(placed):
    referred = placed.create_paywall("cinematic")
    placed.publish(referred)
    rules = {"rules": [{"when": {"key": "wasReferred", "op": "eq", "value": True}, "paywallId": referred}]}
    assert placed.dashboard.put("/v1/placements/onboarding/rules", rules).status_code == 200
    plain = body_json(fetch(placed, headers=IDENTITY))
    routed = fetch(placed, headers=IDENTITY, params={"context.wasReferred": "true"})
    assert plain["paywallId"] == placed.paywall
    assert body_json(routed)["paywallId"] == referred
    assert fetch(placed, headers=IDENTITY | {"If-None-Match": routed.headers["ETag"]}, params={"context.wasReferred": "true"}).status_code == 304
    assert body_json(fetch(placed, headers=IDENTITY, params={"context.wasReferred": "false"}))["paywallId"] == placed.paywall


def test_errors(placed, server):
    r = fetch(placed, placement="nope")
    assert r.status_code == 404 and json.loads(r.raw_bytes)["code"] == "placement_not_found"
    unpublished = placed.create_paywall()
    placed.assign("upsell", unpublished)
    r = fetch(placed, placement="upsell")
    assert r.status_code == 404 and json.loads(r.raw_bytes)["code"] == "no_published_paywall"
    r = fetch(placed, headers={"X-Xizor-Schema-Version": "two"})
    assert r.status_code == 400 and json.loads(r.raw_bytes)["code"] == "invalid_schema_version"
    r = fetch(placed, headers={"X-Xizor-Schema-Version": "0"})
    assert r.status_code == 400
    r = fetch(placed, params={"colorScheme": "sepia"})
    assert r.status_code == 400 and json.loads(r.raw_bytes)["code"] == "invalid_color_scheme"
    secret = placed.sdk.get(PATH.format("onboarding"), key=placed.secret_key)
    assert secret.status_code == 403
    other = App(server, create_app(server.base, "Other"))
    assert other.sdk.get(PATH.format("onboarding")).status_code == 404
    assert Client(server.base, ADMIN_TOKEN).delete(f"/v1/apps/{placed.id}").status_code == 204
    r = placed.sdk.get(PATH.format("onboarding"))
    assert r.status_code == 401 and r.json()["code"] == "invalid_api_key"


def test_head_answers_the_same_headers(placed):
    get = fetch(placed, headers=IDENTITY)
    head = placed.sdk.session.head(placed.server.base + PATH.format("onboarding"),
                                   headers={"Authorization": f"Bearer {placed.public_key}"} | IDENTITY)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["ETag"] == get.headers["ETag"]
    assert head.headers["Content-Length"] == str(len(get.raw_bytes))


def test_fallback_bundle(placed):
    other = placed.create_paywall("lottie_delight")
    placed.publish(other)
    placed.assign("settings", other)
    r = placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY)
    assert r.status_code == 200
    bundle = r.json()["placements"]
    assert set(bundle) == {"onboarding", "settings"}
    assert bundle["onboarding"]["paywallId"] == placed.paywall
    assert bundle["onboarding"]["document"]["locales"] == ["en", "de"] or len(bundle["onboarding"]["document"]["locales"]) >= 2
    etag = r.headers["ETag"]
    assert placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY | {"If-None-Match": etag}).status_code == 304
    republish_with_new_name(placed, "changed")
    assert placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY | {"If-None-Match": etag}).status_code == 200
    # The bundle is cached per app snapshot: a placement change replaces the snapshot, so it shows.
    etag = placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY).headers["ETag"]
    placed.assign("settings", placed.paywall)
    moved = placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY | {"If-None-Match": etag})
    assert moved.status_code == 200 and moved.json()["placements"]["settings"]["paywallId"] == placed.paywall
    # One cached form per client: colour scheme and encoding each have their own bytes and tag.
    dark = placed.sdk.get("/v1/sdk/fallback-bundle", headers=IDENTITY | {"Sec-CH-Prefers-Color-Scheme": '"dark"'})
    assert dark.headers["ETag"] != moved.headers["ETag"] and dark.json() != moved.json()
    zipped = placed.sdk.get("/v1/sdk/fallback-bundle", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip" and zipped.json() == moved.json()
    assert zipped.headers["ETag"] not in (moved.headers["ETag"], dark.headers["ETag"])
    assert placed.sdk.get("/v1/sdk/fallback-bundle", headers={"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["ETag"]}).status_code == 304


def test_pages_depend_only_on_the_context_their_texts_use(placed):
    html = {"Accept": "text/html"} | IDENTITY
    a = fetch(placed, headers=html, params={"context.unused": "1"})
    b = fetch(placed, headers=html, params={"context.unused": "2", "context.other": "x"})
    plain = fetch(placed, headers=html)
    assert a.status_code == 200 and a.headers["Content-Type"].startswith("text/html")
    assert a.headers["ETag"] == b.headers["ETag"] == plain.headers["ETag"]
