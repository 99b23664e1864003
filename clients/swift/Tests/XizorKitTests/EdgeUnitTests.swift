import Foundation
import Testing

@testable import XizorKit

/// The pieces of edge delivery that need no server: the platform's SHA-256 and Ed25519 against
/// published vectors, the bucket against Python's hashlib, allocations, the signature check against
/// answers signed with Python's `cryptography`, and the path form's URLs.
struct EdgeUnitTests {
    static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    @Test func sha256MatchesFIPS180Vectors() {
        #expect(
            Crypto.sha256(Array("abc".utf8)).map(Crypto.hex)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Crypto.sha256([]).map(Crypto.hex) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// RFC 8032 §7.1, tests 1 and 2; one flipped bit in the message, the signature or the key fails.
    @Test func ed25519MatchesRFC8032Vectors() {
        let vectors: [(key: String, message: String, signature: String)] = [
            (
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
            ),
            (
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
            ),
        ]
        for vector in vectors {
            let key = Self.bytes(hex: vector.key)
            let message = Self.bytes(hex: vector.message)
            let signature = Self.bytes(hex: vector.signature)
            #expect(Crypto.isValidEd25519(signature: signature, message: message, publicKey: key) == true)
            var badSignature = signature
            badSignature[10] ^= 1
            #expect(Crypto.isValidEd25519(signature: badSignature, message: message, publicKey: key) == false)
            #expect(Crypto.isValidEd25519(signature: signature, message: message + [0], publicKey: key) == false)
            var badKey = key
            badKey[0] ^= 1
            #expect(Crypto.isValidEd25519(signature: signature, message: message, publicKey: badKey) == false)
            #expect(Crypto.isValidEd25519(signature: [1, 2], message: message, publicKey: key) == false)
        }
    }

    /// Python: `int.from_bytes(hashlib.sha256(f"{e}:{s}".encode()).digest()[:8], "big") % 10000`.
    @Test func bucketsAreTheServersFunction() {
        #expect(
            ExperimentAllocation.bucket(experimentId: "exp_1", subscriberId: "subscriber-1", buckets: 10_000) == 1855)
        #expect(
            ExperimentAllocation.bucket(experimentId: "exp_abc", subscriberId: "alice@example.com", buckets: 10_000)
                == 7918)
    }

    static func allocation(_ ranges: JSONValue, variants: JSONValue = [["name": "control"], ["name": "b"]])
        -> JSONValue
    {
        ["experimentId": "exp_1", "buckets": 10_000, "ranges": ranges, "variants": variants]
    }

    @Test func allocationsPickTheBucketsRangeTheHoldoutOrTheControl() throws {
        // subscriber-1 is in bucket 1855.
        let split = try ExperimentAllocation(
            Self.allocation([
                ["from": 0, "to": 1855, "variant": "control"], ["from": 1855, "to": 1856, "variant": "b"],
                ["from": 1856, "to": 9000, "variant": "control"], ["from": 9000, "to": 10_000, "variant": nil],
            ]))
        #expect(split.choice(for: "subscriber-1") == .variant("b"))
        #expect(split.choice(for: nil) == .variant("control") && split.choice(for: "") == .variant("control"))
        let held = try ExperimentAllocation(
            Self.allocation([["from": 0, "to": 1855, "variant": "b"], ["from": 1855, "to": 10_000, "variant": nil]]))
        #expect(held.choice(for: "subscriber-1") == .holdout)

        let broken: [JSONValue] = [
            Self.allocation([["from": 0, "to": 5000, "variant": "control"]]),  // a gap at the end
            Self.allocation([
                ["from": 0, "to": 5000, "variant": "control"], ["from": 5001, "to": 10_000, "variant": "b"],
            ]),
            Self.allocation([["from": 0, "to": 10_000, "variant": "c"]]),  // no such variant
            Self.allocation([["from": 0, "to": 10_000, "variant": "control"]], variants: []),
            Self.allocation([["from": 0, "to": 10_000, "variant": 3]]),
            ["experimentId": "exp_1", "ranges": [["from": 0, "to": 10_000, "variant": "control"]]],
        ]
        for value in broken {
            #expect(throws: XizorError.self) { try ExperimentAllocation(value) }
        }
    }

    // Signed with Python's `cryptography` by the key whose public half is `pinned` (seed:
    // SHA-256("xizorkit test key")), for app key pk_test_123, placement onboarding, t 1770000000.
    static let pinned = "PuBzdz3psYwFAZMHT23/X9SU//ZimPsD3oBytUnauiA="
    static let other = "GOtkIRjdP+/M55sLwjfi//u3yxwJEDr6gFPyMsfcRDw="
    static let body = Data(#"{"placement":"onboarding","paywallId":"pw_1"}"#.utf8)
    static let signed200 =
        "kid=9e30a2282dba5486;t=1770000000;sig=vpiVbw-lrCL1U-OVkg-wF0sEPTwYkcz-PUjIndKlJ-MesTyzJr4GFHFvtWtqJHV_dAx4vht8S9M0hnQ6g0STCw"
    static let signed204 =
        "kid=9e30a2282dba5486;t=1770000000;sig=3Z_qmvL795rhwh-mLYh2XxFKIugl2j0ZC0tvbOU2W6h2t6IiVZ_qc0lPOPK8nsw7ktJfAChSNSyseWwyCluQDA"

    static func verifier(_ verification: SignatureVerification, publicKey: String = "pk_test_123") -> AnswerVerifier {
        AnswerVerifier(
            configuration: XizorConfiguration(
                publicKey: publicKey, baseURL: URL(fileURLWithPath: "/"), cacheDirectory: URL(fileURLWithPath: "/"),
                verification: verification))
    }

    @Test func aSignatureVerifiesOnlyForItsKeyAppPlacementStatusAndBody() {
        let verifier = Self.verifier(.enforced(publicKeys: [Self.other, Self.pinned]))
        #expect(
            verifier.check(signature: Self.signed200, placement: "onboarding", status: 200, body: Self.body)
                == .verified)
        #expect(
            verifier.check(signature: Self.signed204, placement: "onboarding", status: 204, body: Data()) == .verified)
        #expect(
            verifier.check(
                signature: " " + Self.signed200.replacingOccurrences(of: ";", with: "; "),
                placement: "onboarding", status: 200, body: Self.body) == .verified, "spaces around fields")

        var tampered = Self.body
        tampered[tampered.count - 3] = UInt8(ascii: "2")
        let refusals: [(AnswerVerifier, String?, String, Int, Data)] = [
            (verifier, Self.signed200, "onboarding", 200, tampered),
            (verifier, Self.signed200, "upgrade", 200, Self.body),
            (verifier, Self.signed200, "onboarding", 204, Self.body),
            (verifier, Self.signed204, "onboarding", 200, Self.body),
            (
                Self.verifier(.enforced(publicKeys: [Self.pinned]), publicKey: "pk_other"), Self.signed200,
                "onboarding",
                200, Self.body
            ),
            (Self.verifier(.enforced(publicKeys: [Self.other])), Self.signed200, "onboarding", 200, Self.body),
            (verifier, nil, "onboarding", 200, Self.body),
            (verifier, "", "onboarding", 200, Self.body),
            (verifier, "kid=9e30a2282dba5486;sig=x", "onboarding", 200, Self.body),
            (
                verifier, Self.signed200.replacingOccurrences(of: "t=1770000000", with: "t=1770000001"), "onboarding",
                200, Self.body
            ),
            (verifier, Self.signed200 + "==", "onboarding", 200, Self.body),
        ]
        for (verifier, signature, placement, status, body) in refusals {
            let verdict = verifier.check(signature: signature, placement: placement, status: status, body: body)
            #expect(verdict.isFailure, "\(String(describing: signature)) \(placement) \(status): \(verdict)")
            #expect(throws: XizorError.self) { try verifier.enforce(verdict) }
        }
        let informational = Self.verifier(.informational(publicKeys: [Self.pinned]))
        let verdict = informational.check(signature: nil, placement: "onboarding", status: 200, body: Self.body)
        #expect(verdict.isFailure)
        #expect(throws: Never.self) { try informational.enforce(verdict) }
        #expect(
            Self.verifier(.disabled).check(signature: nil, placement: "onboarding", status: 200, body: Self.body)
                == .notRequested)
    }

    @Test func thePathFormCarriesTheKeyInThePathAndTheSubscriberInAHeader() throws {
        let base = try #require(URL(string: "https://api.example.com/prefix"))
        var request = PaywallRequest(
            placement: "on boarding", format: .document, locale: "de-AT", colorScheme: .dark, subscriberId: "user/1",
            context: ["source": "settings", "n": 2], schemaVersion: 2)
        let url = try #require(request.url(base: base, publicKey: "pk_a/b"))
        #expect(
            url.absoluteString
                == "https://api.example.com/prefix/v1/sdk/apps/pk_a%2Fb/placements/on%20boarding/paywall?locale=de-AT&colorScheme=dark&context.n=2&context.source=settings"
        )
        #expect(request.headers == ["Accept": "application/json", "X-Xizor-Subscriber-Id": "user/1"])
        let variant = try #require(PaywallRequest.variantURL(url, experimentId: "exp_1", variant: "b&c"))
        #expect(variant.absoluteString == url.absoluteString + "&experiment=exp_1&variant=b%26c")
        #expect(request.cacheKey.contains("user/1"), "the local cache still tells subscribers apart")
        #expect(request.variantCacheKey(experimentId: "exp_1", variant: "b") != request.cacheKey)

        // No query at all: the variant's parameters start it.
        request = PaywallRequest(
            placement: "p", format: .page, locale: nil, colorScheme: nil, subscriberId: nil, context: [:],
            schemaVersion: 2)
        let bare = try #require(request.url(base: base, publicKey: "pk_1"))
        #expect(bare.absoluteString == "https://api.example.com/prefix/v1/sdk/apps/pk_1/placements/p/paywall")
        #expect(
            PaywallRequest.variantURL(bare, experimentId: "e", variant: "v")?.absoluteString
                == bare.absoluteString + "?experiment=e&variant=v")
        #expect(request.headers == ["Accept": "text/html"])

        // An id that is no header value travels, exactly, as the query parameter instead.
        request.subscriberId = "jörg\n"
        #expect(request.headers["X-Xizor-Subscriber-Id"] == nil)
        #expect(
            request.url(base: base, publicKey: "pk_1")?.absoluteString.hasSuffix("?subscriberId=j%C3%B6rg%0A") == true)
    }
}
