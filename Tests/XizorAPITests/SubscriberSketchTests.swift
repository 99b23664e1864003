import Foundation
import PaywallFormat
import PostgresStorage
import Storage
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The distinct-subscriber sketch behind funnels' `uniqueSubscribers` (docs/analytics.md): exact
/// while small, then a HyperLogLog within its documented error (a relative standard error of
/// 0.81 %; these tests allow three of them, 2.44 %), merged the same whatever the order.
@Suite struct SubscriberSketchTests {
    static let bound = 3 * SubscriberSketch.relativeStandardError

    static func ids(_ range: Range<Int>) -> [String] { range.map { "subscriber-\($0)" } }

    @Test func exactWhileSmall() {
        for n in [0, 1, 2, 100, SubscriberSketch.exactLimit] {
            var sketch = SubscriberSketch(subscribers: Self.ids(0..<n))
            // Repeats count once.
            for id in Self.ids(0..<min(n, 10)) { sketch.insert(id) }
            #expect(sketch.isExact && sketch.count == n, "\(n)")
        }
        let past = SubscriberSketch(subscribers: Self.ids(0..<(SubscriberSketch.exactLimit + 1)))
        #expect(!past.isExact)
        #expect(abs(Double(past.count) / Double(SubscriberSketch.exactLimit + 1) - 1) < Self.bound)
    }

    @Test func estimatesAMillionSubscribersWithinTheDocumentedError() {
        var whole = SubscriberSketch()
        var parts = (0..<10).map { _ in SubscriberSketch() }
        for index in 0..<1_000_000 {
            let id = "subscriber-\(index)"
            whole.insert(id)
            parts[index % 10].insert(id)
        }
        let error = Double(whole.count) / 1_000_000 - 1
        #expect(abs(error) < Self.bound, "relative error \(error)")
        // A merge is the sketch of the union, in any order and however the subscribers were split.
        var forward = SubscriberSketch()
        for part in parts { forward.merge(part) }
        var backward = SubscriberSketch()
        for part in parts.reversed() { backward.merge(part) }
        #expect(forward == whole && backward == whole)
        // Overlapping parts count their union once.
        var overlapping = parts[0]
        overlapping.merge(parts[0])
        overlapping.merge(parts[1])
        let union = Double(overlapping.count) / 200_000 - 1
        #expect(abs(union) < Self.bound, "relative error \(union)")
    }

    @Test(arguments: [10_000, 50_000, 250_000])
    func holdsItsErrorAcrossTheRange(n: Int) {
        let sketch = SubscriberSketch(subscribers: Self.ids(0..<n))
        let error = Double(sketch.count) / Double(n) - 1
        #expect(abs(error) < Self.bound, "\(n): relative error \(error)")
    }

    @Test func mergesExactIntoDenseAndBack() {
        let small = SubscriberSketch(subscribers: Self.ids(0..<1_000))
        let large = SubscriberSketch(subscribers: Self.ids(500..<20_000))
        var a = small
        a.merge(large)
        var b = large
        b.merge(small)
        #expect(a == b && !a.isExact)
        #expect(a == SubscriberSketch(subscribers: Self.ids(0..<20_000)))
        // Two exact sketches whose union passes the limit become dense, as one built whole would.
        var halves = SubscriberSketch(subscribers: Self.ids(0..<1_500))
        halves.merge(SubscriberSketch(subscribers: Self.ids(1_500..<3_000)))
        #expect(halves == SubscriberSketch(subscribers: Self.ids(0..<3_000)))
    }

    @Test func storedFormRoundTripsAndDamageIsRefused() throws {
        for sketch in [
            SubscriberSketch(), .init(subscribers: Self.ids(0..<7)), .init(subscribers: Self.ids(0..<9_000)),
        ] {
            #expect(try SubscriberSketch(encoded: sketch.encoded()) == sketch)
        }
        #expect(throws: Never.self) { try SubscriberSketch(encoded: [2] + [UInt8](repeating: 51, count: 16_384)) }
        let exact = SubscriberSketch(subscribers: Self.ids(0..<3)).encoded()
        let dense = SubscriberSketch(subscribers: Self.ids(0..<9_000)).encoded()
        for damaged in [
            [], [9], Array(exact.dropLast()), Array(dense.dropLast()), [2] + [UInt8](repeating: 99, count: 16_384),
            Array(dense.dropLast()) + [52],  // one register past the largest rank (51)
            [1] + Array(exact[9..<17]) + Array(exact[1..<9]),  // hashes not ascending
            [1] + Array(exact[1..<9]) + Array(exact[1..<9]),  // a hash twice
        ] {
            #expect(throws: SketchDecodingError.self) { try SubscriberSketch(encoded: damaged) }
        }
    }

    /// Through each database: dense hourly sketches of a million subscribers, stored by the fold and
    /// merged by a funnel read, which says its subscriber figures are estimates.
    @Test(arguments: Driver.allCases)
    func aFunnelOverAMillionSubscribersIsAnEstimateWithinItsError(driver: Driver) throws {
        let test = try TestServices("sketch-funnel", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Sketch").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
        _ = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        let t0 = RollupRecountTests.t0
        var rollup = EventRollup()
        let perHour = 1_000_000 / 20
        for hour in 0..<20 {
            // Each hour's subscribers, and a tenth of the previous hour's again (counted once).
            var sketch = SubscriberSketch(subscribers: Self.ids((hour * perHour)..<((hour + 1) * perHour)))
            if hour > 0 {
                sketch.merge(
                    SubscriberSketch(
                        subscribers: Self.ids(((hour - 1) * perHour)..<((hour - 1) * perHour + perHour / 10))))
            }
            for span in RollupSpan.allCases {
                let key = FunnelCellKey(
                    paywallID: pw, version: 1, placement: "home", environment: .production, name: "paywall_open",
                    span: span, bucket: span.start(of: t0 + Int64(hour) * RollupSpan.hour.milliseconds))
                var cell = rollup.funnel[key] ?? FunnelCell(subscribers: SubscriberSketch())
                cell.merge(FunnelCell(events: Int64(perHour), subscribers: sketch))
                rollup.funnel[key] = cell
            }
        }
        try s.store.write { tx in try tx.rollups.fold(appID: app, rollup) }
        // A later fold of a few subscribers already counted is merged with what is stored, not
        // written over it.
        var again = EventRollup()
        for key in rollup.funnel.keys where key.span == .day {
            again.funnel[key] = FunnelCell(events: 0, subscribers: SubscriberSketch(subscribers: Self.ids(0..<1_000)))
        }
        try s.store.write { tx in try tx.rollups.fold(appID: app, again) }
        if let url = test.postgresURL {
            // PostgreSQL stores the dense sketches whole (0021): none compressed, all out of line.
            let link = try PGConnection(url: url)
            defer { link.close() }
            let sizes = try #require(
                try link.queryOne(
                    "SELECT count(*), min(pg_column_size(subscribers)) FROM funnel_rollups WHERE get_byte(subscribers, 0) = 2"
                ))
            #expect(try sizes.get(0, as: Int.self) == rollup.funnel.count)
            #expect(try sizes.get(1, as: Int.self) == 1 + 16_384)
        }

        let answer = try s.analytics.funnel(appID: app, paywallID: pw, filter: .init())
        let version = try #require(answer["versions"]?.arrayValue?.first)
        #expect(version["impressions"]?.intValue == 1_000_000)
        let unique = try #require(version["uniqueSubscribers"]?.doubleValue)
        #expect(abs(unique / 1_000_000 - 1) < Self.bound, "\(unique)")
        #expect(
            answer["estimates"]?["fields"]?.arrayValue?.compactMap(\.stringValue) == AnalyticsService.estimatedFields)
        #expect(answer["estimates"]?["relativeStandardError"]?.doubleValue == SubscriberSketch.relativeStandardError)

        var hourly = AnalyticsService.Filter()
        hourly.interval = .hour
        hourly.from = t0
        hourly.to = t0 + 20 * RollupSpan.hour.milliseconds
        let series = try s.analytics.funnel(appID: app, paywallID: pw, filter: hourly)
        let points = try #require(series["versions"]?.arrayValue?.first?["series"]?.arrayValue)
        #expect(points.count == 20)
        for (hour, point) in points.enumerated() {
            let expected = Double(hour == 0 ? perHour : perHour + perHour / 10)
            let estimate = point["uniqueSubscribers"]?.doubleValue ?? 0
            #expect(abs(estimate / expected - 1) < Self.bound, "hour \(hour): \(estimate)")
        }
    }

    /// postgres/0021 on sketches written before it: the dense ones, which pglz had compressed, are
    /// rewritten whole; the exact ones and every answer stay as they were.
    @Test func theUncompressingMigrationRewritesTheDenseSketchesAlreadyStored() throws {
        let test = try TestServices("sketch-storage", driver: .postgres)
        defer { test.remove() }
        let s = test.services
        let link = try PGConnection(url: test.postgresURL ?? "")
        defer { link.close() }
        // As before 0021: PostgreSQL's default storage, which compresses.
        try link.executeScript("ALTER TABLE funnel_rollups ALTER COLUMN subscribers SET STORAGE EXTENDED")
        let app = try s.keys.createApp(name: "Sketch").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
        _ = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        var rollup = EventRollup()
        for (hour, subscribers) in [(0, 50_000), (1, 300)] {
            let key = FunnelCellKey(
                paywallID: pw, version: 1, placement: "home", environment: .production, name: "paywall_open",
                span: .hour, bucket: RollupRecountTests.t0 + Int64(hour) * RollupSpan.hour.milliseconds)
            rollup.funnel[key] = FunnelCell(
                events: Int64(subscribers), subscribers: SubscriberSketch(subscribers: Self.ids(0..<subscribers)))
        }
        try s.store.write { tx in try tx.rollups.fold(appID: app, rollup) }
        func sizes() throws -> [Int: Int] {
            var sizes: [Int: Int] = [:]
            for row in try link.query(
                "SELECT get_byte(subscribers, 0), pg_column_size(subscribers) FROM funnel_rollups")
            {
                sizes[try row.get(0, as: Int.self)] = try row.get(1, as: Int.self)
            }
            return sizes
        }
        let before = try sizes()
        let answer = try s.analytics.funnel(appID: app, paywallID: pw, filter: .init())
        #expect(try #require(before[2]) < 16_385, "the dense sketch was stored compressed")
        let migration = try #require(
            try XizorSchema.postgresMigrator().migrations.first { $0.name == "0021_sketches_uncompressed.sql" })
        try link.executeScript(migration.sql)
        #expect(try sizes() == [1: before[1] ?? 0, 2: 1 + 16_384])
        #expect(try s.analytics.funnel(appID: app, paywallID: pw, filter: .init()) == answer)
    }

}
