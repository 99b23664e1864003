import Foundation
import Storage
import Testing

@testable import PostgresStorage

@Suite struct PGMigratorTests {
    static let files = [
        (name: "0001_first.sql", sql: "CREATE TABLE a (id TEXT PRIMARY KEY);"),
        (name: "0002_second.sql", sql: "CREATE TABLE b (id TEXT PRIMARY KEY); INSERT INTO b VALUES ('x');"),
    ]

    @Test func appliesOnceAndRefusesChangedHistory() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 2)
        defer { pool.close() }
        let migrator = PGMigrator(try Migrator(files: Self.files, source: "test"))
        #expect(try migrator.migrate(pool) == ["0001_first.sql", "0002_second.sql"])
        #expect(try migrator.migrate(pool).isEmpty)
        let changed = PGMigrator(
            try Migrator(
                files: [Self.files[0], (name: "0002_second.sql", sql: "CREATE TABLE b2 (id TEXT);")], source: "test"))
        #expect { try changed.pending(in: pool) } throws: { error in
            if case .changed(let name, _, _)? = error as? MigrationError { return name == "0002_second.sql" }
            return false
        }
        let older = PGMigrator(try Migrator(files: [Self.files[0]], source: "test"))
        #expect { try older.pending(in: pool) } throws: { error in
            (error as? MigrationError) == .unknownApplied(names: ["0002_second.sql"])
        }
    }

    @Test func aFailingFileIsRolledBackAndNotRecorded() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let pool = try PGPool(url: db.url, size: 1)
        defer { pool.close() }
        let broken = PGMigrator(
            try Migrator(
                files: [Self.files[0], (name: "0002_broken.sql", sql: "CREATE TABLE c (id TEXT); SELEC 1;")],
                source: "test"))
        #expect(throws: PGMigrationFailure.self) { try broken.migrate(pool) }
        let tables = try pool.read { c in
            try c.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").map {
                try $0.get(0, as: String.self)
            }
        }
        #expect(tables == ["a", "schema_migrations"], "0001 stays applied, 0002's table is rolled back")
    }

    @Test func replicasStartingTogetherApplyEachFileOnce() throws {
        let db = try TestDatabase()
        defer { db.drop() }
        let migrator = PGMigrator(try Migrator(files: Self.files, source: "test"))
        let applied = Applied()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let pool = try PGPool(url: db.url, size: 1)
                applied.add(try migrator.migrate(pool))
                pool.close()
            } catch {
                applied.add(["error: \(error)"])
            }
        }
        #expect(applied.names.sorted() == ["0001_first.sql", "0002_second.sql"])
    }
}

final class Applied: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [String] = []
    func add(_ names: [String]) {
        lock.lock()
        all += names
        lock.unlock()
    }
    var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return all
    }
}
