import Storage

/// The stores written once (`SQL`) run on PostgreSQL with `$n` placeholders.
extension PGConnection: SQLConnection {
    public var dialect: SQLDialect { .postgres }
    public func rows(_ sql: SQL) throws -> [Row] { try query(sql.text(for: .postgres), sql.bindings) }
    public func row(_ sql: SQL) throws -> Row? { try queryOne(sql.text(for: .postgres), sql.bindings) }
    public func run(_ sql: SQL) throws { try execute(sql.text(for: .postgres), sql.bindings) }
    public static func isStoppedAtTimeLimit(_ error: any Error) -> Bool { (error as? PGError)?.isQueryCanceled == true }
    public static func constraintViolation(_ error: any Error) -> String? {
        guard let error = error as? PGError, error.isConstraintViolation else { return nil }
        return error.message
    }
}

extension PGConnection {
    /// Runs `body` with `statement_timeout` set for the rest of the current transaction (`SET
    /// LOCAL`: it ends with the transaction, so a pooled connection never keeps it): a statement
    /// past `milliseconds` is cancelled by the server and fails with SQLSTATE 57014
    /// (`PGError.isQueryCanceled`). Only inside a transaction (`PGPool.read` or `write`).
    public func withTimeLimit<T>(milliseconds: Int, _ body: () throws -> T) throws -> T {
        precondition(milliseconds > 0, "a time limit is positive")
        try executeScript("SET LOCAL statement_timeout = \(milliseconds)")
        return try body()
    }
}

extension PGError {
    /// A statement the server cancelled (`statement_timeout`, `pg_cancel_backend`).
    public var isQueryCanceled: Bool { sqlState == "57014" }
}
