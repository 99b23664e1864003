/// A version as app stores and SemVer 2.0 write it, compared by SemVer's precedence (§11): numeric
/// components numerically (so `1.9.0 < 1.10.0`, which string order gets wrong), a pre-release below
/// its release (`1.0.0-rc.1 < 1.0.0`), pre-release identifiers numerically when both are numbers and
/// by ASCII otherwise, and build metadata ignored.
///
/// One leniency, because app versions are often written so (`CFBundleShortVersionString` "2.1"):
/// one to three numeric components, the missing ones 0 (`2.1` is `2.1.0`). Anything else (`v1.2`,
/// leading zeros, four components, empty identifiers) is not a version.
public struct SemanticVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let major: UInt64
    public let minor: UInt64
    public let patch: UInt64
    /// Dot-separated pre-release identifiers; empty for a release.
    public let preRelease: [Identifier]

    public enum Identifier: Sendable, Hashable {
        case numeric(UInt64)
        case alphanumeric(String)
    }

    /// At most this many bytes are read as a version: a longer value is not one (bounded work per request).
    public static let maxLength = 128

    /// Parsed in one pass over the bytes: a release version (the common case) allocates nothing.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ SemanticVersion.parse($0) }) else { return nil }
        self = parsed
    }

    private init(major: UInt64, minor: UInt64, patch: UInt64, preRelease: [Identifier]) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.preRelease = preRelease
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SemanticVersion? {
        guard !bytes.isEmpty, bytes.count <= maxLength else { return nil }
        var end = bytes.count
        // Build metadata first (it may contain '-'), then the pre-release.
        if let plus = bytes.firstIndex(of: UInt8(ascii: "+")) {
            guard identifiersAreValid(bytes[(plus + 1)...], numericMayHaveLeadingZero: true) else { return nil }
            end = plus
        }
        var preRange: Range<Int>?
        if let dash = bytes[..<end].firstIndex(of: UInt8(ascii: "-")) {
            guard identifiersAreValid(bytes[(dash + 1)..<end], numericMayHaveLeadingZero: false) else { return nil }
            preRange = (dash + 1)..<end
            end = dash
        }
        var numbers: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var start = 0
        while true {
            var stop = start
            while stop < end, bytes[stop] != UInt8(ascii: ".") { stop += 1 }
            guard count < 3, let n = number(bytes[start..<stop]) else { return nil }
            switch count {
            case 0: numbers.0 = n
            case 1: numbers.1 = n
            default: numbers.2 = n
            }
            count += 1
            if stop == end { break }
            start = stop + 1
        }
        var preRelease: [Identifier] = []
        if let preRange {
            preRelease = bytes[preRange].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map {
                part in
                number(part).map(Identifier.numeric) ?? .alphanumeric(String(decoding: part, as: UTF8.self))
            }
        }
        return SemanticVersion(major: numbers.0, minor: numbers.1, patch: numbers.2, preRelease: preRelease)
    }

    /// A numeric identifier: digits, no leading zero, fits 64 bits.
    private static func number(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt64? {
        guard let first = bytes.first, bytes.allSatisfy(isDigit), !(first == UInt8(ascii: "0") && bytes.count > 1)
        else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// Non-empty dot-separated identifiers of `[0-9A-Za-z-]`; pre-release numbers have no leading zero.
    private static func identifiersAreValid(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, numericMayHaveLeadingZero: Bool)
        -> Bool
    {
        guard !bytes.isEmpty else { return false }
        for part in bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
            guard !part.isEmpty,
                part.allSatisfy({ isDigit($0) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == UInt8(ascii: "-") })
            else { return false }
            if !numericMayHaveLeadingZero, part.allSatisfy(isDigit), part.count > 1, part.first == UInt8(ascii: "0") {
                return false
            }
        }
        return true
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        if a.major != b.major { return a.major < b.major }
        if a.minor != b.minor { return a.minor < b.minor }
        if a.patch != b.patch { return a.patch < b.patch }
        // A release outranks its pre-releases.
        if a.preRelease.isEmpty || b.preRelease.isEmpty { return !a.preRelease.isEmpty && b.preRelease.isEmpty }
        for (x, y) in zip(a.preRelease, b.preRelease) where x != y {
            switch (x, y) {
            case (.numeric(let m), .numeric(let n)): return m < n
            case (.numeric, .alphanumeric): return true
            case (.alphanumeric, .numeric): return false
            case (.alphanumeric(let s), .alphanumeric(let t)): return s.utf8.lexicographicallyPrecedes(t.utf8)
            }
        }
        return a.preRelease.count < b.preRelease.count
    }

    /// Equal precedence (build metadata is not part of it).
    public static func == (a: SemanticVersion, b: SemanticVersion) -> Bool {
        a.major == b.major && a.minor == b.minor && a.patch == b.patch && a.preRelease == b.preRelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(preRelease)
    }

    public var description: String {
        let core = "\(major).\(minor).\(patch)"
        guard !preRelease.isEmpty else { return core }
        return core + "-"
            + preRelease.map {
                if case .numeric(let n) = $0 { String(n) } else if case .alphanumeric(let s) = $0 { s } else { "" }
            }
            .joined(separator: ".")
    }
}
