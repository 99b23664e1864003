import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Finding 7 of issue 35: a key holding only `keys` could revoke every full-access key and lock
/// the owner out for good. The last full-access secret key is kept from scoped keys, and the
/// operator (admin token, CLI) can always mint one, past `keys.maxPerApp` and with no key left.
@Suite struct KeyRecoveryTests {
    @Test(arguments: Driver.allCases)
    func aScopedKeyCannotRevokeTheLastFullAccessKey(driver: Driver) throws {
        let test = try TestServices("key-recovery", driver: driver)
        defer { test.remove() }
        let keys = test.services.keys
        let app = try keys.createApp(name: "A")
        let owner = try #require(try keys.listKeys(appID: app.appID).items.first { $0.kind == "secret" })
        let keyKeeper = try keys.createKey(appID: app.appID, .init(kind: "secret", scopes: ScopeSet([.keys])))
        let scoped = keyKeeper.info.scopes
        #expect(
            failsWith("last_full_access_key") { try keys.revokeKey(appID: app.appID, keyID: owner.id, revoker: scoped) }
        )
        #expect(keys.authenticate(app.secretKey) == .secret(appID: app.appID), "the owner's key still works")
        // With a second full-access key, the scoped key may revoke one of them, not the other.
        let second = try keys.createKey(appID: app.appID, .init(kind: "secret"))
        try keys.revokeKey(appID: app.appID, keyID: owner.id, revoker: scoped)
        #expect(
            failsWith("last_full_access_key") {
                try keys.revokeKey(appID: app.appID, keyID: second.info.id, revoker: scoped)
            })
        // Other keys stay revocable by it (a scoped secret key, the public key).
        let other = try keys.createKey(appID: app.appID, .init(kind: "secret", scopes: ScopeSet([.read])))
        try keys.revokeKey(appID: app.appID, keyID: other.info.id, revoker: scoped)
        // The last full-access key may revoke itself: the owner's decision, which recovery undoes.
        try keys.revokeKey(appID: app.appID, keyID: second.info.id, revoker: .all)
        #expect(keys.authenticate(second.key) == nil)
    }

    @Test(arguments: Driver.allCases)
    func theOperatorMintsAFullAccessKeyPastTheCapAndWithNoKeyLeft(driver: Driver) throws {
        let test = try TestServices("key-recovery", driver: driver)
        defer { test.remove() }
        var limits = XizorServices.Limits()
        limits.maxKeysPerApp = 2
        let services = try test.second(limits: limits)
        defer { services.store.close() }
        let keys = services.keys
        let app = try keys.createApp(name: "A")  // two keys: at the cap
        #expect(failsWith("key_limit_reached") { _ = try keys.createKey(appID: app.appID, .init(kind: "secret")) })
        let minted = try WriteActor.$current.withValue(WriteActor.cli) {
            try keys.mintRecoveryKey(appID: app.appID, label: "recovery")
        }
        #expect(keys.authenticate(minted.key) == .secret(appID: app.appID))
        #expect(minted.info.scopes.isFullAccess && minted.info.label == "recovery" && minted.info.kind == "secret")
        // No live key at all: still minted.
        for key in try keys.listKeys(appID: app.appID).items where key.revokedAt == nil {
            try keys.revokeKey(appID: app.appID, keyID: key.id)
        }
        let again = try WriteActor.$current.withValue(
            WriteActor(kind: .admin, keyID: "k_admin", via: .rest, requestID: "r1")
        ) {
            try keys.mintRecoveryKey(appID: app.appID, label: nil)
        }
        #expect(keys.authenticate(again.key) == .secret(appID: app.appID))
        // Both recorded as key.created, by the CLI and by the admin.
        let created = try services.audit.entries(
            appID: app.appID, filter: AuditFilter(action: "key.created"), cursor: nil, limit: 50
        ).items
        let byTarget = Dictionary(created.map { ($0.targetID ?? "", $0.actor.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(byTarget[minted.info.id] == .cli && byTarget[again.info.id] == .admin)
        // Unknown and archived apps, and a bad label, are refused.
        #expect(failsWith("app_not_found") { _ = try keys.mintRecoveryKey(appID: "app_nope", label: nil) })
        #expect(
            failsWith("validation_failed") {
                _ = try keys.mintRecoveryKey(appID: app.appID, label: String(repeating: "x", count: 101))
            })
        try keys.archiveApp(appID: app.appID)
        #expect(failsWith("app_archived") { _ = try keys.mintRecoveryKey(appID: app.appID, label: nil) })
    }
}
