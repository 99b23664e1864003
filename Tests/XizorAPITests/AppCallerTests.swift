import HTTP
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A verified key's caller (made once with the key: what its app's routes hand their handlers)
/// answers the key's fields; it equals a caller given the same values, and differs in any of them.
@Test func aCallerFromAVerifiedKeyAnswersTheKeysFields() throws {
    let test = try TestServices("caller")
    defer { test.remove() }
    let created = try test.services.keys.createApp(name: "A")
    let key = try #require(test.services.keys.verify(Substring(created.publicKey)))
    let caller = key.caller
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
    #expect(key.withApp(for: created.appID) { $0 == IDKey(created.appID) && $0.text == created.appID })
    #expect(key.withApp(for: "app_other") { $0.text == "app_other" && $0 == IDKey("app_other") })
    // The operator's token has no app: asked for one, it hashes that app's id (never "").
    let admin = VerifiedKey(id: "admin", principal: .admin)
    #expect(admin.withApp(for: created.appID) { $0 == IDKey(created.appID) } && admin.partition == "")
}

/// A key's requests take its app's share of the handler threads: the request reads the partition
/// through the key its admission left (`HTTPPartitioned`); one set explicitly wins.
@Test func aRequestTakesItsKeysPartition() throws {
    let test = try TestServices("caller-partition")
    defer { test.remove() }
    let created = try test.services.keys.createApp(name: "A")
    let key = try #require(test.services.keys.verify(Substring(created.publicKey)))
    var request = HTTPRequest(method: .GET, target: "/", path: "/")
    #expect(request.partition == "")
    request.context = key
    #expect(request.partition == created.appID && key.partition == created.appID)
    request.partition = "store-notifications"
    #expect(request.partition == "store-notifications")
}
