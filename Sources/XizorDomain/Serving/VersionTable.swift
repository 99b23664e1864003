/// Paywall id → its latest served version, as a persistent map: 64 shards behind immutable boxes,
/// so the snapshot after a publish shares 63 of them with the one before and copies one (about
/// 1/64 of the app's entries). A plain dictionary would copy (and retain) every entry of a
/// 10,000-paywall app on every publish — measured as a quarter of a publish's CPU at that size.
public struct VersionTable: Sendable {
    private final class Shard: Sendable {
        let entries: [IDKey: ServedVersion]
        init(_ entries: [IDKey: ServedVersion]) { self.entries = entries }
    }

    private static let shardCount = 64
    private let shards: [Shard]

    public init(_ entries: [String: ServedVersion] = [:]) {
        var split = Array(repeating: [IDKey: ServedVersion](), count: Self.shardCount)
        for (id, version) in entries {
            let key = IDKey(id)
            split[Self.shard(of: key)][key] = version
        }
        shards = split.map(Shard.init)
    }

    private init(shards: [Shard]) {
        precondition(shards.count == Self.shardCount, "a version table has \(Self.shardCount) shards")
        self.shards = shards
    }

    /// A stable shard for an id: its key's FNV-1a, computed once for the shard and the lookup
    /// (Swift's `hashValue` is seeded per process, which would do too, but a fixed function keeps
    /// the layout the same across runs).
    private static func shard(of key: IDKey) -> Int { Int(key.fnv % UInt64(shardCount)) }

    public subscript(paywallID: String) -> ServedVersion? { self[IDKey(paywallID)] }

    /// By an id whose hash is already known (a snapshot's placements and rules keep theirs).
    subscript(key: IDKey) -> ServedVersion? { shards[Self.shard(of: key)].entries[key] }

    /// This table with `paywallID` set to `version` (or removed, for nil); only its shard is copied.
    public func setting(_ paywallID: String, to version: ServedVersion?) -> VersionTable {
        let key = IDKey(paywallID)
        let index = Self.shard(of: key)
        var entries = shards[index].entries
        entries[key] = version
        var next = shards
        next[index] = Shard(entries)
        return VersionTable(shards: next)
    }

    public var count: Int { shards.reduce(0) { $0 + $1.entries.count } }
}
