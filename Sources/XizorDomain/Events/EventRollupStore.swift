/// An event waiting in the rollup queue; `event` is nil when the event was deleted since (a
/// subscriber's erasure, retention), so the job only drops its queue entry.
public struct QueuedEvent: Sendable {
    public let seq: Int64
    public let appID: String
    public let event: RollupEvent?

    package init(seq: Int64, appID: String, event: RollupEvent?) {
        self.seq = seq
        self.appID = appID
        self.event = event
    }
}

/// One of a subscriber's stored events, about to be erased: if the job folded it already
/// (`queued` false), it is taken out of the rollups first.
public struct ErasedEvent: Sendable {
    public let id: String
    public let event: RollupEvent
    public let queued: Bool

    package init(id: String, event: RollupEvent, queued: Bool) {
        self.id = id
        self.event = event
        self.queued = queued
    }
}

/// What a funnel read keeps of the rollups and the raw events: one paywall, optionally one
/// placement, one environment or both.
public struct RollupScope: Sendable {
    public let paywallID: String
    public let placement: String?
    public let environment: EnvironmentFilter

    public init(paywallID: String, placement: String?, environment: EnvironmentFilter) {
        self.paywallID = paywallID
        self.placement = placement
        self.environment = environment
    }
}

/// All SQL of the rollups (Migrations/0015): the queue the events' trigger fills, the job's fold,
/// and the reads every analytics answer is built from.
public protocol EventRollupStore {
    /// Up to `limit` queued events of any app after queue position `after` (0: from the start),
    /// oldest first (what the job folds next).
    func queued(after: Int64, limit: Int) throws -> [QueuedEvent]
    /// How many events of the app wait in the queue, counted up to `atMost` only.
    func queuedCount(appID: String, atMost: Int) throws -> Int
    /// The app's queued events in one paywall's `scope` that occurred in [from, to).
    func queued(appID: String, scope: RollupScope, from: Int64, to: Int64) throws -> [RollupEvent]
    /// The app's queued events of one experiment.
    func queued(appID: String, experimentID: String, environment: EnvironmentFilter) throws -> [RollupEvent]

    /// Adds `rollup` to the app's stored rollups (sketches merged, counts added, members' progress
    /// merged and the arms' counts moved by `armCounts`). The caller deletes the queue entries it
    /// folded in the same transaction.
    func fold(appID: String, _ rollup: EventRollup) throws
    /// Deletes the queue entries folded (by their `seq`, never "up to": writers commit out of order).
    func dequeue(_ seqs: [Int64]) throws
    /// Holds the fold to one writer at a time across processes (PostgreSQL's transaction-scoped
    /// advisory lock; SQLite's single writer already does), until the transaction ends.
    func lockFold() throws

    /// Up to `limit` stored cells of `span` in `scope` whose bucket starts in [from, to), after the
    /// cell `after` (nil: from the first), in bucket order: a read pages through a range, holding
    /// one page of sketches at a time.
    func funnelCells(
        appID: String, scope: RollupScope, span: RollupSpan, from: Int64, to: Int64, after: FunnelCellKey?, limit: Int
    ) throws -> [(FunnelCellKey, FunnelCell)]
    func revenueCells(appID: String, scope: RollupScope, span: RollupSpan, from: Int64, to: Int64) throws
        -> [(RevenueCellKey, RevenueCell)]
    /// The stored counts of each arm of the experiment.
    func armCounts(appID: String, experimentID: String, environment: EnvironmentFilter) throws
        -> [ExperimentArm: VariantCounts]
    func armRevenue(appID: String, experimentID: String, environment: EnvironmentFilter) throws
        -> [ExperimentArm: [String: RevenueCell]]
    /// The stored progress of these members (absent: not exposed yet).
    func progress(appID: String, of members: [ExperimentMember]) throws -> [ExperimentMember: MemberProgress]
    /// Up to `atMost` of a subscriber's events (their erasure, in chunks).
    func events(appID: String, subscriberID: String, atMost: Int) throws -> [ErasedEvent]
    /// Takes folded events of one subscriber out of the rollups before they are deleted: counts and
    /// revenue go down, and the subscriber leaves every exact sketch (a dense one cannot forget
    /// anyone; its estimate is off by at most that one subscriber). Members' progress is `forget`'s.
    func subtract(appID: String, _ rollup: EventRollup, subscriberID: String) throws
    /// Drops a subscriber's experiment progress and takes them out of each arm's counts (their
    /// erasure, once their events are gone); answers how many arms they were in.
    func forget(appID: String, subscriberID: String) throws -> Int
}
