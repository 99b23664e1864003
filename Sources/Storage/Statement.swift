import CSQLite
import Foundation

/// A prepared statement that owns its `sqlite3_stmt`: finalized exactly once, in `deinit` or
/// `finalize()`. Not Sendable: it belongs to its connection, which belongs to one thread at a time.
public final class Statement {
    private(set) var handle: OpaquePointer?
    public let sql: String

    /// Prepares one SQL statement. `persistent` hints SQLite that it will be reused many times
    /// (cached statements); a string holding more than one statement is refused.
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws(SQLiteError) {
        self.sql = sql
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code: Int32 = sql.withCString { cString in
            let rc = sqlite3_prepare_v3(connection, cString, -1, flags, &statement, &tail)
            if rc == SQLITE_OK, let tail, !Statement.isBlank(tail) { return -1 }
            return rc
        }
        if code == -1 {
            sqlite3_finalize(statement)
            throw .misuse("more than one statement in a single prepare; use executeScript", sql: sql)
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw SQLiteError(code: code, connection: connection, sql: sql)
        }
        guard let statement else { throw .misuse("empty SQL statement", sql: sql) }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    /// Releases the statement now rather than when the last reference goes.
    public func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// True while a step has returned a row and the statement was not reset or run to completion.
    public var isBusy: Bool { handle.map { sqlite3_stmt_busy($0) != 0 } ?? false }

    /// True when SQLite says the statement does not write (used to check reader-only work).
    public var isReadOnly: Bool { handle.map { sqlite3_stmt_readonly($0) != 0 } ?? true }

    // MARK: Binding

    public var parameterCount: Int { handle.map { Int(sqlite3_bind_parameter_count($0)) } ?? 0 }

    private func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw .misuse("statement used after finalize", sql: sql) }
        return handle
    }

    private func check(_ code: Int32, _ stmt: OpaquePointer) throws(SQLiteError) {
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, connection: sqlite3_db_handle(stmt), sql: sql)
        }
    }

    public func bindNull(at index: Int32) throws(SQLiteError) {
        let s = try live()
        try check(sqlite3_bind_null(s, index), s)
    }

    public func bindInt64(_ value: Int64, at index: Int32) throws(SQLiteError) {
        let s = try live()
        try check(sqlite3_bind_int64(s, index, value), s)
    }

    public func bindDouble(_ value: Double, at index: Int32) throws(SQLiteError) {
        let s = try live()
        try check(sqlite3_bind_double(s, index, value), s)
    }

    public func bindText(_ value: String, at index: Int32) throws(SQLiteError) {
        let s = try live()
        var text = value
        let code = text.withUTF8 { buffer -> Int32 in
            // A non-nil pointer even for "" so the parameter is an empty string, not NULL.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(s, index, "", 0, xizor_sqlite_transient())
            }
            guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text(s, index, $0, Int32(buffer.count), xizor_sqlite_transient())
            }
        }
        try check(code, s)
    }

    public func bindBlob(_ bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        let s = try live()
        let code = bytes.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return sqlite3_bind_zeroblob(s, index, 0) }
            guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            return sqlite3_bind_blob(s, index, base, Int32(buffer.count), xizor_sqlite_transient())
        }
        try check(code, s)
    }

    public func bindBlob(_ data: Data, at index: Int32) throws(SQLiteError) {
        let s = try live()
        let code = data.withUnsafeBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return sqlite3_bind_zeroblob(s, index, 0) }
            guard buffer.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            return sqlite3_bind_blob(s, index, base, Int32(buffer.count), xizor_sqlite_transient())
        }
        try check(code, s)
    }

    /// Binds `value` to the 1-based parameter `index`.
    public func bind(_ value: any SQLBindable, at index: Int) throws(SQLiteError) {
        guard index >= 1, index <= parameterCount else {
            throw .misuse("parameter index \(index) out of range 1...\(parameterCount)", sql: sql)
        }
        try value.bind(to: self, at: Int32(index))
    }

    /// Binds `value` to the parameter named `name`; `name` may omit the `:`, `@` or `$` prefix.
    public func bind(_ value: any SQLBindable, named name: String) throws(SQLiteError) {
        let s = try live()
        var index: Int32 = 0
        let candidates = name.first.map { ":@$".contains($0) } == true ? [name] : [":" + name, "@" + name, "$" + name]
        for candidate in candidates where index == 0 {
            index = sqlite3_bind_parameter_index(s, candidate)
        }
        guard index > 0 else { throw .misuse("no parameter named \(name)", sql: sql) }
        try value.bind(to: self, at: index)
    }

    /// Binds positional values to parameters 1...n; the count must match the statement's.
    public func bind(_ values: [any SQLBindable]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw .misuse("statement takes \(parameterCount) parameters, \(values.count) given", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            try value.bind(to: self, at: Int32(offset + 1))
        }
    }

    /// Binds every named value; each name must exist in the statement.
    public func bind(named values: [String: any SQLBindable]) throws(SQLiteError) {
        for (name, value) in values { try bind(value, named: name) }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        if let handle { sqlite3_clear_bindings(handle) }
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let s = try live()
        let code = sqlite3_step(s)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // Resetting makes the statement reusable; its return value repeats the step's error.
            sqlite3_reset(s)
            throw SQLiteError(code: code, connection: sqlite3_db_handle(s), sql: sql)
        }
    }

    /// Steps until done, for statements that return no rows of interest.
    public func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() {
        if let handle { sqlite3_reset(handle) }
    }

    // MARK: Columns (valid after `step()` returned true)

    public var columnCount: Int { handle.map { Int(sqlite3_column_count($0)) } ?? 0 }

    public func columnName(_ index: Int) -> String {
        guard let handle, let name = sqlite3_column_name(handle, Int32(index)) else { return "" }
        return String(cString: name)
    }

    public var columnNames: [String] { (0..<columnCount).map(columnName) }

    public func isNull(_ index: Int) -> Bool {
        guard let handle else { return true }
        return sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// The column as an integer; SQLite's coercion applies (NULL reads 0). Use `get` for checked reads.
    public func int64(_ index: Int) -> Int64 {
        handle.map { sqlite3_column_int64($0, Int32(index)) } ?? 0
    }

    public func double(_ index: Int) -> Double {
        handle.map { sqlite3_column_double($0, Int32(index)) } ?? 0
    }

    public func string(_ index: Int) -> String {
        guard let handle, let text = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func bytes(_ index: Int) -> [UInt8] {
        guard let handle, let blob = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// The column as stored, whatever its type.
    public func value(_ index: Int) -> SQLValue {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index))
        case SQLITE_BLOB: return .blob(bytes(index))
        default: return .null
        }
    }

    /// The column converted to `T`, with a typed error when the stored type differs.
    public func get<T: SQLColumnValue>(_ index: Int, as type: T.Type = T.self) throws(SQLiteError) -> T {
        guard index >= 0, index < columnCount else {
            throw .misuse("no column \(index) in a result of \(columnCount)", sql: sql)
        }
        do {
            return try T(sqlValue: value(index))
        } catch {
            throw .columnType("column \(index) (\(columnName(index))): \(error.message)", sql: sql)
        }
    }

    /// The current row copied out.
    public func row(columns: [String]? = nil) -> Row {
        Row(columns: columns ?? columnNames, values: (0..<columnCount).map(value))
    }

    // MARK: Helpers

    /// True when only whitespace and comments remain after a prepared statement.
    static func isBlank(_ tail: UnsafePointer<CChar>) -> Bool {
        let rest = String(cString: tail)
        var remaining = Substring(rest)
        while true {
            remaining = remaining.drop(while: { $0.isWhitespace })
            if remaining.hasPrefix("--") {
                remaining = remaining.drop(while: { $0 != "\n" })
            } else if remaining.hasPrefix("/*") {
                guard let end = remaining.range(of: "*/") else { return true }
                remaining = remaining[end.upperBound...]
            } else {
                return remaining.isEmpty
            }
        }
    }
}
