import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A caller made from a verified key (what routes hand their handlers) holds the key by reference
/// and answers its fields; it equals a caller given the same values, and differs in any of them.
@Test func aCallerFromAVerifiedKeyAnswersTheKeysFields() throws {
    let test = try TestServices("caller")
    defer { test.remove() }
    let created = try test.services.keys.createApp(name: "A")
    let key = try #require(test.services.keys.verify(Substring(created.publicKey)))
    let caller = AppCaller(appID: created.appID, key: key)
    #expect(caller.appID == created.appID && caller.keyID == key.id)
    #expect(caller.scopes == key.scopes && caller.environment == key.environment && caller.user == nil)
    let given = AppCaller(
        appID: created.appID, keyID: key.id, scopes: key.scopes, environment: key.environment, user: nil)
    #expect(caller == given)
    #expect(caller != AppCaller(appID: created.appID, keyID: "key_other", scopes: key.scopes))
    #expect(caller != AppCaller(appID: "app_other", keyID: key.id, scopes: key.scopes))
    let sandbox = AppCaller(appID: created.appID, keyID: key.id, scopes: key.scopes, environment: .sandbox)
    #expect(key.environment == .production && caller != sandbox)
    let person = ActingUser(userID: "u1", email: "a@b.c", sessionID: nil)
    #expect(caller != AppCaller(appID: created.appID, keyID: key.id, scopes: key.scopes, user: person))
}

/// A key names its own app with the id's hash computed once; asked for another app, it hashes
/// that app's id: the serving state is never asked for one app by another's key.
@Test func aKeysAppIsItsOwnAndNoOther() throws {
    let test = try TestServices("caller-app")
    defer { test.remove() }
    let created = try test.services.keys.createApp(name: "A")
    let key = try #require(test.services.keys.verify(Substring(created.publicKey)))
    #expect(key.app(for: created.appID) == IDKey(created.appID) && key.app(for: created.appID).text == created.appID)
    #expect(key.app(for: "app_other").text == "app_other" && key.app(for: "app_other") == IDKey("app_other"))
}
