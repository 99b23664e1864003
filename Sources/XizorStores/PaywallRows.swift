import Storage
import XizorDomain

/// How both SQL stores read paywall and version rows: the same columns, the same decoding.
enum PaywallRows {
    /// A paywall with its newest version number (no parameters: each store adds its own WHERE).
    static let summary = """
        SELECT p.id, p.name, p.created_at, p.updated_at, p.archived_at, p.draft_revision,
               (SELECT max(version) FROM paywall_versions v WHERE v.paywall_id = p.id),
               (SELECT CASE WHEN v.document = p.draft THEN 0 ELSE 1 END FROM paywall_versions v
                WHERE v.paywall_id = p.id ORDER BY v.version DESC LIMIT 1)
        FROM paywalls p
        """

    static func paywall(_ row: Row) throws -> StoredPaywall {
        let changed: Int64? = try row.get(7)
        return StoredPaywall(
            id: try row.get(0), name: try row.get(1), createdAt: try row.get(2), updatedAt: try row.get(3),
            archivedAt: try row.get(4), draftRevision: try row.get(5), latestVersion: try row.get(6),
            // Both texts are canonical JSON, so equal text is equal content.
            draftChanged: changed.map { $0 != 0 })
    }

    static let versionColumns =
        "v.paywall_id, v.version, v.document, v.schema_version, v.content_hash, v.published_at, v.rolled_back_from, v.note, v.published_by"

    static func version(_ row: Row) throws -> StoredVersion {
        StoredVersion(
            paywallID: try row.get(0), version: try row.get(1), document: try row.get(2), schemaVersion: try row.get(3),
            contentHash: try row.get(4), publishedAt: try row.get(5), rolledBackFrom: try row.get(6),
            note: try row.get(7), publishedBy: try row.get(8))
    }
}
