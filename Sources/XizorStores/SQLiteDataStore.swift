import Glibc
import PaywallFormat
import Storage
import XizorDomain

/// The embedded default: one SQLite file in WAL mode, one writer and a few readers
/// (`DatabasePool`). Every store is a thin struct over the connection of the current transaction.
public final class SQLiteDataStore: DataStore {
    /// The pool itself, for the SQLite-only tools around it (backup, migrations, tests).
    public let pool: DatabasePool

    public init(pool: DatabasePool) { self.pool = pool }

    private let transactions = SQLTransactions<Database> { SQLiteEventIngest(db: $0) }

    public func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try transactions.run({ try pool.read($0) }, body)
    }

    public func read<T>(timeLimit milliseconds: Int, _ body: (any StoreTransaction) throws -> T) throws -> T {
        try transactions.run({ try pool.read($0) }, timeLimit: milliseconds, body)
    }

    public func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try transactions.run({ try pool.write($0) }, body)
    }

    public func makeCommitWatcher() throws -> any CommitWatcher {
        do {
            return SQLiteCommitWatcher(
                try Database(path: pool.path, mode: .readOnly, configuration: pool.configuration))
        } catch { throw ServiceError.storage(error) }
    }

    public var readConnections: Int { max(1, pool.configuration.readConnections) }

    public var metrics: StorageMetrics { pool.metrics }

    public func diagnostics() throws -> JSONValue {
        let settings: EffectiveSettings
        do { settings = try pool.effectiveSettings() } catch { throw ServiceError.storage(error) }
        return [
            "driver": "sqlite",
            "journalMode": .string(settings.journalMode),
            "synchronous": settings.synchronous.map { .string($0.rawValue) } ?? .null,
            "foreignKeys": .bool(settings.foreignKeys),
            "busyTimeoutMs": .number(settings.busyTimeoutMs),
            "readConnections": .number(settings.readConnections),
            "writerCacheBytes": .number(settings.cacheBytes),
            "walAutocheckpointPages": .number(settings.walAutocheckpointPages),
        ]
    }

    public func close() { pool.close() }
}

/// `PRAGMA data_version` is per connection: it changes when any *other* connection commits. This
/// connection is touched only by the change feed's tailer thread.
final class SQLiteCommitWatcher: CommitWatcher {
    private let database: Database
    init(_ database: Database) { self.database = database }

    func commitCounter() throws -> Int64 {
        guard let version: Int64 = try database.queryOne("PRAGMA data_version")?.get(0) else {
            throw ServiceError.storage(ChangeFeedError.noDataVersion)
        }
        return version
    }

    func waitForCommit(upToMs timeout: Int) { usleep(useconds_t(timeout * 1000)) }

    func close() { database.close() }
}
