import HTTP
import PaywallFormat
import XizorDomain

/// Single sign-on (docs/teams.md, "Single sign-on"): both routes are open — the browser arrives
/// without a session — and every start and every refusal draws from the address's failure bucket,
/// so a stranger cannot make the server store logins or call the provider without bound.
struct SingleSignOnRoutes {
    let services: XizorServices
    let limits: RateLimits
    /// Where a signed-in browser lands: the console (nil: the console is off, so `/`).
    let consolePath: String?

    /// The cookie that binds a login to the browser that started it (10 minutes).
    static let browserCookie = "__Host-xizor_oidc"

    func register(in routes: inout APIRoutes) {
        let services = services
        let limits = limits
        let landing = (consolePath ?? "") + "#/paywalls"
        routes.open(.GET, "/v1/session/oidc", Self.startSingleSignOn) { request in
            guard let sso = services.singleSignOn else { throw Self.notConfigured }
            try limits.admitUnverified(request)
            try limits.failedAuthentication(request)
            let (redirect, browser) = try sso.start()
            var response = HTTPResponse(status: .found, headers: ["Location": redirect, "Cache-Control": "no-store"])
            response.headers["Set-Cookie"] = SessionAdmission.setCookie(Self.browserCookie, browser, maxAgeSeconds: 600)
            return response
        }
        routes.open(.GET, "/v1/session/oidc/callback", Self.finishSingleSignOn) { request in
            guard let sso = services.singleSignOn else { throw Self.notConfigured }
            try limits.admitUnverified(request)
            let signedIn: SessionService.SignedIn
            do {
                signedIn = try SessionAdmission.anonymous(request) {
                    try sso.finish(
                        code: request.query("code"), state: request.query("state"), error: request.query("error"),
                        browserToken: SessionAdmission.cookie(Self.browserCookie, in: request),
                        address: RateLimits.host(of: request.remoteAddress), userAgent: request.header("User-Agent"),
                        presentedToken: SessionAdmission.token(in: request))
                }
            } catch let error as ServiceError where error.kind != .unavailable {
                try limits.failedAuthentication(request)
                throw error
            }
            let session = signedIn.verified.session
            var response = HTTPResponse(
                status: HTTPStatus(303), headers: ["Location": landing, "Cache-Control": "no-store"])
            response.headers["Set-Cookie"] = SessionAdmission.cookie(
                signedIn.token, maxAgeSeconds: Int((session.expiresAt - session.createdAt) / 1000))
            return response
        }
    }

    static let notConfigured = ServiceError(
        .notFound, "sso_not_configured", "Single sign-on is not configured on this server (oidc.issuer).")
}

extension SingleSignOnRoutes {
    static let startSingleSignOn = OperationDoc(
        "startSingleSignOn", summary: "Start signing in with the identity provider",
        description:
            "302 to the provider's authorization endpoint (the authorization code flow with PKCE S256, `state` and `nonce`), and the `__Host-xizor_oidc` cookie binding the sign-in to this browser for 10 minutes.",
        tag: "teams",
        responses: [
            .empty(302, "To the provider."), .problem(404, "`sso_not_configured`."),
            .problem(503, "`sso_provider_unavailable`: the provider's discovery document or keys cannot be read."),
        ])

    static let finishSingleSignOn = OperationDoc(
        "finishSingleSignOn", summary: "The identity provider's answer: sign in",
        description:
            "Exchanges the code (with the PKCE verifier), verifies the ID token (RS256 or ES256 against the provider's keys; issuer, audience, expiry, nonce) and answers 303 to the console with the session cookie, as a password sign-in makes it. An unknown address gets an account only for `oidc.allowedDomains` (and `oidc.defaultRole` in `oidc.defaultAppId`).",
        tag: "teams",
        parameters: [
            .query("code", "The authorization code."), .query("state", "This sign-in's state."),
            .query("error", "The provider's refusal."),
        ],
        responses: [
            .empty(303, "Signed in: to the console, with the session cookie."),
            .problem(400, "`sso_state_invalid`: unknown, used or expired, or started in another browser."),
            .problem(401, "`sso_denied` (the provider refused), `id_token_invalid` (with the reason)."),
            .problem(403, "`sso_email_unverified`, `sso_domain_not_allowed`, `user_disabled`."),
            .problem(404, "`sso_not_configured`."), .problem(503, "`sso_provider_unavailable`."),
        ])
}
