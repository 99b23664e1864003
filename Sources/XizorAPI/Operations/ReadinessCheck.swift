#if canImport(Glibc)
import Glibc
#endif
import Storage

/// Whether this instance should receive traffic: not draining, the database open, migrated and
/// writable, and room left on its disk. The write probe upserts one row of `settings`, so it
/// really goes through the WAL and the file system, yet costs one tiny transaction.
struct ReadinessCheck: Sendable {
    static let defaultMinimumFreeBytes = 1 << 20

    let pool: DatabasePool
    let clock: Clock
    let isDraining: @Sendable () -> Bool
    let dataDirectory: String?
    let minimumFreeBytes: Int
    let expectedMigrations: Int?

    /// Throws the first failing check as a 503 `ServiceError`.
    func check() throws {
        if isDraining() {
            throw ServiceError(.unavailable, "draining", "The server is shutting down and takes no new traffic.")
        }
        if let dataDirectory, let free = Self.freeBytes(dataDirectory), free < minimumFreeBytes {
            throw ServiceError(.unavailable, "disk_full",
                               "The data directory \(dataDirectory) has \(free) bytes free (needs at least \(minimumFreeBytes)).")
        }
        let applied: Int
        do {
            let now = clock.now()
            applied = try pool.write { db in
                try db.execute("""
                    INSERT INTO settings (key, value, updated_at) VALUES ('readiness_probe', ?, ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, [now, now])
                return try db.queryOne("SELECT count(*) FROM schema_migrations")?.get(0) ?? 0
            }
        } catch {
            throw ServiceError(.unavailable, "database_unwritable", "The database is not writable: \(error)")
        }
        if let expectedMigrations, applied < expectedMigrations {
            throw ServiceError(.unavailable, "migrations_pending",
                               "The database has \(applied) of \(expectedMigrations) migrations applied.")
        }
    }

    /// Bytes available to this (unprivileged) process on the file system holding `path`.
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}
