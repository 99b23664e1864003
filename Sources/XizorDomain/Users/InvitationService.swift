import PaywallFormat

/// Invitations (docs/teams.md, "Invitations"): an app's owner invites an email with a role; the
/// single-use link, valid 7 days, is shown to the inviter and, when `smtp.*` is configured, mailed.
/// Accepting it creates the account (or signs the existing one in) and adds the role, in one write.
public final class InvitationService: Sendable {
    /// How long a link is valid.
    public static let lifetimeMs: Int64 = 7 * 86_400_000
    /// Pending invitations one app may have: what an owner can make the server hold (and mail) is bounded.
    public static let maxPendingPerApp = 100
    /// Invitations a list shows, and past which ended ones are deleted.
    static let listed = 200

    public struct Options: Sendable {
        /// The console's address an invitation's link opens (`server.publicURL` + `console.path`);
        /// nil: no absolute link can be made, so nothing is mailed.
        public var consoleURL: String?
        public var mailer: Mailer?
        public init() {}
    }

    /// A new invitation: its token this once, and what became of its mail.
    public struct Created: Sendable {
        public let invitation: Invitation
        public let token: String
        /// `sent`, `failed` (the invitation stands; the link is shown), or `off` (no `smtp.url` or no public URL).
        public let mail: String
        public let link: String?
    }

    let store: any DataStore
    let clock: Clock
    let sessions: SessionService
    let users: UserService
    let options: Options
    let logFailure: @Sendable (String) -> Void

    init(
        store: any DataStore, clock: Clock, sessions: SessionService, users: UserService, options: Options,
        logFailure: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.clock = clock
        self.sessions = sessions
        self.users = users
        self.options = options
        self.logFailure = logFailure
    }

    /// `{email, role}` → a pending invitation of the app.
    public func create(appID: String, _ body: JSONValue) throws -> Created {
        let email = try UserService.email(body["email"], path: "$.email")
        let role = try Role.parse(body["role"], path: "$.role")
        let now = clock.now()
        let token = "xi_" + Identifiers.random(43)
        let invitation = Invitation(
            id: "inv_" + Identifiers.random(16), appID: appID, email: email, role: role, createdAt: now,
            expiresAt: now + Self.lifetimeMs)
        let appName = try store.write { tx -> String in
            guard let name = try tx.users.liveAppName(id: appID) else { throw ServiceError.notFound("app", appID) }
            guard try tx.users.pendingInvitationCount(appID: appID, now: now) < Self.maxPendingPerApp else {
                throw ServiceError(
                    .conflict, "invitation_limit_reached",
                    "The app has \(Self.maxPendingPerApp) pending invitations: revoke some, or wait for them to expire."
                )
            }
            try tx.users.insert(invitation, tokenHash: SessionService.tokenHash(token))
            // Revoked, accepted and expired ones are kept only as the list shows them (its newest 200).
            try tx.users.pruneInvitations(appID: appID, now: now, keeping: Self.listed)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .invitationCreated, targetKind: "invitation", targetID: invitation.id,
                    data: ["email": .string(email), "role": .string(role.rawValue)]), now: now)
            return name
        }
        let link = options.consoleURL.map { "\($0)#/invitation/\(token)" }
        return Created(
            invitation: invitation, token: token, mail: mail(invitation, appName: appName, link: link), link: link)
    }

    /// Sends the link; a failure is logged and reported, never undoes the invitation.
    private func mail(_ invitation: Invitation, appName: String, link: String?) -> String {
        guard let mailer = options.mailer, let link else { return "off" }
        var printable = String.UnicodeScalarView()
        printable.append(contentsOf: appName.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(100))
        let name = String(printable)
        do {
            try mailer.send(
                to: invitation.email, subject: "You are invited to \(name) on Xizor",
                text: """
                    You are invited to the app "\(name)" on Xizor as \(invitation.role.rawValue).

                    Accept within 7 days (the link works once):
                    \(link)
                    """)
            return "sent"
        } catch {
            logFailure("invitation mail to \(invitation.email) failed: \(error)")
            return "failed"
        }
    }

    /// The app's invitations, newest first (the 200 newest).
    public func list(appID: String) throws -> (invitations: [Invitation], now: Int64) {
        let now = clock.now()
        return (try store.read { tx in try tx.users.invitations(appID: appID, limit: Self.listed) }, now)
    }

    public func revoke(appID: String, id: String) throws {
        let now = clock.now()
        try store.write { tx in
            guard try tx.users.revoke(invitationID: id, appID: appID, at: now) else {
                throw ServiceError(
                    .notFound, "invitation_not_found", "No pending invitation '\(id.prefix(64))' in this app.")
            }
            try tx.record(
                WriteRecord(appID: appID, action: .invitationRevoked, targetKind: "invitation", targetID: id), now: now)
        }
    }

    /// `{token, password?}` → the acceptor signed in. Signed in already (`signedIn`), the session's
    /// account must be the invited email's. Otherwise the invited email's account signs in with
    /// `password`, or is created with it when there is none.
    public func accept(
        _ body: JSONValue, signedIn: SessionService.Verified?, address: String?, userAgent: String?,
        presentedToken: String?
    ) throws -> SessionService.SignedIn {
        guard let token = body["token"]?.stringValue, token.utf8.count <= 100 else {
            throw ServiceError.badField("$.token", "required", "'token' is the invitation link's token.")
        }
        let now = clock.now()
        guard
            let invitation = try store.read({ tx in try tx.users.invitation(tokenHash: SessionService.tokenHash(token))
            })
        else {
            throw ServiceError(.notFound, "invitation_not_found", "This invitation link is unknown.")
        }
        switch invitation.state(at: now) {
        case .pending: break
        case .accepted:
            throw ServiceError(.conflict, "invitation_used", "This invitation was accepted already: a link works once.")
        case .expired:
            throw ServiceError(.forbidden, "invitation_expired", "This invitation has expired: ask for a new one.")
        case .revoked:
            throw ServiceError(.forbidden, "invitation_revoked", "This invitation was revoked.")
        }
        let user: User
        if let signedIn {
            guard signedIn.user.email == invitation.email else {
                throw ServiceError(
                    .forbidden, "invitation_email_mismatch",
                    "This invitation is for another email address than the one you are signed in with.")
            }
            user = signedIn.user
        } else {
            let password = body["password"]?.stringValue ?? ""
            if let stored = try store.read({ tx in try tx.users.user(email: invitation.email) }) {
                try sessions.checkCredentials(password: password, body, of: stored)
                user = stored.user
            } else {
                user = try users.create(email: invitation.email, password: password, instanceAdmin: false)
            }
        }
        return try store.write { tx in
            guard try tx.users.liveAppName(id: invitation.appID) != nil else {
                throw ServiceError.notFound("app", invitation.appID)
            }
            guard try tx.users.accept(invitationID: invitation.id, by: user.id, at: now) else {
                throw ServiceError(
                    .conflict, "invitation_used", "This invitation was accepted already: a link works once.")
            }
            let previous = try tx.users.role(appID: invitation.appID, userID: user.id)
            // An invitation never demotes: a member keeps a higher role than the one offered.
            if previous.map({ $0.rank < invitation.role.rank }) ?? true {
                try tx.users.setRole(appID: invitation.appID, userID: user.id, invitation.role, now: now)
            }
            let opened = try sessions.open(
                for: user, address: address, userAgent: userAgent, presentedToken: presentedToken, now: now, in: tx)
            try WriteActor.$current.withValue(
                WriteActor.person(opened.verified.actingUser)
            ) {
                try tx.record(
                    WriteRecord(
                        appID: invitation.appID, action: .invitationAccepted, targetKind: "invitation",
                        targetID: invitation.id,
                        data: ["userId": .string(user.id), "role": .string(invitation.role.rawValue)]),
                    now: now)
            }
            return opened
        }
    }
}
