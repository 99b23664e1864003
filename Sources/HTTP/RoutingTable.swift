#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        /// Parameter names whose values logs leave out (the union over the pattern's routes).
        var redacting: Set<String> = []
        /// Their positions among the pattern's parameters, in order.
        var redactedIndices: [Int] = []
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

    /// The tree flattened for matching: a node's literal children are a run of `literals`, each
    /// naming its bytes in `literalBytes`. Walking it touches plain integers and bytes, no array
    /// per literal (iterating the nested arrays retained and released one per literal compared).
    private struct FlatNode: Sendable {
        var firstLiteral: Int32
        var literalCount: Int32
        var parameter: Int32  // -1: none
        var group: Int32  // -1: none
    }
    private struct FlatLiteral: Sendable {
        var start: Int32
        var count: Int32
        var child: Int32
    }

    /// Where the `:name` segments of a match lie in the path (at most `capacity` of them): kept
    /// inline, so matching allocates nothing; the values become Strings once the route is known.
    struct ParameterRanges {
        static let capacity = 8
        private var starts = InlineArray<8, Int32>(repeating: 0)
        private var ends = InlineArray<8, Int32>(repeating: 0)
        private(set) var count = 0

        mutating func append(_ start: Int, _ end: Int) -> Bool {
            guard count < Self.capacity else { return false }
            starts[count] = Int32(start)
            ends[count] = Int32(end)
            count += 1
            return true
        }

        mutating func removeLast() {
            precondition(count > 0, "no parameter range to remove")
            count -= 1
        }

        func range(_ i: Int) -> Range<Int> {
            precondition(i >= 0 && i < count, "parameter range \(i) of \(count)")
            return Int(starts[i])..<Int(ends[i])
        }
    }

    private let groups: [Group]
    private let nodes: [FlatNode]
    private let literals: [FlatLiteral]
    private let literalBytes: [UInt8]
    private let parameterNames: [[String]]
    /// Every route template, in the order `HTTPRequest.routeIndex` refers to.
    public let routeTemplates: [String]
    /// Every route as registered (method and pattern), for checks that compare routes with their documentation.
    public let registeredRoutes: [(method: HTTPMethod, pattern: String)]
    private let notFound: HTTPResolution
    private let trailingSlash: HTTPResolution
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
            let resolution = HTTPResolution(
                execution: route.execution, handler: wrap(route.handler),
                admission: route.admission, refusal: refusal)
            if let i = groups.firstIndex(where: { $0.pattern == route.pattern }) {
                groups[i].redacting.formUnion(route.redacting)
                if let j = groups[i].methods.firstIndex(where: { $0.0 == route.method }) {
                    groups[i].methods[j] = (route.method, resolution)
                } else {
                    groups[i].methods.append((route.method, resolution))
                }
            } else {
                groups.append(
                    Group(
                        pattern: route.pattern, segments: Self.compile(route.pattern),
                        methods: [(route.method, resolution)], redacting: route.redacting))
            }
        }
        for i in groups.indices {
            groups[i].redactedIndices = groups[i].parameterNames.indices.filter {
                groups[i].redacting.contains(groups[i].parameterNames[$0])
            }
            var names = groups[i].methods.map { $0.0.description }
            if names.contains("GET") && !names.contains("HEAD") { names.append("HEAD") }
            if !names.contains("OPTIONS") { names.append("OPTIONS") }
            let allow = names.joined(separator: ", ")
            groups[i].allow = allow
            let optionsResponse = HTTPResponse(status: .noContent, headers: ["Allow": allow])
            groups[i].options = HTTPResolution(
                execution: .inline, handler: wrap { _ in optionsResponse }, needsBody: false)
            let notAllowed = HTTPError(
                .methodNotAllowed, code: "method_not_allowed",
                detail: "This resource supports: \(allow).", headers: ["Allow": allow]
            ).response
            groups[i].methodNotAllowed = HTTPResolution(
                execution: .inline, handler: wrap { _ in notAllowed }, needsBody: false)
        }
        // Registration order; precedence (literal before parameter) is the tree's walk order.
        self.groups = groups
        routeTemplates = self.groups.map(\.pattern)
        parameterNames = self.groups.map(\.parameterNames)
        for (group, names) in zip(self.groups, parameterNames) {
            precondition(
                names.count <= ParameterRanges.capacity,
                "\(group.pattern) has more than \(ParameterRanges.capacity) parameters")
        }
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
        var flat: [FlatNode] = []
        var literals: [FlatLiteral] = []
        var literalBytes: [UInt8] = []
        for node in nodes {
            flat.append(
                FlatNode(
                    firstLiteral: Int32(literals.count), literalCount: Int32(node.literals.count),
                    parameter: Int32(node.parameter ?? -1), group: Int32(node.group ?? -1)))
            for literal in node.literals {
                literals.append(
                    FlatLiteral(
                        start: Int32(literalBytes.count), count: Int32(literal.segment.count),
                        child: Int32(literal.child)))
                literalBytes.append(contentsOf: literal.segment)
            }
        }
        self.nodes = flat
        self.literals = literals
        self.literalBytes = literalBytes
        let notFoundResponse = HTTPError(.notFound, code: "not_found", detail: "No resource at this path.").response
        notFound = HTTPResolution(execution: .inline, handler: wrap { _ in notFoundResponse }, needsBody: false)
        trailingSlash = HTTPResolution(
            execution: .inline,
            handler: wrap { request in RoutingTable.trailingSlashRedirect(request, otherwise: notFoundResponse) },
            needsBody: false)
        let star = HTTPResponse(status: .noContent, headers: ["Allow": "GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS"])
        serverOptions = HTTPResolution(execution: .inline, handler: wrap { _ in star }, needsBody: false)
    }

    public func resolve(_ request: inout HTTPRequest) -> HTTPResolution {
        resolve(&request, memo: nil)
    }

    /// `resolve(_:)`, answered from `memo` when it has routed this method and path before, and
    /// recorded there when the path matched a route (`RouteMemo`: one loop's, used on its thread).
    public func resolve(_ request: inout HTTPRequest, memo: RouteMemo?) -> HTTPResolution {
        // The memo through optional chaining, not bound by `guard let`: a binding copied the
        // reference, a retain and a release per request.
        guard let code = RouteMemo.code(request.method),
            let probe = request.withPathBytes({ memo?.probe($0, method: code) })
        else { return route(&request, memo: nil) }
        if probe.found, let resolution = memo?.answer(probe, to: &request) { return resolution }
        return route(&request, memo: memo.map { ($0, code, probe) })
    }

    /// Walks the tree for `request`'s path and sets what the match binds; with `memo`, a match is
    /// kept in the probed slot.
    private func route(
        _ request: inout HTTPRequest, memo: (memo: RouteMemo, method: UInt8, probe: RouteMemo.Probe)?
    ) -> HTTPResolution {
        // Filled in place: returned in an optional tuple, they were copied by generic witnesses.
        var matched: Int?
        var parameters = PathParameters()
        var redacted: String?
        request.withPathBytes { p in
            var ranges = ParameterRanges()
            guard let index = find(p, &ranges) else { return }
            matched = index
            guard ranges.count > 0 else { return }
            for i in 0..<ranges.count {
                parameters.append(
                    (
                        name: parameterNames[index][i],
                        value: Self.decodedSegment(UnsafeBufferPointer(rebasing: p[ranges.range(i)]))
                    ))
            }
            let hidden = groups[index].redactedIndices
            if !hidden.isEmpty { redacted = Self.redacted(p, hidden.map { ranges.range($0) }) }
        }
        guard let index = matched else {
            if request.path == "*" { return serverOptions }
            return redirectsTrailingSlash(request) ? trailingSlash : notFound
        }
        // A match the memo keeps is handed to every request of its path: its values are hashed once.
        let match = RouteMatch(
            template: groups[index].pattern, index: index, parameters: parameters, redactedPath: redacted,
            hashingValues: memo != nil)
        request.routeMatch = match
        let resolution = resolution(of: index, for: request.method)
        if let memo {
            request.withPathBytes { p in
                memo.memo.store(match, resolution, for: p, method: memo.method, probe: memo.probe)
            }
        }
        return resolution
    }

    /// The resolution of the matched group `index` for `method`: its route for the method (a
    /// HEAD falls back to the GET), OPTIONS answered, otherwise 405.
    private func resolution(of index: Int, for method: HTTPMethod) -> HTTPResolution {
        for j in groups[index].methods.indices where groups[index].methods[j].0 == method {
            return groups[index].methods[j].1
        }
        if method == .HEAD {
            for j in groups[index].methods.indices where groups[index].methods[j].0 == .GET {
                return groups[index].methods[j].1
            }
        }
        if method == .OPTIONS, let options = groups[index].options { return options }
        return groups[index].methodNotAllowed ?? notFound
    }

    /// Whether `request` is a GET or HEAD for a path that matches nothing only because it ends in
    /// `/` (`/console/`, typed or pasted): it is sent to the path without the slash, which has a GET
    /// route (308, query kept). Other methods still get 404 (a client would resend a body). Only an
    /// origin-form target qualifies, the slashless path matched a route (so its segments are
    /// non-empty) and a path with a backslash is never redirected: browsers read `/\host` as
    /// `//host`, so the Location can never name another host.
    private func redirectsTrailingSlash(_ request: HTTPRequest) -> Bool {
        guard request.method == .GET || request.method == .HEAD, Self.slashless(request.target) != nil else {
            return false
        }
        let path = request.path.utf8
        guard path.count > 1, path.last == UInt8(ascii: "/") else { return false }
        var ranges = ParameterRanges()
        guard let index = Array(path.dropLast()).withUnsafeBufferPointer({ find($0, &ranges) }) else { return false }
        return groups[index].methods.contains { $0.0 == .GET }
    }

    /// An origin-form target whose path ends in `/` after a first segment, as it should be
    /// redirected: the path without that `/`, then the query as received.
    static func slashless(_ target: String) -> String? {
        let pathEnd = target.firstIndex(of: "?") ?? target.endIndex
        let path = target[..<pathEnd]
        guard path.hasPrefix("/"), path.count > 1, path.hasSuffix("/"), !path.contains("\\") else { return nil }
        return String(path.dropLast()) + target[pathEnd...]
    }

    /// The redirect `redirectsTrailingSlash` chose.
    static func trailingSlashRedirect(_ request: HTTPRequest, otherwise: HTTPResponse) -> HTTPResponse {
        guard let location = slashless(request.target) else { return otherwise }
        return HTTPResponse(status: .permanentRedirect, headers: ["Location": location, "Cache-Control": "no-cache"])
    }

    /// The group whose pattern matches a decoded path, and where its parameters lie. Every segment
    /// must be non-empty (`//` and a trailing `/` match nothing but the root).
    private func find(_ p: UnsafeBufferPointer<UInt8>, _ ranges: inout ParameterRanges) -> Int? {
        guard p.first == UInt8(ascii: "/") else { return nil }
        return nodes.withUnsafeBufferPointer { nodes in
            literals.withUnsafeBufferPointer { literals in
                literalBytes.withUnsafeBufferPointer { bytes in
                    let tree = Tree(nodes: nodes, literals: literals, bytes: bytes)
                    if p.count == 1 { return tree.group(0) }
                    return tree.walk(0, p, 1, &ranges)
                }
            }
        }
    }

    /// The flattened tree opened for one match.
    private struct Tree {
        let nodes: UnsafeBufferPointer<FlatNode>
        let literals: UnsafeBufferPointer<FlatLiteral>
        let bytes: UnsafeBufferPointer<UInt8>

        func group(_ node: Int) -> Int? {
            let g = nodes[node].group
            return g < 0 ? nil : Int(g)
        }

        func walk(_ node: Int, _ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ ranges: inout ParameterRanges) -> Int? {
            // The segment's end and each same-length literal by memchr and memcmp: bounds-checked
            // byte loops were most of a route's match.
            guard let base = p.baseAddress, start < p.count else { return nil }
            let end =
                memchr(base + start, Int32(UInt8(ascii: "/")), p.count - start).map {
                    UnsafePointer(base).distance(to: $0.assumingMemoryBound(to: UInt8.self))
                } ?? p.count
            guard end > start else { return nil }
            let isLast = end == p.count
            let count = end - start
            let first = Int(nodes[node].firstLiteral)
            for l in first..<(first + Int(nodes[node].literalCount)) where Int(literals[l].count) == count {
                guard let literalBase = bytes.baseAddress,
                    memcmp(literalBase + Int(literals[l].start), base + start, count) == 0
                else { continue }
                let child = Int(literals[l].child)
                if isLast {
                    if let group = group(child) { return group }
                } else if let group = walk(child, p, end + 1, &ranges) {
                    return group
                }
                break
            }
            let child = Int(nodes[node].parameter)
            if child >= 0, ranges.append(start, end) {
                if isLast {
                    if let group = group(child) { return group }
                } else if let group = walk(child, p, end + 1, &ranges) {
                    return group
                }
                ranges.removeLast()
            }
            return nil
        }
    }
}
