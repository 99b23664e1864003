import Testing

@testable import HTTP

/// One malformed request and the exact rejection it must produce.
struct RejectionCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: String
    let error: HTTPParseError
    let status: Int
    var testDescription: String { name }
}

let smallLimits = HTTPParserLimits(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderFields: 4, maxBodyBytes: 16)

let rejectionCases: [RejectionCase] = [
    .init(
        name: "Content-Length and Transfer-Encoding together",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        error: .contentLengthWithTransferEncoding, status: 400),
    .init(
        name: "Transfer-Encoding before Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
        error: .contentLengthWithTransferEncoding, status: 400),
    .init(
        name: "gzip alone (chunked not final)",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n",
        error: .transferEncodingNotChunked, status: 400),
    .init(
        name: "chunked then gzip",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
        error: .transferEncodingNotChunked, status: 400),
    .init(
        name: "chunked twice",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        error: .transferEncodingNotChunked, status: 400),
    .init(
        name: "gzip then final chunked is not implemented",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        error: .unsupportedTransferCoding, status: 501),
    .init(
        name: "empty Transfer-Encoding",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n",
        error: .transferEncodingNotChunked, status: 400),
    .init(
        name: "Transfer-Encoding on HTTP/1.0",
        input: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
        error: .transferEncodingOnHTTP10, status: 400),
    .init(
        name: "non-numeric Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n",
        error: .invalidContentLength, status: 400),
    .init(
        name: "signed Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n",
        error: .invalidContentLength, status: 400),
    .init(
        name: "empty Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n",
        error: .invalidContentLength, status: 400),
    .init(
        name: "conflicting Content-Length list",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 4\r\n\r\n",
        error: .conflictingContentLength, status: 400),
    .init(
        name: "conflicting Content-Length fields",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        error: .conflictingContentLength, status: 400),
    .init(
        name: "overflowing Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        error: .contentLengthOverflow, status: 400),
    .init(
        name: "body over the limit by Content-Length",
        input: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n",
        error: .bodyTooLarge, status: 413),
    .init(
        name: "chunked body over the limit",
        input:
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nx\r\n0\r\n\r\n",
        error: .bodyTooLarge, status: 413),
    .init(
        name: "non-hex chunk size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        error: .invalidChunkSize, status: 400),
    .init(
        name: "empty chunk size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
        error: .invalidChunkSize, status: 400),
    .init(
        name: "negative chunk size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
        error: .invalidChunkSize, status: 400),
    .init(
        name: "overflowing chunk size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000001\r\n",
        error: .invalidChunkSize, status: 400),
    .init(
        name: "chunk data longer than its size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
        error: .invalidChunkData, status: 400),
    .init(
        name: "chunk data shorter than its size",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab\r\n0\r\n\r\n",
        error: .invalidChunkData, status: 400),
    .init(
        name: "whitespace before colon",
        input: "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        error: .whitespaceBeforeColon, status: 400),
    .init(
        name: "tab before colon",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-A\t: b\r\n\r\n",
        error: .whitespaceBeforeColon, status: 400),
    .init(
        name: "obs-fold continuation line",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n",
        error: .obsoleteLineFolding, status: 400),
    .init(
        name: "bare CR in a header value",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n",
        error: .bareCarriageReturn, status: 400),
    .init(
        name: "bare CR ending the request line",
        input: "GET / HTTP/1.1\rHost: a\r\n\r\n",
        error: .bareCarriageReturn, status: 400),
    .init(
        name: "bare LF ending a header line",
        input: "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n",
        error: .bareLineFeed, status: 400),
    .init(
        name: "NUL in a header value",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{0}c\r\n\r\n",
        error: .invalidHeaderValue, status: 400),
    .init(
        name: "control character in a header value",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{1}c\r\n\r\n",
        error: .invalidHeaderValue, status: 400),
    .init(
        name: "invalid token character in a method",
        input: "G(T / HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidMethod, status: 400),
    .init(
        name: "invalid token character in a header name",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX@A: b\r\n\r\n",
        error: .invalidHeaderName, status: 400),
    .init(
        name: "empty header name",
        input: "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n",
        error: .invalidHeaderName, status: 400),
    .init(
        name: "header line without a colon",
        input: "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
        error: .invalidHeaderName, status: 400),
    .init(
        name: "missing Host on HTTP/1.1",
        input: "GET / HTTP/1.1\r\nX: y\r\n\r\n",
        error: .missingHost, status: 400),
    .init(
        name: "repeated Host",
        input: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        error: .duplicateHost, status: 400),
    .init(
        name: "malformed Host",
        input: "GET / HTTP/1.1\r\nHost: a b/c\r\n\r\n",
        error: .invalidHost, status: 400),
    .init(
        name: "HTTP/2.0 request line",
        input: "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
        error: .unsupportedVersion, status: 505),
    .init(
        name: "HTTP/0.9 style major",
        input: "GET / HTTP/0.9\r\nHost: a\r\n\r\n",
        error: .unsupportedVersion, status: 505),
    .init(
        name: "lowercase protocol name",
        input: "GET / http/1.1\r\nHost: a\r\n\r\n",
        error: .invalidVersion, status: 400),
    .init(
        name: "version without minor",
        input: "GET / HTTP/1\r\nHost: a\r\n\r\n",
        error: .invalidVersion, status: 400),
    .init(
        name: "missing version",
        input: "GET /\r\nHost: a\r\n\r\n",
        error: .invalidVersion, status: 400),
    .init(
        name: "two spaces after method",
        input: "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "target that is neither origin nor absolute form",
        input: "GET foo HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "asterisk form with GET",
        input: "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "a fragment in the target",
        input: "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "a fragment after the query",
        input: "GET /a?x=1#top HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "bad percent escape in the path",
        input: "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "percent-encoded NUL",
        input: "GET /a%00 HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "absolute form without authority",
        input: "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .invalidRequestTarget, status: 400),
    .init(
        name: "five empty lines before the request line",
        input: "\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .tooManyEmptyLines, status: 400),
    .init(
        name: "an endless preamble of empty lines",
        input: String(repeating: "\r\n", count: 100),
        error: .tooManyEmptyLines, status: 400),
    .init(
        name: "request line too long",
        input: "GET /" + String(repeating: "a", count: 80) + " HTTP/1.1\r\nHost: a\r\n\r\n",
        error: .requestLineTooLong, status: 414),
    .init(
        name: "header section too large",
        input: "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "b", count: 200) + "\r\n\r\n",
        error: .headerSectionTooLarge, status: 431),
    .init(
        name: "too many header fields",
        input: "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
        error: .tooManyHeaderFields, status: 431),
    .init(
        name: "unsupported expectation",
        input: "POST / HTTP/1.1\r\nHost: a\r\nExpect: something\r\nContent-Length: 1\r\n\r\nx",
        error: .unsupportedExpectation, status: 417),
    .init(
        name: "bad trailer line",
        input: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\u{0}\r\n\r\n",
        error: .invalidHeaderValue, status: 400),
]

@Test(arguments: rejectionCases)
func rejectsWholeAndByteByByte(_ c: RejectionCase) throws {
    #expect(c.error.status.code == c.status)
    for byteByByte in [false, true] {
        guard case .failure(let error) = parseOne(c.input, limits: smallLimits, byteByByte: byteByByte) else {
            Issue.record("\(c.name): accepted (byteByByte: \(byteByByte))")
            continue
        }
        #expect(error == c.error, "\(c.name) byteByByte: \(byteByByte)")
    }
}

@Test func failedParserStaysFailed() {
    var parser = HTTPRequestParser()
    _ = parser.parse(Array("GET / HTTP/1.1\r\nHost : a\r\n\r\n".utf8))
    let (_, event) = parser.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
    guard case .failure(.whitespaceBeforeColon) = event else {
        Issue.record("parser recovered after a failure")
        return
    }
}
