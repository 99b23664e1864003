import Foundation
import Storage
import Testing
import XizorAPI

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
