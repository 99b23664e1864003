#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a POSIX reader-writer lock, for read-mostly state on the SDK hot path (serving
/// snapshots, the representation cache, verified keys): readers never wait for each other, so
/// I/O threads sharing a core do not queue up behind a reader that was preempted, as they do
/// behind a mutex.
package final class ReadWriteLock<Value>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    /// Guarded by `lock`, which already orders every access: the dynamic exclusivity check on top
    /// of it cost as much as the lock on the SDK path.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    package func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    package func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
