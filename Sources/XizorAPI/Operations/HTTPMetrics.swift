import HTTP
import Synchronization
import XizorDomain

/// The server's per-request counters, fed by the HTTP core through `HTTPRequestObserver`: requests
/// by route template, method and status; latency histograms and response bytes per route template;
/// connections. Every counter is an atomic in a fixed array indexed by the route's position in
/// the routing table, so recording a response takes no lock and allocates nothing. The per-response
/// counters have a row per I/O loop (`ShardedCounters`): a response is recorded by the loop that
/// wrote it, with plain stores instead of four locked adds on lines every core writes.
public final class HTTPMetrics: HTTPRequestObserver {
    /// Upper bounds (seconds) of the latency buckets; a last bucket holds everything slower.
    public static let latencyBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    static let latencyBoundsMicros: [Int64] = latencyBounds.map { Int64(($0 * 1_000_000).rounded()) }
    /// Methods with their own label value; anything else counts as `other`.
    static let methodNames = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"]
    /// Status codes with their own slot; any other code counts in the last slot, labelled by class.
    static let statusCodes = [
        100, 101, 200, 201, 202, 203, 204, 206, 301, 302, 303, 304, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417,
        422, 428, 429, 431, 500, 501, 502, 503, 504, 505,
    ]
    /// `statusSlot[code]` for codes 0..<600; the other-slot beyond.
    private static let statusSlot: [Int16] = {
        var table = [Int16](repeating: Int16(statusCodes.count), count: 600)
        for (slot, code) in statusCodes.enumerated() { table[code] = Int16(slot) }
        return table
    }()
    static let statusSlots = statusCodes.count + 1
    /// Label used for responses no route matched (404s, parse errors, timeouts).
    public static let unmatchedRoute = "(unmatched)"

    /// Route slots; routes beyond it (never in practice) count as unmatched.
    public let routeCapacity: Int
    private let templates = Mutex<[String]>([])
    private let requests: ShardedCounters
    private let latencyBuckets: ShardedCounters
    private let latencyMicros: ShardedCounters
    private let responseBytes: ShardedCounters
    /// Opened, closed, refused; bodies refused; access log lines dropped.
    private let connections = AtomicCounters(count: 5)

    /// `loops`: the server's I/O loops (`HTTPServer.Configuration.resolvedIOQueues`), one row of
    /// per-response counters each; responses from a loop beyond them are counted in a shared row.
    public init(routeCapacity: Int = 128, loops: Int = 1) {
        self.routeCapacity = routeCapacity
        let routes = routeCapacity + 1
        let rows = max(1, loops)
        requests = ShardedCounters(count: routes * Self.methodNames.count * Self.statusSlots, shards: rows)
        latencyBuckets = ShardedCounters(count: routes * (Self.latencyBounds.count + 1), shards: rows)
        latencyMicros = ShardedCounters(count: routes, shards: rows)
        responseBytes = ShardedCounters(count: routes, shards: rows)
    }

    /// Names the route slots: the routing table's `routeTemplates`, set once before serving.
    public func setRouteTemplates(_ routeTemplates: [String]) {
        templates.withLock { $0 = Array(routeTemplates.prefix(routeCapacity)) }
    }

    // MARK: Recording (the I/O loops)

    public func responseCompleted(_ exchange: HTTPExchange) {
        let route =
            exchange.routeIndex >= 0 && exchange.routeIndex < routeCapacity ? exchange.routeIndex : routeCapacity
        let method = Self.methodSlot(exchange.method)
        let status =
            exchange.status >= 0 && exchange.status < 600
            ? Int(Self.statusSlot[exchange.status]) : Self.statusCodes.count
        let loop = exchange.loop
        requests.add((route * Self.methodNames.count + method) * Self.statusSlots + status, shard: loop)
        var bucket = 0
        let bounds = Self.latencyBoundsMicros
        while bucket < bounds.count && exchange.micros > bounds[bucket] { bucket += 1 }
        latencyBuckets.add(route * (bounds.count + 1) + bucket, shard: loop)
        latencyMicros.add(route, Int(exchange.micros), shard: loop)
        responseBytes.add(route, exchange.bytes, shard: loop)
    }

    public func connectionOpened() { connections.add(0) }
    public func connectionClosed() { connections.add(1) }
    public func connectionRefused() { connections.add(2) }
    public func bodyRefused() { connections.add(3) }
    public func accessLogLinesDropped(_ lines: Int) { connections.add(4, lines) }

    @inline(__always)
    static func methodSlot(_ method: HTTPMethod) -> Int {
        switch method {
        case .GET: 0
        case .HEAD: 1
        case .POST: 2
        case .PUT: 3
        case .DELETE: 4
        case .PATCH: 5
        case .OPTIONS: 6
        default: 7
        }
    }

    // MARK: Reading (scrapes and tests)

    public var connectionsOpened: Int { connections.load(0) }
    public var connectionsOpen: Int { connections.load(0) - connections.load(1) }
    public var connectionsRefused: Int { connections.load(2) }
    public var bodiesRefused: Int { connections.load(3) }
    public var accessLogLinesDropped: Int { connections.load(4) }

    /// Requests answered so far for `route` (a template, or `unmatchedRoute`), optionally of one status.
    public func requestCount(route: String, status: Int? = nil) -> Int {
        guard let slot = routeSlot(route) else { return 0 }
        let wanted = status.map { $0 >= 0 && $0 < 600 ? Int(Self.statusSlot[$0]) : Self.statusCodes.count }
        var total = 0
        for method in 0..<Self.methodNames.count {
            for s in 0..<Self.statusSlots where wanted == nil || wanted == s {
                total += requests.load((slot * Self.methodNames.count + method) * Self.statusSlots + s)
            }
        }
        return total
    }

    private func routeSlot(_ route: String) -> Int? {
        if route == Self.unmatchedRoute { return routeCapacity }
        return templates.withLock { $0.firstIndex(of: route) }
    }

    private static func statusLabel(slot: Int) -> String {
        slot < statusCodes.count ? String(statusCodes[slot]) : "other"
    }

    func write(to out: inout PrometheusText) {
        let names = templates.withLock { $0 }
        let slots: [(Int, String)] =
            names.enumerated().map { ($0.offset, $0.element) } + [(routeCapacity, Self.unmatchedRoute)]

        out.family("xizor_http_requests_total", .counter, "Responses by route template, method and status.")
        for (slot, route) in slots {
            for (m, method) in Self.methodNames.enumerated() {
                for s in 0..<Self.statusSlots {
                    let n = requests.load((slot * Self.methodNames.count + m) * Self.statusSlots + s)
                    guard n > 0 else { continue }
                    out.sample(
                        "xizor_http_requests_total",
                        [
                            ("route", route), ("method", method),
                            ("status", Self.statusLabel(slot: s)),
                        ], n)
                }
            }
        }

        out.family(
            "xizor_http_request_duration_seconds", .histogram,
            "Time from the parsed request to the last response byte handed to the socket, by route template.")
        let width = Self.latencyBounds.count + 1
        for (slot, route) in slots {
            let counts = (0..<width).map { latencyBuckets.load(slot * width + $0) }
            guard counts.contains(where: { $0 > 0 }) else { continue }
            out.histogram(
                "xizor_http_request_duration_seconds", [("route", route)], bounds: Self.latencyBounds,
                counts: counts, sum: Double(latencyMicros.load(slot)) / 1_000_000)
        }

        out.family(
            "xizor_http_response_bytes_total", .counter,
            "Response body bytes written (after compression), by route template.")
        for (slot, route) in slots {
            let n = responseBytes.load(slot)
            let answered = (0..<width).reduce(0) { $0 + latencyBuckets.load(slot * width + $1) }
            guard answered > 0 else { continue }
            out.sample("xizor_http_response_bytes_total", [("route", route)], n)
        }

        out.family("xizor_http_connections_open", .gauge, "Connections open now.")
        out.sample("xizor_http_connections_open", [], connectionsOpen)
        out.family("xizor_http_connections_total", .counter, "Connections accepted and served.")
        out.sample("xizor_http_connections_total", [], connectionsOpened)
        out.family(
            "xizor_http_connections_refused_total", .counter,
            "Connections closed at once because http.maxConnections were open or the server was draining.")
        out.sample("xizor_http_connections_refused_total", [], connectionsRefused)
        out.family(
            "xizor_http_bodies_refused_total", .counter,
            "Request bodies answered 503 unread because http.maxBufferedBodyBytes were held in memory.")
        out.sample("xizor_http_bodies_refused_total", [], bodiesRefused)
        out.family(
            "xizor_http_access_log_lines_dropped_total", .counter,
            "Access log lines dropped because the log's writer was http.accessLogMaxPendingBytes behind.")
        out.sample("xizor_http_access_log_lines_dropped_total", [], accessLogLinesDropped)
    }
}
