/// A dictionary key for an id the server generated (an app's, a paywall's), hashed once with 64-bit
/// FNV-1a over its UTF-8 instead of by `String`'s SipHash on every lookup: the SDK path looks up an
/// app's snapshot and a paywall's version per request, and hashing the two ids was about 600 of a
/// revalidation's instructions. The ids are random and chosen by the server, never by a client, so
/// a fast unkeyed function cannot be steered into collisions (and `Hasher` still mixes the value
/// with the process's seed).
struct IDKey: Hashable, Sendable {
    let text: String
    /// FNV-1a (64-bit) of `text`'s UTF-8; also the stable shard of a `VersionTable`.
    let fnv: UInt64

    init(_ text: String) {
        var text = text
        fnv = text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash
        }
        self.text = text
    }

    static func == (a: IDKey, b: IDKey) -> Bool { a.fnv == b.fnv && a.text == b.text }

    func hash(into hasher: inout Hasher) { hasher.combine(fnv) }
}
