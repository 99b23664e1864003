/// Method + path routing with `:name` parameters, built once into an immutable `RoutingTable`.
/// Answers 404 for unknown paths, 405 with `Allow` for known paths with other methods, `HEAD`
/// through the `GET` handler, and `OPTIONS` with `Allow` unless a route handles it.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: String
        let execution: HTTPExecution
        let handler: HTTPHandler
    }

    private var routes: [Route] = []
    private var middleware: [any HTTPMiddleware] = []

    public init() {}

    /// Adds a route. `pattern` is a path like `/v1/paywalls/:id/versions/:n`.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, execution: HTTPExecution = .offloaded,
                             _ handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, pattern: pattern, execution: execution, handler: handler))
    }

    public mutating func get(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.GET, pattern, execution: execution, handler)
    }
    public mutating func post(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.POST, pattern, execution: execution, handler)
    }
    public mutating func put(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.PUT, pattern, execution: execution, handler)
    }
    public mutating func delete(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.DELETE, pattern, execution: execution, handler)
    }
    public mutating func patch(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler) {
        add(.PATCH, pattern, execution: execution, handler)
    }

    /// Adds middleware around every route (including the generated 404/405/OPTIONS answers).
    public mutating func use(_ m: any HTTPMiddleware) { middleware.append(m) }

    /// Freezes the routes into the responder the server runs.
    public func build() -> RoutingTable { RoutingTable(routes: routes, middleware: middleware) }
}

/// The immutable, compiled form of a `Router`.
public final class RoutingTable: HTTPResponder {
    enum Segment: Sendable {
        case literal([UInt8])
        case parameter(String)
    }

    struct Group: Sendable {
        let pattern: String
        let segments: [Segment]
        /// Groups are only tried against paths with as many segments.
        var segmentCount: Int { segments.count }
        var methods: [(HTTPMethod, HTTPResolution)]
        var allow: String = ""
        var options: HTTPResolution?
        var methodNotAllowed: HTTPResolution?
    }

    private let groups: [Group]
    /// Every route template, in the order `HTTPRequest.routeIndex` refers to.
    public let routeTemplates: [String]
    /// Every route as registered (method and pattern), for checks that compare routes with their documentation.
    public let registeredRoutes: [(method: HTTPMethod, pattern: String)]
    private let notFound: HTTPResolution
    private let serverOptions: HTTPResolution

    init(routes: [Router.Route], middleware: [any HTTPMiddleware]) {
        func wrap(_ handler: @escaping HTTPHandler) -> HTTPHandler {
            var h = handler
            for m in middleware.reversed() {
                let next = h
                h = { request in try m.respond(to: request, next: next) }
            }
            return h
        }
        registeredRoutes = routes.map { (method: $0.method, pattern: $0.pattern) }
        var groups: [Group] = []
        for route in routes {
            let resolution = HTTPResolution(execution: route.execution, handler: wrap(route.handler))
            if let i = groups.firstIndex(where: { $0.pattern == route.pattern }) {
                if let j = groups[i].methods.firstIndex(where: { $0.0 == route.method }) {
                    groups[i].methods[j] = (route.method, resolution)
                } else {
                    groups[i].methods.append((route.method, resolution))
                }
            } else {
                groups.append(Group(pattern: route.pattern, segments: Self.compile(route.pattern),
                                    methods: [(route.method, resolution)]))
            }
        }
        for i in groups.indices {
            var names = groups[i].methods.map { $0.0.description }
            if names.contains("GET") && !names.contains("HEAD") { names.append("HEAD") }
            if !names.contains("OPTIONS") { names.append("OPTIONS") }
            let allow = names.joined(separator: ", ")
            groups[i].allow = allow
            let optionsResponse = HTTPResponse(status: .noContent, headers: ["Allow": allow])
            groups[i].options = HTTPResolution(execution: .inline, handler: wrap { _ in optionsResponse })
            let notAllowed = HTTPError(.methodNotAllowed, code: "method_not_allowed",
                                       detail: "This resource supports: \(allow).", headers: ["Allow": allow]).response
            groups[i].methodNotAllowed = HTTPResolution(execution: .inline, handler: wrap { _ in notAllowed })
        }
        // Literal segments win over parameters at the first position where two patterns differ.
        self.groups = groups.enumerated().sorted { a, b in
            let sa = a.element.segments, sb = b.element.segments
            for (x, y) in zip(sa, sb) {
                switch (x, y) {
                case (.literal, .parameter): return true
                case (.parameter, .literal): return false
                default: continue
                }
            }
            return a.offset < b.offset
        }.map(\.element)
        routeTemplates = self.groups.map(\.pattern)
        let notFoundResponse = HTTPError(.notFound, code: "not_found", detail: "No resource at this path.").response
        notFound = HTTPResolution(execution: .inline, handler: wrap { _ in notFoundResponse })
        let star = HTTPResponse(status: .noContent, headers: ["Allow": "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS"])
        serverOptions = HTTPResolution(execution: .inline, handler: wrap { _ in star })
    }

    static func compile(_ pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(Array(part.utf8))
        }
    }

    public func resolve(_ request: inout HTTPRequest) -> HTTPResolution {
        if request.path == "*" { return serverOptions }
        var parameters: [(name: String, value: String)] = []
        // By index: iterating the array by value copies each group (retains of its arrays) per request.
        let pathSegments = Self.segmentCount(request.path)
        for index in groups.indices where groups[index].segmentCount == pathSegments {
            parameters.removeAll(keepingCapacity: true)
            guard Self.match(groups[index].segments, request.path, &parameters) else { continue }
            // Fields read in place: copying the group retained and released each of its arrays.
            request.routeTemplate = groups[index].pattern
            request.routeIndex = index
            request.pathParameters = parameters
            let method = request.method
            for j in groups[index].methods.indices where groups[index].methods[j].0 == method { return groups[index].methods[j].1 }
            if method == .HEAD {
                for j in groups[index].methods.indices where groups[index].methods[j].0 == .GET { return groups[index].methods[j].1 }
            }
            if method == .OPTIONS, let options = groups[index].options { return options }
            return groups[index].methodNotAllowed ?? notFound
        }
        return notFound
    }

    /// Non-empty segments of a path, as `compile` counts them for a pattern.
    static func segmentCount(_ path: String) -> Int {
        var path = path
        return path.withUTF8 { bytes in
            var count = 0
            var inSegment = false
            for byte in bytes {
                if byte == UInt8(ascii: "/") { inSegment = false } else if !inSegment { inSegment = true; count += 1 }
            }
            return count
        }
    }

    /// Matches a decoded path against compiled segments without splitting it into Strings.
    static func match(_ segments: [Segment], _ path: String, _ parameters: inout [(name: String, value: String)]) -> Bool {
        var path = path
        return path.withUTF8 { p -> Bool in
            guard p.first == UInt8(ascii: "/") else { return false }
            var i = 1
            if segments.isEmpty { return p.count == 1 }
            for (index, segment) in segments.enumerated() {
                var end = i
                while end < p.count, p[end] != UInt8(ascii: "/") { end += 1 }
                let part = UnsafeBufferPointer(rebasing: p[i..<end])
                switch segment {
                case .literal(let bytes):
                    guard part.count == bytes.count, part.elementsEqual(bytes) else { return false }
                case .parameter(let name):
                    guard !part.isEmpty else { return false }
                    parameters.append((name: name, value: String(decoding: part, as: UTF8.self)))
                }
                let isLast = index == segments.count - 1
                if isLast { return end == p.count }
                guard end < p.count else { return false }
                i = end + 1
            }
            return false
        }
    }
}
