import PaywallFormat

/// A key as stored: only its display prefix and SHA-256 hash, never the key itself.
public struct StoredKey: Sendable {
    public enum Kind: String, Sendable {
        case admin, secret, `public`
    }

    public let id: String
    public let kind: Kind
    public let prefix: String
    public let hash: [UInt8]
    /// Nil for admin tokens, which belong to no app.
    public let appID: String?
    public let createdAt: Int64
    public let revokedAt: Int64?
    /// What the key is for ("iOS app", "backend"), as its creator named it.
    public var label: String? = nil
    /// A secret key's scopes (`all` for every other kind).
    public var scopes: ScopeSet = .all
    /// A public key's environment: the events it sends are this environment's.
    public var environment: DataEnvironment = .production

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        kind: Kind,
        prefix: String,
        hash: [UInt8],
        appID: String?,
        createdAt: Int64,
        revokedAt: Int64?,
        label: String? = nil,
        scopes: ScopeSet = .all,
        environment: DataEnvironment = .production
    ) {
        self.id = id
        self.kind = kind
        self.prefix = prefix
        self.hash = hash
        self.appID = appID
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.label = label
        self.scopes = scopes
        self.environment = environment
    }
}

/// An app as stored.
public struct StoredApp: Sendable {
    public let id: String
    public let name: String
    public let createdAt: Int64
    public let archivedAt: Int64?
    /// How long the app's raw events are kept; nil: the server's `events.retentionDays`.
    public let eventRetentionDays: Int?

    public var json: JSONValue {
        [
            "id": .string(id), "name": .string(name), "createdAt": .number(Int(createdAt)),
            "archived": .bool(archivedAt != nil),
            "archivedAt": archivedAt.map { .number(Int($0)) } ?? .null,
            "eventRetentionDays": eventRetentionDays.map { .number($0) } ?? .null,
        ]
    }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        name: String,
        createdAt: Int64,
        archivedAt: Int64?,
        eventRetentionDays: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.archivedAt = archivedAt
        self.eventRetentionDays = eventRetentionDays
    }
}

/// Which keys a read returns, and which part of the in-memory table a reload replaces: every
/// live key, one app's, or the admin tokens.
public enum KeyScope: Sendable, Equatable {
    case all
    case app(String)
    case admin
}

/// All SQL of apps and their keys.
public protocol AppStore {
    func insertApp(id: String, name: String, now: Int64) throws
    /// Marks the app archived (keeping the first time); false when there is no such app.
    func archiveApp(id: String, now: Int64) throws -> Bool
    /// Apps not archived, for loading the serving state.
    func liveAppIDs() throws -> [String]
    /// Sets how long the app's raw events are kept (nil: the server's default); the app as it is
    /// now, nil when there is no such app.
    func setEventRetention(appID: String, days: Int?) throws -> StoredApp?
    /// Every app, archived ones too, with its own retention (nil: the server's): the retention job's list.
    func eventRetention() throws -> [(appID: String, days: Int?)]
    func hasApps() throws -> Bool
    /// Holds off every other write that checks one of the app's per-app limits (keys, webhook
    /// endpoints, audiences, rules, asset bytes) until this transaction ends. Such a write counts
    /// what is stored, then adds: two of them interleaving would both pass the count (on PostgreSQL,
    /// replicas and the pool's connections write at once). Taken first in the transaction, so the
    /// count reads what the previous holder committed. Nothing on SQLite, whose one writer already
    /// runs these transactions one at a time. The same lock keeps key writes that count the app's
    /// other keys (the last full-access key, the recovery mint) one at a time. Answers the app,
    /// archived or not (nil: no such app).
    @discardableResult
    func lockForLimits(appID: String) throws -> StoredApp?
    /// Every app, archived ones included, after `cursor` in creation order.
    func apps(after cursor: PageCursor, limit: Int) throws -> [StoredApp]

    func insertKey(_ key: StoredKey) throws
    /// Stores the key unless one with the same hash exists (then, or once a concurrent insert of it
    /// commits, adds nothing and answers false).
    func insertKeyIfAbsent(_ key: StoredKey) throws -> Bool
    /// Keys in `scope` that can authenticate: not revoked, and of an app that is not archived.
    func liveKeys(_ scope: KeyScope) throws -> [StoredKey]
    /// One app's keys, revoked ones included, after `cursor` in creation order.
    func keys(appID: String, after cursor: PageCursor, limit: Int) throws -> [StoredKey]
    func liveKeyCount(appID: String) throws -> Int
    /// Revokes one live key of the app and answers its kind; nil when it has no such live key.
    func revokeKey(id: String, appID: String, now: Int64) throws -> StoredKey.Kind?
    /// Revokes every live admin token but the one with `hash`; answers how many.
    func revokeAdminTokens(except hash: [UInt8], now: Int64) throws -> Int
    func hasLiveAdminToken(hash: [UInt8]) throws -> Bool
    /// Whether the key with this hash is unrevoked but its app archived (why it no longer works).
    func isKeyOfArchivedApp(hash: [UInt8]) throws -> Bool
    /// Removes a revoked admin token with this hash (so the same token can be stored live again).
    func deleteRevokedAdminToken(hash: [UInt8]) throws
}
