import Testing

@testable import HTTP

/// The `Date:` line the assembly is given (static bytes, as the loop's line is an allocation it keeps).
private var assemblyDateLine: UnsafeRawBufferPointer {
    let line: StaticString = "Date: Tue, 01 Dec 2026 00:00:00 GMT\r\n"
    return UnsafeRawBufferPointer(start: line.utf8Start, count: line.utf8CodeUnitCount)
}

/// `ResponseAssembly` as a table: a handler's response and a request in, the exact status, head
/// lines, payload and close decision out — no socket involved.
@Suite struct ResponseAssemblyTests {
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        let response: @Sendable () -> HTTPResponse
        var method: HTTPMethod = .GET
        var version: HTTPVersion = .http1_1
        var requestHeaders: [(String, String)] = []
        var closeAfter = false
        let status: Int
        /// Head lines that must be present (exactly, CRLF excluded).
        var lines: [String] = []
        /// Field names that must be absent.
        var absent: [String] = []
        /// Payload: byte count of `.bytes` (-1: some bytes, fewer than `big` — compressed or a problem),
        /// or nil for a stream.
        let payloadBytes: Int?
        var closes = false
        var description: String { name }
    }

    static let big = [UInt8](repeating: UInt8(ascii: "a"), count: 2_000)
    static let gzipped = "\"t1-gzip\""

    static let cases: [Case] = [
        Case(
            name: "plain 200 with length", response: { .text("hello") }, status: 200,
            lines: ["HTTP/1.1 200 OK", "Content-Length: 5", "X-Request-Id: r1"], absent: ["Connection", "Vary"],
            payloadBytes: 5),
        Case(
            name: "HEAD keeps the length, sends no body", response: { .text("hello") }, method: .HEAD, status: 200,
            lines: ["Content-Length: 5"], payloadBytes: 0),
        Case(
            name: "close decided by the caller", response: { .text("x") }, closeAfter: true, status: 200,
            lines: ["Connection: close"], payloadBytes: 1, closes: true),
        Case(
            name: "HTTP/1.0 keep-alive is explicit", response: { .text("x") }, version: .http1_0, status: 200,
            lines: ["Connection: keep-alive"], payloadBytes: 1),
        Case(
            name: "a matching If-None-Match is a 304 without body or length",
            response: { HTTPResponse(body: big, etag: "\"t1\"") },
            requestHeaders: [("If-None-Match", "\"t1\"")], status: 304,
            lines: ["HTTP/1.1 304 Not Modified", "ETag: \"t1\""],
            absent: ["Content-Length"], payloadBytes: 0),
        Case(
            name: "If-None-Match on an unsafe method is a 412", response: { HTTPResponse(body: big, etag: "\"t1\"") },
            method: .PUT,
            requestHeaders: [("If-None-Match", "*")], status: 412, absent: ["ETag"], payloadBytes: -1),
        Case(
            name: "a weak tag never gives a 304", response: { HTTPResponse(body: big, etag: "W/\"t1\"") },
            requestHeaders: [("If-None-Match", "W/\"t1\"")], status: 200, payloadBytes: 2_000),
        Case(
            name: "gzip when accepted and worth it, with its own tag and Vary",
            response: { HTTPResponse(headers: ["Content-Type": "text/plain"], body: big, etag: "\"t1\"") },
            requestHeaders: [("Accept-Encoding", "gzip")], status: 200,
            lines: ["Content-Encoding: gzip", "Vary: Accept-Encoding", "ETag: \(gzipped)"], payloadBytes: -1),
        Case(
            name: "identity for a client that does not accept gzip, still Vary",
            response: { HTTPResponse(headers: ["Content-Type": "text/plain"], body: big) },
            status: 200, lines: ["Vary: Accept-Encoding", "Content-Length: 2000"], absent: ["Content-Encoding"],
            payloadBytes: 2_000),
        Case(
            name: "small bodies are not compressed",
            response: { HTTPResponse(headers: ["Content-Type": "text/plain"], body: Array("tiny".utf8)) },
            requestHeaders: [("Accept-Encoding", "gzip")], status: 200, absent: ["Content-Encoding", "Vary"],
            payloadBytes: 4),
        Case(
            name: "an unquoted handler tag is quoted", response: { HTTPResponse(body: [1], etag: "abc") }, status: 200,
            lines: ["ETag: \"abc\""], payloadBytes: 1),
        Case(
            name: "204 has no body and no length", response: { HTTPResponse(status: .noContent, body: [1, 2, 3]) },
            status: 204,
            absent: ["Content-Length"], payloadBytes: 0),
        Case(
            name: "a stream is chunked on HTTP/1.1", response: { HTTPResponse(stream: { _ in }) }, status: 200,
            lines: ["Transfer-Encoding: chunked"], absent: ["Content-Length"], payloadBytes: nil),
        Case(
            name: "a stream on HTTP/1.0 ends by closing", response: { HTTPResponse(stream: { _ in }) },
            version: .http1_0, status: 200,
            lines: ["Connection: close"], absent: ["Transfer-Encoding", "Content-Length"], payloadBytes: nil,
            closes: true),
        Case(
            name: "reserved fields set by a handler are not written twice",
            response: { HTTPResponse(headers: ["Content-Length": "99", "Date": "x"], body: [1]) },
            status: 200, lines: ["Content-Length: 1"], payloadBytes: 1),
    ]

    @Test(arguments: cases)
    func assembles(_ c: Case) throws {
        var head: [UInt8] = [9, 9, 9]  // emptied first
        let headers = HTTPRequestHeaders(c.requestHeaders)
        let assembled = ResponseAssembly(
            c.response(),
            for: assemblyRequest(c.method, c.version, headers),
            closeAfter: c.closeAfter, settings: .init(gzipMinBytes: 860, gzipLevel: 6),
            dateLine: assemblyDateLine, into: &head)
        let text = String(decoding: head, as: UTF8.self)
        #expect(text.hasSuffix("\r\n\r\n"))
        // A connection writes into its HeadBuffer: the same bytes, however often it had to grow,
        // and nothing left of the head it held before.
        let buffer = HeadBuffer(capacity: 16)
        [UInt8](repeating: 7, count: 40).withUnsafeBytes { buffer.appendBytes($0) }
        var written = buffer
        _ = ResponseAssembly(
            c.response(),
            for: assemblyRequest(c.method, c.version, headers),
            closeAfter: c.closeAfter, settings: .init(gzipMinBytes: 860, gzipLevel: 6),
            dateLine: assemblyDateLine, into: &written)
        #expect(buffer.array == head && buffer.count == head.count)
        let lines = text.split(separator: "\r\n").map(String.init)
        #expect(assembled.status.code == c.status)
        #expect(lines.first?.hasPrefix("HTTP/1.1 \(c.status) ") == true, "\(lines.first ?? "")")
        #expect(lines.contains("Date: Tue, 01 Dec 2026 00:00:00 GMT"))
        for line in c.lines { #expect(lines.contains(line), "missing \(line) in \(lines)") }
        for name in c.absent {
            #expect(!lines.contains { $0.lowercased().hasPrefix(name.lowercased() + ":") }, "unexpected \(name)")
        }
        let names = lines.dropFirst().compactMap { $0.split(separator: ":").first.map { $0.lowercased() } }
        for name in ["content-length", "date", "etag", "connection"] {
            #expect(names.filter { $0 == name }.count <= 1, "\(name) twice")
        }
        #expect(assembled.closeAfter == c.closes)
        switch assembled.payload {
        case .bytes(let body):
            if let expected = c.payloadBytes {
                if expected >= 0 {
                    #expect(body.count == expected)
                } else {
                    #expect(body.count > 0 && body.count < Self.big.count)
                }
            } else {
                Issue.record("expected a stream")
            }
            if let length = lines.first(where: { $0.hasPrefix("Content-Length: ") }), c.method != .HEAD {
                #expect(length == "Content-Length: \(body.count)")
            }
        case .stream:
            #expect(c.payloadBytes == nil, "expected bytes")
        }
    }
}

/// The status lines written as literals (200, 304) read as the ones assembled from code and reason.
@Test func statusLinesReadTheirCodeAndReason() {
    for code in [200, 201, 204, 304, 308, 400, 404, 412, 500, 503] {
        var line: [UInt8] = []
        line.appendStatusLine(HTTPStatus(code))
        #expect(String(decoding: line, as: UTF8.self) == "HTTP/1.1 \(code) \(HTTPStatus(code).reasonPhrase)\r\n")
    }
}

/// A response whose prepared fields carry its entity tags' lines (`PreparedHeaders(entityTags:)`)
/// is written byte for byte as the same response whose tags are checked, quoted and written per
/// request: 200 and 304, identity and gzip, a weak tag, an unquoted one, a 412, and a tag the
/// prepared fields do not know (a handler replaced it).
@Test(arguments: [
    ("\"t1\"", "gzip", "\"t1-gzip\"", "GET", "\"t1-gzip\""),
    ("\"t1\"", "identity", "\"t1-gzip\"", "GET", "\"t1\""),
    ("\"t1\"", "gzip", "\"t1-gzip\"", "GET", "\"other\""),
    ("\"t1\"", "gzip", "\"t1-gzip\"", "PUT", "*"),
    ("W/\"t1\"", "identity", "W/\"t1-gzip\"", "GET", "W/\"t1\""),
    ("t1", "identity", "t1-gzip", "GET", "\"t1\""),
])
func preparedEntityTagsWriteTheSameHead(
    tag: String, encoding: String, gzipTag: String, method: String, ifNoneMatch: String
) {
    let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2_000)
    let gzip = HTTPResponse.Representation(body: [1, 2, 3], etag: gzipTag)
    let fields: HTTPHeaders = ["Content-Type": "application/json", "X-Signature": "s"]
    func head(_ prepared: PreparedHeaders, etag: String = tag) -> (Int, String) {
        var head: [UInt8] = []
        let assembled = ResponseAssembly(
            HTTPResponse(status: .ok, body: body, etag: etag, gzip: gzip, prepared: prepared),
            for: assemblyRequest(
                method == "PUT" ? .PUT : .GET, .http1_1,
                HTTPRequestHeaders([("Accept-Encoding", encoding), ("If-None-Match", ifNoneMatch)])),
            closeAfter: false, settings: .init(gzipMinBytes: 860, gzipLevel: 6),
            dateLine: assemblyDateLine, into: &head)
        return (assembled.status.code, String(decoding: head, as: UTF8.self))
    }
    let plain = PreparedHeaders(fields, alsoOnNotModified: ["X-Signature"])
    let ready = PreparedHeaders(fields, alsoOnNotModified: ["X-Signature"], entityTags: [tag, gzipTag])
    let (status, expected) = head(plain)
    let (readyStatus, written) = head(ready)
    #expect(readyStatus == status && written == expected)
    #expect(head(ready, etag: "\"replaced\"") == head(plain, etag: "\"replaced\""))
    #expect(ready.entityTags.count == 2 && ready.entityTag(tag) != nil && ready.entityTag("\"t\"") == nil)
}

/// A request as the assembly reads it: method, version, headers and id.
func assemblyRequest(_ method: HTTPMethod, _ version: HTTPVersion, _ headers: HTTPRequestHeaders) -> HTTPRequest {
    var request = HTTPRequest(method: method, target: "/", path: "/", version: version, headers: headers)
    request.requestID = RequestID("r1")
    return request
}
