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
        // A key seen before is answered from memory by its bytes, without a String of it.
        if let known = request.headers.withFirstValue(
            of: .authorization,
            { header in
                header.flatMap { header in
                    bearerTokenRange(header).flatMap { keys.verified(token: UnsafeBufferPointer(rebasing: header[$0])) }
                }
            })
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
        return try verifyUnknown(
            token, request: request, keys: keys, limits: limits, unknown: "The API key is unknown or revoked.")
    }

    /// The key of the `publicKey` path parameter, checked as `verify` checks a bearer key (from the
    /// same memo, by the path's bytes).
    static func verify(pathKey request: HTTPRequest, keys: KeyService, limits: RateLimits) throws -> VerifiedKey {
        // `keys` passed unretained: captured by the closure, it was retained and released around
        // the lookup, and its count lives in a side table (the change feed's applier holds it
        // weakly), three atomic instructions each way. It outlives the call (a parameter).
        let lent = Unmanaged.passUnretained(keys)
        if let known = request.withPathParameter(
            "publicKey",
            { token in token.flatMap { token in lent._withUnsafeGuaranteedRef { $0.verified(token: token) } } })
        {
            return known
        }
        try limits.admitUnverified(request)
        return try verifyUnknown(
            request.parameter("publicKey")[...], request: request, keys: keys, limits: limits,
            unknown: "The public key in the path is unknown or revoked.")
    }

    /// A token the memo did not know: verified against the table's hashes, then (off the I/O loop)
    /// after catching the change feed up; a failure takes from the address's failure bucket.
    private static func verifyUnknown(
        _ token: Substring, request: HTTPRequest, keys: KeyService, limits: RateLimits, unknown: String
    ) throws -> VerifiedKey {
        if let key = keys.verify(token) { return key }
        // Not known here: perhaps a key another process made moments ago. Catching the change feed
        // up reads the database, which the I/O loop never waits on; the server runs the admission
        // again on its handler pool (after the failure bucket above was looked at, in memory).
        if InlineExecution.isActive { throw HTTPOffload() }
        guard let key = try keys.verifyAfterCatchingUp(token) else {
            try limits.failedAuthentication(request)
            let detail =
                try keys.isKeyOfArchivedApp(token)
                ? "This key belongs to an archived app; an archived app's keys no longer work."
                : unknown
            throw ServiceError(.unauthorized, "invalid_api_key", detail)
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

    /// The token of `Bearer TOKEN` (scheme case-insensitive, RFC 9110 §11.1).
    static func bearerToken(_ header: String) -> Substring? {
        var header = header
        guard let range = header.withUTF8(bearerTokenRange) else { return nil }
        let utf8 = header.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return header[start..<utf8.index(start, offsetBy: range.count)]
    }

    /// `bearer ` as the low seven bytes of a little-endian word (`b` = 0x62 lowest).
    static let bearerScheme: UInt64 = 0x0020_7265_7261_6562

    /// Where the token is in the bytes of `Bearer TOKEN` (without the spaces around it), read in
    /// place: this runs on every SDK request. Its ends are ASCII, so they are a String's indices too.
    static func bearerTokenRange(_ header: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        // The scheme and its space in one load: the six letters' case bit set (only `B` and `b`
        // give `b`, and so on), the space compared exactly, the eighth byte (the token's) masked off.
        guard header.count > 7, let base = header.baseAddress else { return nil }
        let word = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self).littleEndian
        guard (word | 0x2020_2020_2020) & 0x00FF_FFFF_FFFF_FFFF == Self.bearerScheme else { return nil }
        var start = 7
        while start < header.count, header[start] == UInt8(ascii: " ") { start += 1 }
        var end = header.count
        while end > start, header[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return start < end ? start..<end : nil
    }
}
