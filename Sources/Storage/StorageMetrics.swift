import Synchronization

/// Counters of the writer's behaviour, kept here so `/metrics` can expose them without the storage
/// layer knowing about Prometheus or HTTP.
public final class StorageMetrics: Sendable {
    /// Upper bounds (seconds) of the write-latency histogram buckets; the last bucket is +Inf.
    public static let latencyBucketBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ]

    public struct Snapshot: Sendable, Equatable {
        /// Write transactions that committed.
        public var writesCommitted: UInt64 = 0
        /// Write transactions rolled back because the body or the commit threw.
        public var writesFailed: UInt64 = 0
        /// Times the writer retried `BEGIN IMMEDIATE` after SQLITE_BUSY outlived the busy timeout.
        public var busyRetries: UInt64 = 0
        /// Read blocks run on the read pool.
        public var reads: UInt64 = 0
        /// Sum of write durations (queue wait included), seconds.
        public var writeSecondsTotal: Double = 0
        /// Cumulative counts per bucket of `latencyBucketBounds`, then one for +Inf (= all writes).
        public var writeLatencyBuckets: [UInt64] = Array(
            repeating: 0, count: StorageMetrics.latencyBucketBounds.count + 1)
    }

    private let state = Mutex(Snapshot())

    public init() {}

    public func snapshot() -> Snapshot { state.withLock { $0 } }

    public func recordWrite(seconds: Double, committed: Bool) {
        state.withLock { s in
            if committed { s.writesCommitted += 1 } else { s.writesFailed += 1 }
            s.writeSecondsTotal += seconds
            for (i, bound) in StorageMetrics.latencyBucketBounds.enumerated() where seconds <= bound {
                s.writeLatencyBuckets[i] += 1
            }
            s.writeLatencyBuckets[StorageMetrics.latencyBucketBounds.count] += 1
        }
    }

    public func recordBusyRetry() { state.withLock { $0.busyRetries += 1 } }
    public func recordRead() { state.withLock { $0.reads += 1 } }
}
