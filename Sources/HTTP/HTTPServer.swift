import CSystem
@preconcurrency import Dispatch
import Foundation
import Synchronization
import XizorLog

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, Equatable {
    case addressResolution(host: String, message: String)
    case socket(errno: Int32)
    /// A socket option the configuration asks for (`SO_REUSEPORT`) could not be set.
    case socketOption(name: String, errno: Int32)
    case bind(host: String, port: Int, errno: Int32)
    case listen(errno: Int32)
    /// An I/O loop's epoll instance could not be created.
    case poller(errno: Int32)
    case alreadyStarted
}

extension HTTPServerError: CustomStringConvertible {
    /// What an operator reads when `start()` fails: the call and the system's words for the errno
    /// (`bind failed: Address already in use (errno 98)`), not the enum's spelling. The caller
    /// says which address it was listening on.
    public var description: String {
        func reason(_ e: Int32) -> String { "\(String(cString: strerror(e))) (errno \(e))" }
        switch self {
        case .addressResolution(let host, let message): return "cannot resolve \(host): \(message)"
        case .socket(let e): return "socket failed: \(reason(e))"
        case .socketOption(let name, let e): return "setting \(name) failed: \(reason(e))"
        case .bind(_, _, let e): return "bind failed: \(reason(e))"
        case .listen(let e): return "listen failed: \(reason(e))"
        case .poller(let e): return "creating an epoll instance failed: \(reason(e))"
        case .alreadyStarted: return "the server was already started"
        }
    }
}

/// An HTTP/1.1 server on POSIX sockets: one listening socket, accepted on a few I/O loops (a
/// thread each) that share its connections out between them, handlers on a pool unless declared
/// inline.
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    public let drainState: DrainState
    private let core: ServerCore
    /// The I/O loops (for tests: their polling threads).
    var loops: [IOLoop] { core.loops }
    private let state = Mutex(State())
    /// Where a drain accepts the listening socket's last queued connections and closes it.
    private let acceptQueue = DispatchQueue(label: "xizor.http.accept")

    private struct State: @unchecked Sendable {
        /// The listening socket until a drain takes it to close (-1: none, or taken).
        var listenFD: Int32 = -1
        var started = false
        /// The listening socket is closed (after the loops let go of it, asynchronously).
        var listenerClosed = false
        var terminated: DispatchSemaphore?
    }

    /// `observer` (optional) is told about every response and connection, for metrics.
    public init(
        configuration: Configuration = Configuration(), responder: any HTTPResponder,
        logger: Logger = Logger(), drainState: DrainState = DrainState(),
        observer: (any HTTPRequestObserver)? = nil
    ) {
        self.configuration = configuration
        self.drainState = drainState
        core = ServerCore(
            configuration: configuration, responder: responder, logger: logger, drainState: drainState,
            observer: observer)
    }

    /// Whether a graceful shutdown has begun (for readiness checks).
    public var isDraining: Bool { drainState.isDraining }

    /// Connections currently open.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Binds, listens and starts accepting (on the loops); returns the bound port (useful with port 0).
    @discardableResult
    public func start() throws -> Int {
        let fd = try Self.bindListener(
            host: configuration.host, port: configuration.port, backlog: configuration.backlog,
            reusePort: configuration.reusePort)
        let alreadyStarted = state.withLock { s -> Bool in
            if s.started { return true }
            s.started = true
            s.listenFD = fd
            return false
        }
        if alreadyStarted {
            Glibc.close(fd)
            throw HTTPServerError.alreadyStarted
        }
        do {
            for loop in core.loops { try loop.listen(on: fd, core: core) }
            for loop in core.loops { try loop.startPolling() }
        } catch {
            // What listened lets go (on the loops, or their queues for those not started); the
            // kernel takes the socket out of every epoll set as it closes.
            for loop in core.loops { loop.execute { loop.stopListening() } }
            Glibc.close(fd)
            // Closed here: a shutdown must not close the descriptor again (its number may be reused).
            state.withLock { s in
                s.listenFD = -1
                s.listenerClosed = true
            }
            throw error
        }
        return Self.boundPort(fd)
    }

    /// Graceful shutdown: accept what is already queued on the listening socket and close it,
    /// close idle connections, let in-flight requests finish (every response now carries
    /// `Connection: close`), and force-close whatever remains after `drainTimeoutMs`.
    /// `completion` runs once every connection is gone. Connections accepted during the drain are
    /// served, not refused: the kernel completed their handshakes, so their clients may already
    /// have sent a request, and with `reusePort` a successor serves whatever comes next.
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        drainState.begin()
        let listenFD = state.withLock { s -> Int32 in
            let fd = s.listenFD
            s.listenFD = -1
            return fd
        }
        if listenFD >= 0 { closeListener(listenFD) }
        for loop in core.loops { loop.execute { loop.closeIdleConnections() } }
        let deadline = MonotonicClock.millis() + Int64(configuration.drainTimeoutMs)
        let core = self.core
        let queue = DispatchQueue(label: "xizor.http.drain")
        // Done once every connection is gone *and* the listening socket is closed: the cancel
        // handler that closes it runs asynchronously, and a drained server must refuse connections.
        @Sendable func poll() {
            let listening = self.state.withLock { $0.started && !$0.listenerClosed }
            if core.openConnections.load(ordering: .relaxed) == 0 && !listening {
                for loop in core.loops {
                    loop.execute { loop.stopPolling() }
                }
                core.accessLog?.close()  // every response is written: the last lines reach the log first
                completion()
                return
            }
            if MonotonicClock.millis() >= deadline {
                for loop in core.loops { loop.execute { loop.closeAllConnections() } }
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) { poll() }
        }
        queue.async { poll() }
    }

    /// Starts handling SIGTERM and SIGINT (the first one begins a graceful shutdown) without
    /// blocking. Call it right after `start()` and before announcing the server, so a signal sent
    /// as soon as the server is known to be up is never lost; `runUntilTerminated()` then waits
    /// for that drain. The signals are blocked in the calling thread (and so in every thread it
    /// starts later) and received by one thread in `sigwait`: a signal that arrives early stays
    /// pending instead of being discarded, which Dispatch signal sources (registered
    /// asynchronously) cannot promise.
    public func handleTerminationSignals(_ signals: [Int32] = [SIGTERM, SIGINT]) {
        let done = DispatchSemaphore(value: 0)
        let installed = state.withLock { s -> Bool in
            if s.terminated != nil { return true }
            s.terminated = done
            return false
        }
        if installed { return }
        let waitSet = Self.blockTerminationSignals(signals)
        let waiter = Thread { [self] in
            var set = waitSet
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            self.shutdown { done.signal() }
        }
        waiter.name = "xizor-signals"
        waiter.start()
    }

    /// Blocks `signals` in the calling thread and so in every thread started from it later. Call it
    /// first thing in `main` (before anything starts threads): a thread that started earlier with
    /// the signals unblocked could take one and die of its default action.
    @discardableResult
    public static func blockTerminationSignals(_ signals: [Int32] = [SIGTERM, SIGINT]) -> sigset_t {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for sig in signals { sigaddset(&blocked, sig) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        return blocked
    }

    /// Blocks the calling thread until SIGTERM or SIGINT, drains, and returns (so `main` can
    /// exit 0). Call after `start()` (and after `handleTerminationSignals` if it was called).
    public func runUntilTerminated(signals: [Int32] = [SIGTERM, SIGINT]) {
        handleTerminationSignals(signals)
        state.withLock { $0.terminated }?.wait()
    }

    // MARK: Sockets

    /// Every loop lets go of the listening socket; then what the kernel still queues on it is
    /// accepted (`Acceptor.backlog`) and it closes. On `acceptQueue`, after the last loop's step.
    private func closeListener(_ fd: Int32) {
        let core = self.core
        let loopsDone = DispatchGroup()
        for loop in core.loops {
            loopsDone.enter()
            loop.execute {
                loop.stopListening()
                loopsDone.leave()
            }
        }
        loopsDone.notify(queue: acceptQueue) { [self] in
            Acceptor.backlog(listenFD: fd, core: core, limit: Int(configuration.backlog))
            Glibc.close(fd)
            state.withLock { $0.listenerClosed = true }
        }
    }

    static func bindListener(host: String, port: Int, backlog: Int32, reusePort: Bool = false) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &result)
        guard rc == 0, let first = result else {
            throw HTTPServerError.addressResolution(host: host, message: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(result) }
        let info = first.pointee
        let fd = socket(
            info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
            0)
        guard fd >= 0 else { throw HTTPServerError.socket(errno: errno) }
        var one: Int32 = 1
        var zero: Int32 = 0
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if info.ai_family == AF_INET6 {
            // `::` also accepts IPv4 (dual stack).
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
        }
        // Before bind, which is where the kernel decides whether this socket may share the port.
        // A failure is an error, not a warning: a restart counting on the option would otherwise
        // find out only when the new process cannot bind beside the old one.
        if reusePort && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            let e = errno
            Glibc.close(fd)
            throw HTTPServerError.socketOption(name: "SO_REUSEPORT", errno: e)
        }
        guard bind(fd, info.ai_addr, info.ai_addrlen) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPServerError.bind(host: host, port: port, errno: e)
        }
        guard listen(fd, backlog) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw HTTPServerError.listen(errno: e)
        }
        return fd
    }

    static func boundPort(_ fd: Int32) -> Int {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return SocketAddress.port(&address)
    }
}

/// Formatting of socket addresses.
enum SocketAddress {
    static func port(_ address: inout sockaddr_storage) -> Int {
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return 0
        }
    }

    private static func cString(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `host:port`, or `[v6]:port`.
    static func describe(_ address: inout sockaddr_storage) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port = port(&address)
        switch Int32(address.ss_family) {
        case AF_INET:
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count))
                }
            }
            return cString(buffer) + ":" + String(port)
        case AF_INET6:
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var a = sin.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count))
                }
            }
            return "[" + cString(buffer) + "]:" + String(port)
        default:
            return "unknown"
        }
    }
}
