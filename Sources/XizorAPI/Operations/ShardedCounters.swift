import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counters kept once per writer — one row per I/O loop — and summed when read. A loop's calls never
/// overlap (its connections' work all runs on its thread), so a row has one writer at a time
/// and an increment is a relaxed load and a relaxed store: plain moves, where a counter every loop
/// shares is a locked read-modify-write (`lock xadd`, ~4.6 ns uncontended on the benchmark VM) on a
/// cache line that moves between cores under load. A writer outside `0..<shards` (a server with
/// more loops than the counters were made for) adds to one last, shared row with atomic adds: a
/// mismatch costs speed, never a count.
///
/// Rows lie whole pages apart in one zeroed allocation (`calloc`: a block this large comes as fresh
/// zero pages): a row is as long as the counter set (the request matrix is ~350 KB), and only
/// the pages a loop writes become resident. Zero bytes are an `Atomic<Int>` holding 0 (its layout
/// is its value's), so the block needs no per-counter initialisation.
final class ShardedCounters: Sendable {
    let count: Int
    /// Rows with a single writer each; row `shards` is the shared one.
    let shards: Int
    /// Counters per row: `count` and a cache line's worth more, rounded up to whole pages, so the
    /// last counter of a row and the first of the next are never on one cache line.
    private let stride: Int
    private nonisolated(unsafe) let storage: UnsafeMutablePointer<Atomic<Int>>

    init(count: Int, shards: Int) {
        precondition(count >= 0 && shards >= 0, "counter and shard counts are not negative")
        self.count = count
        self.shards = shards
        let perPage = 4096 / MemoryLayout<Int>.stride
        let line = 64 / MemoryLayout<Int>.stride
        stride = (count + line + perPage - 1) / perPage * perPage
        guard let block = calloc(stride * (shards + 1), MemoryLayout<Int>.stride) else {
            // Allocated once at start-up: no memory for the counters is no server.
            preconditionFailure("cannot allocate \(stride * (shards + 1)) counters")
        }
        storage = block.bindMemory(to: Atomic<Int>.self, capacity: stride * (shards + 1))
    }

    deinit { free(storage) }

    /// Adds `amount` to counter `index` in `shard`'s row. The caller is that row's only writer at
    /// this moment (an I/O loop's index); any other shard goes to the shared row.
    @inline(__always)
    func add(_ index: Int, _ amount: Int = 1, shard: Int) {
        precondition(index >= 0 && index < count, "counter index out of range")
        if shard >= 0 && shard < shards {
            let cell = shard * stride + index
            storage[cell].store(storage[cell].load(ordering: .relaxed) &+ amount, ordering: .relaxed)
        } else {
            storage[shards * stride + index].wrappingAdd(amount, ordering: .relaxed)
        }
    }

    /// Counter `index` summed over every row (a scrape: the rows' writers may be adding meanwhile).
    func load(_ index: Int) -> Int {
        precondition(index >= 0 && index < count, "counter index out of range")
        var total = 0
        for row in 0...shards { total &+= storage[row * stride + index].load(ordering: .relaxed) }
        return total
    }
}
