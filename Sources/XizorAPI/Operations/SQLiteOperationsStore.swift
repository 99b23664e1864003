import Storage

struct SQLiteOperationsStore: OperationsStore {
    let db: Database

    func recordReadinessProbe(now: Int64) throws {
        try db.execute("""
            INSERT INTO settings (key, value, updated_at) VALUES ('readiness_probe', ?, ?)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """, [now, now])
    }

    func appliedMigrationCount() throws -> Int {
        try db.queryOne("SELECT count(*) FROM schema_migrations")?.get(0) ?? 0
    }
}
