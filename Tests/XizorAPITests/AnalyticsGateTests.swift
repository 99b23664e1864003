import Foundation
import Glibc
import Storage
import Synchronization
import Testing

@testable import XizorAPI
@testable import XizorDomain
@testable import XizorStores

/// Reports read events, so one tenant's open results pages could take every read connection: the
/// gate admits each app's share at once or refuses it (never queues), keeps the process below the
/// read connections, and stops a report's statements at their time limit.
@Suite struct AnalyticsGateTests {
    /// A statement neither database finishes within the limits used here (a billion rows counted).
    static let endless: SQL =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c"

    @Test(arguments: Driver.allCases)
    func aReportPastItsTimeLimitIsStoppedAndAnswered503(driver: Driver) throws {
        var limits = XizorServices.Limits()
        limits.analytics.queryTimeLimitMs = 200
        let test = try TestServices("analytics-limit", driver: driver, limits: limits)
        defer { test.remove() }
        let gate = test.services.analyticsGate
        let error = #expect(throws: ServiceError.self) {
            try gate.read(appID: "a") { tx in
                let sql = try #require(tx as? SQLTransaction)
                _ = try sql.db.rows(Self.endless)
            }
        }
        #expect(error?.code == "query_time_limit")
        #expect(error?.status == 503)
        #expect(error?.retryAfterSeconds == 5)
        #expect(gate.stoppedAtTimeLimit == 1)
        // The limit ended with its read: the connections serve plain reads and reports again.
        for _ in 0..<8 {
            #expect(try test.services.store.read { tx in try tx.apps.apps(after: .start, limit: 10).count } == 0)
            #expect(try gate.read(appID: "a") { tx in try tx.apps.apps(after: .start, limit: 10).count } == 0)
        }
    }

    @Test(arguments: Driver.allCases)
    func oneAppTakesItsShareAndTheProcessKeepsAReadConnectionFree(driver: Driver) throws {
        var limits = XizorServices.Limits()
        limits.analytics.perApp = 2
        limits.analytics.concurrent = 64
        let test = try TestServices("analytics-share", driver: driver, limits: limits)
        defer { test.remove() }
        let gate = test.services.analyticsGate
        // The test databases have 4 read connections: at most 3 reports at once.
        #expect(test.services.store.readConnections == 4)
        #expect(gate.limits.concurrent == 3)

        let held = Held(gate)
        defer { held.releaseAll() }
        try held.hold(appID: "a")
        try held.hold(appID: "a")
        let refused = #expect(throws: ServiceError.self) { try gate.read(appID: "a") { _ in () } }
        #expect(refused?.code == "analytics_busy")
        #expect(refused?.status == 429)
        #expect(refused?.retryAfterSeconds == 1)
        #expect(gate.refusedForApp == 1)

        // Another app is not affected by the first one's share …
        #expect(try gate.read(appID: "b") { _ in 7 } == 7)
        try held.hold(appID: "b")
        // … until the process runs its bound: then everyone waits, with a 503.
        let busy = #expect(throws: ServiceError.self) { try gate.read(appID: "c") { _ in () } }
        #expect(busy?.code == "analytics_busy")
        #expect(busy?.status == 503)
        #expect(gate.refusedForServer == 1)
        // The dashboard's reads still find the connection the gate keeps free.
        #expect(try test.services.store.read { tx in try tx.apps.apps(after: .start, limit: 10).count } == 0)

        held.releaseAll()
        #expect(try gate.read(appID: "a") { _ in 1 } == 1)
        #expect(try gate.read(appID: "c") { _ in 2 } == 2)
    }

    /// A report is CPU (read from rollups, then posteriors and sketches): it runs on a thread of its
    /// own at a lower priority, so the dashboard's and the SDK's requests come first on a busy
    /// machine; the caller's thread keeps its priority, and what the report throws comes back.
    @Test(arguments: Driver.allCases)
    func aReportRunsAtALowerPriorityOnAThreadOfItsOwn(driver: Driver) throws {
        let test = try TestServices("analytics-nice", driver: driver)
        defer { test.remove() }
        let gate = test.services.analyticsGate
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let before = getpriority(which, 0)
        let inside = try gate.report(appID: "a") { report in
            (getpriority(which, 0), try report.read { tx in try tx.apps.apps(after: .start, limit: 1).count })
        }
        #expect(inside.0 == max(AnalyticsGate.reportNice, before) && inside.0 > 0)
        #expect(inside.1 == 0)
        #expect(getpriority(which, 0) == before)
        let thrown = #expect(throws: ServiceError.self) {
            try gate.report(appID: "a") { _ in throw ServiceError.notFound("paywall", "pw_none") }
        }
        #expect(thrown?.status == 404)
        // The slot came back both times.
        #expect(try gate.read(appID: "a") { _ in 1 } == 1 && gate.read(appID: "a") { _ in 2 } == 2)
    }

    @Test func theProcessBoundIsBelowTheReadConnectionsWhateverIsConfigured() throws {
        let test = try TestServices("analytics-bound")
        defer { test.remove() }
        var limits = AnalyticsGate.Limits()
        limits.concurrent = 10
        #expect(AnalyticsGate(store: test.services.store, limits: limits, readConnections: 4).limits.concurrent == 3)
        #expect(AnalyticsGate(store: test.services.store, limits: limits, readConnections: 12).limits.concurrent == 10)
        // One read connection: reports share it (the bound cannot be zero).
        #expect(AnalyticsGate(store: test.services.store, limits: limits, readConnections: 1).limits.concurrent == 1)
    }

    /// Reports held open on threads of their own until released.
    private final class Held: Sendable {
        private let gate: AnalyticsGate
        private let release = DispatchSemaphore(value: 0)
        private let count = Mutex(0)
        private let done = DispatchGroup()

        init(_ gate: AnalyticsGate) { self.gate = gate }

        /// Returns once the report is admitted and running.
        func hold(appID: String) throws {
            let running = DispatchSemaphore(value: 0)
            let failure = Mutex<(any Error)?>(nil)
            done.enter()
            Thread { [gate, release, done] in
                defer { done.leave() }
                do {
                    try gate.read(appID: appID) { _ in
                        running.signal()
                        release.wait()
                    }
                } catch {
                    failure.withLock { $0 = error }
                    running.signal()
                }
            }.start()
            running.wait()
            if let error = failure.withLock({ $0 }) { throw error }
            count.withLock { $0 += 1 }
        }

        func releaseAll() {
            let n = count.withLock { n in
                defer { n = 0 }
                return n
            }
            for _ in 0..<n { release.signal() }
            done.wait()
        }
    }
}
