/// An SDK event as stored (context and properties as canonical JSON text).
public struct StoredEvent: Sendable {
    public let id: String
    public let name: String
    public let occurredAt: Int64
    public let placement: String?
    public let paywallID: String?
    public let version: Int?
    public let subscriberID: String?
    public let context: String?
    public let properties: String?
    public let experimentID: String?
    public let variant: String?
}

/// Event counts of one published version.
public struct FunnelCount: Sendable {
    public let version: Int
    public let name: String
    public let count: Int
    public let subscribers: Int
}

/// One experiment variant's counts (the unit is the subscriber).
public struct VariantCounts: Sendable, Equatable {
    public var impressions = 0
    /// Subscribers who saw the variant.
    public var subscribers = 0
    /// Of those, subscribers who completed a purchase.
    public var converted = 0
    public init(impressions: Int = 0, subscribers: Int = 0, converted: Int = 0) {
        self.impressions = impressions
        self.subscribers = subscribers
        self.converted = converted
    }
}

/// All SQL of events and what is counted from them.
public protocol EventStore {
    /// Stores the event; false when the app already has an event with this id (a retried batch).
    func insert(appID: String, _ event: StoredEvent, receivedAt: Int64) throws -> Bool
    /// Counts per (version, event name) of one paywall's events, cut by `filter`.
    func funnel(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [FunnelCount]
    /// Counts per variant name of one experiment's events.
    func variantCounts(appID: String, experimentID: String) throws -> [String: VariantCounts]
}
