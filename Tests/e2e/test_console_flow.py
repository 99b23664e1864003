"""Issue 17's flow through the console, in one Chromium tab, as a person would do it: sign in; create
a paywall from a template; edit a text in two locales and see the preview change; fix a validation
error found by clicking it; publish; put it on a placement with a rule; run the dry run; start an
experiment and read its results; roll back; sign out. Every step is checked through the API too, and
the browser must log no error, no CSP violation and no key in a URL (ConsoleBrowser, from
test_console.py). Screenshots of each step: flow-*.png (XIZOR_CONSOLE_SCREENSHOTS or pytest's tmp)."""
import json
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_console import ConsoleBrowser, chromium, screenshots, wait_for  # noqa: F401 (fixtures)
from test_console_editor import retype_at, saved, tab
from xizor_server import App, create_app

pytestmark = pytest.mark.driver_independent


def set_text(console, css, value):
    """Replaces a text area's or input's value and tells the page, as typing would."""
    console.driver.execute_script(
        "const e = document.querySelector(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('input')); "
        "e.dispatchEvent(new Event('change'))", css, value)


def frame_text(console):
    frame = console.find("iframe.device")
    console.driver.switch_to.frame(frame)
    try:
        return console.driver.find_element(By.TAG_NAME, "body").text
    finally:
        console.driver.switch_to.default_content()


def test_the_issues_flow_end_to_end(chromium, module_server, screenshots):  # noqa: F811
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    app = App(module_server, create_app(module_server.base, "Flow"))
    console.secrets |= {app.secret_key, app.public_key}
    other = app.create_paywall("clean", name="Other")
    app.publish(other)

    # Sign in, and create a paywall from the template gallery: it opens in the editor.
    console.sign_in(app.secret_key, expect="Paywalls")
    console.find("input[name=name]").send_keys("Flow offer")
    console.driver.find_element(By.XPATH, "//button[text()='Use Cinematic']").click()
    console.settle("Edit “Flow offer”")
    paywall = next(p for p in app.dashboard.get("/v1/paywalls").json()["items"] if p["name"] == "Flow offer")["id"]
    assert console.driver.current_url.endswith(f"#/paywalls/{paywall}")
    wait_for(lambda: (console.find("iframe.device").get_attribute("src") or "").startswith(f"{module_server.base}/v1/previews/"),
             what="the preview link in the frame")
    console.screenshot("flow-1-created")

    # Edit one text in both locales through the Locales view's columns.
    tab(console, "locales")
    row = console.find("table.texts tbody tr")
    path = row.get_attribute("data-path")
    texts = {"en": "Flow headline", "de": "Fluss-Überschrift"}
    for locale, value in texts.items():
        retype_at(console, f"table.texts tbody tr:first-child input[data-locale={locale}]", value)
        saved(console)
    stored = app.dashboard.get(f"/v1/paywalls/{paywall}/draft/texts").json()
    entry = next(t for t in stored["texts"] if t["path"] == path)
    assert entry["values"]["en"] == texts["en"] and entry["values"]["de"] == texts["de"]

    # The canvas follows the locale: the new text in German, then in English.
    tab(console, "design")
    for locale in ("de", "en"):
        before = console.find("iframe.device").get_attribute("src")
        Select(console.find("select[name=locale]")).select_by_value(locale)
        wait_for(lambda: console.find("iframe.device").get_attribute("src") != before, what=f"a new preview link for {locale}")
        wait_for(lambda: texts[locale] in frame_text(console), what=f"the {locale} text in the preview")
    console.screenshot("flow-2-preview")

    # A validation error, found by clicking it, then fixed where the click put the cursor.
    tab(console, "json")
    document = json.loads(console.find("textarea.code").get_attribute("value"))
    document["defaultLocale"] = 42
    set_text(console, "textarea.code", json.dumps(document, indent=2))
    wait_for(lambda: console.driver.find_elements(By.XPATH, "//div[@id='issues']//button[.//code[text()='$.defaultLocale']]"),
             what="the error at $.defaultLocale")
    console.driver.find_element(By.XPATH, "//div[@id='issues']//button[.//code[text()='$.defaultLocale']]").click()
    selected = console.driver.execute_script("const t = document.querySelector('textarea.code'); "
                                             "return t.value.slice(t.selectionStart, t.selectionEnd)")
    assert selected == "42"
    console.driver.execute_script("const t = document.querySelector('textarea.code'); "
                                  "t.setRangeText('\"en\"', t.selectionStart, t.selectionEnd); t.dispatchEvent(new Event('input'))")
    wait_for(lambda: "no problems" in (console.text("#issues h2") or ""), what="validation to pass again")
    console.driver.find_element(By.XPATH, "//button[text()='Save draft']").click()
    saved(console)
    assert app.draft(paywall)[0]["document"]["defaultLocale"] == "en"

    # Publish with a note.
    console.find("input[name=note]").send_keys("First cut")
    console.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
    wait_for(lambda: "Published v1" in (console.text("#status") or ""), what="v1 published")
    versions = app.dashboard.get(f"/v1/paywalls/{paywall}/versions").json()["items"]
    assert [(v["version"], v["note"]) for v in versions] == [(1, "First cut")]

    # Put it on a placement with a rule, and run the dry run.
    console.go("Placements")
    console.find("input[name=key]").send_keys("flow_spot")
    Select(console.find("select[name=target]")).select_by_visible_text("Other")
    console.driver.find_element(By.XPATH, "//button[text()='Save placement']").click()
    wait_for(lambda: console.driver.find_elements(By.ID, "placement-flow_spot"), what="the placement")
    section = console.find("section[aria-labelledby='placement-flow_spot']")
    section.find_element(By.TAG_NAME, "summary").click()
    section.find_element(By.XPATH, ".//button[text()='Add a rule']").click()
    # Each change redraws the builder (it rewrites the rules' JSON), so every field is found anew.
    section.find_element(By.CSS_SELECTOR, "input[aria-label='Rule 1 condition: key']").send_keys("plan\t")
    section.find_element(By.CSS_SELECTOR, "input[aria-label='Rule 1 condition: value']").send_keys("pro\t")
    Select(section.find_element(By.CSS_SELECTOR, "select[aria-label='Rule 1: shows']")).select_by_visible_text("Flow offer")
    section.find_element(By.XPATH, ".//button[text()='Save rules']").click()
    wait_for(lambda: "Rules saved" in (console.text("#status") or ""), what="the rules saved")
    rules = app.dashboard.get("/v1/placements/flow_spot").json()["rules"]
    assert rules == [{"when": {"key": "plan", "op": "eq", "value": "pro"}, "paywallId": paywall}]
    dry = section.find_element(By.CSS_SELECTOR, "form.inline-form")
    dry.find_element(By.NAME, "context").send_keys("plan=pro")
    dry.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "Rule 1 matched: Flow offer" in dry.text, what="the dry run's answer")
    dry.find_element(By.NAME, "context").clear()
    dry.find_element(By.NAME, "context").send_keys("plan=free")
    dry.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: "No rule matched" in dry.text and "Other" in dry.text, what="the fallback")
    console.screenshot("flow-3-placement")

    # Start an experiment and read its results.
    console.go("Experiments")
    selects = console.driver.find_elements(By.CSS_SELECTOR, "select[name=paywallId]")
    Select(selects[0]).select_by_visible_text("Flow offer")
    Select(selects[1]).select_by_visible_text("Other")
    console.find("input[name=name]").send_keys("Flow or other")
    console.driver.find_element(By.XPATH, "//button[text()='Create experiment']").click()
    wait_for(lambda: console.driver.find_elements(By.XPATH, "//h2[starts-with(., 'Flow or other')]"), what="the experiment")
    console.driver.find_element(By.XPATH, "//button[text()='Start']").click()
    wait_for(lambda: console.driver.find_elements(By.XPATH, "//h2[starts-with(., 'Flow or other')]/span[text()='running']"),
             what="the experiment running")
    experiment = app.dashboard.get("/v1/experiments").json()["items"][0]
    now = int(time.time() * 1000)
    events = []
    for n, (variant, target, converts) in enumerate([("control", paywall, True), ("control", paywall, False),
                                                     ("variant_1", other, False), ("variant_1", other, False)]):
        base = {"placement": "flow_spot", "paywallId": target, "version": 1, "subscriberId": f"s{n}", "timestamp": now,
                "experimentId": experiment["id"], "variant": variant}
        events.append({**base, "id": f"open-{n}", "name": "paywall_open"})
        if converts:
            events.append({**base, "id": f"buy-{n}", "name": "purchase_completed"})
    r = app.sdk.post("/v1/sdk/events", {"events": events})
    assert r.status_code == 202 and r.json()["accepted"] == len(events), r.text
    console.driver.find_element(By.XPATH, "//button[text()='Show results']").click()
    wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, "svg.chart circle"), what="the results chart")
    assert len(console.driver.find_elements(By.CSS_SELECTOR, "svg.chart circle")) == 2
    rows = console.driver.execute_script(
        "const table = [...document.querySelectorAll('table')].find((t) => t.caption && t.caption.textContent === 'Per variant'); "
        "return [...table.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent))")
    answer = app.dashboard.get(f"/v1/experiments/{experiment['id']}/results").json()
    assert [row[:3] for row in rows] == [[v["name"], str(v["uniqueSubscribers"]), str(v["conversions"])] for v in answer["variants"]]
    assert rows[0][3].startswith("50.0%")
    console.screenshot("flow-4-experiment")

    # Roll back: publish a change as v2, then roll back to v1 (a new version with v1's document).
    console.go("Paywalls")
    console.driver.find_element(By.LINK_TEXT, "Flow offer").click()
    console.settle("Edit “Flow offer”")
    # The change made in the Settings view: dismissable switched.
    tab(console, "settings")
    dismissable = app.draft(paywall)[0]["document"]["settings"].get("dismissable", True)
    Select(console.find("select[data-field='$.settings.dismissable']")).select_by_visible_text("No" if dismissable else "Yes")
    saved(console)
    assert app.draft(paywall)[0]["document"]["settings"]["dismissable"] is (not dismissable)
    console.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
    wait_for(lambda: "Published v2" in (console.text("#status") or ""), what="v2 published")
    wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, "button[aria-label='Roll back to v1']"), what="the versions")
    console.click_and_answer("button[aria-label='Roll back to v1']")
    wait_for(lambda: "Rolled back: v3 is live" in (console.text("#status") or ""), what="the rollback")
    versions = {v["version"]: v for v in app.dashboard.get(f"/v1/paywalls/{paywall}/versions").json()["items"]}
    assert versions[3]["rolledBackFrom"] == 1 and versions[3]["contentHash"] == versions[1]["contentHash"]
    console.screenshot("flow-5-rollback")

    # Sign out: the key is forgotten and the sign-in form is back.
    console.driver.find_element(By.XPATH, "//button[text()='Sign out']").click()
    console.settle("Sign in")
    assert console.storage_is_empty()
    console.assert_clean()
