import PaywallFormat
import Storage

/// The funnel per published version of a paywall, so versions can be compared after every
/// publish. Optionally cut by time, placement and context values.
public final class AnalyticsService: Sendable {
    private let pool: DatabasePool

    public init(pool: DatabasePool) { self.pool = pool }

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
        try pool.serviceRead { db in
            guard try db.queryOne("SELECT 1 FROM paywalls WHERE app_id = ? AND id = ?", [appID, paywallID]) != nil else {
                throw ServiceError.notFound("paywall", paywallID)
            }
            var sql = """
                SELECT version, name, count(*), count(DISTINCT subscriber_id) FROM events
                WHERE app_id = ? AND paywall_id = ? AND version IS NOT NULL
                """
            var bindings: [any SQLBindable] = [appID, paywallID]
            if let from = filter.from { sql += " AND occurred_at >= ?"; bindings.append(from) }
            if let to = filter.to { sql += " AND occurred_at < ?"; bindings.append(to) }
            if let placement = filter.placement { sql += " AND placement = ?"; bindings.append(placement) }
            for (key, value) in filter.context.sorted(by: { $0.key < $1.key }) {
                // SQLite's JSON paths cannot escape a double quote.
                guard !key.contains("\"") else {
                    throw ServiceError(.badRequest, "invalid_context_key", "A context key cannot contain '\"'.")
                }
                // Typed like the SDK's context: "1" never matches the number 1 or true.
                let path = "$.\"\(key)\""
                switch value {
                case .string(let text):
                    sql += " AND json_type(context, ?) = 'text' AND json_extract(context, ?) = ?"
                    bindings += [path, path, text]
                case .number(let number):
                    sql += " AND json_type(context, ?) IN ('integer', 'real') AND json_extract(context, ?) = ?"
                    bindings += [path, path, number]
                case .bool(let flag):
                    sql += " AND json_type(context, ?) = ?"
                    bindings += [path, flag ? "true" : "false"]
                }
            }
            sql += " GROUP BY version, name"
            var perVersion: [Int: [String: (count: Int, subscribers: Int)]] = [:]
            for row in try db.query(sql, bindings) {
                let version: Int = try row.get(0)
                perVersion[version, default: [:]][try row.get(1)] = (try row.get(2), try row.get(3))
            }
            let versions: [Int] = try db.query("SELECT version FROM paywall_versions WHERE paywall_id = ? ORDER BY version", [paywallID]).map { try $0.get(0) }
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
}
