import Digest
import PaywallFormat
import StoreSignatures

/// The domain services over one data store: what the REST routes, the MCP tools and the CLI share.
public final class XizorServices: Sendable {
    public let store: any DataStore
    public let clock: Clock
    public let keys: KeyService
    public let serving: ServingState
    public let paywalls: PaywallService
    public let placements: PlacementService
    public let audiences: AudienceService
    public let subscribers: SubscriberService
    public let events: EventService
    public let analytics: AnalyticsService
    /// Folds queued events into the rollups analytics read (`EventRollupJob` runs it).
    public let rollups: EventRollupService
    /// The bound on reports (funnels, experiment results), shared by both services and `/metrics`.
    public let analyticsGate: AnalyticsGate
    public let timers: TimerService
    public let experiments: ExperimentService
    public let assets: AssetService
    public let audit: AuditService
    public let webhooks: WebhookService
    /// Verified revenue: store notifications, their ledger and reports.
    public let revenue: RevenueService
    /// Short-lived signed URLs of previews, for the console's frame.
    public let previewLinks: PreviewLinks
    /// The Ed25519 keys SDK answers are signed with.
    public let signing: AnswerSigning
    /// People: accounts and their roles in apps (docs/teams.md).
    public let users: UserService
    /// Signing in, and the sessions it makes.
    public let sessions: SessionService
    /// Owners' invitations of people to their apps.
    public let invitations: InvitationService
    /// People's second factor (TOTP and recovery codes).
    public let twoFactor: TwoFactorService
    /// Single sign-on with an OpenID Connect provider (nil: not configured).
    public let singleSignOn: SingleSignOn?
    /// Wakes the webhook dispatcher after a write that may have filled the outbox.
    public let outboxSignal = WakeSignal()
    /// What this process's webhook senders did, for `/metrics` (zero when it sends none).
    public let webhookCounters = WebhookCounters()
    /// What this process's cache purger did, for `/metrics`.
    public let cachePurges = CachePurgeCounters()
    /// Every committed change, in order, applied to the keys and serving state of this process.
    public let changes: ChangeFeed
    /// Counters of publishes and ingested events, for `/metrics`.
    public let activity = ServiceActivity()

    /// Loads the in-memory state (keys, serving snapshots) from a migrated database.
    /// The abuse limits the services enforce themselves (docs/operations.md, "Abuse limits").
    public struct Limits: Sendable {
        public var eventWindow = EventService.TimeWindow()
        /// `rateLimits.eventsPerSubscriberPerMinute` (0: none; the services' tests run without).
        public var eventsPerSubscriberPerMinute = 0
        public var maxKeysPerApp = KeyService.defaultMaxKeysPerApp
        /// Refuse to publish a draft with a locale missing texts or with stale translations.
        public var requireCompleteLocales = false
        /// The largest draft (canonical bytes) a save or a patch may store: `http.maxBodyBytes`.
        public var maxDraftBytes = JSONPatch.Budget.standard.maxBytes
        /// Upload limits of media assets.
        public var assets = AssetService.Limits()
        /// Where asset URLs point (`server.publicURL`).
        public var assetLocation = AssetLocation(publicOrigin: nil)
        /// `audit.retentionDays`.
        public var auditRetentionDays = 365
        /// What one app's reports may take of the read connections (`analytics.*`).
        public var analytics = AnalyticsGate.Limits()
        /// How long raw events are kept (`events.retentionDays`, `events.retentionChunk`).
        public var eventRetention = EventRetention()
        /// Events per fold of the rollup job (`analytics.rollupBatch`).
        public var rollupBatch = 5_000
        /// Webhook targets and endpoint counts (`webhooks.*`).
        public var webhooks = WebhookService.Options()
        /// The roots App Store signatures may chain to: Apple Root CA - G3, and `stores.apple.rootCertificates`.
        public var appleSignatures = SignedDataVerifier.apple
        /// `signing.keyFile`'s key: then the only one, and the database's are not used.
        public var signingKey: Ed25519PrivateKey?
        /// Sessions, lock-out and password hashing (`auth.*`).
        public var sessions = SessionService.Options()
        /// The OpenID Connect provider people sign in with (`oidc.*`; nil: none).
        public var singleSignOn: SingleSignOn.Options?
        /// Where invitation links point and how they are mailed (`smtp.*`).
        public var invitations = InvitationService.Options()
        /// Where the services report what they cannot answer to anyone (a mail that failed).
        public var logFailure: @Sendable (String) -> Void = { _ in }
        public init() {}
    }

    public init(store: any DataStore, clock: Clock = .system, limits: Limits = Limits()) throws {
        self.store = store
        self.clock = clock
        // The feed's position is read before anything is loaded, so nothing committed meanwhile is missed.
        changes = try ChangeFeed(store: store, clock: clock)
        keys = try KeyService(store: store, clock: clock, changes: changes, maxKeysPerApp: limits.maxKeysPerApp)
        serving = ServingState(store: store, clock: clock, activity: activity, assetLocation: limits.assetLocation)
        paywalls = PaywallService(
            store: store, clock: clock, serving: serving, changes: changes, activity: activity,
            requireCompleteLocales: limits.requireCompleteLocales, maxDraftBytes: limits.maxDraftBytes)
        placements = PlacementService(store: store, clock: clock, changes: changes, activity: activity)
        audiences = AudienceService(store: store, clock: clock, changes: changes, activity: activity)
        subscribers = SubscriberService(store: store, clock: clock, changes: changes, activity: activity)
        events = EventService(
            store: store, clock: clock, activity: activity, window: limits.eventWindow,
            eventsPerSubscriberPerMinute: limits.eventsPerSubscriberPerMinute, retention: limits.eventRetention)
        analyticsGate = AnalyticsGate(store: store, limits: limits.analytics, readConnections: store.readConnections)
        analytics = AnalyticsService(gate: analyticsGate)
        rollups = EventRollupService(store: store, batch: limits.rollupBatch)
        timers = TimerService(store: store, clock: clock)
        experiments = ExperimentService(store: store, clock: clock, changes: changes, analyticsGate: analyticsGate)
        assets = AssetService(store: store, clock: clock, location: limits.assetLocation, limits: limits.assets)
        audit = AuditService(store: store, clock: clock, retentionDays: limits.auditRetentionDays)
        previewLinks = PreviewLinks(store: store, clock: clock)
        signing = try AnswerSigning(store: store, clock: clock, fileKey: limits.signingKey)
        webhooks = WebhookService(store: store, clock: clock, options: limits.webhooks, outboxSignal: outboxSignal)
        let passwords = PasswordGate(
            parameters: limits.sessions.passwordHashing, concurrent: limits.sessions.concurrentHashes)
        users = UserService(store: store, clock: clock, hasher: passwords)
        sessions = SessionService(store: store, clock: clock, options: limits.sessions, gate: passwords)
        twoFactor = TwoFactorService(store: store, clock: clock, sessions: sessions)
        let (sessionService, userService) = (sessions, users)
        singleSignOn = limits.singleSignOn.map {
            SingleSignOn(options: $0, store: store, clock: clock, sessions: sessionService, users: userService)
        }
        invitations = InvitationService(
            store: store, clock: clock, sessions: sessions, users: users, options: limits.invitations,
            logFailure: limits.logFailure)
        revenue = RevenueService(
            store: store, clock: clock, verifier: limits.appleSignatures, analyticsGate: analyticsGate,
            rollups: rollups, outboxSignal: outboxSignal)
        try serving.loadAll()
        // Weak: the feed is owned by the services it feeds.
        changes.setApplier { [weak keys, weak serving, weak signing, outboxSignal] effects in
            // Every write that announces a webhook event also appends a change: applying it here
            // (right after the write in this process, on the next poll in others) wakes the senders.
            outboxSignal.wake()
            if effects.reloadAll {
                // Any attribute write may be among the pruned changes: nothing cached is trusted.
                serving?.attributeCache.clear()
                try keys?.reload()
                try signing?.reload()
                try serving?.loadAll()
                return
            }
            if effects.allSubscribers { serving?.attributeCache.clear() }
            for (app, subscribers) in effects.subscribers {
                serving?.attributeCache.invalidate(appID: app, subscriberIDs: subscribers)
            }
            // Instance-wide keys: the admin tokens, and the signing keys a rotation replaced.
            if effects.adminKeys {
                try keys?.reload(.admin)
                try signing?.reload()
            }
            for app in effects.keyApps.sorted() { try keys?.reload(.app(app)) }
            for (app, update) in effects.serving.sorted(by: { $0.key < $1.key }) {
                try serving?.apply(appID: app, update)
            }
        }
    }
}
