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

/// Base64url without padding (RFC 4648 §5): signing keys in `settings`, signatures in a header, preview
/// links in a URL.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Base64.encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(
            text.map { character -> Character in
                switch character {
                case "+": "-"
                case "/": "_"
                default: character
                }
            })
    }

    /// Each byte's 6-bit value, 255 for a byte outside the alphabet.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// Nil for a character outside the alphabet (padding included) or a dangling partial byte.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            let value = table[Int(byte)]
            guard value != 255 else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bits >= 6 ? nil : out
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
