import Storage
import XizorDomain

struct SQLAssetStore: AssetStore {
    let db: any SQLConnection

    static let columns = "app_id, sha256, kind, content_type, size, name, created_at, created_by"

    func insert(_ row: AssetRow, bytes: [UInt8]) throws -> Bool {
        try db.run(
            """
            INSERT INTO assets (\(raw: Self.columns), bytes) VALUES (\(row.appID), \(row.sha256), \(row.kind), \(row.contentType), \(row.size), \(row.name.map(SQLValue.text) ?? .null), \(row.createdAt), \(row.createdBy.map(SQLValue.text) ?? .null), \(SQLValue.blob(bytes))) ON CONFLICT DO NOTHING
            """)
        return db.changes == 1
    }

    func row(appID: String, sha256: String) throws -> AssetRow? {
        try db.row("SELECT \(raw: Self.columns) FROM assets WHERE app_id = \(appID) AND sha256 = \(sha256)").map(
            AssetRow.init)
    }

    func bytes(appID: String, sha256: String) throws -> [UInt8]? {
        try db.row("SELECT bytes FROM assets WHERE app_id = \(appID) AND sha256 = \(sha256)")?.get(0)
    }

    func list(appID: String, limit: Int, after cursor: PageCursor) throws -> [AssetRow] {
        try db.rows(
            """
            SELECT \(raw: Self.columns) FROM assets WHERE app_id = \(appID) AND (created_at, sha256) > (\(cursor.createdAt), \(cursor.id))
            ORDER BY created_at, sha256 LIMIT \(limit)
            """
        ).map(AssetRow.init)
    }

    func totalSize(appID: String) throws -> Int64 {
        try db.row("SELECT CAST(coalesce(sum(size), 0) AS BIGINT) FROM assets WHERE app_id = \(appID)")?.get(0) ?? 0
    }
}

extension AssetRow {
    /// A row of `SQLAssetStore.columns` (both drivers' rows read the same way).
    init(_ row: Row) throws {
        self.init(
            appID: try row.get(0), sha256: try row.get(1), kind: try row.get(2), contentType: try row.get(3),
            size: try row.get(4), name: try row.get(5), createdAt: try row.get(6), createdBy: try row.get(7))
    }
}
