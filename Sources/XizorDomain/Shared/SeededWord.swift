/// A 64-bit word the server computed in advance (an id's FNV value, a credential's tail) as a
/// dictionary key: the table asks `_rawHashValue(seed:)` (`Hashable`'s hook for types with a
/// precomputed hash, as the standard library's integers use it), and gets the word mixed with its
/// per-process seed by murmur3's 64-bit finaliser — a dozen instructions where a `Hasher` round
/// took about a hundred. Only for words of keys the server made: a client cannot choose what is
/// stored, so it cannot fill one bucket.
package struct SeededWord: Hashable, Sendable {
    let word: UInt64

    init(_ word: UInt64) { self.word = word }

    package func hash(into hasher: inout Hasher) { hasher.combine(word) }

    package func _rawHashValue(seed: Int) -> Int { Self.mixed(word, seed: seed) }

    /// `value` mixed with `seed`: every input bit reaches every output bit.
    package static func mixed(_ value: UInt64, seed: Int) -> Int {
        var h = value ^ UInt64(UInt(bitPattern: seed))
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return Int(truncatingIfNeeded: h)
    }
}
