import Dispatch
import Foundation
import PaywallFormat

/// Funnel events from the SDK. A batch is validated event by event (the valid ones are kept, each
/// invalid one is reported with its paths) and stored in one durable transaction; the key
/// (app, event id) makes retried batches count once.
public final class EventService: Sendable {
    public static let maxBatch = 500
    public static let knownNames: Set<String> = [
        "paywall_open", "paywall_close", "purchase_started", "purchase_completed", "purchase_failed",
        "purchase_cancelled", "restore_started", "restore_completed", "restore_failed", "paywall_unknown_node",
    ]

    /// How far from the server's clock an event's `timestamp` may be. SDKs queue events while
    /// offline, so old ones are normal up to a point; a timestamp far in the future is a broken
    /// clock or a forged event and would skew every time-bounded funnel.
    public struct TimeWindow: Sendable, Equatable {
        public var maxAgeMs: Int64
        public var maxFutureMs: Int64
        public init(maxAgeMs: Int64 = 30 * 86_400_000, maxFutureMs: Int64 = 86_400_000) {
            self.maxAgeMs = maxAgeMs
            self.maxFutureMs = maxFutureMs
        }
    }

    let store: any DataStore
    /// Concurrent batches share a transaction (one commit, one fsync) and each is answered once
    /// that transaction is durable.
    private let group: GroupCommit
    let clock: Clock
    let activity: ServiceActivity
    let window: TimeWindow
    /// How long raw events are kept, and the retention job's chunk.
    package let retention: EventRetention
    /// Events per subscriber per minute (nil: no limit).
    package let subscriberLimit: SubscriberEventLimit?

    public init(
        store: any DataStore, clock: Clock, activity: ServiceActivity = ServiceActivity(),
        window: TimeWindow = TimeWindow(),
        eventsPerSubscriberPerMinute: Int = 0, retention: EventRetention = EventRetention()
    ) {
        self.retention = retention
        self.store = store
        group = GroupCommit(store: store)
        self.clock = clock
        self.activity = activity
        self.window = window
        subscriberLimit =
            eventsPerSubscriberPerMinute > 0 ? SubscriberEventLimit(perMinute: eventsPerSubscriberPerMinute) : nil
    }

    public struct Rejection: Sendable {
        public let index: Int
        public let id: String?
        public let errors: [ValidationIssue]
        public var json: JSONValue {
            ["index": .number(index), "id": id.map { .string($0) } ?? .null, "errors": .array(errors.map(\.json))]
        }
    }

    public struct Outcome: Sendable {
        public let accepted: Int
        public let duplicates: Int
        public let rejected: [Rejection]
        public var json: JSONValue {
            [
                "accepted": .number(accepted), "duplicates": .number(duplicates),
                "rejected": .array(rejected.map(\.json)),
            ]
        }
    }

    /// A batch as the SDK sent it (the body's bytes): read directly when it has the form every SDK
    /// sends (`EventBatchReader`), else parsed as JSON and validated field by field, which is where
    /// every error is reported.
    public func ingest(appID: String, body: [UInt8], keyEnvironment: DataEnvironment = .production) throws -> Outcome {
        if let events = EventBatchReader.read(body) {
            return try store(
                appID: appID, events.enumerated().map { ($0.offset, $0.element) }, rejected: [],
                keyEnvironment: keyEnvironment)
        }
        return try ingest(appID: appID, batch: try JSONBody.parse(body), keyEnvironment: keyEnvironment)
    }

    /// `keyEnvironment`: a sandbox key's events are all sandbox; a production key's are what each says.
    public func ingest(appID: String, batch: JSONValue, keyEnvironment: DataEnvironment = .production) throws -> Outcome
    {
        guard let events = batch["events"]?.arrayValue else {
            throw ServiceError.badField(
                "$.events", batch["events"] == nil ? "missing_required_field" : "type_mismatch",
                "Send {\"events\": [...]}.")
        }
        guard events.count <= EventService.maxBatch else {
            throw ServiceError(
                .contentTooLarge, "batch_too_large",
                "A batch holds at most \(EventService.maxBatch) events, not \(events.count).")
        }
        var rejected: [Rejection] = []
        var read: [(index: Int, event: StoredEvent)] = []
        for (index, json) in events.enumerated() {
            var issues: [ValidationIssue] = []
            if let event = EventService.parse(json, path: "$.events[\(index)]", issues: &issues), issues.isEmpty {
                read.append((index, event))
            } else {
                rejected.append(Rejection(index: index, id: json["id"]?.stringValue, errors: issues))
            }
        }
        return try store(appID: appID, read, rejected: rejected, keyEnvironment: keyEnvironment)
    }

    /// Checks the events read from a batch against the server's clock and the app's paywalls and
    /// experiments, and stores the ones that pass in a group commit; `rejected` are the batch's
    /// events that were not valid on their own.
    private func store(
        appID: String, _ read: [(index: Int, event: StoredEvent)], rejected: [Rejection],
        keyEnvironment: DataEnvironment
    ) throws -> Outcome {
        var rejected = rejected
        var parsed: [(index: Int, event: StoredEvent)] = []
        parsed.reserveCapacity(read.count)
        let receivedAt = clock.now()
        for (index, var event) in read {
            if keyEnvironment == .sandbox { event.environment = .sandbox }
            if let issue = window.check(event.occurredAt, receivedAt: receivedAt, path: "$.events[\(index)].timestamp")
            {
                rejected.append(Rejection(index: index, id: event.id, errors: [issue]))
            } else {
                parsed.append((index, event))
            }
        }
        if let subscriberLimit {
            var counts: [String: Int] = [:]
            for (_, event) in parsed { if let subscriber = event.subscriberID { counts[subscriber, default: 0] += 1 } }
            try subscriberLimit.admit(
                appID: appID, eventsBySubscriber: counts, nowMicros: Int64(DispatchTime.now().uptimeNanoseconds / 1000))
        }
        // Everything the transaction decides is its return value: a write the database runs again
        // (PostgreSQL's serialization retries) must not count twice.
        let (accepted, duplicates, refused) = try group.write { [parsed] tx -> (Int, Int, [Rejection]) in
            var refused: [Rejection] = []
            var valid: [StoredEvent] = []
            // Read once per batch: variant names per experiment (nil: no such experiment), and whether
            // each (paywall, version) the batch names exists.
            var variants: [String: [String]?] = [:]
            var known: [String: Bool] = [:]
            for (index, event) in parsed {
                if let experimentID = event.experimentID, let variant = event.variant {
                    if variants[experimentID] == nil {
                        let names = try tx.experiments.experiment(appID: appID, id: experimentID)?.variants.map(\.name)
                        variants[experimentID] = .some(names)
                    }
                    if let issue = EventService.attributionIssue(
                        experimentID: experimentID, variant: variant,
                        known: variants[experimentID] ?? nil, path: "$.events[\(index)]")
                    {
                        refused.append(Rejection(index: index, id: event.id, errors: [issue]))
                        continue
                    }
                }
                if let paywallID = event.paywallID {
                    let key = "\(paywallID) \(event.version.map(String.init) ?? "-")"
                    if known[key] == nil {
                        if let version = event.version {
                            known[key] = try tx.paywalls.hasVersion(
                                appID: appID, paywallID: paywallID, version: version)
                        } else {
                            known[key] = try tx.paywalls.lifecycle(appID: appID, id: paywallID) != nil
                        }
                    }
                    guard known[key] == true else {
                        refused.append(
                            Rejection(
                                index: index, id: event.id,
                                errors: [
                                    ValidationIssue(
                                        path: "$.events[\(index)].paywallId",
                                        message:
                                            "No published version \(event.version.map(String.init) ?? "") of paywall '\(paywallID)' in this app.",
                                        code: "unknown_paywall")
                                ]))
                        continue
                    }
                }
                valid.append(event)
            }
            let inserted = try tx.events.insert(appID: appID, valid, receivedAt: receivedAt)
            return (inserted, valid.count - inserted, refused)
        }
        rejected += refused
        activity.recordEvents(accepted: accepted, duplicates: duplicates, rejected: rejected.count)
        return Outcome(accepted: accepted, duplicates: duplicates, rejected: rejected.sorted { $0.index < $1.index })
    }
}
