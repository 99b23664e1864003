import Dispatch
import Foundation
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Connections are registered edge-triggered: epoll reports a socket when bytes arrive, not again
/// while unread bytes wait. A read that fills the loop's 64 KB buffer must therefore be followed by
/// another, or what stays in the socket is never read.
///
/// To leave more than one read's worth waiting with nothing more to arrive, the loop (one) is kept
/// busy by another connection's slow inline handler while this client's whole pipeline lands in its
/// socket; the client then sends nothing more and waits for every answer.
@Test func pipelinedBytesBeyondOneReadAreAllAnswered() throws {
    var router = Router()
    router.get("/slow", execution: .inline) { _ in
        usleep(400_000)  // holds the only loop while the pipeline below arrives
        return .text("slow")
    }
    router.get("/ok", execution: .inline) { _ in .text("ok") }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 1
    configuration.maxRequestsPerConnection = 10_000
    let server = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try server.start()
    defer {
        let done = DispatchSemaphore(value: 0)
        server.shutdown { done.signal() }
        _ = done.wait(timeout: .now() + 30)
    }

    let blocker = try RawClient(port: port)
    let pipelined = try RawClient(port: port)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(pipelined.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    // Both connected and registered before the loop is held.
    pipelined.send("GET /ok HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try pipelined.readResponses(1).map(\.status) == [200])

    blocker.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
    usleep(50_000)  // the loop is in the handler now
    // About 100 KB: more than one 64 KB read, less than a socket's first receive window, so it is
    // all waiting in the socket when the loop next looks.
    let count = 2_500
    pipelined.send(
        String(repeating: "GET /ok HTTP/1.1\r\nHost: t\r\n\r\n", count: count)
            + "GET /ok HTTP/1.1\r\nHost: t\r\nX-Last: 1\r\n\r\n")
    #expect(try blocker.readResponses(1).map(\.body) == ["slow"])
    let answers = try pipelined.readResponses(count + 1)
    #expect(answers.count == count + 1 && answers.allSatisfy { $0.status == 200 && $0.body == "ok" })
    blocker.close()
    pipelined.close()
}

/// A body larger than one read, sent with its head in one write while the loop is busy, is read to
/// its end (the reads after the first come from the loop's next rounds, not from new arrivals).
@Test func aBodyBeyondOneReadIsReadToItsEnd() throws {
    var router = Router()
    router.get("/slow", execution: .inline) { _ in
        usleep(400_000)
        return .text("slow")
    }
    router.post("/length", execution: .inline) { request in .text(String(request.body.count)) }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 1
    let server = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try server.start()
    defer {
        let done = DispatchSemaphore(value: 0)
        server.shutdown { done.signal() }
        _ = done.wait(timeout: .now() + 30)
    }

    let blocker = try RawClient(port: port)
    let poster = try RawClient(port: port)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(poster.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    poster.send("POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\nx")
    #expect(try poster.readResponses(1).map(\.body) == ["1"])

    blocker.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
    usleep(50_000)
    let length = 100_000
    poster.send(
        "POST /length HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "b", count: length))
    #expect(try blocker.readResponses(1).map(\.body) == ["slow"])
    #expect(try poster.readResponses(1).map(\.body) == ["\(length)"])
    blocker.close()
    poster.close()
}
