import Dispatch
import Synchronization
import Testing
import XizorLog

@testable import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Records what the server reports, for the assertions below.
final class RecordingObserver: HTTPRequestObserver {
    struct Seen: Equatable {
        let method: String
        let routeIndex: Int
        let status: Int
        let bytes: Int
    }
    let exchanges = Mutex<[Seen]>([])
    let opened = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    /// The server's loops: every response names one of them (`HTTPExchange.loop`).
    let loops: Int

    init(loops: Int = HTTPServer.Configuration().resolvedIOQueues) { self.loops = loops }

    func responseCompleted(_ exchange: HTTPExchange) {
        #expect(exchange.micros >= 0)
        #expect((0..<loops).contains(exchange.loop))
        exchanges.withLock {
            $0.append(
                Seen(
                    method: exchange.method.description, routeIndex: exchange.routeIndex, status: exchange.status,
                    bytes: exchange.bytes))
        }
    }
    func connectionOpened() { opened.add(1, ordering: .relaxed) }
    func connectionClosed() { closed.add(1, ordering: .relaxed) }
}

@Test func theObserverSeesEveryResponseWithItsRouteAndEveryConnection() throws {
    var router = Router()
    router.get("/a/:id", execution: .inline) { _ in .json(Array("{\"a\":1}".utf8), etag: "\"v1\"") }
    router.post("/b") { _ in HTTPResponse(status: .created, body: Array("made".utf8)) }
    let table = router.build()
    var configuration = HTTPServer.Configuration()
    configuration.port = 0
    configuration.accessLog = false  // the observer is told even without the access log
    let observer = RecordingObserver()
    let server = HTTPServer(
        configuration: configuration, responder: table,
        logger: Logger(minimumLevel: .error, sink: { _ in }), observer: observer)
    let port = try server.start()
    let a = try #require(table.routeTemplates.firstIndex(of: "/a/:id"))
    let b = try #require(table.routeTemplates.firstIndex(of: "/b"))

    let client = try RawClient(port: port)
    var statuses: [Int] = []
    for request in [
        "GET /a/1 HTTP/1.1\r\nHost: t\r\n\r\n",
        "GET /a/2 HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"v1\"\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
        "GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n",
    ] {
        client.send(request)
        statuses += try client.readResponses(1).map(\.status)
    }
    #expect(statuses == [200, 304, 201, 404])
    client.close()
    let done = DispatchSemaphore(value: 0)
    server.shutdown { done.signal() }
    #expect(done.wait(timeout: .now() + 30) == .success)

    let seen = observer.exchanges.withLock { $0 }
    #expect(
        seen == [
            .init(method: "GET", routeIndex: a, status: 200, bytes: 7),
            .init(method: "GET", routeIndex: a, status: 304, bytes: 0),
            .init(method: "POST", routeIndex: b, status: 201, bytes: 4),
            .init(method: "GET", routeIndex: -1, status: 404, bytes: seen.last?.bytes ?? 0),
        ])
    #expect(observer.opened.load(ordering: .relaxed) == 1)
    #expect(observer.closed.load(ordering: .relaxed) == 1)
}
