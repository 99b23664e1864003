import Storage
import XizorDomain

struct SQLAuditStore: AuditStore {
    let db: any SQLConnection

    private static let columns =
        "seq, app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash, user_id, user_email, session_id"

    func append(
        appID: String?, at: Int64, actor: WriteActor, action: String, targetKind: String, targetID: String?,
        beforeHash: String?, afterHash: String?
    ) throws {
        try db.run(
            """
            INSERT INTO audit_log (app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash,
                                   user_id, user_email, session_id)
            VALUES (\(appID), \(at), \(actor.kind.rawValue), \(actor.keyID), \(actor.via.rawValue), \(action), \(targetKind),
                    \(targetID), \(actor.requestID), \(beforeHash), \(afterHash), \(actor.user?.userID), \(actor.user?.email),
                    \(actor.user?.sessionID))
            """)
    }

    /// Only the filters given become clauses, so each combination is a statement its indexes serve.
    func entries(appID: String?, filter: AuditFilter, before: Int64?, limit: Int) throws -> [AuditEntry] {
        var query: SQL = "SELECT \(raw: Self.columns) FROM audit_log WHERE "
        if let appID { query += "app_id = \(appID)" } else { query += "app_id IS NULL" }
        for (column, value) in [
            ("action", filter.action), ("target_kind", filter.targetKind), ("target_id", filter.targetID),
            ("key_id", filter.keyID),
        ] {
            if let value { query += " AND \(raw: column) = \(value)" }
        }
        if let from = filter.from { query += " AND at >= \(from)" }
        if let to = filter.to { query += " AND at < \(to)" }
        if let before { query += " AND seq < \(before)" }
        return try db.rows(query + " ORDER BY seq DESC LIMIT \(Int64(limit))").map(Self.entry)
    }

    func prune(olderThan before: Int64) throws -> Int {
        try db.run("DELETE FROM audit_log WHERE at < \(before)")
        return db.changes
    }

    private static func entry(_ row: Row) throws -> AuditEntry {
        let kindName: String = try row.get(3)
        let viaName: String = try row.get(5)
        guard let kind = WriteActor.Kind(rawValue: kindName), let via = WriteActor.Channel(rawValue: viaName) else {
            throw StoreInconsistency(detail: "an audit entry has actor '\(kindName)' via '\(viaName)'")
        }
        let userID: String? = try row.get(12)
        let email: String? = try row.get(13)
        let sessionID: String? = try row.get(14)
        var user: ActingUser?
        if let userID {
            guard let email else {
                throw StoreInconsistency(detail: "audit entry \(try row.get(0) as Int64) names a user without an email")
            }
            user = ActingUser(userID: userID, email: email, sessionID: sessionID)
        }
        return AuditEntry(
            seq: try row.get(0), appID: try row.get(1), at: try row.get(2),
            actor: WriteActor(kind: kind, keyID: try row.get(4), via: via, requestID: try row.get(9), user: user),
            action: try row.get(6), targetKind: try row.get(7), targetID: try row.get(8),
            beforeHash: try row.get(10), afterHash: try row.get(11))
    }
}
