/// A subscriber's stored attributes: a JSON object's canonical text.
public struct StoredSubscriberAttributes: Sendable {
    public let attributes: String
    public let updatedAt: Int64

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        attributes: String,
        updatedAt: Int64
    ) {
        self.attributes = attributes
        self.updatedAt = updatedAt
    }
}

/// What deleting a subscriber removed.
public struct SubscriberDeletion: Sendable, Equatable {
    public var attributes: Int
    public var timers: Int
    public var events: Int

    /// Every stored property, for the stores (XizorStores) that build it from a row.
    package init(
        attributes: Int,
        timers: Int,
        events: Int
    ) {
        self.attributes = attributes
        self.timers = timers
        self.events = events
    }
}

/// All SQL of what is stored per subscriber: attributes, and (for a deletion) its timers and events.
public protocol SubscriberStore {
    func attributes(appID: String, subscriberID: String) throws -> StoredSubscriberAttributes?
    /// Up to `limit` subscribers' stored attributes (JSON object texts), in the index's order: a
    /// bounded sample for the key picker (`TargetingKeys`), read along the primary key.
    func attributeSample(appID: String, limit: Int) throws -> [String]
    /// Up to `limit` of the app's stored events' `context` (JSON object texts, events without one
    /// skipped), in the index's order: the same bounded sample of context keys.
    func contextSample(appID: String, limit: Int) throws -> [String]
    /// Replaces the subscriber's attributes.
    func setAttributes(appID: String, subscriberID: String, attributes: String, now: Int64) throws
    /// The subscriber's attributes only; false when none were stored.
    func deleteAttributes(appID: String, subscriberID: String) throws -> Bool
    /// The subscriber's attributes and timers (a data-subject request; `events` is 0: its events go
    /// in chunks, `deleteEvents`).
    func delete(appID: String, subscriberID: String) throws -> SubscriberDeletion
    /// The app's events with these ids and timestamps (a chunk of one subscriber's,
    /// `EventRollupStore.events`; on PostgreSQL an event is its id and timestamp); how many went. A
    /// subscriber's events may be hundreds of thousands: one transaction each chunk keeps the
    /// writer free for everyone else.
    func deleteEvents(appID: String, _ events: [(id: String, occurredAt: Int64)]) throws -> Int
}
