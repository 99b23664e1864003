import Dispatch
import Synchronization

/// Group commit: concurrent writes of the same kind (event batches) share one transaction, so one
/// commit — one fsync with `synchronous=FULL` — makes many callers' work durable. Each caller is
/// answered only after the transaction holding its work committed. When a shared transaction
/// fails, each piece of its work runs again alone, so a caller gets its own outcome: its error,
/// or success once its work is durable — never another caller's failure.
///
/// The first caller to find no transaction running leads: it takes every queued piece of work (at
/// most `maxPerTransaction`), runs them in one `DataStore.write`, answers their callers, and, when
/// more work queued meanwhile, hands the lead to the oldest waiting caller rather than keep
/// leading (so no caller's own answer waits behind an endless stream of others').
final class GroupCommit: Sendable {
    /// One caller's work and what became of it. `outcome` is written by the leader before it
    /// signals `wake`, and read by the caller after `wake` returned: the semaphore orders them.
    private final class Ticket: @unchecked Sendable {
        let work: @Sendable (any StoreTransaction) throws -> Void
        let wake = DispatchSemaphore(value: 0)
        var outcome: Outcome = .waiting

        init(_ work: @escaping @Sendable (any StoreTransaction) throws -> Void) { self.work = work }
    }

    private enum Outcome {
        case waiting
        /// Lead the next transaction (the previous leader handed over).
        case lead
        case committed
        case failed(any Error)
    }

    private struct State {
        var queue: [Ticket] = []
        var leading = false
    }

    private let store: any DataStore
    let maxPerTransaction: Int
    private let state = Mutex(State())

    init(store: any DataStore, maxPerTransaction: Int = 64) {
        precondition(maxPerTransaction > 0, "a transaction holds at least one caller's work")
        self.store = store
        self.maxPerTransaction = maxPerTransaction
    }

    /// Runs `body` in a transaction shared with concurrent callers; returns once it is durable.
    /// `body` must not depend on other callers' work (it may run before or after theirs).
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) throws -> T {
        let result = ResultBox<T>()
        let ticket = Ticket { tx in result.value = try body(tx) }
        let leads = state.withLock { state -> Bool in
            state.queue.append(ticket)
            guard !state.leading else { return false }
            state.leading = true
            return true
        }
        if !leads {
            ticket.wake.wait()
            if case .lead = ticket.outcome { lead() }
        } else {
            lead()
        }
        switch ticket.outcome {
        case .committed:
            guard let value = result.value else { preconditionFailure("a committed ticket has its result") }
            return value
        case .failed(let error):
            throw error
        case .waiting, .lead:
            preconditionFailure("a caller returns only once its work committed or failed")
        }
    }

    /// Runs one transaction of queued work, answers its callers, and passes the lead on (or gives
    /// it up when nothing is queued).
    private func lead() {
        let batch = state.withLock { state -> [Ticket] in
            let taken = Array(state.queue.prefix(maxPerTransaction))
            state.queue.removeFirst(taken.count)
            return taken
        }
        precondition(!batch.isEmpty, "a leader has at least its own work")
        var outcomes: [Outcome]
        do {
            try store.write { tx in for ticket in batch { try ticket.work(tx) } }
            outcomes = Array(repeating: .committed, count: batch.count)
        } catch {
            // One caller's failure must not become everyone's: alone, each runs again in a
            // transaction of its own (work is independent, and nothing of the shared one was written).
            outcomes =
                batch.count == 1
                ? [.failed(error)]
                : batch.map { ticket in
                    do {
                        try store.write { tx in try ticket.work(tx) }
                        return .committed
                    } catch {
                        return .failed(error)
                    }
                }
        }
        let next = state.withLock { state -> Ticket? in
            guard let next = state.queue.first else {
                state.leading = false
                return nil
            }
            return next
        }
        // The next leader stays queued: it takes itself with the rest of the queue.
        next?.outcome = .lead
        for (ticket, outcome) in zip(batch, outcomes) {
            ticket.outcome = outcome
            ticket.wake.signal()
        }
        next?.wake.signal()
    }
}

/// Where a piece of work leaves its value for its caller (written and read as `Ticket.outcome` is).
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    var value: T?
}
