import Digest
import Foundation
import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The audit log and the webhook outbox, written in the transaction of the write they describe,
/// and the outbox's leases and order, on both databases.
@Suite struct IntegrationsServiceTests {
    private func setUp(_ test: TestServices) throws -> (app: String, paywall: String) {
        let app = try test.services.keys.createApp(name: "Integrations").appID
        let paywall = try test.services.paywalls.create(appID: app, from: .template("cinematic", name: "Offer")).id
        return (app, paywall)
    }

    private static var limits: XizorServices.Limits {
        var limits = XizorServices.Limits()
        limits.webhooks.allowPrivateTargets = true
        return limits
    }

    private func deliveries(_ test: TestServices, app: String, endpoint: String) throws -> [WebhookDelivery] {
        try test.services.webhooks.deliveries(appID: app, id: endpoint, state: nil, cursor: nil, limit: 200).items
            .reversed()
    }

    @Test(arguments: Driver.allCases)
    func aWriteAndItsAuditEntryAndEventsCommitTogether(driver: Driver) throws {
        let test = try TestServices("outbox", driver: driver, limits: Self.limits)
        defer { test.remove() }
        let (app, paywall) = try setUp(test)
        let all = try test.services.webhooks.create(appID: app, body: ["url": "http://127.0.0.1:9/all"])
        let onlyPublish = try test.services.webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/p", "eventTypes": ["paywall.published"]])
        let disabled = try test.services.webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/off", "enabled": false])
        let actor = WriteActor(kind: .secret, keyID: "key_test", via: .rest, requestID: "req-1")
        _ = try WriteActor.$current.withValue(actor) {
            try test.services.paywalls.publish(
                appID: app, id: paywall, idempotencyKey: nil, options: PublishOptions(note: "first"))
        }
        let key = try test.services.keys.createKey(appID: app, .init(kind: "public", environment: .sandbox))

        let sent = try deliveries(test, app: app, endpoint: all.id)
        #expect(sent.map(\.eventType) == ["paywall.published", "key.created"])
        let payload = try JSONParser().parse(Array(sent[0].payload.utf8))
        #expect(
            payload["type"] == "paywall.published" && payload["appId"] == .string(app)
                && payload["requestId"] == "req-1")
        #expect(
            payload["data"]?["paywallId"] == .string(paywall) && payload["data"]?["version"] == 1
                && payload["data"]?["note"] == "first")
        #expect(payload["actor"] == ["kind": "secret", "keyId": "key_test", "via": "rest"])
        #expect(
            try JSONParser().parse(Array(sent[1].payload.utf8))["data"] == [
                "keyId": .string(key.info.id), "kind": "public",
            ])
        // One event id on every endpoint that hears it; the filtered and the disabled endpoint hear less.
        let filtered = try deliveries(test, app: app, endpoint: onlyPublish.id)
        #expect(filtered.map(\.eventType) == ["paywall.published"] && filtered[0].eventID == sent[0].eventID)
        #expect(try deliveries(test, app: app, endpoint: disabled.id).isEmpty)

        let audit = try test.services.audit.entries(appID: app, filter: AuditFilter(), cursor: nil, limit: 50).items
        #expect(
            audit.map(\.action) == [
                "key.created", "paywall.published", "webhook.created", "webhook.created", "webhook.created",
                "paywall.created", "app.created",
            ])
        let published = audit[1]
        #expect(published.actor == actor && published.targetKind == "paywall" && published.targetID == paywall)
        #expect(published.beforeHash == nil && published.afterHash?.count == 64)
        #expect(audit[0].actor.kind == .system, "no entry point set an actor")

        // A write that fails leaves neither an entry nor an event.
        _ = try test.services.paywalls.archive(appID: app, id: paywall)
        #expect(
            failsWith("paywall_archived") {
                _ = try test.services.paywalls.publish(
                    appID: app, id: paywall, idempotencyKey: nil, options: PublishOptions(force: true))
            })
        #expect(
            try deliveries(test, app: app, endpoint: all.id).map(\.eventType) == [
                "paywall.published", "key.created", "paywall.archived",
            ])
        let after = try test.services.audit.entries(
            appID: app, filter: AuditFilter(action: "paywall.published"), cursor: nil, limit: 50
        ).items
        #expect(after.count == 1)
        // A draft edit records the content before and after.
        let draft = try test.services.paywalls.draft(appID: app, id: paywall)
        var document = draft.document
        document["name"] = "Renamed"
        _ = try test.services.paywalls.saveDraft(
            appID: app, id: paywall, document: document, expectedRevision: draft.revision)
        let edit = try #require(
            try test.services.audit.entries(
                appID: app, filter: AuditFilter(action: "paywall.draft_updated"),
                cursor: nil, limit: 1
            ).items.first)
        #expect(edit.beforeHash != nil && edit.afterHash != nil && edit.beforeHash != edit.afterHash)
        #expect(edit.afterHash == SHA256Hex.of(document))
    }

    @Test(arguments: Driver.allCases)
    func anEndpointsDeliveriesGoOneAtATimeInOrder(driver: Driver) throws {
        let test = try TestServices("order", driver: driver, limits: Self.limits)
        defer { test.remove() }
        let (app, _) = try setUp(test)
        let first = try test.services.webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/a", "eventTypes": ["key.created"]])
        let second = try test.services.webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/b", "eventTypes": ["key.created"]])
        for _ in 0..<2 { _ = try test.services.keys.createKey(appID: app, .init(kind: "public")) }
        let store = test.services.store
        let now: Int64 = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
        func claim(at time: Int64) throws -> ClaimedDelivery? {
            try store.write { tx in try tx.webhooks.claim(now: time, leaseUntil: time + 10_000) }
        }
        let a1 = try #require(try claim(at: now))
        let b1 = try #require(try claim(at: now))
        #expect(Set([a1.url, b1.url]) == Set([first.url, second.url]), "each endpoint's head, independently")
        #expect(a1.attempts == 1)
        #expect(try claim(at: now) == nil, "both heads are leased; the rows behind them wait")
        // The first endpoint's head fails and is retried later: its second row still waits.
        try store.write { tx in
            try tx.webhooks.finish(
                seq: a1.seq,
                outcome: DeliveryOutcome(
                    state: .pending, nextAttemptAt: now + 5_000, status: 500,
                    error: "500"), now: now)
        }
        #expect(try claim(at: now + 1_000) == nil)
        #expect(
            try store.read { tx in try tx.webhooks.nextDue() } == now + 5_000, "the next due head is the retried one")
        let again = try #require(try claim(at: now + 5_000))
        #expect(again.seq == a1.seq && again.attempts == 2 && again.eventID == a1.eventID)
        try store.write { tx in
            try tx.webhooks.finish(
                seq: again.seq,
                outcome: DeliveryOutcome(
                    state: .delivered, nextAttemptAt: now + 5_000, status: 200,
                    error: nil), now: now + 5_000)
        }
        let next = try #require(try claim(at: now + 5_000))
        #expect(next.seq > a1.seq && next.url == a1.url, "then the next of the same endpoint")
        // A lease that expired (its sender died) makes the delivery claimable again.
        let b1again = try #require(try claim(at: now + 10_001))
        #expect(b1again.seq == b1.seq && b1again.attempts == 2)
        // Endpoints made in the same millisecond are listed by id: either may have the first row.
        let log = try deliveries(test, app: app, endpoint: a1.url == first.url ? first.id : second.id)
        #expect(log.map(\.state) == [.delivered, .pending] && log[0].attempts == 2 && log[0].lastStatus == 200)
    }

    @Test(arguments: Driver.allCases)
    func aFailedDeliveryCanBeRetriedByHandAndATestEventReachesOnlyItsEndpoint(driver: Driver) throws {
        let test = try TestServices("retry", driver: driver, limits: Self.limits)
        defer { test.remove() }
        let (app, _) = try setUp(test)
        let endpoint = try test.services.webhooks.create(
            appID: app, body: ["url": "http://127.0.0.1:9/a", "enabled": false])
        let other = try test.services.webhooks.create(appID: app, body: ["url": "http://127.0.0.1:9/b"])
        let delivery = try test.services.webhooks.sendTest(appID: app, id: endpoint.id)
        #expect(delivery.eventType == "webhook.test" && delivery.state == .pending)
        #expect(try deliveries(test, app: app, endpoint: other.id).isEmpty)
        #expect(
            failsWith("delivery_not_failed") {
                _ = try test.services.webhooks.retry(appID: app, id: endpoint.id, deliveryID: delivery.id)
            })
        _ = try test.services.webhooks.update(appID: app, id: endpoint.id, body: ["enabled": true])
        let now = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
        let claimed = try #require(
            try test.services.store.write { tx in try tx.webhooks.claim(now: now, leaseUntil: now + 1) })
        try test.services.store.write { tx in
            try tx.webhooks.finish(
                seq: claimed.seq,
                outcome: DeliveryOutcome(
                    state: .failed, nextAttemptAt: now, status: nil,
                    error: "timeout"), now: now)
        }
        let retried = try test.services.webhooks.retry(appID: app, id: endpoint.id, deliveryID: delivery.id)
        #expect(retried.state == .pending && retried.attempts == 1 && retried.finishedAt == nil)
        // Another app sees none of it.
        let stranger = try test.services.keys.createApp(name: "Other").appID
        #expect(
            failsWith("webhook_not_found") { _ = try test.services.webhooks.endpoint(appID: stranger, id: endpoint.id) }
        )
        #expect(
            try test.services.audit.entries(appID: stranger, filter: AuditFilter(), cursor: nil, limit: 50).items.map(
                \.action) == ["app.created"])
    }
}

/// The SHA-256 the audit log records for a JSON document (its canonical bytes).
enum SHA256Hex {
    static func of(_ value: JSONValue) -> String { Digest.SHA256.hexDigest(value.canonicalBytes) }
}
