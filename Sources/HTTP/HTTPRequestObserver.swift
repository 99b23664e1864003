/// One answered request, as the server saw it on the wire: what metrics need, and nothing that
/// would have to be allocated to build it.
public struct HTTPExchange: Sendable {
    public let method: HTTPMethod
    /// Position of the matched route's template in `RoutingTable.routeTemplates`; -1 when no route
    /// matched (404, parse errors, timeouts, 501).
    public let routeIndex: Int
    /// The status written (304 when a conditional GET matched).
    public let status: Int
    /// Body bytes handed to the socket (after compression; 0 for HEAD, 304 and 204).
    public let bytes: Int
    /// From the parsed request to the last byte handed to the socket.
    public let micros: Int64
    /// The I/O loop that wrote the response (`0..<Configuration.resolvedIOQueues`). One loop's
    /// calls never overlap, so an observer may keep counters per loop that only that loop writes.
    public let loop: Int

    public init(method: HTTPMethod, routeIndex: Int, status: Int, bytes: Int, micros: Int64, loop: Int) {
        self.method = method
        self.routeIndex = routeIndex
        self.status = status
        self.bytes = bytes
        self.micros = micros
        self.loop = loop
    }
}

/// Told about every response and connection of a server, so an application can keep its own
/// counters without the server knowing what they are for. The calls run on the connection's I/O
/// queue and the accept queue: implementations must be quick, non-blocking and allocation-free
/// (atomics in fixed arrays, no dictionaries keyed by strings). A class: the server holds one
/// reference, and each call copies a reference, not an existential box (about 170 instructions of
/// every response).
public protocol HTTPRequestObserver: AnyObject, Sendable {
    /// Called once per response, after its last byte is handed to the socket (the same moment the
    /// access log line is written).
    func responseCompleted(_ exchange: HTTPExchange)
    /// A connection was accepted and is now open.
    func connectionOpened()
    /// An open connection was closed (by either side, a timeout or a drain).
    func connectionClosed()
    /// A connection was accepted and closed at once because `maxConnections` were open.
    /// (A draining server serves what it accepts: see `HTTPServer.shutdown`.)
    func connectionRefused()
    /// A request body was refused (503) because the server's body budget was spent.
    func bodyRefused()
    /// Access log lines were dropped because the log's writer was `http.accessLogMaxPendingBytes` behind.
    func accessLogLinesDropped(_ lines: Int)
}

extension HTTPRequestObserver {
    public func connectionOpened() {}
    public func connectionClosed() {}
    public func connectionRefused() {}
    public func bodyRefused() {}
    public func accessLogLinesDropped(_ lines: Int) {}
}
