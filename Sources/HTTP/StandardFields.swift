extension HTTPRequestHeaders {
    /// The fields a request's answer is negotiated by, and its credential: asked for by every SDK
    /// request, some of them twice (the handler, then the response's assembly). One pass over the
    /// names, when the parser hands the head over, records where each first occurs, as nginx's
    /// `headers_in` does, so asking for one is an index, not a scan comparing every field's name
    /// (about 80 instructions a lookup, most of them for names the request does not have).
    public enum Standard: Int, CaseIterable, Sendable {
        case accept, acceptEncoding, acceptLanguage, authorization, ifNoneMatch

        /// The name, as the by-name lookups take it.
        var lowercasedName: StaticString {
            switch self {
            case .accept: "accept"
            case .acceptEncoding: "accept-encoding"
            case .acceptLanguage: "accept-language"
            case .authorization: "authorization"
            case .ifNoneMatch: "if-none-match"
            }
        }

        /// The field `name` is (any case), if it is one of these; told apart by length first, so a
        /// name of another length costs one comparison of its length.
        @inline(__always)
        init?(name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 6 where ByteClass.equalsLowercasedName(name, "accept"): self = .accept
            case 13 where ByteClass.equalsLowercasedName(name, "authorization"): self = .authorization
            case 13 where ByteClass.equalsLowercasedName(name, "if-none-match"): self = .ifNoneMatch
            case 15 where ByteClass.equalsLowercasedName(name, "accept-encoding"): self = .acceptEncoding
            case 15 where ByteClass.equalsLowercasedName(name, "accept-language"): self = .acceptLanguage
            default: return nil
            }
        }
    }

    /// Per `Standard` field one byte of a word: its low seven bits 0 when the request has none,
    /// else 1 + the first one's index (127: an index too large to hold, looked for by name);
    /// bit 7 set when the name occurs again.
    struct StandardIndex: Sendable, Equatable {
        private var bytes: UInt64 = 0
        private static let unrecorded: UInt64 = 0x7F

        enum Entry: Equatable {
            case absent
            case at(Int)
            case repeated(first: Int)
            case unrecorded
        }

        /// Notes a field named as `field` at index `i` (called in field order).
        @inline(__always)
        mutating func record(_ field: Standard, at i: Int) {
            precondition(i >= 0, "a field index is not negative")
            let shift = UInt64(field.rawValue * 8)
            let byte = (bytes >> shift) & 0xFF
            let updated: UInt64
            if byte & 0x7F == 0 {
                updated = i + 1 < Int(Self.unrecorded) ? UInt64(i + 1) : Self.unrecorded
            } else {
                updated = byte | 0x80
            }
            bytes = bytes & ~(0xFF << shift) | updated << shift
        }

        func entry(_ field: Standard) -> Entry {
            let byte = (bytes >> UInt64(field.rawValue * 8)) & 0xFF
            let low = byte & 0x7F
            if low == 0 { return .absent }
            if low == Self.unrecorded { return .unrecorded }
            return byte & 0x80 == 0 ? .at(Int(low) - 1) : .repeated(first: Int(low) - 1)
        }
    }
}

extension HTTPRequest {
    /// The first value of a `Standard` field, by the parser's record of where it is.
    public func header(_ field: HTTPRequestHeaders.Standard) -> String? { headers[field] }
}
