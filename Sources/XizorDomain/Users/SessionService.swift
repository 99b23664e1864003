import Digest
import PaywallFormat

/// Signing in and the sessions it makes (docs/teams.md, "Sessions"). A session is an opaque random
/// token the browser holds in a `__Host-` cookie; the database holds only its SHA-256, so a copy of
/// the database signs no one in. Every request a session makes reads it back (one indexed row), so
/// a revocation, a removal or a disabled account stops it on the very next request, in every
/// process behind the same database.
public final class SessionService: Sendable {
    public struct Options: Sendable {
        /// A session unused this long ends (`auth.sessionIdleSeconds`).
        public var idleSeconds = 86_400
        /// A session ends this long after sign-in whatever its use (`auth.sessionMaxSeconds`).
        public var maxSeconds = 1_209_600
        /// Failed sign-ins in a row that lock the account (`auth.lockoutThreshold`).
        public var lockoutThreshold = 5
        /// How long the lock lasts (`auth.lockoutSeconds`).
        public var lockoutSeconds = 900
        /// Password hashes computed at once (`auth.concurrentHashes`).
        public var concurrentHashes = 2
        /// Argon2id's parameters for new hashes (older hashes are upgraded at sign-in).
        public var passwordHashing = PasswordHasher.Parameters.standard
        /// `auth.passwordSignIn`: false when people sign in only through single sign-on.
        public var passwordSignIn = true
        public init() {}
    }

    /// A fresh sign-in: the token is returned this once, for the cookie.
    public struct SignedIn: Sendable {
        public let token: String
        /// The new session, as a request of it will be verified.
        public let verified: Verified
    }

    /// A session that passed verification on this request.
    public struct Verified: Sendable {
        public let session: SessionRecord
        public let user: User
        /// The CSRF token of this session (derived from its token, never stored).
        public let csrfToken: String

        public var actingUser: ActingUser { ActingUser(userID: user.id, email: user.email, sessionID: session.id) }
    }

    let store: any DataStore
    let clock: Clock
    public let options: Options
    let gate: PasswordGate
    /// Live sessions one person may have (browsers, devices); a new sign-in past it ends the oldest.
    public static let maxLiveSessions = 20

    /// How stale `last_seen_at` may be before a request writes it: one write per session per
    /// minute at most, whatever the request rate — or per quarter of the idle limit when that is
    /// shorter, so a session in use never reaches it.
    var touchIntervalMs: Int64 { min(60_000, idleMs / 4) }

    init(store: any DataStore, clock: Clock, options: Options, gate: PasswordGate) {
        self.store = store
        self.clock = clock
        self.options = options
        self.gate = gate
    }

    var idleMs: Int64 { Int64(options.idleSeconds) * 1000 }

    /// `{email, password}` → a new session. An unknown address and a wrong password get the same
    /// 401 after the same work. `presentedToken`: a session cookie the request carried, which ends
    /// here, so a session id planted before sign-in is never the one after (fixation).
    public func signIn(_ body: JSONValue, address: String?, userAgent: String?, presentedToken: String?) throws
        -> SignedIn
    {
        guard options.passwordSignIn else {
            throw ServiceError(
                .forbidden, "password_sign_in_disabled", "Passwords are turned off here: sign in with single sign-on.")
        }
        guard let email = body["email"]?.stringValue?.lowercased(), let password = body["password"]?.stringValue else {
            throw ServiceError.badField("$", "required", "Send {\"email\": …, \"password\": …}.")
        }
        guard password.utf8.count <= UserService.maximumPasswordLength, email.utf8.count <= 254 else {
            throw Self.invalidCredentials
        }
        let stored = try store.read { tx in try tx.users.user(email: email) }
        guard let stored else {
            // The same work as a wrong password: no account enumeration by timing.
            _ = try gate.verify(password, against: nil)
            throw Self.invalidCredentials
        }
        try checkCredentials(password: password, body, of: stored)
        let now = clock.now()
        let rehash = try stored.passwordHash.flatMap { gate.needsRehash($0) ? try gate.hash(password) : nil }
        return try store.write { tx in
            if stored.failedSignins > 0 || stored.lockedUntil != nil {
                try tx.users.resetFailedSignins(userID: stored.user.id)
            }
            if let rehash { try tx.users.setPasswordHash(userID: stored.user.id, rehash) }
            return try open(
                for: stored.user, address: address, userAgent: userAgent, presentedToken: presentedToken, now: now,
                in: tx)
        }
    }

    /// Checks `password` against `stored` as every sign-in does: the lock first, a failure counted
    /// (and locking at the threshold), the same 401 as an unknown address, a disabled account told
    /// only to the right password. An invitation accepted by an existing account uses it too.
    func checkPassword(_ password: String, of stored: StoredUser) throws {
        let now = clock.now()
        if let until = stored.lockedUntil, until > now {
            throw ServiceError(
                .tooManyRequests, "account_locked",
                "Too many failed sign-ins: this account is locked for a while. Try again later.",
                retryAfterSeconds: Int((until - now + 999) / 1000))
        }
        guard try gate.verify(password, against: stored.passwordHash) else {
            try recordFailure(stored, now: now)
            throw Self.invalidCredentials
        }
        guard stored.user.disabledAt == nil else {
            throw ServiceError(.forbidden, "user_disabled", "This account is disabled; ask an administrator.")
        }
    }

    /// What signs `stored` in: the password, then the second factor when the account has one (`code`
    /// or `recoveryCode` in `body`).
    func checkCredentials(password: String, _ body: JSONValue, of stored: StoredUser) throws {
        try checkPassword(password, of: stored)
        if stored.totpSecret != nil { try checkSecondFactor(body, of: stored) }
    }

    /// The second factor of an account that has one: `code` (a step not used before, so a code
    /// works once) or `recoveryCode` (each works once). A wrong one counts as a failed sign-in.
    func checkSecondFactor(_ body: JSONValue, of stored: StoredUser) throws {
        let now = clock.now()
        if let code = body["code"]?.stringValue {
            guard let secret = stored.totpSecret.flatMap(TOTP.bytes(base32:)),
                let step = TOTP.matchingStep(secret: secret, candidate: code, atMs: now)
            else {
                try recordFailure(stored, now: now)
                throw ServiceError(.unauthorized, "invalid_totp", "The one-time code is wrong.")
            }
            guard try store.write({ tx in try tx.users.useTOTPStep(userID: stored.user.id, step) }) else {
                try recordFailure(stored, now: now)
                throw ServiceError(
                    .unauthorized, "totp_code_used", "This one-time code was used already: wait for the next one.")
            }
            return
        }
        if let recovery = body["recoveryCode"]?.stringValue {
            let used = try store.write { tx in
                guard
                    try tx.users.useRecoveryCode(
                        userID: stored.user.id, hash: TwoFactorService.hash(recovery), at: now)
                else { return false }
                try WriteActor.$current.withValue(
                    WriteActor.person(Self.acting(stored.user, nil))
                ) {
                    try tx.record(
                        WriteRecord(
                            appID: nil, action: .userRecoveryCodeUsed, targetKind: "user", targetID: stored.user.id),
                        now: now)
                }
                return true
            }
            guard used else {
                try recordFailure(stored, now: now)
                throw ServiceError(.unauthorized, "invalid_recovery_code", "The recovery code is wrong or was used.")
            }
            return
        }
        throw ServiceError(
            .unauthorized, "totp_required",
            "This account has a second factor: send 'code' (6 digits from the authenticator app) or a 'recoveryCode'.")
    }

    /// A new session of `user`, in the caller's write (a sign-in, an accepted invitation): a session
    /// cookie the request carried ends first (fixation), and the sign-in is audited as the user's.
    func open(
        for user: User, address: String?, userAgent: String?, presentedToken: String?, now: Int64,
        in tx: any StoreTransaction
    ) throws -> SignedIn {
        let token = "xs_" + Identifiers.random(43)
        let session = SessionRecord(
            id: "ses_" + Identifiers.random(16), userID: user.id, createdAt: now, lastSeenAt: now,
            expiresAt: now + Int64(options.maxSeconds) * 1000, revokedAt: nil,
            address: address.map { String($0.prefix(64)) }, userAgent: userAgent.map { String($0.prefix(256)) })
        if let presentedToken, let planted = try tx.users.session(tokenHash: Self.tokenHash(presentedToken)) {
            _ = try tx.users.revokeSession(id: planted.id, userID: planted.userID, at: now)
        }
        try tx.users.insert(session, tokenHash: Self.tokenHash(token))
        // What one person's sign-ins may make the server hold: their ended sessions go, and past
        // `maxLiveSessions` the oldest live one ends.
        try tx.users.pruneSessions(userID: user.id, now: now, keepingLive: Self.maxLiveSessions)
        try WriteActor.$current.withValue(
            WriteActor.person(Self.acting(user, session.id))
        ) {
            try tx.record(
                WriteRecord(appID: nil, action: .userSignedIn, targetKind: "session", targetID: session.id), now: now)
        }
        return SignedIn(
            token: token, verified: Verified(session: session, user: user, csrfToken: Self.csrfToken(for: token)))
    }

    private func recordFailure(_ stored: StoredUser, now: Int64) throws {
        let locks = stored.failedSignins + 1 >= options.lockoutThreshold
        try store.write { tx in
            try tx.users.recordFailedSignin(
                userID: stored.user.id, lockedUntil: locks ? now + Int64(options.lockoutSeconds) * 1000 : nil)
            try WriteActor.$current.withValue(
                WriteActor.person(Self.acting(stored.user, nil))
            ) {
                try tx.record(
                    WriteRecord(appID: nil, action: .userSignInFailed, targetKind: "user", targetID: stored.user.id),
                    now: now)
            }
        }
    }

    /// The live session of `token`, or 401 `invalid_session`. Writes `last_seen_at` at most once a
    /// minute (the idle limit is counted from it).
    public func verify(token: String) throws -> Verified {
        let now = clock.now()
        let hash = Self.tokenHash(token)
        let found = try store.read { tx -> (SessionRecord, User)? in
            guard let session = try tx.users.session(tokenHash: hash),
                let user = try tx.users.user(id: session.userID)?.user
            else { return nil }
            return (session, user)
        }
        guard let (stored, user) = found, stored.isLive(at: now, idleMs: idleMs), user.disabledAt == nil else {
            throw Self.invalidSession
        }
        var session = stored
        if now - session.lastSeenAt >= touchIntervalMs {
            try store.write { tx in try tx.users.touchSession(id: session.id, at: now) }
            session.lastSeenAt = now
        }
        return Verified(session: session, user: user, csrfToken: Self.csrfToken(for: token))
    }

    /// What `user` may do in `appID`: their role's scopes, every scope for an instance admin; 403
    /// `not_a_member` otherwise (also for an app that does not exist, which says nothing of it).
    public func scopes(of user: User, in appID: String) throws -> ScopeSet {
        let (role, live) = try store.read { tx in
            (try tx.users.role(appID: appID, userID: user.id), try tx.users.liveAppName(id: appID) != nil)
        }
        if live, user.instanceAdmin { return .all }
        guard live, let role else {
            throw ServiceError(.forbidden, "not_a_member", "You are not a member of app '\(appID.prefix(64))'.")
        }
        return role.scopes
    }

    public func memberships(userID: String) throws -> [Membership] {
        try store.read { tx in try tx.users.memberships(userID: userID) }
    }

    /// The user's live sessions, newest first.
    public func sessions(userID: String) throws -> [SessionRecord] {
        let now = clock.now()
        return try store.read { tx in try tx.users.sessions(userID: userID, now: now) }
            .filter { $0.isLive(at: now, idleMs: idleMs) }
    }

    /// Ends one of the user's sessions (404 for any other id).
    public func revoke(sessionID: String, of user: ActingUser) throws {
        let now = clock.now()
        try store.write { tx in
            guard try tx.users.revokeSession(id: sessionID, userID: user.userID, at: now) else {
                throw ServiceError(
                    .notFound, "session_not_found", "You have no live session '\(sessionID.prefix(64))'.")
            }
            try tx.record(
                WriteRecord(appID: nil, action: .sessionRevoked, targetKind: "session", targetID: sessionID), now: now)
        }
    }

    /// Signs the user out everywhere: every session ends, this one too.
    public func revokeAll(of user: ActingUser) throws {
        let now = clock.now()
        try store.write { tx in
            _ = try tx.users.revokeSessions(userID: user.userID, at: now)
            try tx.record(
                WriteRecord(appID: nil, action: .sessionRevoked, targetKind: "user", targetID: user.userID), now: now)
        }
    }

    /// The CSRF token of a session: a hash of its token under a label, so it needs no storage, is
    /// worthless without the cookie's secret, and changes with every session.
    public static func csrfToken(for token: String) -> String {
        SHA256.hexDigest(of: "xizor-csrf\u{0}" + token)
    }

    /// Whether `candidate` is the CSRF token of `token`, compared in constant time.
    public static func isCSRFToken(_ candidate: String, of token: String) -> Bool {
        Identifiers.constantTimeEqual(Array(candidate.utf8), Array(csrfToken(for: token).utf8))
    }

    static func tokenHash(_ token: String) -> String { SHA256.hexDigest(of: token) }

    private static func acting(_ user: User, _ sessionID: String?) -> ActingUser {
        ActingUser(userID: user.id, email: user.email, sessionID: sessionID)
    }

    public static let invalidCredentials = ServiceError(
        .unauthorized, "invalid_credentials", "The email or the password is wrong.")
    public static let invalidSession = ServiceError(
        .unauthorized, "invalid_session", "The session has ended (signed out, expired or revoked): sign in again.")
}
