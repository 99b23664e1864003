import Foundation
import PostgresStorage
import Storage
import Testing

/// A statement written once answers alike on both databases: the same `SQL` values run through
/// `SQLConnection` on an SQLite file and on PostgreSQL.
@Suite struct SQLParityTests {
    @Test func oneStatementAnswersAlikeOnBothDatabases() throws {
        let pg = try TestDatabase()
        defer { pg.drop() }
        let postgres = try PGConnection(url: pg.url)
        defer { postgres.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xizor-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try Database(path: directory.appendingPathComponent("parity.sqlite").path)
        defer { sqlite.close() }
        try sqlite.executeScript("CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, at INTEGER) STRICT")
        try postgres.executeScript("CREATE TABLE t (id TEXT PRIMARY KEY, n BIGINT NOT NULL, at BIGINT)")

        for db in [sqlite, postgres] as [any SQLConnection] {
            for (id, n, at) in [("a", 3, Int64?.some(100)), ("b", 5, nil), ("c'; --", 7, 50)] as [(String, Int, Int64?)]
            {
                try db.run("INSERT INTO t (id, n, at) VALUES (\(id), \(n), \(at))")
                #expect(db.changes == 1)
            }
            try db.run("UPDATE t SET at = greatest(at, \(Int64(75))) WHERE id <> \("x")")
            #expect(db.changes == 3)
        }
        let none: String? = nil
        let queries: [SQL] = [
            "SELECT id, n, at FROM t ORDER BY id",
            "SELECT id FROM t WHERE (CAST(\(none) AS TEXT) IS NULL OR id = \(none)) AND n > \(4) ORDER BY id",
            "SELECT CAST(coalesce(sum(n), 0) AS BIGINT), least(min(at), \(Int64(60))), greatest(\(Int64?.none), max(n)) FROM t",
            "SELECT count(*) FROM t WHERE id = \("c'; --")",
        ]
        for query in queries {
            let a = try sqlite.rows(query).map(\.values)
            let b = try postgres.rows(query).map(\.values)
            #expect(a == b, "\(query.text(for: .postgres))")
            #expect(!a.isEmpty)
        }
        #expect(
            try sqlite.rows(queries[0]).map(\.values) == [
                [.text("a"), .integer(3), .integer(100)], [.text("b"), .integer(5), .integer(75)],
                [.text("c'; --"), .integer(7), .integer(75)],
            ], "greatest skips a NULL on both (b's at was NULL)")
        #expect(try postgres.row("SELECT count(*) FROM t WHERE id = \("c'; --")")?.get(0, as: Int.self) == 1)
    }
}
