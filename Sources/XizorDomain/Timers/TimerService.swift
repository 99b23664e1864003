import PaywallFormat

/// Persisted starts of duration timers, per (subscriber, paywall, node id): the first write wins,
/// so a countdown survives reinstalls and devices instead of restarting on every presentation.
public final class TimerService: Sendable {
    private let store: any DataStore
    private let clock: Clock

    public init(store: any DataStore, clock: Clock) {
        self.store = store
        self.clock = clock
    }

    /// The start of the timer, recording now when it has none yet.
    public func start(appID: String, body: JSONValue) throws -> (startedAt: Int64, created: Bool) {
        var issues: [ValidationIssue] = []
        func field(_ key: String) -> String? {
            guard let s = body[key]?.stringValue, TextLimits.fits(s, max: 200) else {
                issues.append(
                    ValidationIssue(
                        path: "$.\(key)", message: "'\(key)' is a string of 1 to 200 characters.",
                        code: body[key] == nil ? "missing_required_field" : "type_mismatch"))
                return nil
            }
            return s
        }
        let subscriberID = field("subscriberId")
        let paywallID = field("paywallId")
        let nodeID = field("nodeId")
        guard issues.isEmpty, let subscriberID, let paywallID, let nodeID else { throw ServiceError.invalid(issues) }
        let now = clock.now()
        return try store.write { tx in
            guard try tx.paywalls.lifecycle(appID: appID, id: paywallID) != nil else {
                throw ServiceError.badField("$.paywallId", "unknown_paywall", "No paywall '\(paywallID)' in this app.")
            }
            return try tx.timers.start(
                appID: appID, subscriberID: subscriberID, paywallID: paywallID, nodeID: nodeID, now: now)
        }
    }
}
