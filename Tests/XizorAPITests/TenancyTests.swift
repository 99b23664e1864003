import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Every service read and write is scoped to the caller's app: another app's ids are "not found",
/// exactly like ids that do not exist, and nothing of the other app changes. (The live
/// authorization matrix checks the same through every route; this pins it where the SQL is.)
@Suite struct TenancyTests {
    @Test(arguments: Driver.allCases)
    func anotherAppsPaywallsPlacementsAndExperimentsAreNotFound(driver: Driver) throws {
        let test = try TestServices("tenancy", driver: driver)
        defer { test.remove() }
        let s = test.services
        let a = try s.keys.createApp(name: "A").appID
        let b = try s.keys.createApp(name: "B").appID
        let pw = try s.paywalls.create(appID: a, from: .template("clean", name: "A's paywall")).id
        let other = try s.paywalls.create(appID: a, from: .template("clean", name: nil)).id
        _ = try s.paywalls.publish(appID: a, id: pw, idempotencyKey: nil)
        _ = try s.paywalls.publish(appID: a, id: other, idempotencyKey: nil)
        _ = try s.placements.assign(appID: a, key: "onboarding", paywallID: pw)
        let experiment = try s.experiments.create(
            appID: a,
            body: [
                "name": "E",
                "variants": [["paywallId": .string(pw), "weight": 50], ["paywallId": .string(other), "weight": 50]],
            ]
        ).id
        let revision = try s.paywalls.draft(appID: a, id: pw).revision

        // A version of a paywall the app does not have is "version not found", as for an unknown id.
        let paywallNotFound: [(String, () throws -> Void)] = [
            ("summary", { _ = try s.paywalls.summary(appID: b, id: pw) }),
            ("draft", { _ = try s.paywalls.draft(appID: b, id: pw) }),
            ("texts", { _ = try s.paywalls.texts(appID: b, id: pw) }),
            (
                "saveDraft",
                { _ = try s.paywalls.saveDraft(appID: b, id: pw, document: ["x": 1], expectedRevision: revision) }
            ),
            ("publish", { _ = try s.paywalls.publish(appID: b, id: pw, idempotencyKey: nil) }),
            ("versions", { _ = try s.paywalls.versions(appID: b, id: pw) }),
            ("archive", { _ = try s.paywalls.archive(appID: b, id: pw) }),
        ]
        for (name, call) in paywallNotFound {
            #expect(failsWith("paywall_not_found", call), "\(name) with another app's paywall id")
        }
        #expect(failsWith("version_not_found") { _ = try s.paywalls.version(appID: b, id: pw, version: 1) })
        #expect(failsWith("version_not_found") { _ = try s.paywalls.rollback(appID: b, id: pw, to: 1) })
        #expect(failsWith("placement_not_found") { _ = try s.placements.placement(appID: b, key: "onboarding") })
        #expect(failsWith("placement_not_found") { try s.placements.delete(appID: b, key: "onboarding") })
        #expect(failsWith("experiment_not_found") { _ = try s.experiments.experiment(appID: b, id: experiment) })
        #expect(failsWith("experiment_not_found") { _ = try s.experiments.start(appID: b, id: experiment) })
        #expect(try s.paywalls.list(appID: b, cursor: nil, limit: 50).items.isEmpty)
        #expect(try s.placements.list(appID: b).isEmpty && s.experiments.list(appID: b).isEmpty)

        // Nothing of A changed.
        #expect(try s.paywalls.draft(appID: a, id: pw).revision == revision)
        #expect(try s.paywalls.versions(appID: a, id: pw).count == 1)
        #expect(try s.paywalls.summary(appID: a, id: pw).archivedAt == nil)
        #expect(try s.placements.placement(appID: a, key: "onboarding").paywallID == pw)
        #expect(try s.experiments.experiment(appID: a, id: experiment).status == .draft)
    }
}

@Suite struct PlacementKeyTests {
    @Test(arguments: ["onboarding", "a.b", "_x", "-", ".hidden", "v1.2", String(repeating: "k", count: 100)])
    func validKeys(key: String) { #expect(PlacementService.isValidKey(key)) }

    /// `.` and `..` are dot-segments clients rewrite: no SDK could request them.
    @Test(arguments: ["", ".", "..", "...", "a/b", "a b", "é", String(repeating: "k", count: 101)])
    func invalidKeys(key: String) { #expect(!PlacementService.isValidKey(key)) }
}
