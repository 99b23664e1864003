import PostgresStorage
import Storage

struct PostgresOperationsStore: OperationsStore {
    let db: PGConnection

    func recordReadinessProbe(now: Int64) throws {
        try db.execute("""
            INSERT INTO settings (key, value, updated_at) VALUES ('readiness_probe', $1, $2)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
            """, [now, now])
    }

    func appliedMigrationCount() throws -> Int {
        try db.queryOne("SELECT count(*) FROM schema_migrations")?.get(0) ?? 0
    }
}
