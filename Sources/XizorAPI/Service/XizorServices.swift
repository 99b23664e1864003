import Storage

/// The domain services over one database: what the REST routes, the MCP tools and the CLI share.
public final class XizorServices: Sendable {
    public let pool: DatabasePool
    public let clock: Clock
    public let keys: KeyService
    public let serving: ServingState
    public let paywalls: PaywallService
    public let placements: PlacementService
    public let events: EventService
    public let analytics: AnalyticsService
    public let timers: TimerService
    public let experiments: ExperimentService
    /// Counters of publishes and ingested events, for `/metrics`.
    public let activity = ServiceActivity()

    /// Loads the in-memory state (keys, serving snapshots) from a migrated database.
    /// The abuse limits the services enforce themselves (docs/operations.md, "Abuse limits").
    public struct Limits: Sendable {
        public var eventWindow = EventService.TimeWindow()
        public var maxKeysPerApp = KeyService.defaultMaxKeysPerApp
        public init() {}
    }

    public init(pool: DatabasePool, clock: Clock = .system, limits: Limits = Limits()) throws {
        self.pool = pool
        self.clock = clock
        keys = try KeyService(pool: pool, clock: clock, maxKeysPerApp: limits.maxKeysPerApp)
        serving = ServingState(pool: pool, clock: clock, activity: activity)
        paywalls = PaywallService(pool: pool, clock: clock, serving: serving, activity: activity)
        placements = PlacementService(pool: pool, clock: clock, serving: serving, activity: activity)
        events = EventService(pool: pool, clock: clock, activity: activity, window: limits.eventWindow)
        analytics = AnalyticsService(pool: pool)
        timers = TimerService(pool: pool, clock: clock)
        experiments = ExperimentService(pool: pool, clock: clock, serving: serving)
        try serving.loadAll()
    }
}
