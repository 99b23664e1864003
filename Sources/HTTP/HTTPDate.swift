#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) formatting into a fixed 29-byte buffer,
/// cached per I/O loop as the whole `Date:` field line and refreshed when the second changes.
/// The line lives in an allocation of its own, read by pointer: an array read out of the loop (a
/// class) was retained and released around every response's assembly (two atomic instructions).
/// Noncopyable, so the allocation has one owner, which frees it.
struct HTTPDate: ~Copyable {
    /// `Date: ` + the 29-byte date + CRLF.
    private static let lineLength = 37
    private let base: UnsafeMutablePointer<UInt8>
    private var second: time_t = -1

    init() {
        base = .allocate(capacity: Self.lineLength)
        let initial: StaticString = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n"
        precondition(initial.utf8CodeUnitCount == Self.lineLength, "the Date line's length")
        base.initialize(from: initial.utf8Start, count: Self.lineLength)
    }

    deinit { base.deallocate() }

    /// `Date: <IMF-fixdate>\r\n`, ready to copy into a response head; valid until the next
    /// `refresh` (the loop's thread only).
    var line: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: Self.lineLength) }

    /// Refreshes if the wall-clock second moved on.
    mutating func refresh() {
        let now = time(nil)
        if now != second {
            second = now
            Self.format(now, into: base + 6)
        }
    }

    static func string(_ t: time_t) -> String {
        String(unsafeUninitializedCapacity: 29) { buffer in
            guard let start = buffer.baseAddress, buffer.count >= 29 else { return 0 }
            format(t, into: start)
            return 29
        }
    }

    /// Writes the 29 bytes of `t`'s IMF-fixdate from `out` (room for 29 bytes).
    private static func format(_ t: time_t, into out: UnsafeMutablePointer<UInt8>) {
        var t = t
        var parts = tm()
        gmtime_r(&t, &parts)
        let days: StaticString = "SunMonTueWedThuFriSat"
        let months: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"
        let d = Int(parts.tm_wday) * 3
        let m = Int(parts.tm_mon) * 3
        func two(_ v: Int32, _ at: Int) {
            out[at] = UInt8(48 + v / 10)
            out[at + 1] = UInt8(48 + v % 10)
        }
        out[0] = days.utf8Start[d]
        out[1] = days.utf8Start[d + 1]
        out[2] = days.utf8Start[d + 2]
        out[3] = UInt8(ascii: ",")
        out[4] = 0x20
        two(parts.tm_mday, 5)
        out[7] = 0x20
        out[8] = months.utf8Start[m]
        out[9] = months.utf8Start[m + 1]
        out[10] = months.utf8Start[m + 2]
        out[11] = 0x20
        let year = parts.tm_year + 1900
        two(year / 100, 12)
        two(year % 100, 14)
        out[16] = 0x20
        two(parts.tm_hour, 17)
        out[19] = UInt8(ascii: ":")
        two(parts.tm_min, 20)
        out[22] = UInt8(ascii: ":")
        two(parts.tm_sec, 23)
        out[25] = 0x20
        out[26] = UInt8(ascii: "G")
        out[27] = UInt8(ascii: "M")
        out[28] = UInt8(ascii: "T")
    }
}
