import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request's id, echoed as `X-Request-Id` and logged: the client's `X-Request-Id` when it is
/// sane, else a 15-character id (a random per-process prefix, six hex digits, and a counter, nine)
/// that fits Swift's inline small-string storage. A generated id is kept as its counter and written
/// into the response head as digits, so a request whose id nobody reads as text (no access log, no
/// audit entry) never builds the String: that was ~400 instructions of a revalidation.
public struct RequestID: Sendable, Equatable {
    private enum Value: Equatable {
        case generated(UInt64)
        case given(String)
    }
    private var value: Value

    private static let counter = Atomic<UInt64>(0)
    private static let prefix: UInt32 = UInt32.random(in: 0...0xFFFFFF)

    /// An id given as text: the client's, or one set by a caller.
    public init(_ text: String) { value = .given(text) }

    /// The next generated id.
    static func generate() -> RequestID {
        RequestID(generated: counter.add(1, ordering: .relaxed).newValue)
    }

    private init(generated n: UInt64) { value = .generated(n) }

    /// Ids generated on one I/O loop (`IOLoop.requestIDs`): `Block.size` counter values taken from
    /// the process's counter at once and handed out one by one on the loop, so a request costs no
    /// atomic instruction and the loops share no counter's cache line. Unique as `generate()`'s are
    /// (each block is claimed whole); across loops not in order.
    struct Block {
        static let size: UInt64 = 1024
        private var next: UInt64 = 0
        private var end: UInt64 = 0

        mutating func generate() -> RequestID {
            if next == end {
                end = RequestID.counter.add(Block.size, ordering: .relaxed).newValue
                next = end - Block.size
            }
            next += 1
            return RequestID(generated: next)
        }
    }

    /// The id as text (what `write` writes).
    public var text: String {
        switch value {
        case .given(let text): return text
        case .generated(let n):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { buffer in
                Self.digits(n, into: buffer)
                return String(decoding: UnsafeBufferPointer(buffer), as: UTF8.self)
            }
        }
    }

    /// Appends the id's text to a response head.
    func write<Head: HeadWriter>(into head: inout Head) {
        switch value {
        case .given(let text): head.append(fieldText: text)
        case .generated(let n):
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { buffer in
                Self.digits(n, into: buffer)
                head.appendBytes(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    private static let fieldName: StaticString = "X-Request-Id: "

    /// Appends the id's whole field line, `X-Request-Id: …` and its CRLF: a generated id's in one
    /// piece (three appends were ~90 instructions of every response).
    func writeLine<Head: HeadWriter>(into head: inout Head) {
        guard case .generated(let n) = value else {
            head.append(literal: Self.fieldName)
            write(into: &head)
            head.append(literal: "\r\n")
            return
        }
        let name = Self.fieldName.utf8CodeUnitCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name + 17) { line in
            UnsafeMutableRawBufferPointer(line).copyMemory(
                from: UnsafeRawBufferPointer(start: Self.fieldName.utf8Start, count: name))
            Self.digits(n, into: UnsafeMutableBufferPointer(rebasing: line[name..<(name + 15)]))
            line[name + 15] = 0x0D
            line[name + 16] = 0x0A
            head.appendBytes(UnsafeRawBufferPointer(line))
        }
    }

    /// The prefix's six hex digits, as the first six bytes of a little-endian word.
    private static let prefixDigits = hex8(prefix) >> 16

    /// The prefix's six hex digits, then the counter's low nine: three stores, no loop per digit.
    private static func digits(_ n: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count == 15, "a generated request id is 15 characters")
        let raw = UnsafeMutableRawBufferPointer(buffer)
        raw.storeBytes(of: prefixDigits, toByteOffset: 0, as: UInt64.self)  // its last two bytes are overwritten
        raw.storeBytes(
            of: UInt8(truncatingIfNeeded: hex8(UInt32(n >> 32 & 0xF)) >> 56), toByteOffset: 6, as: UInt8.self)
        raw.storeBytes(of: hex8(UInt32(truncatingIfNeeded: n)), toByteOffset: 7, as: UInt64.self)
    }

    /// The eight lower-case hex digits of `value`, most significant first in memory (a
    /// little-endian word): each nibble spread to a byte, then '0'–'9' or 'a'–'f' added to all at once.
    static func hex8(_ value: UInt32) -> UInt64 {
        var x = UInt64(value)
        x = (x & 0xFFFF_0000) << 16 | (x & 0xFFFF)
        x = (x & 0x0000_FF00_0000_FF00) << 8 | (x & 0x0000_00FF_0000_00FF)
        x = (x & 0x00F0_00F0_00F0_00F0) << 4 | (x & 0x000F_000F_000F_000F)
        // Bytes holding 10–15 carry into their bit 4 when 6 is added: those get 'a' - '0' - 10 more.
        let letters = (x &+ 0x0606_0606_0606_0606) >> 4 & 0x0101_0101_0101_0101
        return (x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27).byteSwapped
    }

    /// The client's id if present, 1–128 visible ASCII characters; otherwise nil. Inlined: called
    /// on a request's headers, it would be handed a copy of them (a retain and a release).
    @inline(__always)
    static func fromClient(_ headers: HTTPRequestHeaders) -> RequestID? {
        guard let i = headers.index(ofLowercased: "x-request-id") else { return nil }
        let f = headers.field(at: i)
        let length = Int(f.valueEnd - f.valueStart)
        guard length > 0, length <= 128 else { return nil }
        for k in Int(f.valueStart)..<Int(f.valueEnd) {
            let b = headers.storage[k]
            guard b > 0x20, b < 0x7F, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") else { return nil }
        }
        return RequestID(headers.value(at: i))
    }
}

/// Monotonic clocks for deadlines and durations.
enum MonotonicClock {
    /// Coarse milliseconds (cheap; for deadlines).
    static func millis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Microseconds (for the access log).
    static func micros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }
}
