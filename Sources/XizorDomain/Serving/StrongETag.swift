import Digest

/// The server's one strong validator: the first 128 bits of SHA-256 of the exact bytes, quoted,
/// so it changes exactly when they do. The SDK's answers and the previews' pages both carry it.
public enum StrongETag {
    public static func of(_ bytes: [UInt8]) -> String {
        "\"" + String(SHA256.hexDigest(bytes).prefix(32)) + "\""
    }
}
