import Dispatch
import HTTP
import XizorDomain

extension HTTPRequest {
    /// The key the route's admission verified (nil on open routes).
    var verifiedKey: VerifiedKey? { context as? VerifiedKey }

    /// `body` with that key lent: no retain and release of it per request.
    func withVerifiedKey<R>(_ body: (VerifiedKey?) throws -> R) rethrows -> R {
        try withContext(as: VerifiedKey.self, body)
    }
}

/// A verified key's requests take its app's share of the handler threads ("" for the admin token).
extension VerifiedKey: HTTPPartitioned {}

/// Turns a route's declared authentication into its admission: run by the server on the request's
/// head, before any body byte is read or `100 Continue` is sent. It verifies the bearer key (401
/// for a missing, malformed, unknown or revoked one; 403 for a key of another kind), takes a token
/// from the key's rate-limit bucket (429), and leaves the verified key in `request.context`, where
/// the handler wrapper of `APIRoutes` finds it. Nothing else in the API layer checks keys.
struct RouteGuard: Sendable {
    let keys: KeyService
    let limits: RateLimits
    let sessions: SessionService

    /// `scope`: what a secret route needs besides the kind of key (nil for the other kinds, and for
    /// MCP, whose tools check their own).
    func admission(for auth: APIAuth, scope: APIScope?) -> HTTPAdmission? {
        guard auth != .none else { return nil }
        // People's sessions reach their own routes, the admin token's (instance admins) and an app's
        // secret routes (members); never the SDK's.
        let acceptsSession = auth == .session || auth == .admin || auth == .secret
        return { [keys, limits, sessions] request in
            if acceptsSession, request.header("Authorization") == nil, let token = SessionAdmission.token(in: request) {
                let key = try SessionAdmission.admit(
                    request, token: token, auth: auth, sessions: sessions, limits: limits)
                if let scope { try key.scopes.require(scope) }
                try limits.take(for: request, key: key)
                request.context = key
                return
            }
            if auth == .session {
                try limits.failedAuthentication(request)
                throw ServiceError(.unauthorized, "session_required", "Sign in first (POST /v1/session).")
            }
            let key =
                auth == .publicKeyInPath
                ? try RouteGuard.verify(pathKey: request, keys: keys, limits: limits)
                : try RouteGuard.verify(request, keys: keys, limits: limits)
            try RouteGuard.require(auth, of: key)
            if let scope { try key.scopes.require(scope) }
            try limits.take(for: request, key: key)
            // Its last use, so the reference moves into the request (no retain and release). The
            // key names the request's partition (`HTTPPartitioned`): the app's id is not copied
            // into every request for the few whose handler is offloaded.
            request.context = consume key
        }
    }

    /// The key of `Authorization: Bearer KEY`. Every failure takes a token from the client
    /// address's failure bucket (`rateLimits.authFailuresPerSecond`); once it is empty, unknown
    /// credentials get 429 without being checked. A credential not in memory is looked for in the
    /// database (the change feed's catch-up, then archived apps) only off the I/O loop: on it,
    /// `HTTPOffload` sends the admission to the handler pool.
    static func verify(_ request: HTTPRequest, keys: KeyService, limits: RateLimits) throws -> VerifiedKey {
        // A credential seen before is answered from memory by its bytes, without a String of it.
        if let known = request.headers.withFirstValue(
            of: .authorization, { credential in credential.flatMap { keys.verified(credential: $0) } })
        {
            return known
        }
        guard let header = request.header(.authorization) else {
            try limits.failedAuthentication(request)
            throw ServiceError(.unauthorized, "missing_api_key", "Send 'Authorization: Bearer KEY'.")
        }
        try limits.admitUnverified(request)
        guard let token = bearerToken(header) else {
            try limits.failedAuthentication(request)
            throw ServiceError(.unauthorized, "invalid_authorization", "The Authorization header must be 'Bearer KEY'.")
        }
        if let key = keys.verify(token, memoKey: header) { return key }
        // Not known here: perhaps a key another process made moments ago. Catching the change feed
        // up reads the database, which the I/O loop never waits on; the server runs the admission
        // again on its handler pool (after the failure bucket above was looked at, in memory).
        if InlineExecution.isActive { throw HTTPOffload() }
        guard let key = try keys.verifyAfterCatchingUp(token, memoKey: header) else {
            try limits.failedAuthentication(request)
            let detail =
                try keys.isKeyOfArchivedApp(token)
                ? "This key belongs to an archived app; an archived app's keys no longer work."
                : "The API key is unknown or revoked."
            throw ServiceError(.unauthorized, "invalid_api_key", detail)
        }
        return key
    }

    /// The key of the `publicKey` path parameter, checked as `verify` checks a bearer key.
    static func verify(pathKey request: HTTPRequest, keys: KeyService, limits: RateLimits) throws -> VerifiedKey {
        let token = request.parameter("publicKey")
        if let known = keys.verified(credential: token) { return known }
        try limits.admitUnverified(request)
        if let key = keys.verify(Substring(token)) { return key }
        // As for a bearer key: the catch-up below reads the database, never on the I/O loop.
        guard !InlineExecution.isActive else { throw HTTPOffload() }
        guard let key = try keys.verifyAfterCatchingUp(Substring(token), memoKey: token) else {
            try limits.failedAuthentication(request)
            throw ServiceError(
                .unauthorized, "invalid_api_key",
                try keys.isKeyOfArchivedApp(Substring(token))
                    ? "This key belongs to an archived app; an archived app's keys no longer work."
                    : "The public key in the path is unknown or revoked.")
        }
        return key
    }

    static func require(_ auth: APIAuth, of key: VerifiedKey) throws {
        switch (auth, key.principal) {
        case (.admin, .admin), (.secret, .secret), (.publicKey, .publicKey), (.none, _):
            return
        case (.publicKeyInPath, .publicKey), (.session, .person):
            return
        case (.session, _):
            throw ServiceError(.unauthorized, "session_required", "Sign in first (POST /v1/session).")
        case (.admin, _):
            throw ServiceError(.forbidden, "admin_token_required", "This endpoint needs the admin token.")
        case (.secret, _):
            throw ServiceError(.forbidden, "secret_key_required", "This endpoint needs the app's secret key (sk_…).")
        case (.publicKey, _), (.publicKeyInPath, _):
            // A secret key of the same app is not accepted either: secret keys stay on servers.
            throw ServiceError(.forbidden, "public_key_required", "This endpoint needs the app's public key (pk_…).")
        }
    }

    /// A handler of an authenticated route reached without its admission having run: a wiring
    /// bug, answered as a 500 rather than served unauthenticated.
    static func unadmitted(_ request: HTTPRequest) -> HTTPError {
        HTTPError(
            .internalServerError, code: "unadmitted_request",
            detail: "The request reached \(request.routeTemplate ?? request.path) without passing its authentication.")
    }

    /// The token of `Bearer TOKEN` (scheme case-insensitive, RFC 9110 §11.1), without Foundation
    /// string searching: this runs on every SDK request.
    static func bearerToken(_ header: String) -> Substring? {
        let utf8 = header.utf8
        guard utf8.count > 7 else { return nil }
        var index = utf8.startIndex
        for expected in "bearer".utf8 {
            guard utf8[index] | 0x20 == expected else { return nil }
            index = utf8.index(after: index)
        }
        guard utf8[index] == UInt8(ascii: " ") else { return nil }
        var start = utf8.index(after: index)
        while start < utf8.endIndex, utf8[start] == UInt8(ascii: " ") { start = utf8.index(after: start) }
        var end = utf8.endIndex
        while end > start, utf8[utf8.index(before: end)] == UInt8(ascii: " ") { end = utf8.index(before: end) }
        guard start < end else { return nil }
        return header[start..<end]
    }
}
