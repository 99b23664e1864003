import Testing

@testable import HTTP

/// A request answered and held by nothing else gives its head's buffer back to the parser
/// (`HTTPRequest.reclaimHeadBuffer`, `HTTPRequestParser.recycle`): the next head is read into the
/// same memory, and reads the same as into a new buffer; a request still held elsewhere keeps its
/// buffer, and a head larger than the buffer grows it.
@Suite struct HeadBufferReuseTests {
    private func next(_ parser: inout HTTPRequestParser, _ text: String) throws -> HTTPRequest {
        let (_, event) = parser.parse(Array(text.utf8))
        guard case .request(let request) = event else { throw Unparsed() }
        return request
    }
    private struct Unparsed: Error {}

    private func address(_ request: HTTPRequest) -> UnsafeRawPointer? {
        request.headers.storage.withUnsafeBytes { $0.baseAddress }
    }

    @Test func theNextHeadIsReadIntoTheReclaimedBuffer() throws {
        var parser = HTTPRequestParser()
        var first = try next(&parser, "GET /a HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer one\r\n\r\n")
        let firstBuffer = address(first)
        #expect(first.header(.authorization) == "Bearer one")
        guard let buffer = first.reclaimHeadBuffer() else {
            Issue.record("the buffer was not reclaimed")
            return
        }
        #expect(buffer.isEmpty && buffer.capacity >= HTTPRequestParser.headCapacity)
        #expect(first.target == "" && first.headers.count == 0, "what is left reads nothing of the buffer")
        parser.recycle(consume buffer)
        let second = try next(&parser, "GET /b?x=1 HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"t\"\r\n\r\n")
        #expect(address(second) == firstBuffer, "read into the same memory")
        #expect(second.path == "/b" && second.target == "/b?x=1" && second.header(.ifNoneMatch) == "\"t\"")
        #expect(second.header(.authorization) == nil && second.headers.count == 2)
    }

    @Test func aRequestHeldElsewhereKeepsItsBuffer() throws {
        var parser = HTTPRequestParser()
        var request = try next(&parser, "GET /a HTTP/1.1\r\nHost: h\r\nX-Kept: yes\r\n\r\n")
        let held = request
        #expect(request.reclaimHeadBuffer() == nil)
        #expect(held.header("X-Kept") == "yes" && request.header("X-Kept") == "yes" && request.path == "/a")
        // The parser makes a buffer of its own for the next head, and a head larger than it grows it.
        let long = String(repeating: "v", count: 2 * HTTPRequestParser.headCapacity)
        let next = try next(&parser, "GET /b HTTP/1.1\r\nHost: h\r\nX-Long: \(long)\r\n\r\n")
        #expect(next.header("X-Long") == long && held.header("X-Kept") == "yes")
    }

    /// A buffer given back while the parser already reads a head into one of its own is dropped.
    @Test func aBufferGivenBackMidHeadIsDropped() throws {
        var parser = HTTPRequestParser()
        var first = try next(&parser, "GET /a HTTP/1.1\r\nHost: h\r\n\r\n")
        guard let buffer = first.reclaimHeadBuffer() else {
            Issue.record("the buffer was not reclaimed")
            return
        }
        _ = parser.parse(Array("GET /b HTTP/1.1\r\nHo".utf8))
        parser.recycle(consume buffer)
        let (_, event) = parser.parse(Array("st: h\r\nX-Y: z\r\n\r\n".utf8))
        guard case .request(let second) = event else {
            Issue.record("\(event)")
            return
        }
        #expect(second.path == "/b" && second.header("X-Y") == "z" && second.header("Host") == "h")
    }

    private final class Marker: Sendable {}

    /// Everything a request carries beyond its head, set as the router, the admission and the
    /// connection would.
    private func used(_ request: inout HTTPRequest) {
        var router = Router()
        router.get("/a/:id", execution: .inline) { _ in .text("") }
        _ = router.build().resolve(&request)
        request.context = Marker()
        request.partition = "app_1"
        request.requestId = "client-id"
        request.remoteAddress = "10.0.0.1"
        request.body = [1, 2, 3]
    }

    /// The next request is built in the finished one's box (`HTTPRequest.reuse`) and has nothing
    /// of it: a match, a verified key or an id left over would be read as the new request's.
    @Test func theNextRequestIsBuiltInTheFinishedOnesBoxWithNothingOfIt() throws {
        var parser = HTTPRequestParser()
        var first = try next(&parser, "GET /a/7 HTTP/1.1\r\nHost: h\r\n\r\n")
        used(&first)
        #expect(first.routeTemplate == "/a/:id" && first.pathParameter("id") == "7" && first.context != nil)
        let box = first.boxIdentity
        guard let buffer = first.reclaimHeadBuffer() else {
            Issue.record("the buffer was not reclaimed")
            return
        }
        parser.recycle(buffer, reusing: consume first)
        let second = try next(&parser, "HEAD /b?q=1 HTTP/1.0\r\nHost: h\r\nX-Y: z\r\n\r\n")
        #expect(second.boxIdentity == box, "built in the same box")
        #expect(second.method == .HEAD && second.target == "/b?q=1" && second.path == "/b" && second.query("q") == "1")
        #expect(second.version == .http1_0 && !second.keepAlive && second.header("X-Y") == "z")
        #expect(second.routeTemplate == nil && second.routeIndex == -1 && second.pathParameters.isEmpty)
        #expect(second.context == nil && second.partition == "" && second.requestId == "")
        // But for the peer's address: a parser is one connection's, whose address every request has.
        #expect(second.remoteAddress == "10.0.0.1")
        #expect(second.body.isEmpty && second.loggedPath == "/b")
    }

    /// A finished request still held elsewhere when the next head completes is left as it is.
    @Test func aFinishedRequestHeldElsewhereIsNotReused() throws {
        var parser = HTTPRequestParser()
        var first = try next(&parser, "GET /a/7 HTTP/1.1\r\nHost: h\r\n\r\n")
        used(&first)
        let box = first.boxIdentity
        guard let buffer = first.reclaimHeadBuffer() else {
            Issue.record("the buffer was not reclaimed")
            return
        }
        let held = first
        parser.recycle(buffer, reusing: consume first)
        let second = try next(&parser, "GET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(second.boxIdentity != box && second.path == "/b" && second.context == nil)
        #expect(held.boxIdentity == box && held.routeTemplate == "/a/:id" && held.context != nil)
        #expect(held.requestId == "client-id" && held.body == [1, 2, 3])
    }
}
