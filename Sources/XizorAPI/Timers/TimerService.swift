import PaywallFormat
import Storage

/// Persisted starts of duration timers, per (subscriber, paywall, node id): the first write wins,
/// so a countdown survives reinstalls and devices instead of restarting on every presentation.
public final class TimerService: Sendable {
    private let pool: DatabasePool
    private let clock: Clock

    public init(pool: DatabasePool, clock: Clock) {
        self.pool = pool
        self.clock = clock
    }

    /// The start of the timer, recording now when it has none yet.
    public func start(appID: String, body: JSONValue) throws -> (startedAt: Int64, created: Bool) {
        var issues: [ValidationIssue] = []
        func field(_ key: String) -> String? {
            guard let s = body[key]?.stringValue, TextLimits.fits(s, max: 200) else {
                issues.append(ValidationIssue(path: "$.\(key)", message: "'\(key)' is a string of 1 to 200 characters.",
                                              code: body[key] == nil ? "missing_required_field" : "type_mismatch"))
                return nil
            }
            return s
        }
        let subscriberID = field("subscriberId"), paywallID = field("paywallId"), nodeID = field("nodeId")
        guard issues.isEmpty, let subscriberID, let paywallID, let nodeID else { throw ServiceError.invalid(issues) }
        let now = clock.now()
        return try pool.serviceWrite { db in
            guard try db.queryOne("SELECT 1 FROM paywalls WHERE app_id = ? AND id = ?", [appID, paywallID]) != nil else {
                throw ServiceError.badField("$.paywallId", "unknown_paywall", "No paywall '\(paywallID)' in this app.")
            }
            try db.execute("""
                INSERT INTO timer_starts (app_id, subscriber_id, paywall_id, node_id, started_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [appID, subscriberID, paywallID, nodeID, now])
            let created = db.changes == 1
            let startedAt: Int64 = try db.queryOne("""
                SELECT started_at FROM timer_starts WHERE app_id = ? AND subscriber_id = ? AND paywall_id = ? AND node_id = ?
                """, [appID, subscriberID, paywallID, nodeID])?.get(0) ?? now
            return (startedAt, created)
        }
    }
}
