import Testing

@testable import XizorAPI
@testable import XizorDomain

/// The served-asset cache keeps at most its capacity and evicts the least recently used file.
@Suite struct AssetCacheTests {
    func file(_ size: Int, _ tag: String) -> AssetService.ServedFile {
        AssetService.ServedFile(bytes: [UInt8](repeating: 1, count: size), contentType: "image/png", etag: "\"\(tag)\"")
    }

    func key(_ name: String) -> AssetCache.Key { AssetCache.Key(appID: "app_a", sha256: name) }

    @Test func evictsTheLeastRecentlyUsedPastItsCapacity() {
        let cache = AssetCache(capacity: 100)
        cache.store(file(40, "a"), for: key("a"))
        cache.store(file(40, "b"), for: key("b"))
        #expect(cache.file(key("a"))?.etag == "\"a\"")  // a is now more recent than b
        cache.store(file(40, "c"), for: key("c"))  // 120 > 100: b goes
        #expect(cache.file(key("b")) == nil)
        #expect(cache.file(key("a")) != nil && cache.file(key("c")) != nil)
    }

    @Test func aFileLargerThanTheCacheIsNotKeptAndEvictsNothing() {
        let cache = AssetCache(capacity: 100)
        cache.store(file(60, "a"), for: key("a"))
        cache.store(file(101, "huge"), for: key("huge"))
        #expect(cache.file(key("huge")) == nil && cache.file(key("a")) != nil)
        let off = AssetCache(capacity: 0)
        off.store(file(1, "x"), for: key("x"))
        #expect(off.file(key("x")) == nil)
    }

    @Test func appsDoNotShareEntries() {
        let cache = AssetCache(capacity: 100)
        cache.store(file(10, "a"), for: AssetCache.Key(appID: "app_a", sha256: "s"))
        #expect(cache.file(AssetCache.Key(appID: "app_b", sha256: "s")) == nil)
    }
}
