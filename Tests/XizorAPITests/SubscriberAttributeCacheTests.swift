import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The subscriber attribute cache (docs/targeting.md, "Performance"): a write, a delete and a
/// subscriber deletion are seen by the next resolve in the writing process and, once it has caught
/// up, in another; a fill that read before an invalidation is not cached after it; the bounds hold;
/// a pruned feed clears it.
@Suite struct SubscriberAttributeCacheTests {
    struct World {
        let services: XizorServices
        let app: String
        let general: String
        let offer: String
    }

    func world(_ test: TestServices) throws -> World {
        let s = test.services
        let app = try s.keys.createApp(name: "A").appID
        let general = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        let offer = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        for id in [general, offer] { _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil) }
        _ = try s.placements.assign(appID: app, key: "home", paywallID: general)
        _ = try s.placements.setRules(
            appID: app, key: "home",
            rules: [
                ["when": ["key": "subscriber.plan", "op": "eq", "value": "pro"], "paywallId": .string(offer)]
            ])
        return World(services: s, app: app, general: general, offer: offer)
    }

    func served(_ s: XizorServices, _ w: World, _ subscriber: String) throws -> String? {
        try s.serving.resolve(appID: w.app, placement: "home", context: [:], subscriberID: subscriber).version?
            .paywallID
    }

    @Test(arguments: Driver.allCases)
    func writesAreSeenHereAtOnceAndElsewhereOnceCaughtUp(driver: Driver) throws {
        let test = try TestServices("attr-cache", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        let other = try test.second()
        // Both processes cache "no attributes" (one read each, then hits).
        #expect(try served(s, w, "u1") == w.general && served(other, w, "u1") == w.general)
        #expect(try served(s, w, "u1") == w.general && served(other, w, "u1") == w.general)
        #expect(s.serving.attributeCache.lookup(appID: w.app, subscriberID: "u1") == [:])
        #expect(other.serving.attributeCache.misses == 1 && other.serving.attributeCache.hits >= 1)

        _ = try s.subscribers.setAttributes(appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "pro"]])
        #expect(try served(s, w, "u1") == w.offer, "the writing process caught up before answering")
        #expect(
            try served(other, w, "u1") == w.general,
            "the other process answers from its cache until it applies the change")
        try other.changes.catchUp()
        #expect(try served(other, w, "u1") == w.offer)
        #expect(other.serving.attributeCache.lookup(appID: w.app, subscriberID: "u1") == ["plan": .string("pro")])

        try s.subscribers.deleteAttributes(appID: w.app, subscriberID: "u1")
        #expect(try served(s, w, "u1") == w.general)
        try other.changes.catchUp()
        #expect(try served(other, w, "u1") == w.general)

        // A write in the other process, then the subscriber's deletion here.
        _ = try other.subscribers.setAttributes(appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "pro"]])
        #expect(try served(other, w, "u1") == w.offer)
        try s.changes.catchUp()
        #expect(try served(s, w, "u1") == w.offer)
        #expect(try s.subscribers.delete(appID: w.app, subscriberID: "u1")["attributes"] == 1)
        #expect(try served(s, w, "u1") == w.general)
        try other.changes.catchUp()
        #expect(try served(other, w, "u1") == w.general)
        // Another subscriber's entry was not dropped by any of it.
        #expect(try served(s, w, "u2") == w.general)
        _ = try s.subscribers.setAttributes(appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "basic"]])
        #expect(s.serving.attributeCache.lookup(appID: w.app, subscriberID: "u2") == [:])
    }

    /// A fill whose database read began before a write was applied must not cache what it read.
    @Test(arguments: Driver.allCases)
    func aFillThatReadBeforeAnInvalidationIsNotCached(driver: Driver) throws {
        let test = try TestServices("attr-race", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        let cache = s.serving.attributeCache
        let other = try test.second()
        // The fill's first half: a ticket, then the read (nothing stored yet).
        let ticket = cache.ticket()
        let read = try s.store.read { tx in try tx.subscribers.attributes(appID: w.app, subscriberID: "u1") }
        #expect(read == nil)
        // Another process writes; this one applies it before the fill inserts.
        _ = try other.subscribers.setAttributes(appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "pro"]])
        try s.changes.catchUp()
        #expect(
            !cache.insert(appID: w.app, subscriberID: "u1", attributes: [:], bytes: 0, ticket: ticket),
            "the stale read is refused")
        #expect(cache.lookup(appID: w.app, subscriberID: "u1") == nil)
        #expect(try served(s, w, "u1") == w.offer)
        // A fill with no invalidation in between is cached.
        #expect(cache.insert(appID: w.app, subscriberID: "u9", attributes: [:], bytes: 0, ticket: cache.ticket()))
    }

    @Test(arguments: Driver.allCases)
    func aPrunedFeedClearsTheCache(driver: Driver) throws {
        let test = try TestServices("attr-prune", driver: driver)
        defer { test.remove() }
        let w = try world(test)
        let s = w.services
        let other = try test.second()
        #expect(try served(other, w, "u1") == w.general)
        _ = try s.subscribers.setAttributes(appID: w.app, subscriberID: "u1", body: ["attributes": ["plan": "pro"]])
        _ = try s.subscribers.setAttributes(appID: w.app, subscriberID: "u2", body: ["attributes": ["plan": "pro"]])
        // The change naming u1 is pruned before the other process reads it.
        _ = try s.store.write { tx in try tx.changes.prune(olderThan: 0, keepingAtMost: 1) }
        try other.changes.catchUp()
        #expect(other.serving.attributeCache.count == 0)
        #expect(try served(other, w, "u1") == w.offer)
    }

    /// A `subscriber` change drops cache entries and re-reads nothing else.
    @Test func subscriberChangesFoldIntoEntriesToDrop() {
        let effects = ChangeFeed.Effects([
            Change(sequence: 1, appID: "a", kind: .subscriber, entityID: "u1"),
            Change(sequence: 2, appID: "a", kind: .subscriber, entityID: "u2"),
            Change(sequence: 3, appID: "b", kind: .subscriber, entityID: "u1"),
            Change(sequence: 4, appID: "a", kind: .subscriber, entityID: "u1"),
        ])
        #expect(effects.subscribers == ["a": ["u1", "u2"], "b": ["u1"]])
        #expect(
            effects.serving.isEmpty && effects.keyApps.isEmpty && !effects.adminKeys && !effects.allSubscribers
                && !effects.reloadAll)
        #expect(ChangeFeed.Effects([Change(sequence: 5, appID: "a", kind: .subscriber, entityID: nil)]).allSubscribers)
    }

    @Test func theCacheIsBoundedByEntriesAndBytesAndEvictsWhatWasNotReadAgain() {
        let cache = SubscriberAttributeCache(maxEntries: 3, maxBytes: 10_000)
        func put(_ id: String, bytes: Int = 0) -> Bool {
            cache.insert(
                appID: "a", subscriberID: id, attributes: ["k": .string(id)], bytes: bytes, ticket: cache.ticket())
        }
        #expect(put("s1") && put("s2") && put("s3"))
        #expect(cache.lookup(appID: "a", subscriberID: "s1") != nil)
        #expect(put("s4"))
        #expect(cache.count == 3)
        #expect(
            cache.lookup(appID: "a", subscriberID: "s2") == nil,
            "the clock evicts the first entry not read since it passed")
        #expect(
            cache.lookup(appID: "a", subscriberID: "s1") != nil && cache.lookup(appID: "a", subscriberID: "s4") != nil)
        for i in 0..<100 { #expect(put("n\(i)")) }
        #expect(cache.count == 3)

        let small = SubscriberAttributeCache(
            maxEntries: 1_000, maxBytes: 3 * (SubscriberAttributeCache.entryOverhead + 1_000 + 3))
        for i in 0..<10 {
            #expect(
                small.insert(appID: "a", subscriberID: "s\(i)", attributes: [:], bytes: 1_000, ticket: small.ticket()))
            #expect(small.byteCount <= small.maxBytes)
        }
        #expect(small.count == 3)
        #expect(
            !small.insert(
                appID: "a", subscriberID: "huge", attributes: [:], bytes: small.maxBytes, ticket: small.ticket()),
            "an entry bigger than the cache is not cached")
        small.clear()
        #expect(small.count == 0 && small.byteCount == 0)
    }
}
