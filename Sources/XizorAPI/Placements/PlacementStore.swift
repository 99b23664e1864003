/// A rule as stored: its condition's canonical JSON text and its target.
public struct StoredRule: Sendable {
    public let condition: String
    public let paywallID: String
    public let experimentID: String?
    public let activeFrom: Int64?
    public let activeUntil: Int64?
}

/// A placement with its rules in order.
public struct StoredPlacement: Sendable {
    public let key: String
    public let paywallID: String
    public let experimentID: String?
    public let createdAt: Int64
    public let updatedAt: Int64
    public let rules: [StoredRule]
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
    /// Keys of the placements that target each of `paywallIDs` directly, sorted.
    func keys(appID: String, targeting paywallIDs: [String]) throws -> [String: [String]]
    /// Keys of the placements whose own target or one of whose rules is the experiment, sorted.
    func keys(appID: String, experimentID: String) throws -> [String]
    /// Points every placement and rule that targets the experiment at `paywallID` instead.
    func retarget(appID: String, experimentID: String, to paywallID: String, now: Int64) throws
}
