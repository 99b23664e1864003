import Foundation
import Testing

@testable import XizorKit

@Suite(.serialized, .timeLimit(.minutes(1)))
struct ExperimentTests {
    @Test func assignmentIsStickyAndEventsAreAttributedToTheVariantShown() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let challenger = try await app.createPaywall(template: "cinematic")
        try await app.publish(challenger)
        let experiment = try await app.dashboard(
            "POST", "/v1/experiments",
            [
                "variants": [
                    ["paywallId": .string(app.paywallId), "weight": 50],
                    ["paywallId": .string(challenger), "weight": 50, "name": "cinematic"],
                ]
            ], expect: 201)
        let experimentId = try #require(experiment["id"]?.stringValue)
        _ = try await app.dashboard(
            "PUT", "/v1/placements/onboarding", ["experimentId": .string(experimentId)], expect: 200)
        _ = try await app.dashboard("POST", "/v1/experiments/\(experimentId)/start", expect: 200)

        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        var variants: [String: String] = [:]
        for index in 0..<16 {
            let subscriber = "subscriber-\(index)"
            let first = try #require(try await xizor.paywall(for: "onboarding", subscriberId: subscriber).paywall)
            let again = try #require(try await xizor.paywall(for: "onboarding", subscriberId: subscriber).paywall)
            // Bucketed on the device from the server's cacheable allocation (EdgeDeliveryTests checks it
            // agrees with the server's own assignment).
            #expect(first.experiment?.id == experimentId && first.experiment?.assignment == "client")
            #expect(
                again.source == .revalidated && again.experiment == first.experiment
                    && again.paywallId == first.paywallId)
            variants[subscriber] = first.experiment?.variant
        }
        #expect(Set(variants.values) == ["control", "cinematic"], "16 subscribers land in both variants: \(variants)")

        // A fresh install (no cache) gets the same variant: the bucket is a hash of the ids, not a draw.
        let other = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        let elsewhere = try #require(try await other.paywall(for: "onboarding", subscriberId: "subscriber-3").paywall)
        #expect(elsewhere.experiment?.variant == variants["subscriber-3"])

        // Events built from the answer carry the experiment and variant into the results.
        let shown = try #require(try await xizor.paywall(for: "onboarding", subscriberId: "subscriber-3").paywall)
        await xizor.track(XizorEvent.paywallOpen, paywall: shown, subscriberId: "subscriber-3")
        await xizor.flush()
        let results = try await app.dashboard("GET", "/v1/experiments/\(experimentId)/results", expect: 200)
        guard case .array(let rows)? = results["variants"] else {
            Issue.record("no variants in \(results)")
            return
        }
        let impressions = Dictionary(
            uniqueKeysWithValues: rows.compactMap { row in
                row["name"]?.stringValue.map { ($0, row["impressions"]?.intValue ?? -1) }
                    ?? row["variant"]?.stringValue.map { ($0, row["impressions"]?.intValue ?? -1) }
            })
        let shownVariant = try #require(variants["subscriber-3"])
        #expect(impressions[shownVariant] == 1 && impressions.values.reduce(0, +) == 1, "\(impressions)")
    }

    @Test func theHoldoutIsAnAnswerToShowNothing() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let experiment = try await app.dashboard(
            "POST", "/v1/experiments",
            [
                "variants": [
                    ["paywallId": .string(app.paywallId), "weight": 1],
                    ["paywallId": .string(app.paywallId), "weight": 1, "name": "same"],
                ],
                "holdoutWeight": 98,
            ], expect: 201)
        let experimentId = try #require(experiment["id"]?.stringValue)
        _ = try await app.dashboard(
            "PUT", "/v1/placements/onboarding", ["experimentId": .string(experimentId)], expect: 200)
        _ = try await app.dashboard("POST", "/v1/experiments/\(experimentId)/start", expect: 200)

        let xizor = try Xizor(configuration: app.configuration(cache: freshCache(server)))
        var held: String?
        for index in 0..<20 {
            if case .holdout(let id) = try await xizor.paywall(for: "onboarding", subscriberId: "s\(index)") {
                #expect(id == experimentId)
                held = "s\(index)"
                break
            }
        }
        let subscriber = try #require(held, "98 % holdout: one of 20 subscribers is held out")
        // Cached like any answer: offline, the holdout subscriber still sees nothing.
        server.stop()
        #expect(
            try await xizor.paywall(for: "onboarding", subscriberId: subscriber) == .holdout(experimentId: experimentId)
        )
    }
}
