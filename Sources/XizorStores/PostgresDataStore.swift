import Dispatch
import Glibc
import PaywallFormat
import PostgresStorage
import Storage
import XizorDomain

/// Many stateless replicas on one PostgreSQL (`storage.driver` = `postgres`). Reads run in
/// read-only REPEATABLE READ transactions (one snapshot each), writes in read-write transactions
/// retried on serialization failures; every store is a thin struct over the transaction's connection.
public final class PostgresDataStore: DataStore {
    public let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    private let transactions = SQLTransactions<PGConnection> { PostgresEventIngest(db: $0) }

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
        do { return try PostgresCommitWatcher(url: pool.url) } catch { throw ServiceError.storage(error) }
    }

    public var readConnections: Int { pool.size }

    public var metrics: StorageMetrics { pool.metrics }

    public func diagnostics() throws -> JSONValue {
        do {
            return try pool.withConnection { c in
                func show(_ setting: String) throws -> JSONValue {
                    guard let value: String = try c.queryOne("SHOW \(setting)")?.get(0) else {
                        throw StoreInconsistency(detail: "SHOW \(setting) answered no row")
                    }
                    return .string(value)
                }
                return [
                    "driver": "postgres", "serverVersion": try show("server_version"),
                    "synchronousCommit": try show("synchronous_commit"),
                    "defaultIsolation": try show("default_transaction_isolation"), "poolSize": .number(pool.size),
                ]
            }
        } catch { throw ServiceError.storage(error) }
    }

    public func close() { pool.close() }
}

/// `LISTEN xizor_changes` on a connection of its own: every transaction that appends a change
/// notifies at commit, so `waitForCommit` wakes at once in every replica. Notifications sent while
/// this connection was down are lost, so a reconnect counts as a commit (the feed then reads what
/// it missed), and so does every `fallbackMs` without one (a last resort against a silent loss).
final class PostgresCommitWatcher: CommitWatcher {
    private let url: String
    private var connection: PGConnection?
    private var counter: Int64 = 0
    private var lastBump = PostgresCommitWatcher.millis()
    static let fallbackMs: Int64 = 1000

    init(url: String) throws {
        self.url = url
        try connect()
    }

    private func connect() throws {
        let c = try PGConnection(url: url)
        try c.listen(SQLChangeStore.channel)
        connection = c
        counter += 1
    }

    func commitCounter() throws -> Int64 {
        guard let connection, connection.isHealthy else {
            self.connection?.close()
            self.connection = nil
            try connect()
            return counter
        }
        do {
            counter += Int64(try connection.drainNotifications())
        } catch {
            connection.close()
            self.connection = nil
            throw error
        }
        let now = PostgresCommitWatcher.millis()
        if now - lastBump >= Self.fallbackMs {
            lastBump = now
            counter += 1
        }
        return counter
    }

    func waitForCommit(upToMs timeout: Int) {
        guard let connection, connection.socket >= 0 else {
            usleep(useconds_t(timeout * 1000))
            return
        }
        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(timeout))
    }

    private static func millis() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

    func close() {
        connection?.close()
        connection = nil
    }
}
