import Storage

/// How both SQL stores read audit rows, and the filter both apply (the same `WHERE`, with each
/// dialect's placeholders).
enum AuditRows {
    static let columns =
        "seq, app_id, at, actor_kind, key_id, via, action, target_kind, target_id, request_id, before_hash, after_hash"

    /// `(x IS NULL OR column = x)` per filter, then the cursor: the placeholders in `bindings`' order.
    static func filterSQL(placeholder: (Int, String) -> String) -> String {
        var n = 1
        func next(_ type: String) -> String {
            defer { n += 1 }
            return placeholder(n, type)
        }
        let app = next("text")
        var clauses = ["app_id = \(app)"]
        for column in ["action", "target_kind", "target_id", "key_id"] {
            let p = next("text")
            clauses.append("(\(p) IS NULL OR \(column) = \(p))")
        }
        let from = next("bigint")
        let to = next("bigint")
        let before = next("bigint")
        clauses.append("(\(from) IS NULL OR at >= \(from))")
        clauses.append("(\(to) IS NULL OR at < \(to))")
        clauses.append("(\(before) IS NULL OR seq < \(before))")
        return clauses.joined(separator: " AND ") + " ORDER BY seq DESC LIMIT \(next("bigint"))"
    }

    static func bindings(appID: String, filter: AuditFilter, before: Int64?, limit: Int) -> [any SQLBindable] {
        [
            appID, filter.action, filter.targetKind, filter.targetID, filter.keyID, filter.from, filter.to, before,
            Int64(limit),
        ]
    }

    static func entry(_ row: Row) throws -> AuditEntry {
        let kindName: String = try row.get(3)
        let viaName: String = try row.get(5)
        guard let kind = WriteActor.Kind(rawValue: kindName), let via = WriteActor.Channel(rawValue: viaName) else {
            throw StoreInconsistency(detail: "an audit entry has actor '\(kindName)' via '\(viaName)'")
        }
        return AuditEntry(
            seq: try row.get(0), appID: try row.get(1), at: try row.get(2),
            actor: WriteActor(kind: kind, keyID: try row.get(4), via: via, requestID: try row.get(9)),
            action: try row.get(6), targetKind: try row.get(7), targetID: try row.get(8),
            beforeHash: try row.get(10), afterHash: try row.get(11))
    }
}
