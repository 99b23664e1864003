import CCrypto
import PaywallFormat

/// An OpenID Connect ID token (a JWS, OpenID Connect Core §3.1.3.7), verified against the
/// provider's published keys (a JWKS): RS256 or ES256 only — never `none`, never an HMAC — the key
/// found by `kid`, then the issuer, the audience, the expiry and the nonce. Pure: the keys are given.
public enum IDTokenVerifier {
    public struct Expectation: Sendable {
        public var issuer: String
        public var clientID: String
        public var nonce: String
        /// Milliseconds since 1970.
        public var now: Int64
        /// Clock skew allowed around `exp` and `iat`.
        public var leewaySeconds: Int64 = 60

        public init(issuer: String, clientID: String, nonce: String, now: Int64) {
            self.issuer = issuer
            self.clientID = clientID
            self.nonce = nonce
            self.now = now
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed
        case algorithm(String)
        case unknownKey
        case signature
        case issuer, audience, expired, issuedInTheFuture, nonce

        public var description: String {
            switch self {
            case .malformed: "the ID token is not a signed JWT"
            case .algorithm(let alg): "the ID token's algorithm '\(alg)' is not RS256 or ES256"
            case .unknownKey: "no published key of the provider has the ID token's kid"
            case .signature: "the ID token's signature does not verify"
            case .issuer: "the ID token's issuer is not the configured one"
            case .audience: "the ID token is not for this client"
            case .expired: "the ID token has expired"
            case .issuedInTheFuture: "the ID token was issued in the future"
            case .nonce: "the ID token's nonce is not this sign-in's"
            }
        }
    }

    /// The claims of a token that passed every check.
    public static func verify(_ token: String, keys: JSONValue, expect: Expectation) throws(Failure) -> JSONValue {
        let jws: CompactJWS
        do { jws = try CompactJWS(token) } catch { throw .malformed }
        let alg = jws.header["alg"]?.stringValue ?? ""
        guard alg == "RS256" || alg == "ES256" else { throw .algorithm(alg) }
        let kid = jws.header["kid"]?.stringValue
        let candidates = (keys["keys"]?.arrayValue ?? []).filter { key in
            (kid == nil || key["kid"]?.stringValue == kid) && (key["use"]?.stringValue ?? "sig") == "sig"
                && key["kty"]?.stringValue == (alg == "RS256" ? "RSA" : "EC")
        }
        guard !candidates.isEmpty else { throw .unknownKey }
        let verified = candidates.contains { jwk in
            guard let key = JSONWebKey.publicKey(jwk) else { return false }
            defer { EVP_PKEY_free(key) }
            return verifySignature(alg: alg, signature: jws.signature, over: jws.signingInput, key: key)
        }
        guard verified else { throw .signature }
        let claims = jws.payload
        guard claims["iss"]?.stringValue == expect.issuer else { throw .issuer }
        let audiences =
            claims["aud"]?.stringValue.map { [$0] } ?? (claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        guard audiences.contains(expect.clientID) else { throw .audience }
        // Several audiences: the authorized party must be this client (Core §3.1.3.7, items 4 and 5).
        if audiences.count > 1, claims["azp"]?.stringValue != expect.clientID { throw .audience }
        let now = expect.now / 1000
        guard let exp = claims["exp"]?.intValue, Int64(exp) + expect.leewaySeconds > now else { throw .expired }
        if let iat = claims["iat"]?.intValue, Int64(iat) > now + expect.leewaySeconds { throw .issuedInTheFuture }
        guard let nonce = claims["nonce"]?.stringValue, equalInConstantTime(Array(nonce.utf8), Array(expect.nonce.utf8))
        else { throw .nonce }
        return claims
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count
            && a.withUnsafeBytes { x in
                b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
            }
    }

    /// RS256: RSASSA-PKCS1-v1_5 with SHA-256 (keys of at least 2048 bits); ES256: ECDSA over P-256
    /// with SHA-256, the signature as 64 bytes r‖s.
    static func verifySignature(alg: String, signature: [UInt8], over message: [UInt8], key: OpaquePointer) -> Bool {
        let encoded: [UInt8]
        switch alg {
        case "RS256":
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, EVP_PKEY_get_bits(key) >= 2048 else { return false }
            encoded = signature
        case "ES256":
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, signature.count == 64,
                let der = SignedDataVerifier.derSignature(r: signature[0..<32], s: signature[32..<64])
            else { return false }
            encoded = der
        default:
            return false
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        let result = encoded.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { data in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, data.baseAddress, data.count)
            }
        }
        ERR_clear_error()
        return result == 1
    }
}

/// A JWK's public key (RFC 7517/7518: RSA `n`, `e`; EC P-256 `x`, `y`) as a libcrypto key, read
/// from the DER SubjectPublicKeyInfo built here from those numbers.
enum JSONWebKey {
    /// The key, to be freed with `EVP_PKEY_free`; nil for anything else.
    static func publicKey(_ jwk: JSONValue) -> OpaquePointer? {
        let spki: [UInt8]
        switch jwk["kty"]?.stringValue {
        case "RSA":
            guard let n = jwk["n"]?.stringValue.flatMap({ CompactJWS.base64URL(ArraySlice($0.utf8)) }),
                let e = jwk["e"]?.stringValue.flatMap({ CompactJWS.base64URL(ArraySlice($0.utf8)) }),
                n.count <= 1024, e.count <= 8
            else { return nil }
            let rsaKey = DER.sequence(DER.integer(n) + DER.integer(e))
            spki = DER.sequence(
                DER.sequence(DER.rsaEncryption + [0x05, 0x00]) + DER.bitString(rsaKey))
        case "EC":
            guard jwk["crv"]?.stringValue == "P-256",
                let x = jwk["x"]?.stringValue.flatMap({ CompactJWS.base64URL(ArraySlice($0.utf8)) }),
                let y = jwk["y"]?.stringValue.flatMap({ CompactJWS.base64URL(ArraySlice($0.utf8)) }),
                x.count == 32, y.count == 32
            else { return nil }
            spki = DER.sequence(DER.sequence(DER.ecPublicKey + DER.prime256v1) + DER.bitString([0x04] + x + y))
        default:
            return nil
        }
        return spki.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            ERR_clear_error()
            return key
        }
    }
}

/// The few DER encodings a SubjectPublicKeyInfo needs (X.690).
enum DER {
    static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let prime256v1: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    static func bitString(_ content: [UInt8]) -> [UInt8] { [0x03] + length(content.count + 1) + [0x00] + content }

    /// An unsigned big-endian integer: leading zeros dropped, a zero added when the top bit is set.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return [0x02] + length(bytes.count) + bytes
    }
}
