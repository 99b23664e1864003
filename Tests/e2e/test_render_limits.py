import pytest
"""Render amplification (issue 14, item 1): a product_selector renders its option once per slot, so a
small document can describe an enormous page. Validation refuses such documents, previews stop at the
renderer's budget, and a version stored before the limits existed answers a 500 problem instead of
taking the process (and every tenant) down."""
import hashlib
import json
import sqlite3
import time

import requests

from xizor_server import App, Client, XizorServer, create_app

SDK_PAGE = "/v1/sdk/placements/onboarding/paywall"
HTML = {"Accept": "text/html", "Accept-Encoding": "identity"}


def amplification(slots, option_nodes):
    """The attacker's document: `slots` products and an option of `option_nodes` texts (slots × nodes)."""
    return {
        "schemaVersion": 1, "id": "pw_amp", "name": "Amp", "locales": ["en"], "defaultLocale": "en",
        "theme": {"colors": {"bg": "#000000"}},
        "products": [{"slot": f"s{i}", "storeProductId": f"com.x.s{i}"} for i in range(slots)],
        "settings": {"dismissable": False, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
        "root": {"type": "product_selector", "option": {"type": "stack", "direction": "vertical", "children": [
            {"type": "text", "text": {"en": "{{product.price}}"}} for _ in range(option_nodes)]}},
    }


def problem(r, status, code):
    assert r.status_code == status, r.text[:500]
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.json()
    return r.json()


def test_the_amplified_draft_is_refused_by_validation_and_its_preview_stops_at_the_budget(app):
    pw = app.create_paywall("clean")
    _, etag = app.draft(pw)
    doc = amplification(5000, 5000)
    assert len(json.dumps(doc)) < 1_000_000
    assert app.save_draft(pw, doc, etag).status_code == 200  # drafts may be invalid
    started = time.monotonic()
    r = app.dashboard.get(f"/v1/paywalls/{pw}/preview")
    problem(r, 422, "render_budget_exceeded")
    assert time.monotonic() - started < 10, "the preview ran on instead of stopping at the budget"
    codes = {e["code"] for e in app.dashboard.post(f"/v1/paywalls/{pw}/publish").json()["errors"]}
    assert {"array_too_long", "too_many_nodes", "expansion_too_large"} <= codes
    v = app.dashboard.post("/v1/validate", {"document": doc}).json()
    assert not v["ok"] and any(e["code"] == "expansion_too_large" and e["path"] == "$.root" for e in v["errors"])
    # Every other tenant's request still answers.
    assert requests.get(app.server.base + "/healthz", timeout=5).status_code == 200


@pytest.mark.sqlite_only  # writes a version into the SQLite file as an older build would have
def test_a_version_stored_before_the_limits_answers_a_problem_and_cannot_be_rolled_back_to(tmp_path):
    data = tmp_path / "data"
    s = XizorServer(data)
    a = App(s, create_app(s.base))
    pw = a.create_paywall("clean")
    a.publish(pw)
    a.assign("onboarding", pw)
    assert s.stop() == 0
    # Stands for a version published by a server without the limits (it passed the old validation).
    db = sqlite3.connect(data / "xizor.sqlite")
    text = json.dumps(amplification(300, 3000) | {"id": pw}, sort_keys=True, separators=(",", ":"))
    db.execute("INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at)"
               " VALUES (?, 2, ?, 1, ?, 1790000000000)", (pw, text, hashlib.sha256(text.encode()).hexdigest()))
    db.commit()
    db.close()
    s = XizorServer(data)
    try:
        started = time.monotonic()
        r = Client(s.base, a.public_key).get(SDK_PAGE, headers=HTML)
        problem(r, 500, "internal_error")
        assert time.monotonic() - started < 10
        # The JSON form does not render a page: it is served as stored.
        assert Client(s.base, a.public_key).get(SDK_PAGE).status_code == 200
        metrics = requests.get(s.base + "/metrics", timeout=10).text
        assert 'xizor_data_failures_total{kind="page_render"} 1' in metrics
        # Rolling back to it would store a version that cannot render: refused.
        problem(Client(s.base, a.secret_key).post(f"/v1/paywalls/{pw}/rollback", {"version": 2}), 422, "render_budget_exceeded")
        assert requests.get(s.base + "/healthz", timeout=5).status_code == 200
    finally:
        assert s.stop() == 0
