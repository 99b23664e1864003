/// Appends response-head pieces to a reusable byte buffer: static literals, decimal numbers and
/// header fields, never building an intermediate String.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(literal s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(decimal value: Int) {
        var v = value
        if v == 0 { append(0x30); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        Swift.withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 { d[n] = UInt8(48 + v % 10); v /= 10; n += 1 }
            for i in stride(from: n - 1, through: 0, by: -1) { append(d[i]) }
        }
    }

    mutating func append(hex value: Int) {
        let hexDigits: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 0xF == 0 { shift -= 4 }
        while shift >= 0 { append(hexDigits.utf8Start[(value >> shift) & 0xF]); shift -= 4 }
    }

    /// Appends a String's UTF-8, dropping CR, LF and NUL so a handler cannot inject fields. The
    /// common clean value is copied in one piece (appending byte by byte re-checked the buffer's
    /// capacity and uniqueness per byte and showed up first in the instruction profile).
    mutating func append(fieldText s: String) {
        var text = s
        text.withUTF8 { bytes in
            if !bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                append(contentsOf: bytes)
            } else {
                append(contentsOf: bytes.lazy.filter { $0 != 0x0D && $0 != 0x0A && $0 != 0 })
            }
        }
    }

    /// Appends one `Name: value` line.
    mutating func append(field name: String, _ value: String) {
        append(fieldText: name)
        append(literal: ": ")
        append(fieldText: value)
        append(literal: "\r\n")
    }

    mutating func appendStatusLine(_ status: HTTPStatus) {
        append(literal: "HTTP/1.1 ")
        let c = status.code
        if c >= 100 && c <= 999 {
            append(UInt8(48 + c / 100)); append(UInt8(48 + (c / 10) % 10)); append(UInt8(48 + c % 10))
        } else {
            append(literal: "500")
        }
        append(0x20)
        let reason = status.reasonPhraseStatic
        append(contentsOf: UnsafeBufferPointer(start: reason.utf8Start, count: reason.utf8CodeUnitCount))
        append(literal: "\r\n")
    }
}

/// Header names the server writes itself; a handler's copies are ignored.
enum ReservedHeader {
    static func isReserved(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { n in
            switch n.count {
            case 4: return ByteClass.equalsLowercased(n, "date") || ByteClass.equalsLowercased(n, "etag")
                || ByteClass.equalsLowercased(n, "vary")
            case 10: return ByteClass.equalsLowercased(n, "connection")
            case 12: return ByteClass.equalsLowercased(n, "x-request-id")
            case 14: return ByteClass.equalsLowercased(n, "content-length")
            case 16: return ByteClass.equalsLowercased(n, "content-encoding")
            case 17: return ByteClass.equalsLowercased(n, "transfer-encoding")
            default: return false
            }
        }
    }

    /// Fields a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5).
    static func keptOnNotModified(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { n in
            ByteClass.equalsLowercased(n, "cache-control") || ByteClass.equalsLowercased(n, "expires")
                || ByteClass.equalsLowercased(n, "content-location")
        }
    }
}
