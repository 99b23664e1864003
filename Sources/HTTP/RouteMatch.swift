/// What matching a route bound on a request: the route's template and position, its parameters
/// and the path as logs write it. Immutable and shared: a request holds it by one reference, and a
/// loop's `RouteMemo` hands the same match to every request for that path (setting it on a request
/// is one retain, where its four fields were four copies and four destroys, ~250 instructions).
final class RouteMatch: Sendable {
    let template: String?
    let index: Int
    let parameters: PathParameters
    /// The path with the redacted parameters' values replaced (`Router.add(redacting:)`); nil
    /// when the route redacts none.
    let redactedPath: String?

    init(template: String?, index: Int, parameters: PathParameters, redactedPath: String?) {
        self.template = template
        self.index = index
        self.parameters = parameters
        self.redactedPath = redactedPath
    }

    /// This match with one field replaced (the request's setters; tests and the router's callers).
    func with(
        template: String?? = nil, index: Int? = nil, parameters: PathParameters? = nil, redactedPath: String?? = nil
    ) -> RouteMatch {
        RouteMatch(
            template: template ?? self.template, index: index ?? self.index,
            parameters: parameters ?? self.parameters, redactedPath: redactedPath ?? self.redactedPath)
    }

    static let none = RouteMatch(template: nil, index: -1, parameters: PathParameters(), redactedPath: nil)
}
