/// How connections are opened; the defaults favour durability (a committed write survives power
/// loss) over raw speed. Mirrors the "storage" section of Config/xizor.json.
public struct DatabaseConfiguration: Sendable, Equatable {
    /// `PRAGMA synchronous`. `full` fsyncs the WAL on every commit.
    public enum Synchronous: String, Sendable, Equatable, CaseIterable {
        case off, normal, full, extra
    }

    public var synchronous: Synchronous
    /// How long a connection waits on a lock held by another connection before SQLITE_BUSY.
    public var busyTimeoutMs: Int
    /// Read-only connections in a `DatabasePool`.
    public var readConnections: Int
    /// Extra attempts the writer makes to start a transaction after SQLITE_BUSY outlived the timeout.
    public var writeBusyRetries: Int
    /// The writer's page cache in bytes (`PRAGMA cache_size`, set in KiB; SQLite's default is 2 MiB). Indexes
    /// whose new entries land all over them (an event id, a subscriber) otherwise have their pages
    /// evicted between commits and read back from the file on the next one (with this and the
    /// checkpoint interval below, SDK-like event ingest took 25 % less CPU per event:
    /// docs/benchmarks.md). Memory is taken as pages are used,
    /// up to this bound; read-only connections keep SQLite's default.
    public var writerCacheBytes: Int
    /// Pages the WAL may hold before a commit copies them back into the database file
    /// (`PRAGMA wal_autocheckpoint`; SQLite's default is 1000). A page changed by many commits is
    /// copied back once per checkpoint, so a longer interval writes and fsyncs less per commit;
    /// the WAL file keeps its largest size (about this many pages) on disk.
    public var walAutocheckpointPages: Int

    public static let defaultWriterCacheBytes = 64 << 20
    public static let defaultWALAutocheckpointPages = 10_000

    public init(
        synchronous: Synchronous = .full, busyTimeoutMs: Int = 5000, readConnections: Int = 4,
        writeBusyRetries: Int = 3, writerCacheBytes: Int = DatabaseConfiguration.defaultWriterCacheBytes,
        walAutocheckpointPages: Int = DatabaseConfiguration.defaultWALAutocheckpointPages
    ) {
        precondition(
            writerCacheBytes >= 1024 && walAutocheckpointPages > 0, "a cache and a checkpoint interval are positive")
        self.synchronous = synchronous
        self.busyTimeoutMs = busyTimeoutMs
        self.readConnections = readConnections
        self.writeBusyRetries = writeBusyRetries
        self.writerCacheBytes = writerCacheBytes
        self.walAutocheckpointPages = walAutocheckpointPages
    }
}
