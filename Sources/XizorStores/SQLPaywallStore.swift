import Storage
import XizorDomain

struct SQLPaywallStore: PaywallStore {
    let db: any SQLConnection

    func insert(id: String, appID: String, name: String, draft: String, translationSources: String, now: Int64) throws {
        try db.run(
            "INSERT INTO paywalls (id, app_id, name, draft, translation_sources, created_at, updated_at) VALUES (\(id), \(appID), \(name), \(draft), \(translationSources), \(now), \(now))"
        )
    }

    func paywall(appID: String, id: String) throws -> StoredPaywall? {
        try db.row("\(raw: PaywallRows.summary) WHERE p.id = \(id) AND p.app_id = \(appID)").map(PaywallRows.paywall)
    }

    func lifecycle(appID: String, id: String) throws -> PaywallLifecycle? {
        guard let row = try db.row("SELECT archived_at FROM paywalls WHERE id = \(id) AND app_id = \(appID)")
        else { return nil }
        let archivedAt: Int64? = try row.get(0)
        return archivedAt == nil ? .live : .archived
    }

    func page(appID: String, after cursor: PageCursor, limit: Int, archived: Bool) throws -> [StoredPaywall] {
        try db.rows(
            """
            \(raw: PaywallRows.summary) WHERE p.app_id = \(appID) AND p.archived_at IS \(raw: archived ? "NOT NULL" : "NULL")
            AND (p.created_at, p.id) > (\(cursor.createdAt), \(cursor.id)) ORDER BY p.created_at, p.id LIMIT \(limit)
            """
        ).map(PaywallRows.paywall)
    }

    func archive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.run(
            "UPDATE paywalls SET archived_at = \(now), updated_at = greatest(updated_at, \(now)) WHERE id = \(id) AND app_id = \(appID) AND archived_at IS NULL"
        )
        return db.changes == 1
    }

    func unarchive(appID: String, id: String, now: Int64) throws -> Bool {
        try db.run(
            "UPDATE paywalls SET archived_at = NULL, updated_at = greatest(updated_at, \(now)) WHERE id = \(id) AND app_id = \(appID) AND archived_at IS NOT NULL"
        )
        return db.changes == 1
    }

    func draft(appID: String, id: String) throws -> StoredDraft? {
        try db.row(
            "SELECT draft, draft_revision, translation_sources FROM paywalls WHERE id = \(id) AND app_id = \(appID)"
        ).map { row in
            StoredDraft(document: try row.get(0), revision: try row.get(1), translationSources: try row.get(2))
        }
    }

    func saveDraft(
        appID: String, id: String, document: String, name: String?, translationSources: String,
        expectedRevision: Int64, now: Int64
    ) throws -> Bool {
        try db.run(
            """
            UPDATE paywalls SET draft = \(document), name = coalesce(\(name), name), translation_sources = \(translationSources), draft_revision = draft_revision + 1,
                                updated_at = greatest(updated_at, \(now))
            WHERE id = \(id) AND app_id = \(appID) AND draft_revision = \(expectedRevision)
            """)
        return db.changes == 1
    }

    func version(appID: String, paywallID: String, idempotencyKey: String) throws -> IdempotentPublish? {
        try db.row(
            """
            SELECT v.version, v.request_hash FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = \(paywallID) AND p.app_id = \(appID) AND v.idempotency_key = \(idempotencyKey)
            """
        ).map { row in
            IdempotentPublish(version: try row.get(0), requestHash: try row.get(1))
        }
    }

    func latestVersionNumber(paywallID: String) throws -> Int? {
        try db.row("SELECT max(version) FROM paywall_versions WHERE paywall_id = \(paywallID)")?.get(0)
    }

    func hasVersion(appID: String, paywallID: String, version: Int) throws -> Bool {
        try db.row(
            """
            SELECT 1 FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = \(appID) AND v.paywall_id = \(paywallID) AND v.version = \(version)
            """) != nil
    }

    /// Replicas publishing the same paywall at once take turns: on PostgreSQL the row lock lasts
    /// until commit, so the second one numbers its version after the first's. SQLite has one writer
    /// at a time, so a publish's transaction already runs alone (the dialect adds no lock).
    func lockForPublish(paywallID: String) throws {
        try db.run("SELECT 1 FROM paywalls WHERE id = \(paywallID)\(raw: db.dialect.lockRowsForUpdate)")
    }

    func insertVersion(_ version: StoredVersion, idempotencyKey: String?, requestHash: String?) throws {
        try db.run(
            """
            INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at, idempotency_key,
                                          rolled_back_from, note, published_by, request_hash)
            VALUES (\(version.paywallID), \(version.version), \(version.document), \(version.schemaVersion), \(version.contentHash), \(version.publishedAt), \(idempotencyKey), \(version.rolledBackFrom), \(version.note), \(version.publishedBy), \(requestHash))
            """)
        try db.run(
            "UPDATE paywalls SET updated_at = greatest(updated_at, \(version.publishedAt)) WHERE id = \(version.paywallID)"
        )
    }

    func versions(paywallID: String) throws -> [StoredVersion] {
        try db.rows(
            "SELECT \(raw: PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = \(paywallID) ORDER BY v.version DESC"
        )
        .map(PaywallRows.version)
    }

    func version(appID: String, paywallID: String, version: Int) throws -> StoredVersion? {
        try db.row(
            """
            SELECT \(raw: PaywallRows.versionColumns) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE v.paywall_id = \(paywallID) AND p.app_id = \(appID) AND v.version = \(version)
            """
        ).map(PaywallRows.version)
    }

    func version(paywallID: String, version: Int) throws -> StoredVersion? {
        try db.row(
            "SELECT \(raw: PaywallRows.versionColumns) FROM paywall_versions v WHERE v.paywall_id = \(paywallID) AND v.version = \(version)"
        ).map(PaywallRows.version)
    }

    func latestVersionNumbers(appID: String) throws -> [String: Int] {
        var latest: [String: Int] = [:]
        for row in try db.rows(
            """
            SELECT v.paywall_id, max(v.version) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = \(appID) GROUP BY v.paywall_id
            """)
        {
            latest[try row.get(0)] = try row.get(1)
        }
        return latest
    }

    func archivedPaywallIDs(appID: String) throws -> [String] {
        try db.rows("SELECT id FROM paywalls WHERE app_id = \(appID) AND archived_at IS NOT NULL").map {
            try $0.get(0)
        }
    }
}
