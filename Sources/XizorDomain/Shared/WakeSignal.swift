import Foundation

/// Wakes a background thread early: the webhook senders when a write put a delivery in the outbox,
/// the retention jobs when the server stops.
/// A generation counter under a condition, so a wake-up between a sender's look at the outbox and
/// its wait is not lost.
public final class WakeSignal: @unchecked Sendable {
    /// Guards `generation`; NSCondition is thread-safe, hence the unchecked Sendable.
    private let condition = NSCondition()
    private var generation: UInt64 = 0

    public init() {}

    public func wake() {
        condition.lock()
        generation &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The generation to pass to `wait`, read before looking at the outbox.
    public var current: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    /// Returns once the generation moved past `seen`, or after `ms` milliseconds.
    public func wait(after seen: UInt64, upToMs ms: Int) {
        let deadline = Date(timeIntervalSinceNow: Double(max(ms, 0)) / 1000)
        condition.lock()
        while generation == seen, condition.wait(until: deadline) {}
        condition.unlock()
    }
}
