import CSystem
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One accepted socket: reads, parses, dispatches, writes, and enforces deadlines. All state is
/// touched only on its `IOLoop` (readiness, sweeps and work sent from other threads all run
/// there, `IOLoop.execute`).
///
/// This file: the connection's state, reading and parsing, the body budget, deadlines and closing.
/// `ConnectionPhase.swift`: where the connection is in its life, with each phase's data.
/// `Connection+Dispatch.swift`: routing, admission and the answers the server gives itself.
/// `Connection+Output.swift`: writing responses (assembled by the pure `ResponseAssembly`).
///
/// The buffers and parser touched for every request are `@exclusivity(unchecked)`: they belong to
/// the one loop above, so no two accesses can overlap, and the dynamic check (a thread-local
/// access set per `inout` access) was ~3 % of the user-space instructions of a revalidation.
final class Connection: @unchecked Sendable {
    /// What to do once the pending bytes are on the wire.
    enum AfterWrite {
        case nothing
        case finishResponse
        case streamChunk(StreamSignal)
    }

    let fd: Int32
    let core: ServerCore
    let loop: IOLoop
    let remoteAddress: String
    /// The events the loop's epoll instance was told this connection waits for: the kernel's copy
    /// of what `phase` asks (`updateRegistration` brings it in line), kept so that a step that
    /// changes nothing costs no `epoll_ctl`.
    private var registered: UInt32 = 0

    /// Where the connection is in its life, with that phase's data (`ConnectionPhase`); its deadline
    /// and the events it waits for are read from it. Its first deadline is set by `start`.
    @exclusivity(unchecked) var phase = ConnectionPhase.reading(.idle(until: 0))

    // The fields below outlive a phase, so they are the connection's rather than a phase's.

    /// The parser's state spans phases (it holds a head while its admission runs off the loop,
    /// then its body while that is read), and its buffers keep their capacity from request to
    /// request, which a payload rebuilt at every step would lose.
    @exclusivity(unchecked) var parser: HTTPRequestParser
    /// Bytes received but not parsed yet: they arrived while the connection was not reading
    /// (admitting, responding) and are parsed when it reads again, in the phase after theirs.
    @exclusivity(unchecked) var inbox: [UInt8] = []
    /// The response head being written: its storage is reused from response to response, which a
    /// buffer inside `.responding` (built anew for each response) would lose. A write the socket
    /// took only part of keeps a copy of it in the phase (`WaitingWrite`) until it is on the wire.
    @exclusivity(unchecked) var out = HeadBuffer()
    var requestsServed = 0

    /// Access-log facts of the in-flight exchange (from its head's arrival to its response on the
    /// wire, across reading and responding).
    @exclusivity(unchecked) var exchange = ExchangeRecord()

    init(fd: Int32, remoteAddress: String, core: ServerCore, loop: IOLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.core = core
        self.loop = loop
        self.parser = HTTPRequestParser(limits: core.configuration.parserLimits)
    }

    var isClosed: Bool { phase.isClosed }

    /// Registers with the loop and starts reading (on the loop).
    func start() {
        loop.preconditionOnLoop()
        loop.connections[fd] = self
        // After the loop stopped (it cannot while this connection is counted open; a safeguard).
        // Accepted during a drain is served: see `HTTPServer.shutdown`.
        if loop.isStopped {
            close()
            return
        }
        phase.awaitRequest(until: MonotonicClock.millis() + Int64(core.configuration.idleTimeoutMs))
        updateRegistration()
    }

    // MARK: Readiness

    private enum Poll {
        static let readable = UInt32(XIZOR_POLL_IN)
        static let writable = UInt32(XIZOR_POLL_OUT)
        static let failure = UInt32(XIZOR_POLL_ERR | XIZOR_POLL_HUP)
        /// Connections are registered edge-triggered, as nginx's are: epoll reports a socket when
        /// something arrives, not again at every wait while it stays readable, so a wait no longer
        /// polls each of the last batch's sockets once more (about 0.13 µs a request under load,
        /// docs/benchmarks.md). In exchange a read must empty the socket or say it did not:
        /// `onReadable` reads until a read comes back short, and a full one asks the loop to read
        /// again next round (`IOLoop.readAgain`). Changing the registration (`epoll_ctl` MOD/ADD)
        /// reports a socket that is ready already, so a connection that was not reading misses
        /// nothing when it starts again.
        static let edge = UInt32(XIZOR_POLL_EDGE)
    }

    /// Called by the loop with what epoll reported. Errors and hang-ups go to whichever side is
    /// waiting: its read or write sees the condition and closes.
    func handleReadiness(_ events: UInt32) {
        let failed = events & Poll.failure != 0
        if phase.wantsWrite && (failed || events & Poll.writable != 0) { onWritable() }
        if phase.wantsRead && (failed || events & Poll.readable != 0) { onReadable() }
    }

    /// Tells the loop's epoll instance what this connection now waits for (nothing: not watched),
    /// as the phase says: called after every step that may change it.
    func updateRegistration() {
        guard !isClosed else { return }
        let wanted: UInt32
        switch phase.interest {
        case .input: wanted = Poll.readable | Poll.edge
        case .output: wanted = Poll.writable | Poll.edge
        case .nothing: wanted = 0
        }
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

    /// Reads once (edge-triggered registration, see `Poll.edge`). A read that filled the buffer may
    /// have left bytes in the socket, which epoll will not report again: the loop reads this
    /// connection again next round, after the other ready ones, rather than now, so one client
    /// streaming requests cannot hold the loop.
    func onReadable() {
        guard !isClosed else { return }
        let buffer = loop.readBuffer
        let n = xizor_recv(fd, buffer.baseAddress, buffer.count, 0)
        if n > 0 {
            if phase.isLingering {
                if phase.discard(n) > Self.lingerByteCap {
                    close()
                } else if n == buffer.count {
                    loop.readAgain(self)
                }
                return
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if inbox.isEmpty {
                consume(bytes)
            } else {
                inbox.append(contentsOf: bytes)
                processInbox()
            }
            if n == buffer.count && phase.wantsRead && !isClosed { loop.readAgain(self) }
        } else if n == 0 {
            guard phase.isResponding else {
                close()
                return
            }
            // Half-closed by the peer while its response is pending: answer, then close.
            phase.closeAfterResponse()
            updateRegistration()
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
        while offset < bytes.count && phase.isReading {
            let wasIdle = parser.isIdle
            var (consumed, event) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMoreData:
                if parser.isReadingBody {
                    guard chargeBody(upTo: parser.bufferedBodyBytes) else { return }
                    phase.expectBodyRead(by: MonotonicClock.millis() + Int64(core.configuration.bodyReadTimeoutMs))
                } else if wasIdle && !parser.isIdle {
                    phase.beginHead(until: MonotonicClock.millis() + Int64(core.configuration.headerReadTimeoutMs))
                }
            case .headComplete:
                // Routed, admitted and charged to the body budget before a body byte is read or
                // `100 Continue` is sent.
                guard let admitted = admitHead() else { break }
                _ = startBody(of: admitted.request, admitted.resolution, bodyBytesArrived: offset < bytes.count)
            case .request:
                // Moved out of the event: a request still held by it would be shared when `dispatch`
                // first writes to it, which copies its box.
                if let request = event.takeRequest() { dispatch(consume request) }
            case .failure(let error):
                respondToParseError(error)
                return
            }
        }
        if offset < bytes.count && (phase.isReading || phase.isAdmitting || phase.isResponding) {
            inbox.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        if phase.isResponding { updateRegistration() }
    }

    /// After a head whose body is to come was admitted: reads its body (the whole of it due
    /// `bodyDeadlineMs` from now, each read `bodyReadTimeoutMs` after the last), charges the
    /// declared length to the budget and, when the client waits for it and has sent nothing of the
    /// body yet, answers `100 Continue`. Returns whether reading may go on.
    func startBody(of request: HTTPRequest, _ resolution: HTTPResolution, bodyBytesArrived: Bool) -> Bool {
        let now = MonotonicClock.millis()
        phase.readBody(
            ConnectionPhase.Body(
                request: request, resolution: resolution,
                completeBy: now + Int64(core.configuration.bodyDeadlineMs),
                nextReadBy: now + Int64(core.configuration.bodyReadTimeoutMs)))
        guard chargeBody(upTo: parser.declaredBodyLength ?? 0) else { return false }
        if parser.expectsContinue && !bodyBytesArrived { sendInterimContinue() }
        return true
    }

    private func sendInterimContinue() {
        let line: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"
        _ = xizor_send(fd, line.utf8Start, line.utf8CodeUnitCount, Int32(MSG_NOSIGNAL))
    }

    // MARK: The body budget

    /// Makes sure `bytes` body bytes are charged to the budget: a declared length at once, a chunked
    /// body in steps of at least `chunkStep` as it grows (it may run one read past its charge before
    /// this is called). Over the budget: 503 with `Retry-After`, the body unread, the connection
    /// closed. Returns whether reading may go on.
    private func chargeBody(upTo bytes: Int) -> Bool {
        let charged = phase.bodyCharged
        guard bytes > charged else { return true }
        let step = max(bytes - charged, min(Self.chunkStep, core.configuration.maxBodyBytes - charged))
        if core.bodyBudget.reserve(step) {
            phase.charge(step)
            return true
        }
        core.observer?.bodyRefused()
        respondAndClose(
            HTTPError(
                .serviceUnavailable, code: "body_budget_exhausted",
                detail: "The server is receiving too many request bodies; retry shortly."),
            headers: [("Retry-After", "1")])
        return false
    }

    /// How much more a growing (chunked) body is charged at a time.
    private static let chunkStep = 64 * 1024

    /// Refunds the body's charge: its response is being sent (a connection that closes refunds
    /// what its phase held in `close`).
    func refundBody() {
        guard phase.responseCharge > 0 else { return }
        core.bodyBudget.release(phase.takeCharge())
    }

    // MARK: Deadlines and closing

    /// Called by the loop's sweeper: the deadline is the phase's.
    func checkDeadline(now: Int64) {
        guard let deadline = phase.deadline, now >= deadline.at else { return }
        switch deadline.action {
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
        guard requestsServed > 0, phase.isReading && parser.isIdle && inbox.isEmpty else { return }
        var byte: UInt8 = 0
        if xizor_recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)) > 0 { return }
        close()
    }

    func close() {
        guard !isClosed else { return }
        let left = phase.close()
        if left.charged > 0 { core.bodyBudget.release(left.charged) }
        loop.remove(fd)
        left.chunk?.finish(ok: false)
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
    var requestID = RequestID("")
    var status = 0
    var bytes = 0
    var routeIndex = -1
}
