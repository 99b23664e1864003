import Storage

/// One committed change as the feed reads it.
public struct Change: Sendable, Equatable {
    /// What changed; the kind decides which in-memory state a process re-reads.
    public enum Kind: String, Sendable, CaseIterable {
        /// An app was created or archived (its keys live or die with it).
        case app
        /// A key (an app's, or an admin token) was created or revoked.
        case key
        /// A version was published or rolled back, or a paywall archived.
        case paywall
        /// A placement or its rules changed.
        case placement
        /// An experiment started, stopped, was re-weighted or promoted.
        case experiment
    }

    public let sequence: Int64
    /// Nil for changes that belong to no app (admin tokens).
    public let appID: String?
    public let kind: Kind
    public let entityID: String?
}

/// All SQL of the `changes` table.
enum ChangeStore {
    /// Appends a change inside the caller's write transaction: it commits or rolls back with the
    /// write it describes. Returns its sequence.
    @discardableResult
    static func append(_ db: Database, appID: String?, kind: Change.Kind, entityID: String?, now: Int64) throws -> Int64 {
        try db.execute("INSERT INTO changes (app_id, kind, entity_id, at) VALUES (?, ?, ?, ?)",
                       [appID, kind.rawValue, entityID, now])
        return db.lastInsertRowID
    }

    /// Up to `limit` changes after `sequence`, oldest first.
    static func after(_ db: Database, sequence: Int64, limit: Int) throws -> [Change] {
        try db.query("SELECT seq, app_id, kind, entity_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?", [sequence, limit]).map { row in
            let name: String = try row.get(2)
            guard let kind = Change.Kind(rawValue: name) else {
                throw ChangeFeedError.unknownKind(name)
            }
            return Change(sequence: try row.get(0), appID: try row.get(1), kind: kind, entityID: try row.get(3))
        }
    }

    /// The newest sequence ever written (0 when none): AUTOINCREMENT keeps it in `sqlite_sequence`
    /// even once its row is pruned.
    static func latestSequence(_ db: Database) throws -> Int64 {
        try db.queryOne("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.get(0) ?? 0
    }

    /// The oldest sequence still stored, or nil when the table is empty.
    static func oldestSequence(_ db: Database) throws -> Int64? {
        try db.queryOne("SELECT min(seq) FROM changes")?.get(0)
    }

    static func count(_ db: Database) throws -> Int {
        try db.queryOne("SELECT count(*) FROM changes")?.get(0) ?? 0
    }

    /// Deletes changes older than `before` (ms) and, beyond those, all but the newest `keep`.
    /// Returns how many were deleted.
    @discardableResult
    static func prune(_ db: Database, olderThan before: Int64, keepingAtMost keep: Int) throws -> Int {
        try db.execute("DELETE FROM changes WHERE at < ?", [before])
        var deleted = db.changes
        try db.execute("DELETE FROM changes WHERE seq <= (SELECT seq FROM changes ORDER BY seq DESC LIMIT 1 OFFSET ?)", [keep])
        deleted += db.changes
        return deleted
    }
}
