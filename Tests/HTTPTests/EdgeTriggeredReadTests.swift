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
/// busy by another connection's slow inline handler while the client's whole send lands in its
/// socket; the client then sends nothing more and waits for every answer.
@Test func pipelinedBytesBeyondOneReadAreAllAnswered() throws {
    let route: (inout Router) -> Void = { $0.get("/ok", execution: .inline) { _ in .text("ok") } }
    try whileTheLoopIsHeld(route: route) { client, send in
        // About 100 KB: more than one 64 KB read, less than a socket's first receive window, so it
        // is all waiting in the socket when the loop next looks.
        let count = 2_500
        try send(
            String(repeating: "GET /ok HTTP/1.1\r\nHost: t\r\n\r\n", count: count)
                + "GET /ok HTTP/1.1\r\nHost: t\r\nX-Last: 1\r\n\r\n")
        let answers = try client.readResponses(count + 1)
        #expect(answers.count == count + 1 && answers.allSatisfy { $0.status == 200 && $0.body == "ok" })
    }
}

/// A body larger than one read, sent with its head in one write while the loop is busy, is read to
/// its end (the reads after the first come from the loop's next rounds, not from new arrivals).
@Test func aBodyBeyondOneReadIsReadToItsEnd() throws {
    let route: (inout Router) -> Void = {
        $0.post("/ok", execution: .inline) { request in .text(String(request.body.count)) }
    }
    try whileTheLoopIsHeld(route: route) { client, send in
        let length = 100_000
        try send(
            "POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "b", count: length))
        #expect(try client.readResponses(1).map(\.body) == ["\(length)"])
    }
}

/// A one-loop server with `route` and `/slow`, whose inline handler holds the loop for 400 ms. The
/// client first asks for `/ready`, so it is registered with the loop; `body` gets it and a `send`
/// that writes while another connection holds the loop, and returns once that hold has ended. The
/// client's reads time out after 5 s.
private func whileTheLoopIsHeld(
    route: (inout Router) -> Void, _ body: (RawClient, (String) throws -> Void) throws -> Void
) throws {
    var router = Router()
    router.get("/slow", execution: .inline) { _ in
        usleep(400_000)
        return .text("slow")
    }
    router.get("/ready", execution: .inline) { _ in .text("ready") }
    route(&router)
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
    let holder = try RawClient(port: port)
    let client = try RawClient(port: port)
    defer {
        holder.close()
        client.close()
    }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(client.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    client.send("GET /ready HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try client.readResponses(1).map(\.body) == ["ready"])
    try body(client) { (text: String) throws in
        holder.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(50_000)  // the loop is in the handler now
        client.send(text)
        #expect(try holder.readResponses(1).map(\.body) == ["slow"])
    }
}
