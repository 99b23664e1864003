/// Appends response-head pieces to a reusable byte buffer: static literals, decimal numbers and
/// header fields, never building an intermediate String.
extension Array where Element == UInt8 {
    @inline(__always)
    mutating func append(literal s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(decimal value: Int) {
        var v = value
        if v == 0 {
            append(0x30)
            return
        }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        Swift.withUnsafeMutableBytes(of: &digits) { d in
            while v > 0 {
                d[n] = UInt8(48 + v % 10)
                v /= 10
                n += 1
            }
            for i in stride(from: n - 1, through: 0, by: -1) { append(d[i]) }
        }
    }

    mutating func append(hex value: Int) {
        let hexDigits: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 0xF == 0 { shift -= 4 }
        while shift >= 0 {
            append(hexDigits.utf8Start[(value >> shift) & 0xF])
            shift -= 4
        }
    }

    /// Appends a String's UTF-8, dropping CR, LF and NUL so a handler cannot inject fields. The
    /// common clean value is copied in one piece (appending byte by byte re-checked the buffer's
    /// capacity and uniqueness per byte and showed up first in the instruction profile).
    mutating func append(fieldText s: String) {
        var text = s
        text.withUTF8 { bytes in
            // Words with no byte below 0x0E hold none of the three; the byte loop looks at the rest.
            var clean = true
            for b in bytes[WordScan.skip(bytes, from: 0, to: bytes.count) { !WordScan.anyBelow($0, 0x0E) }...]
            where b == 0x0D || b == 0x0A || b == 0 {
                clean = false
                break
            }
            if clean {
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

    /// `HTTP/1.1 <code> <reason>\r\n`, assembled on the stack and appended in one piece.
    mutating func appendStatusLine(_ status: HTTPStatus) {
        let reason = status.reasonPhraseStatic
        let c = (100...999).contains(status.code) ? status.code : 500
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15 + reason.utf8CodeUnitCount) { line in
            let prefix: StaticString = "HTTP/1.1 "
            for k in 0..<9 { line[k] = prefix.utf8Start[k] }
            line[9] = UInt8(48 + c / 100)
            line[10] = UInt8(48 + (c / 10) % 10)
            line[11] = UInt8(48 + c % 10)
            line[12] = 0x20
            for k in 0..<reason.utf8CodeUnitCount { line[13 + k] = reason.utf8Start[k] }
            line[13 + reason.utf8CodeUnitCount] = 0x0D
            line[14 + reason.utf8CodeUnitCount] = 0x0A
            append(contentsOf: UnsafeBufferPointer(line))
        }
    }
}

/// Header names the server writes itself; a handler's copies are ignored.
enum ReservedHeader {
    static func isReserved(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { n in
            switch n.count {
            case 4:
                return ByteClass.equalsLowercased(n, "date") || ByteClass.equalsLowercased(n, "etag")
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
