import CCrypto
import Foundation
import PaywallFormat

/// Verifies the App Store's signed data — a notification's `signedPayload`, its `signedTransactionInfo`
/// and `signedRenewalInfo` — as Apple's `app-store-server-library` (`SignedDataVerifier`, without online
/// checks) does, with libcrypto's X.509 and EC code rather than our own:
///
/// 1. the JWS header names `alg: ES256` and carries an `x5c` of exactly three certificates (leaf,
///    intermediate, root);
/// 2. leaf ← intermediate chains to one of the trusted roots under OpenSSL's strict RFC 5280 checks
///    (`X509_V_FLAG_X509_STRICT`, as the library sets; the `x5c` root itself is ignored: only configured
///    roots are trusted), every certificate valid at the payload's `signedDate` (a notification Apple
///    retries days later is still valid; a certificate that expired before the signing is not);
/// 3. the leaf carries OID 1.2.840.113635.100.6.11.1 and the intermediate 1.2.840.113635.100.6.2.1;
/// 4. the signature (raw r‖s, RFC 7518 §3.4) verifies with the leaf's P-256 key.
///
/// What the payload says (bundle id, environment) is the caller's to check. Stateless and `Sendable`:
/// the roots are kept as DER and parsed per call (microseconds), so no libcrypto object is shared.
public struct SignedDataVerifier: Sendable {
    /// The roots a chain may end in, DER.
    public let rootCertificates: [[UInt8]]

    static let leafOID = "1.2.840.113635.100.6.11.1"
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    /// Refuses a root that is not a DER or PEM X.509 certificate, naming it.
    public init(rootCertificates: [[UInt8]]) throws(CertificateError) {
        var roots: [[UInt8]] = []
        for (index, bytes) in rootCertificates.enumerated() {
            guard let der = Self.der(fromDERorPEM: bytes), let certificate = Self.certificate(der) else {
                throw CertificateError(index: index)
            }
            X509_free(certificate)
            roots.append(der)
        }
        self.rootCertificates = roots
    }

    /// Roots known to parse (the compiled-in one, which a test reads).
    init(trusted: [[UInt8]]) { rootCertificates = trusted }

    /// A root certificate that could not be read.
    public struct CertificateError: Error, Sendable {
        public let index: Int
    }

    /// The payload of `jws` WITHOUT any check: only to find a notification's id for de-duplication, so
    /// a retry of one stored before is answered without verifying it again. Nothing read here is trusted.
    public static func unverifiedPayload(of jws: String) -> JSONValue? { try? CompactJWS(jws).payload }

    /// The payload of `jws`, once every check above has passed. `now` is the time a payload without a
    /// `signedDate` is checked at.
    public func verify(_ jws: String, now: Int64) throws(SignatureFailure) -> JSONValue {
        // libcrypto's error queue is per thread, shared with libpq and libcurl on it: left empty.
        defer { ERR_clear_error() }
        let parsed = try CompactJWS(jws)
        guard parsed.header["alg"]?.stringValue == "ES256" else { throw .unsupportedAlgorithm }
        guard let x5c = parsed.header["x5c"]?.arrayValue, x5c.count == 3 else { throw .invalidChainLength }
        guard let leafDER = x5c[0].stringValue.flatMap(CompactJWS.base64),
            let intermediateDER = x5c[1].stringValue.flatMap(CompactJWS.base64)
        else { throw .untrustedChain }
        // As Apple's library: the payload's own signing time (a number, or digits as a string), else now.
        let signedAt =
            parsed.payload["signedDate"]?.numberValue?.int64Value
            ?? parsed.payload["signedDate"]?.stringValue.flatMap { Int64($0) } ?? now
        guard let leaf = Self.certificate(leafDER) else { throw .untrustedChain }
        defer { X509_free(leaf) }
        guard let intermediate = Self.certificate(intermediateDER) else { throw .untrustedChain }
        defer { X509_free(intermediate) }
        guard chains(leaf: leaf, intermediate: intermediate, at: signedAt) else { throw .untrustedChain }
        guard Self.has(oid: Self.leafOID, leaf), Self.has(oid: Self.intermediateOID, intermediate) else {
            throw .missingAppleOID
        }
        guard Self.verifyES256(signature: parsed.signature, over: parsed.signingInput, by: leaf) else {
            throw .invalidSignature
        }
        return parsed.payload
    }

    /// Whether leaf ← intermediate ← a trusted root verifies at `time` (ms since 1970), as exactly that
    /// chain of three: Apple's library checks its OIDs on the chain OpenSSL built, so a leaf a trusted
    /// root signed directly (a chain of two, whatever `x5c[1]` holds) is not Apple's.
    private func chains(leaf: OpaquePointer, intermediate: OpaquePointer, at time: Int64) -> Bool {
        guard let store = X509_STORE_new() else { return false }
        defer { X509_STORE_free(store) }
        // RFC 5280's profile strictly, as Apple's library asks of OpenSSL (key identifiers, key usage,
        // critical basic constraints): a chain it refuses is refused here too.
        guard X509_STORE_set_flags(store, UInt(X509_V_FLAG_X509_STRICT)) == 1 else { return false }
        for der in rootCertificates {
            guard let root = Self.certificate(der) else { return false }
            let added = X509_STORE_add_cert(store, root)
            X509_free(root)  // the store holds its own reference
            guard added == 1 else { return false }
        }
        guard let untrusted = xizor_sk_X509_new_null() else { return false }
        defer { xizor_sk_X509_free(untrusted) }
        guard xizor_sk_X509_push(untrusted, intermediate) > 0 else { return false }
        guard let context = X509_STORE_CTX_new() else { return false }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else { return false }
        X509_STORE_CTX_set_time(context, 0, time_t(time / 1000))
        guard X509_verify_cert(context) == 1, let chain = X509_STORE_CTX_get0_chain(context),
            xizor_sk_X509_num(chain) == 3, let built = xizor_sk_X509_value(chain, 1), X509_cmp(built, intermediate) == 0
        else { return false }
        return true
    }

    private static func has(oid: String, _ certificate: OpaquePointer) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(certificate, object, -1) >= 0
    }

    /// ES256: SHA-256 and ECDSA over P-256, the signature as 64 bytes r‖s (re-encoded as DER for libcrypto).
    private static func verifyES256(signature: [UInt8], over message: [UInt8], by certificate: OpaquePointer) -> Bool {
        guard signature.count == 64, let key = X509_get0_pubkey(certificate),
            EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, groupName(key) == "prime256v1",
            let der = derSignature(r: signature[0..<32], s: signature[32..<64])
        else { return false }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = der.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count)
            }
        }
        ERR_clear_error()
        return result == 1
    }

    private static func groupName(_ key: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return nil }
        return String(decoding: name[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func derSignature(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) -> [UInt8]? {
        guard let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let rBN = Array(r).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let sBN = Array(s).withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let rBN, let sBN else {
            BN_free(rBN)
            BN_free(sBN)
            return nil
        }
        guard ECDSA_SIG_set0(sig, rBN, sBN) == 1 else {
            BN_free(rBN)
            BN_free(sBN)
            return nil
        }
        let length = i2d_ECDSA_SIG(sig, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(sig, &cursor)
        }
        return written == length ? out : nil
    }

    /// A certificate from DER; nil unless the bytes are exactly one certificate.
    static func certificate(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            guard let end = cursor, end == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
    }

    /// DER as given, or the first certificate of a PEM file.
    static func der(fromDERorPEM bytes: [UInt8]) -> [UInt8]? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----") else { return bytes }
        guard let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex) else {
            return nil
        }
        let body = text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        return CompactJWS.base64(String(body))
    }
}
