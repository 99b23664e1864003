import PaywallFormat

/// A rule as stored: its condition's canonical JSON text and its target.
public struct StoredRule: Sendable {
    public let condition: String
    public let paywallID: String
    public let experimentID: String?
    public let activeFrom: Int64?
    public let activeUntil: Int64?
    public let frequencyCap: FrequencyCap?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        condition: String,
        paywallID: String,
        experimentID: String?,
        activeFrom: Int64?,
        activeUntil: Int64?,
        frequencyCap: FrequencyCap?
    ) {
        self.condition = condition
        self.paywallID = paywallID
        self.experimentID = experimentID
        self.activeFrom = activeFrom
        self.activeUntil = activeUntil
        self.frequencyCap = frequencyCap
    }
}

/// At most `count` presentations per subscriber in any `seconds` (a rule's cap): counted from the
/// subscriber's `paywall_open` events on the placement showing the rule's target.
public struct FrequencyCap: Sendable, Equatable {
    public let count: Int
    public let seconds: Int64

    public var json: JSONValue { ["count": .number(count), "seconds": .number(Int(seconds))] }
}

/// A placement, or one of its rules, that targets a paywall.
public struct PlacementReference: Sendable, Hashable, Comparable {
    public let placement: String
    /// Nil: the placement's own target.
    public let rule: Int?
    /// Set in a paywall's `targetedBy` when the placement or rule serves it through an experiment
    /// (as one of its variants), so a list of what serves a paywall leaves none out.
    public var experimentID: String? = nil
    public var experimentName: String? = nil

    public static func < (a: PlacementReference, b: PlacementReference) -> Bool {
        a.placement != b.placement ? a.placement < b.placement : (a.rule ?? -1) < (b.rule ?? -1)
    }

    public var json: JSONValue {
        var o: [String: JSONValue] = ["placement": .string(placement), "rule": rule.map { .number($0) } ?? .null]
        if let experimentID { o["experimentId"] = .string(experimentID) }
        if let experimentName { o["experimentName"] = .string(experimentName) }
        return .object(o)
    }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        placement: String,
        rule: Int?,
        experimentID: String? = nil,
        experimentName: String? = nil
    ) {
        self.placement = placement
        self.rule = rule
        self.experimentID = experimentID
        self.experimentName = experimentName
    }
}

/// A placement with its rules in order.
public struct StoredPlacement: Sendable {
    public let key: String
    public let paywallID: String
    public let experimentID: String?
    public let createdAt: Int64
    public let updatedAt: Int64
    public let rules: [StoredRule]

    /// The routing as the audit log hashes it: the stored texts as they are, not parsed again.
    var auditBytes: [UInt8] {
        let rules: [JSONValue] = rules.map { rule in
            [
                "when": .string(rule.condition), "paywallId": .string(rule.paywallID),
                "experimentId": rule.experimentID.map(JSONValue.string) ?? .null,
                "activeFrom": rule.activeFrom.map { .number(Int($0)) } ?? .null,
                "activeUntil": rule.activeUntil.map { .number(Int($0)) } ?? .null,
                "frequencyCap": rule.frequencyCap?.json ?? .null,
            ]
        }
        let routing: JSONValue = [
            "paywallId": .string(paywallID), "experimentId": experimentID.map(JSONValue.string) ?? .null,
            "rules": .array(rules),
        ]
        return routing.canonicalBytes
    }

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        key: String,
        paywallID: String,
        experimentID: String?,
        createdAt: Int64,
        updatedAt: Int64,
        rules: [StoredRule]
    ) {
        self.key = key
        self.paywallID = paywallID
        self.experimentID = experimentID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.rules = rules
    }
}

/// All SQL of placements and their rules.
public protocol PlacementStore {
    /// Creates the placement or points it at a new target.
    func upsert(appID: String, key: String, paywallID: String, experimentID: String?, now: Int64) throws
    func placement(appID: String, key: String) throws -> StoredPlacement?
    /// Every placement of the app with its rules, by key.
    func placements(appID: String) throws -> [StoredPlacement]
    /// False when the app has no such placement.
    func delete(appID: String, key: String) throws -> Bool
    /// Replaces the placement's rules (in order) and bumps its `updatedAt`.
    func replaceRules(appID: String, key: String, rules: [StoredRule], now: Int64) throws
    /// What targets each of `paywallIDs`: placements (their own target) and rules, by key then rule,
    /// directly or through an experiment (not stopped) one of whose variants it is.
    func references(appID: String, targeting paywallIDs: [String]) throws -> [String: [PlacementReference]]
    /// Keys of the placements whose own target or one of whose rules is the experiment, sorted.
    func keys(appID: String, experimentID: String) throws -> [String]
    /// Points every placement and rule that targets the experiment at `paywallID` instead.
    func retarget(appID: String, experimentID: String, to paywallID: String, now: Int64) throws
}

extension PlacementStore {
    /// A rule's cap from its two columns (the schema keeps them both set or both null).
    package static func cap(count: Int64?, seconds: Int64?) throws -> FrequencyCap? {
        guard let count, let seconds else { return nil }
        guard count >= 1, count <= Int64(Int32.max), seconds >= 1 else {
            throw StoreInconsistency(detail: "a rule's frequency cap is \(count) per \(seconds) s")
        }
        return FrequencyCap(count: Int(count), seconds: seconds)
    }
}
