import CSQLite
import Foundation

/// One SQLite connection with the project's settings applied (WAL, synchronous, foreign keys, busy
/// timeout; for a writer, its page cache and checkpoint interval) and a cache of prepared statements. Not Sendable: a connection is used by one thread
/// at a time; `DatabasePool` is what crosses threads.
public final class Database {
    public enum OpenMode: Sendable {
        /// Read and write; the file is created when missing. Switches the file to WAL.
        case readWriteCreate
        /// Read only; the file must exist (and already be in WAL mode to read beside a writer).
        case readOnly
    }

    public let path: String
    public let mode: OpenMode
    private(set) var handle: OpaquePointer?
    private var cache: [String: Statement] = [:]
    private var savepointDepth = 0

    public init(
        path: String, mode: OpenMode = .readWriteCreate,
        configuration: DatabaseConfiguration = DatabaseConfiguration()
    ) throws(SQLiteError) {
        self.path = path
        self.mode = mode
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = SQLiteError(code: code, connection: connection, sql: nil)
            sqlite3_close_v2(connection)
            throw SQLiteError(code: error.code, message: "cannot open \(path): \(error.message)")
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        do throws(SQLiteError) {
            try check(sqlite3_busy_timeout(connection, Int32(clamping: configuration.busyTimeoutMs)), sql: nil)
            // greatest(…)/least(…) as PostgreSQL has them, so a statement is written once for both.
            try check(xizor_sqlite_register_functions(connection), sql: nil)
            if mode == .readWriteCreate {
                let journal: String? = try queryOne("PRAGMA journal_mode=WAL")?.get(0)
                guard journal?.lowercased() == "wal" else {
                    throw SQLiteError(
                        code: SQLITE_ERROR, message: "cannot switch \(path) to WAL (got \(journal ?? "nil"))")
                }
                try execute("PRAGMA synchronous=\(configuration.synchronous.rawValue.uppercased())")
                // Negative: a size in KiB rather than in pages (SQLite's convention).
                try execute("PRAGMA cache_size=-\(configuration.writerCacheBytes / 1024)")
                try execute("PRAGMA wal_autocheckpoint=\(configuration.walAutocheckpointPages)")
            }
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Finalizes cached statements and closes the connection; later use throws `misuse`.
    public func close() {
        cache.removeAll()
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw .misuse("connection to \(path) is closed") }
        return handle
    }

    func check(_ code: Int32, sql: String?) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle, sql: sql) }
    }

    // MARK: Statements

    /// A new statement owned by the caller (finalized when released). Prefer `cachedStatement`
    /// for SQL that runs repeatedly.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: try live(), sql: sql, persistent: false)
    }

    /// The connection's prepared statement for `sql`, reset with cleared bindings. When the cached
    /// one is still being iterated (a nested query with the same SQL), a fresh one is returned.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] {
            if !statement.isBusy {
                statement.clearBindings()
                return statement
            }
            return try Statement(connection: try live(), sql: sql, persistent: false)
        }
        let statement = try Statement(connection: try live(), sql: sql, persistent: true)
        cache[sql] = statement
        return statement
    }

    /// Number of statements in the cache (for tests and diagnostics).
    public var cachedStatementCount: Int { cache.count }

    // MARK: Convenience

    /// Runs one statement with positional bindings, discarding any rows.
    public func execute(_ sql: String, _ bindings: [any SQLBindable] = []) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        try statement.run()
    }

    /// Runs one statement with named bindings (`:name`, `@name` or `$name` in the SQL).
    public func execute(_ sql: String, named bindings: [String: any SQLBindable]) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(named: bindings)
        try statement.run()
    }

    /// Runs every statement in `sql` in order (migrations, schema scripts). No bindings, no cache.
    public func executeScript(_ sql: String) throws(SQLiteError) {
        let connection = try live()
        var failure: SQLiteError?
        sql.withCString { start in
            var cursor: UnsafePointer<CChar>? = start
            while let current = cursor, current.pointee != 0, failure == nil {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v3(connection, current, -1, 0, &statement, &tail)
                // The statement's own text, for the error message.
                let text = tail.map { end in
                    String(
                        decoding: UnsafeRawBufferPointer(start: current, count: current.distance(to: end)),
                        as: UTF8.self
                    )
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                }
                if code != SQLITE_OK {
                    failure = SQLiteError(code: code, connection: connection, sql: text ?? String(cString: current))
                    sqlite3_finalize(statement)
                    break
                }
                if let statement {  // nil for whitespace or a comment
                    var rc = sqlite3_step(statement)
                    while rc == SQLITE_ROW { rc = sqlite3_step(statement) }
                    if rc != SQLITE_DONE {
                        failure = SQLiteError(code: rc, connection: connection, sql: text)
                    }
                    sqlite3_finalize(statement)
                }
                cursor = tail
            }
        }
        if let failure { throw failure }
    }

    /// All rows of a query, copied out.
    public func query(_ sql: String, _ bindings: [any SQLBindable] = []) throws(SQLiteError) -> [Row] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        return try collect(statement)
    }

    public func query(_ sql: String, named bindings: [String: any SQLBindable]) throws(SQLiteError) -> [Row] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(named: bindings)
        return try collect(statement)
    }

    /// The first row, or nil when there is none.
    public func queryOne(_ sql: String, _ bindings: [any SQLBindable] = []) throws(SQLiteError) -> Row? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        return try statement.step() ? statement.row() : nil
    }

    public func queryOne(_ sql: String, named bindings: [String: any SQLBindable]) throws(SQLiteError) -> Row? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(named: bindings)
        return try statement.step() ? statement.row() : nil
    }

    /// Streams the rows of a query without copying them: `body` reads columns from the statement.
    public func forEachRow(
        _ sql: String, _ bindings: [any SQLBindable] = [],
        _ body: (Statement) throws -> Void
    ) throws {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() { try body(statement) }
    }

    private func collect(_ statement: Statement) throws(SQLiteError) -> [Row] {
        var rows: [Row] = []
        var columns: [String]?
        while try statement.step() {
            let names = columns ?? statement.columnNames
            columns = names
            rows.append(statement.row(columns: names))
        }
        return rows
    }

    /// Rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }
    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }
    public var totalChanges: Int { handle.map { Int(sqlite3_total_changes64($0)) } ?? 0 }
    /// False in autocommit mode, true inside BEGIN...COMMIT.
    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    // MARK: Transactions

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED", immediate = "IMMEDIATE", exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws. Inside
    /// an open transaction it becomes a savepoint, so calls nest.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try execute("BEGIN \(kind.rawValue)")
        let result: T
        do {
            result = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        do throws(SQLiteError) {
            try execute("COMMIT")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back to (and released) when it
    /// throws, leaving the outer transaction usable.
    public func savepoint<T>(_ body: (Database) throws -> T) throws -> T {
        savepointDepth += 1
        let name = "xizor_sp\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        do {
            let result = try body(self)
            try execute("RELEASE \(name)")
            return result
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TO \(name)")
                try? execute("RELEASE \(name)")
            }
            throw error
        }
    }

    func rollbackQuietly() {
        if isInTransaction { try? execute("ROLLBACK") }
    }
}
