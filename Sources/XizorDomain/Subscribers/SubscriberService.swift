import PaywallFormat

/// What is stored per subscriber: attributes the app sets (rules read them as `subscriber.KEY`),
/// and — for a data-subject deletion — its timers and events too.
public final class SubscriberService: Sendable {
    private let store: any DataStore
    private let clock: Clock
    private let activity: ServiceActivity
    /// Every write of attributes appends a `subscriber` change, so each process drops its cached
    /// copy (SubscriberAttributeCache); this process catches up before answering.
    private let changes: ChangeFeed

    public init(store: any DataStore, clock: Clock, changes: ChangeFeed, activity: ServiceActivity) {
        self.store = store
        self.clock = clock
        self.changes = changes
        self.activity = activity
    }

    /// Bounds that keep one subscriber's row small (it may be read on every SDK request).
    public static let maxAttributes = 50
    public static let maxKeyBytes = 64
    public static let maxStringBytes = 256
    package static let keyRule = "1 to 64 of A-Z a-z 0-9 _ - ."

    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maxKeyBytes
            && key.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                    || b == 0x2D || b == 0x2E
            }
    }

    static func checkSubscriberID(_ id: String) throws {
        guard !id.isEmpty, id.utf8.count <= 200 else {
            throw ServiceError.badField("$.subscriberId", "invalid_subscriber_id", "A subscriber id is 1 to 200 bytes.")
        }
    }

    /// Replaces the subscriber's attributes with `{"attributes": {KEY: string | number | boolean}}`.
    public func setAttributes(appID: String, subscriberID: String, body: JSONValue) throws -> JSONValue {
        try SubscriberService.checkSubscriberID(subscriberID)
        guard let attributes = body["attributes"]?.objectValue else {
            throw ServiceError.badField(
                "$.attributes", body["attributes"] == nil ? "missing_required_field" : "type_mismatch",
                "Send {\"attributes\": {\"KEY\": string, number or boolean}}.")
        }
        var issues: [ValidationIssue] = []
        if attributes.count > SubscriberService.maxAttributes {
            issues.append(
                ValidationIssue(
                    path: "$.attributes",
                    message: "At most \(SubscriberService.maxAttributes) attributes per subscriber.",
                    code: "too_many_attributes"))
        }
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            let path = "$.attributes.\(key.prefix(64))"
            guard SubscriberService.isValidKey(key) else {
                issues.append(
                    ValidationIssue(
                        path: path, message: "An attribute key is \(SubscriberService.keyRule).",
                        code: "invalid_attribute_key"))
                continue
            }
            guard let typed = ContextValue(json: value) else {
                issues.append(
                    ValidationIssue(
                        path: path, message: "An attribute is a string, number or boolean.", code: "type_mismatch"))
                continue
            }
            if case .string(let s) = typed, s.utf8.count > SubscriberService.maxStringBytes {
                issues.append(
                    ValidationIssue(
                        path: path, message: "A string attribute is at most \(SubscriberService.maxStringBytes) bytes.",
                        code: "string_too_long"))
            }
        }
        guard issues.isEmpty else {
            throw ServiceError.invalid(issues, detail: "The attributes have \(issues.count) error(s).")
        }
        let text = JSONValue.object(attributes).canonicalString
        let now = clock.now()
        try store.write { tx in
            try tx.subscribers.setAttributes(appID: appID, subscriberID: subscriberID, attributes: text, now: now)
            try tx.changes.append(appID: appID, kind: .subscriber, entityID: subscriberID, now: now)
        }
        try changes.catchUp()
        return try self.attributes(appID: appID, subscriberID: subscriberID)
    }

    /// `{subscriberId, attributes, updatedAt}` (empty attributes and a null time when none are stored).
    public func attributes(appID: String, subscriberID: String) throws -> JSONValue {
        try SubscriberService.checkSubscriberID(subscriberID)
        guard
            let stored = try store.read({ tx in try tx.subscribers.attributes(appID: appID, subscriberID: subscriberID)
            })
        else {
            return ["subscriberId": .string(subscriberID), "attributes": [:], "updatedAt": .null]
        }
        let attributes = try DataFailure.storedJSON(
            Array(stored.attributes.utf8), what: "the attributes of subscriber '\(subscriberID)'",
            activity: activity)
        return [
            "subscriberId": .string(subscriberID), "attributes": attributes,
            "updatedAt": .number(Int(stored.updatedAt)),
        ]
    }

    /// Deletes the subscriber's attributes (its rules then see none); 404 when none were stored.
    public func deleteAttributes(appID: String, subscriberID: String) throws {
        try SubscriberService.checkSubscriberID(subscriberID)
        let now = clock.now()
        try store.write { tx in
            guard let before = try tx.subscribers.attributes(appID: appID, subscriberID: subscriberID),
                try tx.subscribers.deleteAttributes(appID: appID, subscriberID: subscriberID)
            else {
                throw ServiceError(
                    .notFound, "attributes_not_found", "Subscriber '\(subscriberID)' has no stored attributes.")
            }
            try tx.record(
                WriteRecord(
                    appID: appID, action: .subscriberAttributesDeleted, targetKind: "subscriber",
                    targetID: subscriberID,
                    before: Array(before.attributes.utf8)), now: now)
            try tx.changes.append(appID: appID, kind: .subscriber, entityID: subscriberID, now: now)
        }
        try changes.catchUp()
    }

    /// Events deleted per write transaction: about 1,000 rows of the events table and its indexes
    /// take well under the 50 ms one transaction may hold the writer (docs/sdk.md).
    static let deletionChunk = 1_000

    /// Deletes everything stored of the subscriber: its events in chunks of `deletionChunk` (each
    /// its own transaction, so a subscriber with 150,000 events does not hold every app's writes
    /// for seconds), then its attributes and timers with the audit record. A failure part way
    /// leaves some events gone and answers an error; deleting again finishes the job.
    /// Experiment results and analytics recount without them.
    public func delete(appID: String, subscriberID: String) throws -> JSONValue {
        try SubscriberService.checkSubscriberID(subscriberID)
        var events = 0
        while true {
            let chunk = try store.write { tx in
                // The rollups lose what they counted of these events (those still queued were never
                // counted); the fold's lock keeps a pass from counting one while it goes.
                try tx.rollups.lockFold()
                let erased = try tx.rollups.events(
                    appID: appID, subscriberID: subscriberID, atMost: SubscriberService.deletionChunk)
                var counted = EventRollup()
                for erased in erased where !erased.queued { counted.add(erased.event, spans: RollupSpan.allCases) }
                try tx.rollups.subtract(appID: appID, counted, subscriberID: subscriberID)
                let deleted = try tx.subscribers.deleteEvents(
                    appID: appID, erased.map { ($0.id, $0.event.occurredAt) })
                guard deleted == erased.count else {
                    throw StoreInconsistency(detail: "\(erased.count) events read for erasure, \(deleted) deleted")
                }
                return deleted
            }
            events += chunk
            if chunk < SubscriberService.deletionChunk { break }
        }
        let now = clock.now()
        let removed = try store.write { tx in
            try tx.rollups.lockFold()
            var removed = try tx.subscribers.delete(appID: appID, subscriberID: subscriberID)
            removed.events = events
            _ = try tx.rollups.forget(appID: appID, subscriberID: subscriberID)
            // Verified revenue keeps its money (the stores' record) but not the person: their token,
            // their name on subscriptions, their experiment arms' progress (docs/revenue.md).
            try tx.revenue.forget(appID: appID, subscriberID: subscriberID)
            // A deletion that found nothing changed nothing, and is not a write to record (the
            // answer's zero counts tell the caller so).
            if removed.attributes + removed.timers + removed.events > 0 {
                try tx.record(
                    WriteRecord(
                        appID: appID, action: .subscriberDeleted, targetKind: "subscriber", targetID: subscriberID),
                    now: now)
            }
            // Only attributes are cached: a deletion that removed none leaves every cache right.
            if removed.attributes > 0 {
                try tx.changes.append(appID: appID, kind: .subscriber, entityID: subscriberID, now: now)
            }
            return removed
        }
        if removed.attributes > 0 { try changes.catchUp() }
        return [
            "subscriberId": .string(subscriberID), "attributes": .number(removed.attributes),
            "timers": .number(removed.timers),
            "events": .number(removed.events),
        ]
    }
}
