import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A few answers of a shared, read-mostly table, remembered by each thread for itself: a hit reads
/// no lock and writes no cache line another thread reads. Behind a reader-writer lock, every
/// lookup of the SDK path wrote the lock's word and the table's reference count, four atomic
/// instructions on lines every I/O loop shares (docs/benchmarks.md).
///
/// An entry is stamped with the table's generation (`MemoGeneration`) when it was read, and found
/// only while the table still has that generation: every change of the table gives it a new one
/// before it returns, so a lookup after a write never finds what the write replaced.
///
/// Bounded: `slots` entries per thread, direct-mapped by the caller's hash, each replaced by the
/// next answer of its slot. One instance per kind of table (a `static let`): its pthread key is
/// made once per process, and the stamps, unique across instances, keep two tables of one kind
/// (two servers in one test process) apart. A thread's entries are released when it exits.
package final class ThreadMemo: @unchecked Sendable {
    // Objects, not generic keys and values: an entry's key is lent to the caller's `matches` (which
    // casts it to its own type) without a retain, and the memo costs the same in every module and
    // build. A generic one called from another module without cross-module optimisation (debug
    // builds) ran unspecialised, at ten times the cost of the lock it replaces.
    private struct Entry {
        var stamp: UInt64 = 0
        var hash = 0
        /// Retained by the entry (released when it is replaced, or with the slots): lent to a
        /// lookup's `matches` without a retain and release of its own.
        var key: Unmanaged<AnyObject>?
        var value: AnyObject?
    }

    /// One thread's entries, touched by that thread only.
    private final class Slots {
        let entries: UnsafeMutablePointer<Entry>
        let mask: Int

        init(count: Int) {
            entries = .allocate(capacity: count)
            entries.initialize(repeating: Entry(), count: count)
            mask = count - 1
        }

        deinit {
            for i in 0...mask { entries[i].key?.release() }
            entries.deinitialize(count: mask + 1)
            entries.deallocate()
        }
    }

    private let threadKey: pthread_key_t
    private let slots: Int

    /// `slots`: a power of two.
    package init(slots: Int) {
        precondition(slots > 0 && slots & (slots - 1) == 0, "a thread memo has a power of two of slots")
        self.slots = slots
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { raw in
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
        }
        precondition(made == 0, "pthread_key_create failed (\(made))")
        threadKey = key
    }

    /// The value this thread remembered for a key object `matches` accepts, with `hash`, read while
    /// the table's generation was `stamp`; nil otherwise.
    package func find(stamp: UInt64, hash: Int, _ matches: (AnyObject) -> Bool) -> AnyObject? {
        guard let raw = pthread_getspecific(threadKey) else { return nil }
        return Unmanaged<Slots>.fromOpaque(raw)._withUnsafeGuaranteedRef { slots in
            let entry = slots.entries + (hash & slots.mask)
            guard entry.pointee.stamp == stamp, entry.pointee.hash == hash, let key = entry.pointee.key,
                key._withUnsafeGuaranteedRef(matches)
            else { return nil }
            return entry.pointee.value
        }
    }

    /// Remembers `value` for the key object `key` on this thread, as read while the table's
    /// generation was `stamp` (read before the value: a change in between leaves the entry with
    /// the older stamp).
    package func remember(stamp: UInt64, hash: Int, key: AnyObject, value: AnyObject) {
        let slots: Slots
        if let raw = pthread_getspecific(threadKey) {
            slots = Unmanaged<Slots>.fromOpaque(raw).takeUnretainedValue()
        } else {
            slots = Slots(count: self.slots)
            // The thread's reference, released by the key's destructor when the thread exits.
            pthread_setspecific(threadKey, Unmanaged.passRetained(slots).toOpaque())
        }
        let entry = slots.entries + (hash & slots.mask)
        entry.pointee.key?.release()
        entry.pointee = Entry(stamp: stamp, hash: hash, key: Unmanaged.passRetained(key), value: value)
    }
}

/// Generations of the tables behind thread memos, unique in the process: a table's generation is
/// never one another table had, so an entry stamped with it is this table's.
package enum MemoGeneration {
    private static let counter = Atomic<UInt64>(0)

    /// A generation no table had before (never 0, the stamp of an empty entry).
    package static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
