#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@preconcurrency import Dispatch
import CSystem
import Foundation

/// One accepted socket: reads, parses, dispatches, writes, and enforces deadlines. All state is
/// touched only on `queue`, a serial queue targeting the connection's `IOLoop` queue, or on that
/// loop queue itself (readiness and sweeps run there), which excludes the connection's queue.
final class Connection: @unchecked Sendable {
    private enum DeadlineAction { case none, idle, request, write, linger }

    /// What to do once the pending bytes are on the wire.
    private enum AfterWrite {
        case nothing
        case finishResponse
        case streamChunk(StreamSignal)
        case lingeringClose
    }

    let fd: Int32
    let queue: DispatchQueue
    private let core: ServerCore
    private let loop: IOLoop
    private let remoteAddress: String
    /// What the connection waits for; `registered` is what the loop's epoll instance was told.
    private var wantsRead = true
    private var wantsWrite = false
    private var registered: UInt32 = 0

    private var parser: HTTPRequestParser
    private var inbox: [UInt8] = []
    private var out: [UInt8] = []

    private var pendingHead: [UInt8] = []
    private var pendingHeadOffset = 0
    private var pendingBody: [UInt8] = []
    private var pendingBodyOffset = 0
    private var afterWrite: AfterWrite = .nothing
    /// The request whose head was admitted while its body is still being read, with its route.
    private var admitted: (request: HTTPRequest, resolution: HTTPResolution)?

    /// A request is being handled or its response written; parsing waits.
    private var awaitingResponse = false
    private var closeAfterResponse = false
    private var peerClosed = false
    private var lingering = false
    private(set) var closed = false
    private var requestsServed = 0

    private var deadline: Int64 = 0
    private var deadlineAction: DeadlineAction = .none

    // Access-log facts of the in-flight exchange.
    private var startMicros: Int64 = 0
    private var logMethod: HTTPMethod = .GET
    private var logPath = ""
    private var logRequestId = ""
    private var logStatus = 0
    private var logBytes = 0
    private var logRouteIndex = -1

    init(fd: Int32, remoteAddress: String, core: ServerCore, loop: IOLoop) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.core = core
        self.loop = loop
        self.queue = DispatchQueue(label: "xizor.http.connection", target: loop.queue)
        self.parser = HTTPRequestParser(limits: core.configuration.parserLimits)
        out.reserveCapacity(512)
    }

    /// Registers with the loop and starts reading (on `queue`).
    func start() {
        loop.connections[fd] = self
        // Accepted just as a drain began (or after the loop stopped): nothing was read yet, so
        // this is a clean refusal.
        if core.drainState.isDraining || loop.isStopped { close(); return }
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
        if wantsRead && !closed && (failed || events & Poll.readable != 0) { onReadable() }
    }

    /// Tells the loop's epoll instance what this connection now waits for (nothing: not watched).
    private func updateRegistration() {
        guard !closed else { return }
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
        guard !closed else { return }
        let buffer = loop.readBuffer
        let n = recv(fd, buffer.baseAddress, buffer.count, 0)
        if n > 0 {
            if lingering {
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
            if lingering || !awaitingResponse { close(); return }
            peerClosed = true
            pauseReading()
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            close()
        }
    }

    private func processInbox() {
        guard !inbox.isEmpty else { return }
        let data = inbox
        inbox = []
        data.withUnsafeBytes { consume($0) }
    }

    /// Parses as many requests as `bytes` holds, one at a time; keeps the rest when a response
    /// is outstanding.
    private func consume(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count && !closed && !awaitingResponse && !lingering {
            let wasIdle = parser.isIdle
            let (consumed, event) = parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            offset += consumed
            switch event {
            case .needMoreData:
                if parser.isReadingBody {
                    setDeadline(.request, core.configuration.bodyReadTimeoutMs)
                } else if wasIdle && !parser.isIdle {
                    setDeadline(.request, core.configuration.headerReadTimeoutMs)
                }
            case .headComplete:
                // Routed and admitted before a body byte is read or `100 Continue` is sent.
                guard admitHead() else { break }
                setDeadline(.request, core.configuration.bodyReadTimeoutMs)
                if parser.expectsContinue && offset == bytes.count {
                    sendInterimContinue()
                }
            case .request(let request):
                dispatch(request)
            case .failure(let error):
                respondToParseError(error)
                return
            }
        }
        if offset < bytes.count && !closed && !lingering {
            inbox.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        if awaitingResponse { pauseReading() }
    }

    private func pauseReading() {
        wantsRead = false
        updateRegistration()
    }

    private func resumeReading() {
        wantsRead = true
        updateRegistration()
    }

    private func sendInterimContinue() {
        let line: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"
        _ = write(fd, line.utf8Start, line.utf8CodeUnitCount)
    }

    // MARK: Dispatching

    /// What routing a request decided: the resolution to run, or the answer to give at once.
    private enum Routing {
        case run(HTTPResolution)
        case answer(HTTPResponse)
    }

    /// Fills in what the server knows of a request (peer, request id) and starts its clock.
    private func prepare(_ request: inout HTTPRequest) {
        request.remoteAddress = remoteAddress
        request.requestId = RequestID.fromClient(request.headers) ?? RequestID.generate()
        if core.timesResponses { startMicros = loop.inRound ? loop.roundStartMicros : MonotonicClock.micros() }
    }

    /// Finds the route and applies its admission. With `bodyPending`, answers that never need the
    /// body (404, 405, OPTIONS) are given now rather than after reading it.
    private func route(_ request: inout HTTPRequest, bodyPending: Bool) -> Routing {
        if case .other = request.method {
            return .answer(HTTPError(.notImplemented, code: "method_not_implemented",
                                     detail: "The method \(request.method) is not implemented.").response)
        }
        let resolution = core.responder.resolve(&request)
        if bodyPending && !resolution.needsBody { return .answer(core.run(resolution.handler, request)) }
        if let admission = resolution.admission {
            do {
                try admission(&request)
            } catch {
                let refusal = resolution.refusal
                return .answer(core.run({ request in
                    guard let refusal else { throw error }
                    return try refusal(request, error)
                }, request))
            }
        }
        return .run(resolution)
    }

    /// For a head whose body is still to come: routes and admits it, keeping both for `dispatch`.
    /// A refusal (or a 404/405/501) is answered with the body unread and the connection closed
    /// after the answer, since the body's bytes would otherwise be read as the next request.
    /// Returns whether to go on reading the body.
    private func admitHead() -> Bool {
        guard var request = parser.headOfPendingRequest else {
            preconditionFailure("the parser reported a complete head without its request")
        }
        prepare(&request)
        switch route(&request, bodyPending: true) {
        case .run(let resolution):
            admitted = (request, resolution)
            return true
        case .answer(let response):
            awaitingResponse = true
            closeAfterResponse = true
            pauseReading()
            send(response, for: request)
            return false
        }
    }

    private func dispatch(_ parsed: HTTPRequest) {
        awaitingResponse = true
        deadlineAction = .none
        var request: HTTPRequest
        let resolution: HTTPResolution
        if let admitted {
            self.admitted = nil
            request = admitted.request
            request.body = parsed.body
            resolution = admitted.resolution
        } else {
            request = parsed
            prepare(&request)
            switch route(&request, bodyPending: false) {
            case .run(let found):
                resolution = found
            case .answer(let response):
                send(response, for: request)
                return
            }
        }
        switch resolution.execution {
        case .inline:
            send(core.run(resolution.handler, request), for: request)
        case .offloaded:
            let core = self.core
            let request = request
            core.handlerPool.submit { [self] in
                let response = core.run(resolution.handler, request)
                self.queue.async { self.send(response, for: request) }
            }
        }
    }

    private func respondToParseError(_ error: HTTPParseError) {
        awaitingResponse = true
        closeAfterResponse = true
        pauseReading()
        let problem = HTTPError(error.status, code: error.code, detail: "The request was rejected: \(error.code).")
        var request = HTTPRequest(method: .other("-"), target: "", path: "", keepAlive: false)
        request.requestId = RequestID.generate()
        if core.timesResponses { startMicros = MonotonicClock.micros() }
        send(problem.response, for: request)
    }

    private func respondToTimeout() {
        guard !awaitingResponse else { return }
        awaitingResponse = true
        closeAfterResponse = true
        pauseReading()
        let problem = HTTPError(.requestTimeout, code: "request_timeout",
                                detail: "The request was not received in time.")
        var request = HTTPRequest(method: .other("-"), target: "", path: "", keepAlive: false)
        request.requestId = RequestID.generate()
        if core.timesResponses { startMicros = MonotonicClock.micros() }
        send(problem.response, for: request)
    }

    // MARK: Responding

    /// Serializes the response head into the reusable buffer, picks the representation, applies
    /// conditional GET, and writes head and body with one `sendmsg`.
    private func send(_ original: HTTPResponse, for request: HTTPRequest) {
        guard !closed else { return }
        let config = core.configuration
        requestsServed += 1
        let keepAlive = request.keepAlive && !closeAfterResponse && !core.drainState.isDraining
            && requestsServed < config.maxRequestsPerConnection && !peerClosed
        if !keepAlive { closeAfterResponse = true }
        var response = original
        var status = response.status
        let isHead = request.method == .HEAD

        // Representation selection.
        var body: [UInt8] = []
        var etag = response.etag ?? response.headers["ETag"]
        if let tag = etag, !EntityTag.isQuoted(tag) {
            etag = "\"" + tag + "\""  // a handler forgot the quotes
        }
        var gzipped = false
        var addVary = false
        if case .bytes(let identity) = response.body {
            body = identity
            if !status.forbidsBody && response.headers["Content-Encoding"] == nil && response.prepared?.hasContentEncoding != true {
                let eligible = response.gzip != nil
                    || (response.compressible && identity.count >= config.gzipMinBytes
                        && ContentNegotiation.isCompressible(contentType: response.headers["Content-Type"] ?? response.prepared?.contentType))
                if eligible {
                    addVary = true
                    let preference = ContentNegotiation.encodingPreference(request.headers)
                    if preference.gzipAllowed {
                        if let precomputed = response.gzip {
                            body = precomputed.body
                            etag = precomputed.etag ?? etag.map(HTTPResponse.gzipETag)
                            gzipped = true
                        } else if let compressed = Gzip.compress(identity, level: Int32(config.gzipLevel)),
                                  compressed.count < identity.count || preference.identityForbidden {
                            body = compressed
                            etag = etag.map(HTTPResponse.gzipETag)
                            gzipped = true
                        }
                    }
                }
            }
        }

        // Conditional GET (strong validators only; comparison itself is weak).
        var notModified = false
        if let tag = etag, (200..<300).contains(status.code), !EntityTag.isWeak(tag),
           let matched = ContentNegotiation.ifNoneMatch(request.headers, etag: tag), matched {
            if request.method.isSafeRead {
                notModified = true
                status = .notModified
            } else {
                response = HTTPError(.preconditionFailed, code: "precondition_failed",
                                     detail: "If-None-Match matched the current representation.").response
                status = .preconditionFailed
                body = []
                if case .bytes(let b) = response.body { body = b }
                etag = nil
                addVary = false
                gzipped = false
            }
        }

        let prepared = response.prepared
        let ownVary = response.headers.contains("Vary")

        loop.date.refresh()
        // Written into a local buffer (taken from and handed back to `out`, keeping its capacity):
        // appending to the property checked exclusive access at every piece.
        var head: [UInt8] = []
        swap(&head, &out)
        head.removeAll(keepingCapacity: true)
        head.appendStatusLine(status)
        head.append(contentsOf: loop.date.line)
        if let prepared {
            if response.headers.isEmpty {
                head.append(contentsOf: notModified ? prepared.notModifiedLines : prepared.lines)
            } else {
                // A field set on the response replaces the prepared one of the same name.
                for field in prepared.headers.fields where !ReservedHeader.isReserved(field.name)
                    && !response.headers.contains(field.name) {
                    if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
                    head.append(field: field.name, field.value)
                }
            }
        }
        for field in response.headers.fields where !ReservedHeader.isReserved(field.name) {
            if notModified && !ReservedHeader.keptOnNotModified(field.name) { continue }
            head.append(field: field.name, field.value)
        }
        if let tag = etag {
            head.append(literal: "ETag: ")
            head.append(fieldText: tag)
            head.append(literal: "\r\n")
        }
        if let prepared, !ownVary {
            head.append(contentsOf: addVary ? prepared.varyLineWithAcceptEncoding : prepared.varyLine)
        } else {
            let vary = Vary.merged(response.headers, into: prepared?.vary)
            if let vary = addVary ? Vary.addingAcceptEncoding(vary) : vary { head.append(field: "Vary", vary) }
        }
        if gzipped && !notModified { head.append(literal: "Content-Encoding: gzip\r\n") }
        head.append(literal: "X-Request-Id: ")
        head.append(fieldText: request.requestId)
        head.append(literal: "\r\n")

        var stream: (@Sendable (HTTPBodyWriter) throws -> Void)?
        var chunked = false
        if notModified || status.forbidsBody {
            body = []
        } else if case .stream(let producer) = response.body {
            if request.version.minor >= 1 {
                chunked = true
                head.append(literal: "Transfer-Encoding: chunked\r\n")
            } else {
                closeAfterResponse = true
            }
            if !isHead { stream = producer }
        } else {
            head.append(literal: "Content-Length: ")
            head.append(decimal: body.count)
            head.append(literal: "\r\n")
        }
        if closeAfterResponse {
            head.append(literal: "Connection: close\r\n")
        } else if request.version.minor == 0 {
            head.append(literal: "Connection: keep-alive\r\n")
        }
        head.append(literal: "\r\n")
        swap(&head, &out)
        if isHead { body = [] }

        logMethod = request.method
        logPath = request.path
        logRequestId = request.requestId
        logStatus = status.code
        logBytes = body.count
        logRouteIndex = request.routeIndex

        if let stream {
            writeOut(body: [], then: .nothing)
            startStream(stream, chunked: chunked)
        } else {
            writeOut(body: body, then: .finishResponse)
        }
    }

    /// Writes `out` + `body`; completes synchronously when the socket takes everything.
    private func writeOut(body: [UInt8], then completion: AfterWrite) {
        let headCount = out.count
        let total = headCount + body.count
        let written: Int = out.withUnsafeBytes { head in
            body.withUnsafeBytes { b in
                var iov = (iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress), iov_len: head.count),
                           iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress), iov_len: b.count))
                return withUnsafePointer(to: &iov) { p in
                    p.withMemoryRebound(to: iovec.self, capacity: 2) { transmit($0, b.count > 0 ? 2 : 1) }
                }
            }
        }
        if written == total {
            complete(completion)
            return
        }
        if written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            if case .streamChunk(let signal) = completion { signal.finish(ok: false) }
            close()
            return
        }
        let done = max(written, 0)
        if done < headCount {
            pendingHead = Array(out[done...])
            pendingBody = body
            pendingBodyOffset = 0
        } else {
            pendingHead = []
            pendingBody = body
            pendingBodyOffset = done - headCount
        }
        pendingHeadOffset = 0
        afterWrite = completion
        setDeadline(.write, core.configuration.writeTimeoutMs)
        waitUntilWritable()
    }

    /// `sendmsg` rather than `writev`: the socket call skips the file layer (`recv` likewise for
    /// reads), and MSG_NOSIGNAL keeps a closed peer from raising SIGPIPE.
    private func transmit(_ iov: UnsafePointer<iovec>, _ count: Int) -> Int {
        var message = msghdr()
        message.msg_iov = UnsafeMutablePointer(mutating: iov)
        message.msg_iovlen = count
        return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
    }

    private func waitUntilWritable() {
        wantsWrite = true
        updateRegistration()
    }

    private func onWritable() {
        guard !closed else { return }
        let headLeft = pendingHead.count - pendingHeadOffset
        let bodyLeft = pendingBody.count - pendingBodyOffset
        let written: Int = pendingHead.withUnsafeBytes { head in
            pendingBody.withUnsafeBytes { b in
                var iov = (iovec(iov_base: UnsafeMutableRawPointer(mutating: head.baseAddress.map { $0 + pendingHeadOffset }),
                                 iov_len: headLeft),
                           iovec(iov_base: UnsafeMutableRawPointer(mutating: b.baseAddress.map { $0 + pendingBodyOffset }),
                                 iov_len: bodyLeft))
                return withUnsafePointer(to: &iov) { p in
                    p.withMemoryRebound(to: iovec.self, capacity: 2) { transmit($0, 2) }
                }
            }
        }
        if written < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
            close()
            return
        }
        let fromHead = min(written, headLeft)
        pendingHeadOffset += fromHead
        pendingBodyOffset += written - fromHead
        setDeadline(.write, core.configuration.writeTimeoutMs)
        if pendingHeadOffset == pendingHead.count && pendingBodyOffset == pendingBody.count {
            pendingHead = []
            pendingBody = []
            wantsWrite = false
            updateRegistration()
            let completion = afterWrite
            afterWrite = .nothing
            complete(completion)
        }
    }

    private func complete(_ completion: AfterWrite) {
        switch completion {
        case .nothing:
            break
        case .finishResponse:
            finishResponse()
        case .streamChunk(let signal):
            deadlineAction = .none
            signal.finish(ok: true)
        case .lingeringClose:
            beginLingeringClose()
        }
    }

    /// After a response is fully written: log it, then close or go back to reading.
    private func finishResponse() {
        if core.timesResponses {
            let micros = MonotonicClock.micros() - startMicros
            if core.configuration.accessLog {
                core.logAccess(method: logMethod, path: logPath, status: logStatus, bytes: logBytes,
                               micros: micros, requestId: logRequestId, remote: remoteAddress)
            }
            core.observer?.responseCompleted(HTTPExchange(method: logMethod, routeIndex: logRouteIndex, status: logStatus,
                                                          bytes: logBytes, micros: micros))
        }
        awaitingResponse = false
        if closeAfterResponse {
            if logStatus >= 400 || !inbox.isEmpty || !parser.isIdle {
                beginLingeringClose()
            } else {
                close()
            }
            return
        }
        setDeadline(.idle, core.configuration.idleTimeoutMs)
        processInbox()
        if closed { return }
        if peerClosed && !awaitingResponse { close(); return }
        if !awaitingResponse { resumeReading() }
    }

    /// Half-closes after an error answer and discards what the client still sends for a short
    /// while, so the answer is not destroyed by a reset (unread data at close sends RST).
    private func beginLingeringClose() {
        lingering = true
        shutdown(fd, Int32(SHUT_WR))
        inbox = []
        setDeadline(.linger, 2000)
        resumeReading()
    }

    // MARK: Streaming

    private func startStream(_ producer: @escaping @Sendable (HTTPBodyWriter) throws -> Void, chunked: Bool) {
        let writer = ConnectionBodyWriter(connection: self, chunked: chunked,
                                          timeoutMs: core.configuration.writeTimeoutMs)
        core.streamPool.submit { [self] in
            do {
                try producer(writer)
                self.queue.async { self.finishStream(chunked: chunked) }
            } catch {
                self.queue.async { self.close() }
            }
        }
    }

    /// Called on `queue` by the writer: sends one chunk and signals when it is on the wire.
    func writeStreamChunk(_ bytes: [UInt8], signal: StreamSignal) {
        guard !closed else { signal.finish(ok: false); return }
        out.removeAll(keepingCapacity: true)
        logBytes += bytes.count
        writeOut(body: bytes, then: .streamChunk(signal))
    }

    private func finishStream(chunked: Bool) {
        guard !closed else { return }
        out.removeAll(keepingCapacity: true)
        if chunked { out.append(literal: "0\r\n\r\n") }
        writeOut(body: [], then: .finishResponse)
    }

    // MARK: Deadlines and closing

    private func setDeadline(_ action: DeadlineAction, _ ms: Int) {
        deadlineAction = action
        deadline = MonotonicClock.millis() + Int64(ms)
    }

    /// Called by the loop's sweeper.
    func checkDeadline(now: Int64) {
        guard !closed, deadlineAction != .none, now >= deadline else { return }
        switch deadlineAction {
        case .none:
            break
        case .idle, .write, .linger:
            close()
        case .request:
            respondToTimeout()
        }
    }

    /// Closes the connection if it is between requests (drain).
    func closeIfIdle() {
        if !awaitingResponse && parser.isIdle && inbox.isEmpty { close() }
    }

    func close() {
        guard !closed else { return }
        closed = true
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
