#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Byte classification from RFC 9110/9112 grammar, kept as plain functions so the parser's
/// per-byte loop needs no tables, lookups or allocations.
enum ByteClass {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// `tchar` of RFC 9110 §5.6.2.
    @inline(__always)
    static func isToken(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// `field-vchar`, SP or HTAB: what a field value may contain.
    @inline(__always)
    static func isFieldValue(_ b: UInt8) -> Bool {
        b == tab || (b >= 0x20 && b != 0x7F)
    }

    /// Visible ASCII: what a request target may contain.
    @inline(__always)
    static func isTarget(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F }

    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == space || b == tab }

    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { (b >= 0x41 && b <= 0x5A) ? b | 0x20 : b }

    @inline(__always)
    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }

    /// Characters allowed in a Host value (RFC 3986 reg-name/IP-literal plus port).
    @inline(__always)
    static func isHost(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default: return false
        }
    }

    /// Case-insensitive ASCII comparison of `bytes` with a lowercase literal.
    @inline(__always)
    /// Whether `haystack` contains `lowercase` ignoring ASCII case, by bytes (no Foundation:
    /// `String.contains` goes through NSString on Linux and showed up in the hot path's profile).
    static func containsLowercased(_ haystack: String, _ lowercase: StaticString) -> Bool {
        var text = haystack
        return text.withUTF8 { bytes in
            let needle = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
            guard needle.count <= bytes.count else { return false }
            if needle.isEmpty { return true }
            for start in 0...(bytes.count - needle.count) {
                var i = 0
                while i < needle.count, lower(bytes[start + i]) == needle[i] { i += 1 }
                if i == needle.count { return true }
            }
            return false
        }
    }

    /// Byte-for-byte equality, by `memcmp`: an entity tag is ~40 bytes, over which the generic
    /// `elementsEqual` took ~10 instructions a byte and a byte loop ~5.
    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return a.count == 0 }
        return memcmp(x, y, a.count) == 0
    }

    /// A field name (token characters, as the parser admits them) equal, ignoring case, to a
    /// lowercase literal of letters, digits and `-`, compared eight bytes at a time: setting bit 5
    /// lowercases a letter and leaves `-` and digits as they are, and the only other bytes it maps
    /// onto them (CR, control bytes) are never in a name. `Authorization` byte by byte was ~100
    /// instructions of every SDK request.
    static func equalsLowercasedName(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        assert(
            UnsafeBufferPointer(start: lowercase.utf8Start, count: count).allSatisfy {
                $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
            }, "a name literal is lowercase letters, digits and '-'")
        guard name.count == count else { return false }
        guard let a = name.baseAddress else { return count == 0 }
        let raw = UnsafeRawPointer(a)
        let literal = UnsafeRawPointer(lowercase.utf8Start)
        let fold: UInt64 = 0x2020_2020_2020_2020
        guard count >= 8 else {
            for i in 0..<count where a[i] | 0x20 != lowercase.utf8Start[i] { return false }
            return true
        }
        var i = 0
        while i + 8 <= count {
            let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let y = literal.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            guard x | fold == y else { return false }
            i += 8
        }
        // The rest as the last eight bytes, overlapping what was compared (no byte loop).
        guard i < count else { return true }
        let x = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        return x | fold == literal.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    static func equalsLowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let p = lowercase.utf8Start
        for i in 0..<bytes.count where lower(bytes[i]) != p[i] { return false }
        return true
    }
}

/// Eight bytes at a time (SWAR, "SIMD within a register"): a word is passed over when none of its
/// bytes can end the run, and the byte loop decides the rest. The tests are the bit tricks of
/// "Bit Twiddling Hacks" (hasless, hasmore, haszero); each may flag a word that is fine (a tab in
/// a value, say), never miss one that is not, so the word loop can only stop early.
enum WordScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Some byte of `w` is below `n` (n ≤ 128).
    @inline(__always)
    static func anyBelow(_ w: UInt64, _ n: UInt8) -> Bool { ((w &- ones &* UInt64(n)) & ~w & highs) != 0 }

    /// Some byte of `w` is above `n` (n ≤ 127).
    @inline(__always)
    static func anyAbove(_ w: UInt64, _ n: UInt8) -> Bool { (((w &+ ones &* UInt64(127 - n)) | w) & highs) != 0 }

    /// Some byte of `w` is `b`.
    @inline(__always)
    static func anyEqual(_ w: UInt64, _ b: UInt8) -> Bool {
        let v = w ^ (ones &* UInt64(b))
        return ((v &- ones) & ~v & highs) != 0
    }

    /// Request-target bytes (visible ASCII) need no look: nothing below `!` or above `~`.
    @inline(__always)
    static func allTarget(_ w: UInt64) -> Bool { !anyBelow(w, 0x21) && !anyAbove(w, 0x7E) }

    /// Some byte of `w` is one a request target's first scan looks for: `#`, `?` or `%`.
    @inline(__always)
    static func anyTargetDelimiter(_ w: UInt64) -> Bool {
        anyEqual(w, UInt8(ascii: "#")) || anyEqual(w, UInt8(ascii: "?")) || anyEqual(w, UInt8(ascii: "%"))
    }

    /// Field-value bytes need no look: no control byte (a tab is looked at) and no DEL.
    @inline(__always)
    static func allFieldValue(_ w: UInt64) -> Bool { !anyBelow(w, 0x20) && !anyEqual(w, 0x7F) }

    // Masks with bit 7 set in each byte a whole line's scan stops at. Only their lowest set bit is
    // relied on, and it is exact: a subtraction's borrow or an addition's carry moves upward only,
    // from a byte that is flagged itself (`skip(_:from:to:stops:)` stops at the lowest).

    /// The bytes of `w` that are not a letter or `-` (most of a field name's bytes; a digit or
    /// another token byte is left to the byte loop).
    @inline(__always)
    static func notLetterOrDash(_ w: UInt64) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        let lower = w | (ones &* 0x20)
        // `a`…`z` after setting bit 5: at least 0x61 (adding 0x1F reaches bit 7), at most 0x7A
        // (adding 0x05 does not); no byte carries into the next while all are below 0x80.
        let letters = (lower &+ ones &* 0x1F) & ~(lower &+ ones &* 0x05) & highs
        // Exactly the `-` bytes: a zero byte of `w ^ 0x2D…`, tested without a borrow.
        let v = w ^ (ones &* 0x2D)
        let dash = ~(((v & low7) &+ low7) | v | low7)
        return (~(letters | dash) & highs) | (w & highs)
    }

    /// The bytes of `w` a field value's run stops at: a control byte (a tab stops it too; the
    /// byte loop takes it) and DEL.
    @inline(__always)
    static func fieldValueStops(_ w: UInt64) -> UInt64 {
        let v = w ^ (ones &* 0x7F)
        return ((w &- ones &* 0x20) & ~w & highs) | ((v &- ones) & ~v & highs)
    }

    /// The bytes of `w` a request target's run stops at: anything but visible ASCII.
    @inline(__always)
    static func targetStops(_ w: UInt64) -> UInt64 {
        ((w &- ones &* 0x21) & ~w & highs) | (((w &+ ones &* 0x01) | w) & highs)
    }

    /// The bytes of `w` a request target's run stops at, and its `#`, `?` and `%`: a target
    /// passed whole by these has none, so its path is its own bytes (`WholeLine.RequestLine.plainTarget`).
    @inline(__always)
    static func targetStopsOrDelimiters(_ w: UInt64) -> UInt64 {
        func equal(_ b: UInt8) -> UInt64 {
            let v = w ^ (ones &* UInt64(b))
            return (v &- ones) & ~v & highs
        }
        return targetStops(w) | equal(UInt8(ascii: "#")) | equal(UInt8(ascii: "?")) | equal(UInt8(ascii: "%"))
    }

    /// Where a run from `start` ends: eight bytes at a time while `stops` flags none, then at the
    /// lowest byte it flags. Within eight bytes of `end` it stops, and the byte loop decides.
    @inline(__always)
    static func skip(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, stops: (UInt64) -> UInt64
    ) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var j = start
        while j + 8 <= end {
            // Little-endian, so the lowest bit is the first byte whatever the machine.
            let flagged = stops(UInt64(littleEndian: UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)))
            if flagged != 0 { return j + flagged.trailingZeroBitCount >> 3 }
            j += 8
        }
        return j
    }

    /// Length of the run of bytes from `start` that satisfy `accepts`, at most `limit` of them (the
    /// parser's hot states consume a run at once instead of one loop turn per byte).
    /// `words`, when given, passes eight bytes at a time over what surely satisfies `accepts`
    /// (`skip`); the byte loop decides the rest.
    @inline(__always)
    static func run(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int, words: ((UInt64) -> Bool)? = nil,
        _ accepts: (UInt8) -> Bool
    ) -> Int {
        let end = min(bytes.count, start + max(0, limit))
        var j = start
        if let words { j = skip(bytes, from: j, to: end, words) }
        while j < end && accepts(bytes[j]) { j += 1 }
        return j - start
    }

    /// Where the words from `start` stop being all `accepted` (at most `end`, in steps of eight).
    @inline(__always)
    static func skip(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, _ accepted: (UInt64) -> Bool)
        -> Int
    {
        guard let base = bytes.baseAddress else { return start }
        var j = start
        while j + 8 <= end, accepted(UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)) { j += 8 }
        return j
    }
}
