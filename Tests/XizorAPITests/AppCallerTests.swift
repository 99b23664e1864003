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
