import HTTP
import Testing

@testable import XizorAPI
@testable import XizorDomain

/// Authentication is the route table's: every route but the open ones carries an admission, the
/// admission leaves the verified key on the request, and a handler reached without it refuses to
/// run (a wiring bug is a 500, never an unauthenticated answer).
@Suite struct RouteGuardTests {
    func request(_ method: HTTPMethod, _ path: String, key: String?) -> HTTPRequest {
        var headers: [(String, String)] = [("Host", "x")]
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        return HTTPRequest(method: method, target: path, path: path, headers: HTTPRequestHeaders(headers))
    }

    @Test func everyDeclaredRouteIsAdmittedAndHandlersRunOnlyAfterIt() throws {
        let test = try TestServices("guard")
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "A")
        let (table, document) = XizorApplication.build(services: test.services, isDraining: { false })
        // The console's page and files are static and public: it signs in with a key the user types.
        let open: Set<String> = [
            "/healthz", "/readyz", "/metrics", "/openapi.json", "/v1/assets/:folder/:file",
            "/", "/console", "/console/v/:version/:file",
            // A preview link is its own proof (signed, expiring): a frame cannot send a key.
            "/v1/previews/:token",
            // A built-in template's page, the same for every app: the console's gallery frames it.
            "/v1/templates/:name/preview",
            // The public keys SDK answers are signed with: published for apps to pin.
            "/v1/sdk/signing-keys",
        ]
        // Signing in: the body (email and password), an invitation's token, or the identity provider's
        // answer is the proof.
        let openMethods: Set<String> = [
            "POST /v1/session", "GET /v1/session/methods", "POST /v1/invitations/accept", "GET /v1/session/oidc",
            "GET /v1/session/oidc/callback",
        ]
        for (method, pattern) in table.registeredRoutes {
            let path = pattern.split(separator: "/").map { $0.hasPrefix(":") ? "x" : String($0) }.joined(separator: "/")
            var plain = request(method, "/" + path, key: nil)
            let resolution = table.resolve(&plain)
            let isOpen = open.contains(pattern) || openMethods.contains("\(method) \(pattern)")
            #expect((resolution.admission == nil) == isOpen, "\(method) \(pattern)")
            guard resolution.admission != nil else { continue }
            // Straight to the handler, as if the admission had been skipped.
            #expect("\(method) \(pattern) ran without its admission") {
                _ = try resolution.handler(plain)
            } throws: { error in
                (error as? HTTPError)?.code == "unadmitted_request"
            }
        }
        // The secret key is admitted on a secret route and its app reaches the handler.
        var listing = request(.GET, "/v1/paywalls", key: app.secretKey)
        let resolution = table.resolve(&listing)
        let admission = try #require(resolution.admission)
        try admission(&listing)
        #expect(listing.verifiedKey?.principal == .secret(appID: app.appID))
        // Its offloaded work takes the app's share of the handler threads, no other's.
        #expect(listing.partition == app.appID)
        #expect(try resolution.handler(listing).status.code == 200)
        // The document's security is what the table enforces.
        #expect(document["paths"]?["/v1/apps"]?["post"]?["security"] == [["adminToken": []], ["session": []]])
        #expect(document["paths"]?["/healthz"]?["get"]?["security"] == [])
    }

    @Test func theAdmissionRefusesBeforeAnyHandler() throws {
        let test = try TestServices("guard")
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "A")
        let table = XizorApplication.routes(services: test.services, isDraining: { false })
        let cases: [(String?, String)] = [
            (nil, "missing_api_key"), ("sk_nothing", "invalid_api_key"),
            (app.publicKey, "secret_key_required"),
        ]
        for (key, code) in cases {
            var r = request(.POST, "/v1/paywalls", key: key)
            let resolution = table.resolve(&r)
            #expect(throws: ServiceError.self) { try resolution.admission?(&r) }
            do {
                try resolution.admission?(&r)
            } catch {
                let refusal = try #require(resolution.refusal)
                let answer = try refusal(r, error)
                guard case .bytes(let body) = answer.body else {
                    Issue.record("no body")
                    continue
                }
                #expect(String(decoding: body, as: UTF8.self).contains("\"code\":\"\(code)\""))
            }
            #expect(r.verifiedKey == nil)
        }
    }

    /// A key is remembered by itself, not by the form that carried it: the path form's key (read
    /// from the path by its bytes) and the bearer header's share one memo, and a bare key in
    /// `Authorization` is refused whether or not the path form verified it first (when the memo
    /// held whole header values, it then passed).
    @Test func aKeyIsRememberedByItselfNotByTheFormThatCarriedIt() throws {
        let test = try TestServices("guard")
        defer { test.remove() }
        let app = try test.services.keys.createApp(name: "A")
        let table = XizorApplication.routes(services: test.services, isDraining: { false })
        func admit(_ path: String, authorization: String?) -> Result<VerifiedKey?, ServiceError> {
            var headers: [(String, String)] = [("Host", "x")]
            if let authorization { headers.append(("Authorization", authorization)) }
            var r = HTTPRequest(method: .GET, target: path, path: path, headers: HTTPRequestHeaders(headers))
            let resolution = table.resolve(&r)
            do {
                try resolution.admission?(&r)
                return .success(r.verifiedKey)
            } catch let error as ServiceError {
                return .failure(error)
            } catch {
                Issue.record("unexpected \(error)")
                return .success(nil)
            }
        }
        let pathForm = "/v1/sdk/apps/\(app.publicKey)/placements/onboarding/paywall"
        let authenticated = "/v1/sdk/placements/onboarding/paywall"
        for _ in 0..<2 {  // the second time from the memo (and this thread's)
            #expect(try admit(pathForm, authorization: nil).get()?.principal == .publicKey(appID: app.appID))
            #expect(throws: ServiceError.self) { try admit(authenticated, authorization: app.publicKey).get() }
            if case .failure(let error) = admit(authenticated, authorization: app.publicKey) {
                #expect(error.code == "invalid_authorization")
            }
            for header in ["Bearer \(app.publicKey)", "bearer  \(app.publicKey) ", "BEARER \(app.publicKey)"] {
                #expect(
                    try admit(authenticated, authorization: header).get()?.principal == .publicKey(appID: app.appID))
            }
        }
        // A header's form in the path is not the key either.
        let bearerInPath = "/v1/sdk/apps/Bearer%20\(app.publicKey)/placements/onboarding/paywall"
        #expect(throws: ServiceError.self) { try admit(bearerInPath, authorization: nil).get() }
        #expect(throws: ServiceError.self) {
            try admit("/v1/sdk/apps/\(app.publicKey)x/placements/o/paywall", authorization: nil).get()
        }
    }

    /// `Bearer TOKEN`'s token, read from the bytes: the scheme in any case, spaces around the token.
    @Test func theBearerTokenIsReadFromTheHeadersBytes() {
        let cases: [(String, String?)] = [
            ("Bearer pk_1", "pk_1"), ("bearer pk_1", "pk_1"), ("BeArEr   pk_1  ", "pk_1"), ("Bearer a b", "a b"),
            ("Bearer", nil), ("Bearer ", nil), ("Bearer    ", nil), ("Bearerpk_1", nil), ("Basic abc", nil),
            ("Bearar pk_1", nil), ("pk_1", nil), ("", nil), ("Bearer\u{E9} x", nil),
            ("Bearer \u{E9}t\u{E9}", "\u{E9}t\u{E9}"), ("BEARER k", "k"), ("Bearer\u{0}pk_1", nil),
            ("Bearer\tpk_1", nil), ("Bearer@pk_1", nil), ("Bearer\u{0}", nil), ("Bearer  ", nil), ("bearer  k", "k"),
        ]
        #expect(RouteGuard.bearerScheme == "bearer ".utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) })
        for (header, token) in cases {
            #expect(RouteGuard.bearerToken(header).map(String.init) == token, "\(header)")
            let range = Array(header.utf8).withUnsafeBufferPointer { RouteGuard.bearerTokenRange($0) }
            #expect(range.map { String(decoding: Array(header.utf8)[$0], as: UTF8.self) } == token, "\(header)")
        }
    }
}
