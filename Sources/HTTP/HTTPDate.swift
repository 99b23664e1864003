#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) formatting into a fixed 29-byte buffer,
/// cached per I/O loop as the whole `Date:` field line and refreshed when the second changes.
struct HTTPDate {
    /// `Date: <IMF-fixdate>\r\n`, ready to copy into a response head.
    private(set) var line: [UInt8] = Array("Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n".utf8)
    private var second: time_t = -1

    /// Refreshes if the wall-clock second moved on.
    mutating func refresh() {
        let now = time(nil)
        if now != second {
            second = now
            Self.format(now, into: &line, at: 6)
        }
    }

    static func string(_ t: time_t) -> String {
        var b = [UInt8](repeating: 0, count: 29)
        format(t, into: &b)
        return String(decoding: b, as: UTF8.self)
    }

    /// Writes the 29 bytes of `t`'s IMF-fixdate into `out` from `offset`.
    static func format(_ t: time_t, into out: inout [UInt8], at offset: Int = 0) {
        var t = t
        var parts = tm()
        gmtime_r(&t, &parts)
        let days: StaticString = "SunMonTueWedThuFriSat"
        let months: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"
        let d = Int(parts.tm_wday) * 3
        let m = Int(parts.tm_mon) * 3
        func two(_ v: Int32, _ at: Int) {
            out[offset + at] = UInt8(48 + v / 10)
            out[offset + at + 1] = UInt8(48 + v % 10)
        }
        out[offset + 0] = days.utf8Start[d]
        out[offset + 1] = days.utf8Start[d + 1]
        out[offset + 2] = days.utf8Start[d + 2]
        out[offset + 3] = UInt8(ascii: ",")
        out[offset + 4] = 0x20
        two(parts.tm_mday, 5)
        out[offset + 7] = 0x20
        out[offset + 8] = months.utf8Start[m]
        out[offset + 9] = months.utf8Start[m + 1]
        out[offset + 10] = months.utf8Start[m + 2]
        out[offset + 11] = 0x20
        let year = parts.tm_year + 1900
        two(year / 100, 12)
        two(year % 100, 14)
        out[offset + 16] = 0x20
        two(parts.tm_hour, 17)
        out[offset + 19] = UInt8(ascii: ":")
        two(parts.tm_min, 20)
        out[offset + 22] = UInt8(ascii: ":")
        two(parts.tm_sec, 23)
        out[offset + 25] = 0x20
        out[offset + 26] = UInt8(ascii: "G")
        out[offset + 27] = UInt8(ascii: "M")
        out[offset + 28] = UInt8(ascii: "T")
    }
}
