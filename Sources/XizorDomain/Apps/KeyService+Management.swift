import PaywallFormat
import Synchronization

/// The writes of keys and apps: the admin token, apps, keys and their revocation, each recorded in
/// the change feed so every process's key table follows.
extension KeyService {
    /// Stores an admin token's hash (from the config, or generated at first start).
    /// The configured admin token is the only live admin key: setting a new one (rotation)
    /// revokes the generated and every earlier token in the same transaction.
    public func ensureAdminToken(_ token: String) throws {
        let hash = Identifiers.hash(token)
        let now = clock.now()
        try store.write { tx in
            if try tx.apps.revokeAdminTokens(except: hash, now: now) > 0 {
                try tx.changes.append(appID: nil, kind: .key, entityID: nil, now: now)
            }
            if try !tx.apps.hasLiveAdminToken(hash: hash) {
                try tx.apps.deleteRevokedAdminToken(hash: hash)
                // Replicas starting together all get here: the first one's row wins, the others add nothing.
                let key = StoredKey(
                    id: Identifiers.keyID(), kind: .admin, prefix: Identifiers.displayPrefix(of: token), hash: hash,
                    appID: nil, createdAt: now, revokedAt: nil)
                if try tx.apps.insertKeyIfAbsent(key) {
                    try tx.changes.append(appID: nil, kind: .key, entityID: key.id, now: now)
                }
            }
        }
        try changes.catchUp()
    }

    /// A new admin token: `xa_` + 32 characters. Only its hash is stored.
    public func generateAdminToken() throws -> String {
        let token = Identifiers.apiKey(prefix: "xa_")
        let now = clock.now()
        _ = try store.write { tx in try KeyService.insertKey(tx, key: token, kind: .admin, appID: nil, now: now) }
        try changes.catchUp()
        return token
    }

    public struct CreatedApp: Sendable {
        public let appID: String
        public let name: String
        public let secretKey: String
        public let publicKey: String

        public var json: JSONValue {
            [
                "appId": .string(appID), "name": .string(name), "secretKey": .string(secretKey),
                "publicKey": .string(publicKey),
            ]
        }
    }

    /// Creates an app with one secret and one public key; the keys are answered this once.
    public func createApp(name: String) throws -> CreatedApp {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard TextLimits.fits(trimmed, max: 200) else {
            throw ServiceError.badField("$.name", "invalid_name", "An app name is 1 to 200 characters.")
        }
        let appID = Identifiers.appID()
        let secret = Identifiers.apiKey(prefix: "sk_")
        let publicKey = Identifiers.apiKey(prefix: "pk_")
        let now = clock.now()
        try store.write { tx in
            try tx.apps.insertApp(id: appID, name: trimmed, now: now)
            try tx.changes.append(appID: appID, kind: .app, entityID: appID, now: now)
            try KeyService.insertKey(tx, key: secret, kind: .secret, appID: appID, now: now)
            try KeyService.insertKey(tx, key: publicKey, kind: .public, appID: appID, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .appCreated, targetKind: "app", targetID: appID,
                    after: Array(trimmed.utf8)), now: now)
        }
        try changes.catchUp()
        return CreatedApp(appID: appID, name: trimmed, secretKey: secret, publicKey: publicKey)
    }

    /// Archives an app: its keys stop working before this answers; its data is kept.
    public func archiveApp(appID: String) throws {
        let now = clock.now()
        try store.write { tx in
            guard try tx.apps.archiveApp(id: appID, now: now) else { throw ServiceError.notFound("app", appID) }
            try tx.changes.append(appID: appID, kind: .app, entityID: appID, now: now)
            try tx.record(WriteRecord(appID: appID, action: .appArchived, targetKind: "app", targetID: appID), now: now)
        }
        try changes.catchUp()
    }

    /// Sets how long the app's raw events are kept: 1 to 36,500 days, or nil for the server's
    /// `events.retentionDays`. The operator's call (an admin route): a tenant cannot make its
    /// events cost more storage than the server allows.
    public func setEventRetention(appID: String, days: Int?) throws -> StoredApp {
        if let days, !(1...36_500).contains(days) {
            throw ServiceError.badField(
                "$.eventRetentionDays", "number_out_of_range",
                "Events are kept 1 to 36,500 days (null: the server's default).")
        }
        let now = clock.now()
        return try store.write { tx in
            guard let app = try tx.apps.setEventRetention(appID: appID, days: days) else {
                throw ServiceError.notFound("app", appID)
            }
            try tx.record(
                WriteRecord(
                    appID: appID, action: .appUpdated, targetKind: "app", targetID: appID,
                    data: ["eventRetentionDays": days.map { .number($0) } ?? .null]), now: now)
            return app
        }
    }

    /// The app's keys, revoked ones included, a page at a time in creation order.
    public func listKeys(appID: String, cursor: String? = nil, limit: Int = PageSize.max) throws -> Page<APIKeyInfo> {
        let after = try PageCursor.parse(cursor)
        let rows = try store.read { tx in try tx.apps.keys(appID: appID, after: after, limit: limit + 1) }
        let items = rows.prefix(limit).map(APIKeyInfo.init)
        let next = rows.count > limit ? items.last.map { PageCursor(createdAt: $0.createdAt, id: $0.id).text } : nil
        return Page(items: items, nextCursor: next)
    }

    /// Creates another key (`secret` or `public`) for the app; answered once. `creator` is the
    /// scopes of the key asking: a key cannot mint one that may do more than itself.
    public func createKey(appID: String, _ request: KeyRequest, creator: ScopeSet = .all) throws -> (
        info: APIKeyInfo, key: String
    ) {
        guard let kind = StoredKey.Kind(rawValue: request.kind), kind != .admin else {
            throw ServiceError.badField("$.kind", "invalid_enum_value", "A key's kind is 'secret' or 'public'.")
        }
        let label = request.label
        if let label, !TextLimits.fits(label, max: 100) {
            throw ServiceError.badField("$.label", "invalid_label", "A key's label is 1 to 100 characters.")
        }
        let scopes = kind == .secret ? request.scopes : .all
        // A public key has no scopes (it reaches the SDK routes only), so any key holding `keys`
        // may make one; a secret key may hold no more than its creator.
        guard kind == .public || creator.covers(scopes) else {
            throw ServiceError(
                .forbidden, "scope_escalation",
                "A key can only create keys with scopes it has itself (\(creator.sorted.map(\.rawValue).joined(separator: ", ")))."
            )
        }
        let environment = kind == .public ? request.environment : .production
        let key = Identifiers.apiKey(prefix: kind == .secret ? "sk_" : "pk_")
        let now = clock.now()
        let id = try store.write { tx in
            try tx.apps.lockForLimits(appID: appID)  // count, then insert: one creator of the app's keys at a time
            guard try tx.apps.liveKeyCount(appID: appID) < self.maxKeysPerApp else {
                throw ServiceError(
                    .conflict, "key_limit_reached",
                    "An app has at most \(self.maxKeysPerApp) live keys (keys.maxPerApp); revoke one it no longer uses first."
                )
            }
            let id = try KeyService.insertKey(
                tx, key: key, kind: kind, appID: appID, label: label, scopes: scopes,
                environment: environment, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .keyCreated, targetKind: "key", targetID: id,
                    data: ["keyId": .string(id), "kind": .string(kind.rawValue)]), now: now)
            return id
        }
        try changes.catchUp()
        let info = APIKeyInfo(
            StoredKey(
                id: id, kind: kind, prefix: Identifiers.displayPrefix(of: key), hash: [], appID: appID,
                createdAt: now, revokedAt: nil, label: label, scopes: scopes, environment: environment))
        return (info, key)
    }

    /// Revokes one of the app's keys; it stops working before this answers. `revoker` is the scopes
    /// of the key asking: a scoped key may not revoke the app's last full-access secret key, or a
    /// key holding only `keys` could lock the owner out (409 `last_full_access_key`). A full-access
    /// key may still revoke itself when it is the last: that is the owner's own decision, and the
    /// admin token (`mintRecoveryKey`) can always mint another.
    public func revokeKey(appID: String, keyID: String, revoker: ScopeSet = .all) throws {
        let now = clock.now()
        try store.write { tx in
            // Locked first (PostgreSQL), so two scoped keys revoking the last two full-access keys
            // at once cannot both see the other one still live.
            try tx.apps.lockForLimits(appID: appID)
            if !revoker.isFullAccess {
                let fullAccess = try tx.apps.liveKeys(.app(appID)).filter(\.isFullAccessSecret)
                if fullAccess.count == 1, fullAccess[0].id == keyID {
                    throw ServiceError(
                        .conflict, "last_full_access_key",
                        "This is the app's last full-access secret key: only a full-access key may revoke it (the admin token can mint another: POST /v1/apps/{appId}/keys)."
                    )
                }
            }
            guard let kind = try tx.apps.revokeKey(id: keyID, appID: appID, now: now) else {
                throw ServiceError.notFound("key", keyID)
            }
            try tx.changes.append(appID: appID, kind: .key, entityID: keyID, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .keyRevoked, targetKind: "key", targetID: keyID,
                    data: ["keyId": .string(keyID), "kind": .string(kind.rawValue)]), now: now)
        }
        try changes.catchUp()
    }

    /// A new full-access secret key for the app, minted by the operator (admin token or CLI) to
    /// recover an app whose owner has none left. Not counted against `keys.maxPerApp`: recovery
    /// must work even when a scoped key filled the app up to the cap, and only the operator can ask.
    /// Recorded as `key.created` with the operator as actor. An unknown app is 404, an archived one
    /// 409 `app_archived` (its keys could not authenticate).
    public func mintRecoveryKey(appID: String, label: String?) throws -> (info: APIKeyInfo, key: String) {
        if let label, !TextLimits.fits(label, max: 100) {
            throw ServiceError.badField("$.label", "invalid_label", "A key's label is 1 to 100 characters.")
        }
        let key = Identifiers.apiKey(prefix: "sk_")
        let now = clock.now()
        let id = try store.write { tx in
            guard let app = try tx.apps.lockForLimits(appID: appID) else {
                throw ServiceError(.notFound, "app_not_found", "No app '\(appID)'.")
            }
            guard app.archivedAt == nil else {
                throw ServiceError(
                    .conflict, "app_archived", "App '\(appID)' is archived: its keys cannot authenticate.")
            }
            let id = try KeyService.insertKey(tx, key: key, kind: .secret, appID: appID, label: label, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .keyCreated, targetKind: "key", targetID: id,
                    data: ["keyId": .string(id), "kind": .string("secret")]), now: now)
            return id
        }
        try changes.catchUp()
        let info = APIKeyInfo(
            StoredKey(
                id: id, kind: .secret, prefix: Identifiers.displayPrefix(of: key), hash: [], appID: appID,
                createdAt: now, revokedAt: nil, label: label))
        return (info, key)
    }

    /// Every app, archived ones included, a page at a time in creation order (the admin's list).
    public func listApps(cursor: String? = nil, limit: Int = PageSize.max) throws -> Page<StoredApp> {
        let after = try PageCursor.parse(cursor)
        let rows = try store.read { tx in try tx.apps.apps(after: after, limit: limit + 1) }
        let items = Array(rows.prefix(limit))
        let next = rows.count > limit ? items.last.map { PageCursor(createdAt: $0.createdAt, id: $0.id).text } : nil
        return Page(items: items, nextCursor: next)
    }

    /// Whether any app exists (the demo command seeds an empty database only).
    public func hasApps() throws -> Bool { try store.read { tx in try tx.apps.hasApps() } }

    /// Stores a new key's hash and records the change; returns its id.
    @discardableResult
    static func insertKey(
        _ tx: any StoreTransaction, key: String, kind: StoredKey.Kind, appID: String?, label: String? = nil,
        scopes: ScopeSet = .all, environment: DataEnvironment = .production, now: Int64
    ) throws -> String {
        let id = Identifiers.keyID()
        try tx.apps.insertKey(
            StoredKey(
                id: id, kind: kind, prefix: Identifiers.displayPrefix(of: key), hash: Identifiers.hash(key),
                appID: appID, createdAt: now, revokedAt: nil, label: label, scopes: scopes, environment: environment))
        try tx.changes.append(appID: appID, kind: .key, entityID: id, now: now)
        return id
    }
}
