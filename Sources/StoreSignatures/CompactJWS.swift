import Foundation
import PaywallFormat

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but not yet trusted.
struct CompactJWS {
    let header: JSONValue
    let payload: JSONValue
    /// The bytes the signature covers: `BASE64URL(header) || '.' || BASE64URL(payload)`.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// The largest signed object accepted: Apple's notifications are a few KiB; the request body is
    /// bounded before this, and the nested objects are inside it.
    static let maximumLength = 65_536

    init(_ text: String) throws(SignatureFailure) {
        let utf8 = Array(text.utf8)
        guard utf8.count <= Self.maximumLength else { throw .malformed }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URL(parts[0]), let payloadBytes = Self.base64URL(parts[1]),
            let signature = Self.base64URL(parts[2])
        else { throw .malformed }
        do {
            header = try JSONValue(parsing: headerBytes)
            payload = try JSONValue(parsing: payloadBytes)
        } catch {
            throw .malformed
        }
        guard header.objectValue != nil, payload.objectValue != nil else { throw .malformed }
        signingInput = Array(utf8[0..<(parts[0].count + 1 + parts[1].count)])
        self.signature = signature
    }

    /// Unpadded base64url (RFC 7515 §2); nil for any other character. Translated byte by byte to the
    /// standard alphabet and decoded by Foundation from bytes: through `String` and `NSString` search
    /// and replace, this was most of a notification's CPU (measured, docs/benchmarks.md).
    static func base64URL(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard !text.isEmpty else { return nil }
        var standard: [UInt8] = []
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): return nil
            default: standard.append(byte)
            }
        }
        standard.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4))
        return Data(base64Encoded: Data(standard)).map { [UInt8]($0) }
    }

    /// Padded standard base64, as `x5c` carries certificates (RFC 7515 §4.1.6).
    static func base64(_ text: String) -> [UInt8]? { Data(base64Encoded: Data(text.utf8)).map { [UInt8]($0) } }
}
