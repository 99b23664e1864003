import PaywallFormat

/// A person's role in an app (docs/teams.md, "Roles"): each a fixed set of the keys' scopes, so a
/// route checks one scope whether a key or a person calls it.
public enum Role: String, CaseIterable, Sendable {
    case viewer, editor, admin, owner

    /// viewer: read + analytics; editor: + drafts; admin: + publish, placements, experiments,
    /// webhooks; owner: + keys + members.
    public var scopes: ScopeSet {
        switch self {
        case .viewer: ScopeSet([.read, .analytics])
        case .editor: ScopeSet([.read, .analytics, .drafts])
        case .admin: ScopeSet([.read, .analytics, .drafts, .publish, .placements, .experiments, .webhooks])
        case .owner: ScopeSet(APIScope.allCases)
        }
    }

    /// The order of what roles may do: each may everything the one before may.
    public var rank: Int {
        switch self {
        case .viewer: 0
        case .editor: 1
        case .admin: 2
        case .owner: 3
        }
    }

    /// From a request's `role` field, refused with its path.
    static func parse(_ value: JSONValue?, path: String) throws -> Role {
        guard let name = value?.stringValue, let role = Role(rawValue: name) else {
            throw ServiceError.badField(
                path, "invalid_enum_value", "A role is one of \(allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return role
    }
}

/// A person with an account on this instance.
public struct User: Sendable, Equatable {
    public let id: String
    /// Lowercased: one account per address.
    public let email: String
    /// May create apps and users and open every app.
    public var instanceAdmin: Bool
    public let createdAt: Int64
    public var disabledAt: Int64?
    /// Whether signing in also asks for a one-time code (docs/teams.md, "Second factor").
    public var totpEnabled: Bool

    package init(
        id: String, email: String, instanceAdmin: Bool, createdAt: Int64, disabledAt: Int64?, totpEnabled: Bool = false
    ) {
        self.id = id
        self.email = email
        self.instanceAdmin = instanceAdmin
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.totpEnabled = totpEnabled
    }

    public var json: JSONValue {
        [
            "id": .string(id), "email": .string(email), "instanceAdmin": .bool(instanceAdmin),
            "createdAt": .number(Int(createdAt)), "disabledAt": disabledAt.map { .number(Int($0)) } ?? .null,
            "totpEnabled": .bool(totpEnabled),
        ]
    }
}

/// A user as stored: with what signing in checks.
public struct StoredUser: Sendable {
    public let user: User
    /// The Argon2id PHC string (nil: the account has no password, e.g. made by single sign-on).
    public let passwordHash: String?
    /// Failed sign-ins in a row, and the lock they set.
    public let failedSignins: Int
    public let lockedUntil: Int64?
    /// The confirmed second factor's secret (base32), the one being enrolled, and the last step used.
    public let totpSecret: String?
    public let totpPending: String?
    public let totpLastStep: Int64?

    package init(
        user: User, passwordHash: String?, failedSignins: Int, lockedUntil: Int64?, totpSecret: String? = nil,
        totpPending: String? = nil, totpLastStep: Int64? = nil
    ) {
        self.user = user
        self.passwordHash = passwordHash
        self.failedSignins = failedSignins
        self.lockedUntil = lockedUntil
        self.totpSecret = totpSecret
        self.totpPending = totpPending
        self.totpLastStep = totpLastStep
    }
}

/// A user's role in an app, as listed from either side.
public struct Membership: Sendable, Equatable {
    public let appID: String
    public let appName: String
    public let userID: String
    public let email: String
    public let role: Role
    public let createdAt: Int64

    package init(appID: String, appName: String, userID: String, email: String, role: Role, createdAt: Int64) {
        self.appID = appID
        self.appName = appName
        self.userID = userID
        self.email = email
        self.role = role
        self.createdAt = createdAt
    }

    /// As an app's member list shows it.
    public var memberJSON: JSONValue {
        [
            "userId": .string(userID), "email": .string(email), "role": .string(role.rawValue),
            "createdAt": .number(Int(createdAt)),
        ]
    }

    /// As a user's own list of apps shows it.
    public var appJSON: JSONValue {
        ["appId": .string(appID), "appName": .string(appName), "role": .string(role.rawValue)]
    }
}

/// A signed-in browser. Its token is never stored, only its hash.
public struct SessionRecord: Sendable, Equatable {
    public let id: String
    public let userID: String
    public let createdAt: Int64
    public var lastSeenAt: Int64
    /// The absolute end (`auth.sessionMaxSeconds` after sign-in).
    public let expiresAt: Int64
    public var revokedAt: Int64?
    public let address: String?
    public let userAgent: String?

    package init(
        id: String, userID: String, createdAt: Int64, lastSeenAt: Int64, expiresAt: Int64, revokedAt: Int64?,
        address: String?, userAgent: String?
    ) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.address = address
        self.userAgent = userAgent
    }

    /// Whether it still signs requests in at `now`, given the idle limit.
    public func isLive(at now: Int64, idleMs: Int64) -> Bool {
        revokedAt == nil && now < expiresAt && now < lastSeenAt + idleMs
    }

    public func json(current: Bool) -> JSONValue {
        [
            "id": .string(id), "createdAt": .number(Int(createdAt)), "lastSeenAt": .number(Int(lastSeenAt)),
            "expiresAt": .number(Int(expiresAt)), "address": address.map(JSONValue.string) ?? .null,
            "userAgent": userAgent.map(JSONValue.string) ?? .null, "current": .bool(current),
        ]
    }
}

/// The people side of the database (docs/teams.md): users, their roles in apps, their sessions.
public protocol UserStore: InvitationStore, SSOLoginStore {
    func insert(_ user: User, passwordHash: String?) throws
    func user(id: String) throws -> StoredUser?
    func user(email: String) throws -> StoredUser?
    /// Users by id after `after`, at most `limit`.
    func users(after: String?, limit: Int) throws -> [User]
    func countUsers() throws -> Int
    func update(_ user: User) throws
    func setPasswordHash(userID: String, _ hash: String) throws
    /// One more failed sign-in in a row; `lockedUntil` when it reached the threshold.
    func recordFailedSignin(userID: String, lockedUntil: Int64?) throws
    func resetFailedSignins(userID: String) throws
    /// The secret being enrolled (nil: none).
    func setTOTPPending(userID: String, _ secret: String?) throws
    /// Makes the pending secret the account's second factor, `step` its last used step.
    func enableTOTP(userID: String, secret: String, step: Int64) throws
    func disableTOTP(userID: String) throws
    /// Records `step` as used unless it (or a later one) was: false for a replayed code.
    func useTOTPStep(userID: String, _ step: Int64) throws -> Bool
    func replaceRecoveryCodes(userID: String, hashes: [String]) throws
    /// Marks an unused code used: false when there is no such unused code.
    func useRecoveryCode(userID: String, hash: String, at: Int64) throws -> Bool

    func memberships(userID: String) throws -> [Membership]
    func members(appID: String) throws -> [Membership]
    func role(appID: String, userID: String) throws -> Role?
    func setRole(appID: String, userID: String, _ role: Role, now: Int64) throws
    func removeMember(appID: String, userID: String) throws -> Bool
    func countOwners(appID: String) throws -> Int
    /// The app's name when it exists and is not archived.
    func liveAppName(id: String) throws -> String?

    func insert(_ session: SessionRecord, tokenHash: String) throws
    func session(tokenHash: String) throws -> SessionRecord?
    /// The user's sessions not revoked and not past their absolute end (the caller applies the idle limit).
    func sessions(userID: String, now: Int64) throws -> [SessionRecord]
    func touchSession(id: String, at: Int64) throws
    func revokeSession(id: String, userID: String, at: Int64) throws -> Bool
    /// Deletes the user's ended sessions and ends the oldest live ones beyond `count`.
    func pruneSessions(userID: String, now: Int64, keepingLive count: Int) throws
    /// Ends every live session of the user; how many.
    func revokeSessions(userID: String, at: Int64) throws -> Int
}
