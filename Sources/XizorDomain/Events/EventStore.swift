/// An SDK event as stored (context and properties as canonical JSON text).
public struct StoredEvent: Sendable, Equatable {
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
    /// Sandbox when a sandbox key sent it or it said so itself.
    public var environment: DataEnvironment = .production

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        id: String,
        name: String,
        occurredAt: Int64,
        placement: String?,
        paywallID: String?,
        version: Int?,
        subscriberID: String?,
        context: String?,
        properties: String?,
        experimentID: String?,
        variant: String?,
        environment: DataEnvironment = .production
    ) {
        self.id = id
        self.name = name
        self.occurredAt = occurredAt
        self.placement = placement
        self.paywallID = paywallID
        self.version = version
        self.subscriberID = subscriberID
        self.context = context
        self.properties = properties
        self.experimentID = experimentID
        self.variant = variant
        self.environment = environment
    }
}

/// An event as exported: what was stored, and when it was received.
public struct ExportedEvent: Sendable {
    public internal(set) var event: StoredEvent
    public let receivedAt: Int64

    /// For the stores (XizorStores) that read it from a row.
    package init(event: StoredEvent, receivedAt: Int64) {
        self.event = event
        self.receivedAt = receivedAt
    }
}

/// Event counts of one published version.
public struct FunnelCount: Sendable {
    public let version: Int
    public let name: String
    public let count: Int
    public let subscribers: Int
    /// The start of the time bucket (ms since 1970, UTC) in a series; nil in totals.
    public let bucket: Int64?

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        version: Int,
        name: String,
        count: Int,
        subscribers: Int,
        bucket: Int64?
    ) {
        self.version = version
        self.name = name
        self.count = count
        self.subscribers = subscribers
        self.bucket = bucket
    }
}

/// What one version's completed purchases brought in, in one currency (events that report a
/// numeric `price` and a `currency` in their properties).
public struct RevenueSum: Sendable {
    public let version: Int
    public let currency: String
    public let amount: Double
    public let purchases: Int

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        version: Int,
        currency: String,
        amount: Double,
        purchases: Int
    ) {
        self.version = version
        self.currency = currency
        self.amount = amount
        self.purchases = purchases
    }
}

/// One experiment variant's counts (the unit is the subscriber).
public struct VariantCounts: Sendable, Equatable {
    public var impressions = 0
    /// Subscribers who saw the variant.
    public var subscribers = 0
    /// Of those, subscribers who completed a purchase.
    public var converted = 0
    /// Subscribers with any event of the variant, and those of them with a completed purchase: the
    /// holdout's row (its subscribers see no paywall, so they have no `paywall_open`).
    public var exposed = 0
    public var exposedConverted = 0
    public init(
        impressions: Int = 0, subscribers: Int = 0, converted: Int = 0, exposed: Int = 0, exposedConverted: Int = 0
    ) {
        self.exposed = exposed
        self.exposedConverted = exposedConverted
        self.impressions = impressions
        self.subscribers = subscribers
        self.converted = converted
    }
}

/// All SQL of events and what is counted from them.
public protocol EventStore {
    /// Stores the events in one statement (a multi-row insert, however many there are up to the
    /// batch limit) and answers how many were new: one the app already has by id (a retried batch,
    /// or the same id twice in one batch) is skipped.
    func insert(appID: String, _ events: [StoredEvent], receivedAt: Int64) throws -> Int
    /// Counts per (version, event name) of one paywall's events, cut by `filter`.
    func funnel(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [FunnelCount]
    /// The same counts per time bucket of `bucketMs` (UTC), for a time series.
    func funnelSeries(appID: String, paywallID: String, filter: AnalyticsService.Filter, bucketMs: Int64) throws
        -> [FunnelCount]
    /// Revenue per (version, currency) from `purchase_completed` events' `price` and `currency` properties.
    func revenue(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> [RevenueSum]
    /// Events that the filter's time and placement keep but that lack one of its context keys, so
    /// a context-filtered funnel can say how many it left out rather than drop them silently.
    func countWithoutContextKeys(appID: String, paywallID: String, filter: AnalyticsService.Filter) throws -> Int64
    /// The paywalls the app has events of, found by seeking `events_by_hour` once per paywall
    /// (not by reading the app's events).
    func paywallsWithEvents(appID: String) throws -> [String]
    /// Deletes up to `atMost` of the app's events of one paywall (nil: events of none) that occurred
    /// before the hour starting at `beforeHour` × 1 h; how many went. Bounded by the hour so the
    /// delete walks `events_by_hour`, and only events wholly before the cutoff's hour are due.
    func deleteExpired(appID: String, paywallID: String?, beforeHour: Int64, atMost: Int) throws -> Int
    /// PostgreSQL: creates the monthly partition of every UTC month from `from`'s to `to`'s that has
    /// none (postgres/0018), moving that month's rows out of the default partition; how many it
    /// created. SQLite keeps one table: 0.
    func preparePartitions(from: Int64, to: Int64) throws -> Int
    /// PostgreSQL: drops every monthly partition whose month ended at or before `before` (ms); their
    /// names. SQLite: none.
    func dropPartitions(endingBy before: Int64) throws -> [String]
    /// Up to `limit` events whose `timestamp` is in [from, to) and whose (id, timestamp) sorts after
    /// `after`, in that order: the primary key's (PostgreSQL's holds the timestamp, and may hold an
    /// id twice), so an export pages through an app's events in one pass over it.
    func export(
        appID: String, from: Int64?, to: Int64?, environment: EnvironmentFilter, after: EventKey?, limit: Int
    ) throws -> [ExportedEvent]
    /// `paywall_open` events of one subscriber on `placement` showing one of `paywallIDs` that
    /// occurred at or after `since` (ms): what a rule's frequency cap counts. Counted up to
    /// `atMost` only, through `events_presentations`, so a cap reads at most its count of entries.
    func presentations(
        appID: String, subscriberID: String, placement: String, paywallIDs: [String], since: Int64, atMost: Int
    ) throws -> Int
}

/// The key of `events_by_hour`: `occurred_at / bucketMs`, an hour. Entries of one hour are kept
/// in insertion order, so concurrent SDK batches (each spanning seconds to minutes of timestamps)
/// append to the end of the current hour instead of landing on a page of their own per event.
/// A query for [from, to) bounds the hour too (the index's range) and then the exact milliseconds.
package enum EventTimeIndex {
    /// Written literally in both dialects' index and queries: an expression index is used only for
    /// the same expression.
    package static let bucketMs: Int64 = 3_600_000

    /// The hour of `from` (occurred_at ≥ from ⇒ its hour ≥ this).
    package static func firstBucket(from: Int64) -> Int64 { from / bucketMs }

    /// The hour of the last millisecond before `to` (occurred_at < to ⇒ its hour ≤ this); times are
    /// never negative, so `to` ≤ 0 keeps nothing either way.
    package static func lastBucket(to: Int64) -> Int64 { max(to - 1, 0) / bucketMs }
}

/// How a batch is cut into multi-row inserts: chunks of 64 rows, then the remainder in powers of two,
/// so a store prepares at most seven statement shapes (64, 32, …, 1 rows) whatever batch sizes
/// clients send, instead of one cached statement per size.
package enum EventInsertChunks {
    package static let largest = 64
    /// Every chunk size `ranges` answers: 64, 32, …, 1.
    package static let shapes: [Int] = Array(sequence(first: largest) { $0 > 1 ? $0 / 2 : nil })

    package static func ranges(count: Int) -> [Range<Int>] {
        precondition(count >= 0, "a batch has no negative size")
        var ranges: [Range<Int>] = []
        var start = 0
        while count - start >= largest {
            ranges.append(start..<(start + largest))
            start += largest
        }
        var size = largest / 2
        while start < count {
            if count - start >= size {
                ranges.append(start..<(start + size))
                start += size
            }
            size /= 2
        }
        return ranges
    }
}

/// Where an export's page ends: the last event's id and timestamp (an event's identity on
/// PostgreSQL, whose events are partitioned by month of the timestamp).
public struct EventKey: Sendable, Equatable {
    public let id: String
    public let occurredAt: Int64

    public init(id: String, occurredAt: Int64) {
        self.id = id
        self.occurredAt = occurredAt
    }
}
