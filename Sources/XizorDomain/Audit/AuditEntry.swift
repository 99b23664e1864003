import Digest
import PaywallFormat

/// What a write did, in the vocabulary the audit log and webhooks share (docs/integrations.md).
/// Webhook event types are the subset in `WebhookEventType`.
public enum AuditAction: String, Sendable, CaseIterable {
    case appCreated = "app.created", appArchived = "app.archived", appUpdated = "app.updated"
    case keyCreated = "key.created", keyRevoked = "key.revoked"
    case paywallCreated = "paywall.created", paywallDraftUpdated = "paywall.draft_updated", paywallRenamed =
        "paywall.renamed"
    case paywallPublished = "paywall.published", paywallRolledBack = "paywall.rolled_back", paywallArchived =
        "paywall.archived"
    case paywallUnarchived = "paywall.unarchived"
    case placementUpdated = "placement.updated", placementDeleted = "placement.deleted"
    case audienceUpdated = "audience.updated", audienceDeleted = "audience.deleted"
    case experimentCreated = "experiment.created", experimentStarted = "experiment.started", experimentStopped =
        "experiment.stopped"
    case experimentReweighted = "experiment.reweighted", experimentPromoted = "experiment.promoted"
    case assetUploaded = "asset.uploaded"
    case subscriberAttributesDeleted = "subscriber.attributes_deleted", subscriberDeleted = "subscriber.deleted"
    case webhookCreated = "webhook.created", webhookUpdated = "webhook.updated", webhookDeleted = "webhook.deleted"
    case webhookSecretRotated = "webhook.secret_rotated", webhookDisabled = "webhook.disabled"
    case revenueSettingsUpdated = "revenue.settings_updated"
    case userCreated = "user.created", userUpdated = "user.updated"
    case memberUpdated = "member.updated", memberRemoved = "member.removed"
    case invitationCreated = "invitation.created", invitationRevoked = "invitation.revoked"
    case invitationAccepted = "invitation.accepted"
    case userTOTPEnabled = "user.totp_enabled", userTOTPDisabled = "user.totp_disabled"
    case userRecoveryCodeUsed = "user.recovery_code_used"
    case userSignedIn = "user.signed_in", userSignInFailed = "user.sign_in_failed", sessionRevoked = "session.revoked"
}

/// One write, as the service that made it describes it: recorded by `StoreTransaction.record` in
/// the write's own transaction (the audit entry, and the webhook outbox rows when it is an event).
public struct WriteRecord: Sendable {
    public let appID: String?
    public let action: AuditAction
    public let targetKind: String
    public let targetID: String?
    /// The target's content before and after, as bytes to hash (nil: there is none).
    public let before: [UInt8]?
    public let after: [UInt8]?
    /// What a webhook event carries in `data`.
    public let data: JSONValue

    public init(
        appID: String?, action: AuditAction, targetKind: String, targetID: String?,
        before: [UInt8]? = nil, after: [UInt8]? = nil, data: JSONValue = [:]
    ) {
        self.appID = appID
        self.action = action
        self.targetKind = targetKind
        self.targetID = targetID
        self.before = before
        self.after = after
        self.data = data
    }
}

/// An audit log row.
public struct AuditEntry: Sendable, Equatable {
    public let seq: Int64
    public let appID: String?
    public let at: Int64
    public let actor: WriteActor
    public let action: String
    public let targetKind: String
    public let targetID: String?
    public let beforeHash: String?
    public let afterHash: String?

    public var json: JSONValue {
        [
            "id": .string(String(seq)), "at": .number(Int(at)), "actor": actor.json, "action": .string(action),
            "target": ["kind": .string(targetKind), "id": targetID.map(JSONValue.string) ?? .null],
            "requestId": actor.requestID.map(JSONValue.string) ?? .null,
            "beforeHash": beforeHash.map(JSONValue.string) ?? .null,
            "afterHash": afterHash.map(JSONValue.string) ?? .null,
        ]
    }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        seq: Int64,
        appID: String?,
        at: Int64,
        actor: WriteActor,
        action: String,
        targetKind: String,
        targetID: String?,
        beforeHash: String?,
        afterHash: String?
    ) {
        self.seq = seq
        self.appID = appID
        self.at = at
        self.actor = actor
        self.action = action
        self.targetKind = targetKind
        self.targetID = targetID
        self.beforeHash = beforeHash
        self.afterHash = afterHash
    }
}

/// What `GET /v1/audit-log` filters on; nil is "any".
public struct AuditFilter: Sendable, Equatable {
    public var action: String?
    public var targetKind: String?
    public var targetID: String?
    public var keyID: String?
    public var from: Int64?
    public var to: Int64?

    public init(
        action: String? = nil, targetKind: String? = nil, targetID: String? = nil, keyID: String? = nil,
        from: Int64? = nil, to: Int64? = nil
    ) {
        self.action = action
        self.targetKind = targetKind
        self.targetID = targetID
        self.keyID = keyID
        self.from = from
        self.to = to
    }
}

/// All SQL of the audit log.
public protocol AuditStore {
    func append(
        appID: String?, at: Int64, actor: WriteActor, action: String, targetKind: String, targetID: String?,
        beforeHash: String?, afterHash: String?) throws
    /// The app's entries (nil: the instance's own, those without an app) older than `before` (a seq;
    /// nil: the newest), newest first.
    func entries(appID: String?, filter: AuditFilter, before: Int64?, limit: Int) throws -> [AuditEntry]
    /// Deletes entries older than `before` (ms); answers how many.
    @discardableResult
    func prune(olderThan before: Int64) throws -> Int
}

extension StoreTransaction {
    /// Records a write in this transaction: its audit entry (with `WriteActor.current`) and, when
    /// its action is a webhook event, one outbox row per enabled endpoint of the app that wants it.
    /// Either commits with the write or not at all.
    public func record(_ write: WriteRecord, now: Int64) throws {
        let actor = WriteActor.current
        try audit.append(
            appID: write.appID, at: now, actor: actor, action: write.action.rawValue, targetKind: write.targetKind,
            targetID: write.targetID, beforeHash: write.before.map { SHA256.hexDigest($0) },
            afterHash: write.after.map { SHA256.hexDigest($0) })
        if let type = WebhookEventType(action: write.action), let appID = write.appID {
            try WebhookOutbox.enqueue(type: type, appID: appID, data: write.data, actor: actor, now: now, in: self)
        }
    }
}
