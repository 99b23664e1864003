import Testing

@testable import HTTP

/// Two bindings are kept inline and any more in an array; lookups and the public list see all of
/// them in route order, and the first binding of a name wins.
@Test func pathParametersKeepEveryBindingInOrder() {
    var parameters = PathParameters()
    #expect(parameters.isEmpty && parameters.all.isEmpty && parameters.value(named: "a") == nil)
    for (name, value) in [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("a", "5")] {
        parameters.append((name: name, value: value))
    }
    #expect(!parameters.isEmpty)
    #expect(parameters.all.map(\.name) == ["a", "b", "c", "d", "a"])
    #expect(parameters.all.map(\.value) == ["1", "2", "3", "4", "5"])
    #expect(["a", "b", "c", "d", "e"].map { parameters.value(named: $0) } == ["1", "2", "3", "4", nil])
    #expect(PathParameters(parameters.all).all.map(\.value) == ["1", "2", "3", "4", "5"])
    // By their bytes, in place: the same values, inline or in the array, and nil for no binding.
    func bytes(_ name: String) -> String? {
        parameters.withUTF8Value(named: name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }
    #expect(["a", "b", "c", "d", "e"].map(bytes) == ["1", "2", "3", "4", nil])
}

/// A route binding three segments hands all three to its handler, whatever the inline limit.
@Test func aRouteBindingThreeSegmentsHandsOverAllThree() throws {
    var router = Router()
    router.get("/a/:x/b/:y/c/:z", execution: .inline) { request in
        .text(["x", "y", "z"].map { request.pathParameter($0) ?? "-" }.joined(separator: ","))
    }
    let table = router.build()
    var request = HTTPRequest(method: .GET, target: "/a/1/b/two%20words/c/3", path: "/a/1/b/two words/c/3")
    let response = try table.resolve(&request).handler(request)
    guard case .bytes(let body) = response.body else {
        Issue.record("expected a body")
        return
    }
    #expect(String(decoding: body, as: UTF8.self) == "1,two words,3")
    // Lent from the request's match by their bytes, a long value too (not a small string).
    let long = String(repeating: "k", count: 40)
    var other = HTTPRequest(method: .GET, target: "/a/1/b/\(long)/c/3", path: "/a/1/b/\(long)/c/3")
    _ = table.resolve(&other)
    for (name, value) in [("x", "1"), ("y", long), ("z", "3")] {
        #expect(other.withPathParameter(name) { $0.map { String(decoding: $0, as: UTF8.self) } } == value)
    }
    #expect(other.withPathParameter("w") { $0 == nil })
    #expect(HTTPRequest(method: .GET, target: "/", path: "/").withPathParameter("x") { $0 == nil })
    #expect(request.pathParameters.map(\.name) == ["x", "y", "z"])
}
