/// What a handler answers. The body is either bytes (framed with `Content-Length`) or a
/// producer streamed with chunked encoding. A strong `etag` enables conditional GET in the
/// server; a precomputed gzip representation lets a cache hand out compressed bytes without the
/// server compressing per request.
public struct HTTPResponse: Sendable {
    /// The fields in one box, copied on write (as `HTTPRequest`'s): an answer is handed from the
    /// handler through the middleware to the connection, and each copy of five references was five
    /// retains and, later, five releases. A box two responses share is never written: every write
    /// makes it unique first, and its `var`s skip the dynamic exclusivity check for that reason.
    private final class Box: @unchecked Sendable {
        @exclusivity(unchecked) var status: HTTPStatus
        @exclusivity(unchecked) var headers: HTTPHeaders
        @exclusivity(unchecked) var body: Body
        @exclusivity(unchecked) var etag: String?
        @exclusivity(unchecked) var gzip: Representation?
        @exclusivity(unchecked) var compressible: Bool
        @exclusivity(unchecked) var prepared: PreparedHeaders?

        init(
            status: HTTPStatus, headers: HTTPHeaders, body: Body, etag: String?, gzip: Representation?,
            compressible: Bool,
            prepared: PreparedHeaders?
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.etag = etag
            self.gzip = gzip
            self.compressible = compressible
            self.prepared = prepared
        }

        func copy() -> Box {
            Box(
                status: status, headers: headers, body: body, etag: etag, gzip: gzip, compressible: compressible,
                prepared: prepared)
        }
    }

    private var box: Box

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
    }

    public var status: HTTPStatus {
        get { box.status }
        _modify {
            makeUnique()
            yield &box.status
        }
    }
    public var headers: HTTPHeaders {
        get { box.headers }
        _modify {
            makeUnique()
            yield &box.headers
        }
    }
    public var body: Body {
        get { box.body }
        _modify {
            makeUnique()
            yield &box.body
        }
    }
    /// Strong entity tag of the identity representation, with quotes (`"abc"`), or nil.
    public var etag: String? {
        get { box.etag }
        _modify {
            makeUnique()
            yield &box.etag
        }
    }
    /// A ready gzip representation of `body` (used when the client accepts gzip).
    public var gzip: Representation? {
        get { box.gzip }
        _modify {
            makeUnique()
            yield &box.gzip
        }
    }
    /// Whether the server may gzip `body` itself when no precomputed representation is given.
    public var compressible: Bool {
        get { box.compressible }
        _modify {
            makeUnique()
            yield &box.compressible
        }
    }
    /// Fields serialised in advance (for answers sent many times), written before `headers`; a
    /// field in `headers` replaces a prepared one of the same name (`Vary` values are merged).
    public var prepared: PreparedHeaders? {
        get { box.prepared }
        _modify {
            makeUnique()
            yield &box.prepared
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
            status: status, headers: headers, body: .bytes(body), etag: etag, gzip: gzip, compressible: compressible,
            prepared: prepared)
    }

    /// A streamed body. `compressible`: the server gzips the chunks as they go when the client
    /// accepts it and the content type compresses (`Content-Encoding` stays the server's to set).
    public init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), compressible: Bool = false,
        stream: @escaping @Sendable (HTTPBodyWriter) throws -> Void
    ) {
        box = Box(
            status: status, headers: headers, body: .stream(stream), etag: nil, gzip: nil, compressible: compressible,
            prepared: nil)
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
    var hasGzip: Bool { box.gzip != nil }
    /// The precomputed gzip form's tag.
    var gzipETag: String? { box.gzip?.etag }
    /// Whether the body is streamed.
    var isStream: Bool {
        if case .stream = box.body { return true }
        return false
    }
    /// The length of a body of bytes (nil for a stream).
    var byteCount: Int? { box.body.count }
    /// The bytes to send: the precomputed gzip form's when `gzip` and there is one, else the body's
    /// (none for a stream).
    func bytes(gzip: Bool) -> [UInt8] {
        if gzip, let form = box.gzip { return form.body }
        if case .bytes(let bytes) = box.body { return bytes }
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
