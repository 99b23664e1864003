"""Previews that look real (issue 20, item 6): the preview fills products with plausible sample values,
labelled as samples, overridable per slot by a query parameter, a JSON body or the MCP tool; without
them (`samples=false`) the placeholders stay, as before."""
import json
import re

import requests

from conftest import run_cli
from test_authorization_matrix import MCP_HEADERS


def main_text(page):
    """The text inside <main>, tags replaced by spaces and runs of space collapsed."""
    main = page[page.index("<main"):page.index("</main>")]
    return re.sub(r"[ \t\n]+", " ", re.sub(r"<[^>]+>", " ", main)).replace("&amp;", "&")


def preview(app, pw, **params):
    r = app.dashboard.get(f"/v1/paywalls/{pw}/preview", params=params)
    assert r.status_code == 200, r.text
    return r


def test_the_preview_shows_sample_products_labelled_as_samples(app):
    pw = app.create_paywall("cinematic")
    r = preview(app, pw)
    text = main_text(r.text)
    # On 6ba894a the plan cards showed {{product.price}} / {{product.period}}, broken mid-word.
    assert "{{product." not in text, text
    assert "$59.99 / year" in text and "$4.99 per month" in text and "$9.99 / month" in text
    assert r.headers["X-Xizor-Sample-Products"] == "monthly, yearly"
    assert re.search(r'<p class="xz-sample-note" role="note" style="[^"]*">Sample prices</p>', r.text)
    # The runtime starts from the same values (it re-renders texts when the selection changes).
    config = json.loads(re.search(r'<script type="application/json" id="xz-config">(.*?)</script>', r.text).group(1))
    assert config["initialProducts"]["yearly"]["price"] == "$59.99" and config["initialProducts"]["yearly"]["sample"] is True
    # German previews get euro prices and German periods.
    de = main_text(preview(app, pw, locale="de").text)
    assert "59,99\u00a0€ / Jahr" in de and "$" not in de


def test_samples_off_keeps_placeholders_and_production_pages_have_none(app):
    pw = app.create_paywall("clean")
    r = preview(app, pw, samples="false")
    assert "then {{product.price}} per {{product.period}}" in main_text(r.text)
    assert "X-Xizor-Sample-Products" not in r.headers and "xz-sample-note" not in r.text
    # What end users get never carries samples: products come from the app through the bridge.
    app.publish(pw)
    app.assign("onboarding", pw)
    page = app.sdk.get("/v1/sdk/placements/onboarding/paywall", headers={"Accept": "text/html"}).text
    config = json.loads(re.search(r'<script type="application/json" id="xz-config">(.*?)</script>', page).group(1))
    assert "$59.99" not in page and "Sample prices" not in page and "initialProducts" not in config


def test_products_override_the_samples_by_query_and_body(app):
    pw = app.create_paywall("clean")
    custom = {"yearly": {"price": "€49.99", "trialDays": 14}, "monthly": {"price": "€4.99"}}
    text = main_text(preview(app, pw, products=json.dumps(custom)).text)
    assert "Try 14 days free" in text and "then €49.99 per year" in text and "Or €4.99 monthly" in text
    # introEligible false drops the trial (an ineligible customer sees it empty; the preview keeps the placeholder).
    text = main_text(preview(app, pw, products=json.dumps({"yearly": {"introEligible": False}})).text)
    assert "Try {{product.trialDays}} days free then $59.99 per year" in text, text
    # The body form: the same options, a published version, context values.
    app.publish(pw)
    body = {"version": 1, "locale": "de", "colorScheme": "dark", "products": {"monthly": {"price": "1,00 €"}}, "context": {"name": "Ada"}}
    r = app.dashboard.post(f"/v1/paywalls/{pw}/preview", body)
    assert r.status_code == 200, r.text
    assert "Oder 1,00 € monatlich" in main_text(r.text) and 'class="xz-dark xz-preview"' in r.text
    assert app.dashboard.post(f"/v1/paywalls/{pw}/preview", data="").status_code == 200


def test_bad_product_values_are_refused_with_their_path(app):
    pw = app.create_paywall("clean")
    cases = [
        ({"products": json.dumps({"lifetime": {"price": "$1"}})}, "$.products.lifetime", "unknown_product_slot"),
        ({"products": json.dumps({"yearly": {"cost": "$1"}})}, "$.products.yearly.cost", "unknown_product_field"),
        ({"products": json.dumps({"yearly": {"price": 1}})}, "$.products.yearly.price", "type_mismatch"),
        ({"products": "{not json"}, "$.products", "invalid_json"),
        ({"samples": "maybe"}, "$.samples", "type_mismatch"),
        ({"locale": "x" * 36}, "$.locale", "invalid_locale"),
    ]
    for params, path, code in cases:
        r = app.dashboard.get(f"/v1/paywalls/{pw}/preview", params=params)
        assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json", (params, r.text)
        assert r.json()["errors"][0]["path"] == path and r.json()["errors"][0]["code"] == code, r.text
    r = app.dashboard.post(f"/v1/paywalls/{pw}/preview", {"context": {"nested": {"a": 1}}})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "$.context.nested", r.text


def test_the_mcp_tool_renders_the_preview_with_its_visible_texts(server, app):
    pw = app.create_paywall("clean")
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "preview_paywall", "arguments": {
        "paywallId": pw, "locale": "en", "products": {"monthly": {"price": "$7.77"}}}}}
    headers = dict(MCP_HEADERS, Authorization=f"Bearer {app.secret_key}", **{"Content-Type": "application/json"})
    r = requests.post(server.base + "/mcp", data=json.dumps(call), headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    result = r.json()["result"]
    assert not result.get("isError"), result
    structured = result["structuredContent"]
    assert structured["html"].startswith("<!DOCTYPE html>") and structured["etag"].startswith('"')
    assert "Or $7.77 monthly" in structured["texts"] and "then $59.99 per year" in structured["texts"]
    assert structured["products"]["yearly"]["sample"] is True
    listed = requests.post(server.base + "/mcp", data=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
                           headers=headers, timeout=30).json()["result"]["tools"]
    tool = next(t for t in listed if t["name"] == "preview_paywall")
    assert tool["annotations"]["readOnlyHint"] is True
    call["params"]["arguments"]["products"] = {"weekly": {"price": "$1"}}
    refused = requests.post(server.base + "/mcp", data=json.dumps(call), headers=headers, timeout=30).json()["result"]
    assert refused["isError"] is True and "$.products.weekly" in json.dumps(refused)


def test_the_cli_renders_samples_offline(tmp_path):
    source = tmp_path / "clean.json"
    source.write_text(run_cli("templates", "clean").stdout)
    page = run_cli("render", str(source), "--preview", "--sample-products", "--locale", "de").stdout
    assert "danach 59,99\u00a0€ pro Jahr" in main_text(page) and "Sample prices" in page
    plain = run_cli("render", str(source), "--preview").stdout
    assert "{{product.price}}" in main_text(plain) and "Sample prices" not in plain
