import Foundation

/// Threads for offloaded handlers and streamed bodies. Dispatch's global pool on Linux grows only
/// slowly when its workers block (a sleeping or I/O-bound handler holds one), so one slow handler
/// per core would stall every other offloaded request; this pool starts a new thread whenever all
/// are busy, up to `maxThreads` (config `handlerThreads`), and keeps them.
final class HandlerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var idle = 0
    private var threads = 0
    private let maxThreads: Int
    private let name: String

    init(name: String, maxThreads: Int) {
        self.name = name
        self.maxThreads = max(1, maxThreads)
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        let queued = jobs.count - head
        var spawn = false
        var index = 0
        if queued > idle && threads < maxThreads {
            threads += 1
            index = threads
            spawn = true
        }
        condition.signal()
        condition.unlock()
        if spawn {
            let thread = Thread { [self] in self.work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}
