import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket, accepted on the loops as nginx's workers accept it: it sits in every
/// loop's epoll set (level-triggered, `EPOLLEXCLUSIVE`, so a new connection wakes one loop rather
/// than all), and the loop it wakes accepts after its round's connections have had their turn. A
/// Dispatch read source on it cost, for every connection, a wake-up of Dispatch's event thread, a
/// hand-off to a worker thread and a post to the loop: under keep-alive load (clients reconnect
/// every `maxRequestsPerConnection` requests) two threads sharing the loops' CPUs woke some 450
/// times a second (docs/benchmarks.md, "Accepting on the loops").
extension IOLoop {
    /// The loop's part in listening: plain descriptors, so that the round's check of each ready
    /// descriptor against it copies no reference (a retain and a release per request).
    enum Listening {
        case off
        case on(fd: Int32)
        /// Out of descriptors (`EMFILE`, `ENFILE`): taken out of the epoll set, which would report
        /// the socket at every wait while its queue is full, until the next sweep (`resumeListening`).
        case paused(fd: Int32)

        var isPaused: Bool {
            if case .paused = self { return true }
            return false
        }

        /// The descriptor the loop's epoll set reports for the socket (-1: none).
        var polledFD: Int32 {
            if case .on(let fd) = self { return fd }
            return -1
        }
    }

    /// Connections accepted per round at most: the socket is level-triggered, so what is left is
    /// reported again after the loop's connections have had their next turn.
    static let acceptsPerRound = 64

    /// Puts the listening socket in the loop's epoll set (before the polling thread starts: the
    /// state is the loop's, and the thread's start publishes it).
    func listen(on fd: Int32, core: ServerCore) throws {
        guard case .off = listening else { preconditionFailure("a loop listens on one socket, once") }
        guard xizor_poll_add(poller, fd, UInt32(XIZOR_POLL_IN) | XIZOR_POLL_EXCLUSIVE) == 0 else {
            throw HTTPServerError.poller(errno: errno)
        }
        listening = .on(fd: fd)
        server = core
    }

    /// Accepts what the socket holds, up to `acceptsPerRound`; a connection assigned to this loop
    /// starts here and now, one assigned to another loop is posted to it.
    func acceptPending() {
        guard case .on(let fd) = listening, let core = server else { return }
        for _ in 0..<Self.acceptsPerRound {
            switch Acceptor.acceptOne(listenFD: fd, core: core) {
            case .opened(let connection):
                if connection.loop === self {
                    connection.start()
                } else {
                    connection.loop.execute { connection.start() }
                }
            case .refused, .aborted:
                continue
            case .outOfDescriptors:
                pauseListening()
                return
            case .exhausted:
                return
            }
        }
    }

    /// Out of descriptors: accepting would fail again at once, and the socket would wake the loop
    /// at every wait. It leaves the epoll set until the loop's next deadline sweep (at most
    /// `sweepMillis`; no Dispatch timer, which would need a descriptor of its own).
    private func pauseListening() {
        guard case .on(let fd) = listening else { return }
        _ = xizor_poll_remove(poller, fd)
        listening = .paused(fd: fd)
    }

    /// Back in the epoll set after a pause (from the sweep); if the kernel refuses the
    /// registration (out of memory too), the next sweep tries again.
    func resumeListening() {
        guard case .paused(let fd) = listening, !isStopped,
            xizor_poll_add(poller, fd, UInt32(XIZOR_POLL_IN) | XIZOR_POLL_EXCLUSIVE) == 0
        else { return }
        listening = .on(fd: fd)
    }

    /// Takes the listening socket out of the loop's epoll set for good (on the loop, when a drain
    /// begins); once every loop has, the drain accepts what is queued and closes it.
    func stopListening() {
        preconditionOnLoop()
        switch listening {
        case .on(let fd):
            if !isStopped { _ = xizor_poll_remove(poller, fd) }
        case .paused, .off:
            break
        }
        listening = .off
    }
}
