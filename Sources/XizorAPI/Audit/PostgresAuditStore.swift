import PostgresStorage
import Storage

struct PostgresAuditStore: AuditStore {
    let db: PGConnection

    /// Typed placeholders: PostgreSQL cannot infer the type of a parameter that is only compared with NULL.
    private static let filter = AuditRows.filterSQL { n, type in "$\(n)::\(type)" }

    func append(
        appID: String?, at: Int64, actor: WriteActor, action: String, targetKind: String, targetID: String?,
        beforeHash: String?, afterHash: String?
    ) throws {
        try db.execute(
            """
            INSERT INTO audit_log (app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
            """,
            [
                appID, at, actor.kind.rawValue, actor.keyID, actor.via.rawValue, action, targetKind, targetID,
                actor.requestID,
                beforeHash, afterHash,
            ])
    }

    func entries(appID: String, filter: AuditFilter, before: Int64?, limit: Int) throws -> [AuditEntry] {
        try db.query(
            "SELECT \(AuditRows.columns) FROM audit_log WHERE \(Self.filter)",
            AuditRows.bindings(appID: appID, filter: filter, before: before, limit: limit)
        ).map(AuditRows.entry)
    }

    func prune(olderThan before: Int64) throws -> Int {
        try db.execute("DELETE FROM audit_log WHERE at < $1", [before])
        return db.changes
    }
}
