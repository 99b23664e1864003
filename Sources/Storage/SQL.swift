/// A statement written once for both databases (as postgres-nio's `PostgresQuery` or GRDB's SQL
/// literals): literal SQL with each parameter interpolated where it is used, so the text and its
/// bindings cannot drift apart. Each driver renders its own placeholders (`?` for SQLite, `$n` for
/// PostgreSQL); a value is never spliced into the text.
///
///     let row = try db.row("SELECT name FROM apps WHERE id = \(appID) AND archived_at IS NULL")
///
/// `\(raw:)` splices SQL text the code itself owns (a column list, a dialect's clause), never input.
public struct SQL: Sendable, Hashable, ExpressibleByStringInterpolation {
    fileprivate enum Piece: Sendable, Hashable {
        case text(String)
        case parameter
    }

    private var pieces: [Piece]
    /// The parameters in the order their placeholders appear.
    public private(set) var bindings: [SQLValue]

    public init(stringLiteral value: String) {
        pieces = [.text(value)]
        bindings = []
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
        bindings = stringInterpolation.bindings
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []
        fileprivate var bindings: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
            bindings.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
        }

        /// A parameter: a placeholder in the text, the value in `bindings`.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            pieces.append(.parameter)
            bindings.append(value.sqlValue)
        }

        /// A parameter that may be NULL.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            pieces.append(.parameter)
            bindings.append(value?.sqlValue ?? .null)
        }

        /// SQL text the code owns (a column list, a clause one dialect needs), never a value.
        public mutating func appendInterpolation(raw text: String) {
            pieces.append(.text(text))
        }

        /// Another statement's text and parameters, in place.
        public mutating func appendInterpolation(_ fragment: SQL) {
            pieces += fragment.pieces
            bindings += fragment.bindings
        }
    }

    /// `a, b, c` as parameters, for `IN (…)`: one placeholder per value (never empty: `IN ()` is no SQL).
    public static func list(_ values: [some SQLBindable]) -> SQL {
        precondition(!values.isEmpty, "an SQL list needs a value")
        var out = SQL(stringLiteral: "")
        for (index, value) in values.enumerated() {
            out += index == 0 ? "\(value)" : ", \(value)"
        }
        return out
    }

    /// `rhs` after `lhs`, with both's parameters: a statement assembled from the clauses that apply.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var sum = lhs
        sum += rhs
        return sum
    }

    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs.pieces += rhs.pieces
        lhs.bindings += rhs.bindings
    }

    /// The text with this dialect's placeholders.
    public func text(for dialect: SQLDialect) -> String {
        var out = ""
        var number = 0
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .parameter:
                number += 1
                switch dialect {
                case .sqlite: out += "?"
                case .postgres: out += "$\(number)"
                }
            }
        }
        precondition(number == bindings.count, "an SQL value's placeholders and bindings disagree")
        return out
    }
}

/// What differs between the two databases in a statement written once: placeholders (`SQL`) and
/// the few clauses one of them lacks.
public enum SQLDialect: String, Sendable {
    case sqlite, postgres

    /// Locks the rows a read returns until the transaction ends, for a read-modify-write of a row
    /// that other writers change too. PostgreSQL's `FOR NO KEY UPDATE` (the key is never changed, so
    /// inserts referencing the row need not wait); nothing on SQLite, whose one writer already
    /// serializes writes.
    public var lockRowsForUpdate: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR NO KEY UPDATE"
        }
    }
}

/// A connection of either database inside a transaction, as the stores use it: one store type per
/// aggregate runs on both (`SQLiteDataStore` and `PostgresDataStore` hand it theirs).
public protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Every row of the statement.
    func rows(_ sql: SQL) throws -> [Row]
    /// The first row of the statement, if any.
    func row(_ sql: SQL) throws -> Row?
    /// Runs the statement; `changes` is then how many rows it changed.
    func run(_ sql: SQL) throws
    /// Rows the last statement changed.
    var changes: Int { get }
    /// Runs `body` with each of its statements stopped once `milliseconds` have passed
    /// (`isStoppedAtTimeLimit` then says so of the error).
    func withTimeLimit<T>(milliseconds: Int, _ body: () throws -> T) throws -> T
    /// Whether `error` is a statement stopped by `withTimeLimit`.
    static func isStoppedAtTimeLimit(_ error: any Error) -> Bool
    /// The message of a statement the schema refused (a constraint it broke), if that is what
    /// `error` is; nil for any other failure.
    static func constraintViolation(_ error: any Error) -> String?
}

extension Database: SQLConnection {
    public var dialect: SQLDialect { .sqlite }
    public func rows(_ sql: SQL) throws -> [Row] { try query(sql.text(for: .sqlite), sql.bindings) }
    public func row(_ sql: SQL) throws -> Row? { try queryOne(sql.text(for: .sqlite), sql.bindings) }
    public func run(_ sql: SQL) throws { try execute(sql.text(for: .sqlite), sql.bindings) }
    public static func isStoppedAtTimeLimit(_ error: any Error) -> Bool {
        (error as? SQLiteError)?.isInterrupted == true
    }
    public static func constraintViolation(_ error: any Error) -> String? {
        guard let error = error as? SQLiteError, error.isConstraintViolation else { return nil }
        return error.message
    }
}
