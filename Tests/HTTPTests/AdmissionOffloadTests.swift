import Dispatch
import Synchronization
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// An admission that needs more than memory throws `HTTPOffload` on the I/O loop and is run again
/// on the handler pool; the connection then goes on as if it had returned on the loop.
@Suite struct AdmissionOffloadTests {
    /// Each admission call: the request's `X-Tag` and whether it ran marked inline.
    final class Calls: Sendable {
        let log = Mutex<[(tag: String, inline: Bool)]>([])
        func record(_ tag: String) { log.withLock { $0.append((tag, InlineExecution.isActive)) } }
        var all: [(tag: String, inline: Bool)] { log.withLock { $0 } }
        func of(_ tag: String) -> [Bool] { all.filter { $0.tag == tag }.map(\.inline) }
    }

    /// `Authorization: known` is admitted on the loop; `new` and `bad` leave it, where `new` is
    /// admitted (after a pause, so a request parsed meanwhile would show) and `bad` refused 401.
    static func server(
        _ calls: Calls, awayMicros: UInt32 = 100_000,
        configure: (inout HTTPServer.Configuration) -> Void = { _ in }
    ) throws -> (HTTPServer, Int) {
        let admission: HTTPAdmission = { request in
            calls.record(request.header("X-Tag") ?? "")
            let credential = request.header("Authorization") ?? ""
            if credential == "known" { return }
            if InlineExecution.isActive { throw HTTPOffload() }
            usleep(awayMicros)
            guard credential == "new" else {
                throw HTTPError(.unauthorized, code: "invalid_api_key", detail: "Unknown.")
            }
            request.partition = "tenant"
        }
        var router = Router()
        router.add(.GET, "/hello", admission: admission) { request in .text("hello \(request.partition)") }
        router.add(.POST, "/upper", admission: admission) { request in
            .text(String(decoding: request.body, as: UTF8.self).uppercased())
        }
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.accessLog = false
        configuration.ioQueues = 1
        configure(&configuration)
        let server = HTTPServer(
            configuration: configuration, responder: router.build(),
            logger: Logger(minimumLevel: .error, sink: { _ in }))
        return (server, try server.start())
    }

    @Test func pipelinedRequestsWaitWhileAnAdmissionRunsOffTheLoop() throws {
        let calls = Calls()
        let (server, port) = try Self.server(calls)
        let client = try RawClient(port: port)
        defer { client.close() }
        client.send(
            "GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: 1\r\n\r\n"
                + "POST /upper HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: 2\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: bad\r\nX-Tag: 3\r\n\r\n"
                + "GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: known\r\nX-Tag: 4\r\n\r\n")
        let responses = try client.readResponses(4)
        #expect(responses.map(\.status) == [200, 200, 401, 200])
        #expect(responses[0].body == "hello tenant")
        #expect(responses[1].body == "HELLO")
        #expect(responses[2].body.contains("invalid_api_key"))
        #expect(responses[3].body == "hello ")
        // First on the loop, marked; then off it, unmarked; a known credential never leaves.
        #expect(calls.of("1") == [true, false] && calls.of("2") == [true, false] && calls.of("3") == [true, false])
        #expect(calls.of("4") == [true])
        // No request was parsed (and admitted) while the one before it was away.
        #expect(calls.all.map(\.tag) == ["1", "1", "2", "2", "3", "3", "4"])
        #expect(server.openConnections == 1)
        server.shutdown {}
    }

    /// A head with its body to come: `100 Continue` only once the admission has come back, the
    /// body then read; a refusal is answered with the body unread and the connection closed.
    @Test func aHeadWithItsBodyPendingIsAdmittedOrRefusedOffTheLoop() throws {
        let calls = Calls()
        let (server, port) = try Self.server(calls)
        let client = try RawClient(port: port)
        defer { client.close() }
        client.send(
            "POST /upper HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: a\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        )
        #expect(try client.readResponses(1).map(\.status) == [100])
        #expect(calls.of("a") == [true, false])
        client.send("body")
        let admitted = try client.readResponses(1)
        #expect(admitted.map(\.status) == [200] && admitted.first?.body == "BODY")

        // The body's first bytes come with the head: they wait, unread as a request, for the answer.
        client.send("POST /upper HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: b\r\nContent-Length: 6\r\n\r\nsec")
        usleep(20_000)
        client.send("ond")
        let second = try client.readResponses(1)
        #expect(second.map(\.status) == [200] && second.first?.body == "SECOND")
        #expect(calls.of("b") == [true, false])

        let refused = try RawClient(port: port)
        defer { refused.close() }
        refused.send(
            "POST /upper HTTP/1.1\r\nHost: t\r\nAuthorization: bad\r\nX-Tag: c\r\nContent-Length: 100\r\n\r\nsome")
        let answer = try refused.readResponses(1)
        #expect(answer.map(\.status) == [401] && answer.first?.head.contains("Connection: close") == true)
        #expect(calls.of("c") == [true, false])
        #expect(throws: RawClient.ClientError.self) { _ = try refused.readResponses(1) }
        server.shutdown {}
    }

    /// While the admission is away no deadline runs (a header timeout shorter than the wait is not
    /// a 408), a peer that hangs up costs only its connection once the admission is back, and a
    /// drain waits for it and answers with `Connection: close`.
    @Test func deadlinesHangUpsAndADrainDuringTheWait() throws {
        let calls = Calls()
        let (server, port) = try Self.server(calls, awayMicros: 600_000) { $0.headerReadTimeoutMs = 100 }
        let slow = try RawClient(port: port)
        defer { slow.close() }
        slow.send("GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: slow\r\n\r\n")
        let answer = try slow.readResponses(1)
        #expect(answer.map(\.status) == [200] && answer.first?.body == "hello tenant")

        let gone = try RawClient(port: port)
        gone.send("GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: gone\r\n\r\n")
        usleep(50_000)
        gone.close()
        // On a connection that has been served (a drain closes those when idle), while away.
        slow.send("GET /hello HTTP/1.1\r\nHost: t\r\nAuthorization: new\r\nX-Tag: drain\r\n\r\n")
        usleep(50_000)
        let drained = DispatchSemaphore(value: 0)
        server.shutdown { drained.signal() }
        let last = try slow.readResponses(1)
        #expect(last.map(\.status) == [200] && last.first?.head.contains("Connection: close") == true)
        #expect(drained.wait(timeout: .now() + 30) == .success)
        #expect(calls.of("gone") == [true, false] && calls.of("drain") == [true, false])
        #expect(server.openConnections == 0)
    }
}

/// The inline flag is the thread's own (a C thread-local): while one thread runs inline, another
/// does not see it set, and it is clear again once `run` returns.
@Test func inlineExecutionIsPerThread() {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        InlineExecution.run {
            entered.signal()
            release.wait()
        }
        done.signal()
    }
    entered.wait()
    #expect(!InlineExecution.isActive, "another thread's inline handler")
    release.signal()
    done.wait()
    #expect(InlineExecution.run { InlineExecution.isActive })
    #expect(!InlineExecution.isActive)
}
