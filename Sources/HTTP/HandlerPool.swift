import CSystem
import Foundation

/// Threads for offloaded handlers and streamed bodies. Dispatch's global pool on Linux grows only
/// slowly when its workers block (a sleeping or I/O-bound handler holds one), so one slow handler
/// per core would stall every other offloaded request; this pool starts a new thread whenever all
/// are busy, up to `maxThreads` (config `handlerThreads`), and keeps them.
///
/// Jobs are shared out fairly (`FairQueue`): round-robin over their partitions (the tenant a
/// request's admission named), at most `share` of one partition at once, so one tenant's slow or
/// numerous requests take at most its share of the threads and queue behind each other.
final class HandlerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: FairQueue<@Sendable () -> Void>
    private var idle = 0
    private var threads = 0
    private let maxThreads: Int
    private let name: String

    init(name: String, maxThreads: Int, share: Int? = nil) {
        self.name = name
        self.maxThreads = max(1, maxThreads)
        queue = FairQueue(share: max(1, min(share ?? maxThreads, maxThreads)))
    }

    func submit(partition: String = "", _ job: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.enqueue(job, partition: partition)
        var spawn = false
        var index = 0
        if queue.startable > idle && threads < maxThreads {
            threads += 1
            index = threads
            spawn = true
        }
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in
                HandlerPool.yieldToIOLoops()
                self.work()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Lowers this thread's scheduling weight (nice 10): handler work (database reads, a tenant's
    /// large bodies, patches, renders) then yields the CPU to the I/O loops, whose work is
    /// memory-only and bounded, so a revalidation is not queued behind another app's CPU-heavy
    /// request on a busy machine. Linux's nice is per thread; lowering it needs no privilege, so it
    /// cannot fail for want of one (were it refused, the thread would only keep the loops' weight).
    static let niceness: Int32 = 10

    private static func yieldToIOLoops() {
        _ = xizor_set_thread_nice(niceness)
    }

    /// Jobs queued and not yet running (for metrics and tests).
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.waiting
    }

    private func work() {
        condition.lock()
        while true {
            guard let (job, partition) = queue.next() else {
                idle += 1
                condition.wait()
                idle -= 1
                continue
            }
            condition.unlock()
            job()
            condition.lock()
            queue.finished(partition)
            // A job of this partition held back by its share may be startable now: another idle
            // thread may take it while this one loops for the next.
            if queue.startable > 0 && idle > 0 { condition.signal() }
        }
    }
}
