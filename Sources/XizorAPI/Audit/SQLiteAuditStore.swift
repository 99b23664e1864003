import Storage

struct SQLiteAuditStore: AuditStore {
    let db: Database

    /// Positional `?`, each bound once: SQLite numbers them `?1…` so a repeated one reuses its value.
    private static let filter = AuditRows.filterSQL { n, _ in "?\(n)" }

    func append(
        appID: String?, at: Int64, actor: WriteActor, action: String, targetKind: String, targetID: String?,
        beforeHash: String?, afterHash: String?
    ) throws {
        try db.execute(
            """
            INSERT INTO audit_log (app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
        try db.execute("DELETE FROM audit_log WHERE at < ?", [before])
        return db.changes
    }
}
