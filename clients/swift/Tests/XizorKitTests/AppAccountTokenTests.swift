import Foundation
import Testing

@testable import XizorKit

/// `Xizor.appAccountToken(for:)`: the UUID the server maps App Store notifications back to the
/// subscriber with, and the SHA-1 it is made from.
@Suite struct AppAccountTokenTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// FIPS 180 / RFC 3174's vectors, and "a" repeated across the padding's boundaries (55 bytes is the
    /// longest message whose length fits its last block; 56 to 63 need another), from Python's hashlib.
    @Test(arguments: [
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        (
            String(repeating: "0123456701234567012345670123456701234567012345670123456701234567", count: 10),
            "dea356a2cddd90c7a7ecedc5ebb563934f460452"
        ),
        (String(repeating: "a", count: 55), "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (String(repeating: "a", count: 56), "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (String(repeating: "a", count: 57), "f08f24908d682555111be7ff6f004e78283d989a"),
        (String(repeating: "a", count: 63), "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (String(repeating: "a", count: 64), "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
        (String(repeating: "a", count: 65), "11655326c708d70319be2610e8a57d9a5b959d3b"),
        (String(repeating: "a", count: 119), "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56"),
        (String(repeating: "a", count: 120), "f34c1488385346a55709ba056ddd08280dd4c6d6"),
    ])
    func sha1MatchesTheStandardsVectors(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    @Test func sha1OfAMillionAsAndOfEveryByteValue() {
        #expect(
            Self.hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        let everyByte = Array(repeating: Array(0...255 as ClosedRange<UInt8>), count: 3).flatMap { $0 }
        #expect(Self.hex(SHA1.digest(everyByte)) == "ac2a264c8ec1f4232a40854e8239bc3a697ab1d2")
    }

    /// Python's `uuid.uuid5(uuid.UUID("00865d56-5f6a-5954-85e7-b7a50ba01f06"), subscriber_id)`.
    @Test(arguments: [
        ("subscriber-42", "f331d089-6c8f-5ff8-ad92-3826732f62d9"),
        ("subscriber-43", "7d74c0f2-a24b-5eba-a92c-cdcf33706e99"),
        ("", "e107f889-3626-5f93-935b-5151d05e672a"),
        ("J\u{FC}rgen-\u{FC}", "7ef5d861-9f4b-5b17-98b3-c19447bed8b2"),
        ("user@example.com", "b6932955-bc24-5835-8f06-78dc4cee7b01"),
        ("a/b c?d", "947e4457-eb53-576d-a0c3-eb39b6e30b32"),
        ("\u{6F22}\u{5B57}-\u{1F600}", "d46f58ab-6dd3-53ad-a738-a5a93bf1654f"),
        (String(repeating: "x", count: 200), "205cb3b0-56f3-5ca8-994a-70fe3109f9c9"),
    ])
    func tokenEqualsPythonsUUID5(subscriberId: String, token: String) {
        #expect(Xizor.appAccountToken(for: subscriberId) == UUID(uuidString: token))
        #expect(Xizor.appAccountToken(for: subscriberId).uuidString.lowercased() == token)
    }

    @Test func theNamespaceIsTheDocumentedURLName() throws {
        // uuid5(NAMESPACE_URL, "https://xizor.dev/app-account-token"): RFC 9562's URL namespace as the namespace.
        var name = [UInt8]()
        withUnsafeBytes(of: try #require(UUID(uuidString: "6ba7b811-9dad-11d1-80b4-00c04fd430c8")).uuid) {
            name.append(contentsOf: $0)
        }
        name.append(contentsOf: "https://xizor.dev/app-account-token".utf8)
        let digest = SHA1.digest(name)
        #expect(Self.hex(Array(digest[0..<6])) == "00865d565f6a")
        #expect(Xizor.appAccountTokenNamespace.uuidString.lowercased() == "00865d56-5f6a-5954-85e7-b7a50ba01f06")
    }

    /// The id's bytes as given: a decomposed "ü" is another subscriber id, so another token.
    @Test func theIdIsNotNormalised() {
        #expect(Xizor.appAccountToken(for: "J\u{75}\u{308}rgen") != Xizor.appAccountToken(for: "J\u{FC}rgen"))
    }

    @Test func purchaseMessagesCarryTheSubscribersToken() throws {
        let message = try PageMessage(
            json: ["type": "purchase", "slot": "yearly", "storeProductId": "com.example.yearly"])
        let request = try #require(PurchaseRequest(message, subscriberId: "subscriber-42"))
        #expect(request.slot == "yearly")
        #expect(request.storeProductId == "com.example.yearly")
        #expect(request.appAccountToken == UUID(uuidString: "f331d089-6c8f-5ff8-ad92-3826732f62d9"))
        // A paywall loaded without a subscriber has no token; other messages are no purchase.
        #expect(
            PurchaseRequest(message, subscriberId: nil)
                == PurchaseRequest(slot: "yearly", storeProductId: "com.example.yearly"))
        #expect(PurchaseRequest(.restore, subscriberId: "subscriber-42") == nil)
    }
}
