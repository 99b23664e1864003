import Foundation
import Glibc
import Synchronization

/// What one tenant's reports may cost everyone else. A report (a paywall's funnel, an experiment's
/// results) reads events, and today reads them all: without a bound, a few open results pages of one
/// large app take every read connection, and every other tenant's dashboard waits behind them. So
/// each report runs here, which admits it only
/// - if its app runs fewer than `perApp` reports (else 429 `analytics_busy`: that app's share is
///   taken, other apps are not affected), and
/// - if the process runs fewer than `concurrent` (else 503 `analytics_busy`: kept below the read
///   connections, so the dashboard's and the SDK's reads always find one free),
/// never queueing (a handler thread does not wait for a slot), and stops each of its statements
/// after `queryTimeLimitMs` (`DataStore.read(timeLimit:)`). An admitted report runs on a thread of
/// its own at a lower CPU priority (`reportNice`): read from rollups a report is milliseconds of CPU,
/// not I/O, and a few dashboards reloading results pages would otherwise take every core from the
/// SDK and the dashboard's other requests, which now always run first.
public final class AnalyticsGate: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Reports running at once, all apps together (`analytics.maxConcurrent`).
        public var concurrent = 4
        /// Reports one app may run at once (`analytics.maxConcurrentPerApp`).
        public var perApp = 2
        /// Each statement of a report stops after this long (`analytics.queryTimeLimitMs`).
        public var queryTimeLimitMs = 10_000
        public init() {}
    }

    public let limits: Limits
    private let store: any DataStore
    private let running = Mutex<(total: Int, apps: [String: Int])>((0, [:]))
    private let refusedApp = Atomic<Int>(0)
    private let refusedBusy = Atomic<Int>(0)
    private let timedOut = Atomic<Int>(0)

    /// `readConnections`: how many reads the database serves at once. The process-wide bound is
    /// kept at least one below it (while there is more than one), whatever was configured.
    public init(store: any DataStore, limits: Limits, readConnections: Int) {
        precondition(limits.concurrent >= 1 && limits.perApp >= 1, "a gate admits at least one report")
        precondition(limits.queryTimeLimitMs >= 1, "a time limit is positive")
        var effective = limits
        effective.concurrent = max(1, min(limits.concurrent, readConnections - 1))
        self.limits = effective
        self.store = store
    }

    /// The nice value reports run at (Linux: 0 is the default, 19 the lowest priority): under
    /// contention a report gets about a tenth of the CPU a request at 0 gets.
    static let reportNice: Int32 = 10

    /// Runs `body` in one bounded read for `appID`, or refuses at once.
    public func read<T>(appID: String, _ body: (any StoreTransaction) throws -> T) throws -> T {
        try report(appID: appID) { report in try report.read(body) }
    }

    /// Admits a report of `appID` or refuses at once (429 past its share, 503 past the process's
    /// bound), then runs `body` — its reads and its arithmetic — on a thread of its own at
    /// `reportNice`, and answers what it answered. The caller's thread waits.
    public func report<T>(appID: String, _ body: (Report) throws -> T) throws -> T {
        try admit(appID: appID)
        defer { release(appID: appID) }
        let report = Report(gate: self)
        return try withoutActuallyEscaping(body) { body in
            try LowPriority.run(nice: Self.reportNice) { try body(report) }
        }
    }

    /// What an admitted report may do: read, each statement under the gate's time limit.
    public struct Report {
        let gate: AnalyticsGate

        public func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
            do { return try gate.store.read(timeLimit: gate.limits.queryTimeLimitMs, body) } catch let error
                as ServiceError where error.code == "query_time_limit"
            {
                gate.timedOut.add(1, ordering: .relaxed)
                throw error
            }
        }
    }

    private func admit(appID: String) throws {
        let admission = running.withLock { state -> Admission in
            let mine = state.apps[appID, default: 0]
            guard mine < limits.perApp else { return .appShareTaken }
            guard state.total < limits.concurrent else { return .serverBusy }
            state.apps[appID] = mine + 1
            state.total += 1
            return .admitted
        }
        switch admission {
        case .appShareTaken:
            refusedApp.add(1, ordering: .relaxed)
            throw ServiceError(
                .tooManyRequests, "analytics_busy",
                "This app already runs \(limits.perApp) analytics requests at once (its share); retry when one has answered.",
                retryAfterSeconds: 1)
        case .serverBusy:
            refusedBusy.add(1, ordering: .relaxed)
            throw ServiceError(
                .unavailable, "analytics_busy",
                "The server runs as many analytics requests as it allows at once; retry shortly.",
                retryAfterSeconds: 1)
        case .admitted:
            break
        }
    }

    private func release(appID: String) {
        running.withLock { state in
            let mine = state.apps[appID, default: 0]
            precondition(mine > 0 && state.total > 0, "an analytics slot was released twice")
            state.apps[appID] = mine == 1 ? nil : mine - 1
            state.total -= 1
        }
    }

    private enum Admission { case admitted, appShareTaken, serverBusy }

    /// Refusals since start, by cause, and reports stopped at their time limit (`/metrics`).
    public var refusedForApp: Int { refusedApp.load(ordering: .relaxed) }
    public var refusedForServer: Int { refusedBusy.load(ordering: .relaxed) }
    public var stoppedAtTimeLimit: Int { timedOut.load(ordering: .relaxed) }
}
