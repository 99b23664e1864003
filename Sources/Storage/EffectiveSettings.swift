/// The settings a connection really runs with, read back from SQLite (`PRAGMA journal_mode`,
/// `synchronous`, `foreign_keys`, `busy_timeout`, `cache_size`, `wal_autocheckpoint`) rather than taken from the configuration: the
/// promise that every acknowledged write survives power loss rests on what the writer applied, so
/// that is what operators and tests are shown.
public struct EffectiveSettings: Sendable, Equatable {
    public var journalMode: String
    /// Nil when SQLite answers a level this build does not name (never expected).
    public var synchronous: DatabaseConfiguration.Synchronous?
    public var foreignKeys: Bool
    public var busyTimeoutMs: Int
    public var readConnections: Int
    /// The connection's page cache in bytes (SQLite answers a negative size in KiB, or a page count).
    public var cacheBytes: Int
    public var walAutocheckpointPages: Int

    public init(
        journalMode: String, synchronous: DatabaseConfiguration.Synchronous?, foreignKeys: Bool,
        busyTimeoutMs: Int, readConnections: Int, cacheBytes: Int, walAutocheckpointPages: Int
    ) {
        self.journalMode = journalMode
        self.synchronous = synchronous
        self.foreignKeys = foreignKeys
        self.busyTimeoutMs = busyTimeoutMs
        self.readConnections = readConnections
        self.cacheBytes = cacheBytes
        self.walAutocheckpointPages = walAutocheckpointPages
    }

    /// `PRAGMA synchronous` answers a number: 0 off, 1 normal, 2 full, 3 extra.
    static func synchronous(level: Int) -> DatabaseConfiguration.Synchronous? {
        switch level {
        case 0: .off
        case 1: .normal
        case 2: .full
        case 3: .extra
        default: nil
        }
    }
}

extension Database {
    /// This connection's settings as SQLite reports them.
    public func effectiveSettings(readConnections: Int) throws(SQLiteError) -> EffectiveSettings {
        func pragma(_ name: String) throws(SQLiteError) -> Row {
            guard let row = try queryOne("PRAGMA \(name)") else {
                throw SQLiteError.misuse("PRAGMA \(name) answered no row")
            }
            return row
        }
        let journal: String = try pragma("journal_mode").get(0)
        let synchronous: Int = try pragma("synchronous").get(0)
        let foreignKeys: Int = try pragma("foreign_keys").get(0)
        let busyTimeout: Int = try pragma("busy_timeout").get(0)
        let cacheSize: Int = try pragma("cache_size").get(0)
        let pageSize: Int = try pragma("page_size").get(0)
        let autocheckpoint: Int = try pragma("wal_autocheckpoint").get(0)
        return EffectiveSettings(
            journalMode: journal.lowercased(),
            synchronous: EffectiveSettings.synchronous(level: synchronous),
            foreignKeys: foreignKeys != 0, busyTimeoutMs: busyTimeout,
            readConnections: readConnections,
            cacheBytes: cacheSize < 0 ? -cacheSize * 1024 : cacheSize * pageSize,
            walAutocheckpointPages: autocheckpoint)
    }
}

extension DatabasePool {
    /// The writer connection's effective settings (the connection every commit goes through).
    public func effectiveSettings() throws -> EffectiveSettings {
        try writeWithoutTransaction { db in
            try db.effectiveSettings(readConnections: max(1, configuration.readConnections))
        }
    }
}
