import Foundation
import Synchronization
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A sender recording an endpoint's health and a person editing the endpoint write the same row;
/// each stores the endpoint whole, so on PostgreSQL (several writers, READ COMMITTED) the one that
/// read first must not write back over the other. A CI run saw it: a secret rotated while the first
/// failed attempt was being recorded came back as the old one, and every retry was signed with it.
@Suite struct WebhookEndpointWriteTests {
    private static var limits: XizorServices.Limits {
        var limits = XizorServices.Limits()
        limits.webhooks.allowPrivateTargets = true
        return limits
    }

    private struct Setup {
        let test: TestServices
        let app: String
        let endpoint: WebhookEndpoint
        let claimed: ClaimedDelivery
        let now: Int64
    }

    private static func setUp(_ driver: Driver) throws -> Setup {
        let test = try TestServices("endpoint-writes", driver: driver, limits: limits)
        let app = try test.services.keys.createApp(name: "Hooks").appID
        let endpoint = try test.services.webhooks.create(appID: app, body: ["url": "http://127.0.0.1:9/hook"])
        _ = try test.services.webhooks.sendTest(appID: app, id: endpoint.id)
        let now = Int64(Date().timeIntervalSince1970 * 1000) + 1_000
        let claimed = try #require(
            try test.services.store.write { tx in
                try tx.webhooks.claim(now: now, leaseUntil: now + 10_000, maxInFlightPerApp: 2)
            })
        return Setup(test: test, app: app, endpoint: endpoint, claimed: claimed, now: now)
    }

    /// Runs `holder` in a write transaction on another thread that first reads the endpoint for
    /// update, then `meanwhile` here once it has; `holder` goes on, with the endpoint as it read it,
    /// after a pause long enough for `meanwhile` to reach the row.
    private static func race(
        _ s: Setup, holder: @escaping @Sendable (any StoreTransaction, WebhookEndpoint) throws -> Void,
        meanwhile: () throws -> Void
    ) throws {
        let locked = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failure = Mutex<String?>(nil)
        let store = s.test.services.store
        let (app, id) = (s.app, s.endpoint.id)
        done.enter()
        Thread {
            defer { done.leave() }
            do {
                try store.write { tx in
                    guard let endpoint = try tx.webhooks.endpointForUpdate(appID: app, id: id) else {
                        throw TestSetupError("the endpoint is gone")
                    }
                    locked.signal()
                    Thread.sleep(forTimeInterval: 0.3)
                    try holder(tx, endpoint)
                }
            } catch {
                locked.signal()
                failure.withLock { $0 = "\(error)" }
            }
        }.start()
        locked.wait()
        try meanwhile()
        done.wait()
        #expect(failure.withLock { $0 } == nil)
    }

    private static func failed(_ s: Setup) -> DeliveryOutcome {
        DeliveryOutcome(state: .pending, nextAttemptAt: s.now + 200, status: 500, error: "The endpoint answered 500.")
    }

    @Test(arguments: Driver.allCases)
    func aSenderRecordingAFailureKeepsTheSecretRotatedMeanwhile(driver: Driver) throws {
        let s = try Self.setUp(driver)
        defer { s.test.remove() }
        let webhooks = s.test.services.webhooks
        let rotated = Mutex<String?>(nil)
        try Self.race(
            s,
            holder: { tx, read in
                // A rotation that read the endpoint before the sender did, and commits after it.
                var endpoint = read
                endpoint.secret = "whsec_rotated_while_sending"
                _ = try tx.webhooks.updateEndpoint(endpoint)
                rotated.withLock { $0 = endpoint.secret }
            },
            meanwhile: {
                try s.test.services.store.write { tx in
                    _ = try WebhookAttempts.record(
                        s.claimed, outcome: Self.failed(s), now: s.now, disableAfterMs: 86_400_000, in: tx)
                }
            })
        let after = try webhooks.endpoint(appID: s.app, id: s.endpoint.id)
        #expect(
            after.secret == rotated.withLock { $0 } && after.secret != s.endpoint.secret,
            "the sender wrote back the old secret")
        #expect(after.health == .failing(since: s.now))
    }

    @Test(arguments: Driver.allCases)
    func aRotationKeepsTheHealthASenderRecordedMeanwhile(driver: Driver) throws {
        let s = try Self.setUp(driver)
        defer { s.test.remove() }
        let webhooks = s.test.services.webhooks
        var rotated: WebhookEndpoint?
        let claimed = s.claimed
        let outcome = Self.failed(s)
        let now = s.now
        try Self.race(
            s,
            holder: { tx, _ in
                _ = try WebhookAttempts.record(claimed, outcome: outcome, now: now, disableAfterMs: 86_400_000, in: tx)
            },
            meanwhile: {
                rotated = try webhooks.rotateSecret(appID: s.app, id: s.endpoint.id)
            })
        let after = try webhooks.endpoint(appID: s.app, id: s.endpoint.id)
        #expect(after.secret == rotated?.secret && after.secret != s.endpoint.secret)
        #expect(
            after.health == .failing(since: s.now), "the rotation wrote back the health it read before the sender's")
    }
}
