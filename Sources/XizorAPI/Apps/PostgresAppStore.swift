import PostgresStorage
import Storage

struct PostgresAppStore: AppStore {
    let db: PGConnection

    func insertApp(id: String, name: String, now: Int64) throws {
        try db.execute("INSERT INTO apps (id, name, created_at) VALUES ($1, $2, $3)", [id, name, now])
    }

    func archiveApp(id: String, now: Int64) throws -> Bool {
        try db.execute("UPDATE apps SET archived_at = coalesce(archived_at, $1) WHERE id = $2", [now, id])
        return db.changes == 1
    }

    func liveAppIDs() throws -> [String] {
        try db.query("SELECT id FROM apps WHERE archived_at IS NULL").map { try $0.get(0) }
    }

    func hasApps() throws -> Bool { try db.queryOne("SELECT 1 FROM apps LIMIT 1") != nil }

    /// `FOR NO KEY UPDATE`, not `FOR UPDATE`: the foreign-key checks of inserts under the app (its
    /// events, timers, attributes) take `FOR KEY SHARE` on this row, which this does not block, so
    /// only the limited writes wait for each other. The lock lasts until commit; under READ
    /// COMMITTED each later statement sees what the previous holder committed.
    func lockForLimits(appID: String) throws -> StoredApp? {
        try db.queryOne("SELECT \(AppRows.appColumns) FROM apps WHERE id = $1 FOR NO KEY UPDATE", [appID]).map(
            AppRows.app)
    }

    func apps(after cursor: PageCursor, limit: Int) throws -> [StoredApp] {
        try db.query(
            "SELECT \(AppRows.appColumns) FROM apps WHERE (created_at, id) > ($1, $2) ORDER BY created_at, id LIMIT $3",
            [cursor.createdAt, cursor.id, limit]
        ).map(AppRows.app)
    }

    func insertKey(_ key: StoredKey) throws {
        try db.execute(
            "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at, label, scopes, environment) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            [
                key.id, key.appID, key.kind.rawValue, key.prefix, key.hash, key.createdAt, key.revokedAt, key.label,
                key.scopes.storedText, key.environment.rawValue,
            ])
    }

    func insertKeyIfAbsent(_ key: StoredKey) throws -> Bool {
        try db.execute(
            """
            INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at, label, scopes, environment) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (hash) DO NOTHING
            """,
            [
                key.id, key.appID, key.kind.rawValue, key.prefix, key.hash, key.createdAt, key.revokedAt, key.label,
                key.scopes.storedText, key.environment.rawValue,
            ])
        return db.changes == 1
    }

    func liveKeys(_ scope: KeyScope) throws -> [StoredKey] {
        let (filter, bindings): (String, [any SQLBindable]) =
            switch scope {
            case .all: ("", [])
            case .app(let id): (" AND k.app_id = $1", [id])
            case .admin: (" AND k.app_id IS NULL", [])
            }
        return try db.query(
            """
            SELECT \(AppRows.keyColumns) FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id
            WHERE k.revoked_at IS NULL AND (k.app_id IS NULL OR a.archived_at IS NULL)\(filter)
            """, bindings
        ).compactMap(AppRows.key)
    }

    func keys(appID: String, after cursor: PageCursor, limit: Int) throws -> [StoredKey] {
        try db.query(
            """
            SELECT \(AppRows.keyColumns) FROM api_keys k WHERE k.app_id = $1 AND (k.created_at, k.id) > ($2, $3)
            ORDER BY k.created_at, k.id LIMIT $4
            """, [appID, cursor.createdAt, cursor.id, limit]
        ).compactMap(AppRows.key)
    }

    func liveKeyCount(appID: String) throws -> Int {
        try db.queryOne("SELECT count(*) FROM api_keys WHERE app_id = $1 AND revoked_at IS NULL", [appID])?.get(0) ?? 0
    }

    func revokeKey(id: String, appID: String, now: Int64) throws -> StoredKey.Kind? {
        guard
            let row = try db.queryOne(
                """
                UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND app_id = $3 AND revoked_at IS NULL RETURNING kind
                """, [now, id, appID])
        else { return nil }
        return StoredKey.Kind(rawValue: try row.get(0))
    }

    func revokeAdminTokens(except hash: [UInt8], now: Int64) throws -> Int {
        try db.execute(
            "UPDATE api_keys SET revoked_at = $1 WHERE kind = 'admin' AND revoked_at IS NULL AND hash <> $2",
            [now, hash])
        return db.changes
    }

    func hasLiveAdminToken(hash: [UInt8]) throws -> Bool {
        try db.queryOne("SELECT 1 FROM api_keys WHERE kind = 'admin' AND hash = $1 AND revoked_at IS NULL", [hash])
            != nil
    }

    func isKeyOfArchivedApp(hash: [UInt8]) throws -> Bool {
        try db.queryOne(
            """
            SELECT 1 FROM api_keys k JOIN apps a ON a.id = k.app_id
            WHERE k.hash = $1 AND k.revoked_at IS NULL AND a.archived_at IS NOT NULL
            """, [hash]) != nil
    }

    func deleteRevokedAdminToken(hash: [UInt8]) throws {
        try db.execute("DELETE FROM api_keys WHERE kind = 'admin' AND hash = $1 AND revoked_at IS NOT NULL", [hash])
    }
}
