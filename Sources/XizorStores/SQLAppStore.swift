import Storage
import XizorDomain

struct SQLAppStore: AppStore {
    let db: any SQLConnection

    func insertApp(id: String, name: String, now: Int64) throws {
        try db.run("INSERT INTO apps (id, name, created_at) VALUES (\(id), \(name), \(now))")
    }

    func archiveApp(id: String, now: Int64) throws -> Bool {
        try db.run("UPDATE apps SET archived_at = coalesce(archived_at, \(now)) WHERE id = \(id)")
        return db.changes == 1
    }

    func liveAppIDs() throws -> [String] {
        try db.rows("SELECT id FROM apps WHERE archived_at IS NULL").map { try $0.get(0) }
    }

    func setEventRetention(appID: String, days: Int?) throws -> StoredApp? {
        try db.run("UPDATE apps SET event_retention_days = \(days) WHERE id = \(appID)")
        guard db.changes == 1 else { return nil }
        return try db.row("SELECT \(raw: AppRows.appColumns) FROM apps WHERE id = \(appID)").map(AppRows.app)
    }

    func eventRetention() throws -> [(appID: String, days: Int?)] {
        try db.rows("SELECT id, event_retention_days FROM apps ORDER BY id").map { (try $0.get(0), try $0.get(1)) }
    }

    func hasApps() throws -> Bool { try db.row("SELECT 1 FROM apps LIMIT 1") != nil }

    /// A row lock on PostgreSQL (`dialect.lockRowsForUpdate`): `FOR NO KEY UPDATE`, not `FOR
    /// UPDATE`, because the foreign-key checks of inserts under the app (its events, timers,
    /// attributes) take `FOR KEY SHARE` on this row, which this does not block, so only the limited
    /// writes wait for each other. The lock lasts until commit; under READ COMMITTED each later
    /// statement sees what the previous holder committed. On SQLite the one writer connection
    /// (`BEGIN IMMEDIATE`) already serializes every write transaction: only the app is read.
    func lockForLimits(appID: String) throws -> StoredApp? {
        try db.row(
            "SELECT \(raw: AppRows.appColumns) FROM apps WHERE id = \(appID)\(raw: db.dialect.lockRowsForUpdate)"
        )
        .map(AppRows.app)
    }

    func apps(after cursor: PageCursor, limit: Int) throws -> [StoredApp] {
        try db.rows(
            "SELECT \(raw: AppRows.appColumns) FROM apps WHERE (created_at, id) > (\(cursor.createdAt), \(cursor.id)) ORDER BY created_at, id LIMIT \(limit)"
        ).map(AppRows.app)
    }

    func insertKey(_ key: StoredKey) throws {
        try db.run(
            "INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at, label, scopes, environment) VALUES (\(key.id), \(key.appID), \(key.kind.rawValue), \(key.prefix), \(key.hash), \(key.createdAt), \(key.revokedAt), \(key.label), \(key.scopes.storedText), \(key.environment.rawValue))"
        )
    }

    func insertKeyIfAbsent(_ key: StoredKey) throws -> Bool {
        try db.run(
            """
            INSERT INTO api_keys (id, app_id, kind, prefix, hash, created_at, revoked_at, label, scopes, environment) VALUES (\(key.id), \(key.appID), \(key.kind.rawValue), \(key.prefix), \(key.hash), \(key.createdAt), \(key.revokedAt), \(key.label), \(key.scopes.storedText), \(key.environment.rawValue))
            ON CONFLICT (hash) DO NOTHING
            """)
        return db.changes == 1
    }

    func liveKeys(_ scope: KeyScope) throws -> [StoredKey] {
        let filter: SQL =
            switch scope {
            case .all: ""
            case .app(let id): " AND k.app_id = \(id)"
            case .admin: " AND k.app_id IS NULL"
            }
        return try db.rows(
            """
            SELECT \(raw: AppRows.keyColumns) FROM api_keys k LEFT JOIN apps a ON a.id = k.app_id
            WHERE k.revoked_at IS NULL AND (k.app_id IS NULL OR a.archived_at IS NULL)\(filter)
            """
        ).compactMap(AppRows.key)
    }

    func keys(appID: String, after cursor: PageCursor, limit: Int) throws -> [StoredKey] {
        try db.rows(
            """
            SELECT \(raw: AppRows.keyColumns) FROM api_keys k WHERE k.app_id = \(appID) AND (k.created_at, k.id) > (\(cursor.createdAt), \(cursor.id))
            ORDER BY k.created_at, k.id LIMIT \(limit)
            """
        ).compactMap(AppRows.key)
    }

    func liveKeyCount(appID: String) throws -> Int {
        try db.row("SELECT count(*) FROM api_keys WHERE app_id = \(appID) AND revoked_at IS NULL")?.get(0) ?? 0
    }

    func revokeKey(id: String, appID: String, now: Int64) throws -> StoredKey.Kind? {
        guard
            let row = try db.row(
                """
                UPDATE api_keys SET revoked_at = \(now) WHERE id = \(id) AND app_id = \(appID) AND revoked_at IS NULL RETURNING kind
                """)
        else { return nil }
        return StoredKey.Kind(rawValue: try row.get(0))
    }

    func revokeAdminTokens(except hash: [UInt8], now: Int64) throws -> Int {
        try db.run(
            "UPDATE api_keys SET revoked_at = \(now) WHERE kind = 'admin' AND revoked_at IS NULL AND hash <> \(hash)")
        return db.changes
    }

    func hasLiveAdminToken(hash: [UInt8]) throws -> Bool {
        try db.row("SELECT 1 FROM api_keys WHERE kind = 'admin' AND hash = \(hash) AND revoked_at IS NULL")
            != nil
    }

    func isKeyOfArchivedApp(hash: [UInt8]) throws -> Bool {
        try db.row(
            """
            SELECT 1 FROM api_keys k JOIN apps a ON a.id = k.app_id
            WHERE k.hash = \(hash) AND k.revoked_at IS NULL AND a.archived_at IS NOT NULL
            """) != nil
    }

    func deleteRevokedAdminToken(hash: [UInt8]) throws {
        try db.run("DELETE FROM api_keys WHERE kind = 'admin' AND hash = \(hash) AND revoked_at IS NOT NULL")
    }
}
