import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Raw events are kept `events.retentionDays` (or their app's own): the retention job deletes only
/// what is due (an event is due once its whole hour is past the cutoff), in chunks that bound each
/// write transaction, on both databases; the rollups stay, so reports of older ranges still answer.
@Suite struct EventRetentionTests {
    static let day: Int64 = 86_400_000
    static let now: Int64 = RollupRecountTests.t0 + 100 * day + 1_234_567

    @Test(arguments: Driver.allCases)
    func retentionDeletesOnlyWhatIsDueInBoundedChunks(driver: Driver) throws {
        var limits = XizorServices.Limits()
        limits.eventRetention = EventRetention(days: 30, chunk: 40)
        let test = try TestServices("retention", driver: driver, limits: limits, clock: Clock { Self.now })
        defer { test.remove() }
        let s = test.services
        let kept = try s.keys.createApp(name: "Default").appID
        let short = try s.keys.createApp(name: "Short").appID
        #expect(try s.keys.setEventRetention(appID: short, days: 7).eventRetentionDays == 7)
        var paywalls: [String: String] = [:]
        for app in [kept, short] {
            paywalls[app] = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
            _ = try s.paywalls.publish(appID: app, id: paywalls[app]!, idempotencyKey: nil)
        }

        // Around each app's cutoff: 150 events well before it (some without a paywall), events in
        // the cutoff's own hour on both sides of it, and newer ones.
        func events(_ app: String, cutoff: Int64) -> [StoredEvent] {
            let hourStart = cutoff - cutoff % RollupSpan.hour.milliseconds
            let times: [Int64] =
                (0..<150).map { cutoff - Self.day - Int64($0) * 60_000 } + [
                    hourStart - 1, hourStart, cutoff - 1, cutoff, cutoff + 1, Self.now - 1,
                ]
            return times.enumerated().map { index, time in
                StoredEvent(
                    id: "\(app)-\(index)", name: "paywall_open", occurredAt: time, placement: "home",
                    paywallID: index % 3 == 0 ? nil : paywalls[app], version: index % 3 == 0 ? nil : 1,
                    subscriberID: "s\(index % 17)", context: nil, properties: nil, experimentID: nil, variant: nil)
            }
        }
        let cutoffs = [kept: Self.now - 30 * Self.day, short: Self.now - 7 * Self.day]
        var stream: [String: [StoredEvent]] = [:]
        for (app, cutoff) in cutoffs {
            stream[app] = events(app, cutoff: cutoff)
            _ = try s.store.write { tx in try tx.events.insert(appID: app, stream[app]!, receivedAt: 1) }
        }
        try s.rollups.foldAll()
        let before = try s.analytics.funnel(appID: short, paywallID: paywalls[short]!, filter: .init())

        let pass = try s.events.pruneExpired()
        #expect(pass.largestChunk <= 40 && pass.largestChunk > 0)
        for (app, cutoff) in cutoffs {
            let hourStart = cutoff - cutoff % RollupSpan.hour.milliseconds
            let left = Set(
                try s.store.read { tx in
                    try tx.events.export(appID: app, from: nil, to: nil, environment: .all, after: nil, limit: 1_000)
                }
                .map(\.event.id))
            let due = stream[app]!.filter { $0.occurredAt < hourStart }.map(\.id)
            let notDue = stream[app]!.filter { $0.occurredAt >= hourStart }.map(\.id)
            #expect(due.count == 151)
            #expect(left == Set(notDue), "\(app): every due event gone, every other kept")
        }
        #expect(pass.deleted == 302)
        // 302 rows in chunks of at most 40, per (app, paywall or none): never one long transaction.
        #expect(pass.transactions >= 302 / 40)

        // The rollups stay: the funnel over all time answers as it did.
        let after = try s.analytics.funnel(appID: short, paywallID: paywalls[short]!, filter: .init())
        #expect(after["versions"] == before["versions"])
        // Nothing more is due: a second pass deletes nothing.
        #expect(try s.events.pruneExpired().deleted == 0)
    }

    @Test(arguments: Driver.allCases)
    func anAppsRetentionIsTheOperatorsAndBounded(driver: Driver) throws {
        let test = try TestServices("retention-app", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        for days in [0, -1, 36_501] {
            let error = #expect(throws: ServiceError.self) { try s.keys.setEventRetention(appID: app, days: days) }
            #expect(error?.status == 422 && error?.code == "validation_failed")
        }
        #expect(try s.keys.setEventRetention(appID: app, days: 90).json["eventRetentionDays"] == 90)
        #expect(try s.keys.setEventRetention(appID: app, days: nil).json["eventRetentionDays"] == .null)
        let missing = #expect(throws: ServiceError.self) { try s.keys.setEventRetention(appID: "app_none", days: 5) }
        #expect(missing?.status == 404)
    }
}
