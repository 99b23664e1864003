import PostgresStorage
import Storage

struct PostgresPaywallStore: PaywallStore {
    let db: PGConnection

    func insert(id: String, appID: String, name: String, draft: String, translationSources: String, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO paywalls (id, app_id, name, draft, translation_sources, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [id, appID, name, draft, translationSources, now, now])
    }

    func paywall(appID: String, id: String) throws -> StoredPaywall? {
        try db.queryOne("\(PaywallRows.summary) WHERE p.id = $1 AND p.app_id = $2", [id, appID]).map(
            PaywallRows.paywall)
    }

    func lifecycle(appID: String, id: String) throws -> PaywallLifecycle? {
        guard let row = try db.queryOne("SELECT archived_at FROM paywalls WHERE id = $1 AND app_id = $2", [id, appID])
        else { return nil }
        let archivedAt: Int64? = try row.get(0)
        return archivedAt == nil ? .live : .archived
    }

    func page(appID: String, after cursor: PageCursor, limit: Int, archived: Bool) throws -> [StoredPaywall] {
        try db.query(
            """
            \(PaywallRows.summary) WHERE p.app_id = $1 AND p.archived_at IS \(archived ? "NOT NULL" : "NULL") AND (p.created_at, p.id) > ($2, $3)
            ORDER BY p.created_at, p.id LIMIT $4
            """, [appID, cursor.createdAt, cursor.id, limit]
        ).map(PaywallRows.paywall)
    }

    func archive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE paywalls SET archived_at = $1, updated_at = greatest(updated_at, $2) WHERE id = $3 AND app_id = $4 AND archived_at IS NULL",
            [now, now, id, appID])
        return db.changes == 1
    }

    func unarchive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE paywalls SET archived_at = NULL, updated_at = greatest(updated_at, $1) WHERE id = $2 AND app_id = $3 AND archived_at IS NOT NULL",
            [now, id, appID])
        return db.changes == 1
    }

    func draft(appID: String, id: String) throws -> StoredDraft? {
        try db.queryOne(
            "SELECT draft, draft_revision, translation_sources FROM paywalls WHERE id = $1 AND app_id = $2",
            [id, appID]
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
            UPDATE paywalls SET draft = $1, name = coalesce($2, name), translation_sources = $3, draft_revision = draft_revision + 1,
                                updated_at = greatest(updated_at, $4)
            WHERE id = $5 AND app_id = $6 AND draft_revision = $7
            """, [document, name, translationSources, now, id, appID, expectedRevision])
        return db.changes == 1
    }

    func version(appID: String, paywallID: String, idempotencyKey: String) throws -> IdempotentPublish? {
        try db.queryOne(
            """
            SELECT v.version, v.request_hash FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = $1 AND p.app_id = $2 AND v.idempotency_key = $3
            """, [paywallID, appID, idempotencyKey]
        ).map { row in
            IdempotentPublish(version: try row.get(0), requestHash: try row.get(1))
        }
    }

    func latestVersionNumber(paywallID: String) throws -> Int? {
        try db.queryOne("SELECT max(version) FROM paywall_versions WHERE paywall_id = $1", [paywallID])?.get(0)
    }

    func hasVersion(appID: String, paywallID: String, version: Int) throws -> Bool {
        try db.queryOne(
            """
            SELECT 1 FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = $1 AND v.paywall_id = $2 AND v.version = $3
            """, [appID, paywallID, version]) != nil
    }

    /// Replicas publishing the same paywall at once take turns: the row lock lasts until commit,
    /// so the second one numbers its version after the first's.
    func lockForPublish(paywallID: String) throws {
        try db.execute("SELECT 1 FROM paywalls WHERE id = $1 FOR UPDATE", [paywallID])
    }

    func insertVersion(_ version: StoredVersion, idempotencyKey: String?, requestHash: String?) throws {
        try db.execute(
            """
            INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at, idempotency_key,
                                          rolled_back_from, note, published_by, request_hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [
                version.paywallID, version.version, version.document, version.schemaVersion, version.contentHash,
                version.publishedAt, idempotencyKey, version.rolledBackFrom, version.note, version.publishedBy,
                requestHash,
            ])
        try db.execute(
            "UPDATE paywalls SET updated_at = greatest(updated_at, $1) WHERE id = $2",
            [version.publishedAt, version.paywallID])
    }

    func versions(paywallID: String) throws -> [StoredVersion] {
        try db.query(
            "SELECT \(PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = $1 ORDER BY v.version DESC",
            [paywallID]
        )
        .map(PaywallRows.version)
    }

    func version(appID: String, paywallID: String, version: Int) throws -> StoredVersion? {
        try db.queryOne(
            """
            SELECT \(PaywallRows.versionColumns) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = $1 AND p.app_id = $2 AND v.version = $3
            """, [paywallID, appID, version]
        ).map(PaywallRows.version)
    }

    func version(paywallID: String, version: Int) throws -> StoredVersion? {
        try db.queryOne(
            "SELECT \(PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = $1 AND v.version = $2",
            [paywallID, version]
        ).map(PaywallRows.version)
    }

    func latestVersionNumbers(appID: String) throws -> [String: Int] {
        var latest: [String: Int] = [:]
        for row in try db.query(
            """
            SELECT v.paywall_id, max(v.version) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = $1 GROUP BY v.paywall_id
            """, [appID])
        {
            latest[try row.get(0)] = try row.get(1)
        }
        return latest
    }

    func archivedPaywallIDs(appID: String) throws -> [String] {
        try db.query("SELECT id FROM paywalls WHERE app_id = $1 AND archived_at IS NOT NULL", [appID]).map {
            try $0.get(0)
        }
    }
}
