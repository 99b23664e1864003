import Foundation
import Storage

/// Applies a `Migrator`'s files to PostgreSQL with the same rules as on SQLite (order, checksums,
/// refusal of changed or unknown files: `Migrator.plan`). Replicas starting together apply each
/// file once: every attempt takes a transaction-scoped advisory lock first, so the second waits for
/// the first and then finds nothing pending.
public struct PGMigrator: Sendable {
    public let migrator: Migrator
    /// The advisory lock's key: any constant shared by every Xizor process ("xizor" in ASCII).
    static let lockKey: Int64 = 0x78_697A_6F72

    public init(_ migrator: Migrator) { self.migrator = migrator }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            name TEXT PRIMARY KEY,
            checksum TEXT NOT NULL CHECK (length(checksum) = 64),
            applied_at BIGINT NOT NULL
        )
        """

    /// The migrations not yet applied, after checking history against the files.
    public func pending(in pool: PGPool) throws -> [Migration] {
        try pool.write { connection in try plan(connection) }
    }

    /// Applies every pending migration, each in its own transaction under the lock; returns the names applied.
    @discardableResult
    public func migrate(_ pool: PGPool, now: @Sendable () -> Date = Date.init) throws -> [String] {
        var applied: [String] = []
        while true {
            let next = try pool.write { connection -> Migration? in
                guard let migration = try plan(connection).first else { return nil }
                do throws(PGError) { try connection.executeScript(migration.sql) } catch {
                    throw PGMigrationFailure(name: migration.name, error: error)
                }
                try connection.execute(
                    "INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ($1, $2, $3)",
                    [migration.name, migration.checksum, now()])
                return migration
            }
            guard let next else { return applied }
            applied.append(next.name)
        }
    }

    /// Locks, makes sure the history table exists, and plans; the caller holds a transaction.
    private func plan(_ connection: PGConnection) throws -> [Migration] {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [PGMigrator.lockKey])
        try connection.executeScript(PGMigrator.createTable)
        let recorded = try connection.query("SELECT name, checksum FROM schema_migrations ORDER BY name").map { row in
            (name: try row.get(0, as: String.self), checksum: try row.get(1, as: String.self))
        }
        return try migrator.plan(recorded: recorded)
    }
}

/// A migration file PostgreSQL refused; its transaction was rolled back.
public struct PGMigrationFailure: Error, CustomStringConvertible {
    public let name: String
    public let error: PGError
    public var description: String { "migration \(name) failed and was rolled back: \(error)" }
}
