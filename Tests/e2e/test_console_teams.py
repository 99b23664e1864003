"""People in the console (docs/teams.md), in Chromium.

A person signs in with email and password: the session is an HttpOnly, Secure, SameSite=Lax `__Host-`
cookie the page's script never sees (nothing of it in sessionStorage, localStorage or document.cookie);
the console acts on the person's app, a paywall made through it is audited as the person; signing out
ends the session on the server. A page on another origin (127.0.0.2) that posts to the console's origin,
as a form and as a fetch with credentials, changes nothing.
"""
import http.server
import json
import socketserver
import threading
import time

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_console import ConsoleBrowser, STORE, chromium, screenshots, wait_for  # noqa: F401 (fixtures)
from xizor_server import ADMIN_TOKEN, App, create_app

pytestmark = pytest.mark.driver_independent

PASSWORD = "console person password"
COOKIE = "__Host-xizor_session"


def admin(method, base, path, body=None):
    r = requests.request(method, base + path, json=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)
    assert r.status_code in (200, 201), r.text
    return r.json()


@pytest.fixture(scope="module")
def team(module_server):
    """An app with a published paywall, and its owner (a person)."""
    app = App(module_server, create_app(module_server.base, "Team app"))
    paywall = app.create_paywall("clean", name="Team paywall")
    app.publish(paywall)
    owner = admin("POST", module_server.base, "/v1/users", {"email": "owner@team.example", "password": PASSWORD})
    admin("PUT", module_server.base, f"/v1/apps/{app.id}/members/{owner['id']}", {"role": "owner"})
    return app, owner


def browser_session_cookie(console):
    cookies = console.driver.execute_cdp_cmd("Network.getCookies", {"urls": [console.base + "/"]})["cookies"]
    return next((c for c in cookies if c["name"] == COOKIE), None)


def sign_in_as_person(console, email, password):
    console.sign_out_by_storage()
    console.open()
    assert console.heading() == "Sign in"
    console.find("input[name=email]").send_keys(email)
    console.find("input[name=password]").send_keys(password)
    console.find("form[data-form=person] button[type=submit]").click()
    console.settle("Paywalls")


def test_a_person_signs_in_works_and_signs_out(chromium, module_server, screenshots, team):  # noqa: F811
    app, owner = team
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    console.secrets |= {app.secret_key, app.public_key, PASSWORD}
    sign_in_as_person(console, owner["email"], PASSWORD)
    stored = json.loads(console.stored())
    assert stored["kind"] == "person" and stored["appId"] == app.id and "token" not in stored, stored
    assert stored["user"]["email"] == owner["email"]
    # The session token is the browser's alone: HttpOnly (not in document.cookie), Secure, SameSite=Lax.
    assert console.driver.execute_script("return document.cookie") == ""
    cookie = browser_session_cookie(console)
    assert cookie and cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Lax" and cookie["path"] == "/", cookie
    console.secrets.add(cookie["value"])
    assert "Team paywall" in console.driver.find_element(By.ID, "main").text
    assert console.text("#session .who") == owner["email"]

    # A paywall made through the console is the person's, in the audit log.
    console.find("input[name=name]").send_keys("Made by a person")
    console.driver.find_element(By.XPATH, "//button[text()='Use Clean']").click()
    console.settle("Edit “Made by a person”")
    made = next(p for p in app.dashboard.get("/v1/paywalls").json()["items"] if p["name"] == "Made by a person")
    entries = app.dashboard.get("/v1/audit-log", params={"targetId": made["id"]}).json()["entries"]
    assert entries and entries[0]["actor"]["kind"] == "user" and entries[0]["actor"]["email"] == owner["email"], entries
    console.screenshot("teams-signed-in")

    # Signing out ends the session on the server, not only in the tab.
    console.find("#session button").click()
    console.settle("Sign in")
    assert console.stored() is None
    r = requests.get(module_server.base + "/v1/session", headers={"Cookie": f"{COOKIE}={cookie['value']}"}, timeout=10)
    assert r.status_code == 401 and r.json()["code"] == "invalid_session", r.text
    console.assert_clean()


ATTACK = """<!doctype html><html><body>
<form id="f" method="post" action="{target}/v1/paywalls" enctype="text/plain">
<input name='{{"template":"clean","name":"csrf form","x":"' value='"}}'>
</form>
<script>
fetch("{target}/v1/paywalls", {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: JSON.stringify({{template: "clean", name: "csrf fetch"}})}})
  .finally(() => document.getElementById("f").submit());
</script></body></html>"""


def test_a_page_on_another_origin_cannot_change_anything_with_the_session(chromium, module_server, screenshots, team):  # noqa: F811
    app, owner = team
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    console.secrets |= {app.secret_key, app.public_key, PASSWORD}
    sign_in_as_person(console, owner["email"], PASSWORD)
    cookie = browser_session_cookie(console)
    assert cookie, "signed in"
    page = ATTACK.format(target=module_server.base).encode()

    class Attack(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    with socketserver.TCPServer(("127.0.0.2", 0), Attack) as attacker:
        threading.Thread(target=attacker.serve_forever, daemon=True).start()
        try:
            console.driver.get(f"http://127.0.0.2:{attacker.server_address[1]}/")
            # The form navigates the tab to the answer: wait until it has left the attacker's page.
            wait_for(lambda: console.driver.current_url.startswith(module_server.base), timeout=10, what="the form's post")
            time.sleep(0.5)
        finally:
            attacker.shutdown()
    # The attacker's posts were refused, as they had to be: not the console's failures.
    console.expected_failures |= {("/v1/paywalls", 401), ("favicon.ico", 404)}
    names = {p["name"] for p in app.dashboard.get("/v1/paywalls").json()["items"]}
    assert not names & {"csrf form", "csrf fetch"}, names
    # The post reached the server without the session (SameSite=Lax): refused as unauthenticated.
    assert "401" in console.driver.page_source or "missing_api_key" in console.driver.page_source, console.driver.page_source[:500]
    # The session itself is untouched, and from its own origin it still works.
    r = requests.get(module_server.base + "/v1/session", headers={"Cookie": f"{COOKIE}={cookie['value']}"}, timeout=10)
    assert r.status_code == 200, r.text
    console.assert_clean()


def test_a_team_owner_invites_an_editor_who_edits_and_cannot_publish(chromium, module_server, screenshots, team):  # noqa: F811
    """The issue's team flow, in the console: the owner invites an editor (the link shown once), the editor
    joins through the link with a password of their own, makes a paywall and is refused its publish; the owner
    publishes it; the audit log says who did which."""
    app, owner = team
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    editor_email, editor_password = "editor@team.example", "editor's own password"
    console.secrets |= {app.secret_key, app.public_key, PASSWORD, editor_password}
    console.expected_failures |= {("/publish", 403)}
    sign_in_as_person(console, owner["email"], PASSWORD)
    console.go("Team")
    assert owner["email"] in console.driver.find_element(By.ID, "main").text
    console.find("input[name=inviteEmail]").send_keys(editor_email)
    Select(console.find("select[name=inviteRole]")).select_by_value("editor")
    console.driver.find_element(By.XPATH, "//button[text()='Invite']").click()
    link = wait_for(lambda: console.text("[data-testid=invitation-link]"), what="the invitation's link")
    token = link.rsplit("/", 1)[1]
    assert link == f"{module_server.base}/console#/invitation/{token}", link
    wait_for(lambda: "pending" in console.driver.find_element(By.ID, "main").text, what="the pending invitation")
    console.screenshot("teams-invited")

    # The editor, in this browser after the owner signed out: the link, a password, and the app.
    console.find("#session button").click()
    console.settle("Sign in")
    console.driver.get(link)
    console.settle("Join an app")
    # The token is a credential: it leaves the address bar (and the history) once read.
    assert console.driver.current_url.endswith("/console#/invitation"), console.driver.current_url
    console.harvest()
    console.urls = [u for u in console.urls if token not in u]   # the visit of the link itself
    console.log = [e for e in console.log if token not in e["message"]]
    console.secrets.add(token)
    console.find("input[name=password]").send_keys(editor_password)
    console.driver.find_element(By.XPATH, "//button[text()='Join']").click()
    console.settle("Paywalls")
    assert json.loads(console.stored())["user"]["email"] == editor_email
    console.find("input[name=name]").send_keys("Editor draft")
    console.driver.find_element(By.XPATH, "//button[text()='Use Clean']").click()
    console.settle("Edit “Editor draft”")
    console.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
    refused = wait_for(lambda: console.text("#main [role=alert]"), what="the refused publish")
    assert "missing_scope" in refused and "publish" in refused, refused
    console.screenshot("teams-editor-refused")
    paywall = next(p for p in app.dashboard.get("/v1/paywalls").json()["items"] if p["name"] == "Editor draft")
    assert paywall["latestVersion"] is None

    # The owner publishes it.
    console.find("#session button").click()
    console.settle("Sign in")
    sign_in_as_person(console, owner["email"], PASSWORD)
    console.driver.find_element(By.LINK_TEXT, "Editor draft").click()
    console.settle("Edit “Editor draft”")
    console.driver.find_element(By.XPATH, "//button[text()='Publish']").click()
    wait_for(lambda: "Published v1" in (console.text("#status") or ""), what="v1 published by the owner")

    # Who did what.
    entries = app.dashboard.get("/v1/audit-log", params={"targetId": paywall["id"]}).json()["entries"]
    by_action = {e["action"]: e["actor"] for e in entries}
    assert by_action["paywall.created"]["email"] == editor_email and by_action["paywall.created"]["kind"] == "user"
    assert by_action["paywall.published"]["email"] == owner["email"]
    invitation = app.dashboard.get("/v1/audit-log", params={"action": "invitation.accepted"}).json()["entries"]
    assert invitation and invitation[0]["actor"]["email"] == editor_email, invitation
    console.assert_clean()


def test_the_webhooks_and_audit_log_views(chromium, module_server, screenshots, team):  # noqa: F811
    """Webhooks: an endpoint made in the console (its secret shown once), a test event in its delivery log, a
    rotated secret. The audit log: those writes, by the person, and filtered by action."""
    app, owner = team
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    console.secrets |= {app.secret_key, app.public_key, PASSWORD}
    sign_in_as_person(console, owner["email"], PASSWORD)
    console.go("Webhooks")
    target = "https://hooks.example.com/team"
    console.find("input[name=url]").send_keys(target)
    console.find("input[name=description]").send_keys("Team hook")
    console.find("input[name=eventType][value='paywall.published']").click()
    console.driver.find_element(By.XPATH, "//button[text()='Create endpoint']").click()
    secret = wait_for(lambda: console.text("[data-testid=webhook-secret]"), what="the endpoint's secret")
    console.secrets.add(secret)
    endpoint = next(e for e in app.dashboard.get("/v1/webhooks").json()["items"] if e["url"] == target)
    assert endpoint["eventTypes"] == ["paywall.published"] and endpoint["description"] == "Team hook", endpoint
    console.find(f"button[aria-label='Test {target}']").click()
    wait_for(lambda: "webhook.test" in console.driver.find_element(By.ID, "main").text, what="the test delivery")
    text = console.click_and_answer(f"button[aria-label='Rotate the secret of {target}']")
    assert "new signing secret" in text
    rotated = wait_for(lambda: console.text("[data-testid=webhook-secret]") != secret and console.text("[data-testid=webhook-secret]"),
                       what="the new secret")
    console.secrets.add(rotated)
    console.screenshot("teams-webhooks")

    console.find("#nav a[href='#/audit']").click()
    console.settle("Audit log")
    rows = console.driver.execute_script(
        "return [...document.querySelectorAll('#main tr[data-entry]')].map((r) => [...r.cells].map((c) => c.textContent))")
    actions = {row[2]: row[1] for row in rows}
    assert actions["webhook.created"].startswith(owner["email"]) and "webhook.secret_rotated" in actions, rows
    console.find("input[name=action]").send_keys("webhook.secret_rotated")
    console.driver.find_element(By.XPATH, "//button[text()='Show']").click()
    wait_for(lambda: {r[2] for r in console.driver.execute_script(
        "return [...document.querySelectorAll('#main tr[data-entry]')].map((r) => [...r.cells].map((c) => c.textContent))")}
        == {"webhook.secret_rotated"}, what="the filtered log")
    console.assert_clean()


def test_the_consoles_lists_are_the_servers(module_server):
    """The console's fixed lists (webhook event types, key scopes, roles) are the OpenAPI document's."""
    import re
    from conftest import ROOT
    site = ROOT / "Sources" / "XizorConsole" / "Site"
    document = requests.get(module_server.base + "/openapi.json", timeout=10).json()
    schemas = document["components"]["schemas"]

    def js_list(file, name):
        text = (site / file).read_text()
        return re.findall(r'"([a-z_.]+)"', re.search(rf"const {name} = \[(.*?)\];", text, re.S).group(1))

    assert set(js_list("webhooks.js", "EVENT_TYPES")) == set(schemas["WebhookEventTypes"]["items"]["enum"]) - {"*"}
    paths = document["paths"]
    scopes = {spec.get("x-xizor-scope") for item in paths.values() for spec in item.values() if isinstance(spec, dict)} - {None}
    assert set(js_list("keys.js", "SCOPES")) == scopes
    role = paths["/v1/members/{userId}"]["put"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["role"]
    assert js_list("team.js", "ROLES") == role["enum"]


def test_the_sign_in_page_offers_what_the_server_has(chromium, module_server, screenshots, tmp_path):  # noqa: F811
    """GET /v1/session/methods: without single sign-on no button, the password form shown; with it configured
    and passwords off, the button (to /v1/session/oidc) and no password form."""
    from xizor_server import XizorServer
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    console.sign_out_by_storage()
    console.open()
    console.settle("Sign in")
    assert not console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=sso]")
    assert console.find("form[data-form=person]").is_displayed()
    assert requests.get(module_server.base + "/v1/session/methods", timeout=10).json() == {"password": True, "singleSignOn": None}
    sso = XizorServer(tmp_path / "sso", extra_env={
        "XIZOR_OIDC_ISSUER": "http://127.0.0.1:9", "XIZOR_OIDC_CLIENT_ID": "xizor",
        "XIZOR_OIDC_REDIRECT_URL": "http://127.0.0.1:9/v1/session/oidc/callback", "XIZOR_AUTH_PASSWORD_SIGN_IN": "false"})
    try:
        other = ConsoleBrowser(chromium, sso.base, screenshots)
        other.open()
        button = wait_for(lambda: other.driver.find_elements(By.CSS_SELECTOR, "[data-testid=sso]"), what="the SSO button")
        assert button[0].get_attribute("href") == sso.base + "/v1/session/oidc" and button[0].text == "Sign in with single sign-on"
        wait_for(lambda: not other.find("form[data-form=person]").is_displayed(), what="the password form hidden")
        other.assert_clean()
    finally:
        assert sso.stop() == 0


def test_the_account_view_sets_up_the_second_factor_and_ends_sessions(chromium, module_server, screenshots):  # noqa: F811
    """Account: the second factor set up from the QR code's key (a code computed here, as an app would),
    the recovery codes shown once, the session replaced; signing in then asks for the code; another
    session ended from the list. axe finds nothing serious on the view."""
    from test_console import describe, run_axe, serious
    from test_two_factor import totp
    email, password = "totp@team.example", "totp person password"
    admin("POST", module_server.base, "/v1/users", {"email": email, "password": password})
    elsewhere = requests.post(module_server.base + "/v1/session", json={"email": email, "password": password}, timeout=10)
    assert elsewhere.status_code == 201
    console = ConsoleBrowser(chromium, module_server.base, screenshots)
    console.secrets |= {password}
    console.sign_out_by_storage()
    console.open()
    console.find("input[name=email]").send_keys(email)
    console.find("input[name=password]").send_keys(password)
    console.find("form[data-form=person] button[type=submit]").click()
    console.settle()
    console.find("#nav a[href='#/account']").click()
    console.settle("Account")
    # Two sessions listed: this one, and the one signed in elsewhere, which is ended here.
    wait_for(lambda: len(console.driver.find_elements(By.CSS_SELECTOR, "#main tr[data-session]")) == 2, what="two sessions")
    console.driver.find_element(By.CSS_SELECTOR, "#main tr[data-session] button").click()
    wait_for(lambda: len(console.driver.find_elements(By.CSS_SELECTOR, "#main tr[data-session]")) == 1, what="one session left")
    other_token = elsewhere.cookies.get(COOKIE) or elsewhere.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    assert requests.get(module_server.base + "/v1/session", headers={"Cookie": f"{COOKIE}={other_token}"}, timeout=10).status_code == 401
    results = run_axe(console)
    assert not serious(results), describe(serious(results))

    console.driver.find_element(By.XPATH, "//button[text()='Set up']").click()
    secret = wait_for(lambda: console.text("[data-testid=totp-secret]"), what="the key")
    console.secrets.add(secret)
    assert console.driver.find_element(By.CSS_SELECTOR, "#main img").get_attribute("src").startswith("data:image/svg+xml;base64,")
    console.find("input[name=totpCode]").send_keys(totp(secret))
    console.driver.find_element(By.XPATH, "//button[text()='Turn on']").click()
    codes = wait_for(lambda: console.driver.find_elements(By.CSS_SELECTOR, "[data-testid=recovery-codes] li"), what="the recovery codes")
    assert len(codes) == 10
    console.secrets |= {c.text for c in codes}
    console.screenshot("teams-second-factor")
    # The session was replaced: the console goes on working with the new one.
    console.find("#nav a[href='#/account']").click()
    console.settle("Account")
    assert "Second factor: on" in console.driver.find_element(By.ID, "main").text

    # Signing in again asks for the code, then takes the next step's.
    console.find("#session button").click()
    console.settle("Sign in")
    console.expected_failures |= {("/v1/session", 401)}
    console.find("input[name=email]").send_keys(email)
    console.find("input[name=password]").send_keys(password)
    console.find("form[data-form=person] button[type=submit]").click()
    wait_for(lambda: console.find("input[name=code]").is_displayed(), what="the code asked for")
    console.find("input[name=code]").send_keys(totp(secret, offset_steps=1))
    console.find("form[data-form=person] button[type=submit]").click()
    console.settle()
    assert json.loads(console.stored())["user"]["totpEnabled"] is True
    console.assert_clean()
