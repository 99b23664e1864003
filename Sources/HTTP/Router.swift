/// Method + path routing with `:name` parameters, built once into an immutable `RoutingTable`.
/// Answers 404 for unknown paths, 405 with `Allow` for known paths with other methods, `HEAD`
/// through the `GET` handler, and `OPTIONS` with `Allow` unless a route handles it.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: String
        let execution: HTTPExecution
        let admission: HTTPAdmission?
        let redacting: Set<String>
        let handler: HTTPHandler
    }

    private var routes: [Route] = []
    private var middleware: [any HTTPMiddleware] = []

    public init() {}

    /// Adds a route. `pattern` is a path like `/v1/paywalls/:id/versions/:n`. `admission` runs on
    /// the head before the body is read (see `HTTPResolution.admission`). `redacting` names `:name`
    /// parameters whose values are credentials (a signed link's token): the access log and error
    /// logs write `…` in their place (`HTTPRequest.loggedPath`). It holds for the path, whichever
    /// method asks, since the value is in the URL before the method is known to be allowed.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, execution: HTTPExecution = .offloaded,
        admission: HTTPAdmission? = nil, redacting: Set<String> = [], _ handler: @escaping HTTPHandler
    ) {
        routes.append(
            Route(
                method: method, pattern: pattern, execution: execution, admission: admission, redacting: redacting,
                handler: handler))
    }

    public mutating func get(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler)
    {
        add(.GET, pattern, execution: execution, handler)
    }
    public mutating func post(
        _ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler
    ) {
        add(.POST, pattern, execution: execution, handler)
    }
    public mutating func put(_ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler)
    {
        add(.PUT, pattern, execution: execution, handler)
    }
    public mutating func delete(
        _ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler
    ) {
        add(.DELETE, pattern, execution: execution, handler)
    }
    public mutating func patch(
        _ pattern: String, execution: HTTPExecution = .offloaded, _ handler: @escaping HTTPHandler
    ) {
        add(.PATCH, pattern, execution: execution, handler)
    }

    /// Adds middleware around every route (including the generated 404/405/OPTIONS answers).
    public mutating func use(_ m: any HTTPMiddleware) { middleware.append(m) }

    /// Freezes the routes into the responder the server runs.
    public func build() -> RoutingTable { RoutingTable(routes: routes, middleware: middleware) }
}
