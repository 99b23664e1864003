import PaywallFormat

/// How the serving state is read from the database: whole at start-up, and by the change, so a
/// publish re-reads one paywall and a rule change the app's routing, not the app's every version.
extension ServingState {
    /// Loads every live app (at start-up).
    public func loadAll() throws {
        let appIDs = try store.read { tx in try tx.apps.liveAppIDs() }
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
                let snapshot = try store.read { tx in try load(appID: appID, tx) }
                install(snapshot, appID: appID)
                return
            }
            let next = try store.read { tx -> AppServingSnapshot in
                let routing =
                    update.routing
                    ? try loadRouting(appID: appID, tx)
                    : AppServingSnapshot.Routing(
                        placements: current.placements, experiments: current.experiments,
                        audiences: current.audiences, unreadableAudiences: current.unreadableAudiences)
                var latest = current.latestVersions
                var archived = current.archivedPaywalls
                for paywallID in update.paywalls {
                    guard let lifecycle = try tx.paywalls.lifecycle(appID: appID, id: paywallID) else {
                        latest = latest.setting(paywallID, to: nil)
                        archived.remove(paywallID)
                        continue
                    }
                    if lifecycle == .archived { archived.insert(paywallID) } else { archived.remove(paywallID) }
                    let newest = try tx.paywalls.latestVersionNumber(paywallID: paywallID)
                    let previous = latest[paywallID]
                    latest = latest.setting(
                        paywallID,
                        to: try newest.flatMap { try servedVersion(VersionKey(paywallID: paywallID, version: $0), tx) })
                    if let previous, previous.published.version != newest {
                        // The superseded version is no longer served: forget it.
                        versions.withLock {
                            _ = $0.removeValue(
                                forKey: VersionKey(paywallID: paywallID, version: previous.published.version))
                        }
                    }
                }
                return AppServingSnapshot(
                    appID: appID, routing: routing, latestVersions: latest, archivedPaywalls: archived)
            }
            install(next, appID: appID)
        }
    }

    func load(appID: String, _ tx: any StoreTransaction) throws -> AppServingSnapshot {
        let routing = try loadRouting(appID: appID, tx)
        var latest: [String: ServedVersion] = [:]
        for (paywallID, version) in try tx.paywalls.latestVersionNumbers(appID: appID) {
            latest[paywallID] = try servedVersion(VersionKey(paywallID: paywallID, version: version), tx)
        }
        // Superseded versions of this app's paywalls are no longer served: forget them.
        versions.withLock { cache in
            cache = cache.filter { key, _ in latest[key.paywallID].map { $0.published.version == key.version } ?? true }
        }
        let archived = try tx.paywalls.archivedPaywallIDs(appID: appID)
        return AppServingSnapshot(
            appID: appID, routing: routing, latestVersions: VersionTable(latest),
            archivedPaywalls: Set(archived))
    }

    /// A published version with its served forms: the one already built (by the publish, or an
    /// earlier load) when there is one, else read and built now.
    func servedVersion(_ key: VersionKey, _ tx: any StoreTransaction) throws -> ServedVersion? {
        if let cached = versions.withLock({ $0[key] }) { return cached }
        guard let stored = try tx.paywalls.version(paywallID: key.paywallID, version: key.version) else { return nil }
        let served = ServedVersion(published: try PaywallService.publishedVersion(stored, activity: activity))
        versions.withLock { $0[key] = served }
        return served
    }

    /// Placements with their rules, running experiments and audiences: what routes a request to a paywall.
    func loadRouting(appID: String, _ tx: any StoreTransaction) throws -> AppServingSnapshot.Routing {
        var routing = AppServingSnapshot.Routing()
        for audience in try tx.audiences.audiences(appID: appID) {
            let (condition, _) = storedCondition(
                audience.condition, options: Condition.ParseOptions(allowsAudiences: false))
            if let condition {
                routing.audiences[audience.id] = condition
            } else {
                routing.unreadableAudiences.insert(audience.id)
            }
        }
        for placement in try tx.placements.placements(appID: appID) {
            let rules = placement.rules.map { rule -> ServingRule in
                // Kept, marked unreadable, and counted: see `ServingRule.condition`.
                let (condition, unreadable) = storedCondition(rule.condition, options: Condition.ParseOptions())
                return ServingRule(
                    condition: condition, unreadable: unreadable, paywallID: rule.paywallID,
                    experimentID: rule.experimentID,
                    activeFrom: rule.activeFrom, activeUntil: rule.activeUntil, frequencyCap: rule.frequencyCap)
            }
            routing.placements[HashedName(placement.key)] = .init(
                key: placement.key, paywallID: placement.paywallID, experimentID: placement.experimentID,
                rules: rules, audiences: routing.audiences)
        }
        for experiment in try tx.experiments.running(appID: appID) {
            routing.experiments[experiment.id] = .init(
                id: experiment.id, variants: experiment.variants.map { ($0.name, $0.paywallID) },
                allocation: experiment.allocation)
        }
        return routing
    }

    /// A stored condition, or why it no longer reads (counted as a data failure).
    private func storedCondition(_ text: String, options: Condition.ParseOptions) -> (Condition?, String?) {
        var issues: [ValidationIssue] = []
        var condition: Condition?
        var unreadable: String?
        do {
            let json = try JSONValue(parsing: text)
            condition = Condition.parse(json, path: "$", issues: &issues, options: options)
            if condition == nil { unreadable = issues.map(\.message).joined(separator: "; ") }
        } catch {
            unreadable = "not valid JSON: \(error)"
        }
        if unreadable != nil { activity.recordDataFailure(.storedRule) }
        return (condition, unreadable)
    }
}
