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
    /// Each parameter's `hashValue`, in order, for a match a loop's memo keeps (empty otherwise):
    /// a handler that looks a bound value up in a table gets its hash without hashing it
    /// (`HTTPRequest.pathParameterHashed`), once per path rather than once per request.
    let valueHashes: [Int]

    init(
        template: String?, index: Int, parameters: PathParameters, redactedPath: String?, hashingValues: Bool = false
    ) {
        self.template = template
        self.index = index
        self.parameters = parameters
        self.redactedPath = redactedPath
        valueHashes = hashingValues ? parameters.all.map { $0.value.hashValue } : []
    }

    /// The value bound to `name` and its `hashValue`.
    func hashedValue(named name: String) -> (value: String, hashValue: Int)? {
        guard let i = parameters.index(named: name) else { return nil }
        let value = parameters.value(at: i)
        return (value, i < valueHashes.count ? valueHashes[i] : value.hashValue)
    }

    /// `body` with the bytes of the value bound to `name` (nil when none is). Not inlined: a lent
    /// match is its guaranteed `self` here, so the value is read without retaining the match.
    @inline(never)
    func withUTF8Value<R>(named name: String, _ body: (UnsafeBufferPointer<UInt8>?) throws -> R) rethrows -> R {
        try parameters.withUTF8Value(named: name, body)
    }

    /// This match with one field replaced (the request's setters; tests and the router's callers).
    func with(
        template: String?? = nil, index: Int? = nil, parameters: PathParameters? = nil, redactedPath: String?? = nil
    ) -> RouteMatch {
        RouteMatch(
            template: template ?? self.template, index: index ?? self.index,
            parameters: parameters ?? self.parameters, redactedPath: redactedPath ?? self.redactedPath,
            hashingValues: parameters == nil && !valueHashes.isEmpty)
    }

    /// No route matched: what the setters of a request without a match start from.
    static let unmatched = RouteMatch(template: nil, index: -1, parameters: PathParameters(), redactedPath: nil)
}
