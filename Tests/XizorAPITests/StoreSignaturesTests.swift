import Digest
import PaywallFormat
import StoreSignatures
import Testing
import XizorDomain

/// The compiled-in root and the token derivation, against values published elsewhere. The chain checks
/// themselves are exercised against Apple's own library in Tests/e2e/test_revenue.py.
@Suite struct StoreSignaturesTests {
    @Test func theCompiledInRootIsApplesG3() throws {
        // Apple's published SHA-256 fingerprint of "Apple Root CA - G3".
        #expect(
            SHA256.hexDigest(AppleRootCertificates.appleRootCAG3)
                == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        _ = try SignedDataVerifier(rootCertificates: [AppleRootCertificates.appleRootCAG3])
    }

    @Test func aRootThatIsNotACertificateIsRefusedByIndex() {
        #expect(throws: SignedDataVerifier.CertificateError.self) {
            try SignedDataVerifier(rootCertificates: [AppleRootCertificates.appleRootCAG3, Array("not a cert".utf8)])
        }
    }

    @Test(arguments: [
        ("", "malformed"), ("a.b", "malformed"), ("e30.e30.", "malformed"),
        // {"alg":"ES384"} . {} . AA
        ("eyJhbGciOiJFUzM4NCJ9.e30.AA", "unsupported_algorithm"),
        // {"alg":"ES256","x5c":["AA"]} . {} . AA
        ("eyJhbGciOiJFUzI1NiIsIng1YyI6WyJBQSJdfQ.e30.AA", "invalid_chain_length"),
        // {"alg":"ES256","x5c":["AA","AA","AA"]} . {} . AA
        ("eyJhbGciOiJFUzI1NiIsIng1YyI6WyJBQSIsIkFBIiwiQUEiXX0.e30.AA", "untrusted_chain"),
    ])
    func aJWSThatCannotBeApplesIsRefusedWithItsReason(jws: String, reason: String) throws {
        let expected = try #require(SignatureFailure(rawValue: reason))
        #expect(throws: expected) { try SignedDataVerifier.apple.verify(jws, now: 0) }
    }

    @Test func theAppAccountTokenIsTheDocumentedVersion5UUID() {
        // Python: uuid.uuid5(uuid.UUID("00865d56-5f6a-5954-85e7-b7a50ba01f06"), "subscriber-42")
        #expect(AppAccountToken.token(for: "subscriber-42") == "f331d089-6c8f-5ff8-ad92-3826732f62d9")
    }
}
