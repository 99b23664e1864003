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
    Select(console.find("select[name=template]")).select_by_value("clean")
    console.find("input[name=name]").send_keys("Made by a person")
    console.find("form.card button[type=submit]").click()
    wait_for(lambda: console.driver.find_elements(By.LINK_TEXT, "Made by a person"), what="the new paywall")
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
    names = {p["name"] for p in app.dashboard.get("/v1/paywalls").json()["items"]}
    assert not names & {"csrf form", "csrf fetch"}, names
    # The post reached the server without the session (SameSite=Lax): refused as unauthenticated.
    assert "401" in console.driver.page_source or "missing_api_key" in console.driver.page_source, console.driver.page_source[:500]
    # The session itself is untouched, and from its own origin it still works.
    r = requests.get(module_server.base + "/v1/session", headers={"Cookie": f"{COOKIE}={cookie['value']}"}, timeout=10)
    assert r.status_code == 200, r.text
