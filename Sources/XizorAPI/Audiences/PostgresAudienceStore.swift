import PostgresStorage
import Storage

struct PostgresAudienceStore: AudienceStore {
    let db: PGConnection

    func audiences(appID: String) throws -> [StoredAudience] {
        try db.query(
            "SELECT id, name, condition, created_at, updated_at FROM audiences WHERE app_id = $1 ORDER BY id", [appID]
        ).map(Self.audience)
    }

    func audience(appID: String, id: String) throws -> StoredAudience? {
        try db.queryOne(
            "SELECT id, name, condition, created_at, updated_at FROM audiences WHERE app_id = $1 AND id = $2",
            [appID, id]
        ).map(Self.audience)
    }

    private static func audience(_ row: Row) throws -> StoredAudience {
        StoredAudience(
            id: try row.get(0), name: try row.get(1), condition: try row.get(2), createdAt: try row.get(3),
            updatedAt: try row.get(4))
    }

    func upsert(appID: String, id: String, name: String, condition: String, now: Int64) throws -> Bool {
        let existed = try db.queryOne("SELECT 1 FROM audiences WHERE app_id = $1 AND id = $2", [appID, id]) != nil
        try db.execute(
            """
            INSERT INTO audiences (app_id, id, name, condition, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
            ON CONFLICT (app_id, id) DO UPDATE SET name = excluded.name, condition = excluded.condition,
                updated_at = greatest(audiences.updated_at, excluded.updated_at)
            """, [appID, id, name, condition, now])
        return !existed
    }

    func delete(appID: String, id: String) throws -> Bool {
        try db.execute("DELETE FROM audiences WHERE app_id = $1 AND id = $2", [appID, id])
        return db.changes == 1
    }
}
