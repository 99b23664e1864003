import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Request ids: the client's `X-Request-Id` when it is sane, else a 15-character id (a random
/// per-process prefix plus a counter) that fits Swift's inline small-string storage.
enum RequestID {
    private static let counter = Atomic<UInt64>(0)
    private static let prefix: UInt32 = UInt32.random(in: 0...0xFFFFFF)

    static func generate() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        let hex: StaticString = "0123456789abcdef"
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 15) { buf in
            var p = prefix
            for i in stride(from: 5, through: 0, by: -1) {
                buf[i] = hex.utf8Start[Int(p & 0xF)]
                p >>= 4
            }
            var c = n
            for i in stride(from: 14, through: 6, by: -1) {
                buf[i] = hex.utf8Start[Int(c & 0xF)]
                c >>= 4
            }
            return String(decoding: UnsafeBufferPointer(buf), as: UTF8.self)
        }
    }

    /// The client's id if present, 1–128 visible ASCII characters; otherwise nil.
    static func fromClient(_ headers: HTTPRequestHeaders) -> String? {
        guard let i = headers.index(ofLowercased: "x-request-id") else { return nil }
        let f = headers.fields[i]
        let length = Int(f.valueEnd - f.valueStart)
        guard length > 0, length <= 128 else { return nil }
        for k in Int(f.valueStart)..<Int(f.valueEnd) {
            let b = headers.storage[k]
            guard b > 0x20, b < 0x7F, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") else { return nil }
        }
        return headers.value(at: i)
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
