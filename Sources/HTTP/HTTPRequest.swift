/// One parsed request as a handler sees it. Built by the parser from the received bytes; the
/// server fills in the request id and remote address, the router the path parameters.
public struct HTTPRequest: Sendable {
    /// Everything in one box, so handing a request along (parser → router → admission → handler →
    /// response) copies one reference: with its mutable fields kept beside the box, each copy
    /// retained and each destroy released five or six references, which was the largest part of
    /// the refcount traffic of an SDK revalidation. The box is copied on write: a field is set only
    /// when the box is uniquely referenced, so a box two requests share is never mutated. Its few
    /// `var`s skip the dynamic exclusivity check (`@exclusivity(unchecked)`): each is written only
    /// through the unique reference, so no two accesses can overlap.
    private final class Box: @unchecked Sendable {
        // Every field is a `var`: a connection's parser builds its next request in the box of the
        // one before when nothing else holds it (`reuse`), instead of allocating one per request.
        @exclusivity(unchecked) var method: HTTPMethod
        /// The target as given to the public initialiser; nil for a parsed request, whose target is
        /// `headers.storage[targetRange]`, made a String only when asked for (`HTTPRequest.target`).
        @exclusivity(unchecked) var givenTarget: String?
        /// Emptied when the head's buffer goes back to the parser (`reclaimHeadBuffer`).
        @exclusivity(unchecked) var targetRange: Range<Int>
        /// The decoded path where it is not the target's own bytes (a query, an escape, absolute
        /// form); nil: the path is the target. Routing reads the bytes (`withPathBytes`): a parsed
        /// request without a query makes no String of its path, nor of its target.
        @exclusivity(unchecked) var decodedPath: String?
        @exclusivity(unchecked) var queryParameters: [(name: String, value: String)]
        @exclusivity(unchecked) var version: HTTPVersion
        @exclusivity(unchecked) var headers: HTTPRequestHeaders
        @exclusivity(unchecked) var keepAlive: Bool
        @exclusivity(unchecked) var body: [UInt8]
        /// Set by the router; nil until a route matched. Held by hand (`LentReference`), as is the
        /// admission's context, so a handler's read of either is lent rather than retained.
        @exclusivity(unchecked) var match = LentReference<RouteMatch>()
        @exclusivity(unchecked) var requestID = RequestID("")
        @exclusivity(unchecked) var remoteAddress: String = ""
        @exclusivity(unchecked) var context = LentReference<AnyObject>()
        @exclusivity(unchecked) var partition: String = ""

        /// The context as set: only a Sendable object is ever set (`HTTPRequest.context`), so the
        /// bit cast restores the marker the held reference does not carry (one pointer either way).
        var sendableContext: (any AnyObject & Sendable)? {
            context.object.map { unsafeBitCast($0, to: (any AnyObject & Sendable).self) }
        }

        init(
            method: HTTPMethod, givenTarget: String?, targetRange: Range<Int>, decodedPath: String?,
            queryParameters: [(name: String, value: String)], version: HTTPVersion, headers: HTTPRequestHeaders,
            body: [UInt8], keepAlive: Bool
        ) {
            self.method = method
            self.givenTarget = givenTarget
            self.targetRange = targetRange
            self.decodedPath = decodedPath
            self.queryParameters = queryParameters
            self.version = version
            self.headers = headers
            self.body = body
            self.keepAlive = keepAlive
        }

        func copy() -> Box {
            let copy = Box(
                method: method, givenTarget: givenTarget, targetRange: targetRange, decodedPath: decodedPath,
                queryParameters: queryParameters, version: version, headers: headers, body: body, keepAlive: keepAlive)
            copy.match.replace(with: match.object)
            copy.requestID = requestID
            copy.remoteAddress = remoteAddress
            copy.context.replace(with: context.object)
            copy.partition = partition
            return copy
        }
    }

    private var box: Box

    /// Which box holds this request's fields (tests check that a parser reuses one, `reuse`).
    var boxIdentity: ObjectIdentifier { ObjectIdentifier(box) }

    /// Makes the box this request's own (a copy, if another request shares it) before a write.
    /// The write then goes through `box` itself: handing the box out from a getter left a second
    /// reference alive across the next field's uniqueness check, which copied the box again.
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
    }

    public var method: HTTPMethod { box.method }
    /// The request target exactly as received (origin-, absolute- or asterisk-form).
    public var target: String {
        if let given = box.givenTarget { return given }
        return headers.storage.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[box.targetRange]), as: UTF8.self)
        }
    }
    /// The percent-decoded path (`/` for an absolute-form target without one, `*` for `OPTIONS *`).
    public var path: String { box.decodedPath ?? target }

    /// Calls `body` with the path's UTF-8 bytes, without making a String of them when they are
    /// the target's bytes as received.
    func withPathBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if var text = box.decodedPath ?? box.givenTarget { return try text.withUTF8(body) }
        return try headers.storage.withUnsafeBufferPointer {
            try body(UnsafeBufferPointer(rebasing: $0[box.targetRange]))
        }
    }
    /// Query parameters in received order, percent-decoded, `+` read as a space.
    public var queryParameters: [(name: String, value: String)] { box.queryParameters }
    /// Whether the target has a query, without copying its parameters out.
    public var hasQueryParameters: Bool { !box.queryParameters.isEmpty }
    public var version: HTTPVersion { box.version }
    public var headers: HTTPRequestHeaders { box.headers }
    /// Whether the client asked to keep the connection open after this exchange.
    public var keepAlive: Bool { box.keepAlive }

    public var body: [UInt8] {
        get { box.body }
        set {
            makeUnique()
            box.body = newValue
        }
    }
    /// What the router bound (nil until a route matched): shared by reference, set as a whole.
    var routeMatch: RouteMatch? {
        get { box.match.object }
        set {
            makeUnique()
            box.match.replace(with: newValue)
        }
    }
    /// Values bound by the matched route's `:name` segments.
    public var pathParameters: [(name: String, value: String)] {
        get { parameters.all }
        set { parameters = PathParameters(newValue) }
    }
    /// The same bindings as kept (set by the router).
    var parameters: PathParameters {
        get { box.match.object?.parameters ?? PathParameters() }
        set { routeMatch = (box.match.object ?? .unmatched).with(parameters: newValue) }
    }
    /// The matched route's template (for example `/v1/paywalls/:id`), for metrics and logs.
    public var routeTemplate: String? {
        get { box.match.object?.template }
        set { routeMatch = (box.match.object ?? .unmatched).with(template: .some(newValue)) }
    }
    /// The matched route's position in `RoutingTable.routeTemplates` (-1 when none matched), so
    /// per-route counters are an array index instead of a string lookup.
    public var routeIndex: Int {
        get { box.match.withObject { $0?.index } ?? -1 }
        set { routeMatch = (box.match.object ?? .unmatched).with(index: newValue) }
    }
    /// The path as logs write it: with the values of the matched route's redacted parameters
    /// (`Router.add(redacting:)`, a credential in the path) replaced by `…`; else the path.
    public var loggedPath: String { box.match.withObject { $0?.redactedPath } ?? path }
    /// Set by the router when the matched route redacts a parameter.
    var redactedPath: String? {
        get { box.match.object?.redactedPath }
        set { routeMatch = (box.match.object ?? .unmatched).with(redactedPath: .some(newValue)) }
    }
    /// `X-Request-Id` from the client or one generated by the server; echoed on the response.
    public var requestId: String {
        get { box.requestID.text }
        set { requestID = RequestID(newValue) }
    }
    /// The same id, as kept: a generated one becomes text only when something reads `requestId`.
    public var requestID: RequestID {
        get { box.requestID }
        set {
            makeUnique()
            box.requestID = newValue
        }
    }
    /// The peer's address as `host:port` (`[v6]:port` for IPv6).
    public var remoteAddress: String {
        get { box.remoteAddress }
        set {
            makeUnique()
            box.remoteAddress = newValue
        }
    }

    /// Sets `remoteAddress` unless it is that already: a connection's requests reuse its boxes and
    /// keep its address (`reuse`), so the write (a release and a retain, atomic both for an
    /// address longer than a small string's 15 bytes) is skipped.
    mutating func setRemoteAddress(_ address: String) {
        if box.remoteAddress != address { remoteAddress = address }
    }

    /// What the route's admission verified about the caller (the authenticated key), for the
    /// handler. The HTTP layer only carries it.
    public var context: (any AnyObject & Sendable)? {
        get { box.sendableContext }
        set {
            makeUnique()
            box.context.replace(with: newValue)
        }
    }

    /// `body` with the context lent when it is exactly a `T` (`LentReference.withObject(as:_:)`),
    /// nil otherwise: a handler's read of the key its admission verified, on every SDK request.
    public func withContext<T: AnyObject, R>(as type: T.Type, _ body: (T?) throws -> R) rethrows -> R {
        try box.context.withObject(as: type, body)
    }

    /// Whose share of the handler threads an offloaded handler of this request takes (`FairQueue`):
    /// the admission names the tenant, by setting it or by a context that is `HTTPPartitioned`;
    /// "" (no admission) is one shared partition. Read only when a handler is offloaded: an
    /// admission that leaves its context does not copy the tenant's name into every request.
    public var partition: String {
        get {
            if !box.partition.isEmpty { return box.partition }
            return (box.context.object as? any HTTPPartitioned)?.partition ?? ""
        }
        set {
            makeUnique()
            box.partition = newValue
        }
    }

    public init(
        method: HTTPMethod, target: String, path: String,
        queryParameters: [(name: String, value: String)] = [],
        version: HTTPVersion = .http1_1, headers: HTTPRequestHeaders = HTTPRequestHeaders(),
        body: [UInt8] = [], keepAlive: Bool = true
    ) {
        box = Box(
            method: method, givenTarget: target, targetRange: 0..<0, decodedPath: path == target ? nil : path,
            queryParameters: queryParameters, version: version, headers: headers, body: body, keepAlive: keepAlive)
    }

    /// A parsed request: its target is `headers.storage[target]`, and its path that target's bytes
    /// unless `decodedPath` is given.
    init(
        method: HTTPMethod, target: Range<Int>, decodedPath: String?, queryParameters: [(name: String, value: String)],
        version: HTTPVersion, headers: HTTPRequestHeaders, keepAlive: Bool
    ) {
        precondition(
            target.lowerBound >= 0 && target.upperBound <= headers.storage.count, "the target lies in the head's bytes")
        box = Box(
            method: method, givenTarget: nil, targetRange: target, decodedPath: decodedPath,
            queryParameters: queryParameters, version: version, headers: headers, body: [], keepAlive: keepAlive)
    }

    /// The head's buffer (bytes and field table), emptied, when nothing but this value holds the
    /// request: its connection reads the next head into it, so a keep-alive connection's requests
    /// allocate no head buffer each (about 250 instructions of every request). Nil when the
    /// request is shared (a handler on the pool still has it), which then keeps its buffer. A
    /// request whose buffer was taken is left with no fields and an empty target (the target's
    /// bytes were in that buffer: they are not read from it again).
    mutating func reclaimHeadBuffer() -> [UInt8]? {
        guard isKnownUniquelyReferenced(&box) else { return nil }
        var buffer = box.headers.takeStorage()
        box.targetRange = 0..<0
        guard buffer.capacity > 0 else { return nil }
        // Kept in place when nothing else holds it (a copy of the headers elsewhere gets its own).
        buffer.removeAll(keepingCapacity: true)
        return buffer
    }

    /// Whether nothing but this value holds the request, so `reuse` may rebuild it in place.
    mutating func isReusable() -> Bool { isKnownUniquelyReferenced(&box) }

    /// Makes this request (`isReusable`) the parsed request with these parts: every field is set
    /// again, so nothing of the request before (its match, context, id, body) is left but the
    /// peer's address (the same connection's). The parser
    /// builds each keep-alive request in the box of the one before (`HTTPRequestParser.recycle(_:reusing:)`):
    /// one allocation and one deallocation fewer per request. A field already at its empty value
    /// is left alone (releasing an empty value is still a call).
    mutating func reuse(
        method: HTTPMethod, target: Range<Int>, decodedPath: String?, queryParameters: [(name: String, value: String)],
        version: HTTPVersion, headers: consuming HTTPRequestHeaders, keepAlive: Bool
    ) {
        precondition(isKnownUniquelyReferenced(&box), "a request is rebuilt only in a box nothing else holds")
        box.headers = consume headers
        precondition(
            target.lowerBound >= 0 && target.upperBound <= box.headers.storage.count,
            "the target lies in the head's bytes")
        box.method = method
        if box.givenTarget != nil { box.givenTarget = nil }
        box.targetRange = target
        if decodedPath != nil || box.decodedPath != nil { box.decodedPath = decodedPath }
        if !queryParameters.isEmpty || !box.queryParameters.isEmpty { box.queryParameters = queryParameters }
        box.version = version
        box.keepAlive = keepAlive
        // Not kept with its capacity: a large body would stay in memory while the connection idles.
        if box.body.capacity > 0 { box.body = [] }
        if !box.match.isEmpty { box.match.replace(with: nil) }
        box.requestID = RequestID("")
        // The address is kept: a box is reused only by its own connection's parser, and
        // `Connection.prepare` gives each of that connection's requests the connection's address.
        if !box.context.isEmpty { box.context.replace(with: nil) }
        if !box.partition.isEmpty { box.partition = "" }
    }

    /// The first value of query parameter `name`.
    public func query(_ name: String) -> String? {
        queryParameters.first { $0.name == name }?.value
    }

    /// Every value of query parameter `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        queryParameters.filter { $0.name == name }.map(\.value)
    }

    /// The value bound to route parameter `name` (`:name` in the route pattern).
    public func pathParameter(_ name: String) -> String? {
        box.match.withObject { $0?.parameters.value(named: name) }
    }

    /// `body` with the bytes of the value bound to `name` (nil when none is), lent from the match:
    /// no String and no retain (the SDK's path form verifies its key this way per request).
    public func withPathParameter<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        try box.match.withObject({ try $0.withUTF8Value(named: name, body) }, absent: { try body(nil) })
    }

    /// The same value and its `hashValue`, which a match from a loop's route memo carries (computed
    /// once per path); otherwise computed here.
    public func pathParameterHashed(_ name: String) -> (value: String, hashValue: Int)? {
        box.match.withObject { $0?.hashedValue(named: name) }
    }

    /// Case-insensitive lookup of the first value of a header field.
    public func header(_ name: String) -> String? { headers[name] }

    /// The first value of the field named by a lowercase literal: the names compared eight bytes
    /// at a time with no String made of the name (an SDK request's handler asks for about ten
    /// names, most absent; by `header(_:)` each cost about 117 instructions).
    public func header(lowercased name: StaticString) -> String? {
        headers.index(ofLowercased: name).map(headers.value(at:))
    }

    // The negotiation reads the fields in the box in place: through `headers` they were copied
    // out, a retain and a release per response.

    /// What `Accept-Encoding` allows.
    var encodingPreference: ContentNegotiation.EncodingPreference {
        ContentNegotiation.encodingPreference(box.headers)
    }

    /// nil without `If-None-Match`; otherwise whether it matches `etag` by weak comparison or is `*`.
    public func ifNoneMatchMatches(_ etag: String) -> Bool? {
        ContentNegotiation.ifNoneMatch(box.headers, etag: etag)
    }

    /// The same over the tag's bytes (a prepared tag's: no String, and no closure holding the fields).
    func ifNoneMatchMatches(tagBytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        ContentNegotiation.ifNoneMatch(box.headers, tagBytes: tagBytes)
    }
}
