import CSystem
@preconcurrency import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One of the fixed set of I/O loops: a thread of its own that blocks in `epoll_wait` and runs
/// everything of its connections — their readiness, the deadline sweep, and work sent from other
/// threads (a handler pool's answer, a connection another loop accepted, a drain's step) — and
/// accepts from the listening socket when it is the loop woken for it (`IOLoop+Listening.swift`).
/// State here (the connection table, the shared read buffer, the cached Date) and every connection's state are
/// touched only on that thread (`preconditionOnLoop`), so thousands of connections share a handful
/// of threads without a lock.
///
/// Readiness: the loop's connections are registered (edge-triggered, `Connection.Poll.edge`) with
/// the loop's own epoll instance. When the wait returns, the thread runs every ready connection
/// inline, then the work posted since the last round (`execute`), in the order it was posted. A
/// Dispatch read source on the epoll instance cost, per batch, a wake-up of Dispatch's event
/// thread, a hand-off to a worker and a re-arm through its manager thread: about 5 % of a 304's
/// CPU and most of its context switches; entering a Dispatch queue for each round (`sync`, so that
/// posted work and rounds excluded each other) cost ~700 instructions a round, two atomic
/// releases and an allocation (docs/benchmarks.md).
///
/// Posted work: a list under a lock, and the loop's eventfd written when the list becomes
/// non-empty, so a sleeping loop wakes. Once the loop has stopped (`stopPolling`), its thread hands
/// what is still listed, and everything posted afterwards, to a serial Dispatch queue
/// (`Posted.Executor.handedOff`): a pool's late answer still finds its connection closed and
/// released, in order, on one thread at a time. The same queue runs what is posted before the
/// thread starts (a server shut down without starting).
final class IOLoop: @unchecked Sendable {
    /// Position in `ServerCore.loops` (the loop's access-log buffer has the same index).
    let index: Int
    /// Read buffer shared by every connection on this loop; connections copy out what they keep.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Touched only on the loop: no dynamic exclusivity check per access (see `Connection`).
    @exclusivity(unchecked) var connections = ConnectionTable()
    /// Touched only on the loop: no dynamic exclusivity check per response (see `Connection`).
    @exclusivity(unchecked) var date = HTTPDate()
    /// Routing answers for paths this loop's connections asked before; touched only on the loop.
    let routeMemo = RouteMemo()
    /// The ids this loop gives requests that bring none; touched only on the loop.
    @exclusivity(unchecked) var requestIDs = RequestID.Block()
    /// The epoll instance, or -1 when it could not be created (`startPolling` reports that).
    let poller: Int32
    private let pollerErrno: Int32
    /// Wakes the polling thread from `epoll_wait`: work was posted, or the loop stops (an eventfd in
    /// the poller's set).
    private let wakeup: Int32
    /// Whether the polling thread was started (the thread holds the loop while it runs; the loop
    /// does not hold the thread, so neither keeps the other alive after it ends).
    private var pollingStarted = false
    /// The polling thread's kernel id once it runs, 0 before and after (tests watch it end).
    let pollingThreadID = Atomic<Int32>(0)
    /// The polling thread's `pthread_self()` while it runs the loop, 0 otherwise
    /// (`preconditionOnLoop`).
    private let loopThread = Atomic<UInt>(0)

    /// Work posted from other threads, and who runs it.
    private struct Posted {
        /// Who runs posted work: `lateQueue` until the polling thread starts (for a server shut
        /// down without starting: its drain's steps still run, and the loop is freed), the thread
        /// while it runs, `lateQueue` again once the loop has stopped. Two transitions, each made
        /// under the lock, each once.
        enum Executor {
            case notStarted
            case pollingThread
            case handedOff
        }
        var executor = Executor.notStarted
        var jobs: [@Sendable () -> Void] = []
    }
    private let posted = Mutex(Posted())
    /// Set under `posted`'s lock when a job is listed, cleared when the loop takes the list: a
    /// round with nothing posted reads this instead of taking the lock.
    private let hasPosted = Atomic<Bool>(false)
    /// Runs posted work before the polling thread starts and once it has stopped (`Posted.Executor`).
    private let lateQueue: DispatchQueue
    /// The list the loop runs, swapped with `posted.jobs` (the two keep their capacity).
    @exclusivity(unchecked) private var taken: [@Sendable () -> Void] = []

    /// When the current round of ready connections was taken (valid while `inRound`): requests
    /// read in the round are timed from it, one clock read per round instead of one per request.
    @exclusivity(unchecked) private(set) var roundStartMicros: Int64 = 0
    @exclusivity(unchecked) private(set) var inRound = false

    /// The listening socket's place in this loop (`IOLoop+Listening.swift`); touched only on the
    /// loop (and by `listen(on:core:)` before its thread starts).
    @exclusivity(unchecked) var listening = Listening.off
    /// The server whose connections this loop accepts (weak: the server holds its loops).
    weak var server: ServerCore?

    /// Connections whose last read filled the read buffer: they may hold more, which their
    /// edge-triggered registration will not report, so the next round reads them again (and
    /// the next wait does not block while any are listed). Touched only on the loop.
    @exclusivity(unchecked) private var rereads: [Connection] = []
    /// Connections closed during the current round, released when it ends (`remove`).
    @exclusivity(unchecked) private var retired: [Connection] = []

    /// The deadline sweep's period: timeouts are enforced here, not by a timer per connection.
    private static let sweepMillis: Int64 = 250
    @exclusivity(unchecked) private var nextSweepMillis: Int64 = 0

    private static let batch: Int32 = 128
    /// Filled by the polling thread, read in its rounds: only that thread touches them.
    private let readyFDs: UnsafeMutablePointer<Int32>
    private let readyEvents: UnsafeMutablePointer<UInt32>

    init(index: Int) {
        self.index = index
        lateQueue = DispatchQueue(label: "xizor.http.io.\(index).stopped")
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        var poller = xizor_poll_create()
        var failure = poller < 0 ? errno : 0
        wakeup = poller < 0 ? -1 : xizor_wakeup_create()
        if poller >= 0 && (wakeup < 0 || xizor_poll_add(poller, wakeup, UInt32(XIZOR_POLL_IN)) != 0) {
            failure = errno
            Glibc.close(poller)
            poller = -1
        }
        self.poller = poller
        pollerErrno = failure
        readyFDs = .allocate(capacity: Int(Self.batch))
        readyEvents = .allocate(capacity: Int(Self.batch))
    }

    deinit {
        readBuffer.deallocate()
        readyFDs.deallocate()
        readyEvents.deallocate()
        // A started loop's thread closes both when it ends (it holds the loop until then).
        if !pollingStarted {
            if poller >= 0 { Glibc.close(poller) }
            if wakeup >= 0 { Glibc.close(wakeup) }
        }
    }

    /// Starts the polling thread (from `HTTPServer.start`; once).
    func startPolling() throws {
        guard !pollingStarted else { return }
        guard poller >= 0 else { throw HTTPServerError.poller(errno: pollerErrno) }
        pollingStarted = true
        posted.withLock { posted in
            precondition(posted.executor == .notStarted, "a loop's thread starts once")
            posted.executor = .pollingThread
        }
        // What was posted before runs before the thread does: the two never run the loop at once.
        lateQueue.sync {}
        Thread { [self] in self.poll() }.start()
    }

    /// Runs `job` on the loop (from any thread), after what was posted before it.
    func execute(_ job: @escaping @Sendable () -> Void) {
        let wake = posted.withLock { posted -> Bool in
            switch posted.executor {
            case .pollingThread:
                posted.jobs.append(job)
                hasPosted.store(true, ordering: .relaxed)
                // The first job since the loop took the list wakes it; the rest ride on that.
                return posted.jobs.count == 1
            case .notStarted, .handedOff:
                lateQueue.async(execute: job)
                return false
            }
        }
        if wake { signalWakeup() }
    }

    /// Traps unless called on the loop: its polling thread, or before it started or once it
    /// stopped, `lateQueue`.
    func preconditionOnLoop() {
        if loopThread.load(ordering: .relaxed) != pthread_self() {
            dispatchPrecondition(condition: .onQueue(lateQueue))
        }
    }

    /// Stops the polling thread (on the loop, after the last connection is gone); the epoll
    /// instance closes with it, and a connection accepted in the meantime is refused instead of
    /// registered.
    func stopPolling() {
        preconditionOnLoop()
        guard !isStopped else { return }
        isStopped = true
        signalWakeup()
    }

    private func signalWakeup() {
        // Only a closed descriptor could refuse one write: the loop's own bug, not a stop to skip.
        precondition(xizor_wakeup_signal(wakeup) == 0, "waking a loop's polling thread failed: errno \(errno)")
    }

    /// Set on the loop by `stopPolling`; the epoll descriptor must not be used after it.
    @exclusivity(unchecked) private(set) var isStopped = false

    /// The polling thread: waits for readiness (or the next sweep), then runs the round. Signals
    /// are blocked here so SIGTERM reaches the server's signal thread, as it does from Dispatch's.
    private func poll() {
        xizor_block_signals()
        xizor_name_thread("xizor.loop.\(index)")
        pollingThreadID.store(xizor_thread_id(), ordering: .releasing)
        loopThread.store(pthread_self(), ordering: .relaxed)
        roundStartMicros = MonotonicClock.micros()
        nextSweepMillis = roundStartMicros / 1000 + Self.sweepMillis
        var running = true
        while running {
            let timeout: Int32
            if !rereads.isEmpty || hasPosted.load(ordering: .relaxed) {
                timeout = 0
            } else if connections.count == 0 && !listening.isPaused {
                timeout = -1  // nothing to sweep: an idle loop sleeps until work is posted
            } else {
                // Till the next sweep, counted from the last round's start rather than a clock
                // read per round: the wait starts when that round ends, so it overshoots by one.
                timeout = Int32(clamping: max(0, nextSweepMillis - roundStartMicros / 1000))
            }
            let n = xizor_poll_wait(poller, readyFDs, readyEvents, Self.batch, timeout)
            if n < 0 {
                // EBADF, EFAULT or EINVAL would be this loop's own bug (the descriptor stays open
                // until this thread closes it): a loop that stopped reading must not go unnoticed.
                let error = errno
                precondition(error == EINTR, "epoll_wait on a loop's own descriptor failed: errno \(error)")
                continue
            }
            running = runRound(Int(n))
        }
        handOff()
        loopThread.store(0, ordering: .relaxed)
        pollingThreadID.store(0, ordering: .releasing)
        Glibc.close(poller)
        Glibc.close(wakeup)
    }

    /// One round: the ready connections, new connections, posted work, and the sweep when it is
    /// due; false once the loop is stopped.
    private func runRound(_ n: Int) -> Bool {
        roundStartMicros = MonotonicClock.micros()
        inRound = true
        // Last round's full reads first, taken out so that a read filling the buffer again lists
        // its connection for the round after this one.
        if !rereads.isEmpty {
            let again = rereads
            rereads.removeAll(keepingCapacity: true)
            for connection in again where !isStopped && connection.phase.wantsRead {
                connection.onReadable()
            }
        }
        var accepting = false
        for i in 0..<n {
            let fd = readyFDs[i]
            if fd == wakeup {
                // Drained before the list is taken below: a job posted after the take writes
                // the eventfd again, so its wake-up cannot be lost to this drain.
                xizor_wakeup_drain(wakeup)
            } else if fd == listening.polledFD {
                accepting = true
            } else if !isStopped, let connection = connections.unretained(fd) {
                // Without a retain and a release (atomic instructions, per request): the table
                // holds the connection, and one closed in the round stays in `retired` till its end.
                connection._withUnsafeGuaranteedRef { $0.handleReadiness(readyEvents[i]) }
            }
        }
        retired.removeAll(keepingCapacity: true)
        inRound = false
        if accepting { acceptPending() }
        if hasPosted.load(ordering: .relaxed) { runPosted() }
        if roundStartMicros / 1000 >= nextSweepMillis { sweep() }
        return !isStopped
    }

    /// Every connection's deadline, checked against the clock now; a listening socket paused for
    /// want of descriptors is polled again.
    private func sweep() {
        let now = MonotonicClock.millis()
        nextSweepMillis = now + Self.sweepMillis
        if listening.isPaused { resumeListening() }
        for connection in connections.all { connection.checkDeadline(now: now) }
    }

    /// Runs the work posted since the loop last took the list, in the order it was posted.
    private func runPosted() {
        posted.withLock { posted in
            hasPosted.store(false, ordering: .relaxed)
            swap(&posted.jobs, &taken)
        }
        for job in taken { job() }
        taken.removeAll(keepingCapacity: true)
    }

    /// The loop ends: what is still listed, and all that is posted from now on, runs on
    /// `lateQueue`, in order (the transition under the lock, so no job runs on both).
    private func handOff() {
        posted.withLock { posted in
            precondition(posted.executor == .pollingThread, "a loop hands off once, from its thread")
            posted.executor = .handedOff
            let left = posted.jobs
            posted.jobs = []
            hasPosted.store(false, ordering: .relaxed)
            if !left.isEmpty { lateQueue.async { for job in left { job() } } }
        }
    }

    /// Takes the connection on `fd` out of the table (it closed). During a round it is kept until
    /// the round ends: the round calls connections through unretained references.
    func remove(_ fd: Int32) {
        if inRound, let connection = connections[fd] { retired.append(connection) }
        connections[fd] = nil
    }

    /// Lists `connection` to be read again next round (on the loop): its last read filled the buffer.
    func readAgain(_ connection: Connection) {
        preconditionOnLoop()
        rereads.append(connection)
    }

    /// Closes connections waiting for a next request (called when a drain begins).
    func closeIdleConnections() {
        for connection in connections.all { connection.closeIfIdle() }
    }

    /// Ends everything still open (drain deadline reached).
    func closeAllConnections() {
        for connection in connections.all { connection.close() }
    }
}

/// A loop's connections by descriptor: an array indexed by the descriptor (they are small and
/// dense), so finding the connection of a ready socket is an index rather than a hash per event.
struct ConnectionTable {
    private var slots: [Connection?] = []
    /// The connections held (the loop waits without a timeout when there are none).
    private(set) var count = 0

    /// The connection on `fd`, not retained: valid while the table (or `IOLoop.retired`) holds it.
    func unretained(_ fd: Int32) -> Unmanaged<Connection>? {
        guard fd >= 0 && Int(fd) < slots.count else { return nil }
        return slots.withUnsafeBufferPointer { slots in slots[Int(fd)].map { Unmanaged.passUnretained($0) } }
    }

    subscript(fd: Int32) -> Connection? {
        get { fd >= 0 && Int(fd) < slots.count ? slots[Int(fd)] : nil }
        set {
            guard fd >= 0 else { return }
            let index = Int(fd)
            if index >= slots.count {
                guard newValue != nil else { return }
                slots.append(contentsOf: repeatElement(nil, count: max(index + 1 - slots.count, slots.count)))
            }
            count += (newValue != nil ? 1 : 0) - (slots[index] != nil ? 1 : 0)
            slots[index] = newValue
        }
    }

    /// Every open connection (for the sweeper and the drain).
    var all: [Connection] { slots.compactMap { $0 } }
}
