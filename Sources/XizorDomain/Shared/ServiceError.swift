import PaywallFormat

/// A domain failure with the stable `code` the API answers in `application/problem+json`.
/// The REST routes and the MCP tools both translate it; neither invents its own.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case badRequest  // 400
        case unauthorized  // 401
        case forbidden  // 403
        case notFound  // 404
        case conflict  // 409
        case preconditionFailed  // 412
        case contentTooLarge  // 413
        case unsupportedMediaType  // 415
        case unprocessable  // 422
        case preconditionRequired  // 428
        case tooManyRequests  // 429
        case internalError  // 500: a server bug, said as such
        case unavailable  // 503
    }

    public let kind: Kind
    public let code: String
    public let detail: String
    public let errors: [ValidationIssue]
    /// Sent as `Retry-After` (seconds): the failure is expected to pass (the database reconnecting).
    public let retryAfterSeconds: Int?
    /// More members of the problem, for a client to act on without parsing `detail` (the scope a
    /// 403 `missing_scope` lacks).
    public let members: [String: JSONValue]

    public init(
        _ kind: Kind, _ code: String, _ detail: String, errors: [ValidationIssue] = [], retryAfterSeconds: Int? = nil,
        members: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.code = code
        self.detail = detail
        self.errors = errors
        self.retryAfterSeconds = retryAfterSeconds
        self.members = members
    }

    public var description: String { "\(code): \(detail)" }

    public var status: Int {
        switch kind {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .preconditionFailed: 412
        case .contentTooLarge: 413
        case .unsupportedMediaType: 415
        case .unprocessable: 422
        case .preconditionRequired: 428
        case .tooManyRequests: 429
        case .internalError: 500
        case .unavailable: 503
        }
    }

    public static func notFound(_ what: String, _ id: String) -> ServiceError {
        ServiceError(
            .notFound, "\(what)_not_found", "No \(what.replacingOccurrences(of: "_", with: " ")) '\(id)' in this app.")
    }

    public static func invalid(_ errors: [ValidationIssue], detail: String = "The request has invalid fields.")
        -> ServiceError
    {
        ServiceError(.unprocessable, "validation_failed", detail, errors: errors)
    }

    public static func badField(_ path: String, _ code: String, _ message: String) -> ServiceError {
        invalid([ValidationIssue(path: path, message: message, code: code)], detail: message)
    }

    /// A read stopped at its time limit (`DataStore.read(timeLimit:)`). 503 with `Retry-After`, as
    /// for any capacity the server keeps for everyone; a shorter range may fit.
    public static func timeLimit(_ milliseconds: Int) -> ServiceError {
        ServiceError(
            .unavailable, "query_time_limit",
            "The query ran past its time limit of \(milliseconds) ms and was stopped; ask for a shorter range or fewer cuts, or retry later.",
            retryAfterSeconds: 5)
    }

    /// Storage failures that are not the caller's fault: the database is unwritable, full or gone.
    public static func storage(_ error: Error) -> ServiceError {
        // Clients retry a second later: a database that restarts or fails over is back by then or soon.
        ServiceError(
            .unavailable, "storage_unavailable", "The database could not complete the operation: \(error)",
            retryAfterSeconds: 1)
    }
}
