/// A handler: runs on a background queue unless its route is declared `.inline`.
public typealias HTTPHandler = @Sendable (HTTPRequest) throws -> HTTPResponse

/// Where a route's handler runs. `.inline` handlers run on the connection's I/O queue and must be
/// memory-only and non-blocking (health checks, cache lookups); everything else is `.offloaded`
/// so a slow handler cannot stall other connections.
public enum HTTPExecution: Sendable {
    case inline
    case offloaded
}

/// Wraps every route's handler (authentication, metrics, headers); applied in the order added,
/// the first added being outermost.
public protocol HTTPMiddleware: Sendable {
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse
}

/// What the server needs from an application: for a parsed request, the handler to run and where
/// to run it. `resolve` runs on the I/O queue, so it must be fast and non-blocking.
public protocol HTTPResponder: Sendable {
    func resolve(_ request: inout HTTPRequest) -> HTTPResolution
}

/// A resolved handler plus its execution mode.
public struct HTTPResolution: Sendable {
    public let execution: HTTPExecution
    public let handler: HTTPHandler
    public init(execution: HTTPExecution, handler: @escaping HTTPHandler) {
        self.execution = execution
        self.handler = handler
    }
}
