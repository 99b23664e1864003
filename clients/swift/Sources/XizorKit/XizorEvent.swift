import Foundation

/// A funnel event as `POST /v1/sdk/events` takes it. The `id` is made once, when the event is
/// tracked, and kept with it on disk: however often a batch is retried, the server counts it once.
public struct XizorEvent: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var placement: String?
    public var paywallId: String?
    public var version: Int?
    public var subscriberId: String?
    public var context: [String: ContextValue]?
    public var properties: [String: JSONValue]?
    public var experimentId: String?
    public var variant: String?

    public init(
        name: String, paywall: Paywall? = nil, subscriberId: String? = nil, context: [String: ContextValue]? = nil,
        properties: [String: JSONValue]? = nil, date: Date = Date(), id: String = UUID().uuidString.lowercased()
    ) {
        self.id = id
        self.name = name
        self.timestamp = Int64((date.timeIntervalSince1970 * 1000).rounded())
        self.subscriberId = subscriberId
        self.context = context
        self.properties = properties
        if let paywall { attribute(to: paywall) }
    }

    /// Fills in what the server decided for the presentation: placement, paywall, version, and
    /// the experiment and variant, so results count the event for the variant that was shown.
    public mutating func attribute(to paywall: Paywall) {
        placement = paywall.placement
        paywallId = paywall.paywallId
        version = paywall.version
        experimentId = paywall.experiment?.id
        variant = paywall.experiment.flatMap { $0.holdout ? "holdout" : $0.variant }
    }

    /// Funnel event names the server knows; any other `[A-Za-z0-9_.:-]{1,100}` is a custom event.
    public static let paywallOpen = "paywall_open"
    public static let paywallClose = "paywall_close"
    public static let purchaseStarted = "purchase_started"
    public static let purchaseCompleted = "purchase_completed"
    public static let purchaseFailed = "purchase_failed"
    public static let purchaseCancelled = "purchase_cancelled"
    public static let restoreStarted = "restore_started"
    public static let restoreCompleted = "restore_completed"
    public static let restoreFailed = "restore_failed"
}
