import Synchronization

/// A fixed-size array of atomic counters, allocated once. `Atomic` cannot live in a Swift array
/// (it is not copyable), so the counters sit in one manually allocated block: incrementing one
/// is an index and a relaxed atomic add, with no lock and no allocation.
package final class AtomicCounters: Sendable {
    let count: Int
    private nonisolated(unsafe) let storage: UnsafeMutablePointer<Atomic<Int>>

    package init(count: Int) {
        self.count = count
        storage = .allocate(capacity: max(1, count))
        for i in 0..<max(1, count) { (storage + i).initialize(to: Atomic<Int>(0)) }
    }

    deinit {
        storage.deinitialize(count: max(1, count))
        storage.deallocate()
    }

    @inline(__always)
    package func add(_ index: Int, _ amount: Int = 1) {
        storage[index].wrappingAdd(amount, ordering: .relaxed)
    }

    @inline(__always)
    package func load(_ index: Int) -> Int {
        storage[index].load(ordering: .relaxed)
    }
}
