import Synchronization

/// The process-wide cap on request-body bytes held in memory (`http.maxBufferedBodyBytes`). Each body
/// is charged before it is read — its whole `Content-Length` at once, a chunked body in steps as it
/// grows — and refunded when its response is handed over or its connection closes. Without it, every
/// client that may send a body (public keys are public) could make the server buffer `maxBodyBytes`
/// each: 500 of them are half a gigabyte.
final class BodyBudget: Sendable {
    let capacity: Int
    private let used = Atomic<Int>(0)

    init(capacity: Int) {
        precondition(capacity >= 0, "a body budget cannot be negative")
        self.capacity = capacity
    }

    /// Bytes charged now.
    var inUse: Int { used.load(ordering: .relaxed) }

    /// Charges `bytes` if they fit; false (and nothing charged) otherwise.
    func reserve(_ bytes: Int) -> Bool {
        precondition(bytes >= 0, "a reservation cannot be negative")
        var current = used.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Refunds what `reserve` charged.
    func release(_ bytes: Int) {
        precondition(bytes >= 0, "a refund cannot be negative")
        let before = used.subtract(bytes, ordering: .relaxed).oldValue
        precondition(before >= bytes, "refunded more body bytes than were charged")
    }
}
