import PaywallFormat

/// A placement as the dashboard reads it.
public struct PlacementInfo: Sendable {
    public let key: String
    public let paywallID: String
    public let experimentID: String?
    public let rules: [JSONValue]
    public let createdAt: Int64
    public let updatedAt: Int64

    public var json: JSONValue {
        ["key": .string(key), "paywallId": .string(paywallID), "experimentId": experimentID.map { .string($0) } ?? .null,
         "rules": .array(rules),
         "createdAt": .number(Int(createdAt)), "updatedAt": .number(Int(updatedAt))]
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

    public init(store: any DataStore, clock: Clock, changes: ChangeFeed, activity: ServiceActivity = ServiceActivity()) {
        self.activity = activity
        self.store = store
        self.clock = clock
        self.changes = changes
    }

    /// Placement keys: what app code passes to `present(...)`. A key made only of dots (`.`, `..`)
    /// is refused: in a URL it is a dot-segment that clients and proxies rewrite (RFC 3986 §5.2.4),
    /// so the SDK could never ask for it.
    static let keyRule = "1 to 100 of A-Z a-z 0-9 _ - ., not only dots"

    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.count <= 100 && key.utf8.contains { $0 != 0x2E } && key.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E
        }
    }

    /// Points `key` at a paywall, or at an experiment (creating the placement when new). The
    /// paywall must belong to the app and not be archived; with an experiment and no paywall, the
    /// experiment's control is the paywall served whenever the experiment is not running.
    public func assign(appID: String, key: String, paywallID: String?, experimentID: String? = nil) throws -> PlacementInfo {
        guard PlacementService.isValidKey(key) else {
            throw ServiceError.badField("$.key", "invalid_placement_key", "A placement key is \(PlacementService.keyRule).")
        }
        let now = clock.now()
        try store.write { tx in
            let target = try PlacementService.target(tx, appID: appID, paywallID: paywallID, experimentID: experimentID, path: "$")
            try tx.placements.upsert(appID: appID, key: key, paywallID: target.paywallID, experimentID: target.experimentID, now: now)
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
        }
        try changes.catchUp()
        return try placement(appID: appID, key: key)
    }

    /// A placement's or rule's target: a live paywall, an experiment that has not stopped, or both
    /// (the paywall then serves while the experiment is not running).
    static func target(_ tx: any StoreTransaction, appID: String, paywallID: String?, experimentID: String?, path: String) throws -> (paywallID: String, experimentID: String?) {
        guard let experimentID else {
            guard let paywallID else {
                throw ServiceError.badField("\(path).paywallId", "missing_required_field", "Give a 'paywallId' (or an 'experimentId').")
            }
            try requireAssignablePaywall(tx, appID: appID, paywallID: paywallID, path: "\(path).paywallId")
            return (paywallID, nil)
        }
        guard let experiment = try tx.experiments.experiment(appID: appID, id: experimentID), let control = experiment.variants.first?.paywallID else {
            throw ServiceError.badField("\(path).experimentId", "unknown_experiment", "No experiment '\(experimentID)' in this app.")
        }
        guard experiment.status != .stopped else {
            throw ServiceError.badField("\(path).experimentId", "experiment_stopped", "Experiment '\(experimentID)' has stopped; target a paywall.")
        }
        let fallback = paywallID ?? control
        try requireAssignablePaywall(tx, appID: appID, paywallID: fallback, path: "\(path).paywallId")
        return (fallback, experimentID)
    }

    static func requireAssignablePaywall(_ tx: any StoreTransaction, appID: String, paywallID: String, path: String) throws {
        guard let lifecycle = try tx.paywalls.lifecycle(appID: appID, id: paywallID) else {
            throw ServiceError.badField(path, "unknown_paywall", "No paywall '\(paywallID)' in this app.")
        }
        if lifecycle == .archived {
            throw ServiceError.badField(path, "paywall_archived", "Paywall '\(paywallID)' is archived; choose a live paywall.")
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
            var o: [String: JSONValue] = ["when": try DataFailure.storedJSON(Array(rule.condition.utf8), what: "a rule of placement '\(stored.key)'", activity: activity),
                                          "paywallId": .string(rule.paywallID)]
            if let from = rule.activeFrom { o["activeFrom"] = .number(Int(from)) }
            if let until = rule.activeUntil { o["activeUntil"] = .number(Int(until)) }
            if let experiment = rule.experimentID { o["experimentId"] = .string(experiment) }
            return .object(o)
        }
        return PlacementInfo(key: stored.key, paywallID: stored.paywallID, experimentID: stored.experimentID, rules: rules,
                             createdAt: stored.createdAt, updatedAt: stored.updatedAt)
    }

    public func delete(appID: String, key: String) throws {
        let now = clock.now()
        try store.write { tx in
            guard try tx.placements.delete(appID: appID, key: key) else {
                throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
            }
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
        }
        try changes.catchUp()
    }

    /// Replaces the placement's ordered rules after validating every one (422 with every path).
    /// Times (`activeFrom`, `activeUntil`) are integer milliseconds since 1970.
    public func setRules(appID: String, key: String, rules json: JSONValue) throws -> PlacementInfo {
        guard let list = json.arrayValue else {
            throw ServiceError.badField("$.rules", "type_mismatch", "'rules' is an array of {when, paywallId}.")
        }
        var issues: [ValidationIssue] = []
        var parsed: [(condition: JSONValue, paywallID: String?, experimentID: String?, from: Int64?, until: Int64?)] = []
        for (index, item) in list.enumerated() {
            let path = "$.rules[\(index)]"
            guard let object = item.objectValue else {
                issues.append(ValidationIssue(path: path, message: "A rule is an object {when, paywallId}.", code: "type_mismatch"))
                continue
            }
            for name in object.keys.sorted() where !["when", "paywallId", "experimentId", "activeFrom", "activeUntil"].contains(name) {
                issues.append(ValidationIssue(path: "\(path).\(name)", message: "Unknown property '\(name)'.", code: "unknown_property"))
            }
            var condition: JSONValue = .null
            if let when = object["when"] {
                if let c = Condition.parse(when, path: "\(path).when", issues: &issues) { condition = c.json }
            } else {
                issues.append(ValidationIssue(path: "\(path).when", message: "A rule needs a 'when' condition.", code: "missing_required_field"))
            }
            let paywallID = object["paywallId"]?.stringValue
            let experimentID = object["experimentId"]?.stringValue
            for (name, value) in [("paywallId", paywallID), ("experimentId", experimentID)] where value == nil && object[name] != nil && object[name]?.isNull == false {
                issues.append(ValidationIssue(path: "\(path).\(name)", message: "'\(name)' is a string.", code: "type_mismatch"))
            }
            func time(_ name: String) -> Int64? {
                guard let value = object[name], !value.isNull else { return nil }
                guard let n = value.numberValue?.int64Value, n >= 0 else {
                    issues.append(ValidationIssue(path: "\(path).\(name)", message: "'\(name)' is integer milliseconds since 1970.", code: "type_mismatch"))
                    return nil
                }
                return n
            }
            let from = time("activeFrom"), until = time("activeUntil")
            if let from, let until, until <= from {
                issues.append(ValidationIssue(path: "\(path).activeUntil", message: "'activeUntil' must be after 'activeFrom'.", code: "number_out_of_range"))
            }
            parsed.append((condition, paywallID, experimentID, from, until))
        }
        let now = clock.now()
        try store.write { tx in
            guard try tx.placements.placement(appID: appID, key: key) != nil else {
                throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app; assign it a paywall first.")
            }
            var targets: [(paywallID: String, experimentID: String?)] = []
            for (index, rule) in parsed.enumerated() {
                do { targets.append(try PlacementService.target(tx, appID: appID, paywallID: rule.paywallID, experimentID: rule.experimentID, path: "$.rules[\(index)]")) }
                catch let error as ServiceError { issues.append(contentsOf: error.errors) }
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues, detail: "The rules have \(issues.count) error(s).") }
            let stored = zip(parsed, targets).map { rule, target in
                StoredRule(condition: rule.condition.canonicalString, paywallID: target.paywallID, experimentID: target.experimentID,
                           activeFrom: rule.from, activeUntil: rule.until)
            }
            try tx.placements.replaceRules(appID: appID, key: key, rules: stored, now: now)
            try tx.changes.append(appID: appID, kind: .placement, entityID: key, now: now)
        }
        try changes.catchUp()
        return try placement(appID: appID, key: key)
    }
}
