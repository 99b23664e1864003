"""Single sign-on with OpenID Connect (issue 37), on a live server, by plain HTTP (cookies set by hand).

Two providers:

- the real `oidc-provider-mock` (authlib) on 127.0.0.1: the whole success path with a browser-less
  authorization (the form's POST with `sub`), and its "Deny" button;
- a fake provider written here (http.server on 127.0.0.1) serving discovery, a JWKS with an RS256 and an
  ES256 (P-256) key named by `kid`, an /authorize that redirects back at once, and a /token that checks the
  exchange (code, redirect_uri, PKCE S256, client authentication) and answers an ID token crafted per test.

Proven here:

- GET /v1/session/oidc answers 302 to the provider's authorization_endpoint with response_type=code,
  client_id, redirect_uri, scope "openid email", state, nonce, an S256 code_challenge, and sets
  `__Host-xizor_oidc` with exactly Path=/, Max-Age=600, HttpOnly, Secure, SameSite=Lax; without SSO settings
  it answers 404 `sso_not_configured`.
- The callback exchanges the code (PKCE verifier, redirect_uri, HTTP Basic with a client secret, else
  client_id in the form) and answers 303 to `/console#/paywalls` with a `__Host-xizor_session` session as a
  password sign-in makes (GET /v1/session names the user); RS256 and ES256 ID tokens are both accepted, and
  one 30 s past `exp` is still inside the 60 s leeway. A new account of an allowed domain gets
  XIZOR_OIDC_DEFAULT_ROLE (viewer when unset) in XIZOR_OIDC_DEFAULT_APP_ID; a second sign-in finds the same
  account; an existing account of any domain signs in; `user.signed_in` is in the instance audit log.
- Refusals: a wrong/used state or a missing/other `__Host-xizor_oidc` → 400 `sso_state_invalid`; provider
  `error=access_denied` → 401 `sso_denied`; wrong nonce, expired, signed by another key under the same kid,
  unknown kid, tampered payload, wrong aud, wrong iss, `alg: none`, HS256 with the client secret → 401
  `id_token_invalid` with a detail; `email_verified: false` or no email → 403 `sso_email_unverified`; a new
  email outside the allowed domains → 403 `sso_domain_not_allowed`; a disabled account → 403 `user_disabled`.
  No refusal sets a session cookie.
- XIZOR_AUTH_PASSWORD_SIGN_IN=false: POST /v1/session → 403 `password_sign_in_disabled`, SSO still works.
"""
import base64
import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import subprocess
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from oidc_provider_mock import User, run_server_in_thread

import drivers
from conftest import run_cli
from test_invitations import free_port
from test_teams import COOKIE, HTTP, PASSWORD, add_member, create_user, ok, post_session, problem, set_cookie_headers
from xizor_server import ADMIN_TOKEN, Client, XizorServer

OIDC_COOKIE = "__Host-xizor_oidc"
ALLOWED = "allowed.example"
CONSOLE = "/console#/paywalls"
CALLBACK_PATH = "/v1/session/oidc/callback"
B64URL = re.compile(r"[A-Za-z0-9_-]+")


# --- JOSE by hand ----------------------------------------------------------------------------------

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(value):
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def b64url_int(number, length=None):
    return b64url(number.to_bytes(length or (number.bit_length() + 7) // 8, "big"))


def pkce_challenge(verifier):
    return b64url(hashlib.sha256(verifier.encode()).digest())


class Keys:
    """The provider's RS256 and ES256 keys (published), and one more RSA key nobody publishes."""

    def __init__(self):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.other_rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwks(self):
        r = self.rsa.public_key().public_numbers()
        e = self.ec.public_key().public_numbers()
        return {"keys": [
            {"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256", "n": b64url_int(r.n), "e": b64url_int(r.e)},
            {"kty": "EC", "kid": "ec-1", "use": "sig", "alg": "ES256", "crv": "P-256",
             "x": b64url_int(e.x, 32), "y": b64url_int(e.y, 32)},
        ]}

    def sign(self, how, header, claims, client_secret=None):
        """A compact JWS of `claims`; `how`: rsa, ec, other-rsa (same kid as rsa), hs256, none, tampered."""
        alg, kid = {"rsa": ("RS256", "rsa-1"), "other-rsa": ("RS256", "rsa-1"), "tampered": ("RS256", "rsa-1"),
                    "ec": ("ES256", "ec-1"), "hs256": ("HS256", None), "none": ("none", None)}[how]
        head = {"alg": alg, "typ": "JWT", **({"kid": kid} if kid else {}), **header}
        signing_input = f"{b64url_json(head)}.{b64url_json(claims)}".encode()
        if how in ("rsa", "tampered"):
            signature = self.rsa.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        elif how == "other-rsa":
            signature = self.other_rsa.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        elif how == "ec":
            r, s = decode_dss_signature(self.ec.sign(signing_input, ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        elif how == "hs256":
            assert client_secret, "HS256 is signed with the client secret"
            signature = hmac.new(client_secret.encode(), signing_input, hashlib.sha256).digest()
        else:
            signature = b""
        token = f"{signing_input.decode()}.{b64url(signature)}"
        if how == "tampered":  # a valid signature over other claims
            head_part, _, sig_part = token.split(".")
            token = f"{head_part}.{b64url_json({**claims, 'email': 'mallory@' + ALLOWED})}.{sig_part}"
        return token


# --- the fake provider -----------------------------------------------------------------------------

class FakeProvider:
    """An OpenID provider on 127.0.0.1 whose next ID token is what the test plans (`plan`, read at /authorize).

    `clients` maps client_id → secret (None: a public client that sends client_id in the form).
    Anything wrong in the token exchange is kept in `errors` (and answered 400 invalid_grant)."""

    def __init__(self):
        self.keys = Keys()
        self.clients = {}
        self.codes = {}
        self.errors = []
        self.token_requests = []
        self.plan = {}
        self.lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                provider.guarded(provider.get, self)

            def do_POST(self):
                provider.guarded(provider.post, self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def guarded(self, method, handler):
        try:
            method(handler)
        except Exception as error:  # kept for the test to see, not lost in the server thread
            self.errors.append(f"the fake provider failed on {handler.command} {handler.path}: {error!r}")
            self.answer(handler, 500, {"error": "server_error"})

    @staticmethod
    def answer(handler, status, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else b""
        handler.send_response(status)
        if body is not None:
            handler.send_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def get(self, handler):
        url = urlparse(handler.path)
        if url.path == "/.well-known/openid-configuration":
            return self.answer(handler, 200, {
                "issuer": self.issuer, "authorization_endpoint": self.issuer + "/authorize",
                "token_endpoint": self.issuer + "/token", "jwks_uri": self.issuer + "/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"]})
        if url.path == "/jwks":
            return self.answer(handler, 200, self.keys.jwks())
        if url.path == "/authorize":
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            plan = dict(self.plan)
            back = {"state": query.get("state", "")}
            if plan.get("error"):
                back = {"error": plan["error"], "error_description": "the user said no", **back}
            else:
                code = secrets.token_urlsafe(24)
                with self.lock:
                    self.codes[code] = {"query": query, "plan": plan}
                back = {"code": code, **back}
            return self.answer(handler, 302, headers={"Location": query["redirect_uri"] + "?" + urlencode(back)})
        return self.answer(handler, 404, {"error": "not_found"})

    def post(self, handler):
        if urlparse(handler.path).path != "/token":
            return self.answer(handler, 404, {"error": "not_found"})
        length = int(handler.headers.get("Content-Length") or 0)
        form = {k: v[-1] for k, v in parse_qs(handler.rfile.read(length).decode()).items()}
        authorization = handler.headers.get("Authorization")
        self.token_requests.append({"form": form, "authorization": authorization,
                                    "content_type": handler.headers.get("Content-Type")})
        with self.lock:
            issued = self.codes.pop(form.get("code"), None)
        problems = []
        if form.get("grant_type") != "authorization_code":
            problems.append(f"grant_type {form.get('grant_type')!r}")
        if issued is None:
            problems.append(f"unknown or used code {form.get('code')!r}")
        else:
            query = issued["query"]
            client_id = query.get("client_id")
            if form.get("redirect_uri") != query.get("redirect_uri"):
                problems.append(f"redirect_uri {form.get('redirect_uri')!r} is not {query.get('redirect_uri')!r}")
            verifier = form.get("code_verifier")
            if not verifier or not 43 <= len(verifier) <= 128 or pkce_challenge(verifier) != query.get("code_challenge"):
                problems.append(f"code_verifier {verifier!r} does not match code_challenge {query.get('code_challenge')!r}")
            if client_id not in self.clients:
                problems.append(f"unknown client {client_id!r}")
            else:
                secret = self.clients[client_id]
                if secret is not None:
                    expected = "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()
                    if authorization != expected:
                        problems.append(f"client authentication {authorization!r}, expected HTTP Basic")
                    if "client_id" in form and form["client_id"] != client_id:
                        problems.append(f"client_id {form['client_id']!r}")
                else:
                    if authorization is not None:
                        problems.append(f"a public client sent Authorization {authorization!r}")
                    if form.get("client_id") != client_id:
                        problems.append(f"client_id {form.get('client_id')!r} in the form, expected {client_id!r}")
        if problems:
            self.errors.extend(problems)
            return self.answer(handler, 400, {"error": "invalid_grant", "error_description": "; ".join(problems)})
        plan = issued["plan"]
        now = int(time.time())
        email = plan.get("email", f"sso-{uuid.uuid4().hex[:10]}@{ALLOWED}")
        claims = {"iss": self.issuer, "sub": plan.get("sub", "sub-" + hashlib.sha1(email.encode()).hexdigest()[:16]),
                  "aud": client_id, "iat": now, "exp": now + 300, "nonce": issued["query"].get("nonce"),
                  "email": email, "email_verified": True}
        claims.update(plan.get("claims", {}))
        claims = {k: v for k, v in claims.items() if v is not None}
        token = self.keys.sign(plan.get("sign", "rsa"), plan.get("header", {}), claims, self.clients.get(client_id))
        return self.answer(handler, 200, {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer",
                                          "expires_in": 300, "id_token": token})


# --- the flow --------------------------------------------------------------------------------------

def set_cookies(response):
    """{name: (value, [attributes as written])} of every Set-Cookie of `response`."""
    out = {}
    for header in set_cookie_headers(response):
        first, *attributes = [part.strip() for part in header.split(";")]
        name, _, value = first.partition("=")
        assert name not in out, f"two Set-Cookie for {name}: {set_cookie_headers(response)}"
        out[name] = (value, attributes)
    return out


class Login:
    """GET /v1/session/oidc answered 302: the provider URL, its query and the browser-binding cookie."""

    def __init__(self, base):
        r = HTTP.get(base + "/v1/session/oidc", allow_redirects=False, timeout=30)
        assert r.status_code == 302, f"GET /v1/session/oidc: {r.status_code} {r.text[:400]}"
        self.response = r
        self.location = r.headers["Location"]
        raw = parse_qs(urlparse(self.location).query, keep_blank_values=True)
        assert all(len(v) == 1 for v in raw.values()), self.location
        self.query = {k: v[0] for k, v in raw.items()}
        cookies = set_cookies(r)
        assert OIDC_COOKIE in cookies, f"no {OIDC_COOKIE} cookie: {set_cookie_headers(r)}"
        self.cookie, self.cookie_attributes = cookies[OIDC_COOKIE]
        self.state = self.query.get("state")


def callback(url, cookie):
    """GET the callback URL as the browser would, with `__Host-xizor_oidc` (None: without)."""
    headers = {"Cookie": f"{OIDC_COOKIE}={cookie}"} if cookie is not None else {}
    return HTTP.get(url, headers=headers, allow_redirects=False, timeout=30)


def with_query(url, **changes):
    parts = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    query.update(changes)
    return parts._replace(query=urlencode(query)).geturl()


def through_fake(server, fake, plan=None):
    """Starts a login, lets the fake provider answer, and returns (login, callback URL)."""
    fake.plan = plan or {}
    login = Login(server.base)
    r = HTTP.get(login.location, allow_redirects=False, timeout=30)
    assert r.status_code == 302, r.text
    url = r.headers["Location"]
    assert url.startswith(server.redirect_url + "?"), (url, server.redirect_url)
    return login, url


def sso(server, fake, plan=None):
    """The whole sign-in through the fake provider: the callback's response."""
    login, url = through_fake(server, fake, plan)
    return callback(url, login.cookie)


def signed_in(base, response):
    """Asserts the callback signed in (303 to the console, a session cookie as a password sign-in sets) and
    returns (session token, GET /v1/session body)."""
    where = f"{response.request.method} {response.request.url}"
    assert response.status_code == 303, f"{where}: {response.status_code} {response.text[:400]}"
    assert urljoin(base + "/", response.headers["Location"]) == base + CONSOLE, response.headers["Location"]
    cookies = set_cookies(response)
    assert COOKIE in cookies, f"{where}: no session cookie: {set_cookie_headers(response)}"
    token, attributes = cookies[COOKIE]
    assert re.fullmatch(r"xs_[A-Za-z0-9_-]{43}", token), token
    assert sorted(a for a in attributes if not a.startswith("Max-Age=")) == sorted(["Path=/", "HttpOnly", "Secure", "SameSite=Lax"]), attributes
    assert len(attributes) == 5, attributes
    me = HTTP.get(base + "/v1/session", headers={"Cookie": f"{COOKIE}={token}"}, timeout=30)
    assert me.status_code == 200, me.text
    return token, me.json()


def refused(response, status, code):
    body = problem(response, status, code)
    assert COOKIE not in set_cookies(response), set_cookie_headers(response)
    return body


def instance_audit(data_dir, action):
    """(target_id, user_id) of the instance-wide (app-less) audit entries with `action`."""
    sql = f"SELECT target_id, user_id FROM audit_log WHERE app_id IS NULL AND action = '{action}' ORDER BY seq"
    if drivers.DRIVER == "sqlite":
        db = sqlite3.connect(data_dir / "xizor.sqlite", timeout=10)
        try:
            return [tuple(row) for row in db.execute(sql)]
        finally:
            db.close()
    out = subprocess.run(["psql", drivers.database_url(data_dir), "-v", "ON_ERROR_STOP=1", "-AtF", "\t", "-c", sql],
                         check=True, capture_output=True, text=True).stdout
    return [tuple(line.split("\t")) for line in out.splitlines() if line]


def start_sso_server(data_dir, issuer, client_id, secret=None, app_id=None, role=None, extra=None):
    """A server with SSO on a port chosen first (the redirect URL names it)."""
    port = free_port()
    redirect_url = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    env = {"XIZOR_OIDC_ISSUER": issuer, "XIZOR_OIDC_CLIENT_ID": client_id, "XIZOR_OIDC_CLIENT_SECRET": secret,
           "XIZOR_OIDC_ALLOWED_DOMAINS": ALLOWED, "XIZOR_OIDC_REDIRECT_URL": redirect_url,
           "XIZOR_OIDC_DEFAULT_APP_ID": app_id, "XIZOR_OIDC_DEFAULT_ROLE": role, **(extra or {})}
    server = XizorServer(data_dir, extra_env=env, args=("--port", str(port)))
    assert server.port == port, (server.port, port)
    server.redirect_url = redirect_url
    server.client_id, server.secret = client_id, secret
    return server


def cli_app(data_dir, name):
    created = json.loads(run_cli("apps", "create", name, "--data-dir", str(data_dir)).stdout)
    return created["appId"]


def user_emails(base):
    """Every user's email (GET /v1/users, all pages)."""
    emails, cursor = [], None
    while True:
        page = ok(Client(base, ADMIN_TOKEN).get("/v1/users", params={"limit": 100, **({"cursor": cursor} if cursor else {})}), 200)
        emails += [u["email"] for u in page["users"]]
        cursor = page.get("nextCursor")
        if not cursor:
            return emails


def new_email(domain=ALLOWED, tag="sso"):
    return f"{tag}-{uuid.uuid4().hex[:10]}@{domain}"


# --- fixtures --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fake():
    provider = FakeProvider()
    yield provider
    provider.close()


@pytest.fixture(autouse=True)
def exchanges_are_right(request):
    """Every token exchange a test made with the fake provider was right (PKCE, redirect_uri, client auth)."""
    if "fake" not in request.fixturenames:
        yield
        return
    provider = request.getfixturevalue("fake")
    provider.errors.clear()
    yield
    assert provider.errors == [], f"the server's token request was wrong: {provider.errors}"


@pytest.fixture(scope="module")
def sso_server(fake, tmp_path_factory):
    """SSO through the fake provider with a client secret; new accounts land in an app with the default role."""
    data = tmp_path_factory.mktemp("sso") / "data"
    data.mkdir()
    app_name = f"SSO {uuid.uuid4().hex[:8]}"
    app_id = cli_app(data, app_name)
    fake.clients["xizor-confidential"] = "s3cret-" + secrets.token_urlsafe(16)
    server = start_sso_server(data, fake.issuer, "xizor-confidential", fake.clients["xizor-confidential"], app_id=app_id)
    server.app_id, server.app_name = app_id, app_name
    yield server
    assert server.stop() == 0


# --- the real provider -----------------------------------------------------------------------------

@pytest.fixture
def mock_provider():
    ada = User(sub="ada-sub", claims={"email": f"ada@{ALLOWED}", "email_verified": True})
    with run_server_in_thread(user_claims=[ada]) as provider:
        host, port = provider.server_address[:2]
        assert host == "127.0.0.1", provider.server_address
        provider.issuer = f"http://127.0.0.1:{port}"
        yield provider


def authorize_at_mock(login, form):
    """What a browser does at oidc-provider-mock: GET the form, POST it (same query); the 302 back."""
    page = HTTP.get(login.location, timeout=30)
    assert page.status_code == 200 and "Authorize" in page.text, page.text[:400]
    r = HTTP.post(login.location, data=form, allow_redirects=False, timeout=30)
    assert r.status_code == 302, r.text[:400]
    return r.headers["Location"]


def test_sign_in_with_a_real_provider_end_to_end(mock_provider, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    app_name = f"Mock {uuid.uuid4().hex[:8]}"
    app_id = cli_app(data, app_name)
    server = start_sso_server(data, mock_provider.issuer, "xizor-web", "mock-secret", app_id=app_id, role="viewer")
    try:
        base = server.base
        login = Login(base)
        provider_url = urlparse(login.location)
        assert f"{provider_url.scheme}://{provider_url.netloc}{provider_url.path}" == mock_provider.issuer + "/oauth2/authorize"
        assert sorted(login.cookie_attributes) == sorted(["Path=/", "Max-Age=600", "HttpOnly", "Secure", "SameSite=Lax"]), login.cookie_attributes
        q = login.query
        assert (q["response_type"], q["client_id"], q["redirect_uri"]) == ("code", "xizor-web", server.redirect_url), q
        assert sorted(q["scope"].split()) == ["email", "openid"], q
        assert q["code_challenge_method"] == "S256" and B64URL.fullmatch(q["code_challenge"]) and len(q["code_challenge"]) == 43, q
        assert len(q["state"]) >= 16 and len(q["nonce"]) >= 16 and q["state"] != q["nonce"], q

        back = authorize_at_mock(login, {"sub": "ada-sub"})
        assert back.startswith(server.redirect_url + "?") and parse_qs(urlparse(back).query)["state"] == [login.state], back
        token, me = signed_in(base, callback(back, login.cookie))
        assert me["user"]["email"] == f"ada@{ALLOWED}" and me["user"]["instanceAdmin"] is False, me
        assert me["memberships"] == [{"appId": app_id, "appName": app_name, "role": "viewer"}], me
        # The session works on the app's routes as a viewer's does.
        listed = HTTP.get(base + "/v1/paywalls", headers={"Cookie": f"{COOKIE}={token}", "X-Xizor-App-Id": app_id}, timeout=30)
        assert listed.status_code == 200, listed.text
        assert (me["session"]["id"], me["user"]["id"]) in instance_audit(data, "user.signed_in")

        # A second sign-in finds the same account, with a new session and the same one membership.
        again = Login(base)
        assert (again.state, again.cookie) != (login.state, login.cookie)
        token2, me2 = signed_in(base, callback(authorize_at_mock(again, {"sub": "ada-sub"}), again.cookie))
        assert me2["user"]["id"] == me["user"]["id"] and token2 != token, (me, me2)
        assert me2["memberships"] == me["memberships"], me2
        assert user_emails(base).count(f"ada@{ALLOWED}") == 1
    finally:
        assert server.stop() == 0


def test_a_denial_at_the_real_provider_is_sso_denied(mock_provider, tmp_path):
    server = start_sso_server(tmp_path / "data", mock_provider.issuer, "xizor-web", "mock-secret")
    try:
        login = Login(server.base)
        back = authorize_at_mock(login, {"action": "deny"})
        assert "error=access_denied" in back, back
        # oidc-provider-mock 0.3.4 leaves `state` out of its error redirect (RFC 6749 4.1.2.1 wants it back):
        # an answer bound to no login signs nobody in; with the state, as a conforming provider sends it, the
        # denial is said as such.
        stateless = callback(back, login.cookie)
        assert stateless.status_code in (400, 401) and COOKIE not in set_cookies(stateless), stateless.text
        refused(callback(with_query(back, state=login.state), login.cookie), 401, "sso_denied")
    finally:
        assert server.stop() == 0


# --- the fake provider: success --------------------------------------------------------------------

def test_the_start_binds_the_browser_and_asks_with_pkce_state_and_nonce(sso_server, fake):
    first, second = Login(sso_server.base), Login(sso_server.base)
    for login in (first, second):
        assert login.location.startswith(fake.issuer + "/authorize?"), login.location
        assert re.fullmatch(r"[A-Za-z0-9_\-.~%]{16,}", login.cookie), login.cookie
        assert sorted(login.cookie_attributes) == sorted(["Path=/", "Max-Age=600", "HttpOnly", "Secure", "SameSite=Lax"]), login.cookie_attributes
        q = login.query
        assert {"response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
                "code_challenge_method"} <= set(q), q
        assert (q["response_type"], q["client_id"], q["redirect_uri"], q["code_challenge_method"]) == \
            ("code", "xizor-confidential", sso_server.redirect_url, "S256"), q
        assert q["scope"] == "openid email", q
        assert len(q["code_challenge"]) == 43 and B64URL.fullmatch(q["code_challenge"]), q
    for name in ("state", "nonce", "code_challenge"):
        assert first.query[name] != second.query[name], name
    assert first.cookie != second.cookie


@pytest.mark.parametrize("how", ["rsa", "ec"])
def test_rs256_and_es256_id_tokens_sign_in(sso_server, fake, how):
    email = new_email(tag=how)
    before = len(fake.token_requests)
    token, me = signed_in(sso_server.base, sso(sso_server, fake, {"email": email, "sign": how}))
    assert len(fake.token_requests) == before + 1
    exchange = fake.token_requests[-1]
    assert exchange["form"]["grant_type"] == "authorization_code", exchange
    assert exchange["content_type"].startswith("application/x-www-form-urlencoded"), exchange
    assert me["user"]["email"] == email, me
    # XIZOR_OIDC_DEFAULT_ROLE unset: viewer.
    assert me["memberships"] == [{"appId": sso_server.app_id, "appName": sso_server.app_name, "role": "viewer"}], me
    # The same person again: the same account.
    _, again = signed_in(sso_server.base, sso(sso_server, fake, {"email": email, "sign": how}))
    assert again["user"]["id"] == me["user"]["id"], (me, again)


def test_a_token_inside_the_60_second_leeway_signs_in(sso_server, fake):
    now = int(time.time())
    signed_in(sso_server.base, sso(sso_server, fake, {"claims": {"iat": now - 330, "exp": now - 30}}))


def test_an_existing_account_of_any_domain_signs_in(sso_server, fake):
    user = create_user(sso_server.base, email=new_email("elsewhere.example", "existing"))
    _, me = signed_in(sso_server.base, sso(sso_server, fake, {"email": user["email"]}))
    assert me["user"]["id"] == user["id"], (user, me)


# --- the fake provider: refusals -------------------------------------------------------------------

def test_a_wrong_state_is_refused(sso_server, fake):
    login, url = through_fake(sso_server, fake)
    refused(callback(with_query(url, state=secrets.token_urlsafe(24)), login.cookie), 400, "sso_state_invalid")
    other = Login(sso_server.base)  # a real state, but of another login (another cookie)
    refused(callback(with_query(url, state=other.state), login.cookie), 400, "sso_state_invalid")
    parts = urlparse(url)
    without_state = parts._replace(query=urlencode({"code": parse_qs(parts.query)["code"][0]})).geturl()
    refused(callback(without_state, login.cookie), 400, "sso_state_invalid")


@pytest.mark.parametrize("cookie", ["missing", "made-up", "of another login"])
def test_the_state_needs_this_browsers_cookie(sso_server, fake, cookie):
    login, url = through_fake(sso_server, fake)
    value = {"missing": None, "made-up": secrets.token_urlsafe(32), "of another login": Login(sso_server.base).cookie}[cookie]
    refused(callback(url, value), 400, "sso_state_invalid")


def test_a_state_works_once(sso_server, fake):
    login, url = through_fake(sso_server, fake)
    signed_in(sso_server.base, callback(url, login.cookie))
    refused(callback(url, login.cookie), 400, "sso_state_invalid")


def test_a_provider_error_is_sso_denied(sso_server, fake):
    before = len(fake.token_requests)
    login, url = through_fake(sso_server, fake, {"error": "access_denied"})
    assert "error=access_denied" in url and "code=" not in url, url
    refused(callback(url, login.cookie), 401, "sso_denied")
    assert len(fake.token_requests) == before, "no code, no exchange"


def _expired():
    now = int(time.time())
    return {"claims": {"iat": now - 7200, "exp": now - 3600}}


# case → (the plan, words one of which the problem's detail names: refused for this reason, not another)
BAD_TOKENS = {
    "nonce not ours": (lambda: {"claims": {"nonce": secrets.token_urlsafe(16)}}, ("nonce",)),
    "no nonce": (lambda: {"claims": {"nonce": None}}, ("nonce",)),
    "expired": (_expired, ("expire", "exp")),
    "signed by another key under the same kid": (lambda: {"sign": "other-rsa"}, ("signature",)),
    "unknown kid": (lambda: {"header": {"kid": "nobody"}}, ("kid", "key")),
    "payload changed after signing": (lambda: {"sign": "tampered"}, ("signature",)),
    "ES256 header on an RS256 signature": (lambda: {"header": {"alg": "ES256", "kid": "rsa-1"}}, ("kid", "key", "signature", "alg")),
    "wrong audience": (lambda: {"claims": {"aud": "someone-else"}}, ("aud", "client")),
    "wrong audience list": (lambda: {"claims": {"aud": ["someone-else", "another"]}}, ("aud", "client")),
    "wrong issuer": (lambda: {"claims": {"iss": "http://127.0.0.1:1"}}, ("issuer", "iss")),
    "alg none": (lambda: {"sign": "none"}, ("alg", "none", "sign")),
    "HS256 with the client secret": (lambda: {"sign": "hs256"}, ("alg", "hs256")),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
def test_a_bad_id_token_is_refused(sso_server, fake, case):
    before = len(fake.token_requests)
    plan, words = BAD_TOKENS[case]
    body = refused(sso(sso_server, fake, plan()), 401, "id_token_invalid")
    assert len(fake.token_requests) == before + 1, "refused after the exchange, for the token"
    assert isinstance(body.get("detail"), str) and any(word in body["detail"].lower() for word in words), (words, body)


@pytest.mark.parametrize("claims", [{"email_verified": False}, {"email": None}], ids=["email_verified false", "no email"])
def test_an_unverified_email_is_refused(sso_server, fake, claims):
    refused(sso(sso_server, fake, {"claims": claims}), 403, "sso_email_unverified")


def test_a_new_email_outside_the_allowed_domains_is_refused(sso_server, fake):
    email = new_email("elsewhere.example", "stranger")
    refused(sso(sso_server, fake, {"email": email}), 403, "sso_domain_not_allowed")
    # Not a suffix match: a look-alike of the allowed domain is another domain.
    refused(sso(sso_server, fake, {"email": new_email("evil" + ALLOWED, "lookalike")}), 403, "sso_domain_not_allowed")
    assert email not in user_emails(sso_server.base), "no account was made"


def test_a_disabled_account_is_refused(sso_server, fake):
    email = new_email(tag="disabled")
    _, me = signed_in(sso_server.base, sso(sso_server, fake, {"email": email}))
    ok(Client(sso_server.base, ADMIN_TOKEN).patch(f"/v1/users/{me['user']['id']}", {"disabled": True}), 200)
    refused(sso(sso_server, fake, {"email": email}), 403, "user_disabled")


# --- settings --------------------------------------------------------------------------------------

def test_with_password_sign_in_off_only_sso_signs_in(fake, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    app_name = f"No passwords {uuid.uuid4().hex[:8]}"
    app_id = cli_app(data, app_name)
    fake.clients["xizor-public"] = None  # no client secret: client_id in the form
    server = start_sso_server(data, fake.issuer, "xizor-public", app_id=app_id, role="editor",
                              extra={"XIZOR_AUTH_PASSWORD_SIGN_IN": "false"})
    try:
        user = create_user(server.base, email=new_email(tag="password"))
        add_member(server.base, app_id, user["id"], "admin")
        refused(post_session(server.base, user["email"], PASSWORD), 403, "password_sign_in_disabled")
        _, me = signed_in(server.base, sso(server, fake, {"email": user["email"]}))
        assert me["user"]["id"] == user["id"], me
        assert me["memberships"] == [{"appId": app_id, "appName": app_name, "role": "admin"}], me
        _, new = signed_in(server.base, sso(server, fake, {"email": new_email(tag="newcomer")}))
        assert new["memberships"] == [{"appId": app_id, "appName": app_name, "role": "editor"}], new
        assert fake.token_requests[-1]["authorization"] is None and fake.token_requests[-1]["form"]["client_id"] == "xizor-public"
    finally:
        assert server.stop() == 0


def test_without_sso_settings_there_is_no_sso(server):
    r = HTTP.get(server.base + "/v1/session/oidc", allow_redirects=False, timeout=30)
    refused(r, 404, "sso_not_configured")
    assert OIDC_COOKIE not in set_cookies(r)
