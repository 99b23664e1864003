import Foundation

/// What came first: the work's result, or the deadline.
enum RaceOutcome<T: Sendable>: Sendable {
    case finished(Result<T, Error>)
    case timedOut
}

/// Waits for `task` at most `timeout` seconds without cancelling it: the network request that
/// lost the race goes on and refreshes the cache. (A task group cannot do this: it waits for every
/// child, and awaiting an unstructured task's value ignores cancellation.)
func race<T: Sendable>(_ task: Task<T, Error>, timeout: TimeInterval) async -> RaceOutcome<T> {
    let once = ResumeOnce<RaceOutcome<T>>()
    return await withCheckedContinuation { continuation in
        once.arm(continuation)
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
            once.resume(.timedOut)
        }
        Task {
            once.resume(.finished(await task.result))
            timer.cancel()  // no sleeping task left behind per presentation
        }
    }
}

/// Resumes a continuation with the first value offered; later offers are dropped.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private var early: T?

    func arm(_ continuation: CheckedContinuation<T, Never>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(returning: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func resume(_ value: T) {
        lock.lock()
        guard let continuation else {
            if early == nil { early = value }
            lock.unlock()
            return
        }
        self.continuation = nil
        lock.unlock()
        continuation.resume(returning: value)
    }
}
