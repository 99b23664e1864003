import Dispatch
import Foundation
import Synchronization
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking loopback client speaking raw bytes, so the server is tested through a real socket.
struct RawClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw ClientError.connect(errno) }
    }

    enum ClientError: Error { case connect(Int32), closed }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Reads until `count` complete Content-Length-framed responses have arrived.
    func readResponses(_ count: Int) throws -> [(status: Int, head: String, body: String)] {
        var buffer: [UInt8] = []
        var out: [(Int, String, String)] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count < count {
            if let parsed = Self.parseOne(&buffer) {
                out.append(parsed)
                continue
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw ClientError.closed }
            buffer += chunk[0..<n]
        }
        return out
    }

    private static func parseOne(_ buffer: inout [UInt8]) -> (Int, String, String)? {
        let marker: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4,
            let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == marker })
        else {
            return nil
        }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: " ")) } ?? 0
        guard buffer.count >= end + 4 + length else { return nil }
        let body = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        buffer.removeFirst(end + 4 + length)
        let status = Int(head.split(separator: " ")[1]) ?? 0
        return (status, head, body)
    }

    func close() { _ = Glibc.close(fd) }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

@Test func serverAnswersInlineOffloadedAndFailingRoutesThenDrains() throws {
    var router = Router()
    router.get("/inline", execution: .inline) { _ in .text("inline") }
    router.post("/upper") { request in .text(String(decoding: request.body, as: UTF8.self).uppercased()) }
    router.get("/fail") { _ in throw CancellationError() }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 2
    let drain = DrainState()
    let server = HTTPServer(
        configuration: configuration, responder: router.build(),
        logger: Logger(minimumLevel: .error, sink: { _ in }), drainState: drain)
    let port = try server.start()
    #expect(port > 0)

    let client = try RawClient(port: port)
    client.send(
        "GET /inline HTTP/1.1\r\nHost: t\r\n\r\n"
            + "POST /upper HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"
            + "GET /fail HTTP/1.1\r\nHost: t\r\n\r\n")
    let responses = try client.readResponses(3)
    #expect(responses.map(\.status) == [200, 200, 500])
    #expect(responses[0].body == "inline")
    #expect(responses[1].body == "HELLO")
    #expect(responses[2].body.contains("\"code\":\"internal_error\""))
    #expect(responses[2].head.contains("Content-Type: application/problem+json"))
    #expect(server.openConnections == 1)

    let done = DispatchSemaphore(value: 0)
    server.shutdown { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(drain.isDraining && server.isDraining)
    #expect(server.openConnections == 0)
    #expect(throws: RawClient.ClientError.self) { _ = try RawClient(port: port) }
    client.close()
}

/// Prepared fields go out as serialised once, the 304 keeps only its repeatable ones, a field set
/// on the response replaces the prepared one of that name, and every `Vary` is merged once each.
@Test func preparedHeadersAreWrittenOverriddenAndMergedOverASocket() throws {
    let prepared = PreparedHeaders([
        "Content-Type": "application/json", "Cache-Control": "no-cache",
        "Content-Language": "de", "Vary": "Accept, Accept-Language",
    ])
    let body = Array(String(repeating: "{\"k\":1}", count: 200).utf8)
    var router = Router()
    router.get("/plain", execution: .inline) { _ in HTTPResponse(body: body, etag: "\"t1\"", prepared: prepared) }
    router.get("/override", execution: .inline) { _ in
        HTTPResponse(
            headers: ["Cache-Control": "no-store", "Vary": "origin, Accept"], body: body, etag: "\"t1\"",
            prepared: prepared)
    }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    let server = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try server.start()
    let client = try RawClient(port: port)
    defer { client.close() }
    func fields(_ head: String, _ name: String) -> [String] {
        head.split(separator: "\r\n").filter { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: " ") }
    }
    client.send(
        "GET /plain HTTP/1.1\r\nHost: t\r\nAccept-Encoding: identity\r\n\r\n"
            + "GET /plain HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"t1\"\r\n\r\n"
            + "GET /override HTTP/1.1\r\nHost: t\r\n\r\n")
    let r = try client.readResponses(3)
    #expect(r[0].status == 200 && r[0].body.utf8.count == body.count)
    #expect(
        fields(r[0].head, "Content-Type") == ["application/json"] && fields(r[0].head, "Content-Language") == ["de"])
    #expect(fields(r[0].head, "Vary") == ["Accept, Accept-Language, Accept-Encoding"])
    #expect(r[1].status == 304 && r[1].body.isEmpty)
    #expect(fields(r[1].head, "Cache-Control") == ["no-cache"] && fields(r[1].head, "ETag") == ["\"t1\""])
    #expect(fields(r[1].head, "Content-Type").isEmpty && fields(r[1].head, "Content-Language").isEmpty)
    #expect(fields(r[2].head, "Cache-Control") == ["no-store"])
    #expect(fields(r[2].head, "Content-Language") == ["de"])
    #expect(fields(r[2].head, "Vary") == ["Accept, Accept-Language, origin, Accept-Encoding"])
}

/// Each I/O loop polls on a thread of its own (named `xizor.loop.N`); a shutdown wakes it from
/// `epoll_wait` and it ends, so servers started and stopped in one process leave no threads behind.
@Test func eachLoopPollsOnItsOwnThreadWhichEndsWithTheServer() throws {
    var router = Router()
    router.get("/ok") { _ in .text("ok") }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 2
    let server = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try server.start()
    let client = try RawClient(port: port)
    client.send("GET /ok HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(try client.readResponses(1).map(\.status) == [200])
    client.close()

    /// A thread's name, or nil once it has ended.
    func comm(_ tid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }
    func waitFor(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { usleep(10_000) }
        return condition()
    }
    #expect(server.loops.count == 2)
    #expect(waitFor { server.loops.allSatisfy { $0.pollingThreadID.load(ordering: .acquiring) != 0 } })
    let threads = server.loops.map { $0.pollingThreadID.load(ordering: .acquiring) }
    #expect(Set(threads).count == 2)
    #expect(threads.map(comm) == ["xizor.loop.0", "xizor.loop.1"])

    let done = DispatchSemaphore(value: 0)
    server.shutdown { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(waitFor { server.loops.allSatisfy { $0.pollingThreadID.load(ordering: .acquiring) == 0 } })
    #expect(waitFor { threads.allSatisfy { comm($0) == nil } })
}

/// A loop's thread holds the loop only while it runs: a stopped server's loops are freed with it.
/// A server shut down without having started posts its drain's steps to loops that never polled:
/// they run on each loop's own serial queue, and those loops are freed too (listed where no thread
/// would run them, the steps would hold their loops, and their descriptors, for ever).
@Test(arguments: [true, false]) func aStoppedServersLoopsAreFreed(started: Bool) throws {
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 2
    var server: HTTPServer? = HTTPServer(
        configuration: configuration, responder: Router().build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    if started { _ = try server?.start() }
    weak let first = server?.loops.first
    weak let second = server?.loops.last
    let done = DispatchSemaphore(value: 0)
    server?.shutdown { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)
    server = nil
    for _ in 0..<500 where first != nil || second != nil { usleep(10_000) }
    #expect(first == nil && second == nil)
}

/// A pool's answer that comes back after its server stopped runs on the stopped loop's own serial
/// queue (`IOLoop.execute` once the polling thread has handed off): it finds its connection
/// closed, drops the answer, and lets the connection and its loop go. Left in the loop's list, the
/// job would hold the loop for ever; run on a wrong thread, it would trap on the loop's
/// precondition.
@Test func anAnswerAfterTheServerStoppedIsDroppedAndFreesItsLoop() throws {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let answered = DispatchSemaphore(value: 0)
    var router = Router()
    router.get("/late") { _ in
        entered.signal()
        release.wait()
        defer { answered.signal() }
        return .text("late")
    }
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false
    configuration.ioQueues = 1
    configuration.drainTimeoutMs = 50
    var server: HTTPServer? = HTTPServer(
        configuration: configuration, responder: router.build(), logger: Logger(minimumLevel: .error, sink: { _ in }))
    let port = try #require(try server?.start())
    let client = try RawClient(port: port)
    defer { client.close() }
    client.send("GET /late HTTP/1.1\r\nHost: t\r\n\r\n")
    #expect(entered.wait(timeout: .now() + 30) == .success)
    weak let loop = server?.loops.first
    let done = DispatchSemaphore(value: 0)
    server?.shutdown { done.signal() }  // the drain's deadline closes the waiting connection
    #expect(done.wait(timeout: .now() + 30) == .success)
    for _ in 0..<500 where loop?.pollingThreadID.load(ordering: .acquiring) != 0 { usleep(10_000) }
    #expect(loop?.pollingThreadID.load(ordering: .acquiring) == 0)
    server = nil
    #expect(loop != nil, "the handler's job holds the connection, which holds its loop")
    release.signal()
    #expect(answered.wait(timeout: .now() + 30) == .success)
    for _ in 0..<500 where loop != nil { usleep(10_000) }
    #expect(loop == nil)
}
