@preconcurrency import Dispatch

/// One of the fixed set of serial I/O queues. Every connection's own queue targets one of these,
/// so thousands of connections share a handful of threads. State here (the connection table,
/// the shared read buffer, the cached Date) is touched only on this queue, which serializes with
/// all of its connections' queues.
final class IOLoop: @unchecked Sendable {
    let queue: DispatchQueue
    /// Read buffer shared by every connection on this loop; connections copy out what they keep.
    let readBuffer: UnsafeMutableRawBufferPointer
    var connections: [Int32: Connection] = [:]
    var date = HTTPDate()
    private var sweeper: DispatchSourceTimer?

    init(index: Int) {
        queue = DispatchQueue(label: "xizor.http.io.\(index)")
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit { readBuffer.deallocate() }

    /// Starts the twice-a-second deadline check (timeouts are enforced here, not by a timer per
    /// connection).
    func startSweeping() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { [unowned self] in
            let now = MonotonicClock.millis()
            for connection in Array(connections.values) { connection.checkDeadline(now: now) }
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
        for connection in Array(connections.values) { connection.closeIfIdle() }
    }

    /// Ends everything still open (drain deadline reached).
    func closeAllConnections() {
        for connection in Array(connections.values) { connection.close() }
    }
}
