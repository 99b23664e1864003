import Testing

@testable import HTTP

private class Key: @unchecked Sendable {
    let name: String
    init(_ name: String) { self.name = name }
}
private final class SpecialKey: Key, @unchecked Sendable {}
private final class Other: Sendable {}

/// A request's context and route match are held by hand and lent: the context is found by its
/// exact type (an object of another type, or a subclass, is not), a copy of the request keeps its
/// own reference, and every object is released when nothing holds it any more.
@Test func theContextIsLentByItsExactTypeAndReleasedWithItsHolders() {
    weak var released: Key?
    do {
        var request = HTTPRequest(method: .GET, target: "/", path: "/")
        #expect(request.withContext(as: Key.self) { $0 == nil })
        let key = Key("k1")
        released = key
        request.context = key
        #expect(request.withContext(as: Key.self) { $0?.name } == "k1")
        #expect(request.withContext(as: Other.self) { $0 == nil })
        #expect((request.context as? Key)?.name == "k1")

        // A copy shares the box until one of them changes it: the other still lends its own.
        var copy = request
        copy.context = Other()
        #expect(copy.withContext(as: Key.self) { $0 == nil })
        #expect(request.withContext(as: Key.self) { $0 === key })

        // Exactly the type asked: a subclass's object is not lent as its superclass.
        copy.context = SpecialKey("k2")
        #expect(copy.withContext(as: Key.self) { $0 == nil })
        #expect(copy.withContext(as: SpecialKey.self) { $0?.name } == "k2")
        // Set again to the object it holds: kept, not released on the way.
        request.context = request.context
        #expect(request.withContext(as: Key.self) { $0 === key })
    }
    #expect(released == nil, "the context is released with the last request holding it")
}

@Test func aRouteMatchIsLentAndReleased() {
    weak var released: RouteMatch?
    do {
        var request = HTTPRequest(method: .GET, target: "/v1/apps/a1", path: "/v1/apps/a1")
        #expect(request.pathParameter("id") == nil && request.routeIndex == -1)
        let match = RouteMatch.unmatched.with(parameters: PathParameters([(name: "id", value: "a1")])).with(index: 3)
        released = match
        request.routeMatch = match
        #expect(request.pathParameter("id") == "a1" && request.routeIndex == 3)
        #expect(request.pathParameterHashed("id")?.value == "a1")
        #expect(request.withPathParameter("id") { $0.map { Array($0) } } == Array("a1".utf8))
        request.routeMatch = nil
        #expect(request.pathParameter("id") == nil && request.routeIndex == -1)
        #expect(request.withPathParameter("id") { $0 == nil }, "no match: the absent branch")
    }
    #expect(released == nil, "the match is released when the request lets it go")
}
