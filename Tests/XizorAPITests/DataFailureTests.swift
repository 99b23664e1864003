import HTTP
import PaywallFormat
import Storage
import Synchronization
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// No failure is served as success: a page that fails to render is not cached (the next request
/// renders again), stored JSON that no longer parses is an error rather than `{}`, and a stored rule
/// that cannot be read answers 500 for the requests that reach it rather than being skipped. Each
/// is counted for `/metrics`.
@Suite struct DataFailureTests {
    struct RenderFailed: Error {}

    func published(_ services: XizorServices) throws -> String {
        try publishedApp(services).appID
    }

    func publishedApp(_ services: XizorServices) throws -> KeyService.CreatedApp {
        let created = try services.keys.createApp(name: "A")
        let app = created.appID
        let pw = try services.paywalls.create(appID: app, from: .template("clean", name: nil)).id
        _ = try services.paywalls.publish(appID: app, id: pw, idempotencyKey: nil)
        _ = try services.placements.assign(appID: app, key: "onboarding", paywallID: pw)
        return created
    }

    @Test func aPageThatFailsToRenderIsNeverCached() throws {
        let test = try TestServices("data")
        defer { test.remove() }
        let created = try publishedApp(test.services)
        let app = created.appID
        let signer = try #require(test.services.keys.verify(Substring(created.publicKey)))
        let failures = Counter()
        let delivery = PaywallDelivery(serving: test.services.serving, signing: test.services.signing) { _ in
            if failures.next() == 0 { throw RenderFailed() }
            return Array("<html>page</html>".utf8)
        }
        let request = HTTPRequest(
            method: .GET, target: "/", path: "/", headers: HTTPRequestHeaders([("Accept", "text/html")]))
        let ask = try DeliveryRequest(request, placement: "onboarding")
        func deliver() throws -> PaywallDelivery.Delivery {
            try delivery.deliver(
                appID: app, ask, from: request, surface: .edge, signer: signer, credential: { _ in created.publicKey })
        }
        #expect(throws: RenderFailed.self) { _ = try deliver() }
        guard case .paywall(let page) = try deliver() else {
            Issue.record("expected a page")
            return
        }
        #expect(page.body == Array("<html>page</html>".utf8), "rendered again, not an empty cached page")
    }

    /// A stored version whose older form cannot be built (stored before a stricter migration;
    /// inserted here past the publish that would have refused it) answers such clients 500, counted,
    /// on every request: the form is read only to build an answer, and a failed build keeps nothing.
    @Test func aStoredVersionWithoutAnOlderFormFailsLoudlyForOlderClients() throws {
        let test = try TestServices("data")
        defer { test.remove() }
        let s = test.services
        let created = try publishedApp(s)
        let pw = try s.paywalls.list(appID: created.appID, cursor: nil, limit: 1).items[0].id
        try s.pool.write { db in
            try db.execute(
                """
                INSERT INTO paywall_versions (paywall_id, version, document, schema_version, content_hash, published_at)
                VALUES (?, 2, '{"schemaVersion":9,"id":"pw_future"}', 9, 'h', 0)
                """, [pw])
        }
        let activity = ServiceActivity()
        let serving = ServingState(store: s.store, clock: s.clock, activity: activity)
        try serving.refresh(appID: created.appID)
        let delivery = PaywallDelivery(serving: serving, signing: s.signing)
        let signer = try #require(s.keys.verify(Substring(created.publicKey)))
        func deliver(_ headers: [(String, String)]) throws -> PaywallDelivery.Delivery {
            let request = HTTPRequest(method: .GET, target: "/", path: "/", headers: HTTPRequestHeaders(headers))
            return try delivery.deliver(
                appID: created.appID, try DeliveryRequest(request, placement: "onboarding"), from: request,
                surface: .authenticated, signer: signer, credential: { _ in created.publicKey })
        }
        #expect(throws: DataFailure.self) { _ = try deliver([]) }
        #expect(throws: DataFailure.self) { _ = try deliver([]) }
        #expect(activity.dataFailureCount(.storedDocument) == 2)
        // The newest client the server knows is still older than the stored document.
        #expect(throws: DataFailure.self) { _ = try deliver([("X-Xizor-Schema-Version", "9")]) }
        #expect(activity.dataFailureCount(.storedDocument) == 3)
    }

    @Test func theProductionRendererThrowsAndCountsWhatItCannotRender() throws {
        let activity = ServiceActivity()
        let pages = PageRendering(lottiePlayerURL: nil, activity: activity)
        let test = try TestServices("data")
        defer { test.remove() }
        let app = try published(test.services)
        let resolution = try test.services.serving.resolve(appID: app, placement: "onboarding", context: [:])
        let input = PageInput(
            appID: app, document: ["schemaVersion": 99], locale: "en", colorScheme: .light,
            context: [:], resolution: resolution)
        #expect(throws: DataFailure.self) { _ = try pages.production(input) }
        #expect(activity.dataFailureCount(.pageRender) == 1)
    }

    @Test func storedJSONThatNoLongerParsesIsAnErrorNotADefault() throws {
        let test = try TestServices("data")
        defer { test.remove() }
        let s = test.services
        let app = try published(s)
        let pw = try s.paywalls.list(appID: app, cursor: nil, limit: 1).items[0].id
        // The schema's CHECKs keep JSON valid; a damaged restore or a bug could still get past
        // them, which is what switching them off for one statement stands for.
        try s.pool.writeWithoutTransaction { db in
            try db.execute("PRAGMA ignore_check_constraints = ON")
            try db.execute("UPDATE paywalls SET draft = '{broken' WHERE id = ?", [pw])
            try db.execute("PRAGMA ignore_check_constraints = OFF")
        }
        try s.pool.write { db in
            try db.execute(
                """
                INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id) VALUES (?, 'onboarding', 0, ?, ?)
                """, [app, "{\"key\":\"tier\",\"op\":\"resembles\",\"value\":1}", pw])
        }
        #expect(throws: DataFailure.self) { _ = try s.paywalls.draft(appID: app, id: pw) }
        #expect(s.activity.dataFailureCount(.storedDocument) == 1)
        // Serving reads the rule again: kept as unreadable, so a request reaching it fails loudly.
        try s.serving.refresh(appID: app)
        #expect(s.activity.dataFailureCount(.storedRule) == 1)
        #expect(throws: DataFailure.self) {
            _ = try s.serving.resolve(appID: app, placement: "onboarding", context: [:])
        }
    }
}

/// A thread-safe counter for test doubles.
final class Counter: Sendable {
    private let value = Mutex<Int>(0)
    /// The count before this call.
    func next() -> Int {
        value.withLock { v in
            defer { v += 1 }
            return v
        }
    }
}
