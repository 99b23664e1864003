import Digest
import PaywallFormat
import StoreSignatures
import Synchronization

/// Single sign-on with an OpenID Connect provider (docs/teams.md, "Single sign-on"): the
/// authorization code flow with PKCE (S256), `state` and `nonce`, the login bound to the browser
/// that started it by a cookie; the ID token verified against the provider's keys
/// (`IDTokenVerifier`: RS256 or ES256, issuer, audience, expiry, nonce). A person is matched by
/// verified email; an unknown one gets an account only for an allowed domain.
public final class SingleSignOn: Sendable {
    public struct Options: Sendable {
        public var issuer: String
        public var clientID: String
        public var clientSecret: String?
        /// Where the provider sends the browser back: `…/v1/session/oidc/callback` on this server.
        public var redirectURL: String
        /// Email domains whose people get an account on their first sign-in.
        public var allowedDomains: [String] = []
        /// The app (and role) a new account joins.
        public var defaultAppID: String?
        public var defaultRole: Role = .viewer
        public var timeoutMs = 10_000

        public init(issuer: String, clientID: String, redirectURL: String) {
            self.issuer = issuer
            self.clientID = clientID
            self.redirectURL = redirectURL
        }
    }

    /// How long a started login may take.
    static let loginLifetimeMs: Int64 = 600_000

    let options: Options
    let store: any DataStore
    let clock: Clock
    let sessions: SessionService
    let users: UserService
    private let client: ProviderClient
    /// The provider's discovery document and keys, read on first use; the keys again when a token
    /// names a key not among them (a rotation), at most once a minute.
    private let provider = Mutex<(discovery: JSONValue, keys: JSONValue, keysAt: Int64)?>(nil)

    init(options: Options, store: any DataStore, clock: Clock, sessions: SessionService, users: UserService) {
        self.options = options
        self.store = store
        self.clock = clock
        self.sessions = sessions
        self.users = users
        client = ProviderClient(timeoutMs: options.timeoutMs)
    }

    /// A login starting: the provider's authorization URL to send the browser to, and the value of
    /// the cookie that binds the login to this browser.
    public func start() throws -> (redirect: String, browserToken: String) {
        let discovery = try self.discovery()
        guard let endpoint = discovery["authorization_endpoint"]?.stringValue else {
            throw Self.unavailable("the provider's discovery document names no authorization_endpoint")
        }
        let now = clock.now()
        let state = Identifiers.random(32)
        let browser = Identifiers.random(32)
        let login = PendingSSOLogin(
            browserHash: SHA256.hexDigest(of: browser), nonce: Identifiers.random(32),
            codeVerifier: Identifiers.random(64), createdAt: now)
        try store.write { tx in
            try tx.users.insertSSOLogin(
                stateHash: SHA256.hexDigest(of: state), login, prunedBefore: now - Self.loginLifetimeMs)
        }
        let challenge = Base64URL.encode(SHA256.hash(Array(login.codeVerifier.utf8)))
        let query = [
            ("response_type", "code"), ("client_id", options.clientID), ("redirect_uri", options.redirectURL),
            ("scope", "openid email"), ("state", state), ("nonce", login.nonce), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ]
        let separator = endpoint.contains("?") ? "&" : "?"
        return (endpoint + separator + PercentEncoding.form(query), browser)
    }

    /// The provider's answer (`code` and `state`, or `error`) → the person signed in.
    public func finish(
        code: String?, state: String?, error: String?, browserToken: String?, address: String?, userAgent: String?,
        presentedToken: String?
    ) throws -> SessionService.SignedIn {
        let now = clock.now()
        guard let state, let browserToken,
            let login = try store.write({ tx in
                try tx.users.takeSSOLogin(stateHash: SHA256.hexDigest(of: state), at: now)
            }),
            now - login.createdAt < Self.loginLifetimeMs,
            ConstantTime.equal(Array(SHA256.hexDigest(of: browserToken).utf8), Array(login.browserHash.utf8))
        else {
            throw ServiceError(
                .badRequest, "sso_state_invalid",
                "This sign-in is unknown, used, expired, or was started in another browser: start again.")
        }
        if let error {
            throw ServiceError(
                .unauthorized, "sso_denied", "The identity provider refused the sign-in: \(error.prefix(100)).")
        }
        guard let code else { throw ServiceError(.badRequest, "sso_state_invalid", "The provider sent no code.") }
        let claims = try verifiedClaims(
            idToken: try exchange(code: code, verifier: login.codeVerifier), nonce: login.nonce)
        guard let email = claims["email"]?.stringValue?.lowercased(), claims["email_verified"]?.boolValue != false
        else {
            throw ServiceError(
                .forbidden, "sso_email_unverified", "The identity provider vouches for no verified email address.")
        }
        let user = try account(for: email)
        guard user.disabledAt == nil else {
            throw ServiceError(.forbidden, "user_disabled", "This account is disabled; ask an administrator.")
        }
        return try store.write { tx in
            try sessions.open(
                for: user, address: address, userAgent: userAgent, presentedToken: presentedToken, now: now, in: tx)
        }
    }

    /// The account of `email`, made on its first sign-in when its domain is allowed (and given the
    /// default role).
    private func account(for email: String) throws -> User {
        if let existing = try store.read({ tx in try tx.users.user(email: email) }) { return existing.user }
        let domain = email.split(separator: "@").last.map(String.init) ?? ""
        guard options.allowedDomains.contains(domain) else {
            throw ServiceError(
                .forbidden, "sso_domain_not_allowed",
                "There is no account for this address, and its domain may not create one: ask an administrator.")
        }
        let user = try users.createWithoutPassword(email: email)
        if let app = options.defaultAppID {
            _ = try users.setRole(appID: app, userID: user.id, ["role": .string(options.defaultRole.rawValue)])
        }
        return user
    }

    /// The code exchanged at the token endpoint (with the PKCE verifier): the ID token.
    private func exchange(code: String, verifier: String) throws -> String {
        guard let endpoint = try discovery()["token_endpoint"]?.stringValue else {
            throw Self.unavailable("the provider's discovery document names no token_endpoint")
        }
        let fields = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", options.redirectURL),
            ("code_verifier", verifier), ("client_id", options.clientID),
        ]
        var headers: [String] = []
        if let secret = options.clientSecret {
            // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded, then base64.
            let credentials = PercentEncoding.encode(options.clientID) + ":" + PercentEncoding.encode(secret)
            headers.append("Authorization: Basic " + Base64.encode(Array(credentials.utf8)))
        }
        let answer: ProviderClient.Answer
        do { answer = try client.post(endpoint, form: PercentEncoding.form(fields), headers: headers) } catch {
            throw Self.unavailable("the token endpoint: \(error)")
        }
        let refused = { (why: String) in
            ServiceError(
                .unauthorized, "sso_denied",
                "The identity provider did not exchange the code (HTTP \(answer.status)): \(why).")
        }
        guard (200..<300).contains(answer.status) else { throw refused("a refusal") }
        guard let token = try Self.json(answer.body, or: refused)["id_token"]?.stringValue else {
            throw refused("no id_token in its answer")
        }
        return token
    }

    private func verifiedClaims(idToken: String, nonce: String) throws -> JSONValue {
        let expectation = IDTokenVerifier.Expectation(
            issuer: options.issuer, clientID: options.clientID, nonce: nonce, now: clock.now())
        let known = try keys(refresh: false)
        do {
            return try IDTokenVerifier.verify(idToken, keys: known, expect: expectation)
        } catch .unknownKey {
            // A key the provider rotated in since the keys were read.
            let fresh = try keys(refresh: true)
            do { return try IDTokenVerifier.verify(idToken, keys: fresh, expect: expectation) } catch {
                throw Self.invalidToken(error)
            }
        } catch { throw Self.invalidToken(error) }
    }

    private func discovery() throws -> JSONValue {
        if let known = provider.withLock({ $0?.discovery }) { return known }
        let url = options.issuer.hasSuffix("/") ? options.issuer : options.issuer + "/"
        let document = try fetchJSON(url + ".well-known/openid-configuration", what: "the discovery document")
        guard document["issuer"]?.stringValue == options.issuer, let jwks = document["jwks_uri"]?.stringValue else {
            throw Self.unavailable("the discovery document's issuer is not \(options.issuer), or it names no jwks_uri")
        }
        let keys = try fetchJSON(jwks, what: "the provider's keys")
        provider.withLock { $0 = (document, keys, clock.now()) }
        return document
    }

    private func keys(refresh: Bool) throws -> JSONValue {
        let document = try discovery()
        guard let (_, keys, at) = provider.withLock({ $0 }) else { throw Self.unavailable("no provider state") }
        guard refresh, clock.now() - at >= 60_000, let jwks = document["jwks_uri"]?.stringValue else { return keys }
        let fresh = try fetchJSON(jwks, what: "the provider's keys")
        provider.withLock { $0 = (document, fresh, clock.now()) }
        return fresh
    }

    private func fetchJSON(_ url: String, what: String) throws -> JSONValue {
        let answer: ProviderClient.Answer
        do { answer = try client.get(url) } catch { throw Self.unavailable("\(what): \(error)") }
        guard answer.status == 200 else { throw Self.unavailable("\(what) answered HTTP \(answer.status)") }
        let value = try Self.json(answer.body) { Self.unavailable("\(what): \($0)") }
        guard value.objectValue != nil else {
            throw Self.unavailable("\(what) is not a JSON object")
        }
        return value
    }

    /// The provider's answer as JSON, or `failure` naming why it is not.
    private static func json(_ bytes: [UInt8], or failure: (String) -> ServiceError) throws -> JSONValue {
        do { return try JSONValue(parsing: bytes) } catch { throw failure("its answer is not JSON (\(error))") }
    }

    private static func unavailable(_ detail: String) -> ServiceError {
        ServiceError(
            .unavailable, "sso_provider_unavailable", "The identity provider cannot be used: \(detail).",
            retryAfterSeconds: 5)
    }

    private static func invalidToken(_ error: IDTokenVerifier.Failure) -> ServiceError {
        ServiceError(.unauthorized, "id_token_invalid", "The identity provider's answer was refused: \(error).")
    }
}
