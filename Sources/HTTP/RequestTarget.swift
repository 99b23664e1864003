/// Splits a request target into a decoded path and query parameters (RFC 9112 §3.2).
///
/// The path is decoded except for `%2F` and `%25`, which stay encoded: a segment is what lies
/// between real slashes, so `/v1%2Fsdk` is one segment (never `/v1/sdk`), and keeping `%25` encoded
/// too means no decoded text can later be mistaken for an escape. The router decodes both in the
/// path parameters it hands out (`Segment.decoded`). A fragment (`#`) is never part of a request
/// target (RFC 9112 §3.2): 400.
enum RequestTarget {
    /// The path is nil when it is the target's own bytes (an origin-form target without query or
    /// escapes, or `*`): the request then reads them from its head, and no String is made.
    /// `plain`: the parser's whole-line scan found no `#`, `?` or `%` in it, so an origin-form
    /// target needs no scan here.
    static func decode(_ target: UnsafeBufferPointer<UInt8>, method: HTTPMethod, plain: Bool = false)
        throws(HTTPParseError) -> (path: String?, query: [(name: String, value: String)])
    {
        guard let first = target.first else { throw .invalidRequestTarget }
        if plain && first == UInt8(ascii: "/") { return (nil, []) }
        // One pass: a fragment anywhere is refused, and it finds where the query starts and whether
        // anything before it is escaped (three scans of the target were a fifth of the parse).
        var question = target.count
        var escaped = false
        // Eight bytes at a time past words holding none of the three (a switch per byte was most
        // of this function); the bytes of the other words are looked at one by one.
        var i = 0
        while i < target.count {
            i = WordScan.skip(target, from: i, to: target.count) { !WordScan.anyTargetDelimiter($0) }
            guard i < target.count else { break }
            defer { i += 1 }
            switch target[i] {
            case UInt8(ascii: "#"): throw .invalidRequestTarget
            case UInt8(ascii: "?") where question == target.count: question = i
            case UInt8(ascii: "%") where question == target.count: escaped = true
            default: break
            }
        }
        if first == UInt8(ascii: "*") {
            guard target.count == 1, method == .OPTIONS else { throw .invalidRequestTarget }
            return (nil, [])
        }
        var start = 0
        if first != UInt8(ascii: "/") {
            start = try absoluteFormPathStart(target)
            if start == target.count { return ("/", []) }
            if target[start] == UInt8(ascii: "?") {
                return ("/", try parseQuery(UnsafeBufferPointer(rebasing: target[(start + 1)...])))
            }
        }
        // The authority stops at a `?`, so the first one of the target is the query's.
        let queryStart = question
        if start == 0 && queryStart == target.count && !escaped { return (nil, []) }
        let pathBytes = UnsafeBufferPointer(rebasing: target[start..<queryStart])
        let path = try percentDecode(pathBytes, plusIsSpace: false, keepingSeparators: true)
        if queryStart == target.count { return (path, []) }
        return (path, try parseQuery(UnsafeBufferPointer(rebasing: target[(queryStart + 1)...])))
    }

    /// Index where the path begins in `http://authority/path` (or the end, or a `?`).
    private static func absoluteFormPathStart(_ t: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> Int {
        var i = 0
        while i < t.count, t[i] != UInt8(ascii: ":") { i += 1 }
        let scheme = UnsafeBufferPointer(rebasing: t[0..<i])
        guard ByteClass.equalsLowercased(scheme, "http") || ByteClass.equalsLowercased(scheme, "https") else {
            throw .invalidRequestTarget
        }
        guard i + 2 < t.count, t[i + 1] == UInt8(ascii: "/"), t[i + 2] == UInt8(ascii: "/") else {
            throw .invalidRequestTarget
        }
        let authorityStart = i + 3
        var j = authorityStart
        while j < t.count, t[j] != UInt8(ascii: "/"), t[j] != UInt8(ascii: "?") {
            guard ByteClass.isHost(t[j]) || t[j] == UInt8(ascii: "@") else { throw .invalidRequestTarget }
            j += 1
        }
        guard j > authorityStart else { throw .invalidRequestTarget }
        return j
    }

    static func parseQuery(_ q: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        var pairStart = 0
        var i = 0
        while i <= q.count {
            if i == q.count || q[i] == UInt8(ascii: "&") {
                if i > pairStart {
                    let pair = UnsafeBufferPointer(rebasing: q[pairStart..<i])
                    var eq = pair.count
                    for k in 0..<pair.count where pair[k] == UInt8(ascii: "=") {
                        eq = k
                        break
                    }
                    let name = try percentDecode(UnsafeBufferPointer(rebasing: pair[0..<eq]), plusIsSpace: true)
                    let value =
                        eq < pair.count
                        ? try percentDecode(UnsafeBufferPointer(rebasing: pair[(eq + 1)...]), plusIsSpace: true) : ""
                    out.append((name: name, value: value))
                }
                pairStart = i + 1
            }
            i += 1
        }
        return out
    }

    /// Percent-decodes into a String; malformed escapes, NUL and invalid UTF-8 are rejected. With
    /// `keepingSeparators`, `%2F` and `%25` are checked but kept as they are (upper-cased).
    static func percentDecode(
        _ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool,
        keepingSeparators: Bool = false
    ) throws(HTTPParseError) -> String {
        var needsWork = false
        for b in bytes where b == UInt8(ascii: "%") || (plusIsSpace && b == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        if !needsWork { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count,
                    let hi = ByteClass.hexValue(bytes[i + 1]), let lo = ByteClass.hexValue(bytes[i + 2])
                else {
                    throw .invalidRequestTarget
                }
                let v = UInt8(hi * 16 + lo)
                guard v != 0 else { throw .invalidRequestTarget }
                if keepingSeparators && (v == UInt8(ascii: "/") || v == UInt8(ascii: "%")) {
                    out.append(UInt8(ascii: "%"))
                    out.append(
                        contentsOf: v == UInt8(ascii: "/")
                            ? [UInt8(ascii: "2"), UInt8(ascii: "F")] : [UInt8(ascii: "2"), UInt8(ascii: "5")])
                } else {
                    out.append(v)
                }
                i += 3
            } else {
                out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw .invalidRequestTarget }
        return s
    }
}
