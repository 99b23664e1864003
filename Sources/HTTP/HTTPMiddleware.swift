/// A handler: runs on a background queue unless its route is declared `.inline`.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Where a route's handler runs. `.inline` handlers run on the connection's I/O loop and must be
/// memory-only and non-blocking (health checks, cache lookups); everything else is `.offloaded`
/// so a slow handler cannot stall other connections. An inline handler that finds a request needs
/// more (a database read) throws `HTTPOffload` and is run again offloaded.
public enum HTTPExecution: Sendable, Equatable {
    case inline
    case offloaded
}

/// Wraps every route's handler (authentication, metrics, headers); applied in the order added,
/// the first added being outermost.
public protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse
}

/// What the server needs from an application: for a parsed request, the handler to run and where
/// to run it. `resolve` runs on the I/O loop, so it must be fast and non-blocking. A class: the
/// server holds one reference, and reaching it per request copies a reference, not an existential
/// box (about 90 instructions of every request).
public protocol HTTPResponder: AnyObject, Sendable {
    /// The resolution for `request`, setting what the match binds on it. `memo` is the calling
    /// loop's memo of earlier answers (`RouteMemo`), nil outside a loop; a responder may ignore it.
    func resolve(_ request: inout HTTPRequest, memo: RouteMemo?) -> HTTPResolution
}

/// Checks a request's head before its body is read: the route's authentication, typically. It may
/// record what it verified in `request.context` for the handler; it throws to refuse.
public typealias HTTPAdmission = @Sendable (inout HTTPRequest) throws -> Void

/// A resolved handler plus its execution mode, and what must hold before its body is read. A
/// class, built once per route: handing it out per request retains one reference, not the context
/// of each of its three closures.
public final class HTTPResolution: Sendable {
    public let execution: HTTPExecution
    public let handler: HTTPHandler
    /// Run on the I/O loop as soon as the head is complete, before any body byte is read or
    /// `100 Continue` is sent; a refusal is answered with the body unread (and the connection closed
    /// when a body was announced), so an unauthenticated client never makes the server buffer one.
    /// It runs marked inline (`InlineExecution`): one that needs more than memory throws
    /// `HTTPOffload` and is run again on the handler pool, the connection reading nothing meanwhile.
    public let admission: HTTPAdmission?
    /// Turns a refused admission into the answer, through the same middleware as the handler (so a
    /// 401 carries CORS headers like any other answer).
    public let refusal: (@Sendable (HTTPRequest, any Error) throws -> HTTPResponse)?
    /// False for answers that never look at the body (404, 405, OPTIONS): they are given as soon as
    /// the head is complete.
    public let needsBody: Bool

    public init(
        execution: HTTPExecution, handler: @escaping HTTPHandler, admission: HTTPAdmission? = nil,
        refusal: (@Sendable (HTTPRequest, any Error) throws -> HTTPResponse)? = nil, needsBody: Bool = true
    ) {
        self.execution = execution
        self.handler = handler
        self.admission = admission
        self.refusal = refusal
        self.needsBody = needsBody
    }

    /// Runs the admission, if the route has one. Not inlined: called on the resolution, the closure
    /// (a constant of it) is called in place, where bound to a local in `ServerCore.admitInline` it
    /// was retained and released per request.
    @inline(never)
    func admit(_ request: inout HTTPRequest) throws { try admission?(&request) }
}
