import Foundation
import PaywallFormat
import Testing

@testable import StoreSignatures

/// What `IDTokenVerifier` refuses before any key is looked at, and the DER it builds keys from. The
/// signatures themselves (RS256 and ES256 tokens of real keys, keys of the wrong kind, tampered
/// tokens) are proven live against a provider in Tests/e2e/test_sso.py.
struct IDTokenVerifierTests {
    static let expectation = IDTokenVerifier.Expectation(
        issuer: "https://id.example", clientID: "xizor", nonce: "n-1", now: 1_800_000_000_000)

    static func token(header: String, payload: String, signature: String = "c2ln") -> String {
        func encode(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return encode(header) + "." + encode(payload) + "." + signature
    }

    @Test func onlyRS256AndES256AreAccepted() {
        let payload = #"{"iss":"https://id.example","aud":"xizor","exp":1900000000,"nonce":"n-1"}"#
        for alg in ["none", "HS256", "RS512", "PS256", "ES384", ""] {
            let token = Self.token(header: #"{"alg":"\#(alg)","kid":"k"}"#, payload: payload)
            #expect(throws: IDTokenVerifier.Failure.algorithm(alg)) {
                try IDTokenVerifier.verify(token, keys: ["keys": []], expect: Self.expectation)
            }
        }
        // An unsigned token in the two-part form is no JWS at all.
        #expect(throws: IDTokenVerifier.Failure.malformed) {
            try IDTokenVerifier.verify("e30.e30", keys: ["keys": []], expect: Self.expectation)
        }
        // A key of another kind or id is no candidate.
        let rs = Self.token(header: #"{"alg":"RS256","kid":"k"}"#, payload: payload)
        let keys: JSONValue = [
            "keys": [["kty": "EC", "kid": "k", "crv": "P-256", "x": "AA", "y": "AA"], ["kty": "RSA", "kid": "other"]]
        ]
        #expect(throws: IDTokenVerifier.Failure.unknownKey) {
            try IDTokenVerifier.verify(rs, keys: keys, expect: Self.expectation)
        }
    }

    @Test func derIntegersAndLengthsAreX690s() {
        #expect(DER.integer([0x00, 0x00, 0x01]) == [0x02, 0x01, 0x01])
        #expect(DER.integer([0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.integer([]) == [0x02, 0x01, 0x00])
        #expect(DER.length(0x7F) == [0x7F])
        #expect(DER.length(0x80) == [0x81, 0x80])
        #expect(DER.length(0x1234) == [0x82, 0x12, 0x34])
        // A JWK that is not a usable key makes no key.
        #expect(JSONWebKey.publicKey(["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"]) == nil)
        #expect(JSONWebKey.publicKey(["kty": "oct", "k": "AA"]) == nil)
    }
}
