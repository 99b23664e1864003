/// Method + path routing with `:name` parameters, built once into an immutable `RoutingTable`.
/// Answers 404 for unknown paths, 405 with `Allow` for known paths with other methods, `HEAD`
/// through the `GET` handler, and `OPTIONS` with `Allow` unless a route handles it.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: String
        let execution: HTTPExecution
        let admission: HTTPAdmission?
        let handler: HTTPHandler
    }

    private var routes: [Route] = []
    private var middleware: [any HTTPMiddleware] = []

    public init() {}

    /// Adds a route. `pattern` is a path like `/v1/paywalls/:id/versions/:n`. `admission` runs on
    /// the head before the body is read (see `HTTPResolution.admission`).
    public mutating func add(_ method: HTTPMethod, _ pattern: String, execution: HTTPExecution = .offloaded,
                             admission: HTTPAdmission? = nil, _ handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, pattern: pattern, execution: execution, admission: admission, handler: handler))
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
        var methods: [(HTTPMethod, HTTPResolution)]
        var allow: String = ""
        var options: HTTPResolution?
        var methodNotAllowed: HTTPResolution?
        /// The names of the `:name` segments, in order (the values a match captures).
        var parameterNames: [String] {
            segments.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } }
        }
    }

    /// One segment deep in the tree of patterns: literal children, at most one parameter child
    /// (names belong to the patterns, not the tree), and the group a pattern ending here names.
    /// Matching walks the path once, trying the literal before the parameter at each segment and
    /// backing up only when a literal branch dead-ends, so a literal wins at the first segment
    /// where two matching patterns differ; of two patterns of the same shape the first registered
    /// wins.
    private struct Node: Sendable {
        var literals: [(segment: [UInt8], child: Int)] = []
        var parameter: Int?
        var group: Int?
    }

    private let groups: [Group]
    private let nodes: [Node]
    private let parameterNames: [[String]]
    /// Every route template, in the order `HTTPRequest.routeIndex` refers to.
    public let routeTemplates: [String]
    /// Every route as registered (method and pattern), for checks that compare routes with their documentation.
    public let registeredRoutes: [(method: HTTPMethod, pattern: String)]
    private let notFound: HTTPResolution
    private let serverOptions: HTTPResolution

    init(routes: [Router.Route], middleware: [any HTTPMiddleware]) {
        @Sendable func wrap(_ handler: @escaping HTTPHandler) -> HTTPHandler {
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
            var refusal: (@Sendable (HTTPRequest, any Error) throws -> HTTPResponse)?
            if route.admission != nil {
                // The refusal passes through the same middleware as the handler would have.
                refusal = { request, error in
                    let refuse: HTTPHandler = { _ in throw error }
                    return try wrap(refuse)(request)
                }
            }
            let resolution = HTTPResolution(execution: route.execution, handler: wrap(route.handler),
                                            admission: route.admission, refusal: refusal)
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
            groups[i].options = HTTPResolution(execution: .inline, handler: wrap { _ in optionsResponse }, needsBody: false)
            let notAllowed = HTTPError(.methodNotAllowed, code: "method_not_allowed",
                                       detail: "This resource supports: \(allow).", headers: ["Allow": allow]).response
            groups[i].methodNotAllowed = HTTPResolution(execution: .inline, handler: wrap { _ in notAllowed }, needsBody: false)
        }
        // Registration order; precedence (literal before parameter) is the tree's walk order.
        self.groups = groups
        routeTemplates = self.groups.map(\.pattern)
        parameterNames = self.groups.map(\.parameterNames)
        var nodes = [Node()]
        for (index, group) in self.groups.enumerated() {
            var node = 0
            for segment in group.segments {
                switch segment {
                case .literal(let bytes):
                    if let existing = nodes[node].literals.first(where: { $0.segment == bytes }) {
                        node = existing.child
                    } else {
                        nodes.append(Node())
                        nodes[node].literals.append((segment: bytes, child: nodes.count - 1))
                        node = nodes.count - 1
                    }
                case .parameter:
                    if let existing = nodes[node].parameter {
                        node = existing
                    } else {
                        nodes.append(Node())
                        nodes[node].parameter = nodes.count - 1
                        node = nodes.count - 1
                    }
                }
            }
            if nodes[node].group == nil { nodes[node].group = index }
        }
        self.nodes = nodes
        let notFoundResponse = HTTPError(.notFound, code: "not_found", detail: "No resource at this path.").response
        notFound = HTTPResolution(execution: .inline, handler: wrap { _ in notFoundResponse }, needsBody: false)
        let star = HTTPResponse(status: .noContent, headers: ["Allow": "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS"])
        serverOptions = HTTPResolution(execution: .inline, handler: wrap { _ in star }, needsBody: false)
    }

    /// A path parameter's value: the segment with the `%2F` and `%25` the target decoder kept
    /// encoded (see `RequestTarget`) decoded at last, so `/placements/a%2Fb` binds `a/b`.
    static func decodedSegment(_ segment: UnsafeBufferPointer<UInt8>) -> String {
        guard segment.contains(UInt8(ascii: "%")) else { return String(decoding: segment, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(segment.count)
        var i = 0
        while i < segment.count {
            if segment[i] == UInt8(ascii: "%"), i + 2 < segment.count, segment[i + 1] == UInt8(ascii: "2") {
                if segment[i + 2] == UInt8(ascii: "F") { out.append(UInt8(ascii: "/")); i += 3; continue }
                if segment[i + 2] == UInt8(ascii: "5") { out.append(UInt8(ascii: "%")); i += 3; continue }
            }
            out.append(segment[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func compile(_ pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(Array(part.utf8))
        }
    }

    public func resolve(_ request: inout HTTPRequest) -> HTTPResolution {
        if request.path == "*" { return serverOptions }
        var values: [String] = []
        guard let index = find(request.path, &values) else { return notFound }
        // Fields read in place: copying the group retained and released each of its arrays.
        request.routeTemplate = groups[index].pattern
        request.routeIndex = index
        if !values.isEmpty {
            request.pathParameters = zip(parameterNames[index], values).map { (name: $0, value: $1) }
        }
        let method = request.method
        for j in groups[index].methods.indices where groups[index].methods[j].0 == method { return groups[index].methods[j].1 }
        if method == .HEAD {
            for j in groups[index].methods.indices where groups[index].methods[j].0 == .GET { return groups[index].methods[j].1 }
        }
        if method == .OPTIONS, let options = groups[index].options { return options }
        return groups[index].methodNotAllowed ?? notFound
    }

    /// The group whose pattern matches a decoded path, with the values of its parameters. Every
    /// segment must be non-empty (`//` and a trailing `/` match nothing but the root).
    func find(_ path: String, _ values: inout [String]) -> Int? {
        var path = path
        return path.withUTF8 { p -> Int? in
            guard p.first == UInt8(ascii: "/") else { return nil }
            if p.count == 1 { return nodes[0].group }
            return walk(0, p, 1, &values)
        }
    }

    private func walk(_ node: Int, _ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ values: inout [String]) -> Int? {
        var end = start
        while end < p.count, p[end] != UInt8(ascii: "/") { end += 1 }
        guard end > start else { return nil }
        let isLast = end == p.count
        let segment = UnsafeBufferPointer(rebasing: p[start..<end])
        for literal in nodes[node].literals where literal.segment.count == segment.count {
            guard literal.segment.withUnsafeBufferPointer({ ByteClass.equal($0, segment) }) else { continue }
            if isLast {
                if let group = nodes[literal.child].group { return group }
            } else if let group = walk(literal.child, p, end + 1, &values) {
                return group
            }
            break
        }
        if let child = nodes[node].parameter {
            values.append(Self.decodedSegment(segment))
            if isLast {
                if let group = nodes[child].group { return group }
            } else if let group = walk(child, p, end + 1, &values) {
                return group
            }
            values.removeLast()
        }
        return nil
    }
}
