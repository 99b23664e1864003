import CSQLite

/// What went wrong in a database, whichever it is: SQLite's result codes and PostgreSQL's SQLSTATEs
/// map to the same kinds, so the API answers a unique violation with the same status on both.
public typealias DatabaseErrorKind = SQLiteError.Kind

/// Every failure of the storage layer, carrying what is needed to answer a client (the `kind`, so
/// a unique violation becomes 409 and a check violation 422) and to debug it (code, message, SQL).
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, coarse enough for an API to map to a status code.
    public enum Kind: String, Sendable, Equatable {
        /// A UNIQUE index or PRIMARY KEY already holds the value (HTTP 409).
        case unique
        /// A FOREIGN KEY names a row that does not exist, or a row still referenced was removed.
        case foreignKey
        /// A CHECK constraint rejected the row (HTTP 422).
        case check
        /// A NOT NULL column got NULL (HTTP 422).
        case notNull
        /// A trigger aborted the statement, e.g. an attempt to change an immutable version.
        case trigger
        /// Any other constraint (datatype of a STRICT table, rowid, ...).
        case otherConstraint
        /// The database stayed locked beyond the busy timeout and every retry.
        case busy
        /// A value read from a column did not have the requested type.
        case columnType
        /// The API was used wrongly (a bad parameter name, a statement on a closed connection...).
        case misuse
        /// Anything else: I/O errors, corruption, a read-only database, SQL syntax errors.
        case other
    }

    /// SQLite's extended result code (e.g. 2067 for SQLITE_CONSTRAINT_UNIQUE).
    public let code: Int32
    /// SQLite's own message (`sqlite3_errmsg`) or ours for errors raised by this layer.
    public let message: String
    /// The SQL that failed, when there was one.
    public let sql: String?
    public let kind: Kind

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.kind = SQLiteError.kind(of: code)
    }

    init(code: Int32, message: String, sql: String?, kind: Kind) {
        self.code = code
        self.message = message
        self.sql = sql
        self.kind = kind
    }

    /// Builds the error from a connection's state after `code` was returned.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let text =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? sqlite3_errstr(code).map { String(cString: $0) } ?? "SQLite error \(code)"
        self.init(code: code, message: text, sql: sql)
    }

    /// The primary result code (the low byte of the extended code).
    public var primaryCode: Int32 { code & 0xFF }

    /// True for the kinds an API answers with 409 Conflict.
    public var isConflict: Bool { kind == .unique }

    /// True for any constraint violation (unique, foreign key, check, not null, trigger, other).
    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }

    public var description: String {
        var text = "SQLite error \(code) (\(kind.rawValue)): \(message)"
        if let sql { text += " — in: \(sql)" }
        return text
    }

    static func kind(of code: Int32) -> Kind {
        switch code {
        case 2067, 1555, 2579: return .unique  // UNIQUE, PRIMARYKEY, ROWID
        case 787: return .foreignKey  // FOREIGNKEY
        case 275: return .check  // CHECK
        case 1299: return .notNull  // NOTNULL
        case 1811: return .trigger  // TRIGGER (RAISE(ABORT, ...))
        default: break
        }
        switch code & 0xFF {
        case SQLITE_CONSTRAINT: return .otherConstraint
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_MISUSE, SQLITE_RANGE: return .misuse
        case SQLITE_MISMATCH: return .columnType
        default: return .other
        }
    }

    static func misuse(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISUSE, message: message, sql: sql, kind: .misuse)
    }

    static func columnType(_ message: String, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: SQLITE_MISMATCH, message: message, sql: sql, kind: .columnType)
    }
}
