import Storage
import Testing

/// What `DatabasePool.effectiveSettings()` reports must be what SQLite applied on the writer, for
/// every synchronous level: the running server's durability view (`/v1/diagnostics`, the start-up
/// log line) is only as honest as this read-back.
@Suite struct EffectiveSettingsTests {
    @Test(arguments: DatabaseConfiguration.Synchronous.allCases)
    func theWriterReportsWhatItApplied(level: DatabaseConfiguration.Synchronous) throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("x.sqlite"),
                                    configuration: DatabaseConfiguration(synchronous: level, busyTimeoutMs: 1234, readConnections: 3))
        defer { pool.close() }
        let settings = try pool.effectiveSettings()
        #expect(settings == EffectiveSettings(journalMode: "wal", synchronous: level, foreignKeys: true,
                                              busyTimeoutMs: 1234, readConnections: 3))
    }

    @Test func aChangeOnTheConnectionShowsInTheReport() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("x.sqlite"))
        defer { pool.close() }
        #expect(try pool.effectiveSettings().synchronous == .full)
        try pool.writeWithoutTransaction { db in try db.execute("PRAGMA synchronous=NORMAL") }
        #expect(try pool.effectiveSettings().synchronous == .normal, "read back from SQLite, not from the configuration")
    }
}
