#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `Accept-Encoding` and `If-None-Match` evaluation over raw header bytes (RFC 9110 §12.5.3,
/// §13.1.2), so the per-request checks build no Strings.
enum ContentNegotiation {
    struct EncodingPreference {
        var gzipAllowed = false
        var identityForbidden = false
    }

    static func encodingPreference(_ headers: HTTPRequestHeaders) -> EncodingPreference {
        var weights = CodingWeights()
        var present = false
        headers.forEachValue(of: .acceptEncoding) { value in
            present = true
            weights.read(value)
        }
        var preference = EncodingPreference()
        guard present else { return preference }
        preference.gzipAllowed = (weights.gzip ?? weights.star ?? 0) > 0
        preference.identityForbidden = (weights.identity ?? (weights.star.map { $0 == 0 ? 0 : 1000 } ?? 1000)) == 0
        return preference
    }

    /// The weights (thousandths) an `Accept-Encoding` value gives the codings this server tells
    /// apart, nil for one it does not name.
    private struct CodingWeights {
        var gzip: Int?
        var identity: Int?
        var star: Int?

        /// One field value: its comma-separated elements, each a coding and its parameters. One
        /// pass over the bytes, the coding compared as a word (its length first), not through a
        /// closure per element and a byte loop per name (~320 instructions for `gzip` alone).
        mutating func read(_ value: UnsafeBufferPointer<UInt8>) {
            var i = 0
            while i < value.count {
                while i < value.count && (ByteClass.isWhitespace(value[i]) || value[i] == UInt8(ascii: ",")) { i += 1 }
                let start = i
                while i < value.count && value[i] != UInt8(ascii: ",") && value[i] != UInt8(ascii: ";")
                    && !ByteClass.isWhitespace(value[i])
                {
                    i += 1
                }
                let coding = UnsafeBufferPointer(rebasing: value[start..<i])
                while i < value.count && ByteClass.isWhitespace(value[i]) { i += 1 }
                var q = 1000
                if i < value.count && value[i] == UInt8(ascii: ";") {
                    let params = i + 1
                    while i < value.count && value[i] != UInt8(ascii: ",") { i += 1 }
                    var end = i
                    while end > params && ByteClass.isWhitespace(value[end - 1]) { end -= 1 }
                    q = ContentNegotiation.qValue(UnsafeBufferPointer(rebasing: value[params..<end]))
                } else if i < value.count && value[i] != UInt8(ascii: ",") {
                    // A coding with whitespace inside ("gz ip"): no coding this server knows.
                    while i < value.count && value[i] != UInt8(ascii: ",") { i += 1 }
                    continue
                }
                switch Coding(coding) {
                case .gzip: gzip = max(gzip ?? 0, q)
                case .identity: identity = q
                case .star: star = q
                case nil: break
                }
            }
        }
    }

    private enum Coding {
        case gzip, identity, star

        /// `gzip`, `x-gzip`, `identity` or `*`, in any case; nil for any other coding.
        init?(_ name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 1 where name[0] == UInt8(ascii: "*"): self = .star
            case 4 where ByteClass.equalsLowercased(name, "gzip"): self = .gzip
            case 6 where ByteClass.equalsLowercased(name, "x-gzip"): self = .gzip
            case 8 where ByteClass.equalsLowercased(name, "identity"): self = .identity
            default: return nil
            }
        }
    }

    /// Parses `q=0.5` style parameters into thousandths; malformed weights count as 0.
    static func qValue(_ params: UnsafeBufferPointer<UInt8>) -> Int {
        var result = 1000
        var i = 0
        while i < params.count, ByteClass.isWhitespace(params[i]) { i += 1 }
        guard i + 1 < params.count, ByteClass.lower(params[i]) == UInt8(ascii: "q"),
            params[i + 1] == UInt8(ascii: "=")
        else { return result }
        i += 2
        guard i < params.count else { return 0 }
        let first = params[i]
        guard first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return 0 }
        var value = Int(first - 0x30) * 1000
        i += 1
        if i < params.count, params[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 100
            while i < params.count, params[i] >= 0x30, params[i] <= 0x39, scale > 0 {
                value += Int(params[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        while i < params.count, ByteClass.isWhitespace(params[i]) { i += 1 }
        if i != params.count || value > 1000 { return 0 }
        result = value
        return result
    }

    /// Whether any `If-None-Match` field matches `etag` by weak comparison, or is `*`.
    /// Returns nil when the request has no `If-None-Match`.
    static func ifNoneMatch(_ headers: HTTPRequestHeaders, etag: String) -> Bool? {
        // The tag's bytes in place (a native String's are contiguous): `withUTF8` needed a copy of
        // the String, a retain and a release per revalidation.
        if let found = etag.utf8.withContiguousStorageIfAvailable({ ifNoneMatch(headers, tagBytes: $0) }) {
            return found
        }
        var copy = etag
        return copy.withUTF8 { ifNoneMatch(headers, tagBytes: $0) }
    }

    /// The same, over the tag's bytes.
    static func ifNoneMatch(_ headers: HTTPRequestHeaders, tagBytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        var present = false
        var matched = false
        let tag = opaque(tagBytes)
        headers.forEachValue(of: .ifNoneMatch) { value in
            present = true
            if matched { return }
            var i = 0
            while i < value.count {
                let b = value[i]
                if ByteClass.isWhitespace(b) || b == UInt8(ascii: ",") {
                    i += 1
                    continue
                }
                if b == UInt8(ascii: "*") {
                    matched = true
                    return
                }
                var start = i
                if b == UInt8(ascii: "W"), i + 1 < value.count, value[i + 1] == UInt8(ascii: "/") { start = i + 2 }
                guard start < value.count, value[start] == UInt8(ascii: "\"") else { return }
                // The closing quote by `memchr` (a tag is ~40 bytes; the byte loop was most of this check).
                guard let base = value.baseAddress, start + 1 < value.count,
                    let quote = memchr(base + start + 1, Int32(UInt8(ascii: "\"")), value.count - start - 1)
                else { return }
                let end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(quote))
                let candidate = UnsafeBufferPointer(rebasing: value[start...end])
                if ByteClass.equal(candidate, tag) {
                    matched = true
                    return
                }
                i = end + 1
            }
        }
        return present ? matched : nil
    }

    /// Drops a `W/` prefix so comparison is weak.
    private static func opaque(_ tag: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if tag.count >= 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/") {
            return UnsafeBufferPointer(rebasing: tag[2...])
        }
        return tag
    }

    /// Media types worth compressing.
    static func isCompressible(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.hasPrefix("text/") || type.hasPrefix("application/json")
            || ByteClass.containsLowercased(type, "+json")
            || type.hasPrefix("application/x-ndjson")
            || type.hasPrefix("application/javascript") || ByteClass.containsLowercased(type, "xml")
            || type.hasPrefix("image/svg")
    }
}
