import CCrypto

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): what authenticator apps compute,
/// so the defaults are theirs — HMAC-SHA1, 6 digits, 30-second steps. The HMAC is libcrypto's.
public enum TOTP {
    public static let digits = 6
    public static let periodSeconds: Int64 = 30

    /// The code of time step `step` (seconds since 1970 ÷ 30) for `secret`.
    public static func code(secret: [UInt8], step: Int64) -> String {
        var counter = [UInt8](repeating: 0, count: 8)
        for index in 0..<8 { counter[7 - index] = UInt8(truncatingIfNeeded: UInt64(bitPattern: step) >> (8 * index)) }
        var mac = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let result = secret.withUnsafeBufferPointer { key in
            counter.withUnsafeBufferPointer { message in
                HMAC(EVP_sha1(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &mac, &length)
            }
        }
        precondition(result != nil && length == 20, "libcrypto's HMAC-SHA1 failed")
        // Dynamic truncation (RFC 4226 §5.3).
        let offset = Int(mac[19] & 0x0f)
        let binary =
            (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        let value = binary % 1_000_000
        let text = String(value)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The time step of `milliseconds` since 1970.
    public static func step(atMs milliseconds: Int64) -> Int64 { milliseconds / 1000 / periodSeconds }

    /// The step within ±`window` of `now`'s whose code `candidate` is (compared in constant time),
    /// or nil. A clock a step off on either side still signs in.
    public static func matchingStep(secret: [UInt8], candidate: String, atMs now: Int64, window: Int64 = 1) -> Int64? {
        let wanted = Array(candidate.utf8)
        guard wanted.count == digits else { return nil }
        var found: Int64?
        let current = step(atMs: now)
        for step in (current - window)...(current + window) {
            // Every step is computed and compared, whichever matches: no timing says which did.
            if ConstantTime.equal(Array(code(secret: secret, step: step).utf8), wanted), found == nil { found = step }
        }
        return found
    }

    /// RFC 4648 base32 without padding: how `otpauth://` URIs and authenticator apps carry the secret.
    public static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of unpadded base32 (nil for any other character).
    public static func bytes(base32 text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for scalar in text.uppercased().utf8 {
            let value: UInt8
            switch scalar {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = scalar - UInt8(ascii: "A")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = scalar - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits - 8)))
                bits -= 8
            }
        }
        return out
    }
}
