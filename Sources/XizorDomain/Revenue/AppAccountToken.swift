import Digest

/// The `appAccountToken` XizorKit and `@xizor/react-native` attach to an App Store purchase for a
/// subscriber: a name-based UUID, version 5 (RFC 9562 §5.5), of the subscriber id's UTF-8 bytes in the
/// namespace 00865d56-5f6a-5954-85e7-b7a50ba01f06 (itself the version-5 UUID of the URL
/// "https://xizor.dev/app-account-token"). Apple carries it into every notification of the
/// subscription, and the server maps it back through `subscriber_tokens`: a UUID cannot hold an
/// arbitrary id, and a deterministic one needs no storage on the device.
public enum AppAccountToken {
    static let namespace: [UInt8] = [
        0x00, 0x86, 0x5d, 0x56, 0x5f, 0x6a, 0x59, 0x54, 0x85, 0xe7, 0xb7, 0xa5, 0x0b, 0xa0, 0x1f, 0x06,
    ]

    /// The token, lowercase, as Apple's notifications spell it (compared lowercased).
    public static func token(for subscriberID: String) -> String {
        var hash = Array(SHA1.hash(namespace + Array(subscriberID.utf8)).prefix(16))
        hash[6] = (hash[6] & 0x0f) | 0x50  // version 5
        hash[8] = (hash[8] & 0x3f) | 0x80  // RFC 9562 variant
        let hex = SHA256.hex(hash)
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-"
            + String(h[20..<32])
    }
}
