import Foundation
import Synchronization
import XizorLog

/// Purges shared caches when what they keep changes (docs/scaling.md, "Purge on change"): a publish,
/// a rollback, an archive, a placement, its rules, an audience, an experiment or a key.
///
/// The change feed is the outbox: every such write appends its change in its own transaction, so a
/// purge can never be lost between a commit and a send. Each process purges every change itself,
/// once *it* has applied the change: behind a load balancer a cache's miss may reach any replica,
/// and a purge sent only by the writer could land before another replica caught up, which would
/// then hand the cache the old answer to keep for `s-maxage`. So every replica bans after it applied;
/// a `BAN` is idempotent. The purger starts from a durable cursor (`settings.cache_purge_cursor`,
/// moved forward as changes are purged, so a change whose writer died before purging is purged by
/// the next process to start), reads the changes this process has applied, sends one `BAN` per app
/// (or per placement, when only that placement changed) to every configured cache, and moves on only
/// once every cache answered 2xx; a failure is retried with backoff from the same place, and
/// `s-maxage` bounds what a cache serves meanwhile. Changes pruned before they were purged (the
/// purger was stopped longer than the feed keeps them) purge every app.
public final class CachePurger: Sendable {
    public struct Options: Sendable {
        public var urls: [String]
        public var timeoutMs: Int
        /// How often the change feed is looked at without a wake-up (another process's write).
        public var pollMs = 1_000
        public var maxBackoffMs = 60_000

        public init(urls: [String], timeoutMs: Int) {
            self.urls = urls
            self.timeoutMs = timeoutMs
        }
    }

    /// One purge: every answer of an app, or of one of its placements (`appID` "*": every app).
    public struct Ban: Hashable, Sendable {
        public let appID: String
        public let placement: String?

        var headers: [String] {
            ["X-Xizor-App: \(appID)"] + (placement.map { ["X-Xizor-Placement: \($0)"] } ?? [])
        }
    }

    /// The purge tag of `GET /v1/sdk/signing-keys` (`X-Xizor-App` on its answer): not an app id (those
    /// start `app_`), banned when the keys rotate so apps see the new ones before `max-age` runs out.
    public static let signingKeysTag = "_signing-keys"

    static let cursorKey = "cache_purge_cursor"
    static let batch = 500

    private let store: any DataStore
    private let clock: Clock
    /// What this process has applied: nothing newer is purged yet.
    private let feed: ChangeFeed
    /// The newest change this process has purged (nil until the first pass reads the durable cursor).
    private let position = Mutex<Int64?>(nil)
    private let options: Options
    private let signal: WakeSignal
    private let running = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private let counters: CachePurgeCounters
    private let logger: Logger?

    /// `signal` is rung on every change this process applies (the services' `outboxSignal`);
    /// `counters` are the services' (`/metrics`).
    public init(
        store: any DataStore, clock: Clock, feed: ChangeFeed, options: Options, signal: WakeSignal,
        counters: CachePurgeCounters, logger: Logger? = nil
    ) {
        precondition(!options.urls.isEmpty, "a purger needs a cache to purge")
        self.store = store
        self.clock = clock
        self.feed = feed
        self.options = options
        self.signal = signal
        self.counters = counters
        self.logger = logger
    }

    public func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "xizor-cache-purger"
        thread.start()
    }

    public func stop() {
        guard running.compareExchange(expected: true, desired: false, ordering: .relaxed).exchanged else { return }
        signal.wake()
        stopped.wait()
    }

    private func run() {
        guard
            let sender = WebhookSender(
                options: .init(timeoutMs: options.timeoutMs, allowPrivateTargets: true, caFile: nil))
        else { return }
        var backoffMs = 0
        while running.load(ordering: .relaxed) {
            let seen = signal.current
            do {
                if try purgeOnce(with: sender) {
                    backoffMs = 0
                    continue  // there may be more
                }
                backoffMs = 0
                signal.wait(after: seen, upToMs: options.pollMs)
            } catch {
                counters.failed.add(1, ordering: .relaxed)
                backoffMs = min(max(backoffMs * 2, 250), options.maxBackoffMs)
                logger?.warning(
                    "cache purge failed; retrying",
                    [("error", .string("\(error)")), ("retryInMs", .int(Int64(backoffMs)))])
                // Waits on the signal, not a sleep: `stop()` rings it, so shutting down never waits out a backoff.
                let deadline = DispatchTime.now() + .milliseconds(backoffMs)
                while running.load(ordering: .relaxed), DispatchTime.now() < deadline {
                    signal.wait(after: signal.current, upToMs: 50)
                }
            }
        }
    }

    /// Sends the purges of the next changes this process has applied and moves past them; true when
    /// there were any. Throws when a cache did not answer 2xx (the position stays).
    func purgeOnce(with sender: WebhookSender) throws -> Bool {
        // Read first: a change applied after this line is purged by the next pass, never skipped.
        let applied = feed.appliedSequence
        guard let from = position.withLock({ $0 }) else {
            let start = try startingPoint()
            position.withLock { $0 = start }
            return true  // there may be changes after it already
        }
        // Read, not written: this runs every poll, and a write would take the database's one writer.
        let (changes, pruned, durable) = try store.read { tx -> ([Change], Bool, Int64) in
            let changes = try tx.changes.after(sequence: from, limit: Self.batch).filter { $0.sequence <= applied }
            let oldest = try tx.changes.oldestSequence()
            let durable = try tx.operations.setting(Self.cursorKey).flatMap { Int64($0) } ?? 0
            return (changes, oldest.map { $0 > from + 1 } ?? false, durable)
        }
        guard pruned || !changes.isEmpty else { return false }
        let bans = pruned ? [Ban(appID: "*", placement: nil)] : Self.bans(for: changes)
        for ban in bans {
            for url in options.urls {
                switch sender.post(url: url, body: [], headers: ban.headers, method: "BAN") {
                case .status(let status) where (200..<300).contains(status):
                    counters.sent.add(1, ordering: .relaxed)
                case .status(let status):
                    throw PurgeFailure(detail: "\(url) answered \(status) to a purge")
                case .failed(let code, let detail):
                    throw PurgeFailure(detail: "\(url): \(code): \(detail)")
                }
            }
        }
        // After `*`, everything this process had applied when the pass began is covered.
        let next = pruned ? max(applied, from) : changes.last?.sequence ?? from
        position.withLock { $0 = next }
        // A replica following the writer finds the cursor already moved: no write transaction.
        guard next > durable else { return true }
        try store.write { tx in
            // Another process may have moved it further meanwhile: the cursor never goes back.
            let current = try tx.operations.setting(Self.cursorKey).flatMap { Int64($0) } ?? 0
            if next > current { try tx.operations.setSetting(Self.cursorKey, String(next), now: clock.now()) }
        }
        return true
    }

    /// Where this process starts: the durable cursor, so what no process purged before is purged now.
    /// The very first start begins at the newest change (nothing older was kept by a cache this
    /// purger knew of); two processes starting at once keep the first one's cursor.
    private func startingPoint() throws -> Int64 {
        if let stored = try store.read({ tx in try tx.operations.setting(Self.cursorKey) }) {
            guard let cursor = Int64(stored) else { throw PurgeFailure(detail: "\(Self.cursorKey) is not a number") }
            return cursor
        }
        return try store.write { tx in
            let latest = try tx.changes.latestSequence()
            let kept = try tx.operations.sharedSecret(Self.cursorKey, candidate: String(latest), now: clock.now())
            guard let cursor = Int64(kept) else { throw PurgeFailure(detail: "\(Self.cursorKey) is not a number") }
            return cursor
        }
    }

    /// What `changes` purge: an app's answers for a change of its paywalls, experiments, audiences
    /// or keys; one placement's for a change of that placement; the published signing keys when they
    /// rotate; nothing for a subscriber's attributes (answers that read them are never kept by a
    /// shared cache).
    static func bans(for changes: [Change]) -> [Ban] {
        var apps: [String] = []
        var placements: [String: [String]] = [:]
        var signingKeys = false
        for change in changes {
            guard let app = change.appID else {
                if change.kind == .key, change.entityID == AnswerSigning.changeEntity { signingKeys = true }
                continue
            }
            switch change.kind {
            case .subscriber: continue
            case .placement:
                if let key = change.entityID {
                    placements[app, default: []].append(key)
                } else {
                    apps.append(app)
                }
            case .app, .key, .paywall, .experiment: apps.append(app)
            }
        }
        let whole = Set(apps)
        var bans = whole.sorted().map { Ban(appID: $0, placement: nil) }
        for (app, keys) in placements.sorted(by: { $0.key < $1.key }) where !whole.contains(app) {
            bans += Set(keys).sorted().map { Ban(appID: app, placement: $0) }
        }
        if signingKeys { bans.append(Ban(appID: signingKeysTag, placement: nil)) }
        return bans
    }
}

/// What this process's purger did, for `/metrics` (zero when it purges nothing).
public final class CachePurgeCounters: Sendable {
    /// Purge requests a cache answered 2xx.
    public let sent = Atomic<Int>(0)
    /// Passes that failed (a cache refused or could not be reached, or the database was away): retried.
    public let failed = Atomic<Int>(0)
    public init() {}
}

struct PurgeFailure: Error, CustomStringConvertible {
    let detail: String
    var description: String { detail }
}
