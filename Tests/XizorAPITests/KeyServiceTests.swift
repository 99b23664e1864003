import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Authentication compares the whole key against its stored hash: the 12-character prefix that
/// `GET /v1/keys` lists only finds the candidates. Revocation and archiving take effect before they
/// answer, also for a key the in-memory memo has already verified.
@Suite struct KeyServiceTests {
    /// `key` with everything after its listed prefix replaced: same prefix, same length, other secret.
    func forged(_ key: String) -> String {
        let prefix = Identifiers.displayPrefix(of: key)
        let tail = String(key.dropFirst(prefix.count).map { $0 == "A" ? Character("B") : Character("A") })
        return prefix + tail
    }

    @Test(arguments: Driver.allCases)
    func onlyTheWholeKeyAuthenticates(driver: Driver) throws {
        let test = try TestServices("keys", driver: driver)
        defer { test.remove() }
        let keys = test.services.keys
        let app = try keys.createApp(name: "A")
        #expect(keys.authenticate(app.secretKey) == .secret(appID: app.appID))
        #expect(keys.authenticate(app.publicKey) == .publicKey(appID: app.appID))
        for key in [app.secretKey, app.publicKey] {
            let fake = forged(key)
            #expect(fake != key && Identifiers.displayPrefix(of: fake) == Identifiers.displayPrefix(of: key))
            #expect(keys.authenticate(fake) == nil, "a real key's prefix plus anything is not the key")
            #expect(keys.authenticate(String(key.dropLast())) == nil)
            #expect(keys.authenticate(key + "x") == nil)
        }
        let admin = "xa_" + String(repeating: "k", count: 40)
        try keys.ensureAdminToken(admin)
        #expect(keys.authenticate(admin) == .admin)
        #expect(keys.authenticate(forged(admin)) == nil)
    }

    @Test(arguments: Driver.allCases)
    func revokingAndArchivingEndAKeyEvenAfterItWasVerified(driver: Driver) throws {
        let test = try TestServices("keys", driver: driver)
        defer { test.remove() }
        let keys = test.services.keys
        let app = try keys.createApp(name: "A")
        let (info, extra) = try keys.createKey(appID: app.appID, .init(kind: "secret"))
        // The SDK path's lookup by bytes, which this thread remembers after the first (`ThreadMemo`).
        func byBytes(_ credential: String) -> VerifiedKey? {
            Array(credential.utf8).withUnsafeBufferPointer { keys.verified(token: $0) }
        }
        // Verified once, so the memo holds it; revocation must clear that too.
        #expect(keys.authenticate(extra) == .secret(appID: app.appID))
        let remembered = try #require(byBytes(extra))
        #expect(byBytes(extra) === remembered, "found again, in this thread's memo")
        try keys.revokeKey(appID: app.appID, keyID: info.id)
        #expect(keys.authenticate(extra) == nil)
        #expect(keys.verified(token: extra) == nil)
        #expect(byBytes(extra) == nil, "a reload gives the table a new generation: the thread's entry is not found")

        let other = try keys.createApp(name: "B")
        let (otherInfo, otherKey) = try keys.createKey(appID: other.appID, .init(kind: "public"))
        #expect(
            failsWith("key_not_found") { try keys.revokeKey(appID: app.appID, keyID: otherInfo.id) },
            "an app cannot revoke another app's key")
        #expect(keys.authenticate(otherKey) == .publicKey(appID: other.appID))

        #expect(keys.authenticate(app.publicKey) != nil)
        #expect(byBytes(app.publicKey) != nil && byBytes(app.publicKey) != nil)
        try keys.archiveApp(appID: app.appID)
        #expect(keys.authenticate(app.secretKey) == nil && keys.authenticate(app.publicKey) == nil)
        #expect(byBytes(app.publicKey) == nil)
        #expect(keys.authenticate(other.secretKey) == .secret(appID: other.appID), "other apps' keys keep working")
    }
}

/// A key write reloads only its own app's keys, an app's live keys are capped, and the listing
/// pages through every key (revoked ones too, which the cap does not count).
@Suite struct KeyLimitsTests {
    @Test(arguments: Driver.allCases)
    func theCapCountsLiveKeysAndWritesTouchOnlyTheirApp(driver: Driver) throws {
        let test = try TestServices("keys", driver: driver)
        defer { test.remove() }
        var limits = XizorServices.Limits()
        limits.maxKeysPerApp = 4
        let keys = try test.second(limits: limits).keys
        let a = try keys.createApp(name: "A")
        let b = try keys.createApp(name: "B")
        #expect(keys.authenticate(b.secretKey) == .secret(appID: b.appID))  // remembered
        let third = try keys.createKey(appID: a.appID, .init(kind: "public"))
        _ = try keys.createKey(appID: a.appID, .init(kind: "secret"))
        #expect(failsWith("key_limit_reached") { _ = try keys.createKey(appID: a.appID, .init(kind: "public")) })
        try keys.revokeKey(appID: a.appID, keyID: third.info.id)
        let fifth = try keys.createKey(appID: a.appID, .init(kind: "public"))
        #expect(keys.authenticate(fifth.key) == .publicKey(appID: a.appID))
        #expect(keys.authenticate(third.key) == nil)
        // B's remembered key survived A's reloads; archiving A leaves B alone.
        #expect(keys.verified(token: b.secretKey)?.principal == .secret(appID: b.appID))
        try keys.archiveApp(appID: a.appID)
        #expect(keys.authenticate(a.secretKey) == nil && keys.authenticate(fifth.key) == nil)
        #expect(keys.authenticate(b.publicKey) == .publicKey(appID: b.appID))

        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try keys.listKeys(appID: a.appID, cursor: cursor, limit: 2)
            #expect(page.items.count <= 2)
            seen += page.items.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen.count == 5 && Set(seen).count == 5, "every key once, revoked ones included")
        #expect(failsWith("invalid_cursor") { _ = try keys.listKeys(appID: a.appID, cursor: "nope") })
    }
}
