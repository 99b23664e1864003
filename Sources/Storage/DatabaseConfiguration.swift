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

    public init(synchronous: Synchronous = .full, busyTimeoutMs: Int = 5000, readConnections: Int = 4,
                writeBusyRetries: Int = 3) {
        self.synchronous = synchronous
        self.busyTimeoutMs = busyTimeoutMs
        self.readConnections = readConnections
        self.writeBusyRetries = writeBusyRetries
    }
}
