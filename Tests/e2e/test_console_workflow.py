"""The console's workflows (docs/console.md) in headless Chromium driven by Selenium, on a live `xizor serve`:
the draft editor, versions, placements and their rules, experiments and analytics. Sign-in, the paywall
list, keys, apps and the HTTP layer are test_console.py's.

One Chromium and one server for the module, one app signed in to through the sign-in form (the key
typed as a user would); each test builds what it needs through the REST API first (paywalls from
templates, publishes, placements, events through `/v1/sdk/events` with the public key), acts through
the console only (clicks, typing, dialogs answered through WebDriver's alert API), and checks every
outcome against the API.

- Editor (`#/paywalls/ID`, reached from the paywall's name in the list): the draft as JSON; a wrong
  type is listed at its path by the live validation and its button selects the value in the text;
  malformed JSON is listed with its line and selects where the reader stopped; *Save draft*; a draft
  saved through the API in between (412) offers *Reload theirs* and *Overwrite with mine*, each doing
  what it says; *Publish* with a note; a refused publish (422) lists its errors; *Compare* (the API's
  operation count, the changed line side by side); *Roll back to this* (confirm) publishes the old
  document again.
- Beside the text: the structure tree's nodes select their place; the preview frame (sandboxed, on a
  preview link) shows the draft, follows a save, the locale and the device; the texts grid saves one
  locale's column.
- Placements: assign a paywall to a new key; a rule drawn in the builder (a context condition) writes
  the JSON that is saved; rules refused (an unknown operator, an unknown paywall: buttons that select
  the offending text); the dry run, matched and not.
- Experiments: create with two variants, start, results (an SVG chart with a dot per variant that has
  subscribers, the table equal to the API's results), new weights, stop, promote a winner (confirm).
- Analytics under the editor: the funnel per version equal to the API's, a bar chart per version.

The console bugs this module found each have a test of their own at the end (they were fixed):
versions listed oldest first under "newest first"; the text "null" in the validation panel, an
unpublished paywall's versions and a rules problem without paths; a texts save that leaves the
preview stale; the results chart cutting off its right-most label; the rules count and the editor's
heading not following a save.

Every test ends with the browser's console log: nothing at level SEVERE but the network entries of the
API answers the test provoked on purpose (a 412, a 422), each named by the test.

Screenshots editor.png, placements.png and experiments.png go to XIZOR_CONSOLE_SCREENSHOTS when set, else
to pytest's temporary directory (`<basetemp>/console-workflow-screenshots0/`, printed).

The console is a client of the public REST API only; what it stores goes through routes the API suites
test on both databases, so the module is `driver_independent`.
"""
import base64
import json
import time
import uuid

import pytest
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from test_console import chromium, screenshots  # noqa: F401 (fixtures: one Chromium setup for the console's tests)
from xizor_server import App, create_app

pytestmark = pytest.mark.driver_independent

DAY = 86_400_000
T0 = 1_796_000_000_000          # late 2026, inside the server's event window (xizor_server.py)

TEXTAREA = "#main textarea.code"
SET_TEXT = """const t = arguments[0]; t.value = arguments[1]; t.dispatchEvent(new Event("input", {bubbles: true}));"""
SELECTION = """const t = arguments[0];
return {start: t.selectionStart, end: t.selectionEnd, text: t.value.slice(t.selectionStart, t.selectionEnd),
        focused: document.activeElement === t};"""
# The rows of the table whose caption starts with arguments[0], inside arguments[1] (or #main).
TABLE = """const root = arguments[1] || document.querySelector("#main");
const table = [...root.querySelectorAll("table")].find((t) => t.caption && t.caption.textContent.startsWith(arguments[0]));
return table ? [...table.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent.trim())) : null;"""

SIDE_BY_SIDE = """const t = document.querySelector("#main table.side-by-side");
return t && {summary: t.parentElement.querySelector("p").textContent, caption: t.caption.textContent,
  heads: [...t.tHead.rows[0].cells].map((c) => c.textContent),
  rows: [...t.tBodies[0].rows].map((r) => [r.className, ...[...r.cells].map((c) => c.textContent)])};"""


# --- the browser -----------------------------------------------------------------------------------

# The browser and the screenshots' folder are test_console.py's fixtures (imported above).


class Console:
    """The console in one tab: navigation, waits with deadlines, and the browser's log."""

    def __init__(self, driver, base, screenshots):
        self.driver, self.base, self.screenshots = driver, base, screenshots
        self.expected_failures = set()     # (URL fragment, status) the current test provokes on purpose

    # waiting and finding
    def until(self, predicate, what, timeout=10):
        """predicate() until it answers something truthy, for at most `timeout` seconds; on timeout, an
        AssertionError with what the view and the status region say."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                                 ignored_exceptions=(StaleElementReferenceException,)).until(lambda _: predicate())
        except TimeoutException:
            shown = self.driver.execute_script("return document.querySelector('#main').innerText")
            raise AssertionError(f"timed out after {timeout} s waiting for {what}; the view says:\n{shown[:3000]}\n"
                                 f"status: {self.status()!r}") from None

    def find(self, css, root=None):
        return (root or self.driver).find_element(By.CSS_SELECTOR, css)

    def button(self, label, root=None):
        """The visible button whose text is `label` (inside `root`, else in the main region)."""
        root = root or self.find("#main")
        return self.until(lambda: next((b for b in root.find_elements(By.XPATH, f".//button[normalize-space()={json.dumps(label)}]")
                                        if b.is_displayed()), None), f"the button {label!r}")

    def heading(self):
        return self.driver.execute_script("const h = document.querySelector('#main h1'); return h && h.textContent")

    def status(self):
        return self.driver.execute_script("return document.getElementById('status').textContent")

    def table(self, caption, root=None):
        return self.driver.execute_script(TABLE, caption, root)

    # navigation
    def open(self):
        self.driver.get(f"{self.base}/console")
        self.until(self.heading, "a view's heading")

    def sign_in(self, secret_key):
        """Through the form, as a user would: the kind, the key, submit."""
        self.open()
        self.driver.execute_script("sessionStorage.clear()")
        self.open()
        assert self.heading() == "Sign in"
        Select(self.find("select[name=kind]")).select_by_value("secret")
        self.find("input[name=token]").send_keys(secret_key)
        self.find("#main form[data-form=key] button[type=submit]").click()
        self.until(lambda: self.heading() == "Paywalls" and self.find_all("#main tr[data-paywall], #main p"), "the paywalls view")

    def find_all(self, css, root=None):
        return (root or self.driver).find_elements(By.CSS_SELECTOR, css)

    def go(self, section):
        """Clicks a section in the navigation and waits for its heading (a section already shown is
        loaded again, as a user would reload it to see what the API changed meanwhile)."""
        if self.driver.execute_script("return location.hash") == f"#/{section.lower()}":
            self.driver.refresh()
        else:
            self.find(f"#nav a[href='#/{section.lower()}']").click()
        self.until(lambda: self.heading() == section, f"the {section} view")

    def open_editor(self, paywall_id, name, json_view=True):
        """From the paywall list, by clicking the paywall's name; then (`json_view`) its JSON view."""
        self.go("Paywalls")
        link = self.until(lambda: self.find_all(f"#main tr[data-paywall='{paywall_id}'] th a"), f"{paywall_id} in the list")[0]
        assert link.text == name
        link.click()
        assert self.driver.current_url.endswith(f"#/paywalls/{paywall_id}")
        self.until(lambda: self.heading() == f"Edit “{name}”", "the editor")
        self.until(lambda: self.find_all("#analytics-heading"), "the editor's last section (analytics)")
        if json_view:
            self.find("[role=tab][data-tab=json]").click()
            self.until(lambda: self.text_of(TEXTAREA), "the draft as JSON")

    def compare(self, from_, to):
        """Compares two versions (or a version and "draft") in the editor: the summary line, and the
        side-by-side table's caption, column heads and rows ([kind, left line, right line])."""
        Select(self.find("#main select[name=from]")).select_by_value(from_)
        Select(self.find("#main select[name=to]")).select_by_value(to)
        self.driver.execute_script("const t = document.querySelector('#main table.side-by-side'); if (t) t.remove();")
        self.button("Compare").click()
        return self.until(lambda: self.driver.execute_script(SIDE_BY_SIDE), f"the comparison of {from_} and {to}")

    def text_of(self, css):
        return self.driver.execute_script("const e = document.querySelector(arguments[0]); return e && e.value", css)

    def set_text(self, element, value):
        self.driver.execute_script(SET_TEXT, element, value)

    def selection(self, element):
        return self.driver.execute_script(SELECTION, element)

    def confirm(self, expected_text):
        """Accepts the window.confirm the last click opened, after checking what it asks."""
        dialog = WebDriverWait(self.driver, 5).until(expected_conditions.alert_is_present())
        assert dialog.text == expected_text
        dialog.accept()

    def screenshot(self, name):
        """The whole page as NAME.png: the viewport grown to the page's height for the capture (a
        capture beyond the viewport leaves the preview's frame blank), then restored."""
        width, height = self.driver.execute_script(
            "return [document.documentElement.clientWidth, Math.ceil(document.documentElement.scrollHeight)]")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        try:
            self.driver.execute_script("window.scrollTo(0, 0)")
            self.driver.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")
            shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        path = self.screenshots / f"{name}.png"
        path.write_bytes(base64.b64decode(shot["data"]))
        assert path.stat().st_size > 1000, path
        return path

    # the log
    def assert_clean(self):
        """No SEVERE entry in the browser's console but the network entries of the failures this test
        provoked on purpose; clears both for the next test."""
        unexpected = []
        for entry in self.driver.get_log("browser"):
            if entry["level"] != "SEVERE":
                continue
            if entry.get("source") == "network" and any(fragment in entry["message"] and f"status of {status}" in entry["message"]
                                                         for fragment, status in self.expected_failures):
                continue
            unexpected.append(f"{entry.get('source')}: {entry['message']}")
        self.expected_failures = set()
        assert not unexpected, "\n".join(unexpected)


@pytest.fixture(scope="module")
def shop(module_server):
    return App(module_server, create_app(module_server.base, "Console workflow shop"))


@pytest.fixture(scope="module")
def signed_in(chromium, module_server, screenshots, shop):
    console = Console(chromium, module_server.base, screenshots)
    console.sign_in(shop.secret_key)
    console.assert_clean()
    return console


@pytest.fixture
def console(signed_in):
    signed_in.driver.get_log("browser")     # what earlier tests left is theirs
    signed_in.expected_failures = set()
    yield signed_in


def api(response, status=200):
    assert response.status_code == status, f"{response.status_code} {response.text[:500]}"
    return response.json()


def event(name, paywall_id, version, subscriber, timestamp=T0, placement="onboarding", **extra):
    return {"id": str(uuid.uuid4()), "name": name, "timestamp": timestamp, "placement": placement,
            "paywallId": paywall_id, "version": version, "subscriberId": subscriber, **extra}


def send_events(app, events):
    answer = api(app.sdk.post("/v1/sdk/events", {"events": events}), 202)
    assert answer["accepted"] == len(events), answer


def edited(text, **changes):
    """The editor's text with top-level members changed, laid out as the console lays it out."""
    document = json.loads(text)
    document.update(changes)
    return json.dumps(document, indent=2, ensure_ascii=False)


# --- the editor and versions -----------------------------------------------------------------------

def test_the_editor_validates_saves_resolves_conflicts_publishes_compares_and_rolls_back(console, shop):
    pw = shop.create_paywall("clean", name="Editor workflow")
    console.open_editor(pw, "Editor workflow")
    draft, _ = shop.draft(pw)
    area = console.find(TEXTAREA)
    assert json.loads(area.get_property("value")) == draft["document"]
    issues = console.find("#issues")
    assert console.until(lambda: issues.find_element(By.TAG_NAME, "h2").text, "the validation heading") == "Validation: no problems"

    # A wrong type: listed by the live validation at its path; its button selects the value.
    text = area.get_property("value")
    assert text.count('"defaultLocale": "en"') == 1, text[:300]
    console.set_text(area, text.replace('"defaultLocale": "en"', '"defaultLocale": 42'))
    error = console.until(lambda: [li for li in console.find_all("#issues li.error")
                                   if li.find_element(By.TAG_NAME, "code").text == "$.defaultLocale"], "the $.defaultLocale error")[0]
    assert "expected locale tag" in error.text, error.text
    assert issues.find_element(By.TAG_NAME, "h2").text == "Validation: 1 error, 0 warnings"
    error.find_element(By.TAG_NAME, "button").click()
    selected = console.selection(area)
    assert selected["text"] == "42" and selected["focused"], selected

    # Malformed JSON: listed with its line; its button selects where the reader stopped.
    broken = area.get_property("value").replace('"defaultLocale": 42', '"defaultLocale": 42 oops')
    console.set_text(area, broken)
    line = broken[:broken.index("oops")].count("\n") + 1
    json_error = console.until(lambda: [li for li in console.find_all("#issues li.error") if "at line" in li.text], "the JSON error")[0]
    assert json_error.find_element(By.TAG_NAME, "code").text == "$"
    assert f"expected ',' or '}}' at line {line}" in json_error.text, json_error.text
    assert issues.find_element(By.TAG_NAME, "h2").text == "Validation: 1 error, 0 warnings"
    json_error.find_element(By.TAG_NAME, "button").click()
    selected = console.selection(area)
    assert selected["start"] == broken.index("oops") and selected["text"] == "o", selected

    # Fixed (and changed): no problems; saved.
    console.set_text(area, broken.replace('"defaultLocale": 42 oops', '"defaultLocale": "de"'))
    console.until(lambda: issues.find_element(By.TAG_NAME, "h2").text == "Validation: no problems", "no problems")
    console.button("Save draft").click()
    console.until(lambda: console.status() == "Saved (revision 2).", "the save")
    draft, _ = shop.draft(pw)
    assert draft["revision"] == 2 and draft["document"]["defaultLocale"] == "de"
    assert draft["document"] == json.loads(area.get_property("value"))

    # Someone saves through the API in between (noticed by the editor within seconds, or by the 412 of
    # this save): the console offers to reload theirs...
    console.expected_failures.add((f"/v1/paywalls/{pw}/draft", 412))
    theirs, etag = shop.draft(pw)
    api(shop.save_draft(pw, {**theirs["document"], "name": "Theirs"}, etag))
    console.set_text(area, edited(area.get_property("value"), name="Mine"))
    console.button("Save draft").click()
    alert = console.until(lambda: [a for a in console.find_all("#main [role=alert]") if "changed elsewhere" in a.text], "the conflict")[0]
    assert alert.find_element(By.TAG_NAME, "p").text.startswith("This draft was changed elsewhere")
    assert shop.draft(pw)[0]["document"]["name"] == "Theirs"
    console.button("Reload theirs", alert).click()
    console.until(lambda: console.status() == "Reloaded.", "the reload")
    assert json.loads(area.get_property("value")) == shop.draft(pw)[0]["document"]
    assert json.loads(area.get_property("value"))["name"] == "Theirs" and console.heading() == "Edit “Theirs”"
    assert not [a for a in console.find_all("#main [role=alert]") if "changed elsewhere" in a.text]
    assert shop.draft(pw)[0]["revision"] == 3

    # ...or to overwrite with mine.
    console.set_text(area, edited(area.get_property("value"), name="Mine"))
    theirs, etag = shop.draft(pw)
    api(shop.save_draft(pw, {**theirs["document"], "name": "Theirs again"}, etag))
    console.button("Save draft").click()
    alert = console.until(lambda: [a for a in console.find_all("#main [role=alert]") if "changed elsewhere" in a.text], "the second conflict")[0]
    assert shop.draft(pw)[0]["document"]["name"] == "Theirs again"
    console.button("Keep mine", alert).click()
    console.until(lambda: console.status() == "Saved (revision 5).", "the overwrite")
    draft, _ = shop.draft(pw)
    assert draft["document"]["name"] == "Mine" and draft["document"]["defaultLocale"] == "de"
    assert draft["document"] == json.loads(area.get_property("value"))
    assert not [a for a in console.find_all("#main [role=alert]") if "changed elsewhere" in a.text]

    # Publish with a note.
    console.find("#main input[name=note]").send_keys("Spring copy")
    console.button("Publish").click()
    rows = console.until(lambda: console.table("Published versions"), "v1 in the versions table")
    assert [[r[0], r[2], r[3]] for r in rows] == [["v1", "Spring copy", "Roll back to this"]], rows
    assert console.status() == "Published v1."
    assert console.find("#main input[name=note]").get_property("value") == ""
    listed = api(shop.dashboard.get(f"/v1/paywalls/{pw}/versions"))["items"]
    assert [(v["version"], v["note"]) for v in listed] == [(1, "Spring copy")]

    # Compare v1 with the draft after a change saved in the console: the API's operations, the lines side by side.
    console.set_text(area, edited(area.get_property("value"), name="Mine, second"))
    console.button("Save draft").click()
    console.until(lambda: console.status() == "Saved (revision 6).", "the save")
    compared = console.compare("1", "draft")
    operations = api(shop.dashboard.get(f"/v1/paywalls/{pw}/diff", params={"from": 1, "to": "draft"}))["operations"]
    assert operations == [{"op": "replace", "path": "/name", "value": "Mine, second"}], operations
    assert compared["summary"] == "1 JSON Patch operation(s) turn v1 into the draft."
    assert compared["caption"] == "1 changed line(s)" and compared["heads"] == ["v1", "the draft"]
    assert [r for r in compared["rows"] if r[0] not in ("same", "fold")] == [["changed", '  "name": "Mine",', '  "name": "Mine, second",']], compared
    assert ["fold", "⋯"] in compared["rows"], "long unchanged runs are folded"

    # v2, then back to v1: a new version with v1's document.
    console.find("#main input[name=note]").send_keys("Second name")
    console.button("Publish").click()
    console.until(lambda: len(console.table("Published versions") or []) == 2, "v2")
    assert console.status() == "Published v2."
    console.find("#main button[aria-label='Roll back to v1']").click()
    console.confirm("Publish v1's document again as a new version?")
    rows = console.until(lambda: (lambda t: t if len(t or []) == 3 else None)(console.table("Published versions")), "v3")
    assert console.status() == "Rolled back: v3 is live."
    assert sorted([r[0], r[2]] for r in rows) == [["v1", "Spring copy"], ["v2", "Second name"], ["v3 (rollback to v1)", "—"]], rows
    v1, v3 = (api(shop.dashboard.get(f"/v1/paywalls/{pw}/versions/{n}")) for n in (1, 3))
    assert v3["document"] == v1["document"] and v3["document"]["name"] == "Mine"
    assert sorted((v["version"], v["rolledBackFrom"]) for v in api(shop.dashboard.get(f"/v1/paywalls/{pw}/versions"))["items"]) == \
        [(1, None), (2, None), (3, 1)]
    # The console agrees that v3 is v1 again.
    compared = console.compare("1", "3")
    assert compared["summary"] == "0 JSON Patch operation(s) turn v1 into v3." and compared["caption"] == "No difference.", compared
    console.screenshot("workflow-editor")

    # A publish the server refuses: its errors listed by path (a draft may be invalid; a version may not).
    console.expected_failures.add((f"/v1/paywalls/{pw}/publish", 422))
    console.set_text(area, area.get_property("value").replace('"defaultLocale": "de"', '"defaultLocale": 42'))
    console.button("Save draft").click()
    console.until(lambda: shop.draft(pw)[0]["document"]["defaultLocale"] == 42, "the invalid draft saved")
    console.button("Publish").click()
    refused = console.until(lambda: [a for a in console.find_all("#main [role=alert]") if "validation_failed" in a.text], "the refusal")[0]
    assert "validation error" in refused.text, refused.text
    console.until(lambda: [li for li in console.find_all("#issues li.error")
                           if li.find_element(By.TAG_NAME, "code").text == "$.defaultLocale"], "the refused publish's error")
    assert sorted(v["version"] for v in api(shop.dashboard.get(f"/v1/paywalls/{pw}/versions"))["items"]) == [1, 2, 3]
    console.assert_clean()


# --- placements --------------------------------------------------------------------------------------

def test_placements_assign_rules_and_the_dry_run(console, shop):
    main = shop.create_paywall("clean", name="Home offer")
    target = shop.create_paywall("cinematic", name="Pro offer")
    shop.publish(main)
    shop.publish(target)
    console.go("Placements")
    console.until(lambda: Select(console.find("#main select[name=target]")).options, "the paywall choices")

    # Assign a paywall to a new key through the form.
    console.find("#main input[name=key]").send_keys("workflow_home")
    Select(console.find("#main select[name=target]")).select_by_value(f"paywall:{main}")
    console.button("Save placement").click()
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_home']"), "the new placement")[0]
    assert "Serves Home offer" in card.text, card.text
    placement = api(shop.dashboard.get("/v1/placements/workflow_home"))
    assert placement["paywallId"] == main and placement["rules"] == []

    # Valid rules, drawn in the builder: it writes the JSON beside it, which is what is saved.
    card.find_element(By.TAG_NAME, "summary").click()
    area = card.find_element(By.CSS_SELECTOR, "textarea.code")
    assert area.is_displayed() and json.loads(area.get_property("value")) == []
    console.button("Add a rule", card).click()
    labelled = lambda label: console.until(lambda: card.find_element(By.CSS_SELECTOR, f"[aria-label='{label}']"), label)
    labelled("Rule 1 condition: key").send_keys("context.plan", Keys.TAB)
    console.until(lambda: json.loads(area.get_property("value"))[0]["when"]["key"] == "context.plan", "the key in the JSON")
    labelled("Rule 1 condition: value").send_keys("pro", Keys.TAB)
    console.until(lambda: json.loads(area.get_property("value"))[0]["when"].get("value") == "pro", "the value in the JSON")
    Select(labelled("Rule 1: shows")).select_by_value(f"paywall:{target}")
    rules = [{"when": {"key": "context.plan", "op": "eq", "value": "pro"}, "paywallId": target}]
    console.until(lambda: json.loads(area.get_property("value")) == rules, "the rule in the JSON")
    console.button("Save rules", card).click()
    console.until(lambda: console.status() == "Rules saved.", "the rules saved")
    assert api(shop.dashboard.get("/v1/placements/workflow_home"))["rules"] == rules
    assert json.loads(area.get_property("value")) == rules
    assert Select(labelled("Rule 1 condition: operator")).first_selected_option.text == "eq"

    # Invalid rules: every error a button that selects its place; nothing stored.
    console.expected_failures.add(("/v1/placements/workflow_home/rules", 422))
    wrong = [{"when": {"key": "context.plan", "op": "nope", "value": "pro"}, "paywallId": "pw_nothere"}]
    console.set_text(area, json.dumps(wrong, indent=2))
    console.button("Save rules", card).click()
    buttons = console.until(lambda: card.find_elements(By.CSS_SELECTOR, "ul.issues-inline li.error button"), "the rules' errors")
    paths = [b.find_element(By.TAG_NAME, "code").text for b in buttons]
    assert sorted(paths) == ["$.rules[0].paywallId", "$.rules[0].when.op"], paths
    assert "validation_failed" in card.find_element(By.CSS_SELECTOR, "[role=alert]").text
    for path, offending in (("$.rules[0].when.op", '"nope"'), ("$.rules[0].paywallId", '"pw_nothere"')):
        buttons[paths.index(path)].click()
        selected = console.selection(area)
        assert selected["text"] == offending and selected["focused"], (path, selected)
    assert api(shop.dashboard.get("/v1/placements/workflow_home"))["rules"] == rules

    # The dry run: context that matches the rule, then context that does not.
    context = card.find_element(By.CSS_SELECTOR, "input[name=context]")
    context.send_keys("plan=pro")
    console.button("Resolve", card).click()
    answer = console.until(lambda: [n for n in card.find_elements(By.CSS_SELECTOR, ".notice") if "matched" in n.text], "the dry run")[0]
    assert answer.find_element(By.TAG_NAME, "p").text == "Rule 1 matched: Pro offer v1"
    assert [li.text for li in answer.find_elements(By.TAG_NAME, "li")] == ["Rule 1: matched"]
    context.clear()
    context.send_keys("plan=free")
    console.button("Resolve", card).click()
    answer = console.until(lambda: [n for n in card.find_elements(By.CSS_SELECTOR, ".notice") if "No rule matched" in n.text], "the fallback")[0]
    assert answer.find_element(By.TAG_NAME, "p").text == "No rule matched: the placement's own paywall answers, Home offer v1"
    assert [li.text for li in answer.find_elements(By.TAG_NAME, "li")] == [
        'Rule 1: not matched — context.plan eq "pro" did not hold: the request had "free". $.rules[0].when']
    resolved = api(shop.dashboard.get("/v1/placements/workflow_home/resolve", params={"context.plan": "free"}))
    assert resolved["fallback"] is True and resolved["paywallId"] == main
    console.screenshot("workflow-placements")
    console.assert_clean()


def test_a_placement_and_its_rule_run_an_experiment_and_the_rule_is_capped(console, shop):
    """The placement form and the rule builder serve an experiment as readily as a paywall, and a
    rule's frequency cap is drawn: what the builder writes is what is saved and read back."""
    control = shop.create_paywall("clean", name="Trial control")
    challenger = shop.create_paywall("cinematic", name="Trial challenger")
    shop.publish(control)
    shop.publish(challenger)
    exp = api(shop.dashboard.post("/v1/experiments", {"name": "Trial split", "variants": [
        {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50}]}), 201)["id"]
    console.go("Placements")
    console.until(lambda: [o for o in Select(console.find("#main select[name=target]")).options
                           if o.get_attribute("value") == f"experiment:{exp}"], "the experiment among the choices")
    console.find("#main input[name=key]").send_keys("workflow_split")
    Select(console.find("#main select[name=target]")).select_by_value(f"experiment:{exp}")
    console.button("Save placement").click()
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_split']"), "the new placement")[0]
    assert "Serves experiment Trial split (else Trial control)" in card.text, card.text
    placement = api(shop.dashboard.get("/v1/placements/workflow_split"))
    assert (placement["experimentId"], placement["paywallId"]) == (exp, control)

    card.find_element(By.TAG_NAME, "summary").click()
    area = card.find_element(By.CSS_SELECTOR, "textarea.code")
    console.button("Add a rule", card).click()
    labelled = lambda label: console.until(lambda: card.find_element(By.CSS_SELECTOR, f"[aria-label='{label}']"), label)
    labelled("Rule 1 condition: key").send_keys("context.plan", Keys.TAB)
    labelled("Rule 1 condition: value").send_keys("pro", Keys.TAB)
    console.until(lambda: json.loads(area.get_property("value"))[0]["when"].get("value") == "pro", "the value in the JSON")
    Select(labelled("Rule 1: shows")).select_by_value(f"experiment:{exp}")
    console.until(lambda: json.loads(area.get_property("value"))[0].get("experimentId") == exp, "the experiment in the JSON")
    # The period first, then the count; then another number of seconds, starting from the period's.
    cap = lambda: json.loads(area.get_property("value"))[0].get("frequencyCap")
    Select(labelled("Rule 1: per")).select_by_value("hour")
    assert cap() is None, "no count yet: no cap"
    labelled("Rule 1: at most (presentations)").send_keys("3", Keys.TAB)
    console.until(lambda: cap() == {"count": 3, "per": "hour"}, "the cap in the JSON")
    Select(labelled("Rule 1: per")).select_by_value("seconds")
    seconds = labelled("Rule 1: period in seconds")
    assert seconds.is_displayed() and seconds.get_property("value") == "3600", "the box opens on the hour it replaces"
    assert cap() == {"count": 3, "per": "hour"}, "nothing written until a number is typed"
    seconds.send_keys(Keys.CONTROL + "a")
    seconds.send_keys("7200", Keys.TAB)
    console.until(lambda: cap() == {"count": 3, "seconds": 7200}, "two hours")
    assert Select(labelled("Rule 1: per")).first_selected_option.get_attribute("value") == "seconds"
    assert labelled("Rule 1: period in seconds").get_property("value") == "7200"
    Select(labelled("Rule 1: per")).select_by_value("week")
    rules = [{"when": {"key": "context.plan", "op": "eq", "value": "pro"}, "experimentId": exp, "frequencyCap": {"count": 3, "per": "week"}}]
    console.until(lambda: json.loads(area.get_property("value")) == rules, "the rule in the JSON")
    console.button("Save rules", card).click()
    console.until(lambda: console.status() == "Rules saved.", "the rules saved")
    stored = api(shop.dashboard.get("/v1/placements/workflow_split"))["rules"]
    assert stored == [{"when": {"key": "context.plan", "op": "eq", "value": "pro"}, "paywallId": control, "experimentId": exp,
                       "frequencyCap": {"count": 3, "seconds": 604800}}], stored
    # Drawn again from what the server answered: a week, three presentations, the experiment.
    assert Select(labelled("Rule 1: per")).first_selected_option.get_attribute("value") == "week"
    assert labelled("Rule 1: at most (presentations)").get_property("value") == "3"
    assert Select(labelled("Rule 1: shows")).first_selected_option.get_attribute("value") == f"experiment:{exp}"

    # An emptied count removes the cap.
    labelled("Rule 1: at most (presentations)").clear()
    labelled("Rule 1: at most (presentations)").send_keys(Keys.TAB)
    console.until(lambda: "frequencyCap" not in json.loads(area.get_property("value"))[0], "the cap gone from the JSON")
    console.button("Save rules", card).click()
    console.until(lambda: "frequencyCap" not in api(shop.dashboard.get("/v1/placements/workflow_split"))["rules"][0], "the cap removed")
    console.assert_clean()


def test_a_rules_target_archived_since_stays_chosen_and_says_so(console, shop):
    """A rule keeps serving a paywall archived after the rule was written: its builder shows that
    target (not the first live paywall in its place), and the JSON beside it is unchanged."""
    gone = shop.create_paywall("clean", name="Archived later offer")
    home = shop.create_paywall("clean", name="Archived later home")
    shop.publish(gone)
    shop.publish(home)
    api(shop.dashboard.put("/v1/placements/workflow_later", {"paywallId": home}))
    rules = [{"when": {"key": "context.plan", "op": "eq", "value": "pro"}, "paywallId": gone}]
    api(shop.dashboard.put("/v1/placements/workflow_later/rules", {"rules": rules}))
    assert shop.dashboard.delete(f"/v1/paywalls/{gone}").status_code == 200
    console.go("Placements")
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_later']"), "the placement")[0]
    card.find_element(By.TAG_NAME, "summary").click()
    shows = Select(console.until(lambda: card.find_element(By.CSS_SELECTOR, "[aria-label='Rule 1: shows']"), "the rule's target"))
    assert shows.first_selected_option.get_attribute("value") == f"paywall:{gone}"
    assert shows.first_selected_option.text == f"{gone} (archived or unknown)"
    assert json.loads(card.find_element(By.CSS_SELECTOR, "textarea.code").get_property("value")) == rules
    console.assert_clean()


# --- audiences -------------------------------------------------------------------------------------

def test_an_audience_is_made_picked_by_a_rule_edited_and_deleted_only_when_unused(console, shop):
    """The audiences view: one made with the builder (which offers no audience inside an audience),
    picked by name in a rule's builder, its users listed, its condition edited (live on the next
    resolve), its deletion refused while a rule refers to it and allowed after."""
    target = shop.create_paywall("clean", name="DACH offer")
    home = shop.create_paywall("clean", name="Audience home")
    shop.publish(target)
    shop.publish(home)
    console.go("Audiences")
    kinds = Select(console.until(lambda: console.find_all("#main form [aria-label='New audience condition: kind']"), "the new audience's builder")[0])
    assert "audience" not in [o.get_attribute("value") for o in kinds.options], "an audience cannot refer to an audience"
    console.find("#main input[name=id]").send_keys("dach")
    console.find("#main input[name=name]").send_keys("German-speaking")
    console.button("Create audience").click()
    console.until(lambda: console.status() == "Audience dach saved.", "the audience saved")
    stored = api(shop.dashboard.get("/v1/audiences/dach"))
    assert (stored["name"], stored["condition"]) == ("German-speaking", {"key": "device.country", "op": "in", "value": ["DE", "AT", "CH"]})

    def card():
        return console.until(lambda: console.find_all("section[aria-labelledby='audience-dach']"), "the audience's card")[0]

    assert "No rule uses it yet." in card().text

    # A rule picks it by name in the placement's builder.
    api(shop.dashboard.put("/v1/placements/audience_home", {"paywallId": home}))
    console.go("Placements")
    placement = console.until(lambda: console.find_all("section[aria-labelledby='placement-audience_home']"), "the placement")[0]
    placement.find_element(By.TAG_NAME, "summary").click()
    area = placement.find_element(By.CSS_SELECTOR, "textarea.code")
    console.button("Add a rule", placement).click()
    labelled = lambda label: console.until(lambda: placement.find_element(By.CSS_SELECTOR, f"[aria-label='{label}']"), label)
    Select(labelled("Rule 1 condition: kind")).select_by_value("audience")
    Select(labelled("Rule 1 condition: audience")).select_by_visible_text("German-speaking (dach)")
    Select(labelled("Rule 1: shows")).select_by_value(f"paywall:{target}")
    rules = [{"when": {"audience": "dach"}, "paywallId": target}]
    console.until(lambda: json.loads(area.get_property("value")) == rules, "the rule in the JSON")
    console.button("Save rules", placement).click()
    console.until(lambda: console.status() == "Rules saved.", "the rules saved")
    resolve = lambda country: api(shop.dashboard.get("/v1/placements/audience_home/resolve", params={"device.country": country}))["paywallId"]
    assert resolve("CH") == target

    # Edited in its card: Switzerland leaves, and the next resolve follows.
    console.go("Audiences")
    assert "Used by audience_home rule 1." in card().text
    value = card().find_element(By.CSS_SELECTOR, "[aria-label='Audience dach condition: value']")
    value.send_keys(Keys.CONTROL + "a")   # a modifier is held to the end of its send_keys call
    value.send_keys('["DE", "AT"]', Keys.TAB)   # typed over the selection: one change
    console.button("Save dach", card()).click()
    console.until(lambda: api(shop.dashboard.get("/v1/audiences/dach"))["condition"]["value"] == ["DE", "AT"], "the condition saved")
    # A read can see the commit before the write has applied it to the serving state and answered
    # (a write is live when it answers, not when it commits; the status line is the creation's
    # until then): waited for, not assumed.
    console.until(lambda: resolve("CH") == home, "the edit live")
    assert resolve("AT") == target
    console.screenshot("workflow-audiences")

    # Deleting it is refused while the rule refers to it (the problem names the rule), then allowed.
    console.expected_failures.add(("/v1/audiences/dach", 409))
    console.button("Delete", card()).click()
    console.confirm("Delete the audience dach?")
    refused = console.until(lambda: card().find_elements(By.CSS_SELECTOR, "[role=alert]"), "the refusal")[0]
    assert "audience_in_use" in refused.text and "audience_home" in refused.text, refused.text
    api(shop.dashboard.put("/v1/placements/audience_home/rules", {"rules": []}))
    console.go("Placements")
    console.go("Audiences")
    console.button("Delete", card()).click()
    console.confirm("Delete the audience dach?")
    console.until(lambda: console.status() == "Audience dach deleted.", "the audience deleted")
    assert shop.dashboard.get("/v1/audiences/dach").status_code == 404
    console.assert_clean()


# --- experiments -----------------------------------------------------------------------------------

def test_an_experiment_from_creation_to_promotion_with_its_results(console, shop):
    control = shop.create_paywall("clean", name="Control offer")
    challenger = shop.create_paywall("cinematic", name="Challenger offer")
    shop.publish(control)
    shop.publish(challenger)
    console.go("Experiments")
    console.until(lambda: len(console.find_all("#main select[name=paywallId]")) == 2 and
                  Select(console.find("#main select[name=paywallId]")).options, "the variant rows")

    # Create: two variants, each a published paywall, 50/50.
    console.find("#main input[name=name]").send_keys("Price test")
    for select, paywall in zip(console.find_all("#main select[name=paywallId]"), (control, challenger)):
        Select(select).select_by_value(paywall)
    console.button("Create experiment").click()
    console.until(lambda: console.status() == "Experiment created.", "the experiment")
    created = [e for e in api(shop.dashboard.get("/v1/experiments"))["items"] if e["name"] == "Price test"]
    assert len(created) == 1, created
    experiment = created[0]
    exp = experiment["id"]
    assert [(v["paywallId"], v["weight"]) for v in experiment["variants"]] == [(control, 50), (challenger, 50)]
    assert experiment["status"] == "draft" and experiment["holdoutWeight"] == 0
    names = [v["name"] for v in experiment["variants"]]
    api(shop.dashboard.put("/v1/placements/workflow_trial", {"experimentId": exp}))

    def card():
        return console.until(lambda: console.find_all(f"section[aria-labelledby='exp-{exp}']"), "the experiment's card")[0]

    def badge():
        return card().find_element(By.CSS_SELECTOR, "h2 .badge").text

    assert badge() == "draft"
    assert console.table("Variants", card()) == [[names[0], "Control offer", f"Weight of {names[0]}"],
                                                  [names[1], "Challenger offer", f"Weight of {names[1]}"]]

    # Start.
    console.button("Start", card()).click()
    console.until(lambda: badge() == "running", "running")
    assert api(shop.dashboard.get(f"/v1/experiments/{exp}"))["status"] == "running"
    assert "on workflow_trial" in card().text

    # Events tagged with the experiment: control 10 subscribers, 2 buy; challenger 8, 4 buy.
    def tagged(name, variant, paywall, subscriber, **extra):
        return event(name, paywall, 1, subscriber, placement="workflow_trial", experimentId=exp, variant=variant, **extra)
    PRICE = {"price": 5, "currency": "EUR"}
    send_events(shop, [tagged("paywall_open", names[0], control, f"c{i}") for i in range(10)]
                + [tagged("purchase_completed", names[0], control, f"c{i}", properties=PRICE) for i in range(2)]
                + [tagged("paywall_open", names[1], challenger, f"k{i}") for i in range(8)]
                + [tagged("purchase_completed", names[1], challenger, f"k{i}", properties=PRICE) for i in range(4)])

    def check_results():
        console.button("Show results", card()).click()
        chart = console.until(lambda: card().find_elements(By.CSS_SELECTOR, "svg.chart"), "the results chart")[0]
        results = api(shop.dashboard.get(f"/v1/experiments/{exp}/results"))
        seen = [v for v in results["variants"] if v["uniqueSubscribers"]]
        assert len(chart.find_elements(By.CSS_SELECTOR, "circle")) == len(seen) == 2
        assert chart.get_attribute("aria-label") == "Conversion rate per variant with 95% intervals: " + ", ".join(
            f"{v['name']} {v['conversionRate'] * 100:.1f}%" for v in seen)
        assert [c.get_attribute("class") for c in chart.find_elements(By.CSS_SELECTOR, "circle")] == ["rate control", "rate"]
        rows = console.table("Per variant", card())
        assert [r[:3] for r in rows] == [[v["name"], str(v["uniqueSubscribers"]), str(v["conversions"])] for v in results["variants"]]
        assert [(v["uniqueSubscribers"], v["conversions"]) for v in results["variants"]] == [(10, 2), (8, 4)]
        for row, v in zip(rows, results["variants"]):
            low, high = v["confidenceInterval"]
            assert row[3] == f"{v['conversionRate'] * 100:.1f}% ({low * 100:.1f}–{high * 100:.1f}%)", row
            beat = v["probabilityToBeatControl"]
            assert row[4] == ("—" if beat is None else f"{beat * 100:.0f}%"), row
            assert row[5] == f"{v['probabilityToBeBest'] * 100:.0f}%", row
            purchases = lambda n: f"{n} purchase{'' if n == 1 else 's'}"
            assert row[6] == ("—" if not v["revenue"] else "; ".join(
                f"{r['amount']:.2f} {r['currency']} ({purchases(r['purchases'])}, {r['perSubscriber']:.2f} per subscriber)" for r in v["revenue"])), row
            size = v["sampleSize"]
            assert row[7] == (f"enough ({size['perVariant']} per variant)" if size["remaining"] == 0
                              else f"{size['remaining']} more of {size['perVariant']}"), row
        # Revenue from the purchases' price: 2 × 5 EUR over 10 subscribers, 4 × 5 EUR over 8.
        assert [[(r["currency"], r["amount"], r["purchases"], r["perSubscriber"]) for r in v["revenue"]] for v in results["variants"]] == \
            [[("EUR", 10, 2, 1)], [("EUR", 20, 4, 2.5)]]
        assert all(v["sampleSize"]["remaining"] > 0 for v in results["variants"]), "18 subscribers are far from enough"
        return results

    check_results()
    console.screenshot("workflow-experiments")

    # New weights.
    for name, weight in zip(names, (30, 70)):
        field = card().find_element(By.CSS_SELECTOR, f"input[name='weight-{name}']")
        field.clear()
        field.send_keys(str(weight))
    console.button("Save weights", card()).click()
    console.until(lambda: console.status() == "Re-weighted.", "the new weights")
    assert [v["weight"] for v in api(shop.dashboard.get(f"/v1/experiments/{exp}"))["variants"]] == [30, 70]
    console.until(lambda: [card().find_element(By.CSS_SELECTOR, f"input[name='weight-{n}']").get_property("value") for n in names]
                  == ["30", "70"], "the weights shown after the refresh")

    # Stop, then promote the challenger.
    console.button("Stop", card()).click()
    console.until(lambda: badge() == "stopped", "stopped")
    assert api(shop.dashboard.get(f"/v1/experiments/{exp}"))["status"] == "stopped"
    Select(card().find_element(By.CSS_SELECTOR, "select[name=winner]")).select_by_value(names[1])
    console.button("Promote", card()).click()
    console.confirm(f"Promote {names[1]} to every placement and rule of this experiment?")
    console.until(lambda: console.status() == "Promoted.", "the promotion")
    assert api(shop.dashboard.get(f"/v1/experiments/{exp}"))["winner"] == names[1]
    placement = api(shop.dashboard.get("/v1/placements/workflow_trial"))
    assert placement["paywallId"] == challenger and placement["experimentId"] is None, placement

    # The results stay readable once it is over.
    check_results()
    console.assert_clean()


# --- analytics -------------------------------------------------------------------------------------

def test_analytics_under_the_editor_match_the_api(console, shop):
    pw = shop.create_paywall("clean", name="Analytics offer")
    shop.publish(pw)
    shop.publish(pw)
    send_events(shop,
                # v1: day one 3 subscribers (one buys), day two 2 (one buys); v2: day two 4 (two buy).
                [event("paywall_open", pw, 1, s) for s in "abc"] + [event("purchase_completed", pw, 1, "a")]
                + [event("paywall_open", pw, 1, s, T0 + DAY) for s in "de"] + [event("purchase_completed", pw, 1, "d", T0 + DAY)]
                + [event("paywall_open", pw, 2, s, T0 + DAY) for s in "fghi"]
                + [event("purchase_completed", pw, 2, s, T0 + DAY) for s in "fg"])
    answer = api(shop.dashboard.get(f"/v1/paywalls/{pw}/analytics", params={"interval": "day"}))
    by_version = {v["version"]: v for v in answer["versions"]}
    assert {n: (v["impressions"], v["purchaseCompleted"]) for n, v in by_version.items()} == {1: (5, 2), 2: (4, 2)}

    console.open_editor(pw, "Analytics offer")
    section = console.find("section[aria-labelledby='analytics-heading']")
    rows = console.until(lambda: console.table("Funnel per version", section), "the funnel table")
    assert rows == [[f"v{v['version']}", str(v["impressions"]), str(v["uniqueSubscribers"]), str(v["purchaseCompleted"]),
                     "—" if v["conversion"] is None else f"{v['conversion'] * 100:.1f}%"] for v in answer["versions"]]
    assert {r[0]: r[4] for r in rows} == {"v1": "40.0%", "v2": "50.0%"}

    charts = section.find_elements(By.CSS_SELECTOR, "svg.chart")
    drawn = [v for v in answer["versions"] if v["series"]]
    assert [h.text for h in section.find_elements(By.TAG_NAME, "h3")] == [f"v{v['version']} per day" for v in drawn]
    assert len(charts) == len(drawn) == 2
    for chart, version in zip(charts, drawn):
        series = version["series"]
        assert len(chart.find_elements(By.CSS_SELECTOR, "rect")) == 2 * len(series)
        assert chart.get_attribute("aria-label") == (
            f"v{version['version']}: impressions per day {', '.join(str(p['impressions']) for p in series)}; "
            f"purchases {', '.join(str(p['purchaseCompleted']) for p in series)}")
        heights = [float(r.get_attribute("height")) for r in chart.find_elements(By.CSS_SELECTOR, "rect.bar:not(.strong)")]
        assert max(heights) == pytest.approx(140) and all(h > 0 for h, p in zip(heights, series) if p["impressions"])
    console.assert_clean()


# --- the editor's structure, preview and texts --------------------------------------------------------

def frame_text(console, frame):
    """The text the preview frame shows ("" while it loads or navigates)."""
    try:
        console.driver.switch_to.frame(frame)
        return console.driver.execute_script("return document.readyState === 'complete' && document.body ? document.body.innerText : ''")
    except WebDriverException:
        return ""
    finally:
        console.driver.switch_to.default_content()


def test_the_structure_preview_and_texts_follow_the_draft(console, shop):
    pw = shop.create_paywall("clean", name="Preview workflow")
    console.open_editor(pw, "Preview workflow")
    draft, _ = shop.draft(pw)
    area = console.find(TEXTAREA)

    # The tree: every node a row that selects it (its properties shown beside).
    console.find("[role=tab][data-tab=design]").click()
    console.find("ul.outline li[data-path='$.root.children[2]']").click()
    console.until(lambda: console.driver.execute_script("return document.getElementById('properties-heading')?.textContent") == "Text",
                  "the headline's properties")
    assert console.find("ul.outline li[data-path='$.root.children[2]']").get_attribute("aria-selected") == "true"

    # The preview: a sandboxed frame on a preview link, showing the draft, reloaded by a save.
    frame = console.find("#main iframe.device")
    assert frame.get_attribute("sandbox") == "allow-scripts"
    first = console.until(lambda: frame.get_attribute("src"), "the preview link")
    assert first.startswith(f"{console.base}/v1/previews/"), first
    console.until(lambda: "Think clearly with Notes Pro" in frame_text(console, frame), "the headline in the preview")
    heading = draft["document"]["root"]["children"][2]["text"]
    assert heading["en"] == "Think clearly with **Notes Pro**", heading
    console.find("[role=tab][data-tab=json]").click()
    document = json.loads(area.get_property("value"))
    document["root"]["children"][2]["text"]["en"] = "Think boldly with **Notes Pro**"
    console.set_text(area, json.dumps(document, indent=2, ensure_ascii=False))
    console.button("Save draft").click()
    console.until(lambda: frame.get_attribute("src") != first, "the preview reloaded after the save")
    console.find("[role=tab][data-tab=design]").click()
    console.until(lambda: "Think boldly with Notes Pro" in frame_text(console, frame), "the saved headline in the preview")
    Select(console.find("#main select[name=locale]")).select_by_value("de")
    console.until(lambda: "Klarer denken mit Notes Pro" in frame_text(console, frame), "the German preview")
    Select(console.find("#main select[name=device]")).select_by_value("tablet")
    console.until(lambda: frame.get_attribute("class") == "device tablet", "the tablet frame")
    assert frame.size["width"] > 700, frame.size

    # The Locales view's columns: a text edited in one locale is saved and previewed.
    console.find("[role=tab][data-tab=locales]").click()
    cell = "#view-panel input[data-field='$.root.children[2].text|de']"
    assert console.find(cell).get_property("value") == "Klarer denken mit **Notes Pro**"
    retype(console, cell, "Mutiger denken mit **Notes Pro**")
    console.until(lambda: shop.draft(pw)[0]["document"]["root"]["children"][2]["text"]["de"] == "Mutiger denken mit **Notes Pro**",
                  "the German text saved")
    texts = {t["path"]: t["values"] for t in api(shop.dashboard.get(f"/v1/paywalls/{pw}/draft/texts"))["texts"]}
    assert texts["$.root.children[2].text"] == {"en": "Think boldly with **Notes Pro**", "de": "Mutiger denken mit **Notes Pro**"}
    console.find("[role=tab][data-tab=design]").click()
    console.until(lambda: "Mutiger denken mit Notes Pro" in frame_text(console, frame), "the new German text previewed")
    console.assert_clean()


def retype(console, css, text):
    """Replaces a field's text and leaves it (a committed edit), finding it again if a redraw replaced it."""
    for _ in range(5):
        try:
            field = console.find(css)
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(text, Keys.TAB)
            return
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{css} kept being replaced")


# --- what the console gets wrong -------------------------------------------------------------------

def test_versions_are_listed_newest_first(console, shop):
    pw = shop.create_paywall("clean", name="Three versions")
    for note in ("first", "second", "third"):
        shop.publish(pw, json_body={"force": True, "note": note})
    assert [v["version"] for v in api(shop.dashboard.get(f"/v1/paywalls/{pw}/versions"))["items"]] == [3, 2, 1]
    console.open_editor(pw, "Three versions")
    rows = console.until(lambda: console.table("Published versions"), "the versions table")
    console.assert_clean()
    assert [[r[0], r[2]] for r in rows] == [["v3", "third"], ["v2", "second"], ["v1", "first"]], rows


def test_the_validation_panel_without_problems_shows_only_that(console, shop):
    pw = shop.create_paywall("clean", name="No problems")
    console.open_editor(pw, "No problems")
    shown = console.until(lambda: console.driver.execute_script("return document.getElementById('issues').textContent"), "the panel")
    console.assert_clean()
    assert shown == "Validation: no problems"


def test_a_texts_save_refreshes_the_preview(console, shop):
    pw = shop.create_paywall("clean", name="Texts and preview")
    console.open_editor(pw, "Texts and preview", json_view=False)
    frame = console.find("#main iframe.device")
    console.until(lambda: "Think clearly with Notes Pro" in frame_text(console, frame), "the headline in the preview")
    console.find("[role=tab][data-tab=locales]").click()
    retype(console, "#view-panel input[data-field='$.root.children[2].text|en']", "Think freely with **Notes Pro**")
    console.until(lambda: api(shop.dashboard.get(f"/v1/paywalls/{pw}/draft"))["document"]["root"]["children"][2]["text"]["en"] ==
                  "Think freely with **Notes Pro**", "the text saved")
    console.find("[role=tab][data-tab=design]").click()
    console.assert_clean()
    console.until(lambda: "Think freely with Notes Pro" in frame_text(console, frame), "the saved text in the preview", timeout=5)


def test_an_unpublished_paywalls_versions_say_only_so(console, shop):
    pw = shop.create_paywall("clean", name="Never published")
    console.open_editor(pw, "Never published")
    shown = console.until(lambda: console.driver.execute_script(
        "const h = [...document.querySelectorAll('#main h2')].find((e) => e.textContent === 'Versions'); "
        "return h && h.parentElement.textContent"), "the versions section")
    console.assert_clean()
    assert shown == "VersionsNot published yet."


def test_a_refused_form_shows_its_problem_and_the_next_submission_clears_it(console, shop):
    """The forms share one submit handler (dom.js `submitter`): a refusal is shown in the form, with
    its JSON path, and the next submission clears it before it is answered."""
    paywall = shop.create_paywall("clean", name="Soon archived offer")
    shop.publish(paywall)
    live = shop.create_paywall("clean", name="Still live offer")
    shop.publish(live)
    console.go("Placements")
    console.until(lambda: [o for o in Select(console.find("#main select[name=target]")).options if o.get_attribute("value") == f"paywall:{paywall}"],
                  "the paywall among the choices")
    assert shop.dashboard.delete(f"/v1/paywalls/{paywall}").status_code in (200, 204)
    console.expected_failures.add(("/v1/placements/workflow_refused", 422))
    console.find("#main input[name=key]").send_keys("workflow_refused")
    Select(console.find("#main select[name=target]")).select_by_value(f"paywall:{paywall}")
    console.button("Save placement").click()
    problem = console.until(lambda: console.find_all("#main form .problem"), "the problem in the form")[0]
    assert "paywall_archived" in problem.text or "archived" in problem.text, problem.text
    assert shop.dashboard.get("/v1/placements/workflow_refused").status_code == 404
    Select(console.find("#main select[name=target]")).select_by_value(f"paywall:{live}")
    console.button("Save placement").click()
    console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_refused']"), "the placement saved")
    assert console.find_all("#main form .problem") == []
    assert api(shop.dashboard.get("/v1/placements/workflow_refused"))["paywallId"] == live
    console.assert_clean()


def test_a_rules_problem_without_paths_shows_only_the_problem(console, shop):
    paywall = shop.create_paywall("clean", name="Gone placement offer")
    shop.publish(paywall)
    shop.assign("workflow_gone", paywall)
    console.go("Placements")
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_gone']"), "the placement")[0]
    card.find_element(By.TAG_NAME, "summary").click()
    assert shop.dashboard.delete("/v1/placements/workflow_gone").status_code in (200, 204)
    console.expected_failures.add(("/v1/placements/workflow_gone/rules", 404))
    console.button("Save rules", card).click()
    feedback = console.until(lambda: card.find_elements(By.CSS_SELECTOR, ".problem"), "the problem")[0].find_element(By.XPATH, "..")
    console.assert_clean()
    assert feedback.get_property("textContent") == feedback.find_element(By.CSS_SELECTOR, ".problem").get_property("textContent")


def test_every_label_of_the_results_chart_is_inside_it(console, shop):
    control, challenger = shop.create_paywall("clean", name="Label control"), shop.create_paywall("clean", name="Label challenger")
    shop.publish(control)
    shop.publish(challenger)
    exp = api(shop.dashboard.post("/v1/experiments", {"name": "Labels", "variants": [
        {"paywallId": control, "weight": 1}, {"paywallId": challenger, "weight": 1}]}), 201)["id"]
    api(shop.dashboard.post(f"/v1/experiments/{exp}/start"))
    send_events(shop, [event("paywall_open", pw, 1, f"{variant}{i}", placement="labels", experimentId=exp, variant=variant)
                       for variant, pw in (("control", control), ("variant_1", challenger)) for i in range(10)]
                + [event("purchase_completed", challenger, 1, f"variant_1{i}", placement="labels", experimentId=exp, variant="variant_1")
                   for i in range(5)])
    console.go("Experiments")
    card = console.until(lambda: console.find_all(f"section[aria-labelledby='exp-{exp}']"), "the experiment's card")[0]
    console.button("Show results", card).click()
    chart = console.until(lambda: card.find_elements(By.CSS_SELECTOR, "svg.chart"), "the results chart")[0]
    outside = console.driver.execute_script("""const svg = arguments[0], width = svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll("text")].map((t) => [t.textContent, t.getBBox()])
          .filter(([, box]) => box.x < 0 || box.x + box.width > width).map(([text, box]) => `${text}: ${box.x}..${box.x + box.width} of ${width}`);""",
                                            chart)
    console.assert_clean()
    assert outside == [], outside


def test_the_rules_summary_counts_the_saved_rules(console, shop):
    paywall = shop.create_paywall("clean", name="Counted offer")
    shop.publish(paywall)
    shop.assign("workflow_counted", paywall)
    console.go("Placements")
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-workflow_counted']"), "the placement")[0]
    summary = card.find_element(By.TAG_NAME, "summary")
    assert summary.text == "Rules of workflow_counted (0)"
    summary.click()
    rules = [{"when": {"key": "plan", "op": "eq", "value": "pro"}, "paywallId": paywall}]
    console.set_text(card.find_element(By.CSS_SELECTOR, "textarea.code"), json.dumps(rules))
    console.button("Save rules", card).click()
    console.until(lambda: console.status() == "Rules saved.", "the rules saved")
    assert api(shop.dashboard.get("/v1/placements/workflow_counted"))["rules"] == rules
    console.assert_clean()
    assert card.find_element(By.TAG_NAME, "summary").text == "Rules of workflow_counted (1)"


def test_the_editors_heading_follows_a_saved_rename(console, shop):
    pw = shop.create_paywall("clean", name="Before the rename")
    console.open_editor(pw, "Before the rename")
    area = console.find(TEXTAREA)
    console.set_text(area, edited(area.get_property("value"), name="After the rename"))
    console.button("Save draft").click()
    console.until(lambda: console.status() == "Saved (revision 2).", "the save")
    assert api(shop.dashboard.get(f"/v1/paywalls/{pw}"))["name"] == "After the rename"
    console.assert_clean()
    assert console.heading() == "Edit “After the rename”"


def test_the_revenue_view_saves_the_store_settings_and_shows_the_verified_figures(console, shop):
    """Revenue (docs/revenue.md): the settings form writes what the API reads back (the RevenueCat value
    never comes back), the URLs to paste into the stores are shown, and the table is the API's report
    after a verified purchase, which a subscriber with no presentation leaves unattributed."""
    console.go("Revenue")
    form = console.until(lambda: console.find_all("#main input[name=bundleId]"), "the settings form")[0]
    form.send_keys("com.example.workflow")
    console.find("#main input[name=appAppleId]").send_keys("1234567890")
    console.find("#main input[name=authorization]").send_keys("Bearer workflow-secret-value")
    hours = console.find("#main input[name=attributionWindowHours]")
    hours.clear()
    hours.send_keys("48")
    console.button("Save store settings").click()
    console.until(lambda: console.status() == "Store settings saved.", "the settings saved")
    settings = api(shop.dashboard.get("/v1/revenue/settings"))
    assert settings["apple"]["bundleId"] == "com.example.workflow" and settings["apple"]["appAppleId"] == 1234567890
    assert settings["revenueCat"] == {"authorizationSet": True, "webhookURL": settings["revenueCat"]["webhookURL"]}
    assert settings["attributionWindowHours"] == 48
    assert "workflow-secret-value" not in json.dumps(settings)
    assert console.find("[data-testid=apple-url]").text == settings["apple"]["notificationURL"]
    assert console.find("[data-testid=revenuecat-url]").text == settings["revenueCat"]["webhookURL"]
    assert settings["apple"]["notificationURL"].endswith(f"/v1/apps/{shop.id}/notifications/apple")
    assert console.find("#main input[name=authorization]").get_attribute("placeholder") == "set (type to replace)"

    # A purchase RevenueCat verified, by a subscriber the app never presented a paywall to.
    purchase = {"api_version": "1.0", "event": {
        "id": "evt-console-1", "type": "INITIAL_PURCHASE", "app_user_id": "never-presented", "product_id": "pro.yearly",
        "period_type": "NORMAL", "purchased_at_ms": T0, "environment": "PRODUCTION", "transaction_id": "t-console-1",
        "original_transaction_id": "t-console-1", "price_in_purchased_currency": 59.99, "currency": "EUR"}}
    r = shop.dashboard.session.post(f"{shop.dashboard.base}/v1/apps/{shop.id}/notifications/revenuecat", json=purchase,
                                    headers={"Authorization": "Bearer workflow-secret-value"}, timeout=10)
    assert r.status_code == 200 and r.json()["status"] == "stored", r.text
    console.go("Keys")
    console.go("Revenue")
    rows = console.until(lambda: console.table("Verified revenue"), "the report")
    report = api(shop.dashboard.get("/v1/revenue"))
    assert report["unattributed"]["paidConversions"] == 1 and report["attributed"]["paidConversions"] == 0
    net = lambda block: "; ".join(f"{m['net']:.2f} {m['currency']} ({m['net7d']:.2f} / {m['net30d']:.2f} / {m['net90d']:.2f})"
                                  for m in block["revenue"]) or "—"
    assert rows == [[label, str(b["trialStarts"]), str(b["trialConversions"]), str(b["paidConversions"]), str(b["refunds"]),
                     net(b), str(b["renewals"])]
                    for label, b in (("Attributed to paywalls", report["attributed"]), ("Unattributed", report["unattributed"]),
                                     ("Total", report["total"]))]
    assert rows[1][5] == "59.99 EUR (59.99 / 59.99 / 59.99)"
    console.assert_clean()


# --- the rule builder's frictions (issue 36) -------------------------------------------------------

def test_the_rule_builder_keeps_focus_and_choices_types_by_operator_and_offers_keys(console, shop):
    """Typing in the builder redraws nothing: the value keeps its focus, "Add a condition" clicked right
    after typing adds one, a chosen semver_gte stays chosen and `2.1` is saved as the string "2.1". The
    key picker offers device attributes, stored subscriber and context keys and the app's audiences
    (choosing one makes the row that audience). A number compared with a device attribute saves with the
    server's warning shown; the dry run takes every device field and its trace says what was compared."""
    pw = shop.create_paywall("clean", name="Friction offer")
    shop.publish(pw)
    shop.assign("friction_home", pw)
    api(shop.sdk.put("/v1/sdk/subscribers/fr-1/attributes", {"attributes": {"tier": "gold"}}))
    send_events(shop, [{**event("paywall_close", pw, 1, "fr-1", placement="friction_home"), "context": {"cohort": "b"}}])
    api(shop.dashboard.put("/v1/audiences/friction_dach", {"name": "Friction DACH",
                                                           "condition": {"key": "device.country", "op": "eq", "value": "DE"}}), 201)
    console.go("Placements")
    card = console.until(lambda: console.find_all("section[aria-labelledby='placement-friction_home']"), "the placement")[0]
    card.find_element(By.TAG_NAME, "summary").click()
    area = card.find_element(By.CSS_SELECTOR, "textarea.code")
    rules = lambda: json.loads(area.get_property("value"))
    labelled = lambda label: console.until(lambda: card.find_element(By.CSS_SELECTOR, f"[aria-label='{label}']"), label)
    console.button("Add a rule", card).click()
    Select(labelled("Rule 1 condition: kind")).select_by_value("all")
    key = labelled("Rule 1 condition › 1: key")
    key.send_keys("device.appVersion")
    Select(labelled("Rule 1 condition › 1: operator")).select_by_value("semver_gte")
    value = labelled("Rule 1 condition › 1: value")
    value.send_keys("2.1")
    assert console.driver.execute_script("return document.activeElement") == value, "the value keeps the focus"
    console.button("Add a condition", card).click()       # right after typing: no change event redraws it away
    second = labelled("Rule 1 condition › 2: key")
    assert value.is_displayed() and value.get_property("value") == "2.1", "the typed row is the same element"
    assert Select(labelled("Rule 1 condition › 1: operator")).first_selected_option.text == "semver_gte"
    assert rules()[0]["when"]["all"][0] == {"key": "device.appVersion", "op": "semver_gte", "value": "2.1"}
    assert len(rules()[0]["when"]["all"]) == 2

    # The key picker's choices, and an audience chosen from it.
    offered = console.driver.execute_script(
        "return [...document.getElementById(arguments[0].getAttribute('list')).options].map((o) => o.value)", second)
    for wanted in ("device.appVersion", "device.osVersion", "device.locale", "subscriber.tier", "context.cohort", "audience:friction_dach"):
        assert wanted in offered, (wanted, offered)
    second.send_keys("audience:friction_dach")
    chosen = Select(labelled("Rule 1 condition › 2: audience"))
    assert chosen.first_selected_option.get_attribute("value") == "friction_dach"
    assert rules()[0]["when"]["all"][1] == {"audience": "friction_dach"}
    Select(labelled("Rule 1: shows")).select_by_value(f"paywall:{pw}")
    console.button("Save rules", card).click()
    console.until(lambda: console.status() == "Rules saved.", "the rules saved")
    stored = api(shop.dashboard.get("/v1/placements/friction_home"))["rules"]
    assert stored[0]["when"] == {"all": [{"key": "device.appVersion", "op": "semver_gte", "value": "2.1"}, {"audience": "friction_dach"}]}

    # A number against a device attribute: saved, and the server's warning shown at its path.
    Select(labelled("Rule 1 condition › 1: operator")).select_by_value("eq")
    assert rules()[0]["when"]["all"][0]["value"] == 2.1, "eq reads 2.1 as the number it looks like"
    console.button("Save rules", card).click()
    warning = console.until(lambda: card.find_elements(By.CSS_SELECTOR, "ul.issues-inline li.warning"), "the warning")[0]
    assert "$.rules[0].when.all[0].value" in warning.text and "never matches" in warning.text, warning.text
    Select(labelled("Rule 1 condition › 1: operator")).select_by_value("semver_gte")
    console.button("Save rules", card).click()
    console.until(lambda: api(shop.dashboard.get("/v1/placements/friction_home"))["rules"][0]["when"]["all"][0]["value"] == "2.1",
                  "the version saved as a string again")

    # The dry run: every device field, and a trace in words.
    for name, text in (("appVersion", "2.0.9"), ("osVersion", "17.4"), ("locale", "de-DE"), ("country", "DE"), ("platform", "ios")):
        card.find_element(By.CSS_SELECTOR, f"input[name={name}]").send_keys(text)
    console.button("Resolve", card).click()
    answer = console.until(lambda: [n for n in card.find_elements(By.CSS_SELECTOR, ".notice") if "No rule matched" in n.text], "the dry run")[0]
    assert [li.text for li in answer.find_elements(By.CSS_SELECTOR, "ol > li")] == [
        'Rule 1: not matched — device.appVersion semver_gte "2.1" did not hold: the request had "2.0.9". $.rules[0].when.all[0]']
    console.assert_clean()


def test_saving_one_audience_keeps_what_is_being_edited_in_another(console, shop):
    """Each audience card saves alone: an unsaved edit in another card survives, and the saved card
    shows the server's warning (a number compared with a device attribute)."""
    for name in ("keep_a", "keep_b"):
        api(shop.dashboard.put(f"/v1/audiences/{name}", {"condition": {"key": "context.plan", "op": "eq", "value": "pro"}}), 201)
    console.go("Audiences")
    card = lambda name: console.until(lambda: console.find_all(f"section[aria-labelledby='audience-{name}']"), name)[0]
    other = card("keep_b").find_element(By.CSS_SELECTOR, "[aria-label='Audience keep_b condition: value']")
    other.send_keys(Keys.CONTROL + "a")
    other.send_keys("unsaved")
    key = card("keep_a").find_element(By.CSS_SELECTOR, "[aria-label='Audience keep_a condition: key']")
    key.send_keys(Keys.CONTROL + "a")
    key.send_keys("device.osVersion")
    value = card("keep_a").find_element(By.CSS_SELECTOR, "[aria-label='Audience keep_a condition: value']")
    value.send_keys(Keys.CONTROL + "a")
    value.send_keys("17")
    console.button("Save keep_a", card("keep_a")).click()
    console.until(lambda: console.status() == "Audience keep_a saved.", "keep_a saved")
    assert api(shop.dashboard.get("/v1/audiences/keep_a"))["condition"] == {"key": "device.osVersion", "op": "eq", "value": 17}
    warning = console.until(lambda: card("keep_a").find_elements(By.CSS_SELECTOR, "li.warning"), "the warning")[0]
    assert "never matches" in warning.text, warning.text
    assert other.is_displayed() and other.get_property("value") == "unsaved", "the other card was not drawn again"
    assert api(shop.dashboard.get("/v1/audiences/keep_b"))["condition"]["value"] == "pro"
    console.assert_clean()


def test_the_paywall_pickers_page_through_every_paywall(console, shop):
    """Past the first 200 paywalls, the placement form, the rules and the experiment form still offer
    every one (the pickers follow `nextCursor`)."""
    have = len(shop.dashboard.get("/v1/paywalls", params={"limit": 200}).json()["items"])
    for i in range(max(0, 201 - have)):
        shop.create_paywall("clean", name=f"Bulk {i}")
    ids = []
    cursor = None
    while True:
        page = api(shop.dashboard.get("/v1/paywalls", params={"limit": 200, **({"cursor": cursor} if cursor else {})}))
        ids += [p["id"] for p in page["items"]]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert len(ids) > 200
    console.go("Placements")
    offered = lambda: {o.get_attribute("value") for o in Select(console.find("#main select[name=target]")).options}
    console.until(lambda: len(offered()) > 200, "more than 200 choices")
    assert {f"paywall:{i}" for i in ids} <= offered()
    console.go("Experiments")
    variant = console.until(lambda: console.find_all("#main select[name=paywallId]"), "the variant pickers")[0]
    assert {o.get_attribute("value") for o in Select(variant).options} >= set(ids)
    console.assert_clean()


def test_signing_out_clears_the_status(console, shop):
    """A toast of the session that ended (the status live region) is gone after signing out; then the
    module's session is signed in again."""
    api(shop.dashboard.put("/v1/audiences/toast", {"condition": {"key": "context.plan", "op": "exists"}}), 201)
    console.go("Audiences")
    card = console.until(lambda: console.find_all("section[aria-labelledby='audience-toast']"), "the card")[0]
    console.button("Save toast", card).click()
    console.until(lambda: console.status() == "Audience toast saved.", "the toast")
    console.find("#session button").click()
    console.until(lambda: console.heading() == "Sign in", "the sign-in view")
    assert console.status() == ""
    console.sign_in(shop.secret_key)
    console.assert_clean()


@pytest.mark.parametrize("section", ["Paywalls", "Placements", "Audiences", "Experiments"])
def test_the_targeting_views_do_not_scroll_sideways_at_390_px(console, shop, section):
    """At a phone's 390 px, the paywalls, placements (rules open), audiences and experiments views fit their
    width (a wide table scrolls inside itself)."""
    console.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    try:
        console.go(section)
        console.until(lambda: console.find_all("#main section.card"), "the cards")
        for summary in console.find_all("#main details > summary"):
            console.driver.execute_script("arguments[0].parentElement.open = true", summary)
        wide = console.driver.execute_script("""return [document.documentElement.scrollWidth, document.documentElement.clientWidth,
            [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1
              && !e.closest('table, svg')).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + (e.getAttribute('aria-label') || ''))]""")
        assert wide[0] <= wide[1], wide
    finally:
        console.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    console.assert_clean()
