import CSystem
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// One of the fixed set of serial I/O queues. Every connection's own queue targets one of these,
/// so thousands of connections share a handful of threads. State here (the connection table,
/// the shared read buffer, the cached Date) is touched only on this queue, which serializes with
/// all of its connections' queues.
///
/// Readiness: the loop's connections are registered (level-triggered) with the loop's own epoll
/// instance, and one Dispatch read source watches that instance. When it fires, the loop takes
/// every ready connection in one `epoll_wait` and runs each inline. A Dispatch source per socket
/// cost an `epoll_ctl` re-arm and a hand-off from Dispatch's event thread for every request;
/// this way both happen once per batch.
final class IOLoop: @unchecked Sendable {
    /// Position in `ServerCore.loops` (the loop's access-log buffer has the same index).
    let index: Int
    let queue: DispatchQueue
    /// Read buffer shared by every connection on this loop; connections copy out what they keep.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Touched only on `queue`: no dynamic exclusivity check per access (see `Connection`).
    @exclusivity(unchecked) var connections = ConnectionTable()
    var date = HTTPDate()
    /// The epoll instance, or -1 when it could not be created (`startPolling` reports that).
    let poller: Int32
    private let pollerErrno: Int32
    private var readiness: DispatchSourceRead?
    private var sweeper: DispatchSourceTimer?

    /// When the current round of ready connections was taken (valid while `inRound`): requests
    /// read in the round are timed from it, one clock read per round instead of one per request.
    private(set) var roundStartMicros: Int64 = 0
    private(set) var inRound = false

    private static let batch: Int32 = 128
    private let readyFDs: UnsafeMutablePointer<Int32>
    private let readyEvents: UnsafeMutablePointer<UInt32>

    init(index: Int) {
        self.index = index
        queue = DispatchQueue(label: "xizor.http.io.\(index)")
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        poller = xizor_poll_create()
        pollerErrno = poller < 0 ? errno : 0
        readyFDs = .allocate(capacity: Int(Self.batch))
        readyEvents = .allocate(capacity: Int(Self.batch))
    }

    deinit {
        readBuffer.deallocate()
        readyFDs.deallocate()
        readyEvents.deallocate()
        if let readiness { readiness.cancel() } else if poller >= 0 { Glibc.close(poller) }
    }

    /// Starts watching the epoll instance (from `HTTPServer.start`; once).
    func startPolling() throws {
        guard readiness == nil else { return }
        guard poller >= 0 else { throw HTTPServerError.poller(errno: pollerErrno) }
        let source = DispatchSource.makeReadSource(fileDescriptor: poller, queue: queue)
        source.setEventHandler { [unowned self] in self.runReadyConnections() }
        source.setCancelHandler { [poller] in _ = Glibc.close(poller) }
        readiness = source
        source.resume()
    }

    /// Stops watching (after the last connection is gone); the epoll instance closes with it, and
    /// a connection accepted in the meantime is refused instead of registered.
    func stopPolling() {
        isStopped = true
        readiness?.cancel()
    }

    /// Set on this queue by `stopPolling`; the epoll descriptor must not be used after it.
    private(set) var isStopped = false

    /// Runs the ready connections, a bounded number of batches per wake-up so timers and queued
    /// work on this queue get their turn; whatever is still ready fires the source again.
    private func runReadyConnections() {
        defer { inRound = false }
        for _ in 0..<4 {
            let n = xizor_poll_wait(poller, readyFDs, readyEvents, Self.batch, 0)
            if n <= 0 { return }
            roundStartMicros = MonotonicClock.micros()
            inRound = true
            for i in 0..<Int(n) {
                connections[readyFDs[i]]?.handleReadiness(readyEvents[i])
            }
            if n < Self.batch { return }
        }
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
