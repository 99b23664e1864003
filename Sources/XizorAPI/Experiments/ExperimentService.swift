import PaywallFormat
import Storage

/// An A/B test: 2–5 variants (paywalls with integer weights, the first is the control) and an
/// optional holdout that is shown nothing. Lifecycle draft → running → stopped; a winner can be
/// promoted to every placement and rule that targets the experiment in one call.
public struct Experiment: Sendable {
    public struct Variant: Sendable {
        public let name: String
        public let paywallID: String
        public let weight: Int
    }

    public let id: String
    public let name: String
    public let status: String
    public let variants: [Variant]
    public let holdoutWeight: Int
    public let allocation: [UInt8]
    public let createdAt: Int64
    public let startedAt: Int64?
    public let stoppedAt: Int64?
    public let winner: Int?
    public let placements: [String]

    public var json: JSONValue {
        [
            "id": .string(id), "name": .string(name), "status": .string(status),
            "variants": .array(variants.map { ["name": .string($0.name), "paywallId": .string($0.paywallID), "weight": .number($0.weight)] }),
            "holdoutWeight": .number(holdoutWeight), "createdAt": .number(Int(createdAt)),
            "startedAt": startedAt.map { .number(Int($0)) } ?? .null, "stoppedAt": stoppedAt.map { .number(Int($0)) } ?? .null,
            "winner": winner.flatMap { $0 < variants.count ? .string(variants[$0].name) : nil } ?? .null,
            "placements": .array(placements.map { .string($0) }),
        ]
    }
}

public final class ExperimentService: Sendable {
    private let pool: DatabasePool
    private let clock: Clock
    /// Every experiment change appends to it and catches up before answering.
    private let changes: ChangeFeed

    public init(pool: DatabasePool, clock: Clock, changes: ChangeFeed) {
        self.pool = pool
        self.clock = clock
        self.changes = changes
    }

    // MARK: Create and read

    public func create(appID: String, body: JSONValue) throws -> Experiment {
        var issues: [ValidationIssue] = []
        if let object = body.objectValue {
            for key in object.keys.sorted() where !["name", "variants", "holdoutWeight"].contains(key) {
                issues.append(ValidationIssue(path: "$.\(key)", message: "Unknown property '\(key)'.", code: "unknown_property"))
            }
        }
        let name = body["name"]?.stringValue ?? "Experiment"
        if !TextLimits.fits(name, max: 200) {
            issues.append(ValidationIssue(path: "$.name", message: "A name is 1 to 200 characters.", code: "invalid_name"))
        }
        let holdout = ExperimentService.weight(body["holdoutWeight"], path: "$.holdoutWeight", default: 0, issues: &issues)
        var variants: [Experiment.Variant] = []
        if let list = body["variants"]?.arrayValue {
            if list.count < 2 || list.count > 5 {
                issues.append(ValidationIssue(path: "$.variants", message: "An experiment has 2 to 5 variants.", code: list.count < 2 ? "array_too_short" : "array_too_long"))
            }
            for (index, item) in list.enumerated() {
                let path = "$.variants[\(index)]"
                guard let paywallID = item["paywallId"]?.stringValue else {
                    issues.append(ValidationIssue(path: "\(path).paywallId", message: "A variant needs a 'paywallId'.", code: "missing_required_field"))
                    continue
                }
                let variantName = item["name"]?.stringValue ?? (index == 0 ? "control" : "variant_\(index)")
                if !StringFormat.id.matches(variantName) {
                    issues.append(ValidationIssue(path: "\(path).name", message: "A variant name is [A-Za-z0-9_-]{1,64}.", code: "invalid_id"))
                } else if variants.contains(where: { $0.name == variantName }) {
                    issues.append(ValidationIssue(path: "\(path).name", message: "Variant names are unique.", code: "duplicate_variant"))
                }
                let weight = ExperimentService.weight(item["weight"], path: "\(path).weight", default: nil, issues: &issues)
                variants.append(.init(name: variantName, paywallID: paywallID, weight: weight))
            }
            if !list.isEmpty, variants.allSatisfy({ $0.weight == 0 }) {
                issues.append(ValidationIssue(path: "$.variants", message: "At least one variant needs a weight above 0.", code: "number_out_of_range"))
            }
        } else {
            issues.append(ValidationIssue(path: "$.variants", message: "Send 'variants': [{paywallId, weight, name?}, …] (2 to 5).",
                                          code: body["variants"] == nil ? "missing_required_field" : "type_mismatch"))
        }
        let id = "exp_" + Identifiers.random(16)
        let now = clock.now()
        try pool.serviceWrite { db in
            for (index, variant) in variants.enumerated() {
                do { try PlacementService.requireAssignablePaywall(db, appID: appID, paywallID: variant.paywallID, path: "$.variants[\(index)].paywallId") }
                catch let error as ServiceError { issues.append(contentsOf: error.errors) }
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues, detail: "The experiment has \(issues.count) error(s).") }
            // Only once the variant count is known to be 2 to 5: an allocation has a UInt8 slot per variant.
            let allocation = Allocation.initial(weights: variants.map(\.weight), holdoutWeight: holdout)
            try db.execute("""
                INSERT INTO experiments (id, app_id, name, holdout_weight, allocation, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [id, appID, name, holdout, allocation, now, now])
            for (position, variant) in variants.enumerated() {
                try db.execute("""
                    INSERT INTO experiment_variants (experiment_id, position, app_id, name, paywall_id, weight) VALUES (?, ?, ?, ?, ?, ?)
                    """, [id, position, appID, variant.name, variant.paywallID, variant.weight])
            }
        }
        return try experiment(appID: appID, id: id)
    }

    static func weight(_ json: JSONValue?, path: String, default fallback: Int?, issues: inout [ValidationIssue]) -> Int {
        guard let json, !json.isNull else {
            if let fallback { return fallback }
            issues.append(ValidationIssue(path: path, message: "A weight is an integer from 0 to 1,000,000.", code: "missing_required_field"))
            return 0
        }
        guard let n = json.intValue, n >= 0, n <= 1_000_000 else {
            issues.append(ValidationIssue(path: path, message: "A weight is an integer from 0 to 1,000,000.", code: "number_out_of_range"))
            return 0
        }
        return n
    }

    public func list(appID: String) throws -> [Experiment] {
        let ids: [String] = try pool.serviceRead { db in
            try db.query("SELECT id FROM experiments WHERE app_id = ? ORDER BY created_at, id", [appID]).map { try $0.get(0) }
        }
        return try ids.map { try experiment(appID: appID, id: $0) }
    }

    public func experiment(appID: String, id: String) throws -> Experiment {
        try pool.serviceRead { db in try ExperimentService.load(db, appID: appID, id: id) }
    }

    static func load(_ db: Database, appID: String, id: String) throws -> Experiment {
        guard let row = try db.queryOne("""
            SELECT name, status, holdout_weight, allocation, created_at, started_at, stopped_at, winner
            FROM experiments WHERE id = ? AND app_id = ?
            """, [id, appID]) else { throw ServiceError.notFound("experiment", id) }
        let variants = try db.query("SELECT name, paywall_id, weight FROM experiment_variants WHERE experiment_id = ? ORDER BY position", [id])
            .map { Experiment.Variant(name: try $0.get(0), paywallID: try $0.get(1), weight: try $0.get(2)) }
        let placements: [String] = try db.query("""
            SELECT key FROM placements WHERE app_id = ? AND experiment_id = ?
            UNION SELECT placement_key FROM placement_rules WHERE app_id = ? AND experiment_id = ? ORDER BY 1
            """, [appID, id, appID, id]).map { try $0.get(0) }
        return Experiment(id: id, name: try row.get(0), status: try row.get(1), variants: variants, holdoutWeight: try row.get(2),
                          allocation: try row.get(3), createdAt: try row.get(4), startedAt: try row.get(5), stoppedAt: try row.get(6),
                          winner: try row.get(7), placements: placements)
    }

    // MARK: Lifecycle

    /// New weights (one per variant, in order) and holdout weight; moves the fewest subscribers.
    public func setWeights(appID: String, id: String, body: JSONValue) throws -> Experiment {
        try mutate(appID: appID, id: id) { db, current in
            guard current.status != "stopped" else {
                throw ServiceError(.conflict, "experiment_stopped", "A stopped experiment's weights are final.")
            }
            var issues: [ValidationIssue] = []
            guard let list = body["weights"]?.arrayValue, list.count == current.variants.count else {
                throw ServiceError.badField("$.weights", "type_mismatch", "Send 'weights': one integer per variant (\(current.variants.count)).")
            }
            let weights = list.enumerated().map { ExperimentService.weight($0.element, path: "$.weights[\($0.offset)]", default: nil, issues: &issues) }
            let holdout = ExperimentService.weight(body["holdoutWeight"], path: "$.holdoutWeight", default: current.holdoutWeight, issues: &issues)
            if weights.allSatisfy({ $0 == 0 }) {
                issues.append(ValidationIssue(path: "$.weights", message: "At least one variant needs a weight above 0.", code: "number_out_of_range"))
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues) }
            let allocation = Allocation.rebalance(current.allocation, weights: weights, holdoutWeight: holdout)
            try db.execute("UPDATE experiments SET holdout_weight = ?, allocation = ?, updated_at = ? WHERE id = ?",
                           [holdout, allocation, self.clock.now(), id])
            for (position, weight) in weights.enumerated() {
                try db.execute("UPDATE experiment_variants SET weight = ? WHERE experiment_id = ? AND position = ?", [weight, id, position])
            }
        }
    }

    /// Starts assigning subscribers; every variant must have a published version.
    public func start(appID: String, id: String) throws -> Experiment {
        try mutate(appID: appID, id: id) { db, current in
            guard current.status == "draft" else {
                throw ServiceError(.conflict, "experiment_not_draft", "Only a draft experiment can start; this one is \(current.status).")
            }
            var issues: [ValidationIssue] = []
            for (index, variant) in current.variants.enumerated()
            where try db.queryOne("SELECT 1 FROM paywall_versions WHERE paywall_id = ?", [variant.paywallID]) == nil {
                issues.append(ValidationIssue(path: "$.variants[\(index)].paywallId",
                                              message: "Paywall '\(variant.paywallID)' has no published version.", code: "no_published_paywall"))
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues, detail: "Publish every variant's paywall before starting.") }
            let now = self.clock.now()
            try db.execute("UPDATE experiments SET status = 'running', started_at = ?, updated_at = ? WHERE id = ?", [now, now, id])
        }
    }

    /// Stops assigning: targets answer their own paywall again.
    public func stop(appID: String, id: String) throws -> Experiment {
        try mutate(appID: appID, id: id) { db, current in
            guard current.status == "running" else {
                throw ServiceError(.conflict, "experiment_not_running", "Only a running experiment can stop; this one is \(current.status).")
            }
            let now = self.clock.now()
            try db.execute("UPDATE experiments SET status = 'stopped', stopped_at = ?, updated_at = ? WHERE id = ?", [now, now, id])
        }
    }

    /// Makes a variant's paywall the paywall of every placement and rule that targets the
    /// experiment, detaches the experiment from them and stops it: one call, live at once.
    public func promote(appID: String, id: String, variant name: String) throws -> Experiment {
        try mutate(appID: appID, id: id) { db, current in
            guard current.status != "draft" else {
                throw ServiceError(.conflict, "experiment_not_started", "A draft experiment has no results to promote.")
            }
            guard let position = current.variants.firstIndex(where: { $0.name == name }) else {
                throw ServiceError.badField("$.variant", "unknown_variant", "No variant '\(name)'; use one of \(current.variants.map(\.name).joined(separator: ", ")).")
            }
            let paywallID = current.variants[position].paywallID
            let now = self.clock.now()
            try db.execute("UPDATE placements SET paywall_id = ?, experiment_id = NULL, updated_at = max(updated_at, ?) WHERE app_id = ? AND experiment_id = ?",
                           [paywallID, now, appID, id])
            try db.execute("UPDATE placement_rules SET paywall_id = ?, experiment_id = NULL WHERE app_id = ? AND experiment_id = ?", [paywallID, appID, id])
            try db.execute("""
                UPDATE experiments SET status = 'stopped', stopped_at = coalesce(stopped_at, ?), winner = ?, updated_at = ? WHERE id = ?
                """, [now, position, now, id])
        }
    }

    func poolRead<T>(_ body: (Database) throws -> T) throws -> T { try pool.serviceRead(body) }

    private func mutate(appID: String, id: String, _ body: @escaping (Database, Experiment) throws -> Void) throws -> Experiment {
        try pool.serviceWrite { db in
            let current = try ExperimentService.load(db, appID: appID, id: id)
            try body(db, current)
            try ChangeStore.append(db, appID: appID, kind: .experiment, entityID: id, now: self.clock.now())
        }
        try changes.catchUp()
        return try experiment(appID: appID, id: id)
    }
}
