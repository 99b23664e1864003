import Storage

struct SQLiteOperationsStore: OperationsStore {
    let db: Database

    func recordReadinessProbe(now: Int64) throws {
        try db.execute(
            """
            INSERT INTO settings (key, value, updated_at) VALUES ('readiness_probe', ?, ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """, [now, now])
    }

    func sharedSecret(_ key: String, candidate: String, now: Int64) throws -> String {
        try db.execute(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
            [key, candidate, now])
        guard let stored: String = try db.queryOne("SELECT value FROM settings WHERE key = ?", [key])?.get(0) else {
            throw StoreInconsistency(detail: "the setting \(key) just written is gone")
        }
        return stored
    }

    func appliedMigrationCount() throws -> Int {
        try db.queryOne("SELECT count(*) FROM schema_migrations")?.get(0) ?? 0
    }
}
