import Storage

/// A PostgreSQL failure: its SQLSTATE, the server's message, the SQL, and the same `kind` the SQLite
/// layer reports, so a unique violation is a 409 and a check violation a 422 on either database.
public struct PGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`), or nil for failures with no server answer
    /// (connection refused, connection lost).
    public let sqlState: String?
    public let message: String
    public let sql: String?
    public let kind: DatabaseErrorKind

    public init(sqlState: String?, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
        kind = PGError.kind(of: sqlState)
    }

    /// SQLSTATE classes (PostgreSQL's Appendix A): 23 is integrity constraint violation.
    static func kind(of state: String?) -> DatabaseErrorKind {
        switch state {
        case "23505": .unique
        case "23503": .foreignKey
        case "23514": .check
        case "23502": .notNull
        // RAISE EXCEPTION in a trigger function (the immutable-version guards).
        case "P0001": .trigger
        case let s? where s.hasPrefix("23"): .otherConstraint
        // Lock not available, serialization failure, deadlock: the SQLite layer's "busy".
        case "55P03", "40001", "40P01": .busy
        case "22P02", "42804": .columnType
        default: .other
        }
    }

    public var isConstraintViolation: Bool { sqlState?.hasPrefix("23") == true || kind == .trigger }

    /// Whether running the same transaction again may succeed (a serialization failure or deadlock).
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    static func misuse(_ message: String) -> PGError { PGError(sqlState: nil, message: message) }

    public var description: String {
        var text = "PostgreSQL error \(sqlState ?? "(no SQLSTATE)") (\(kind.rawValue)): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }
}
