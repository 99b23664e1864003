/// Paywall id → its latest served version, as a persistent map: 64 shards behind immutable boxes,
/// so the snapshot after a publish shares 63 of them with the one before and copies one (about
/// 1/64 of the app's entries). A plain dictionary would copy (and retain) every entry of a
/// 10,000-paywall app on every publish — measured as a quarter of a publish's CPU at that size.
public struct VersionTable: Sendable {
    private final class Shard: Sendable {
        let entries: [String: ServedVersion]
        init(_ entries: [String: ServedVersion]) { self.entries = entries }
    }

    private static let shardCount = 64
    private let shards: [Shard]

    public init(_ entries: [String: ServedVersion] = [:]) {
        var split = Array(repeating: [String: ServedVersion](), count: Self.shardCount)
        for (id, version) in entries { split[Self.shard(of: id)][id] = version }
        shards = split.map(Shard.init)
    }

    private init(shards: [Shard]) {
        precondition(shards.count == Self.shardCount, "a version table has \(Self.shardCount) shards")
        self.shards = shards
    }

    /// A stable shard for an id (FNV-1a over its bytes: Swift's `hashValue` is seeded per process,
    /// which would do too, but a fixed function keeps the layout the same across runs).
    /// Over the contiguous UTF-8 (iterating `utf8` cost ~15 instructions a byte on the SDK path).
    private static func shard(of id: String) -> Int {
        var id = id
        let hash = id.withUTF8 { bytes in
            var hash: UInt32 = 2_166_136_261
            for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
            return hash
        }
        return Int(hash % UInt32(shardCount))
    }

    public subscript(paywallID: String) -> ServedVersion? {
        shards[Self.shard(of: paywallID)].entries[paywallID]
    }

    /// This table with `paywallID` set to `version` (or removed, for nil); only its shard is copied.
    public func setting(_ paywallID: String, to version: ServedVersion?) -> VersionTable {
        let index = Self.shard(of: paywallID)
        var entries = shards[index].entries
        entries[paywallID] = version
        var next = shards
        next[index] = Shard(entries)
        return VersionTable(shards: next)
    }

    public var count: Int { shards.reduce(0) { $0 + $1.entries.count } }
}
