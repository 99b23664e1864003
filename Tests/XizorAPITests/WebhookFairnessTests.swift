import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Issue 35, "No tenant can slow down another": senders shared out per app with a cap in flight,
/// and an endpoint that keeps failing backed off and then disabled, on both databases.
@Suite struct WebhookFairnessTests {
    private static var limits: XizorServices.Limits {
        var limits = XizorServices.Limits()
        limits.webhooks.allowPrivateTargets = true
        return limits
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) + 1_000 }

    @Test(arguments: Driver.allCases)
    func theAppWithFewestInFlightGoesFirstAndNoAppPassesItsCap(driver: Driver) throws {
        let test = try TestServices("fair", driver: driver, limits: Self.limits)
        defer { test.remove() }
        let noisy = try test.services.keys.createApp(name: "Noisy").appID
        let quiet = try test.services.keys.createApp(name: "Quiet").appID
        for n in 0..<3 {
            _ = try test.services.webhooks.create(
                appID: noisy, body: ["url": .string("http://127.0.0.1:9/n\(n)"), "eventTypes": ["key.created"]])
        }
        _ = try test.services.webhooks.create(
            appID: quiet, body: ["url": "http://127.0.0.1:9/q", "eventTypes": ["key.created"]])
        _ = try test.services.keys.createKey(appID: noisy, .init(kind: "public"))  // three deliveries, the oldest
        _ = try test.services.keys.createKey(appID: quiet, .init(kind: "public"))  // one, the newest
        let store = test.services.store
        let now = Self.now()
        func claim() throws -> ClaimedDelivery? {
            try store.write { tx in try tx.webhooks.claim(now: now, leaseUntil: now + 10_000, maxInFlightPerApp: 2) }
        }
        let first = try #require(try claim())
        #expect(first.appID == noisy, "nobody in flight: the oldest due first")
        let second = try #require(try claim())
        #expect(second.appID == quiet, "the app with fewer in flight goes before an older delivery of a busier app")
        let third = try #require(try claim())
        #expect(third.appID == noisy)
        #expect(try claim() == nil, "the noisy app has its cap in flight; its third delivery waits though due")
        // An attempt that ends frees a place for its app.
        _ = try store.write { tx in
            try WebhookAttempts.record(
                first, outcome: DeliveryOutcome(state: .delivered, nextAttemptAt: now, status: 200, error: nil),
                now: now, disableAfterMs: 86_400_000, in: tx)
        }
        let fourth = try #require(try claim())
        #expect(fourth.appID == noisy && Set([first.seq, third.seq, fourth.seq]).count == 3)
    }

    @Test(arguments: Driver.allCases)
    func anEndpointThatKeepsFailingIsBackedOffThenDisabledWithAnEventAndAnAuditEntry(driver: Driver) throws {
        let test = try TestServices("disable", driver: driver, limits: Self.limits)
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "Failing").appID
        let webhooks = test.services.webhooks
        let dead = try webhooks.create(appID: app, body: ["url": "http://127.0.0.1:9/dead"])
        let watcher = try webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/watch", "eventTypes": ["webhook.disabled"]])
        let head = try webhooks.sendTest(appID: app, id: dead.id)
        let behind = try webhooks.sendTest(appID: app, id: dead.id)
        let store = test.services.store
        let t0 = Self.now()
        let window: Int64 = 60_000
        func attempt(at now: Int64, failing next: Int64) throws -> Bool {
            let claimed = try #require(
                try store.write { tx in try tx.webhooks.claim(now: now, leaseUntil: now + 10_000, maxInFlightPerApp: 2)
                })
            #expect(claimed.id == head.id && claimed.endpointID == dead.id && claimed.appID == app)
            return try store.write { tx in
                try WebhookAttempts.record(
                    claimed, outcome: DeliveryOutcome(state: .pending, nextAttemptAt: next, status: 500, error: "500"),
                    now: now, disableAfterMs: window, in: tx)
            }
        }
        #expect(try attempt(at: t0, failing: t0 + 30_000) == false)
        #expect(try webhooks.endpoint(appID: app, id: dead.id).health == .failing(since: t0))
        // The endpoint backs off, not only its head: the delivery behind it waits as long.
        let waiting = try #require(
            try webhooks.deliveries(appID: app, id: dead.id, state: .pending, cursor: nil, limit: 10).items.first {
                $0.id == behind.id
            })
        #expect(waiting.nextAttemptAt == t0 + 30_000)
        #expect(try attempt(at: t0 + 30_000, failing: t0 + 90_000) == false, "failing for half the window")
        #expect(try attempt(at: t0 + 90_000, failing: t0 + 210_000) == true, "failing for the whole window: disabled")

        let disabled = try webhooks.endpoint(appID: app, id: dead.id)
        #expect(!disabled.enabled && disabled.health == .disabledAfterFailing(since: t0))
        #expect(disabled.json["disabledReason"] == "failing" && disabled.json["failingSince"] == .number(Int(t0)))
        let entry = try #require(
            try test.services.audit.entries(
                appID: app, filter: AuditFilter(action: "webhook.disabled"), cursor: nil, limit: 5
            ).items.first)
        #expect(entry.targetID == dead.id && entry.actor.kind == .system && entry.beforeHash != entry.afterHash)
        // The event goes to the app's other endpoints that want it, not to the one disabled.
        let told = try webhooks.deliveries(appID: app, id: watcher.id, state: nil, cursor: nil, limit: 10).items
        #expect(told.map(\.eventType) == ["webhook.disabled"])
        let event = try JSONParser().parse(Array(told[0].payload.utf8))
        #expect(event["data"]?["webhookId"] == .string(dead.id) && event["data"]?["failingSince"] == .number(Int(t0)))
        #expect(
            try webhooks.deliveries(appID: app, id: dead.id, state: nil, cursor: nil, limit: 10).items.allSatisfy {
                $0.eventType == "webhook.test"
            })
        // Nothing more is sent to it: the next claim is the watcher's event.
        let next = try #require(
            try store.write { tx in
                try tx.webhooks.claim(now: t0 + 500_000, leaseUntil: t0 + 510_000, maxInFlightPerApp: 2)
            })
        #expect(next.endpointID == watcher.id)

        // Enabled by hand: healthy again, and its deliveries are still there to send.
        let enabled = try webhooks.update(appID: app, id: dead.id, body: ["enabled": true])
        #expect(
            enabled.enabled && enabled.health == .healthy && enabled.json["failingSince"] == .null
                && enabled.json["disabledReason"] == .null)
        #expect(
            try webhooks.deliveries(appID: app, id: dead.id, state: .pending, cursor: nil, limit: 10).items.count == 2)
    }
}
