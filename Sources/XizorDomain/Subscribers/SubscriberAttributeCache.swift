import Execution
import Synchronization

/// A bounded, per-process cache of subscribers' stored attributes (what `subscriber.KEY` compares),
/// so a placement whose rules read them answers on the I/O loop on a hit, with no database read
/// (docs/targeting.md, "Performance"). "No attributes stored" is cached too: most subscribers have none.
///
/// Bounded by entries and by (estimated) bytes; past either bound the clock algorithm evicts: a hit
/// sets the entry's reference bit, the hand clears bits as it passes and evicts the first entry
/// whose bit is already clear, an approximation of least recently used that costs O(1) per lookup.
///
/// Kept right by the change feed: every write or delete of a subscriber's attributes appends a
/// `subscriber` change, and every process applying it calls `invalidate`. A fill that read the
/// database *before* an invalidation must not insert its stale value *after* it, so a filler takes
/// a `ticket` (the invalidation generation) before reading and `insert` drops its value when any
/// invalidation happened since. Coarse (any invalidation fails every fill in flight), but a failed
/// fill only costs the next request another read, and it is never wrong.
///
/// Every operation holds the lock for a dictionary lookup or a bounded eviction step: the I/O loop
/// reads it.
public final class SubscriberAttributeCache: Sendable {
    struct Key: Hashable, Sendable {
        let appID: String
        let subscriberID: String
    }

    private struct Slot {
        var key: Key
        var attributes: [String: ContextValue]
        var bytes: Int
        var referenced: Bool
    }

    private struct State {
        var index: [Key: Int] = [:]
        /// The clock's ring; a removed entry leaves a hole (nil) reused by the next insert.
        var slots: [Slot?] = []
        var holes: [Int] = []
        var hand = 0
        var bytes = 0
        var generation: UInt64 = 0
    }

    /// Defaults: 100,000 subscribers or 64 MiB, whichever comes first. A subscriber holds at most
    /// 50 attributes of at most 256 bytes (`SubscriberService`), about 16 KB at worst; most hold a
    /// few short ones (a few hundred bytes with the entry's overhead).
    public static let defaultMaxEntries = 100_000
    public static let defaultMaxBytes = 64 << 20
    /// What an entry costs beyond its attributes' JSON (keys, dictionary, slot), estimated.
    static let entryOverhead = 160

    public let maxEntries: Int
    public let maxBytes: Int
    private let state = Mutex(State())
    private let loopHitCount = Atomic<Int>(0)
    private let handlerHitCount = Atomic<Int>(0)
    private let missCount = Atomic<Int>(0)

    public init(maxEntries: Int = defaultMaxEntries, maxBytes: Int = defaultMaxBytes) {
        precondition(maxEntries > 0 && maxBytes > 0, "the subscriber attribute cache needs positive bounds")
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// Lookups answered from the cache on an I/O loop (the request answered inline) and on the
    /// handler pool, and fills (reads of the database), for `/metrics`.
    public var loopHits: Int { loopHitCount.load(ordering: .relaxed) }
    public var handlerHits: Int { handlerHitCount.load(ordering: .relaxed) }
    public var hits: Int { loopHits + handlerHits }
    public var misses: Int { missCount.load(ordering: .relaxed) }
    public var count: Int { state.withLock { $0.index.count } }
    public var byteCount: Int { state.withLock { $0.bytes } }

    /// The cached attributes (empty: the subscriber has none stored), or nil when not cached.
    public func lookup(appID: String, subscriberID: String) -> [String: ContextValue]? {
        let key = Key(appID: appID, subscriberID: subscriberID)
        let found: [String: ContextValue]? = state.withLock { state in
            guard let at = state.index[key] else { return nil }
            state.slots[at]?.referenced = true
            return state.slots[at]?.attributes
        }
        if found != nil {
            if InlineExecution.isActive {
                loopHitCount.add(1, ordering: .relaxed)
            } else {
                handlerHitCount.add(1, ordering: .relaxed)
            }
        }
        return found
    }

    /// Taken before reading the database for a fill; `insert` refuses the value if anything was
    /// invalidated since.
    public func ticket() -> UInt64 {
        missCount.add(1, ordering: .relaxed)
        return state.withLock { $0.generation }
    }

    /// Caches what a fill read (`bytes`: the size of its stored JSON), unless an invalidation came
    /// after `ticket`. Returns whether it was cached.
    @discardableResult
    public func insert(
        appID: String, subscriberID: String, attributes: [String: ContextValue], bytes: Int, ticket: UInt64
    ) -> Bool {
        let key = Key(appID: appID, subscriberID: subscriberID)
        let cost = bytes + appID.utf8.count + subscriberID.utf8.count + Self.entryOverhead
        // An entry bigger than the whole cache would evict everything and still not fit.
        guard cost <= maxBytes else { return false }
        return state.withLock { state in
            guard state.generation == ticket else { return false }
            if let at = state.index[key] { Self.remove(at: at, from: &state) }
            while state.index.count >= maxEntries || state.bytes + cost > maxBytes {
                Self.evictOne(from: &state)
            }
            let slot = Slot(key: key, attributes: attributes, bytes: cost, referenced: false)
            let at: Int
            if let hole = state.holes.popLast() {
                at = hole
                state.slots[at] = slot
            } else {
                at = state.slots.count
                state.slots.append(slot)
            }
            state.index[key] = at
            state.bytes += cost
            return true
        }
    }

    /// Drops what is cached of these subscribers (their attributes were written or deleted).
    public func invalidate(appID: String, subscriberIDs: Set<String>) {
        state.withLock { state in
            state.generation &+= 1
            for subscriberID in subscriberIDs {
                if let at = state.index[Key(appID: appID, subscriberID: subscriberID)] {
                    Self.remove(at: at, from: &state)
                }
            }
        }
    }

    /// Drops everything (the feed was pruned past this process's position: any write may be missed).
    public func clear() {
        state.withLock { state in
            let generation = state.generation &+ 1
            state = State()
            state.generation = generation
        }
    }

    private static func remove(at: Int, from state: inout State) {
        guard let slot = state.slots[at] else { return }
        state.index[slot.key] = nil
        state.bytes -= slot.bytes
        state.slots[at] = nil
        state.holes.append(at)
    }

    /// One turn of the clock: at most two passes over the ring (the first clears every bit), so it
    /// always evicts when anything is cached.
    private static func evictOne(from state: inout State) {
        precondition(!state.index.isEmpty, "evicting from an empty subscriber attribute cache")
        while true {
            if state.hand >= state.slots.count { state.hand = 0 }
            let at = state.hand
            state.hand += 1
            guard let slot = state.slots[at] else { continue }
            if slot.referenced {
                state.slots[at]?.referenced = false
            } else {
                remove(at: at, from: &state)
                return
            }
        }
    }
}
