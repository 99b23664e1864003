import Foundation
import Synchronization

/// Folds queued events into the rollups (docs/analytics.md, "Rollups"): each pass takes up to
/// `batch` queue entries, adds their events to the hour and day buckets, merges experiment
/// members' progress, and deletes exactly those entries, in one write transaction. A pass holds the
/// writer for a bounded time (its batch), and a failed pass leaves the queue as it was.
public final class EventRollupService: Sendable {
    private let store: any DataStore
    /// Queue entries per pass (`analytics.rollupBatch`).
    public let batch: Int
    private let foldedEvents = Atomic<Int>(0)
    private let failedPasses = Atomic<Int>(0)

    public init(store: any DataStore, batch: Int = 5_000) {
        precondition(batch > 0, "a pass folds at least one event")
        self.store = store
        self.batch = batch
    }

    /// One pass from the start of the queue; answers how many queue entries it took (fewer than
    /// `batch`: the queue is empty).
    @discardableResult
    public func foldOnce() throws -> Int { try pass(after: 0).taken }

    /// Folds until a pass from the start of the queue finds fewer than `batch` entries (a test's or
    /// the CLI's way to wait for the rollups, and the job's pass every interval).
    ///
    /// Each pass after the first starts after the last entry the previous one took, not at the start:
    /// a pass deletes what it folded, and on PostgreSQL those deleted index entries stay until vacuum,
    /// so a backfill reading "the oldest 5,000" every time walked more of them with each pass (9,000
    /// events/s at 5 M queued). Entries behind the cursor — a PostgreSQL writer that took its
    /// sequence number earlier and committed later — are taken by the pass from the start that ends
    /// every run.
    public func foldAll() throws {
        var after: Int64 = 0
        while true {
            let (taken, last) = try pass(after: after)
            if taken == batch {
                after = last
            } else if after == 0 {
                return
            } else {
                after = 0
            }
        }
    }

    private func pass(after: Int64) throws -> (taken: Int, last: Int64) {
        do { return try fold(after: after) } catch {
            failedPasses.add(1, ordering: .relaxed)
            throw error
        }
    }

    private func fold(after: Int64) throws -> (taken: Int, last: Int64) {
        let taken = try store.write { tx in
            try tx.rollups.lockFold()
            let queued = try tx.rollups.queued(after: after, limit: batch)
            var perApp: [String: EventRollup] = [:]
            for entry in queued {
                guard let event = entry.event else { continue }
                perApp[entry.appID, default: EventRollup()].add(event, spans: RollupSpan.allCases)
            }
            for (appID, rollup) in perApp.sorted(by: { $0.key < $1.key }) {
                try tx.rollups.fold(appID: appID, rollup)
            }
            try Self.recordTokens(queued, tx)
            try tx.rollups.dequeue(queued.map(\.seq))
            return (queued.count, queued.last?.seq ?? after)
        }
        foldedEvents.add(taken.0, ordering: .relaxed)
        return taken
    }

    /// Maps the appAccountToken of every subscriber who opened a paywall back to them (docs/revenue.md,
    /// "Attribution"), for the apps that receive Apple's notifications: one hash and one upsert per
    /// subscriber of the pass, none for apps without Apple settings.
    static func recordTokens(_ queued: [QueuedEvent], _ tx: any StoreTransaction) throws {
        var opened: [String: Set<String>] = [:]
        for entry in queued {
            guard let event = entry.event, event.name == "paywall_open", let subscriber = event.subscriberID else {
                continue
            }
            opened[entry.appID, default: []].insert(subscriber)
        }
        for (appID, subscribers) in opened.sorted(by: { $0.key < $1.key }) {
            guard try tx.revenue.settings(appID: appID)?.appleBundleID != nil else { continue }
            try tx.revenue.recordTokens(
                appID: appID, subscribers.sorted().map { (AppAccountToken.token(for: $0), $0) })
        }
    }

    /// Queue entries folded by this process, for `/metrics`.
    public var folded: Int { foldedEvents.load(ordering: .relaxed) }
    public var failures: Int { failedPasses.load(ordering: .relaxed) }
}

/// Runs `EventRollupService.foldAll` every `intervalMs` (and at once when woken), on one thread.
/// A failure is logged and tried again next time: the queue keeps what was not folded, and reads
/// count what waits there (up to `RollupReader.pendingLimit`), so nothing is lost or shown late
/// by more than a pass.
public final class EventRollupJob: Sendable {
    private let rollups: EventRollupService
    private let intervalMs: Int
    private let log: @Sendable (String) -> Void
    private let running = Atomic<Bool>(false)
    private let wake = WakeSignal()
    private let stopped = DispatchSemaphore(value: 0)

    public init(rollups: EventRollupService, intervalMs: Int, log: @escaping @Sendable (String) -> Void) {
        precondition(intervalMs > 0, "the rollup job runs at a positive interval")
        self.rollups = rollups
        self.intervalMs = intervalMs
        self.log = log
    }

    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else {
            preconditionFailure("the rollup job already runs")
        }
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                let seen = wake.current
                do { try rollups.foldAll() } catch { log("rollup pass failed: \(error)") }
                wake.wait(after: seen, upToMs: intervalMs)
            }
            stopped.signal()
        }
        thread.name = "xizor-rollups"
        thread.start()
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        wake.wake()
        _ = stopped.wait(timeout: .now() + 10)
    }
}
