import CCrypto

/// SHA-256 through OpenSSL's libcrypto (EVP): migrations' checksums, API keys' hashes, ETags,
/// experiment and rollout buckets, the audit log's content hashes. Not written here: a hash is not
/// our product, and libcrypto's is vetted and vectorised.
public struct SHA256: Sendable {
    /// What `update` was given, hashed at `finalize`: the incremental form exists for callers that
    /// assemble their input in pieces, none of which is large.
    private var pending: [UInt8] = []

    public init() {}

    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok =
            bytes.withContiguousStorageIfAvailable { buffer in
                EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
            }
            ?? Array(bytes).withUnsafeBufferPointer { buffer in
                EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
            }
        // EVP_Digest fails only without memory or a sha256 implementation: the process cannot go on.
        precondition(ok == 1 && length == 32, "libcrypto's SHA-256 failed")
        return digest
    }

    /// The digest as 64 lowercase hex digits.
    public static func hexDigest<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        hex(hash(bytes))
    }

    /// The digest of a string's UTF-8 bytes, as hex.
    public static func hexDigest(of string: String) -> String { hexDigest(Array(string.utf8)) }

    public static func hex(_ digest: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
    }

    /// The digest of everything given to `update`; the hasher should not be reused.
    public mutating func finalize() -> [UInt8] {
        defer { pending = [] }
        return SHA256.hash(pending)
    }
}

/// HMAC-SHA256 (RFC 2104) through libcrypto: webhook signatures.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, &out, &length)
            }
        }
        precondition(result != nil && length == 32, "libcrypto's HMAC-SHA256 failed")
        return out
    }

    /// The MAC as 64 lowercase hex digits.
    public static func hexMAC(key: String, message: [UInt8]) -> String {
        SHA256.hex(mac(key: Array(key.utf8), message: message))
    }
}

/// SHA-1, only where a standard names it: RFC 9562's name-based UUIDs (version 5), which are
/// identifiers, not a security boundary.
public enum SHA1 {
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBufferPointer { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha1(), nil)
        }
        precondition(ok == 1 && length == 20, "libcrypto's SHA-1 failed")
        return digest
    }
}
