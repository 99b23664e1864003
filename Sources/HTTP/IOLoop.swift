import CSystem
@preconcurrency import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One of the fixed set of serial I/O queues. Every connection's own queue targets one of these,
/// so thousands of connections share a handful of threads. State here (the connection table,
/// the shared read buffer, the cached Date) is touched only on this queue, which serializes with
/// all of its connections' queues.
///
/// Readiness: the loop's connections are registered (edge-triggered, `Connection.Poll.edge`) with
/// the loop's own epoll instance, and one thread of the loop's own blocks in `epoll_wait` on it. When it returns, that
/// thread enters the queue (`sync`: the work runs on the thread that woke, as nginx's worker
/// runs it) and runs every ready connection inline. A Dispatch read source on the epoll instance
/// cost, per batch, a wake-up of Dispatch's event thread, a hand-off to a worker and a re-arm
/// through its manager thread: about 5 % of a 304's CPU and most of its context switches
/// (docs/benchmarks.md). Work sent to the queue from elsewhere (a handler pool's answer, a
/// timer) runs between batches, on Dispatch's workers as before.
final class IOLoop: @unchecked Sendable {
    /// Position in `ServerCore.loops` (the loop's access-log buffer has the same index).
    let index: Int
    let queue: DispatchQueue
    /// Read buffer shared by every connection on this loop; connections copy out what they keep.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Touched only on `queue`: no dynamic exclusivity check per access (see `Connection`).
    @exclusivity(unchecked) var connections = ConnectionTable()
    /// Touched only on `queue`: no dynamic exclusivity check per response (see `Connection`).
    @exclusivity(unchecked) var date = HTTPDate()
    /// Routing answers for paths this loop's connections asked before; touched only on `queue`.
    let routeMemo = RouteMemo()
    /// The epoll instance, or -1 when it could not be created (`startPolling` reports that).
    let poller: Int32
    private let pollerErrno: Int32
    /// Makes the polling thread return from `epoll_wait` to stop (an eventfd in the poller's set).
    private let wakeup: Int32
    /// Whether the polling thread was started (the thread holds the loop while it runs; the loop
    /// does not hold the thread, so neither keeps the other alive after it ends).
    private var pollingStarted = false
    /// The polling thread's kernel id once it runs, 0 before and after (tests watch it end).
    let pollingThreadID = Atomic<Int32>(0)
    private var sweeper: DispatchSourceTimer?

    /// When the current round of ready connections was taken (valid while `inRound`): requests
    /// read in the round are timed from it, one clock read per round instead of one per request.
    private(set) var roundStartMicros: Int64 = 0
    private(set) var inRound = false

    /// Connections whose last read filled the read buffer: they may hold more, which their
    /// edge-triggered registration will not report, so the next round reads them again (and
    /// the next wait does not block while any are listed). Touched only on `queue`.
    private var rereads: [Connection] = []
    /// Connections closed during the current round, released when it ends (`remove`).
    private var retired: [Connection] = []

    private static let batch: Int32 = 128
    /// Filled by the polling thread, read inside its `queue.sync`: only that thread touches them.
    private let readyFDs: UnsafeMutablePointer<Int32>
    private let readyEvents: UnsafeMutablePointer<UInt32>

    init(index: Int) {
        self.index = index
        queue = DispatchQueue(label: "xizor.http.io.\(index)")
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
        Thread { [self] in self.poll() }.start()
    }

    /// Stops the polling thread (on `queue`, after the last connection is gone); the epoll
    /// instance closes with it, and a connection accepted in the meantime is refused instead of
    /// registered.
    func stopPolling() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !isStopped else { return }
        isStopped = true
        // Only a closed descriptor could refuse one write: the loop's own bug, not a stop to skip.
        precondition(xizor_wakeup_signal(wakeup) == 0, "waking a loop's polling thread failed: errno \(errno)")
    }

    /// Set on this queue by `stopPolling`; the epoll descriptor must not be used after it.
    private(set) var isStopped = false

    /// The polling thread: waits for readiness, then runs the batch on the queue. Signals are
    /// blocked here so SIGTERM reaches the server's signal thread, as it does from Dispatch's.
    private func poll() {
        xizor_block_signals()
        xizor_name_thread("xizor.loop.\(index)")
        pollingThreadID.store(xizor_thread_id(), ordering: .releasing)
        defer { pollingThreadID.store(0, ordering: .releasing) }
        var running = true
        var rereadsWaiting = false
        while running {
            let n = xizor_poll_wait(poller, readyFDs, readyEvents, Self.batch, rereadsWaiting ? 0 : -1)
            if n < 0 {
                // EBADF, EFAULT or EINVAL would be this loop's own bug (the descriptor stays open
                // until this thread closes it): a loop that stopped reading must not go unnoticed.
                let error = errno
                precondition(error == EINTR, "epoll_wait on a loop's own descriptor failed: errno \(error)")
                continue
            }
            // The non-generic `sync` (a block straight to `dispatch_sync`): the generic one that
            // returns a value wraps it in three more closures, a fifth of the loop's own cost.
            queue.sync {
                running = runReadyConnections(Int(n))
                rereadsWaiting = !rereads.isEmpty
            }
        }
        Glibc.close(poller)
        Glibc.close(wakeup)
    }

    /// Runs one batch of ready connections (on `queue`); false once the loop is stopped.
    private func runReadyConnections(_ n: Int) -> Bool {
        roundStartMicros = MonotonicClock.micros()
        inRound = true
        defer { inRound = false }
        // Last round's full reads first, taken out so that a read filling the buffer again lists
        // its connection for the round after this one.
        let again = rereads
        rereads.removeAll(keepingCapacity: true)
        for connection in again where !isStopped && connection.phase.wantsRead {
            connection.onReadable()
        }
        for i in 0..<n {
            let fd = readyFDs[i]
            if fd == wakeup {
                xizor_wakeup_drain(wakeup)
            } else if !isStopped, let connection = connections.unretained(fd) {
                // Without a retain and a release (atomic instructions, per request): the table
                // holds the connection, and one closed in the round stays in `retired` till its end.
                connection._withUnsafeGuaranteedRef { $0.handleReadiness(readyEvents[i]) }
            }
        }
        retired.removeAll(keepingCapacity: true)
        return !isStopped
    }

    /// Takes the connection on `fd` out of the table (it closed). During a round it is kept until
    /// the round ends: the round calls connections through unretained references.
    func remove(_ fd: Int32) {
        if inRound, let connection = connections[fd] { retired.append(connection) }
        connections[fd] = nil
    }

    /// Lists `connection` to be read again next round (on `queue`): its last read filled the buffer.
    func readAgain(_ connection: Connection) {
        dispatchPrecondition(condition: .onQueue(queue))
        rereads.append(connection)
    }

    /// Starts the twice-a-second deadline check (timeouts are enforced here, not by a timer per
    /// connection).
    func startSweeping() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { [unowned self] in
            let now = MonotonicClock.millis()
            for connection in connections.all { connection.checkDeadline(now: now) }
        }
        timer.resume()
        sweeper = timer
    }

    func stopSweeping() {
        sweeper?.cancel()
        sweeper = nil
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
            slots[index] = newValue
        }
    }

    /// Every open connection (for the sweeper and the drain).
    var all: [Connection] { slots.compactMap { $0 } }
}
