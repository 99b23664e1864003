import PaywallFormat
import Testing

@testable import XizorDomain

/// `IDKey` gives dictionaries its FNV value mixed with their seed, without a `Hasher`: equal ids
/// agree for a seed, the seed changes the value, and ids that differ in one character spread over a
/// table's buckets (the low bits the table uses), so a lookup stays one probe or two.
@Test func idKeysMixTheSeedAndSpreadOverBuckets() {
    let id = "pw_0123456789abcdef0123"
    let key = IDKey(id)
    // A String built anew, not the same storage: equality by the text.
    let again = IDKey(String(decoding: Array(id.utf8), as: UTF8.self))
    #expect(key == again && key._rawHashValue(seed: 7) == again._rawHashValue(seed: 7))
    #expect(key._rawHashValue(seed: 7) != key._rawHashValue(seed: 8))

    let ids = (0..<4096).map { "pw_\(String($0, radix: 16))" }
    let buckets = 1024
    var load = [Int](repeating: 0, count: buckets)
    for id in ids { load[IDKey(id)._rawHashValue(seed: 0x5eed) & (buckets - 1)] += 1 }
    // Four per bucket on average; a value that lost the id (the seed alone) would put all in one.
    #expect(load.max() ?? 0 <= 16, "the fullest of \(buckets) buckets holds \(load.max() ?? 0) of \(ids.count) ids")

    var table: [IDKey: Int] = [:]
    for (index, id) in ids.enumerated() { table[IDKey(id)] = index }
    #expect(table.count == ids.count)
    #expect(ids.indices.allSatisfy { table[IDKey(String(decoding: Array(ids[$0].utf8), as: UTF8.self))] == $0 })
}

/// `IDKey` compares by its first 32 bytes as words and its length, and by text past them: keys that
/// differ only after byte 32, or only in length (a prefix, then zeros), are different keys.
@Test func idKeysCompareByWordsThenText() {
    let long = String(repeating: "a", count: 32)
    #expect(IDKey(long + "b") != IDKey(long + "c"), "differs past the words")
    #expect(IDKey(long + "b") == IDKey(String(decoding: Array((long + "b").utf8), as: UTF8.self)))
    #expect(IDKey("pw_abc") != IDKey("pw_ab"), "a prefix")
    #expect(IDKey("pw_ab") != IDKey("pw_ab\u{0}"), "a NUL where the words hold zeros")
    #expect(IDKey("") == IDKey(""))
}

/// `ServedForms.Key` hashes one packed word: every distinct key packs to a distinct word (so no two
/// forms of a version hash alike; an overlapping packing would), and equal keys hash alike.
@Test func servedFormKeysPackEachFieldApart() {
    let schemes: [ColorScheme?] = [nil] + ColorScheme.allCases.map { $0 }
    let stores: [ProductStore?] = [nil] + ProductStore.allCases.map { $0 }
    var keys: [ServedForms.Key] = []
    for version in 1...5 {
        for scheme in schemes {
            for store in stores {
                keys.append(ServedForms.Key(schemaVersion: version, colorScheme: scheme, store: store))
            }
        }
    }
    #expect(Set(keys.map(\.hashValue)).count == keys.count, "\(keys.count) keys, each its own hash")
    for key in keys {
        let same = ServedForms.Key(schemaVersion: key.schemaVersion, colorScheme: key.colorScheme, store: key.store)
        #expect(same == key && same.hashValue == key.hashValue)
    }
}
