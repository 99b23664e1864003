#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The byte work around a match, pure and apart from the table's state: a pattern compiled into
/// segments, a bound segment decoded into its value, a path with its redacted values left out.
extension RoutingTable {
    /// A path parameter's value: the segment with the `%2F` and `%25` the target decoder kept
    /// encoded (see `RequestTarget`) decoded at last, so `/placements/a%2Fb` binds `a/b`.
    static func decodedSegment(_ segment: UnsafeBufferPointer<UInt8>) -> String {
        // memchr: a byte loop over a public key in the path was ~200 instructions of a request.
        guard let base = segment.baseAddress, memchr(base, Int32(UInt8(ascii: "%")), segment.count) != nil else {
            return String(decoding: segment, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(segment.count)
        var i = 0
        while i < segment.count {
            if segment[i] == UInt8(ascii: "%"), i + 2 < segment.count, segment[i + 1] == UInt8(ascii: "2") {
                if segment[i + 2] == UInt8(ascii: "F") {
                    out.append(UInt8(ascii: "/"))
                    i += 3
                    continue
                }
                if segment[i + 2] == UInt8(ascii: "5") {
                    out.append(UInt8(ascii: "%"))
                    i += 3
                    continue
                }
            }
            out.append(segment[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `path` with each of `ranges` (in order, not overlapping) replaced by `…`.
    static func redacted(_ path: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(path.count)
        var start = 0
        for range in ranges {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: path[start..<range.lowerBound]))
            out.append(contentsOf: Array("…".utf8))
            start = range.upperBound
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: path[start...]))
        return String(decoding: out, as: UTF8.self)
    }

    static func compile(_ pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(Array(part.utf8))
        }
    }
}
