"""The rendered paywall pages in a real browser (Debian's chromium + chromium-driver, driven by Selenium).

Pages come from the `page_source` fixture: the templates are published on a live `xizor serve` (one
placement per template) and the browser loads the SDK endpoint itself — `GET /v1/sdk/placements/NAME/paywall`
with `Accept: text/html`, the public key sent through CDP's `Network.setExtraHTTPHeaders`. Documents the
server would not publish (an unknown node type) or pages with render options (a Lottie player) are rendered
with `xizor render` into a temp folder served by Python's http.server; the tests only need `url(name, scheme)`.

Pages the live server renders load the templates' media from the server itself (bundled files at
`/v1/assets/templates/`). Pages rendered by `xizor render` name them at `https://xizor.localhost/…`, and other
documents use the fake host `cdn.example.com`. Chromium runs with `--host-resolver-rules` that send
both hosts to `media_server` (an HTTPS server on loopback with a throwaway self-signed certificate,
accepted through `--ignore-certificate-errors`) and make every other host fail to resolve at once, so
nothing leaves the machine. The media server answers images with generated PNGs and everything else
(videos, Lottie JSON) with 404. The console check ignores exactly the `network` entries for URLs on the
fake media host (those 404s) and fails on anything else.

The bridge is stubbed before any page script runs: `window.webkit.messageHandlers.xizor.postMessage`
records every message in `window.__xz` (the iOS host path of the runtime; `?host=rn` selects the React
Native path, `?host=none` neither, for the preview-frame test)."""
import functools
import http.server
import json
import pathlib
import shutil
import ssl
import struct
import subprocess
import threading
import time
import urllib.parse
import zlib

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from conftest import ROOT, run_cli
from xizor_server import App, XizorServer, create_app

TEMPLATES = ["cinematic", "clean", "lottie_delight"]
SIZES = [(390, 844), (1024, 1366)]
SCHEMES = ["light", "dark"]
FAKE_MEDIA_HOSTS = ("https://cdn.example.com/", "https://xizor.localhost/")
OUT = ROOT / "test-output" / "render"

BRIDGE_STUB = """
window.__xz = [];
window.__xzRaw = [];
if (location.search.indexOf("host=rn") >= 0) {
  window.ReactNativeWebView = { postMessage: function (s) { window.__xzRaw.push(s); window.__xz.push(JSON.parse(s)); } };
} else if (location.search.indexOf("host=none") < 0) {
  window.webkit = { messageHandlers: { xizor: { postMessage: function (m) { window.__xz.push(JSON.parse(JSON.stringify(m))); } } } };
}
"""

# The dashboard's preview frame: the page in an iframe, messages arrive at the parent.
FRAME_HARNESS = """<!DOCTYPE html><html><body style="margin:0">
<script>window.__frame = []; addEventListener("message", function (e) { if (e.data && e.data.xizor) window.__frame.push(e.data.xizor); });</script>
<iframe id="pw" src="PAGE?host=none" style="width:390px;height:844px;border:0"></iframe></body></html>"""

# A page whose media is far below the fold, and a node type no renderer knows.
LAZY_DOCUMENT = {
    "schemaVersion": 1, "id": "pw_lazy", "name": "Lazy", "locales": ["en"], "defaultLocale": "en",
    "theme": {"colors": {"bg": "#FFFFFF", "text": "#111111"}},
    "products": [{"slot": "monthly", "storeProductId": "com.example.lazy.monthly"}],
    "settings": {"dismissable": True, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
    "root": {"type": "stack", "direction": "vertical", "gap": 12, "padding": 24, "children": [
        {"type": "text", "text": {"en": "Scroll down"}, "style": {"color": "$text"}},
        {"type": "hologram", "beam": 3},
        {"type": "spacer", "size": 3000},
        {"type": "image", "id": "below", "src": "https://cdn.example.com/lazy/below-the-fold.png", "aspectRatio": 1.5},
        {"type": "video", "id": "belowvideo", "src": "https://cdn.example.com/lazy/below.mp4",
         "poster": "https://cdn.example.com/lazy/below-poster.jpg", "aspectRatio": 1.5},
        {"type": "purchase_button", "productSlot": "monthly", "label": {"en": "Buy {{product.price}}"}},
    ]},
}

PRODUCTS = {
    "type": "products",
    "products": {
        "yearly": {"title": "Yearly", "price": "$59.99", "period": "year", "pricePerMonth": "$5.00", "trialDays": 7, "introEligible": True},
        "monthly": {"title": "Monthly", "price": "$9.99", "period": "month", "pricePerMonth": "$9.99"},
    },
}


def with_query(url, query):
    return url + ("&" if "?" in url else "?") + query


class RenderedPages:
    """The templates from a live server's SDK endpoint; other pages rendered by `xizor render` and
    served by http.server on 127.0.0.1 (port 0)."""

    def __init__(self, folder: pathlib.Path):
        self.folder = folder
        handler = functools.partial(QuietHandler, directory=str(folder))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.files = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.live = XizorServer(folder / "data")
        self.app = App(self.live, create_app(self.live.base))
        self.paywall_ids = {}
        for name in TEMPLATES:
            self.paywall_ids[name] = self.app.create_paywall(name)
            self.app.publish(self.paywall_ids[name])
            self.app.assign(name, self.paywall_ids[name])
        self.headers = {"Authorization": f"Bearer {self.app.public_key}"}

    def add_document(self, name, document):
        (self.folder / f"{name}.json").write_text(json.dumps(document))

    def url(self, name, scheme="light", *render_args):
        if name in self.paywall_ids and not render_args:
            return f"{self.live.base}/v1/sdk/placements/{name}/paywall?colorScheme={scheme}"
        variant = "-".join(a.strip("-").replace("/", "_").replace(":", "") for a in render_args)
        page = self.folder / f"{name}-{scheme}{'-' + variant if variant else ''}.html"
        if not page.exists():
            source = self.folder / f"{name}.json"
            if not source.exists():
                source.write_text(run_cli("templates", name).stdout)
            page.write_bytes(run_cli("render", str(source), "--color-scheme", scheme, *render_args).stdout.encode())
        return f"{self.files}/{page.name}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        assert self.live.stop() == 0


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def page_source(tmp_path_factory):
    pages = RenderedPages(tmp_path_factory.mktemp("pages"))
    pages.add_document("lazy", LAZY_DOCUMENT)
    yield pages
    pages.close()


def png(width, height, seed):
    """A soft diagonal gradient, different per seed: enough to see where images land."""
    a = [(seed * 53) % 200 + 40, (seed * 97) % 200 + 40, (seed * 31) % 200 + 40]
    b = [255 - a[1] // 2, 255 - a[2] // 2, 255 - a[0] // 2]
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            t = (x / width + y / height) / 2
            row += bytes(int(a[i] + (b[i] - a[i]) * t) for i in range(3))
        rows.append(bytes(row))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))


# Stands in for lottie-web: the same loadAnimation API, draws a circle, records how it was called.
LOTTIE_STUB_PLAYER = """
window.__lottieCalls = [];
window.lottie = { loadAnimation: function (o) {
  var listeners = {}, anim = { speed: 1,
    setSpeed: function (s) { anim.speed = s; },
    addEventListener: function (n, f) { listeners[n] = f; },
    destroy: function () { o.container.textContent = ""; } };
  window.__lottieCalls.push({ path: o.path, loop: o.loop, autoplay: o.autoplay, renderer: o.renderer, anim: anim });
  o.container.innerHTML = '<svg viewBox="0 0 10 10" width="100%" height="100%"><circle cx="5" cy="5" r="4" fill="#7C3AED"/></svg>';
  setTimeout(function () { listeners.DOMLoaded && listeners.DOMLoaded(); }, 10);
  return anim;
} };
"""


class MediaHandler(http.server.BaseHTTPRequestHandler):
    images = {}
    requests = []

    def do_GET(self):
        MediaHandler.requests.append(self.path)
        if self.path == "/players/lottie-stub.js":
            body = LOTTIE_STUB_PLAYER.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path.endswith((".png", ".jpg")):
            body = MediaHandler.images.setdefault(self.path, png(240, 160, sum(self.path.encode())))
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def media_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("media-tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=cdn.example.com",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")], check=True, capture_output=True, timeout=60)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), MediaHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser(media_server, page_source):
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "chromium and chromium-driver must be installed (make deps)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--hide-scrollbars",
                "--autoplay-policy=no-user-gesture-required", "--ignore-certificate-errors",
                f"--host-resolver-rules=MAP cdn.example.com 127.0.0.1:{media_server}, MAP xizor.localhost 127.0.0.1:{media_server}, "
                f"MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BRIDGE_STUB})
    # The app's web view sends its public key with the page request; so does this browser.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": page_source.headers})
    OUT.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def open_page(driver, url, width=390, height=844, reduced_motion=False, scheme="light"):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else "no-preference"},
        {"name": "prefers-color-scheme", "value": scheme}]})
    driver.get_log("browser")       # drop entries of earlier pages
    driver.get_log("performance")
    driver.get(url)
    wait_for(lambda: any(m.get("name") == "paywall_open" for m in messages(driver)), what="paywall_open")
    wait_for_entrances(driver)


ENTRANCES_DONE = """return document.getAnimations().every(a =>
    a.effect.getComputedTiming().iterations === Infinity || a.playState === "finished")"""


def wait_for_entrances(driver):
    """Entrances start hidden (opacity 0); tap only once they have played, as a person would."""
    wait_for(lambda: driver.execute_script(ENTRANCES_DONE), what="entrance animations to finish")


def messages(driver):
    return driver.execute_script("return window.__xz || []")


def wait_for(predicate, timeout=5.0, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def console_problems(driver):
    problems = []
    for entry in driver.get_log("browser"):
        if entry["level"] not in ("SEVERE", "WARNING"):
            continue
        if entry.get("source") == "network" and any(host in entry["message"] for host in FAKE_MEDIA_HOSTS):
            continue        # a fake media host failing to resolve (see the module docstring)
        if entry.get("source") == "network" and "/favicon.ico " in entry["message"]:
            continue        # the browser's own favicon request to the live server, not the page's
        problems.append(entry)
    return problems


def requested_urls(driver):
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def sent(driver, type_):
    return [m for m in messages(driver) if m.get("type") == type_]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("template", TEMPLATES)
def test_template_renders_cleanly(browser, page_source, template, size, scheme):
    open_page(browser, page_source.url(template, scheme), *size, scheme=scheme)
    browser.execute_script("window.xizor.receive(arguments[0])", PRODUCTS)
    browser.save_screenshot(str(OUT / f"{template}-{size[0]}x{size[1]}-{scheme}.png"))
    assert console_problems(browser) == []
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    # Nothing wider than the viewport, and the page posted ready then paywall_open exactly once.
    assert browser.execute_script("return document.documentElement.scrollWidth") <= size[0]
    kinds = [m["type"] for m in messages(browser)]
    assert kinds[0] == "ready"
    opened = [m for m in sent(browser, "event") if m["name"] == "paywall_open"]
    assert opened == [{"type": "event", "name": "paywall_open", "properties": {}, "placement": template,
                       "paywallId": page_source.paywall_ids[template], "version": 1}]


def test_purchase_posts_the_selected_slot_and_product(browser, page_source):
    open_page(browser, page_source.url("cinematic", "dark"))
    cta = browser.find_element(By.CSS_SELECTOR, "[data-id=cta]")
    cta.click()
    assert sent(browser, "purchase") == [{"type": "purchase", "slot": "yearly", "storeProductId": "com.example.streaming.pro.yearly"}]
    started = [m for m in sent(browser, "event") if m["name"] == "purchase_started"]
    assert [{k: v for k, v in m.items() if k in ("type", "name", "properties")} for m in started] == [
        {"type": "event", "name": "purchase_started", "properties": {"slot": "yearly", "storeProductId": "com.example.streaming.pro.yearly"}}]
    assert started[0]["placement"] == "cinematic" and started[0]["version"] == 1
    # Choosing the other option changes what "$selected" buys.
    browser.find_element(By.CSS_SELECTOR, ".xz-option[data-slot=monthly]").click()
    assert browser.find_element(By.CSS_SELECTOR, ".xz-option[data-slot=monthly]").get_attribute("aria-checked") == "true"
    cta.click()
    assert sent(browser, "purchase")[-1] == {"type": "purchase", "slot": "monthly", "storeProductId": "com.example.streaming.pro.monthly"}
    # The app's purchase state shows on the button.
    browser.execute_script("window.xizor.receive({type: 'purchase_state', state: 'pending'})")
    assert cta.get_attribute("aria-busy") == "true"
    browser.execute_script("window.xizor.receive('{\"type\":\"purchase_state\",\"state\":\"failed\"}')")
    assert cta.get_attribute("aria-busy") is None


def test_fixed_slot_buttons_purchase_their_slot(browser, page_source):
    open_page(browser, page_source.url("clean"))
    browser.find_element(By.CSS_SELECTOR, ".xz-purchase-button").click()
    browser.find_element(By.CSS_SELECTOR, "button[data-a=purchase][data-slot=monthly]").click()
    assert [(m["slot"], m["storeProductId"]) for m in sent(browser, "purchase")] == [
        ("yearly", "com.example.notes.pro.yearly"), ("monthly", "com.example.notes.pro.monthly")]
    browser.find_element(By.CSS_SELECTOR, ".xz-restore-button").click()
    assert sent(browser, "restore") == [{"type": "restore"}]
    browser.find_element(By.CSS_SELECTOR, ".xz-footer-links a").click()
    assert sent(browser, "open_url") == [{"type": "open_url", "url": "https://example.com/notes/privacy"}]
    assert browser.current_url.startswith("http://127.0.0.1")     # the page did not navigate


def test_close_posts_close_after_the_dismiss_delay(browser, page_source):
    open_page(browser, page_source.url("cinematic", "dark"))
    close = browser.find_element(By.CSS_SELECTOR, "[data-a=close]")
    assert not close.is_displayed()     # dismissDelayMs = 1500
    # The background video's player exists once the page has painted (its poster showed before)...
    assert browser.find_element(By.CSS_SELECTOR, ".xz-bg>video").get_attribute("src").endswith("/v1/assets/templates/cinematic-hero-loop.mp4")
    assert browser.find_element(By.CSS_SELECTOR, ".xz-bg>img").get_attribute("src").endswith("hero-poster.jpg")
    wait_for(close.is_displayed, timeout=4, what="close button after dismissDelayMs")
    close.click()
    assert sent(browser, "close") == [{"type": "close"}]
    assert browser.find_elements(By.CSS_SELECTOR, ".xz-bg>video") == []      # ...and is released on dismiss
    assert [m["name"] for m in sent(browser, "event")].count("paywall_close") == 1
    assert [m["name"] for m in sent(browser, "event")].count("paywall_open") == 1


def test_products_from_the_app_appear_in_the_text(browser, page_source):
    open_page(browser, page_source.url("cinematic", "dark"))
    yearly = browser.find_element(By.CSS_SELECTOR, ".xz-option[data-slot=yearly]")
    assert "{{" not in yearly.text and "$59.99" not in yearly.text     # production: no placeholders before
    browser.execute_script("window.xizor.receive(arguments[0])", PRODUCTS)
    assert "$59.99 / year" in yearly.text and "Yearly" in yearly.text and "$5.00 per month" in yearly.text
    open_page(browser, page_source.url("clean"))
    browser.execute_script("window.xizor.receive(arguments[0])", PRODUCTS)
    purchase = browser.find_element(By.CSS_SELECTOR, ".xz-purchase-button")
    assert "Try 7 days free" in purchase.text and "then $59.99 per year" in purchase.text
    assert "Or $9.99 monthly" in browser.find_element(By.CSS_SELECTOR, "button[data-slot=monthly]").text
    # Without intro eligibility the trial days are missing (emptied in production).
    not_eligible = json.loads(json.dumps(PRODUCTS))
    not_eligible["products"]["yearly"]["introEligible"] = False
    browser.execute_script("window.xizor.receive(arguments[0])", not_eligible)
    assert "Try  days free" in purchase.get_attribute("textContent")


def test_a_preview_with_sample_products_reads_like_the_real_page(browser, page_source):
    """The dashboard's preview (issue 20, item 6): sample products from the first paint, labelled; the runtime
    keeps them through a selection change, and products the dashboard sends through the bridge replace them."""
    open_page(browser, page_source.url("clean", "light", "--preview", "--sample-products"))
    purchase = browser.find_element(By.CSS_SELECTOR, ".xz-purchase-button")
    assert "Try 7 days free" in purchase.text and "then $59.99 per year" in purchase.text, purchase.text
    assert browser.find_element(By.CSS_SELECTOR, ".xz-sample-note").text == "Sample prices"
    open_page(browser, page_source.url("cinematic", "dark", "--preview", "--sample-products"))
    monthly = browser.find_element(By.CSS_SELECTOR, ".xz-option[data-slot=monthly]")
    assert "$9.99 / month" in monthly.text and "{{" not in browser.find_element(By.TAG_NAME, "main").text
    monthly.click()
    assert monthly.get_attribute("aria-checked") == "true"
    browser.execute_script("window.xizor.receive(arguments[0])", {"type": "products", "products": {
        "monthly": {"title": "Monthly", "price": "€8.00", "period": "month", "pricePerMonth": "€8.00"}}})
    wait_for(lambda: "€8.00 / month" in monthly.text, what="the bridge's products over the samples")
    assert not console_problems(browser)


def test_the_templates_media_comes_from_the_server_itself(browser, page_source):
    """Issue 20, item 7: a fresh install shows complete paywalls with nothing but the server: the header
    image, the demo video and its poster are the server's bundled files, loaded from the page's own origin."""
    open_page(browser, page_source.url("clean"))
    header = browser.find_element(By.CSS_SELECTOR, "img[src='/v1/assets/templates/clean-header.png']")
    wait_for(lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", header) == 780,
             what="the bundled header image decoded")
    loaded = [u for u in requested_urls(browser) if "/v1/assets/templates/" in u]
    assert loaded and all(u.startswith(page_source.live.base) for u in loaded), loaded
    assert not console_problems(browser)


def test_reduced_motion_stops_loops(browser, page_source):
    infinite = "return document.getAnimations().filter(a => a.effect.getComputedTiming().iterations === Infinity).length"
    for template in ["cinematic", "lottie_delight"]:     # clean has no loops
        open_page(browser, page_source.url(template, "dark"))
        assert browser.execute_script(infinite) > 0, template
        open_page(browser, page_source.url(template, "dark"), reduced_motion=True)
        assert browser.execute_script(infinite) == 0, template
        # Entrances became fades: nothing is translated or scaled.
        names = browser.execute_script("return document.getAnimations().map(a => a.animationName)")
        assert set(names) <= {"xz-i-fade"}, (template, names)


def test_below_the_fold_media_waits_until_scrolled_into_view(browser, page_source):
    open_page(browser, page_source.url("lazy"))
    time.sleep(0.5)
    image = browser.find_element(By.CSS_SELECTOR, "[data-id=below] img")
    video = browser.find_element(By.CSS_SELECTOR, "[data-id=belowvideo] video")
    assert image.get_attribute("src") in (None, "")
    assert video.get_attribute("poster") in (None, "") and video.get_attribute("src") in (None, "")
    assert not [u for u in requested_urls(browser) if "/lazy/" in u]
    browser.execute_script("arguments[0].scrollIntoView()", image)
    wait_for(lambda: image.get_attribute("src"), what="image src after scrolling")
    wait_for(lambda: [u for u in requested_urls(browser) if u.endswith("below-the-fold.png")], what="image request")
    assert video.get_attribute("poster") == "https://cdn.example.com/lazy/below-poster.jpg"
    assert console_problems(browser) == []


def test_unknown_nodes_are_reported_and_skipped(browser, page_source):
    open_page(browser, page_source.url("lazy"))
    unknown = [m for m in sent(browser, "event") if m["name"] == "paywall_unknown_node"]
    assert unknown == [{"type": "event", "name": "paywall_unknown_node",
                        "properties": {"type": "hologram", "path": "$.root.children[1]", "usedFallback": False}}]


def test_carousel_loads_only_the_active_page_media(browser, page_source):
    open_page(browser, page_source.url("clean"))
    video = browser.find_element(By.CSS_SELECTOR, ".xz-carousel video")
    time.sleep(0.3)
    assert video.get_attribute("src") in (None, "")
    assert not [u for u in requested_urls(browser) if "sync-demo" in u]
    browser.find_elements(By.CSS_SELECTOR, ".xz-dot")[1].click()
    wait_for(lambda: video.get_attribute("src"), what="video src on its page")
    assert video.get_attribute("poster").endswith("sync-demo-poster.jpg")
    browser.find_elements(By.CSS_SELECTOR, ".xz-dot")[2].click()
    wait_for(lambda: not video.get_attribute("src"), what="video released when its page is left")


def test_timer_asks_the_app_for_its_start(browser, page_source):
    open_page(browser, page_source.url("cinematic", "dark"))
    assert sent(browser, "timer_start") == [{"type": "timer_start", "paywallId": page_source.paywall_ids["cinematic"],
                                             "nodeId": "launch_offer", "durationSeconds": 86400}]
    timer = browser.find_element(By.CSS_SELECTOR, "[data-tid=launch_offer]")
    started = int(time.time() * 1000) - 3_600_000   # an hour ago
    browser.execute_script("window.xizor.receive({type: 'timer_start', nodeId: 'launch_offer', startedAt: arguments[0]})", started)
    assert "23:00:0" in timer.text or "22:59:5" in timer.text


def test_react_native_host_gets_json_strings(browser, page_source):
    open_page(browser, with_query(page_source.url("clean"), "host=rn"))
    raw = browser.execute_script("return window.__xzRaw")
    assert all(isinstance(r, str) for r in raw) and json.loads(raw[0])["type"] == "ready"
    browser.find_element(By.CSS_SELECTOR, ".xz-purchase-button").click()
    assert sent(browser, "purchase") == [{"type": "purchase", "slot": "yearly", "storeProductId": "com.example.notes.pro.yearly"}]


def test_preview_frame_posts_to_the_parent(browser, page_source):
    page = with_query(page_source.url("cinematic", "dark"), "host=none")
    (page_source.folder / "frame.html").write_text(FRAME_HARNESS.replace("PAGE?host=none", page))
    harness = page_source.files + "/frame.html"
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1024, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    browser.get(harness)
    frame_messages = lambda: browser.execute_script("return window.__frame")
    wait_for(lambda: any(m.get("name") == "paywall_open" for m in frame_messages()), what="paywall_open in the parent")
    assert frame_messages()[0]["type"] == "ready"
    # The dashboard answers through postMessage({xizor: message}) to the frame.
    browser.execute_script("document.getElementById('pw').contentWindow.postMessage({xizor: arguments[0]}, '*')", PRODUCTS)
    browser.switch_to.frame("pw")
    try:
        wait_for_entrances(browser)
        option = browser.find_element(By.CSS_SELECTOR, ".xz-option[data-slot=yearly]")
        wait_for(lambda: "$59.99" in option.text, what="products in the frame")
        browser.find_element(By.CSS_SELECTOR, "[data-id=cta]").click()
    finally:
        browser.switch_to.default_content()
    # postMessage is asynchronous: the parent sees the message a task later.
    wait_for(lambda: {"type": "purchase", "slot": "yearly", "storeProductId": "com.example.streaming.pro.yearly"} in frame_messages(),
             what="the purchase message in the parent")


def test_lottie_plays_through_the_configured_player(browser, page_source):
    player = "https://cdn.example.com/players/lottie-stub.js"
    open_page(browser, page_source.url("lottie_delight", "light", "--lottie-player", player))
    lottie = browser.find_element(By.CSS_SELECTOR, ".xz-lottie[data-id=mascot]")
    wait_for(lambda: "xz-ready" in lottie.get_attribute("class"), what="the player to draw")
    calls = browser.execute_script("return window.__lottieCalls.map(c => ({path: c.path, loop: c.loop, autoplay: c.autoplay, speed: c.anim.speed}))")
    assert calls == [{"path": "https://xizor.localhost/v1/assets/templates/lottie-delight-mascot-wave.json", "loop": True, "autoplay": True, "speed": 1}]
    assert lottie.find_elements(By.CSS_SELECTOR, ".xz-lottie-stage svg")
    assert not lottie.find_element(By.CSS_SELECTOR, ".xz-lottie-fb").is_displayed()
    assert console_problems(browser) == []
    browser.save_screenshot(str(OUT / "lottie_delight-390x844-light-player.png"))
    # Reduced motion: the animation plays once instead of looping.
    open_page(browser, page_source.url("lottie_delight", "light", "--lottie-player", player), reduced_motion=True)
    wait_for(lambda: browser.execute_script("return (window.__lottieCalls || []).length"), what="the player")
    assert browser.execute_script("return window.__lottieCalls[0].loop") is False
    # No player configured: the fallback image shows, nothing else is fetched.
    open_page(browser, page_source.url("lottie_delight", "light"))
    assert browser.find_element(By.CSS_SELECTOR, ".xz-lottie-none img").is_displayed()
    assert browser.execute_script("return window.lottie === undefined")


def test_sdk_page_names_the_presentation_and_revalidates(browser, page_source):
    open_page(browser, page_source.url("clean", "dark"))
    ready = sent(browser, "ready")[0]
    assert ready["placement"] == "clean" and ready["paywallId"] == page_source.paywall_ids["clean"] and ready["version"] == 1
    opened = [m for m in sent(browser, "event") if m["name"] == "paywall_open"]
    assert opened[0]["placement"] == "clean" and opened[0]["version"] == 1
    # The page has its own validators: revalidating answers 304, a publish changes it.
    url = page_source.url("clean", "dark")
    headers = dict(page_source.headers, Accept="text/html", **{"Accept-Encoding": "gzip"})
    first = requests.get(url, headers=headers, timeout=30)
    assert first.status_code == 200 and first.headers["Content-Type"].startswith("text/html")
    assert first.headers["Content-Encoding"] == "gzip" and "Accept" in first.headers["Vary"]
    assert requests.get(url, headers=dict(headers, **{"If-None-Match": first.headers["ETag"]}), timeout=30).status_code == 304
    json_answer = requests.get(url, headers=dict(page_source.headers, Accept="application/json"), timeout=30)
    assert json_answer.headers["Content-Type"] == "application/json" and json_answer.headers["ETag"] != first.headers["ETag"]


# --- hostile text ----------------------------------------------------------------------------

SCRIPT = "</script><script>window.__pwned=1</script>"
IMG = '"><img src=x onerror="window.__pwned=2">'
STYLE = "</style><style>body{display:none}</style>"
COMMENT = "<!--"
QUOTE = "' autofocus onfocus='window.__pwned=4"
SEPARATORS = "line\u2028para\u2029end"
JS_URL = "javascript:window.__pwned=3"
HOSTILE_HTTPS = 'https://cdn.example.com/x"><img/src=x/onerror=window.__pwned=5>'   # passes the schema, not the renderer
PAYLOADS = [SCRIPT, IMG, STYLE, COMMENT, QUOTE]

# Sent as context.KEY on the SDK request; "nested" must show as written, never resolved again.
HOSTILE_CONTEXT = {"script": SCRIPT, "img": IMG, "style": STYLE, "nested": "{{context.script}}", "separators": SEPARATORS}

HOSTILE_PRODUCTS = {"type": "products", "products": {
    "monthly": {"title": IMG, "price": SCRIPT, "period": STYLE, "pricePerMonth": COMMENT, "description": QUOTE}}}


def hostile_document(url):
    """A publishable document with hostile strings in every kind of text; `url` in every URL field."""
    both = lambda en, de: {"en": en, "de": de}
    return {
        "schemaVersion": 1, "id": "pw_hostile", "name": "Name " + SCRIPT + IMG, "locales": ["en", "de"], "defaultLocale": "en",
        "theme": {"colors": {"bg": "#FFFFFF", "text": "#111111"}, "fonts": {"body": {"family": "Inter" + STYLE}}},
        "products": [{"slot": "monthly", "storeProductId": "com.example." + SCRIPT + IMG}],
        "settings": {"dismissable": True, "safeArea": "all", "background": {"kind": "color", "color": "$bg"}},
        "root": {"type": "stack", "direction": "vertical", "gap": 8, "padding": 16, "accessibilityLabel": both(IMG, QUOTE), "children": [
            {"type": "text", "id": "plain", "style": {"color": "$text", "font": {"family": "$body"}},
             "text": both("Hi " + SCRIPT + " " + STYLE, "Hallo " + IMG + " " + COMMENT + " " + QUOTE)},
            {"type": "text", "id": "ctx", "text": both("ctx {{context.script}} {{context.img}} {{context.style}} [{{context.nested}}] {{context.separators}}",
                                                       "ctx {{context.img}} [{{context.nested}}]")},
            {"type": "text", "id": "md", "accessibilityLabel": both(SCRIPT, IMG), "style": {"font": {"family": STYLE}},
             "text": both("**" + IMG + "** *" + COMMENT + "*", "**" + STYLE + "**")},
            {"type": "button", "id": "open", "label": both("Open " + IMG, "Öffnen " + SCRIPT), "action": {"type": "open_url", "url": url}},
            {"type": "button", "id": "custom", "label": both("Custom " + STYLE, "Custom"),
             "action": {"type": "custom", "name": IMG, "payload": {"html": SCRIPT}}},
            {"type": "purchase_button", "id": "buy", "productSlot": "monthly",
             "label": both("Buy {{product.title}} for {{product.price}} " + QUOTE, "Kaufen {{product.price}} " + SCRIPT),
             "sublabel": both("per {{product.period}} {{context.img}} " + COMMENT, "{{product.period}}")},
            {"type": "image", "id": "pic", "src": url, "alt": both(IMG, SCRIPT), "aspectRatio": 2},
            {"type": "feature_list", "items": [{"icon": IMG, "text": both(SCRIPT, STYLE)}]},
            {"type": "badge", "id": "badge", "text": both(COMMENT + " badge", QUOTE)},
            {"type": "timer", "id": "t1", "kind": "duration", "durationSeconds": 600, "label": both("{{timer.remaining}} " + SCRIPT, IMG)},
            {"type": "footer_links", "privacyUrl": url, "termsUrl": url,
             "labels": {"privacy": both(IMG, IMG), "terms": both(SCRIPT, SCRIPT), "restore": both(STYLE, STYLE)}},
        ]},
    }


UNSAFE_DOM = """return {
  pwned: typeof window.__pwned,
  handlers: [...document.querySelectorAll("*")].flatMap(e => [...e.attributes].filter(a => a.name.startsWith("on") || a.name === "autofocus")
                                                                   .map(a => e.tagName + " " + a.name)),
  urls: [...document.querySelectorAll("[href],[src],[data-src],[poster],[data-poster]")]
          .flatMap(e => ["href", "src", "data-src", "poster", "data-poster"].map(n => e.getAttribute(n)).filter(v => v !== null)),
  scripts: document.scripts.length, styles: document.querySelectorAll("style").length, imgs: document.querySelectorAll("img[onerror]").length,
  body: getComputedStyle(document.body).display, main: getComputedStyle(document.querySelector("main")).display}"""


def assert_nothing_injected(driver):
    dom = driver.execute_script(UNSAFE_DOM)
    assert dom["pwned"] == "undefined", dom
    assert dom["handlers"] == [] and dom["imgs"] == 0, dom
    assert all(u.startswith("https://") for u in dom["urls"]), dom
    assert (dom["scripts"], dom["styles"]) == (2, 1), dom
    assert dom["body"] != "none" and dom["main"] != "none", dom


def test_hostile_text_stays_text(browser, page_source):
    # Guards the page's escaping in a real browser: HTML.text / HTML.attribute / HTML.scriptJSON and
    # URLPolicy on the server, and the runtime writing product values and templates as text nodes.
    app = page_source.app
    r = app.dashboard.post("/v1/paywalls", {"document": hostile_document(HOSTILE_HTTPS)})
    assert r.status_code == 201, r.text
    pw = r.json()["id"]
    app.publish(pw)
    app.assign("hostile", pw)
    query = urllib.parse.urlencode({f"context.{k}": v for k, v in HOSTILE_CONTEXT.items()})
    base = f"{page_source.live.base}/v1/sdk/placements/hostile/paywall?{query}"
    for locale in ("en", "de"):
        open_page(browser, f"{base}&locale={locale}")
        browser.execute_script("window.xizor.receive(arguments[0])", HOSTILE_PRODUCTS)
        for button in ["[data-id=buy]", "[data-id=custom]", "[data-id=open]"]:
            browser.find_element(By.CSS_SELECTOR, button).click()
        assert_nothing_injected(browser)
        assert console_problems(browser) == []
        assert browser.title == "Name " + SCRIPT + IMG
        text = lambda node: browser.find_element(By.CSS_SELECTOR, f"[data-id={node}]").get_attribute("textContent")
        if locale == "en":
            assert text("plain") == "Hi " + SCRIPT + " " + STYLE
            assert text("ctx") == "ctx " + SCRIPT + " " + IMG + " " + STYLE + " [{{context.script}}] " + SEPARATORS
            assert text("md") == IMG + " " + COMMENT + SCRIPT      # the visible text, then the accessibility label
            assert browser.find_element(By.CSS_SELECTOR, "[data-id=md] strong").get_attribute("textContent") == IMG
            assert browser.find_element(By.CSS_SELECTOR, "[data-id=md] em").get_attribute("textContent") == COMMENT
            assert text("buy") == "Buy " + IMG + " for " + SCRIPT + " " + QUOTE + "per " + STYLE + " " + IMG + " " + COMMENT
            assert text("badge") == COMMENT + " badge"
            visible = browser.find_element(By.TAG_NAME, "body").text
            assert all(p in visible for p in PAYLOADS), visible
        else:
            assert text("plain") == "Hallo " + IMG + " " + COMMENT + " " + QUOTE
            assert text("ctx") == "ctx " + IMG + " [{{context.script}}]"
            assert text("buy") == "Kaufen " + SCRIPT + " " + SCRIPT + STYLE
        # The hostile strings reach the app exactly as written, through the page config and the bridge.
        assert sent(browser, "purchase") == [{"type": "purchase", "slot": "monthly", "storeProductId": "com.example." + SCRIPT + IMG}]
        assert sent(browser, "custom") == [{"type": "custom", "name": IMG, "payload": {"html": SCRIPT}}]
        assert sent(browser, "open_url") == []     # the hostile URL was dropped: the button is disabled
    # A document the server would not publish (javascript: URLs), rendered by `xizor render`: no URL survives.
    page_source.add_document("hostile_draft", hostile_document(JS_URL))
    open_page(browser, page_source.url("hostile_draft"))
    browser.find_element(By.CSS_SELECTOR, "[data-id=open]").click()
    assert_nothing_injected(browser)
    assert sent(browser, "open_url") == []
    assert IMG in browser.find_element(By.TAG_NAME, "body").text


def test_only_the_runtime_runs_an_injected_script_is_blocked(browser, page_source):
    # The CSP allows scripts by the runtime's hash, not 'unsafe-inline': a script that got into the
    # page (as an XSS would) does not run, while the runtime and its bridge work as before.
    url = page_source.url("clean", "light")
    html = requests.get(url, headers=page_source.headers | {"Accept": "text/html"}, timeout=30).text
    csp = html.split('http-equiv="Content-Security-Policy" content="')[1].split('"')[0].replace("&#39;", "'")
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0] and "'sha256-" in csp
    assert "connect-src" not in csp, "the page fetches nothing: no connect-src"
    injected = html.replace("<main", '<script>window.__injected = 1;</script><main', 1)
    (page_source.folder / "clean-injected.html").write_text(injected)
    open_page(browser, f"{page_source.files}/clean-injected.html")
    assert browser.execute_script("return window.__injected === undefined")
    violations = [e for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
    assert len(violations) == 1 and "script-src" in violations[0]["message"], violations
    browser.find_element(By.CSS_SELECTOR, ".xz-purchase-button").click()
    assert sent(browser, "purchase"), "the runtime's bridge still works"


BRIDGE_FIXTURE = pathlib.Path(ROOT) / "clients/swift/Tests/XizorKitTests/Fixtures/bridge-messages.json"


def test_the_swift_clients_bridge_fixture_is_what_the_page_speaks(browser, page_source):
    """XizorKit decodes and encodes exactly the messages of this fixture (its BridgeTests); here a real
    page must understand every host message and post nothing the fixture does not describe."""
    fixture = json.loads(BRIDGE_FIXTURE.read_text())
    open_page(browser, page_source.url("cinematic", "dark"))
    browser.find_element(By.CSS_SELECTOR, "[data-id=cta]").click()
    for message in fixture["host"]:
        assert browser.execute_script("return window.xizor.receive(arguments[0])", message) is True, message
    assert browser.execute_script("return window.xizor.state().closed") is True    # the last one was dismiss
    posted = messages(browser)
    assert {m["type"] for m in posted} >= {"ready", "timer_start", "purchase", "event"}
    for message in posted:
        shapes = [set(f) for f in fixture["page"] if f["type"] == message["type"]]
        assert any(set(message) <= shape for shape in shapes), f"{message} has no shape in {BRIDGE_FIXTURE.name}"


RN_PACKAGE = pathlib.Path(ROOT) / "clients/react-native"


class ReactNativeHost:
    """@xizor/react-native's PaywallBridge in a Node process (clients/react-native/test/bridge-driver.mjs),
    playing the app beside a page in Chromium: what the page posts to `window.ReactNativeWebView` goes to
    it as the string react-native-webview's `onMessage` delivers, and the scripts it injects (its
    `injectJavaScript`) are run in the page."""

    def __init__(self, browser, base, public_key, placement, subscriber):
        if not (RN_PACKAGE / "dist/core.js").exists():
            subprocess.run(["tsc", "-p", str(RN_PACKAGE)], check=True, timeout=300)
        self.browser = browser
        self.process = subprocess.Popen(["node", str(RN_PACKAGE / "test/bridge-driver.mjs"), base, public_key, placement, subscriber],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.paywall = self.read()["paywall"]
        self.received, self.injected, self.calls = [], [], []
        self.seen = 0

    def read(self):
        line = self.process.stdout.readline()
        assert line, f"the bridge driver ended (exit {self.process.poll()})"
        return json.loads(line)

    def command(self, **command):
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        while "done" not in (answer := self.read()):
            if "inject" in answer:
                self.injected.append(answer["inject"])
                self.browser.execute_script(answer["inject"])
            elif "call" in answer:
                self.calls.append(answer["call"])
            else:
                self.last = answer

    def pump(self):
        """Hands every message the page posted since the last pump to the host, in order."""
        raw = self.browser.execute_script("return window.__xzRaw")
        for message in raw[self.seen:]:
            self.received.append(json.loads(message))
            self.command(page=message)
        self.seen = len(raw)

    def close(self):
        self.process.stdin.close()
        assert self.process.wait(timeout=10) == 0


def test_the_react_native_host_drives_a_real_page(browser, page_source):
    """The React Native package's host code and a real page from the server exchange every message of the
    bridge fixture: the page through a `window.ReactNativeWebView` shim (BRIDGE_STUB with `?host=rn`), the host
    in Node; its events reach the server attributed to the page shown."""
    fixture = json.loads(BRIDGE_FIXTURE.read_text())
    app = page_source.app
    paywall_id = app.create_paywall("cinematic")
    draft, etag = app.draft(paywall_id)
    document = draft["document"]
    document["root"]["children"].append({"type": "button", "id": "faq", "label": {"en": "FAQ", "de": "FAQ"},
                                         "action": {"type": "custom", "name": "show_faq", "payload": {"section": 2}}})
    assert app.save_draft(paywall_id, document, etag).status_code == 200
    app.publish(paywall_id)
    app.assign("rn_bridge", paywall_id)

    host = ReactNativeHost(browser, page_source.live.base, app.public_key, "rn_bridge", "rn-subscriber")
    try:
        open_page(browser, f"{page_source.live.base}/v1/sdk/placements/rn_bridge/paywall?colorScheme=dark&subscriberId=rn-subscriber&host=rn")
        host.pump()                                 # ready, paywall_open, timer_start
        assert host.calls[0] == ["ready"]
        assert "49,99" in browser.find_element(By.TAG_NAME, "body").text, "the host's products are in the page"
        timer = browser.find_element(By.CSS_SELECTOR, "[data-tid=launch_offer]")
        started = requests.post(f"{page_source.live.base}/v1/sdk/timers", headers=page_source.headers,
                                json={"subscriberId": "rn-subscriber", "paywallId": paywall_id, "nodeId": "launch_offer"}).json()["startedAt"]
        assert {"type": "timer_start", "nodeId": "launch_offer", "startedAt": started} in [
            json.loads(s[s.index("(") + 1:s.rindex(");true;")]) for s in host.injected], "the server's start, injected"
        assert timer.text

        cta = browser.find_element(By.CSS_SELECTOR, "[data-id=cta]")
        cta.click()
        host.pump()                                 # purchase_started, purchase
        assert host.calls[-1] == ["purchase", "yearly", "com.example.streaming.pro.yearly"]
        assert cta.get_attribute("aria-busy") is None, "pending, then completed: the button is free again"
        for selector in ["[data-a=restore]", "[data-a=open_url]", "[data-id=faq]"]:
            browser.find_element(By.CSS_SELECTOR, selector).click()
        host.pump()
        assert host.calls[-3:] == [["restore"], ["openURL", "https://example.com/legal/privacy"], ["custom", "show_faq", {"section": 2}]]
        close = browser.find_element(By.CSS_SELECTOR, "[data-a=close]")
        wait_for(close.is_displayed, timeout=4, what="close button after dismissDelayMs")
        close.click()
        host.pump()                                 # paywall_close, close
        assert host.calls[-1] == ["close"]
        host.command(dismiss=True)                  # the app dismisses: the page is already closed, says nothing more
        assert browser.execute_script("return window.xizor.state().closed") is True
        host.pump()

        assert {m["type"] for m in host.received} == {m["type"] for m in fixture["page"]}, "every page message of the fixture"
        injected_types = {json.loads(s[s.index("(") + 1:s.rindex(");true;")])["type"] for s in host.injected}
        assert injected_types == {m["type"] for m in fixture["host"]}, "every host message of the fixture"

        host.command(flush=True)
        assert host.last["queued"] == 0, host.last
        analytics = app.dashboard.get(f"/v1/paywalls/{paywall_id}/analytics").json()["versions"][0]
        assert (analytics["impressions"], analytics["purchaseStarted"], analytics["purchaseCompleted"], analytics["closes"]) == (1, 1, 1, 1), analytics
    finally:
        host.close()
