import Storage

struct SQLitePaywallStore: PaywallStore {
    let db: Database

    func insert(id: String, appID: String, name: String, draft: String, translationSources: String, now: Int64) throws {
        try db.execute(
            "INSERT INTO paywalls (id, app_id, name, draft, translation_sources, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [id, appID, name, draft, translationSources, now, now])
    }

    func paywall(appID: String, id: String) throws -> StoredPaywall? {
        try db.queryOne("\(PaywallRows.summary) WHERE p.id = ? AND p.app_id = ?", [id, appID]).map(PaywallRows.paywall)
    }

    func lifecycle(appID: String, id: String) throws -> PaywallLifecycle? {
        guard let row = try db.queryOne("SELECT archived_at FROM paywalls WHERE id = ? AND app_id = ?", [id, appID])
        else { return nil }
        let archivedAt: Int64? = try row.get(0)
        return archivedAt == nil ? .live : .archived
    }

    func page(appID: String, after cursor: PageCursor, limit: Int, archived: Bool) throws -> [StoredPaywall] {
        try db.query(
            """
            \(PaywallRows.summary) WHERE p.app_id = ? AND p.archived_at IS \(archived ? "NOT NULL" : "NULL") AND (p.created_at, p.id) > (?, ?)
            ORDER BY p.created_at, p.id LIMIT ?
            """, [appID, cursor.createdAt, cursor.id, limit]
        ).map(PaywallRows.paywall)
    }

    func archive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE paywalls SET archived_at = ?, updated_at = max(updated_at, ?) WHERE id = ? AND app_id = ? AND archived_at IS NULL",
            [now, now, id, appID])
        return db.changes == 1
    }

    func unarchive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE paywalls SET archived_at = NULL, updated_at = max(updated_at, ?) WHERE id = ? AND app_id = ? AND archived_at IS NOT NULL",
            [now, id, appID])
        return db.changes == 1
    }

    func draft(appID: String, id: String) throws -> StoredDraft? {
        try db.queryOne(
            "SELECT draft, draft_revision, translation_sources FROM paywalls WHERE id = ? AND app_id = ?", [id, appID]
        ).map { row in
            StoredDraft(document: try row.get(0), revision: try row.get(1), translationSources: try row.get(2))
        }
    }

    func saveDraft(
        appID: String, id: String, document: String, name: String?, translationSources: String,
        expectedRevision: Int64, now: Int64
    ) throws -> Bool {
        try db.execute(
            """
            UPDATE paywalls SET draft = ?, name = coalesce(?, name), translation_sources = ?, draft_revision = draft_revision + 1,
                                updated_at = max(updated_at, ?)
            WHERE id = ? AND app_id = ? AND draft_revision = ?
            """, [document, name, translationSources, now, id, appID, expectedRevision])
        return db.changes == 1
    }

    func version(appID: String, paywallID: String, idempotencyKey: String) throws -> IdempotentPublish? {
        try db.queryOne(
            """
            SELECT v.version, v.request_hash FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = ? AND p.app_id = ? AND v.idempotency_key = ?
            """, [paywallID, appID, idempotencyKey]
        ).map { row in
            IdempotentPublish(version: try row.get(0), requestHash: try row.get(1))
        }
    }

    func latestVersionNumber(paywallID: String) throws -> Int? {
        try db.queryOne("SELECT max(version) FROM paywall_versions WHERE paywall_id = ?", [paywallID])?.get(0)
    }

    func hasVersion(appID: String, paywallID: String, version: Int) throws -> Bool {
        try db.queryOne(
            """
            SELECT 1 FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = ? AND v.paywall_id = ? AND v.version = ?
            """, [appID, paywallID, version]) != nil
    }

    /// Nothing to do: SQLite has one writer at a time, so a publish's transaction already runs alone.
    func lockForPublish(paywallID: String) throws {}

    func insertVersion(_ version: StoredVersion, idempotencyKey: String?, requestHash: String?) throws {
        try db.execute(
            """
            INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at, idempotency_key,
                                          rolled_back_from, note, published_by, request_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                version.paywallID, version.version, version.document, version.schemaVersion, version.contentHash,
                version.publishedAt, idempotencyKey, version.rolledBackFrom, version.note, version.publishedBy,
                requestHash,
            ])
        try db.execute(
            "UPDATE paywalls SET updated_at = max(updated_at, ?) WHERE id = ?",
            [version.publishedAt, version.paywallID])
    }

    func versions(paywallID: String) throws -> [StoredVersion] {
        try db.query(
            "SELECT \(PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = ? ORDER BY v.version DESC",
            [paywallID]
        )
        .map(PaywallRows.version)
    }

    func version(appID: String, paywallID: String, version: Int) throws -> StoredVersion? {
        try db.queryOne(
            """
            SELECT \(PaywallRows.versionColumns) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = ? AND p.app_id = ? AND v.version = ?
            """, [paywallID, appID, version]
        ).map(PaywallRows.version)
    }

    func version(paywallID: String, version: Int) throws -> StoredVersion? {
        try db.queryOne(
            "SELECT \(PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = ? AND v.version = ?",
            [paywallID, version]
        ).map(PaywallRows.version)
    }

    func latestVersionNumbers(appID: String) throws -> [String: Int] {
        var latest: [String: Int] = [:]
        for row in try db.query(
            """
            SELECT v.paywall_id, max(v.version) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = ? GROUP BY v.paywall_id
            """, [appID])
        {
            latest[try row.get(0)] = try row.get(1)
        }
        return latest
    }

    func archivedPaywallIDs(appID: String) throws -> [String] {
        try db.query("SELECT id FROM paywalls WHERE app_id = ? AND archived_at IS NOT NULL", [appID]).map {
            try $0.get(0)
        }
    }
}
