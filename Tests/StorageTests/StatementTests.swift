import Foundation
import Testing

@testable import Storage

@Suite struct StatementTests {
    let directory: TemporaryDirectory
    let db: Database

    init() throws {
        directory = try TemporaryDirectory()
        db = try Database(path: directory.file("t.sqlite"))
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v ANY) STRICT")
    }

    func roundTrip<T: SQLBindable & SQLColumnValue & Equatable>(_ value: T) throws -> T {
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", [value])
        let row = try #require(try db.queryOne("SELECT v FROM t WHERE id = 1"))
        return try row.get(0, as: T.self)
    }

    @Test func integersRoundTrip() throws {
        for v: Int64 in [0, 1, -1, .max, .min] { #expect(try roundTrip(v) == v) }
        for v: Int in [0, 42, .max, .min] { #expect(try roundTrip(v) == v) }
    }

    @Test func doublesRoundTrip() throws {
        for v: Double in [0, -0.5, 3.141592653589793, 1e308, -1e-308, .infinity] { #expect(try roundTrip(v) == v) }
    }

    @Test func stringsRoundTrip() throws {
        for v in [
            "", "plain", "ünïcødé 🎉", "quote ' and \" and ;", String(repeating: "long", count: 10_000),
            "nul\u{0}inside",
        ] {
            #expect(try roundTrip(v) == v)
        }
        // The empty string is stored as text, not NULL.
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", [""])
        #expect(try db.queryOne("SELECT typeof(v) FROM t")?.get(0) == "text")
    }

    @Test func blobsRoundTrip() throws {
        let bytes: [UInt8] = [0, 1, 2, 255, 0]
        #expect(try roundTrip(bytes) == bytes)
        #expect(try roundTrip(Data(bytes)) == Data(bytes))
        #expect(try roundTrip([UInt8]()) == [])
        #expect(try roundTrip(Data()) == Data())
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", [Data()])
        #expect(try db.queryOne("SELECT typeof(v) FROM t")?.get(0) == "blob")
    }

    @Test func boolsDatesAndNullRoundTrip() throws {
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
        let date = Date(millisecondsSince1970: 1_764_470_000_123)
        #expect(try roundTrip(date) == date)
        try db.execute("DELETE FROM t")
        try db.execute("INSERT INTO t (id, v) VALUES (1, ?)", [date])
        #expect(try db.queryOne("SELECT v FROM t")?.get(0, as: Int64.self) == 1_764_470_000_123)

        let none: String? = nil
        #expect(try roundTrip(none) == nil)
        #expect(try roundTrip(Optional("x")) == "x")
        #expect(try roundTrip(SQLValue.null) == .null)
        #expect(try roundTrip(SQLValue.real(2.5)) == .real(2.5))
    }

    @Test func namedParameters() throws {
        try db.execute("INSERT INTO t (id, v) VALUES (:id, :value)", named: ["id": 7, "value": "seven"])
        try db.execute("INSERT INTO t (id, v) VALUES (@id, $value)", named: ["@id": 8, "value": "eight"])
        let rows = try db.query("SELECT id, v FROM t WHERE id >= :low ORDER BY id", named: [":low": 7])
        #expect(try rows.map { try $0.get("v", as: String.self) } == ["seven", "eight"])
        #expect(try rows.map { try $0.get("id", as: Int.self) } == [7, 8])

        let unknown = #expect(throws: SQLiteError.self) {
            try db.execute("INSERT INTO t (id, v) VALUES (:id, :value)", named: ["id": 9, "nope": 1])
        }
        #expect(unknown?.kind == .misuse)
    }

    @Test func parameterCountAndColumnTypesAreChecked() throws {
        let count = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t (id, v) VALUES (?, ?)", [1]) }
        #expect(count?.kind == .misuse)
        try db.execute("INSERT INTO t (id, v) VALUES (1, 'text')")
        let row = try #require(try db.queryOne("SELECT v FROM t"))
        let mismatch = #expect(throws: SQLiteError.self) { try row.get(0, as: Int64.self) }
        #expect(mismatch?.kind == .columnType)
        let statement = try db.prepare("SELECT v FROM t")
        #expect(try statement.step())
        #expect(throws: SQLiteError.self) { try statement.get(0, as: Double.self) }
        #expect(try statement.get(0, as: String.self) == "text")
    }

    @Test func syntaxErrorsCarryMessageAndSQL() throws {
        let error = #expect(throws: SQLiteError.self) { try db.execute("SELEC nope") }
        #expect(error?.sql == "SELEC nope")
        #expect(error?.message.contains("syntax error") == true)
        #expect(error?.kind == .other)
        #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1; SELECT 2") }
        // Trailing comments and whitespace are not a second statement.
        _ = try db.prepare("SELECT 1; -- done\n  ")
    }

    @Test func statementCacheReusesAndSurvivesNesting() throws {
        for i in 1...5 { try db.execute("INSERT INTO t (id, v) VALUES (?, ?)", [i, i * 10]) }
        let before = db.cachedStatementCount
        for _ in 0..<3 { _ = try db.query("SELECT v FROM t WHERE id = ?", [2]) }
        #expect(db.cachedStatementCount == before + 1)
        // A nested query with the same SQL while the outer one is mid-iteration gets its own statement.
        var pairs: [(Int64, Int64)] = []
        try db.forEachRow("SELECT id FROM t WHERE id <= ? ORDER BY id", [2]) { outer in
            let id = outer.int64(0)
            try db.forEachRow("SELECT id FROM t WHERE id <= ? ORDER BY id", [2]) { inner in
                pairs.append((id, inner.int64(0)))
            }
        }
        #expect(pairs.map { "\($0.0)-\($0.1)" } == ["1-1", "1-2", "2-1", "2-2"])
    }

    @Test func lastInsertRowIDAndChanges() throws {
        try db.execute("INSERT INTO t (v) VALUES (?)", ["a"])
        let id = db.lastInsertRowID
        #expect(id > 0)
        try db.execute("INSERT INTO t (v) VALUES (?)", ["b"])
        #expect(db.lastInsertRowID == id + 1)
        try db.execute("UPDATE t SET v = 'c'")
        #expect(db.changes == 2)
    }

    @Test func closedConnectionThrowsMisuse() throws {
        let other = try Database(path: directory.file("closed.sqlite"))
        other.close()
        let error = #expect(throws: SQLiteError.self) { try other.execute("SELECT 1") }
        #expect(error?.kind == .misuse)
    }

    @Test func connectionSettingsApplied() throws {
        #expect(try db.queryOne("PRAGMA journal_mode")?.get(0) == "wal")
        #expect(try db.queryOne("PRAGMA synchronous")?.get(0) == 2)  // FULL
        #expect(try db.queryOne("PRAGMA foreign_keys")?.get(0) == 1)
        let normal = try Database(
            path: directory.file("n.sqlite"), configuration: DatabaseConfiguration(synchronous: .normal))
        #expect(try normal.queryOne("PRAGMA synchronous")?.get(0) == 1)
        let readOnly = try Database(path: directory.file("t.sqlite"), mode: .readOnly)
        let write = #expect(throws: SQLiteError.self) { try readOnly.execute("INSERT INTO t (v) VALUES (1)") }
        #expect(write?.primaryCode == 8)  // SQLITE_READONLY
        #expect(throws: SQLiteError.self) { try Database(path: directory.file("missing.sqlite"), mode: .readOnly) }
    }
}
