/// A dictionary key for an id the server generated (an app's, a paywall's), hashed once with 64-bit
/// FNV-1a over its UTF-8 instead of by `String`'s SipHash in the dictionary. The version table needs
/// a stable hash for its shard anyway, so its lookup now hashes the id once instead of twice (806 →
/// 669 instructions per SDK request); the app-snapshot lookup costs the same either way, and uses the
/// key so both maps of server ids work alike. Every key inserted is a random id of the server's,
/// never a client's text, so a fast unkeyed function cannot be steered into collisions (and the
/// dictionary's per-process seed is still mixed into the value, by `_rawHashValue(seed:)`).
package struct IDKey: Hashable, Sendable {
    package let text: String
    /// FNV-1a (64-bit) of `text`'s UTF-8; also the stable shard of a `VersionTable`.
    let fnv: UInt64
    /// The first 32 bytes of `text` as four words (zero past its end), and its length in bytes: an
    /// id is about twenty bytes, so two keys compare by words. Two equal texts with separate
    /// storage (the snapshot's, the key's) compared as Strings cost about 110 instructions, twice
    /// per SDK request.
    private let words: (UInt64, UInt64, UInt64, UInt64)
    private let count: Int

    package init(_ text: String) {
        var text = text
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        (fnv, count) = text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            withUnsafeMutableBytes(of: &words) { inline in
                inline.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(32)))
            }
            return (hash, bytes.count)
        }
        self.words = words
        self.text = text
    }

    /// By words; by text only past the words (ids longer than 32 bytes).
    package static func == (a: IDKey, b: IDKey) -> Bool {
        a.fnv == b.fnv && a.count == b.count && a.words == b.words && (a.count <= 32 || a.text == b.text)
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(fnv) }

    /// The dictionary's hash: the FNV value mixed with the table's seed (`SeededWord`), without a
    /// `Hasher` round (two lookups per SDK request, docs/benchmarks.md).
    package func _rawHashValue(seed: Int) -> Int { SeededWord.mixed(fnv, seed: seed) }
}
