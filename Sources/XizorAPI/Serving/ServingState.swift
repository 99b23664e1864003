import PaywallFormat
import Storage
import Synchronization

/// One placement rule as the resolver sees it.
public struct ServingRule: Sendable {
    public let condition: Condition
    public let paywallID: String
    public let activeFrom: Int64?
    public let activeUntil: Int64?

    func isActive(at now: Int64) -> Bool {
        (activeFrom.map { now >= $0 } ?? true) && (activeUntil.map { now < $0 } ?? true)
    }
}

/// What the SDK path needs of one app, as an immutable snapshot: placements with their rules, and
/// the latest published version of every paywall. Swapped whole; never mutated in place.
public struct AppServingSnapshot: Sendable {
    public struct PlacementEntry: Sendable {
        public let key: String
        public let paywallID: String
        public let rules: [ServingRule]
    }

    public let appID: String
    public let placements: [String: PlacementEntry]
    public let latestVersions: [String: PublishedVersion]
    public let archivedPaywalls: Set<String>
}

/// The outcome of resolving a placement for a context.
public struct Resolution: Sendable {
    public let placement: String
    public let version: PublishedVersion
    /// The index of the rule that matched, or nil when the placement's own paywall serves.
    public let matchedRule: Int?
    /// Whether the serving paywall is archived (it keeps serving until reassigned).
    public let paywallArchived: Bool

    public var json: JSONValue {
        [
            "placement": .string(placement), "paywallId": .string(version.paywallID), "version": .number(version.version),
            "matchedRule": matchedRule.map { .number($0) } ?? .null, "paywallArchived": .bool(paywallArchived),
        ]
    }
}

/// The in-memory serving state of every app. A write that changes what the SDK may serve calls
/// `refresh(appID:)` after it commits and before it answers; the refresh re-reads the app in one
/// read transaction under the app's lock, so the snapshot installed last is always at least as new
/// as every commit that preceded it, and the very next request sees the write.
public final class ServingState: Sendable {
    private let pool: DatabasePool
    private let clock: Clock
    private let snapshots = Mutex<[String: AppServingSnapshot]>([:])
    private let refreshLock = Mutex<Void>(())

    public init(pool: DatabasePool, clock: Clock) {
        self.pool = pool
        self.clock = clock
    }

    /// Loads every live app (at start-up).
    public func loadAll() throws {
        let appIDs: [String] = try pool.serviceRead { db in
            try db.query("SELECT id FROM apps WHERE archived_at IS NULL").map { try $0.get(0) }
        }
        for appID in appIDs { try refresh(appID: appID) }
    }

    public func snapshot(appID: String) -> AppServingSnapshot? {
        snapshots.withLock { $0[appID] }
    }

    /// Re-reads one app's serving data and installs it.
    public func refresh(appID: String) throws {
        try refreshLock.withLock { _ in
            let snapshot = try pool.serviceRead { db in try ServingState.load(appID: appID, db) }
            snapshots.withLock { $0[appID] = snapshot }
        }
    }

    static func load(appID: String, _ db: Database) throws -> AppServingSnapshot {
        var rulesByPlacement: [String: [ServingRule]] = [:]
        for row in try db.query("""
            SELECT placement_key, condition, paywall_id, active_from, active_until FROM placement_rules
            WHERE app_id = ? ORDER BY placement_key, position
            """, [appID]) {
            var issues: [ValidationIssue] = []
            let text: String = try row.get(1)
            guard let json = try? JSONValue(parsing: text), let condition = Condition.parse(json, path: "$", issues: &issues) else { continue }
            rulesByPlacement[try row.get(0), default: []].append(
                ServingRule(condition: condition, paywallID: try row.get(2), activeFrom: try row.get(3), activeUntil: try row.get(4)))
        }
        var placements: [String: AppServingSnapshot.PlacementEntry] = [:]
        for row in try db.query("SELECT key, paywall_id FROM placements WHERE app_id = ?", [appID]) {
            let key: String = try row.get(0)
            placements[key] = .init(key: key, paywallID: try row.get(1), rules: rulesByPlacement[key] ?? [])
        }
        var latest: [String: PublishedVersion] = [:]
        for row in try db.query("""
            SELECT v.paywall_id, v.version, v.document, v.schema_version, v.content_hash, v.published_at, v.rolled_back_from
            FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = ? AND v.version = (SELECT max(version) FROM paywall_versions w WHERE w.paywall_id = v.paywall_id)
            """, [appID]) {
            let paywallID: String = try row.get(0)
            let values = Row(columns: Array(row.columns.dropFirst()), values: Array(row.values.dropFirst()))
            latest[paywallID] = try PaywallService.publishedVersion(paywallID: paywallID, row: values)
        }
        let archived: [String] = try db.query("SELECT id FROM paywalls WHERE app_id = ? AND archived_at IS NOT NULL", [appID]).map { try $0.get(0) }
        return AppServingSnapshot(appID: appID, placements: placements, latestVersions: latest, archivedPaywalls: Set(archived))
    }

    /// The one resolution function, used by the SDK endpoint and the dashboard's dry run: the first
    /// active rule whose condition matches *and* whose paywall has a published version wins;
    /// otherwise the placement's own paywall.
    public func resolve(appID: String, placement key: String, context: PresentationContext) throws -> Resolution {
        guard let snapshot = snapshot(appID: appID), let placement = snapshot.placements[key] else {
            throw ServiceError(.notFound, "placement_not_found", "No placement '\(key)' in this app.")
        }
        let now = clock.now()
        for (index, rule) in placement.rules.enumerated() where rule.isActive(at: now) && rule.condition.matches(context) {
            if let version = snapshot.latestVersions[rule.paywallID] {
                return Resolution(placement: key, version: version, matchedRule: index,
                                  paywallArchived: snapshot.archivedPaywalls.contains(rule.paywallID))
            }
        }
        guard let version = snapshot.latestVersions[placement.paywallID] else {
            throw ServiceError(.notFound, "no_published_paywall", "Placement '\(key)' points at paywall '\(placement.paywallID)', which has no published version.")
        }
        return Resolution(placement: key, version: version, matchedRule: nil,
                          paywallArchived: snapshot.archivedPaywalls.contains(placement.paywallID))
    }
}
