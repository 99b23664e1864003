import Foundation
import Testing

@testable import XizorKit

/// What the server's rules read of a client: the request attributes XizorKit sends with every
/// request (`device.*`), and the subscriber attributes it stores (`subscriber.*`).
@Suite(.serialized, .timeLimit(.minutes(1)))
struct TargetingTests {
    @Test func rulesSeeTheDeviceAndTheStoredSubscriberAttributes() async throws {
        let server = try LiveServer()
        let app = try await server.app()
        let upgrade = try await app.createPaywall(template: "cinematic")
        try await app.publish(upgrade)
        _ = try await app.dashboard(
            "PUT", "/v1/placements/onboarding/rules",
            [
                "rules": [
                    [
                        "when": [
                            "all": [
                                ["key": "device.appVersion", "op": "semver_gte", "value": "3.0.0"],
                                ["key": "device.sdkVersion", "op": "eq", "value": .string(XizorKitVersion.current)],
                                ["key": "device.platform", "op": "eq", "value": .string(DeviceAttributes.platform)],
                                ["key": "device.osVersion", "op": "exists"],
                            ]
                        ],
                        "paywallId": .string(upgrade),
                    ],
                    ["when": ["key": "subscriber.plan", "op": "eq", "value": "pro"], "paywallId": .string(upgrade)],
                ]
            ], expect: 200)

        var old = app.configuration(cache: freshCache(server))
        old.appVersion = "2.9.1"
        let oldApp = try Xizor(configuration: old)
        #expect(try #require(try await oldApp.paywall(for: "onboarding").paywall).paywallId == app.paywallId)

        var new = app.configuration(cache: freshCache(server))
        new.appVersion = "3.0.0"
        let newApp = try Xizor(configuration: new)
        #expect(
            try #require(try await newApp.paywall(for: "onboarding").paywall).paywallId == upgrade,
            "the device attributes reached the rule")

        try await oldApp.setAttributes(["plan": "pro", "seats": 3], subscriberId: "user/1")
        let stored = try await app.dashboard("GET", "/v1/subscribers/user%2F1/attributes", expect: 200)
        #expect(stored["attributes"] == ["plan": "pro", "seats": 3])
        #expect(
            try #require(try await oldApp.paywall(for: "onboarding", subscriberId: "user/1").paywall).paywallId
                == upgrade,
            "the next request of that subscriber sees the attributes")
        #expect(
            try #require(try await oldApp.paywall(for: "onboarding", subscriberId: "user-2").paywall).paywallId
                == app.paywallId)

        await #expect(throws: XizorError.self) {
            try await oldApp.setAttributes(["not a key": 1], subscriberId: "user/1")
        }
    }
}
