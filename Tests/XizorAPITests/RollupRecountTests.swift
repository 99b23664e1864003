import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Analytics read from rollups (issue 42) answer what a recount of the raw events answers, for
/// generated streams: duplicates and retries, events arriving late into buckets already folded,
/// events before the experiment started, sandbox and production, events on hour and day edges,
/// ranges cut anywhere (mid-hour, across midnight: counted in whole hours) and hourly and daily series. The recount is this
/// test's own, from the generated events, so it shares nothing with the code under test. Checked
/// with everything queued, part folded, everything folded, and after a subscriber's erasure.
@Suite struct RollupRecountTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    /// A UTC midnight.
    static let t0: Int64 = 1_795_996_800_000

    @Test(arguments: Driver.allCases)
    func rollupsAnswerWhatARecountOfTheEventsAnswers(driver: Driver) throws {
        #expect(Self.t0 % Self.day == 0)
        let test = try TestServices("rollup-recount", driver: driver)
        defer { test.remove() }
        let s = test.services
        let world = try World(s)
        var rng = SplitMix(seed: driver == .sqlite ? 42 : 43)
        var stream: [StoredEvent] = []

        // 1. A first stream, read while all of it waits in the queue.
        let first = world.generate(count: 700, ids: 0..<700, rng: &rng)
        try world.insert(first + Array(first.prefix(40)))  // a retried part of the batch
        stream += first
        try world.check(stream, "queued")

        // 2. Folded in passes of 97 events, checked half way (part folded, part queued) and at the end.
        let small = EventRollupService(store: s.store, batch: 97)
        for _ in 0..<4 { try small.foldOnce() }
        try world.check(stream, "part folded")
        try small.foldAll()
        #expect(try s.store.read { tx in try tx.rollups.queuedCount(appID: world.app, atMost: 10) } == 0)
        try world.check(stream, "folded")

        // 3. Late events into buckets already folded, and duplicates of folded ones (not counted again).
        var late = world.generate(count: 300, ids: 700..<1000, rng: &rng)
        late = late.map { event in
            var moved = event
            moved = StoredEvent(
                id: event.id, name: event.name, occurredAt: Self.t0 + Int64(rng.next() % UInt64(Self.day)),
                placement: event.placement, paywallID: event.paywallID, version: event.version,
                subscriberID: event.subscriberID, context: nil, properties: event.properties,
                experimentID: event.experimentID, variant: event.variant, environment: event.environment)
            return moved
        }
        try world.insert(late + Array(first.suffix(50)))
        stream += late
        try world.check(stream, "late, queued")
        try small.foldOnce()
        try world.check(stream, "late, part folded")
        try s.rollups.foldAll()
        try world.check(stream, "late, folded")

        // 4. A subscriber's erasure takes their events out of every figure (all of their sketches
        // here are exact), with some of their events still queued.
        let erased = "s7"
        let theirs = world.generate(count: 20, ids: 1000..<1020, rng: &rng, subscriber: erased)
        try world.insert(theirs)
        stream += theirs
        try small.foldOnce()
        _ = try s.subscribers.delete(appID: world.app, subscriberID: erased)
        stream.removeAll { $0.subscriberID == erased }
        try world.check(stream, "erased, part folded")
        try s.rollups.foldAll()
        try world.check(stream, "erased, folded")
    }

    /// An app with two paywalls (two versions each), a running experiment over both, and the cuts
    /// every check reads.
    struct World {
        let services: XizorServices
        let app: String
        let paywalls: [String]
        let experiment: String

        init(_ s: XizorServices) throws {
            services = s
            app = try s.keys.createApp(name: "Recount").appID
            var paywalls: [String] = []
            for name in ["P", "Q"] {
                let pw = try s.paywalls.create(appID: app, from: .template("clean", name: name)).id
                _ = try s.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
                _ = try s.paywalls.rollback(appID: app, id: pw, to: 1, options: PublishOptions(force: true))
                paywalls.append(pw)
            }
            self.paywalls = paywalls
            experiment = try s.experiments.create(
                appID: app,
                body: [
                    "name": "E",
                    "variants": [
                        ["paywallId": .string(paywalls[0]), "weight": 1],
                        ["paywallId": .string(paywalls[1]), "weight": 1, "name": "b"],
                    ],
                ]
            ).id
            _ = try s.placements.assign(appID: app, key: "exp", paywallID: nil, experimentID: experiment)
            _ = try s.experiments.start(appID: app, id: experiment)
        }

        static let names = [
            "paywall_open", "paywall_open", "paywall_open", "paywall_close", "purchase_started",
            "purchase_completed", "purchase_completed", "purchase_failed", "restore_completed", "custom_tap",
        ]

        /// Events over three days, a third of them within a second of an hour or day edge.
        func generate(count: Int, ids: Range<Int>, rng: inout SplitMix, subscriber: String? = nil) -> [StoredEvent] {
            var events: [StoredEvent] = []
            for index in ids.prefix(count) {
                func r(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
                var time = RollupRecountTests.t0 + Int64(rng.next() % UInt64(3 * RollupRecountTests.day))
                if r(3) == 0 {
                    let edge = r(2) == 0 ? RollupRecountTests.hour : RollupRecountTests.day
                    time = time - time % edge + [-1, 0, 1, -1000][r(4)]
                }
                let name = Self.names[r(Self.names.count)]
                let paywall = r(5) == 0 ? 1 : 0
                let inExperiment = r(3) != 0
                let subscriberID = subscriber ?? (r(25) == 0 ? nil : "s\(r(60))")
                var properties: String?
                if name == "purchase_completed" {
                    switch r(4) {
                    case 0: properties = #"{"price":9.99,"currency":"EUR"}"#
                    case 1: properties = #"{"price":4,"currency":"USD"}"#
                    case 2: properties = #"{"price":"4","currency":"USD"}"#  // not a number: no revenue
                    default: properties = nil
                    }
                }
                events.append(
                    StoredEvent(
                        id: "ev-\(index)", name: name, occurredAt: time,
                        placement: [nil, "home", "upsell"][r(3)], paywallID: paywalls[paywall], version: 1 + r(2),
                        subscriberID: subscriberID, context: nil, properties: properties,
                        experimentID: inExperiment ? experiment : nil,
                        variant: inExperiment ? (r(7) == 0 ? nil : (paywall == 0 ? "control" : "b")) : nil,
                        environment: r(4) == 0 ? .sandbox : .production))
            }
            return events
        }

        func insert(_ events: [StoredEvent]) throws {
            for start in stride(from: 0, to: events.count, by: 100) {
                let batch = Array(events[start..<min(start + 100, events.count)])
                _ = try services.store.write { tx in try tx.events.insert(appID: app, batch, receivedAt: 1) }
            }
        }

        func check(_ stream: [StoredEvent], _ stage: String) throws {
            var filters: [(String, AnalyticsService.Filter)] = [("everything", .init())]
            var f = AnalyticsService.Filter()
            f.environment = .sandbox
            filters.append(("sandbox", f))
            f.environment = .all
            f.placement = "home"
            filters.append(("all, home", f))
            f = .init()
            f.from = RollupRecountTests.t0 + 5 * RollupRecountTests.hour + 1234
            f.to = RollupRecountTests.t0 + RollupRecountTests.day + 7 * RollupRecountTests.hour - 17
            filters.append(("mid-hour across midnight", f))
            f.interval = .hour
            filters.append(("hourly, mid-hour", f))
            f.interval = .day
            f.from = RollupRecountTests.t0 + RollupRecountTests.day
            f.to = RollupRecountTests.t0 + 3 * RollupRecountTests.day
            filters.append(("daily, whole days", f))
            f.from = RollupRecountTests.t0 + 30 * 60_000
            f.to = RollupRecountTests.t0 + 40 * 60_000
            f.interval = nil
            filters.append(("within one hour", f))
            for (label, filter) in filters {
                for paywall in paywalls {
                    let answer = try services.analytics.funnel(appID: app, paywallID: paywall, filter: filter)
                    let expected = Recount.funnel(stream, paywall: paywall, filter: filter)
                    #expect(Recount.read(answer) == expected, "\(stage), \(label), \(paywall)")
                    let (from, to) = Recount.hours(filter)
                    #expect(answer["from"]?.intValue.map(Int64.init) == from, "\(stage), \(label), from")
                    #expect(answer["to"]?.intValue.map(Int64.init) == to, "\(stage), \(label), to")
                    #expect(answer["estimates"]?["fields"]?.arrayValue == [], "\(stage), \(label)")
                    // Read a few cells at a time, the same counts: series buckets are counted as the
                    // pages move past them, never before all their cells arrived.
                    let paged = try services.store.read { tx in
                        try RollupReader.funnel(
                            tx, appID: app, paywallID: paywall, filter: filter.resolved, pageSize: 3)
                    }
                    let whole = try services.store.read { tx in
                        try RollupReader.funnel(tx, appID: app, paywallID: paywall, filter: filter.resolved)
                    }
                    #expect(Recount.tally(paged) == Recount.tally(whole), "\(stage), \(label), paged")
                }
            }
            for environment in [EnvironmentFilter.production, .sandbox, .all] {
                let answer = try services.experiments.results(appID: app, id: experiment, environment: environment)
                let expected = Recount.experiment(stream, experiment: experiment, environment: environment)
                #expect(Recount.read(results: answer) == expected, "\(stage), results, \(environment)")
            }
        }
    }
}

/// The test's own recount from the events.
enum Recount {
    /// A reader's counts, order aside.
    static func tally(_ funnel: RollupReader.Funnel) -> [String: [Int]] {
        var out: [String: [Int]] = [:]
        for count in funnel.counts + (funnel.series ?? []) {
            out["\(count.version) \(count.name) \(count.bucket.map(String.init) ?? "total")"] = [
                count.count, count.subscribers,
            ]
        }
        return out
    }

    /// Per version: the answered counts, and per series bucket the same.
    struct Funnel: Equatable {
        var versions: [Int: [String: Double]] = [:]
        var series: [Int: [Int64: [String: Double]]] = [:]
    }

    static let fields = [
        ("impressions", "paywall_open"), ("closes", "paywall_close"), ("purchaseStarted", "purchase_started"),
        ("purchaseCompleted", "purchase_completed"), ("purchaseFailed", "purchase_failed"),
        ("restores", "restore_completed"),
    ]

    /// A version's figures; a series point's have no revenue.
    static func counts(_ events: [StoredEvent], revenue withRevenue: Bool = true) -> [String: Double] {
        var out: [String: Double] = [:]
        for (field, name) in fields { out[field] = Double(events.filter { $0.name == name }.count) }
        out["uniqueSubscribers"] = Double(
            Set(events.filter { $0.name == "paywall_open" }.compactMap(\.subscriberID)).count)
        out["conversions"] = Double(
            Set(events.filter { $0.name == "purchase_completed" }.compactMap(\.subscriberID)).count)
        if withRevenue { for (currency, amount) in revenue(events) { out["revenue." + currency] = amount } }
        return out
    }

    /// Priced purchases: amount (rounded to cents) and count per currency.
    static func revenue(_ events: [StoredEvent]) -> [String: Double] {
        var out: [String: Double] = [:]
        for event in events where event.name == "purchase_completed" {
            switch event.properties {
            case #"{"price":9.99,"currency":"EUR"}"#: out["EUR", default: 0] += 9.99
            case #"{"price":4,"currency":"USD"}"#: out["USD", default: 0] += 4
            default: continue
            }
        }
        return out.mapValues { ($0 * 100).rounded() / 100 }
    }

    /// The range a report counts, the test's own: `from` back and `to` forward to whole UTC hours.
    static func hours(_ filter: AnalyticsService.Filter) -> (from: Int64?, to: Int64?) {
        let hour: Int64 = 3_600_000
        return (filter.from.map { $0 / hour * hour }, filter.to.map { ($0 + hour - 1) / hour * hour })
    }

    static func funnel(_ stream: [StoredEvent], paywall: String, filter: AnalyticsService.Filter) -> Funnel {
        let (from, to) = hours(filter)
        let kept = stream.filter { e in
            e.paywallID == paywall && e.version != nil && (from.map { e.occurredAt >= $0 } ?? true)
                && (to.map { e.occurredAt < $0 } ?? true)
                && (filter.placement.map { e.placement == $0 } ?? true)
                && (filter.environment.only.map { e.environment == $0 } ?? true)
        }
        var funnel = Funnel()
        for version in [1, 2] {
            let mine = kept.filter { $0.version == version }
            funnel.versions[version] = counts(mine)
            if let interval = filter.interval {
                let size = interval.milliseconds
                var buckets: [Int64: [StoredEvent]] = [:]
                // The buckets the answer's series shows with a count (others' names are not answered).
                for e in mine where fields.contains(where: { $0.1 == e.name }) {
                    buckets[e.occurredAt - e.occurredAt % size, default: []].append(e)
                }
                funnel.series[version] = buckets.mapValues { counts($0, revenue: false) }
            }
        }
        return funnel
    }

    /// The answer's figures in the recount's shape (series buckets without events left out).
    static func read(_ answer: JSONValue) -> Funnel {
        var funnel = Funnel()
        func figures(_ object: JSONValue) -> [String: Double] {
            var out: [String: Double] = [:]
            for field in fields.map(\.0) + ["uniqueSubscribers", "conversions"] {
                out[field] = object[field]?.doubleValue ?? -1
            }
            for sum in object["revenue"]?.arrayValue ?? [] {
                out["revenue." + (sum["currency"]?.stringValue ?? "?")] =
                    ((sum["amount"]?.doubleValue ?? -1) * 100).rounded() / 100
            }
            return out
        }
        for version in answer["versions"]?.arrayValue ?? [] {
            let number = version["version"]?.intValue ?? -1
            funnel.versions[number] = figures(version)
            guard let series = version["series"]?.arrayValue else { continue }
            var points: [Int64: [String: Double]] = [:]
            for point in series
            where (point["impressions"]?.doubleValue ?? 0) + (point["closes"]?.doubleValue ?? 0)
                + (point["purchaseStarted"]?.doubleValue ?? 0) + (point["purchaseCompleted"]?.doubleValue ?? 0)
                + (point["purchaseFailed"]?.doubleValue ?? 0) + (point["restores"]?.doubleValue ?? 0) > 0
            {
                points[Int64(point["start"]?.intValue ?? -1)] = figures(point)
            }
            funnel.series[number] = points
        }
        return funnel
    }

    /// Per variant: impressions, subscribers who saw it, of them who bought, revenue per currency;
    /// subscribers counted per environment (a subscriber of both counts in each).
    static func experiment(_ stream: [StoredEvent], experiment: String, environment: EnvironmentFilter)
        -> [String: [String: Double]]
    {
        var out: [String: [String: Double]] = [:]
        for variant in ["control", "b"] {
            let mine = stream.filter { event in
                event.experimentID == experiment && event.variant == variant
                    && (environment.only.map { event.environment == $0 } ?? true)
            }
            var figures: [String: Double] = [
                "impressions": Double(mine.filter { $0.name == "paywall_open" }.count)
            ]
            var subscribers = 0
            var converted = 0
            for env in [DataEnvironment.production, .sandbox] {
                let here = mine.filter { $0.environment == env }
                let opened = Set(here.filter { $0.name == "paywall_open" }.compactMap(\.subscriberID))
                let bought = Set(here.filter { $0.name == "purchase_completed" }.compactMap(\.subscriberID))
                subscribers += opened.count
                converted += opened.intersection(bought).count
            }
            figures["uniqueSubscribers"] = Double(subscribers)
            figures["conversions"] = Double(converted)
            for (currency, amount) in revenue(mine) { figures["revenue." + currency] = amount }
            out[variant] = figures
        }
        return out
    }

    static func read(results: JSONValue) -> [String: [String: Double]] {
        var out: [String: [String: Double]] = [:]
        for variant in results["variants"]?.arrayValue ?? [] {
            var figures: [String: Double] = [:]
            for field in ["impressions", "uniqueSubscribers", "conversions"] {
                figures[field] = variant[field]?.doubleValue ?? -1
            }
            for sum in variant["revenue"]?.arrayValue ?? [] {
                figures["revenue." + (sum["currency"]?.stringValue ?? "?")] =
                    ((sum["amount"]?.doubleValue ?? -1) * 100).rounded() / 100
            }
            out[variant["name"]?.stringValue ?? "?"] = figures
        }
        return out
    }
}

/// A seeded generator (SplitMix64), so a failing stream is the same stream when run again.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
