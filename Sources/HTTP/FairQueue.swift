/// An admission's context that names whose share of the handler threads its request takes
/// (`HTTPRequest.partition` falls back to it): the API layer's verified key is one.
public protocol HTTPPartitioned: AnyObject, Sendable {
    var partition: String { get }
}

/// The order in which queued handler jobs run: round-robin over *partitions* (one per tenant: the
/// API layer's admission names it, `HTTPRequest.partition`), with at most `share` jobs of one
/// partition running at once. The unnamed partition `""` (open routes, the operator's token) is
/// nobody's tenant: it is not held to a share, only to the pool's threads. A tenant that sends a thousand slow requests then holds `share`
/// threads and queues behind itself, while every other tenant's next job is at most one turn away.
///
/// A pure value: `HandlerPool` holds it under its lock and runs what `next()` hands out; every
/// transition is checked (a job finished for a partition with none running is a bug).
struct FairQueue<Job> {
    private struct Partition {
        var jobs: [Job] = []
        var head = 0
        var running = 0
        /// In `ready` (at most once): it has a job waiting and a free slot of its share.
        var scheduled = false

        var waiting: Int { jobs.count - head }

        mutating func pop() -> Job {
            precondition(head < jobs.count, "popped an empty partition")
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// Jobs one named partition may run at once.
    let share: Int
    private var partitions: [String: Partition] = [:]
    /// Partitions that may run a job now, in the order they became ready (round-robin).
    private var ready: [String] = []
    private var readyHead = 0
    /// Jobs waiting, all partitions together.
    private(set) var waiting = 0
    /// Jobs that `next()` would hand out one after another now, before any finishes: each
    /// partition's waiting jobs up to its free share. The pool starts a thread when these outnumber
    /// its idle threads; counting ready *partitions* instead would have a burst of one tenant's
    /// jobs (or of the unnamed partition's) wait for a single thread that has not yet woken.
    private(set) var startable = 0

    init(share: Int) {
        precondition(share >= 1, "a partition's share is at least one job")
        self.share = share
    }

    mutating func enqueue(_ job: Job, partition: String) {
        // Startable unless the partition's free share is already spoken for by jobs before it.
        let heldBack = partitions[partition].map { $0.waiting >= share(partition) - $0.running } ?? false
        partitions[partition, default: Partition()].jobs.append(job)
        waiting += 1
        if !heldBack { startable += 1 }
        scheduleIfRunnable(partition)
    }

    /// The next job to run, and its partition (counted as running until `finished`), or nil
    /// when every waiting job's partition has its share running.
    mutating func next() -> (job: Job, partition: String)? {
        guard readyHead < ready.count else {
            precondition(startable == 0, "a startable job in no ready partition")
            return nil
        }
        let key = ready[readyHead]
        readyHead += 1
        if readyHead == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        }
        // Mutated in place (through the default subscript): a copy taken out of the dictionary
        // would copy its job array on the first pop.
        precondition(
            partitions[key].map { $0.scheduled && $0.waiting > 0 && $0.running < share(key) } == true,
            "a ready partition cannot run")
        partitions[key, default: Partition()].scheduled = false
        let job = partitions[key, default: Partition()].pop()
        partitions[key, default: Partition()].running += 1
        waiting -= 1
        // It was startable (its partition was ready): one fewer now, whatever the share.
        startable -= 1
        precondition(startable >= 0, "handed out a job that was not startable")
        // Back to the end of the line: the others go first.
        scheduleIfRunnable(key)
        return (job, key)
    }

    /// A job of `partition` handed out by `next()` has finished.
    mutating func finished(_ key: String) {
        guard let partition = partitions[key], partition.running > 0 else {
            preconditionFailure("finished a job of a partition with none running")
        }
        if partition.running == 1 && partition.waiting == 0 {
            partitions[key] = nil
            return
        }
        partitions[key, default: Partition()].running -= 1
        // A slot of its share is free: the first job it held back (if any) becomes startable.
        if partition.waiting > share(key) - partition.running { startable += 1 }
        scheduleIfRunnable(key)
    }

    private func share(_ key: String) -> Int { key.isEmpty ? Int.max : share }

    /// Jobs of `partition` running now (tests, metrics).
    func running(_ key: String) -> Int { partitions[key]?.running ?? 0 }

    private mutating func scheduleIfRunnable(_ key: String) {
        guard let partition = partitions[key], !partition.scheduled, partition.waiting > 0,
            partition.running < share(key)
        else { return }
        partitions[key, default: Partition()].scheduled = true
        ready.append(key)
    }
}
