import Storage
import XizorDomain

struct SQLOperationsStore: OperationsStore {
    let db: any SQLConnection

    func recordReadinessProbe(now: Int64) throws {
        try db.run(
            """
            INSERT INTO settings (key, value, updated_at) VALUES ('readiness_probe', \(now), \(now))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """)
    }

    func sharedSecret(_ key: String, candidate: String, now: Int64) throws -> String {
        try db.run(
            "INSERT INTO settings (key, value, updated_at) VALUES (\(key), \(candidate), \(now)) ON CONFLICT (key) DO NOTHING"
        )
        guard let stored: String = try db.row("SELECT value FROM settings WHERE key = \(key)")?.get(0) else {
            throw StoreInconsistency(detail: "the setting \(key) just written is gone")
        }
        return stored
    }

    func setting(_ key: String) throws -> String? {
        try db.row("SELECT value FROM settings WHERE key = \(key)")?.get(0)
    }

    func setSetting(_ key: String, _ value: String?, now: Int64) throws {
        guard let value else {
            try db.run("DELETE FROM settings WHERE key = \(key)")
            return
        }
        try db.run(
            """
            INSERT INTO settings (key, value, updated_at) VALUES (\(key), \(value), \(now))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """)
    }

    func appliedMigrationCount() throws -> Int {
        try db.row("SELECT count(*) FROM schema_migrations")?.get(0) ?? 0
    }
}
