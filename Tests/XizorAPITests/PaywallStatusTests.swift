import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The list's "draft changed since publish", on both databases.
@Suite struct PaywallStatusTests {
    @Test(arguments: Driver.allCases)
    func theDraftIsChangedUntilItIsPublished(driver: Driver) throws {
        let test = try TestServices("status", driver: driver)
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "Status").appID
        let paywalls = test.services.paywalls
        let id = try paywalls.create(appID: app, from: .template("clean", name: "Offer")).id
        func changed() throws -> Bool? {
            try paywalls.list(appID: app, cursor: nil, limit: 10).items.first { $0.id == id }?.draftChanged
        }
        #expect(try changed() == nil, "never published")
        _ = try paywalls.publish(appID: app, id: id, idempotencyKey: nil)
        #expect(try changed() == false)
        let draft = try paywalls.draft(appID: app, id: id)
        var document = draft.document
        document["name"] = "Offer 2"
        _ = try paywalls.saveDraft(appID: app, id: id, document: document, expectedRevision: draft.revision)
        #expect(try changed() == true)
        #expect(try paywalls.summary(appID: app, id: id).json["draftChangedSincePublish"] == true)
        _ = try paywalls.publish(appID: app, id: id, idempotencyKey: nil)
        #expect(try changed() == false)
        // Back to the published content by hand: equal again.
        let again = try paywalls.draft(appID: app, id: id)
        document["name"] = "Offer 3"
        _ = try paywalls.saveDraft(appID: app, id: id, document: document, expectedRevision: again.revision)
        document["name"] = "Offer 2"
        _ = try paywalls.saveDraft(appID: app, id: id, document: document, expectedRevision: again.revision + 1)
        #expect(try changed() == false)
    }
}
