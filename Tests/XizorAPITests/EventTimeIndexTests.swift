import Foundation
import PaywallFormat
import Storage
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Time windows found through `events_by_hour` (the hour of `occurred_at`, Migrations/0010): the
/// hour bounds never lose an event of the window at an hour's edge nor keep one outside it, on
/// both databases, and SQLite can use the index for them.
@Suite struct EventTimeIndexTests {
    static let hour = EventTimeIndex.bucketMs

    @Test func hourBoundsContainEveryMillisecondOfTheWindow() {
        for from: Int64 in [0, 1, Self.hour - 1, Self.hour, Self.hour + 1, 5 * Self.hour + 7] {
            #expect(EventTimeIndex.firstBucket(from: from) * Self.hour <= from)
            #expect((EventTimeIndex.firstBucket(from: from) + 1) * Self.hour > from)
        }
        for to: Int64 in [1, Self.hour - 1, Self.hour, Self.hour + 1, 5 * Self.hour] {
            let last = to - 1
            #expect(EventTimeIndex.lastBucket(to: to) == last / Self.hour)
        }
        #expect(EventTimeIndex.lastBucket(to: 0) == 0)
    }

    /// Events a millisecond either side of hour boundaries, counted by the events' own window query
    /// (a context-filtered report's, whose store takes any milliseconds; reports move a range out to
    /// whole hours before they ask) in windows that start and end on, before and after those
    /// boundaries: each count is what the timestamps say.
    @Test(arguments: Driver.allCases)
    func windowsAtHourEdgesCountExactly(driver: Driver) throws {
        let test = try TestServices("by-hour", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Hours").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        _ = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let base = (now / Self.hour - 3) * Self.hour
        let offsets: [Int64] = [-1, 0, 1, Self.hour - 1, Self.hour, Self.hour + 1, 2 * Self.hour - 1, 2 * Self.hour]
        let times = offsets.map { base + $0 }
        let events: [JSONValue] = times.enumerated().map { i, t in
            [
                "id": .string("e\(i)"), "name": "paywall_open", "timestamp": .number(.integer(t)),
                "paywallId": .string(pw), "version": 1,
                "subscriberId": .string("s\(i)"),
            ]
        }
        #expect(try s.events.ingest(appID: app, batch: ["events": .array(events)]).accepted == times.count)
        let edges: [Int64?] =
            offsets.flatMap { offset -> [Int64?] in [base + offset - 1, base + offset, base + offset + 1] } + [nil]
        for from in edges {
            for to in edges {
                var filter = AnalyticsService.Filter()
                filter.from = from
                filter.to = to
                let expected = times.filter { t in (from.map { t >= $0 } ?? true) && (to.map { t < $0 } ?? true) }.count
                let counts = try s.store.read { tx in try tx.events.funnel(appID: app, paywallID: pw, filter: filter) }
                let counted = counts.first { $0.version == 1 && $0.name == "paywall_open" }?.count ?? 0
                #expect(
                    counted == expected,
                    "from \(from.map { $0 - base } as Any) to \(to.map { $0 - base } as Any) (from the base hour)")
            }
        }
    }

    @Test func sqliteFindsAWindowThroughTheHourIndex() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "xizor-by-hour-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pool = try DatabasePool(path: directory.appendingPathComponent("xizor.sqlite").path)
        _ = try XizorSchema.migrator().migrate(pool)
        let plan = try pool.read { db in
            try db.query(
                """
                EXPLAIN QUERY PLAN SELECT occurred_at, placement FROM events
                WHERE app_id = ? AND paywall_id = ? AND occurred_at / \(EventTimeIndex.bucketMs) >= ? AND occurred_at >= ?
                """, ["a", "p", Int64(1), Int64(3_600_000)]
            ).map { row -> String in try row.get(3) }
        }
        #expect(plan.joined().contains("events_by_hour"), "\(plan)")
    }
}
