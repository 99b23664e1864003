import Execution
import PaywallFormat
import Storage
import Synchronization

/// The database behind the services, whichever it is. Services, the serving state and the change
/// feed reach data only through it: all SQL lives in the stores a `StoreTransaction` hands out,
/// one per aggregate, so a second database (PostgreSQL) is a second implementation of these
/// protocols and nothing above them changes (docs/storage.md, "Stores").
///
/// Errors: driver failures come out as `ServiceError.storage` (503: the database is unwritable,
/// full or gone), a write the schema refuses as 422 `constraint_violation`; a `ServiceError` or
/// `DataFailure` thrown inside a body passes through unchanged and rolls the write back.
public protocol DataStore: AnyObject, Sendable {
    /// Runs `body` against one consistent snapshot: everything one request reads comes from a
    /// single call, so a page of a list never mixes two states of the database.
    func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// `read` with every statement stopped once `milliseconds` have passed (SQLite's progress
    /// handler, PostgreSQL's `statement_timeout`), answered as `ServiceError.timeLimit`: what a
    /// tenant's report may cost the shared read connections is bounded (`analytics.queryTimeLimitMs`).
    func read<T>(timeLimit milliseconds: Int, _ body: (any StoreTransaction) throws -> T) throws -> T
    /// Runs `body` in one write transaction, durable when this returns (a 2xx on a write means it
    /// survives power loss), rolled back when `body` throws. Writes are serialized.
    func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// A watcher the change feed polls to learn that some other connection (another process)
    /// committed, without reading the changes table on every poll.
    func makeCommitWatcher() throws -> any CommitWatcher
    /// How many reads the database serves at once (SQLite's read connections, PostgreSQL's pool),
    /// which `AnalyticsGate` keeps its bound below.
    var readConnections: Int { get }
    /// Write counts and latencies, for `/metrics`.
    var metrics: StorageMetrics { get }
    /// The settings the database really runs with (read back, not configured), for `/v1/diagnostics`.
    func diagnostics() throws -> JSONValue
    /// Closes every connection; nothing may be called afterwards.
    func close()
}

/// Says whether anything was committed since it last answered.
public protocol CommitWatcher: AnyObject {
    /// A number that changes whenever another connection commits (SQLite: `PRAGMA data_version`).
    func commitCounter() throws -> Int64
    /// Returns after at most `timeout` ms, sooner when a commit may have happened (PostgreSQL wakes
    /// on a notification; SQLite, which cannot tell, just waits).
    func waitForCommit(upToMs timeout: Int)
    func close()
}

/// One transaction's view of every aggregate's store.
public protocol StoreTransaction {
    var apps: any AppStore { get }
    var paywalls: any PaywallStore { get }
    var placements: any PlacementStore { get }
    var experiments: any ExperimentStore { get }
    var events: any EventStore { get }
    var rollups: any EventRollupStore { get }
    var timers: any TimerStore { get }
    var audiences: any AudienceStore { get }
    var subscribers: any SubscriberStore { get }
    var assets: any AssetStore { get }
    var changes: any ChangeStore { get }
    var operations: any OperationsStore { get }
    var audit: any AuditStore { get }
    var webhooks: any WebhookStore { get }
    var revenue: any RevenueStore { get }
    var users: any UserStore { get }
}

/// The database is in a state the stores' own writes cannot produce (a row just written is gone).
public struct StoreInconsistency: Error, CustomStringConvertible {
    public let detail: String
    public var description: String { "inconsistent database: \(detail)" }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        detail: String
    ) {
        self.detail = detail
    }
}

/// The one error mapping of every `DataStore` (see its doc comment): what the body threw on purpose
/// passes through; a constraint the validation let through is the caller's 422; any other driver
/// failure is a 503 outage.
///
/// It is also where the rule "an I/O loop never waits on the store" is enforced: a transaction
/// asked for from an `.inline` handler (`InlineExecution.isActive`) is refused with a 500 and
/// counted, so a handler declared inline that reaches the store fails every test that reaches it.
package enum StoreErrors {
    /// Transactions refused because they were asked for on an I/O loop (`/metrics`).
    package static let refusedOnIOLoop = Atomic<Int>(0)

    package static func mapped<T>(isConstraintViolation: (any Error) -> String?, _ body: () throws -> T) throws -> T {
        guard !InlineExecution.isActive else {
            refusedOnIOLoop.add(1, ordering: .relaxed)
            throw ServiceError(
                .internalError, "store_on_io_loop",
                "This request reached the database from an I/O loop, which must never wait on it (a server bug).")
        }
        do { return try body() } catch let error as ServiceError { throw error } catch let error as DataFailure {
            throw error
        } catch {
            if let message = isConstraintViolation(error) {
                throw ServiceError(
                    .unprocessable, "constraint_violation", "The data breaks a rule of the database: \(message)")
            }
            throw ServiceError.storage(error)
        }
    }
}
