import HTTP
import XizorDomain

/// The query parameters several routes share, read from the request and described for OpenAPI
/// here, beside each other; what they mean (the page size's bounds, the environments) is the
/// domain's.
extension PageSize {
    /// The `limit` query parameter: `fallback` when absent, 400 `invalid_limit` outside 1…`max`.
    static func from(_ request: HTTPRequest) throws -> Int {
        guard let raw = request.query("limit") else { return fallback }
        guard let n = Int(raw), n >= 1, n <= max else {
            throw ServiceError(.badRequest, "invalid_limit", "'limit' is an integer from 1 to \(max).")
        }
        return n
    }

    /// The OpenAPI parameters of a paginated list.
    static let parameters: [APIParameter] = [
        .query(
            "limit", "Page size.",
            schema: ["type": "integer", "minimum": 1, "maximum": .number(max), "default": .number(fallback)]),
        .query("cursor", "`nextCursor` of the previous page."),
    ]
}

extension EnvironmentFilter {
    /// The `environment` query parameter of analytics, results and the export.
    static let parameter = APIParameter.query(
        "environment", "Which events to count: production (the default), sandbox or all.",
        schema: ["enum": ["production", "sandbox", "all"]])
}
