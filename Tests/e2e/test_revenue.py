"""Verified revenue (issue 38, docs/revenue.md): App Store Server Notifications V2 and RevenueCat webhooks,
verified, stored once, attributed to the paywall presentation that led to each subscription, and reported
per app, paywall version and experiment variant.

One server for the module, trusting two test roots besides Apple's (`stores.apple.rootCertificates`: one
DER, one PEM), with a fast rollup job (the appAccountToken map is filled when `paywall_open` events are
folded) and fast webhook delivery to loopback. Every test makes its own apps, so none sees another's
figures. Every verification case (valid, forged, wrong chain, wrong app…) is also judged by Apple's own
app-store-server-library (`apple_notifications.library_verdict`), and the two must agree.

Amounts are compared exactly: the server sums integer milliunits and divides once, as the expected
figures here are computed (`units`).
"""
import datetime
import time
import uuid

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

import apple_notifications as an
from test_experiment_decisions import beats, best
from test_scopes import SCOPES, create_key, missing_scope, new_app
from webhook_receiver import Receiver
from xizor_server import Client, XizorServer

BUNDLE = "com.example.xizor"
APPLE_ID = 1234567890
PROBLEM = "application/problem+json"
H = 3_600_000
D = 86_400_000
RC_AUTHORIZATION = "Bearer rc_whsec_0123456789abcdef"
REVENUE_WEBHOOKS = ["purchase.verified", "trial.converted", "subscription.renewed", "subscription.refunded"]


# --- the server and its roots --------------------------------------------------------------------------

class Roots:
    """The trusted test chain (its root, DER, valid for years back so that a chain that has since expired
    can be checked at its signing date), a second trusted root given as PEM, and their DER for the library."""

    def __init__(self, directory):
        long_ago = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) - datetime.timedelta(days=1000)
        self.chain = an.make_chain(not_before=long_ago)
        self.pem_chain = an.make_chain(name="Xizor PEM")
        self.der_path = self.chain.write_root_der(directory / "root.der")
        self.pem_path = self.pem_chain.write_root_pem(directory / "second-root.pem")
        self.library_roots = [self.chain.root_der, self.pem_chain.root_der]


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    return Roots(tmp_path_factory.mktemp("roots"))


@pytest.fixture(scope="module")
def server(tmp_path_factory, roots):
    s = XizorServer(tmp_path_factory.mktemp("revenue") / "data", extra_env={
        "XIZOR_STORES_APPLE_ROOT_CERTIFICATES": f"{roots.der_path},{roots.pem_path}",
        "XIZOR_ANALYTICS_ROLLUP_INTERVAL_MS": "100",
        "XIZOR_WEBHOOKS_RETRY_BASE_MS": "200", "XIZOR_WEBHOOKS_POLL_MS": "100", "XIZOR_WEBHOOKS_TIMEOUT_MS": "2000",
        "XIZOR_WEBHOOKS_ALLOW_PRIVATE_TARGETS": "true",
    })
    yield s
    assert s.stop() == 0, s.stderr_lines[-20:]


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.stop()


# --- helpers -------------------------------------------------------------------------------------------

def units(milli):
    """Milliunits as the server answers them (one division of an integer sum)."""
    return milli / 1000


def configure(app, **settings):
    r = app.dashboard.patch("/v1/revenue/settings", settings)
    assert r.status_code == 200, r.text
    return r.json()


def apple_app(server, **extra):
    app = new_app(server, "Revenue")
    configure(app, apple={"bundleId": BUNDLE, "appAppleId": APPLE_ID}, **extra)
    return app


def post_apple(server, app_id, body):
    return requests.post(f"{server.base}/v1/apps/{app_id}/notifications/apple", json=body, timeout=30)


def post_revenuecat(server, app_id, event, authorization=RC_AUTHORIZATION):
    headers = {} if authorization is None else {"Authorization": authorization}
    return requests.post(f"{server.base}/v1/apps/{app_id}/notifications/revenuecat",
                         json={"api_version": "1.0", "event": event}, headers=headers, timeout=30)


def stored(r, status="stored", id=None):
    assert r.status_code == 200, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    body = r.json()
    assert body["status"] == status, body
    if id is not None:
        assert body["id"] == id, body
    return body


def refused(r, reason):
    assert r.status_code == 401, f"expected 401 {reason}, got {r.status_code} {r.text}"
    assert r.headers["Content-Type"].split(";")[0] == PROBLEM, r.headers
    body = r.json()
    assert (body["status"], body["code"], body["reason"]) == (401, "notification_refused", reason), body
    return body


def report(app, environment="all", **params):
    r = app.dashboard.get("/v1/revenue", params={"environment": environment, **params})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["environment"] == environment and body["source"] == "verified", body
    return body


def money(currency, gross=0, refunded=0, net7d=None, net30d=None, net90d=None):
    """A revenue line as answered, from milliunits (the cohort windows default to everything: net)."""
    net = gross - refunded
    return {"currency": currency, "gross": units(gross), "refunded": units(refunded), "net": units(net),
            "net7d": units(net if net7d is None else net7d), "net30d": units(net if net30d is None else net30d),
            "net90d": units(net if net90d is None else net90d)}


def block(trialStarts=0, trialConversions=0, paidConversions=0, renewals=0, refunds=0, revenue=()):
    return {"trialStarts": trialStarts, "trialConversions": trialConversions, "paidConversions": paidConversions,
            "renewals": renewals, "refunds": refunds, "revenue": list(revenue)}


ZERO = block()


def counts_of(b):
    """A verified block without its money and without members beyond the spec's block."""
    return {k: b[k] for k in ("trialStarts", "trialConversions", "paidConversions", "renewals", "refunds", "revenue")}


def metric_values(server):
    r = requests.get(server.base + "/metrics", timeout=10)
    assert r.status_code == 200, r.text
    values = {}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values


def wait_folded(server, timeout=15):
    """Waits until the rollup job has folded every event this server stored (the appAccountToken map is
    written as events are folded)."""
    deadline = time.monotonic() + timeout
    while True:
        values = metric_values(server)
        folded = values[("xizor_rollup_events_folded_total", ())]
        ingested = values[("xizor_events_ingested_total", ())]
        if folded >= ingested:
            return
        assert time.monotonic() < deadline, f"rollups folded {folded} of {ingested} events after {timeout} s"
        time.sleep(0.05)


def send_events(app, events):
    r = app.sdk.post("/v1/sdk/events", {"events": events})
    assert r.status_code == 202, r.text
    assert r.json()["accepted"] == len(events) and r.json()["rejected"] == [], r.text


def open_event(subscriber, paywall, at, placement="onboarding", experiment=None, variant=None, name="paywall_open"):
    e = {"id": f"ev-{uuid.uuid4()}", "name": name, "timestamp": at, "placement": placement, "paywallId": paywall,
         "version": 1, "subscriberId": subscriber}
    if experiment:
        e.update(experimentId=experiment, variant=variant)
    return e


# --- Apple notifications -------------------------------------------------------------------------------

def apple_tx(transaction_id, *, subscriber=None, original=None, purchase=None, original_purchase=None, price=9990,
             currency="EUR", trial=False, environment="Production", bundle_id=BUNDLE, **extra):
    """A transaction of this app's bundle, its appAccountToken the subscriber's (None: no token)."""
    if trial:
        extra.update(offer_type=1, offer_discount_type="FREE_TRIAL")
    return an.transaction(
        transaction_id=transaction_id, original_transaction_id=original, bundle_id=bundle_id, purchase_date=purchase,
        original_purchase_date=original_purchase, price=price, currency=currency, environment=environment,
        app_account_token=an.app_account_token(subscriber) if subscriber else None, **extra)


def apple_notification(chain, kind, subtype=None, *, tx, environment="Production", renewal=None, **kw):
    """A notification of this app: appAppleId in production (Apple leaves it out of sandbox ones)."""
    kw.setdefault("app_apple_id", APPLE_ID if environment == "Production" else None)
    return an.signed_notification(chain, kind, subtype, transaction=tx, renewal=renewal, bundle_id=BUNDLE,
                                  environment=environment, **kw)


def verdict(roots, body, environment):
    return an.library_verdict(roots.library_roots, body, BUNDLE, APPLE_ID, environment)


class Case:
    """One notification for the server and the library: `build(roots, notification_uuid)` answers the body;
    `environment` is the library verifier's (the notification's own); `reason` is the server's 401 reason
    (None: accepted), `library` the library's answer."""

    def __init__(self, id, build, reason, library, environment="Sandbox"):
        self.id, self.build, self.reason, self.library, self.environment = id, build, reason, library, environment


def _valid(roots, nid, environment="Sandbox", chain=None, tx=None, renewal=True, **kw):
    tx = tx or apple_tx(f"tx-{nid}", environment=environment)
    renewal_info = an.renewal_info(original_transaction_id=tx["originalTransactionId"], environment=environment) \
        if renewal is True else renewal
    return apple_notification(chain or roots.chain, "SUBSCRIBED", "INITIAL_BUY", tx=tx, renewal=renewal_info,
                              environment=environment, notification_uuid=nid, **kw)


def _other(**chain_kw):
    """A new intermediate and leaf made with `chain_kw`, under the trusted root (or, `under_trusted=False`, a
    chain to another root)."""
    def build(roots, nid, environment="Sandbox", **kw):
        kw_chain = dict(chain_kw)
        under_trusted = kw_chain.pop("under_trusted", True)
        chain = an.make_chain(root=roots.chain if under_trusted else None, **kw_chain)
        return _valid(roots, nid, environment, chain=chain, **kw)
    return build


def _nested(field, **chain_kw):
    """The outer JWS valid; signedTransactionInfo or signedRenewalInfo signed by a chain changed by chain_kw."""
    def build(roots, nid):
        kw = dict(chain_kw)
        chain = an.make_chain(root=None if kw.pop("other_root", False) else roots.chain, **kw)
        tx = apple_tx(f"tx-{nid}", environment="Sandbox")
        renewal = an.renewal_info(original_transaction_id=tx["originalTransactionId"], environment="Sandbox")
        if field == "transaction":
            tx = an.jws(chain, tx)
        else:
            renewal = an.jws(chain, renewal)
        return _valid(roots, nid, tx=tx, renewal=renewal)
    return build


def _signed_long_ago(roots, nid):
    """A chain that has expired since, used while it was valid: both the notification and its transaction
    were signed 500 days ago (a notification fetched again from Apple's history)."""
    chain = an.make_chain(root=roots.chain, expired=True)
    then = an.now_ms() - 500 * D
    tx = apple_tx(f"tx-{nid}", environment="Sandbox", signed_date=then)
    return _valid(roots, nid, chain=chain, tx=tx, renewal=None, signed_date=then)


def _leaf_under_the_root(roots, nid):
    """A leaf (with Apple's leaf OID) that the trusted root signed itself, sent with a real intermediate as
    x5c[1]: OpenSSL builds leaf ← root, and Apple's library checks the OIDs on that chain (the root lacks
    the intermediate's). Not Apple's chain, though every x5c entry looks right."""
    import datetime
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    trusted = roots.chain
    now = datetime.datetime.now(datetime.timezone.utc)
    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf_cert = an._certificate(an._name(f"Direct leaf {nid[:8]}"), leaf_key, trusted.root_cert.subject,
                                trusted.root_key, ca=False, path_length=None, not_before=now - datetime.timedelta(days=1),
                                not_after=now + datetime.timedelta(days=365), apple_oid=an.LEAF_OID,
                                cert_hash=hashes.SHA256())
    chain = an.Chain(trusted.root_cert, trusted.root_key, trusted.intermediate_cert, trusted.intermediate_key,
                     leaf_cert, leaf_key)
    return _valid(roots, nid, chain=chain)


CASES = [
    Case("valid", lambda r, n: _valid(r, n), None, "ok"),
    Case("leaf_signed_by_the_root_itself", _leaf_under_the_root, "untrusted_chain", "VERIFICATION_FAILURE"),
    Case("valid_production", lambda r, n: _valid(r, n, "Production"), None, "ok", "Production"),
    Case("valid_under_the_pem_root", lambda r, n: _valid(r, n, chain=r.pem_chain), None, "ok"),
    Case("expired_chain_signed_while_valid", _signed_long_ago, None, "ok"),
    Case("forged_signature", lambda r, n: _valid(r, n, forge=True), "invalid_signature", "VERIFICATION_FAILURE"),
    Case("chain_to_another_root", _other(under_trusted=False), "untrusted_chain", "VERIFICATION_FAILURE"),
    Case("leaf_without_apple_oid", _other(leaf_oid=False), "missing_apple_oid", "VERIFICATION_FAILURE"),
    Case("intermediate_without_apple_oid", _other(intermediate_oid=False), "missing_apple_oid", "VERIFICATION_FAILURE"),
    Case("expired_chain_signed_now", _other(expired=True), "untrusted_chain", "VERIFICATION_FAILURE"),
    Case("alg_es384", lambda r, n: _valid(r, n, alg="ES384"), "unsupported_algorithm", "VERIFICATION_FAILURE"),
    # alg "none" has an empty signature segment: not a JWS of three base64url parts.
    Case("alg_none", lambda r, n: _valid(r, n, alg="none"), "malformed", "VERIFICATION_FAILURE"),
    Case("x5c_of_two", lambda r, n: _valid(r, n, x5c_count=2), "invalid_chain_length", "INVALID_CHAIN_LENGTH"),
    Case("wrong_bundle_id", lambda r, n: _valid(r, n, data_extra={"bundleId": "com.example.other"}),
         "invalid_app_identifier", "INVALID_APP_IDENTIFIER"),
    Case("production_with_another_app_apple_id", lambda r, n: _valid(r, n, "Production", data_extra={"appAppleId": 987}),
         "invalid_app_identifier", "INVALID_APP_IDENTIFIER", "Production"),
    Case("production_without_app_apple_id", lambda r, n: _valid(r, n, "Production", data_extra={"appAppleId": None}),
         "invalid_app_identifier", "INVALID_APP_IDENTIFIER", "Production"),
    Case("environment_not_signed_by_apple", lambda r, n: _valid(r, n, "Xcode"), "invalid_environment", "INVALID_ENVIRONMENT"),
    Case("tampered_transaction", lambda r, n: _valid(r, n, tamper_transaction={"price": 1}),
         "invalid_signature", "VERIFICATION_FAILURE"),
    Case("transaction_of_another_bundle",
         lambda r, n: _valid(r, n, tx=apple_tx(f"tx-{n}", environment="Sandbox", bundle_id="com.example.other")),
         "invalid_app_identifier", "INVALID_APP_IDENTIFIER"),
    Case("transaction_of_another_environment", lambda r, n: _valid(r, n, tx=apple_tx(f"tx-{n}", environment="Production")),
         "invalid_environment", "INVALID_ENVIRONMENT"),
    Case("transaction_signed_under_another_root", _nested("transaction", other_root=True),
         "untrusted_chain", "VERIFICATION_FAILURE"),
    Case("renewal_info_leaf_without_apple_oid", _nested("renewal", leaf_oid=False),
         "missing_apple_oid", "VERIFICATION_FAILURE"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_apple_notifications_are_verified_as_apples_library_verifies_them(server, roots, case):
    app = apple_app(server)
    nid = str(uuid.uuid4())
    body = case.build(roots, nid)
    library = verdict(roots, body, case.environment)
    r = post_apple(server, app.id, body)
    assert (r.status_code == 200) == (library == "ok"), \
        f"the server answered {r.status_code} {r.text}, Apple's library {library}: they disagree"
    assert library == case.library, f"the case is not the one meant: the library says {library}"
    counted_in = "production" if case.environment == "Production" else "sandbox"
    if case.reason is None:
        stored(r, "stored", nid)
        price = an.jws_payload(an.jws_payload(body["signedPayload"])["data"]["signedTransactionInfo"])["price"]
        expected = block(paidConversions=1, revenue=[money("EUR", price)])
        answer = report(app)
        assert (answer["total"], answer["unattributed"], answer["attributed"]) == (expected, expected, ZERO), answer
        assert report(app, counted_in)["total"] == expected
        assert report(app, ({"production", "sandbox"} - {counted_in}).pop())["total"] == ZERO
        # Apple retries with the same notificationUUID: 200 "duplicate", counted once.
        stored(post_apple(server, app.id, body), "duplicate", nid)
        assert report(app)["total"] == expected
        if counted_in == "sandbox":
            # Apple's production verifier refuses a sandbox notification: it is never production data.
            assert verdict(roots, body, "Production") in ("INVALID_ENVIRONMENT", "INVALID_APP_IDENTIFIER")
    else:
        refused(r, case.reason)
        answer = report(app)
        assert (answer["total"], answer["attributed"], answer["unattributed"]) == (ZERO, ZERO, ZERO), answer
        # Nothing of it was stored: the valid notification with the same notificationUUID is new.
        twin = _valid(roots, nid, "Production" if case.environment == "Production" else "Sandbox")
        assert verdict(roots, twin, case.environment) == "ok"
        stored(post_apple(server, app.id, twin), "stored", nid)
        assert report(app)["total"]["paidConversions"] == 1


def test_refusals_before_verification(server, roots):
    unconfigured = new_app(server, "Unconfigured")
    body = _valid(roots, str(uuid.uuid4()))
    refused(post_apple(server, unconfigured.id, body), "not_configured")
    refused(post_revenuecat(server, unconfigured.id, rc_event("INITIAL_PURCHASE", "rc-x", "t-x")), "not_configured")
    app = apple_app(server)
    r = requests.post(f"{server.base}/v1/apps/{app.id}/notifications/apple",
                      data=b'{"signedPayload": "' + b"a" * 70_000 + b'"}', headers={"Content-Type": "application/json"},
                      timeout=30)
    assert r.status_code == 413, r.text
    refused(post_apple(server, app.id, {"signedPayload": "not.a-jws"}), "malformed")
    assert report(app)["total"] == ZERO


def test_an_unknown_app_is_refused_as_not_configured(server, roots):
    """An app that does not exist has no store settings: 401 `not_configured`, the answer an app without
    settings gets, so an anonymous caller learns nothing of which apps exist (docs/revenue.md)."""
    body = _valid(roots, str(uuid.uuid4()))
    for path in ("apple", "revenuecat"):
        r = requests.post(f"{server.base}/v1/apps/app_doesnotexist00/notifications/{path}", timeout=30,
                          json=body if path == "apple" else {"api_version": "1.0", "event": rc_event("INITIAL_PURCHASE", "u", "t")},
                          headers={"Authorization": RC_AUTHORIZATION})
        assert (r.status_code, r.json().get("reason")) == (401, "not_configured"), \
            f"POST /v1/apps/app_doesnotexist00/notifications/{path}: {r.status_code} {r.text}"


def test_a_transaction_announced_by_two_notifications_counts_once(server, roots):
    """Two notifications (two notificationUUIDs) naming the same transaction count its money once: a trial
    start announced twice is not a trial conversion, a conversion announced twice is not also a renewal."""
    app = apple_app(server)
    now = an.now_ms()
    trial = apple_tx("dup-1", purchase=now - 2 * H, price=0, trial=True)
    for _ in range(2):
        stored(post_apple(server, app.id, apple_notification(roots.chain, "SUBSCRIBED", "INITIAL_BUY", tx=trial)))
    assert counts_of(report(app)["total"]) == block(trialStarts=1, revenue=[money("EUR", 0)]), report(app)["total"]
    conversion = apple_tx("dup-2", original="dup-1", purchase=now - H, original_purchase=now - 2 * H, price=9990)
    for _ in range(2):
        stored(post_apple(server, app.id, apple_notification(roots.chain, "DID_RENEW", tx=conversion)))
    assert report(app)["total"] == block(trialStarts=1, trialConversions=1, paidConversions=1,
                                         revenue=[money("EUR", 9990)]), report(app)["total"]
    # RevenueCat (Google Play, beside Apple's own notifications): the same renewal under two event ids.
    configure(app, revenueCat={"authorization": RC_AUTHORIZATION})
    play = {"store": "PLAY_STORE"}
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "rc-d", "d-1", at=now - 2 * H, price=0,
                                                    period="TRIAL", **play)))
    for _ in range(2):
        stored(post_revenuecat(server, app.id, rc_event("RENEWAL", "rc-d", "d-2", original="d-1", at=now - H, price=9.99,
                                                        is_trial_conversion=True, **play)))
    assert report(app)["total"] == block(trialStarts=2, trialConversions=2, paidConversions=2,
                                         revenue=[money("EUR", 2 * 9990)]), report(app)["total"]
    # RevenueCat's copy of an App Store purchase, in an app that hears Apple itself: stored, counted by Apple only.
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "rc-e", "e-1", at=now - H, price=4.99)))
    # Family Sharing's copies (Apple's FAMILY_SHARED transaction, RevenueCat's is_family_share): nothing counted.
    family = apple_tx("fam-1", purchase=now - H, price=9990, inAppOwnershipType="FAMILY_SHARED")
    stored(post_apple(server, app.id, apple_notification(roots.chain, "SUBSCRIBED", "INITIAL_BUY", tx=family)))
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "rc-f", "f-1", at=now - H, price=4.99,
                                                    is_family_share=True, **play)))
    assert report(app)["total"] == block(trialStarts=2, trialConversions=2, paidConversions=2,
                                         revenue=[money("EUR", 2 * 9990)]), report(app)["total"]


# --- settings ------------------------------------------------------------------------------------------

def test_settings_are_merged_write_only_audited_and_scoped(server):
    app = new_app(server, "Settings")
    assert app.dashboard.get("/v1/revenue/settings").json() == {
        "apple": None, "revenueCat": None, "attributionWindowHours": 24, "updatedAt": None}
    request_ids = []

    def patch(body, status=200):
        request_id = f"rev-{uuid.uuid4().hex}"
        r = app.dashboard.patch("/v1/revenue/settings", body, headers={"X-Request-Id": request_id})
        assert r.status_code == status, f"PATCH {body}: {r.status_code} {r.text}"
        if status == 200:
            request_ids.append(request_id)
            assert RC_AUTHORIZATION not in r.text and "rc_whsec" not in r.text
        return r.json()

    t0 = int(time.time() * 1000)
    answer = patch({"apple": {"bundleId": BUNDLE, "appAppleId": APPLE_ID}, "revenueCat": {"authorization": RC_AUTHORIZATION},
                    "attributionWindowHours": 48})
    base = f"{server.base}/v1/apps/{app.id}/notifications"
    assert answer == {"apple": {"bundleId": BUNDLE, "appAppleId": APPLE_ID, "notificationURL": f"{base}/apple"},
                      "revenueCat": {"authorizationSet": True, "webhookURL": f"{base}/revenuecat"},
                      "attributionWindowHours": 48, "updatedAt": answer["updatedAt"]}
    assert abs(answer["updatedAt"] - t0) < 60_000
    got = app.dashboard.get("/v1/revenue/settings")
    assert got.json() == answer and RC_AUTHORIZATION not in got.text
    # A merge patch: what is absent stays; null removes.
    assert patch({"attributionWindowHours": 12})["apple"] == answer["apple"]
    assert patch({"apple": {"appAppleId": 42}})["apple"] == dict(answer["apple"], appAppleId=42)
    after = patch({"revenueCat": None})
    assert after["revenueCat"] is None and after["apple"]["bundleId"] == BUNDLE and after["attributionWindowHours"] == 12
    kept = app.dashboard.get("/v1/revenue/settings").json()

    bad = [
        ({"apple": {"bundleId": ""}}, "$.apple.bundleId"),
        ({"apple": {"bundleId": "com.example app"}}, "$.apple.bundleId"),
        ({"apple": {"bundleId": "x" * 256}}, "$.apple.bundleId"),
        ({"apple": {"bundleId": 7}}, "$.apple.bundleId"),
        ({"apple": {"bundleId": BUNDLE, "appAppleId": "1234"}}, "$.apple.appAppleId"),
        ({"apple": {"bundleId": BUNDLE, "appAppleId": 0}}, "$.apple.appAppleId"),
        ({"apple": {"bundleId": BUNDLE, "appAppleId": 1.5}}, "$.apple.appAppleId"),
        ({"apple": "com.example"}, "$.apple"),
        ({"revenueCat": {"authorization": "short"}}, "$.revenueCat.authorization"),
        ({"revenueCat": {"authorization": "x" * 501}}, "$.revenueCat.authorization"),
        ({"revenueCat": {}}, "$.revenueCat.authorization"),
        ({"attributionWindowHours": 0}, "$.attributionWindowHours"),
        ({"attributionWindowHours": 721}, "$.attributionWindowHours"),
        ({"attributionWindowHours": 1.5}, "$.attributionWindowHours"),
        ({"attributionWindowHours": "24"}, "$.attributionWindowHours"),
        ({"attributionWindowHours": None}, "$.attributionWindowHours"),
        ({"stripe": {}}, "$.stripe"),
        ([], "$"),
    ]
    wrong = []
    for body, path in bad:
        r = app.dashboard.patch("/v1/revenue/settings", body)
        paths = [e.get("path") for e in r.json().get("errors", [])] if r.headers.get("Content-Type", "").startswith(PROBLEM) else None
        if r.status_code != 422 or path not in (paths or []):
            wrong.append(f"PATCH {str(body)[:60]}: expected 422 at {path}, got {r.status_code} {r.text[:200]}")
    assert not wrong, "\n".join(wrong)
    # Apple's notifications need a bundle id: an app without one cannot set only its Apple ID.
    fresh = new_app(server, "Settings")
    r = fresh.dashboard.patch("/v1/revenue/settings", {"apple": {"appAppleId": APPLE_ID}})
    assert r.status_code == 422 and [e["path"] for e in r.json()["errors"]] == ["$.apple.bundleId"], r.text
    assert app.dashboard.get("/v1/revenue/settings").json() == kept, "a refused patch changed the settings"

    # Audited: one revenue.settings_updated per accepted patch, newest first, hashes chained; never the secret.
    log = app.dashboard.get("/v1/audit-log", params={"action": "revenue.settings_updated", "limit": 200})
    assert log.status_code == 200, log.text
    assert RC_AUTHORIZATION not in log.text
    entries = log.json()["entries"]
    assert [e["requestId"] for e in entries] == list(reversed(request_ids)), entries
    oldest_first = list(reversed(entries))
    assert oldest_first[0]["beforeHash"] is None
    for earlier, later in zip(oldest_first, oldest_first[1:]):
        assert later["beforeHash"] == earlier["afterHash"] != later["afterHash"], (earlier, later)
    for e in entries:
        assert e["target"]["id"] == app.id and e["actor"]["kind"] == "secret" and e["actor"]["via"] == "rest", e

    # Scope `webhooks` for the settings (`analytics` for the report).
    without = Client(server.base, create_key(app, [s for s in SCOPES if s != "webhooks"])["key"])
    for r in (without.get("/v1/revenue/settings"), without.patch("/v1/revenue/settings", {"attributionWindowHours": 5})):
        assert missing_scope(r, "webhooks") is None, missing_scope(r, "webhooks")
    only = Client(server.base, create_key(app, ["webhooks"])["key"])
    assert only.get("/v1/revenue/settings").json() == kept
    assert only.patch("/v1/revenue/settings", {"attributionWindowHours": 5}).json()["attributionWindowHours"] == 5
    assert missing_scope(only.get("/v1/revenue"), "analytics") is None
    assert without.get("/v1/revenue").status_code == 200
    # Public keys and no key: never.
    assert app.sdk.get("/v1/revenue/settings").status_code in (401, 403)
    assert Client(server.base).get("/v1/revenue/settings").status_code == 401


# --- RevenueCat ----------------------------------------------------------------------------------------

def rc_event(type, subscriber, transaction, *, original=None, at=None, price=None, currency="EUR", period="NORMAL",
             environment="PRODUCTION", id=None, **extra):
    at = at or an.now_ms()
    event = {"id": id or str(uuid.uuid4()).upper(), "type": type, "app_id": "app1234", "app_user_id": subscriber,
             "original_app_user_id": subscriber, "aliases": [subscriber], "product_id": "pro.monthly",
             "period_type": period, "purchased_at_ms": at, "expiration_at_ms": at + 30 * D,
             "event_timestamp_ms": at, "environment": environment, "store": "APP_STORE",
             "transaction_id": transaction, "original_transaction_id": original or transaction,
             "currency": currency, "country_code": "DE", "is_family_share": False}
    if price is not None:
        event.update(price_in_purchased_currency=price, price=price)
    event.update(extra)
    return event


def test_revenuecat_events(server):
    app = new_app(server, "RevenueCat")
    configure(app, revenueCat={"authorization": RC_AUTHORIZATION})
    pw = app.create_paywall("clean")
    app.publish(pw)
    now = an.now_ms()
    # rc-a and rc-b opened the paywall an hour before buying; rc-c never did (unattributed).
    send_events(app, [open_event("rc-a", pw, now - 3 * H), open_event("rc-b", pw, now - 3 * H)])
    events = [
        # rc-a: a trial, converted (RevenueCat says so), then refunded by customer support.
        rc_event("INITIAL_PURCHASE", "rc-a", "a-1", at=now - 2 * H, price=0, period="TRIAL"),
        rc_event("RENEWAL", "rc-a", "a-2", original="a-1", at=now - H, price=9.99, is_trial_conversion=True),
        rc_event("CANCELLATION", "rc-a", "a-2", original="a-1", at=now - H // 2, price=-9.99, cancel_reason="CUSTOMER_SUPPORT"),
        # rc-b: a trial converted without RevenueCat saying so (the subscription was in its trial), then a renewal.
        rc_event("INITIAL_PURCHASE", "rc-b", "b-1", at=now - 2 * H, price=0, period="TRIAL"),
        rc_event("RENEWAL", "rc-b", "b-2", original="b-1", at=now - H, price=9.99),
        rc_event("RENEWAL", "rc-b", "b-3", original="b-1", at=now - H // 2, price=9.99, is_trial_conversion=False),
        # rc-c: a paid subscription, its renewal, a lifetime unlock, then status only.
        rc_event("INITIAL_PURCHASE", "rc-c", "c-1", at=now - 2 * H, price=49.99, currency="usd"),
        rc_event("RENEWAL", "rc-c", "c-2", original="c-1", at=now - H, price=49.99, currency="USD"),
        rc_event("NON_RENEWING_PURCHASE", "rc-c", "c-3", at=now - H, price=4.99),
        rc_event("CANCELLATION", "rc-c", "c-2", original="c-1", price=49.99, cancel_reason="UNSUBSCRIBE"),
        rc_event("UNCANCELLATION", "rc-c", "c-2", original="c-1", price=49.99),
        rc_event("BILLING_ISSUE", "rc-c", "c-2", original="c-1", price=49.99),
        rc_event("PRODUCT_CHANGE", "rc-c", "c-2", original="c-1", price=99.99, new_product_id="pro.yearly"),
        rc_event("EXPIRATION", "rc-c", "c-2", original="c-1", price=49.99, expiration_reason="UNSUBSCRIBE"),
        # Sandbox: counted apart.
        rc_event("INITIAL_PURCHASE", "rc-a", "s-1", at=now - H, price=1.99, environment="SANDBOX"),
    ]
    for event in events:
        stored(post_revenuecat(server, app.id, event), "stored", event["id"])

    production = report(app, "production")
    assert production["attributed"] == block(
        trialStarts=2, trialConversions=2, paidConversions=2, renewals=1, refunds=1,
        revenue=[money("EUR", gross=3 * 9990, refunded=9990)]), production["attributed"]
    assert production["unattributed"] == block(
        paidConversions=2, renewals=1, revenue=[money("EUR", 4990), money("USD", 2 * 49990)]), production["unattributed"]
    assert report(app, "sandbox")["total"] == block(paidConversions=1, revenue=[money("EUR", 1990)])
    # rc-a's presentation was production: a sandbox purchase is not credited to it (same environment only).
    assert report(app, "sandbox")["unattributed"] == report(app, "sandbox")["total"]
    version = next(v for v in app.dashboard.get(f"/v1/paywalls/{pw}/analytics").json()["versions"] if v["version"] == 1)
    assert counts_of(version["verified"]) == production["attributed"], version

    # A wrong or missing Authorization: 401, nothing stored (the same event is new afterwards).
    event = rc_event("NON_RENEWING_PURCHASE", "rc-c", "c-4", price=1.00)
    refused(post_revenuecat(server, app.id, event, authorization="Bearer rc_whsec_0123456789abcdeF"), "invalid_authorization")
    refused(post_revenuecat(server, app.id, event, authorization=None), "invalid_authorization")
    assert report(app, "production") == production
    stored(post_revenuecat(server, app.id, event), "stored", event["id"])
    # A replay of the same event id: 200 "duplicate", counted once.
    stored(post_revenuecat(server, app.id, event), "duplicate", event["id"])
    stored(post_revenuecat(server, app.id, events[1]), "duplicate", events[1]["id"])
    again = report(app, "production")
    assert again["attributed"] == production["attributed"]
    assert again["unattributed"] == block(
        paidConversions=3, renewals=1, revenue=[money("EUR", 4990 + 1000), money("USD", 2 * 49990)]), again["unattributed"]


def test_the_attribution_window_is_the_apps_setting(server):
    app = new_app(server, "Window")
    configure(app, revenueCat={"authorization": RC_AUTHORIZATION}, attributionWindowHours=2)
    pw = app.create_paywall("clean")
    app.publish(pw)
    now = an.now_ms()
    send_events(app, [open_event("w1", pw, now - 3 * H), open_event("w2", pw, now - H), open_event("w3", pw, now - 3 * H)])
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "w1", "w1-1", at=now, price=1)))
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "w2", "w2-1", at=now, price=2)))
    answer = report(app, "production")
    assert (answer["attributed"]["revenue"], answer["unattributed"]["revenue"]) == ([money("EUR", 2000)], [money("EUR", 1000)])
    configure(app, attributionWindowHours=4)
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "w3", "w3-1", at=now, price=4)))
    answer = report(app, "production")
    assert (answer["attributed"]["revenue"], answer["unattributed"]["revenue"]) == ([money("EUR", 6000)], [money("EUR", 1000)])


# --- the metric ----------------------------------------------------------------------------------------

def test_notifications_are_counted_by_source_and_outcome(server, roots):
    app = apple_app(server, revenueCat={"authorization": RC_AUTHORIZATION})

    def count(source, outcome):
        return metric_values(server).get(
            ("xizor_store_notifications_total", (("outcome", outcome), ("source", source))), 0)

    keys = [("apple", "stored"), ("apple", "duplicate"), ("apple", "invalid_signature"), ("revenuecat", "stored"),
            ("revenuecat", "invalid_authorization")]
    before = {k: count(*k) for k in keys}
    body = _valid(roots, str(uuid.uuid4()))
    stored(post_apple(server, app.id, body))
    stored(post_apple(server, app.id, body), "duplicate")
    refused(post_apple(server, app.id, _valid(roots, str(uuid.uuid4()), forge=True)), "invalid_signature")
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "m-1", "m-1", price=1)))
    refused(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "m-2", "m-2"), "Bearer nope-nope"),
            "invalid_authorization")
    assert {k: count(*k) - before[k] for k in keys} == {k: 1 for k in keys}


# --- a live flow: an experiment, trials, conversions, a refund, attributed -------------------------------

def test_verified_results_of_an_experiment(server, roots, receiver):
    app = apple_app(server)
    chain = roots.chain
    control, challenger, settings_pw = app.create_paywall("clean"), app.create_paywall("cinematic"), app.create_paywall("clean")
    for pw in (control, challenger, settings_pw):
        app.publish(pw)
    app.assign("settings", settings_pw)
    exp = app.dashboard.post("/v1/experiments", {"name": "Verified test", "variants": [
        {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50, "name": "cinematic"}]}).json()["id"]
    assert app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp}).status_code == 200
    assert app.dashboard.post(f"/v1/experiments/{exp}/start").json()["status"] == "running"
    hook = app.dashboard.post("/v1/webhooks", {"url": receiver.url(), "eventTypes": REVENUE_WEBHOOKS})
    assert hook.status_code == 201, hook.text

    now = an.now_ms()
    seen_control = [f"c{i}" for i in range(10)]
    seen_challenger = [f"k{i}" for i in range(8)]
    events = [open_event(s, control, now - 3 * H, experiment=exp, variant="control") for s in seen_control if s != "c3"]
    events.append(open_event("c3", control, now - 40 * D - H, experiment=exp, variant="control"))
    events += [open_event(s, challenger, now - 3 * H, experiment=exp, variant="cinematic") for s in seen_challenger]
    # x saw the control, then (last) the settings paywall: credited to the settings paywall.
    events += [open_event("x", control, now - 4 * H, experiment=exp, variant="control"),
               open_event("x", settings_pw, now - 3 * H, placement="settings")]
    # late saw a paywall 31 hours before buying (outside the 24-hour window); after only after buying.
    events += [open_event("late", settings_pw, now - 31 * H, placement="settings"),
               open_event("after", settings_pw, now - H, placement="settings")]
    # What the app itself reports: c0 bought, and k7 "bought" (nobody paid: a jailbroken device).
    events += [open_event("c0", control, now - 2 * H, experiment=exp, variant="control", name="purchase_completed"),
               open_event("k7", challenger, now - 2 * H, experiment=exp, variant="cinematic", name="purchase_completed")]
    send_events(app, events)
    wait_folded(server)

    def notify(kind, tx, subtype=None, *, status="stored", **kw):
        body = apple_notification(chain, kind, subtype, tx=tx, **kw)
        stored(post_apple(server, app.id, body), status)
        return body

    trial, month, year_usd = 0, 9990, 99990
    # Control: c0, c1, c2 start trials; c0 converts, then renews; c3 subscribed 40 days ago and renewed twice.
    for s in ("c0", "c1", "c2"):
        notify("SUBSCRIBED", apple_tx(f"{s}-1", subscriber=s, purchase=now - 2 * H, price=trial, trial=True), "INITIAL_BUY")
    notify("DID_RENEW", apple_tx("c0-2", subscriber="c0", original="c0-1", purchase=now - 90 * 60_000,
                                 original_purchase=now - 2 * H, price=month))
    notify("DID_RENEW", apple_tx("c0-3", subscriber="c0", original="c0-1", purchase=now - H,
                                 original_purchase=now - 2 * H, price=month))
    c3 = dict(subscriber="c3", original="c3-1", original_purchase=now - 40 * D, price=19990)
    notify("SUBSCRIBED", apple_tx("c3-1", **dict(c3, purchase=now - 40 * D)), "INITIAL_BUY")
    notify("DID_RENEW", apple_tx("c3-2", **dict(c3, purchase=now - 30 * D)))   # 10 days after the credit
    notify("DID_RENEW", apple_tx("c3-3", **dict(c3, purchase=now - D)))        # 39 days after
    # Challenger: k0–k3 start trials, k0–k2 convert, k1's conversion is refunded; k4 buys a lifetime unlock in USD.
    for s in ("k0", "k1", "k2", "k3"):
        notify("SUBSCRIBED", apple_tx(f"{s}-1", subscriber=s, purchase=now - 2 * H, price=trial, trial=True), "INITIAL_BUY")
    for s in ("k0", "k1", "k2"):
        notify("DID_RENEW", apple_tx(f"{s}-2", subscriber=s, original=f"{s}-1", purchase=now - 90 * 60_000,
                                     original_purchase=now - 2 * H, price=month))
    refund_tx = apple_tx("k1-2", subscriber="k1", original="k1-1", purchase=now - 90 * 60_000, original_purchase=now - 2 * H,
                         price=month, revocation_date=now - 30 * 60_000, revocation_reason=0)
    refund = notify("REFUND", refund_tx)
    stored(post_apple(server, app.id, refund), "duplicate")   # Apple's retry
    notify("ONE_TIME_CHARGE", apple_tx("k4-1", subscriber="k4", purchase=now - 2 * H, price=year_usd, currency="USD",
                                       type="Non-Consumable", product_id="lifetime"))
    # The settings paywall: x buys. Unattributed: u0 never saw a paywall, late and after saw none in the
    # window before buying, and one purchase carries no appAccountToken at all.
    notify("SUBSCRIBED", apple_tx("x-1", subscriber="x", purchase=now - 2 * H, price=month), "INITIAL_BUY")
    for s in ("u0", "late", "after"):
        notify("SUBSCRIBED", apple_tx(f"{s}-1", subscriber=s, purchase=now - 2 * H, price=month), "INITIAL_BUY")
    notify("SUBSCRIBED", apple_tx("anon-1", purchase=now - 2 * H, price=month), "INITIAL_BUY")

    # --- experiment results: exactly those counts and amounts per variant -----------------------------------
    control_block = block(trialStarts=3, trialConversions=1, paidConversions=2, renewals=3, revenue=[
        money("EUR", gross=2 * month + 3 * 19990, net7d=2 * month + 19990, net30d=2 * month + 2 * 19990)])
    challenger_block = block(trialStarts=4, trialConversions=3, paidConversions=4, refunds=1, revenue=[
        money("EUR", gross=3 * month, refunded=month), money("USD", gross=year_usd)])
    arms = {"control": {"trialStarted": 3, "paid": 2, "trialConverted": 1, "refunded": 0},
            "cinematic": {"trialStarted": 4, "paid": 4, "trialConverted": 3, "refunded": 1}}
    subscribers = {"control": 11, "cinematic": 8}   # c0–c9 and x; k0–k7

    def results(metric=None):
        r = app.dashboard.get(f"/v1/experiments/{exp}/results", params={"metric": metric} if metric else None)
        assert r.status_code == 200, r.text
        return r.json()

    plain = results()
    assert (plain["metric"], plain["source"]) == ("conversion", "client-reported")
    by_name = {v["name"]: v for v in plain["variants"]}
    for name, expected in (("control", control_block), ("cinematic", challenger_block)):
        v = by_name[name]
        assert v["uniqueSubscribers"] == subscribers[name], v
        assert counts_of(v["verified"]) == expected, (name, v["verified"])
        assert v["verified"]["subscribers"] == arms[name], (name, v["verified"])
    assert [by_name[n]["conversions"] for n in ("control", "cinematic")] == [1, 1]   # what the app said
    per_subscriber = {r["currency"]: r["amount"] for r in by_name["cinematic"]["verified"]["revenuePerSubscriber"]}
    assert per_subscriber == {"EUR": pytest.approx(units(2 * month) / 8, abs=1e-9),
                              "USD": pytest.approx(units(year_usd) / 8, abs=1e-9)}

    metric_successes = {"verified_conversion": "paid", "trial_start": "trialStarted", "trial_conversion": "trialConverted"}
    for metric, bit in metric_successes.items():
        answer = results(metric)
        assert (answer["metric"], answer["source"]) == (metric, "verified"), answer
        rows = {v["name"]: v for v in answer["variants"]}
        assert {n: rows[n]["conversions"] for n in rows} == {n: arms[n][bit] for n in arms}, (metric, rows)
        assert {n: rows[n]["uniqueSubscribers"] for n in rows} == subscribers
        assert {n: counts_of(rows[n]["verified"]) for n in rows} == {"control": control_block, "cinematic": challenger_block}
        # Beta(1 + s, 1 + n − s) posteriors, the reference computed here.
        s_a, n_a, s_b, n_b = arms["control"][bit], subscribers["control"], arms["cinematic"][bit], subscribers["cinematic"]
        posteriors = [(1 + s_a, 1 + n_a - s_a), (1 + s_b, 1 + n_b - s_b)]
        assert rows["control"]["probabilityToBeatControl"] is None
        assert rows["cinematic"]["probabilityToBeatControl"] == pytest.approx(beats(*posteriors[1], *posteriors[0]), abs=1e-6)
        # The same by numerical integration (two arms: beating the control is being the best).
        assert rows["cinematic"]["probabilityToBeatControl"] == pytest.approx(best(posteriors, 1), abs=1e-5)
        assert rows["control"]["probabilityToBeBest"] == pytest.approx(best(posteriors, 0), abs=1e-5)
        assert rows["cinematic"]["conversionRate"] == pytest.approx(s_b / n_b)
    bad = app.dashboard.get(f"/v1/experiments/{exp}/results", params={"metric": "revenue"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_metric", bad.text
    # Sandbox data holds none of it (every notification here is Production).
    sandbox = app.dashboard.get(f"/v1/experiments/{exp}/results", params={"environment": "sandbox"}).json()
    assert all(counts_of(v["verified"]) == ZERO for v in sandbox["variants"]), sandbox

    # --- paywall analytics: each version's verified block ---------------------------------------------------
    def version_one(pw):
        r = app.dashboard.get(f"/v1/paywalls/{pw}/analytics")
        assert r.status_code == 200, r.text
        assert r.json()["sources"] == {"revenue": "client-reported", "verified": "verified"}
        return next(v for v in r.json()["versions"] if v["version"] == 1)

    settings_block = block(paidConversions=1, revenue=[money("EUR", month)])
    assert counts_of(version_one(control)["verified"]) == control_block
    assert counts_of(version_one(challenger)["verified"]) == challenger_block
    assert counts_of(version_one(settings_pw)["verified"]) == settings_block

    # --- the app's report: attributed and not ---------------------------------------------------------------
    eur_attributed = 2 * month + 3 * 19990 + 3 * month + month
    attributed = block(trialStarts=7, trialConversions=4, paidConversions=7, renewals=3, refunds=1, revenue=[
        money("EUR", gross=eur_attributed, refunded=month, net7d=eur_attributed - month - 2 * 19990,
              net30d=eur_attributed - month - 19990),
        money("USD", gross=year_usd)])
    unattributed = block(paidConversions=4, revenue=[money("EUR", 4 * month)])
    production = report(app, "production")
    assert production["attributed"] == attributed, production["attributed"]
    assert production["unattributed"] == unattributed, production["unattributed"]
    assert production["total"] == block(trialStarts=7, trialConversions=4, paidConversions=11, renewals=3, refunds=1, revenue=[
        money("EUR", gross=eur_attributed + 4 * month, refunded=month, net7d=eur_attributed + 4 * month - month - 2 * 19990,
              net30d=eur_attributed + 4 * month - month - 19990),
        money("USD", gross=year_usd)])
    assert report(app, "sandbox")["total"] == ZERO
    # Cohorts: from five days ago, c3's subscription (credited 40 days ago) is left out.
    recent = report(app, "production", **{"from": now - 5 * D})
    assert counts_of(recent["attributed"]) == block(
        trialStarts=7, trialConversions=4, paidConversions=6, renewals=1, refunds=1,
        revenue=[money("EUR", gross=eur_attributed - 3 * 19990, refunded=month), money("USD", gross=year_usd)])

    # --- webhooks out --------------------------------------------------------------------------------------
    expected_types = {"purchase.verified": 7 + 7, "trial.converted": 4, "subscription.renewed": 3, "subscription.refunded": 1}
    delivered = receiver.wait_for_events(sum(expected_types.values()), timeout=20)
    got = [r.json() for r in delivered]
    assert {t: sum(e["type"] == t for e in got) for t in expected_types} == expected_types, [e["type"] for e in got]
    refunded = next(e for e in got if e["type"] == "subscription.refunded")
    data = refunded["data"]
    assert {k: data[k] for k in ("source", "kind", "environment", "subscriberId", "transactionId",
                                 "originalTransactionId", "amount", "currency", "occurredAt")} == {
        "source": "apple", "kind": "refund", "environment": "production", "subscriberId": "k1", "transactionId": "k1-2",
        "originalTransactionId": "k1-1", "amount": 9.99, "currency": "EUR", "occurredAt": now - 30 * 60_000}, data
    assert data["attribution"] == {"placement": "onboarding", "paywallId": challenger, "version": 1,
                                   "experimentId": exp, "variant": "cinematic"}, data
    anonymous = [e["data"] for e in got if e["data"]["transactionId"] in ("u0-1", "late-1", "anon-1")]
    assert sorted((d["subscriberId"], d["attribution"]) for d in anonymous
                  if d["subscriberId"]) == [("late", None)], anonymous
    time.sleep(0.3)
    assert len(receiver.events()) == sum(expected_types.values()), "more webhooks than ledger entries"


def test_only_a_start_is_credited_and_erasure_keeps_the_arms_exact(server):
    """A renewal of a subscription the server never saw start is unattributed, even right after a
    presentation (a presentation then did not earn it); erasing a subscriber takes their verified
    progress out of the arm's distinct counts, so `subscribers` stays exact."""
    app = new_app(server, "Credit")
    configure(app, revenueCat={"authorization": RC_AUTHORIZATION})
    control, challenger = app.create_paywall("clean"), app.create_paywall("cinematic")
    for pw in (control, challenger):
        app.publish(pw)
    exp = app.dashboard.post("/v1/experiments", {"name": "Erasure", "variants": [
        {"paywallId": control, "weight": 50}, {"paywallId": challenger, "weight": 50, "name": "b"}]}).json()["id"]
    assert app.dashboard.put("/v1/placements/onboarding", {"experimentId": exp}).status_code == 200
    assert app.dashboard.post(f"/v1/experiments/{exp}/start").status_code == 200
    now = an.now_ms()
    send_events(app, [open_event(s, control, now - 2 * H, experiment=exp, variant="control") for s in ("e1", "e2", "old")])
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "e1", "e1-1", at=now - H, price=9.99)))
    stored(post_revenuecat(server, app.id, rc_event("INITIAL_PURCHASE", "e2", "e2-1", at=now - H, price=9.99)))
    # "old" subscribed long before this server heard of it: its renewal is not the presentation's.
    stored(post_revenuecat(server, app.id, rc_event("RENEWAL", "old", "old-2", original="old-1", at=now - H, price=9.99)))
    production = report(app, "production")
    assert counts_of(production["attributed"]) == block(paidConversions=2, revenue=[money("EUR", 2 * 9990)])
    assert counts_of(production["unattributed"]) == block(renewals=1, revenue=[money("EUR", 9990)])

    def arm():
        results = app.dashboard.get(f"/v1/experiments/{exp}/results", params={"metric": "verified_conversion"}).json()
        control_row = next(v for v in results["variants"] if v["name"] == "control")
        return control_row["verified"]["subscribers"], control_row["conversions"], results["holdout"]
    assert arm() == ({"trialStarted": 0, "paid": 2, "trialConverted": 0, "refunded": 0}, 2, None)
    assert app.dashboard.delete("/v1/subscribers/e1").status_code == 200
    subscribers, conversions, _ = arm()
    assert subscribers == {"trialStarted": 0, "paid": 1, "trialConverted": 0, "refunded": 0}, subscribers
    assert conversions == 1


def test_an_apps_store_notifications_have_a_bucket_of_their_own(tmp_path, roots):
    """Store notifications of one app draw from a writes bucket of their own (rateLimits.writes*): past it,
    429 with Retry-After and nothing stored (the store retries); the app's dashboard keeps its own
    bucket, and another app's notifications are not held up."""
    s = XizorServer(tmp_path / "data", extra_env={
        "XIZOR_STORES_APPLE_ROOT_CERTIFICATES": str(roots.der_path),
        "XIZOR_RATE_LIMITS_WRITES_PER_SECOND": "1", "XIZOR_RATE_LIMITS_WRITES_BURST": "3"})
    try:
        busy, other = new_app(s, "Busy"), new_app(s, "Other")
        for app in (busy, other):
            configure(app, revenueCat={"authorization": RC_AUTHORIZATION})
        answers = [post_revenuecat(s, busy.id, rc_event("NON_RENEWING_PURCHASE", "u", f"t{i}", price=1)) for i in range(4)]
        assert [r.status_code for r in answers] == [200, 200, 200, 429], [r.text for r in answers]
        assert answers[3].headers.get("Retry-After") and answers[3].json()["code"] == "rate_limited"
        assert counts_of(report(busy)["total"])["paidConversions"] == 3
        assert configure(busy, attributionWindowHours=12)["attributionWindowHours"] == 12, "the dashboard's own bucket"
        stored(post_revenuecat(s, other.id, rc_event("NON_RENEWING_PURCHASE", "u", "o1", price=1)))
    finally:
        assert s.stop() == 0
