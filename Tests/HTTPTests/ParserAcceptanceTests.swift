import Testing

@testable import HTTP

/// A well-formed request and what the parser must make of it.
struct AcceptanceCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: String
    let method: HTTPMethod
    let path: String
    let query: [String]
    let body: String
    let keepAlive: Bool
    let version: HTTPVersion
    var testDescription: String { name }

    init(
        _ name: String, _ input: String, method: HTTPMethod = .GET, path: String = "/", query: [String] = [],
        body: String = "", keepAlive: Bool = true, version: HTTPVersion = .http1_1
    ) {
        self.name = name
        self.input = input
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.keepAlive = keepAlive
        self.version = version
    }
}

let acceptanceCases: [AcceptanceCase] = [
    .init("simple GET", "GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
    .init("leading empty line is ignored", "\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n", path: "/x"),
    .init("four leading empty lines are ignored", "\r\n\r\n\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n", path: "/x"),
    .init("Connection: close", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", keepAlive: false),
    .init(
        "Connection tokens are a list", "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n",
        keepAlive: false),
    .init("HTTP/1.0 closes by default", "GET / HTTP/1.0\r\n\r\n", keepAlive: false, version: .http1_0),
    .init("HTTP/1.0 keep-alive when asked", "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", version: .http1_0),
    .init(
        "HTTP/1.1 future minor is served as 1.x", "GET / HTTP/1.9\r\nHost: a\r\n\r\n",
        version: HTTPVersion(major: 1, minor: 9)),
    .init(
        "Content-Length body", "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        method: .POST, path: "/p", body: "hello"),
    .init(
        "identical Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\n\r\nhi",
        method: .POST, body: "hi"),
    .init(
        "chunked body with extensions and trailers",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6 ; a=\"b\"\r\n world\r\n0\r\nX-Trailer: t\r\nY: u\r\n\r\n",
        method: .POST, body: "hello world"),
    .init(
        "chunked with upper-case hex and name",
        "PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
        method: .PUT, body: "0123456789"),
    .init(
        "absolute-form target", "GET http://example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
        path: "/a/b", query: ["x=1"]),
    .init("absolute-form without path", "GET https://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n"),
    .init("asterisk-form OPTIONS", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", method: .OPTIONS, path: "*"),
    .init(
        "percent-decoded path and query", "GET /a%20b/%C3%A9?q=a+b&n=%26&empty&=v HTTP/1.1\r\nHost: a\r\n\r\n",
        path: "/a b/é", query: ["q=a b", "n=&", "empty=", "=v"]),
    .init(
        "%2F and %25 stay encoded in the path (segments split on real slashes only)",
        "GET /a%2fb/c%25d/%2541?x=%2F HTTP/1.1\r\nHost: a\r\n\r\n", path: "/a%2Fb/c%25d/%2541", query: ["x=/"]),
    .init(
        "repeated query names keep order", "GET /?a=1&b=2&a=3 HTTP/1.1\r\nHost: a\r\n\r\n",
        query: ["a=1", "b=2", "a=3"]),
    .init("unknown method token", "PURGE / HTTP/1.1\r\nHost: a\r\n\r\n", method: .other("PURGE")),
    .init("empty Host on HTTP/1.1", "GET / HTTP/1.1\r\nHost:\r\n\r\n"),
    .init(
        "Expect 100-continue", "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx",
        method: .POST, body: "x"),
]

@Test(arguments: acceptanceCases)
func acceptsWholeAndByteByByte(_ c: AcceptanceCase) throws {
    for byteByByte in [false, true] {
        guard case .request(let r, let consumed) = parseOne(c.input, byteByByte: byteByByte) else {
            Issue.record("\(c.name): not accepted (byteByByte: \(byteByByte))")
            continue
        }
        #expect(consumed == c.input.utf8.count)
        #expect(r.method == c.method)
        #expect(r.path == c.path)
        #expect(r.queryParameters.map { "\($0.name)=\($0.value)" } == c.query)
        #expect(String(decoding: r.body, as: UTF8.self) == c.body)
        #expect(r.keepAlive == c.keepAlive)
        #expect(r.version == c.version)
    }
}

@Test func headersAreCaseInsensitiveAndTrimmed() throws {
    let input = "GET / HTTP/1.1\r\nHost: a\r\nX-Thing:   padded value \t \r\nx-thing: second\r\nEmpty:\r\n\r\n"
    guard case .request(let r, _) = parseOne(input, byteByByte: true) else {
        Issue.record("not accepted")
        return
    }
    #expect(r.headers["x-THING"] == "padded value")
    #expect(r.headers.values(for: "X-Thing") == ["padded value", "second"])
    #expect(r.headers["empty"] == "")
    #expect(r.headers["missing"] == nil)
    #expect(r.header("HOST") == "a")
    #expect(r.headers.count == 4)
}

@Test func expectContinueIsReportedAtHeadComplete() {
    var parser = HTTPRequestParser()
    let head = "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"
    let (consumed, event) = parser.parse(Array(head.utf8))
    guard case .headComplete = event else {
        Issue.record("expected headComplete, got \(event)")
        return
    }
    #expect(consumed == head.utf8.count)
    #expect(parser.expectsContinue)
    #expect(parser.isReadingBody)
    let (_, next) = parser.parse(Array("abc".utf8))
    guard case .request(let r) = next else {
        Issue.record("expected request")
        return
    }
    #expect(r.body == Array("abc".utf8))
    #expect(parser.isIdle)
}

/// An empty line is the start of a request: the connection's header deadline runs from it, so
/// empty lines cannot keep a connection alive past that deadline.
@Test func anEmptyLineLeavesTheIdleState() {
    var parser = HTTPRequestParser()
    #expect(parser.isIdle)
    _ = parser.parse(Array("\r\n".utf8))
    #expect(!parser.isIdle)
    let (_, event) = parser.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    guard case .request = event else {
        Issue.record("expected a request, got \(event)")
        return
    }
    #expect(parser.isIdle)
    _ = parser.parse(Array("\r\n\r\n\r\n\r\n".utf8))
    let (_, next) = parser.parse(Array("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    guard case .failure(.tooManyEmptyLines) = next else {
        Issue.record("the empty lines of one request are counted across reads, got \(next)")
        return
    }
}

/// The head of a request with a body is available when `.headComplete` is reported, before any
/// body byte: what the server authenticates before it reads the body.
@Test func theHeadIsAvailableBeforeTheBody() {
    var parser = HTTPRequestParser()
    #expect(parser.headOfPendingRequest == nil)
    let (_, event) = parser.parse(
        Array("PUT /a/b?x=1 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer k\r\nContent-Length: 1048576\r\n\r\n".utf8))
    guard case .headComplete = event, let head = parser.headOfPendingRequest else {
        Issue.record("expected headComplete with its head, got \(event)")
        return
    }
    #expect(head.method == .PUT && head.path == "/a/b" && head.query("x") == "1")
    #expect(head.header("Authorization") == "Bearer k" && head.body.isEmpty)
}

@Test(arguments: [1, 2, 3, 7, 1000])
func pipelinedRequestsParseInOrder(chunk: Int) {
    let stream =
        "GET /one HTTP/1.1\r\nHost: a\r\n\r\n"
        + "POST /two HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
        + "POST /three HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
    let (requests, error) = parseAll(Array(stream.utf8), chunk: chunk)
    #expect(error == nil)
    #expect(requests.map(\.path) == ["/one", "/two", "/three"])
    #expect(requests.map { String(decoding: $0.body, as: UTF8.self) } == ["", "abc", "xy"])
}
