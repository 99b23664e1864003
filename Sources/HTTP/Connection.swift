import CSystem
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One accepted socket: reads, parses, dispatches, writes, and enforces deadlines. All state is
/// touched only on `queue`, a serial queue targeting the connection's `IOLoop` queue, or on that
/// loop queue itself (readiness and sweeps run there), which excludes the connection's queue.
///
/// This file: the connection's state, reading and parsing, the body budget, deadlines and closing.
/// `Connection+Dispatch.swift`: routing, admission and the answers the server gives itself.
/// `Connection+Output.swift`: writing responses (assembled by the pure `ResponseAssembly`).
///
/// The buffers and parser touched for every request are `@exclusivity(unchecked)`: they belong to
/// the one queue above, so no two accesses can overlap, and the dynamic check (a thread-local
/// access set per `inout` access) was ~3 % of the user-space instructions of a revalidation.
final class Connection: @unchecked Sendable {
    enum DeadlineAction { case none, idle, request, write, linger }

    /// What to do once the pending bytes are on the wire.
    enum AfterWrite {
        case nothing
        case finishResponse
        case streamChunk(StreamSignal)
    }

    let fd: Int32
    let queue: DispatchQueue
    let core: ServerCore
    let loop: IOLoop
    let remoteAddress: String
    /// What the connection waits for; `registered` is what the loop's epoll instance was told.
    var wantsRead = true
    var wantsWrite = false
    private var registered: UInt32 = 0

    @exclusivity(unchecked) var phase = ConnectionPhase.reading
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Bytes received but not parsed yet (they arrived while a response was pending).
    @exclusivity(unchecked) var inbox: [UInt8] = []
    /// Bytes discarded since the lingering close began (`Connection.lingerByteCap`).
    var lingered = 0
    /// The response head being written (its capacity is reused across responses).
    @exclusivity(unchecked) var out: [UInt8] = []
    @exclusivity(unchecked) var pending = PendingWrite()
    var afterWrite: AfterWrite = .nothing
    /// The request whose head was admitted while its body is still being read, with its route.
    var admitted: (request: HTTPRequest, resolution: HTTPResolution)?
    var requestsServed = 0

    var deadline: Int64 = 0
    var deadlineAction: DeadlineAction = .none
    /// Body bytes charged to the server's `BodyBudget` for the request being read or handled.
    private var bodyCharged = 0
    /// When the body being read must be complete (`http.bodyDeadlineMs` after its head).
    private var bodyDeadline: Int64 = 0

    /// Access-log facts of the in-flight exchange.
    @exclusivity(unchecked) var exchange = ExchangeRecord()

    init(fd: Int32, remoteAddress: String, core: ServerCore, loop: IOLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.core = core
        self.loop = loop
        self.queue = DispatchQueue(label: "xizor.http.connection", target: loop.queue)
        self.parser = HTTPRequestParser(limits: core.configuration.parserLimits)
        out.reserveCapacity(512)
    }

    var isClosed: Bool { phase == .closed }

    /// Registers with the loop and starts reading (on `queue`).
    func start() {
        dispatchPrecondition(condition: .onQueue(queue))
        loop.connections[fd] = self
        // After the loop stopped (it cannot while this connection is counted open; a safeguard).
        // Accepted during a drain is served: see `HTTPServer.shutdown`.
        if loop.isStopped {
            close()
            return
        }
        setDeadline(.idle, core.configuration.idleTimeoutMs)
        updateRegistration()
    }

    // MARK: Readiness

    private enum Poll {
        static let readable = UInt32(XIZOR_POLL_IN)
        static let writable = UInt32(XIZOR_POLL_OUT)
        static let failure = UInt32(XIZOR_POLL_ERR | XIZOR_POLL_HUP)
    }

    /// Called by the loop with what epoll reported. Errors and hang-ups go to whichever side is
    /// waiting: its read or write sees the condition and closes.
    func handleReadiness(_ events: UInt32) {
        let failed = events & Poll.failure != 0
        if wantsWrite && (failed || events & Poll.writable != 0) { onWritable() }
        if wantsRead && !isClosed && (failed || events & Poll.readable != 0) { onReadable() }
    }

    /// Tells the loop's epoll instance what this connection now waits for (nothing: not watched).
    func updateRegistration() {
        guard !isClosed else { return }
        let wanted = (wantsRead ? Poll.readable : 0) | (wantsWrite ? Poll.writable : 0)
        guard wanted != registered else { return }
        let rc: Int32
        if wanted == 0 {
            rc = xizor_poll_remove(loop.poller, fd)
        } else if registered == 0 {
            rc = xizor_poll_add(loop.poller, fd, wanted)
        } else {
            rc = xizor_poll_modify(loop.poller, fd, wanted)
        }
        registered = rc == 0 ? wanted : 0
        if rc != 0 { close() }
    }

    // MARK: Reading

    private func onReadable() {
        guard !isClosed else { return }
        let buffer = loop.readBuffer
        let n = recv(fd, buffer.baseAddress, buffer.count, 0)
        if n > 0 {
            if phase == .lingering {
                lingered += n
                if lingered > Self.lingerByteCap { close() }
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if inbox.isEmpty {
                consume(bytes)
            } else {
                inbox.append(contentsOf: bytes)
                processInbox()
            }
        } else if n == 0 {
            guard phase.isResponding else {
                close()
                return
            }
            // Half-closed by the peer while its response is pending: answer, then close.
            phase.transition(to: .responding(thenClose: true))
            pauseReading()
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            close()
        }
    }

    func processInbox() {
        guard !inbox.isEmpty else { return }
        let data = inbox
        inbox = []
        data.withUnsafeBytes { consume($0) }
    }

    /// Parses as many requests as `bytes` holds, one at a time; keeps the rest when a response
    /// is outstanding.
    private func consume(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count && phase == .reading {
            let wasIdle = parser.isIdle
            var (consumed, event) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMoreData:
                if parser.isReadingBody {
                    guard chargeBody(upTo: parser.bufferedBodyBytes) else { return }
                    setBodyReadDeadline()
                } else if wasIdle && !parser.isIdle {
                    setDeadline(.request, core.configuration.headerReadTimeoutMs)
                }
            case .headComplete:
                // Routed, admitted and charged to the body budget before a body byte is read or
                // `100 Continue` is sent.
                guard admitHead() else { break }
                _ = startBody(bodyBytesArrived: offset < bytes.count)
            case .request:
                // Moved out of the event: a request still held by it would be shared when `dispatch`
                // first writes to it, which copies its box.
                if let request = event.takeRequest() { dispatch(consume request) }
            case .failure(let error):
                respondToParseError(error)
                return
            }
        }
        if offset < bytes.count && (phase == .reading || phase == .admitting || phase.isResponding) {
            inbox.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        if phase.isResponding { pauseReading() }
    }

    func pauseReading() {
        wantsRead = false
        updateRegistration()
    }

    func resumeReading() {
        wantsRead = true
        updateRegistration()
    }

    /// After a head whose body is to come was admitted: charges the declared body to the budget,
    /// starts the body's deadlines and, when the client waits for it and has sent nothing of the
    /// body yet, answers `100 Continue`. Returns whether reading may go on.
    func startBody(bodyBytesArrived: Bool) -> Bool {
        guard chargeBody(upTo: parser.declaredBodyLength ?? 0) else { return false }
        bodyDeadline = MonotonicClock.millis() + Int64(core.configuration.bodyDeadlineMs)
        setBodyReadDeadline()
        if parser.expectsContinue && !bodyBytesArrived { sendInterimContinue() }
        return true
    }

    private func sendInterimContinue() {
        let line: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"
        _ = Glibc.send(fd, line.utf8Start, line.utf8CodeUnitCount, Int32(MSG_NOSIGNAL))
    }

    // MARK: The body budget

    /// Makes sure `bytes` body bytes are charged to the budget: a declared length at once, a chunked
    /// body in steps of at least `chunkStep` as it grows (it may run one read past its charge before
    /// this is called). Over the budget: 503 with `Retry-After`, the body unread, the connection
    /// closed. Returns whether reading may go on.
    private func chargeBody(upTo bytes: Int) -> Bool {
        guard bytes > bodyCharged else { return true }
        let step = max(bytes - bodyCharged, min(Self.chunkStep, core.configuration.maxBodyBytes - bodyCharged))
        if core.bodyBudget.reserve(step) {
            bodyCharged += step
            return true
        }
        core.observer?.bodyRefused()
        admitted = nil
        respondAndClose(
            HTTPError(
                .serviceUnavailable, code: "body_budget_exhausted",
                detail: "The server is receiving too many request bodies; retry shortly."),
            headers: [("Retry-After", "1")])
        return false
    }

    /// How much more a growing (chunked) body is charged at a time.
    private static let chunkStep = 64 * 1024

    /// Refunds the body's charge: its response is being sent, or the connection is gone.
    func refundBody() {
        guard bodyCharged > 0 else { return }
        core.bodyBudget.release(bodyCharged)
        bodyCharged = 0
    }

    // MARK: Deadlines and closing

    func setDeadline(_ action: DeadlineAction, _ ms: Int) {
        deadlineAction = action
        deadline = MonotonicClock.millis() + Int64(ms)
    }

    /// The next body read is due within `bodyReadTimeoutMs`, and the whole body by `bodyDeadline`.
    private func setBodyReadDeadline() {
        let perRead = MonotonicClock.millis() + Int64(core.configuration.bodyReadTimeoutMs)
        deadlineAction = .request
        deadline = min(perRead, bodyDeadline)
    }

    /// Called by the loop's sweeper.
    func checkDeadline(now: Int64) {
        guard !isClosed, deadlineAction != .none, now >= deadline else { return }
        switch deadlineAction {
        case .none:
            break
        case .idle, .write, .linger:
            close()
        case .request:
            respondToTimeout()
        }
    }

    /// Closes the connection if it is between requests (drain). Not one that has had no request
    /// yet: its client opened it to send one, which may be on its way (the connection was accepted
    /// just before the drain, or from the backlog during it), and a client need not retry a
    /// request that failed on a new connection. It is answered with `Connection: close`, or closed
    /// at the drain's deadline if nothing comes. Not either when the next request's first bytes
    /// have arrived unread: closing would reset the connection under it; it is answered instead.
    /// A request sent after this look still races the close; RFC 9112 §9.3.1 lets the client
    /// retry it on a new connection, since the reused one closed before any response byte.
    func closeIfIdle() {
        guard requestsServed > 0, phase == .reading && parser.isIdle && inbox.isEmpty else { return }
        var byte: UInt8 = 0
        if recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0 { return }
        close()
    }

    func close() {
        guard !isClosed else { return }
        phase.transition(to: .closed)
        refundBody()
        loop.connections[fd] = nil
        if case .streamChunk(let signal) = afterWrite { signal.finish(ok: false) }
        afterWrite = .nothing
        // Unconditionally: a failed modify leaves `registered` at 0 with the socket still watched.
        if !loop.isStopped { _ = xizor_poll_remove(loop.poller, fd) }
        registered = 0
        Glibc.close(fd)
        core.connectionClosed()
    }
}

/// What the access log and the observer are told of the exchange in flight.
struct ExchangeRecord {
    var startMicros: Int64 = 0
    var method: HTTPMethod = .GET
    var path = ""
    var requestId = ""
    var status = 0
    var bytes = 0
    var routeIndex = -1
}
