import Testing

@testable import HTTP

/// A loop's route memo (`RouteMemo`) must answer exactly what walking the tree answers, for every
/// method and path, including the ones it evicts, refuses to keep or never matched.

private func table() -> RoutingTable {
    var router = Router()
    router.get("/v1/paywalls/:id/versions/:n", execution: .inline) { r in
        .text("v \(r.pathParameter("id") ?? "")/\(r.pathParameter("n") ?? "")")
    }
    router.get("/v1/paywalls/:id", execution: .inline) { r in .text("get \(r.pathParameter("id") ?? "")") }
    router.put("/v1/paywalls/:id", execution: .inline) { r in .text("put \(r.pathParameter("id") ?? "")") }
    router.get("/v1/paywalls/new", execution: .inline) { _ in .text("literal") }
    router.post("/v1/paywalls", execution: .inline) { _ in .text("create") }
    router.add(.GET, "/v1/links/:token/open", execution: .inline, redacting: ["token"]) { r in
        .text("link \(r.pathParameter("token") ?? "")")
    }
    router.get("/", execution: .inline) { _ in .text("root") }
    return router.build()
}

/// Everything a resolution set on the request, and what its handler answered.
private struct Outcome: Equatable {
    let resolution: ObjectIdentifier
    let template: String?
    let index: Int
    let parameters: [String]
    let loggedPath: String
    let status: Int
    let body: String
}

private func outcome(_ table: RoutingTable, _ request: HTTPRequest, memo: RouteMemo?) throws -> Outcome {
    var r = request
    let resolution = table.resolve(&r, memo: memo)
    let response = try resolution.handler(r)
    var body = ""
    if case .bytes(let b) = response.body { body = String(decoding: b, as: UTF8.self) }
    return Outcome(
        resolution: ObjectIdentifier(resolution), template: r.routeTemplate, index: r.routeIndex,
        parameters: r.pathParameters.map { "\($0.name)=\($0.value)" }, loggedPath: r.loggedPath,
        status: response.status.code, body: body)
}

/// Parsed requests (their path is the head's own bytes) and built ones (a decoded path).
private func requests() throws -> [HTTPRequest] {
    let long = "/v1/paywalls/" + String(repeating: "x", count: 140)
    let targets = [
        "/v1/paywalls/p1", "/v1/paywalls/p2", "/v1/paywalls/new", "/v1/paywalls/p1/versions/7",
        "/v1/paywalls/p1/versions/8", "/v1/paywalls", "/v1/paywalls/", "/v1/links/secret-token/open",
        "/v1/links/other-token/open", "/v1/nothing/here", "/", "/v1/paywalls/a%2Fb", long,
        "/v1/paywalls/p1?x=1",
    ]
    var all: [HTTPRequest] = []
    for method in ["GET", "HEAD", "PUT", "POST", "OPTIONS", "DELETE"] {
        for target in targets {
            let (parsed, error) = parseAll(Array("\(method) \(target) HTTP/1.1\r\nHost: h\r\n\r\n".utf8), chunk: 4096)
            #expect(error == nil && parsed.count == 1, "\(method) \(target)")
            all += parsed
        }
    }
    all.append(HTTPRequest(method: .GET, target: "/v1/paywalls/q%31", path: "/v1/paywalls/q1"))
    all.append(HTTPRequest(method: .GET, target: "/v1/paywalls/q1", path: "/v1/paywalls/q1"))
    return all
}

@Test func theMemoAnswersWhatTheWalkAnswersOnMissesAndHits() throws {
    let table = table()
    let memo = RouteMemo()
    let all = try requests()
    var kept = 0
    for round in 0..<2 {
        for request in all {
            let walked = try outcome(table, request, memo: nil)
            #expect(
                try outcome(table, request, memo: memo) == walked, "round \(round): \(request.method) \(request.target)"
            )
            // Asked again at once: a path that matched and fits is now in its slot, whatever was there.
            let hits = memo.hits
            #expect(try outcome(table, request, memo: memo) == walked, "again: \(request.method) \(request.target)")
            let keptHere = walked.index >= 0 && request.path.utf8.count <= RouteMemo.keyCapacity
            #expect(memo.hits == hits + (keptHere ? 1 : 0), "\(request.method) \(request.target)")
            if keptHere { kept += 1 }
        }
    }
    #expect(kept > 80, "most of the requests match a route")
    let redacted = try outcome(table, all[7], memo: memo)
    #expect(redacted.loggedPath == "/v1/links/…/open" && redacted.body == "link secret-token")
}

@Test func theMemoKeysOnTheMethodAndTheWholePath() throws {
    let table = table()
    let memo = RouteMemo()
    func answer(_ method: HTTPMethod, _ path: String) throws -> String {
        try outcome(table, HTTPRequest(method: method, target: path, path: path), memo: memo).body
    }
    #expect(try answer(.GET, "/v1/paywalls/p1") == "get p1")
    #expect(try answer(.PUT, "/v1/paywalls/p1") == "put p1")
    #expect(try answer(.GET, "/v1/paywalls/p1") == "get p1")
    // Same length, one byte apart; a prefix; the same bytes under another method.
    #expect(try answer(.GET, "/v1/paywalls/p2") == "get p2")
    #expect(try answer(.GET, "/v1/paywalls/p") == "get p")
    #expect(try answer(.PUT, "/v1/paywalls/p2") == "put p2")
    #expect(try answer(.GET, "/v1/paywalls/p1/versions/1") == "v p1/1")
    #expect(try answer(.HEAD, "/v1/paywalls/p1") == "get p1")
}

@Test func anEvictedOrCollidingPathIsRoutedAgain() throws {
    let table = table()
    let memo = RouteMemo()
    // Four times as many distinct paths as slots: every slot is overwritten, many of them often.
    let ids = (0..<(4 * RouteMemo.slotCount)).map { "id\($0)" }
    for pass in 0..<2 {
        for id in ids {
            let path = "/v1/paywalls/\(id)"
            let got = try outcome(table, HTTPRequest(method: .GET, target: path, path: path), memo: memo)
            #expect(got.body == "get \(id)" && got.parameters == ["id=\(id)"], "pass \(pass): \(id)")
        }
    }
    #expect(memo.hits < ids.count, "most of the second pass found its slot taken by a later path")
}

/// A match the memo keeps carries each value's `hashValue` (a handler's table lookup then hashes
/// nothing); one routed without a memo computes it when asked. Both are the value's own hash.
@Test func aBoundValueComesWithItsHashWithOrWithoutTheMemo() throws {
    let table = table()
    let memo = RouteMemo()
    for useMemo in [true, false] {
        for _ in 0..<2 {
            var r = HTTPRequest(method: .GET, target: "/v1/paywalls/p9/versions/3", path: "/v1/paywalls/p9/versions/3")
            _ = table.resolve(&r, memo: useMemo ? memo : nil)
            let id = r.pathParameterHashed("id")
            let n = r.pathParameterHashed("n")
            #expect(id?.value == "p9" && id?.hashValue == "p9".hashValue, "memo \(useMemo)")
            #expect(n?.value == "3" && n?.hashValue == "3".hashValue, "memo \(useMemo)")
            #expect(r.pathParameterHashed("missing") == nil)
        }
    }
    #expect(memo.hits == 1)
}
