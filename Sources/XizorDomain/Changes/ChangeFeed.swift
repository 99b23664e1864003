import Foundation
import Synchronization

/// A change this binary cannot apply (a newer binary wrote it).
public enum ChangeFeedError: Error, Sendable, CustomStringConvertible {
    case unknownKind(String)
    /// The database did not answer its commit counter.
    case noDataVersion

    public var description: String {
        switch self {
        case .unknownKind(let kind):
            "the change feed holds a change of unknown kind '\(kind)' (written by a newer binary?)"
        case .noDataVersion: "the database answered no commit counter (PRAGMA data_version)"
        }
    }
}

/// Every process's view of every committed change (docs/scaling.md, "One source of truth").
///
/// Writers append a `Change` in the transaction of the write it describes (`ChangeStore.append`);
/// then `catchUp()` applies, in sequence order, every change after the last one this process
/// applied — its own and any other process's — before the write answers. A tailer (`startTailing`)
/// calls `catchUp()` whenever the store's `CommitWatcher` (on SQLite, `PRAGMA data_version` on a
/// connection of its own) says another connection committed, so a CLI command, a restore or a second server is seen within one poll interval.
///
/// Applying re-reads state from the database (an app's keys, an app's serving snapshot), so it is
/// idempotent: applying a change twice costs time, never correctness. A process that finds changes
/// pruned past its position (it was paused longer than the retention) reloads everything.
public final class ChangeFeed: Sendable {
    /// What a batch of changes asks a process to re-read.
    public struct Effects: Sendable, Equatable {
        /// Apps whose keys to re-read; `admin` for the admin tokens.
        public var keyApps: Set<String> = []
        public var adminKeys = false
        /// Per app, what of its serving snapshot to re-read.
        public var serving: [String: ServingState.Update] = [:]
        /// Per app, the subscribers whose cached attributes to drop (nil entity: the whole cache).
        public var subscribers: [String: Set<String>] = [:]
        public var allSubscribers = false
        /// Changes were pruned before this process read them: reload everything.
        public var reloadAll = false

        public init() {}

        /// Folds `changes` into what to re-read, each app once however many of its changes came.
        public init(_ changes: [Change]) {
            for change in changes {
                switch change.kind {
                case .app, .key:
                    if let app = change.appID { keyApps.insert(app) } else { adminKeys = true }
                case .paywall:
                    guard let app = change.appID else { continue }
                    if let paywall = change.entityID {
                        serving[app, default: .init()].paywalls.insert(paywall)
                    } else {
                        serving[app, default: .init()].whole = true
                    }
                case .placement, .experiment:
                    if let app = change.appID { serving[app, default: .init()].routing = true }
                case .subscriber:
                    if let app = change.appID, let subscriber = change.entityID {
                        subscribers[app, default: []].insert(subscriber)
                    } else {
                        allSubscribers = true
                    }
                }
            }
        }
    }

    public typealias Applier = @Sendable (Effects) throws -> Void

    private let store: any DataStore
    private let clock: Clock
    /// The last sequence applied here; guarded by the lock so two catch-ups never interleave
    /// (a later snapshot must not be overwritten by an earlier one).
    private let position: Mutex<Int64>
    /// In a struct: a closure stored directly as a generic container's value is re-abstracted on
    /// every `inout` access, and the thunks pile up — each read wrapped the stored closure twice
    /// more, until a publish at 10,000 paywalls spent half its CPU walking the chain.
    private struct ApplierSlot: Sendable { var apply: Applier? }
    private let applier = Mutex(ApplierSlot())
    private let tailing = Atomic<Bool>(false)
    /// Signalled by the tailer thread when it has left its loop (and closed its connection).
    private let tailerStopped = DispatchSemaphore(value: 0)
    private let applied = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    private let behind = Atomic<Bool>(false)
    /// Changes read per query while catching up.
    static let batch = 1000

    /// Starts at the newest change already written: whatever the caller loads next (every key, every
    /// app) includes it. Read before loading, so a change committed meanwhile is applied again (harmless).
    public init(store: any DataStore, clock: Clock) throws {
        self.store = store
        self.clock = clock
        position = Mutex(try store.read { tx in try tx.changes.latestSequence() })
    }

    /// Sets what applying a batch does (the services' reloads); until then changes only advance the position.
    public func setApplier(_ apply: @escaping Applier) {
        applier.withLock { $0.apply = apply }
    }

    /// The last sequence this process applied.
    public var appliedSequence: Int64 { position.withLock { $0 } }
    /// Changes applied since start, and failed catch-ups (for /metrics).
    public var appliedCount: Int { applied.load(ordering: .relaxed) }
    public var failureCount: Int { failures.load(ordering: .relaxed) }
    /// False from a failed poll until a poll succeeds again: a process cut off from its database
    /// (a PostgreSQL replica partitioned, a database restarting) may be serving stale state, so
    /// `/readyz` answers 503 until the feed has caught up.
    public var isCaughtUp: Bool { !behind.load(ordering: .relaxed) }

    /// Applies every change committed after the last one applied here. Called after each write
    /// (so a write is live in this process before it answers) and by the tailer.
    public func catchUp() throws {
        try position.withLock { last in
            while true {
                let (changes, oldest): ([Change], Int64?) = try store.read { tx in
                    (try tx.changes.after(sequence: last, limit: Self.batch), try tx.changes.oldestSequence())
                }
                guard let newest = changes.last?.sequence else { return }
                var effects = Effects(changes)
                // Rows between our position and the oldest kept were pruned unseen.
                if let oldest, oldest > last + 1 { effects.reloadAll = true }
                if let apply = applier.withLock({ $0.apply }) { try apply(effects) }
                applied.add(changes.count, ordering: .relaxed)
                last = newest
                if changes.count < Self.batch { return }
            }
        }
    }

    /// Polls the store's commit counter every `intervalMs` and catches up
    /// when another connection committed; prunes the table every `pruneEveryMs`. Runs until
    /// `stopTailing()`. Failures are counted, logged and retried a second later, never fatal.
    public func startTailing(
        intervalMs: Int, retentionMs: Int64, maxRows: Int, pruneEveryMs: Int64 = 10_000,
        onError: @escaping @Sendable (String) -> Void
    ) throws {
        precondition(intervalMs > 0 && maxRows > 0, "the change feed needs a positive interval and row cap")
        guard !tailing.exchange(true, ordering: .acquiring) else {
            preconditionFailure("the change feed is already tailing")
        }
        let watcher = WatcherBox(try store.makeCommitWatcher())
        let thread = Thread { [self] in
            var version: Int64 = -1
            var lastPrune: Int64 = 0
            while tailing.load(ordering: .relaxed) {
                var failed = false
                do {
                    let now = try watcher.watcher.commitCounter()
                    if now != version {
                        try catchUp()
                        version = now  // only once applied: a failed catch-up is retried on the next poll
                    }
                    let millis = clock.now()
                    if millis - lastPrune >= pruneEveryMs {
                        lastPrune = millis
                        _ = try store.write { tx in
                            try tx.changes.prune(olderThan: millis - retentionMs, keepingAtMost: maxRows)
                        }
                    }
                    behind.store(false, ordering: .relaxed)
                } catch {
                    behind.store(true, ordering: .relaxed)
                    failures.add(1, ordering: .relaxed)
                    onError("\(error)")
                    failed = true
                }
                // After a failure, wait a second: a broken database must not flood the log 20 times a second.
                if failed {
                    usleep(useconds_t(max(intervalMs, 1000) * 1000))
                } else {
                    watcher.watcher.waitForCommit(upToMs: intervalMs)
                }
            }
            watcher.watcher.close()
            tailerStopped.signal()
        }
        thread.name = "xizor-change-feed"
        thread.start()
    }

    /// Stops the tailer and waits for it to leave its loop (before the store is closed under it).
    public func stopTailing() {
        guard tailing.exchange(false, ordering: .acquiringAndReleasing) else { return }
        _ = tailerStopped.wait(timeout: .now() + 10)
    }
}

/// The tailer's commit watcher: touched only by the tailer thread (hence the unchecked Sendable).
private final class WatcherBox: @unchecked Sendable {
    let watcher: any CommitWatcher
    init(_ watcher: any CommitWatcher) { self.watcher = watcher }
}
