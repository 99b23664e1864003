import PaywallFormat

/// An A/B test: 2–5 variants (paywalls with integer weights, the first is the control) and an
/// optional holdout that is shown nothing. Lifecycle draft → running → stopped; a winner can be
/// promoted to every placement and rule that targets the experiment in one call.
public struct Experiment: Sendable {
    public struct Variant: Sendable {
        public let name: String
        public let paywallID: String
        public let weight: Int

        package init(name: String, paywallID: String, weight: Int) {
            self.name = name
            self.paywallID = paywallID
            self.weight = weight
        }
    }

    /// The lifecycle. Transitions are explicit (`after(_:)`); nothing else moves an experiment.
    public enum Status: String, Sendable {
        case draft, running, stopped

        public enum Event: Sendable {
            /// Starts assigning subscribers.
            case start
            /// Stops assigning; targets answer their own paywall again.
            case stop
            /// Makes a variant the paywall of every target and stops (from running, or after a stop).
            case promote
        }

        /// The status `event` leads to, or nil when it is not allowed from here.
        public func after(_ event: Event) -> Status? {
            switch (self, event) {
            case (.draft, .start): .running
            case (.running, .stop): .stopped
            case (.running, .promote), (.stopped, .promote): .stopped
            default: nil
            }
        }
    }

    public let id: String
    public let name: String
    public let status: Status
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
            "id": .string(id), "name": .string(name), "status": .string(status.rawValue),
            "variants": .array(
                variants.map {
                    ["name": .string($0.name), "paywallId": .string($0.paywallID), "weight": .number($0.weight)]
                }),
            "holdoutWeight": .number(holdoutWeight), "createdAt": .number(Int(createdAt)),
            "startedAt": startedAt.map { .number(Int($0)) } ?? .null,
            "stoppedAt": stoppedAt.map { .number(Int($0)) } ?? .null,
            "winner": winner.flatMap { $0 < variants.count ? .string(variants[$0].name) : nil } ?? .null,
            "placements": .array(placements.map { .string($0) }),
        ]
    }
}

public final class ExperimentService: Sendable {
    private let store: any DataStore
    private let clock: Clock
    /// Every experiment change appends to it and catches up before answering.
    private let changes: ChangeFeed
    let analyticsGate: AnalyticsGate

    /// `analyticsGate`: the results are a report, read within its app's share (`AnalyticsGate`).
    public init(store: any DataStore, clock: Clock, changes: ChangeFeed, analyticsGate: AnalyticsGate) {
        self.store = store
        self.clock = clock
        self.changes = changes
        self.analyticsGate = analyticsGate
    }

    // MARK: Create and read

    public func create(appID: String, body: JSONValue) throws -> Experiment {
        var issues: [ValidationIssue] = []
        if let object = body.objectValue {
            for key in object.keys.sorted() where !["name", "variants", "holdoutWeight"].contains(key) {
                issues.append(
                    ValidationIssue(path: "$.\(key)", message: "Unknown property '\(key)'.", code: "unknown_property"))
            }
        }
        let name = body["name"]?.stringValue ?? "Experiment"
        if !TextLimits.fits(name, max: 200) {
            issues.append(
                ValidationIssue(path: "$.name", message: "A name is 1 to 200 characters.", code: "invalid_name"))
        }
        let holdout = ExperimentService.weight(
            body["holdoutWeight"], path: "$.holdoutWeight", default: 0, issues: &issues)
        var variants: [Experiment.Variant] = []
        if let list = body["variants"]?.arrayValue {
            if list.count < 2 || list.count > 5 {
                issues.append(
                    ValidationIssue(
                        path: "$.variants", message: "An experiment has 2 to 5 variants.",
                        code: list.count < 2 ? "array_too_short" : "array_too_long"))
            }
            for (index, item) in list.enumerated() {
                let path = "$.variants[\(index)]"
                guard let paywallID = item["paywallId"]?.stringValue else {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).paywallId", message: "A variant needs a 'paywallId'.",
                            code: "missing_required_field"))
                    continue
                }
                let variantName = item["name"]?.stringValue ?? (index == 0 ? "control" : "variant_\(index)")
                if !StringFormat.id.matches(variantName) {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).name", message: "A variant name is [A-Za-z0-9_-]{1,64}.", code: "invalid_id")
                    )
                } else if variants.contains(where: { $0.name == variantName }) {
                    issues.append(
                        ValidationIssue(
                            path: "\(path).name", message: "Variant names are unique.", code: "duplicate_variant"))
                }
                let weight = ExperimentService.weight(
                    item["weight"], path: "\(path).weight", default: nil, issues: &issues)
                variants.append(.init(name: variantName, paywallID: paywallID, weight: weight))
            }
            if !list.isEmpty, variants.allSatisfy({ $0.weight == 0 }) {
                issues.append(
                    ValidationIssue(
                        path: "$.variants", message: "At least one variant needs a weight above 0.",
                        code: "number_out_of_range"))
            }
        } else {
            issues.append(
                ValidationIssue(
                    path: "$.variants", message: "Send 'variants': [{paywallId, weight, name?}, …] (2 to 5).",
                    code: body["variants"] == nil ? "missing_required_field" : "type_mismatch"))
        }
        let id = "exp_" + Identifiers.random(16)
        let now = clock.now()
        try store.write { tx in
            for (index, variant) in variants.enumerated() {
                do {
                    try PlacementService.requireAssignablePaywall(
                        tx, appID: appID, paywallID: variant.paywallID, path: "$.variants[\(index)].paywallId")
                } catch let error as ServiceError { issues.append(contentsOf: error.errors) }
            }
            guard issues.isEmpty else {
                throw ServiceError.invalid(issues, detail: "The experiment has \(issues.count) error(s).")
            }
            // Only once the variant count is known to be 2 to 5: an allocation has a UInt8 slot per variant.
            let allocation = Allocation.initial(weights: variants.map(\.weight), holdoutWeight: holdout)
            try tx.experiments.insert(
                StoredExperiment(
                    id: id, name: name, status: .draft, variants: variants, holdoutWeight: holdout,
                    allocation: allocation, createdAt: now, startedAt: nil, stoppedAt: nil, winner: nil),
                appID: appID, now: now)
            try tx.record(
                WriteRecord(
                    appID: appID, action: .experimentCreated, targetKind: "experiment", targetID: id,
                    after: try ExperimentService.load(tx, appID: appID, id: id).json.canonicalBytes), now: now)
        }
        return try experiment(appID: appID, id: id)
    }

    static func weight(_ json: JSONValue?, path: String, default fallback: Int?, issues: inout [ValidationIssue]) -> Int
    {
        guard let json, !json.isNull else {
            if let fallback { return fallback }
            issues.append(
                ValidationIssue(
                    path: path, message: "A weight is an integer from 0 to 1,000,000.", code: "missing_required_field"))
            return 0
        }
        guard let n = json.intValue, n >= 0, n <= 1_000_000 else {
            issues.append(
                ValidationIssue(
                    path: path, message: "A weight is an integer from 0 to 1,000,000.", code: "number_out_of_range"))
            return 0
        }
        return n
    }

    /// The app's experiments, read from one snapshot.
    public func list(appID: String) throws -> [Experiment] {
        try store.read { tx in
            try tx.experiments.experiments(appID: appID).map { try ExperimentService.experiment($0, appID: appID, tx) }
        }
    }

    public func experiment(appID: String, id: String) throws -> Experiment {
        try store.read { tx in try ExperimentService.load(tx, appID: appID, id: id) }
    }

    static func load(_ tx: any StoreTransaction, appID: String, id: String) throws -> Experiment {
        guard let stored = try tx.experiments.experiment(appID: appID, id: id) else {
            throw ServiceError.notFound("experiment", id)
        }
        return try experiment(stored, appID: appID, tx)
    }

    /// A stored experiment with the placements that target it.
    private static func experiment(_ stored: StoredExperiment, appID: String, _ tx: any StoreTransaction) throws
        -> Experiment
    {
        Experiment(
            id: stored.id, name: stored.name, status: stored.status, variants: stored.variants,
            holdoutWeight: stored.holdoutWeight,
            allocation: stored.allocation, createdAt: stored.createdAt, startedAt: stored.startedAt,
            stoppedAt: stored.stoppedAt,
            winner: stored.winner, placements: try tx.placements.keys(appID: appID, experimentID: stored.id))
    }

    // MARK: Lifecycle

    /// New weights (one per variant, in order) and holdout weight; moves the fewest subscribers.
    public func setWeights(appID: String, id: String, body: JSONValue) throws -> Experiment {
        try mutate(appID: appID, id: id, .experimentReweighted) { tx, current in
            guard current.status != .stopped else {
                throw ServiceError(.conflict, "experiment_stopped", "A stopped experiment's weights are final.")
            }
            var issues: [ValidationIssue] = []
            guard let list = body["weights"]?.arrayValue, list.count == current.variants.count else {
                throw ServiceError.badField(
                    "$.weights", "type_mismatch", "Send 'weights': one integer per variant (\(current.variants.count))."
                )
            }
            let weights = list.enumerated().map {
                ExperimentService.weight($0.element, path: "$.weights[\($0.offset)]", default: nil, issues: &issues)
            }
            let holdout = ExperimentService.weight(
                body["holdoutWeight"], path: "$.holdoutWeight", default: current.holdoutWeight, issues: &issues)
            if weights.allSatisfy({ $0 == 0 }) {
                issues.append(
                    ValidationIssue(
                        path: "$.weights", message: "At least one variant needs a weight above 0.",
                        code: "number_out_of_range"))
            }
            guard issues.isEmpty else { throw ServiceError.invalid(issues) }
            let allocation = Allocation.rebalance(current.allocation, weights: weights, holdoutWeight: holdout)
            try tx.experiments.setWeights(
                id: id, weights: weights, holdoutWeight: holdout, allocation: allocation, now: self.clock.now())
        }
    }

    /// Starts assigning subscribers; every variant must have a published version.
    public func start(appID: String, id: String) throws -> Experiment {
        try mutate(appID: appID, id: id, .experimentStarted) { tx, current in
            guard let next = current.status.after(.start) else {
                throw ServiceError(
                    .conflict, "experiment_not_draft",
                    "Only a draft experiment can start; this one is \(current.status.rawValue).")
            }
            var issues: [ValidationIssue] = []
            for (index, variant) in current.variants.enumerated()
            where try tx.paywalls.latestVersionNumber(paywallID: variant.paywallID) == nil {
                issues.append(
                    ValidationIssue(
                        path: "$.variants[\(index)].paywallId",
                        message: "Paywall '\(variant.paywallID)' has no published version.",
                        code: "no_published_paywall"))
            }
            guard issues.isEmpty else {
                throw ServiceError.invalid(issues, detail: "Publish every variant's paywall before starting.")
            }
            try tx.experiments.setStatus(id: id, next, winner: nil, now: self.clock.now())
        }
    }

    /// Stops assigning: targets answer their own paywall again.
    public func stop(appID: String, id: String) throws -> Experiment {
        try mutate(appID: appID, id: id, .experimentStopped) { tx, current in
            guard let next = current.status.after(.stop) else {
                throw ServiceError(
                    .conflict, "experiment_not_running",
                    "Only a running experiment can stop; this one is \(current.status.rawValue).")
            }
            try tx.experiments.setStatus(id: id, next, winner: nil, now: self.clock.now())
        }
    }

    /// Makes a variant's paywall the paywall of every placement and rule that targets the
    /// experiment, detaches the experiment from them and stops it: one call, live at once.
    public func promote(appID: String, id: String, variant name: String) throws -> Experiment {
        try mutate(appID: appID, id: id, .experimentPromoted) { tx, current in
            guard let next = current.status.after(.promote) else {
                throw ServiceError(.conflict, "experiment_not_started", "A draft experiment has no results to promote.")
            }
            guard let position = current.variants.firstIndex(where: { $0.name == name }) else {
                throw ServiceError.badField(
                    "$.variant", "unknown_variant",
                    "No variant '\(name)'; use one of \(current.variants.map(\.name).joined(separator: ", ")).")
            }
            let paywallID = current.variants[position].paywallID
            let now = self.clock.now()
            try tx.placements.retarget(appID: appID, experimentID: id, to: paywallID, now: now)
            try tx.experiments.setStatus(id: id, next, winner: position, now: now)
        }
    }

    func read<T>(_ body: (any StoreTransaction) throws -> T) throws -> T { try store.read(body) }

    /// Runs `body` on the experiment in one write that appends the change and records `action`.
    private func mutate(
        appID: String, id: String, _ action: AuditAction,
        _ body: @escaping (any StoreTransaction, Experiment) throws -> Void
    ) throws -> Experiment {
        try store.write { tx in
            let current = try ExperimentService.load(tx, appID: appID, id: id)
            try body(tx, current)
            let now = self.clock.now()
            try tx.changes.append(appID: appID, kind: .experiment, entityID: id, now: now)
            let after = try ExperimentService.load(tx, appID: appID, id: id)
            var data: JSONValue = ["experimentId": .string(id), "status": .string(after.status.rawValue)]
            if action == .experimentReweighted {
                data["weights"] = .object(
                    Dictionary(uniqueKeysWithValues: after.variants.map { ($0.name, JSONValue.number($0.weight)) }))
            }
            if action == .experimentPromoted, let winner = after.winner, winner < after.variants.count {
                data["promoted"] = [
                    "variant": .string(after.variants[winner].name),
                    "paywallId": .string(after.variants[winner].paywallID),
                ]
            }
            try tx.record(
                WriteRecord(
                    appID: appID, action: action, targetKind: "experiment", targetID: id,
                    before: current.json.canonicalBytes, after: after.json.canonicalBytes, data: data), now: now)
        }
        try changes.catchUp()
        return try experiment(appID: appID, id: id)
    }
}
