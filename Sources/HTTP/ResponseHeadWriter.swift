/// Where response-head pieces are written: static literals, decimal numbers and header fields,
/// never building an intermediate String. A connection writes into its `HeadBuffer`; answers built
/// once (`PreparedHeaders`) and tests write into byte arrays.
protocol HeadWriter {
    /// Appends raw bytes (the one primitive; every piece below comes down to it).
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer)
    /// Empties the head, keeping its storage.
    mutating func removeAllBytes()
}

extension Array: HeadWriter where Element == UInt8 {
    mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }

    mutating func removeAllBytes() { removeAll(keepingCapacity: true) }
}

/// A connection's response head: a byte buffer kept from response to response, written by a
/// capacity check and a `memcpy` per piece. An `Array`'s `append(contentsOf:)` cost about 95
/// instructions a piece (uniqueness, capacity, its generic copy), about 1,000 per 304's head of a
/// dozen pieces (docs/benchmarks.md). Confined to its connection's loop, like the connection's
/// other buffers.
final class HeadBuffer: HeadWriter, @unchecked Sendable {
    @exclusivity(unchecked) private(set) var count = 0
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var base: UnsafeMutableRawPointer

    init(capacity: Int = 512) {
        precondition(capacity > 0, "a head buffer holds at least one byte")
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    func removeAllBytes() { count = 0 }

    /// The head written so far: valid until the next append or `removeAllBytes`.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// A copy, for a write that outlives the next response (the socket took only part of it).
    var array: [UInt8] { Array(bytes) }

    private func grow(to needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}

extension HeadWriter {
    @inline(__always)
    mutating func append(literal s: StaticString) {
        appendBytes(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends prepared bytes (`FrozenBytes`: no array to retain).
    @inline(__always)
    mutating func append(frozen bytes: FrozenBytes) { appendBytes(bytes.buffer) }

    mutating func append(byte: UInt8) {
        withUnsafeBytes(of: byte) { appendBytes($0) }
    }

    mutating func append(decimal value: Int) {
        var v = value
        if v == 0 {
            append(byte: 0x30)
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
            for i in stride(from: n - 1, through: 0, by: -1) { append(byte: d[i]) }
        }
    }

    mutating func append(hex value: Int) {
        let hexDigits: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> shift) & 0xF == 0 { shift -= 4 }
        while shift >= 0 {
            append(byte: hexDigits.utf8Start[(value >> shift) & 0xF])
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
                appendBytes(UnsafeRawBufferPointer(bytes))
            } else {
                for b in bytes where b != 0x0D && b != 0x0A && b != 0 { append(byte: b) }
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

    /// `HTTP/1.1 <code> <reason>\r\n`: the SDK's two statuses as literals, any other assembled on
    /// the stack; appended in one piece.
    mutating func appendStatusLine(_ status: HTTPStatus) {
        switch status.code {
        case 200: return append(literal: "HTTP/1.1 200 OK\r\n")
        case 304: return append(literal: "HTTP/1.1 304 Not Modified\r\n")
        default: break
        }
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
            appendBytes(UnsafeRawBufferPointer(line))
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
