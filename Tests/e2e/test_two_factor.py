"""The second factor (docs/teams.md, "Second factor"), live on both databases: enrolment with a QR
code, confirmation (recovery codes shown once; the session replaced, every other session ended),
sign-in asking for the code, a wrong code, a replayed code, a recovery code that works once, and
turning it off. The codes are computed here from the secret, as an authenticator app would (RFC 6238).
"""
import base64
import hashlib
import hmac
import struct
import time

from test_teams import (COOKIE, PASSWORD, HTTP, Person, create_user, ok, post_session, problem, session_cookie,
                        with_session)


def totp(secret_b32, at=None, offset_steps=0):
    secret = base64.b32decode(secret_b32 + "=" * (-len(secret_b32) % 8))
    step = int((at or time.time()) // 30) + offset_steps
    mac = hmac.new(secret, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = (struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{value:06d}"


def sign_in_with(base, email, **extra):
    body = {"email": email, "password": PASSWORD, **extra}
    return HTTP.post(base + "/v1/session", json=body, timeout=30)


def test_enrol_confirm_and_sign_in_with_a_code_that_works_once(module_server):
    base = module_server.base
    user = create_user(base, tag="totp")
    person = Person(base, user)
    other = Person(base, user)
    # Enrolment: a pending secret, its otpauth URI and its QR code; nothing changes at sign-in yet.
    enrolment = ok(person.post("/v1/me/totp"), 201)
    secret = enrolment["secret"]
    assert len(secret) == 32 and enrolment["uri"].startswith(f"otpauth://totp/Xizor:{user['email']}?secret={secret}&issuer=Xizor")
    assert enrolment["qrSvg"].startswith("<svg ") and "<path" in enrolment["qrSvg"]
    ok(post_session(base, user["email"], PASSWORD), 201)
    # A wrong code does not confirm.
    wrong = "000000" if totp(secret) != "000000" else "111111"
    r = person.post("/v1/me/totp/confirm", {"code": wrong})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "invalid_totp", r.text
    # Confirmed: ten recovery codes once, a new session (new cookie, new CSRF token), every other session ended.
    code = totp(secret)
    r = person.post("/v1/me/totp/confirm", {"code": code})
    body = ok(r, 201)
    codes = body["recoveryCodes"]
    assert len(codes) == 10 and len(set(codes)) == 10 and body["user"]["totpEnabled"] is True
    name, token, _ = session_cookie(r)
    assert name == COOKIE and token != person.token and body["csrfToken"] != person.csrf
    assert not person.alive() and not other.alive()
    ok(with_session(base, "GET", "/v1/session", token), 200)
    # Sign-in now asks for the code.
    problem(sign_in_with(base, user["email"]), 401, "totp_required")
    problem(sign_in_with(base, user["email"], code=wrong), 401, "invalid_totp")
    # The confirming code's step is spent: the same code is refused, even within its 30 seconds. The next
    # step's code (an app's clock a step ahead is accepted) works, once.
    problem(sign_in_with(base, user["email"], code=code), 401, "totp_code_used")
    fresh = totp(secret, offset_steps=1)
    assert fresh != code
    ok(sign_in_with(base, user["email"], code=fresh), 201)
    problem(sign_in_with(base, user["email"], code=fresh), 401, "totp_code_used")
    # A recovery code works once (case and dashes do not matter).
    ok(sign_in_with(base, user["email"], recoveryCode=codes[0].upper().replace("-", "")), 201)
    problem(sign_in_with(base, user["email"], recoveryCode=codes[0]), 401, "invalid_recovery_code")
    # The right password with a wrong second factor is no sign-in; nor the reverse.
    problem(HTTP.post(base + "/v1/session", json={"email": user["email"], "password": "wrong password!!", "code": fresh},
                      timeout=30), 401, "invalid_credentials")


def test_turning_it_off_needs_a_code_and_enrolling_twice_is_refused(module_server):
    base = module_server.base
    user = create_user(base, tag="totp-off")
    person = Person(base, user)
    secret = ok(person.post("/v1/me/totp"), 201)["secret"]
    r = person.post("/v1/me/totp/confirm", {"code": totp(secret)})
    codes = ok(r, 201)["recoveryCodes"]
    _, token, _ = session_cookie(r)
    person.token, person.csrf = token, r.json()["csrfToken"]
    problem(person.post("/v1/me/totp"), 409, "totp_enabled")
    problem(person.delete("/v1/me/totp", json_body={}), 401, "totp_required")
    problem(person.delete("/v1/me/totp", json_body={"recoveryCode": "aaaa-bbbb-cccc"}), 401, "invalid_recovery_code")
    assert person.delete("/v1/me/totp", json_body={"recoveryCode": codes[1]}).status_code == 204
    problem(person.delete("/v1/me/totp", json_body={"code": "123456"}), 409, "totp_not_enabled")
    # The password alone signs in again; the user says the factor is off.
    assert ok(post_session(base, user["email"], PASSWORD), 201)["user"]["totpEnabled"] is False


def test_confirming_without_enrolling_is_refused(module_server):
    person = Person(module_server.base, create_user(module_server.base, tag="totp-none"))
    problem(person.post("/v1/me/totp/confirm", {"code": "123456"}), 409, "totp_not_pending")
