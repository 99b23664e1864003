import Storage

struct SQLiteChangeStore: ChangeStore {
    let db: Database

    @discardableResult
    func append(appID: String?, kind: Change.Kind, entityID: String?, now: Int64) throws -> Int64 {
        try db.execute(
            "INSERT INTO changes (app_id, kind, entity_id, at) VALUES (?, ?, ?, ?)",
            [appID, kind.rawValue, entityID, now])
        return db.lastInsertRowID
    }

    func after(sequence: Int64, limit: Int) throws -> [Change] {
        try db.query(
            "SELECT seq, app_id, kind, entity_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?", [sequence, limit]
        ).map { row in
            let name: String = try row.get(2)
            guard let kind = Change.Kind(rawValue: name) else {
                throw ChangeFeedError.unknownKind(name)
            }
            return Change(sequence: try row.get(0), appID: try row.get(1), kind: kind, entityID: try row.get(3))
        }
    }

    /// AUTOINCREMENT keeps the newest sequence in `sqlite_sequence` even once its row is pruned.
    func latestSequence() throws -> Int64 {
        try db.queryOne("SELECT seq FROM sqlite_sequence WHERE name = 'changes'")?.get(0) ?? 0
    }

    func oldestSequence() throws -> Int64? {
        try db.queryOne("SELECT min(seq) FROM changes")?.get(0)
    }

    func count() throws -> Int {
        try db.queryOne("SELECT count(*) FROM changes")?.get(0) ?? 0
    }

    @discardableResult
    func prune(olderThan before: Int64, keepingAtMost keep: Int) throws -> Int {
        try db.execute("DELETE FROM changes WHERE at < ?", [before])
        var deleted = db.changes
        try db.execute(
            "DELETE FROM changes WHERE seq <= (SELECT seq FROM changes ORDER BY seq DESC LIMIT 1 OFFSET ?)", [keep])
        deleted += db.changes
        return deleted
    }
}
