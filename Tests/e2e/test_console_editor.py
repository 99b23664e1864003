"""The visual editor (issue 36) in Chromium, as a designer uses it, without a keystroke in the JSON view:
the product's 60-second flow from the template gallery to a placement, checked at the end through the SDK
endpoint; each committed edit repainting the canvas (timed in the browser: the p95 is a target of `make
bench`, bench/console.bench.sh); keyboard-only editing; undo and redo across saves; an edit made elsewhere
offered as reload / keep / compare.
Screenshots: editor-*.png (XIZOR_CONSOLE_SCREENSHOTS or pytest's tmp)."""
import json
import os
import shutil
import time

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from test_console import ConsoleBrowser, chromium, screenshots, wait_for  # noqa: F401 (fixtures)
from xizor_server import App, create_app

pytestmark = pytest.mark.driver_independent

# bench/console.bench.sh names a file for the repaints' durations and asks for more edits.
REPAINT_SAMPLES = os.environ.get("XIZOR_REPAINT_SAMPLES")
EDITS = int(os.environ.get("XIZOR_REPAINT_EDITS", "10"))
WAIT_FOR_REPAINT = """const [count, done] = arguments, until = performance.now() + 10000;
const check = () => performance.getEntriesByName("xizor-repaint").length >= count ? done(true)
  : performance.now() > until ? done(false) : setTimeout(check, 25);
check();"""


@pytest.fixture(scope="module")
def console(chromium, module_server, screenshots):
    return ConsoleBrowser(chromium, module_server.base, screenshots)


@pytest.fixture(scope="module")
def studio(module_server, console):
    app = App(module_server, create_app(module_server.base, "Editor studio"))
    console.secrets |= {app.secret_key, app.public_key}
    return app


def draft_of(app, paywall_id):
    r = app.dashboard.get(f"/v1/paywalls/{paywall_id}/draft")
    assert r.status_code == 200, r.text
    return r.json()


def open_new(console, studio, template, name):
    """A paywall made from `template` through the API, opened in the editor with its canvas shown."""
    paywall_id = studio.create_paywall(template, name=name)
    console.ensure(studio.secret_key)
    console.open(f"#/paywalls/{paywall_id}")
    wait_for(lambda: frame_loads(console) >= 1, what="the canvas")
    return paywall_id


def saved(console):
    wait_for(lambda: console.driver.execute_script("return document.querySelector('.save-state')?.dataset.state") in ("saved", None)
             and console.text(".save-state") == "All changes saved", timeout=10, what="the draft saved")


def node_in_tree(console, node_id):
    return wait_for(lambda: [e for e in console.driver.find_elements(By.CSS_SELECTOR, "ul.outline li[role=treeitem]")
                             if f"#{node_id}" in e.text], what=f"#{node_id} in the tree")[0]


def selected_heading(console):
    return console.driver.execute_script("return document.getElementById('properties-heading')?.textContent ?? ''")


def click_in_canvas(console, css):
    frame = console.find("iframe.device")
    console.driver.switch_to.frame(frame)
    try:
        wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, css), what=f"{css} in the canvas")[0].click()
    finally:
        console.driver.switch_to.default_content()


def frame_loads(console):
    return int(console.find("iframe.device").get_attribute("data-loaded") or 0)


def open_details(console, path):
    """Opens the properties' group of `path` (a <details>), found again if a redraw replaced it."""
    def opened():
        box = console.find(f".properties details[data-path='{path}'], .panel details[data-path='{path}']")
        if not box.get_attribute("open"):
            box.find_element(By.TAG_NAME, "summary").click()
        return console.find(f"details[data-path='{path}']").get_attribute("open") is not None
    wait_for(opened, what=f"{path} open")


def press(console, label):
    """Clicks the button labelled `label`, found again if a redraw replaced it."""
    def pressed():
        console.driver.find_element(By.XPATH, f"//button[text()='{label}']").click()
        return True
    wait_for(pressed, what=f"the {label} button")


def choose(console, css, text):
    def chosen():
        Select(console.find(css)).select_by_visible_text(text)
        return True
    wait_for(chosen, what=f"{text} in {css}")


def retype(element, text):
    element.send_keys(Keys.CONTROL, "a")
    element.send_keys(text, Keys.TAB)


def retype_at(console, css, text):
    """Types into the field `css` names, found again if a redraw replaced it meanwhile."""
    for _ in range(5):
        try:
            return retype(console.find(css), text)
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{css} kept being replaced")


def tab(console, name):
    console.driver.find_element(By.CSS_SELECTOR, f"[role=tab][data-tab={name}]").click()


def repaints(console):
    return console.driver.execute_script("return performance.getEntriesByName('xizor-repaint').map((e) => e.duration)")


def test_the_sixty_second_flow_without_json(console, studio):
    console.ensure(studio.secret_key)
    console.open("#/paywalls")
    # New paywall from the cinematic template in the gallery: the editor opens on it.
    console.find("input[name=name]").send_keys("Cinematic spring")
    gallery = wait_for(lambda: console.driver.find_elements(By.XPATH, "//button[text()='Use Cinematic']"), what="the gallery")
    assert console.driver.find_elements(By.CSS_SELECTOR, ".gallery iframe.thumbnail"), "live thumbnails"
    gallery[0].click()
    wait_for(lambda: "#/paywalls/pw_" in console.driver.current_url, what="the editor of the new paywall")
    paywall_id = console.driver.current_url.split("#/paywalls/")[1]
    wait_for(lambda: frame_loads(console) >= 1, what="the canvas")
    console.screenshot("editor-opened")

    # Click the headline in the canvas: its node is selected.
    click_in_canvas(console, "[data-id=headline]")
    wait_for(lambda: "#headline" in selected_heading(console), what="the headline selected")
    assert node_in_tree(console, "headline").get_attribute("aria-selected") == "true"

    console.screenshot("editor")

    # Its text in en and de, side by side.
    retype_at(console, "input[aria-label='Text (en)']", "See **every** story")
    retype_at(console, "input[aria-label='Text (de)']", "Sieh **jede** Geschichte")
    # Its colour: a theme token.
    open_details(console, "$.root.children[2].style")
    choose(console, "select[data-field='$.root.children[2].style.color#kind']", "Theme: accent")
    saved(console)

    # A badge above the purchase button, from the palette, with a slide_up entrance 120 ms late.
    node_in_tree(console, "cta").click()
    wait_for(lambda: "#cta" in selected_heading(console), what="the purchase button selected")
    Select(console.find("select[aria-label='Node type to add']")).select_by_visible_text("Badge")
    Select(console.find("select[aria-label='Where to add it']")).select_by_visible_text("above the selection")
    console.find(".palette button").click()
    wait_for(lambda: selected_heading(console).startswith("Badge"), what="the new badge selected")
    saved(console)
    badge_path = console.driver.execute_script("return document.querySelector('ul.outline li[aria-selected=true]').dataset.path")
    open_details(console, f"{badge_path}.animation")
    open_details(console, f"{badge_path}.animation.entrance")
    choose(console, f"select[data-field='{badge_path}.animation.entrance.kind']", "Slide up")
    retype_at(console, f"input[data-field='{badge_path}.animation.entrance.delayMs']", "120")
    saved(console)

    # Products: separate App Store and Play ids for yearly and monthly.
    tab(console, "products")
    press(console, "Use separate App Store and Google Play ids")
    for slot in ("yearly", "monthly"):
        retype_at(console, f"input[aria-label='App Store id of {slot}']", f"com.spring.ios.{slot}")
        retype_at(console, f"input[aria-label='Google Play id of {slot}']", f"spring_{slot}")
    saved(console)

    # Locales: add fr and fill its texts in the column view.
    tab(console, "locales")
    console.find("input[name=newLocale]").send_keys("fr")
    press(console, "Add locale")
    fr = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, "table.texts input[data-locale=fr]"), what="the fr column")
    assert all("missing" in (e.get_attribute("class") or "") for e in fr), "a new locale's texts are marked missing"
    for i in range(len(fr)):
        row = f"table.texts tbody tr:nth-child({i + 1})"
        english = console.find(f"{row} input[data-locale=en]").get_attribute("value")
        retype_at(console, f"{row} input[data-locale=fr]", f"[fr] {english}")
    saved(console)
    console.screenshot("editor-locales")

    # Preview dark on a large phone.
    tab(console, "design")
    Select(console.find("select[name=device]")).select_by_value("large-phone")
    Select(console.find("select[name=colorScheme]")).select_by_value("dark")
    wait_for(lambda: "large-phone" in console.find("iframe.device").get_attribute("class"), what="the large phone")
    console.screenshot("editor-dark-large")

    # Undo one step (the last fr text), then redo it: saved both times.
    last_fr = draft_of(studio, paywall_id)["document"]
    console.find("button[aria-keyshortcuts='Control+Z']").click()
    saved(console)
    assert draft_of(studio, paywall_id)["document"] != last_fr, "undo is saved"
    console.find("button[aria-keyshortcuts='Control+Shift+Z']").click()
    saved(console)
    assert draft_of(studio, paywall_id)["document"] == last_fr, "redo is saved"

    # Publish, then serve it on a placement.
    console.find("input[name=note]").send_keys("Spring launch")
    press(console, "Publish")
    wait_for(lambda: "Published v1" in (console.text("#status") or ""), what="v1 published")
    console.find("input[name=placement]").send_keys("spring_onboarding")
    press(console, "Serve on placement")
    wait_for(lambda: "serves this paywall" in (console.text("#status") or ""), what="the placement assigned")

    # The SDK serves a version with every change.
    r = studio.sdk.get("/v1/sdk/placements/spring_onboarding/paywall")
    assert r.status_code == 200, r.text
    document = r.json()["document"]
    headline = next(n for n in document["root"]["children"] if n.get("id") == "headline")
    assert headline["text"]["en"] == "See **every** story" and headline["text"]["de"] == "Sieh **jede** Geschichte"
    assert headline["style"]["color"] == "$accent"
    assert headline["text"]["fr"].startswith("[fr] ")
    assert "fr" in document["locales"]
    children = document["root"]["children"]
    cta = next(i for i, n in enumerate(children) if n.get("id") == "cta")
    badge = children[cta - 1]
    assert badge["type"] == "badge" and badge["animation"]["entrance"] == {"kind": "slide_up", "delayMs": 120}
    # An SDK that does not say its schema version gets the App Store ids as `storeProductId`; the
    # version itself keeps both stores'.
    ids = {p["slot"]: p.get("storeProductIds") or p.get("storeProductId") for p in document["products"]}
    assert ids in ({"yearly": "com.spring.ios.yearly", "monthly": "com.spring.ios.monthly"}, {
        "yearly": {"appStore": "com.spring.ios.yearly", "googlePlay": "spring_yearly"},
        "monthly": {"appStore": "com.spring.ios.monthly", "googlePlay": "spring_monthly"}}), ids
    version = studio.dashboard.get(f"/v1/paywalls/{paywall_id}/versions/1").json()["document"]
    assert {p["slot"]: p["storeProductIds"] for p in version["products"]} == {
        "yearly": {"appStore": "com.spring.ios.yearly", "googlePlay": "spring_yearly"},
        "monthly": {"appStore": "com.spring.ios.monthly", "googlePlay": "spring_monthly"}}
    assert not console.driver.execute_script("return document.querySelector('textarea.code').dataset.dirty === 'true'")
    console.assert_clean()


@pytest.fixture
def bare_chromium():
    """A Chromium of its own, without the other tests' page probe (a script in every document, the
    preview's included, with a MutationObserver on everything): the measured editor, not the harness."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


def test_each_committed_edit_repaints_the_canvas(bare_chromium, console, module_server, studio):
    """Committed edits of one number (the gap of the root stack), each waited for until the canvas shows it
    (the console marks each repaint with the User Timing API, `xizor-repaint`), and the last one saved. How
    long a repaint takes is a speed target (p95 < 300 ms), so it is measured by `bash bench/console.bench.sh`,
    which runs this test with XIZOR_REPAINT_SAMPLES naming a file for the durations, not asserted here: on
    this machine's two cores beside the rest of the suite it measured the suite. On the Clean template: the
    Cinematic one plays a background video that headless Chromium decodes in software (docs/console.md)."""
    paywall_id = studio.create_paywall("clean", name="Repaint speed")
    # The module's other browser rests on a still view (its last canvas may be playing a video) while this
    # one measures.
    console.open("#/keys")
    driver = bare_chromium
    driver.get(f"{module_server.base}/console")
    driver.execute_script("sessionStorage.setItem('xizor.console.credential', JSON.stringify({kind: 'secret', token: arguments[0]}))",
                          studio.secret_key)
    driver.get(f"{module_server.base}/console#/paywalls/{paywall_id}")
    frame = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "iframe.device[data-loaded]"), what="the canvas")[0]
    assert frame
    driver.set_script_timeout(15)
    driver.execute_script("performance.clearMeasures('xizor-repaint')")
    for n in range(EDITS):
        gap = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "input[data-field='$.root.gap']"), what="the gap field")[0]
        try:
            retype(gap, str(10 + n))
        except StaleElementReferenceException:
            retype(driver.find_element(By.CSS_SELECTOR, "input[data-field='$.root.gap']"), str(10 + n))
        # Waited for inside the page: polling from here would compete with the page and the server for this
        # machine's two cores and be measured as their slowness.
        assert driver.execute_async_script(WAIT_FOR_REPAINT, n + 1), f"repaint {n + 1}"
    samples = driver.execute_script("return performance.getEntriesByName('xizor-repaint').map((e) => e.duration)")
    assert len(samples) >= EDITS, samples
    if REPAINT_SAMPLES:
        with open(REPAINT_SAMPLES, "w") as out:
            json.dump(samples, out)
    wait_for(lambda: draft_of(studio, paywall_id)["document"]["root"]["gap"] == 10 + EDITS - 1, what="the last edit saved")


def active_until(console, matches, key=Keys.TAB, limit=60, what="an element"):
    """Presses `key` until the focused element matches (the keyboard's way to get somewhere)."""
    for _ in range(limit):
        active = console.driver.switch_to.active_element
        if matches(active):
            return active
        active.send_keys(key)
    raise AssertionError(f"{key!r} never reached {what}")


def test_keyboard_only_select_edit_move_undo(console, studio):
    paywall_id = open_new(console, studio, "clean", "Keyboard")
    before = draft_of(studio, paywall_id)["document"]
    # Tab reaches the tree (one tab stop); the arrows select.
    active_until(console, lambda e: e.get_attribute("role") == "treeitem", what="the tree")
    active = active_until(console, lambda e: e.get_attribute("data-path") == "$.root.children[1]", key=Keys.ARROW_DOWN,
                          limit=20, what="the root's second child")
    moved = before["root"]["children"][1]
    # Alt+↓ moves it: now the third child, still selected and focused.
    active.send_keys(Keys.ALT, Keys.ARROW_DOWN)
    wait_for(lambda: console.driver.switch_to.active_element.get_attribute("data-path") == "$.root.children[2]", what="the node moved")
    saved(console)
    assert draft_of(studio, paywall_id)["document"]["root"]["children"][2] == moved
    # Select a text node with the arrows, Tab to its en field, type.
    active_until(console, lambda e: (e.text or "").startswith("Text"), key=Keys.ARROW_DOWN, what="a text node")
    active_until(console, lambda e: (e.get_attribute("aria-label") or "").endswith("(en)"), what="the text's en field")
    field = console.driver.switch_to.active_element
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys("Typed with keys", Keys.TAB)
    saved(console)

    def texts():
        return json.dumps(draft_of(studio, paywall_id)["document"]["root"])
    assert '"en": "Typed with keys"' in texts()
    # Ctrl+Z undoes it, saved.
    console.driver.switch_to.active_element.send_keys(Keys.CONTROL, "z")
    saved(console)
    assert "Typed with keys" not in texts()
    assert draft_of(studio, paywall_id)["document"]["root"]["children"][2] == moved, "only the last edit was undone"
    console.assert_clean()


def test_an_edit_made_elsewhere_is_offered_not_shown_as_a_code(console, studio):
    paywall_id = open_new(console, studio, "clean", "Two editors")
    # Someone else (an agent, over the API) renames it.
    draft = draft_of(studio, paywall_id)
    r = studio.dashboard.get(f"/v1/paywalls/{paywall_id}/draft")
    theirs = dict(draft["document"], name="Renamed by an agent")
    r = studio.save_draft(paywall_id, theirs, r.headers["ETag"])
    assert r.status_code == 200, r.text
    banner = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, ".conflict"), timeout=8, what="the banner within seconds")[0]
    assert "changed elsewhere" in banner.text and "draft_revision_mismatch" not in banner.text
    banner.find_element(By.XPATH, ".//button[text()='Compare']").click()
    assert console.driver.find_elements(By.CSS_SELECTOR, ".conflict table.side-by-side"), "compare shows theirs and mine"
    banner.find_element(By.XPATH, ".//button[text()='Reload theirs']").click()
    wait_for(lambda: "Renamed by an agent" in console.text("h1"), what="their draft loaded")
    # Then mine wins over a second outside edit: keep mine saves over it.
    r = studio.dashboard.get(f"/v1/paywalls/{paywall_id}/draft")
    r = studio.save_draft(paywall_id, dict(r.json()["document"], name="Second outside edit"), r.headers["ETag"])
    assert r.status_code == 200, r.text
    banner = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, ".conflict"), timeout=8, what="the banner again")[0]
    banner.find_element(By.XPATH, ".//button[text()='Keep mine']").click()
    saved(console)
    assert draft_of(studio, paywall_id)["document"]["name"] == "Renamed by an agent"
    console.assert_clean()


def test_the_editor_does_not_scroll_sideways_at_390_px(console, studio):
    """At a phone's width the panes stack: tree, canvas and properties each fit."""
    paywall_id = studio.create_paywall("cinematic", name="Phone width")
    console.ensure(studio.secret_key)
    console.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    try:
        console.open(f"#/paywalls/{paywall_id}")
        wait_for(lambda: frame_loads(console) >= 1, what="the canvas")
        for name in ("design", "products", "locales", "theme", "settings"):
            tab(console, name)
            wide = console.driver.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert wide[0] <= wide[1], (name, wide)
        tab(console, "design")
        console.screenshot("editor-390")
    finally:
        console.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    console.assert_clean()


DRAG = """const [from, onto, after] = arguments;
const source = document.querySelector(`ul.outline li[data-path="${from}"]`), target = document.querySelector(`ul.outline li[data-path="${onto}"]`);
const data = new DataTransfer(), box = target.getBoundingClientRect();
const at = { bubbles: true, cancelable: true, dataTransfer: data, clientX: box.left + 5, clientY: after ? box.bottom - 2 : box.top + 2 };
source.dispatchEvent(new DragEvent("dragstart", at));
target.dispatchEvent(new DragEvent("dragover", at));
target.dispatchEvent(new DragEvent("drop", at));"""

DROP_FILE = """const [css, base64, name, type] = arguments;
const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const data = new DataTransfer();
data.items.add(new File([bytes], name, { type }));
const zone = document.querySelector(css).closest(".drop");
zone.dispatchEvent(new DragEvent("dragover", { bubbles: true, cancelable: true, dataTransfer: data }));
zone.dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: data }));"""

# A 1×1 PNG: its bytes say it is an image.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def test_drag_drop_copy_paste_variables_media_and_errors_on_their_nodes(console, studio):
    """The tree's drag and drop; copy in one paywall, paste in another (fresh ids); the variable inserter;
    a file dropped on a media field uploaded to /v1/assets; an error shown on its field and as a badge on
    its node; the contrast warning."""
    first = studio.create_paywall("clean", name="Source")
    second = studio.create_paywall("clean", name="Target")
    console.ensure(studio.secret_key)
    console.open(f"#/paywalls/{first}")
    wait_for(lambda: frame_loads(console) >= 1, what="the canvas")
    before = draft_of(studio, first)["document"]["root"]["children"]

    # Drag the root's first child after its third: it becomes the third.
    console.driver.execute_script(DRAG, "$.root.children[0]", "$.root.children[2]", True)
    saved(console)
    after = draft_of(studio, first)["document"]["root"]["children"]
    assert after[2] == before[0] and after[0] == before[1] and after[1] == before[2]

    # A text: a variable inserted into its en text, then copied.
    text_path = next(f"$.root.children[{i}]" for i, n in enumerate(after) if n["type"] == "text")
    console.find(f"ul.outline li[data-path='{text_path}']").click()
    wait_for(lambda: selected_heading(console).startswith("Text"), what="the text selected")
    console.find("input[aria-label='Text (en)']").click()
    choose(console, f"select[data-field='{text_path}.text#variable']", "{{product.price}}")
    saved(console)
    index = int(text_path.split("[")[-1].rstrip("]"))
    assert "{{product.price}}" in draft_of(studio, first)["document"]["root"]["children"][index]["text"]["en"]
    press(console, "Copy")
    copied = draft_of(studio, first)["document"]["root"]["children"][index]

    # Pasted into another paywall, below its root's first child.
    console.open(f"#/paywalls/{second}")
    wait_for(lambda: frame_loads(console) >= 1, what="the other canvas")
    console.find("ul.outline li[data-path='$.root.children[0]']").click()
    press(console, "Paste below")
    saved(console)
    pasted = draft_of(studio, second)["document"]["root"]["children"][1]
    assert {k: v for k, v in pasted.items() if k != "id"} == {k: v for k, v in copied.items() if k != "id"}

    # A file dropped on an image's source: uploaded, its URL put in.
    image = next(e for e in nodes_of(draft_of(studio, second)["document"]) if e[1]["type"] == "image")[0]
    console.find(f"ul.outline li[data-path='{image}']").click()
    wait_for(lambda: selected_heading(console).startswith("Image"), what="the image selected")
    console.driver.execute_script(DROP_FILE, f"input[data-field='{image}.src']", PNG, "dot.png", "image/png")
    uploaded = wait_for(lambda: [a for a in studio.dashboard.get("/v1/assets?limit=50").json()["items"] if a["name"] == "dot.png"],
                        what="the dropped file uploaded")[0]
    wait_for(lambda: node_at(draft_of(studio, second)["document"], image)["src"] == uploaded["url"], what="the asset's URL in the image")

    # A purchase button bound to a slot the paywall lacks: the error on its field and a badge on its node.
    button = next(e for e in nodes_of(draft_of(studio, second)["document"]) if e[1]["type"] == "purchase_button")[0]
    r = studio.dashboard.get(f"/v1/paywalls/{second}/draft")
    document = r.json()["document"]
    node_at(document, button)["productSlot"] = "lifetime"
    assert studio.save_draft(second, document, r.headers["ETag"]).status_code == 200
    banner = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, ".conflict"), timeout=8, what="the outside edit")[0]
    banner.find_element(By.XPATH, ".//button[text()='Reload theirs']").click()
    row = wait_for(lambda: [e for e in console.driver.find_elements(By.CSS_SELECTOR, f"ul.outline li[data-path='{button}'] .badge.error")],
                   what="the error badge on the button's node")[0]
    assert row.text == "1 error"
    console.find(f"ul.outline li[data-path='{button}']").click()
    issue = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, f".prop[data-path='{button}.productSlot'] .field-issues .error"),
                     what="the error on the slot field")[0]
    assert "lifetime" in issue.text and "$." not in issue.text, issue.text

    # A text colour too close to its background: the contrast warning.
    open_details(console, f"{button}.style")
    choose(console, f"select[data-field='{button}.style.background#alternative']", "Colour")
    choose(console, f"select[data-field='{button}.style.background#kind']", "Custom colour")
    retype_at(console, f"input[data-field='{button}.style.background']", "#FFFFFF")
    choose(console, f"select[data-field='{button}.style.color#kind']", "Custom colour")
    retype_at(console, f"input[data-field='{button}.style.color']", "#EEEEEE")
    wait_for(lambda: "WCAG AA" in console.text(f".prop[data-path='{button}.style.color']"), what="the contrast warning")
    console.assert_clean()


def test_renaming_a_slot_or_a_token_keeps_every_reference(console, studio):
    paywall_id = open_new(console, studio, "cinematic", "References")
    tab(console, "products")
    retype_at(console, "input[aria-label='Slot 1 id']", "annual")
    saved(console)
    document = draft_of(studio, paywall_id)["document"]
    assert [p["slot"] for p in document["products"]] == ["annual", "monthly"]
    assert '"yearly"' not in json.dumps(document), "no reference to the old slot is left"
    tab(console, "theme")
    choose(console, "select[aria-label='Token to rename']", "colors: accent")
    console.find("input[aria-label='New token name']").send_keys("brand")
    press(console, "Rename token")
    saved(console)
    document = draft_of(studio, paywall_id)["document"]
    assert "brand" in document["theme"]["colors"] and "accent" not in document["theme"]["colors"]
    assert "$accent" not in json.dumps(document) and "$brand" in json.dumps(document)
    r = studio.dashboard.post("/v1/validate", document)
    assert r.status_code == 200 and r.json()["ok"] is True, r.text
    console.assert_clean()


def nodes_of(document):
    """(path, node) of every node, as the editor walks them."""
    out = []

    def walk(node, path):
        if not isinstance(node, dict) or "type" not in node:
            return
        out.append((path, node))
        for key in ("children", "pages"):
            for i, child in enumerate(node.get(key) or []):
                walk(child, f"{path}.{key}[{i}]")
        for key in ("option", "fallback"):
            walk(node.get(key), f"{path}.{key}")
    walk(document["root"], "$.root")
    return out


def node_at(document, path):
    return next(node for p, node in nodes_of(document) if p == path)
