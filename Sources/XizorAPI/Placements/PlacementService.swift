import PaywallFormat
import Storage

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
    private let pool: DatabasePool
    private let clock: Clock
    private let changes: ChangeFeed
    private let activity: ServiceActivity

    public init(pool: DatabasePool, clock: Clock, changes: ChangeFeed, activity: ServiceActivity = ServiceActivity()) {
        self.activity = activity
        self.pool = pool
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
        try pool.serviceWrite { db in
            let target = try PlacementService.target(db, appID: appID, paywallID: paywallID, experimentID: experimentID, path: "$")
            try db.execute("""
                INSERT INTO placements (app_id, key, paywall_id, experiment_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_id, key) DO UPDATE SET paywall_id = excluded.paywall_id, experiment_id = excluded.experiment_id,
                    updated_at = max(placements.updated_at, excluded.updated_at)
                """, [appID, key, target.paywallID, target.experimentID, now, now])
            try ChangeStore.append(db, appID: appID, kind: .placement, entityID: key, now: now)
        }
        try changes.catchUp()
        return try placement(appID: appID, key: key)
    }

    /// A placement's or rule's target: a live paywall, an experiment that has not stopped, or both
    /// (the paywall then serves while the experiment is not running).
    static func target(_ db: Database, appID: String, paywallID: String?, experimentID: String?, path: String) throws -> (paywallID: String, experimentID: String?) {
        guard let experimentID else {
            guard let paywallID else {
                throw ServiceError.badField("\(path).paywallId", "missing_required_field", "Give a 'paywallId' (or an 'experimentId').")
            }
            try requireAssignablePaywall(db, appID: appID, paywallID: paywallID, path: "\(path).paywallId")
            return (paywallID, nil)
        }
        guard let row = try db.queryOne("""
            SELECT e.status, v.paywall_id FROM experiments e JOIN experiment_variants v ON v.experiment_id = e.id AND v.position = 0
            WHERE e.id = ? AND e.app_id = ?
            """, [experimentID, appID]) else {
            throw ServiceError.badField("\(path).experimentId", "unknown_experiment", "No experiment '\(experimentID)' in this app.")
        }
        let status: String = try row.get(0)
        guard status != "stopped" else {
            throw ServiceError.badField("\(path).experimentId", "experiment_stopped", "Experiment '\(experimentID)' has stopped; target a paywall.")
        }
        let control: String = try row.get(1)
        let fallback = paywallID ?? control
        try requireAssignablePaywall(db, appID: appID, paywallID: fallback, path: "\(path).paywallId")
        return (fallback, experimentID)
    }

    static func requireAssignablePaywall(_ db: Database, appID: String, paywallID: String, path: String) throws {
        guard let row = try db.queryOne("SELECT archived_at FROM paywalls WHERE id = ? AND app_id = ?", [paywallID, appID]) else {
            throw ServiceError.badField(path, "unknown_paywall", "No paywall '\(paywallID)' in this app.")
        }
        let archived: Int64? = try row.get(0)
        if archived != nil {
            throw ServiceError.badField(path, "paywall_archived", "Paywall '\(paywallID)' is archived; choose a live paywall.")
        }
    }

    public func list(appID: String) throws -> [PlacementInfo] {
        let keys: [String] = try pool.serviceRead { db in
            try db.query("SELECT key FROM placements WHERE app_id = ? ORDER BY key", [appID]).map { try $0.get(0) }
        }
        return try keys.map { try placement(appID: appID, key: $0) }
    }

    public func placement(appID: String, key: String) throws -> PlacementInfo {
        try pool.serviceRead { db in
            guard let row = try db.queryOne("SELECT paywall_id, created_at, updated_at, experiment_id FROM placements WHERE app_id = ? AND key = ?", [appID, key]) else {
                throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
            }
            let rules = try db.query("""
                SELECT condition, paywall_id, active_from, active_until, experiment_id FROM placement_rules
                WHERE app_id = ? AND placement_key = ? ORDER BY position
                """, [appID, key]).map { rule -> JSONValue in
                    let text: String = try rule.get(0)
                    var o: [String: JSONValue] = ["when": try DataFailure.storedJSON(Array(text.utf8), what: "a rule of placement '\(key)'", activity: self.activity),
                                                  "paywallId": .string(try rule.get(1))]
                    if let from: Int64 = try rule.get(2) { o["activeFrom"] = .number(Int(from)) }
                    if let until: Int64 = try rule.get(3) { o["activeUntil"] = .number(Int(until)) }
                    if let experiment: String = try rule.get(4) { o["experimentId"] = .string(experiment) }
                    return .object(o)
                }
            return PlacementInfo(key: key, paywallID: try row.get(0), experimentID: try row.get(3), rules: rules,
                                 createdAt: try row.get(1), updatedAt: try row.get(2))
        }
    }

    public func delete(appID: String, key: String) throws {
        let now = clock.now()
        try pool.serviceWrite { db in
            try db.execute("DELETE FROM placements WHERE app_id = ? AND key = ?", [appID, key])
            guard db.changes == 1 else { throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.") }
            try ChangeStore.append(db, appID: appID, kind: .placement, entityID: key, now: now)
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
        try pool.serviceWrite { db in
            guard try db.queryOne("SELECT 1 FROM placements WHERE app_id = ? AND key = ?", [appID, key]) != nil else {
                throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app; assign it a paywall first.")
            }
            var targets: [(paywallID: String, experimentID: String?)] = []
            for (index, rule) in parsed.enumerated() {
                do { targets.append(try PlacementService.target(db, appID: appID, paywallID: rule.paywallID, experimentID: rule.experimentID, path: "$.rules[\(index)]")) }
                catch let error as ServiceError { issues.append(contentsOf: error.errors) }
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues, detail: "The rules have \(issues.count) error(s).") }
            try db.execute("DELETE FROM placement_rules WHERE app_id = ? AND placement_key = ?", [appID, key])
            for (position, (rule, target)) in zip(parsed, targets).enumerated() {
                try db.execute("""
                    INSERT INTO placement_rules (app_id, placement_key, position, condition, paywall_id, experiment_id, active_from, active_until)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, [appID, key, position, rule.condition.canonicalString, target.paywallID, target.experimentID, rule.from, rule.until])
            }
            try db.execute("UPDATE placements SET updated_at = max(updated_at, ?) WHERE app_id = ? AND key = ?", [now, appID, key])
            try ChangeStore.append(db, appID: appID, kind: .placement, entityID: key, now: now)
        }
        try changes.catchUp()
        return try placement(appID: appID, key: key)
    }
}
