import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Targeting through the services on both databases: frequency caps over days (a moved clock),
/// every kind of trace, subscriber attributes read on the next request and deleted with the
/// subscriber's timers and events, and audiences as part of the routing.
@Suite struct TargetingServiceTests {
    struct World {
        let services: XizorServices
        let app: String
        let general: String
        let offer: String
        let unpublished: String
    }

    func world(_ test: TestServices) throws -> World {
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        func paywall(publish: Bool) throws -> String {
            let id = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
            if publish { _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil) }
            return id
        }
        let general = try paywall(publish: true)
        let offer = try paywall(publish: true)
        let unpublished = try paywall(publish: false)
        _ = try s.placements.assign(appID: app, key: "home", paywallID: general)
        return World(services: s, app: app, general: general, offer: offer, unpublished: unpublished)
    }

    func open(_ w: World, subscriber: String, paywall: String, at ms: Int64, id: String) throws {
        let outcome = try w.services.events.ingest(
            appID: w.app,
            batch: [
                "events": [
                    [
                        "id": .string(id), "name": "paywall_open", "timestamp": .number(Int(ms)), "placement": "home",
                        "paywallId": .string(paywall), "version": 1, "subscriberId": .string(subscriber),
                    ]
                ]
            ])
        #expect(outcome.accepted == 1)
    }

    @Test(arguments: Driver.allCases)
    func aFrequencyCapCountsPresentationsInItsInterval(driver: Driver) throws {
        let day: Int64 = 86_400_000
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices("caps", driver: driver, clock: clock.clock)
        defer { test.remove() }
        let w = try world(test)
        _ = try w.services.placements.setRules(
            appID: w.app, key: "home",
            rules: [
                [
                    "when": ["key": "promo", "op": "eq", "value": true], "paywallId": .string(w.offer),
                    "frequencyCap": ["count": 2, "per": "day"],
                ]
            ])
        func served(_ subscriber: String?) throws -> String? {
            try w.services.serving.resolve(
                appID: w.app, placement: "home", context: ["promo": .bool(true)], subscriberID: subscriber
            ).version?.paywallID
        }
        #expect(try served("u1") == w.offer)
        try open(w, subscriber: "u1", paywall: w.offer, at: clock.now, id: "e1")
        clock.advance(byMs: 6 * 3_600_000)
        #expect(try served("u1") == w.offer, "one presentation of two")
        try open(w, subscriber: "u1", paywall: w.offer, at: clock.now, id: "e2")
        #expect(try served("u1") == w.general, "two in a day: capped, the placement's own paywall serves")
        // Presentations of another paywall or another subscriber do not count.
        try open(w, subscriber: "u2", paywall: w.general, at: clock.now, id: "e3")
        try open(w, subscriber: "u2", paywall: w.general, at: clock.now, id: "e4")
        #expect(try served("u2") == w.offer)
        #expect(try served(nil) == w.offer, "no subscriber: nothing to count, not capped")
        let trace = try w.services.serving.resolve(
            appID: w.app, placement: "home", context: ["promo": .bool(true)], subscriberID: "u1", trace: true)
        #expect(trace.trace?.first?.outcome == .capped && trace.trace?.first?.presentations == 2)
        // 18 h after the first: still inside the day for both.
        clock.advance(byMs: 12 * 3_600_000)
        #expect(try served("u1") == w.general)
        // A day after the first: only the second counts.
        clock.advance(byMs: 6 * 3_600_000 + 1)
        #expect(try served("u1") == w.offer)
        clock.advance(byMs: day)
        #expect(try served("u1") == w.offer)
    }

    @Test(arguments: Driver.allCases)
    func theTraceSaysWhatBecameOfEveryRule(driver: Driver) throws {
        let clock = TestClock(1_800_000_000_000)
        let test = try TestServices("trace", driver: driver, clock: clock.clock)
        defer { test.remove() }
        let w = try world(test)
        let placement = try w.services.placements.setRules(
            appID: w.app, key: "home",
            rules: [
                [
                    "when": ["key": "device.appVersion", "op": "semver_gte", "value": "2.0.0"],
                    "paywallId": .string(w.offer),
                ],
                [
                    "when": ["key": "promo", "op": "exists"], "paywallId": .string(w.offer),
                    "activeFrom": .number(Int(clock.now + 60_000)),
                ],
                ["when": ["key": "promo", "op": "exists"], "paywallId": .string(w.unpublished)],
                [
                    "when": ["key": "promo", "op": "exists"], "paywallId": .string(w.offer),
                    "frequencyCap": ["count": 1, "seconds": 60],
                ],
                ["when": ["key": "promo", "op": "exists"], "paywallId": .string(w.general)],
                ["when": ["key": "promo", "op": "exists"], "paywallId": .string(w.offer)],
            ])
        #expect(
            placement.warnings.map(\.path) == ["$.rules[2].paywallId"]
                && placement.warnings.map(\.code) == ["target_unpublished"])
        try open(w, subscriber: "u1", paywall: w.offer, at: clock.now, id: "e1")
        var facts = RequestFacts(
            context: ["promo": .bool(true)], subscriberID: "u1", device: .init(values: [.appVersion: "1.9.3"]))
        let resolution = try w.services.serving.resolve(appID: w.app, placement: "home", facts: &facts, trace: true)
        let trace = try #require(resolution.trace)
        #expect(trace.map(\.outcome) == [.notMatched, .inactive, .targetUnpublished, .capped, .matched, .notReached])
        #expect(trace[0].failure?.saw == .string("1.9.3") && trace[0].failure?.path == "$.rules[0].when")
        #expect(resolution.matchedRule == 4 && resolution.version?.paywallID == w.general)
        #expect(resolution.json["fallback"] == false)
        // Nothing matches: the fallback, with every rule accounted for.
        let none = try w.services.serving.resolve(appID: w.app, placement: "home", context: [:], trace: true)
        #expect(
            none.trace?.map(\.outcome) == [.notMatched, .inactive, .notMatched, .notMatched, .notMatched, .notMatched])
        #expect(none.json["fallback"] == true && none.trace?[0].failure?.reason == .missing)
        // The SDK path builds no trace.
        #expect(try w.services.serving.resolve(appID: w.app, placement: "home", context: [:]).trace == nil)
    }

    @Test(arguments: Driver.allCases)
    func subscriberAttributesRouteTheNextRequestAndLeaveWithTheSubscriber(driver: Driver) throws {
        let test = try TestServices("subscribers", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        _ = try s.placements.setRules(
            appID: w.app, key: "home",
            rules: [
                ["when": ["key": "subscriber.plan", "op": "eq", "value": "pro"], "paywallId": .string(w.offer)]
            ])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u1").version?.paywallID
                == w.general)
        _ = try s.subscribers.setAttributes(
            appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "pro", "sessions": 4]])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u1").version?.paywallID
                == w.offer)
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u2").version?.paywallID
                == w.general)
        _ = try s.timers.start(
            appID: w.app, body: ["subscriberId": "u1", "paywallId": .string(w.offer), "nodeId": "t"])
        try open(w, subscriber: "u1", paywall: w.offer, at: Clock.system.now(), id: "e1")
        try open(w, subscriber: "u2", paywall: w.offer, at: Clock.system.now(), id: "e2")
        _ = try s.subscribers.setAttributes(appID: w.app, subscriberID: "u2", body: ["attributes": ["plan": "pro"]])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u2").version?.paywallID
                == w.offer)
        try s.subscribers.deleteAttributes(appID: w.app, subscriberID: "u2")
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u2").version?.paywallID
                == w.general)
        #expect(
            failsWith("attributes_not_found") { try s.subscribers.deleteAttributes(appID: w.app, subscriberID: "u2") })
        let deleted = try s.subscribers.delete(appID: w.app, subscriberID: "u1")
        #expect(deleted == ["subscriberId": "u1", "attributes": 1, "timers": 1, "events": 1])
        // Read back, not taken from the answer: the rows are gone, the other subscriber's stay.
        func opens(_ subscriber: String) throws -> Int {
            try s.store.read { tx in
                try tx.events.presentations(
                    appID: w.app, subscriberID: subscriber, placement: "home", paywallIDs: [w.offer], since: 0,
                    atMost: 10)
            }
        }
        #expect(try opens("u1") == 0 && opens("u2") == 1)
        #expect(try s.subscribers.attributes(appID: w.app, subscriberID: "u1")["attributes"] == [:])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: "u1").version?.paywallID
                == w.general)
        #expect(
            try s.subscribers.delete(appID: w.app, subscriberID: "u1") == [
                "subscriberId": "u1", "attributes": 0, "timers": 0, "events": 0,
            ])
        // Bounds, each with its path.
        #expect(
            failsWith("validation_failed") {
                _ = try s.subscribers.setAttributes(
                    appID: w.app, subscriberID: "u3",
                    body: [
                        "attributes": [
                            "bad key": 1, "long": .string(String(repeating: "x", count: 257)), "obj": ["a": 1],
                        ]
                    ])
            })
    }

    /// 2,500 events are more than two chunks of a deletion (`SubscriberService.deletionChunk`): all go,
    /// counted once each, and another subscriber's stay.
    @Test(arguments: Driver.allCases)
    func aSubscriberWithThousandsOfEventsIsDeletedInChunks(driver: Driver) throws {
        let test = try TestServices("subscriber-chunks", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let now = Clock.system.now()
        for batch in 0..<5 {
            let events: [JSONValue] = (0..<500).map { i in
                [
                    "id": .string("e\(batch)-\(i)"), "name": "paywall_open", "timestamp": .number(Int(now) - i),
                    "placement": "home",
                    "paywallId": .string(w.offer), "version": 1, "subscriberId": "heavy",
                ]
            }
            #expect(try w.services.events.ingest(appID: w.app, batch: ["events": .array(events)]).accepted == 500)
        }
        try open(w, subscriber: "light", paywall: w.offer, at: now, id: "light-1")
        #expect(SubscriberService.deletionChunk < 2_500)
        let deleted = try w.services.subscribers.delete(appID: w.app, subscriberID: "heavy")
        #expect(deleted["events"] == 2_500)
        func opens(_ subscriber: String) throws -> Int {
            try w.services.store.read { tx in
                try tx.events.presentations(
                    appID: w.app, subscriberID: subscriber, placement: "home", paywallIDs: [w.offer], since: 0,
                    atMost: 10_000)
            }
        }
        #expect(try opens("heavy") == 0 && opens("light") == 1)
        #expect(try w.services.subscribers.delete(appID: w.app, subscriberID: "heavy")["events"] == 0)
    }

    @Test(arguments: Driver.allCases)
    func audiencesAreRoutingAndCannotVanishUnderARule(driver: Driver) throws {
        let test = try TestServices("audiences", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        #expect(
            failsWith("validation_failed") {
                _ = try s.placements.setRules(
                    appID: w.app, key: "home", rules: [["when": ["audience": "beta"], "paywallId": .string(w.offer)]])
            }, "a rule may not name an audience that does not exist")
        _ = try s.audiences.put(
            appID: w.app, id: "beta", body: ["condition": ["key": "tester", "op": "eq", "value": true]])
        _ = try s.placements.setRules(
            appID: w.app, key: "home", rules: [["when": ["audience": "beta"], "paywallId": .string(w.offer)]])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: ["tester": .bool(true)]).version?.paywallID
                == w.offer)
        _ = try s.audiences.put(
            appID: w.app, id: "beta", body: ["condition": ["key": "tester", "op": "eq", "value": false]])
        #expect(
            try s.serving.resolve(appID: w.app, placement: "home", context: ["tester": .bool(true)]).version?.paywallID
                == w.general,
            "a changed audience is live on the next request")
        #expect(
            try s.audiences.audience(appID: w.app, id: "beta").usedBy == [
                PlacementReference(placement: "home", rule: 0)
            ])
        #expect(failsWith("audience_in_use") { try s.audiences.delete(appID: w.app, id: "beta") })
        _ = try s.placements.setRules(appID: w.app, key: "home", rules: [])
        try s.audiences.delete(appID: w.app, id: "beta")
        #expect(failsWith("audience_not_found") { _ = try s.audiences.audience(appID: w.app, id: "beta") })
        // A second process sees audience changes through the change feed.
        _ = try s.audiences.put(appID: w.app, id: "b2", body: ["condition": ["key": "x", "op": "exists"]])
        let other = try test.second()
        try other.changes.catchUp()
        #expect(other.serving.snapshot(appID: w.app)?.audiences["b2"] != nil)
    }
}
