import CCrypto

/// Standard base64 (RFC 4648 §4, padded) by libcrypto's `EVP_EncodeBlock`, for digests that are
/// written as text — a Content-Security-Policy's `'sha256-…'` source — without Foundation in a pure
/// module.
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty else { return "" }
        // Four characters per three bytes, and the terminating NUL EVP_EncodeBlock writes.
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let written = out.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                EVP_EncodeBlock(target.baseAddress, source.baseAddress, Int32(source.count))
            }
        }
        precondition(written == Int32(out.count - 1), "EVP_EncodeBlock wrote \(written) of \(out.count - 1) characters")
        return String(decoding: out[..<Int(written)], as: UTF8.self)
    }
}

/// Comparisons whose time says nothing about where two secrets differ (libcrypto's `CRYPTO_memcmp`).
public enum ConstantTime {
    /// Equal lengths and equal bytes; only the length may show in the time taken.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }
}
