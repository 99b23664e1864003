import PaywallFormat
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A version loaded from storage keeps its source form only and builds an older form the first
/// time a client asks for it: the same bytes the publish-time (eager, validated) build produced.
@Test func loadedVersionsBuildOlderFormsOnFirstRequest() throws {
    let document = try #require(try PaywallTemplates.document(named: "cinematic"))
    let eager = try ServedForms(document: document)
    let lazy = ServedForms(published: document)
    #expect(eager.sourceVersion == 2 && eager.builtCount == 2, "schema 1 in light and dark, built at publish")
    #expect(lazy.builtCount == 0)
    #expect(try lazy.form(clientVersion: 2, colorScheme: .dark).document == document)
    #expect(lazy.builtCount == 0, "the source form needs no building")
    for scheme in ColorScheme.allCases {
        let built = try lazy.form(clientVersion: 1, colorScheme: scheme)
        let expected = try eager.form(clientVersion: 1, colorScheme: scheme)
        #expect(built.schemaVersion == 1 && built.key == expected.key)
        #expect(built.document == expected.document)
    }
    #expect(lazy.builtCount == 2)
}

/// A stored version whose older form cannot be built is an error the caller records (a 500 on the
/// SDK path, counted), never the newer form handed to a client that cannot read it.
@Test func anOlderFormThatCannotBeBuiltIsAnErrorNotTheNewerForm() throws {
    let stored: JSONValue = ["schemaVersion": 9, "id": "pw_future"]
    let forms = ServedForms(published: stored)
    #expect(try forms.form(clientVersion: 9, colorScheme: .light).document == stored)
    #expect(throws: ServedForms.Unservable.self) { try forms.form(clientVersion: 1, colorScheme: .light) }
    #expect(forms.builtCount == 0)
}

/// A version 3 document is served to older clients in their store's form: its older forms are
/// built per store at publish, and a version 3 client gets the document as it is whatever its store.
@Test func versionThreeFormsArePerStoreOnlyWhereTheyDiffer() throws {
    var document = try #require(try PaywallTemplates.document(named: "clean"))
    document["schemaVersion"] = 3
    document["products"] = [
        ["slot": "yearly", "storeProductIds": ["appStore": "ios.yearly", "googlePlay": "android.yearly"]],
        ["slot": "monthly", "storeProductIds": ["appStore": "ios.monthly", "googlePlay": "android.monthly"]],
    ]
    let eager = try ServedForms(document: document)
    #expect(eager.builtCount == 8, "versions 2 and 1, light and dark, App Store and Google Play")
    var asked = 0
    let own = try eager.form(
        clientVersion: 3, colorScheme: .dark,
        store: {
            asked += 1
            return .googlePlay
        })
    #expect(
        own.document == document && own.key.store == nil && asked == 0, "the source form does not ask for the platform")
    let android = try eager.form(clientVersion: 2, colorScheme: .light, store: { .googlePlay })
    let ios = try eager.form(clientVersion: 2, colorScheme: .light, store: { .appStore })
    #expect(android.document["products"]?[0]?["storeProductId"] == "android.yearly" && android.key.store == .googlePlay)
    #expect(ios.document["products"]?[0]?["storeProductId"] == "ios.yearly" && ios.key != android.key)
    // A version 2 document's forms never depend on the store.
    let two = try ServedForms(document: try #require(try PaywallTemplates.document(named: "clean")))
    #expect(try two.form(clientVersion: 1, colorScheme: .light, store: { .googlePlay }).key.store == nil)
}

/// A revalidation asks only which form it gets (`key`): that builds nothing and fails for nothing,
/// so an answer kept for the key is served without its document; the document is read, or built,
/// when an answer is built (`document(_:)`), and it is the form `form(…)` gives.
@Test func theKeyOfAFormNeedsNoDocument() throws {
    let document = try #require(try PaywallTemplates.document(named: "cinematic"))
    let lazy = ServedForms(published: document)
    let key = lazy.key(clientVersion: 1, colorScheme: .dark)
    #expect(key == ServedForms.Key(schemaVersion: 1, colorScheme: .dark, store: nil))
    #expect(lazy.builtCount == 0, "knowing the key built no form")
    #expect(
        try lazy.document(key)
            == (try ServedForms(document: document).form(clientVersion: 1, colorScheme: .dark)).document)
    #expect(lazy.builtCount == 1)
    #expect(
        lazy.key(clientVersion: 7, colorScheme: .light)
            == ServedForms.Key(schemaVersion: 2, colorScheme: nil, store: nil))
    // A form that cannot be built fails when the document is asked for, not when the key is.
    let stored: JSONValue = ["schemaVersion": 9, "id": "pw_future"]
    let future = ServedForms(published: stored)
    let old = future.key(clientVersion: 1, colorScheme: .light)
    #expect(throws: ServedForms.Unservable.self) { try future.document(old) }
    #expect(try future.document(future.key(clientVersion: 9, colorScheme: .dark)) == stored)
}
