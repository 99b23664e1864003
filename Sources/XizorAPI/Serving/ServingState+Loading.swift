import PaywallFormat
import Storage

/// How the serving state is read from the database: whole at start-up, and by the change, so a
/// publish re-reads one paywall and a rule change the app's routing, not the app's every version.
extension ServingState {
    /// Loads every live app (at start-up).
    public func loadAll() throws {
        let appIDs: [String] = try pool.serviceRead { db in
            try db.query("SELECT id FROM apps WHERE archived_at IS NULL").map { try $0.get(0) }
        }
        for appID in appIDs { try refresh(appID: appID) }
    }

    /// Re-reads one app's serving data and installs it.
    public func refresh(appID: String) throws { try apply(appID: appID, Update(whole: true)) }

    /// What one app's changes ask of its snapshot: whole (start, or a change that names no
    /// entity), the routing (placements, rules, experiments: small, re-read together), and some
    /// paywalls (each re-read alone; every other version is kept as it is).
    public struct Update: Sendable, Equatable {
        public var whole = false
        public var routing = false
        public var paywalls: Set<String> = []
        public init(whole: Bool = false, routing: Bool = false, paywalls: Set<String> = []) {
            self.whole = whole
            self.routing = routing
            self.paywalls = paywalls
        }
    }

    /// Applies `update` to one app's snapshot: a publish re-reads one paywall, not the app's
    /// thousands, so its cost does not grow with the app (docs/scaling.md).
    public func apply(appID: String, _ update: Update) throws {
        try refreshLock.withLock { _ in
            guard !update.whole, let current = snapshot(appID: appID) else {
                let snapshot = try pool.serviceRead { db in try load(appID: appID, db) }
                snapshots.write { $0[appID] = snapshot }
                return
            }
            let next = try pool.serviceRead { db -> AppServingSnapshot in
                let routing = update.routing ? try loadRouting(appID: appID, db) : (current.placements, current.experiments)
                var latest = current.latestVersions
                var archived = current.archivedPaywalls
                for paywallID in update.paywalls {
                    guard let row = try db.queryOne("SELECT archived_at FROM paywalls WHERE id = ? AND app_id = ?", [paywallID, appID]) else {
                        latest = latest.setting(paywallID, to: nil)
                        archived.remove(paywallID)
                        continue
                    }
                    if (try row.get(0) as Int64?) != nil { archived.insert(paywallID) } else { archived.remove(paywallID) }
                    let newest: Int? = try db.queryOne("SELECT max(version) FROM paywall_versions WHERE paywall_id = ?", [paywallID])?.get(0)
                    let previous = latest[paywallID]
                    latest = latest.setting(paywallID, to: try newest.flatMap { try servedVersion(VersionKey(paywallID: paywallID, version: $0), db) })
                    if let previous, previous.published.version != newest {
                        // The superseded version is no longer served: forget it.
                        versions.withLock { _ = $0.removeValue(forKey: VersionKey(paywallID: paywallID, version: previous.published.version)) }
                    }
                }
                return AppServingSnapshot(appID: appID, placements: routing.0, experiments: routing.1, latestVersions: latest, archivedPaywalls: archived)
            }
            snapshots.write { $0[appID] = next }
        }
    }

    func load(appID: String, _ db: Database) throws -> AppServingSnapshot {
        let (placements, experiments) = try loadRouting(appID: appID, db)
        var latest: [String: ServedVersion] = [:]
        for row in try db.query("""
            SELECT v.paywall_id, max(v.version) FROM paywall_versions v JOIN paywalls p ON p.id = v.paywall_id
            WHERE p.app_id = ? GROUP BY v.paywall_id
            """, [appID]) {
            let key = VersionKey(paywallID: try row.get(0), version: try row.get(1))
            latest[key.paywallID] = try servedVersion(key, db)
        }
        // Superseded versions of this app's paywalls are no longer served: forget them.
        versions.withLock { cache in
            cache = cache.filter { key, _ in latest[key.paywallID].map { $0.published.version == key.version } ?? true }
        }
        let archived: [String] = try db.query("SELECT id FROM paywalls WHERE app_id = ? AND archived_at IS NOT NULL", [appID]).map { try $0.get(0) }
        return AppServingSnapshot(appID: appID, placements: placements, experiments: experiments, latestVersions: VersionTable(latest),
                                  archivedPaywalls: Set(archived))
    }

    /// A published version with its served forms: the one already built (by the publish, or an
    /// earlier load) when there is one, else read and built now.
    func servedVersion(_ key: VersionKey, _ db: Database) throws -> ServedVersion? {
        if let cached = versions.withLock({ $0[key] }) { return cached }
        guard let versionRow = try db.queryOne("""
            SELECT version, document, schema_version, content_hash, published_at, rolled_back_from
            FROM paywall_versions WHERE paywall_id = ? AND version = ?
            """, [key.paywallID, key.version]) else { return nil }
        let served = ServedVersion(published: try PaywallService.publishedVersion(paywallID: key.paywallID, row: versionRow, activity: activity))
        versions.withLock { $0[key] = served }
        return served
    }

    /// Placements with their rules, and running experiments: what routes a request to a paywall.
    func loadRouting(appID: String, _ db: Database) throws -> ([String: AppServingSnapshot.PlacementEntry], [String: AppServingSnapshot.RunningExperiment]) {
        var rulesByPlacement: [String: [ServingRule]] = [:]
        for row in try db.query("""
            SELECT placement_key, condition, paywall_id, active_from, active_until, experiment_id FROM placement_rules
            WHERE app_id = ? ORDER BY placement_key, position
            """, [appID]) {
            var issues: [ValidationIssue] = []
            let text: String = try row.get(1)
            // Kept, marked unreadable, and counted: see `ServingRule.condition`.
            let placementKey: String = try row.get(0)
            var condition: Condition?
            var unreadable: String?
            do {
                let json = try JSONValue(parsing: text)
                condition = Condition.parse(json, path: "$", issues: &issues)
                if condition == nil { unreadable = issues.map(\.message).joined(separator: "; ") }
            } catch {
                unreadable = "not valid JSON: \(error)"
            }
            if unreadable != nil { activity.recordDataFailure(.storedRule) }
            rulesByPlacement[placementKey, default: []].append(
                ServingRule(condition: condition, unreadable: unreadable, paywallID: try row.get(2), experimentID: try row.get(5),
                            activeFrom: try row.get(3), activeUntil: try row.get(4)))
        }
        var placements: [String: AppServingSnapshot.PlacementEntry] = [:]
        for row in try db.query("SELECT key, paywall_id, experiment_id FROM placements WHERE app_id = ?", [appID]) {
            let key: String = try row.get(0)
            placements[key] = .init(key: key, paywallID: try row.get(1), experimentID: try row.get(2), rules: rulesByPlacement[key] ?? [])
        }
        var experiments: [String: AppServingSnapshot.RunningExperiment] = [:]
        for row in try db.query("SELECT id, allocation FROM experiments WHERE app_id = ? AND status = 'running'", [appID]) {
            let id: String = try row.get(0)
            let variants = try db.query("SELECT name, paywall_id FROM experiment_variants WHERE experiment_id = ? ORDER BY position", [id])
                .map { (name: try $0.get(0) as String, paywallID: try $0.get(1) as String) }
            experiments[id] = .init(id: id, variants: variants, allocation: try row.get(1))
        }
        return (placements, experiments)
    }
}
