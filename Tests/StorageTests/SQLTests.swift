import Storage
import Testing

/// A statement written once: its parameters become each dialect's placeholders in order, never text.
@Suite struct SQLTests {
    @Test func parametersBecomeEachDialectsPlaceholdersInOrder() {
        let appID = "app_1'; DROP TABLE apps; --"
        let limit = 5
        let query: SQL = "SELECT id FROM t WHERE app_id = \(appID) AND n < \(limit) AND m = \(limit)"
        #expect(query.text(for: .sqlite) == "SELECT id FROM t WHERE app_id = ? AND n < ? AND m = ?")
        #expect(query.text(for: .postgres) == "SELECT id FROM t WHERE app_id = $1 AND n < $2 AND m = $3")
        #expect(query.bindings == [.text(appID), .integer(5), .integer(5)])
    }

    @Test func rawTextAndFragmentsSpliceInPlaceWithTheirParameters() {
        let columns = "id, name"
        let filter: SQL = " AND state = \("live")"
        let none: Int64? = nil
        let query: SQL = "SELECT \(raw: columns) FROM t WHERE a = \(1)\(filter) AND b IS \(none) LIMIT \(2)"
        #expect(query.text(for: .postgres) == "SELECT id, name FROM t WHERE a = $1 AND state = $2 AND b IS $3 LIMIT $4")
        #expect(query.text(for: .sqlite) == "SELECT id, name FROM t WHERE a = ? AND state = ? AND b IS ? LIMIT ?")
        #expect(query.bindings == [.integer(1), .text("live"), .null, .integer(2)])
        let plain: SQL = "SELECT 1"
        #expect(plain.text(for: .postgres) == "SELECT 1" && plain.bindings.isEmpty)
    }

    @Test func greatestAndLeastAreThereAsOnPostgreSQL() throws {
        let directory = try TemporaryDirectory()
        let db = try Database(path: directory.file("functions.sqlite"))
        defer { db.close() }
        func one(_ query: SQL) throws -> SQLValue? { try db.row(query)?.values.first }
        #expect(try one("SELECT greatest(\(3), \(7), \(5))") == .integer(7))
        #expect(try one("SELECT least(\(3), \(7), \(5))") == .integer(3))
        // NULLs are skipped, as PostgreSQL does (SQLite's own max(a, b) answers NULL).
        #expect(try one("SELECT greatest(NULL, \(2), NULL)") == .integer(2))
        #expect(try one("SELECT least(\(Int64?.none), \(9))") == .integer(9))
        #expect(try one("SELECT greatest(NULL, NULL)") == .null)
        #expect(try one("SELECT greatest(\(2), \(2.5))") == .real(2.5))
        #expect(
            try one("SELECT greatest(\(Int64.max), \(Int64.max - 1))") == .integer(.max), "integers compare exactly")
        #expect(try one("SELECT greatest(\("b"), \("ab"), \("a"))") == .text("b"))
        #expect(try one("SELECT least(\("b"), \("ab"), \("a"))") == .text("a"))
    }
}
