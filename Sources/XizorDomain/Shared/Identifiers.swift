import Digest

/// Random identifiers and keys. Keys carry ≥ 128 bits from the system's CSPRNG (getrandom).
package enum Identifiers {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// `count` base-62 characters: 22 characters carry 131 bits.
    static func random(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appID() -> String { "app_" + random(16) }
    static func paywallID() -> String { "pw_" + random(16) }
    static func keyID() -> String { "key_" + random(16) }
    static func webhookID() -> String { "we_" + random(16) }
    /// One event, the same on every endpoint and attempt: receivers de-duplicate on it.
    static func eventID() -> String { "evt_" + random(22) }
    static func deliveryID() -> String { "whd_" + random(22) }
    /// An endpoint's signing secret: `whsec_` + 32 base-62 characters (190 bits).
    static func webhookSecret() -> String { "whsec_" + random(32) }

    /// A secret or public key: `sk_`/`pk_` + 32 base-62 characters (190 bits).
    static func apiKey(prefix: String) -> String { prefix + random(32) }

    /// What is shown of a key after creation: its first 12 characters.
    static func displayPrefix(of key: String) -> String { String(key.prefix(12)) }

    static func hash(_ key: String) -> [UInt8] { SHA256.hash(Array(key.utf8)) }

    /// Compares two digests so that timing says nothing about where they differ (`CRYPTO_memcmp`).
    package static func constantTimeEqual(_ x: [UInt8], _ y: [UInt8]) -> Bool { ConstantTime.equal(x, y) }
}
