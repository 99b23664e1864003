import Storage

struct SQLiteAppStore: AppStore {
    let db: Database

    func insertApp(id: String, name: String, now: Int64) throws {
        try db.execute("INSERT INTO apps (id, name, created_at) VALUES (?, ?, ?)", [id, name, now])
    }

    func archiveApp(id: String, now: Int64) throws -> Bool {
        try db.execute("UPDATE apps SET archived_at = coalesce(archived_at, ?) WHERE id = ?", [now, id])
        return db.changes == 1
    }

    func liveAppIDs() throws -> [String] {
        try db.query("SELECT id FROM apps WHERE archived_at IS NULL").map { try $0.get(0) }
    }

    func hasApps() throws -> Bool { try db.queryOne("SELECT 1 FROM apps LIMIT 1") != nil }

    func insertKey(_ key: StoredKey) throws {
        try db.execute("INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [key.id, key.appID, key.kind.rawValue, key.prefix, key.hash, key.createdAt, key.revokedAt])
    }

    func insertKeyIfAbsent(_ key: StoredKey) throws -> Bool {
        try db.execute("""
            INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (hash) DO NOTHING
            """, [key.id, key.appID, key.kind.rawValue, key.prefix, key.hash, key.createdAt, key.revokedAt])
        return db.changes == 1
    }

    private static let columns = "k.id, k.kind, k.prefix, k.hash, k.app_id, k.created_at, k.revoked_at"

    func liveKeys(_ scope: KeyScope) throws -> [StoredKey] {
        let (filter, bindings): (String, [any SQLBindable]) = switch scope {
        case .all: ("", [])
        case .app(let id): (" AND k.app_id = ?", [id])
        case .admin: (" AND k.app_id IS NULL", [])
        }
        return try db.query("""
            SELECT \(Self.columns) FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id
            WHERE k.revoked_at IS NULL AND (k.app_id IS NULL OR a.archived_at IS NULL)\(filter)
            """, bindings).compactMap(Self.key)
    }

    func keys(appID: String, after cursor: PageCursor, limit: Int) throws -> [StoredKey] {
        try db.query("""
            SELECT \(Self.columns) FROM api_keys k WHERE k.app_id = ? AND (k.created_at, k.id) > (?, ?)
            ORDER BY k.created_at, k.id LIMIT ?
            """, [appID, cursor.createdAt, cursor.id, limit]).compactMap(Self.key)
    }

    /// A row as a key; a kind this binary does not know is left out (it can authenticate nothing).
    private static func key(_ row: Row) throws -> StoredKey? {
        guard let kind = StoredKey.Kind(rawValue: try row.get(1)) else { return nil }
        return StoredKey(id: try row.get(0), kind: kind, prefix: try row.get(2), hash: try row.get(3), appID: try row.get(4),
                         createdAt: try row.get(5), revokedAt: try row.get(6))
    }

    func liveKeyCount(appID: String) throws -> Int {
        try db.queryOne("SELECT count(*) FROM api_keys WHERE app_id = ? AND revoked_at IS NULL", [appID])?.get(0) ?? 0
    }

    func revokeKey(id: String, appID: String, now: Int64) throws -> Bool {
        try db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND app_id = ? AND revoked_at IS NULL", [now, id, appID])
        return db.changes == 1
    }

    func revokeAdminTokens(except hash: [UInt8], now: Int64) throws -> Int {
        try db.execute("UPDATE api_keys SET revoked_at = ? WHERE kind = 'admin' AND revoked_at IS NULL AND hash <> ?", [now, hash])
        return db.changes
    }

    func hasLiveAdminToken(hash: [UInt8]) throws -> Bool {
        try db.queryOne("SELECT 1 FROM api_keys WHERE kind = 'admin' AND hash = ? AND revoked_at IS NULL", [hash]) != nil
    }

    func deleteAdminToken(hash: [UInt8]) throws {
        try db.execute("DELETE FROM api_keys WHERE kind = 'admin' AND hash = ?", [hash])
    }
}
