import Storage

/// The server's database schema: its migrations, embedded in the binary at build time from
/// `Migrations/*.sql` (`make embed` regenerates `EmbeddedMigrations.swift`), so no command needs the
/// repository's files at run time.
public enum XizorSchema {
    /// The migrator over the embedded SQLite migrations (`Migrations/`).
    public static func migrator() throws(MigrationError) -> Migrator {
        try Migrator(files: embeddedFiles, source: "embedded")
    }

    /// The embedded PostgreSQL migrations (`Migrations/postgres/`): the same rules, their own files.
    public static func postgresMigrator() throws(MigrationError) -> Migrator {
        try Migrator(files: embeddedPostgresFiles, source: "embedded postgres")
    }
}
