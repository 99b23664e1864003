import Dispatch
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The connection's life as an enum: the steps the diagram allows, and what each phase answers.
@Test func connectionPhasesFollowTheDiagram() {
    var phase = ConnectionPhase.reading(.idle(until: 0))
    phase.awaitRequest(until: 100)  // the connection starts
    #expect(phase.isReading && !phase.isResponding && !phase.closesAfterResponse)
    phase.respond(thenClose: false)
    #expect(phase.isResponding && !phase.closesAfterResponse)
    phase.closeAfterResponse()  // the peer half-closed, or a drain began
    #expect(phase.closesAfterResponse)
    phase.closeAfterResponse()  // and it stays so
    #expect(phase.closesAfterResponse)
    phase.linger(until: 200)
    #expect(phase.isLingering && phase.discard(10) == 10 && phase.discard(5) == 15)
    _ = phase.close()
    #expect(phase.isClosed)

    var keepAlive = ConnectionPhase.reading(.idle(until: 0))
    keepAlive.beginHead(until: 100)
    keepAlive.respond(thenClose: false)
    keepAlive.awaitRequest(until: 200)
    #expect(keepAlive.isReading && !keepAlive.isReadingBody)
    _ = keepAlive.close()  // any phase may close
    #expect(keepAlive.isClosed)

    // An admission run off the loop: back to reading a body, or on to the response.
    var admitting = ConnectionPhase.reading(.idle(until: 0))
    admitting.admit(bodyPending: true)
    #expect(admitting.isAdmitting && !admitting.isResponding && !admitting.isReading)
    admitting.readBody(body(completeBy: 100, nextReadBy: 100))
    #expect(admitting.isReadingBody)
    _ = admitting.respondToBody()
    admitting.awaitRequest(until: 200)
    admitting.admit(bodyPending: false)
    admitting.respond(thenClose: true)
    #expect(admitting.closesAfterResponse)
    _ = admitting.close()
    #expect(admitting.isClosed)
}

/// A body being read, for the phase tests.
private func body(completeBy: Int64, nextReadBy: Int64) -> ConnectionPhase.Body {
    ConnectionPhase.Body(
        request: HTTPRequest(method: .POST, target: "/", path: "/", keepAlive: true),
        resolution: HTTPResolution(execution: .inline, handler: { _ in .text("") }),
        completeBy: completeBy, nextReadBy: nextReadBy)
}

/// The deadline, its action and the events waited for are read from the phase: each step brings
/// its own and leaves none behind.
@Test func theDeadlineAndTheEventsWaitedForAreThePhases() {
    func deadline(_ phase: ConnectionPhase) -> [String] {
        phase.deadline.map { ["\($0.at)", "\($0.action)"] } ?? []
    }
    var phase = ConnectionPhase.reading(.idle(until: 0))
    phase.awaitRequest(until: 1_000)
    #expect(deadline(phase) == ["1000", "idle"] && phase.wantsRead && !phase.wantsWrite)
    phase.beginHead(until: 2_000)
    #expect(deadline(phase) == ["2000", "request"] && phase.wantsRead)
    phase.readBody(body(completeBy: 5_000, nextReadBy: 3_000))
    #expect(deadline(phase) == ["3000", "request"])
    phase.expectBodyRead(by: 6_000)  // the whole body's deadline caps the next read's
    #expect(deadline(phase) == ["5000", "request"])
    phase.charge(100)
    phase.charge(50)
    #expect(phase.bodyCharged == 150)

    _ = phase.respondToBody()  // the handler runs: no deadline, no events
    #expect(deadline(phase).isEmpty && !phase.wantsRead && !phase.wantsWrite)
    #expect(phase.takeCharge() == 150 && phase.takeCharge() == 0)  // the charge went along, once
    let bytes = PendingWrite(head: [1, 2, 3], body: [4], written: 1)
    phase.awaitWritable(ConnectionPhase.WaitingWrite(bytes: bytes, then: .finishResponse, until: 7_000))
    #expect(deadline(phase) == ["7000", "write"] && phase.wantsWrite && !phase.wantsRead)
    #expect(phase.waitingWrite?.until == 7_000)
    phase.written()
    #expect(deadline(phase).isEmpty && !phase.wantsWrite && phase.waitingWrite == nil)

    phase.awaitRequest(until: 8_000)
    phase.admit(bodyPending: true)  // no deadline while the admission is away, nothing read
    #expect(deadline(phase).isEmpty && !phase.wantsRead && !phase.wantsWrite)
    phase.readBody(body(completeBy: 9_000, nextReadBy: 9_000))
    phase.charge(64)
    phase.respond(thenClose: true)  // an error mid-body: the head is dropped, the charge kept
    #expect(phase.closesAfterResponse && phase.takeCharge() == 64)
    phase.linger(until: 10_000)
    #expect(deadline(phase) == ["10000", "linger"] && phase.wantsRead)
    _ = phase.close()
    #expect(deadline(phase).isEmpty && !phase.wantsRead && !phase.wantsWrite)

    // Closing gives back what the phase held: a body's charge, a streamed chunk's signal.
    var reading = ConnectionPhase.reading(.idle(until: 0))
    reading.readBody(body(completeBy: 1, nextReadBy: 1))
    reading.charge(32)
    #expect(reading.close().charged == 32)
    var streaming = ConnectionPhase.reading(.idle(until: 0))
    streaming.respond(thenClose: false)
    let signal = StreamSignal()
    streaming.awaitWritable(ConnectionPhase.WaitingWrite(bytes: bytes, then: .streamChunk(signal), until: 1))
    let left = streaming.close()
    #expect(left.chunk === signal && left.charged == 0)
}

/// The library writes with MSG_NOSIGNAL and leaves the process's signal dispositions alone: starting
/// a server keeps SIGPIPE at its default (terminate), and with it there, clients that reset their
/// connection while a large response is being written cost only their connections (a write that
/// raised SIGPIPE would kill this test process).
@Test func aResetPeerDoesNotRaiseSIGPIPE() throws {
    let previous = signal(SIGPIPE, SIG_DFL)
    defer { signal(SIGPIPE, previous) }
    /// SIGPIPE's handler as a number: 0 is SIG_DFL, 1 is SIG_IGN.
    func disposition() -> Int {
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        return current.__sigaction_handler.sa_handler.map { unsafeBitCast($0, to: Int.self) } ?? 0
    }
    let large = [UInt8](repeating: 0x61, count: 8 << 20)
    var router = Router()
    router.get("/large", execution: .inline) { _ in HTTPResponse(body: large, compressible: false) }
    router.get("/small", execution: .inline) { _ in .text("ok") }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    let server = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try server.start()
    #expect(disposition() == 0, "the HTTP library changed the process's SIGPIPE disposition")
    for _ in 0..<5 {
        let client = try RawClient(port: port)
        client.send("GET /large HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(20_000)  // the server has written what the socket buffers take and waits to write more
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        client.close()  // RST: the server's next write fails with EPIPE/ECONNRESET
    }
    usleep(200_000)
    let after = try RawClient(port: port)
    defer { after.close() }
    after.send("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try after.readResponses(1).map(\.status) == [200])
    let done = DispatchSemaphore(value: 0)
    server.shutdown { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)
}
