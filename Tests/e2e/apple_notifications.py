"""App Store Server Notifications V2 for the live tests (issue 38, docs of the revenue feature): test
certificate chains shaped like Apple's, JWS compact strings signed the way the App Store signs them,
notification and transaction payloads, and the verdict of Apple's own app-store-server-library on them,
which the server's answer is held to.

    chain = make_chain()                                 # root <- intermediate (Apple OID) <- leaf (Apple OID)
    chain.write_root_der(tmp / "root.der")               # for stores.apple.rootCertificates
    tx = transaction(transaction_id="2000000001", bundle_id="com.example.app",
                     app_account_token=app_account_token(subscriber_id))
    body = signed_notification(chain, "SUBSCRIBED", "INITIAL_BUY", transaction=tx,
                               bundle_id="com.example.app", app_apple_id=1234567890)
    library_verdict(chain.root_der, body, "com.example.app", 1234567890, "Sandbox")   # "ok"

Variants: make_chain(leaf_oid=False), make_chain(intermediate_oid=False), make_chain(expired=True),
make_chain(root=chain) (the same root, new intermediate and leaf), make_chain() again (another root);
jws(..., alg="ES384" | "none", forge=True, x5c_count=2); signed_notification(..., tamper_transaction={...}).

The library (SignedDataVerifier without online checks) checks, for each JWS: x5c present and non-empty,
header alg == "ES256", then the chain at the payload's own signedDate (x5c of exactly 3; only x5c[0] and
x5c[1] are read, x5c[2] is ignored; OpenSSL with X509_STRICT against the configured roots), leaf OID
1.2.840.113635.100.6.11.1, intermediate OID 1.2.840.113635.100.6.2.1, then the ES256 signature by the
leaf's P-256 key; then bundleId (and appAppleId when verifying for Production), then environment.
"""
import base64
import datetime
import json
import time
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

LEAF_OID = "1.2.840.113635.100.6.11.1"           # on Apple's receipt-signing leaf certificates
INTERMEDIATE_OID = "1.2.840.113635.100.6.2.1"    # on Apple's WWDR intermediate certificates
APPLE_EXTENSION_VALUE = b"\x05\x00"              # both carry a DER NULL

APP_ACCOUNT_TOKEN_NAMESPACE = uuid.UUID("00865d56-5f6a-5954-85e7-b7a50ba01f06")

_DAY = datetime.timedelta(days=1)


def now_ms():
    return int(time.time() * 1000)


def app_account_token(subscriber_id):
    """The appAccountToken the client SDK gives StoreKit for a subscriber: UUIDv5 of the subscriber id
    (UTF-8) in Xizor's namespace, lowercase."""
    return str(uuid.uuid5(APP_ACCOUNT_TOKEN_NAMESPACE, subscriber_id))


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _json(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


# ---------------------------------------------------------------- certificates

class Chain:
    """A root CA, an intermediate CA it signed, a leaf the intermediate signed; keys and certificates
    (cryptography objects). `x5c()` is the JWS header's list: leaf, intermediate, root as standard base64 DER."""

    def __init__(self, root_cert, root_key, intermediate_cert, intermediate_key, leaf_cert, leaf_key):
        self.root_cert = root_cert
        self.root_key = root_key
        self.intermediate_cert = intermediate_cert
        self.intermediate_key = intermediate_key
        self.leaf_cert = leaf_cert
        self.leaf_key = leaf_key

    @property
    def root_der(self):
        return self.root_cert.public_bytes(serialization.Encoding.DER)

    @property
    def root_pem(self):
        return self.root_cert.public_bytes(serialization.Encoding.PEM)

    def write_root_der(self, path):
        with open(path, "wb") as f:
            f.write(self.root_der)
        return path

    def write_root_pem(self, path):
        with open(path, "wb") as f:
            f.write(self.root_pem)
        return path

    def x5c(self):
        return [_b64(c.public_bytes(serialization.Encoding.DER))
                for c in (self.leaf_cert, self.intermediate_cert, self.root_cert)]


def _name(common_name):
    return x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "Xizor Tests"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Xizor"),
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    ])


def _certificate(subject, key, issuer_name, issuer_key, *, ca, path_length, not_before, not_after,
                 apple_oid, cert_hash):
    """One certificate with the extensions the library's OpenSSL X509_STRICT check wants: basic constraints
    (critical), key usage, subject key identifier, and an authority key identifier below the root."""
    builder = (x509.CertificateBuilder()
               .subject_name(subject)
               .issuer_name(issuer_name)
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(not_before)
               .not_valid_after(not_after)
               .add_extension(x509.BasicConstraints(ca=ca, path_length=path_length if ca else None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=False,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=ca, crl_sign=ca, encipher_only=False,
                                            decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if issuer_key is not key:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    if apple_oid:
        builder = builder.add_extension(
            x509.UnrecognizedExtension(x509.ObjectIdentifier(apple_oid), APPLE_EXTENSION_VALUE), critical=False)
    return builder.sign(issuer_key, cert_hash)


def make_chain(*, leaf_oid=True, intermediate_oid=True, expired=False, not_before=None, not_after=None,
               root=None, name="Xizor Test", ca_curve=None, leaf_curve=None, cert_hash=None):
    """A certificate chain like Apple's (root CA, intermediate CA with OID 1.2.840.113635.100.6.2.1, leaf with
    OID 1.2.840.113635.100.6.11.1, both extensions non-critical DER NULL), P-256 keys, ecdsa-with-SHA256.

    leaf_oid / intermediate_oid=False: that certificate lacks its Apple OID.
    expired=True: the new certificates were valid from 2 years ago until 1 year ago (not_before / not_after,
        datetimes, set the window explicitly; the default is from a day ago for 5 years).
    root=<Chain>: reuse that chain's root (certificate and key): a new intermediate and leaf under the same
        trusted root (then only they get the validity window). Without it, a new root: a chain to another root.
    ca_curve / leaf_curve: ec curves (default P-256); cert_hash: the certificates' signature hash (SHA-256).
    """
    ca_curve = ca_curve or ec.SECP256R1()
    leaf_curve = leaf_curve or ec.SECP256R1()
    cert_hash = cert_hash or hashes.SHA256()
    current = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    if expired:
        not_before = not_before or current - 730 * _DAY
        not_after = not_after or current - 365 * _DAY
    not_before = not_before or current - _DAY
    not_after = not_after or current + 5 * 365 * _DAY
    suffix = uuid.uuid4().hex[:8]

    if root is None:
        root_key = ec.generate_private_key(ca_curve)
        root_name = _name(f"{name} Root CA {suffix}")
        root_cert = _certificate(root_name, root_key, root_name, root_key, ca=True, path_length=None,
                                 not_before=not_before, not_after=not_after, apple_oid=None, cert_hash=cert_hash)
    else:
        root_key, root_cert = root.root_key, root.root_cert

    intermediate_key = ec.generate_private_key(ca_curve)
    intermediate_cert = _certificate(_name(f"{name} Intermediate CA {suffix}"), intermediate_key,
                                     root_cert.subject, root_key, ca=True, path_length=0,
                                     not_before=not_before, not_after=not_after,
                                     apple_oid=INTERMEDIATE_OID if intermediate_oid else None, cert_hash=cert_hash)
    leaf_key = ec.generate_private_key(leaf_curve)
    leaf_cert = _certificate(_name(f"{name} Receipt Signing {suffix}"), leaf_key,
                             intermediate_cert.subject, intermediate_key, ca=False, path_length=None,
                             not_before=not_before, not_after=not_after,
                             apple_oid=LEAF_OID if leaf_oid else None, cert_hash=cert_hash)
    return Chain(root_cert, root_key, intermediate_cert, intermediate_key, leaf_cert, leaf_key)


# ---------------------------------------------------------------- JWS

_HASH_FOR_CURVE = {"secp256r1": hashes.SHA256, "secp384r1": hashes.SHA384, "secp521r1": hashes.SHA512}


def jws(chain, payload, *, alg="ES256", forge=False, x5c_count=3, x5c=None):
    """A JWS compact string as the App Store makes it: header {"alg":"ES256","x5c":[leaf, intermediate, root]}
    (standard base64 DER), payload JSON, signature raw r||s (64 bytes for P-256) base64url without padding,
    by the chain's leaf key (hash by the key's curve: SHA-256 for P-256, SHA-384 for P-384).

    alg: the header's alg ("ES384", "none": for "none" the signature segment is empty).
    forge=True: one byte of the signature flipped. x5c_count: the first N of [leaf, intermediate, root];
    x5c: the header's x5c list verbatim (overrides x5c_count).
    """
    header = {"alg": alg, "x5c": list(x5c) if x5c is not None else chain.x5c()[:x5c_count]}
    signing_input = _b64url(_json(header)) + "." + _b64url(_json(payload))
    if alg == "none":
        return signing_input + "."
    key = chain.leaf_key
    digest = _HASH_FOR_CURVE[key.curve.name]()
    r, s = decode_dss_signature(key.sign(signing_input.encode("ascii"), ec.ECDSA(digest)))
    size = (key.curve.key_size + 7) // 8
    signature = bytearray(r.to_bytes(size, "big") + s.to_bytes(size, "big"))
    if forge:
        signature[5] ^= 0x01
    return signing_input + "." + _b64url(bytes(signature))


def jws_payload(token):
    """The decoded payload of a JWS compact string (not verified)."""
    return json.loads(_b64url_decode(token.split(".")[1]))


def jws_header(token):
    return json.loads(_b64url_decode(token.split(".")[0]))


def tamper(token, **changes):
    """The same JWS with its payload changed after signing (header and signature kept): an invalid signature."""
    header, _, signature = token.split(".")
    payload = jws_payload(token)
    payload.update(changes)
    return header + "." + _b64url(_json(payload)) + "." + signature


# ---------------------------------------------------------------- payloads

def transaction(*, transaction_id, bundle_id, original_transaction_id=None, product_id="pro.monthly",
                purchase_date=None, original_purchase_date=None, expires_date=None, period_days=30,
                environment="Sandbox", transaction_reason="PURCHASE", price=9990, currency="EUR",
                app_account_token=None, offer_type=None, offer_discount_type=None, offer_identifier=None,
                signed_date=None, type="Auto-Renewable Subscription", quantity=1,
                revocation_date=None, revocation_reason=None, storefront="USA", storefront_id="143441",
                **extra):
    """Apple's JWSTransactionDecodedPayload (a dict). Times are ms since the epoch; purchase_date defaults to
    now, original_purchase_date to purchase_date, expires_date (auto-renewable only) to purchase_date +
    period_days, signed_date to now. price in milliunits (9990 = 9.99). offer_type 1 + offer_discount_type
    "FREE_TRIAL" make an introductory free trial. None-valued fields are left out; `extra` adds or replaces fields.
    """
    now = now_ms()
    purchase_date = now if purchase_date is None else purchase_date
    auto_renewable = type == "Auto-Renewable Subscription"
    if expires_date is None and auto_renewable:
        expires_date = purchase_date + period_days * 86_400_000
    original_transaction_id = original_transaction_id or transaction_id
    payload = {
        "transactionId": str(transaction_id),
        "originalTransactionId": str(original_transaction_id),
        "webOrderLineItemId": str(transaction_id) + "01" if auto_renewable else None,
        "bundleId": bundle_id,
        "productId": product_id,
        "subscriptionGroupIdentifier": "21000000" if auto_renewable else None,
        "purchaseDate": purchase_date,
        "originalPurchaseDate": purchase_date if original_purchase_date is None else original_purchase_date,
        "expiresDate": expires_date,
        "quantity": quantity,
        "type": type,
        "appAccountToken": app_account_token,
        "inAppOwnershipType": "PURCHASED",
        "signedDate": now if signed_date is None else signed_date,
        "offerType": offer_type,
        "offerIdentifier": offer_identifier,
        "offerDiscountType": offer_discount_type,
        "revocationDate": revocation_date,
        "revocationReason": revocation_reason,
        "environment": environment,
        "transactionReason": transaction_reason,
        "storefront": storefront,
        "storefrontId": storefront_id,
        "price": price,
        "currency": currency,
    }
    payload.update(extra)
    return {k: v for k, v in payload.items() if v is not None}


def renewal_info(*, original_transaction_id, product_id="pro.monthly", environment="Sandbox",
                 auto_renew_status=1, renewal_date=None, recent_subscription_start_date=None,
                 renewal_price=9990, currency="EUR", signed_date=None, **extra):
    """Apple's JWSRenewalInfoDecodedPayload (a dict; it has no bundleId)."""
    now = now_ms()
    payload = {
        "originalTransactionId": str(original_transaction_id),
        "autoRenewProductId": product_id,
        "productId": product_id,
        "autoRenewStatus": auto_renew_status,
        "signedDate": now if signed_date is None else signed_date,
        "environment": environment,
        "recentSubscriptionStartDate": now if recent_subscription_start_date is None else recent_subscription_start_date,
        "renewalDate": renewal_date if renewal_date is not None else now + 30 * 86_400_000,
        "renewalPrice": renewal_price,
        "currency": currency,
    }
    payload.update(extra)
    return {k: v for k, v in payload.items() if v is not None}


def _signed(chain, value):
    if value is None or isinstance(value, str):
        return value          # absent, or an already-signed JWS used as it is
    return jws(chain, value)


def signed_notification(chain, notification_type, subtype=None, *, transaction=None, renewal=None,
                        bundle_id, app_apple_id=None, environment="Sandbox", notification_uuid=None,
                        signed_date=None, status=1, bundle_version="1", alg="ES256", forge=False,
                        x5c_count=3, x5c=None, tamper_transaction=None, data_extra=None, extra=None):
    """The request body the App Store posts: {"signedPayload": <JWS of ResponseBodyV2DecodedPayload>}.

    transaction / renewal: a dict (JWSTransactionDecodedPayload / JWSRenewalInfoDecodedPayload, signed here
    with the same chain) or an already-signed JWS string; None leaves signedTransactionInfo / signedRenewalInfo out.
    app_apple_id None leaves appAppleId out. signed_date: ms (now by default). notification_uuid: a new
    UUID by default. alg / forge / x5c_count / x5c: as for jws(), for the outer JWS.
    tamper_transaction: a dict of fields changed in the signed transaction's payload after signing.
    data_extra / extra: fields added to (or replacing those of) data / the payload.
    """
    signed_transaction = _signed(chain, transaction)
    if tamper_transaction:
        signed_transaction = tamper(signed_transaction, **tamper_transaction)
    data = {
        "appAppleId": app_apple_id,
        "bundleId": bundle_id,
        "bundleVersion": bundle_version,
        "environment": environment,
        "signedTransactionInfo": signed_transaction,
        "signedRenewalInfo": _signed(chain, renewal),
        "status": status,
    }
    data.update(data_extra or {})
    payload = {
        "notificationType": notification_type,
        "subtype": subtype,
        "notificationUUID": notification_uuid or str(uuid.uuid4()),
        "version": "2.0",
        "signedDate": now_ms() if signed_date is None else signed_date,
        "data": {k: v for k, v in data.items() if v is not None},
    }
    payload.update(extra or {})
    payload = {k: v for k, v in payload.items() if v is not None}
    return {"signedPayload": jws(chain, payload, alg=alg, forge=forge, x5c_count=x5c_count, x5c=x5c)}


# ---------------------------------------------------------------- Apple's library as the reference

def library_verdict(root_der, payload_dict, bundle_id, app_apple_id, environment):
    """What app-store-server-library's SignedDataVerifier (root_certificates=[root_der] (or a list of DER
    roots), no online checks, the given bundle id / appAppleId / environment "Sandbox" | "Production") says
    of a notification body {"signedPayload": ...}: verify_and_decode_notification, then
    verify_and_decode_signed_transaction on data.signedTransactionInfo and verify_and_decode_renewal_info
    on data.signedRenewalInfo when present. Returns "ok", the VerificationStatus name of the first failure
    (VERIFICATION_FAILURE, INVALID_APP_IDENTIFIER, INVALID_CERTIFICATE, INVALID_CHAIN_LENGTH,
    INVALID_ENVIRONMENT), or "exception:<type>" when the library fails otherwise (a payload its models
    cannot hold, e.g. a field of the wrong type)."""
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

    roots = list(root_der) if isinstance(root_der, (list, tuple)) else [root_der]
    verifier = SignedDataVerifier(root_certificates=roots, enable_online_checks=False,
                                  environment=Environment(environment), bundle_id=bundle_id,
                                  app_apple_id=app_apple_id)
    try:
        notification = verifier.verify_and_decode_notification(payload_dict["signedPayload"])
        data = notification.data
        if data is not None and data.signedTransactionInfo is not None:
            verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
        if data is not None and data.signedRenewalInfo is not None:
            verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
    except VerificationException as e:
        return e.status.name
    except Exception as e:  # noqa: BLE001 - the reference's answer, whatever it is
        return "exception:" + type(e).__name__
    return "ok"
