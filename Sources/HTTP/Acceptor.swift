import CSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Taking connections off the listening socket: one `accept4`, the `maxConnections` check, and
/// the connection built for the loop it will live on. Called by the I/O loops (the listening
/// socket is in each loop's epoll set, `IOLoop.acceptPending`) and, once they have let go of it,
/// by the drain for what the kernel still queues (`backlog`).
enum Acceptor {
    enum Outcome {
        /// A connection was accepted; it is not started yet (on its loop: `Connection.start`).
        case opened(Connection)
        /// A connection was accepted and closed at once (`maxConnections` open).
        case refused
        /// The client gave up before it was accepted (`ECONNABORTED`, or a signal): try the next.
        case aborted
        case outOfDescriptors
        /// Nothing is queued (`EAGAIN`), or accepting failed.
        case exhausted
    }

    /// Accepts one connection from `listenFD` and assigns it a loop (round-robin).
    static func acceptOne(listenFD: Int32, core: ServerCore) -> Outcome {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                xizor_accept4(listenFD, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            }
        }
        if fd < 0 {
            switch errno {
            case EMFILE, ENFILE: return .outOfDescriptors
            case ECONNABORTED, EINTR: return .aborted
            default: return .exhausted
            }
        }
        if core.openConnections.load(ordering: .relaxed) >= core.configuration.maxConnections {
            Glibc.close(fd)
            core.observer?.connectionRefused()
            return .refused
        }
        core.openConnections.add(1, ordering: .relaxed)
        core.observer?.connectionOpened()
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let remote = SocketAddress.describe(&address)
        return .opened(Connection(fd: fd, remoteAddress: remote, core: core, loop: core.pickLoop()))
    }

    /// Accepts what is queued on the listening socket just before the drain closes it (no loop
    /// polls it any more). Those connections' handshakes are complete, so their clients may have
    /// sent a request already; closing the socket would reset them. They are served instead (with
    /// `Connection: close`). At most `limit` (the backlog): under load new ones keep arriving, and
    /// the socket must close.
    ///
    /// Whatever arrives between the last accept and the close (and any handshake still half
    /// open) is the kernel's to handle: Linux resets it, unless `net.ipv4.tcp_migrate_req` is 1
    /// and another socket shares the port (`reusePort`), to which it then moves it. So a restart
    /// through `reusePort` drops nothing only with that sysctl on (docs/operations.md).
    static func backlog(listenFD: Int32, core: ServerCore, limit: Int) {
        var taken = 0
        while taken < limit {
            switch acceptOne(listenFD: listenFD, core: core) {
            case .opened(let connection):
                connection.loop.execute { connection.start() }
                taken += 1
            case .refused, .aborted: taken += 1
            case .outOfDescriptors, .exhausted: return
            }
        }
    }
}
