import Storage
import XizorDomain

/// The change feed, in the order changes commit. On SQLite the one writer commits in sequence order
/// already. PostgreSQL has many writers, and an identity column hands out numbers in the order
/// transactions *ask*, not the order they commit: a replica that read up to 11 could later see 10
/// commit behind it and never apply it. So there an append first takes a transaction-scoped advisory
/// lock, held until commit: appending transactions commit one at a time, in sequence order. (Only
/// writes that change served state append; drafts and events do not wait.) The same transaction
/// notifies `xizor_changes`, delivered at commit to every replica's `LISTEN`.
struct SQLChangeStore: ChangeStore {
    let db: any SQLConnection
    /// The advisory lock's key ("changes" in ASCII), distinct from the migrator's.
    static let lockKey: Int64 = 0x63_6861_6E67_6573
    static let channel = "xizor_changes"

    @discardableResult
    func append(appID: String?, kind: Change.Kind, entityID: String?, now: Int64) throws -> Int64 {
        if db.dialect == .postgres { try db.run("SELECT pg_advisory_xact_lock(\(Self.lockKey))") }
        guard
            let sequence: Int64 = try db.row(
                """
                INSERT INTO changes (app_id, kind, entity_id, at) VALUES (\(appID), \(kind.rawValue), \(entityID), \(now)) RETURNING seq
                """)?.get(0)
        else {
            throw StoreInconsistency(detail: "an insert into changes returned no sequence")
        }
        if db.dialect == .postgres { try db.run("SELECT pg_notify(\(Self.channel), '')") }
        return sequence
    }

    func after(sequence: Int64, limit: Int) throws -> [Change] {
        try db.rows(
            "SELECT seq, app_id, kind, entity_id FROM changes WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)"
        )
        .map { row in
            let name: String = try row.get(2)
            guard let kind = Change.Kind(rawValue: name) else {
                throw ChangeFeedError.unknownKind(name)
            }
            return Change(sequence: try row.get(0), appID: try row.get(1), kind: kind, entityID: try row.get(3))
        }
    }

    /// The newest sequence this snapshot sees. SQLite's AUTOINCREMENT keeps it in `sqlite_sequence`
    /// even once its row is pruned. On PostgreSQL it is the newest *committed* one (the identity's
    /// own counter also counts numbers handed to transactions not yet committed, which a new replica
    /// must not skip).
    func latestSequence() throws -> Int64 {
        switch db.dialect {
        case .sqlite: try db.row("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.get(0) ?? 0
        case .postgres: try db.row("SELECT coalesce(max(seq), 0) FROM changes")?.get(0) ?? 0
        }
    }

    func oldestSequence() throws -> Int64? {
        try db.row("SELECT min(seq) FROM changes")?.get(0)
    }

    func count() throws -> Int {
        try db.row("SELECT count(*) FROM changes")?.get(0) ?? 0
    }

    @discardableResult
    func prune(olderThan before: Int64, keepingAtMost keep: Int) throws -> Int {
        try db.run("DELETE FROM changes WHERE at < \(before)")
        var deleted = db.changes
        try db.run(
            "DELETE FROM changes WHERE seq <= (SELECT seq FROM changes ORDER BY seq DESC LIMIT 1 OFFSET \(keep))")
        deleted += db.changes
        return deleted
    }
}
