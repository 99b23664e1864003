extension DatabasePool {
    /// Whether the database has a table of this name (`sqlite_master`).
    public func hasTable(named name: String) throws -> Bool {
        try read { db in try db.queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) != nil
        }
    }

    /// What SQLite's own check finds wrong with the file: empty when it answers "ok".
    /// `thorough` runs `PRAGMA integrity_check` (reads every page and index entry); otherwise the
    /// faster `PRAGMA quick_check`, which skips matching indexes against their tables.
    public func integrityProblems(thorough: Bool) throws -> [String] {
        let answer: [String] = try read { db in
            try db.query(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check").map { try $0.get(0) }
        }
        return answer == ["ok"] ? [] : answer
    }
}
