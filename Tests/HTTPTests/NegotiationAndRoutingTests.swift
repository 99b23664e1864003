import Testing

@testable import HTTP

private func headers(_ pairs: (String, String)...) -> HTTPRequestHeaders { HTTPRequestHeaders(pairs) }

struct EncodingCase: Sendable, CustomTestStringConvertible {
    let acceptEncoding: String?
    let gzip: Bool
    let identityForbidden: Bool
    var testDescription: String { acceptEncoding ?? "(absent)" }
}

@Test(arguments: [
    EncodingCase(acceptEncoding: nil, gzip: false, identityForbidden: false),
    EncodingCase(acceptEncoding: "gzip", gzip: true, identityForbidden: false),
    EncodingCase(acceptEncoding: "GZIP;q=0.5, br", gzip: true, identityForbidden: false),
    EncodingCase(acceptEncoding: "gzip;q=0", gzip: false, identityForbidden: false),
    EncodingCase(acceptEncoding: "gzip; q=0.000", gzip: false, identityForbidden: false),
    EncodingCase(acceptEncoding: "br, deflate", gzip: false, identityForbidden: false),
    EncodingCase(acceptEncoding: "*", gzip: true, identityForbidden: false),
    EncodingCase(acceptEncoding: "*;q=0", gzip: false, identityForbidden: true),
    EncodingCase(acceptEncoding: "gzip;q=0, *", gzip: false, identityForbidden: false),
    EncodingCase(acceptEncoding: "identity;q=0, gzip", gzip: true, identityForbidden: true),
    EncodingCase(acceptEncoding: "x-gzip", gzip: true, identityForbidden: false),
    EncodingCase(acceptEncoding: "gzip;q=2", gzip: false, identityForbidden: false),
])
func acceptEncoding(_ c: EncodingCase) {
    let h = c.acceptEncoding.map { headers(("Accept-Encoding", $0)) } ?? headers()
    let p = ContentNegotiation.encodingPreference(h)
    #expect(p.gzipAllowed == c.gzip)
    #expect(p.identityForbidden == c.identityForbidden)
}

@Test func ifNoneMatchWeakComparisonListsAndStar() {
    let tag = "\"abc\""
    #expect(ContentNegotiation.ifNoneMatch(headers(), etag: tag) == nil)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"abc\"")), etag: tag) == true)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "W/\"abc\"")), etag: tag) == true)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"x\", W/\"abc\"")), etag: tag) == true)
    #expect(
        ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"x\""), ("if-none-match", "\"abc\"")), etag: tag)
            == true)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "*")), etag: tag) == true)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"abcd\", \"ab\"")), etag: tag) == false)
    // Same length, one byte apart, at either end.
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"abd\", \"xbc\"")), etag: tag) == false)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "abc")), etag: tag) == false)
    #expect(ContentNegotiation.ifNoneMatch(headers(("If-None-Match", "\"a,b\"")), etag: "\"a,b\"") == true)
}

@Test func gzipRoundTripsAndETagsDiffer() throws {
    let input = Array(String(repeating: "compress me please ", count: 500).utf8)
    let compressed = try #require(Gzip.compress(input))
    #expect(compressed.count < input.count / 5)
    #expect(compressed.prefix(2) == [0x1f, 0x8b])
    #expect(Gzip.decompress(compressed) == input)
    #expect(HTTPResponse.gzipETag(for: "\"v1\"") == "\"v1-gzip\"")
    #expect(Gzip.decompress([1, 2, 3]) == nil)
}

@Test func dateIsIMFFixdate() {
    #expect(HTTPDate.string(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(HTTPDate.string(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
}

@Test func responseHeadNumbers() {
    var out: [UInt8] = []
    out.append(decimal: 0)
    out.append(literal: " ")
    out.append(decimal: 6144)
    out.append(literal: " ")
    out.append(hex: 255)
    out.append(literal: " ")
    out.append(hex: 0x10)
    #expect(String(decoding: out, as: UTF8.self) == "0 6144 ff 10")
}

/// A handler's header text never breaks the head: CR, LF and NUL are dropped wherever they sit
/// (the clean check passes over eight-byte words, so each byte is put at every offset of three
/// words and past them), and a clean value is copied as it is.
@Test func fieldTextDropsLineBreaksAndNULAtEveryOffset() {
    let clean = "abcdefghijklmnopqrstuvwx-0123"
    for bad: UInt8 in [0x0D, 0x0A, 0] {
        for offset in 0...clean.utf8.count {
            var bytes = Array(clean.utf8)
            bytes.insert(bad, at: offset)
            var out: [UInt8] = Array("X: ".utf8)
            out.append(fieldText: String(decoding: bytes, as: UTF8.self))
            #expect(out == Array("X: \(clean)".utf8), "byte \(bad) at \(offset)")
        }
    }
    var out: [UInt8] = []
    out.append(fieldText: clean + "\t\u{0B}\u{0C}\u{0E}é")
    #expect(out == Array((clean + "\t\u{0B}\u{0C}\u{0E}é").utf8), "other control bytes and UTF-8 are kept")
}

/// A GET of `path` through `table`: the status and the body's text.
private func statusAndText(_ table: RoutingTable, _ path: String) throws -> (Int, String) {
    var r = request(.GET, path)
    let response = try table.resolve(&r).handler(r)
    guard case .bytes(let b) = response.body else { return (response.status.code, "") }
    return (response.status.code, String(decoding: b, as: UTF8.self))
}

private func request(_ method: HTTPMethod, _ path: String) -> HTTPRequest {
    HTTPRequest(method: method, target: path, path: path)
}

@Test func routerMatchesParametersPrefersLiteralsAndAnswers404And405() throws {
    var router = Router()
    router.get("/v1/paywalls/:id/versions/:n") { r in
        .text("\(r.pathParameter("id") ?? "")/\(r.pathParameter("n") ?? "")")
    }
    router.get("/v1/paywalls/:id") { r in .text("id \(r.pathParameter("id") ?? "")") }
    router.get("/v1/paywalls/new") { _ in .text("literal") }
    router.put("/v1/paywalls/:id") { _ in .text("put") }
    router.get("/", execution: .inline) { _ in .text("root") }
    let table = router.build()

    func body(_ method: HTTPMethod, _ path: String) throws -> (Int, String, HTTPRequest, HTTPExecution, HTTPResponse) {
        var r = request(method, path)
        let resolution = table.resolve(&r)
        let response = try resolution.handler(r)
        guard case .bytes(let b) = response.body else {
            return (response.status.code, "", r, resolution.execution, response)
        }
        return (response.status.code, String(decoding: b, as: UTF8.self), r, resolution.execution, response)
    }
    let (s1, b1, r1, _, _) = try body(.GET, "/v1/paywalls/p1/versions/7")
    #expect(s1 == 200 && b1 == "p1/7")
    #expect(r1.routeTemplate == "/v1/paywalls/:id/versions/:n")
    #expect(try body(.GET, "/v1/paywalls/new").1 == "literal")
    #expect(try body(.GET, "/v1/paywalls/zz").1 == "id zz")
    #expect(try body(.HEAD, "/v1/paywalls/zz").1 == "id zz")
    #expect(try body(.GET, "/").1 == "root")
    #expect(try body(.GET, "/").3 == .inline)
    #expect(try body(.GET, "/v1/paywalls/zz").3 == .offloaded)
    #expect(try body(.GET, "/v1/paywalls").0 == 404)
    #expect(try body(.PUT, "/v1/paywalls/zz/").0 == 404, "only GET and HEAD are redirected")
    #expect(try body(.GET, "/v1/paywalls/zz/versions/").0 == 404, "the path without the slash matches nothing either")
    #expect(try body(.GET, "/v1/paywalls/zz//").0 == 404)
    #expect(try body(.GET, "/v1/paywalls//versions/1").0 == 404)
    let (s405, _, _, _, r405) = try body(.DELETE, "/v1/paywalls/zz")
    #expect(s405 == 405)
    #expect(r405.headers["Allow"] == "GET, PUT, HEAD, OPTIONS")
    let (sOptions, _, _, _, rOptions) = try body(.OPTIONS, "/v1/paywalls/zz")
    #expect(sOptions == 204)
    #expect(rOptions.headers["allow"] == "GET, PUT, HEAD, OPTIONS")
    #expect(try body(.OPTIONS, "*").0 == 204)
    // An encoded slash is data: one segment, decoded only in the parameter it binds.
    #expect(try body(.GET, "/v1/paywalls/a%2Fb").1 == "id a/b")
    #expect(try body(.GET, "/v1/paywalls/a%2541").1 == "id a%41", "decoded once, never twice")
    #expect(try body(.GET, "/v1%2Fpaywalls%2Fzz").0 == 404)
    #expect(try body(.GET, "/v1/paywalls%2Fnew").0 == 404)
}

/// A GET or HEAD that misses only by a trailing `/` is sent (308) to the path without it, with the
/// query as received; nothing else is redirected, and a Location never names another host.
@Test func aTrailingSlashRedirectsToTheRouteWithoutIt() throws {
    var router = Router()
    router.get("/console") { _ in .text("page") }
    router.get("/v1/paywalls/:id") { r in .text("id \(r.pathParameter("id") ?? "")") }
    router.post("/v1/paywalls") { _ in .text("created") }
    let table = router.build()
    func answer(_ method: HTTPMethod, _ target: String) throws -> HTTPResponse {
        var r = HTTPRequest(method: method, target: target, path: String(target.prefix { $0 != "?" }))
        return try table.resolve(&r).handler(r)
    }
    for (target, location) in [
        ("/console/", "/console"), ("/console/?a=1&b=%2F", "/console?a=1&b=%2F"),
        ("/v1/paywalls/a%2Fb/", "/v1/paywalls/a%2Fb"),
    ] {
        let response = try answer(.GET, target)
        #expect(response.status == .permanentRedirect && response.headers["Location"] == location, "\(target)")
        #expect(try answer(.HEAD, target).status == .permanentRedirect)
    }
    for method in [HTTPMethod.POST, .PUT, .DELETE, .PATCH] {
        #expect(try answer(method, "/console/").status == .notFound, "\(method): a body would be sent again")
        #expect(try answer(method, "/v1/paywalls/a/").status == .notFound)
    }
    #expect(try answer(.POST, "/v1/paywalls/").status == .notFound)
    #expect(try answer(.GET, "/v1/paywalls/").status == .notFound, "/v1/paywalls has a route, but no GET")
    #expect(try answer(.GET, "//console/").status == .notFound)
    #expect(try answer(.GET, "/v1/paywalls/\\evil.example/").status == .notFound, "a browser reads /\\host as //host")
    #expect(try answer(.GET, "/console//").status == .notFound)
    #expect(try answer(.GET, "/elsewhere/").status == .notFound)
}

/// The route tree backs up when a literal branch dead-ends, names parameters per pattern, and
/// picks the literal at the first segment where two matching patterns differ, whatever the
/// registration order.
@Test func routeTreeBacksUpAndKeepsEachPatternsParameterNames() throws {
    var router = Router()
    router.get("/a/:p/z") { r in .text("param \(r.pathParameter("p") ?? "")") }
    router.get("/a/x/y") { _ in .text("literal") }
    router.get("/b/:id/:rest") { r in .text("\(r.pathParameter("id") ?? "")+\(r.pathParameter("rest") ?? "")") }
    router.get("/b/:name/fixed") { r in .text("fixed \(r.pathParameter("name") ?? "") \(r.pathParameter("id") ?? "-")")
    }
    let table = router.build()
    func answer(_ path: String) throws -> (Int, String) { try statusAndText(table, path) }
    #expect(try answer("/a/x/y").1 == "literal")
    #expect(try answer("/a/x/z").1 == "param x")  // the literal `x` dead-ends at `z`: back up
    #expect(try answer("/a/q/z").1 == "param q")
    #expect(try answer("/a/x/w").0 == 404)
    #expect(try answer("/b/7/fixed").1 == "fixed 7 -")  // literal beats parameter at the last segment
    #expect(try answer("/b/7/other").1 == "7+other")
    #expect(try answer("/b/7").0 == 404)
    #expect(try answer("/b/7/other/").0 == 308, "a trailing slash is redirected to the route without it")
    #expect(try answer("/b/7/other/x").0 == 404)
}

/// Sibling literals of one length are told apart by their last byte as by their first, and a
/// segment is only ever matched whole (not as a prefix of a longer one, nor past its end).
@Test func literalSegmentsMatchWholeAndExactly() throws {
    var router = Router()
    router.get("/v1/placements/:key/paywall") { r in .text("key \(r.pathParameter("key") ?? "")") }
    router.get("/v1/placementz/x") { _ in .text("z") }
    router.get("/v1/xlacements/x") { _ in .text("x") }
    router.get("/v1/p") { _ in .text("p") }
    let table = router.build()
    func answer(_ path: String) throws -> (Int, String) { try statusAndText(table, path) }
    #expect(try answer("/v1/placements/onboarding/paywall").1 == "key onboarding")
    #expect(try answer("/v1/placementz/x").1 == "z")
    #expect(try answer("/v1/xlacements/x").1 == "x")
    #expect(try answer("/v1/p").1 == "p")
    #expect(try answer("/v1/placementy/x").0 == 404)
    #expect(try answer("/v1/placements").0 == 404)
    #expect(try answer("/v1/pp").0 == 404)
    #expect(try answer("/v1/placements/onboarding/paywallx").0 == 404)
    #expect(try answer("/v1/placements//paywall").0 == 404)
}

struct Tagging: HTTPMiddleware {
    let tag: String
    func respond(to request: HTTPRequest, next: (HTTPRequest) throws -> HTTPResponse) throws -> HTTPResponse {
        var response = try next(request)
        response.headers.add("X-Chain", tag)
        return response
    }
}

@Test func middlewareWrapsInOrder() throws {
    var router = Router()
    router.use(Tagging(tag: "outer"))
    router.use(Tagging(tag: "inner"))
    router.get("/x") { _ in .text("x") }
    var r = request(.GET, "/x")
    let response = try router.build().resolve(&r).handler(r)
    #expect(response.headers.fields.filter { $0.name == "X-Chain" }.map(\.value) == ["inner", "outer"])
}

@Test func problemBodyHasTheFixedMembers() {
    let response = HTTPError(.notFound, code: "not_found", detail: "No \"such\" thing.").response
    guard case .bytes(let b) = response.body else {
        Issue.record("no body")
        return
    }
    #expect(
        String(decoding: b, as: UTF8.self)
            == #"{"type":"about:blank","title":"Not Found","status":404,"detail":"No \"such\" thing.","code":"not_found"}"#
    )
    #expect(response.headers["content-type"] == "application/problem+json")
}

@Test func ifMatchUsesStrongComparison() {
    func r(_ v: String?) -> HTTPRequest {
        HTTPRequest(
            method: .PUT, target: "/", path: "/", headers: HTTPRequestHeaders(v.map { [("If-Match", $0)] } ?? []))
    }
    #expect(r(nil).ifMatchMatches("\"a\"") == nil)
    #expect(r("\"a\"").ifMatchMatches("\"a\"") == true)
    #expect(r("\"b\", \"a\"").ifMatchMatches("\"a\"") == true)
    #expect(r("W/\"a\"").ifMatchMatches("\"a\"") == false)
    #expect(r("W/\"x\", \"a\"").ifMatchMatches("\"a\"") == true)
    #expect(r("*").ifMatchMatches("\"a\"") == true)
    #expect(r("\"ab\"").ifMatchMatches("\"a\"") == false)
    let conditional = HTTPRequest(
        method: .GET, target: "/", path: "/", headers: HTTPRequestHeaders([("If-None-Match", "\"a\"")]))
    #expect(conditional.ifNoneMatchMatches("W/\"a\"") == true)
    #expect(conditional.ifMatchMatches("\"a\"") == nil)
}

@Test func varyValuesMergeOnceEachAndStarAbsorbs() {
    #expect(Vary.merged(["Vary": "Origin"], into: "Accept,  origin") == "Accept, origin")
    #expect(
        Vary.merged(["Vary": "Origin", "X": "y", "vary": "Accept-Language"], into: nil) == "Origin, Accept-Language")
    #expect(Vary.merged(["X": "y"], into: nil) == nil)
    #expect(Vary.merged(["Vary": "*"], into: "Accept") == "*")
    #expect(Vary.addingAcceptEncoding("*") == "*")
    #expect(Vary.addingAcceptEncoding("Accept, accept-encoding") == "Accept, accept-encoding")
    #expect(Vary.addingAcceptEncoding(nil) == "Accept-Encoding")
}

/// A request is one copy-on-write box: a copy handed on (to a handler pool, kept as the admitted
/// head) must keep what it had when a later step writes to the other copy.
@Test func requestCopiesDoNotShareWrites() {
    let original = HTTPRequest(
        method: .POST, target: "/v1/x?a=1", path: "/v1/x", queryParameters: [(name: "a", value: "1")],
        headers: HTTPRequestHeaders([("Host", "h")]), body: [1, 2])
    var copy = original
    copy.body = [9]
    copy.pathParameters = [(name: "id", value: "p")]
    copy.routeTemplate = "/v1/:id"
    copy.routeIndex = 3
    copy.requestId = "r"
    copy.remoteAddress = "127.0.0.1:1"
    copy.context = Marker()
    #expect(original.body == [1, 2] && copy.body == [9])
    #expect(original.pathParameters.isEmpty && copy.pathParameter("id") == "p")
    #expect(original.routeTemplate == nil && original.routeIndex == -1 && copy.routeIndex == 3)
    #expect(original.requestId == "" && original.remoteAddress == "" && original.context == nil && copy.context != nil)
    // Fields read by both stay the same after the copy's first write.
    #expect(copy.path == "/v1/x" && copy.query("a") == "1" && copy.header("host") == "h" && copy.method == .POST)
    var second = copy
    second.requestId = "s"
    #expect(copy.requestId == "r" && second.requestId == "s" && second.routeIndex == 3 && second.body == [9])
}

private final class Marker: Sendable {}

/// A response is a copy-on-write box as well: an answer built once and handed to every request
/// (a cached representation, the OpenAPI document) must not change when one copy is edited.
@Test func responseCopiesDoNotShareWrites() {
    let shared = HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: [1], etag: "\"a\"")
    var edited = shared
    edited.headers["X-Extra"] = "1"
    edited.status = .created
    edited.body = .bytes([2, 3])
    edited.etag = nil
    edited.gzip = HTTPResponse.Representation(body: [9], etag: "\"g\"")
    edited.compressible = false
    #expect(shared.headers["X-Extra"] == nil && edited.headers["X-Extra"] == "1")
    #expect(shared.status == .ok && edited.status == .created)
    #expect(shared.body.count == 1 && edited.body.count == 2)
    #expect(shared.etag == "\"a\"" && edited.etag == nil)
    #expect(shared.gzip == nil && edited.gzip?.body == [9])
    #expect(shared.compressible && !edited.compressible)
    #expect(edited.headers["Content-Type"] == "application/json")
}

/// A response's box is immutable (its fields are read by borrowing, not retained): a write takes
/// the fields out and lets the old box go before changing them, so a header list only this
/// response holds is changed in place, not copied on every write.
@Test func responseWritesChangeTheirOwnHeaderListInPlace() {
    var response = HTTPResponse(headers: ["A": "1", "B": "2", "C": "3", "D": "4"])
    func storage() -> UInt? {
        response.headers.fields.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }
    let before = storage()
    // Checked after each write: a copy's original, once freed, can be where the next copy is made.
    response.headers["D"] = nil
    #expect(storage() == before)
    response.headers["C"] = nil
    #expect(storage() == before)
    #expect(response.headers.count == 2 && response.headers["A"] == "1" && response.headers["C"] == nil)
    // A copy shares the list until one of them writes.
    var copy = response
    copy.headers["A"] = nil
    #expect(storage() == before && response.headers["A"] == "1" && copy.headers["A"] == nil)
}

/// Lookups answer by name, case-insensitively, whatever the name's length and last byte: the bits
/// of the names present (by length and last byte, either case) only skip the scan for absent ones.
@Test func headerLookupsByLengthAndName() {
    let long = String(repeating: "x", count: 70)
    let otherLong = String(repeating: "y", count: 64)
    let h = headers(("Host", "h"), ("X-Ab", "1"), (long, "long"), ("accept", "a"))
    #expect(h["host"] == "h" && h["HOST"] == "h" && h["x-ab"] == "1" && h["Accept"] == "a")
    #expect(h[long.uppercased()] == "long" && h[otherLong] == nil)
    #expect(h["X-Ac"] == nil && h["Hos"] == nil && h["Accept-Language"] == nil)
    #expect(h.index(ofLowercased: "accept") == 3 && h.index(ofLowercased: "accepts") == nil)
    #expect(h.withFirstValue(ofLowercased: "x-ab") { $0.map { Array($0) } } == Array("1".utf8))
    #expect(h.withFirstValue(ofLowercased: "x-zz") { $0 == nil })
    var seen = 0
    h.forEachValue(ofLowercased: "host") { _ in seen += 1 }
    h.forEachValue(ofLowercased: "cookie") { _ in seen += 10 }
    #expect(seen == 1)
    #expect(HTTPRequestHeaders()["host"] == nil)
    // Names of one length told apart at either end (compared from the last byte), and the empty name.
    let same = headers(("Accept-Encoding", "gzip"), ("Accept-Language", "fr"), ("X-Ab", "x"), ("Y-Ab", "y"))
    #expect(same["accept-language"] == "fr" && same["ACCEPT-ENCODING"] == "gzip" && same["Accept-Languagf"] == nil)
    #expect(same["y-ab"] == "y" && same["X-AB"] == "x" && same["Z-Ab"] == nil && same[""] == nil)
    #expect(same.values(for: "x-ab") == ["x"] && same.pairs.map(\.value) == ["gzip", "fr", "x", "y"])
    // Last bytes that are not letters (bit 5 set on them too), and names of one length that end alike.
    let ends = headers(("X-Version-2", "2"), ("X-Trailing-", "t"), ("X-Xizor-NONCE", "n"), ("Authorization", "a"))
    #expect(ends["x-version-2"] == "2" && ends["X-VERSION-2"] == "2" && ends["x-version-3"] == nil)
    #expect(ends["x-trailing-"] == "t" && ends["x-trailing_"] == nil && ends["x-trailing\u{0D}"] == nil)
    #expect(ends.index(ofLowercased: "x-xizor-nonce") == 2 && ends.index(ofLowercased: "authorization") == 3)
    #expect(ends.index(ofLowercased: "if-none-match") == nil && ends.index(ofLowercased: "x-xizor-nonc") == nil)
}

/// A request's lookup by a lowercase literal (the SDK path's) answers as the lookup by any name
/// does: the first field of that name whatever its case, nil for an absent one, also one of a
/// length some other field has (`X-Xizor-Nonce`, `If-None-Match`).
@Test func requestHeaderByLowercaseLiteral() {
    let request = HTTPRequest(
        method: .GET, target: "/", path: "/",
        headers: headers(
            ("IF-NONE-MATCH", "\"t\""), ("Accept-Language", "fr, en;q=0.5"), ("accept-language", "de"),
            ("X-Xizor-Schema-Version", "3")))
    #expect(request.header(lowercased: "accept-language") == "fr, en;q=0.5")
    #expect(request.header(lowercased: "if-none-match") == request.header("If-None-Match"))
    #expect(request.header(lowercased: "x-xizor-schema-version") == "3")
    #expect(request.header(lowercased: "x-xizor-nonce") == nil && request.header(lowercased: "accept") == nil)
}

/// A route may name parameters that are credentials (a signed link's token): `loggedPath`, which
/// the access log and error logs write, has `…` in their place; the handler still gets the value,
/// and other routes' paths are logged as they are.
@Test func redactedParametersAreLeftOutOfTheLoggedPath() throws {
    var router = Router()
    router.add(.GET, "/v1/previews/:token", redacting: ["token"]) { r in .text(r.pathParameter("token") ?? "") }
    router.add(.GET, "/v1/things/:a/parts/:b", redacting: ["b"]) { _ in .text("part") }
    router.get("/v1/paywalls/:id") { _ in .text("paywall") }
    let table = router.build()
    func resolved(_ method: HTTPMethod, _ path: String) throws -> (HTTPRequest, HTTPResponse) {
        var r = request(method, path)
        let response = try table.resolve(&r).handler(r)
        return (r, response)
    }
    let (link, response) = try resolved(.GET, "/v1/previews/secret.mac")
    #expect(link.loggedPath == "/v1/previews/…" && link.path == "/v1/previews/secret.mac")
    guard case .bytes(let body) = response.body else {
        Issue.record("no body")
        return
    }
    #expect(String(decoding: body, as: UTF8.self) == "secret.mac", "the handler gets the token")
    #expect(try resolved(.HEAD, "/v1/previews/secret.mac").0.loggedPath == "/v1/previews/…")
    #expect(
        try resolved(.POST, "/v1/previews/secret.mac").0.loggedPath == "/v1/previews/…",
        "a 405 is logged without it too")
    #expect(try resolved(.GET, "/v1/things/a1/parts/b2").0.loggedPath == "/v1/things/a1/parts/…")
    // Where a hidden value lies is counted in the (decoded) path's UTF-8, whatever comes before it.
    #expect(try resolved(.GET, "/v1/things/été/parts/b2").0.loggedPath == "/v1/things/été/parts/…")
    var both = Router()
    both.add(.GET, "/v1/:a/x/:b", redacting: ["a", "b"]) { _ in .text("both") }
    var twice = request(.GET, "/v1/kéy/x/a%2Fb")
    _ = both.build().resolve(&twice)
    #expect(twice.loggedPath == "/v1/…/x/…")
    #expect(twice.pathParameter("a") == "kéy" && twice.pathParameter("b") == "a/b")
    #expect(try resolved(.GET, "/v1/paywalls/pw1").0.loggedPath == "/v1/paywalls/pw1")
}
