import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// One walk through every store on both databases: the same calls answer the same, so the
/// PostgreSQL stores are the SQLite stores in another dialect (events and their funnel cuts,
/// experiment results, timers, paging, idempotency, rollback, readiness).
@Suite struct StoreParityTests {
    static let now: Int64 = 1_800_000_000_000

    @Test(arguments: Driver.allCases)
    func everyStoreAnswersTheSame(driver: Driver) throws {
        let test = try TestServices("parity", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Parity").appID
        let pw = try s.paywalls.create(appID: app, from: .template("clean", name: "P")).id
        let other = try s.paywalls.create(appID: app, from: .template("clean", name: "Q")).id
        let first = try s.paywalls.publish(
            appID: app, id: pw, idempotencyKey: "k1",
            options: PublishOptions(note: "launch", publishedBy: "key_parity"))
        #expect(first.version.version == 1 && first.outcome == .created)
        #expect(
            try s.paywalls.publish(
                appID: app, id: pw, idempotencyKey: "k1",
                options: PublishOptions(note: "launch", publishedBy: "key_other")
            ).outcome == .replayed)
        // The key names that request: another body is refused, in every store (its hash is stored).
        #expect(throws: ServiceError.self) { try s.paywalls.publish(appID: app, id: pw, idempotencyKey: "k1") }
        // The same content again: nothing created, unless forced.
        let same = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        #expect(same.outcome == .unchanged && same.version.version == 1)
        #expect(try s.paywalls.rollback(appID: app, id: pw, to: 1).outcome == .unchanged)
        let forced = try s.paywalls.rollback(
            appID: app, id: pw, to: 1, options: PublishOptions(note: "again", force: true))
        #expect(forced.outcome == .created && forced.version.rolledBackFrom == 1)
        _ = try s.paywalls.publish(appID: app, id: other, idempotencyKey: nil)
        let versions = try s.paywalls.versions(appID: app, id: pw)
        #expect(versions.map(\.version) == [2, 1])
        #expect(versions.map(\.note) == ["again", "launch"] && versions.map(\.publishedBy) == [nil, "key_parity"])

        // Paging: one item per page, in creation order, placements named.
        _ = try s.placements.assign(appID: app, key: "home", paywallID: pw)
        let page1 = try s.paywalls.list(appID: app, cursor: nil, limit: 1)
        let page2 = try s.paywalls.list(appID: app, cursor: page1.nextCursor, limit: 1)
        #expect(
            page1.items.map(\.id) == [pw] && page1.items.first?.placements == ["home"]
                && page1.items.first?.latestVersion == 2)
        #expect(page2.items.map(\.id) == [other] && page2.nextCursor == nil)

        // Rules with a condition, served from memory after the write.
        _ = try s.placements.setRules(
            appID: app, key: "home",
            rules: [["when": ["key": "country", "op": "eq", "value": "DE"], "paywallId": .string(other)]])
        #expect(
            try s.serving.resolve(appID: app, placement: "home", context: ["country": .string("DE")]).version?.paywallID
                == other)
        #expect(try s.placements.list(appID: app).first?.rules.count == 1)

        // Experiments: start, results from events, promote.
        let experiment = try s.experiments.create(
            appID: app,
            body: [
                "name": "E",
                "variants": [
                    ["paywallId": .string(pw), "weight": 1], ["paywallId": .string(other), "weight": 1, "name": "b"],
                ],
            ]
        ).id
        _ = try s.placements.assign(appID: app, key: "exp", paywallID: nil, experimentID: experiment)
        #expect(try s.experiments.start(appID: app, id: experiment).status == .running)
        #expect(try s.experiments.experiment(appID: app, id: experiment).placements == ["exp"])

        // Events: accepted, duplicates, rejections; then the funnel cut every way.
        let clock = Date().timeIntervalSince1970 * 1000
        func event(
            _ id: String, _ name: String, subscriber: String, version: Int = 2, context: JSONValue = [:],
            placement: String = "home",
            variant: String? = nil
        ) -> JSONValue {
            var e: [String: JSONValue] = [
                "id": .string(id), "name": .string(name), "timestamp": .number(Int(clock) - 1000),
                "paywallId": .string(pw), "version": .number(version), "subscriberId": .string(subscriber),
                "placement": .string(placement), "context": context,
            ]
            if let variant {
                e["experimentId"] = .string(experiment)
                e["variant"] = .string(variant)
            }
            return .object(e)
        }
        let batch: JSONValue = [
            "events": [
                event(
                    "e1", "paywall_open", subscriber: "s1", context: ["country": "DE", "age": 30, "pro": true],
                    variant: "control"),
                event(
                    "e2", "paywall_open", subscriber: "s2", context: ["country": "FR", "age": 30.5, "pro": false],
                    variant: "control"),
                event(
                    "e3", "purchase_completed", subscriber: "s1", context: ["country": "DE", "age": 30, "pro": true],
                    variant: "control"),
                event("e4", "paywall_open", subscriber: "s3", version: 1, placement: "other", variant: "b"),
                event("e5", "paywall_open", subscriber: "s3", version: 9),
            ]
        ]
        let outcome = try s.events.ingest(appID: app, batch: batch)
        #expect(outcome.accepted == 4 && outcome.duplicates == 0 && outcome.rejected.map(\.index) == [4])
        #expect(try s.events.ingest(appID: app, batch: batch).duplicates == 4)

        func funnel(_ configure: (inout AnalyticsService.Filter) -> Void) throws -> [Int: (
            open: Int, bought: Int, unique: Int
        )] {
            var filter = AnalyticsService.Filter()
            configure(&filter)
            var out: [Int: (Int, Int, Int)] = [:]
            for item in try s.analytics.funnel(appID: app, paywallID: pw, filter: filter)["versions"]?.arrayValue ?? []
            {
                out[item["version"]?.intValue ?? 0] = (
                    item["impressions"]?.intValue ?? -1, item["purchaseCompleted"]?.intValue ?? -1,
                    item["uniqueSubscribers"]?.intValue ?? -1
                )
            }
            return out
        }
        func pairs(_ f: [Int: (open: Int, bought: Int, unique: Int)]) -> [[Int]] {
            f.keys.sorted().map { [$0, f[$0]!.open, f[$0]!.bought, f[$0]!.unique] }
        }
        #expect(pairs(try funnel { _ in }) == [[1, 1, 0, 1], [2, 2, 1, 2]])
        #expect(pairs(try funnel { $0.placement = "home" }) == [[1, 0, 0, 0], [2, 2, 1, 2]])
        #expect(pairs(try funnel { $0.context = ["country": .string("DE")] }) == [[1, 0, 0, 0], [2, 1, 1, 1]])
        #expect(pairs(try funnel { $0.context = ["age": .number(30)] }) == [[1, 0, 0, 0], [2, 1, 1, 1]])
        #expect(pairs(try funnel { $0.context = ["age": .number(30.5)] }) == [[1, 0, 0, 0], [2, 1, 0, 1]])
        #expect(pairs(try funnel { $0.context = ["pro": .bool(false)] }) == [[1, 0, 0, 0], [2, 1, 0, 1]])
        #expect(
            pairs(try funnel { $0.context = ["age": .string("30")] }) == [[1, 0, 0, 0], [2, 0, 0, 0]],
            "typed like the SDK: \"30\" is not 30")
        #expect(
            pairs(try funnel { $0.context = ["pro": .string("true")] }) == [[1, 0, 0, 0], [2, 0, 0, 0]],
            "nor \"true\" true")
        // A range is counted in whole hours: the hour after the events' holds none of them.
        let nextHour = (Int64(clock) / 3_600_000 + 1) * 3_600_000
        #expect(pairs(try funnel { $0.from = nextHour }) == [[1, 0, 0, 0], [2, 0, 0, 0]])
        #expect(pairs(try funnel { $0.to = nextHour }) == [[1, 1, 0, 1], [2, 2, 1, 2]])

        let results = try s.experiments.results(appID: app, id: experiment)
        let variants = results["variants"]?.arrayValue ?? []
        #expect(variants.map { $0["uniqueSubscribers"]?.intValue } == [2, 1])
        #expect(variants.map { $0["conversions"]?.intValue } == [1, 0])
        #expect(try s.experiments.promote(appID: app, id: experiment, variant: "b").winner == 1)
        #expect(try s.placements.placement(appID: app, key: "exp").paywallID == other)

        // Timers: the first start wins.
        let timer: JSONValue = ["subscriberId": "s1", "paywallId": .string(pw), "nodeId": "countdown"]
        let started = try s.timers.start(appID: app, body: timer)
        let again = try s.timers.start(appID: app, body: timer)
        #expect(started.created && !again.created && again.startedAt == started.startedAt)

        // Readiness writes through the operations store and counts the migrations.
        let readiness = ReadinessCheck(
            store: s.store, clock: s.clock, isDraining: { false }, dataDirectory: nil,
            minimumFreeBytes: 0, expectedMigrations: 1, probeIntervalMs: 0)
        try readiness.check()
        #expect(try s.store.diagnostics()["driver"]?.stringValue == driver.rawValue)

        // Archiving the app ends its keys; an unknown app is not found.
        try s.keys.archiveApp(appID: app)
        #expect(failsWith("app_not_found") { try s.keys.archiveApp(appID: "app_missing") })
    }
}

@Suite struct EventBatchTests {
    @Test func chunksCoverTheBatchInAFewShapes() {
        for count in [0, 1, 63, 64, 65, 127, 130, 500] {
            let ranges = EventInsertChunks.ranges(count: count)
            #expect(ranges.flatMap { Array($0) } == Array(0..<count), "\(count)")
            #expect(Set(ranges.map(\.count)).isSubset(of: [64, 32, 16, 8, 4, 2, 1]))
        }
        #expect(EventInsertChunks.ranges(count: 500).map(\.count) == [64, 64, 64, 64, 64, 64, 64, 32, 16, 4])
    }

    /// A full batch in multi-row inserts: every new event stored once, repeats (in the batch and
    /// across retries) counted as duplicates, on both databases.
    @Test(arguments: Driver.allCases)
    func aLargeBatchIsStoredOnceAndRetriesAreDuplicates(driver: Driver) throws {
        let test = try TestServices("batch", driver: driver)
        defer { test.remove() }
        let s = test.services
        let app = try s.keys.createApp(name: "Batch").appID
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let events: [JSONValue] = (0..<500).map { i in
            [
                "id": .string("e\(i % 470)"), "name": "paywall_open", "timestamp": .number(now),
                "subscriberId": .string("s\(i)"),
                "context": ["n": .number(i)],
            ]
        }
        let first = try s.events.ingest(appID: app, batch: ["events": .array(events)])
        #expect(first.accepted == 470 && first.duplicates == 30 && first.rejected.isEmpty)
        let retry = try s.events.ingest(appID: app, batch: ["events": .array(events)])
        #expect(retry.accepted == 0 && retry.duplicates == 500)
    }
}
