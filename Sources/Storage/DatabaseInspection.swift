extension DatabasePool {
    /// Whether the database has a table of this name (`sqlite_master`).
    public func hasTable(named name: String) throws -> Bool {
        try read { db in try db.queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) != nil
        }
    }

    /// The database's own tables (`sqlite_master`), SQLite's internal ones aside, in name order.
    public func tableNames() throws -> [String] {
        try read { db in
            try db.query(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
            .map { try $0.get(0) }
        }
    }

    /// What `PRAGMA quick_check` finds wrong with `tables` and their indexes only (the pages of
    /// other tables are not read, nor the free list): empty when each answers "ok". Lets a start
    /// check what it must at a price that does not grow with the tables left out.
    public func quickCheckProblems(tables: [String]) throws -> [String] {
        try read { db in
            var problems: [String] = []
            for table in tables {
                // A pragma's argument is not a bound parameter; the names come from sqlite_master.
                let quoted =
                    "'" + table.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
                let answer: [String] = try db.query("PRAGMA quick_check(\(quoted))").map { try $0.get(0) }
                if answer != ["ok"] { problems += answer.map { "\(table): \($0)" } }
            }
            return problems
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
