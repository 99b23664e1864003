import Foundation
import Storage
import Testing
import XizorAPI
import XizorDomain

/// The binary's migrations are the Migrations/ files, byte for byte (names, contents, checksums):
/// the files stay the source, the embedded copy is what runs.
@Test(arguments: ["sqlite", "postgres"])
func theEmbeddedMigrationsAreTheMigrationFiles(driver: String) throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let folder = driver == "sqlite" ? "Migrations" : "Migrations/postgres"
    let files = try Migrator(path: root.appendingPathComponent(folder).path).migrations
    let embedded = try (driver == "sqlite" ? XizorSchema.migrator() : XizorSchema.postgresMigrator()).migrations
    #expect(!files.isEmpty)
    #expect(embedded.map(\.name) == files.map(\.name), "run `make embed` after changing Migrations/")
    for (mine, theirs) in zip(embedded, files) {
        #expect(
            mine.checksum == theirs.checksum, "\(mine.name) differs from Migrations/\(theirs.name): run `make embed`")
        #expect(mine.sql == theirs.sql)
    }
}

/// From 0015 on (issue 41), one change to the schema is one number and one name in both folders:
/// `0015_x.sql` in `Migrations/` is `0015_x.sql` in `Migrations/postgres/`. The histories before it
/// were numbered apart (SQLite's 0008_targeting is PostgreSQL's 0006) and stay as they are.
@Test func fromMigration15OnBothDatabasesShareNumbersAndNames() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    func shared(_ folder: String) throws -> [String] {
        try Migrator(path: root.appendingPathComponent(folder).path).migrations.filter { $0.number >= 15 }.map(\.name)
    }
    #expect(try shared("Migrations") == shared("Migrations/postgres"))
}
