import PaywallFormat

/// An owner's invitation of one email to one role in the app (docs/teams.md, "Invitations"): a
/// single-use link, valid `InvitationService.lifetimeMs`. Its states are derived from the row, in
/// one place, so a list, an acceptance and a revocation cannot disagree about them.
public struct Invitation: Sendable, Equatable {
    public enum State: String, Sendable { case pending, accepted, expired, revoked }

    public let id: String
    public let appID: String
    public let email: String
    public let role: Role
    public let createdAt: Int64
    public let expiresAt: Int64
    public var acceptedAt: Int64?
    public var acceptedBy: String?
    public var revokedAt: Int64?

    package init(
        id: String, appID: String, email: String, role: Role, createdAt: Int64, expiresAt: Int64,
        acceptedAt: Int64? = nil, acceptedBy: String? = nil, revokedAt: Int64? = nil
    ) {
        self.id = id
        self.appID = appID
        self.email = email
        self.role = role
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.acceptedAt = acceptedAt
        self.acceptedBy = acceptedBy
        self.revokedAt = revokedAt
    }

    public func state(at now: Int64) -> State {
        if acceptedAt != nil { return .accepted }
        if revokedAt != nil { return .revoked }
        return now >= expiresAt ? .expired : .pending
    }

    public func json(at now: Int64) -> JSONValue {
        [
            "id": .string(id), "email": .string(email), "role": .string(role.rawValue),
            "state": .string(state(at: now).rawValue), "createdAt": .number(Int(createdAt)),
            "expiresAt": .number(Int(expiresAt)), "acceptedAt": acceptedAt.map { .number(Int($0)) } ?? .null,
        ]
    }
}

/// The invitations side of `UserStore`.
public protocol InvitationStore {
    func insert(_ invitation: Invitation, tokenHash: String) throws
    func invitation(tokenHash: String) throws -> Invitation?
    /// The app's invitations, newest first, at most `limit`.
    func invitations(appID: String, limit: Int) throws -> [Invitation]
    func pendingInvitationCount(appID: String, now: Int64) throws -> Int
    /// Deletes the app's accepted, revoked and expired invitations but the newest `count` invitations.
    func pruneInvitations(appID: String, now: Int64, keeping count: Int) throws
    /// Marks it accepted unless it already was (false then: another request won the race).
    func accept(invitationID: String, by userID: String, at: Int64) throws -> Bool
    /// Revokes a pending one (not accepted, revoked or expired at `at`).
    func revoke(invitationID: String, appID: String, at: Int64) throws -> Bool
}

/// A single sign-on in flight, as `SingleSignOn.finish` takes it back.
public struct PendingSSOLogin: Sendable {
    public let browserHash: String
    public let nonce: String
    public let codeVerifier: String
    public let createdAt: Int64

    package init(browserHash: String, nonce: String, codeVerifier: String, createdAt: Int64) {
        self.browserHash = browserHash
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.createdAt = createdAt
    }
}

/// The single sign-on side of `UserStore`.
public protocol SSOLoginStore {
    /// Records a login starting, and forgets those older than `prunedBefore`.
    func insertSSOLogin(stateHash: String, _ login: PendingSSOLogin, prunedBefore: Int64) throws
    /// The login of `stateHash`, marked used: nil when unknown or used already.
    func takeSSOLogin(stateHash: String, at: Int64) throws -> PendingSSOLogin?
}
