import Foundation

extension Xizor {
    /// The namespace of app account tokens: itself `uuid5(NAMESPACE_URL, "https://xizor.dev/app-account-token")`.
    public static let appAccountTokenNamespace = UUID(uuidString: "00865d56-5f6a-5954-85e7-b7a50ba01f06")!

    /// The `appAccountToken` to attach to a StoreKit purchase made for `subscriberId`
    /// (`product.purchase(options: [.appAccountToken(token)])`): App Store Server Notifications carry
    /// it back, and the server maps it to the subscriber to credit the purchase to the paywall they
    /// saw (docs/revenue.md). A name-based UUID, version 5 (RFC 9562 §5.5): SHA-1 of
    /// `appAccountTokenNamespace` and the id's UTF-8 bytes as given (not normalised), so the same id
    /// always gives the same token, on every platform and in Python's `uuid.uuid5`.
    public static func appAccountToken(for subscriberId: String) -> UUID {
        var name = [UInt8]()
        withUnsafeBytes(of: appAccountTokenNamespace.uuid) { name.append(contentsOf: $0) }
        name.append(contentsOf: subscriberId.utf8)
        let digest = SHA1.digest(name)
        var bytes = (
            digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
            digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]
        )
        bytes.6 = bytes.6 & 0x0f | 0x50  // version 5
        bytes.8 = bytes.8 & 0x3f | 0x80  // the RFC's variant
        return UUID(uuid: bytes)
    }

    /// `Xizor.appAccountToken(for:)`: the same token, whatever the instance.
    public func appAccountToken(for subscriberId: String) -> UUID {
        Self.appAccountToken(for: subscriberId)
    }
}

/// SHA-1 (FIPS 180-4), for name-based UUIDs only: not for security. One implementation on every
/// platform (rather than CryptoKit's `Insecure.SHA1` where it exists), so the code an app runs is the
/// code the tests check on Linux; a token is hashed once per purchase.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        // The message, a 1 bit, zeros to 56 bytes modulo 64, and the length in bits, big-endian.
        var padded = message
        padded.append(0x80)
        padded.append(contentsOf: [UInt8](repeating: 0, count: (119 - message.count % 64) % 64))
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        var w = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for t in 0..<16 {
                let i = block + t * 4
                w[t] =
                    UInt32(padded[i]) << 24 | UInt32(padded[i + 1]) << 16 | UInt32(padded[i + 2]) << 8
                    | UInt32(padded[i + 3])
            }
            for t in 16..<80 { w[t] = rotate(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotate(a, 5) &+ f &+ e &+ k &+ w[t]
                (a, b, c, d, e) = (temp, a, rotate(b, 30), c, d)
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }
        return [h.0, h.1, h.2, h.3, h.4].flatMap { word in
            [
                UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
                UInt8(truncatingIfNeeded: word),
            ]
        }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value << count | value >> (32 - count)
    }
}
