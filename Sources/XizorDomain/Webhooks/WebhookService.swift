import PaywallFormat

/// Webhook endpoints and their delivery log (docs/integrations.md, "Webhooks"). Events are put in
/// the outbox by `StoreTransaction.record` inside the writes they announce; the `WebhookDispatcher`
/// sends them. This service only manages endpoints, and enqueues test events and retries by hand.
public final class WebhookService: Sendable {
    public struct Options: Sendable {
        /// Loopback, private and link-local targets allowed (`webhooks.allowPrivateTargets`).
        public var allowPrivateTargets = false
        /// `webhooks.maxEndpointsPerApp`.
        public var maxEndpointsPerApp = 20
        /// `webhooks.logRetentionDays`: finished deliveries are deleted after this.
        public var logRetentionDays = 30
        public init() {}
    }

    private let store: any DataStore
    private let clock: Clock
    public let options: Options
    /// Rung after a test event or a retry by hand is enqueued.
    public let outboxSignal: WakeSignal

    public init(store: any DataStore, clock: Clock, options: Options = Options(), outboxSignal: WakeSignal) {
        self.store = store
        self.clock = clock
        self.options = options
        self.outboxSignal = outboxSignal
    }

    public func list(appID: String) throws -> [WebhookEndpoint] {
        try store.read { tx in try tx.webhooks.endpoints(appID: appID) }
    }

    public func endpoint(appID: String, id: String) throws -> WebhookEndpoint {
        try store.read { tx in try Self.existing(tx, appID: appID, id: id) }
    }

    /// Creates an endpoint from `{url, eventTypes?, description?, enabled?}`; the secret is answered this once.
    public func create(appID: String, body: JSONValue) throws -> WebhookEndpoint {
        guard body.objectValue != nil else {
            throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object.")
        }
        guard let rawURL = try body.optionalString("url", path: "$") else {
            throw ServiceError.badField("$.url", "missing_required_field", "A webhook needs a 'url'.")
        }
        let now = clock.now()
        let endpoint = WebhookEndpoint(
            appID: appID, id: Identifiers.webhookID(),
            url: try WebhookTarget.validate(rawURL, allowPrivate: options.allowPrivateTargets),
            description: try Self.description(body), eventTypes: try Self.subscription(body["eventTypes"]) ?? .all,
            secret: Identifiers.webhookSecret(), enabled: try Self.enabled(body) ?? true, createdAt: now, updatedAt: now
        )
        try store.write { tx in
            try tx.apps.lockForLimits(appID: appID)  // count, then insert: one creator of the app's endpoints at a time
            guard try tx.webhooks.endpointCount(appID: appID) < self.options.maxEndpointsPerApp else {
                throw ServiceError(
                    .conflict, "webhook_limit_reached",
                    "An app has at most \(self.options.maxEndpointsPerApp) webhook endpoints (webhooks.maxEndpointsPerApp)."
                )
            }
            try tx.webhooks.insertEndpoint(endpoint)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .webhookCreated, targetKind: "webhook", targetID: endpoint.id,
                    after: endpoint.auditBytes), now: now)
        }
        return endpoint
    }

    /// Changes what `body` names of `{url, eventTypes, description, enabled}`.
    public func update(appID: String, id: String, body: JSONValue) throws -> WebhookEndpoint {
        guard body.objectValue != nil else {
            throw ServiceError.badField("$", "type_mismatch", "The body is a JSON object.")
        }
        let url = try body.optionalString("url", path: "$").map {
            try WebhookTarget.validate($0, allowPrivate: options.allowPrivateTargets)
        }
        let description = try Self.description(body)
        let types = try Self.subscription(body["eventTypes"])
        let enabled = try Self.enabled(body)
        let now = clock.now()
        return try store.write { tx in
            let before = try Self.existingForUpdate(tx, appID: appID, id: id)
            var after = before
            if let url { after.url = url }
            if body["description"] != nil { after.description = description }
            if let types { after.eventTypes = types }
            if let enabled {
                // Enabled by hand: a fresh start, whatever failures (or the server's disabling) came before.
                if enabled && !before.enabled { after.health = before.health.enabledByHand }
                after.enabled = enabled
            }
            after.updatedAt = now
            guard try tx.webhooks.updateEndpoint(after) else { throw ServiceError.notFound("webhook", id) }
            try tx.record(
                WriteRecord(
                    appID: appID, action: .webhookUpdated, targetKind: "webhook", targetID: id,
                    before: before.auditBytes, after: after.auditBytes), now: now)
            return after
        }
    }

    /// A new signing secret, answered this once; the old one signs nothing from now on.
    public func rotateSecret(appID: String, id: String) throws -> WebhookEndpoint {
        let now = clock.now()
        return try store.write { tx in
            var endpoint = try Self.existingForUpdate(tx, appID: appID, id: id)
            endpoint.secret = Identifiers.webhookSecret()
            endpoint.updatedAt = now
            guard try tx.webhooks.updateEndpoint(endpoint) else { throw ServiceError.notFound("webhook", id) }
            try tx.record(
                WriteRecord(appID: appID, action: .webhookSecretRotated, targetKind: "webhook", targetID: id), now: now)
            return endpoint
        }
    }

    /// Deletes the endpoint and its delivery log; what was pending is not sent.
    public func delete(appID: String, id: String) throws {
        let now = clock.now()
        try store.write { tx in
            let before = try Self.existing(tx, appID: appID, id: id)
            guard try tx.webhooks.deleteEndpoint(appID: appID, id: id) else {
                throw ServiceError.notFound("webhook", id)
            }
            try tx.record(
                WriteRecord(
                    appID: appID, action: .webhookDeleted, targetKind: "webhook", targetID: id,
                    before: before.auditBytes), now: now)
        }
    }

    /// The endpoint's deliveries, newest first; `cursor` is the previous page's `nextCursor`.
    public func deliveries(appID: String, id: String, state: WebhookDeliveryState?, cursor: String?, limit: Int) throws
        -> Page<WebhookDelivery>
    {
        let before = try SequenceCursor.parse(cursor)
        let rows = try store.read { tx in
            _ = try Self.existing(tx, appID: appID, id: id)
            return try tx.webhooks.deliveries(endpointID: id, state: state, before: before, limit: limit + 1)
        }
        let items = Array(rows.prefix(limit))
        return Page(items: items, nextCursor: rows.count > limit ? items.last.map { String($0.seq) } : nil)
    }

    /// Puts a `webhook.test` event in the outbox for this endpoint alone (enabled or not: the test
    /// is how one checks an endpoint before enabling it) and answers its delivery.
    public func sendTest(appID: String, id: String) throws -> WebhookDelivery {
        let now = clock.now()
        let delivery = try store.write { tx -> WebhookDelivery in
            let endpoint = try Self.existing(tx, appID: appID, id: id)
            let ids = try WebhookOutbox.enqueue(
                type: .webhookTest, appID: appID, data: ["webhookId": .string(id)],
                actor: WriteActor.current, now: now, in: tx, only: endpoint)
            guard let deliveryID = ids.first, let delivery = try tx.webhooks.delivery(endpointID: id, id: deliveryID)
            else {
                throw StoreInconsistency(detail: "a test delivery just written is gone")
            }
            return delivery
        }
        outboxSignal.wake()
        return delivery
    }

    /// Sends a delivery that gave up again, as a new first attempt of the same event.
    public func retry(appID: String, id: String, deliveryID: String) throws -> WebhookDelivery {
        let now = clock.now()
        let delivery = try store.write { tx -> WebhookDelivery in
            _ = try Self.existing(tx, appID: appID, id: id)
            guard let current = try tx.webhooks.delivery(endpointID: id, id: deliveryID) else {
                throw ServiceError.notFound("webhook_delivery", deliveryID)
            }
            guard current.state == .failed else {
                throw ServiceError(
                    .conflict, "delivery_not_failed",
                    "Only a delivery that gave up can be retried by hand; this one is \(current.state.rawValue).")
            }
            guard try tx.webhooks.requeue(endpointID: id, id: deliveryID, now: now),
                let requeued = try tx.webhooks.delivery(endpointID: id, id: deliveryID)
            else {
                throw StoreInconsistency(detail: "a failed delivery could not be made pending")
            }
            return requeued
        }
        outboxSignal.wake()
        return delivery
    }

    /// Deletes finished deliveries past `logRetentionDays`; run by `RetentionJobs`.
    @discardableResult
    public func pruneLog() throws -> Int {
        let cutoff = clock.now() - Int64(options.logRetentionDays) * 86_400_000
        return try store.write { tx in try tx.webhooks.pruneFinished(olderThan: cutoff) }
    }

    private static func existing(_ tx: any StoreTransaction, appID: String, id: String) throws -> WebhookEndpoint {
        guard let endpoint = try tx.webhooks.endpoint(appID: appID, id: id) else {
            throw ServiceError.notFound("webhook", id)
        }
        return endpoint
    }

    /// The endpoint, locked until commit, for a write that stores it whole: a sender recording its
    /// health meanwhile waits, rather than write back the secret or settings this write replaces.
    private static func existingForUpdate(_ tx: any StoreTransaction, appID: String, id: String) throws
        -> WebhookEndpoint
    {
        guard let endpoint = try tx.webhooks.endpointForUpdate(appID: appID, id: id) else {
            throw ServiceError.notFound("webhook", id)
        }
        return endpoint
    }

    private static func description(_ body: JSONValue) throws -> String? {
        guard let text = try body.optionalString("description", path: "$") else { return nil }
        guard TextLimits.fits(text, max: 200) else {
            throw ServiceError.badField("$.description", "invalid_description", "A description is 1 to 200 characters.")
        }
        return text
    }

    private static func enabled(_ body: JSONValue) throws -> Bool? {
        guard let value = body["enabled"], !value.isNull else { return nil }
        guard case .bool(let flag) = value else {
            throw ServiceError.badField("$.enabled", "type_mismatch", "'enabled' is true or false.")
        }
        return flag
    }

    /// `eventTypes`: `["*"]` or a non-empty list of known types (never `webhook.test`, sent only on demand).
    static func subscription(_ value: JSONValue?) throws -> WebhookSubscription? {
        guard let value, !value.isNull else { return nil }
        guard let items = value.arrayValue, !items.isEmpty else {
            throw ServiceError.badField(
                "$.eventTypes", "type_mismatch", "'eventTypes' is a non-empty array of event types, or [\"*\"].")
        }
        if items == ["*"] { return .all }
        var types = Set<WebhookEventType>()
        for (index, item) in items.enumerated() {
            guard let name = item.stringValue, let type = WebhookEventType(rawValue: name), type != .webhookTest else {
                let names = WebhookEventType.allCases.filter { $0 != .webhookTest }.map(\.rawValue).joined(
                    separator: ", ")
                throw ServiceError.badField(
                    "$.eventTypes[\(index)]", "invalid_enum_value", "An event type is one of \(names), or \"*\".")
            }
            types.insert(type)
        }
        return .only(types)
    }
}
