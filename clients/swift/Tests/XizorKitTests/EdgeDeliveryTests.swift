import Foundation
import Testing

@testable import XizorKit

/// Edge delivery against a live server (docs/client-swift.md): the cacheable path form, experiments
/// bucketed on the device from the server's allocation, and signed answers — verified, refused when a
/// proxy changes or strips them, and across a key rotation.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct EdgeDeliveryTests {
    /// Starts a running experiment on `onboarding`: variants (name, paywall, weight) and a holdout.
    static func startExperiment(
        _ app: TestApp, variants: [(name: String?, paywallId: String, weight: Int)], holdoutWeight: Int
    ) async throws -> String {
        let rows: [JSONValue] = variants.map { variant in
            var row: [String: JSONValue] = [
                "paywallId": .string(variant.paywallId), "weight": .number(Double(variant.weight)),
            ]
            if let name = variant.name { row["name"] = .string(name) }
            return .object(row)
        }
        let experiment = try await app.dashboard(
            "POST", "/v1/experiments",
            ["variants": .array(rows), "holdoutWeight": .number(Double(holdoutWeight))], expect: 201)
        let experimentId = try #require(experiment["id"]?.stringValue)
        _ = try await app.dashboard(
            "PUT", "/v1/placements/onboarding", ["experimentId": .string(experimentId)], expect: 200)
        _ = try await app.dashboard("POST", "/v1/experiments/\(experimentId)/start", expect: 200)
        return experimentId
    }

    /// The underlying reason of an `.unavailable`, or a recorded issue.
    static func unavailableReason(_ call: () async throws -> PaywallAnswer) async -> String {
        do {
            let answer = try await call()
            Issue.record("expected no paywall, got \(answer)")
        } catch XizorError.unavailable(_, let underlying) {
            return underlying
        } catch {
            Issue.record("expected unavailable, got \(error)")
        }
        return ""
    }

    @Test func requestsUseThePathFormWithoutCredentialsAndRevalidate() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let proxy = try TamperingProxy(upstream: server.base)
        defer { proxy.stop() }
        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)) { $0.baseURL = proxy.base })

        let first = try #require(
            try await xizor.paywall(for: "onboarding", locale: "en", subscriberId: "user-1@example.com").paywall)
        let second = try #require(
            try await xizor.paywall(for: "onboarding", locale: "en", subscriberId: "user-1@example.com").paywall)
        #expect(first.source == .network && first.paywallId == app.paywallId && first.verification == .notRequested)
        #expect(second.source == .revalidated && second.etag == first.etag && second.document == first.document)

        let gets = proxy.log.filter { $0.method == "GET" }
        #expect(gets.map(\.status) == [200, 304])
        for exchange in gets {
            #expect(exchange.target == "/v1/sdk/apps/\(app.publicKey)/placements/onboarding/paywall?locale=en")
            #expect(exchange.requestHeaders["authorization"] == nil, "the key is in the path")
            #expect(exchange.requestHeaders["x-xizor-subscriber-id"] == "user-1@example.com")
        }
        #expect(gets.last?.requestHeaders["if-none-match"] == first.etag)
        let cacheControl = gets.first?.responseHeaders["cache-control"] ?? ""
        #expect(cacheControl.hasPrefix("public"), "a paywall nobody's attributes decided is cacheable: \(cacheControl)")

        // Everything else still authenticates with the key.
        await xizor.track(XizorEvent.paywallOpen, paywall: first, subscriberId: "user-1@example.com")
        await xizor.flush()
        let events = proxy.log.filter { $0.method == "POST" && $0.target == "/v1/sdk/events" }
        #expect(events.count == 1 && events.first?.requestHeaders["authorization"] == "Bearer \(app.publicKey)")
        #expect(try await app.impressions(of: app.paywallId) == 1)
    }

    @Test func bucketsComputedOnTheDeviceAgreeWithTheServersAssignment() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let challenger = try await app.createPaywall(template: "cinematic")
        try await app.publish(challenger)
        let experimentId = try await Self.startExperiment(
            app,
            variants: [(nil, app.paywallId, 45), ("cinematic", challenger, 35), ("again", app.paywallId, 10)],
            holdoutWeight: 10)
        let keys = try await server.signingKeys().keys
        let xizor = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .enforced(publicKeys: Array(keys.values))
            })

        // The server's own answers are signed too, its 204 included: checked with the same code.
        let verifier = AnswerVerifier(configuration: xizor.configuration)
        var seen: [String: Int] = [:]
        var shownOne: String?
        for index in 0..<200 {
            // Every 25th id is no header value: it travels as the query parameter, and hashes as UTF-8.
            let subscriber = index % 25 == 0 ? "agrée \(index)" : "agree-\(index)"
            let answer = try await xizor.paywall(for: "onboarding", subscriberId: subscriber)
            // The server's own assignment: the old endpoint, which assigns on the server.
            let assigned = try await server.request(
                "GET", "/v1/sdk/placements/onboarding/paywall?subscriberId=\(PaywallRequest.queryEscape(subscriber))",
                key: app.publicKey,
                headers: ["X-Xizor-Schema-Version": "2", "Accept": "application/json"])
            let signed = verifier.check(
                signature: assigned.headers["x-xizor-signature"], placement: "onboarding", status: assigned.status,
                body: assigned.body)
            #expect(signed == .verified, "\(subscriber): the server's \(assigned.status): \(signed)")
            switch answer {
            case .holdout(let id):
                #expect(
                    id == experimentId && assigned.status == 204,
                    "\(subscriber): the server answered \(assigned.status)")
                seen["holdout", default: 0] += 1
            case .paywall(let paywall):
                let variant = paywall.experiment?.variant ?? "none"
                #expect(
                    assigned.status == 200 && assigned.json["experiment"]?["variant"]?.stringValue == variant
                        && assigned.json["paywallId"]?.stringValue == paywall.paywallId,
                    "\(subscriber): the device chose \(variant), the server \(assigned.json["experiment"] ?? nil)")
                #expect(paywall.experiment?.id == experimentId && paywall.experiment?.assignment == "client")
                #expect(paywall.verification == .verified && paywall.source == .network)
                seen[variant, default: 0] += 1
                shownOne = shownOne ?? subscriber
            }
        }
        #expect(Set(seen.keys) == ["control", "cinematic", "again", "holdout"], "\(seen)")

        // Both answers revalidate; a device without a subscriber id shows the control.
        let again = try #require(try await xizor.paywall(for: "onboarding", subscriberId: shownOne).paywall)
        #expect(again.source == .revalidated && again.verification == .verified)
        // Pages are allocated alike: the same variant, its paywall rendered.
        let page = try #require(
            try await xizor.paywall(for: "onboarding", subscriberId: shownOne, format: .page).paywall)
        #expect(page.page != nil && page.verification == .verified && page.paywallId == again.paywallId)
        #expect(page.experiment?.id == experimentId && page.experiment?.variant == again.experiment?.variant)
        let anonymous = try #require(try await xizor.paywall(for: "onboarding").paywall)
        #expect(anonymous.experiment?.variant == "control" && anonymous.paywallId == app.paywallId)
    }

    @Test func aChangedAnswerIsRefusedWhenEnforcedAndReportedWhenInformational() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let pinned = Array(try await server.signingKeys().keys.values)
        let bundle = try await server.request(
            "GET", "/v1/sdk/fallback-bundle", key: app.publicKey, headers: ["X-Xizor-Schema-Version": "2"])
        let bundleFile = server.directory.appendingPathComponent("fallback.json")
        try bundle.body.write(to: bundleFile)
        let proxy = try TamperingProxy(upstream: server.base)
        defer { proxy.stop() }
        func client(_ verification: SignatureVerification, fallback: Bool = false) throws -> Xizor {
            try Xizor(
                configuration: app.configuration(cache: freshCache(server)) {
                    $0.baseURL = proxy.base
                    $0.verification = verification
                    if fallback { $0.fallbackBundle = bundleFile }
                })
        }

        proxy.tamper = .flipProductId
        let enforced = try client(.enforced(publicKeys: pinned))
        let reason = await Self.unavailableReason { try await enforced.paywall(for: "onboarding") }
        #expect(reason.contains("signature"), "\(reason)")
        let withBundle = try client(.enforced(publicKeys: pinned), fallback: true)
        let bundled = try #require(try await withBundle.paywall(for: "onboarding").paywall)
        #expect(bundled.source == .fallback && bundled.verification == .notRequested)

        let informational = try client(.informational(publicKeys: pinned))
        let shown = try #require(try await informational.paywall(for: "onboarding").paywall)
        #expect(shown.source == .network && shown.verification.isFailure, "\(shown.verification)")
        let text = String(decoding: try shown.document?.jsonData() ?? Data(), as: UTF8.self)
        #expect(text.contains("com.attacker."), "informational delivers what arrived")

        proxy.tamper = .none
        let clean = try #require(try await enforced.paywall(for: "onboarding").paywall)
        #expect(clean.source == .network && clean.verification == .verified && clean.version == 1)

        // A new version arrives changed: the verified copy on disk stands in, and the changed one is
        // not stored (else the next fetch would revalidate it instead of getting version 2).
        try await app.publish(app.paywallId, marker: "second")
        proxy.tamper = .flipProductId
        let stale = try #require(try await enforced.paywall(for: "onboarding").paywall)
        #expect(stale.source == .cache && stale.version == 1 && stale.verification == .verified)
        proxy.tamper = .none
        let fresh = try #require(try await enforced.paywall(for: "onboarding").paywall)
        #expect(fresh.source == .network && fresh.version == 2 && fresh.verification == .verified)
    }

    @Test func aMissingSignatureIsRefusedWhenEnforcedAndReportedWhenInformational() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let pinned = Array(try await server.signingKeys().keys.values)
        let proxy = try TamperingProxy(upstream: server.base)
        defer { proxy.stop() }
        func client(_ verification: SignatureVerification) throws -> Xizor {
            try Xizor(
                configuration: app.configuration(cache: freshCache(server)) {
                    $0.baseURL = proxy.base
                    $0.verification = verification
                })
        }

        proxy.tamper = .stripSignature
        let enforced = try client(.enforced(publicKeys: pinned))
        let reason = await Self.unavailableReason { try await enforced.paywall(for: "onboarding") }
        #expect(reason.contains("not signed"), "\(reason)")
        let informational = try client(.informational(publicKeys: pinned))
        let shown = try #require(try await informational.paywall(for: "onboarding").paywall)
        #expect(shown.verification == .failed(reason: "the answer is not signed") && shown.source == .network)

        // A 304 without its signature confirms nothing: the verified copy on disk answers instead.
        proxy.tamper = .none
        let warm = try #require(try await enforced.paywall(for: "onboarding").paywall)
        #expect(warm.source == .network && warm.verification == .verified)
        proxy.tamper = .stripSignature
        proxy.clearLog()
        let cached = try #require(try await enforced.paywall(for: "onboarding").paywall)
        #expect(proxy.log.map(\.status) == [304])
        #expect(cached.source == .cache && cached.verification == .verified && cached.etag == warm.etag)
        // Reported, not refused, when informational; the copy's own signature does not stand in.
        let confirmed = try #require(try await informational.paywall(for: "onboarding").paywall)
        #expect(
            confirmed.source == .revalidated && confirmed.verification == .failed(reason: "the answer is not signed"))
    }

    @Test func aRotatedKeyIsAcceptedWhenPinnedAheadAndRefusedOtherwise() async throws {
        let server = try LiveServer()
        let app = try await server.app()

        /// Rotates with the command and waits until the server signs with `expected` (its catch-up
        /// re-reads the keys; a restart is the fallback if it does not within 15 s).
        func rotate() async throws -> (keys: [String: String], kids: [String: String]) {
            let before = try await server.signingKeys()
            let rotated = try server.run(["signing-keys", "rotate"])
            #expect(rotated.status == 0, "\(rotated.output)")
            let reloaded = try await eventually(15) {
                let now = try await server.signingKeys()
                return now.kids["current"] != before.kids["current"]
                    && (before.kids["next"] == nil || now.kids["current"] == before.kids["next"])
            }
            if !reloaded {
                print("EdgeDeliveryTests: the running server did not pick up the rotation; restarting it")
                try server.restart()
            }
            return try await server.signingKeys()
        }

        var published = try await server.signingKeys()
        if published.keys["next"] == nil { published = try await rotate() }
        let current = try #require(published.keys["current"])
        let next = try #require(published.keys["next"])
        let nextKid = try #require(published.kids["next"])

        let pinnedAhead = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .enforced(publicKeys: [current, next])
            })
        let pinnedOld = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .enforced(publicKeys: [current])
            })
        #expect(try await pinnedAhead.paywall(for: "onboarding").paywall?.verification == .verified)
        #expect(try await pinnedOld.paywall(for: "onboarding").paywall?.verification == .verified)

        let after = try await rotate()
        #expect(after.kids["current"] == nextKid && after.keys["previous"] == current, "\(after)")

        // The server now signs with the key that was `next`, a URL it answered before and a new one alike.
        let path = "/v1/sdk/apps/\(app.publicKey)/placements/onboarding/paywall"
        let signed = try await server.request(
            "GET", path + "?locale=de", key: "", headers: ["X-Xizor-Schema-Version": "2"])
        #expect(signed.headers["x-xizor-signature"]?.hasPrefix("kid=\(nextKid);") == true, "\(signed.headers)")
        // A URL answered before the rotation is signed anew too (the server's answer cache keys on the keys' generation).
        let served = try await server.request("GET", path, key: "", headers: ["X-Xizor-Schema-Version": "2"])
        #expect(served.headers["x-xizor-signature"]?.hasPrefix("kid=\(nextKid);") == true, "\(served.headers)")

        let aheadFresh = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .enforced(publicKeys: [current, next])
            })
        let accepted = try #require(try await aheadFresh.paywall(for: "onboarding", locale: "de").paywall)
        #expect(accepted.source == .network && accepted.verification == .verified && accepted.locale == "de")
        let revalidated = try #require(try await pinnedAhead.paywall(for: "onboarding").paywall)
        #expect(revalidated.source == .revalidated && revalidated.verification == .verified)

        let oldFresh = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .enforced(publicKeys: [current])
            })
        let reason = await Self.unavailableReason { try await oldFresh.paywall(for: "onboarding", locale: "de") }
        #expect(reason.contains("not pinned"), "\(reason)")
        let watching = try Xizor(
            configuration: app.configuration(cache: freshCache(server)) {
                $0.verification = .informational(publicKeys: [current])
            })
        let reported = try #require(try await watching.paywall(for: "onboarding", locale: "de").paywall)
        #expect(reported.verification.isFailure && reported.source == .network, "\(reported.verification)")
    }
}
