import HTTP
import XizorLog

#if canImport(Glibc)
    import Glibc
#endif

/// The routes the live tests and the benchmark exercise.
enum FixtureRoutes {
    /// The benchmark payload: a fixed 6 KB JSON document (also written by the bench script for nginx).
    static let benchBody: [UInt8] = {
        var s = "{\"items\":["
        var n = 0
        while s.utf8.count < 6000 {
            if n > 0 { s += "," }
            s += "{\"id\":\(n),\"name\":\"item-\(n)\",\"price\":\(n * 3 % 97).99}"
            n += 1
        }
        s += "],\"pad\":\""
        while s.utf8.count < 6142 { s += "x" }
        s += "\"}\n"
        return Array(s.utf8)
    }()

    static let benchETag = "\"bench-6k-v1\""

    static func router(drain: DrainState) -> Router {
        var router = Router()
        let health = HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json"], body: Array("{\"status\":\"ok\"}".utf8))
        router.get("/healthz", execution: .inline) { _ in health }
        router.get("/readyz", execution: .inline) { _ in
            drain.isDraining ? HTTPResponse.text("draining", status: .serviceUnavailable) : HTTPResponse.text("ready")
        }

        let bench = HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"],
            body: benchBody, etag: benchETag,
            gzip: .init(body: Gzip.compress(benchBody) ?? benchBody, etag: HTTPResponse.gzipETag(for: benchETag)))
        router.get("/bench", execution: .inline) { _ in bench }

        let small = HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json", "Cache-Control": "no-cache"],
            body: Array("{\"v\":1}".utf8), etag: "\"small-v1\"")
        router.get("/etag", execution: .inline) { _ in small }
        router.put("/etag") { _ in small }

        for method in [HTTPMethod.GET, .POST, .PUT, .DELETE, .PATCH] {
            router.add(method, "/echo") { request in echo(request) }
        }
        router.get("/items/:id/versions/:n") { request in echo(request) }
        router.get("/items/special") { _ in HTTPResponse.text("special") }

        router.get("/slow") { request in
            let ms = Int(request.query("ms") ?? "") ?? 1000
            usleep(UInt32(max(0, min(ms, 60_000))) * 1000)
            return HTTPResponse.text("slept \(ms)\n")
        }
        router.get("/throw") { _ in throw FixtureFailure.deliberate }
        router.get("/problem") { _ in
            throw HTTPError(.unprocessableContent, code: "fixture_problem", detail: "A deliberate client error.")
        }
        router.get("/stream") { request in
            let chunks = Int(request.query("chunks") ?? "") ?? 5
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"]) { writer in
                for i in 0..<chunks {
                    try writer.write(Array("chunk \(i)\n".utf8))
                }
            }
        }
        let large: [UInt8] = {
            var s = ""
            var i = 0
            while s.utf8.count < 200_000 {
                s += "line \(i): the quick brown fox jumps over the lazy dog\n"
                i += 1
            }
            return Array(s.utf8)
        }()
        router.get("/large") { _ in
            HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; charset=utf-8"], body: large, etag: "\"large-v1\"")
        }
        return router
    }

    enum FixtureFailure: Error { case deliberate }

    /// Reflects the request as JSON for the tests.
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        var json =
            "{\"method\":\(JSONText.string(request.method.description)),\"target\":\(JSONText.string(request.target))"
        json += ",\"path\":\(JSONText.string(request.path)),\"version\":\(JSONText.string(request.version.description))"
        json +=
            ",\"requestId\":\(JSONText.string(request.requestId)),\"remote\":\(JSONText.string(request.remoteAddress))"
        json += ",\"route\":\(JSONText.string(request.routeTemplate ?? ""))"
        json +=
            ",\"query\":["
            + request.queryParameters.map { "[\(JSONText.string($0.name)),\(JSONText.string($0.value))]" }.joined(
                separator: ",") + "]"
        json +=
            ",\"params\":{"
            + request.pathParameters.map { "\(JSONText.string($0.name)):\(JSONText.string($0.value))" }.joined(
                separator: ",") + "}"
        json +=
            ",\"headers\":["
            + request.headers.pairs.map { "[\(JSONText.string($0.name)),\(JSONText.string($0.value))]" }.joined(
                separator: ",") + "]"
        json +=
            ",\"bodyLength\":\(request.body.count),\"body\":\(JSONText.string(String(decoding: request.body, as: UTF8.self)))}"
        return HTTPResponse(
            status: .ok, headers: ["Content-Type": "application/json"], body: Array(json.utf8), compressible: false)
    }
}
