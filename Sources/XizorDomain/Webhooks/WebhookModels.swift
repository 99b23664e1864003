import PaywallFormat

/// The events an endpoint can subscribe to (docs/integrations.md, "Events"): the audit actions a
/// consumer outside acts on, plus `webhook.test`, which only the test call sends.
public enum WebhookEventType: String, Sendable, CaseIterable {
    case paywallPublished = "paywall.published", paywallRolledBack = "paywall.rolled_back", paywallArchived =
        "paywall.archived"
    case paywallUnarchived = "paywall.unarchived"
    case placementUpdated = "placement.updated"
    case experimentStarted = "experiment.started", experimentStopped = "experiment.stopped"
    case experimentReweighted = "experiment.reweighted", experimentPromoted = "experiment.promoted"
    case keyCreated = "key.created", keyRevoked = "key.revoked"
    case webhookDisabled = "webhook.disabled"
    case webhookTest = "webhook.test"
    /// Verified revenue (docs/revenue.md): the stores' own word, announced as the ledger counts it.
    case purchaseVerified = "purchase.verified", trialConverted = "trial.converted"
    case subscriptionRenewed = "subscription.renewed", subscriptionRefunded = "subscription.refunded"

    /// The event a write announces, or nil when it announces none. Deleting a placement is a
    /// `placement.updated` with `deleted: true`: to a consumer, its routing changed.
    init?(action: AuditAction) {
        switch action {
        case .paywallPublished: self = .paywallPublished
        case .paywallRolledBack: self = .paywallRolledBack
        case .paywallArchived: self = .paywallArchived
        case .paywallUnarchived: self = .paywallUnarchived
        case .placementUpdated, .placementDeleted: self = .placementUpdated
        case .experimentStarted: self = .experimentStarted
        case .experimentStopped: self = .experimentStopped
        case .experimentReweighted: self = .experimentReweighted
        case .experimentPromoted: self = .experimentPromoted
        case .keyCreated: self = .keyCreated
        case .keyRevoked: self = .keyRevoked
        case .webhookDisabled: self = .webhookDisabled
        default: return nil
        }
    }
}

/// What an endpoint subscribes to: every type (`["*"]`), or a list.
public enum WebhookSubscription: Sendable, Equatable {
    case all
    case only(Set<WebhookEventType>)

    public func includes(_ type: WebhookEventType) -> Bool {
        switch self {
        case .all: true
        case .only(let types): types.contains(type)
        }
    }

    public var json: JSONValue {
        switch self {
        case .all: ["*"]
        case .only(let types): .array(types.map(\.rawValue).sorted().map(JSONValue.string))
        }
    }
}

/// An endpoint as stored. `secret` never leaves the server but in the answer that creates or rotates it.
public struct WebhookEndpoint: Sendable, Equatable {
    public let appID: String
    public let id: String
    public var url: String
    public var description: String?
    public var eventTypes: WebhookSubscription
    public var secret: String
    public var enabled: Bool
    public let createdAt: Int64
    public var updatedAt: Int64
    /// Whether its attempts have been failing, and whether that disabled it (`WebhookAttempts`).
    public var health: WebhookEndpointHealth = .healthy

    public var json: JSONValue {
        [
            "id": .string(id), "url": .string(url), "description": description.map(JSONValue.string) ?? .null,
            "eventTypes": eventTypes.json, "enabled": .bool(enabled), "createdAt": .number(Int(createdAt)),
            "updatedAt": .number(Int(updatedAt)), "failingSince": health.failingSince.map { .number(Int($0)) } ?? .null,
            "disabledReason": health.disabledReason.map(JSONValue.string) ?? .null,
        ]
    }

    /// The JSON the audit log hashes: everything but the secret (a rotation is its own action).
    var auditBytes: [UInt8] { json.canonicalBytes }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        appID: String,
        id: String,
        url: String,
        description: String? = nil,
        eventTypes: WebhookSubscription,
        secret: String,
        enabled: Bool,
        createdAt: Int64,
        updatedAt: Int64,
        health: WebhookEndpointHealth = .healthy
    ) {
        self.appID = appID
        self.id = id
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.secret = secret
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.health = health
    }
}

/// Where a delivery is in its life: pending (due now or later, maybe leased to a sender) until
/// delivered, or failed once its retries ran out (a retry by hand makes it pending again).
public enum WebhookDeliveryState: String, Sendable, CaseIterable {
    case pending, delivered, failed
}

/// One row of the outbox and delivery log.
public struct WebhookDelivery: Sendable, Equatable {
    public let seq: Int64
    public let id: String
    public let eventID: String
    public let endpointID: String
    public let eventType: String
    public let payload: String
    public let createdAt: Int64
    public let state: WebhookDeliveryState
    public let attempts: Int
    public let nextAttemptAt: Int64
    public let lastAttemptAt: Int64?
    public let lastStatus: Int?
    public let lastError: String?
    public let finishedAt: Int64?

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "eventId": .string(eventID), "eventType": .string(eventType),
            "state": .string(state.rawValue),
            "attempts": .number(attempts), "createdAt": .number(Int(createdAt)),
            "lastAttemptAt": lastAttemptAt.map { .number(Int($0)) } ?? .null,
            "lastStatus": lastStatus.map { .number($0) } ?? .null,
            "lastError": lastError.map(JSONValue.string) ?? .null,
            "finishedAt": finishedAt.map { .number(Int($0)) } ?? .null,
        ]
        o["nextAttemptAt"] = state == .pending ? .number(Int(nextAttemptAt)) : .null
        // The body exactly as sent (and signed), so a consumer can replay it by hand.
        o["payload"] = .string(payload)
        return .object(o)
    }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        seq: Int64,
        id: String,
        eventID: String,
        endpointID: String,
        eventType: String,
        payload: String,
        createdAt: Int64,
        state: WebhookDeliveryState,
        attempts: Int,
        nextAttemptAt: Int64,
        lastAttemptAt: Int64?,
        lastStatus: Int?,
        lastError: String?,
        finishedAt: Int64?
    ) {
        self.seq = seq
        self.id = id
        self.eventID = eventID
        self.endpointID = endpointID
        self.eventType = eventType
        self.payload = payload
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.finishedAt = finishedAt
    }
}

/// A pending delivery leased to one sender, with what it needs to send it.
public struct ClaimedDelivery: Sendable {
    public let seq: Int64
    public let id: String
    public let endpointID: String
    public let appID: String
    public let eventID: String
    public let eventType: String
    public let payload: String
    public let createdAt: Int64
    /// Including the attempt being made.
    public let attempts: Int
    public let url: String
    public let secret: String

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        seq: Int64,
        id: String,
        endpointID: String,
        appID: String,
        eventID: String,
        eventType: String,
        payload: String,
        createdAt: Int64,
        attempts: Int,
        url: String,
        secret: String
    ) {
        self.seq = seq
        self.id = id
        self.endpointID = endpointID
        self.appID = appID
        self.eventID = eventID
        self.eventType = eventType
        self.payload = payload
        self.createdAt = createdAt
        self.attempts = attempts
        self.url = url
        self.secret = secret
    }
}

extension WebhookStore {
    /// A claim with no cap per app.
    func claim(now: Int64, leaseUntil: Int64) throws -> ClaimedDelivery? {
        try claim(now: now, leaseUntil: leaseUntil, maxInFlightPerApp: Int(Int32.max))
    }
}

/// How an attempt ended, for the log.
public struct DeliveryOutcome: Sendable, Equatable {
    public let state: WebhookDeliveryState
    public let nextAttemptAt: Int64
    public let status: Int?
    public let error: String?
}

/// All SQL of webhook endpoints and their outbox.
public protocol WebhookStore {
    func insertEndpoint(_ endpoint: WebhookEndpoint) throws
    func endpoints(appID: String) throws -> [WebhookEndpoint]
    func endpoint(appID: String, id: String) throws -> WebhookEndpoint?
    /// The endpoint, for a write that reads it, changes it and writes it whole (`updateEndpoint`):
    /// its row is locked until the transaction ends, so two such writes take turns and neither
    /// writes back what the other changed (a sender recording an endpoint's health and a rotation of
    /// its secret, on PostgreSQL; SQLite's one writer already makes them take turns).
    func endpointForUpdate(appID: String, id: String) throws -> WebhookEndpoint?
    /// False when the app has no such endpoint.
    func updateEndpoint(_ endpoint: WebhookEndpoint) throws -> Bool
    /// Deletes it and its deliveries; false when the app has no such endpoint.
    func deleteEndpoint(appID: String, id: String) throws -> Bool
    func endpointCount(appID: String) throws -> Int

    /// Appends one delivery, pending and due at `createdAt`.
    func insertDelivery(
        id: String, eventID: String, endpointID: String, appID: String, eventType: String, payload: String,
        createdAt: Int64) throws
    /// An endpoint's deliveries older than `before` (a seq; nil: the newest), newest first.
    func deliveries(endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int) throws
        -> [WebhookDelivery]
    func delivery(endpointID: String, id: String) throws -> WebhookDelivery?

    /// The earliest time any delivery of an enabled endpoint may be attempted (nil: none pending).
    func nextDue() throws -> Int64?
    /// Leases the due delivery that heads its endpoint's queue (the oldest pending one of an
    /// enabled endpoint), counting the attempt; nil when none is due. Senders are shared out per
    /// app: the head of the app with the fewest deliveries in flight (leased) goes first, oldest due
    /// first among equals, and an app with `maxInFlightPerApp` in flight gets none. Run in a write
    /// transaction.
    func claim(now: Int64, leaseUntil: Int64, maxInFlightPerApp: Int) throws -> ClaimedDelivery?
    /// Makes the endpoint's pending deliveries due no earlier than `until` (its backoff).
    func postpone(endpointID: String, until: Int64) throws
    /// Records how the attempt of a claimed delivery ended and releases its lease.
    func finish(seq: Int64, outcome: DeliveryOutcome, now: Int64) throws
    /// Makes a failed delivery pending again, due now; false when there is no such failed delivery.
    func requeue(endpointID: String, id: String, now: Int64) throws -> Bool
    /// Deletes deliveries that finished before `before`; answers how many.
    @discardableResult
    func pruneFinished(olderThan before: Int64) throws -> Int
}
