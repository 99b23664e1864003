import Foundation
import Glibc

/// Runs work on a thread of its own at a lower CPU priority and waits for it: the caller's thread
/// keeps its priority, and the new thread ends with the work (a thread per call: creating one costs
/// tens of microseconds, a report milliseconds; no pool to size or leak).
///
/// Linux keeps the nice value per thread (`setpriority(PRIO_PROCESS, 0, …)` sets the calling
/// thread's), and an unprivileged thread may lower its priority but not raise it again: hence a
/// thread that is born low and dies with the work.
enum LowPriority {
    static func run<T>(nice: Int32, _ work: () throws -> T) throws -> T {
        precondition((0...19).contains(nice), "a nice value lowers priority: 0 to 19")
        return try withoutActuallyEscaping(work) { work in
            let slot = Slot(work)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                // Never raised: a process already run at a lower priority keeps it (and an
                // unprivileged thread could not raise it anyway).
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                _ = setpriority(which, 0, max(nice, getpriority(which, 0)))
                slot.run()
                done.signal()
            }
            thread.name = "xizor-report"
            thread.start()
            done.wait()
            return try slot.answer()
        }
    }

    /// The work and its answer, between the caller and the thread. The caller waits on `done` until
    /// the thread is through with it, so no two threads touch it at once; the thread drops the work
    /// before it signals, so nothing holds the caller's closure once `run` returns (which
    /// `withoutActuallyEscaping` checks).
    private final class Slot<T>: @unchecked Sendable {
        private var work: (() throws -> T)?
        private var result: Result<T, any Error>?

        init(_ work: @escaping () throws -> T) { self.work = work }

        func run() {
            guard let work else { preconditionFailure("a report's work runs once") }
            self.work = nil
            result = Result { try work() }
        }

        func answer() throws -> T {
            guard let result else { preconditionFailure("the report's thread ended without an answer") }
            return try result.get()
        }
    }
}
