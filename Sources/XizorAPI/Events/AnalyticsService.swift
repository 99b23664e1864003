import PaywallFormat

/// The funnel per published version of a paywall, so versions can be compared after every
/// publish. Optionally cut by time, placement and context values.
public final class AnalyticsService: Sendable {
    private let store: any DataStore

    public init(store: any DataStore) { self.store = store }

    public struct Filter: Sendable {
        public var from: Int64?
        public var to: Int64?
        public var placement: String?
        public var context: PresentationContext = [:]
        public init() {}
    }

    /// Event names counted per version, as answered.
    static let counted: [(field: String, event: String)] = [
        ("impressions", "paywall_open"), ("closes", "paywall_close"),
        ("purchaseStarted", "purchase_started"), ("purchaseCompleted", "purchase_completed"),
        ("purchaseFailed", "purchase_failed"), ("purchaseCancelled", "purchase_cancelled"),
        ("restores", "restore_completed"),
    ]

    public func funnel(appID: String, paywallID: String, filter: Filter) throws -> JSONValue {
        // A double quote cannot be escaped in SQLite's JSON paths; no SDK context key needs one.
        if filter.context.keys.contains(where: { $0.contains("\"") }) {
            throw ServiceError(.badRequest, "invalid_context_key", "A context key cannot contain '\"'.")
        }
        let (counts, versions) = try store.read { tx in
            guard try tx.paywalls.lifecycle(appID: appID, id: paywallID) != nil else { throw ServiceError.notFound("paywall", paywallID) }
            return (try tx.events.funnel(appID: appID, paywallID: paywallID, filter: filter),
                    try tx.paywalls.versions(paywallID: paywallID).map(\.version).sorted())
        }
        var perVersion: [Int: [String: FunnelCount]] = [:]
        for count in counts { perVersion[count.version, default: [:]][count.name] = count }
        var items: [JSONValue] = []
        for version in versions {
            let counts = perVersion[version] ?? [:]
            var object: [String: JSONValue] = ["version": .number(version)]
            for (field, event) in AnalyticsService.counted { object[field] = .number(counts[event]?.count ?? 0) }
            object["uniqueSubscribers"] = .number(counts["paywall_open"]?.subscribers ?? 0)
            let impressions = counts["paywall_open"]?.count ?? 0
            let completed = counts["purchase_completed"]?.count ?? 0
            object["conversion"] = impressions > 0 ? .number(Double(completed) / Double(impressions)) : .null
            items.append(.object(object))
        }
        return ["paywallId": .string(paywallID), "versions": .array(items)]
    }
}
