import HTTP
import PaywallFormat
import XizorDomain

/// Signing in and out, and a person's own sessions (docs/teams.md, "Sessions").
struct SessionRoutes {
    let services: XizorServices
    let limits: RateLimits

    func register(in routes: inout APIRoutes) {
        let services = services
        let limits = limits
        // Open: the body proves who it is. An address whose failures emptied its bucket is answered
        // 429 before any password is hashed; every failure takes a token from it.
        routes.open(.POST, "/v1/session", Self.signIn) { request in
            try limits.admitUnverified(request)
            let signedIn: SessionService.SignedIn
            do {
                signedIn = try SessionAdmission.anonymous(request) {
                    try services.sessions.signIn(
                        try request.jsonBody(), address: RateLimits.host(of: request.remoteAddress),
                        userAgent: request.header("User-Agent"), presentedToken: SessionAdmission.token(in: request))
                }
            } catch let error as ServiceError where error.code == "invalid_credentials" {
                try limits.failedAuthentication(request)
                throw error
            }
            return try Self.signedIn(signedIn, services: services)
        }
        // Open: what the sign-in page offers (a password form, a single sign-on button).
        routes.open(.GET, "/v1/session/methods", Self.getSignInMethods, execution: .inline) { _ in
            APIResponse.json([
                "password": .bool(services.sessions.options.passwordSignIn),
                "singleSignOn": services.singleSignOn == nil ? .null : .string("/v1/session/oidc"),
            ])
        }
        routes.session(.GET, "/v1/session", Self.getSession) { _, session in
            var response = APIResponse.json(try Self.describe(session, services: services))
            response.headers["Cache-Control"] = "no-store"
            return response
        }
        routes.session(.DELETE, "/v1/session", Self.signOut) { _, session in
            try services.sessions.revoke(sessionID: session.session.id, of: session.actingUser)
            var response = HTTPResponse(status: .noContent)
            response.headers["Set-Cookie"] = SessionAdmission.clearedCookie
            return response
        }
        routes.session(.GET, "/v1/me/sessions", Self.listSessions) { _, session in
            let list = try services.sessions.sessions(userID: session.user.id)
            return APIResponse.json([
                "sessions": .array(list.map { $0.json(current: $0.id == session.session.id) })
            ])
        }
        routes.session(.DELETE, "/v1/me/sessions/:sessionId", Self.revokeSession) { request, session in
            try services.sessions.revoke(sessionID: request.parameter("sessionId"), of: session.actingUser)
            return HTTPResponse(status: .noContent)
        }
        routes.session(.DELETE, "/v1/me/sessions", Self.revokeAllSessions) { _, session in
            try services.sessions.revokeAll(of: session.actingUser)
            var response = HTTPResponse(status: .noContent)
            response.headers["Set-Cookie"] = SessionAdmission.clearedCookie
            return response
        }
    }

    /// The 201 of a new session: its description, and the cookie that carries it.
    static func signedIn(
        _ signedIn: SessionService.SignedIn, services: XizorServices, adding extra: [String: JSONValue] = [:]
    ) throws -> HTTPResponse {
        var body = try describe(signedIn.verified, services: services)
        if case .object(var members) = body {
            members.merge(extra) { _, added in added }
            body = .object(members)
        }
        var response = APIResponse.json(body, status: .created)
        let session = signedIn.verified.session
        let maxAge = Int((session.expiresAt - session.createdAt) / 1000)
        response.headers["Set-Cookie"] = SessionAdmission.cookie(signedIn.token, maxAgeSeconds: maxAge)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// What the console learns of a session: who, until when, the CSRF token, and the apps.
    static func describe(_ session: SessionService.Verified, services: XizorServices) throws -> JSONValue {
        let idle = Int64(services.sessions.options.idleSeconds) * 1000
        return [
            "user": session.user.json,
            "session": [
                "id": .string(session.session.id), "createdAt": .number(Int(session.session.createdAt)),
                "expiresAt": .number(Int(session.session.expiresAt)),
                "idleExpiresAt": .number(Int(min(session.session.expiresAt, session.session.lastSeenAt + idle))),
            ],
            "csrfToken": .string(session.csrfToken),
            "memberships": .array(try services.sessions.memberships(userID: session.user.id).map(\.appJSON)),
        ]
    }
}
