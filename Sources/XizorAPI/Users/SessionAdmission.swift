import Execution
import HTTP
import XizorDomain

/// A person's requests (docs/teams.md, "Sessions"): the `__Host-` session cookie, checked where a
/// route's authentication is declared, as keys are. A request that carries `Authorization` is a
/// key's and its cookie is ignored; a bearer key is never ambient, so it needs no CSRF check.
enum SessionAdmission {
    /// The cookie's name. `__Host-` makes browsers refuse it unless it is `Secure`, has `Path=/`
    /// and no `Domain`: no other host, not even a subdomain, can set or overwrite it.
    static let cookieName = "__Host-xizor_session"
    /// The header an unsafe request of a session repeats its CSRF token in.
    static let csrfHeader = "X-Xizor-CSRF"
    /// The header a session names the app it acts on with (a person may belong to several).
    static let appHeader = "X-Xizor-App-Id"

    /// The session token of the request's cookie, if any.
    static func token(in request: HTTPRequest) -> String? { cookie(cookieName, in: request) }

    /// The value of the cookie `name` the request carries (nil: none, or empty).
    static func cookie(_ name: String, in request: HTTPRequest) -> String? {
        guard let cookies = request.header("Cookie") else { return nil }
        for pair in cookies.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " }
            guard trimmed.hasPrefix(name + "=") else { continue }
            let value = trimmed.dropFirst(name.utf8.count + 1)
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// Admits a request by its session as `auth` asks: a person on their own routes, an instance
    /// admin on the admin token's, a member on an app's (with their role's scopes). Reads the
    /// database, so never on an I/O loop.
    static func admit(
        _ request: HTTPRequest, token: String, auth: APIAuth, sessions: SessionService, limits: RateLimits
    ) throws -> VerifiedKey {
        if InlineExecution.isActive { throw HTTPOffload() }
        // A live session is never refused for its address's failures (a colleague behind the same
        // NAT as an attacker); an ended or made-up one draws from the address's failure bucket.
        let verified: SessionService.Verified
        do { verified = try sessions.verify(token: token) } catch let error as ServiceError
            where error.kind == .unauthorized
        {
            try limits.failedAuthentication(request)
            throw error
        }
        if !request.method.isSafeRead { try checkCSRF(request, token: token) }
        switch auth {
        case .admin:
            guard verified.user.instanceAdmin else {
                throw ServiceError(.forbidden, "admin_required", "This needs an instance administrator.")
            }
            return .person(verified, as: .admin, scopes: .all)
        case .secret:
            guard let appID = request.header(appHeader), !appID.isEmpty else {
                throw ServiceError(
                    .badRequest, "app_required", "Name the app with '\(appHeader)': a person may belong to several.")
            }
            let scopes = try sessions.scopes(of: verified.user, in: appID)
            return .person(verified, as: .secret(appID: appID), scopes: scopes)
        default:
            return .person(verified, as: .person(userID: verified.user.id), scopes: .all)
        }
    }

    /// An unsafe request of a session must repeat the session's CSRF token in a header (which no
    /// other site can read or set) and come from this server's own origin (`Origin`'s host and port
    /// are the request's `Host`). Either alone stops a cross-site form; both are asked for.
    static func checkCSRF(_ request: HTTPRequest, token: String) throws {
        guard let candidate = request.header(csrfHeader), SessionService.isCSRFToken(candidate, of: token) else {
            throw ServiceError(
                .forbidden, "csrf_token_invalid",
                "A change made with a session needs its CSRF token in '\(csrfHeader)' (from GET /v1/session).")
        }
        guard isSameOrigin(request) else {
            throw ServiceError(
                .forbidden, "csrf_origin_mismatch",
                "A change made with a session must come from this server's own origin (its Origin header).")
        }
    }

    /// Whether the request's `Origin` is this server's own: its host and port are the request's `Host`.
    static func isSameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.header("Origin"), let host = request.header("Host"),
            let separator = origin.range(of: "://")
        else { return false }
        return origin[separator.upperBound...].lowercased() == host.lowercased()
    }

    /// Runs an open route's work (signing in, accepting an invitation) with the request's id and
    /// channel as the ambient actor: the person it becomes is recorded with them (`WriteActor.person`).
    static func anonymous<T>(_ request: HTTPRequest, _ body: () throws -> T) rethrows -> T {
        let id = request.requestId
        return try WriteActor.$current.withValue(
            WriteActor(kind: .system, keyID: nil, via: .rest, requestID: id.isEmpty ? nil : id), operation: body)
    }

    /// The `Set-Cookie` value that hands the browser a new session.
    static func cookie(_ token: String, maxAgeSeconds: Int) -> String {
        setCookie(cookieName, token, maxAgeSeconds: maxAgeSeconds)
    }

    /// A `__Host-` cookie as every cookie of this server is set: the whole site, for this host only,
    /// out of scripts' reach, over TLS, kept off other sites' posts.
    static func setCookie(_ name: String, _ value: String, maxAgeSeconds: Int) -> String {
        "\(name)=\(value); Path=/; Max-Age=\(maxAgeSeconds); HttpOnly; Secure; SameSite=Lax"
    }

    /// The `Set-Cookie` value that clears it.
    static let clearedCookie = setCookie(cookieName, "", maxAgeSeconds: 0)
}
