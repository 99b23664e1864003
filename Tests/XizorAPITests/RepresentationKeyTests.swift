import Testing

@testable import XizorAPI
@testable import XizorDomain

/// A representation key hashes what it compares (the version, placement, locale and page context
/// in one mixed word): equal keys hash alike, a stored key (holding what it names) equals the
/// lookup's, and keys that differ in one of those fields hash apart; the cache finds each by its own,
/// and another cache does not find this one's.
@Test func representationKeysHashByWhatTheyCompare() throws {
    let test = try TestServices("representation-key")
    defer { test.remove() }
    let s = test.services
    let app = try s.keys.createApp(name: "A").appID
    let id = try s.paywalls.create(appID: app, from: .template("clean", name: nil)).id
    _ = try s.paywalls.publish(appID: app, id: id, idempotencyKey: nil)
    let served = try #require(s.serving.snapshot(appID: app)?.latestVersions[id])
    let signer = VerifiedKey(id: "k_1", principal: .publicKey(appID: app))
    let form = served.forms.key(clientVersion: 1, colorScheme: .light)
    func key(placement: String = "home", locale: String = "en", context: String = "") -> RepresentationKey {
        RepresentationKey(
            served: served, placement: HashedName(placement), locale: locale, form: form, kind: .json,
            pageColorScheme: nil, context: context, experiment: nil, signer: signer, headerBits: 0,
            signingGeneration: 0)
    }
    #expect(key() == key() && key().hashValue == key().hashValue)
    let stored = key().holding(served, signer)
    #expect(stored == key() && stored.hashValue == key().hashValue)
    let others = [
        key(placement: "away"), key(locale: "fr"), key(locale: "en-US"), key(locale: "ne"), key(context: "{}"),
    ]
    for other in others { #expect(other != key() && other.hashValue != key().hashValue) }

    let cache = RepresentationCache(limit: 16)
    for (i, k) in ([key()] + others).enumerated() {
        _ = try cache.representation(
            for: k, served: served, signer: signer, build: { Representation(body: [UInt8(i)], headers: [:]) },
            uncached: { try $0() })
    }
    for (i, k) in ([key()] + others).enumerated() {
        let found = try cache.representation(
            for: k, served: served, signer: signer,
            build: {
                Issue.record("rebuilt \(i)")
                return Representation(body: [], headers: [:])
            },
            uncached: { try $0() })
        #expect(found.body == [UInt8(i)])
    }
    // Found again from this thread's memo (the second lookup of each), and only in this cache: another
    // cache with the same keys builds its own (their stamps keep the memo's entries apart).
    let other = RepresentationCache(limit: 16)
    let built = try other.representation(
        for: key(), served: served, signer: signer, build: { Representation(body: [99], headers: [:]) },
        uncached: { try $0() })
    #expect(built.body == [99] && other.missCount == 1 && other.hitCount == 0)
    #expect(cache.hitCount == 6 && cache.missCount == 6)
}
