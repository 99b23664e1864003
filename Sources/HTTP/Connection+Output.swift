import CSystem
@preconcurrency import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing: a response is assembled by the pure `ResponseAssembly`, written with one `sendmsg`,
/// and what the socket did not take waits in the phase (`ConnectionPhase.WaitingWrite`) until it
/// is writable.
extension Connection {
    /// Sends `original` as the answer to `request`, then (once on the wire) finishes the exchange.
    func send(_ original: HTTPResponse, for request: HTTPRequest) {
        guard !isClosed else { return }
        precondition(phase.isResponding, "a response is sent only while responding")
        refundBody()
        let config = core.configuration
        requestsServed += 1
        let keepAlive =
            request.keepAlive && !phase.closesAfterResponse && !core.drainState.isDraining
            && requestsServed < config.maxRequestsPerConnection
        loop.date.refresh()
        // Into `out` in place: through a local copy of the reference it was retained and released
        // per response.
        let assembled = ResponseAssembly(
            original, for: request, closeAfter: !keepAlive,
            settings: ResponseAssembly.Settings(gzipMinBytes: config.gzipMinBytes, gzipLevel: Int32(config.gzipLevel)),
            dateLine: loop.date.line, into: &out)
        if assembled.closeAfter { phase.closeAfterResponse() }

        exchange.method = request.method
        // Only the access log writes the path: without it, no String is made of it.
        if core.accessLog != nil { exchange.path = request.loggedPath }
        exchange.requestID = request.requestID
        exchange.status = assembled.status.code
        exchange.routeIndex = request.routeIndex
        switch assembled.payload {
        case .bytes(let body):
            exchange.bytes = body.count
            writeOut(body: body, then: .finishResponse)
        case .stream(let producer, let chunked, let gzip):
            exchange.bytes = 0
            writeOut(body: [], then: .nothing)
            startStream(producer, chunked: chunked, gzip: gzip)
        }
    }

    /// Writes `out` + `body`; completes synchronously when the socket takes everything.
    func writeOut(body: [UInt8], then completion: AfterWrite) {
        let total = out.count + body.count
        let head = out.bytes
        let written: Int = body.withUnsafeBytes { b in transmit(head, b) }
        if written == total {
            complete(completion)
            return
        }
        if written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            if case .streamChunk(let signal) = completion { signal.finish(ok: false) }
            close()
            return
        }
        phase.awaitWritable(
            ConnectionPhase.WaitingWrite(
                bytes: PendingWrite(head: out.array, body: body, written: max(written, 0)), then: completion,
                until: MonotonicClock.millis() + Int64(core.configuration.writeTimeoutMs)))
        updateRegistration()
    }

    /// Socket calls rather than `writev`: they skip the file layer (`recv` likewise for reads), and
    /// MSG_NOSIGNAL keeps a closed peer from raising SIGPIPE — the library never changes the
    /// process's signal dispositions. One piece (a 304's head, or what is left of a body) goes by
    /// `send`, which spares the kernel copying in a message header and an iovec array: about 0.2 µs
    /// of ~6 per loopback round trip here (docs/benchmarks.md); head and body go by one `sendmsg`.
    /// All as system calls without glibc's cancellation bookkeeping (`xizor_send`, CSystem.h).
    func transmit(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Int {
        if body.isEmpty { return xizor_send(fd, head.baseAddress, head.count, Int32(MSG_NOSIGNAL)) }
        if head.isEmpty { return xizor_send(fd, body.baseAddress, body.count, Int32(MSG_NOSIGNAL)) }
        var iov = (
            iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: body.baseAddress), iov_len: body.count)
        )
        return withUnsafeMutablePointer(to: &iov) { p in
            p.withMemoryRebound(to: iovec.self, capacity: 2) { vectors in
                var message = msghdr()
                message.msg_iov = vectors
                message.msg_iovlen = 2
                return xizor_sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// Writes more of the waiting bytes; each progress moves the write deadline, and once all are
    /// on the wire the write stops waiting (and its deadline with it) before its completion runs.
    func onWritable() {
        guard var write = phase.waitingWrite else { return }
        let written = write.bytes.withRemaining { head, body in transmit(head, body) }
        if written < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            close()
            return
        }
        write.bytes.advance(by: written)
        guard write.bytes.isDone else {
            write.until = MonotonicClock.millis() + Int64(core.configuration.writeTimeoutMs)
            phase.awaitWritable(write)
            return
        }
        let completion = write.then
        _ = consume write
        phase.written()
        updateRegistration()
        complete(completion)
    }

    func complete(_ completion: AfterWrite) {
        switch completion {
        case .nothing:
            break
        case .finishResponse:
            finishResponse()
        case .streamChunk(let signal):
            signal.finish(ok: true)
        }
    }

    /// After a response is fully written: log it, then close or go back to reading.
    func finishResponse() {
        if core.timesResponses {
            let micros = MonotonicClock.micros() - exchange.startMicros
            core.accessLog?.append(
                loop: loop.index, method: exchange.method, path: exchange.path, status: exchange.status,
                bytes: exchange.bytes, micros: micros, requestId: exchange.requestID.text, remote: remoteAddress)
            core.responseCompleted(
                HTTPExchange(
                    method: exchange.method, routeIndex: exchange.routeIndex,
                    status: exchange.status, bytes: exchange.bytes, micros: micros, loop: loop.index))
        }
        if phase.closesAfterResponse {
            if exchange.status >= 400 || !inbox.isEmpty || !parser.isIdle {
                beginLingeringClose()
            } else {
                close()
            }
            return
        }
        phase.awaitRequest(until: MonotonicClock.millis() + Int64(core.configuration.idleTimeoutMs))
        processInbox()
        if phase.isReading { updateRegistration() }
    }

    /// Half-closes after an error answer and discards what the client still sends for a short
    /// while, so the answer is not destroyed by a reset (unread data at close sends RST) — at most
    /// `lingerByteCap` bytes: a client that keeps sending a body nobody will read (an anonymous
    /// client announcing megabytes, refused 401 before its first body byte) would otherwise make
    /// the server copy all of it, and hundreds of them a core's worth (docs/benchmarks.md).
    func beginLingeringClose() {
        phase.linger(until: MonotonicClock.millis() + 2000)
        shutdown(fd, Int32(SHUT_WR))
        inbox = []
        updateRegistration()
    }

    /// The most a lingering close discards before it closes anyway: more than a typical refused
    /// body still in flight (an events batch), far less than `http.maxBodyBytes`.
    static let lingerByteCap = 256 * 1024

    // MARK: Streaming

    func startStream(_ producer: @escaping @Sendable (HTTPBodyWriter) throws -> Void, chunked: Bool, gzip: GzipStream?)
    {
        let writer = ConnectionBodyWriter(
            connection: self, chunked: chunked,
            timeoutMs: core.configuration.writeTimeoutMs)
        core.streamPool.submit { [self] in
            do {
                if let gzip {
                    try producer(GzipBodyWriter(inner: writer, gzip: gzip))
                    try writer.write(gzip.finish())
                } else {
                    try producer(writer)
                }
                self.loop.execute { self.finishStream(chunked: chunked) }
            } catch {
                self.loop.execute { self.close() }
            }
        }
    }

    /// Called on the loop by the writer: sends one chunk and signals when it is on the wire.
    func writeStreamChunk(_ bytes: [UInt8], signal: StreamSignal) {
        loop.preconditionOnLoop()
        guard !isClosed else {
            signal.finish(ok: false)
            return
        }
        out.removeAllBytes()
        exchange.bytes += bytes.count
        writeOut(body: bytes, then: .streamChunk(signal))
    }

    private func finishStream(chunked: Bool) {
        guard !isClosed else { return }
        out.removeAllBytes()
        if chunked { out.append(literal: "0\r\n\r\n") }
        writeOut(body: [], then: .finishResponse)
    }
}

/// The part of a response the socket has not taken yet: the head's and the body's remaining bytes.
struct PendingWrite {
    private var head: [UInt8]
    private var body: [UInt8]
    private var headOffset = 0
    private var bodyOffset = 0

    /// `written` bytes of `head` + `body` are already on the wire.
    init(head: [UInt8], body: [UInt8], written: Int) {
        precondition(written >= 0 && written <= head.count + body.count, "wrote more than the response")
        self.head = head
        self.body = body
        advance(by: written)
    }

    var isDone: Bool { headOffset == head.count && bodyOffset == body.count }

    /// Calls `write` with what is left of the head and of the body.
    func withRemaining<R>(_ write: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        head.withUnsafeBytes { h in
            body.withUnsafeBytes { b in
                write(
                    UnsafeRawBufferPointer(rebasing: h[headOffset...]),
                    UnsafeRawBufferPointer(rebasing: b[bodyOffset...]))
            }
        }
    }

    /// Records `count` more bytes as written (the head's first).
    mutating func advance(by count: Int) {
        let fromHead = min(count, head.count - headOffset)
        headOffset += fromHead
        bodyOffset += count - fromHead
        precondition(bodyOffset <= body.count, "wrote past the end of the response")
    }
}
