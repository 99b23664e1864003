import Storage
import Testing

/// What `DatabasePool.effectiveSettings()` reports must be what SQLite applied on the writer, for
/// every synchronous level: the running server's durability view (`/v1/diagnostics`, the start-up
/// log line) is only as honest as this read-back.
@Suite struct EffectiveSettingsTests {
    @Test(arguments: DatabaseConfiguration.Synchronous.allCases)
    func theWriterReportsWhatItApplied(level: DatabaseConfiguration.Synchronous) throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(
            path: directory.file("x.sqlite"),
            configuration: DatabaseConfiguration(
                synchronous: level, busyTimeoutMs: 1234, readConnections: 3,
                writerCacheBytes: 4321 * 1024, walAutocheckpointPages: 777))
        defer { pool.close() }
        let settings = try pool.effectiveSettings()
        #expect(
            settings
                == EffectiveSettings(
                    journalMode: "wal", synchronous: level, foreignKeys: true,
                    busyTimeoutMs: 1234, readConnections: 3, cacheBytes: 4321 * 1024, walAutocheckpointPages: 777))
    }

    /// The defaults are the writer's, not SQLite's (2 MiB, 1000 pages): the event-ingest figures
    /// in docs/benchmarks.md were measured with them. Readers keep SQLite's cache.
    @Test func theWriterRunsWithItsCacheAndCheckpointIntervalAndReadersDoNot() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("x.sqlite"))
        defer { pool.close() }
        let settings = try pool.effectiveSettings()
        #expect(settings.cacheBytes == DatabaseConfiguration.defaultWriterCacheBytes)
        #expect(settings.walAutocheckpointPages == DatabaseConfiguration.defaultWALAutocheckpointPages)
        let readerCache: Int = try pool.read { db in try #require(try db.queryOne("PRAGMA cache_size")).get(0) }
        #expect(readerCache == -2000, "SQLite's default on read-only connections")
    }

    @Test func aChangeOnTheConnectionShowsInTheReport() throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.file("x.sqlite"))
        defer { pool.close() }
        #expect(try pool.effectiveSettings().synchronous == .full)
        try pool.writeWithoutTransaction { db in try db.execute("PRAGMA synchronous=NORMAL") }
        #expect(
            try pool.effectiveSettings().synchronous == .normal, "read back from SQLite, not from the configuration")
    }
}
