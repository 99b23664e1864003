import Storage
import XizorDomain

struct SQLAudienceStore: AudienceStore {
    let db: any SQLConnection

    func audiences(appID: String) throws -> [StoredAudience] {
        try db.rows(
            "SELECT id, name, condition, created_at, updated_at FROM audiences WHERE app_id = \(appID) ORDER BY id"
        ).map(Self.audience)
    }

    func audience(appID: String, id: String) throws -> StoredAudience? {
        try db.row(
            "SELECT id, name, condition, created_at, updated_at FROM audiences WHERE app_id = \(appID) AND id = \(id)"
        ).map(Self.audience)
    }

    private static func audience(_ row: Row) throws -> StoredAudience {
        StoredAudience(
            id: try row.get(0), name: try row.get(1), condition: try row.get(2), createdAt: try row.get(3),
            updatedAt: try row.get(4))
    }

    func upsert(appID: String, id: String, name: String, condition: String, now: Int64) throws -> Bool {
        let existed = try db.row("SELECT 1 FROM audiences WHERE app_id = \(appID) AND id = \(id)") != nil
        try db.run(
            """
            INSERT INTO audiences (app_id, id, name, condition, created_at, updated_at) VALUES (\(appID), \(id), \(name), \(condition), \(now), \(now))
            ON CONFLICT (app_id, id) DO UPDATE SET name = excluded.name, condition = excluded.condition,
                updated_at = greatest(audiences.updated_at, excluded.updated_at)
            """)
        return !existed
    }

    func delete(appID: String, id: String) throws -> Bool {
        try db.run("DELETE FROM audiences WHERE app_id = \(appID) AND id = \(id)")
        return db.changes == 1
    }
}
