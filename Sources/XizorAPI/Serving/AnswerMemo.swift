import Synchronization

/// Answers built once and handed out again — an experiment's allocation, a holdout's 204 — each
/// signed when built, so a request that finds one costs a lookup, not a signature. Bounded: past
/// `limit` entries it starts again (each entry is rebuilt on its next request). Keys hold the
/// objects whose state they encode, so an entry never outlives it.
final class AnswerMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let limit: Int
    private let entries = Mutex<[Key: Value]>([:])

    init(limit: Int = 4096) {
        precondition(limit > 0, "a memo holds at least one answer")
        self.limit = limit
    }

    func value(for key: Key, build: () throws -> Value) throws -> Value {
        if let found = entries.withLock({ $0[key] }) { return found }
        let built = try build()
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = built
        }
        return built
    }
}
