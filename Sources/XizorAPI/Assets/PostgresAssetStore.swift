import PostgresStorage
import Storage

struct PostgresAssetStore: AssetStore {
    let db: PGConnection

    static let columns = "app_id, sha256, kind, content_type, size, name, created_at, created_by"

    func insert(_ row: AssetRow, bytes: [UInt8]) throws -> Bool {
        try db.execute(
            """
            INSERT INTO assets (\(SQLiteAssetStore.columns), bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING
            """,
            [
                row.appID, row.sha256, row.kind, row.contentType, row.size, row.name.map(SQLValue.text) ?? .null,
                row.createdAt, row.createdBy.map(SQLValue.text) ?? .null, SQLValue.blob(bytes),
            ])
        return db.changes == 1
    }

    func row(appID: String, sha256: String) throws -> AssetRow? {
        try db.queryOne(
            "SELECT \(SQLiteAssetStore.columns) FROM assets WHERE app_id = $1 AND sha256 = $2", [appID, sha256]
        ).map(AssetRow.init)
    }

    func bytes(appID: String, sha256: String) throws -> [UInt8]? {
        try db.queryOne("SELECT bytes FROM assets WHERE app_id = $1 AND sha256 = $2", [appID, sha256])?.get(0)
    }

    func list(appID: String, limit: Int, after cursor: PageCursor) throws -> [AssetRow] {
        try db.query(
            """
            SELECT \(SQLiteAssetStore.columns) FROM assets WHERE app_id = $1 AND (created_at, sha256) > ($2, $3)
            ORDER BY created_at, sha256 LIMIT $4
            """, [appID, cursor.createdAt, cursor.id, limit]
        ).map(AssetRow.init)
    }

    func totalSize(appID: String) throws -> Int64 {
        try db.queryOne("SELECT coalesce(sum(size), 0)::bigint FROM assets WHERE app_id = $1", [appID])?.get(0) ?? 0
    }
}
