import Digest
import Foundation
import Testing

@testable import Storage

@Suite struct MigratorTests {
    let directory: TemporaryDirectory
    let migrations: String

    init() throws {
        directory = try TemporaryDirectory()
        migrations = directory.file("Migrations")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try write("0001_first.sql", "CREATE TABLE a (x INTEGER) STRICT;\nINSERT INTO a VALUES (1);")
        try write("0002_second.sql", "-- adds b\nCREATE TABLE b (y TEXT) STRICT;")
        try write("README.md", "not a migration")
    }

    func write(_ name: String, _ sql: String) throws {
        try Data(sql.utf8).write(to: URL(fileURLWithPath: migrations + "/" + name))
    }

    func pool() throws -> DatabasePool { try DatabasePool(path: directory.file("m.sqlite")) }

    @Test func appliesInOrderOnceAndRecordsChecksums() throws {
        let pool = try pool()
        let migrator = try Migrator(path: migrations)
        #expect(try migrator.pending(in: pool).map(\.name) == ["0001_first.sql", "0002_second.sql"])
        #expect(try migrator.migrate(pool) == ["0001_first.sql", "0002_second.sql"])
        #expect(try migrator.migrate(pool) == [])
        #expect(try migrator.pending(in: pool).isEmpty)
        let recorded: [String] = try pool.read { db in
            try db.query("SELECT checksum FROM schema_migrations ORDER BY name").map { try $0.get(0) }
        }
        #expect(
            recorded == [
                SHA256.hexDigest(of: "CREATE TABLE a (x INTEGER) STRICT;\nINSERT INTO a VALUES (1);"),
                SHA256.hexDigest(of: "-- adds b\nCREATE TABLE b (y TEXT) STRICT;"),
            ])
        try write("0003_third.sql", "ALTER TABLE b ADD COLUMN z INTEGER;")
        #expect(try Migrator(path: migrations).migrate(pool) == ["0003_third.sql"])
    }

    @Test func changedMigrationIsRefused() throws {
        let pool = try pool()
        try Migrator(path: migrations).migrate(pool)
        try write("0001_first.sql", "CREATE TABLE a (x INTEGER, extra TEXT) STRICT;")
        let error = #expect(throws: MigrationError.self) { try Migrator(path: migrations).migrate(pool) }
        guard case .changed(let name, _, _) = error else {
            Issue.record("expected .changed, got \(String(describing: error))")
            return
        }
        #expect(name == "0001_first.sql")
        #expect(error?.description.contains("changed after it was applied") == true)
        #expect(throws: MigrationError.self) { try Migrator(path: migrations).pending(in: pool) }
    }

    @Test func missingMigrationIsRefused() throws {
        let pool = try pool()
        try Migrator(path: migrations).migrate(pool)
        try FileManager.default.removeItem(atPath: migrations + "/0001_first.sql")
        let error = #expect(throws: MigrationError.self) { try Migrator(path: migrations).migrate(pool) }
        #expect(error == .missing(name: "0001_first.sql"))
    }

    @Test func unknownAppliedMigrationIsRefused() throws {
        let pool = try pool()
        try write("0003_newer.sql", "CREATE TABLE c (z INTEGER) STRICT;")
        try Migrator(path: migrations).migrate(pool)
        // An older build, without 0003, opens the database.
        try FileManager.default.removeItem(atPath: migrations + "/0003_newer.sql")
        let error = #expect(throws: MigrationError.self) { try Migrator(path: migrations).migrate(pool) }
        #expect(error == .unknownApplied(names: ["0003_newer.sql"]))
    }

    @Test func migrationAddedBelowAnAppliedOneIsRefused() throws {
        let pool = try pool()
        try FileManager.default.removeItem(atPath: migrations + "/0001_first.sql")
        try Migrator(path: migrations).migrate(pool)
        try write("0001_first.sql", "CREATE TABLE a (x INTEGER) STRICT;")
        let error = #expect(throws: MigrationError.self) { try Migrator(path: migrations).migrate(pool) }
        #expect(error == .outOfOrder(name: "0001_first.sql", after: "0002_second.sql"))
    }

    @Test func failingMigrationIsRolledBackAndNotRecorded() throws {
        let pool = try pool()
        try write("0003_broken.sql", "CREATE TABLE c (z INTEGER) STRICT;\nINSERT INTO nowhere VALUES (1);")
        let error = #expect(throws: MigrationError.self) { try Migrator(path: migrations).migrate(pool) }
        guard case .failed(let name, let sqliteError) = error else {
            Issue.record("expected .failed")
            return
        }
        #expect(name == "0003_broken.sql")
        #expect(sqliteError.message.contains("nowhere"))
        #expect(sqliteError.sql?.hasPrefix("INSERT INTO nowhere") == true, "the failing statement, not the whole file")
        let state: [String] = try pool.read { db in
            try db.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('a', 'b', 'c') ORDER BY name"
            ).map { try $0.get(0) }
                + db.query("SELECT name FROM schema_migrations ORDER BY name").map { try $0.get(0) }
        }
        #expect(state == ["a", "b", "0001_first.sql", "0002_second.sql"])
    }

    @Test func badFileNamesAndDuplicatesAreRefused() throws {
        try write("1_short.sql", "SELECT 1;")
        #expect(throws: MigrationError.badFileName("1_short.sql")) { try Migrator(path: migrations) }
        try FileManager.default.removeItem(atPath: migrations + "/1_short.sql")
        try write("0002_other.sql", "SELECT 1;")
        #expect(throws: MigrationError.self) { try Migrator(path: migrations) }
        #expect(throws: MigrationError.self) { try Migrator(path: directory.file("no-such-dir")) }
    }

    @Test func projectMigrationsApplyCleanly() throws {
        let pool = try pool()
        let applied = try Migrator(directory: Repository.migrations).migrate(pool)
        #expect(applied.first == "0001_initial.sql")
        let tables: [String] = try pool.read { db in
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { try $0.get(0) }
        }
        for table in [
            "apps", "api_keys", "settings", "paywalls", "paywall_versions", "placements",
            "placement_rules", "events", "timer_starts", "schema_migrations",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        #expect(try pool.integrityCheck() == [])
        let fk: [Row] = try pool.read { db in try db.query("PRAGMA foreign_key_check") }
        #expect(fk.isEmpty)
    }
}
