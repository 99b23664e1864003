import Testing

@testable import HTTP

/// A parsed request keeps its target as bytes of its head and makes Strings of it only when asked
/// (`HTTPRequest.target`, `.path`); routing reads the path's bytes (`withPathBytes`). Whichever
/// way the path is kept, the bytes routing sees are the path's, and the Strings are what was sent.
@Suite struct RequestTextTests {
    private func parsed(_ target: String, method: String = "GET") throws -> HTTPRequest {
        let text = "\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n"
        guard case .request(let request, _) = parseOne(text, byteByByte: false) else { throw Unparsed() }
        return request
    }
    private struct Unparsed: Error {}

    @Test(arguments: [
        ("/v1/sdk/placements/onboarding/paywall", "/v1/sdk/placements/onboarding/paywall"),
        ("/v1/paywalls?limit=2&cursor=a%20b", "/v1/paywalls"),
        ("/v1/things/a%41b", "/v1/things/aAb"),
        ("/v1/things/a%2Fb", "/v1/things/a%2Fb"),
        ("http://example.com/v1/x?y=1", "/v1/x"),
        ("http://example.com", "/"),
        ("/short", "/short"),
    ])
    func pathBytesAreThePath(target: String, path: String) throws {
        let request = try parsed(target)
        #expect(request.target == target)
        #expect(request.path == path)
        #expect(request.withPathBytes { Array($0) } == Array(path.utf8))
        #expect(request.loggedPath == path)
    }

    @Test func asteriskFormIsItsOwnPath() throws {
        let request = try parsed("*", method: "OPTIONS")
        #expect(request.target == "*" && request.path == "*")
        #expect(request.withPathBytes { Array($0) } == Array("*".utf8))
    }

    /// A request built from Strings (tests, synthetic requests) answers the same.
    @Test func builtRequestsAnswerAlike() {
        let same = HTTPRequest(method: .GET, target: "/a/b", path: "/a/b")
        #expect(same.target == "/a/b" && same.path == "/a/b" && same.withPathBytes { Array($0) } == Array("/a/b".utf8))
        let decoded = HTTPRequest(method: .GET, target: "/a%41?q=1", path: "/aA")
        #expect(decoded.target == "/a%41?q=1" && decoded.path == "/aA")
        #expect(decoded.withPathBytes { Array($0) } == Array("/aA".utf8))
    }
}
