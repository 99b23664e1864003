/// What a handler answers. The body is either bytes (framed with `Content-Length`) or a
/// producer streamed with chunked encoding. A strong `etag` enables conditional GET in the
/// server; a precomputed gzip representation lets a cache hand out compressed bytes without the
/// server compressing per request.
public struct HTTPResponse: Sendable {
    /// The fields in one immutable box: an answer is handed from the handler through the
    /// middleware to the connection, and each copy of seven references was seven retains and,
    /// later, seven releases. The box's fields are constants, so a read of one from a response the
    /// caller holds is a borrow, not a retain and a release (atomic instructions both: the assembly
    /// of a cached 304 read six fields). A write moves the fields out of the box, lets the
    /// old box go (so a header list the box alone held is changed in place, not copied) and puts
    /// them in a new one: an allocation per write, on paths that build an answer, never on one
    /// that sends a kept answer.
    struct Fields: Sendable {
        var status: HTTPStatus
        var headers: HTTPHeaders
        var body: Body
        var etag: String?
        var gzip: Representation?
        var compressible: Bool
        var prepared: PreparedHeaders?
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }

        /// What a response holds while its fields are out being changed.
        static let vacated = Box(
            Fields(
                status: .ok, headers: HTTPHeaders(), body: .bytes([]), etag: nil, gzip: nil, compressible: false,
                prepared: nil))
    }

    private var box: Box

    /// The fields, taken out of the box for a change, which `box = Box(fields)` ends.
    private mutating func takeFields() -> Fields {
        let fields = box.fields
        box = Box.vacated
        return fields
    }

    public var status: HTTPStatus {
        get { box.fields.status }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.status
        }
    }
    public var headers: HTTPHeaders {
        get { box.fields.headers }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.headers
        }
    }
    public var body: Body {
        get { box.fields.body }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.body
        }
    }
    /// Strong entity tag of the identity representation, with quotes (`"abc"`), or nil.
    public var etag: String? {
        get { box.fields.etag }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.etag
        }
    }
    /// A ready gzip representation of `body` (used when the client accepts gzip).
    public var gzip: Representation? {
        get { box.fields.gzip }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.gzip
        }
    }
    /// Whether the server may gzip `body` itself when no precomputed representation is given.
    public var compressible: Bool {
        get { box.fields.compressible }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.compressible
        }
    }
    /// Fields serialised in advance (for answers sent many times), written before `headers`; a
    /// field in `headers` replaces a prepared one of the same name (`Vary` values are merged).
    public var prepared: PreparedHeaders? {
        get { box.fields.prepared }
        _modify {
            var fields = takeFields()
            defer { box = Box(fields) }
            yield &fields.prepared
        }
    }

    public enum Body: Sendable {
        case bytes([UInt8])
        /// Produced on a background queue; each `write` blocks until the chunk is sent.
        case stream(@Sendable (HTTPBodyWriter) throws -> Void)

        public var count: Int? {
            if case .bytes(let b) = self { return b.count }
            return nil
        }
    }

    /// An alternative encoded form of the body with its own strong ETag.
    public struct Representation: Sendable {
        public var body: [UInt8]
        public var etag: String?
        public init(body: [UInt8], etag: String?) {
            self.body = body
            self.etag = etag
        }
    }

    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        etag: String? = nil, gzip: Representation? = nil, compressible: Bool = true,
        prepared: PreparedHeaders? = nil
    ) {
        box = Box(
            Fields(
                status: status, headers: headers, body: .bytes(body), etag: etag, gzip: gzip,
                compressible: compressible, prepared: prepared))
    }

    /// A streamed body. `compressible`: the server gzips the chunks as they go when the client
    /// accepts it and the content type compresses (`Content-Encoding` stays the server's to set).
    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), compressible: Bool = false,
        stream: @escaping @Sendable (HTTPBodyWriter) throws -> Void
    ) {
        box = Box(
            Fields(
                status: status, headers: headers, body: .stream(stream), etag: nil, gzip: nil,
                compressible: compressible, prepared: nil))
    }

    /// A UTF-8 text response.
    public static func text(
        _ text: String, status: HTTPStatus = .ok,
        contentType: String = "text/plain; charset=utf-8"
    ) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// A JSON response from already-encoded bytes.
    public static func json(_ bytes: [UInt8], status: HTTPStatus = .ok, etag: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes, etag: etag)
    }

    // What the assembly reads before it knows whether a body goes out, each read in place: a 304
    // copies no body (nor the gzip form) out of the box.

    /// Whether a precomputed gzip form is given.
    var hasGzip: Bool { box.fields.gzip != nil }
    /// `body` over the identity tag (`gzip` false) or the precomputed gzip form's, read in place
    /// (a copy of the String is a retain and a release); nil when there is none.
    func withETag<R>(gzip: Bool, _ body: (String) -> R) -> R? {
        gzip ? box.fields.gzip?.etag.map(body) : box.fields.etag.map(body)
    }
    /// The prepared line of the identity tag or the gzip form's, when the prepared fields have it.
    func preparedETag(gzip: Bool) -> PreparedEntityTag.Ready? {
        withETag(gzip: gzip) { tag in box.fields.prepared?.entityTag(tag) } ?? nil
    }
    /// Whether the body is streamed.
    var isStream: Bool {
        if case .stream = box.fields.body { return true }
        return false
    }
    /// The length of a body of bytes (nil for a stream).
    var byteCount: Int? { box.fields.body.count }
    /// The bytes to send: the precomputed gzip form's when `gzip` and there is one, else the body's
    /// (none for a stream).
    func bytes(gzip: Bool) -> [UInt8] {
        if gzip, let form = box.fields.gzip { return form.body }
        if case .bytes(let bytes) = box.fields.body { return bytes }
        return []
    }

    /// Derives the ETag of a gzip representation from an identity one: `"x"` becomes `"x-gzip"`.
    public static func gzipETag(for etag: String) -> String {
        guard etag.hasSuffix("\""), etag.count >= 2 else { return etag + "-gzip" }
        return String(etag.dropLast()) + "-gzip\""
    }
}

/// Hands chunks of a streamed response to the connection. Writes block the producer until the
/// chunk is on the wire, so a slow client slows the producer instead of growing memory.
public protocol HTTPBodyWriter: Sendable {
    /// Sends one chunk; throws `HTTPBodyWriterError.connectionClosed` when the client is gone.
    func write(_ bytes: [UInt8]) throws
}

public enum HTTPBodyWriterError: Error, Sendable {
    case connectionClosed
}

/// Shape checks on an entity tag's text, by bytes (`hasPrefix` ran Unicode-aware comparison on
/// every response).
enum EntityTag {
    /// `W/…`: a weak validator.
    static func isWeak(_ tag: String) -> Bool {
        var bytes = tag.utf8.makeIterator()
        return bytes.next() == UInt8(ascii: "W") && bytes.next() == UInt8(ascii: "/")
    }

    /// `"…"` or `W/"…"`: already quoted.
    static func isQuoted(_ tag: String) -> Bool {
        var bytes = tag.utf8.makeIterator()
        switch bytes.next() {
        case UInt8(ascii: "\""): return true
        case UInt8(ascii: "W"): return bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "\"")
        default: return false
        }
    }
}
