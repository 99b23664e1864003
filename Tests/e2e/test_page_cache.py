"""The page cache under unique context values (issue 14, item 5): pages that use `{{context.KEY}}`
are cached per value, so each published version keeps at most `pageCache.maxContextVariants` of
them; past that a page is rendered for its request and not stored, at most
`pageCache.uncachedRendersPerApp` at once per app (503 `render_busy` beyond), and misses are
counted by cause in /metrics."""
import concurrent.futures

import pytest
import requests

from xizor_server import App, XizorServer, create_app

PAGE = {"Accept": "text/html", "Accept-Encoding": "identity"}
SDK = "/v1/sdk/placements/onboarding/paywall"


def greeting_document(option_nodes=3, products=2):
    """A valid document whose texts use {{context.name}}; a selector repeats its option per product."""
    option = {"type": "stack", "direction": "vertical", "children": [
        {"type": "text", "text": {"en": f"{{{{product.price}}}} for {{{{context.name}}}} {i}"}} for i in range(option_nodes)]}
    return {
        "schemaVersion": 1, "id": "pw_greet", "name": "Greeting", "locales": ["en"], "defaultLocale": "en",
        "theme": {"colors": {"bg": "#FFFFFF"}},
        "products": [{"slot": f"p{i}", "storeProductId": f"com.x.p{i}"} for i in range(products)],
        "settings": {"dismissable": False, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
        "root": {"type": "stack", "direction": "vertical", "children": [
            {"type": "text", "text": {"en": "Hello {{context.name}}"}},
            {"type": "product_selector", "option": option}]},
    }


def published(server, document):
    a = App(server, create_app(server.base))
    pw = a.create_paywall("clean")
    _, etag = a.draft(pw)
    r = a.save_draft(pw, document | {"id": pw}, etag)
    assert r.status_code == 200, r.text
    a.publish(pw)
    a.assign("onboarding", pw)
    return a


def misses(server):
    out = {}
    for line in requests.get(server.base + "/metrics", timeout=10).text.splitlines():
        if line.startswith("xizor_representation_cache_misses_total{"):
            out[line.split('cause="')[1].split('"')[0]] = float(line.split()[-1])
        if line.startswith("xizor_representation_cache_hits_total "):
            out["hits"] = float(line.split()[-1])
        if line.startswith("xizor_page_renders_refused_total "):
            out["refused"] = float(line.split()[-1])
    return out


def test_context_variants_past_the_cap_render_per_request_and_are_counted(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_PAGE_CACHE_MAX_CONTEXT_VARIANTS": "3"})
    try:
        a = published(s, greeting_document())
        def page(name):
            r = a.sdk.get(SDK, headers=PAGE, params={"context.name": name})
            assert r.status_code == 200, r.text
            assert f"Hello {name}" in r.text
            return r
        for i in range(10):
            page(f"n{i}")
        assert misses(s) == {"absent": 3, "context_variant_cap": 7, "hits": 0, "refused": 0}
        for i in range(3):
            page(f"n{i}")   # cached
        page("n7")           # past the cap: rendered again, still not stored
        assert misses(s) == {"absent": 3, "context_variant_cap": 8, "hits": 3, "refused": 0}
        # A page without context values is not a variant: cached as before.
        plain = a.sdk.get(SDK, headers=PAGE)
        again = a.sdk.get(SDK, headers=PAGE, params={"context.other": "ignored"})  # a key the document does not use
        assert plain.status_code == again.status_code == 200 and plain.headers["ETag"] == again.headers["ETag"]
        assert misses(s)["absent"] == 4 and misses(s)["hits"] == 4
    finally:
        assert s.stop() == 0


def test_uncached_renders_are_limited_per_app(tmp_path):
    s = XizorServer(tmp_path / "data", extra_env={"XIZOR_PAGE_CACHE_MAX_CONTEXT_VARIANTS": "0",
                                                  "XIZOR_PAGE_CACHE_UNCACHED_RENDERS_PER_APP": "1"})
    try:
        heavy = published(s, greeting_document(option_nodes=95, products=20))   # ~1,900 nodes per page
        other = published(s, greeting_document())
        def fetch(i):
            return heavy.sdk.get(SDK, headers=PAGE, params={"context.name": f"u{i}"})
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(fetch, range(48)))
        statuses = [r.status_code for r in answers]
        assert set(statuses) <= {200, 503} and statuses.count(503) >= 1, statuses
        busy = next(r for r in answers if r.status_code == 503)
        assert busy.json()["code"] == "render_busy" and busy.headers["Retry-After"] == "1"
        assert misses(s)["refused"] == statuses.count(503)
        # The other app's pages are not behind the heavy app's gate.
        r = other.sdk.get(SDK, headers=PAGE, params={"context.name": "x"})
        assert r.status_code == 200 and "Hello x" in r.text
    finally:
        assert s.stop() == 0
