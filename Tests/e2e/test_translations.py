"""Translations with memory (issue 20, item 4): each translation records the source it was made from, so
a changed source marks it stale; the texts endpoint and MCP list missing and stale texts; publishing warns
about incomplete or stale locales (or refuses, configured); the REST texts endpoint checks variables and
markdown exactly as MCP's localize_paywall does."""
import asyncio

from test_mcp import mcp_session
from xizor_server import App, XizorServer, create_app


def texts(app, pw):
    r = app.dashboard.get(f"/v1/paywalls/{pw}/draft/texts")
    assert r.status_code == 200, r.text
    return r.json(), r.headers["ETag"]


def set_texts(app, pw, locale, values):
    _, etag = texts(app, pw)
    return app.dashboard.put(f"/v1/paywalls/{pw}/draft/texts/{locale}", {"texts": values}, headers={"If-Match": etag})


def with_variables(body):
    """A text of the draft whose source uses a {{variable}} and which German translates."""
    return next(t for t in body["texts"] if "{{" in t["values"].get("en", "") and "de" in t["values"])


def coverage(body, locale):
    return next(c for c in body["coverage"] if c["locale"] == locale)


def test_a_changed_source_marks_its_translations_stale_until_translated_again(app):
    pw = app.create_paywall("clean")
    body, _ = texts(app, pw)
    assert body["locales"] == ["en", "de"] and coverage(body, "de") == {"locale": "de", "texts": len(body["texts"]), "missing": [], "stale": []}
    assert all(t["staleLocales"] == [] for t in body["texts"])
    first = body["texts"][0]
    assert set_texts(app, pw, "en", {first["path"]: first["values"]["en"] + " Now."}).status_code == 200
    body, _ = texts(app, pw)
    assert next(t for t in body["texts"] if t["path"] == first["path"])["staleLocales"] == ["de"]
    assert coverage(body, "de")["stale"] == [first["path"]]
    # Publishing warns (and publishes).
    published = app.dashboard.post(f"/v1/paywalls/{pw}/publish")
    assert published.status_code == 201
    assert published.json()["warnings"] == [{"path": '$.locales["de"]', "code": "locale_stale", "message": published.json()["warnings"][0]["message"]}]
    assert "1 stale" in published.json()["warnings"][0]["message"]
    # Translating it again clears it; editing other texts never touches it.
    assert set_texts(app, pw, "de", {first["path"]: first["values"]["de"] + " Jetzt."}).status_code == 200
    body, _ = texts(app, pw)
    assert coverage(body, "de")["stale"] == [] and all(t["staleLocales"] == [] for t in body["texts"])
    clean = app.dashboard.post(f"/v1/paywalls/{pw}/publish")
    assert clean.status_code == 201 and "warnings" not in clean.json()


def test_a_new_locale_is_incomplete_until_every_text_is_translated(app):
    pw = app.create_paywall("clean")
    body, _ = texts(app, pw)
    first = body["texts"][0]
    assert set_texts(app, pw, "fr", {first["path"]: "Bonjour"}).status_code == 200
    body, _ = texts(app, pw)
    fr = coverage(body, "fr")
    assert fr["missing"] == [t["path"] for t in body["texts"][1:]] and fr["stale"] == []
    warning = app.dashboard.post(f"/v1/paywalls/{pw}/publish").json()["warnings"][0]
    assert warning["code"] == "locale_incomplete" and warning["path"] == '$.locales["fr"]'
    assert f"{len(body['texts']) - 1} of {len(body['texts'])} texts missing" in warning["message"]


def test_the_texts_endpoint_keeps_variables_and_marks_as_localize_paywall_does(app):
    pw = app.create_paywall("clean")
    body, _ = texts(app, pw)
    target = with_variables(body)
    dropped = set_texts(app, pw, "de", {target["path"]: "Kein Platzhalter mehr"})
    assert dropped.status_code == 422 and {e["code"] for e in dropped.json()["errors"]} == {"missing_variable"}
    assert dropped.json()["errors"][0]["path"] == f'$.texts["{target["path"]}"]'
    invented = set_texts(app, pw, "de", {target["path"]: target["values"]["de"] + " {{product.trialdays}}"})
    assert invented.status_code == 422 and "unexpected_variable" in {e["code"] for e in invented.json()["errors"]}
    bold = next(t for t in body["texts"] if "**" in t["values"].get("en", "") and "de" in t["values"])
    unbalanced = set_texts(app, pw, "de", {bold["path"]: bold["values"]["de"].replace("**", "", 1)})
    assert unbalanced.status_code == 422 and {e["code"] for e in unbalanced.json()["errors"]} == {"markdown_mismatch"}
    # Nothing was written; the default locale's own texts are sources and are not checked against anything.
    assert texts(app, pw)[0]["texts"] == body["texts"]
    assert set_texts(app, pw, "en", {target["path"]: "A new source without variables"}).status_code == 200


def test_agents_see_stale_texts_in_the_worklist(server, app):
    pw = app.create_paywall("clean")
    body, _ = texts(app, pw)
    first = body["texts"][0]
    assert set_texts(app, pw, "en", {first["path"]: "Changed source"}).status_code == 200

    async def flow():
        async with mcp_session(server, app.secret_key) as s:
            worklist = (await s.call_tool("localize_paywall", {"paywallId": pw, "locale": "de"})).structured_content
            assert worklist["stale"] == [first["path"]] and worklist["complete"] is False
            task = next(t for t in worklist["texts"] if t["path"] == first["path"])
            assert task["stale"] is True and task["source"] == "Changed source"
            done = await s.call_tool("localize_paywall", {"paywallId": pw, "locale": "de", "translations": {first["path"]: "Geänderte Quelle"}})
            assert not done.is_error and done.structured_content["stale"] == []
    asyncio.run(flow())


def test_publishing_can_require_complete_locales(tmp_path):
    server = XizorServer(tmp_path / "strict", extra_env={"XIZOR_PUBLISH_REQUIRE_COMPLETE_LOCALES": "true"})
    try:
        app = App(server, create_app(server.base))
        pw = app.create_paywall("clean")
        assert app.dashboard.post(f"/v1/paywalls/{pw}/publish").status_code == 201   # en and de complete
        body, _ = texts(app, pw)
        assert set_texts(app, pw, "fr", {body["texts"][0]["path"]: "Bonjour"}).status_code == 200
        refused = app.dashboard.post(f"/v1/paywalls/{pw}/publish")
        assert refused.status_code == 422 and refused.json()["code"] == "incomplete_locales"
        assert [e["path"] for e in refused.json()["errors"]] == ['$.locales["fr"]']
        assert [v["version"] for v in app.dashboard.get(f"/v1/paywalls/{pw}/versions").json()["items"]] == [1]
    finally:
        assert server.stop() == 0
