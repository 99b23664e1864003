import Dispatch
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The connection's life as an enum: the steps the diagram allows, and what each phase answers.
@Test func connectionPhasesFollowTheDiagram() {
    var phase = ConnectionPhase.reading
    #expect(!phase.isResponding && !phase.closesAfterResponse)
    phase.transition(to: .responding(thenClose: false))
    #expect(phase.isResponding && !phase.closesAfterResponse)
    phase.transition(to: .responding(thenClose: true))  // the peer half-closed, or a drain began
    #expect(phase.closesAfterResponse)
    phase.transition(to: .lingering)
    phase.transition(to: .closed)
    #expect(phase == .closed)

    var keepAlive = ConnectionPhase.reading
    keepAlive.transition(to: .responding(thenClose: false))
    keepAlive.transition(to: .reading)
    keepAlive.transition(to: .closed)  // any phase may close
    #expect(keepAlive == .closed)

    // An admission run off the loop: back to reading a body, or on to the response.
    var admitting = ConnectionPhase.reading
    admitting.transition(to: .admitting)
    #expect(!admitting.isResponding && admitting != .reading)
    admitting.transition(to: .reading)
    admitting.transition(to: .admitting)
    admitting.transition(to: .responding(thenClose: true))
    #expect(admitting.closesAfterResponse)
    admitting.transition(to: .closed)
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
