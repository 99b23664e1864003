#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One I/O loop's memo of routing answers: for a method and a path it has routed, the route's
/// resolution and what the match set on the request (template, index, parameters, redacted
/// path). Routing is a pure function of those two and the table never changes, so an entry is
/// never stale; a memo belongs to one loop (`IOLoop.routeMemo`) and is touched only on its
/// thread, so it needs no lock and no atomic.
///
/// Why: walking the tree cost ~900 instructions per request and making the parameters' Strings
/// ~230 more, about 7 % of a revalidation (docs/benchmarks.md); SDKs ask a few paths over and over
/// (every device of an app asks `/v1/sdk/placements/onboarding/paywall`). A hit is a hash of the
/// path's words and one `memcmp`.
///
/// Bounded by construction: `slotCount` entries, direct-mapped by a hash of the path seeded per
/// memo (a client cannot choose a path's slot, and two paths in one slot only cost misses), each
/// key at most `keyCapacity` bytes (a longer path is routed without the memo). A miss costs the
/// hash and is routed as before; only matched paths are stored, so paths that match nothing never
/// evict anything.
public final class RouteMemo {
    static let slotCount = 256
    static let keyCapacity = 128

    struct Entry {
        /// The key's length, -1 for an empty slot.
        var length = -1
        var method: UInt8 = 0
        var hash: UInt64 = 0
        var match: RouteMatch?
        var resolution: HTTPResolution?
    }

    private let keys: UnsafeMutablePointer<UInt8>
    private let entries: UnsafeMutablePointer<Entry>
    private let seed: UInt64
    /// Lookups answered from the memo (tests read it; written only on the loop).
    private(set) var hits = 0

    init() {
        keys = .allocate(capacity: Self.slotCount * Self.keyCapacity)
        entries = .allocate(capacity: Self.slotCount)
        entries.initialize(repeating: Entry(), count: Self.slotCount)
        seed = UInt64.random(in: 1...UInt64.max)
    }

    deinit {
        entries.deinitialize(count: Self.slotCount)
        entries.deallocate()
        keys.deallocate()
    }

    /// The memo's code for `method`; nil for a method outside the standard set (never memoized).
    static func code(_ method: HTTPMethod) -> UInt8? {
        switch method {
        case .GET: 1
        case .HEAD: 2
        case .POST: 3
        case .PUT: 4
        case .DELETE: 5
        case .PATCH: 6
        case .OPTIONS: 7
        case .TRACE: 8
        case .CONNECT: 9
        case .other: nil
        }
    }

    /// Where `path` for `method` would be kept: its hash, and whether the slot holds it now.
    struct Probe {
        let hash: UInt64
        let slot: Int
        let found: Bool
    }

    /// Looks `path` up; nil when it is too long to be kept.
    func probe(_ path: UnsafeBufferPointer<UInt8>, method: UInt8) -> Probe? {
        guard path.count <= Self.keyCapacity, let base = path.baseAddress else { return nil }
        let hash = Self.hash(base, path.count, seed: seed)
        let slot = Int(truncatingIfNeeded: hash >> 56) & (Self.slotCount - 1)
        let entry = entries + slot
        let found =
            entry.pointee.length == path.count && entry.pointee.hash == hash && entry.pointee.method == method
            && memcmp(keys + slot * Self.keyCapacity, base, path.count) == 0
        if found { hits += 1 }
        return Probe(hash: hash, slot: slot, found: found)
    }

    /// Sets on `request` what the entry the probe found binds, and returns its resolution.
    func answer(_ probe: Probe, to request: inout HTTPRequest) -> HTTPResolution {
        precondition(
            probe.found && probe.slot >= 0 && probe.slot < Self.slotCount, "no memo entry at slot \(probe.slot)")
        let entry = entries + probe.slot
        request.routeMatch = entry.pointee.match
        guard let resolution = entry.pointee.resolution else {
            preconditionFailure("a route memo entry without its resolution")
        }
        return resolution
    }

    /// Keeps `match` and `resolution` for `path` in the probe's slot, replacing what was there.
    func store(
        _ match: RouteMatch, _ resolution: HTTPResolution, for path: UnsafeBufferPointer<UInt8>, method: UInt8,
        probe: Probe
    ) {
        precondition(path.count <= Self.keyCapacity, "a memo key of \(path.count) bytes")
        precondition(probe.slot >= 0 && probe.slot < Self.slotCount, "memo slot \(probe.slot)")
        if let base = path.baseAddress { memcpy(keys + probe.slot * Self.keyCapacity, base, path.count) }
        entries[probe.slot] = Entry(
            length: path.count, method: method, hash: probe.hash, match: match, resolution: resolution)
    }

    /// A multiply-xorshift hash of the path's eight-byte words (its last bytes padded with zeros),
    /// seeded per memo.
    static func hash(_ base: UnsafePointer<UInt8>, _ count: Int, seed: UInt64) -> UInt64 {
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = seed ^ (UInt64(count) &* k)
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* k
            h ^= h >> 29
            i += 8
        }
        if i < count {
            // The last eight bytes (overlapping the last word) when there are eight, else each byte.
            var tail: UInt64 = 0
            if count >= 8 {
                tail = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            } else {
                for j in i..<count { tail |= UInt64(base[j]) << UInt64(8 * (j - i)) }
            }
            h = (h ^ tail) &* k
        }
        return (h ^ (h >> 32)) &* k
    }
}
