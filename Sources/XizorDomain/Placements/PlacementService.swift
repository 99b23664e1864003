import PaywallFormat

/// A placement as the dashboard reads it.
public struct PlacementInfo: Sendable {
    public let key: String
    public let paywallID: String
    public let experimentID: String?
    public let rules: [JSONValue]
    public let createdAt: Int64
    public let updatedAt: Int64
    /// What the write that answered this may not have meant (a target with nothing published).
    public var warnings: [ValidationIssue] = []

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "key": .string(key), "paywallId": .string(paywallID),
            "experimentId": experimentID.map { .string($0) } ?? .null,
            "rules": .array(rules), "createdAt": .number(Int(createdAt)), "updatedAt": .number(Int(updatedAt)),
        ]
        if !warnings.isEmpty { o["warnings"] = .array(warnings.map(\.json)) }
        return .object(o)
    }
}

/// Placements and their ordered rules. Reassignments and rule changes append to the change feed and
/// catch up before answering, so they are live on the next SDK request without a publish (in every
/// other process within the feed's poll interval).
public final class PlacementService: Sendable {
    private let store: any DataStore
    private let clock: Clock
    private let changes: ChangeFeed
    private let activity: ServiceActivity

    public init(store: any DataStore, clock: Clock, changes: ChangeFeed, activity: ServiceActivity = ServiceActivity())
    {
        self.activity = activity
        self.store = store
        self.clock = clock
        self.changes = changes
    }

    /// Placement keys: what app code passes to `present(...)`. A key made only of dots (`.`, `..`)
    /// is refused: in a URL it is a dot-segment that clients and proxies rewrite (RFC 3986 §5.2.4),
    /// so the SDK could never ask for it.
    package static let keyRule = "1 to 100 of A-Z a-z 0-9 _ - ., not only dots"

    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.count <= 100 && key.utf8.contains { $0 != 0x2E }
            && key.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
                    || b == 0x2D || b == 0x2E
            }
    }

    /// Points `key` at a paywall, or at an experiment (creating the placement when new). The
    /// paywall must belong to the app and not be archived; with an experiment and no paywall, the
    /// experiment's control is the paywall served whenever the experiment is not running.
    public func assign(appID: String, key: String, paywallID: String?, experimentID: String? = nil) throws
        -> PlacementInfo
    {
        guard PlacementService.isValidKey(key) else {
            throw ServiceError.badField(
                "$.key", "invalid_placement_key", "A placement key is \(PlacementService.keyRule).")
        }
        let now = clock.now()
        let warnings = try store.write { tx in
            let target = try PlacementService.target(
                tx, appID: appID, paywallID: paywallID, experimentID: experimentID, path: "$")
            let before = try tx.placements.placement(appID: appID, key: key)
            try tx.placements.upsert(
                appID: appID, key: key, paywallID: target.paywallID, experimentID: target.experimentID, now: now)
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
            try PlacementService.record(tx, appID: appID, key: key, before: before, deleted: false, now: now)
            return try PlacementService.unpublishedWarnings(tx, appID: appID, target: target, path: "$")
        }
        try changes.catchUp()
        var info = try placement(appID: appID, key: key)
        info.warnings = warnings
        return info
    }

    /// A target that cannot serve yet is allowed (publish next) but said: the placement, or the
    /// rule, falls through to what comes after it until then.
    static func unpublishedWarnings(
        _ tx: any StoreTransaction, appID: String, target: (paywallID: String, experimentID: String?),
        path: String
    ) throws -> [ValidationIssue] {
        guard try tx.paywalls.latestVersionNumber(paywallID: target.paywallID) == nil else { return [] }
        let what = path == "$" ? "The placement" : "Rule \(path)"
        return [
            ValidationIssue(
                path: "\(path).paywallId",
                message: "Paywall '\(target.paywallID)' has no published version: \(what) "
                    + (path == "$" ? "answers 404 no_published_paywall" : "is skipped") + " until it is published.",
                code: "target_unpublished")
        ]
    }

    /// A placement's or rule's target: a live paywall, an experiment that has not stopped, or both
    /// (the paywall then serves while the experiment is not running).
    static func target(
        _ tx: any StoreTransaction, appID: String, paywallID: String?, experimentID: String?, path: String
    ) throws -> (paywallID: String, experimentID: String?) {
        guard let experimentID else {
            guard let paywallID else {
                throw ServiceError.badField(
                    "\(path).paywallId", "missing_required_field", "Give a 'paywallId' (or an 'experimentId').")
            }
            try requireAssignablePaywall(tx, appID: appID, paywallID: paywallID, path: "\(path).paywallId")
            return (paywallID, nil)
        }
        guard let experiment = try tx.experiments.experiment(appID: appID, id: experimentID),
            let control = experiment.variants.first?.paywallID
        else {
            throw ServiceError.badField(
                "\(path).experimentId", "unknown_experiment", "No experiment '\(experimentID)' in this app.")
        }
        guard experiment.status != .stopped else {
            throw ServiceError.badField(
                "\(path).experimentId", "experiment_stopped",
                "Experiment '\(experimentID)' has stopped; target a paywall.")
        }
        let fallback = paywallID ?? control
        try requireAssignablePaywall(tx, appID: appID, paywallID: fallback, path: "\(path).paywallId")
        return (fallback, experimentID)
    }

    static func requireAssignablePaywall(_ tx: any StoreTransaction, appID: String, paywallID: String, path: String)
        throws
    {
        guard let lifecycle = try tx.paywalls.lifecycle(appID: appID, id: paywallID) else {
            throw ServiceError.badField(path, "unknown_paywall", "No paywall '\(paywallID)' in this app.")
        }
        if lifecycle == .archived {
            throw ServiceError.badField(
                path, "paywall_archived", "Paywall '\(paywallID)' is archived; choose a live paywall.")
        }
    }

    /// The app's placements with their rules, read from one snapshot.
    public func list(appID: String) throws -> [PlacementInfo] {
        try store.read { tx in try tx.placements.placements(appID: appID) }.map(info)
    }

    public func placement(appID: String, key: String) throws -> PlacementInfo {
        guard let stored = try store.read({ tx in try tx.placements.placement(appID: appID, key: key) }) else {
            throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
        }
        return try info(stored)
    }

    /// A stored placement as the dashboard reads it; a stored condition that is not JSON is a counted data failure.
    private func info(_ stored: StoredPlacement) throws -> PlacementInfo {
        let rules = try stored.rules.map { rule -> JSONValue in
            var o: [String: JSONValue] = [
                "when": try DataFailure.storedJSON(
                    Array(rule.condition.utf8), what: "a rule of placement '\(stored.key)'", activity: activity),
                "paywallId": .string(rule.paywallID),
            ]
            if let from = rule.activeFrom { o["activeFrom"] = .number(Int(from)) }
            if let until = rule.activeUntil { o["activeUntil"] = .number(Int(until)) }
            if let experiment = rule.experimentID { o["experimentId"] = .string(experiment) }
            if let cap = rule.frequencyCap { o["frequencyCap"] = cap.json }
            return .object(o)
        }
        return PlacementInfo(
            key: stored.key, paywallID: stored.paywallID, experimentID: stored.experimentID, rules: rules,
            createdAt: stored.createdAt, updatedAt: stored.updatedAt)
    }

    public func delete(appID: String, key: String) throws {
        let now = clock.now()
        try store.write { tx in
            let before = try tx.placements.placement(appID: appID, key: key)
            guard try tx.placements.delete(appID: appID, key: key) else {
                throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
            }
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
            try PlacementService.record(tx, appID: appID, key: key, before: before, deleted: true, now: now)
        }
        try changes.catchUp()
    }

    /// Replaces the placement's ordered rules after validating every one (422 with every path).
    /// Times (`activeFrom`, `activeUntil`) are integer milliseconds since 1970; a rollout written
    /// without a seed is given one here (answered, so writing back what was read keeps it).
    public func setRules(appID: String, key: String, rules json: JSONValue) throws -> PlacementInfo {
        guard let list = json.arrayValue else {
            throw ServiceError.badField("$.rules", "type_mismatch", "'rules' is an array of {when, paywallId}.")
        }
        guard list.count <= PlacementService.maxRules else {
            throw ServiceError.badField(
                "$.rules", "array_too_long", "A placement has at most \(PlacementService.maxRules) rules.")
        }
        var issues: [ValidationIssue] = []
        var parsed:
            [(
                condition: Condition?, paywallID: String?, experimentID: String?, from: Int64?, until: Int64?,
                cap: FrequencyCap?
            )] = []
        let options = Condition.ParseOptions(newSeed: { Identifiers.random(12) })
        for (index, item) in list.enumerated() {
            let path = "$.rules[\(index)]"
            guard let object = item.objectValue else {
                issues.append(
                    ValidationIssue(
                        path: path, message: "A rule is an object {when, paywallId}.", code: "type_mismatch"))
                continue
            }
            for name in object.keys.sorted()
            where !["when", "paywallId", "experimentId", "activeFrom", "activeUntil", "frequencyCap"].contains(name) {
                issues.append(
                    ValidationIssue(
                        path: "\(path).\(name)", message: "Unknown property '\(name)'.", code: "unknown_property"))
            }
            var condition: Condition?
            if let when = object["when"] {
                condition = Condition.parse(when, path: "\(path).when", issues: &issues, options: options)
            } else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).when", message: "A rule needs a 'when' condition.",
                        code: "missing_required_field"))
            }
            let paywallID = object["paywallId"]?.stringValue
            let experimentID = object["experimentId"]?.stringValue
            for (name, value) in [("paywallId", paywallID), ("experimentId", experimentID)]
            where value == nil && object[name] != nil && object[name]?.isNull == false {
                issues.append(
                    ValidationIssue(path: "\(path).\(name)", message: "'\(name)' is a string.", code: "type_mismatch"))
            }
            func time(_ name: String) -> Int64? {
                guard let value = object[name], !value.isNull else { return nil }
                guard let n = value.numberValue?.int64Value, n >= 0 else {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).\(name)", message: "'\(name)' is integer milliseconds since 1970.",
                            code: "type_mismatch"))
                    return nil
                }
                return n
            }
            let from = time("activeFrom")
            let until = time("activeUntil")
            if let from, let until, until <= from {
                issues.append(
                    ValidationIssue(
                        path: "\(path).activeUntil", message: "'activeUntil' must be after 'activeFrom'.",
                        code: "number_out_of_range"))
            }
            let cap = object["frequencyCap"].flatMap {
                $0.isNull ? nil : PlacementService.frequencyCap($0, path: "\(path).frequencyCap", issues: &issues)
            }
            parsed.append((condition, paywallID, experimentID, from, until, cap))
        }
        let now = clock.now()
        let warnings = try store.write { tx -> [ValidationIssue] in
            // Rules are replaced whole, checked against the audiences as stored (that they exist, what
            // they cost): no other rules or audience write of the app may interleave.
            try tx.apps.lockForLimits(appID: appID)
            guard let before = try tx.placements.placement(appID: appID, key: key) else {
                throw ServiceError(
                    .notFound, "placement_not_found", "No placement '\(key)' in this app; assign it a paywall first.")
            }
            let audiences = Set(try tx.audiences.audiences(appID: appID).map(\.id))
            var targets: [(paywallID: String, experimentID: String?)] = []
            var warnings: [ValidationIssue] = []
            for (index, rule) in parsed.enumerated() {
                let path = "$.rules[\(index)]"
                warnings += rule.condition?.warnings(path: "\(path).when") ?? []
                for missing in (rule.condition?.audienceIDs ?? []).subtracting(audiences).sorted() {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).when",
                            message:
                                "No audience '\(missing)' in this app (create it with PUT /v1/audiences/\(missing)).",
                            code: "unknown_audience"))
                }
                do {
                    let target = try PlacementService.target(
                        tx, appID: appID, paywallID: rule.paywallID, experimentID: rule.experimentID, path: path)
                    targets.append(target)
                    warnings += try PlacementService.unpublishedWarnings(tx, appID: appID, target: target, path: path)
                } catch let error as ServiceError { issues.append(contentsOf: error.errors) }
            }
            // Priced with the audiences as stored now; an audience change is priced against these rules in turn.
            let audienceCosts = try EvaluationCost.audienceCosts(tx, appID: appID)
            let cost = parsed.reduce(0) {
                $0 + EvaluationCost.rule($1.condition, cap: $1.cap, audiences: audienceCosts)
            }
            if cost > EvaluationCost.budget {
                issues.append(EvaluationCost.refusal(path: "$.rules", what: "These rules", cost: cost))
            }
            guard issues.isEmpty else {
                throw ServiceError.invalid(issues, detail: "The rules have \(issues.count) error(s).")
            }
            let stored = zip(parsed, targets).map { rule, target in
                StoredRule(
                    condition: (rule.condition?.json ?? .null).canonicalString, paywallID: target.paywallID,
                    experimentID: target.experimentID,
                    activeFrom: rule.from, activeUntil: rule.until, frequencyCap: rule.cap)
            }
            try tx.placements.replaceRules(appID: appID, key: key, rules: stored, now: now)
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
            try PlacementService.record(tx, appID: appID, key: key, before: before, deleted: false, now: now)
            return warnings
        }
        try changes.catchUp()
        var info = try placement(appID: appID, key: key)
        info.warnings = warnings
        return info
    }

    /// Records a change of the placement's routing (audit log, `placement.updated` webhook), with
    /// its routing before and as it is now in this transaction.
    private static func record(
        _ tx: any StoreTransaction, appID: String, key: String, before: StoredPlacement?, deleted: Bool,
        now: Int64
    ) throws {
        let after = deleted ? nil : try tx.placements.placement(appID: appID, key: key)
        try tx.record(
            WriteRecord(
                appID: appID, action: deleted ? .placementDeleted : .placementUpdated, targetKind: "placement",
                targetID: key, before: before?.auditBytes, after: after?.auditBytes,
                data: [
                    "placementKey": .string(key), "deleted": .bool(deleted),
                    "paywallId": after.map { .string($0.paywallID) } ?? .null,
                ]), now: now)
    }

    /// The most rules one placement may have: every SDK request may evaluate them all.
    package static let maxRules = 100

    /// `{"count": N ≥ 1, "seconds": S ≥ 1}`, or `"per": "hour" | "day" | "week"` in place of seconds.
    static func frequencyCap(_ json: JSONValue, path: String, issues: inout [ValidationIssue]) -> FrequencyCap? {
        let shape =
            "'frequencyCap' is {\"count\": N, \"seconds\": S} or {\"count\": N, \"per\": \"hour\"|\"day\"|\"week\"}."
        guard let object = json.objectValue else {
            issues.append(ValidationIssue(path: path, message: shape, code: "type_mismatch"))
            return nil
        }
        for name in object.keys.sorted() where !["count", "seconds", "per"].contains(name) {
            issues.append(
                ValidationIssue(
                    path: "\(path).\(name)", message: "Unknown property '\(name)'. \(shape)", code: "unknown_property"))
        }
        guard let count = object["count"]?.numberValue?.int64Value, count >= 1, count <= 1_000_000 else {
            issues.append(
                ValidationIssue(
                    path: "\(path).count", message: "'count' is an integer from 1 to 1,000,000.",
                    code: "number_out_of_range"))
            return nil
        }
        let periods: [String: Int64] = ["hour": 3_600, "day": 86_400, "week": 604_800]
        switch (object["seconds"], object["per"]) {
        case (let seconds?, nil):
            guard let s = seconds.numberValue?.int64Value, s >= 1, s <= 366 * 86_400 else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).seconds", message: "'seconds' is an integer from 1 to 31,622,400 (366 days).",
                        code: "number_out_of_range"))
                return nil
            }
            return FrequencyCap(count: Int(count), seconds: s)
        case (nil, let per?):
            guard let name = per.stringValue, let s = periods[name] else {
                issues.append(
                    ValidationIssue(
                        path: "\(path).per", message: "'per' is hour, day or week.", code: "invalid_enum_value"))
                return nil
            }
            return FrequencyCap(count: Int(count), seconds: s)
        default:
            issues.append(ValidationIssue(path: path, message: shape, code: "invalid_frequency_cap"))
            return nil
        }
    }
}
