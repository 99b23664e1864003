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
    private let clock: Clock
    let activity: ServiceActivity
    private let window: TimeWindow
    /// Events per subscriber per minute (nil: no limit).
    let subscriberLimit: SubscriberEventLimit?

    public init(
        store: any DataStore, clock: Clock, activity: ServiceActivity = ServiceActivity(),
        window: TimeWindow = TimeWindow(),
        eventsPerSubscriberPerMinute: Int = 0
    ) {
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

    static func parse(_ json: JSONValue, path: String, issues: inout [ValidationIssue]) -> StoredEvent? {
        guard let object = json.objectValue else {
            issues.append(ValidationIssue(path: path, message: "An event is an object.", code: "type_mismatch"))
            return nil
        }
        let allowed: Set<String> = [
            "id", "name", "timestamp", "placement", "paywallId", "version", "subscriberId", "context", "properties",
            "experimentId", "variant", "environment",
        ]
        for key in object.keys.sorted() where !allowed.contains(key) {
            issues.append(
                ValidationIssue(
                    path: "\(path).\(key)", message: "Unknown event field '\(key)'.", code: "unknown_property"))
        }
        func string(_ key: String, required: Bool, max: Int = 200) -> String? {
            guard let value = object[key], !value.isNull else {
                if required {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).\(key)", message: "'\(key)' is required.", code: "missing_required_field"))
                }
                return nil
            }
            guard let s = value.stringValue, TextLimits.fits(s, max: max) else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).\(key)", message: "'\(key)' is a string of 1 to \(max) characters.",
                        code: "type_mismatch"))
                return nil
            }
            return s
        }
        let id = string("id", required: true)
        let name = string("name", required: true, max: 100)
        if let name, !EventService.knownNames.contains(name), !EventService.isCustomName(name) {
            issues.append(
                ValidationIssue(
                    path: "\(path).name",
                    message: "'\(name)' is not an event name: use a known name or [A-Za-z0-9_.:-]{1,100}.",
                    code: "invalid_event_name"))
        }
        var occurredAt: Int64?
        switch object["timestamp"] {
        case .number(let n)?:
            if let ms = n.int64Value, ms >= 0 { occurredAt = ms }
        case .string(let s)?:
            if let ms = EventService.parseTimestamp(s), ms >= 0 { occurredAt = ms }
        default: break
        }
        if occurredAt == nil {
            issues.append(
                ValidationIssue(
                    path: "\(path).timestamp",
                    message: "'timestamp' is an RFC 3339 date-time or integer milliseconds since 1970.",
                    code: object["timestamp"] == nil ? "missing_required_field" : "invalid_date_time"))
        }
        let placement = string("placement", required: false, max: 100)
        let paywallID = string("paywallId", required: false)
        var version: Int?
        if let v = object["version"], !v.isNull {
            if let n = v.intValue, n >= 1 {
                version = n
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).version", message: "'version' is a positive integer.", code: "type_mismatch"))
            }
        }
        if version != nil && paywallID == nil {
            issues.append(
                ValidationIssue(
                    path: "\(path).paywallId", message: "'version' needs 'paywallId'.", code: "missing_required_field"))
        }
        let subscriberID = string("subscriberId", required: false)
        let experimentID = string("experimentId", required: false)
        let variant = string("variant", required: false, max: 64)
        if (experimentID == nil) != (variant == nil) && issues.isEmpty {
            issues.append(
                ValidationIssue(
                    path: "\(path).\(experimentID == nil ? "experimentId" : "variant")",
                    message: "'experimentId' and 'variant' go together.", code: "missing_required_field"))
        }
        var context: String?
        if let c = object["context"], !c.isNull {
            if let fields = c.objectValue, fields.values.allSatisfy({ ContextValue(json: $0) != nil }) {
                context = c.canonicalString
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).context", message: "'context' is an object of strings, numbers and booleans.",
                        code: "type_mismatch"))
            }
        }
        var properties: [String: JSONValue] = [:]
        if let p = object["properties"], !p.isNull {
            if let fields = p.objectValue {
                properties = fields
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).properties", message: "'properties' is an object.", code: "type_mismatch"))
            }
        }
        var environment = DataEnvironment.production
        if let value = object["environment"], !value.isNull {
            if let name = value.stringValue, let known = DataEnvironment(rawValue: name) {
                environment = known
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).environment", message: "'environment' is production or sandbox.",
                        code: "invalid_enum_value"))
            }
        }
        guard issues.isEmpty, let id, let name, let occurredAt else { return nil }
        return StoredEvent(
            id: id, name: name, occurredAt: occurredAt, placement: placement, paywallID: paywallID, version: version,
            subscriberID: subscriberID, context: context,
            properties: properties.isEmpty ? nil : JSONValue.object(properties).canonicalString,
            experimentID: experimentID, variant: variant, environment: environment)
    }

    /// An event's experiment must be one of the app's and its variant one of that experiment's
    /// (or `holdout`): attribution to what never ran would corrupt its results.
    static func attributionIssue(experimentID: String, variant: String, known: [String]?, path: String)
        -> ValidationIssue?
    {
        guard let known else {
            return ValidationIssue(
                path: "\(path).experimentId", message: "No experiment '\(experimentID)' in this app.",
                code: "unknown_experiment")
        }
        guard known.contains(variant) || variant == "holdout" else {
            return ValidationIssue(
                path: "\(path).variant",
                message:
                    "Experiment '\(experimentID)' has no variant '\(variant)' (it has \(known.joined(separator: ", ")), or holdout).",
                code: "unknown_variant")
        }
        return nil
    }

    static func isCustomName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100
            && name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                    || b == 0x2E || b == 0x3A || b == 0x2D
            }
    }

    /// RFC 3339 date-time with a zone (`2026-11-30T12:00:00Z`, fractional seconds allowed).
    static func parseTimestamp(_ text: String) -> Int64? { DateTime.millisecondsSince1970(text) }
}

extension EventService.TimeWindow {
    /// The issue with `timestamp` (ms) for an event received at `receivedAt`, or nil when inside.
    func check(_ timestamp: Int64, receivedAt: Int64, path: String) -> ValidationIssue? {
        if timestamp > receivedAt + maxFutureMs {
            return ValidationIssue(
                path: path, message: "'timestamp' is more than \(maxFutureMs / 1000) s ahead of the server's clock.",
                code: "timestamp_in_future")
        }
        if timestamp < receivedAt - maxAgeMs {
            return ValidationIssue(
                path: path, message: "'timestamp' is more than \(maxAgeMs / 1000) s old.", code: "timestamp_too_old")
        }
        return nil
    }
}

extension EventService {
    /// Events per page of an export: each page is one read (a short transaction), so an export of
    /// millions of events neither holds a snapshot for its whole length nor keeps them in memory.
    static let exportPage = 1_000

    /// Streams the app's events whose `timestamp` is in [from, to) as NDJSON, a page at a time, in
    /// id order; `write` gets each page's lines (and may throw to stop: the client went away).
    /// Returns how many were written.
    @discardableResult
    public func export(
        appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter,
        write: ([UInt8]) throws -> Void
    ) throws -> Int {
        var after: String?
        var count = 0
        while true {
            let page = try store.read { tx in
                try tx.events.export(
                    appID: appID, from: from, to: to, environment: environment, after: after,
                    limit: EventService.exportPage)
            }
            guard let last = page.last else { return count }
            var bytes: [UInt8] = []
            for exported in page {
                bytes += try exportLine(exported).canonicalBytes
                bytes.append(UInt8(ascii: "\n"))
            }
            try write(bytes)
            count += page.count
            after = last.event.id
            if page.count < EventService.exportPage { return count }
        }
    }

    /// A `from`/`to` bound: milliseconds since 1970 or an RFC 3339 date-time (400 otherwise).
    public static func time(_ raw: String?, name: String) throws -> Int64? {
        guard let raw else { return nil }
        if let ms = Int64(raw), ms >= 0 { return ms }
        if let ms = parseTimestamp(raw) { return ms }
        throw ServiceError(
            .badRequest, "invalid_time", "'\(name)' is milliseconds since 1970 or an RFC 3339 date-time, not '\(raw)'.")
    }

    /// One event as an export line: what the SDK sent (`timestamp` in milliseconds) and when it was received.
    func exportLine(_ exported: ExportedEvent) throws -> JSONValue {
        let e = exported.event
        var o: [String: JSONValue] = [
            "id": .string(e.id), "name": .string(e.name), "timestamp": .number(Int(e.occurredAt)),
            "receivedAt": .number(Int(exported.receivedAt)), "environment": .string(e.environment.rawValue),
        ]
        if let v = e.placement { o["placement"] = .string(v) }
        if let v = e.paywallID { o["paywallId"] = .string(v) }
        if let v = e.version { o["version"] = .number(v) }
        if let v = e.subscriberID { o["subscriberId"] = .string(v) }
        if let v = e.experimentID { o["experimentId"] = .string(v) }
        if let v = e.variant { o["variant"] = .string(v) }
        if let v = e.context {
            o["context"] = try DataFailure.storedJSON(
                Array(v.utf8), what: "the context of event '\(e.id)'", activity: activity)
        }
        if let v = e.properties {
            o["properties"] = try DataFailure.storedJSON(
                Array(v.utf8), what: "the properties of event '\(e.id)'", activity: activity)
        }
        return .object(o)
    }
}
