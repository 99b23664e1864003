import Foundation

/// One SQLite value as stored: the five storage classes. Rows returned by `query` hold these, so
/// they can leave the connection's thread (they are plain values, not views into SQLite memory).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var isNull: Bool { if case .null = self { return true } else { return false } }
}

/// A Swift value that can be bound to a statement parameter. Conformers decide their SQLite type
/// once here, so no caller formats values into SQL strings.
public protocol SQLBindable {
    func bind(to statement: Statement, at index: Int32) throws(SQLiteError)
    /// The value as one of the five storage classes (what the PostgreSQL layer sends as text).
    var sqlValue: SQLValue { get }
}

/// A Swift value that can be read from a result column, with a typed error when the stored value
/// has another type (rather than SQLite's silent coercion to 0 or "").
public protocol SQLColumnValue {
    init(sqlValue: SQLValue) throws(SQLiteError)
}

extension SQLValue: SQLBindable, SQLColumnValue {
    public init(sqlValue: SQLValue) { self = sqlValue }
    public var sqlValue: SQLValue { self }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        switch self {
        case .null: try statement.bindNull(at: index)
        case .integer(let v): try statement.bindInt64(v, at: index)
        case .real(let v): try statement.bindDouble(v, at: index)
        case .text(let v): try statement.bindText(v, at: index)
        case .blob(let v): try statement.bindBlob(v, at: index)
        }
    }
}

extension Int64: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .integer(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindInt64(self, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .integer(let v) = sqlValue else { throw .columnType("expected an integer, found \(sqlValue)") }
        self = v
    }
}

extension Int: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindInt64(Int64(self), at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .integer(let v) = sqlValue, let i = Int(exactly: v) else {
            throw .columnType("expected an integer, found \(sqlValue)")
        }
        self = i
    }
}

extension Double: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .real(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindDouble(self, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        switch sqlValue {
        case .real(let v): self = v
        case .integer(let v): self = Double(v)
        default: throw .columnType("expected a real number, found \(sqlValue)")
        }
    }
}

extension String: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .text(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindText(self, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .text(let v) = sqlValue else { throw .columnType("expected text, found \(sqlValue)") }
        self = v
    }
}

extension Array: SQLBindable, SQLColumnValue where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindBlob(self, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .blob(let v) = sqlValue else { throw .columnType("expected a blob, found \(sqlValue)") }
        self = v
    }
}

extension Data: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .blob(Array(self)) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindBlob(self, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .blob(let v) = sqlValue else { throw .columnType("expected a blob, found \(sqlValue)") }
        self = Data(v)
    }
}

extension Bool: SQLBindable, SQLColumnValue {
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindInt64(self ? 1 : 0, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .integer(let v) = sqlValue else { throw .columnType("expected a boolean (0/1), found \(sqlValue)") }
        self = v != 0
    }
}

/// Dates are stored as integer milliseconds since 1970 (the schema's single time format).
extension Date: SQLBindable, SQLColumnValue {
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    public init(millisecondsSince1970 ms: Int64) { self.init(timeIntervalSince1970: Double(ms) / 1000) }
    public var sqlValue: SQLValue { .integer(millisecondsSince1970) }

    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        try statement.bindInt64(millisecondsSince1970, at: index)
    }
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        guard case .integer(let ms) = sqlValue else {
            throw .columnType("expected a time in integer milliseconds, found \(sqlValue)")
        }
        self.init(millisecondsSince1970: ms)
    }
}

/// `nil` binds NULL; a NULL column reads as `nil`.
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
    public func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        switch self {
        case .none: try statement.bindNull(at: index)
        case .some(let v): try v.bind(to: statement, at: index)
        }
    }
}

extension Optional: SQLColumnValue where Wrapped: SQLColumnValue {
    public init(sqlValue: SQLValue) throws(SQLiteError) {
        if case .null = sqlValue { self = .none } else { self = .some(try Wrapped(sqlValue: sqlValue)) }
    }
}
